"""Correlations of a systems x items score matrix with mt-metrics-eval's grouping options.

mt-metrics-eval ``stats.Correlation`` / ``AverageCorrelation``: segment-level scores
form a matrix (rows = systems, columns = items, i.e. segments); ``average_by``
turns it into vectors:

* ``none``: flatten the matrix, one correlation over all (system, item) cells;
* ``item``: per item (column), the correlation across the systems' outputs of that
  segment, then the plain mean over items (the WMT23 segment-level "grouped by item");
* ``system`` (mt-metrics-eval ``'sys'``): per system (row), the correlation across its
  segments, then the plain mean over systems.

Cells whose human (gold) score is missing (NaN here, ``None`` there) are left out on
both sides, as ``AverageCorrelation(filter_nones=True)`` does; a metric NaN (an external
file without that segment) is left out too. Groups with fewer than two cells are
skipped, and groups whose correlation is NaN (a constant side) are left out of the
mean (``replace_nans_with_zeros=False``, the default).

Averaging options of ``AverageCorrelation``: ``nan_as_zero`` counts a group whose
correlation is NaN as 0 (``replace_nans_with_zeros=True``; groups with fewer than two
cells stay out); ``micro`` weights each group by its number of kept cells instead of the
plain mean (``macro=False``; for the WMT20 Kendall-like tau, by its number of compared
pairs). :meth:`Grouped.p_value` averages the p-values of r with the same weights
(``AverageCorrelation.Corr``'s second value: scipy ``pearsonr``, ``spearmanr``,
``kendalltau`` per group).

:class:`Grouped` precomputes everything that depends only on the human scores (the
within-group pairs, their human order), so many metrics -- and the thousands of
resampled metrics of a permutation test -- are cheap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.metaeval.statistics.kendall import (
    VARIANTS,
    TauStats,
    pair_categories,
    tau_stats,
    tie_calibration,
    within_pairs,
)

GROUPINGS = ("none", "item", "system")
#: Largest number of within-group pairs kept in memory; beyond it Kendall loops over groups.
PAIR_LIMIT = 3_000_000


def group_ids(shape: tuple[int, int], grouping: str) -> np.ndarray:
    """Group index of each cell of a flattened (systems x items) matrix."""
    s, n = shape
    if grouping == "none":
        return np.zeros(s * n, np.int64)
    if grouping == "item":
        return np.tile(np.arange(n), s)
    if grouping == "system":
        return np.repeat(np.arange(s), n)
    raise ValueError(f"unknown grouping '{grouping}' (one of {', '.join(GROUPINGS)})")


class Grouped:
    """The human scores of a (systems x items) matrix under one grouping.

    ``human`` is 2-D (systems x items; NaN = missing) or 1-D (system level: one group).
    Metric matrices given to the methods must have the same shape; they should be
    oriented so that higher is better.
    """

    def __init__(self, human: np.ndarray, grouping: str = "none", *, micro: bool = False,
                 nan_as_zero: bool = False) -> None:
        self.micro = micro
        self.nan_as_zero = nan_as_zero
        h = np.asarray(human, float)
        if h.ndim == 1:
            h = h[None, :]
            grouping = "none"
        self.shape = h.shape
        self.grouping = grouping
        gid = group_ids(h.shape, grouping)
        flat = h.ravel()
        self.keep = np.flatnonzero(np.isfinite(flat))
        self.human = flat[self.keep]
        _, self.gid = np.unique(gid[self.keep], return_inverse=True)
        self.n_groups = int(self.gid.max()) + 1 if self.gid.size else 0
        self._pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    # -- helpers
    def cells(self, metric: np.ndarray) -> np.ndarray:
        """The metric values of the kept cells (flattened like the human scores)."""
        return np.asarray(metric, float).reshape(-1)[self.keep]

    def _subset(self, m: np.ndarray) -> Grouped:
        """Self restricted to cells where ``m`` (kept cells) is finite."""
        ok = np.isfinite(m)
        if ok.all():
            return self
        _, gid = np.unique(self.gid[ok], return_inverse=True)
        return self._clone(self.keep[ok], self.human[ok], gid)

    def _clone(self, keep: np.ndarray, human: np.ndarray, gid: np.ndarray) -> Grouped:
        """A Grouped of the same shape, grouping and averaging on other cells/values."""
        g = Grouped.__new__(Grouped)
        g.shape, g.grouping, g.micro, g.nan_as_zero = (self.shape, self.grouping, self.micro,
                                                        self.nan_as_zero)
        g.keep, g.human, g.gid = keep, human, gid
        g.n_groups = int(gid.max()) + 1 if gid.size else 0
        g._pairs = None
        return g

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Within-group pairs (i, j, group), or None when there are more than PAIR_LIMIT."""
        if self._pairs is None:
            counts = np.bincount(self.gid, minlength=self.n_groups)
            if int((counts * (counts - 1) // 2).sum()) > PAIR_LIMIT:
                return None
            self._pairs = within_pairs(self.gid)
        return self._pairs

    def _mean(self, values: np.ndarray, weights: np.ndarray | None = None) -> float:
        """The average of the groups' values as ``AverageCorrelation`` takes it: groups with
        fewer than two cells left out; a NaN value left out, or counted as 0 with
        ``nan_as_zero``; plain mean, or with ``micro`` weighted by the group's cells
        (``weights`` when given). NaN when no group has a value (mt-metrics-eval returns
        0 there: an undefined statistic is not reported as no correlation here)."""
        v = np.asarray(values, float)
        size = np.bincount(self.gid, minlength=self.n_groups).astype(float)
        w = (size if weights is None else np.asarray(weights, float)) if self.micro \
            else np.ones(v.size)
        use = size >= 2
        if self.nan_as_zero:
            v = np.where(np.isfinite(v), v, 0.0)
        else:
            use &= np.isfinite(v)
        total = float(w[use].sum())
        return float((w[use] * v[use]).sum() / total) if total > 0 else math.nan

    # -- statistics
    def pearson(self, metric: np.ndarray, *, cells: bool = False) -> float:
        """Mean over groups of Pearson's r (mt-metrics-eval ``Correlation.Pearson``)."""
        m = np.asarray(metric, float).reshape(-1) if cells else self.cells(metric)
        g = self._subset(m)
        m = m[np.isfinite(m)]
        return g._mean(g._pearson_groups(m))

    def spearman(self, metric: np.ndarray, *, cells: bool = False) -> float:
        """Mean over groups of Spearman's rho -- Pearson's r of the within-group average
        ranks (mt-metrics-eval ``Correlation.Spearman``, scipy ``spearmanr`` per group;
        a group with a constant side is left out)."""
        m = np.asarray(metric, float).reshape(-1) if cells else self.cells(metric)
        g = self._subset(m)
        m = m[np.isfinite(m)]
        h = g._clone(g.keep, _group_ranks(g.gid, g.human), g.gid)
        return h._mean(h._pearson_groups(_group_ranks(g.gid, m)))

    def pdp(self, metric: np.ndarray, *, cells: bool = False) -> float:
        """Pairwise Difference Pearson (mt-metrics-eval ``Correlation.Pearson(pdp=True)``):
        the grouping chooses which pairs of cells are formed -- all pairs (``none``), the
        pairs of systems on one item (``item``), the pairs of items of one system
        (``system``) -- and *one* Pearson's r is taken over the differences
        (human_i - human_j, metric_i - metric_j) of all of them, not a mean over groups.

        mt-metrics-eval lists every ordered pair and the pairs of a cell with itself; the
        differences are then symmetric about 0, so r is the uncentred correlation over the
        unordered pairs. Over one group's pairs, sum (h_i - h_j)(m_i - m_j) =
        n * sum (h - mean h)(m - mean m); so r = sum_g n_g C_g(h, m) / sqrt(sum_g n_g C_g(h, h)
        * sum_g n_g C_g(m, m)) with C_g the within-group sums of centred products -- no pair
        is materialised. With one group (``none``, or system level) it is Pearson's r.
        NaN when either side has no non-zero difference."""
        m = np.asarray(metric, float).reshape(-1) if cells else self.cells(metric)
        g = self._subset(m)
        m = m[np.isfinite(m)]
        gid, h, G = g.gid, g.human, g.n_groups
        if h.size < 2:
            return math.nan
        n = np.bincount(gid, minlength=G).astype(float)
        dh = h - (np.bincount(gid, h, G) / np.maximum(n, 1))[gid]
        dm = m - (np.bincount(gid, m, G) / np.maximum(n, 1))[gid]
        sxy = float((n * np.bincount(gid, dh * dm, G)).sum())
        sxx = float((n * np.bincount(gid, dm * dm, G)).sum())
        syy = float((n * np.bincount(gid, dh * dh, G)).sum())
        scale_x = float((n * np.bincount(gid, m * m, G)).sum())
        scale_y = float((n * np.bincount(gid, h * h, G)).sum())
        if sxx <= 1e-20 * scale_x + 1e-300 or syy <= 1e-20 * scale_y + 1e-300:
            return math.nan
        return float(np.clip(sxy / math.sqrt(sxx * syy), -1.0, 1.0))

    def _pearson_groups(self, m: np.ndarray) -> np.ndarray:
        gid, h, G = self.gid, self.human, self.n_groups
        n = np.bincount(gid, minlength=G).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            mh = np.bincount(gid, h, G) / n
            mm = np.bincount(gid, m, G) / n
            dh = h - mh[gid]
            dm = m - mm[gid]
            sxy = np.bincount(gid, dh * dm, G)
            sxx = np.bincount(gid, dm * dm, G)
            syy = np.bincount(gid, dh * dh, G)
            r = sxy / np.sqrt(sxx * syy)
        tiny_x = sxx <= 1e-20 * np.bincount(gid, m * m, G) + 1e-300
        tiny_y = syy <= 1e-20 * np.bincount(gid, h * h, G) + 1e-300
        r[(n < 2) | tiny_x | tiny_y] = np.nan
        return np.clip(r, -1.0, 1.0)

    def kendall(self, metric: np.ndarray, variant: str = "b", *, cells: bool = False,
                epsilon: float = 0.0) -> float:
        """Mean over groups of Kendall's tau of one variant (mt-metrics-eval
        ``Correlation.KendallVariants``; 'a' is the thesis' eq. 6.23). A metric difference
        |m_i - m_j| <= ``epsilon`` counts as a metric tie (``_MatrixSufficientStatistics``;
        not for tau_c, whose classes it leaves undefined)."""
        if variant not in VARIANTS:
            raise ValueError(f"unknown Kendall variant '{variant}' (one of {', '.join(VARIANTS)})")
        if not epsilon >= 0:
            raise ValueError("the tie threshold epsilon must be >= 0")
        if epsilon > 0 and variant == "c":
            raise ValueError("a tie threshold epsilon > 0 is not defined for tau_c")
        m = np.asarray(metric, float).reshape(-1) if cells else self.cells(metric)
        g = self._subset(m)
        m = m[np.isfinite(m)]
        return g._mean(g._kendall_groups(m, variant, epsilon))

    def kendall_like(self, metric: np.ndarray, threshold: float = 25.0, *,
                     cells: bool = False) -> float:
        """WMT20's Kendall-like tau (the WMT20 metrics task findings, Mathur et al. 2020;
        mt-metrics-eval ``stats.KendallLike``, ``Correlation.KendallLike``): only pairs whose human scores
        differ by at least ``threshold`` count; a pair is concordant when the metric orders
        it strictly the same way, discordant otherwise (a metric tie included); per group
        (con - dis) / pairs, averaged weighted by the pairs (``macro=False``, always).
        NaN when no pair differs enough."""
        m = np.asarray(metric, float).reshape(-1) if cells else self.cells(metric)
        g = self._subset(m)
        m = m[np.isfinite(m)]
        con = dis = 0.0
        for idx in g._group_members():
            if idx.size < 2:
                continue
            a, b = np.triu_indices(idx.size, 1)
            dh = g.human[idx[a]] - g.human[idx[b]]
            dm = m[idx[a]] - m[idx[b]]
            far = np.abs(dh) >= threshold
            agree = ((dh > 0) & (dm > 0)) | ((dh < 0) & (dm < 0))
            con += float((far & agree).sum())
            dis += float((far & ~agree).sum())
        return (con - dis) / (con + dis) if con + dis else math.nan

    def _group_members(self) -> list[np.ndarray]:
        """The kept-cell indices of each group, groups in order, cells in order."""
        order = np.argsort(self.gid, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(self.gid, minlength=self.n_groups))]
        return [order[bounds[k]:bounds[k + 1]] for k in range(self.n_groups)]

    def p_value(self, metric: np.ndarray, statistic: str = "pearson", variant: str = "b", *,
                cells: bool = False) -> float:
        """The averaged p-value of the groups' correlations (``AverageCorrelation.Corr``'s
        second value): per group scipy's ``pearsonr``, ``spearmanr`` or ``kendalltau``
        (variant b or c) two-sided p, averaged with the weights of :meth:`_mean` over the
        groups whose correlation is defined (with ``nan_as_zero`` the undefined ones
        count in the denominator, as there)."""
        import warnings

        import scipy.stats
        if statistic not in ("pearson", "spearman", "kendall"):
            raise ValueError("p-values are given for pearson, spearman and kendall")
        if statistic == "kendall" and variant not in ("b", "c"):
            raise ValueError("p-values of Kendall's tau are scipy's: variant b or c")
        m = np.asarray(metric, float).reshape(-1) if cells else self.cells(metric)
        g = self._subset(m)
        m = m[np.isfinite(m)]
        num = den = 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for idx in g._group_members():
                if idx.size < 2:
                    continue
                x, y = g.human[idx], m[idx]
                w = float(idx.size) if self.micro else 1.0
                if statistic != "kendall" and (np.all(x == x[0]) or np.all(y == y[0])):
                    r, p = math.nan, math.nan
                elif statistic == "pearson":
                    r, p = scipy.stats.pearsonr(x, y)
                elif statistic == "spearman":
                    r, p = scipy.stats.spearmanr(x, y)
                else:
                    r, p = scipy.stats.kendalltau(x, y, variant=variant)
                if math.isfinite(r):
                    num += w * float(p)
                    den += w
                elif self.nan_as_zero:
                    den += w
        return num / den if den else math.nan

    def _kendall_groups(self, m: np.ndarray, variant: str, epsilon: float = 0.0) -> np.ndarray:
        pairs = self.pairs()
        G = self.n_groups
        if pairs is None and epsilon > 0:           # few large groups: pairs group by group
            out = np.full(G, np.nan)
            for k, idx in enumerate(self._group_members()):
                if idx.size >= 2:
                    a, b = np.triu_indices(idx.size, 1)
                    c5 = np.bincount(pair_categories(m[idx], self.human[idx], a, b, epsilon),
                                     minlength=5).astype(float)
                    k5 = [float(x) for x in c5]
                    out[k] = TauStats(k5[0], k5[1], k5[2], k5[3], k5[4],
                                      int(idx.size)).tau(variant)
            return out
        if pairs is None:                           # few large groups: O(n log n) each
            out = np.full(G, np.nan)
            order = np.argsort(self.gid, kind="stable")
            bounds = np.r_[0, np.cumsum(np.bincount(self.gid, minlength=G))]
            for k in range(G):
                idx = order[bounds[k]:bounds[k + 1]]
                if idx.size >= 2:
                    out[k] = tau_stats(m[idx], self.human[idx]).tau(variant)
            return out
        i, j, gid = pairs
        cat = pair_categories(m, self.human, i, j, epsilon)
        c = np.bincount(gid * 5 + cat, minlength=G * 5).reshape(G, 5).astype(float)
        con, dis, tm_only, th_only, both = c.T
        p = c.sum(axis=1)
        s = con - dis
        tm, th = tm_only + both, th_only + both
        with np.errstate(invalid="ignore", divide="ignore"):
            if variant == "a":
                out = s / p
            elif variant == "b":
                out = s / np.sqrt(p - tm) / np.sqrt(p - th)
                out[(tm == p) | (th == p)] = np.nan
            elif variant == "c":
                n = np.bincount(self.gid, minlength=G).astype(float)
                cm = _distinct_per_group(self.gid, m, G)
                ch = _distinct_per_group(self.gid, self.human, G)
                mc = np.minimum(cm, ch).astype(float)
                out = 2.0 * s / (n ** 2 * (mc - 1) / mc)
                out[(tm == p) | (th == p)] = np.nan
            elif variant == "23":
                out = (con + both - dis - th_only - tm_only) / p
            else:
                out = (con + both) / p
        out[p == 0] = np.nan
        return out

    def pairwise_accuracy(self, metric: np.ndarray, *, cells: bool = False) -> float:
        """Pairwise accuracy: the share of pairs whose order (better, worse or tied) the
        metric and the humans agree on, averaged over groups -- Kocmi et al. 2021 at system
        level; mt-metrics-eval ``stats.Agreement`` (= acc_23 with epsilon 0)."""
        return self.kendall(metric, "acc23", cells=cells)

    def acc_eq(self, metric: np.ndarray, variant: str = "acc23", *, cells: bool = False,
               seed: int = 0):
        """acc*_eq with tie calibration (Deutsch et al. 2023; mt-metrics-eval
        ``KendallWithTiesOpt``): a :class:`~.kendall.TieCalibration` (value, epsilon)."""
        m = np.asarray(metric, float).reshape(-1) if cells else self.cells(metric)
        g = self._subset(m)
        m = m[np.isfinite(m)]
        return tie_calibration(m, g.human, g.gid, variant, seed=seed)


def _group_ranks(gid: np.ndarray, v: np.ndarray) -> np.ndarray:
    """1-based ranks of ``v`` within each group, ties sharing their average rank."""
    if v.size == 0:
        return v.astype(float)
    order = np.lexsort((v, gid))
    gs, vs = gid[order], v[order]
    new_group = np.r_[True, gs[1:] != gs[:-1]]
    start = np.maximum.accumulate(np.where(new_group, np.arange(v.size), 0))
    pos = np.arange(v.size) - start + 1.0
    run = np.cumsum(new_group | np.r_[True, vs[1:] != vs[:-1]]) - 1
    mean = np.bincount(run, pos) / np.bincount(run)
    out = np.empty(v.size)
    out[order] = mean[run]
    return out


def _distinct_per_group(gid: np.ndarray, v: np.ndarray, G: int) -> np.ndarray:
    order = np.lexsort((v, gid))
    gs, vs = gid[order], v[order]
    new = np.r_[True, (gs[1:] != gs[:-1]) | (vs[1:] != vs[:-1])]
    return np.bincount(gs[new], minlength=G)


def correlation(human: np.ndarray, metric: np.ndarray, statistic: str = "pearson",
                grouping: str = "none", variant: str = "b") -> float:
    """One statistic of a metric matrix against the human matrix (see :class:`Grouped`):
    ``pearson``, ``pdp``, ``kendall`` (``variant``), ``pairwise-accuracy`` or ``acc-eq``."""
    g = Grouped(human, grouping)
    if statistic == "pearson":
        return g.pearson(metric)
    if statistic == "pdp":
        return g.pdp(metric)
    if statistic == "spearman":
        return g.spearman(metric)
    if statistic == "kendall":
        return g.kendall(metric, variant)
    if statistic == "pairwise-accuracy":
        return g.pairwise_accuracy(metric)
    if statistic == "acc-eq":
        return g.acc_eq(metric).value
    raise ValueError(f"unknown statistic '{statistic}'")


# ------------------------------------------------------------------ soft pairwise accuracy
def pairwise_p_values(seg_scores: np.ndarray, samples: int = 1000, seed: int = 4) -> np.ndarray:
    """p-values that system i is better than system j (upper triangle; NaN elsewhere) by a
    paired permutation test on summed segment scores: each segment's two scores swap
    with probability 1/2, p = share of permuted differences >= the observed one
    (mt-metrics-eval ``pce.compute_pairwise_p_values``; one set of swaps for all pairs).

    Computed as mt-metrics-eval computes it, so the same ``seed`` gives the same p-values:
    the swaps are single-precision uniform draws rounded to 0/1 (2m - 1 = +-1), and the
    scores and sums are single precision."""
    # C order as mt-metrics-eval's reshaped vectors: BLAS sums single precision in an
    # order that depends on the memory layout
    s, n = np.shape(seg_scores)
    from evaltrans_qt.engine.kernels.budget import check_table
    # the permuted differences (samples x pairs, single precision, and their comparison)
    # and the p-value matrix, before any is allocated
    check_table("soft pairwise accuracy", samples * (s * (s - 1) // 2) + s * s, 8,
                f"{samples} samples x {s * (s - 1) // 2} pairs of {s} systems (fewer systems "
                "need less)")
    x = np.ascontiguousarray(np.asarray(seg_scores, float).astype(np.float32))
    rng = np.random.default_rng(seed)
    signs = rng.random(size=(samples, n), dtype=np.float32)
    np.rint(signs, out=signs, casting="same_kind")
    signs *= 2.0
    signs -= 1.0
    partial = np.matmul(signs, x.T)                         # samples x systems
    total = np.sum(x, axis=1)
    p = np.full((s, s), np.nan)
    i, j = np.triu_indices(s, 1)
    null = partial[:, i] - partial[:, j]
    p[i, j] = (null >= (total[i] - total[j])[None, :]).mean(axis=0)
    return p


def soft_pairwise_accuracy(human_seg: np.ndarray, metric_seg: np.ndarray, samples: int = 1000,
                           seed: int = 4) -> float:
    """Soft pairwise accuracy (Thompson et al. 2024): 1 - mean over system pairs of
    |p_human(i > j) - p_metric(i > j)|, both p-values from :func:`pairwise_p_values` with
    the same swaps (mt-metrics-eval ``pce.compute_one_minus_pce``). Inputs are complete
    (systems x segments) matrices, higher = better."""
    ph = pairwise_p_values(human_seg, samples, seed)
    pm = pairwise_p_values(metric_seg, samples, seed)
    i, j = np.triu_indices(ph.shape[0], 1)
    if i.size == 0:
        return math.nan
    return float(1.0 - np.mean(np.abs(ph[i, j] - pm[i, j])))


def complete_items(*mats: np.ndarray) -> np.ndarray:
    """Columns (items) where every matrix is finite for every system."""
    ok = np.ones(np.asarray(mats[0]).shape[1], bool)
    for m in mats:
        ok &= np.isfinite(np.asarray(m, float)).all(axis=0)
    return np.flatnonzero(ok)


__all__: Sequence[str] = ["GROUPINGS", "Grouped", "correlation", "group_ids",
                          "pairwise_p_values", "soft_pairwise_accuracy", "complete_items"]
