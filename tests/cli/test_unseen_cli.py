"""`evaltrans unseen`, `evaltrans segranks agreement` and the SegRanks measures through
`batch` (report) and `correlate`, on the hand-made database of tests/engine/unseen_db.py."""

from __future__ import annotations

import json

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.data.database import Score
from evaltrans_qt.io.etdb import save_database
from evaltrans_qt.io.report import read_report
from tests.engine.human.unseen_db import make_db


@pytest.fixture()
def db_path(tmp_path):
    db = make_db()
    for t, v in zip(db.sources[0].targets[1:], [4, 5, 3, 1]):
        t.scores.append(Score("adequacy", v, "j"))
    src = db.add_source("a b c")
    db.add_target(src, "r s t", "ref", reference=True)
    for s, text, v in [("A", "r s t", 5), ("B", "r s", 4), ("C", "x s t", 3), ("D", "x", 1)]:
        db.add_target(src, text, s).scores.append(Score("adequacy", v, "j"))
    p = tmp_path / "u.etdb.xml"
    save_database(db, p)
    return p


def run(*argv) -> int:
    return main([str(a) for a in argv])


def test_unseen_exact_json(db_path, capsys):
    before = db_path.read_bytes()
    assert run("unseen", db_path, "--system", "C", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    (r,) = out["results"]
    assert r["left_out"] and r["segments"] == 2 and r["hits"] == 1 and r["hit_rate"] == 0.5
    scores = {x["system"]: x for x in r["scores"]}
    assert (scores["D"]["wins"], scores["D"]["losses"], scores["D"]["ties"]) == (0, 5, 1)
    assert "overestimated" in out["warning"]
    assert db_path.read_bytes() == before


def test_unseen_leave_one_out_closest_table_3_5(db_path, capsys):
    assert run("unseen", db_path, "--leave-one-out", "--method", "closest", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in out["results"]] == ["A", "B", "C", "D"]
    assert out["outcomes_all"] == {"worse": 1, "equal": 2, "better": 3}
    assert [r["aed"] for r in out["results"]] == [0.5, 0.0, 0.5, 1.5]
    assert out["results"][0]["examples"][0]["closest"] == ["w"]


def test_unseen_text_output_and_errors(db_path, capsys):
    assert run("unseen", db_path, "--system", "D", "--method", "closest") == 0
    cap = capsys.readouterr()
    assert "hit rate 0.000" in cap.out and "AED 1.50" in cap.out
    assert "better 2 (66.7 %)" in cap.out and "WARNING" in cap.err
    assert run("unseen", db_path) == 2
    assert "--system" in capsys.readouterr().err
    assert run("unseen", db_path, "--system", "Z") == 2
    assert "'Z'" in capsys.readouterr().err


def test_segranks_agreement(db_path, capsys):
    assert run("segranks", "agreement", db_path, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["concordant"], out["discordant"]) == (10, 4)
    assert out["disagreement"][0]["system"] == "C" and out["disagreement"][0]["sentence"] == 1
    assert run("segranks", "agreement", db_path) == 0
    assert "Kendall tau 0.429" in capsys.readouterr().out


def test_measures_through_batch_report_and_correlate(db_path, tmp_path, capsys):
    out = tmp_path / "rep.xml"
    assert run("batch", "--database", db_path, "--all-systems", "--xml-mode", "--measures",
               "exactmatch,penalizeunknown,segranksbleu", "--output-file", out) == 0
    rep = read_report(tmp_path / "rep.A.xml")
    em = rep.systems["A"].scores["exactmatch"]
    # sentence 1: 3 wins 2 losses (by hand, tests/engine); sentence 2 has no segments
    assert em.value == pytest.approx(3 / 5)
    capsys.readouterr()
    assert run("correlate", db_path, "--measures", "exactmatch,penalizeunknown,segranksbleu",
               "--bootstrap", "0", "--json") == 0
    text = capsys.readouterr().out
    for name in ("exactmatch", "penalizeunknown", "segranksbleu"):
        assert name in text


def test_extrapolate_leave_one_system_out_and_chars(db_path, capsys):
    assert run("extrapolate", db_path, "--human", "adequacy", "--distance", "chars",
               "--leave-one-system-out", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    (rep,) = out["leave_one_out"]
    assert rep["distance"] == "chars" and rep["scope"] == "system"
    assert set(rep["per_system"]) == {"A", "B", "C", "D"}
    for row in rep["per_system"].values():
        assert {"n", "bias", "mean_abs_diff", "share_exact"} <= set(row)
