"""``evaltrans import mqm`` / ``export mqm`` / ``spans`` and the MQM/ESA columns of ``human``
and ``correlate`` (cli/spans.py, io/mqm_tsv.py, io/span_store.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io import store
from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.io.journal import journal_path

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
TSV = HEADER + (
    "sysA\td\t1\t1\tr1\tein Haus\ta <v>hose</v>\tFluency/Spelling\tMinor\n"
    "sysA\td\t1\t1\tr2\tein Haus\ta hose\tNo-error\tno-error\n"
    "sysB\td\t1\t1\tr1\tein Haus\ta house\tNo-error\tno-error\n"
    "sysA\td\t2\t2\tr1\tzwei Häuser\ttwo <v>houses</v>\tAccuracy/Mistranslation\tMajor\n"
    "sysB\td\t2\t2\tr1\tzwei Häuser\t<v>zwei Häuser</v>\tNon-translation!\tMajor\n")


@pytest.fixture
def demo(demo):
    """The demo without its error spans and ESA class: these tests start from none."""
    from evaltrans_qt.engine.data.schemes import remove_class
    from evaltrans_qt.io.etdb import save_database
    db = load_database(demo)
    for _s, t in db.iter_candidates():
        t.span_annotations.clear()
    remove_class(db, "esa", force=True)
    save_database(db, demo)
    return demo


@pytest.fixture
def mq(tmp_path) -> Path:
    p = tmp_path / "m.tsv"
    p.write_text(TSV, encoding="utf-8")
    return p


def test_import_export_round_trip(mq, tmp_path, capsys):
    db = tmp_path / "m.etdb.xml"
    assert main(["import", "mqm", str(mq), "--lp", "de-en", "-o", str(db)]) == 0
    assert "5 rows (3 errors), 2 sources" in capsys.readouterr().err
    out = tmp_path / "o.tsv"
    assert main(["export", "mqm", str(db), "-o", str(out)]) == 0
    assert out.read_bytes() == mq.read_bytes()
    assert main(["human", str(db), "--json"]) == 0
    spans = json.loads(capsys.readouterr().out)["spans"]
    # sysA: seg 1 (r1 1, r2 0) -> -0.5, seg 2 -> -5: mean -2.75; sysB: 0 and -25
    assert spans["sysA"]["mqm"] == pytest.approx(-2.75)
    assert spans["sysB"]["mqm"] == pytest.approx(-12.5)
    assert spans["sysA"]["categories"] == {"Accuracy": 1, "Accuracy/Mistranslation": 1,
                                           "Fluency": 1, "Fluency/Spelling": 1}
    assert main(["human", str(db)]) == 0
    text = capsys.readouterr().out
    assert "MQM" in text and "-2.750" in text


def test_strict_import_stops_at_the_row_and_lenient_lists_it(mq, tmp_path, capsys):
    mq.write_text(TSV + "sysC\td\t1\t1\tr1\tein Haus\ta <v>house\tOther\tMajor\n"
                  "sysC\td\t2\t2\tr1\tzwei Häuser\ttwo houses\tOther\tBig\n", encoding="utf-8")
    db = tmp_path / "m.etdb.xml"
    assert main(["import", "mqm", str(mq), "-o", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"{mq}:7: row 7: target: a <v> without </v>" in err
    assert not db.exists()
    assert main(["import", "mqm", str(mq), "--lenient", "-o", str(db)]) == 0
    err = capsys.readouterr().err
    assert f"{mq}:7: skipped" in err and f"{mq}:8: skipped: unknown severity" in err
    assert "2 malformed rows skipped" in err and db.exists()


def test_spans_add_list_remove_through_the_journal(demo, capsys):
    base = ["spans", str(demo), "--source", "2", "--system", "WebTrans", "--judge", "carla"]
    text = next(t for t in load_database(demo).sources[1].targets if t.system == "WebTrans").text
    assert main([*base, "--add", "0:3", "--severity", "major", "--category",
                 "Accuracy/Mistranslation", "--seconds", "4"]) == 0
    assert main([*base, "--add", "2:2", "--severity", "minor", "--category",
                 "Accuracy/Omission", "--side", "source"]) == 0
    assert not journal_path(demo).exists() and not store.lock_path(demo).exists()
    capsys.readouterr()
    assert main([*base, "--list", "--json"]) == 0
    (ann,) = json.loads(capsys.readouterr().out)["annotations"]
    assert ann["judge"] == "carla"
    assert [(e["n"], e["severity"], e["side"], e["start"], e["end"]) for e in ann["errors"]] \
        == [(1, "Major", "target", 0, 3), (2, "Minor", "source", 2, 2)]
    assert ann["errors"][0]["text"] == text[:3] and ann["errors"][0]["seconds"] == 4
    assert main([*base, "--remove", "1"]) == 0
    t = next(t for t in load_database(demo).sources[1].targets if t.system == "WebTrans")
    (a,) = t.span_annotations
    assert [e.category for e in a.errors] == ["Accuracy/Omission"]


def test_spans_protocol_keeps_mqm_and_esa_apart(demo, capsys):
    base = ["spans", str(demo), "--source", "2", "--system", "WebTrans", "--judge", "carla"]
    assert main([*base, "--add", "0:3", "--severity", "major"]) == 0
    assert main([*base, "--add", "4:6", "--severity", "minor", "--protocol", "esa"]) == 0
    assert main([*base, "--remove", "1", "--protocol", "esa"]) == 0     # the ESA one
    assert main([*base, "--add", "0:3", "--severity", "major", "--protocol", "esa"]) == 0
    capsys.readouterr()
    assert main([*base, "--list"]) == 0
    out = capsys.readouterr().out
    assert "judge carla (MQM): 1 error" in out and "judge carla (ESA): 1 error" in out
    assert main([*base, "--list", "--json", "--protocol", "esa"]) == 0
    (ann,) = json.loads(capsys.readouterr().out)["annotations"]
    assert ann["protocol"] == "esa" and ann["errors"][0]["start"] == 0
    assert main(["human", str(demo), "--json"]) == 0
    web = json.loads(capsys.readouterr().out)["spans"]["WebTrans"]
    assert web["mqm"] == -5.0 and web["mqm_segments"] == 1 and web["esa_segments"] == 1
    assert web["esa_severities"] == {"Major": 1}
    before = demo.read_bytes()
    assert main([*base, "--add", "0:3", "--severity", "critical", "--protocol", "esa"]) == 2
    assert "--protocol esa marks minor or major errors" in capsys.readouterr().err
    assert main(["spans", str(demo), "--export-json", "x.jsonl", "--protocol", "esa"]) == 2
    assert "--protocol is not used with --export-json" in capsys.readouterr().err
    assert demo.read_bytes() == before


@pytest.mark.parametrize("args,needle", [
    (["--add", "0:999", "--severity", "major"], "outside the target"),
    (["--add", "0:3", "--severity", "huge"], "unknown severity"),
    (["--remove", "3"], "there is no error 3"),
    (["--add", "0:3"], "needs --severity"),
    (["--list", "--add", "0:3", "--severity", "major"], "exactly one"),
])
def test_bad_input_exits_2_and_writes_nothing(demo, capsys, args, needle):
    before = demo.read_bytes()
    rc = main(["spans", str(demo), "--source", "2", "--system", "WebTrans", "--judge", "c",
               *args])
    assert rc == 2 and needle in capsys.readouterr().err
    assert demo.read_bytes() == before and not journal_path(demo).exists()


def test_import_json_prefill_and_correlate_with_mqm(demo, tmp_path, capsys):
    db = load_database(demo)
    systems = db.systems()
    lines = []
    for i, src in enumerate(db.sources):
        for t in db.candidates(src):
            n = (systems.index(t.system) + i) % 3
            lines.append(json.dumps({"system": t.system, "line": i + 1, "spans": [
                {"start": 0, "end": 1, "severity": "major"}] * n}))
    jl = tmp_path / "pre.jsonl"
    jl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["spans", str(demo), "--import-json", str(jl), "--judge", "xcomet"]) == 0
    got = load_database(demo)
    anns = [a for _, t in got.iter_candidates() for a in t.span_annotations]
    assert len(anns) == len(lines) and {a.judge for a in anns} == {"xcomet"}
    assert {a.origin for a in anns} == {"machine"}          # no "origin" key: pre-fill
    out = tmp_path / "back.jsonl"
    assert main(["spans", str(demo), "--export-json", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(lines)
    # a judge corrects the machine's spans of one translation: the statistics say so
    first = next(t for t in got.sources[0].targets if t.system == systems[1])
    assert main(["spans", str(demo), "--source", "1", "--system", systems[1], "--judge",
                 "carla", "--no-error"]) == 0
    capsys.readouterr()
    assert main(["spans", str(demo), "--compare", "xcomet", "--judge", "carla", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    n = len(next(a for a in first.span_annotations if a.judge == "xcomet").errors)
    assert st["candidates"] == 1 and st["removed"] == n and st["kept"] == 0
    # the same, but carla rejected the machine's spans explicitly: told apart
    machine = next(a for a in first.span_annotations if a.judge == "xcomet").errors
    rej = tmp_path / "rej.jsonl"
    rej.write_text(json.dumps({"system": systems[1], "line": 1, "judge": "carla",
                               "origin": "human", "spans": [],
                               "rejected": [{"machine": "xcomet", "start": e.start,
                                             "end": e.end, "severity": e.severity,
                                             "category": e.category} for e in machine]})
                   + "\n", encoding="utf-8")
    assert n > 0 and main(["spans", str(demo), "--import-json", str(rej)]) == 0
    capsys.readouterr()
    assert main(["spans", str(demo), "--compare", "xcomet", "--judge", "carla", "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert (st["rejected"], st["removed"], st["rejected_share"]) == (n, 0, 1.0)
    assert main(["spans", str(demo), "--compare", "xcomet", "--judge", "carla"]) == 0
    assert f"rejected {n}, removed (left alone) 0" in capsys.readouterr().out
    assert main(["spans", str(demo), "--compare", "nobody"]) == 2
    capsys.readouterr()
    # the machine's spans are no judgement: the human MQM column is carla's one candidate
    assert main(["human", str(demo), "--json"]) == 0
    spans = json.loads(capsys.readouterr().out)["spans"]
    assert sum(r["mqm_segments"] for r in spans.values()) == 1
    assert spans[systems[1]]["mqm"] == 0.0                  # carla found no error
    marked: dict[str, list[float]] = {}               # Major weighs 5 (score_mqm.py)
    for i, src in enumerate(got.sources):
        for t in got.candidates(src):
            marked.setdefault(t.system, []).append(-5.0 * ((systems.index(t.system) + i) % 3))
    per = {s: sum(v) / len(v) for s, v in marked.items()}
    assert {s: r["mqm_machine"]["xcomet"] for s, r in spans.items()} == pytest.approx(per)


def test_a_closed_typology_refuses_other_categories(demo, tmp_path, capsys):
    typ = tmp_path / "t.json"
    typ.write_text(json.dumps({"name": "mine", "closed": True,
                               "categories": ["Accuracy/Mistranslation", "Fluency"],
                               "keys": {"Fluency": "f"}}), encoding="utf-8")
    assert main(["spans", str(demo), "--typology", str(typ)]) == 0
    from evaltrans_qt.io.etdb.spans import database_typology
    t = database_typology(load_database(demo))
    assert t is not None and t.closed and t.key_of("Fluency") == "f"
    base = ["spans", str(demo), "--source", "1", "--system", "WebTrans", "--judge", "c",
            "--add", "0:3", "--severity", "minor"]
    before = demo.read_bytes()
    assert main([*base, "--category", "Style/Awkward"]) == 2
    assert "not in the closed typology 'mine'" in capsys.readouterr().err
    assert demo.read_bytes() == before
    assert main([*base, "--category", "Fluency"]) == 0
    bad = tmp_path / "b.json"
    bad.write_text('{"categories": "Fluency"}', encoding="utf-8")
    assert main(["spans", str(demo), "--typology", str(bad)]) == 2
    assert "categories" in capsys.readouterr().err


def test_spans_refuse_while_another_program_holds_the_file(demo, capsys):
    before = demo.read_bytes()
    lock = store.acquire_lock(demo, "evaltrans-qt")
    try:
        assert main(["spans", str(demo), "--source", "1", "--system", "WebTrans", "--judge",
                     "c", "--add", "0:3", "--severity", "minor"]) == 2
        assert "no span written" in capsys.readouterr().err
    finally:
        store.release_lock(lock)
    assert demo.read_bytes() == before and not journal_path(demo).exists()


def test_suggest_prefills_spans_from_ter(demo, capsys):
    assert main(["spans", str(demo), "--suggest", "ter", "--system", "WebTrans"]) == 0
    err = capsys.readouterr().err
    assert "as machine 'ter'" in err
    db = load_database(demo)
    anns = [(t.system, a) for _, t in db.iter_candidates() for a in t.span_annotations]
    assert {s for s, _ in anns} == {"WebTrans"} and {a.judge for _, a in anns} == {"ter"}
    assert {a.origin for _, a in anns} == {"machine"}        # suggestions, not a judge
    n = sum(1 for s in db.sources if db.references(s)
            for t in db.candidates(s) if t.system == "WebTrans")
    assert len(anns) == n > 0                                  # one per translation
    assert any(a.errors for _, a in anns)
    assert main(["spans", str(demo), "--suggest", "ter", "--system", "Nope"]) == 2


def test_esa_scores_from_the_command_line(demo, capsys):
    assert main(["classes", str(demo), "--add-template", "esa"]) == 0
    for k, (system, v) in enumerate([("WebTrans", 80), ("RuleMT", 40), ("WebTrans", 60)]):
        assert main(["judge", str(demo), "--source", str(k + 1), "--system", system,
                     "--class", "esa", "--value", str(v), "--judge", "anna"]) == 0
    assert main(["judge", str(demo), "--source", "1", "--system", "WebTrans", "--class", "esa",
                 "--value", "101"]) == 2                           # outside 0..100
    capsys.readouterr()
    assert main(["human", str(demo), "--json"]) == 0
    spans = json.loads(capsys.readouterr().out)["spans"]
    assert spans["WebTrans"]["esa"] == 70.0 and spans["RuleMT"]["esa"] == 40.0
    assert spans["PhraseBase"]["esa"] is None
