"""Our meta-evaluation against mt-metrics-eval's own code, on real data.

The shared WMT21 en-de data (../shared/data/wmt21-ende) becomes an mt-metrics-eval
directory: all 1002 segments, references A and C, the 8 systems with MQM scores and 2
without (mt-metrics-eval leaves those out), the MQM segment scores (``None`` where not
rated) with a sys file holding their plain means, and an external metric whose numbers
come from sacreBLEU (``reference_values.json``: sentence BLEU per segment, corpus BLEU
per system). The product imports the directory (``io/mtme.py``), evaluates chrF, BLEU
and TER and gathers everything under its default convention (mt-metrics-eval's,
``engine/metaeval/conventions.py``). mt-metrics-eval's ``stats.py`` (vendored unchanged
under ``tests/vendor``) gets the same numbers read from the files -- its
``data.ReadScoreFile`` format -- and for our measures the run's segment scores and
system scores (an error measure negated, as our tables show it). Every statistic both
have must agree to 1e-6 at segment level under each grouping and at system level --
with its further options too (tie thresholds, Kendall-like tau, micro averaging, NaN ->
0, p-values of r, Williams with missing gold) -- PERM-BOTH must give the very same
p-value when mt-metrics-eval's generator has our seed, and our export of the data,
loaded by its own ``data.EvalSet``, must give our numbers.

mt-metrics-eval enumerates pairs in Python for PDP and acc*_eq; where that takes
minutes (all cells as one group, or all segments of a system) both sides are compared
on the first :data:`SMALL` segments instead.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from evaltrans_qt.engine.measures.external import with_external
from evaltrans_qt.engine.metaeval.metrics_task import gather, metrics_table
from evaltrans_qt.engine.metaeval.statistics.grouped import Grouped
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.io.mtme import import_mtme

VENDOR = Path(__file__).resolve().parents[2] / "vendor"
if str(VENDOR) not in sys.path:
    sys.path.insert(0, str(VENDOR))
from mt_metrics_eval import stats as mstats  # noqa: E402  (vendored, see tests/vendor/README.md)

LP = "en-de"
SCORED = ["Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin", "VolcTrans-AT",
          "VolcTrans-GLAT", "eTranslation"]
UNSCORED = ["Online-A", "ICL"]
EXTERNAL = "sentBLEU-refA"          # its numbers: sacreBLEU against refs A, C, D
OURS = ["chrf", "bleu", "ter"]
SMALL = 60
TOL = 1e-6


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")


def _read_score_file(path: Path) -> dict[str, list[float | None]]:
    """mt-metrics-eval ``data.ReadScoreFile``: ``SYSNAME SCORE`` lines, ``None`` kept."""
    out: dict[str, list[float | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, score = line.split()
        out.setdefault(name, []).append(float(score) if score != "None" else None)
    return out


@pytest.fixture(scope="module")
def mtme_dir(wmt_dir, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wmt21-mtme")
    pre = "newstest2021.en-de"

    def lines(name: str) -> list[str]:
        return (wmt_dir / name).read_text(encoding="utf-8").split("\n")[:1002]

    src = lines(f"{pre}.src.en")
    n = len(src)
    _write(root / "sources" / f"{LP}.txt", src)
    _write(root / "documents" / f"{LP}.docs", [f"news doc{1 + i // 20}" for i in range(n)])
    for r in ("A", "C"):
        _write(root / "references" / f"{LP}.ref{r}.txt", lines(f"{pre}.ref.{r}.de"))
    for s in SCORED + UNSCORED:
        _write(root / "system-outputs" / LP / f"{s}.txt", lines(f"{pre}.hyp.{s}.de"))
    mqm: dict[tuple[str, int], float] = {}
    for line in (wmt_dir / "mqm.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        s, seg, v = line.split("\t")
        if v.strip():
            mqm[(s, int(seg))] = float(v) + 0.0
    seg_lines, sys_lines = [], []
    for s in SCORED:
        vals = [mqm.get((s, i + 1)) for i in range(n)]
        seg_lines += [f"{s} {'None' if v is None else repr(v)}" for v in vals]
        sys_lines.append(f"{s} {repr(float(np.mean([v for v in vals if v is not None])))}")
    _write(root / "human-scores" / f"{LP}.mqm.seg.score", seg_lines)
    _write(root / "human-scores" / f"{LP}.mqm.sys.score", sys_lines)
    ref = json.loads((wmt_dir / "reference_values.json").read_text(encoding="utf-8"))["systems"]
    mseg, msys = [], []
    for s in SCORED + UNSCORED:
        vals = ref[f"{pre}.hyp.{s}.de"]
        mseg += [f"{s} {repr(float(v))}" for v in vals["sent_bleu_s_allrefs"]]
        msys.append(f"{s} {repr(float(vals['bleu_allrefs']))}")
    _write(root / "metric-scores" / LP / f"{EXTERNAL}.seg.score", mseg)
    _write(root / "metric-scores" / LP / f"{EXTERNAL}.sys.score", msys)
    return root


@pytest.fixture(scope="module")
def imported(mtme_dir):
    db = import_mtme(mtme_dir, LP)
    return db, with_external(evaluate(db, EvalOptions(), OURS, SCORED + UNSCORED), db)


@pytest.fixture(scope="module")
def ours(imported):
    db, run = imported
    return run, gather(db, run, "mqm")


@pytest.fixture(scope="module")
def theirs(mtme_dir, ours):
    """mt-metrics-eval's inputs: {level: (gold {sys: list}, {metric: {sys: list}})}, the
    systems in our order (PCE depends on it; mt-metrics-eval takes a set's order)."""
    run, data = ours
    gold_seg = _read_score_file(mtme_dir / "human-scores" / f"{LP}.mqm.seg.score")
    gold_sys = _read_score_file(mtme_dir / "human-scores" / f"{LP}.mqm.sys.score")
    seg = {EXTERNAL: _read_score_file(mtme_dir / "metric-scores" / LP / f"{EXTERNAL}.seg.score")}
    sys_ = {EXTERNAL: _read_score_file(mtme_dir / "metric-scores" / LP / f"{EXTERNAL}.sys.score")}
    for m in OURS:
        sign = 1.0 if run.measure(m).higher_is_better else -1.0
        seg[m] = {s: list(sign * run.sentence_column(s, m)) for s in run.systems}
        sys_[m] = {s: [sign * run.systems[s].scores[m].value] for s in run.systems}
    # mt-metrics-eval's system choice (data.GetCorrelations): some gold score present
    chosen = {s for s, v in gold_seg.items() if any(x is not None for x in v)}
    assert chosen == set(SCORED) == set(data.systems)
    return data.systems, {"seg": (gold_seg, seg), "sys": (gold_sys, sys_)}


def _corr(systems, gold, metric, items=None) -> mstats.Correlation:
    """``data.EvalSet.Correlation``: per system its list, concatenated in system order."""
    g, m = [], []
    for s in systems:
        gs, ms = list(gold[s]), list(metric[s])
        if items is not None:
            gs, ms = [gs[i] for i in items], [ms[i] for i in items]
        g += gs
        m += ms
    return mstats.Correlation(len(systems), g, m)


AVG = {"none": "none", "item": "item", "system": "sys"}
NAMES = [EXTERNAL, *OURS]


def test_system_level_statistics_equal_mt_metrics_eval(ours, theirs):
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs["sys"]
    rows = {r.measure: r for r in metrics_table(
        data, ["pearson", "spearman", "pdp", "kendall", "pairwise-accuracy", "acc-eq"],
        level="sys")}
    assert data.convention == "mtme"
    # the human system score: the plain mean of the segment scores = the sys file
    for a, s in enumerate(data.systems):
        assert data.sys_gold[a] == pytest.approx(gold[s][0], abs=1e-12)
    for name in NAMES:
        c = _corr(systems, gold, metrics[name])
        r = rows[name]
        assert r.n == len(SCORED) and r.convention == "mtme"
        assert r.values["pearson"] == pytest.approx(c.Pearson()[0], abs=TOL)
        assert r.values["spearman"] == pytest.approx(c.Spearman()[0], abs=TOL)
        assert r.values["pdp"] == pytest.approx(c.Pearson(pdp=True)[0], abs=TOL)
        assert r.values["kendall"] == pytest.approx(c.Kendall()[0], abs=TOL)
        assert r.values["pairwise-accuracy"] == pytest.approx(
            c.KendallVariants(variant="acc23")[0], abs=TOL)
        assert r.values["acc-eq"] == pytest.approx(
            c.KendallWithTiesOpt(sample_rate=1.0)[0], abs=TOL)
    # the external metric's sys file value is what is correlated, not a segment mean
    ext = dict(zip(data.systems, data.sys_metrics[EXTERNAL]))
    assert all(ext[s] == metrics[EXTERNAL][s][0] for s in systems)


@pytest.mark.parametrize("grouping", ["none", "item", "system"])
def test_segment_level_statistics_equal_mt_metrics_eval(ours, theirs, grouping):
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs["seg"]
    stats = ["pearson", "spearman", "kendall", "pairwise-accuracy"] + (["pdp", "acc-eq"]
                                                            if grouping == "item" else [])
    rows = {r.measure: r for r in metrics_table(data, stats, level="seg", grouping=grouping)}
    avg = AVG[grouping]
    for name in NAMES:
        c = _corr(systems, gold, metrics[name])
        v = rows[name].values
        assert v["pearson"] == pytest.approx(c.Pearson(avg)[0], abs=TOL)
        assert v["spearman"] == pytest.approx(c.Spearman(avg)[0], abs=TOL)
        assert v["kendall"] == pytest.approx(c.Kendall(avg)[0], abs=TOL)
        assert v["pairwise-accuracy"] == pytest.approx(
            c.KendallVariants(avg, variant="acc23")[0], abs=TOL)
        if grouping == "item":
            assert v["pdp"] == pytest.approx(c.Pearson(avg, pdp=True)[0], abs=TOL)
            assert v["acc-eq"] == pytest.approx(
                c.KendallWithTiesOpt(avg, sample_rate=1.0)[0], abs=TOL)


@pytest.mark.parametrize("grouping", ["none", "system"])
def test_pdp_and_acc_eq_on_fewer_segments_equal_mt_metrics_eval(ours, theirs, grouping):
    """PDP and acc*_eq over all cells or per system, on the first SMALL segments (see
    the module doc): our Grouped -- what metrics_table uses -- on the same submatrix."""
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs["seg"]
    items = list(range(SMALL))
    g = Grouped(data.gold[:, items], grouping)
    for name in NAMES:
        c = _corr(systems, gold, metrics[name], items)
        mat = data.metrics[name][:, items]
        theirs_pdp = c.Pearson(AVG[grouping], pdp=True)[0]
        assert g.pdp(mat) == pytest.approx(theirs_pdp, abs=TOL)
        assert g.acc_eq(mat).value == pytest.approx(
            c.KendallWithTiesOpt(AVG[grouping], sample_rate=1.0)[0], abs=TOL)
    # with one group, PDP is Pearson's r (mt-metrics-eval gives the same)
    if grouping == "none":
        c = _corr(systems, gold, metrics["chrf"], items)
        assert c.Pearson(pdp=True)[0] == pytest.approx(c.Pearson()[0], abs=1e-9)


def test_pairwise_confidence_error_equals_mt_metrics_eval(ours, theirs):
    """spa = 1 - PCE from the segment scores of the items every system has (the 527
    rated segments), p-values by mt-metrics-eval's permutations (seed 4)."""
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs["seg"]
    rows = {r.measure: r for r in metrics_table(data, ["spa"], level="sys")}
    for name in NAMES:
        c = _corr(systems, gold, metrics[name])
        expected = c.PairwiseConfidenceError()[0]
        assert rows[name].values["spa"] == pytest.approx(expected, abs=TOL)
        assert 0.5 < expected <= 1.0
    assert not math.isnan(rows["chrf"].values["spa"])


@pytest.mark.parametrize("level,grouping,statistic,samples", [
    ("sys", "none", "pearson", 300), ("sys", "none", "kendall", 300),
    ("seg", "none", "pearson", 40), ("seg", "item", "pearson", 10),
    ("seg", "system", "kendall", 40)])
def test_perm_both_p_values_equal_mt_metrics_eval(ours, theirs, level, grouping, statistic,
                                                  samples):
    """PERM-BOTH between chrF and the external metric: the same swaps when mt-metrics-eval's
    global generator has our seed, so the same p-value and difference."""
    import scipy.stats

    from evaltrans_qt.engine.metaeval.metrics_task import mtme_order
    from evaltrans_qt.engine.metaeval.statistics.metric_significance import perm_both
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs[level]
    if level == "sys":
        g = Grouped(data.sys_gold)
        a, b = g.cells(data.sys_metrics["chrf"]), g.cells(data.sys_metrics[EXTERNAL])
    else:
        g = Grouped(data.gold, grouping)
        a, b = g.cells(data.metrics["chrf"]), g.cells(data.metrics[EXTERNAL])

    def stat(v):
        return g.pearson(v, cells=True) if statistic == "pearson" else g.kendall(v, "b",
                                                                                  cells=True)

    p, delta, _ = perm_both(stat, a, b, samples, seed=11, order=mtme_order(g))
    corr_a = _corr(systems, gold, metrics["chrf"])
    corr_b = _corr(systems, gold, metrics[EXTERNAL])
    fcn, args = ((scipy.stats.pearsonr, {}) if statistic == "pearson"
                 else (mstats.KendallVariants, {"variant": "b"}))
    np.random.seed(11)
    their_p, their_delta, used, _ = mstats.PermutationSigDiff(
        corr_b, corr_a, fcn, AVG[grouping], k=samples, **args)
    assert used == samples
    assert delta == pytest.approx(their_delta, abs=TOL)
    assert p == their_p


def test_wmt_task_presets_equal_mt_metrics_eval_components(ours, theirs):
    """--task wmt23/wmt24: each component is mt-metrics-eval's task-set statistic for this
    pair, and the average is TaskSetResults.AverageCorrs with equal weights."""
    from evaltrans_qt.engine.metaeval.task_presets import task_table
    _, data = ours
    systems, inputs = theirs
    (gs, ms), (gy, my) = inputs["seg"], inputs["sys"]
    seg, sys_ = _corr(systems, gs, ms["chrf"]), _corr(systems, gy, my["chrf"])
    acc_eq = seg.KendallWithTiesOpt("item", sample_rate=1.0)[0]
    wmt24 = {r.measure: r for r in task_table(data, "wmt24")}["chrf"]
    pce = seg.PairwiseConfidenceError()[0]
    assert wmt24.values == pytest.approx({"sys spa": pce, "seg acc-eq by item": acc_eq},
                                         abs=TOL)
    assert wmt24.average == pytest.approx((pce + acc_eq) / 2, abs=TOL)
    wmt23 = {r.measure: r for r in task_table(data, "wmt23")}["chrf"]
    accuracy = sys_.KendallVariants(variant="acc23")[0]
    r_sys, r_seg = sys_.Pearson()[0], seg.Pearson()[0]
    assert wmt23.values == pytest.approx({
        "sys pairwise-accuracy": accuracy, "sys pearson": r_sys, "seg pearson": r_seg,
        "seg acc-eq by item": acc_eq}, abs=TOL)
    assert wmt23.average == pytest.approx(
        (accuracy + (r_sys + 1) / 2 + (r_seg + 1) / 2 + acc_eq) / 4, abs=TOL)


@pytest.mark.parametrize("level,grouping,samples", [("sys", "none", 200), ("seg", "item", 20)])
def test_pairwise_permutation_p_values_equal_mt_metrics_eval(ours, theirs, level, grouping,
                                                             samples):
    """perm-pairs (acc*_eq, each metric at its own epsilon) between chrF and BLEU: the same
    p-value as PairwisePermutationSigDiff with its generator seeded alike."""
    from evaltrans_qt.engine.metaeval.statistics.pair_permutation import perm_pairs
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs[level]
    if level == "sys":
        g = Grouped(data.sys_gold)
        a, b = g.cells(data.sys_metrics["chrf"]), g.cells(data.sys_metrics["bleu"])
    else:
        g = Grouped(data.gold, grouping)
        a, b = g.cells(data.metrics["chrf"]), g.cells(data.metrics["bleu"])
    corr_a = _corr(systems, gold, metrics["chrf"])
    corr_b = _corr(systems, gold, metrics["bleu"])
    eps = []
    for c, v in ((corr_a, a), (corr_b, b)):
        _, their_eps, _ = mstats.KendallWithTiesOpt(
            c.gold_scores, c.metric_scores, "acc23", c.num_sys, AVG[grouping], 1.0)
        assert g.acc_eq(v, cells=True).epsilon == pytest.approx(their_eps, abs=1e-12)
        eps.append(their_eps)
    p, delta, _ = perm_pairs(a, b, g.human, g.gid, eps[0], eps[1], samples=samples, seed=5)
    np.random.seed(5)
    their_p, their_delta, used, _ = mstats.PairwisePermutationSigDiff(
        corr_b, corr_a, "acc23", AVG[grouping], k=samples, epsilon1=eps[1], epsilon2=eps[0])
    assert used == samples
    assert delta == pytest.approx(their_delta, abs=TOL)
    assert p == their_p


@pytest.mark.parametrize("level", ["sentence", "system"])
def test_correlate_table_equals_mt_metrics_eval(imported, theirs, level):
    """``evaltrans correlate`` without --stats (r, rho, tau_b) under the default convention:
    mt-metrics-eval's Pearson, Spearman and Kendall without grouping."""
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    db, run = imported
    systems, inputs = theirs
    gold, metrics = inputs["seg" if level == "sentence" else "sys"]
    rows = {c.measure: c for c in correlate_run(db, run, "mqm", level=level, n_boot=0)}
    for name in NAMES:
        c, mine = _corr(systems, gold, metrics[name]), rows[name]
        assert mine.convention == "mtme" and mine.n == (len(SCORED) if level == "system"
                                                       else len(SCORED) * 527)
        assert mine.pearson == pytest.approx(c.Pearson()[0], abs=TOL)
        assert mine.spearman == pytest.approx(c.Spearman()[0], abs=TOL)
        assert mine.kendall_b == pytest.approx(c.Kendall()[0], abs=TOL)


# ----------------------------------------------------------------- further options
@pytest.mark.parametrize("grouping", ["none", "item", "system"])
def test_further_options_equal_mt_metrics_eval(ours, theirs, grouping):
    """Kendall tau_23 / acc_23 / tau_b at a tie threshold epsilon, WMT20's Kendall-like
    tau, micro averaging, NaN -> 0 and the p-values of r, at segment level under each
    grouping (and system level once): metrics_table against AverageCorrelation /
    Correlation.KendallVariants / KendallLike."""
    import scipy.stats
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs["seg"]
    avg = AVG[grouping]
    for variant, eps in (("23", 0.05), ("acc23", 0.1), ("b", 0.02)):
        rows = {r.measure: r for r in metrics_table(data, ["kendall"], level="seg",
                                                    grouping=grouping, variant=variant,
                                                    epsilon=eps)}
        for name in NAMES if grouping == "item" else ["chrf"]:
            c = _corr(systems, gold, metrics[name])
            assert rows[name].values["kendall"] == pytest.approx(
                c.KendallVariants(avg, variant, epsilon=eps)[0], abs=TOL), (variant, name)
    like = {r.measure: r for r in metrics_table(data, ["kendall-like"], level="seg",
                                                grouping=grouping, gold_threshold=5)}
    for name in NAMES:
        c = _corr(systems, gold, metrics[name])
        assert like[name].values["kendall-like"] == pytest.approx(
            c.KendallLike(avg, thresh=5)[0], abs=TOL)
    for micro, nan_zero in ((True, False), (False, True)):
        rows = {r.measure: r for r in metrics_table(
            data, ["pearson", "spearman", "kendall"], level="seg", grouping=grouping,
            micro=micro, nan_as_zero=nan_zero, p_values=True)}
        for name in NAMES:
            c = _corr(systems, gold, metrics[name])
            for stat, fcn in (("pearson", scipy.stats.pearsonr),
                              ("spearman", scipy.stats.spearmanr),
                              ("kendall", scipy.stats.kendalltau)):
                value, p, _ = c.AverageCorrelation(fcn, avg, replace_nans_with_zeros=nan_zero,
                                                   macro=not micro)(c.gold_scores,
                                                                    c.metric_scores)
                assert rows[name].values[stat] == pytest.approx(value, abs=TOL), (stat, name)
                assert rows[name].values[f"{stat}-p"] == pytest.approx(p, abs=TOL), (stat, name)
    if grouping == "none":
        gy, my = inputs["sys"]
        rows = {r.measure: r for r in metrics_table(data, ["pearson", "kendall"], level="sys",
                                                    p_values=True)}
        for name in NAMES:
            c = _corr(systems, gy, my[name])
            assert rows[name].values["pearson-p"] == pytest.approx(c.Pearson()[1], abs=TOL)
            assert rows[name].values["kendall-p"] == pytest.approx(c.Kendall()[1], abs=TOL)


@pytest.mark.parametrize("level,grouping", [("seg", "item"), ("seg", "none"), ("sys", "none")])
def test_williams_mtme_convention_equals_mt_metrics_eval(ours, theirs, level, grouping):
    """Williams between chrF and BLEU as WilliamsSigDiff computes it (all cells, n counted
    with the unscored ones)."""
    import scipy.stats

    from evaltrans_qt.engine.metaeval.metrics_task import metric_significance
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs[level]
    sig = metric_significance(data, "pearson", level=level, grouping=grouping,
                              method="williams", measures=["chrf", "bleu"])
    by = dict(zip(sig.measures, range(2)))
    corr_fcn = mstats.AverageCorrelation(scipy.stats.pearsonr, len(systems), AVG[grouping])
    better, worse = sig.measures
    p, r1, r2 = mstats.WilliamsSigDiff(_corr(systems, gold, metrics[better]),
                                       _corr(systems, gold, metrics[worse]), corr_fcn)
    assert sig.values == pytest.approx([r1, r2], abs=TOL)
    assert sig.p[by[better], by[worse]] == pytest.approx(p, abs=TOL)


def test_export_of_the_real_data_loads_in_evalset_with_the_same_numbers(imported, ours,
                                                                         tmp_path):
    """export mtme of the imported WMT21 en-de data and the run, loaded by mt-metrics-eval's
    own data.EvalSet: its Correlation of the loaded scores gives our numbers."""
    import types
    for missing in ("apache_beam", "dacite"):
        sys.modules.setdefault(missing, types.ModuleType(missing))
    from mt_metrics_eval import data as mdata
    from mt_metrics_eval import meta_info

    from evaltrans_qt.io.mtme import export_mtme
    db, run = imported
    _, data = ours
    out = tmp_path / "wmt21x"
    export_mtme(db, out, LP, run=run, measures=OURS)
    info = meta_info.MetaInfo("refA", {"seg": "mqm", "sys": "mqm"}, set(), set())
    evs = mdata.EvalSet("wmt21x", LP, read_stored_metric_scores=True, info=info,
                        path=str(tmp_path))
    assert evs.sys_names == set(SCORED + UNSCORED) and len(evs.src) == 1002
    names = {n.split("-")[0]: n for n in evs.metric_names}
    seg_rows = {r.measure: r for r in metrics_table(data, ["pearson", "kendall"], level="seg",
                                                    grouping="item")}
    sys_rows = {r.measure: r for r in metrics_table(data, ["pearson"], level="sys")}
    for m in OURS:
        sign = 1.0 if run.measure(m).higher_is_better else -1.0
        seg = {s: [sign * v for v in vals] for s, vals in evs.Scores("seg", names[m]).items()}
        c = evs.Correlation(evs.Scores("seg", "mqm"), seg, SCORED)
        assert seg_rows[m].values["pearson"] == pytest.approx(c.Pearson("item")[0], abs=TOL)
        assert seg_rows[m].values["kendall"] == pytest.approx(c.Kendall("item")[0], abs=TOL)
        sys_ = {s: [sign * v for v in vals] for s, vals in evs.Scores("sys", names[m]).items()}
        c = evs.Correlation(evs.Scores("sys", "mqm"), sys_, SCORED)
        assert sys_rows[m].values["pearson"] == pytest.approx(c.Pearson()[0], abs=TOL)


@pytest.mark.parametrize("grouping", ["item", "none"])
def test_perm_both_on_tie_calibrated_acc_eq_equals_mt_metrics_eval(ours, theirs, grouping):
    """PERM-BOTH whose statistic recalibrates acc*_eq in every resample, on the first
    SMALL segments with their unrated cells: mt-metrics-eval z-scores and swaps all cells
    (PermutationSigDiff with KendallWithTiesOpt), so do we -- the same resampled values.
    acc*_eq takes few distinct values, so a resampled difference often equals the
    observed one exactly, and whether it counts as a hit then depends on each side's
    rounding: the p-values may differ by those exact ties only."""
    from evaltrans_qt.engine.metaeval.metrics_task import MetaEvalData, metric_significance
    from evaltrans_qt.engine.metaeval.statistics.metric_significance import perm_both
    _, data = ours
    systems, inputs = theirs
    gold, metrics = inputs["seg"]
    items = list(range(SMALL))
    small = MetaEvalData(data.human, data.systems, data.items[:SMALL], data.gold[:, items],
                         {m: data.metrics[m][:, items] for m in ("chrf", "bleu")},
                         data.sys_gold, data.sys_metrics, data.negated, data.convention)
    assert np.isnan(small.gold).any()                  # unrated cells are in play
    k = 8
    sig = metric_significance(small, "acc-eq", level="seg", grouping=grouping, samples=k,
                              seed=21)
    better, worse = sig.measures
    g = Grouped(small.gold, grouping)
    scored = np.isfinite(small.gold.ravel())
    mine: list[tuple[float, float]] = []
    p, delta, _ = perm_both(lambda v: g.acc_eq(v[scored], cells=True).value,
                            small.metrics[better].ravel(), small.metrics[worse].ravel(), k,
                            seed=21 + 0 * 2 + 1, draws=mine)
    assert sig.p[0, 1] == p                            # what metric_significance runs
    np.random.seed(21 + 0 * 2 + 1)
    their_p, their_delta, used, draws = mstats.PermutationSigDiff(
        _corr(systems, gold, metrics[worse], items), _corr(systems, gold, metrics[better], items),
        mstats.KendallWithTiesOpt, AVG[grouping], k, variant="acc23", sample_rate=1.0)
    assert used == k
    assert delta == pytest.approx(their_delta, abs=TOL)
    assert np.asarray(mine) == pytest.approx(np.asarray(draws), abs=1e-9)
    ties = sum(abs((c2 - c1) - their_delta) < 1e-9 for c2, c1 in draws)
    assert abs(p - their_p) <= ties / k
