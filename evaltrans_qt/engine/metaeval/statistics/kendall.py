"""Kendall's tau variants and tie calibration as mt-metrics-eval computes them.

Every variant is a function of five pair counts (mt-metrics-eval
``stats._FenwickTreeSufficientStatistics``, ``tau_optimization.TauSufficientStats``):
concordant ``con``, discordant ``dis``, pairs tied only in the metric ``ties_metric``,
only in the gold (human) scores ``ties_human``, and in both ``ties_both``.

* tau_a = (con - dis) / pairs (the thesis' tau, eq. 6.23);
* tau_b = (con - dis) / sqrt((pairs - T_m)(pairs - T_h)), T = all pairs tied on that side
  (``KendallVariants(variant='b')``, scipy's default);
* tau_c = 2 (con - dis) / (n^2 (m - 1) / m), m = min(distinct metric values, distinct
  gold values) (``KendallVariants(variant='c')``, scipy ``variant='c'``);
* tau_23 = (con + ties_both - dis - ties_human - ties_metric) / pairs and
  acc_23 = (con + ties_both) / pairs (``KendallVariants(variant='23'|'acc23')``,
  Deutsch et al. 2023, "Ties Matter"). acc_23 is the pairwise accuracy in which a tie
  counts as agreement only when both sides tie.

The counts come from one sort and the Fenwick-tree kernel
:func:`~evaltrans_qt.engine.kernels.ranks.concordance_kernel` (con - dis), O(n log n).

Tie calibration (:func:`tie_calibration`, ``tau_optimization.tau_optimization``): a
metric difference |m_i - m_j| <= epsilon counts as a metric tie; epsilon is chosen
among 0 and all pair differences to maximise the averaged acc_23 (acc*_eq) or tau_23.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaltrans_qt.engine.kernels.ranks import concordance_kernel

VARIANTS = ("a", "b", "c", "23", "acc23")


@dataclass(frozen=True)
class TauStats:
    """The five pair counts of one sample plus its size and distinct values per side."""

    con: float
    dis: float
    ties_metric: float
    ties_human: float
    ties_both: float
    n: int = 0
    classes_metric: int = 0
    classes_human: int = 0

    @property
    def pairs(self) -> float:
        return self.con + self.dis + self.ties_metric + self.ties_human + self.ties_both

    def tau(self, variant: str = "b") -> float:
        """The variant's value (NaN where undefined: no pairs, or one side all tied for b/c)."""
        p = self.pairs
        if p <= 0:
            return math.nan
        s = self.con - self.dis
        tm = self.ties_metric + self.ties_both
        th = self.ties_human + self.ties_both
        if variant == "a":
            return s / p
        if variant in ("b", "c") and (tm == p or th == p):
            return math.nan
        if variant == "b":
            return s / math.sqrt(p - tm) / math.sqrt(p - th)
        if variant == "c":
            m = min(self.classes_metric, self.classes_human)
            return 2.0 * s / (self.n ** 2 * (m - 1) / m)
        if variant == "23":
            return (self.con + self.ties_both - self.dis - self.ties_human - self.ties_metric) / p
        if variant == "acc23":
            return (self.con + self.ties_both) / p
        raise ValueError(f"unknown Kendall variant '{variant}' (one of {', '.join(VARIANTS)})")


def _tied_pairs(*cols: np.ndarray) -> float:
    """Pairs equal in every one of ``cols`` (sum of c(c-1)/2 over groups of equal rows)."""
    if cols[0].size < 2:
        return 0.0
    order = np.lexsort(cols[::-1])
    change = np.zeros(cols[0].size - 1, dtype=bool)
    for c in cols:
        s = c[order]
        change |= s[1:] != s[:-1]
    bounds = np.flatnonzero(np.r_[True, change, True])
    c = np.diff(bounds).astype(np.float64)
    return float((c * (c - 1) / 2).sum())


def tau_stats(metric: npt.ArrayLike, human: npt.ArrayLike) -> TauStats:
    """Pair counts of ``metric`` against ``human`` in O(n log n) (mt-metrics-eval
    ``_FenwickTreeSufficientStatistics``). Inputs must be finite."""
    x = np.asarray(metric, float)
    y = np.asarray(human, float)
    n = int(x.size)
    if n < 2:
        return TauStats(0, 0, 0, 0, 0, n, len(set(x.tolist())), len(set(y.tolist())))
    order = np.lexsort((y, x)).astype(np.int64)
    xs = np.ascontiguousarray(x[order])
    _, yr = np.unique(y[order], return_inverse=True)
    s = float(concordance_kernel(xs, yr.astype(np.int64), int(yr.max()) + 1,
                                 np.ones((1, n)), order)[0])
    tot = n * (n - 1) / 2.0
    tx, ty, txy = _tied_pairs(x), _tied_pairs(y), _tied_pairs(x, y)
    untied = tot - tx - ty + txy
    con = (untied + s) / 2.0
    dis = (untied - s) / 2.0
    return TauStats(round(con), round(dis), tx - txy, ty - txy, txy, n,
                    int(np.unique(x).size), int(np.unique(y).size))


