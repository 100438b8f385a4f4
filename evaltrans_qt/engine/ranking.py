"""Relative ranking judgements -> pairwise comparisons -> ratio of wins (Macháček §3.1).

A ranking task shows a judge several candidates of one source; each gets a
rank (1 = best, ties = equal ranks). It is stored on each ranked target as
``Score(cls="rank", value=rank, judge=..., extra_attrs={"task": "<id>"})``;
the etdb writer keeps unknown score attributes, so tasks round-trip.

Every task gives N(N-1)/2 pairwise comparisons (Macháček §3.1); per system
``win``, ``loss`` and ``ties`` are counted and the *ratio of wins (ignoring
ties)* is ``win / (win + loss)`` (Macháček §3.1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from evaltrans_qt.engine.database import Database, Levels, Score, Source, Target
from evaltrans_qt.errors import ScoreError

RANK_CLASS = "rank"
TASK_ATTR = "task"


def ensure_rank_class(db: Database, max_rank: int = 64, cls: str = RANK_CLASS) -> Levels:
    """Declare the rank class (levels 1..max_rank) before the reference class if missing."""
    if db.has_class(cls):
        return db.level(cls)
    lv = Levels(cls, count=max_rank + 1, gray=0, green=1, perfect=1, firstvalid=1)
    if db.reference_levels is None:
        db.ensure_reference_class()
    # never last: the last class decides which targets are references (thesis Appendix A.2)
    db.levels.insert(len(db.levels) - 1, lv)
    return lv


def add_ranking(db: Database, source: Source, ranks: Mapping[int, int] | Sequence[tuple[Target, int]],
                judge: str | None, task: str, cls: str = RANK_CLASS,
                time: str | None = None) -> None:
    """Store one ranking task: ``ranks`` maps target index (or Target) -> rank (1 = best).

    Replaces an earlier ranking of the same task (same judge) on those targets.
    """
    items = ranks.items() if isinstance(ranks, Mapping) else ranks
    pairs = []
    for key, rank in items:
        t = source.targets[key] if isinstance(key, int) else key
        if rank != int(rank) or rank < 1:
            raise ScoreError(f"rank {rank!r} is not a positive integer")
        pairs.append((t, int(rank)))
    lv = ensure_rank_class(db, max(64, max((r for _, r in pairs), default=1)), cls)
    if pairs and max(r for _, r in pairs) >= lv.count:
        lv.count = max(r for _, r in pairs) + 1
    for t, rank in pairs:
        t.scores = [s for s in t.scores if not (s.cls == cls and s.judge == judge
                                                 and s.extra_attrs.get(TASK_ATTR) == task)]
        t.scores.append(Score(cls, float(rank), judge, time, False, {TASK_ATTR: task}))


@dataclass(frozen=True)
class Ranking:
    """One ranking task: source index, judge, task id and {system: rank}."""

    source: int
    judge: str | None
    task: str
    ranks: Mapping[str, float]


def rankings(db: Database, cls: str = RANK_CLASS) -> list[Ranking]:
    """All ranking tasks in ``db`` (grouped by source, judge and task id), by system id.

    Scores of ``cls`` without a task id form one task per (source, judge).
    """
    out = []
    for i, src in enumerate(db.sources):
        tasks: dict[tuple[str | None, str], dict[str, float]] = {}
        for t in db.candidates(src):
            for s in t.scores:
                if s.cls == cls and not s.extrapolated:
                    key = (s.judge, s.extra_attrs.get(TASK_ATTR, ""))
                    tasks.setdefault(key, {})[t.system or ""] = s.value
        for (judge, task), ranks in tasks.items():
            out.append(Ranking(i, judge, task, ranks))
    return out


def pairwise(ranking: Ranking | Mapping[str, float]) -> list[tuple[str, str, int]]:
    """Comparisons ``(s1, s2, c)`` with c = +1 win (s1 ranked better), -1 loss, 0 tie."""
    ranks = ranking.ranks if isinstance(ranking, Ranking) else ranking
    names = list(ranks)
    out = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            r1, r2 = ranks[names[a]], ranks[names[b]]
            out.append((names[a], names[b], (r1 < r2) - (r1 > r2)))
    return out


@dataclass
class WinStats:
    wins: int = 0
    losses: int = 0
    ties: int = 0

    @property
    def ratio(self) -> float:
        """Ratio of wins ignoring ties, win / (win + loss) (Macháček §3.1)."""
        n = self.wins + self.losses
        return self.wins / n if n else math.nan


@dataclass
class RatioOfWins:
    stats: dict[str, WinStats] = field(default_factory=dict)

    def ranking(self) -> list[tuple[str, float]]:
        """Systems by descending ratio of wins (NaN last)."""
        items = [(s, w.ratio) for s, w in self.stats.items()]
        return sorted(items, key=lambda x: (math.isnan(x[1]), -x[1] if not math.isnan(x[1]) else 0))


def ratio_of_wins(comparisons: Iterable[tuple[str, str, int]]) -> RatioOfWins:
    """Count wins/losses/ties per system (Macháček §3.1) and the ratio of wins."""
    res = RatioOfWins()
    for s1, s2, c in comparisons:
        a = res.stats.setdefault(s1, WinStats())
        b = res.stats.setdefault(s2, WinStats())
        if c > 0:
            a.wins += 1
            b.losses += 1
        elif c < 0:
            a.losses += 1
            b.wins += 1
        else:
            a.ties += 1
            b.ties += 1
    return res


def database_ratio_of_wins(db: Database, cls: str = RANK_CLASS) -> RatioOfWins:
    """Ratio of wins over all ranking tasks stored in ``db``."""
    comps = []
    for r in rankings(db, cls):
        comps.extend(pairwise(r))
    return ratio_of_wins(comps)
