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


def test_a_whole_campaign_agreement_equals_the_package(tmp_path, capsys):
    """create -> bundle -> three annotators score their bundles through the API (r = 2) ->
    collect -> agreement: alpha equals the krippendorff package on the matrix built from
    what the annotators wrote; adjudicate lists exactly the items whose spread exceeds a
    quarter of the 0..100 scale."""
    import random

    import evaltrans_qt.api as api
    from evaltrans_qt.engine.data.database import Database
    from evaltrans_qt.io.campaign_bundle import open_bundle

    quality = {"Alpha": 80.0, "Beta": 55.0, "Gamma": 30.0}
    rng = random.Random(4)
    db = Database()
    for i in range(10):
        src = db.add_source(f"Quelle {i}", doc="d", seg=str(i + 1))
        db.add_target(src, f"reference {i}", "ref-A", reference=True)
        for system in quality:
            db.add_target(src, f"{system.lower()} translation {i}", system)
    save_database(db, tmp_path / "db.etdb.xml")
    system_of = {f"{s.lower()} translation {i}": s for s in quality for i in range(10)}
    assert main(["campaign", "create", str(tmp_path / "db.etdb.xml"), "--protocol", "da",
                 "--annotators", "x,y,z", "--redundancy", "2", "--batch", "5", "--seed", "3",
                 "-o", str(tmp_path / "c.etcampaign.json")]) == 0
    assert main(["campaign", "bundle", str(tmp_path / "c.etcampaign.json"), "-o",
                 str(tmp_path / "bundles")]) == 0
    raw: list[tuple[str, tuple[str, str], float]] = []
    bundles = sorted((tmp_path / "bundles").glob("*.etdb.xml"))
    assert len(bundles) == 3
    for bundle in bundles:
        bdb, info = open_bundle(bundle)
        rows = ["seg\tsystem\tclass\tvalue\tjudge"]
        for it in api.bundle_items(bdb):
            v = round(min(100.0, max(0.0, quality[system_of[it.candidate]]
                                     + rng.gauss(0, 12))))
            rows.append(f"{it.n}\t{it.system}\t{info.classes[0]}\t{v}\t{info.annotator}")
            raw.append((info.annotator, (it.source, it.candidate), float(v)))
        tsv = bundle.with_suffix(".tsv")
        tsv.write_text("\n".join(rows) + "\n", encoding="utf-8")
        api.import_judgements(bundle, tsv)
    result = tmp_path / "result.etdb.xml"
    assert main(["campaign", "collect", str(tmp_path / "c.etcampaign.json"),
                 *map(str, bundles), "-o", str(result)]) == 0
    capsys.readouterr()
    rc, out, _ = _run(capsys, "campaign", "agreement", str(result), "--json")
    assert rc == 0
    d = json.loads(out)
    assert d["judge_names"] == ["x", "y", "z"]
    [da] = [c for c in d["classes"] if c["name"] == "da"]
    judges = ["x", "y", "z"]
    units = sorted({u for _, u, _ in raw})
    m = np.full((3, len(units)), np.nan)
    for j, u, v in raw:
        m[judges.index(j), units.index(u)] = v
    assert da["units"] == len(units) == 30                      # every candidate, twice
    assert da["judgements"] == len(raw) == 60
    assert da["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=m, level_of_measurement="interval"))
    rc, out, _ = _run(capsys, "campaign", "adjudicate", str(result), "--json")
    spread = {u: np.nanmax(m[:, k]) - np.nanmin(m[:, k]) for k, u in enumerate(units)}
    assert len(json.loads(out)["disagreements"]) == sum(s > 25 for s in spread.values()) > 0
