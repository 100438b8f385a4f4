"""Correlation coefficients: scipy, hand examples (thesis eq. 6.23/6.24), Macháček's WMT tau examples."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

from evaltrans_qt.engine.metaeval.correlation import (
    correlate_run,
    correlate_sentences,
    correlate_systems,
    ranking_comparisons,
)
from evaltrans_qt.engine.metaeval.correlation_format import correlation_report_elements
from evaltrans_qt.engine.metaeval.statistics.bootstrap import cluster_weights, percentile_interval
from evaltrans_qt.engine.metaeval.statistics.coefficients import (
    concordance_reference,
    fisher_interval,
    kendall_tau_a,
    kendall_tau_b,
    midranks,
    pearson,
    rowwise_correlations,
    spearman,
    tau_bar,
    tau_per_group,
    weighted_kendall,
    weighted_midranks,
    weighted_pearson,
    weighted_spearman,
)
from evaltrans_qt.engine.metaeval.statistics.regression import least_squares_line, orthogonal_line
from evaltrans_qt.engine.metaeval.statistics.wmt import WMT_VARIANTS, pairwise_relations, wmt_tau

small = hs.lists(hs.tuples(hs.integers(0, 4), hs.integers(0, 4)), min_size=3, max_size=30)


@settings(max_examples=60, deadline=None)
@given(small)
def test_coefficients_match_scipy_with_ties(pairs):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert math.isnan(pearson(x, y)) and math.isnan(spearman(x, y))
        assert math.isnan(kendall_tau_b(x, y))
        return
    assert pearson(x, y) == pytest.approx(st.pearsonr(x, y)[0], abs=1e-12)
    assert spearman(x, y) == pytest.approx(st.spearmanr(x, y)[0], abs=1e-12)
    assert kendall_tau_b(x, y) == pytest.approx(st.kendalltau(x, y)[0], abs=1e-12)
    n = len(x)
    assert kendall_tau_a(x, y) == pytest.approx(concordance_reference(x, y) / (n * (n - 1) / 2))


@settings(max_examples=40, deadline=None)
@given(small, hs.lists(hs.integers(0, 3), min_size=30, max_size=30))
def test_weights_equal_repeated_items(pairs, mult):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    w = np.array(mult[:len(x)], float)
    xr, yr = np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int))
    ta, tb = weighted_kendall(x, y, w[None])
    # numba kernel against the plain-Python reference
    tot = w.sum()
    if tot >= 2:
        assert ta[0] == pytest.approx(concordance_reference(x, y, w) / (tot * (tot - 1) / 2))
    if len(xr) >= 3 and np.ptp(xr) > 0 and np.ptp(yr) > 0:
        assert weighted_pearson(x, y, w[None])[0] == pytest.approx(st.pearsonr(xr, yr)[0], abs=1e-9)
        assert weighted_spearman(x, y, w[None])[0] == pytest.approx(st.spearmanr(xr, yr)[0], abs=1e-9)
        assert tb[0] == pytest.approx(st.kendalltau(xr, yr)[0], abs=1e-9)
        # numba Spearman against Pearson on the numpy mid-ranks (reference)
        rx = weighted_midranks(x, w[None])[0]
        ry = weighted_midranks(y, w[None])[0]
        keep = w > 0
        ref = st.pearsonr(np.repeat(rx[keep], w[keep].astype(int)), np.repeat(ry[keep], w[keep].astype(int)))[0]
        assert weighted_spearman(x, y, w[None])[0] == pytest.approx(ref, abs=1e-9)


def test_midranks():
    assert midranks([10, 20, 20, 30]).tolist() == [1, 2.5, 2.5, 4]


def test_thesis_tau_is_tau_a_hand_example():
    # x ties on the first pair: C = 2, D = 0, M = 3 -> tau_a = 2/3, tau_b = 2/sqrt(2*3)
    assert kendall_tau_a([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / 3)
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(6))
    # no ties: C = 5, D = 1 of 6 pairs
    assert kendall_tau_a([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)


def test_tau_bar_hand_example():
    # sentence 1: perfect agreement over 3 systems (tau 1);
    # sentence 2: x = 1,2,3 vs y = 3,1,2 -> pairs D, D, C -> tau = -1/3
    # sentence 3: a single candidate -> left out. tau-bar = (1 - 1/3) / 2 = 1/3
    x = [1, 2, 3, 1, 2, 3, 5]
    y = [1, 2, 3, 3, 1, 2, 0]
    g = [0, 0, 0, 1, 1, 1, 2]
    assert tau_bar(x, y, g) == pytest.approx(1 / 3)
    ids, taus = tau_per_group(np.array(x), np.array(y), np.array(g))
    assert ids.tolist() == [0, 1] and taus.tolist() == pytest.approx([1, -1 / 3])


# Macháček §4.4.1 (worked examples); -1 = first better ("<"), 0 tie, +1 = second better (">")
def test_wmt_basic_example_one_third():
    human = [-1, +1, +1]      # A<B, C>A, C>B
    metric = [-1, +1, -1]     # A<B, C>A, C<B
    for v in WMT_VARIANTS:
        assert wmt_tau(human, metric, v) == pytest.approx(1 / 3)


def test_wmt_variant_worked_example():
    human = [-1, -1, +1, 0]   # A<B, A<B, A>B, A=B
    metric = [-1, -1, 0, +1]  # A<B, A<B, A=B, A>B
    assert wmt_tau(human, metric, "wmt12") == pytest.approx(1 / 3)   # (2 - 1) / (2 + 1)
    assert wmt_tau(human, metric, "wmt13") == pytest.approx(1.0)     # metric tie left out
    assert wmt_tau(human, metric, "wmt14") == pytest.approx(2 / 3)   # metric tie in denominator
    assert wmt_tau(human, metric, "hties") == pytest.approx(1 / 2)   # human tie counted too


def test_hties_constant_metric_scores_share_of_human_ties():
    human = [-1, 0, 0, 1, 1]
    assert wmt_tau(human, [0] * 5, "hties") == pytest.approx(2 / 5)


def test_pairwise_relations_orientation():
    # higher is better: item 0 better than item 1 -> -1 ("<" = first better)
    h, m, g = pairwise_relations(np.array([2.0, 1.0]), np.array([1.0, 1.0]), np.array([7, 7]))
    assert h.tolist() == [-1] and m.tolist() == [0] and g.tolist() == [7]


def test_negation_flips_sign():
    rng = np.random.default_rng(3)
    x = rng.normal(size=50)
    y = -x + rng.normal(size=50) * 0.5
    g = np.arange(50) // 5
    a = correlate_sentences(x, y, g, n_boot=0)
    b = correlate_sentences(x, y, g, n_boot=0, negate=True)
    assert a.pearson < 0 and b.pearson == pytest.approx(-a.pearson)
    assert b.kendall == pytest.approx(-a.kendall) and b.tau_bar == pytest.approx(-a.tau_bar)


def test_fisher_interval():
    lo, hi = fisher_interval(0.5, 103)
    assert lo == pytest.approx(math.tanh(math.atanh(0.5) - 1.959963984540054 / 10))
    assert hi == pytest.approx(math.tanh(math.atanh(0.5) + 1.959963984540054 / 10))


def test_bootstrap_interval_coverage_is_near_nominal():
    rho, n, reps = 0.5, 120, 150
    rng = np.random.default_rng(11)
    cov = np.array([[1, rho], [rho, 1]])
    hit_boot = hit_fisher = 0
    for k in range(reps):
        xy = rng.multivariate_normal([0, 0], cov, size=n)
        w = cluster_weights(np.arange(n), 400, seed=k)
        lo, hi = percentile_interval(weighted_pearson(xy[:, 0], xy[:, 1], w))
        hit_boot += lo <= rho <= hi
        flo, fhi = fisher_interval(pearson(xy[:, 0], xy[:, 1]), n)
        hit_fisher += flo <= rho <= fhi
    assert 0.88 <= hit_boot / reps <= 0.99
    assert 0.88 <= hit_fisher / reps <= 0.99


def test_cluster_bootstrap_draws_whole_sentences():
    g = np.array([0, 0, 1, 1, 1, 2])
    w = cluster_weights(g, 50, seed=1)
    assert np.all(w[:, 0] == w[:, 1]) and np.all(w[:, 2] == w[:, 4])
    assert np.all(w[:, [0, 2, 5]].sum(axis=1) == 3)


def test_regression_lines():
    rng = np.random.default_rng(5)
    x = rng.normal(size=400)
    y = 0.8 * x + rng.normal(size=400) * 0.6
    a, b = least_squares_line(x, y)
    pb, pa = np.polyfit(x, y, 1)
    assert (a, b) == pytest.approx((pa, pb))
    # orthogonal regression is symmetric in x and y
    a1, b1, r1 = orthogonal_line(x, y)
    a2, b2, r2 = orthogonal_line(y, x)
    assert b1 == pytest.approx(1 / b2) and r1 == pytest.approx(r2)
    # eq. 6.5: equal variances -> mean squared orthogonal distance = var (1 - |r|)
    xs, ys = (x - x.mean()) / x.std(), (y - y.mean()) / y.std()
    _, slope, resid = orthogonal_line(xs, ys)
    assert slope == pytest.approx(1.0)
    assert resid == pytest.approx(1 - abs(pearson(xs, ys)))


def test_report_elements_shape():
    c = correlate_sentences([1, 2, 3, 4], [1, 3, 2, 4], [0, 0, 1, 1], n_boot=20)
    d = correlation_report_elements([c])
    (attrs, kids), = d["correlation"]
    assert attrs["level"] == "sentence" and attrs["n"] == "4"
    assert set(kids) >= {"pearson", "spearman", "kendall", "kendall-b", "tau-bar", "wmt-tau"}
    assert kids["pearson"]["value"] == pytest.approx(c.pearson)
    assert json.dumps(c.to_dict())


def _mqm(wmt_dir):
    scores = {}
    for line in (wmt_dir / "mqm.tsv").read_text().splitlines()[1:]:
        sysname, seg, v = line.split("\t")
        if v.strip():
            scores[(sysname, int(seg))] = float(v)
    return scores


def test_real_wmt_sentence_bleu_vs_mqm_matches_scipy(wmt_dir):
    ref = json.loads((wmt_dir / "reference_values.json").read_text())["systems"]
    mqm = _mqm(wmt_dir)
    systems = sorted({s for s, _ in mqm if not s.startswith("ref")})
    x, y, g = [], [], []
    for s in systems:
        sb = ref[f"newstest2021.en-de.hyp.{s}.de"]["sent_bleu_s_allrefs"]
        for seg in range(1, len(sb) + 1):
            if (s, seg) in mqm:
                x.append(sb[seg - 1])
                y.append(mqm[(s, seg)])
                g.append(seg)
    x, y, g = np.array(x), np.array(y), np.array(g)
    assert len(x) == 4216
    c = correlate_sentences(x, y, g, n_boot=200)
    assert c.pearson == pytest.approx(st.pearsonr(x, y)[0], abs=1e-12)
    assert c.spearman == pytest.approx(st.spearmanr(x, y)[0], abs=1e-12)
    assert c.kendall_b == pytest.approx(st.kendalltau(x, y)[0], abs=1e-12)
    # tau_a from an independent O(n^2) count
    sx = np.sign(x[:, None] - x[None, :]).astype(np.int8)
    sy = np.sign(y[:, None] - y[None, :]).astype(np.int8)
    s = int((sx.astype(np.int32) * sy).sum()) // 2
    assert c.kendall == pytest.approx(s / (len(x) * (len(x) - 1) / 2), abs=1e-12)
    # tau-bar against scipy per sentence (tau_a = tau_b * sqrt((M-Tx)(M-Ty)) / M)
    taus = []
    for seg in np.unique(g):
        k = g == seg
        xi, yi = x[k], y[k]
        m = len(xi) * (len(xi) - 1) / 2
        ssum = sum(np.sign(xi[i] - xi[j]) * np.sign(yi[i] - yi[j])
                   for i in range(len(xi)) for j in range(i + 1, len(xi)))
        taus.append(ssum / m)
    assert c.tau_bar == pytest.approx(np.mean(taus), abs=1e-12)
    assert c.pearson_ci[0] < c.pearson < c.pearson_ci[1]
    # system level: sacreBLEU corpus BLEU vs mean MQM over 527 segments
    bx = [ref[f"newstest2021.en-de.hyp.{s}.de"]["bleu_allrefs"] for s in systems]
    by = [np.mean([v for (sy_, _), v in mqm.items() if sy_ == s]) for s in systems]
    cs = correlate_systems(bx, by)
    assert cs.pearson == pytest.approx(st.pearsonr(bx, by)[0])
    assert cs.spearman == pytest.approx(st.spearmanr(bx, by)[0])
    assert cs.kendall_b == pytest.approx(st.kendalltau(bx, by)[0])


def test_rowwise_correlations_match_scipy():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (6, 8)).astype(float)
    Y = rng.normal(size=(6, 8))
    r, rho, ta, tb = rowwise_correlations(X, Y)
    for i in range(6):
        assert r[i] == pytest.approx(st.pearsonr(X[i], Y[i])[0])
        assert rho[i] == pytest.approx(st.spearmanr(X[i], Y[i])[0])
        assert tb[i] == pytest.approx(st.kendalltau(X[i], Y[i])[0])
        assert ta[i] == pytest.approx(kendall_tau_a(X[i], Y[i]))


@pytest.mark.slow
def test_correlate_run_on_imported_wmt_matches_scipy(wmt_dir):
    """Import + evaluation + correlate_run against scipy on values collected independently."""
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    from evaltrans_qt.io.wmt import import_wmt
    db = import_wmt(wmt_dir, wmt_dir / "mqm.tsv")
    mqm = _mqm(wmt_dir)
    systems = ["Facebook-AI", "Online-W", "UEdin", "eTranslation"]
    run = evaluate(db, EvalOptions(), ["wer"], systems, executor=SerialExecutor())
    rows = correlate_run(db, run, "mqm", level="sentence", n_boot=100)
    (c,) = rows
    x, y = [], []
    for s in systems:
        vals = run.sentence_column(s, "wer")
        for row, si in enumerate(run.systems[s].segments):
            if (s, si + 1) in mqm:
                x.append(-vals[row])
                y.append(mqm[(s, si + 1)])
    assert c.n == len(x) == 4 * 527 and c.negated
    assert c.pearson == pytest.approx(st.pearsonr(x, y)[0], abs=1e-12)
    assert c.spearman == pytest.approx(st.spearmanr(x, y)[0], abs=1e-12)
    assert c.kendall_b == pytest.approx(st.kendalltau(x, y)[0], abs=1e-12)
    (cs,) = correlate_run(db, run, "mqm", level="system", n_boot=50, convention="thesis")
    wer = run.measure("wer")
    xs, ys = [], []
    for s in systems:
        sr = run.systems[s]
        keep = [r for r, si in enumerate(sr.segments) if (s, si + 1) in mqm]
        xs.append(-wer.score(np.asarray(sr.stats["wer"])[keep].sum(axis=0)).value)
        lens = [len(db.sources[sr.segments[r]].targets[sr.target_indices[r]].text.split()) for r in keep]
        ys.append(np.average([mqm[(s, sr.segments[r] + 1)] for r in keep], weights=lens))
    assert cs.pearson == pytest.approx(st.pearsonr(xs, ys)[0], abs=1e-12)
    assert cs.spearman == pytest.approx(st.spearmanr(xs, ys)[0], abs=1e-12)


@pytest.mark.parametrize("x,y,g", [([], [], []), ([1.0], [2.0], [0]), ([1.0, 2.0], [2.0, 2.0], [0, 0])])
def test_degenerate_inputs_give_nan_not_errors(x, y, g):
    c = correlate_sentences(x, y, g, n_boot=20)
    assert math.isnan(c.pearson) and math.isnan(c.spearman) and math.isnan(c.kendall_b)
    assert json.dumps(c.to_dict())          # NaN become null


def test_wmt_tau_on_stored_ranking_tasks():
    """Rank judgements in the database -> one comparison per task and pair (Macháček §4.4)."""
    from evaltrans_qt.engine.human.ranking import add_ranking
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    from evaltrans_qt.io.etdb import demo_database_path, load_database
    db = load_database(demo_database_path())
    src_ids = [0, 1]
    for si in src_ids:
        src = db.sources[si]
        cands = [t for t in src.targets if not db.is_reference(t)]
        add_ranking(db, src, [(t, k + 1) for k, t in enumerate(cands)], judge="a", task=f"{si}a")
        add_ranking(db, src, [(t, 1) for t in cands], judge="b", task=f"{si}b")   # all tied
    run = evaluate(db, EvalOptions(), ["wer"], executor=SerialExecutor())
    h, m = ranking_comparisons(db, run, "wer")
    assert len(h) == 2 * 2 * 6      # 2 sources x 2 tasks x C(4, 2) pairs of the 4 systems
    # independent expectation: WER lower = better; judge a ranks in target order, b ties all
    exp_h, exp_m = [], []
    for si in src_ids:
        src = db.sources[si]
        cands = [t for t in src.targets if not db.is_reference(t)]
        wer = {}
        for s in run.systems:
            sr = run.systems[s]
            col = run.sentence_column(s, "wer")
            for row, seg in enumerate(sr.segments):
                if seg == si:
                    wer[s] = col[row]
        for judge_ranks in ({t.system: k + 1 for k, t in enumerate(cands)},
                            {t.system: 1 for t in cands}):
            names = sorted(judge_ranks)
            for i in range(len(names)):
                for j in range(i + 1, len(names)):
                    a, b = names[i], names[j]
                    exp_h.append(int(np.sign(judge_ranks[a] - judge_ranks[b])))
                    exp_m.append(int(np.sign(wer[a] - wer[b])))
    assert sorted(zip(h.tolist(), m.tolist())) == sorted(zip(exp_h, exp_m))
    (c,) = correlate_run(db, run, "rank", level="sentence", n_boot=0)
    assert c.wmt["wmt14"] == pytest.approx(wmt_tau(exp_h, exp_m, "wmt14"))
    assert c.wmt["hties"] == pytest.approx(wmt_tau(exp_h, exp_m, "hties"))
