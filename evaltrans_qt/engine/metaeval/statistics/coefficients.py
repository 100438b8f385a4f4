"""Correlation coefficients over weighted samples (thesis ch. 6).

Pearson's r (eq. 6.1), Spearman's rho = r on mid-ranks (eq. 6.16-6.18),
Kendall's tau as in the thesis (eq. 6.23: ties count neither way, divided by
*all* pairs, i.e. tau_a) and tau_b, the local rank correlation tau-bar over
the systems' candidates of each source sentence (eq. 6.24), Fisher's z
interval of r, and r, rho, tau of many small samples at once
(:func:`rowwise_correlations`).

Everything works on integer *weights* (how often each item was drawn), so a
bootstrap sample is a row of a weight matrix and B samples are computed at
once (vectorised numpy; rho and Kendall's C - D through the numba kernels of
:mod:`evaltrans_qt.engine.kernels.ranks`, with plain references here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from evaltrans_qt.engine.kernels.ranks import concordance_kernel, spearman_kernel

#: z of the two-sided 95% interval.
Z95 = 1.959963984540054


def pearson(x: Sequence[float] | np.ndarray,
            y: Sequence[float] | np.ndarray) -> float:
    """Pearson's r (thesis eq. 6.1); NaN if either side is constant."""
    return float(weighted_pearson(np.asarray(x, float), np.asarray(y, float),
                                  np.ones((1, len(x))))[0])


def weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """r for each row of the weight matrix ``w`` (B x n); NaN where undefined."""
    w = np.atleast_2d(np.asarray(w, float))
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    # centre on the global means first so the moment formulas do not cancel
    x = x - x.mean() if x.size else x
    y = y - y.mean() if y.size else y
    sw = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (w @ x) / sw
        my = (w @ y) / sw
        sxy = w @ (x * y) - sw * mx * my
        sxx = w @ (x * x) - sw * mx * mx
        syy = w @ (y * y) - sw * my * my
        r = sxy / np.sqrt(sxx * syy)
    # a constant side leaves only rounding noise in sxx/syy
    const_x = sxx <= 1e-20 * (w @ (x * x)) + 1e-300
    const_y = syy <= 1e-20 * (w @ (y * y)) + 1e-300
    r[const_x | const_y] = np.nan
    return np.clip(r, -1.0, 1.0)


def fisher_interval(r: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% interval of r by Fisher's z-transform: tanh(atanh r +- z/sqrt(n-3))."""
    if n <= 3 or not np.isfinite(r):
        return (math.nan, math.nan)
    if abs(r) >= 1.0:
        return (r, r)
    c = math.atanh(r)
    h = z / math.sqrt(n - 3)
    return (math.tanh(c - h), math.tanh(c + h))


def midranks(x: Sequence[float] | np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given the mean of their ranks (mid-ranks, thesis section 6.2)."""
    x = np.asarray(x, float)
    return weighted_midranks(x, np.ones((1, len(x))))[0]


def weighted_midranks(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mid-ranks of every item in each weighted sample (rows of ``w``), B x n.

    An item drawn k times occupies k consecutive ranks; every copy (and every
    equal value) gets the mean of the ranks of its tie group.
    """
    w = np.atleast_2d(np.asarray(w, float))
    x = np.asarray(x, float)
    if x.size == 0:
        return np.zeros((w.shape[0], 0))
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    group_of_sorted = np.cumsum(np.r_[True, xs[1:] != xs[:-1]]) - 1
    gw = np.add.reduceat(w[:, order], starts, axis=1)          # B x G
    before = np.cumsum(gw, axis=1) - gw
    grank = before + (gw + 1.0) / 2.0
    group = np.empty_like(group_of_sorted)
    group[order] = group_of_sorted
    return grank[:, group]


def spearman(x: Sequence[float] | np.ndarray,
             y: Sequence[float] | np.ndarray) -> float:
    """Spearman's rho = Pearson's r on mid-ranks (thesis eq. 6.18)."""
    return pearson(midranks(x), midranks(y))


def _sorted_groups(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(stable sort order, start offsets of equal-value runs plus the end)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]]) if x.size else np.zeros(0, np.int64)
    return order.astype(np.int64), np.r_[starts, x.size].astype(np.int64)


