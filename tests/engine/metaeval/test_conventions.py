"""System-level conventions (engine/metaeval/conventions.py) in correlate_run, gather, the
API and ``evaltrans correlate``: what each one correlates, recomputed here from the run
and the human scores by hand; one default everywhere; every output names its convention;
``--measures`` gives exactly the named measures."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats as st

import evaltrans_qt as et
from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.human.resolve import human_scores
from evaltrans_qt.engine.measures.external import ExternalMetric, add_external, with_external
from evaltrans_qt.engine.metaeval import conventions
from evaltrans_qt.engine.metaeval.correlation import correlate_run
from evaltrans_qt.engine.metaeval.metrics_task import gather, metrics_table, overview
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.errors import OptionError
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.etdb.reader import demo_database_path

HUMAN = "adequacy"
EXT = "QE-like"


@pytest.fixture(scope="module")
def db():
    d = load_database(demo_database_path())
    rng = np.random.default_rng(3)
    ext = ExternalMetric(EXT, True)
    for i, src in enumerate(d.sources):
        for t in d.candidates(src):
            ext.segments.setdefault(t.system, {})[i] = float(rng.normal())
    # a sys file's scores: deliberately not the mean of the segment scores
    ext.systems = {s: 10.0 + k * k for k, s in enumerate(sorted(ext.segments))}
    add_external(d, ext)
    return d


@pytest.fixture(scope="module")
def run(db):
    return with_external(evaluate(db, EvalOptions(), ["bleu", "ter"]), db)


def _by_hand(db, run, name, convention, subset="all"):
    """(x, y) per system with a human score, as the module doc of conventions.py says."""
    hs = human_scores(db, HUMAN)
    meas = run.measure(name)
    sign = 1.0 if meas.higher_is_better else -1.0
    xs, ys = [], []
    for s, sr in run.systems.items():
        y = hs.column(s, sr.segments)
        ok = np.isfinite(y)
        if not ok.any():
            continue
        stats = np.asarray(sr.stats[name])
        if convention == "mtme":
            if name == EXT:
                x = db.external_metrics[EXT].systems[s]
            elif subset == "all":
                x = meas.score(stats.sum(axis=0)).value
            else:
                x = meas.score(stats[ok].sum(axis=0)).value
            ys.append(float(np.mean(y[ok])))
        else:
            x = meas.score(stats[ok].sum(axis=0)).value
            keys = hs.keys(s, sr.segments)
            w = np.array([hs.lengths.get(keys[r], 0) for r in np.flatnonzero(ok)], float)
            ys.append(float(np.average(y[ok], weights=w)))
        xs.append(sign * x)
    return np.array(xs), np.array(ys)


@pytest.mark.parametrize("convention,subset", [("mtme", "all"), ("mtme", "human"),
                                               ("thesis", "all")])
@pytest.mark.parametrize("name", ["bleu", "ter", EXT])
def test_each_convention_correlates_what_it_says(db, run, convention, subset, name):
    x, y = _by_hand(db, run, name, convention, subset)
    (c,) = correlate_run(db, run, HUMAN, measures=[name], level="system", n_boot=0,
                         convention=convention, subset=subset)
    assert c.convention == conventions.label(convention, subset)
    assert c.n == len(x) >= 3
    assert c.pearson == pytest.approx(st.pearsonr(x, y)[0], abs=1e-12)
    assert c.kendall_b == pytest.approx(st.kendalltau(x, y)[0], abs=1e-12)
    data = gather(db, run, HUMAN, measures=[name], convention=convention, subset=subset)
    assert data.convention == c.convention
    (row,) = metrics_table(data, ["pearson", "kendall"], level="sys")
    assert row.values["pearson"] == pytest.approx(c.pearson, abs=1e-12)
    assert row.to_dict()["convention"] == c.convention


def test_conventions_differ_and_mtme_is_the_default(db, run):
    default = correlate_run(db, run, HUMAN, level="system", n_boot=0)
    thesis = correlate_run(db, run, HUMAN, level="system", n_boot=0, convention="thesis")
    assert conventions.DEFAULT_CONVENTION == "mtme"
    assert {c.convention for c in default} == {"mtme"}
    assert {c.convention for c in thesis} == {"thesis"}
    assert any(abs(a.pearson - b.pearson) > 1e-3 for a, b in zip(default, thesis))
    assert gather(db, run, HUMAN).convention == "mtme"
    ov = overview(db, run, HUMAN, samples=20)
    assert ov.significance.convention == "mtme"
    assert ov.table[0].convention == "mtme"
    with pytest.raises(OptionError, match="--convention"):
        correlate_run(db, run, HUMAN, level="system", convention="wmt")
    with pytest.raises(OptionError, match="--subset"):
        gather(db, run, HUMAN, subset="some")


def test_bootstrap_intervals_follow_the_convention(db, run):
    (b,) = correlate_run(db, run, HUMAN, measures=["bleu"], level="system", n_boot=200)
    assert b.pearson_ci[0] <= b.pearson <= b.pearson_ci[1]
    # a sys file's number cannot be resampled: no interval rather than a wrong one
    (e,) = correlate_run(db, run, HUMAN, measures=[EXT], level="system", n_boot=200)
    assert all(math.isnan(v) for v in e.pearson_ci)
    (t,) = correlate_run(db, run, HUMAN, measures=[EXT], level="system", n_boot=200,
                         convention="thesis")
    assert t.pearson_ci[0] <= t.pearson <= t.pearson_ci[1]


def test_api_names_the_convention_and_agrees_with_the_engine(db, run):
    r = et.evaluate(db, ["bleu", "ter"])
    frame = et.correlate(r, HUMAN, level="system", samples=0)
    assert set(frame["convention"]) == {"mtme"}
    meta = et.meta_evaluate(r, HUMAN, stats=["pearson", "pdp"])
    assert set(meta["convention"]) == {"mtme"}
    bleu = meta.set_index("measure").loc["bleu"]
    assert bleu["pearson"] == pytest.approx(
        frame.set_index("measure").loc["bleu", "pearson"], abs=1e-12)
    assert bleu["pdp"] == pytest.approx(bleu["pearson"], abs=1e-9)     # one group
    thesis = et.meta_evaluate(r, HUMAN, stats=["pearson"], convention="thesis")
    assert set(thesis["convention"]) == {"thesis"}


def _cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def db_file(db, tmp_path):
    p = tmp_path / "demo-ext.etdb.xml"
    save_database(db, p)
    return p


def test_cli_measures_gives_exactly_the_named_ones(db_file, capsys):
    rc, out, err = _cli(capsys, "correlate", db_file, "--measures", EXT, "--human", HUMAN,
                        "--stats", "pearson,kendall", "--json")
    assert rc == 0, err
    rows = json.loads(out)
    assert {r["measure"] for r in rows} == {EXT}             # no built-in bleu row
    assert {r["convention"] for r in rows} == {"mtme"}
    rc, out, err = _cli(capsys, "correlate", db_file, "--measures", EXT, "--human", HUMAN,
                        "--level", "system", "--bootstrap", "0", "--json")
    assert rc == 0, err
    assert [r["measure"] for r in json.loads(out)] == [EXT]


def test_cli_prints_the_convention_and_the_same_numbers_as_the_engine(db, run, db_file,
                                                                      capsys):
    for convention in ("mtme", "thesis"):
        rc, out, err = _cli(capsys, "correlate", db_file, "--measures", f"bleu,ter,{EXT}",
                            "--human", HUMAN, "--stats", "pearson,kendall,pdp",
                            "--level", "sys", "--convention", convention, "--json")
        assert rc == 0, err
        got = {r["measure"]: r for r in json.loads(out)}
        data = gather(db, run, HUMAN, convention=convention)
        want = {r.measure: r for r in metrics_table(data, ["pearson", "kendall", "pdp"],
                                                    level="sys")}
        assert set(got) == set(want)
        for m, r in want.items():
            assert got[m]["convention"] == convention
            for s in ("pearson", "kendall", "pdp"):
                assert got[m][s] == pytest.approx(r.values[s], abs=1e-12)
        rc, out, _ = _cli(capsys, "correlate", db_file, "--measures", "bleu", "--human",
                          HUMAN, "--stats", "pearson", "--level", "sys",
                          "--convention", convention)
        assert f"convention {convention}" in out
        assert "convention: system level, " + (
            "mt-metrics-eval" if convention == "mtme" else "thesis") in out
    rc, out, _ = _cli(capsys, "correlate", db_file, "--measures", "bleu", "--human", HUMAN,
                      "--level", "system", "--bootstrap", "0", "--csv")
    assert "convention" in out.splitlines()[0] and ",mtme," in out.splitlines()[1]


def test_cli_task_preset(db, run, db_file, capsys):
    from evaltrans_qt.engine.metaeval.task_presets import task_table
    rc, out, err = _cli(capsys, "correlate", db_file, "--measures", f"bleu,ter,{EXT}",
                        "--human", HUMAN, "--task", "wmt24", "--json")
    assert rc == 0, err
    rows = json.loads(out)
    want = task_table(gather(db, run, HUMAN), "wmt24")
    assert [r["measure"] for r in rows] == [r.measure for r in want]     # best first
    for got, w in zip(rows, want):
        assert got["convention"] == "mtme" and got["task"] == "wmt24"
        assert got["average"] == pytest.approx(w.average, abs=1e-12)
        assert got["sys spa"] == pytest.approx(w.values["sys spa"], abs=1e-12)
        assert 0 <= got["average"] <= 1
    rc, out, _ = _cli(capsys, "correlate", db_file, "--measures", "bleu", "--human", HUMAN,
                      "--task", "wmt23")
    assert rc == 0 and "WMT23 metrics task" in out and "seg acc-eq by item" in out
    assert "convention: system level" in out
    with pytest.raises(SystemExit):
        _cli(capsys, "correlate", db_file, "--task", "wmt19")


def test_cli_between_metrics_names_the_convention(db_file, capsys):
    for convention in ("mtme", "thesis"):
        rc, out, err = _cli(capsys, "significance", db_file, "--between-metrics",
                            "--measures", f"bleu,{EXT}", "--human", HUMAN, "--samples", "50",
                            "--convention", convention, "--json")
        assert rc == 0, err
        res = json.loads(out)
        assert res["convention"] == convention and sorted(res["measures"]) == sorted(
            ["bleu", EXT])
    rc, out, _ = _cli(capsys, "significance", db_file, "--between-metrics", "--measures",
                      f"bleu,{EXT}", "--human", HUMAN, "--samples", "50")
    assert "convention mtme" in out


def test_cli_perm_pairs(db_file, capsys):
    rc, out, err = _cli(capsys, "significance", db_file, "--between-metrics", "--measures",
                        f"bleu,ter,{EXT}", "--human", HUMAN, "--statistic", "acc-eq",
                        "--level", "seg", "--group", "item", "--method", "perm-pairs",
                        "--samples", "40", "--json")
    assert rc == 0, err
    res = json.loads(out)
    p = np.array(res["p_values"], dtype=float)
    assert res["method"] == "perm-pairs" and p.shape == (3, 3)
    off = p[~np.eye(3, dtype=bool)]
    assert np.all((off >= 0) & (off <= 1))
    rc, _, err = _cli(capsys, "significance", db_file, "--between-metrics", "--human", HUMAN,
                      "--statistic", "pearson", "--method", "perm-pairs")
    assert rc == 2 and "acc-eq" in err


def test_cli_unweighted_needs_the_thesis_convention(db_file, capsys):
    rc, _, err = _cli(capsys, "correlate", db_file, "--measures", "bleu", "--human", HUMAN,
                      "--level", "system", "--bootstrap", "0", "--unweighted")
    assert rc == 2 and "--convention thesis" in err
    outs = []
    for extra in ([], ["--unweighted"]):
        rc, out, err = _cli(capsys, "correlate", db_file, "--measures", "bleu", "--human",
                            HUMAN, "--level", "system", "--bootstrap", "0", "--convention",
                            "thesis", "--json", *extra)
        assert rc == 0, err
        outs.append(json.loads(out)[0])
    assert outs[0]["convention"] == "thesis" and outs[1]["convention"] == "thesis (unweighted)"
    assert outs[0]["pearson"] != outs[1]["pearson"]


@pytest.mark.parametrize("argv,needle", [
    (["correlate", "--human", HUMAN, "--group", "item"], "--group"),
    (["correlate", "--human", HUMAN, "--stats", "pearson", "--kendall-variant", "c"],
     "--kendall-variant"),
    (["correlate", "--human", HUMAN, "--bootstrap", "0", "--seed", "4"], "--seed"),
    (["correlate", "--human", HUMAN, "--convention", "thesis", "--subset", "human"],
     "--subset"),
    (["correlate", "--human", HUMAN, "--measures", "wer", "--bleu-pad-rule", "both"],
     "--bleu-pad-rule"),
    (["significance", "--measure", "bleu", "--alpha", "0.1"], "--alpha"),
    (["significance", "--measure", "bleu", "--unweighted"], "--human"),
    (["significance", "--between-metrics", "--human", HUMAN, "--kendall-variant", "a"],
     "--statistic kendall"),
    (["combine", "--human", HUMAN, "--unweighted"], "--unweighted"),
    (["orange", "--measures", "wer", "--bleu-pad-rule", "both"], "--bleu-pad-rule"),
])
def test_cli_refuses_options_it_would_ignore(db_file, capsys, argv, needle):
    rc, _, err = _cli(capsys, argv[0], db_file, *argv[1:])
    assert rc == 2 and needle in err, err


def test_report_names_its_system_level_convention(db):
    """The EvalTrans report's <correlation> uses the thesis convention and says so."""
    from xml.etree import ElementTree as ET

    from evaltrans_qt.cli.batch import run_correlations
    from evaltrans_qt.io.report import build_report
    run = evaluate(db, EvalOptions(), ["bleu"])
    rows = run_correlations(db, run, 0)
    root = ET.fromstring(build_report(run, next(iter(run.systems)), correlation=rows))
    corr = root.find("correlation")
    assert corr is not None and corr.get("convention") == "thesis"
    levels = {(c.get("level"), c.get("convention")) for c in corr.findall("coefficients")}
    assert ("system", "thesis") in levels and ("sentence", None) in levels
