"""Append-only journal of score changes, so that no judgement is ever lost.

Every score change of a scoring session is appended to ``<database>.journal``
(one JSON object per line) and ``fsync``-ed before the change is considered
done. After a successful save of the database the journal is cleared (only the
entries the save included). When a database is opened and its journal still
holds entries, the previous session ended without saving (crash, ``kill -9``):
:func:`replay` re-applies them and reports what was recovered.

Entries identify a target by its source -- (doc, seg) plus the source text for a
positional source, the text alone for a source without ``seg`` (thesis Appendix A.2;
also every entry written before sources had positions) -- and its own text and
system id, so a replay does not depend on list positions. Setting
a score is idempotent, so replaying an entry that a concurrent autosave already
captured is harmless. A torn last line (the process died while writing) is
ignored. Every entry is checked on load (:func:`check_entry`: strings are strings,
``value`` a finite number or null, ``seq``/``target_index`` whole numbers...); an
entry that fails is skipped like a garbled line and listed in
:attr:`Journal.skipped` with its line number (and logged), so a hand-edited or
foreign journal can neither crash loading nor make later saves fail. Qt-free.

Besides scores the journal holds the human-evaluation protocols' changes
(:mod:`evaltrans_qt.io.protocol_changes`): post-edits, item marks, information items,
references and error-span annotations (``spans``), each a JSON line with a ``type`` field; entries without one are score
changes (every journal written before). They replay in the same order as scores.

The format (JSON lines, versioned by the header line) is documented for scripts and other
tools in ``docs/journal.md``.
"""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from evaltrans_qt.engine.data.database import Database, Score, Source, Target
from evaltrans_qt.io import protocol_changes
from evaltrans_qt.io.atomic import atomic_write_bytes, fsync_dir
from evaltrans_qt.io.protocol_changes import ProtocolChange
from evaltrans_qt.io.segranks import changes as ranking_changes  # ranking screens' changes
from evaltrans_qt.io.segranks.changes import RankingChange

FORMAT_VERSION = 1
_log = logging.getLogger(__name__)
#: Fields every entry may have (score and protocol changes): strings or null.
_OPT_STR = ("source", "target", "system", "judge", "time", "doc", "seg", "cls")


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_entry(d: dict) -> str | None:
    """Why the decoded journal line ``d`` is not a valid entry, or None if it may be.

    Checks the fields shared by all entries; a score change (no ``type``) must also
    have string ``source``/``target``/``cls`` and a finite number or null ``value``."""
    for k in _OPT_STR:
        if d.get(k) is not None and not isinstance(d[k], str):
            return f"'{k}' must be a string or null, not {d[k]!r}"[:200]
    ti = d.get("target_index")
    if ti is not None and not (_is_int(ti) and ti >= 0):
        return f"'target_index' must be a whole number >= 0 or null, not {ti!r}"[:200]
    seq = d.get("seq", 0)
    if not (_is_int(seq) and seq >= 0):
        return f"'seq' must be a whole number >= 0, not {seq!r}"[:200]
    if "type" in d:
        return None
    for k in ("source", "target", "cls"):
        if not isinstance(d.get(k), str):
            return f"'{k}' must be a string, not {d.get(k)!r}"[:200]
    v = d.get("value")
    if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)
                          or not math.isfinite(v)):
        return f"'value' must be a finite number or null, not {v!r}"[:200]
    if "extrapolated" in d and not isinstance(d["extrapolated"], bool):
        return f"'extrapolated' must be true or false, not {d['extrapolated']!r}"[:200]
    return None


@dataclass(frozen=True)
class ScoreChange:
    """One score change: ``value is None`` removes the score of (cls, judge)."""

    source: str
    target: str
    system: str | None
    cls: str
    value: float | None
    judge: str | None = None
    time: str | None = None
    extrapolated: bool = False
    #: Position of the target in its source when written (a hint for duplicates).
    target_index: int | None = None
    seq: int = 0
    #: (doc, seg) of a positional source; None for a source identified by its text.
    doc: str | None = None
    seg: str | None = None
    #: Seconds the judge spent on the item (``time`` is when: an ISO 8601 timestamp);
    #: written as the ``<eval seconds="…">`` attribute.
    seconds: float | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict) -> ScoreChange:
        """A change from a decoded journal line; :class:`ValueError` naming the field if
        :func:`check_entry` finds a wrong type."""
        problem = check_entry(d)
        if problem is not None:
            raise ValueError(problem)
        value = None if d.get("value") is None else float(d["value"])
        if value is not None and not math.isfinite(value):
            raise ValueError(f"journal value {value!r} is not a finite number")
        return cls(source=d["source"], target=d["target"], system=d.get("system"), cls=d["cls"],
                   value=value,
                   judge=d.get("judge"), time=d.get("time"),
                   extrapolated=bool(d.get("extrapolated", False)),
                   target_index=d.get("target_index"), seq=int(d.get("seq", 0)),
                   doc=d.get("doc"), seg=d.get("seg"), seconds=_seconds(d.get("seconds")))


