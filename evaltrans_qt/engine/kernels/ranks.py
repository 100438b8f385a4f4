"""Rank-correlation kernels (numba): weighted mid-ranks, Spearman's rho and Kendall's C - D.

Weights are item multiplicities (one row per bootstrap sample); the plain
references are :func:`evaltrans_qt.engine.metaeval.statistics.coefficients.weighted_midranks`
(rho = Pearson's r of mid-ranks, thesis eq. 6.18) and
:func:`~evaltrans_qt.engine.metaeval.statistics.coefficients.concordance_reference`
(C - D, thesis eq. 6.20/6.21); the tests compare them.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def group_ranks(order: np.ndarray, bounds: np.ndarray, wb: np.ndarray,
                ranks: np.ndarray) -> float:
    """Weighted mid-ranks of one sample into ``ranks``; returns the tied pairs."""
    before = 0.0
    ties = 0.0
    for g in range(bounds.shape[0] - 1):
        gw = 0.0
        for t in range(bounds[g], bounds[g + 1]):
            gw += wb[order[t]]
        r = before + (gw + 1.0) / 2.0
        for t in range(bounds[g], bounds[g + 1]):
            ranks[order[t]] = r
        before += gw
        ties += gw * (gw - 1.0) / 2.0
    return ties


@njit(cache=True, nogil=True)
def spearman_kernel(xo, xb, yo, yb, w):
    """rho and tied pairs in x and y for each weight row; ``xo``/``xb`` (``yo``/``yb``) are the
    sort order and tie-group bounds of x (y)."""
    B, n = w.shape
    rho = np.empty(B)
    tx = np.empty(B)
    ty = np.empty(B)
    rx = np.empty(n)
    ry = np.empty(n)
    for b in range(B):
        wb = w[b]
        tx[b] = group_ranks(xo, xb, wb, rx)
        ty[b] = group_ranks(yo, yb, wb, ry)
        sw = 0.0
        for i in range(n):
            sw += wb[i]
        mid = (sw + 1.0) / 2.0
        sxy = 0.0
        sxx = 0.0
        syy = 0.0
        for i in range(n):
            if wb[i] != 0.0:
                dx = rx[i] - mid
                dy = ry[i] - mid
                sxy += wb[i] * dx * dy
                sxx += wb[i] * dx * dx
                syy += wb[i] * dy * dy
        if sxx <= 1e-9 or syy <= 1e-9:
            rho[b] = np.nan
        else:
            rho[b] = min(1.0, max(-1.0, sxy / np.sqrt(sxx * syy)))
    return rho, tx, ty


@njit(cache=True, nogil=True)
def concordance_kernel(xs: np.ndarray, yr: np.ndarray, ny: int, w: np.ndarray,
                       order: np.ndarray) -> np.ndarray:
    """C - D for each weight row; items sorted by x (``order``), ``yr`` dense y-ranks
    0..ny-1 in sorted order, ``w`` in the original order.

    Fenwick tree over y ranks: for each x-tie group, every item is compared
    with all items of smaller x (already inserted), then the group is inserted.
    """
    n = xs.shape[0]
    B = w.shape[0]
    out = np.zeros(B, dtype=np.float64)
    tree = np.zeros(ny + 1, dtype=np.float64)
    for b in range(B):
        for k in range(ny + 1):
            tree[k] = 0.0
        total = 0.0
        s = 0.0
        i = 0
        while i < n:
            j = i
            while j < n and xs[j] == xs[i]:
                j += 1
            for t in range(i, j):
                wt = w[b, order[t]]
                if wt == 0.0:
                    continue
                # weight of inserted items with y-rank < yr[t]
                less = 0.0
                k = yr[t]
                while k > 0:
                    less += tree[k]
                    k -= k & (-k)
                # weight with y-rank <= yr[t]
                leq = 0.0
                k = yr[t] + 1
                while k > 0:
                    leq += tree[k]
                    k -= k & (-k)
                s += wt * (less - (total - leq))
            for t in range(i, j):
                wt = w[b, order[t]]
                if wt == 0.0:
                    continue
                k = yr[t] + 1
                while k <= ny:
                    tree[k] += wt
                    k += k & (-k)
                total += wt
            i = j
        out[b] = s
    return out
