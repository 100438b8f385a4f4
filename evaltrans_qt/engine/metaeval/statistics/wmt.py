"""WMT segment-level Kendall tau variants on pairwise comparisons (Macháček §4.4).

A comparison is coded -1 (the first candidate is better), 0 (tie) or +1 (the
second is better), for the humans and for the metric; each variant weighs the
3 x 3 table of (human, metric) outcomes with its concordance matrix.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

#: The tables WMT12, WMT13, WMT14 and HTIES of Macháček §4.4.1-4.4.2: rows human <,=,>;
#: columns metric <,=,>; None = the comparison is left out ("X").
WMT_VARIANTS: dict[str, tuple[tuple[float | None, ...], ...]] = {
    "wmt12": ((1, -1, -1), (None, None, None), (-1, -1, 1)),
    "wmt13": ((1, None, -1), (None, None, None), (-1, None, 1)),
    "wmt14": ((1, 0, -1), (None, None, None), (-1, 0, 1)),
    "hties": ((1, 0, -1), (0, 1, 0), (-1, 0, 1)),
}


def wmt_tau(human: npt.ArrayLike, metric: npt.ArrayLike, variant: str = "wmt14") -> float:
    """Kendall-like tau on pairwise comparisons (Macháček §4.4.1 eq. 4.2, tables of §4.4.2).

    ``human[i]``/``metric[i]`` compare the two candidates of comparison i:
    -1 = first is better ("<"), 0 = tie, +1 = second is better (">").
    tau = sum C[h,m] |S[h,m]| / sum |S[h,m]| over the cells that are not X.
    """
    h = np.asarray(human, int) + 1
    m = np.asarray(metric, int) + 1
    counts = np.zeros((3, 3))
    np.add.at(counts, (h, m), 1)
    return wmt_tau_of_counts(counts, variant)


def wmt_tau_of_counts(counts: np.ndarray, variant: str = "wmt14") -> float:
    """:func:`wmt_tau` from the 3 x 3 table of (human, metric) outcomes (rows human
    <,=,>; columns metric <,=,>), e.g. :func:`relation_counts`."""
    table = WMT_VARIANTS[variant.lower()]
    num = den = 0.0
    for i in range(3):
        for j in range(3):
            c = table[i][j]
            if c is not None:
                num += c * counts[i, j]
                den += counts[i, j]
    return num / den if den else math.nan


def pairwise_relations(better_h: np.ndarray, better_m: np.ndarray,
                       groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All within-group pairs (i < j) as comparisons for :func:`wmt_tau`.

    Inputs are scores where *higher is better*; returns (human, metric, group
    of the pair) with -1 when the first item is better, +1 when the second is.
    """
    h = np.asarray(better_h, float)
    m = np.asarray(better_m, float)
    groups = np.asarray(groups)
    hs, ms, gs = [], [], []
    order = np.argsort(groups, kind="stable")
    g_sorted = groups[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    ends = np.r_[starts[1:], len(order)]
    for a, b in zip(starts, ends):
        idx = order[a:b]
        if len(idx) < 2:
            continue
        i, j = np.triu_indices(len(idx), 1)
        hs.append(np.sign(h[idx[i]] - h[idx[j]]) * -1)
        ms.append(np.sign(m[idx[i]] - m[idx[j]]) * -1)
        gs.append(np.full(len(i), g_sorted[a]))
    if not hs:
        e = np.zeros(0, int)
        return e, e, e
    return (np.concatenate(hs).astype(int), np.concatenate(ms).astype(int), np.concatenate(gs))


#: Pairs compared at once by :func:`relation_counts` (bounds its memory).
_PAIR_CHUNK = 1 << 22


def relation_counts(better_h: np.ndarray, better_m: np.ndarray,
                    groups: np.ndarray) -> np.ndarray:
    """The 3 x 3 table of (human, metric) outcomes over all within-group pairs -- what
    :func:`wmt_tau` counts from :func:`pairwise_relations` -- without listing the pairs:
    a group of k items is compared in blocks of rows, so memory stays O(k) blocks while
    k(k-1)/2 pairs are counted (10,000 systems: 5 x 10^7 pairs a source sentence).
    Inputs are finite scores where higher is better."""
    h = np.asarray(better_h, float)
    m = np.asarray(better_m, float)
    groups = np.asarray(groups)
    counts = np.zeros(9, np.int64)
    if groups.size == 0:
        return counts.reshape(3, 3).astype(float)
    order = np.argsort(groups, kind="stable")
    g_sorted = groups[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    ends = np.r_[starts[1:], len(order)]
    for a, b in zip(starts, ends):
        hg, mg = h[order[a:b]], m[order[a:b]]
        k = len(hg)
        rows = max(1, _PAIR_CHUNK // max(k, 1))
        for i0 in range(0, k - 1, rows):
            i1 = min(k - 1, i0 + rows)
            upper = np.arange(k)[None, :] > np.arange(i0, i1)[:, None]
            hs = -np.sign(hg[i0:i1, None] - hg[None, :])[upper].astype(np.int64)
            ms = -np.sign(mg[i0:i1, None] - mg[None, :])[upper].astype(np.int64)
            counts += np.bincount((hs + 1) * 3 + ms + 1, minlength=9)
    return counts.reshape(3, 3).astype(float)
