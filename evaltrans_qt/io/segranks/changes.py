"""Journal entries of ranking screens, crash-proof and undoable like score
changes (io/journal.py writes them as JSON lines with a ``type`` field and replays them
in order; applying one is idempotent).

* :class:`SegmentRankingChange` (``"segranking"``): set (``ranks``) or remove
  (``ranks is None``) one SegRanks screen -- a judge's ranking ``task`` of a sentence.
  Segments are named by their source word indices and candidates by their text, so a
  replay does not depend on list positions.
* :class:`SentenceRankingChange` (``"ranking"``): set or remove one whole-sentence
  ranking task (``rank`` scores, engine/human/ranking.py); targets named by text and system.

How a ranking screen uses them::

    rk, _ = ...                                   # the judge pressed Submit
    ch = segment_ranking_change(db, source_index, judge, ranks, task, seconds=s)
    ch = journal.append(ch)                       # fsync first
    undo = apply_ranking_change(db, ch)           # then change the database
    for u in undo:                                # Ctrl+Z: the inverse, journaled too
        apply_ranking_change(db, journal.append(u))

:func:`apply_ranking_change` raises :class:`LookupError` when the sentence, segment or
target is not in the database and :class:`ScoreError` when the ranks are invalid.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import RANK_CLASS, SECONDS_ATTR, TASK_ATTR, add_ranking
from evaltrans_qt.engine.human.segranks.model import SegmentRanking, sentence_segments
from evaltrans_qt.engine.human.segranks.sessions import (
    new_task_id,
    now,
    remove_segment_ranking,
    restore_segment_ranking,
)
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io.protocol_changes import (
    SourceChange,
    SourceFields,
    find_source,
    source_fields,
)


@dataclass(frozen=True)
class SegmentRankingChange(SourceChange):
    """Set or remove (``ranks is None``) ranking ``task`` of ``judge`` on a sentence.
    ``ranks``: one entry per ranked segment, ``[words, [[candidate text, rank], ...]]``
    with ``words`` the segment's source token indices joined by spaces."""

    kind: ClassVar[str] = "segranking"
    judge: str | None
    task: str
    ranks: tuple | None
    time: str | None = None
    seconds: float | None = None
    seq: int = 0


@dataclass(frozen=True)
class SentenceRankingChange(SourceChange):
    """Set or remove (``ranks is None``) whole-sentence ranking ``task`` of ``judge``:
    ``ranks`` = ``[[target text, system, target index, rank], ...]``."""

    kind: ClassVar[str] = "ranking"
    judge: str | None
    task: str
    ranks: tuple | None
    time: str | None = None
    seconds: float | None = None
    cls: str = RANK_CLASS
    seq: int = 0


RankingChange = SegmentRankingChange | SentenceRankingChange
#: one ranked segment of a :class:`SegmentRankingChange`: (source word indices joined by
#: spaces, ((candidate text, rank), ...))
EncodedSegment = tuple[str, tuple[tuple[str, int], ...]]
TYPES: dict[str, type] = {c.kind: c for c in (SegmentRankingChange, SentenceRankingChange)}


def _freeze(v: Any) -> Any:
    return tuple(_freeze(x) for x in v) if isinstance(v, list) else v


def from_dict(d: dict[str, Any]) -> RankingChange:
    """A change from its JSON object (``ValueError``/``KeyError``/``TypeError`` if garbled)."""
    cls = TYPES[d["type"]]
    kw = {k: v for k, v in d.items() if k != "type"}
    if not isinstance(kw.get("task"), str):
        raise ValueError(f"'task' must be a string, not {kw.get('task')!r}"[:200])
    ranks = kw.get("ranks")
    if ranks is not None and not isinstance(ranks, list):
        raise ValueError("'ranks' must be a list or null")
    kw["ranks"] = None if ranks is None else _freeze(ranks)
    sec = kw.get("seconds")
    if sec is not None:
        if isinstance(sec, bool) or not isinstance(sec, (int, float)) or not math.isfinite(sec):
            raise ValueError(f"'seconds' must be a finite number or null, not {sec!r}"[:200])
        kw["seconds"] = float(sec)
    if "seq" in kw:
        kw["seq"] = int(kw["seq"])
    return cls(**kw)


# ------------------------------------------------------------------ building changes
def segment_ranking_change(db: Database, source_index: int, judge: str | None,
                           ranks: Mapping[int, Sequence[int]] | None, task: str | None = None,
                           *, seconds: float | None = None, time: str | None = None) -> SegmentRankingChange:
    """The change that stores ``ranks`` ({segment index: rank per candidate}, as
    ``engine.segranks.sessions.record_segment_ranking`` takes them; None removes)."""
    data = sentence_segments(db.sources[source_index])
    if data is None:
        raise ScoreError(f"source {source_index + 1} has no extracted segments")
    enc: tuple[EncodedSegment, ...] | None = None
    if ranks is not None:
        segments: list[EncodedSegment] = []
        for k, r in sorted(ranks.items()):
            if not 0 <= k < len(data.segments):
                raise ScoreError(f"source {source_index + 1} has no segment {k}")
            seg = data.segments[k]
            if len(r) != len(seg.candidates):
                raise ScoreError(f"segment {seg.text!r} has {len(seg.candidates)} candidate(s), "
                                 f"but {len(r)} rank(s) were given")
            segments.append((" ".join(map(str, seg.words)),
                             tuple((c.text, rank) for c, rank in zip(seg.candidates, r))))
        enc = tuple(segments)
    return SegmentRankingChange(**source_fields(db, source_index), judge=judge,
                                task=task or new_task_id(), ranks=enc,
                                time=time if time is not None or ranks is None else now(),
                                seconds=seconds)