def _seconds(v) -> float | None:
    """A journal's ``seconds`` (absent in older journals): a finite number >= 0, else None."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0:
        return float(v)
    return None


#: Anything the journal holds: a score change or a protocol change.
Change = ScoreChange | ProtocolChange | RankingChange


@dataclass
class ReplayReport:
    """What :func:`replay` did: changes applied, and those whose target is gone."""

    applied: list[Change] = field(default_factory=list)
    missing: list[Change] = field(default_factory=list)
    #: Changes this database cannot hold (undeclared class, value outside its levels),
    #: e.g. a journal left behind by another database at the same path.
    rejected: list[tuple[Change, str]] = field(default_factory=list)
    #: (line number, problem) of the journal lines skipped as malformed when it was read
    #: (:attr:`Journal.skipped`), so nobody has to read the journal a second time.
    skipped: list[tuple[int, str]] = field(default_factory=list)

    def summary(self) -> str:
        kind = "score " if all(isinstance(c, ScoreChange) for c in self.applied) else ""
        text = f"{len(self.applied)} {kind}change(s) recovered from the journal"
        if self.missing:
            text += f"; {len(self.missing)} could not be applied (their sentence is not in the database)"
        if self.rejected:
            text += (f"; {len(self.rejected)} rejected as invalid for this database "
                     f"(first: {self.rejected[0][1]})")
        return text


def entry_from_dict(d: dict) -> Change:
    """The change of one decoded journal line (its ``type``: a ranking, a protocol change,
    none: a score); :class:`ValueError`, :class:`KeyError` or :class:`TypeError` if it is
    not one."""
    if "type" in d and d["type"] in ranking_changes.TYPES:
        return ranking_changes.from_dict(d)
    if "type" in d:
        if d["type"] not in protocol_changes.TYPES:
            raise ValueError(f"unknown entry type {d['type']!r}"[:200])
        return protocol_changes.from_dict(d)
    return ScoreChange.from_dict(d)


def journal_path(database_path: str | Path) -> Path:
    """The journal beside a database: ``name.etdb.xml`` -> ``name.etdb.xml.journal``."""
    p = Path(database_path)
    return p.with_name(p.name + ".journal")


class Journal:
    """An append-only, fsync-ed journal file of :class:`ScoreChange` entries."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        #: (line number, problem) of each entry the last :meth:`entries` skipped.
        self.skipped: list[tuple[int, str]] = []
        #: The raw bytes of those lines, in the same order.
        self.skipped_lines: list[bytes] = []
        entries = self.entries()
        self._seq = entries[-1].seq if entries else 0

    @classmethod
    def for_database(cls, database_path: str | Path) -> Journal:
        return cls(journal_path(database_path))

    @property
    def last_seq(self) -> int:
        """Sequence number of the last appended entry (0 if none)."""
        return self._seq

    def _open(self) -> int:
        if self._fd is None:
            new = not self.path.exists() or self.path.stat().st_size == 0
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            if new:
                header = json.dumps({"evaltrans-journal": FORMAT_VERSION}) + "\n"
                os.write(self._fd, header.encode("utf-8"))
                fsync_dir(self.path.parent)
            else:
                self._repair_tail(self._fd)
        return self._fd

    def ensure_writable(self) -> None:
        """Check that the journal can be written: open it for appending (creating it with its
        header, which is removed again if there was no journal), so that a folder that
        cannot hold it fails here, with ``OSError``, rather than at the first score."""
        existed = self.path.exists()
        self._open()
        if not existed:
            self.close()
            self.path.unlink(missing_ok=True)

    def _repair_tail(self, fd: int) -> None:
        """Terminate a torn last line so the next entry starts on its own line."""
        with open(self.path, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                return
            f.seek(-1, os.SEEK_END)
            last = f.read(1)
        if last != b"\n":
            os.write(fd, b"\n")

    def append(self, change: Change) -> Change:
        """Write one change durably (``fsync``) and return it with its sequence number.

        All bytes are written or none count: on a short or failed write (disk full)
        the file is cut back to where the entry began and the error is raised.
        """
        fd = self._open()
        data = (replace(change, seq=self._seq + 1).to_json() + "\n").encode("utf-8")
        start = os.lseek(fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                if n <= 0:
                    raise OSError("journal write made no progress")
                view = view[n:]
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, start)
            except OSError:
                pass
            raise
        self._seq += 1
        return replace(change, seq=self._seq)

    def entries(self) -> list[Change]:
        """All complete, valid entries, in order. A torn last line is ignored; a garbled
        line or an entry with wrong types (:func:`check_entry`) is skipped, recorded in
        :attr:`skipped` with its line number and logged."""
        self.skipped, self.skipped_lines = [], []
        out: list[Change] = []
        try:
            f = open(self.path, "rb")
        except FileNotFoundError:          # none, or folded by a save in another process
            return []
        with f:
            for no, raw in enumerate(f, 1):
                if not raw.endswith(b"\n"):
                    break  # torn last line: the process died mid-write
                try:
                    d = json.loads(raw.decode("utf-8"))
                except (ValueError, UnicodeDecodeError, RecursionError):
                    if raw.strip():
                        self._skip(no, "not a JSON line", raw)
                    continue
                if not isinstance(d, dict):
                    self._skip(no, "not a JSON object", raw)
                    continue
                if "evaltrans-journal" in d and "cls" not in d and "type" not in d:
                    continue                                    # the header line
                problem = check_entry(d)
                if problem is not None:
                    self._skip(no, problem, raw)
                    continue
                try:
                    out.append(entry_from_dict(d))
                except (KeyError, TypeError, ValueError, OverflowError) as exc:
                    problem = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
                    self._skip(no, problem[:200], raw)
        return out

    def _skip(self, line: int, problem: str, raw: bytes) -> None:
        self.skipped.append((line, problem))
        self.skipped_lines.append(raw)
        _log.warning("%s:%d: journal entry skipped: %s", self.path, line, problem)

    def __len__(self) -> int:
        return len(self.entries())

    def clear(self, upto_seq: int | None = None) -> None:
        """Drop entries with ``seq <= upto_seq`` (all if None), atomically.

        Called after a successful save that included those entries.
        """
        self.close()
        keep = [] if upto_seq is None or upto_seq >= self._seq else \
            [e for e in self.entries() if e.seq > upto_seq]
        if not keep:       # nothing left (also after an earlier clear): no file at all
            if self.path.exists():
                self.path.unlink(missing_ok=True)     # another process may fold it too
                fsync_dir(self.path.parent)
            return
        lines = [json.dumps({"evaltrans-journal": FORMAT_VERSION})] + [e.to_json() for e in keep]
        atomic_write_bytes(self.path, ("\n".join(lines) + "\n").encode("utf-8"))

    def drop(self, done: Iterable[Change], *, drop_malformed: bool = False) -> list[Change]:
        """Remove the entries ``done`` (equal fields, ``seq`` included) atomically and keep
        every other one -- e.g. entries appended after ``done`` were read -- and the
        malformed lines unless ``drop_malformed``; no file is left when nothing remains.
        Called after a write of the database that included ``done``. Returns the kept
        entries."""
        self.close()
        gone = {c.to_json() for c in done}
        keep = [e for e in self.entries() if e.to_json() not in gone]
        bad = [] if drop_malformed else [raw.rstrip(b"\n") for raw in self.skipped_lines]
        if not keep and not bad:
            if self.path.exists():
                self.path.unlink(missing_ok=True)     # another process may fold it too
                fsync_dir(self.path.parent)
            return []
        lines = [json.dumps({"evaltrans-journal": FORMAT_VERSION}).encode("utf-8")]
        lines += [e.to_json().encode("utf-8") for e in keep] + bad
        atomic_write_bytes(self.path, b"\n".join(lines) + b"\n")
        return keep

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def find_source(db: Database, change: ScoreChange) -> Source | None:
    """The source an entry refers to: by (doc, seg) when the entry has a ``seg`` (None if
    that position now holds another sentence), else the source with its text (thesis
    Appendix A.2); the one rule of every journal entry (:func:`protocol_changes.source_of`)."""
    return protocol_changes.source_of(db, change)


def find_target(db: Database, change: ScoreChange) -> Target | None:
    """The target an entry refers to (its source, target text, system), if present.

    An entry without ``seg`` (old journals) is looked for in every source with its text,
    the one identified by the text first."""
    if change.seg:
        src = find_source(db, change)
        sources = [] if src is None else [src]
    else:
        first = db.source_by_text(change.source)
        sources = [first] + [s for s in db.sources_by_text(change.source) if s is not first] \
            if first is not None else []
    for src in sources:
        i = change.target_index
        if i is not None and 0 <= i < len(src.targets):
            t = src.targets[i]
            if t.text == change.target and t.system == change.system:
                return t
        found = db.find_target(src, change.target, change.system)
        if found is not None:
            return found
    return None


def apply_change(target: Target, change: ScoreChange) -> None:
    """Apply one change to a target (idempotent)."""
    if change.value is None:
        target.remove_score(change.cls, change.judge)
    else:
        score = target.set_score(change.cls, change.value, change.judge, change.time,
                                 change.extrapolated)
        if change.seconds is not None:
            score.extra_attrs["seconds"] = f"{change.seconds:.1f}"


def seconds_of(score: Score) -> float | None:
    """Seconds a judge spent on a score: the ``seconds`` attribute, or -- in files written
    before ``time`` became a timestamp -- a number in ``time``; None if unknown."""
    for text in (score.extra_attrs.get("seconds"), score.time):
        try:
            v = float(text) if text is not None else None
        except ValueError:
            continue
        if v is not None and math.isfinite(v) and v >= 0:
            return v
    return None


def apply_entry(db: Database, ch: Change, *, undo: bool = True) -> list[Change]:
    """Apply one journal entry of any kind to ``db`` -- the one apply of the journal's replay
    and of :meth:`evaltrans_qt.workspace.Workspace.commit`, so a live change and its replay
    cannot diverge; returns the changes that undo it (``undo=False``: a caller that keeps
    no undo history -- the command line's commit -- gets none for a score).

    :class:`LookupError` if its sentence is not in ``db``, :class:`~evaltrans_qt.errors.ScoreError`
    if ``db`` cannot hold it (undeclared class, value outside its levels); ``db`` is then
    unchanged."""
    if isinstance(ch, RankingChange):
        return list(ranking_changes.apply_ranking_change(db, ch))
    if not isinstance(ch, ScoreChange):
        return list(protocol_changes.apply_protocol_change(db, ch, undo=undo))
    t = find_target(db, ch)
    if t is None:
        raise LookupError(f"the sentence of {ch.target[:40]!r} is not in the database")
    lv = db.level(ch.cls)                     # ScoreError for an undeclared class
    if ch.value is not None:
        lv.validate(ch.value)
    if not undo:
        apply_change(t, ch)
        return []
    old = next((s for s in t.scores if s.cls == ch.cls and s.judge == ch.judge), None)
    inverse = replace(ch, seq=0, value=None, time=None, extrapolated=False, seconds=None) \
        if old is None else replace(ch, seq=0, value=old.value, time=old.time,
                                     extrapolated=old.extrapolated, seconds=seconds_of(old))
    apply_change(t, ch)
    return [inverse]


def replay(db: Database, changes: Iterable[Change]) -> ReplayReport:
    """Re-apply journal entries to a freshly loaded database, in order (:func:`apply_entry`);
    an entry whose sentence is gone is ``missing``, one the database cannot hold ``rejected``
    -- never let a foreign journal make the database unsavable."""
    report = ReplayReport()
    from evaltrans_qt.errors import ScoreError
    for ch in changes:
        try:
            apply_entry(db, ch)
        except LookupError:
            report.missing.append(ch)
            continue
        except ScoreError as exc:
            report.rejected.append((ch, exc.problem))
            continue
        report.applied.append(ch)
    return report


def change_for(db: Database, source_index: int, target_index: int, cls: str, value: float | None,
               judge: str | None = None, time: str | None = None,
               extrapolated: bool = False) -> ScoreChange:
    """A :class:`ScoreChange` for the target at (source_index, target_index)."""
    t = db.sources[source_index].targets[target_index]
    return ScoreChange(**protocol_changes.source_fields(db, source_index), target=t.text,
                       system=t.system, cls=cls, value=value, judge=judge, time=time,
                       extrapolated=extrapolated, target_index=target_index)
