"""Error spans as JSON Lines: one object per candidate and judge -- the shape xCOMET's and
GEMBA-MQM's outputs are converted to, plus judge, comment and time::

    {"system": "sysA", "doc": "d1", "seg": "3", "judge": "xcomet", "protocol": "mqm",
     "origin": "machine",
     "spans": [{"start": 4, "end": 9, "severity": "major",
                "category": "Accuracy/Mistranslation", "side": "target",
                "comment": "…", "seconds": 2.5}],
     "seconds": 40,
     "rejected": [{"machine": "ter", "start": 0, "end": 3, "severity": "Minor",
                   "category": "Other"}]}

The candidate is named by ``system`` and its source by ``doc`` + ``seg`` (a positional
source) or ``line`` (1-based position in the source list, as ``evaltrans spans
--source``). ``start``/``end`` are character offsets into the candidate (``side:
"source"``: into the source), ``start == end`` an omission there; ``category`` defaults
to ``Other``, ``side`` to ``target``; ``judge`` to the importer's default; ``protocol``
(``mqm`` or ``esa``) to ``mqm``. ``"spans": []`` says the judge found no error.
``rejected`` (optional) lists the suggested spans the judge rejected explicitly, each a
span with the ``machine`` (judge) that suggested it (engine/human/spans/model.py).

``origin`` is ``human`` (a judge's annotation) or ``machine`` (a program's suggested
spans, which no human score counts; engine/human/spans/model.py). An object without it
takes the reader's default, ``machine``: importing JSON Lines is how xCOMET's or
GEMBA-MQM's spans are pre-filled, and their converted output has no such key. The writer
always writes ``origin``, so exported human annotations come back human. ``rejected``
belongs to a judge's annotation and is refused in a machine's.

Reading checks every object first (errors name file, line and problem); the changes set each judge's whole annotation of the candidate
(:class:`~evaltrans_qt.io.protocol_changes.SpansChange`). :func:`spans_records` writes
what :func:`read_spans_jsonl` reads.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.protocols import source_at, target_of
from evaltrans_qt.engine.human.spans.model import (
    ORIGINS,
    PROTOCOLS,
    ErrorSpan,
    Rejection,
    Typology,
    check_error,
)
from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.io.atomic import atomic_write_bytes
from evaltrans_qt.io.plaintext import read_input_bytes
from evaltrans_qt.io.protocol_changes import SpansChange, spans_change

DEFAULT_CATEGORY = "Other"
_SPAN_KEYS = ("start", "end", "severity", "category", "side", "comment", "seconds",
              "metadata")


def _number(v: Any, what: str, *, whole: bool = False) -> float | int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ValueError(f"{what} must be a number >= 0, not {v!r}")
    if whole:
        if int(v) != v:
            raise ValueError(f"{what} must be a whole number, not {v!r}")
        return int(v)
    return float(v)


def _span(d: Any, extra: tuple[str, ...] = ()) -> ErrorSpan:
    if not isinstance(d, dict):
        raise ValueError(f"a span must be an object, not {d!r}"[:120])
    unknown = [k for k in d if k not in _SPAN_KEYS + extra]
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} of a span")
    if "severity" not in d or not isinstance(d["severity"], str):
        raise ValueError("a span needs a severity (a string)")
    for k in ("category", "side", "comment", "metadata"):
        if d.get(k) is not None and not isinstance(d[k], str):
            raise ValueError(f"{k} of a span must be a string")
    start = _number(d.get("start"), "start", whole=True)
    end = _number(d.get("end"), "end", whole=True)
    return ErrorSpan(d["severity"], d.get("category") or DEFAULT_CATEGORY,
                     None if start is None else int(start), None if end is None else int(end),
                     d.get("side") or "target", d.get("comment"),
                     _number(d.get("seconds"), "seconds"), d.get("metadata"))


def read_spans_jsonl(path: str | os.PathLike[str], db: Database, judge: str | None = None,
                     typology: Typology | None = None, origin: str = "machine"
                     ) -> list[SpansChange]:
    """The changes a spans JSONL file makes to ``db`` (module doc; ``judge`` and ``origin``
    for objects without those keys); every object checked first:
    :class:`InputFormatError` naming file, line and problem."""
    data = read_input_bytes(path, "a JSON Lines file of error spans")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFormatError("the file is not valid UTF-8", path,
                               data[:exc.start].count(b"\n") + 1) from None
    changes: list[SpansChange] = []
    seen: dict[tuple[str | None, str | None, str, int | None, str | None, str, str], int] = {}
    for no, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise ValueError("a line must hold one JSON object")
            ch = _change(db, obj, judge, typology, origin)
        except (ValueError, EvalTransError) as exc:
            problem = exc.problem if isinstance(exc, EvalTransError) else str(exc)
            raise InputFormatError(problem, path, no) from None
        where = (ch.doc, ch.seg, ch.source, ch.target_index, ch.judge, ch.protocol, ch.origin)
        if where in seen:
            raise InputFormatError(f"a second object for this candidate, judge, protocol and "
                                   f"origin (first at line {seen[where]})", path, no)
        seen[where] = no
        changes.append(ch)
    return changes


def _change(db: Database, obj: dict, judge: str | None, typology: Typology | None,
            default_origin: str = "machine") -> SpansChange:
    system = obj.get("system")
    if not isinstance(system, str):
        raise ValueError("'system' (a string) is required")
    if "line" in obj:
        line = obj["line"]
        if isinstance(line, bool) or not isinstance(line, int):
            raise ValueError(f"'line' must be a whole number, not {line!r}")
        src = source_at(db, line)
    else:
        doc, seg = obj.get("doc"), obj.get("seg")
        if seg is None:
            raise ValueError("give 'doc' and 'seg', or 'line', to name the source")
        found = db.source_by_key(None if doc is None else str(doc), str(seg))
        if found is None:
            raise ValueError(f"no source with doc {doc!r} seg {seg!r} in the database")
        src = found
    si = db.sources.index(src)
    t = target_of(db, src, system, candidate=True)
    ti = next(i for i, x in enumerate(src.targets) if x is t)
    who = obj.get("judge", judge)
    if who is not None and not isinstance(who, str):
        raise ValueError(f"'judge' must be a string, not {who!r}")
    spans = obj.get("spans")
    if not isinstance(spans, list):
        raise ValueError("'spans' (a list, possibly empty) is required")
    errors = []
    for n, d in enumerate(spans, 1):
        try:
            errors.append(check_error(_span(d), t.text, src.text, typology))
        except (ValueError, EvalTransError) as exc:
            problem = exc.problem if isinstance(exc, EvalTransError) else str(exc)
            raise ValueError(f"span {n}: {problem}") from None
    rejected = []
    rej = obj.get("rejected", [])
    if not isinstance(rej, list):
        raise ValueError("'rejected' must be a list of spans")
    for n, d in enumerate(rej, 1):
        try:
            machine = d.get("machine") if isinstance(d, dict) else None
            if machine is not None and not isinstance(machine, str):
                raise ValueError("'machine' must be a string")
            rejected.append(Rejection(machine, check_error(_span(d, ("machine",)), t.text,
                                                           src.text)))
        except (ValueError, EvalTransError) as exc:
            problem = exc.problem if isinstance(exc, EvalTransError) else str(exc)
            raise ValueError(f"rejected span {n}: {problem}") from None
    protocol = obj.get("protocol", "mqm")
    if protocol not in PROTOCOLS:
        raise ValueError(f"'protocol' must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    origin = obj.get("origin", default_origin)
    if origin not in ORIGINS:
        raise ValueError(f"'origin' must be one of {', '.join(ORIGINS)}, not {origin!r}")
    if origin == "machine" and rejected:
        raise ValueError("'rejected' belongs to a judge's annotation, not to a machine's "
                         "suggested spans (give \"origin\": \"human\")")
    seconds = _number(obj.get("seconds"), "seconds")
    return spans_change(db, si, ti, who, errors, None if seconds is None else float(seconds),
                        protocol, rejected, origin)


def spans_records(db: Database) -> list[dict[str, Any]]:
    """One object per candidate and judge with an annotation (module doc's shape)."""
    out = []
    for i, src in enumerate(db.sources):
        for t in db.candidates(src):
            for a in t.span_annotations:
                rec: dict[str, Any] = {"system": t.system or ""}
                if src.seg:
                    rec.update(doc=src.doc, seg=src.seg)
                else:
                    rec["line"] = i + 1
                rec["judge"] = a.judge
                rec["protocol"] = a.protocol
                rec["origin"] = a.origin
                rec["spans"] = [_span_record(e) for e in a.errors]
                if a.seconds is not None:
                    rec["seconds"] = a.seconds
                if a.rejected:
                    rec["rejected"] = [{"machine": r.machine, **_span_record(r.error)}
                                       for r in a.rejected]
                out.append(rec)
    return out


def _span_record(e: ErrorSpan) -> dict[str, Any]:
    d: dict[str, Any] = {"start": e.start, "end": e.end, "severity": e.severity,
                         "category": e.category}
    if e.side != "target":
        d["side"] = e.side
    if e.comment is not None:
        d["comment"] = e.comment
    if e.seconds is not None:
        d["seconds"] = e.seconds
    if e.metadata is not None:
        d["metadata"] = e.metadata
    return d


def write_spans_jsonl(db: Database, path: str | os.PathLike[str]) -> int:
    """Write :func:`spans_records` to ``path`` (atomically); returns the objects written."""
    recs = spans_records(db)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)
    atomic_write_bytes(Path(path), text.encode("utf-8"))
    return len(recs)