def kendall(metric: npt.ArrayLike, human: npt.ArrayLike, variant: str = "b") -> float:
    """Kendall's tau of one variant (:data:`VARIANTS`); mt-metrics-eval ``KendallVariants``
    with epsilon 0 (and the thesis' tau_a, eq. 6.23)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown Kendall variant '{variant}' (one of {', '.join(VARIANTS)})")
    return tau_stats(metric, human).tau(variant)


# ------------------------------------------------------------------ pairs of a grouping
def within_pairs(groups: np.ndarray, max_pairs: int | None = None,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All pairs (i < j) of items in the same group: (i, j, group index 0..G-1).

    With ``max_pairs`` and more pairs than that, a uniform random sample of that many
    pairs per the whole set (mt-metrics-eval's ``sample_rate``), seeded."""
    groups = np.asarray(groups)
    _, inv, counts = np.unique(groups, return_inverse=True, return_counts=True)
    total = int((counts * (counts - 1) // 2).sum())
    order = np.argsort(inv, kind="stable")
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    if max_pairs is None or total <= max_pairs:
        from evaltrans_qt.engine.kernels.budget import check_table
        # (i, j, group) of every pair, 8 bytes each, before any is listed
        check_table("Kendall tau over pairs", total, 24,
                    f"{total} pairs of items in {len(counts)} groups (largest "
                    f"{int(counts.max()) if counts.size else 0}; "
                    "a coarser grouping or sampled pairs need less)")
    if max_pairs is not None and total > max_pairs:
        rng = np.random.default_rng(seed)
        g = rng.choice(len(counts), size=max_pairs, p=(counts * (counts - 1) / 2) / total)
        a = rng.integers(0, counts[g])
        b = rng.integers(0, counts[g] - 1)
        b = b + (b >= a)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        return order[starts[g] + lo], order[starts[g] + hi], g
    ii, jj, gg = [], [], []
    for k in np.unique(counts):
        if k < 2:
            continue
        sel = np.flatnonzero(counts == k)
        a, b = np.triu_indices(int(k), 1)
        base = starts[sel][:, None]
        ii.append(order[(base + a[None, :]).ravel()])
        jj.append(order[(base + b[None, :]).ravel()])
        gg.append(np.repeat(sel, len(a)))
    if not ii:
        e = np.zeros(0, np.int64)
        return e, e, e
    return np.concatenate(ii), np.concatenate(jj), np.concatenate(gg)


def pair_categories(metric: np.ndarray, human: np.ndarray, i: np.ndarray, j: np.ndarray,
                    epsilon: float = 0.0) -> np.ndarray:
    """Category of each pair: 0 con, 1 dis, 2 tie metric only, 3 tie human only, 4 tie both.
    A metric difference |dm| <= ``epsilon`` is a metric tie (``_MatrixSufficientStatistics``)."""
    dm = metric[i] - metric[j]
    dh = human[i] - human[j]
    tm = np.abs(dm) <= epsilon
    th = dh == 0
    cat = np.where(np.sign(dm) == np.sign(dh), 0, 1)
    cat = np.where(tm & ~th, 2, cat)
    cat = np.where(th & ~tm, 3, cat)
    return np.where(tm & th, 4, cat)


#: Contribution of each category to acc_23 and tau_23 (divide by the group's pairs).
_WEIGHT = {"acc23": np.array([1.0, 0.0, 0.0, 0.0, 1.0]),
           "23": np.array([1.0, -1.0, -1.0, -1.0, 1.0])}


@dataclass(frozen=True)
class TieCalibration:
    """Result of :func:`tie_calibration`: the best value, its epsilon, and the curve."""

    value: float
    epsilon: float
    thresholds: np.ndarray
    values: np.ndarray
    sampled: bool = False


def tie_calibration(metric: npt.ArrayLike, human: npt.ArrayLike,
                    groups: npt.ArrayLike | None = None, variant: str = "acc23",
                    max_pairs: int = 4_000_000, seed: int = 0) -> TieCalibration:
    """acc*_eq (``variant='acc23'``) or tau*_eq (``'23'``) with the metric tie threshold
    epsilon that maximises it (Deutsch et al. 2023; mt-metrics-eval
    ``tau_optimization.tau_optimization`` / ``KendallWithTiesOpt``).

    The value is the plain mean over ``groups`` (mt-metrics-eval's averaging: one group
    = 'none'); each group's value is linear in its pair counts, so turning the pairs
    into metric ties in order of |m_i - m_j| is a cumulative sum. The candidates are
    epsilon = 0 and every pair difference; ties between candidates go to the smallest
    epsilon. More than ``max_pairs`` pairs are sampled (reported as ``sampled``).
    """
    if variant not in _WEIGHT:
        raise ValueError("tie calibration needs variant 'acc23' or '23'")
    m = np.asarray(metric, float)
    h = np.asarray(human, float)
    g = np.zeros(m.size, np.int64) if groups is None else np.asarray(groups)
    i, j, gid = within_pairs(g, max_pairs, seed)
    total = int(sum(c * (c - 1) // 2 for c in np.unique(g, return_counts=True)[1]))
    if i.size == 0:
        return TieCalibration(math.nan, 0.0, np.zeros(1), np.full(1, math.nan))
    w = _WEIGHT[variant]
    cat = pair_categories(m, h, i, j)
    tie_cat = np.where(h[i] == h[j], 4, 2)
    per_group = np.bincount(gid)
    used = per_group > 0
    weight = 1.0 / (per_group[gid] * used.sum())
    base = float((w[cat] * weight).sum())
    diff = np.abs(m[i] - m[j])
    order = np.argsort(diff, kind="stable")
    curve = base + np.cumsum(((w[tie_cat] - w[cat]) * weight)[order])
    ds = diff[order]
    last = np.r_[ds[1:] != ds[:-1], True]
    thresholds = np.r_[0.0, ds[last]]
    values = np.r_[base, curve[last]]
    k = int(np.nanargmax(values))
    return TieCalibration(float(values[k]), float(thresholds[k]), thresholds, values,
                          sampled=i.size < total)
