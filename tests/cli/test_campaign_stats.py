"""``evaltrans campaign agreement``, ``campaign plan`` and ``campaign adjudicate``
(cli/campaign_stats.py) through the real command line, in-process."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.campaign.adjudication import find_disagreements
from evaltrans_qt.engine.campaign.agreement import ADJUDICATED
from evaltrans_qt.io.etdb import demo_database_path, load_database, save_database

DEMO = str(demo_database_path())


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_agreement_json_alpha_equals_the_package(capsys):
    rc, out, _ = _run(capsys, "campaign", "agreement", DEMO, "--json")
    assert rc == 0
    d = json.loads(out)
    assert d["judge_names"] == ["anna", "ben", "eva"] and d["gold"] is None
    db = load_database(DEMO)
    fluency = next(c for c in d["classes"] if c["name"] == "fluency")
    units = [(si, ti) for si, s in enumerate(db.sources) for ti, _ in enumerate(s.targets)]
    judges = ["anna", "ben"]
    m = np.full((2, len(units)), np.nan)
    for u, (si, ti) in enumerate(units):
        for sc in db.sources[si].targets[ti].scores:
            if sc.cls == "fluency" and sc.judge in judges and not db.is_reference(
                    db.sources[si].targets[ti]):
                m[judges.index(sc.judge), u] = sc.value
    assert fluency["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=m, level_of_measurement="interval"))
    assert fluency["level"] == "interval" and fluency["pairs"][0]["n"] == fluency["units"]
    [spans] = d["spans"]
    assert spans["protocol"] == "mqm" and set(spans["average"]) >= {"characters", "overlap"}


def test_agreement_text_and_gold(capsys):
    rc, out, _ = _run(capsys, "campaign", "agreement", DEMO)
    assert rc == 0 and "judges: anna, ben, eva" in out and "fluency (interval): alpha" in out
    assert "anna ~ ben" in out and "mqm spans:" in out
    rc, out, _ = _run(capsys, "campaign", "agreement", DEMO, "--gold", "ben")
    assert rc == 0 and "anna vs gold ben" in out and "gold: ben" in out
    rc, _, err = _run(capsys, "campaign", "agreement", DEMO, "--gold", "nobody")
    assert rc == 2 and "gold judge 'nobody' judged nothing" in err


def test_plan_json_and_errors(capsys):
    rc, out, _ = _run(capsys, "campaign", "plan", DEMO, "--budget", "5", "--random", "20",
                      "--json")
    assert rc == 0
    d = json.loads(out)
    assert d["budget"] == 5 and d["to_annotate"] <= 5 and d["measures"] == ["chrf", "wer"]
    assert d["criterion"].startswith("MetricVar")
    variances = [s["variance"] for s in d["sources"]]
    assert d["human"] == "fluency" and [r["fraction"] for r in d["reproduction"]] == [
        0.25, 0.5, 0.75, 1.0]
    assert all(r["n_random"] == 20 for r in d["reproduction"])
    assert variances == sorted(variances, reverse=True)
    rc, out, _ = _run(capsys, "campaign", "plan", DEMO, "--budget", "25%")
    assert rc == 0 and "budget 20 of 80 candidates" in out and "Kendall" in out
    for argv, needle in ((["--budget", "lots"], "number of items"),
                         (["--budget", "5", "--random", "-1"], "--random -1"),
                         (["--budget", "5", "--human", "nope"], "no score class 'nope'"),
                         (["--budget", "5", "--measures", "nosuch"], "nosuch")):
        rc, _, err = _run(capsys, "campaign", "plan", DEMO, *argv)
        assert rc == 2 and needle in err, err


def test_adjudicate_lists_the_disagreements(capsys, tmp_path):
    rc, out, _ = _run(capsys, "campaign", "adjudicate", DEMO, "--json")
    assert rc == 0
    d = json.loads(out)
    want = find_disagreements(load_database(DEMO), 0.25)
    assert len(d["disagreements"]) == len(want) > 0
    assert [(x["source"], x["kind"], x["name"]) for x in d["disagreements"]] == [
        (w.item[0] + 1, w.kind, w.name) for w in want]
    first_score = next(x for x in d["disagreements"] if x["kind"] == "score")
    # a final judgement recorded with 'evaltrans judge' shows as adjudicated
    db = load_database(DEMO)
    p = tmp_path / "r.etdb.xml"
    save_database(db, p)
    assert main(["judge", str(p), "--source", str(first_score["source"]), "--system",
                 first_score["system"], "--class", first_score["name"], "--value", "3",
                 "--judge", ADJUDICATED]) == 0
    capsys.readouterr()
    rc, out, _ = _run(capsys, "campaign", "adjudicate", str(p))
    assert rc == 0 and f"({1} adjudicated)" in out
    assert any(line.startswith("* source") for line in out.splitlines())
    rc, _, err = _run(capsys, "campaign", "adjudicate", DEMO, "--threshold", "-1")
    assert rc == 2 and ">= 0" in err
