"""What the commands share, one way each:

* :func:`open_database` -- read a database (errors name file, line and problem), optionally
  with the scores an unfinished scoring session left in its journal;
* :func:`write_database` -- the one write path (:func:`evaltrans_qt.io.etdb.save_database`:
  validated, parsed back, replaced atomically), and :func:`refuse_pending_journal`, the
  check before a database is changed in place;
* :func:`add_option_arguments` / :func:`options_from_args` -- ``--preset`` plus one flag
  per evaluation option (thesis Tables A.1-A.8), turned into
  :class:`~evaltrans_qt.engine.options.EvalOptions` by
  :func:`~evaltrans_qt.engine.options.options_from`, the builder the Python API uses too;
* :func:`number` -- the format of every number in a command's text output.

Only light modules are imported here at module level (``evaltrans score`` loads this
module and must not load numba, scipy or pandas).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from evaltrans_qt.engine.options import PRESETS, EvalOptions, option_fields, options_from
from evaltrans_qt.errors import EvalTransError

if TYPE_CHECKING:
    from pathlib import Path

    from evaltrans_qt.engine.data.database import Database


# --------------------------------------------------------------------------- databases
def open_database(path: str | Path, *, journal: bool = False) -> Database:
    """The database at ``path`` (``InputFormatError``/``ScoreError`` name file, line and
    problem). ``journal``: as the application opens it -- the score changes an unfinished
    scoring session left in the journal beside it are replayed in memory (the file is not
    changed), with a note on stderr."""
    if not journal:
        from evaltrans_qt.io.etdb import load_database
        return load_database(path)
    from evaltrans_qt.workspace import load_with_journal
    db, rec = load_with_journal(path)
    if rec is not None and rec.applied:
        sys.stderr.write(f"note: {len(rec.applied)} score change(s) from the journal of an "
                         f"unfinished scoring session are included (not yet saved in {path})\n")
    return db


def refuse_pending_journal(path: str | Path, held: str = "changes",
                           advice: str = "or end the session first") -> None:
    """Refuse to write ``path`` while a journal beside it holds ``held`` a session has not
    saved yet (the application is open, or crashed): writing now could make them
    unrecoverable. The one check of every command that changes a database in place
    (``classes``, ``items``/``postedit``/``reference``, ``segranks``/``ranking``)."""
    from evaltrans_qt.io.journal import Journal, journal_path
    jp = journal_path(path)
    if jp.exists() and Journal(jp).entries():
        raise EvalTransError(f"a scoring session's journal ({jp}) holds {held} not yet saved in "
                             f"this file; open it in evaltrans-qt (which recovers them) {advice}",
                             str(path))


def write_database(db: Database, path: str | Path, summary: str | None = None, *,
                   also: Iterable[tuple[str | Path, bytes]] = ()) -> None:
    """Write ``db`` to ``path`` through :func:`~evaltrans_qt.io.etdb.save_database`'s
    checks (validated, serialised, parsed back; atomic). ``also``: other files written
    with it -- after the database's bytes passed those checks and before the database
    itself, so a database that would not save leaves every file untouched. ``summary``:
    printed on stderr as ``PATH: summary``."""
    from evaltrans_qt.io.etdb import checked_bytes, save_database
    others = list(also)
    if others:
        from evaltrans_qt.io.atomic import atomic_write_bytes
        data = checked_bytes(db, path)
        for other, content in others:
            atomic_write_bytes(other, content)
        atomic_write_bytes(path, data)
    else:
        save_database(db, path)
    if summary is not None:
        print(f"{path}: {summary}", file=sys.stderr)


# --------------------------------------------------------------------------- options
PRESET_HELP = ("start from these option settings (thesis Table 8.3); explicit options "
               "override")


def add_preset_argument(container: argparse._ActionsContainer, default: str | None = None,
                        help: str = PRESET_HELP) -> None:
    """``--preset NAME``: the options to start from (:data:`~evaltrans_qt.engine.options.PRESETS`)."""
    container.add_argument("--preset", default=default, choices=sorted(PRESETS), help=help)


def add_option_arguments(p: argparse.ArgumentParser, *, preset: bool = True) -> None:
    """``--preset`` (unless ``preset`` is False: the command adds it where it wants it,
    :func:`add_preset_argument`) plus one argument per evaluation option, generated from
    :func:`~evaltrans_qt.engine.options.option_fields` with the thesis' flag names
    (``--wer-ref-length-rule lowestError``), one group per option group. Every command
    whose numbers depend on the options calls it."""
    if preset:
        add_preset_argument(p)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for f in option_fields():
        md = f.metadata
        g = groups.get(md["group"])
        if g is None:
            g = groups[md["group"]] = p.add_argument_group(f"{md['group']} options")
        default = f.default
        shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
        # (argparse %-formats help texts: a literal % must be doubled)
        help_ = f"{md['help']} (default: {shown}; thesis {md['section']})".replace("%", "%%")
        if md.get("kind") == "flag":
            g.add_argument(f"--{md['flag']}", dest=f.name, action="store_true", default=None,
                           help=help_)
        else:
            g.add_argument(f"--{md['flag']}", dest=f.name, default=None, choices=md["choices"],
                           metavar=None if md["choices"] else "VALUE", help=help_)


def option_values(args: argparse.Namespace, prefix: str = "") -> dict[str, Any]:
    """``{field name: value}`` of the option flags given (``args.<prefix><field>`` not
    None): strings as typed, ``True`` for a flag."""
    out = {}
    for f in option_fields():
        v = getattr(args, prefix + f.name, None)
        if v is not None:
            out[f.name] = v
    return out


def options_from_args(args: argparse.Namespace, *, prefix: str = "",
                      preset: str | None = None) -> EvalOptions:
    """The options of a command: ``--preset`` (else ``preset``, else ``evaltrans
    default``) with the option flags given set on top, by
    :func:`~evaltrans_qt.engine.options.options_from`."""
    return options_from(getattr(args, "preset", None) or preset, None,
                        **option_values(args, prefix))


# --------------------------------------------------------------------------- arguments
def comma_list(value: str | None) -> list[str] | None:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; nothing given -> None."""
    return [x.strip() for x in value.split(",") if x.strip()] if value else None


