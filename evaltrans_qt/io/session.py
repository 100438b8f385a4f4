"""The database session file: evaluation options and UI state saved beside a database.

``corpus.etdb.xml`` gets ``corpus.etdb.xml.session.json`` holding the options
of the last run (``EvalOptions.to_dict()``), the chosen measures and a log of
runs (each with its options, so a run can be reproduced). Written atomically;
a damaged session file is reported and never overwrites the database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.atomic import atomic_write_text

SUFFIX = ".session.json"


def session_path(database_path: str | Path) -> Path:
    return Path(str(database_path) + SUFFIX)


@dataclass
class Session:
    """What is remembered about working with one database."""

    options: EvalOptions = field(default_factory=EvalOptions)
    measures: list[str] | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)

    def record_run(self, options: EvalOptions, measures: list[str], systems: list[str],
                   when: str, seconds: float) -> None:
        """Append a run to the log (options included, so it can be reproduced)."""
        self.runs.append({"when": when, "seconds": round(seconds, 3), "measures": list(measures),
                          "systems": list(systems), "options": options.to_dict()})
        del self.runs[:-50]

    def to_json(self) -> str:
        return json.dumps({"format": "evaltrans_qt-session/1", "options": self.options.to_dict(),
                           "measures": self.measures, "runs": self.runs},
                          ensure_ascii=False, indent=1)


def load_session(database_path: str | Path) -> Session:
    """The session of a database; an empty one if there is no session file."""
    p = session_path(database_path)
    if not p.exists():
        return Session()
    from evaltrans_qt.io.limits import load_json
    from evaltrans_qt.io.plaintext import read_input_bytes
    try:
        data = load_json(read_input_bytes(p, "a session file").decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:   # JSONDecodeError and limits' bounds
        line = getattr(exc, "lineno", None)
        col = getattr(exc, "colno", None)
        raise InputFormatError(f"damaged session file: {exc}", p, line, col) from None
    if not isinstance(data, dict):
        raise InputFormatError("session file is not a JSON object", p)
    try:
        opts = EvalOptions.from_dict(data.get("options", {}))
    except Exception as exc:  # OptionError with the option's name
        raise InputFormatError(f"session file has invalid options: {exc}", p) from None
    return Session(opts, data.get("measures"), list(data.get("runs", [])))


def save_session(database_path: str | Path, session: Session) -> Path:
    """Write the session file atomically (io/atomic.py)."""
    p = session_path(database_path)
    atomic_write_text(p, session.to_json())
    return p
