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

from evaltrans_qt.engine.data.database import Database, Levels, Score, Source, Target
from evaltrans_qt.errors import ScoreError

RANK_CLASS = "rank"
TASK_ATTR = "task"
SECONDS_ATTR = "seconds"


def ensure_rank_class(db: Database, max_rank: int = 64, cls: str = RANK_CLASS) -> Levels:
    """Declare the rank class (levels 1..max_rank) before the reference class if missing."""
    if db.has_class(cls):
        return db.level(cls)
    # floats, as a class read from a file has them (classes --json prints 1.0 either way)
    lv = Levels(cls, count=max_rank + 1, gray=0.0, green=1.0, perfect=1.0, firstvalid=1.0)
    if db.reference_levels is None:
        db.ensure_reference_class()
    # never last: the last class decides which targets are references (thesis Appendix A.2)
    db.levels.insert(len(db.levels) - 1, lv)
    return lv


class RankIndex:
    """Which (class, judge, task) rank scores each target already has, for a bulk import
    calling :func:`add_ranking` many times: a target's scores are scanned once, when it is
    first ranked, so an import of N rankings costs O(N) instead of rebuilding each ranked
    target's growing score list every time (O(N²) when many screens rank one source).
    Valid while only :func:`add_ranking` with this index changes rank scores."""

    def __init__(self) -> None:
        self._keys: dict[int, set[tuple[str, str | None, str | None]]] = {}

    def keys(self, target: Target) -> set[tuple[str, str | None, str | None]]:
        k = self._keys.get(id(target))
        if k is None:
            k = self._keys[id(target)] = {(s.cls, s.judge, s.extra_attrs.get(TASK_ATTR))
                                          for s in target.scores}
        return k


def add_ranking(db: Database, source: Source, ranks: Mapping[int, int] | Sequence[tuple[Target, int]],
                judge: str | None, task: str, cls: str = RANK_CLASS,
                time: str | None = None, seconds: float | None = None,
                index: RankIndex | None = None) -> None:
    """Store one ranking task: ``ranks`` maps target index (or Target) -> rank (1 = best).

    Replaces an earlier ranking of the same task (same judge) on those targets.
    ``seconds`` (time spent on the screen) is kept as the scores' ``seconds`` attribute.
    ``index``: a :class:`RankIndex` shared by the calls of one bulk import (linear time).
    """
    items = ranks.items() if isinstance(ranks, Mapping) else ranks
    pairs = []
    for key, rank in items:
        t = source.targets[key] if isinstance(key, int) else key
        if rank != int(rank) or rank < 1:
            raise ScoreError(f"rank {rank!r} is not a positive integer")
        pairs.append((t, int(rank)))
    top = max((r for _, r in pairs), default=1)
    lv = ensure_rank_class(db, max(64, top), cls)
    if top >= lv.count:
        lv.count = top + 1
    attrs = {TASK_ATTR: task}
    if seconds is not None:
        attrs[SECONDS_ATTR] = repr(float(seconds))
    for t, rank in pairs:
        keys = index.keys(t) if index is not None else None
        if keys is None or (cls, judge, task) in keys:
            t.scores = [s for s in t.scores if not (s.cls == cls and s.judge == judge
                                                     and s.extra_attrs.get(TASK_ATTR) == task)]
        if keys is not None:
            keys.add((cls, judge, task))
        t.scores.append(Score(cls, float(rank), judge, time, False, dict(attrs)))


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


# ------------------------------------------------------------------ SegRanks and system scores
def expand(segment, ranks: Sequence[int]) -> dict[str, int]:
    """The *system annotation* of a segment annotation (Macháček §3.1): every system that
    produced a merged candidate segment gets that candidate's rank. ``segment`` is an
    ``engine.segranks.model.SourceSegment``, ``ranks`` one rank per candidate."""
    out: dict[str, int] = {}
    for cand, rank in zip(segment.candidates, ranks):
        for system in cand.systems:
            out[system] = int(rank)
    return out


def segment_rankings(db: Database) -> list[Ranking]:
    """Every segment annotation in ``db`` expanded to system ranks (Macháček §3.1): one
    :class:`Ranking` per (sentence, screen, segment), task ``"<task>/<segment index>"``.
    Candidates imported without systems rank nobody."""
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    out = []
    for i, src in enumerate(db.sources):
        data = sentence_segments(src)
        if data is None:
            continue
        for rk in data.rankings:
            for k, ranks in rk.ranks.items():
                sys_ranks = expand(data.segments[k], ranks)
                if sys_ranks:
                    out.append(Ranking(i, rk.judge, f"{rk.task}/{k}",
                                       {s: float(r) for s, r in sys_ranks.items()}))
    return out


LEVELS = ("segments", "sentences")


def level_rankings(db: Database, level: str = "segments", cls: str = RANK_CLASS) -> list[Ranking]:
    """Rankings of short segments (expanded, :func:`segment_rankings`) or of whole
    sentences (``rank`` scores, :func:`rankings`)."""
    if level == "segments":
        return segment_rankings(db)
    if level == "sentences":
        return rankings(db, cls) if db.has_class(cls) else []
    raise ScoreError(f"ranking level must be one of {', '.join(LEVELS)}, not {level!r}")