def weighted_spearman(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """rho for each weighted sample (rows of ``w``); numba kernel, reference:
    Pearson's r of :func:`weighted_midranks` (tests compare the two)."""
    return spearman_with_ties(x, y, w)[0]


def spearman_with_ties(x: np.ndarray, y: np.ndarray, w: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rho, tied pairs in x, tied pairs in y) for each weighted sample (rows of ``w``);
    the tie counts feed tau_b in :func:`weighted_kendall`."""
    w = np.ascontiguousarray(np.atleast_2d(np.asarray(w, float)))
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.size == 0:
        nan = np.full(w.shape[0], np.nan)
        return nan, np.zeros(w.shape[0]), np.zeros(w.shape[0])
    xo, xb = _sorted_groups(x)
    yo, yb = _sorted_groups(y)
    return spearman_kernel(xo, xb, yo, yb, w)


def concordance_reference(x: Sequence[float], y: Sequence[float],
                          w: Sequence[float] | None = None) -> float:
    """Plain-Python C - D (eq. 6.20/6.21) with item multiplicities ``w``; for tests."""
    n = len(x)
    w = [1.0] * n if w is None else list(w)
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            sx = int(x[i] > x[j]) - int(x[i] < x[j])
            sy = int(y[i] > y[j]) - int(y[i] < y[j])
            s += w[i] * w[j] * sx * sy
    return s


def weighted_kendall(x: np.ndarray, y: np.ndarray, w: np.ndarray,
                     ties: tuple[np.ndarray, np.ndarray] | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(tau_a, tau_b) for each weighted sample; weights are item multiplicities.

    tau_a = (C - D) / M with M all pairs (thesis eq. 6.23);
    tau_b = (C - D) / sqrt((M - T_x)(M - T_y)) (scipy's default).
    ``ties`` may pass the tied-pair counts already computed by the rank kernel.
    """
    w = np.atleast_2d(np.asarray(w, float))
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.size < 2:
        nan = np.full(w.shape[0], np.nan)
        return nan, nan
    order = np.lexsort((y, x)).astype(np.int64)
    xs = np.ascontiguousarray(x[order])
    _, yr = np.unique(y[order], return_inverse=True)
    ny = int(yr.max()) + 1
    w = np.ascontiguousarray(w)
    s = concordance_kernel(xs, yr.astype(np.int64), ny, w, order)
    tot = w.sum(axis=1)
    m = tot * (tot - 1.0) / 2.0
    tx, ty = ties if ties is not None else spearman_with_ties(x, y, w)[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_a = np.where(m > 0, s / m, np.nan)
        den = np.sqrt((m - tx) * (m - ty))
        tau_b = np.where(den > 0, s / den, np.nan)
    return tau_a, tau_b


def kendall_tau_a(x: Sequence[float] | np.ndarray,
                  y: Sequence[float] | np.ndarray) -> float:
    """The thesis' tau (eq. 6.23): (C - D) / (N(N-1)/2), ties count neither way."""
    return float(weighted_kendall(np.asarray(x, float), np.asarray(y, float),
                                  np.ones((1, len(x))))[0][0])


def kendall_tau_b(x: Sequence[float] | np.ndarray,
                  y: Sequence[float] | np.ndarray) -> float:
    """tau_b (ties corrected in the denominator), as scipy.stats.kendalltau."""
    return float(weighted_kendall(np.asarray(x, float), np.asarray(y, float),
                                  np.ones((1, len(x))))[1][0])


def tau_per_group(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """tau_a over the items of each group (e.g. the systems' candidates of one source).

    Returns (group ids, tau per group); groups with fewer than two items are
    left out. Vectorised over groups by padding to the largest group.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    groups = np.asarray(groups)
    ids, inv, counts = np.unique(groups, return_inverse=True, return_counts=True)
    if ids.size == 0:
        return ids, np.zeros(0)
    k = int(counts.max())
    if ids.size * k * k > _PADDED_CELLS:
        return _tau_per_group_by_kernel(x, y, inv, ids, counts)
    order = np.argsort(inv, kind="stable")
    pos = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    X = np.full((ids.size, k), np.nan)
    Y = np.full((ids.size, k), np.nan)
    X[inv[order], pos] = x[order]
    Y[inv[order], pos] = y[order]
    sx = np.sign(X[:, :, None] - X[:, None, :])
    sy = np.sign(Y[:, :, None] - Y[:, None, :])
    prod = np.nan_to_num(sx * sy)
    s = prod.sum(axis=(1, 2)) / 2.0
    pairs = counts * (counts - 1) / 2.0
    keep = counts >= 2
    return ids[keep], s[keep] / pairs[keep]


#: Largest groups x k x k padded sign tensor :func:`tau_per_group` forms (8 bytes a cell).
_PADDED_CELLS = 1 << 22


def _tau_per_group_by_kernel(x: np.ndarray, y: np.ndarray, inv: np.ndarray, ids: np.ndarray,
                             counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tau_per_group` one group at a time through the concordance kernel (the same
    C - D, an exact integer; O(k log k) per group instead of a padded k x k tensor). A
    non-finite item counts in the group's pairs but in neither C nor D, as there."""
    order = np.argsort(inv, kind="stable")
    ends = np.cumsum(counts)
    s = np.zeros(ids.size)
    for g in range(ids.size):
        if counts[g] < 2:
            continue
        idx = order[ends[g] - counts[g]:ends[g]]
        xg, yg = x[idx], y[idx]
        ok = np.isfinite(xg) & np.isfinite(yg)
        xg, yg = xg[ok], yg[ok]
        if xg.size < 2:
            continue
        o = np.lexsort((yg, xg)).astype(np.int64)
        _, yr = np.unique(yg[o], return_inverse=True)
        s[g] = concordance_kernel(np.ascontiguousarray(xg[o]), yr.astype(np.int64),
                                  int(yr.max()) + 1, np.ones((1, xg.size)), o)[0]
    pairs = counts * (counts - 1) / 2.0
    keep = counts >= 2
    return ids[keep], s[keep] / pairs[keep]


def tau_bar(x: npt.ArrayLike, y: npt.ArrayLike, groups: npt.ArrayLike) -> float:
    """Local rank correlation (thesis eq. 6.24, section 6.3.2): mean over source sentences
    of tau over that sentence's candidates from the different systems."""
    _, taus = tau_per_group(np.asarray(x, float), np.asarray(y, float), np.asarray(groups))
    return float(taus.mean()) if taus.size else math.nan


#: Largest number of items per row for which :func:`rowwise_correlations` forms the
#: B x n x n sign tensors (the same numbers are computed row by row above it).
PAIRWISE_MAX_ITEMS = 64


def rowwise_correlations(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, ...]:
    """(r, rho, tau_a, tau_b) between row i of X and row i of Y (B x n).

    Used for system-level bootstrap replicates, where every replicate has its
    own system scores. Up to :data:`PAIRWISE_MAX_ITEMS` items the pairwise sign tensors
    give all three at once; above it each row goes through the O(n log n) rank and
    concordance kernels (:func:`midranks`, :func:`weighted_kendall`), whose mid-ranks,
    C - D and tie counts are the same exact integers (or halves), so the numbers are
    identical and memory stays O(B n) -- 10,000 systems would need B x 10^8 cells.
    """
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)
    n = X.shape[1]
    if n > PAIRWISE_MAX_ITEMS:
        return _rowwise_by_ranks(X, Y)
    sx = np.sign(X[:, :, None] - X[:, None, :])
    sy = np.sign(Y[:, :, None] - Y[:, None, :])
    # mid-ranks: 1 + #smaller + (#equal - 1) / 2 = (n + 1 + sum_j sign(x_i - x_j)) / 2
    r = _rows_r(X, Y)
    rho = _rows_r((n + 1 + sx.sum(axis=2)) / 2.0, (n + 1 + sy.sum(axis=2)) / 2.0)
    s = (sx * sy).sum(axis=(1, 2)) / 2.0
    m = n * (n - 1) / 2.0
    tx = (sx == 0).sum(axis=(1, 2)) - n
    ty = (sy == 0).sum(axis=(1, 2)) - n
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_b = s / np.sqrt((m - tx / 2.0) * (m - ty / 2.0))
    return r, rho, s / m, tau_b


def _rows_r(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r between row i of ``a`` and row i of ``b``; NaN where a side is constant."""
    da = a - a.mean(axis=1, keepdims=True)
    db = b - b.mean(axis=1, keepdims=True)
    sab = (da * db).sum(axis=1)
    saa = (da * da).sum(axis=1)
    sbb = (db * db).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sab / np.sqrt(saa * sbb)
    r[(saa <= 1e-20 * (a * a).sum(axis=1) + 1e-300)
      | (sbb <= 1e-20 * (b * b).sum(axis=1) + 1e-300)] = np.nan
    return np.clip(r, -1, 1)


def _rowwise_by_ranks(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, ...]:
    """:func:`rowwise_correlations` one row at a time (O(B n log n) time, O(B n) memory);
    a row with a non-finite value has NaN rho and taus, as the sign tensors give."""
    B, n = X.shape
    rx = np.full((B, n), np.nan)
    ry = np.full((B, n), np.nan)
    tau_a = np.full(B, np.nan)
    tau_b = np.full(B, np.nan)
    ones = np.ones((1, n))
    for b in np.flatnonzero(np.isfinite(X).all(axis=1) & np.isfinite(Y).all(axis=1)):
        rx[b] = midranks(X[b])
        ry[b] = midranks(Y[b])
        ta, tb = weighted_kendall(X[b], Y[b], ones)
        tau_a[b], tau_b[b] = ta[0], tb[0]
    return _rows_r(X, Y), _rows_r(rx, ry), tau_a, tau_b