def sentences_path(value: str) -> str:
    """argparse type of ``--sentences``: the file name must end in .tsv or .jsonl."""
    from evaltrans_qt.errors import OptionError
    from evaltrans_qt.io.sentences import sentences_format
    try:
        sentences_format(value)
    except OptionError as exc:
        raise argparse.ArgumentTypeError(exc.problem.removeprefix(f"--sentences {value}: ")
                                         + f": {value!r}") from None
    return value


def add_json_argument(p: argparse.ArgumentParser, csv: bool = False) -> None:
    """``--json`` (and with ``csv``, ``--csv``; one of them) for machine-readable output."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    if csv:
        g.add_argument("--csv", action="store_true", help="CSV on stdout")


# --------------------------------------------------------------------------- numbers
def number(value: float | None, spec: str = ".4f", missing: str = "-",
           whole: bool = False) -> str:
    """``value`` formatted by ``spec`` (``format(value, spec)``). None and NaN print as
    ``missing``, right-aligned to the width ``spec`` asks for (``"7.3f"``: 7), so table
    columns stay aligned. ``whole``: a value without fractional part prints as an integer
    (``3``, not ``3.0000``)."""
    if value is None or value != value:                  # NaN
        return missing.rjust(_width(spec))
    if whole and float(value).is_integer():
        return str(int(value))
    return format(value, spec)


def _width(spec: str) -> int:
    """The minimum field width of a format spec (``"7.3f"`` -> 7, ``".4f"`` -> 0)."""
    digits = ""
    for ch in spec.lstrip("<>=^+- #0"):
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


__all__ = ["PRESET_HELP", "add_json_argument", "add_option_arguments", "add_preset_argument",
           "comma_list", "number", "open_database", "option_values", "options_from_args",
           "refuse_pending_journal", "sentences_path", "write_database"]