def sentence_ranking_change(db: Database, source_index: int, judge: str | None,
                            ranks: Mapping[int, int] | None, task: str | None = None, *,
                            seconds: float | None = None, time: str | None = None,
                            cls: str = RANK_CLASS) -> SentenceRankingChange:
    """The change that stores ``ranks`` ({target index: rank}; None removes the task)."""
    src = db.sources[source_index]
    enc = None
    if ranks is not None:
        enc = tuple((src.targets[ti].text, src.targets[ti].system, ti, int(r))
                    for ti, r in sorted(ranks.items()))
    return SentenceRankingChange(**source_fields(db, source_index), judge=judge,
                                 task=task or new_task_id(), ranks=enc,
                                 time=time if time is not None or ranks is None else now(),
                                 seconds=seconds, cls=cls)


# ------------------------------------------------------------------ applying
class _RankingFields(SourceFields):
    """The fields an inverse ranking change copies from the change it undoes."""

    judge: str | None
    task: str


def _decode_segment_ranks(data, ch: SegmentRankingChange) -> dict[int, tuple[int, ...]]:
    assert ch.ranks is not None, "a change removing the task has no ranks to decode"
    out = {}
    for words, cands in ch.ranks:
        k = next((i for i, s in enumerate(data.segments)
                  if " ".join(map(str, s.words)) == words), None)
        if k is None:
            raise LookupError(f"segment {words!r} is not extracted for source {ch.source[:40]!r}")
        seg = data.segments[k]
        by_text = {str(t): r for t, r in cands}
        if set(by_text) != {c.text for c in seg.candidates}:
            raise LookupError(f"the candidates of segment {seg.text!r} changed")
        out[k] = tuple(by_text[c.text] for c in seg.candidates)
    return out


def _encode_segment_ranking(data, rk: SegmentRanking) -> tuple:
    return tuple((" ".join(map(str, data.segments[k].words)),
                  tuple((c.text, r) for c, r in zip(data.segments[k].candidates, ranks)))
                 for k, ranks in sorted(rk.ranks.items()))


def apply_ranking_change(db: Database, ch: RankingChange) -> list[RankingChange]:
    """Apply ``ch`` to ``db``; returns the changes that undo it (module doc)."""
    src = find_source(db, ch)
    index = next(i for i, s in enumerate(db.sources) if s is src)
    base: _RankingFields = {"source": ch.source, "doc": ch.doc, "seg": ch.seg,
                            "judge": ch.judge, "task": ch.task}
    if isinstance(ch, SegmentRankingChange):
        data = sentence_segments(src)
        if data is None:
            raise LookupError(f"source {ch.source[:40]!r} has no extracted segments")
        old = data.ranking(ch.judge, ch.task)
        inverse: RankingChange = SegmentRankingChange(**base, ranks=None) if old is None else \
            SegmentRankingChange(**base, ranks=_encode_segment_ranking(data, old), time=old.time,
                                 seconds=old.seconds)
        if ch.ranks is None:
            remove_segment_ranking(db, index, ch.judge, ch.task)
        else:
            restore_segment_ranking(db, index, SegmentRanking(
                ch.judge, _decode_segment_ranks(data, ch), ch.task, ch.time, ch.seconds))
        return [inverse]
    # whole-sentence ranking
    old_scores = [(ti, t, s) for ti, t in enumerate(src.targets) for s in t.scores
                  if s.cls == ch.cls and s.judge == ch.judge
                  and s.extra_attrs.get(TASK_ATTR) == ch.task]
    if old_scores:
        s0 = old_scores[0][2]
        sec = s0.extra_attrs.get(SECONDS_ATTR)
        inverse = SentenceRankingChange(
            **base, ranks=tuple((t.text, t.system, ti, int(s.value)) for ti, t, s in old_scores),
            time=s0.time, seconds=None if sec is None else float(sec), cls=ch.cls)
    else:
        inverse = SentenceRankingChange(**base, ranks=None, cls=ch.cls)
    targets = []
    for text, system, ti, rank in (ch.ranks or ()):
        t = src.targets[ti] if isinstance(ti, int) and 0 <= ti < len(src.targets) else None
        if t is None or t.text != text or t.system != system:
            t = next((x for x in src.targets if x.text == text and x.system == system), None)
        if t is None:
            raise LookupError(f"target {str(text)[:40]!r} of system {system!r} is not in the "
                              "database")
        targets.append((t, rank))
    if ch.ranks is not None:
        for _, r in targets:
            if isinstance(r, bool) or not isinstance(r, int) or r < 1:
                raise ScoreError(f"rank {r!r} is not a positive whole number")
    for _, t, s in old_scores:
        t.scores = [x for x in t.scores if x is not s]
    if ch.ranks is not None:
        add_ranking(db, src, targets, ch.judge, ch.task, ch.cls, time=ch.time,
                    seconds=ch.seconds)
    return [inverse]


def with_seq(change: RankingChange, seq: int) -> RankingChange:
    return replace(change, seq=seq)
