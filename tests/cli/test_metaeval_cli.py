"""evaltrans correlate / significance / combine (cli/metaeval.py)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
import scipy.stats as st

from evaltrans_qt.cli.main import main
from evaltrans_qt.io.etdb import load_database


def _run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_correlate_json_fields_and_values_match_scipy(demo, capsys):
    rc, out, _ = _run(capsys, "correlate", demo, "--measures", "wer,bleu", "--human", "adequacy",
                      "--bootstrap", "50", "--json")
    assert rc == 0
    rows = json.loads(out)
    assert {(r["measure"], r["level"]) for r in rows} == {
        ("wer", "sentence"), ("bleu", "sentence"), ("wer", "system"), ("bleu", "system")}
    for r in rows:
        for key in ("measure", "human", "level", "pearson", "spearman", "kendall",
                    "pearson_ci", "spearman_ci", "kendall_ci", "pearson_fisher_ci"):
            assert key in r
        assert r["human"] == "adequacy"
    wer = next(r for r in rows if r["measure"] == "wer" and r["level"] == "sentence")
    assert wer["negated"] is True
    # independent recomputation: evaluate, collect adequacy means per candidate, scipy
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    db = load_database(demo)
    run = evaluate(db, EvalOptions(), ["wer"])
    xs, ys = [], []
    for sysname, sr in run.systems.items():
        vals = run.sentence_column(sysname, "wer")
        for row, (si, ti) in enumerate(zip(sr.segments, sr.target_indices)):
            adeq = [s.value for s in db.sources[si].targets[ti].scores if s.cls == "adequacy"]
            if adeq:
                xs.append(-vals[row])
                ys.append(np.mean(adeq))
    assert wer["n"] == len(xs)
    assert wer["pearson"] == pytest.approx(st.pearsonr(xs, ys)[0], abs=1e-12)
    assert wer["spearman"] == pytest.approx(st.spearmanr(xs, ys)[0], abs=1e-12)
    assert wer["kendall_b"] == pytest.approx(st.kendalltau(xs, ys)[0], abs=1e-12)


def test_correlate_table_and_csv(demo, capsys):
    rc, out, _ = _run(capsys, "correlate", demo, "--measures", "per", "--level", "sentence",
                      "--human", "adequacy+fluency", "--normalize-evaluators", "--bootstrap", "20")
    assert rc == 0
    assert "adequacy+fluency" in out and "tau-bar" in out and "per*" in out
    rc, out, _ = _run(capsys, "correlate", demo, "--measures", "per", "--level", "system",
                      "--bootstrap", "0", "--csv", "--tokenization", "none", "--case", "ignore")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["human"] for r in rows} == {"fluency", "adequacy", "sser", "esa"}   # the demo's classes
    assert all(r["level"] == "system" for r in rows)


def test_correlate_bad_input_exit_2(demo, capsys):
    rc, _, err = _run(capsys, "correlate", demo, "--human", "style")
    assert rc == 2 and "style" in err
    rc, _, err = _run(capsys, "correlate", demo, "--measures", "nosuch")
    assert rc == 2


def test_significance_matrix(demo, capsys):
    rc, out, _ = _run(capsys, "significance", demo, "--measure", "bleu", "--samples", "200", "--json")
    res = json.loads(out)
    p = np.array(res["p_values"])
    assert rc == 0 and p.shape == (4, 4) and np.allclose(p, p.T) and np.all(np.diag(p) == 1)
    rc, out, _ = _run(capsys, "significance", demo, "--human", "fluency", "--method",
                      "randomization", "--samples", "200")
    assert rc == 0 and "p-values" in out


def test_combine(demo, capsys):
    rc, out, _ = _run(capsys, "combine", demo, "--measures", "wer,per", "--human", "adequacy",
                      "--folds", "4", "--json")
    d = json.loads(out)
    assert rc == 0 and len(d["weights"]) == 2 and sum(d["weights"]) == pytest.approx(1)


def test_correlate_extrapolate_option_adds_estimated_candidates(demo, capsys):
    base = ["correlate", demo, "--measures", "wer", "--human", "adequacy", "--level", "sentence",
            "--bootstrap", "0", "--json"]
    rc, out, _ = _run(capsys, *base)
    n_plain = json.loads(out)[0]["n"]
    rc, out, err = _run(capsys, *base, "--extrapolate")
    assert rc == 0 and "WARNING" in err
    assert json.loads(out)[0]["n"] > n_plain
