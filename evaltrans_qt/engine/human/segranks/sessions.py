"""Recording rankings (the API of the application's ranking screens) and choosing
which candidates a screen shows.

* :func:`record_segment_ranking`: one SegRanks screen -- a judge's ranks of the segments
  of one sentence (Macháček §2.2), with the time spent; stored on the sentence.
* :func:`record_sentence_ranking`: one WMT relative-ranking screen -- ranks of whole
  candidates of one source (Macháček §2, WMT), stored as ``rank`` scores
  (engine/human/ranking.py).
* :class:`PairSampler`: draws N systems per source so that every pair of systems is
  compared about equally often.

Both record functions validate everything before changing the database and return
what they replaced (None if nothing), so a caller can journal the change first and
undo it (io/segranks/changes.py).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from itertools import combinations

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.segranks.model import SegmentRanking, check_ranks, sentence_segments
from evaltrans_qt.errors import ScoreError


def now() -> str:
    """The current time as stored with a ranking (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_task_id() -> str:
    """A fresh task id for a screen (unique without coordination between judges)."""
    return uuid.uuid4().hex[:12]


def _seconds(seconds: float | None) -> float | None:
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
            or not seconds >= 0 or seconds == float("inf"):
        raise ScoreError(f"time spent {seconds!r} must be a finite number of seconds >= 0")
    return float(seconds)


def record_segment_ranking(db: Database, source_index: int,
                           ranks: Mapping[int, Sequence[int]], judge: str | None, *,
                           seconds: float | None = None, time: str | None = None,
                           task: str | None = None, complete: bool = True) -> tuple[SegmentRanking, SegmentRanking | None]:
    """Store one screen: ``ranks`` = {segment index: one rank per candidate segment, in
    the order of ``SourceSegment.candidates``} (1 best, ties allowed, N+1 unusable;
    Macháček §3.1). ``complete`` (the screen's rule: submit only when every candidate
    is placed) requires every segment of the sentence. The ranking of the same judge
    and ``task`` is replaced (a new task id is made when ``task`` is None).

    Returns (the stored ranking, the one it replaced or None). :class:`ScoreError`
    and nothing changed on any problem.
    """
    src = db.sources[source_index]
    data = sentence_segments(src)
    if data is None or not data.segments:
        raise ScoreError(f"source {source_index + 1} has no extracted segments to rank")
    checked: dict[int, tuple[int, ...]] = {}
    for k, r in ranks.items():
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(data.segments):
            raise ScoreError(f"source {source_index + 1} has no segment {k!r} (it has "
                             f"{len(data.segments)})")
        checked[k] = check_ranks(data.segments[k], r)
    if not checked:
        raise ScoreError("a ranking needs the ranks of at least one segment")
    if complete:
        missing = [s.text for k, s in enumerate(data.segments) if k not in checked]
        if missing:
            raise ScoreError(f"segment(s) {', '.join(map(repr, missing))} of source "
                             f"{source_index + 1} are not ranked yet")
    rk = SegmentRanking(judge, dict(sorted(checked.items())), task or new_task_id(),
                        time if time is not None else now(), _seconds(seconds))
    old = data.ranking(judge, rk.task)
    data.rankings = [r for r in data.rankings if r is not old] + [rk]
    return rk, old


def remove_segment_ranking(db: Database, source_index: int, judge: str | None,
                           task: str) -> SegmentRanking | None:
    """Remove the ranking (judge, task) of a sentence; returns it (None if absent)."""
    data = sentence_segments(db.sources[source_index])
    if data is None:
        return None
    old = data.ranking(judge, task)
    if old is not None:
        data.rankings = [r for r in data.rankings if r is not old]
    return old


def restore_segment_ranking(db: Database, source_index: int, ranking: SegmentRanking) -> None:
    """Put ``ranking`` back as it was (undo), replacing the same (judge, task)."""
    data = sentence_segments(db.sources[source_index])
    if data is None:
        raise ScoreError(f"source {source_index + 1} has no extracted segments")
    for k, r in ranking.ranks.items():
        if not 0 <= k < len(data.segments):
            raise ScoreError(f"source {source_index + 1} has no segment {k}")
        check_ranks(data.segments[k], r)
    data.rankings = [r for r in data.rankings
                     if not (r.judge == ranking.judge and r.task == ranking.task)] + [ranking]


def record_sentence_ranking(db: Database, source_index: int, ranks: Mapping[int, int],
                            judge: str | None, *, seconds: float | None = None,
                            time: str | None = None, task: str | None = None) -> str:
    """Store one WMT-style screen: ``ranks`` = {target index: rank} over candidates of
    one source (1 best, ties allowed), with ``time`` (default now) and the ``seconds``
    spent, as ``rank`` scores (engine/human/ranking.py). Returns the task id."""
    from evaltrans_qt.engine.human.ranking import add_ranking
    src = db.sources[source_index]
    for ti in ranks:
        if isinstance(ti, bool) or not isinstance(ti, int) or not 0 <= ti < len(src.targets):
            raise ScoreError(f"source {source_index + 1} has no target {ti!r}")
        if db.is_reference(src.targets[ti]):
            raise ScoreError(f"target {ti} of source {source_index + 1} is a reference, "
                             "not a candidate to rank")
    task = task or new_task_id()
    add_ranking(db, src, dict(ranks), judge, task, time=time if time is not None else now(),
                seconds=_seconds(seconds))
    return task


class PairSampler:
    """Chooses the N systems shown on a whole-sentence ranking screen so that each pair
    of systems is compared about equally often (the role of WMT's balanced sampling).

    Greedy: start with the system in the fewest compared pairs, then repeatedly add the
    system whose pairs with those chosen have been compared least (ties broken by the
    seeded random generator). :meth:`draw` counts the pairs it returns; :meth:`count`
    adds pairs compared elsewhere (e.g. rankings already in the database).
    """

    def __init__(self, systems: Sequence[str], n: int = 5, seed: int | None = 0) -> None:
        if n < 2:
            raise ScoreError(f"a ranking screen needs at least 2 candidates, not {n}")
        self.systems = list(dict.fromkeys(systems))
        self.n = n
        self.rng = random.Random(seed)
        self.pairs: dict[tuple[str, str], int] = {
            p: 0 for p in combinations(sorted(self.systems), 2)}

    def _key(self, a: str, b: str) -> tuple[str, str]:
        return (a, b) if a < b else (b, a)

    def count(self, systems: Sequence[str]) -> None:
        """Record that these systems were ranked together once."""
        for a, b in combinations(set(systems), 2):
            k = self._key(a, b)
            if k in self.pairs:
                self.pairs[k] += 1

    def draw(self, available: Sequence[str] | None = None) -> list[str]:
        """N systems (fewer if fewer are available) out of ``available`` (default all)."""
        pool = [s for s in (available if available is not None else self.systems)
                if s in self.systems]
        pool = list(dict.fromkeys(pool))
        self.rng.shuffle(pool)
        if len(pool) <= self.n:
            chosen = pool
        else:
            load = {s: sum(v for k, v in self.pairs.items() if s in k) for s in pool}
            chosen = [min(pool, key=lambda s: load[s])]
            while len(chosen) < self.n:
                rest = [s for s in pool if s not in chosen]
                chosen.append(min(rest, key=lambda s: (sum(self.pairs[self._key(s, c)]
                                                           for c in chosen), load[s])))
        self.count(chosen)
        return chosen

    def spread(self) -> tuple[int, int]:
        """(fewest, most) comparisons of any pair so far."""
        vals = list(self.pairs.values()) or [0]
        return min(vals), max(vals)


def unranked(db: Database, judge: str | None = None) -> list[int]:
    """Indices of sources with segments that ``judge`` (None: anybody) has not ranked
    completely yet -- the to-do list of a SegRanks session, in database order."""
    out = []
    for i, src in enumerate(db.sources):
        data = sentence_segments(src)
        if data is None or not data.segments:
            continue
        done: set[int] = set()
        for r in data.rankings:
            if judge is None or r.judge == judge:
                done.update(r.ranks)
        if len(done) < len(data.segments):
            out.append(i)
    return out
