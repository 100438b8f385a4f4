"""mt-metrics-eval statistics against scipy and hand-worked values.

Each test names the mt-metrics-eval function the statistic matches.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st

from evaltrans_qt.engine.metaeval.statistics.grouped import (
    Grouped,
    pairwise_p_values,
    soft_pairwise_accuracy,
)
from evaltrans_qt.engine.metaeval.statistics.kendall import kendall, tau_stats, tie_calibration
from evaltrans_qt.engine.metaeval.statistics.metric_significance import (
    assign_ranks,
    perm_both,
    williams_test,
)

RNG = np.random.default_rng(7)
CASES = [(RNG.integers(0, 4, 30).astype(float), RNG.integers(0, 3, 30).astype(float)),
         (RNG.normal(size=40), RNG.normal(size=40)),
         (np.array([1.0, 2, 3, 4, 5]), np.array([5.0, 4, 3, 2, 1])),
         (np.array([1.0, 1, 2, 2]), np.array([1.0, 2, 1, 2]))]


@pytest.mark.parametrize("x,y", CASES)
@pytest.mark.parametrize("variant", ["b", "c"])
def test_kendall_b_c_equal_scipy(x, y, variant):
    """KendallVariants(variant='b'|'c') = scipy.stats.kendalltau(variant=...)."""
    assert kendall(x, y, variant) == pytest.approx(st.kendalltau(x, y, variant=variant)[0])


def test_tau_counts_by_hand():
    """Pair counts (_FenwickTreeSufficientStatistics): metric 1 1 2 3, human 1 2 2 1.
    Pairs: (0,1) tie metric only; (0,2) con; (0,3) tie human only... worked by hand."""
    m = [1, 1, 2, 3]
    h = [1, 2, 2, 1]
    s = tau_stats(m, h)
    # (0,1) m tie; (0,2) m<, h< con; (0,3) h tie; (1,2) h tie; (1,3) m<, h> dis; (2,3) m<, h> dis
    assert (s.con, s.dis, s.ties_metric, s.ties_human, s.ties_both) == (1, 2, 1, 2, 0)
    assert s.tau("a") == pytest.approx((1 - 2) / 6)
    assert s.tau("23") == pytest.approx((1 + 0 - 2 - 2 - 1) / 6)
    assert s.tau("acc23") == pytest.approx(1 / 6)


def test_pearson_grouping_against_scipy():
    """Correlation.Pearson(average_by='none'|'item'|'sys') with None filtering."""
    h = RNG.normal(size=(4, 12))
    m = h + RNG.normal(size=(4, 12))
    h[1, 3] = np.nan
    ok = np.isfinite(h)
    assert Grouped(h, "none").pearson(m) == pytest.approx(st.pearsonr(m[ok], h[ok])[0])
    per_sys = [st.pearsonr(m[i][ok[i]], h[i][ok[i]])[0] for i in range(4)]
    assert Grouped(h, "system").pearson(m) == pytest.approx(np.mean(per_sys))
    per_item = [st.pearsonr(m[:, j][ok[:, j]], h[:, j][ok[:, j]])[0] for j in range(12)]
    assert Grouped(h, "item").pearson(m) == pytest.approx(np.mean(per_item))


def test_kendall_item_grouping_skips_constant_groups():
    """average_by='item': per-item taus averaged, NaN (all tied) left out of the mean."""
    h = np.array([[1.0, 2, 3], [2.0, 2, 1], [3.0, 2, 2]])
    m = np.array([[1.0, 5, 1], [2.0, 4, 3], [3.0, 3, 2]])
    # item 0: perfect (tau 1); item 1: human all tied -> NaN, skipped; item 2 by scipy
    t2 = st.kendalltau(m[:, 2], h[:, 2])[0]
    assert Grouped(h, "item").kendall(m, "b") == pytest.approx((1.0 + t2) / 2)


def test_pairwise_accuracy_kocmi():
    """Kocmi et al. 2021 / stats.Agreement: 4 systems, 6 pairs, metric swaps one pair."""
    human = np.array([4.0, 3.0, 2.0, 1.0])
    metric = np.array([0.9, 0.7, 0.8, 0.1])
    assert Grouped(human).pairwise_accuracy(metric) == pytest.approx(5 / 6)


def test_tie_calibration_hand_example():
    """acc*_eq (tau_optimization.tau_optimization with acc_23): human 1 1 2 3, metric
    0.0 0.1 0.5 1.0. Differences: 0.1, 0.4, 0.5, 0.5, 0.9, 1.0.
    eps 0: ties_both 0, con 5 of 6 (pair 0-1 human tie, metric not) -> 5/6.
    eps 0.1: pair (0,1) becomes a tie in both -> 6/6 = 1 (best); larger eps only lose."""
    tc = tie_calibration([0.0, 0.1, 0.5, 1.0], [1, 1, 2, 3])
    assert tc.value == pytest.approx(1.0)
    assert tc.epsilon == pytest.approx(0.1)
    assert tc.values[0] == pytest.approx(5 / 6)          # epsilon 0
    assert tc.values[-1] == pytest.approx(1 / 6)          # everything tied: only (0,1) agrees


def test_tie_calibration_grouped_mean():
    """Grouped acc*_eq: one epsilon for all groups, value = mean of the groups' acc_23."""
    h = np.array([[1.0, 1], [1.0, 2]])          # 2 systems x 2 items; item 0 human tie
    m = np.array([[0.50, 0.3], [0.52, 0.9]])
    tc = Grouped(h, "item").acc_eq(m)
    # eps < 0.02: item0 disagrees (0), item1 agrees (1) -> 0.5; eps in [0.02, 0.6): both 1
    assert tc.value == pytest.approx(1.0)
    assert tc.epsilon == pytest.approx(0.02)


