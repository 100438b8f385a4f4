"""Human judgements entered without the application: one (``evaltrans judge``,
``evaltrans_qt.judge``) or many from a file (``evaltrans import judgements``).

A judgement is a :class:`~evaltrans_qt.io.journal.ScoreChange` -- the entry the
application's scoring screen journals -- built and checked by :func:`judgement_change`
against the database: the source exists, the system has a candidate (or reference) there,
the class is one of the database's human classes (the trailing reference class is set with
``evaltrans reference``) and the value fits its levels at or above ``firstvalid``, the rule
of the scoring screen (thesis Appendix A.2, ``<levels>``).

Files (:func:`read_judgements`), one judgement per row, every row checked before anything
is written, errors naming file and line:

* TSV (``.tsv``, tab-separated) or CSV (``.csv``, RFC 4180 quoting) with a header row
  naming the columns; JSON Lines (``.jsonl``), one object per line with the same keys;
* columns ``system``, ``class``, ``value`` (required); the source as ``seg`` (with ``doc``
  when a seg number is in several documents: the source's ``doc``/``seg`` attributes) or as
  ``line`` (its 1-based position in the source list); optional ``judge``, ``time`` (when:
  ISO 8601, as stored) and ``seconds`` (time spent). Unknown columns are errors (a typo
  must not drop a value), so is the same (candidate, class, judge) twice.

Writing (:func:`commit_judgements`) goes the way of every judgement (``docs/journal.md``):
the database's lock is taken first, so nothing is written while evaltrans-qt holds the
file (``DatabaseLockedError``) and the application cannot open it meanwhile; the database
is read with its journal; each change is appended to the journal and forced to disk
*before* it is applied (:meth:`Journal.append`), applied with
:func:`~evaltrans_qt.io.journal.apply_entry` -- the function of the application's commit
and of the replay -- and the file is then written atomically in place
(:func:`~evaltrans_qt.io.store.write_database`) and the entries removed from the journal.
A crash at any point loses nothing: the journal replays at the next opening. Many
judgements from a file (``journal=False``) are all or nothing instead: all are checked and
applied in memory, then the one atomic write stores them all or, on any failure or crash,
none.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from evaltrans_qt.engine.data.database import Database, Source, Target
from evaltrans_qt.errors import EvalTransError, InputFormatError, SaveError, ScoreError
from evaltrans_qt.io import protocol_changes
from evaltrans_qt.io.journal import Change, Journal, ScoreChange, apply_entry, journal_path
from evaltrans_qt.io.limits import load_json, parse_number
from evaltrans_qt.io.plaintext import read_text, split_lines
from evaltrans_qt.io.store import (
    DatabaseChangedError,
    DatabaseLockedError,
    Opened,
    acquire_lock,
    open_database,
    release_lock,
    write_database,
)

PathLike = str | os.PathLike[str]
#: Columns of a judgements file (module doc); the first three are required.
REQUIRED = ("system", "class", "value")
OPTIONAL = ("doc", "seg", "line", "judge", "time", "seconds")
#: Program named in the lock while a command writes judgements.
PROGRAM = "evaltrans (command line)"


@dataclass(frozen=True)
class Where:
    """Where a judgement came from, for its errors: a file and line, or nothing (options)."""

    path: PathLike | None = None
    line: int | None = None

    def error(self, cls: type[ScoreError] | type[InputFormatError], problem: str):
        return cls(problem, self.path, self.line)


NOWHERE = Where()


def _source(db: Database, *, line: int | None, doc: str | None, seg: str | None,
            where: Where) -> tuple[int, Source]:
    """(index, source) named by its 1-based ``line`` or by (``doc``, ``seg``)."""
    n = len(db.sources)
    if line is not None:
        if not 1 <= line <= n:
            raise where.error(ScoreError, f"source {line} does not exist (the database has "
                                          f"{n} source{'' if n == 1 else 's'}, numbered 1..{n})")
        return line - 1, db.sources[line - 1]
    if seg is None:
        raise where.error(ScoreError, "no source given (seg, with doc if the test set has "
                                      "documents, or line)")
    src = db.source_by_key(doc or None, seg)
    if src is None and not any(s.seg for s in db.sources) and seg.isdigit():
        k = int(seg)                              # a database without seg ids: positions
        if 1 <= k <= n:
            return k - 1, db.sources[k - 1]
    if src is None and not doc:                   # seg numbers unique across documents
        same = [s for s in db.sources if s.seg == seg]
        if len(same) > 1:
            raise where.error(ScoreError, f"seg {seg!r} is in {len(same)} documents: give "
                                          "doc as well")
        src = same[0] if same else None
    if src is None:
        name = f"doc {doc!r} seg {seg!r}" if doc else f"seg {seg!r}"
        raise where.error(ScoreError, f"{name} is not a source of the database")
    index = db.source_index(src)
    assert index is not None
    return index, src


def _target(db: Database, src: Source, system: str, where: Where) -> tuple[int, Target]:
    for i, t in enumerate(src.targets):
        if (t.system or "") == system:
            return i, t
    known = set(db.systems()) | set(db.reference_ids())
    if system not in known:
        raise where.error(ScoreError, f"unknown system '{system}' (not in the database)")
    raise where.error(ScoreError, f"system '{system}' has no translation of this source")


def _check_value(db: Database, cls: str, value: float | None, where: Where) -> None:
    classes = db.human_classes
    if cls not in classes:
        if db.has_class(cls):
            raise where.error(ScoreError, f"class '{cls}' decides references; mark a "
                                          "reference with 'evaltrans reference'")
        raise where.error(ScoreError, f"unknown class '{cls}' (the database's classes: "
                                      f"{', '.join(classes) or 'none'})")
    if value is None:
        return
    lv = db.level(cls)
    try:
        lv.validate(value)
    except ScoreError as exc:
        raise where.error(ScoreError, exc.problem) from None
    if not lv.continuous and value < lv.firstvalid:
        raise where.error(ScoreError, f"value {value:g} of class '{cls}' is below its first "
                                      f"valid level {lv.firstvalid:g}")


def judgement_change(db: Database, *, system: str, cls: str, value: float | None,
                     line: int | None = None, doc: str | None = None, seg: str | None = None,
                     judge: str | None = None, time: str | None = None,
                     seconds: float | None = None, where: Where = NOWHERE) -> ScoreChange:
    """The journal entry giving ``system``'s translation of a source (``line``: 1-based
    position; or ``doc``/``seg``) ``judge``'s ``value`` of class ``cls`` (None: removes that
    judge's score); checked against ``db`` (module doc), :class:`ScoreError` naming
    ``where`` otherwise. ``db`` is not changed."""
    if judge is not None and (not judge.strip() or any(ord(c) < 32 for c in judge)):
        raise where.error(ScoreError, f"judge name {judge!r} is empty or contains a control "
                                      "character")
    if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
        raise where.error(ScoreError, f"seconds must be a number >= 0, not {seconds!r}")
    si, src = _source(db, line=line, doc=doc, seg=seg, where=where)
    ti, t = _target(db, src, system, where)
    _check_value(db, cls, value, where)
    if value is None and not any(s.cls == cls and s.judge == judge for s in t.scores):
        who = f"judge '{judge}'" if judge is not None else "no judge"
        raise where.error(ScoreError, f"'{system}' has no score of class '{cls}' by {who} "
                                      "to remove")
    return ScoreChange(**protocol_changes.source_fields(db, si), target=t.text,
                       system=t.system, cls=cls, value=value, judge=judge, time=time,
                       target_index=ti,
                       seconds=None if seconds is None else round(float(seconds), 1))


# --------------------------------------------------------------------------- files
def _records(path: PathLike) -> list[tuple[int, dict[str, object]]]:
    """(line number, {column: value}) of every row of a judgements file."""
    suffix = Path(path).suffix.lower()
    text = read_text(path)
    if suffix == ".jsonl":
        out: list[tuple[int, dict[str, object]]] = []
        for no, line in enumerate(split_lines(text), 1):
            if not line.strip():
                continue
            try:
                rec = load_json(line)
            except ValueError as exc:
                raise InputFormatError(f"not JSON: {exc}", path, no) from None
            if not isinstance(rec, dict):
                raise InputFormatError("expected one JSON object per line", path, no)
            out.append((no, rec))
        return out
    if suffix not in (".tsv", ".csv"):
        raise InputFormatError("judgements file: expected .tsv, .csv or .jsonl", path)
    reader = csv.reader(io.StringIO(text, newline=""),
                        delimiter="\t" if suffix == ".tsv" else ",",
                        quoting=csv.QUOTE_NONE if suffix == ".tsv" else csv.QUOTE_MINIMAL)
    try:
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise InputFormatError(f"not CSV: {exc}", path, reader.line_num) from None
    rows = [(no, row) for no, row in rows if any(c.strip() for c in row)]
    if not rows:
        raise InputFormatError("no header row (columns: system, seg or line, class, value, "
                               "judge, time)", path)
    header_no, header = rows[0]
    names = [c.strip().lower() for c in header]
    out = []
    for no, row in rows[1:]:
        if len(row) != len(names):
            raise InputFormatError(f"{len(row)} columns, the header has {len(names)}", path, no)
        out.append((no, {k: v.strip() for k, v in zip(names, row) if v.strip() != ""}))
    return out


def _text(rec: dict[str, object], key: str, path: PathLike, no: int) -> str | None:
    v = rec.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise InputFormatError(f"{key} must be text, not {v!r}", path, no)
    return str(v)


def _number(rec: dict[str, object], key: str, path: PathLike, no: int) -> float | None:
    v = rec.get(key)
    if v is None:
        return None
    if isinstance(v, bool):
        raise InputFormatError(f"{key} must be a number, not {v!r}", path, no)
    if isinstance(v, (int, float)):
        if not math.isfinite(v):
            raise InputFormatError(f"{key} must be a finite number, not {v!r}", path, no)
        return float(v)
    try:
        return parse_number(v, key)
    except ValueError as exc:
        raise InputFormatError(str(exc), path, no) from None


def read_judgements(path: PathLike, db: Database) -> list[ScoreChange]:
    """Every judgement of the file at ``path`` (module doc) as checked journal entries for
    ``db``; the first problem raises (:class:`InputFormatError`/:class:`ScoreError` with the
    file and line) and nothing is returned."""
    changes: list[ScoreChange] = []
    seen: dict[tuple, int] = {}
    for no, rec in _records(path):
        unknown = sorted(set(rec) - set(REQUIRED) - set(OPTIONAL))
        if unknown:
            raise InputFormatError(f"unknown column(s) {', '.join(unknown)} (known: "
                                   f"{', '.join(REQUIRED + OPTIONAL)})", path, no)
        missing = [k for k in REQUIRED if rec.get(k) is None]
        if missing:
            raise InputFormatError(f"no {', '.join(missing)}", path, no)
        line_no = _number(rec, "line", path, no)
        if line_no is not None and line_no != int(line_no):
            raise InputFormatError(f"line must be a whole number, not {line_no:g}", path, no)
        if line_no is not None and rec.get("seg") is not None:
            raise InputFormatError("give seg (with doc) or line, not both", path, no)
        system, cls = _text(rec, "system", path, no), _text(rec, "class", path, no)
        assert system is not None and cls is not None
        ch = judgement_change(
            db, system=system, cls=cls, value=_number(rec, "value", path, no),
            line=None if line_no is None else int(line_no),
            doc=_text(rec, "doc", path, no), seg=_text(rec, "seg", path, no),
            judge=_text(rec, "judge", path, no), time=_text(rec, "time", path, no),
            seconds=_number(rec, "seconds", path, no), where=Where(path, no))
        key = (ch.doc, ch.seg, ch.source, ch.target_index, ch.cls, ch.judge)
        if key in seen:
            raise ScoreError(f"the same candidate, class and judge as line {seen[key]}",
                             path, no)
        seen[key] = no
        changes.append(ch)
    if not changes:
        raise InputFormatError("no judgements in the file", path)
    return changes


# --------------------------------------------------------------------------- writing
def commit_judgements(path: PathLike, build: Callable[[Database], Sequence[ScoreChange]], *,
                      journal: bool = True,
                      note: Callable[[str], None] | None = None) -> list[ScoreChange]:
    """Open the database at ``path`` under its lock, ``build`` the changes against it and
    store them (module doc: journalled one by one, or with ``journal=False`` all or
    nothing); returns the changes as stored. Nothing is written if ``build`` raises, a
    change is refused or another program holds the file (``DatabaseLockedError``)."""
    return cast(list[ScoreChange], commit_changes(path, build, journal=journal, note=note))


def commit_changes(path: PathLike, build: Callable[[Database], Iterable[Change]], *,
                   journal: bool = True, program: str = PROGRAM,
                   what: str = "judgement",
                   note: Callable[[str], None] | None = None,
                   start: Database | None = None) -> list[Change]:
    """The command line's one commit path for changes of any kind (judgements here, error
    spans in :mod:`evaltrans_qt.io.span_store`): take the database's lock as ``program``,
    open it with its journal, ``build`` the changes, then journal each (fsync) before
    applying it with :func:`~evaltrans_qt.io.journal.apply_entry`, write the database
    atomically and drop the entries it now holds. A refused change takes every entry of
    this call out of the journal again: nothing is written (``what`` names the changes in
    the messages). ``note`` is given ``PATH: N unsaved judgements from the journal
    included`` when the journal beside the file held some (what every command says).
    ``start`` (with ``journal=False`` only): the database a file that does not exist yet
    starts as -- the changes are built against it under the lock and the one atomic write
    creates the file (no starting copy written and read back first). With
    ``journal=False`` each change is applied as ``build`` yields it (a generator that
    reads its input meanwhile overlaps the two); nothing is written until all are."""
    p = Path(path)
    new = start is not None and not p.exists()
    if new and journal:
        raise ValueError("commit_changes: a new file (start) is written all or nothing "
                         "(journal=False)")
    if not new and not p.is_file():
        raise InputFormatError("file not found" if not p.exists() else "not a file", path)
    try:
        lock = acquire_lock(path, program)
    except DatabaseLockedError as exc:
        raise DatabaseLockedError(f"{exc.problem}: no {what} written (close it there "
                                  f"first: changes of two programs would mix in one "
                                  "journal)", exc.path, holder=exc.holder) from None
    except OSError as exc:
        raise SaveError(f"cannot take the database's lock ({exc.strerror or exc}); no "
                        f"{what} written", path) from None
    try:
        opened: Opened | Database
        if new:
            assert start is not None
            if p.exists():
                raise DatabaseChangedError(f"was created by another program meanwhile; no "
                                           f"{what} written (run the command again)", path)
            opened = db = start
        else:
            opened = open_database(path)
            db = opened.database
            if opened.note and note is not None:
                note(f"{path}: {opened.note}")
        if not journal:
            changes = []
            for ch in build(db):          # checked by build: refusals here are programming
                apply_entry(db, ch, undo=False)   # errors; nothing is written then either
                changes.append(ch)
            write_database(opened, path, lock=lock)
            return changes
        changes = list(build(db))
        jr = Journal(journal_path(Path(path)))
        done: list[Change] = []
        try:
            for ch in changes:
                entry = jr.append(ch)            # journal first (fsync), then apply
                try:
                    apply_entry(db, entry, undo=False)
                except (LookupError, EvalTransError):
                    jr.drop([entry, *done])      # refused: nothing of this call counts
                    raise
                done.append(entry)
            write_database(opened, path, lock=lock)
            jr.drop(done)                        # the file has them now
        finally:
            jr.close()
        return done
    finally:
        release_lock(lock)


def judgement_record(ch: ScoreChange, db: Database) -> dict[str, object]:
    """A change as a row of a judgements file (``--json`` output, the API's return)."""
    src = protocol_changes.source_of(db, ch)
    index = db.source_index(src) if src is not None else None
    return {"line": None if index is None else index + 1, "doc": ch.doc, "seg": ch.seg,
            "system": ch.system, "class": ch.cls, "value": ch.value, "judge": ch.judge,
            "time": ch.time, "seconds": ch.seconds}


__all__ = ["REQUIRED", "OPTIONAL", "PROGRAM", "Where", "judgement_change", "read_judgements",
           "commit_judgements", "commit_changes", "judgement_record"]
