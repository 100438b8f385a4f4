"""The pairwise permutation test between two metrics' tie-calibrated Kendall statistics
(mt-metrics-eval ``stats.PairwisePermutationSigDiff``, the ``perm_test='pairs'`` of its
WMT23-WMT25 task sets for segment-level acc*_eq).

Instead of swapping the two metrics' *scores* (PERM-BOTH), each resample swaps their
*pairwise comparisons*: every within-group pair (i, j) takes metric A's verdict on it
(better, worse, tie -- a difference within A's own tie threshold epsilon_A is a tie) or
metric B's, with probability 1/2. So two metrics with different optimal epsilons are
compared without recalibrating them in every resample. The statistic is acc_23 (or
tau_23): per group the share of pairs the metric and the humans order alike (ties
included), averaged over groups; the p-value that A is better is the share of resamples
whose difference (A-side minus B-side) is >= the observed one. Kendall's tau_a and
tau_b (at the given thresholds) are taken from each group's counts of the five kinds of
pair, as its ``KendallVariants`` with ``PairwiseDiffs`` takes them.

The swaps are drawn as mt-metrics-eval draws them -- per group of n cells an n x n
``binomial(1, 0.5)`` matrix from numpy's legacy generator whose upper triangle decides
the pairs -- so with its global generator seeded alike the p-values are the same.
"""

from __future__ import annotations

import math

import numpy as np

from evaltrans_qt.engine.metaeval.statistics.kendall import pair_categories, within_pairs
from evaltrans_qt.engine.metaeval.statistics.metric_significance import EarlyStop

#: Contribution of each pair category (con, dis, tie metric, tie human, tie both).
WEIGHTS = {"acc23": np.array([1.0, 0.0, 0.0, 0.0, 1.0]),
           "23": np.array([1.0, -1.0, -1.0, -1.0, 1.0])}


def perm_pairs(a: np.ndarray, b: np.ndarray, human: np.ndarray, gid: np.ndarray,
               eps_a: float, eps_b: float, *, variant: str = "acc23", samples: int = 1000,
               seed: int = 0, early_stop: EarlyStop | None = None,
               draws: list[tuple[float, float]] | None = None) -> tuple[float, float, float]:
    """(p-value that metric ``a`` is better than ``b``, observed difference, p-value that
    ``b`` is better) on the cells ``a``, ``b``, ``human`` (1-D, group ``gid`` each, cells
    of a group in mt-metrics-eval's order) with tie thresholds ``eps_a``/``eps_b``
    (mt-metrics-eval ``PairwisePermutationSigDiff(corr1=b, corr2=a)``). With ``early_stop``
    it stops as that function does: the check runs only after a resample that is a hit
    for ``a`` (its check sits inside the hit branch), at a block boundary. ``draws``
    collects each resample's (A-side, B-side) values."""
    if variant not in (*WEIGHTS, "a", "b"):
        raise ValueError("the pairwise permutation test needs Kendall variant a, b, 23 or "
                         "acc23 (tau_c depends on the scores, not only the pairs)")
    a, b, h = (np.asarray(v, float) for v in (a, b, human))
    _, g = np.unique(np.asarray(gid), return_inverse=True)
    i, j, pg = within_pairs(g)
    if i.size == 0:
        return math.nan, math.nan, math.nan
    counts = np.bincount(g)
    n_groups = counts.size
    pairs_per_group = np.bincount(pg, minlength=n_groups).astype(float)
    used = pairs_per_group > 0
    cat_a = pair_categories(a, h, i, j, eps_a)
    cat_b = pair_categories(b, h, i, j, eps_b)
    if variant in WEIGHTS:                  # linear in the pairs: one weighted count
        w = WEIGHTS[variant]
        va, vb = w[cat_a], w[cat_b]

        def stat(v: np.ndarray) -> float:
            per = np.bincount(pg, v, n_groups)[used] / pairs_per_group[used]
            return float(per.mean())
    else:                                   # tau_a / tau_b from each group's five counts
        va, vb = cat_a, cat_b

        def stat(v: np.ndarray) -> float:
            c = np.bincount(pg * 5 + v, minlength=n_groups * 5).reshape(n_groups, 5)
            c = c[used].astype(float)
            con, dis, tm_only, th_only, both = c.T
            p = c.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                if variant == "a":
                    per = (con - dis) / p
                else:
                    per = (con - dis) / np.sqrt(p - tm_only - both) / np.sqrt(p - th_only - both)
                    per[(tm_only + both == p) | (th_only + both == p)] = np.nan
            per = per[np.isfinite(per)]
            return float(per.mean()) if per.size else 0.0     # as its _Corr: 0 when none

    delta = stat(va) - stat(vb)
    # where each pair's draw sits in one resample's draws: groups one after another,
    # each an n x n matrix in row order, the pair (local p < local q) at [p, q]
    order = np.argsort(g, kind="stable")
    local = np.empty(g.size, np.int64)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    local[order] = np.arange(g.size) - np.repeat(starts, counts)
    block = np.r_[0, np.cumsum(counts.astype(np.int64) ** 2)[:-1]]
    lo, hi = np.minimum(local[i], local[j]), np.maximum(local[i], local[j])
    where = block[pg] + lo * counts[pg] + hi
    total = int((counts.astype(np.int64) ** 2).sum())
    rng = np.random.RandomState(seed)
    hits_a = hits_b = drawn = 0
    for drawn in range(1, samples + 1):
        take_a = rng.binomial(1, 0.5, total)[where].astype(bool)
        fa, fb = stat(np.where(take_a, va, vb)), stat(np.where(take_a, vb, va))
        d = fa - fb
        if draws is not None:
            draws.append((fa, fb))
        hits_b += -d >= -delta
        if d >= delta:
            hits_a += 1
            if early_stop is not None and early_stop.stop(hits_a, drawn):
                break
    if not drawn:
        return math.nan, delta, math.nan
    return hits_a / drawn, delta, hits_b / drawn


__all__ = ["perm_pairs", "WEIGHTS", "EarlyStop"]
