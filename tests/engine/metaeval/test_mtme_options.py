"""mt-metrics-eval's further options on our statistics: Kendall variants with a tie
threshold, WMT20's Kendall-like tau with its gold threshold, NaN -> 0, micro averaging,
p-values of r, early stopping of the permutation tests and Williams' test with missing
gold scores -- each checked against ``stats_test.py``'s expected numbers (facts, kept to
the decimals they assert) and against the vendored ``stats.py`` on the same inputs.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from evaltrans_qt.engine.metaeval.metrics_task import MetaEvalData, metric_significance
from evaltrans_qt.engine.metaeval.statistics.grouped import Grouped
from evaltrans_qt.engine.metaeval.statistics.metric_significance import EarlyStop, perm_both
from evaltrans_qt.engine.metaeval.statistics.pair_permutation import perm_pairs

VENDOR = Path(__file__).resolve().parents[2] / "vendor"
if str(VENDOR) not in sys.path:
    sys.path.insert(0, str(VENDOR))
from mt_metrics_eval import stats as mstats  # noqa: E402  (vendored)

GROUPING = {"none": "none", "sys": "system", "item": "item"}


def _matrix(num_sys: int, values) -> np.ndarray:
    return np.array([math.nan if v is None else v for v in values], float).reshape(num_sys, -1)


def _g(num_sys, gold, average_by="none", **kw) -> Grouped:
    return Grouped(_matrix(num_sys, gold), GROUPING[average_by], **kw)


def test_kendall_variants_with_epsilon():                        # testKendallVariants
    g = _g(1, [1, 2, 2, 3, 4])
    m = _matrix(1, [2, 1, 1.5, 5, 3])
    assert g.kendall(m, "23") == 0.2
    assert g.kendall(m, "acc23") == 0.6
    assert g.kendall(m, "acc23", epsilon=2) == pytest.approx(0.4)
    with pytest.raises(ValueError, match="tau_c"):
        g.kendall(m, "c", epsilon=1)


def test_kendall_23_epsilon_one():               # testKendallVariantsWithPositiveEpsilon
    x, y = [1, 1, 1, 2, 2, 3, 4], [1, 1, 2, 2, 4, 3, 3]
    g = _g(1, x)
    assert g.kendall(_matrix(1, y), "23", epsilon=0.1) == pytest.approx((14 - 7) / 21)
    # epsilon 1: 13 metric ties, 3 of them human ties too, 1 discordant pair
    assert g.kendall(_matrix(1, y), "23", epsilon=1.0) == pytest.approx((7 + 3 - 1 - 10) / 21)


@pytest.mark.parametrize("num_sys,gold,average_by,thresh,expected", [
    (1, [10, None, 100, 150], "none", 1, 1 / 3),                 # testKendallLike
    (2, [10, 11, 100, 150], "item", 1, 1.0),
    (2, [10, None, 100, 150], "item", 1, 1.0),
    (1, [10, 11, 100, 150], "none", 25, 3 / 5),                   # CorrelationFunctionsTest
    (1, [10, 11, 100, 150], "none", 1, 2 / 6)])
def test_kendall_like(num_sys, gold, average_by, thresh, expected):
    g = _g(num_sys, gold, average_by)
    assert g.kendall_like(_matrix(num_sys, [2, 1, 4, 3]), thresh) == pytest.approx(expected)


def test_nan_handling_with_zeros():            # testNaNHandling, testNaNHandlingWithZeros
    g, m = [1, 2, 3, 4, 5, 6], [2, 2, 2, 4, 5, 6]
    assert _g(2, g, "sys").pearson(_matrix(2, m)) == pytest.approx(1.0)
    assert _g(2, g, "sys", nan_as_zero=True).pearson(_matrix(2, m)) == pytest.approx(0.5)


def test_micro_averaging_and_p_values():                          # testMicroAveraging
    g, m = [1, None, 3, 4, 5, 6], [2, 1, 8, 3, 5, 6]
    p1 = scipy.stats.pearsonr([1, 3], [2, 8])
    p2 = scipy.stats.pearsonr([4, 5, 6], [3, 5, 6])
    micro = _g(2, g, "sys", micro=True)
    assert micro.pearson(_matrix(2, m)) == pytest.approx((2 * p1[0] + 3 * p2[0]) / 5)
    # a two-cell group's p-value is 1 (scipy): the weights decide the average
    assert micro.p_value(_matrix(2, m)) == pytest.approx((2 * p1[1] + 3 * p2[1]) / 5)
    ours = _g(2, g, "sys", micro=True).p_value(_matrix(2, m))
    theirs = mstats.AverageCorrelation(scipy.stats.pearsonr, 2, "sys", macro=False)(
        [None if v is None else float(v) for v in g], m)[1]
    assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("average_by", ["none", "sys", "item"])
@pytest.mark.parametrize("statistic", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("micro,nan_zero", [(False, False), (True, False), (False, True)])
def test_p_values_and_averaging_equal_the_vendored_code(average_by, statistic, micro, nan_zero):
    """Random 4 x 6 matrices with missing gold and a constant row: value and p-value of
    r as AverageCorrelation gives them, under every averaging option."""
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 5, 24).astype(float)
    metric = rng.normal(size=24).round(1)
    metric[6:12] = 1.0                                  # one system constant: a NaN group
    gold_list = [None if i in (2, 13, 20) else float(v) for i, v in enumerate(gold)]
    fcn = {"pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr,
           "kendall": scipy.stats.kendalltau}[statistic]
    theirs = mstats.AverageCorrelation(fcn, 4, average_by, replace_nans_with_zeros=nan_zero,
                                       macro=not micro)(gold_list, list(metric))
    g = _g(4, gold_list, average_by, micro=micro, nan_as_zero=nan_zero)
    m = metric.reshape(4, -1)
    value = {"pearson": g.pearson, "spearman": g.spearman,
             "kendall": lambda v: g.kendall(v, "b")}[statistic](m)
    assert value == pytest.approx(theirs[0], abs=1e-9)
    assert g.p_value(m, statistic) == pytest.approx(theirs[1], abs=1e-9, nan_ok=True)


@pytest.mark.parametrize("average_by", ["none", "item", "sys"])
@pytest.mark.parametrize("variant,epsilon", [("23", 0.5), ("acc23", 0.5), ("b", 0.3)])
def test_kendall_variants_epsilon_equal_the_vendored_code(average_by, variant, epsilon):
    rng = np.random.default_rng(8)
    gold = [None if i % 7 == 3 else float(v) for i, v in enumerate(rng.integers(0, 4, 30))]
    metric = list(rng.normal(size=30).round(1))
    c = mstats.Correlation(5, gold, metric)
    theirs = c.KendallVariants(average_by, variant, epsilon=epsilon)[0]
    ours = _g(5, gold, average_by).kendall(np.reshape(metric, (5, -1)), variant,
                                           epsilon=epsilon)
    assert ours == pytest.approx(theirs, abs=1e-12)
    like = c.KendallLike(average_by, thresh=2)[0]
    assert _g(5, gold, average_by).kendall_like(np.reshape(metric, (5, -1)), 2) == \
        pytest.approx(like, abs=1e-12)


GOLD8 = [1, 2, 3, 4, 5, 5, 7, 8]
M1, M2 = [1, 2, 3, 3, 7, 3, 5, 5], [2, 1, 2, 6, 8, 8, 7, 6]


@pytest.mark.parametrize("average_by,block,early_max,nan_zero", [
    ("none", 50, 0.2, False),                     # testPearsonNoAvgWithEarlyStop
    ("sys", 1000, 0.5, True),                     # testPearsonSysNoEarlyStopNan0
    ("item", 10, 0.5, False)])
def test_perm_both_early_stop_equals_the_vendored_code(average_by, block, early_max, nan_zero):
    g = _g(4, GOLD8, average_by, nan_as_zero=nan_zero)
    a, b = g.cells(_matrix(4, M2)), g.cells(_matrix(4, M1))
    from evaltrans_qt.engine.metaeval.metrics_task import mtme_order
    stop = EarlyStop(block_size=block, early_max=early_max)
    p, delta, _ = perm_both(lambda v: g.pearson(v, cells=True), a, b, 1000, seed=7,
                            order=mtme_order(g), early_stop=stop)
    np.random.seed(7)
    their_p, their_delta, used, _ = mstats.PermutationSigDiff(
        mstats.Correlation(4, GOLD8, M1), mstats.Correlation(4, GOLD8, M2),
        scipy.stats.pearsonr, average_by, 1000,
        mstats.PermutationSigDiffParams(block_size=block, early_max=early_max),
        replace_nans_with_zeros=nan_zero)
    assert delta == pytest.approx(their_delta, abs=1e-12)
    assert p == pytest.approx(their_p, abs=1e-12)
    if average_by == "none":
        assert used < 1000                       # it did stop early (theirs, and so ours)


def test_perm_pairs_early_stop_equals_the_vendored_code():
    gold, m1, m2 = [1, 3, 3, 3, 1, 2, 1, 2], [2, 4, 6, 6, 2, 6, 3, 7], [1, 5, 4, 4, 4, 3, 2, 1]
    g = _g(4, gold, "item")
    a, b = g.cells(_matrix(4, m2)), g.cells(_matrix(4, m1))
    eps_a, eps_b = g.acc_eq(a, cells=True).epsilon, g.acc_eq(b, cells=True).epsilon
    stop = EarlyStop(block_size=20, early_min=0.3, early_max=0.31)
    p, delta, _ = perm_pairs(a, b, g.human, g.gid, eps_a, eps_b, samples=400, seed=2,
                             early_stop=stop)
    np.random.seed(2)
    their_p, their_delta, used, _ = mstats.PairwisePermutationSigDiff(
        mstats.Correlation(4, gold, m1), mstats.Correlation(4, gold, m2), "acc23", "item",
        k=400, params=mstats.PermutationSigDiffParams(20, 0.3, 0.31), epsilon1=eps_b,
        epsilon2=eps_a)
    assert used < 400
    assert delta == pytest.approx(their_delta, abs=1e-12)
    assert p == pytest.approx(their_p, abs=1e-12)


def _data(gold, m1, m2, num_sys, convention) -> MetaEvalData:
    gm = _matrix(num_sys, gold)
    mats = {"m1": _matrix(num_sys, m1), "m2": _matrix(num_sys, m2)}
    s = [f"s{k}" for k in range(num_sys)]
    return MetaEvalData("h", s, [(k, 0) for k in range(gm.shape[1])], gm, mats,
                        np.nanmean(gm, axis=1), {k: v.mean(axis=1) for k, v in mats.items()},
                        {"m1": False, "m2": False}, convention)


def test_williams_with_missing_gold_mtme_way():               # testSigDiffWithAvgAndNones
    gold, m1, m2 = [1, None, 3, 4, 5, 6], [1, 2, 3, 3, 7, 3], [2, 1, 2, 6, 8, 8]
    sig = metric_significance(_data(gold, m1, m2, 3, "mtme"), "pearson", level="seg",
                              grouping="item", method="williams")
    assert sig.measures == ["m1", "m2"]
    assert sig.values == pytest.approx([0.982, 0.933], abs=5e-4)
    assert sig.p[0, 1] == pytest.approx(0.121, abs=5e-4)
    corr_fcn = mstats.AverageCorrelation(scipy.stats.pearsonr, 3, average_by="item")
    their_p, _, _ = mstats.WilliamsSigDiff(mstats.Correlation(3, gold, m1),
                                           mstats.Correlation(3, gold, m2), corr_fcn)
    assert sig.p[0, 1] == pytest.approx(their_p, abs=1e-9)
    # the thesis convention keeps its own reading: scored cells only
    thesis = metric_significance(_data(gold, m1, m2, 3, "thesis"), "pearson", level="seg",
                                 grouping="item", method="williams")
    assert thesis.p[0, 1] == pytest.approx(0.193, abs=5e-4)


def test_williams_complete_equals_test_sig_diff():                # testSigDiff
    gold = [1, 2, 3, 4, 5]
    m1, m2 = [1.1, 2, 3.1, 4, 5.1], [1.5, 2, 3.1, 4, 5.5]
    sig = metric_significance(_data(gold, m1, m2, 5, "mtme"), "pearson", level="seg",
                              grouping="item", method="williams")
    assert sig.p[0, 1] == pytest.approx(0.019, abs=5e-4)


@pytest.mark.parametrize("average_by", ["item", "sys", "none"])
def test_perm_both_on_tie_calibrated_acc_eq_with_early_stop(average_by):  # testTauOptimization
    """PERM-BOTH whose statistic recalibrates acc*_eq's epsilon in every resample
    (PermutationSigDiff with KendallWithTiesOpt), stopping early: mt-metrics-eval swaps the
    cells system by system whatever the grouping."""
    from evaltrans_qt.engine.metaeval.metrics_task import metric_significance
    gm, m1, m2 = _matrix(4, GOLD8), _matrix(4, M1), _matrix(4, M2)
    data = MetaEvalData("h", [f"s{k}" for k in range(4)], [(0, 0), (1, 0)], gm,
                        {"m1": m1, "m2": m2}, gm.mean(axis=1),
                        {"m1": m1.mean(axis=1), "m2": m2.mean(axis=1)},
                        {"m1": False, "m2": False}, "mtme")
    sig = metric_significance(data, "acc-eq", level="seg", grouping=GROUPING[average_by],
                              samples=40, seed=9, early_stop=EarlyStop(block_size=10))
    better = sig.measures[0]
    first, second = (M2, M1) if better == "m2" else (M1, M2)
    np.random.seed(9 + 0 * 2 + 1)
    their_p, _, used, _ = mstats.PermutationSigDiff(
        mstats.Correlation(4, GOLD8, second), mstats.Correlation(4, GOLD8, first),
        mstats.KendallWithTiesOpt, average_by, 40,
        mstats.PermutationSigDiffParams(block_size=10), variant="acc23", sample_rate=1.0)
    assert sig.p[0, 1] == pytest.approx(their_p, abs=1e-12)


@pytest.mark.parametrize("variant,epsilon", [("b", 1.0), ("b", 0.0), ("23", 1.0),
                                             ("acc23", 0.5)])
def test_perm_pairs_kendall_variants_equal_the_vendored_code(variant, epsilon):
    """PairwisePermutationSigDiff on a Kendall variant at given epsilons (its
    testKendallVariantsB, and the same p-value with its generator seeded alike)."""
    gold, m1, m2 = [1, 3, 3, 3, 1, 2, 1, 2], [2, 4, 6, 6, 2, 6, 3, 7], [1, 5, 4, 4, 4, 3, 2, 1]
    g = _g(4, gold, "item")
    a, b = g.cells(_matrix(4, m2)), g.cells(_matrix(4, m1))
    p, delta, _ = perm_pairs(a, b, g.human, g.gid, epsilon, epsilon, variant=variant,
                             samples=50, seed=6)
    np.random.seed(6)
    c1, c2 = mstats.Correlation(4, gold, m1), mstats.Correlation(4, gold, m2)
    their_p, their_delta, used, _ = mstats.PairwisePermutationSigDiff(
        c1, c2, variant, "item", k=50, epsilon1=epsilon, epsilon2=epsilon)
    assert used == 50
    assert delta == pytest.approx(c2.KendallVariants("item", variant, epsilon=epsilon)[0]
                                  - c1.KendallVariants("item", variant, epsilon=epsilon)[0])
    assert delta == pytest.approx(their_delta, abs=1e-12)
    assert p == pytest.approx(their_p, abs=1e-12)
    with pytest.raises(ValueError, match="tau_c"):
        perm_pairs(a, b, g.human, g.gid, 0, 0, variant="c", samples=5)


def test_significance_perm_pairs_on_kendall():
    from evaltrans_qt.errors import OptionError
    gm, m1, m2 = _matrix(4, GOLD8), _matrix(4, M1), _matrix(4, M2)
    data = MetaEvalData("h", [f"s{k}" for k in range(4)], [(0, 0), (1, 0)], gm,
                        {"m1": m1, "m2": m2}, gm.mean(axis=1),
                        {"m1": m1.mean(axis=1), "m2": m2.mean(axis=1)},
                        {"m1": False, "m2": False}, "mtme")
    sig = metric_significance(data, "kendall", level="seg", grouping="item",
                              method="perm-pairs", variant="b", epsilon=1.0, samples=30)
    assert sig.method == "perm-pairs" and 0 <= sig.p[0, 1] <= 1
    with pytest.raises(OptionError, match="tau_c"):
        metric_significance(data, "kendall", level="seg", grouping="item",
                            method="perm-pairs", variant="c")
    with pytest.raises(OptionError, match="acc-eq or kendall"):
        metric_significance(data, "pearson", level="seg", method="perm-pairs")
