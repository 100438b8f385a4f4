"""Paired bootstrap and approximate randomisation on sufficient statistics."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine import significance as sig
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.options import EvalOptions


def _wer_stats(rng, n, err):
    ref = rng.integers(5, 30, n).astype(float)
    dist = rng.binomial(ref.astype(int), err).astype(float)
    return np.column_stack([dist, ref])


@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_identical_systems_p_is_one_clearly_better_p_small(method):
    rng = np.random.default_rng(0)
    wer = get("wer")(EvalOptions())
    a = _wer_stats(rng, 300, 0.3)
    better = a.copy()
    better[:, 0] = np.floor(better[:, 0] * 0.6)
    stats = {"A": a, "A-copy": a.copy(), "B": better}
    res = sig.compare(stats, sig.measure_batch_score(wer), method, samples=500, seed=1,
                      higher_is_better=False)
    assert res.p_values.shape == (3, 3)
    assert np.allclose(res.p_values, res.p_values.T) and np.all(np.diag(res.p_values) == 1)
    assert res.p_values[0, 1] == pytest.approx(1.0)
    assert res.p_values[0, 2] < 0.01 and res.p_values[1, 2] < 0.01
    assert res.better[2, 0] and not res.better[0, 2]


def test_corpus_score_from_summed_statistics():
    # WER is summed distance over summed reference length, not a mean of sentence rates
    wer = get("wer")(EvalOptions())
    stats = {"A": np.array([[1.0, 2.0], [0.0, 8.0]]), "B": np.array([[0.0, 2.0], [2.0, 8.0]])}
    res = sig.paired_bootstrap(stats, sig.measure_batch_score(wer), samples=50, seed=0,
                               higher_is_better=False)
    assert res.scores.tolist() == pytest.approx([0.1, 0.2])
    # every bootstrap replicate is score(counts @ stats): intervals lie inside [0, 1]
    assert np.all(res.intervals >= 0) and np.all(res.intervals <= 1)


def test_reproducible_with_seed():
    rng = np.random.default_rng(5)
    stats = {s: sig.mean_stats(rng.normal(size=80) + k * 0.1) for k, s in enumerate("ABC")}
    for method in sig.METHODS:
        r1 = sig.compare(stats, sig.ratio_score, method, samples=200, seed=7)
        r2 = sig.compare(stats, sig.ratio_score, method, samples=200, seed=7)
        assert np.array_equal(r1.p_values, r2.p_values)


def test_bootstrap_interval_covers_true_mean_at_nominal_rate():
    rng = np.random.default_rng(3)
    hits = 0
    reps = 120
    for k in range(reps):
        v = rng.normal(1.0, 2.0, size=100)
        res = sig.paired_bootstrap({"a": sig.mean_stats(v), "b": sig.mean_stats(v)},
                                   sig.ratio_score, samples=400, seed=k)
        lo, hi = res.intervals[0]
        hits += lo <= 1.0 <= hi
    assert 0.88 <= hits / reps <= 0.99


def test_p_values_are_roughly_uniform_under_the_null():
    # two exchangeable systems: AR p-values should not pile up near 0
    rng = np.random.default_rng(9)
    ps = []
    for k in range(60):
        stats = {"a": sig.mean_stats(rng.normal(size=60)), "b": sig.mean_stats(rng.normal(size=60))}
        ps.append(sig.approximate_randomization(stats, sig.ratio_score, samples=200, seed=k).p_values[0, 1])
    assert 0.01 <= np.mean(np.array(ps) < 0.05) <= 0.15


def test_weighted_human_scores():
    s = sig.mean_stats([1.0, 3.0], [1.0, 3.0])
    assert sig.ratio_score(s.sum(axis=0))[0] == pytest.approx(2.5)


def test_mismatched_sentences_rejected():
    from evaltrans_qt.errors import EvalTransError
    with pytest.raises(EvalTransError):
        sig.paired_bootstrap({"a": np.ones((3, 2)), "b": np.ones((4, 2))}, sig.ratio_score)
    with pytest.raises(EvalTransError):
        sig.paired_bootstrap({"a": np.ones((3, 2))}, sig.ratio_score)
