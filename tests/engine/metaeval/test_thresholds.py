"""What a metric difference means to humans (engine/metaeval/thresholds.py): Kocmi et al.
2024's published model, the same model fitted on a database's human scores, and where
they are shown (``evaltrans significance``, the API)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import evaltrans_qt as et
from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.metaeval.thresholds import (
    AgreementModel,
    agreement_matrix,
    choose_model,
    fit_model,
    pair_observations,
    published_key,
    published_model,
)
from evaltrans_qt.io.etdb.reader import demo_database_path


@pytest.mark.parametrize("metric,delta,accuracy", [
    # the paper's table of deltas per estimated accuracy (MT-Thresholds appendix,
    # main_thresholds.tex), on the 0-100 scale
    ("bleu", 1.06, 0.65), ("bleu", 2.34, 0.80), ("chrf", 1.00, 0.70), ("chrf", 3.05, 0.90),
    ("comet22", 0.26, 0.65), ("comet22", 1.53, 0.95), ("bleurt20", 0.66, 0.70)])
def test_published_model_reproduces_the_papers_table(metric, delta, accuracy):
    m = published_model(metric, [0.5], ours=True)
    assert m is not None
    assert float(m.probability(delta / 100)) == pytest.approx(accuracy, abs=0.005)


def test_names_scales_and_missing_fits():
    assert published_key("COMET-22-refA") == "comet22"
    assert published_key("chrF") == "chrf" and published_key("BLEURT-20") == "bleurt20"
    assert published_key("wer") is None and published_key("COMET-QE-refA") is None
    # an external metric in points (mt-metrics-eval BLEU files) is not scaled again
    points = published_model("BLEU-refA", [31.2, 29.8], ours=False)
    unit = published_model("COMET-22-refA", [0.84, 0.83], ours=False)
    assert points is not None and points.scale == 1.0
    assert unit is not None and unit.scale == 100.0
    assert published_model("wer", [0.3], ours=True) is None


def test_fit_recovers_the_model_it_was_drawn_from():
    rng = np.random.default_rng(5)
    truth = AgreementModel(0.95, 1.5, 1.0, "x")
    delta = rng.uniform(0, 4, 4000)
    agree = (rng.random(4000) < truth.probability(delta)).astype(float)
    m = fit_model(delta, agree)
    assert m is not None and m.source == "fit" and m.pairs == 4000
    assert m.a == pytest.approx(0.95, abs=0.03) and m.b == pytest.approx(1.5, abs=0.3)
    assert fit_model(delta[:2], agree[:2]) is None


def test_pair_observations_and_choice():
    metric = {"a": 0.9, "b": 0.7, "c": 0.7, "d": 0.1}
    human = {"a": 3.0, "b": 2.0, "c": 4.0, "d": 4.0}
    x, y = pair_observations(metric, human)
    # pairs with different human scores: ab ac ad bc bd; cd tie on the human side
    assert x == pytest.approx([0.2, 0.2, 0.8, 0.0, 0.6])
    assert list(y) == [1.0, 0.0, 0.0, 0.5, 0.0]
    x2, y2 = pair_observations({k: -v for k, v in metric.items()}, human, higher_is_better=False)
    assert list(y2) == list(y)
    assert choose_model("bleu", metric, human, ours=True).source == "published:bleu"
    assert choose_model("wer", metric, human, ours=True, human_name="mqm").source == "fit:mqm"
    assert choose_model("bleu", metric, human, ours=True, source="fit").source == "fit"
    assert choose_model("wer", metric, None, ours=True) is None
    assert choose_model("bleu", metric, human, ours=True, source="none") is None
    p = agreement_matrix([0.3, math.nan, 0.2], choose_model("bleu", metric, None, ours=True))
    assert math.isnan(p[0, 0]) and math.isnan(p[0, 1]) and p[0, 2] == p[2, 0] > 0.85


def _cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_significance_prints_and_returns_the_agreement(capsys):
    db = demo_database_path()
    rc, out, _ = _cli(capsys, "significance", db, "--measure", "bleu", "--samples", "20",
                      "--json")
    res = json.loads(out)
    assert rc == 0 and res["agreement"]["source"] == "published:bleu"
    i, j = 0, 1
    d = 100 * abs(res["scores"][i] - res["scores"][j])
    assert res["agreement"]["matrix"][i][j] == pytest.approx(
        0.8833333333333225 / (1 + math.exp(-0.9663926931178954 * d)), abs=1e-9)
    rc, out, _ = _cli(capsys, "significance", db, "--measure", "wer", "--samples", "20",
                      "--agreement", "fit")
    assert rc == 0 and "fitted on this database's human scores" in out
    rc, out, _ = _cli(capsys, "significance", db, "--measure", "wer", "--samples", "20",
                      "--agreement", "fit", "--baseline", "--json")
    rows = json.loads(out)["systems"]
    assert rows[0].get("p_humans_agree") is None and 0 <= rows[1]["p_humans_agree"] <= 1
    rc, out, _ = _cli(capsys, "significance", db, "--measure", "wer", "--samples", "20",
                      "--agreement", "none")
    assert rc == 0 and "humans agree" not in out
    rc, _, err = _cli(capsys, "significance", db, "--measure", "wer", "--agreement",
                      "published")
    assert rc != 0 and "published no fit for 'wer'" in err
    rc, _, err = _cli(capsys, "significance", db, "--human", "fluency", "--agreement", "fit")
    assert rc == 2 and "--agreement" in err


def test_api_significance_carries_the_agreement():
    from evaltrans_qt.io.store import open_database
    run = et.evaluate(open_database(demo_database_path()).database, ["bleu", "wer"])
    frame = et.significance(run, "bleu", samples=20)
    agree = frame.attrs["agreement"]
    assert agree.attrs["model"]["source"] == "published:bleu"
    assert list(agree.index) == list(frame.index) and agree.isna().values.diagonal().all()
    fit = et.significance(run, "wer", samples=20).attrs["agreement"]
    assert fit.attrs["model"]["source"].startswith("fit:")
    assert et.significance(run, "wer", samples=20, agreement="none").attrs["agreement"] is None
