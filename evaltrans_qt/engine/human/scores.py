"""Human scores: aggregation over judges, evaluator normalisation, system scores.

Thesis section 5.5: one score per candidate is the mean (or
median) of its judges' scores; (0,1) evaluator normalisation maps each judge's
scores to mean 0 and standard deviation 1 (Doddington); system scores are
sentence scores weighted by sentence length (section 5.5) or plain means.
Combined classes such as ``adequacy+fluency`` are the sum of the classes'
per-candidate values (the thesis' "A + F", section 8.1), defined only where every
part is scored.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.data.database import Database, Score, Target
from evaltrans_qt.errors import ScoreError

AGGREGATIONS = ("mean", "median")
#: Score class of relative-ranking judgements (lower rank = better), see ranking.py.
RANK_CLASS = "rank"


def split_class(name: str) -> list[str]:
    """``"adequacy+fluency"`` -> ``["adequacy", "fluency"]``."""
    parts = [p.strip() for p in name.split("+")]
    if not all(parts):
        raise ScoreError(f"bad combined score class '{name}'")
    return parts


def valid_floor(db: Database, cls: str) -> float:
    """Lowest value that is a judgement of ``cls``: the class' ``firstvalid`` level
    (EvalTrans scales keep level 0 for "not judged"); none for continuous classes."""
    if not db.has_class(cls):
        return -math.inf
    lv = db.level(cls)
    return -math.inf if lv.continuous else float(lv.firstvalid)


def judge_statistics(db: Database, cls: str, include_extrapolated: bool = False
                     ) -> dict[str | None, tuple[float, float, int]]:
    """Per judge (None = anonymous): (mean, population std, count) of their ``cls`` scores."""
    vals: dict[str | None, list[float]] = defaultdict(list)
    floor = valid_floor(db, cls)
    for _, t in db.iter_candidates():
        for s in t.scores:
            if s.cls == cls and s.value >= floor and (include_extrapolated or not s.extrapolated):
                vals[s.judge].append(s.value)
    return {j: (float(np.mean(v)), float(np.std(v)), len(v)) for j, v in vals.items()}


def normalizer(db: Database, cls: str, include_extrapolated: bool = False):
    """Function Score -> (0,1)-normalised value for class ``cls`` (thesis section 5.5).

    A judge whose scores are all equal has no spread; their scores map to 0.
    """
    stats = judge_statistics(db, cls, include_extrapolated)

    def norm(s: Score) -> float:
        mean, std, _ = stats.get(s.judge, (0.0, 0.0, 0))
        return (s.value - mean) / std if std > 0 else 0.0

    return norm


def aggregate(values: list[float], how: str = "mean") -> float:
    """Mean or median of one candidate's judgements (thesis section 5.5)."""
    if how not in AGGREGATIONS:
        raise ScoreError(f"unknown aggregation '{how}' (use mean or median)")
    if not values:
        return math.nan
    return float(np.median(values)) if how == "median" else float(np.mean(values))


def target_value(t: Target, cls: str, how: str = "mean", norm=None,
                 include_extrapolated: bool = False, floor: float = -math.inf) -> float:
    """Aggregated (optionally normalised) value of a target for one class; NaN if unscored.

    Scores below ``floor`` (see :func:`valid_floor`) are "not judged" and left out.
    """
    vals = [(norm(s) if norm else s.value) for s in t.scores
            if s.cls == cls and s.value >= floor and (include_extrapolated or not s.extrapolated)]
    return aggregate(vals, how)


@dataclass(frozen=True)
class HumanScores:
    """Per-candidate human values of one (possibly combined) class.

    ``values[(source_index, system, k)]`` is the aggregated value of the system's
    k-th candidate of that source: k = 0 for a positional source (one line);
    k counts the lines of a sentence that a source without ``seg`` merged by its text
    (thesis Appendix A.2; see :func:`occurrence_keys`). ``lengths`` the candidate length in words
    (whitespace tokens) used for weighting.
    """

    cls: str
    values: Mapping[tuple[int, str, int], float]
    lengths: Mapping[tuple[int, str, int], int]
    normalized: bool = False
    how: str = "mean"

    def systems(self) -> list[str]:
        seen: dict[str, None] = {}
        for (_, sysname, _k) in self.values:
            seen.setdefault(sysname, None)
        return list(seen)

    def keys(self, system: str, segments: Iterable[int]) -> list[tuple[int, str, int]]:
        """Keys of a system's rows given their source indices (rows in target order)."""
        return [(i, system, k) for i, k in occurrence_keys(segments)]

    def column(self, system: str, segments: Iterable[int]) -> np.ndarray:
        """Values for ``system``'s rows at the given source indices (NaN where unscored)."""
        return np.array([self.values.get(k, math.nan) for k in self.keys(system, segments)], float)

    def system_score(self, system: str, weighted: bool = True,
                     segments: Iterable[int] | None = None) -> float:
        """Length-weighted (thesis section 5.5) or plain mean of the system's sentence values."""
        keys = self.keys(system, segments) if segments is not None else \
            [k for k in self.values if k[1] == system]
        v = np.array([self.values.get(k, math.nan) for k in keys], float)
        w = np.array([self.lengths.get(k, 0) for k in keys], float) if weighted else np.ones(len(v))
        ok = np.isfinite(v)
        return weighted_mean(v[ok], w[ok])

    def system_scores(self, weighted: bool = True) -> dict[str, float]:
        return {s: self.system_score(s, weighted) for s in self.systems()}


def occurrence_keys(segments: Iterable[int]) -> list[tuple[int, int]]:
    """``(source_index, k)`` for each row: k counts earlier rows with the same source.

    A positional source (one with ``seg``) is one line, so k = 0 and a repeated sentence's
    lines are different sources. A source without ``seg`` that occurs several times in
    a test set is one source (thesis Appendix A.2) with several candidates per system; rows of a
    system are in target order, so (source, k) names the k-th of them -- the same key
    human scores use.
    """
    seen: dict[int, int] = {}
    out = []
    for i in segments:
        i = int(i)
        k = seen.get(i, 0)
        seen[i] = k + 1
        out.append((i, k))
    return out


def weighted_mean(v: np.ndarray, w: np.ndarray) -> float:
    """sum(w v) / sum(w); the plain mean if all weights are 0; NaN if empty."""
    if v.size == 0:
        return math.nan
    sw = float(w.sum())
    if sw <= 0:
        return float(v.mean())
    return float((w * v).sum() / sw)


def word_length(text: str) -> int:
    """Sentence length used for weighting: whitespace-separated words."""
    return len(text.split())


