"""Significance of the difference between two *metrics*' correlations, and clusters.

* :func:`perm_both` -- the paired permutation test PERM-BOTH (Deutsch et al. 2021,
  mt-metrics-eval ``stats.PermutationSigDiff``): both metrics' score vectors are
  z-scored; in each resample every cell's two metric scores are swapped with
  probability 1/2; the p-value that metric A correlates better than B is the share of
  resamples whose difference stat(A') - stat(B') is >= the observed one.
* :func:`williams_test` -- Williams' t-test for two dependent correlations sharing one
  variable (Steiger 1980, eq. 7; Graham & Baldwin 2014; mt-metrics-eval
  ``stats.WilliamsTest``).
* :func:`assign_ranks` -- significance clusters as the WMT metrics findings tables show
  them (mt-metrics-eval ``tasks.AssignRanks``): metrics sorted by decreasing value; a
  metric starts a new cluster (rank + 1) when some metric of the current cluster is
  significantly better than it (p <= alpha, as ``AssignRanks`` compares); otherwise it
  joins the current cluster.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Statistic = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class EarlyStop:
    """Early stopping of a permutation test (mt-metrics-eval ``PermutationSigDiffParams``):
    after every ``block_size`` resamples, stop when the p-value so far is below
    ``early_min`` or above ``early_max`` (clearly significant or clearly not)."""

    block_size: int = 1000
    early_min: float = 0.02
    early_max: float = 0.5

    def stop(self, hits: int, i: int) -> bool:
        """Whether to stop after resample ``i`` (1-based) with ``hits`` so far."""
        if i % self.block_size:
            return False
        p = hits / i
        return p < self.early_min or p > self.early_max


def zscore(v: np.ndarray) -> np.ndarray:
    """(v - mean) / population std (scipy.stats.zscore); a constant vector gives zeros."""
    v = np.asarray(v, float)
    sd = v.std()
    return (v - v.mean()) / sd if sd > 0 else np.zeros_like(v)


def perm_both(stat: Statistic, a: np.ndarray, b: np.ndarray, samples: int = 1000,
              seed: int = 0, order: np.ndarray | None = None,
              early_stop: EarlyStop | None = None,
              draws: list[tuple[float, float]] | None = None) -> tuple[float, float, float]:
    """(p-value that metric ``a`` correlates better than ``b``, observed difference
    stat(a) - stat(b), p-value that ``b`` is better than ``a``) by PERM-BOTH
    (mt-metrics-eval ``PermutationSigDiff`` with ``corr1 = b``, ``corr2 = a``, no early
    stopping; the second p-value is the same test with the roles swapped, on the same
    resamples). ``stat`` maps a metric vector (the cells the human scores keep, in a
    fixed order) to the statistic; NaN counts as 0.

    The swaps are drawn as mt-metrics-eval draws them -- ``binomial(1, 0.5, n)`` per
    resample from numpy's legacy generator, here ``RandomState(seed)`` -- so with its
    global generator seeded with ``seed`` (``np.random.seed``) it gives the same p-value.
    mt-metrics-eval orders the cells group by group; ``order[k]`` is the position in that
    order of our cell k (None: the same order). With ``early_stop`` the resampling stops
    as ``PermutationSigDiff`` stops it (on the p-value that ``a`` is better); both
    p-values are then shares of the resamples drawn. ``draws`` collects each resample's
    (stat(a'), stat(b')) (mt-metrics-eval's draws list, for averaging tasks)."""
    za, zb = zscore(a), zscore(b)

    def f(v: np.ndarray) -> float:
        x = stat(v)
        return 0.0 if x is None or not math.isfinite(x) else float(x)

    delta = f(za) - f(zb)
    rng = np.random.RandomState(seed)
    hits_a = hits_b = used = 0
    for used in range(1, samples + 1):
        w = rng.binomial(1, 0.5, za.size).astype(bool)
        if order is not None:
            w = w[order]
        fa, fb = f(np.where(w, za, zb)), f(np.where(w, zb, za))
        d = fa - fb
        if draws is not None:
            draws.append((fa, fb))
        hits_a += d >= delta
        hits_b += -d >= -delta
        if early_stop is not None and early_stop.stop(hits_a, used):
            break
    if not used:
        return math.nan, delta, math.nan
    return hits_a / used, delta, hits_b / used


def williams_test(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """Williams' test of H0 r12 <= r13 for correlations sharing variable 1 (the humans):
    r12 = r(human, A), r13 = r(human, B), r23 = r(A, B), n items.

    K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23,
    t = (r12 - r13) sqrt((n - 1)(1 + r23)) /
        sqrt(2 K (n - 1)/(n - 3) + ((r12 + r13)/2)^2 (1 - r23)^3),  df = n - 3.
    One-sided: p = P(T >= t) (small when A is better); two-sided: 2 P(T >= |t|).
    mt-metrics-eval ``WilliamsTest`` returns P(T >= |t|), the same when r12 > r13.
    """
    from scipy.stats import t as student_t
    if n <= 3 or not all(math.isfinite(v) for v in (r12, r13, r23)):
        return math.nan
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    num = (r12 - r13) * math.sqrt((n - 1) * (1 + r23))
    den2 = 2 * (n - 1) / (n - 3) * k + rbar ** 2 * (1 - r23) ** 3
    if den2 <= 0:
        return 0.0 if num > 0 else 1.0 if one_sided else 0.0
    t = num / math.sqrt(den2)
    if one_sided:
        return float(student_t.sf(t, n - 3))
    return float(min(1.0, 2 * student_t.sf(abs(t), n - 3)))


def assign_ranks(p: np.ndarray, alpha: float = 0.05) -> list[int]:
    """Cluster ranks of metrics sorted by decreasing value; ``p[i, j]`` (i < j) is the
    p-value that metric i is better than metric j (mt-metrics-eval ``AssignRanks``)."""
    n = p.shape[0]
    ranks = [0] * n
    rank, start = 1, 0
    for i in range(n):
        if any(p[k, i] <= alpha for k in range(start, i)):
            rank += 1
            start = i
        ranks[i] = rank
    return ranks


def significance_matrix(stat: Statistic, metrics: Sequence[np.ndarray], method: str = "perm-both",
                        samples: int = 1000, seed: int = 0,
                        williams: Callable[[int, int], float] | None = None,
                        order: np.ndarray | None = None,
                        early_stop: EarlyStop | None = None) -> np.ndarray:
    """p[i, j] = p-value that metric i is better than metric j, for all i != j (NaN on
    the diagonal). ``perm-both`` runs :func:`perm_both` once per unordered pair (both
    directions from the same resamples); ``williams`` needs ``williams(i, j)``."""
    k = len(metrics)
    out = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i + 1, k):
            if method == "williams":
                if williams is None:
                    raise ValueError("williams needs the pairwise test function")
                out[i, j] = williams(i, j)
                out[j, i] = williams(j, i)
            elif method == "perm-both":
                out[i, j], _, out[j, i] = perm_both(stat, metrics[i], metrics[j], samples,
                                                    seed + i * k + j, order, early_stop)
            else:
                raise ValueError(f"unknown method '{method}' (perm-both or williams)")
    return out
