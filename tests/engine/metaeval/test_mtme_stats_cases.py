"""mt-metrics-eval's own test cases (``mt_metrics_eval/stats_test.py``, google-research/
mt-metrics-eval at 68a481a) for every statistic we share with it, run on our code.

The inputs and expected numbers are theirs (facts, kept to the decimals they assert);
the test names say which of their tests each case comes from. Their ``Correlation(
num_sys, gold, metric)`` packs a systems x items matrix row by row, ``None`` = no gold
score; here that is ``_matrix``. Their ``average_by`` 'none'/'sys'/'item' is our
grouping none/system/item.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from evaltrans_qt.engine.metaeval.statistics.grouped import (
    Grouped,
    pairwise_p_values,
    soft_pairwise_accuracy,
)
from evaltrans_qt.engine.metaeval.statistics.kendall import (
    pair_categories,
    tie_calibration,
    within_pairs,
)

GROUPING = {"none": "none", "sys": "system", "item": "item"}


def _matrix(num_sys: int, values) -> np.ndarray:
    return np.array([math.nan if v is None else v for v in values], float).reshape(num_sys, -1)


def _grouped(num_sys, gold, average_by) -> Grouped:
    return Grouped(_matrix(num_sys, gold), GROUPING[average_by])


# CorrelationTest: Correlation(2, [1..6], [2, 1, 4, 3, 3, 7])
GOLD6, METRIC6 = [1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 3, 7]


@pytest.mark.parametrize("average_by,expected", [("none", 0.776), ("sys", 0.760),
                                                 ("item", 1.00)])
def test_pearson(average_by, expected):                        # testPearson
    g = _grouped(2, GOLD6, average_by)
    assert g.pearson(_matrix(2, METRIC6)) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("average_by,expected", [("item", 0.926), ("none", 0.776),
                                                 ("sys", 0.766)])
def test_pearson_pdp(average_by, expected):                    # testPearsonPdp
    g = _grouped(2, GOLD6, average_by)
    assert g.pdp(_matrix(2, METRIC6)) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("average_by,expected", [("none", 0.552), ("sys", 0.575),
                                                 ("item", 1.00)])
def test_kendall(average_by, expected):                        # testKendall
    g = _grouped(2, GOLD6, average_by)
    assert g.kendall(_matrix(2, METRIC6), "b") == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("average_by,expected", [("none", 0.556), ("sys", 0.611),
                                                 ("item", 1.00)])
def test_kendall_c(average_by, expected):                      # testKendallC
    g = _grouped(2, GOLD6, average_by)
    assert g.kendall(_matrix(2, METRIC6), "c") == pytest.approx(expected, abs=5e-4)


def test_kendall_variants():                                   # testKendallVariants
    g = _grouped(1, [1, 2, 2, 3, 4], "none")
    m = _matrix(1, [2, 1, 1.5, 5, 3])
    assert g.kendall(m, "b") == pytest.approx(0.316227766, abs=1e-9)
    assert g.kendall(m, "c") == pytest.approx(0.32, abs=1e-12)
    assert g.kendall(m, "23") == pytest.approx(0.2, abs=1e-12)
    assert g.pairwise_accuracy(m) == pytest.approx(0.6, abs=1e-12)      # acc23, epsilon 0
    # acc23 with epsilon 2: metric differences <= 2 are ties
    i, j, _ = within_pairs(np.zeros(5, np.int64))
    cat = pair_categories(m.ravel(), g.human, i, j, epsilon=2.0)
    assert np.isin(cat, (0, 4)).mean() == pytest.approx(0.4, abs=1e-12)


def test_kendall_with_ties_opt():                              # testKendallWithTiesOpt
    g = _grouped(1, [1, 2, 2, 3, 4], "none")
    assert g.acc_eq(_matrix(1, [2, 1, 1.5, 5, 3])).value == pytest.approx(0.7, abs=1e-12)


def test_pairwise_confidence_error():                         # testPairwiseConfidenceError
    human = _matrix(2, [1, 2, 3, 2, 3, 4])
    metric = _matrix(2, [2, 2, 4, 1, 3, 5])
    assert soft_pairwise_accuracy(human, metric) == pytest.approx(0.872, abs=5e-4)


# AverageCorrelationTest
def test_missing_entries_are_left_out():                       # testMissingEntries
    g = _grouped(1, [1, None, 3, 4, 5, 6], "none")
    m = _matrix(1, [2, 1, 4, 3, 5, 6])
    ref = scipy.stats.pearsonr([1, 3, 4, 5, 6], [2, 4, 3, 5, 6])[0]
    assert g.pearson(m) == pytest.approx(ref, abs=1e-12)


def test_average_by_system():                                  # testAverageBySystem
    g = _grouped(2, [1, 2, 3, 4, 5, 6], "sys")
    p1 = scipy.stats.pearsonr([1, 2, 3], [2, 1, 8])[0]
    p2 = scipy.stats.pearsonr([4, 5, 6], [3, 5, 6])[0]
    assert g.pearson(_matrix(2, [2, 1, 8, 3, 5, 6])) == pytest.approx((p1 + p2) / 2, abs=1e-9)


def test_average_by_item():                                    # testAverageByItem
    g = _grouped(2, [1, 2, 3, 4, 5, 6], "item")
    p = [scipy.stats.pearsonr(a, b)[0] for a, b in
         (([1, 4], [2, 3]), ([2, 5], [1, 5]), ([3, 6], [8, 6]))]
    assert g.pearson(_matrix(2, [2, 1, 8, 3, 5, 6])) == pytest.approx(np.mean(p), abs=1e-9)


def test_average_by_item_with_missing_entries():   # testAverageByItemWithMissingEntries
    g = _grouped(2, [1, None, 3, 4, 5, 6], "item")
    p1 = scipy.stats.pearsonr([1, 4], [2, 3])[0]
    p3 = scipy.stats.pearsonr([3, 6], [8, 6])[0]
    assert g.pearson(_matrix(2, [2, 1, 8, 3, 5, 6])) == pytest.approx((p1 + p3) / 2, abs=1e-9)


def test_nan_correlations_are_left_out_of_the_mean():           # testNaNHandling
    g = _grouped(2, [1, 2, 3, 4, 5, 6], "sys")
    assert g.pearson(_matrix(2, [2, 2, 2, 4, 5, 6])) == pytest.approx(1.0, abs=1e-12)


def test_kendall_with_ties_opt_averaged_by_system():           # testKendallWithTiesOpt
    # one epsilon for all groups, the mean of the groups' acc23 at that epsilon
    gold, metric = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    for average_by in ("none", "sys", "item"):
        g = _grouped(2, gold, average_by)
        res = g.acc_eq(_matrix(2, metric))
        i, j, gid = within_pairs(g.gid)
        cat = pair_categories(g.cells(_matrix(2, metric)), g.human, i, j, res.epsilon)
        per_group = [np.isin(cat[gid == k], (0, 4)).mean() for k in np.unique(gid)]
        assert res.value == pytest.approx(np.mean(per_group), abs=1e-12)
    # tie_calibration on plain vectors agrees with the grouped form
    direct = tie_calibration(np.array(metric, float), np.array(gold, float),
                             np.repeat([0, 1], 3))
    assert direct.value == pytest.approx(_grouped(2, gold, "sys").acc_eq(
        _matrix(2, metric)).value, abs=1e-12)


def test_pdp_with_averaging_and_nones():                      # testPdpWithAveragingAndNones
    gold, metric = [1, 5, None, 10, 2, 12], [3, 15, 1, 20, 4, 24]
    assert _grouped(2, gold, "item").pdp(_matrix(2, metric)) == pytest.approx(0.968, abs=5e-4)
    assert _grouped(2, gold, "none").pdp(_matrix(2, metric)) == pytest.approx(0.975, abs=5e-4)


# CorrelationFunctionsTest
def test_agreement():                                          # testAgreement
    g = _grouped(1, [1, 2, 3, 3, 4], "none")
    assert g.pairwise_accuracy(_matrix(1, [1, 1, 2, 1, 2])) == pytest.approx(5 / 10, abs=1e-12)


def test_kendall_variants_b_and_c_match_scipy():              # testKendallVariants_b_and_c
    gold, metric = [7, 1, 2, 7, 4, 3, 2], [4, 1, 3, 6, 1, 5, 6]
    g = _grouped(1, gold, "none")
    for variant in ("b", "c"):
        ref = scipy.stats.kendalltau(gold, metric, variant=variant)[0]
        assert g.kendall(_matrix(1, metric), variant) == pytest.approx(ref, abs=1e-12)


def test_kendall_variants_23_and_epsilon():      # testKendallVariants_23, ...WithPositiveEpsilon
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    # their KendallVariants(x, y): x is the gold side, y the metric side
    g = _grouped(1, x, "none")
    assert g.kendall(_matrix(1, y), "23") == pytest.approx((14 - 7) / 21, abs=1e-12)
    # 13 concordant + 1 tied on both sides of 21 pairs
    assert g.pairwise_accuracy(_matrix(1, y)) == pytest.approx(14 / 21, abs=1e-12)
    i, j, _ = within_pairs(np.zeros(7, np.int64))
    w23 = np.array([1.0, -1.0, -1.0, -1.0, 1.0])
    for eps, expected in ((0.0, 7 / 21), (0.1, 7 / 21), (1.0, (7 + 3 - 1 - 10 - 0) / 21)):
        cat = pair_categories(np.array(y, float), np.array(x, float), i, j, eps)
        assert w23[cat].mean() == pytest.approx(expected, abs=1e-12)


def test_pairwise_p_values_are_mt_metrics_evals():   # pce.compute_pairwise_p_values, its doc
    # two systems, five segments: their worked example has delta 3.0 over sums 4.0 - 1.0
    scores = np.array([[0.8, 0.9, 0.7, 1.0, 0.6], [0.2, 0.3, 0.1, 0.4, 0.0]])
    p = pairwise_p_values(scores, samples=1000)
    assert np.isnan(p[1, 0]) and np.isnan(p[0, 0])
    # only the identity permutation (and its own sign pattern) reaches delta 3.0: p = 1/32
    assert p[0, 1] == pytest.approx(1 / 32, abs=0.02)


@pytest.mark.parametrize("average_by", ["none", "sys", "item"])
def test_spearman_with_ties_and_missing_as_scipy_per_group(average_by):
    # Correlation.Spearman: scipy spearmanr per group, None gold left out, NaN groups skipped
    gold = [1, 2, 2, None, 5, 3, 3, 1, 4, 4, 2, 2]
    metric = [0.5, 0.1, 0.1, 0.9, 0.7, 0.2, 0.3, 0.3, 0.8, 0.1, 0.1, 0.4]
    g = _grouped(3, gold, average_by)
    hm, mm = _matrix(3, gold), _matrix(3, metric)
    if average_by == "item":
        hm, mm = hm.T, mm.T
    elif average_by == "none":
        hm, mm = hm.reshape(1, -1), mm.reshape(1, -1)
    vals = []
    for hr, mr in zip(hm, mm):
        ok = np.isfinite(hr)
        if ok.sum() < 2 or np.ptp(hr[ok]) == 0 or np.ptp(mr[ok]) == 0:
            continue
        vals.append(scipy.stats.spearmanr(hr[ok], mr[ok])[0])
    assert g.spearman(_matrix(3, metric)) == pytest.approx(np.mean(vals), abs=1e-12)