@dataclass(frozen=True)
class SystemRankScore:
    """One system's pairwise results and the scores computed from them.

    * ``ratio`` -- ratio of wins ignoring ties, win / (win + loss) (Macháček §3.1;
      Bojar et al. 2011, used in WMT12);
    * ``geq_others`` -- (win + tie) / all comparisons, WMT's earlier "≥ others" score in
      which a tie counts as a win (Callison-Burch et al. 2008-2011; Bojar et al. 2011
      §3 criticises it);
    * ``expected_wins`` -- Koehn (2012) "expected wins" as WMT13 used it (Bojar et al.
      2013 §3.2): the mean over opponents o of win(s,o) / (win(s,o) + loss(s,o)), ties
      ignored, opponents without a decisive comparison left out;
    * ``expected_wins_ties`` -- the same mean with ties counted as half a win,
      (win(s,o) + tie(s,o)/2) / all(s,o), over every opponent compared at all (our
      definition: the probability of beating a random opponent when a tie is a coin flip).
    """

    system: str
    wins: int
    losses: int
    ties: int
    ratio: float
    geq_others: float
    expected_wins: float
    expected_wins_ties: float
    opponents: int

    @property
    def comparisons(self) -> int:
        return self.wins + self.losses + self.ties


@dataclass
class RankScores:
    """Per-system scores of a set of pairwise comparisons, best ratio of wins first."""

    rows: list[SystemRankScore]
    #: (a, b) with a < b -> [wins of a, wins of b, ties]
    pairs: dict[tuple[str, str], list[int]]
    level: str = "segments"
    rankings: int = 0

    def row(self, system: str) -> SystemRankScore:
        return next(r for r in self.rows if r.system == system)

    def frame(self):
        """The table as a pandas DataFrame (for io/export.py ``write_table``)."""
        import pandas as pd
        return pd.DataFrame([{"system": r.system, "ratio_of_wins": r.ratio,
                              "expected_wins": r.expected_wins,
                              "expected_wins_ties": r.expected_wins_ties,
                              "geq_others": r.geq_others, "wins": r.wins,
                              "losses": r.losses, "ties": r.ties,
                              "comparisons": r.comparisons} for r in self.rows],
                            columns=["system", "ratio_of_wins", "expected_wins",
                                     "expected_wins_ties", "geq_others", "wins", "losses",
                                     "ties", "comparisons"])

    def to_dict(self) -> dict:
        def c(v: float) -> float | None:
            return v if math.isfinite(v) else None
        return {"level": self.level, "rankings": self.rankings,
                "systems": [{"system": r.system, "ratio_of_wins": c(r.ratio),
                             "expected_wins": c(r.expected_wins),
                             "expected_wins_ties": c(r.expected_wins_ties),
                             "geq_others": c(r.geq_others), "wins": r.wins,
                             "losses": r.losses, "ties": r.ties} for r in self.rows]}


def _div(a: float, b: float) -> float:
    return a / b if b else math.nan


def rank_scores(comparisons: Iterable[tuple[str, str, int]], level: str = "segments",
                n_rankings: int = 0) -> RankScores:
    """Per-system wins, losses, ties and the scores of :class:`SystemRankScore` from
    comparisons ``(s1, s2, c)`` (:func:`pairwise`: c = +1 s1 better, -1 worse, 0 tie)."""
    pairs: dict[tuple[str, str], list[int]] = {}
    for s1, s2, c in comparisons:
        if s1 == s2:
            continue
        a, b, c = (s1, s2, c) if s1 < s2 else (s2, s1, -c)
        p = pairs.setdefault((a, b), [0, 0, 0])
        p[0 if c > 0 else 1 if c < 0 else 2] += 1
    per: dict[str, list[tuple[int, int, int]]] = {}
    for (a, b), (wa, wb, t) in pairs.items():
        per.setdefault(a, []).append((wa, wb, t))
        per.setdefault(b, []).append((wb, wa, t))
    rows = []
    for s, opp in per.items():
        w = sum(x[0] for x in opp)
        lo = sum(x[1] for x in opp)
        t = sum(x[2] for x in opp)
        decisive = [x[0] / (x[0] + x[1]) for x in opp if x[0] + x[1]]
        with_ties = [(x[0] + x[2] / 2) / sum(x) for x in opp if sum(x)]
        rows.append(SystemRankScore(s, w, lo, t, _div(w, w + lo), _div(w + t, w + lo + t),
                                    _div(sum(decisive), len(decisive)),
                                    _div(sum(with_ties), len(with_ties)), len(opp)))
    rows.sort(key=lambda r: (math.isnan(r.ratio), -r.ratio if not math.isnan(r.ratio) else 0,
                             r.system))
    return RankScores(rows, pairs, level, n_rankings)


def database_rank_scores(db: Database, level: str = "segments",
                         cls: str = RANK_CLASS) -> RankScores:
    """:func:`rank_scores` of every ranking in ``db`` at ``level`` (segments: expanded
    segment annotations; sentences: whole-sentence ``rank`` tasks)."""
    rks = level_rankings(db, level, cls)
    comps: list[tuple[str, str, int]] = []
    for r in rks:
        comps.extend(pairwise(r))
    return rank_scores(comps, level, len(rks))


def system_rank_values(db: Database, system: str, cls: str = RANK_CLASS) -> dict[str, tuple[SystemRankScore, int]]:
    """{level: (the system's row, number of rankings)} at every level where ``system`` was
    ranked -- what the report's ``<ranking>`` section holds (io/report.py)."""
    out = {}
    for level in LEVELS:
        res = database_rank_scores(db, level, cls)
        row = next((r for r in res.rows if r.system == system), None)
        if row is not None:
            out[level] = (row, res.rankings)
    return out
