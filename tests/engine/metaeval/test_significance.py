"""Paired bootstrap and approximate randomisation on sufficient statistics: general
properties, and equality with sacreBLEU 2.6's ``paired_bs`` / ``paired_ar`` (live, on the WMT21
en-de data) for BLEU, chrF, TER and human (MQM) scores; the centred option's statistic."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.metaeval import significance as sig
from evaltrans_qt.engine.options import EvalOptions


def _wer_stats(rng, n, err):
    ref = rng.integers(5, 30, n).astype(float)
    dist = rng.binomial(ref.astype(int), err).astype(float)
    return np.column_stack([dist, ref])


@pytest.mark.parametrize("method", ["bootstrap", "randomization", "bootstrap-centred"])
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


# ------------------------------------------------------------ sacreBLEU parity (WMT21 en-de)
# Reference values come live from sacreBLEU 2.6's own ``PairedTest`` (sacrebleu/significance.py)
# on the same hypotheses and references, with the same number of samples and the same seed.
# Systems chosen so that the p-values spread from ~0.002 to ~0.4 (one near 0.05).
BLEU_BASE, BLEU_OTHERS = "Online-A", ["HuaweiTSC", "eTranslation", "UEdin", "VolcTrans-AT",
                                       "Manifold"]
CHRF_BASE, CHRF_OTHERS = "UF", ["VolcTrans-AT", "Online-A", "UEdin", "HuaweiTSC", "Online-B"]


def _file(name: str) -> str:
    return f"newstest2021.en-de.hyp.{name}.de"


@pytest.fixture(scope="module")
def wmt(wmt_dir):
    from tests.engine.ngram_wmt import load
    return load(wmt_dir)


@pytest.fixture(autouse=True)
def _default_seed(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)


class CachedStats:
    """A sacreBLEU metric whose segment statistics are extracted once per hypothesis list
    (sacreBLEU's TER and chrF are slow in Python); everything else is the metric's own."""

    def __init__(self, metric) -> None:
        self.metric, self.cache = metric, {}

    def _extract_corpus_statistics(self, hyps, refs):
        key = tuple(hyps)
        if key not in self.cache:
            self.cache[key] = self.metric._extract_corpus_statistics(hyps, refs)
        return self.cache[key]

    def __getattr__(self, name):
        return getattr(self.metric, name)


def sacre_paired(metric, named_hyps, refs, test_type, n_samples, n_conf=-1):
    """sacreBLEU's results (baseline first) for one metric: list of ``Result``."""
    from sacrebleu.significance import PairedTest
    _, scores = PairedTest(named_hyps, {"m": metric}, refs, test_type=test_type,
                           n_samples=n_samples, n_ar_confidence=n_conf)()
    (key,) = [k for k in scores if k != "System"]
    return scores[key]


def assert_same(ours: sig.BaselineComparison, theirs, *, ci_tol: float, with_ci: bool = True):
    """p-values identical (same draws), scores equal, means/CIs equal up to sacreBLEU's float32
    resample sums; the same systems are significant at 0.05."""
    assert len(ours.rows) == len(theirs)
    assert ours.rows[0].p_value is None and theirs[0].p_value is None
    for o, t in zip(ours.rows, theirs):
        assert o.score == pytest.approx(t.score, rel=1e-12, abs=1e-12), o.system
        if t.p_value is not None:
            assert o.p_value == pytest.approx(t.p_value, abs=1e-12), o.system
            assert (o.p_value < 0.05) == (t.p_value < 0.05)
        if with_ci:
            assert o.mean == pytest.approx(t.mean, abs=ci_tol), o.system
            assert o.ci == pytest.approx(t.ci, abs=ci_tol), o.system
        else:
            assert o.mean is None and t.mean is None
    ps = [r.p_value for r in ours.rows[1:]]
    assert min(ps) < 0.05 < max(ps)            # the test data is not trivially decided


def _measure_stats(wmt, name, systems, rows=slice(None)):
    m = get(name)(EvalOptions())
    m.fit([], wmt.vocab)
    stats = {s: m.corpus_stats(wmt.segments(_file(s))[rows]) for s in systems}
    return stats, (lambda x: 100 * m.score_values(x))


def test_paired_bs_bleu_equals_sacrebleu(wmt):
    # sacreBLEU's BLEU smooths with exp, but every order has matches in every resample of
    # 1002 sentences, so it equals our genuine BLEU (= smooth_method "none") here
    from sacrebleu.metrics import BLEU
    systems = [BLEU_BASE] + BLEU_OTHERS
    stats, score = _measure_stats(wmt, "bleu", systems)
    refs = [list(r) for r in wmt.ref_texts]
    theirs = sacre_paired(BLEU(), [(s, wmt.hyp_texts[_file(s)]) for s in systems], refs, "bs", 1000)
    ours = sig.paired_bs_vs_baseline(stats, score, n_samples=1000)
    assert [r.system for r in ours.rows] == systems and ours.seed == 12345
    assert_same(ours, theirs, ci_tol=1e-5)
    # the all-pairs matrix holds the same p-values (sacreBLEU draws the same resamples for
    # every comparison), and each row is what sacreBLEU gives with that system as baseline
    mat = sig.paired_bootstrap(stats, score)
    assert mat.p_values[0, 1:] == pytest.approx([r.p_value for r in ours.rows[1:]], abs=1e-12)
    other = mat.vs_baseline("UEdin")
    again = sig.paired_bs_vs_baseline(stats, score, baseline="UEdin")
    assert [r.system for r in other.rows] == [r.system for r in again.rows]
    assert [r.p_value for r in other.rows] == [r.p_value for r in again.rows]


def test_paired_ar_bleu_equals_sacrebleu(wmt):
    from sacrebleu.metrics import BLEU
    systems = [BLEU_BASE] + BLEU_OTHERS
    stats, score = _measure_stats(wmt, "bleu", systems)
    refs = [list(r) for r in wmt.ref_texts]
    named = [(s, wmt.hyp_texts[_file(s)]) for s in systems]
    theirs = sacre_paired(BLEU(), named, refs, "ar", 2000, n_conf=300)
    ours = sig.paired_ar_vs_baseline(stats, score, n_samples=2000, n_confidence=300)
    assert_same(ours, theirs, ci_tol=1e-5)
    # without intervals (sacreBLEU's command line), and the matrix with the same masks
    plain = sig.paired_ar_vs_baseline(stats, score, n_samples=2000)
    assert [r.p_value for r in plain.rows] == [r.p_value for r in ours.rows]
    assert all(r.mean is None for r in plain.rows)
    mat = sig.approximate_randomization(stats, score, samples=2000)
    assert mat.p_values[0, 1:] == pytest.approx([r.p_value for r in ours.rows[1:]], abs=1e-12)


def test_paired_bs_and_ar_chrf_equal_sacrebleu(wmt):
    from sacrebleu.metrics import CHRF
    systems = [CHRF_BASE] + CHRF_OTHERS
    rows = slice(0, 500)                 # sacreBLEU's chrF counting is slow in Python
    stats, score = _measure_stats(wmt, "chrf", systems, rows)
    refs = [list(r[rows]) for r in wmt.ref_texts]
    named = [(s, wmt.hyp_texts[_file(s)][rows]) for s in systems]
    chrf = CachedStats(CHRF())
    assert_same(sig.paired_bs_vs_baseline(stats, score),
                sacre_paired(chrf, named, refs, "bs", 1000), ci_tol=1e-5)
    assert_same(sig.paired_ar_vs_baseline(stats, score, n_samples=2000),
                sacre_paired(chrf, named, refs, "ar", 2000), ci_tol=0, with_ci=False)


@pytest.mark.slow
def test_paired_bs_and_ar_ter_equal_sacrebleu(wmt):
    # sacreBLEU TER(case_sensitive=True) on 13a-tokenised text = our default TER; 200 segments
    # of 4 systems, its statistics extracted once (sacreBLEU's TER takes ~45 s per full system)
    from sacrebleu.metrics import TER
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    tok = Tokenizer13a()
    systems = [BLEU_BASE, "HuaweiTSC", "UEdin", "VolcTrans-AT"]
    rows = slice(0, 200)
    stats, score = _measure_stats(wmt, "ter", systems, rows)
    refs = [[tok(t) for t in r[rows]] for r in wmt.ref_texts]
    named = [(s, [tok(t) for t in wmt.hyp_texts[_file(s)][rows]]) for s in systems]
    metric = CachedStats(TER(case_sensitive=True))
    bs = sig.paired_bs_vs_baseline(stats, score, higher_is_better=False)
    theirs = sacre_paired(metric, named, refs, "bs", 1000)
    for o, t in zip(bs.rows, theirs):
        assert o.score == pytest.approx(t.score, rel=1e-12)
        assert o.mean == pytest.approx(t.mean, abs=1e-4) and o.ci == pytest.approx(t.ci, abs=1e-4)
        if t.p_value is not None:
            assert o.p_value == pytest.approx(t.p_value, abs=1e-12)
    # randomisation: both pseudo-systems keep the same summed reference length, so a trial's
    # difference is (integer edits) / length and often ties with the observed one exactly;
    # sacreBLEU counts a tie or not by float rounding, we never (strict ">" in exact
    # arithmetic). Check against the exact count from sacreBLEU's own integer edit counts.
    ar = sig.paired_ar_vs_baseline(stats, score, n_samples=2000, higher_is_better=False)
    theirs = sacre_paired(metric, named, refs, "ar", 2000)
    pos = np.random.default_rng(12345).integers(2, size=(2000, 200), dtype=bool)
    edits = {s: np.array([r[0] for r in metric.cache[tuple(h)]]) for s, h in named}
    ties = 0
    for o, t, (s, _) in zip(ar.rows[1:], theirs[1:], named[1:]):
        x, y = edits[systems[0]], edits[s]
        diff = np.abs((pos @ x + ~pos @ y) - (~pos @ x + pos @ y))
        d = abs(int(x.sum()) - int(y.sum()))
        assert o.p_value == pytest.approx((1 + np.sum(diff > d)) / 2001, abs=1e-12), s
        assert o.p_value <= t.p_value + 1e-12 <= (1 + np.sum(diff >= d)) / 2001 + 2e-12, s
        ties += int(np.sum(diff == d))
    assert ties > 0                      # the case is real on this data
    assert min(r.p_value for r in bs.rows[1:]) < 0.05 < max(r.p_value for r in bs.rows[1:])


def test_seed_from_environment_and_random_seed(wmt, monkeypatch):
    from sacrebleu.metrics import BLEU
    systems = [BLEU_BASE, "UEdin", "VolcTrans-AT"]
    rows = slice(0, 400)
    stats, score = _measure_stats(wmt, "bleu", systems, rows)
    refs = [list(r[rows]) for r in wmt.ref_texts]
    named = [(s, wmt.hyp_texts[_file(s)][rows]) for s in systems]
    monkeypatch.setenv("SACREBLEU_SEED", "2024")
    ours = sig.paired_bs_vs_baseline(stats, score, n_samples=500)
    assert ours.seed == 2024
    theirs = sacre_paired(BLEU(), named, refs, "bs", 500)
    assert [r.p_value for r in ours.rows[1:]] == pytest.approx([t.p_value for t in theirs[1:]],
                                                                abs=1e-12)
    assert [r.mean for r in ours.rows] == pytest.approx([t.mean for t in theirs], abs=1e-5)
    # an explicit seed wins over the environment; "none" draws a seed and records it
    explicit = sig.paired_bs_vs_baseline(stats, score, n_samples=500, seed=2024)
    assert [r.p_value for r in explicit.rows] == [r.p_value for r in ours.rows]
    monkeypatch.setenv("SACREBLEU_SEED", "None")
    rnd = sig.paired_bootstrap(stats, score, samples=300)
    assert rnd.seed is None and isinstance(rnd.meta["entropy"], int)
    again = sig.paired_bootstrap(stats, score, samples=300, seed=rnd.meta["entropy"])
    assert np.array_equal(again.p_values, rnd.p_values)
    monkeypatch.setenv("SACREBLEU_SEED", "twelve")
    from evaltrans_qt.errors import OptionError
    with pytest.raises(OptionError, match="SACREBLEU_SEED"):
        sig.paired_bootstrap(stats, score, samples=10)


def test_centred_option_keeps_the_old_statistic():
    # the earlier statistic: p = (1 + #{|δ_b - mean δ| >= |d|}) / (B + 1) on signed differences,
    # on the same resamples as sacreBLEU's (rng.choice with the seed)
    rng = np.random.default_rng(11)
    wer = get("wer")(EvalOptions())
    a = _wer_stats(rng, 120, 0.30)
    b = a.copy()
    b[:, 0] = rng.binomial(b[:, 1].astype(int), 0.28)
    stats = {"a": a, "b": b}
    res = sig.compare(stats, sig.measure_batch_score(wer), "bootstrap-centred", samples=400,
                      seed=5, higher_is_better=False)
    assert res.method == "bootstrap-centred"
    idx = np.random.default_rng(5).choice(120, size=(400, 120), replace=True)
    ea = np.array([a[i].sum(axis=0) for i in idx])
    eb = np.array([b[i].sum(axis=0) for i in idx])
    delta = ea[:, 0] / ea[:, 1] - eb[:, 0] / eb[:, 1]
    d = a[:, 0].sum() / a[:, 1].sum() - b[:, 0].sum() / b[:, 1].sum()
    centred = (1 + np.sum(np.abs(delta - delta.mean()) >= abs(d) - 1e-12)) / 401
    moses = (1 + np.sum(np.abs(delta) - np.abs(delta).mean() > abs(d))) / 401
    assert res.p_values[0, 1] == pytest.approx(centred, abs=1e-12)
    plain = sig.compare(stats, sig.measure_batch_score(wer), "bootstrap", samples=400, seed=5)
    assert plain.p_values[0, 1] == pytest.approx(moses, abs=1e-12)
    assert centred != moses


def test_human_scores_equal_sacrebleu_functions(wmt_dir):
    """MQM scores (mean_stats rows) through sacreBLEU's own _paired_bs_test / _paired_ar_test
    with a metric object whose statistics are those rows."""
    import csv
    from types import SimpleNamespace

    from sacrebleu.significance import Result, _paired_ar_test, _paired_bs_test

    vals: dict[str, dict[int, float]] = {}
    with open(wmt_dir / "mqm.tsv", encoding="utf-8") as f:
        for system, seg, v in list(csv.reader(f, delimiter="\t"))[1:]:
            if v and not system.startswith("ref"):
                vals.setdefault(system, {})[int(seg)] = float(v)
    systems = sorted(vals)[:5]
    segs = sorted(set.intersection(*(set(vals[s]) for s in systems)))
    stats = {s: sig.mean_stats([vals[s][k] for k in segs]) for s in systems}

    class MeanMetric:        # sacreBLEU's metric interface over [v * w, w] rows
        def _extract_corpus_statistics(self, hyps, refs):
            return hyps

        def _compute_score_from_stats(self, s):
            return SimpleNamespace(score=float(s[0] / s[1]))

        def _aggregate_and_compute(self, rows):
            return self._compute_score_from_stats(np.asarray(rows, float).sum(axis=0))

    metric = MeanMetric()
    base = stats[systems[0]].tolist()
    info = {"m": (base, Result(metric._aggregate_and_compute(base).score))}
    bs = sig.paired_bs_vs_baseline(stats, sig.ratio_score)
    ar = sig.paired_ar_vs_baseline(stats, sig.ratio_score, n_samples=3000)
    for k, s in enumerate(systems[1:], start=1):
        _, t = _paired_bs_test(info, s, stats[s].tolist(), None, {"m": metric}, 1000, -1, 12345)
        assert bs.rows[k].p_value == pytest.approx(t["m"].p_value, abs=1e-12)
        assert bs.rows[k].mean == pytest.approx(t["m"].mean, abs=1e-6)
        assert bs.rows[k].ci == pytest.approx(t["m"].ci, abs=1e-6)
        _, t = _paired_ar_test(info, s, stats[s].tolist(), None, {"m": metric}, 3000, -1, 12345)
        assert ar.rows[k].p_value == pytest.approx(t["m"].p_value, abs=1e-12)
    # human_vs_baseline / human_significance build the same rows from HumanScores
    hs = SimpleNamespace(cls="mqm", lengths={},
                         values={(k, s, 0): vals[s][k] for s in systems for k in segs},
                         systems=lambda: list(systems))
    via = sig.human_vs_baseline(hs, weighted=False)
    assert [r.p_value for r in via.rows] == [r.p_value for r in bs.rows]
    mat = sig.human_significance(hs, weighted=False, method="randomization", samples=3000)
    assert mat.p_values[0, 1:] == pytest.approx([r.p_value for r in ar.rows[1:]], abs=1e-12)


def test_identical_systems_get_p_one_unlike_sacrebleus_strict_count():
    rng = np.random.default_rng(2)
    a = sig.mean_stats(rng.normal(size=50))
    for method in sig.METHODS:
        res = sig.compare({"a": a, "b": a.copy()}, sig.ratio_score, method, samples=100, seed=1)
        assert res.p_values[0, 1] == 1.0


def test_bad_options_are_clear_errors():
    from evaltrans_qt.errors import EvalTransError, OptionError
    stats = {"a": sig.mean_stats([1.0, 2.0]), "b": sig.mean_stats([2.0, 2.0])}
    with pytest.raises(OptionError, match="unknown significance method 'boot'"):
        sig.compare(stats, sig.ratio_score, "boot")
    with pytest.raises(OptionError, match="neither an integer nor 'none'"):
        sig.compare(stats, sig.ratio_score, seed="abc")
    with pytest.raises(OptionError, match="positive"):
        sig.compare(stats, sig.ratio_score, samples=-3)
    with pytest.raises(EvalTransError, match="baseline 'c' is not among"):
        sig.paired_bs_vs_baseline(stats, sig.ratio_score, baseline="c")


def test_baseline_table_is_sacrebleus_layout():
    res = sig.BaselineComparison("A", "bootstrap", 1000, 12345, 10, True, [
        sig.SystemTest("A", 0.5012, None, 0.5010, 0.0120),
        sig.SystemTest("B", 0.5300, 0.0310, 0.5290, 0.0110),
        sig.SystemTest("C", 0.5100, 0.2400, 0.5111, 0.0130)])
    text = sig.baseline_table({"BLEU": res}, width=2, scale=100)
    assert "Baseline: A" in text and "BLEU (μ ± 95% CI)" in text
    assert "50.12 (50.10 ± 1.20)" in text and "53.00 (52.90 ± 1.10)" in text
    assert "(p = 0.0310)*" in text and "(p = 0.2400)" in text and "(p = 0.2400)*" not in text
    assert "Paired bootstrap resampling test with 1000 resampling trials" in sig.baseline_notes(
        "bootstrap", 1000, "A")