def test_williams_worked_example():
    """WilliamsTest (Steiger 1980 eq. 7): r12=0.6, r13=0.4, r23=0.5, n=30, by hand."""
    r12, r13, r23, n = 0.6, 0.4, 0.5, 30
    # K = 1 - .36 - .16 - .25 + 2(.6)(.4)(.5) = 0.47
    # t = 0.2 sqrt(29 * 1.5) / sqrt(2(.47)(29/27) + .5^2 * .5^3) = 1.31909 / 1.02024 = 1.29293
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    t = (r12 - r13) * math.sqrt((n - 1) * 1.5) / math.sqrt(
        2 * k * (n - 1) / (n - 3) + 0.25 * 0.5 ** 3)
    assert k == pytest.approx(0.47)
    assert t == pytest.approx(1.29293, abs=1e-5)
    assert williams_test(r12, r13, r23, n) == pytest.approx(st.t.sf(t, 27))
    assert williams_test(r12, r13, r23, n) == pytest.approx(0.1035, abs=1e-4)
    assert williams_test(r12, r13, r23, n, one_sided=False) == pytest.approx(0.2070, abs=2e-4)
    assert williams_test(r13, r12, r23, n) == pytest.approx(1 - st.t.sf(t, 27))


def test_perm_both_separates_good_from_noise():
    """PermutationSigDiff: a metric close to the humans beats pure noise; not vice versa."""
    rng = np.random.default_rng(3)
    h = rng.normal(size=200)
    good = h + 0.3 * rng.normal(size=200)
    noise = rng.normal(size=200)
    g = Grouped(h)
    p_good, delta, p_noise = perm_both(lambda v: g.pearson(v, cells=True), good, noise, 200)
    assert delta > 0.5 and p_good < 0.01 and p_noise > 0.99


def test_assign_ranks_as_wmt_clusters():
    """tasks.AssignRanks: 0 vs 1 not significant, 0 vs 2 significant -> ranks 1 1 2 2."""
    p = np.full((4, 4), np.nan)
    p[0, 1], p[0, 2], p[0, 3] = 0.3, 0.01, 0.001
    p[1, 2], p[1, 3], p[2, 3] = 0.2, 0.04, 0.5
    assert assign_ranks(p) == [1, 1, 2, 2]


def test_pairwise_p_values_and_spa():
    """pce.compute_pairwise_p_values / compute_one_minus_pce: identical scores give
    SPA 1; a system far ahead has p(i>j) ~ 0 and p(j>i) ~ 1."""
    seg = np.array([[1.0, 1.1, 0.9, 1.2, 1.0, 1.1], [0.0, 0.1, -0.1, 0.0, 0.1, 0.0]])
    p = pairwise_p_values(seg, 500)
    assert p[0, 1] <= 0.05 and math.isnan(p[1, 0])
    assert soft_pairwise_accuracy(seg, seg) == pytest.approx(1.0)
    assert soft_pairwise_accuracy(seg, seg[::-1]) < 0.2
