"""``evaltrans judge`` and ``evaltrans import judgements``: human judgements without the
application, through the journal and the lock (``io/judgements.py``, docs/journal.md)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io import judgements, store
from evaltrans_qt.io.journal import Journal, journal_path
from evaltrans_qt.io.store import open_database


def _score(path: Path, source: int, system: str, cls: str, judge: str | None):
    """(value, time, seconds attribute) of ``judge``'s score, read from the file alone."""
    from evaltrans_qt.io.etdb import load_database
    db = load_database(path)
    t = next(t for t in db.sources[source - 1].targets if t.system == system)
    s = next((s for s in t.scores if s.cls == cls and s.judge == judge), None)
    return None if s is None else (s.value, s.time, s.extra_attrs.get("seconds"))


def test_judge_sets_and_removes_a_score_in_the_file(demo, capsys):
    argv = ["judge", str(demo), "--source", "3", "--system", "RuleMT", "--class", "fluency",
            "--judge", "carla"]
    assert _score(demo, 3, "RuleMT", "fluency", "carla") is None
    assert main([*argv, "--value", "4", "--seconds", "12.34", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["line"] == 3 and out["value"] == 4.0 and out["seconds"] == 12.3
    value, when, seconds = _score(demo, 3, "RuleMT", "fluency", "carla")
    assert value == 4.0 and seconds == "12.3" and when == out["time"] and "T" in when
    assert not journal_path(demo).exists()                 # folded into the file
    assert not store.lock_path(demo).exists()              # the lock is released
    assert main([*argv, "--value", "2"]) == 0             # a second judgement replaces it
    assert _score(demo, 3, "RuleMT", "fluency", "carla")[0] == 2.0
    assert main([*argv, "--remove"]) == 0
    assert _score(demo, 3, "RuleMT", "fluency", "carla") is None
    # other judges' scores of the same candidate are untouched
    assert _score(demo, 3, "RuleMT", "fluency", "anna") is not None


@pytest.mark.parametrize("extra, message", [
    (["--system", "Nope", "--class", "fluency", "--value", "4"], "unknown system 'Nope'"),
    (["--system", "RuleMT", "--class", "fluency", "--value", "7"], "not one of its levels"),
    (["--system", "RuleMT", "--class", "fluency", "--value", "0"], "below its first valid"),
    (["--system", "RuleMT", "--class", "flu", "--value", "3"], "unknown class 'flu'"),
    (["--system", "RuleMT", "--class", "isReference", "--value", "1"], "evaltrans reference"),
    (["--system", "RuleMT", "--class", "fluency"], "give --value V"),
    (["--system", "RuleMT", "--class", "fluency", "--value", "3", "--remove"], "not both"),
    (["--system", "RuleMT", "--class", "fluency", "--remove", "--judge", "zed"],
     "no score of class 'fluency' by judge 'zed'"),
])
def test_bad_judgements_are_refused_and_nothing_is_written(demo, capsys, extra, message):
    before = demo.read_bytes()
    assert main(["judge", str(demo), "--source", "3", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert demo.read_bytes() == before and not journal_path(demo).exists()
    assert not store.lock_path(demo).exists()


def test_source_out_of_range(demo, capsys):
    assert main(["judge", str(demo), "--source", "21", "--system", "RuleMT", "--class",
                 "fluency", "--value", "3"]) == 2
    assert "source 21 does not exist (the database has 20 sources" in capsys.readouterr().err


def test_refused_while_the_application_holds_the_file(demo, capsys):
    """Another live process holds the lock (as evaltrans-qt does while the file is open):
    refused, nothing written, its lock left alone."""
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from evaltrans_qt.io.store import acquire_lock
            acquire_lock({str(demo)!r})
            print("locked", flush=True)
            sys.stdin.read()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = demo.read_bytes()
        for argv in (["judge", str(demo), "--source", "1", "--system", "RuleMT", "--class",
                      "fluency", "--value", "3"],):
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert "evaltrans-qt" in err and "no judgement written" in err
        tsv = demo.with_name("j.tsv")
        tsv.write_text("system\tline\tclass\tvalue\nRuleMT\t1\tfluency\t3\n", encoding="utf-8")
        assert main(["import", "judgements", str(tsv), "--database", str(demo)]) == 2
        assert "no judgement written" in capsys.readouterr().err
        assert demo.read_bytes() == before and not journal_path(demo).exists()
        assert store.lock_holder(demo) is not None            # still theirs
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_crash_after_the_journal_loses_nothing(demo, monkeypatch, capsys):
    """The process dies between the journal entry and the file write: the file is as
    before, and the next reader (application or command) includes the judgement."""
    before = demo.read_bytes()

    def crash(*args, **kwargs):
        raise SystemExit("killed")

    monkeypatch.setattr(judgements, "write_database", crash)
    with pytest.raises(SystemExit):
        main(["judge", str(demo), "--source", "2", "--system", "WebTrans", "--class",
              "adequacy", "--value", "5", "--judge", "dora"])
    monkeypatch.undo()
    assert demo.read_bytes() == before
    entries = Journal(journal_path(demo)).entries()
    assert len(entries) == 1 and entries[0].judge == "dora" and entries[0].value == 5.0
    db = open_database(demo).database
    t = next(t for t in db.sources[1].targets if t.system == "WebTrans")
    assert any(s.judge == "dora" and s.value == 5.0 for s in t.scores)
    # the next command folds it into the file
    assert main(["judge", str(demo), "--source", "2", "--system", "WebTrans", "--class",
                 "fluency", "--value", "4", "--judge", "dora"]) == 0
    assert _score(demo, 2, "WebTrans", "adequacy", "dora")[0] == 5.0
    assert _score(demo, 2, "WebTrans", "fluency", "dora")[0] == 4.0
    assert not journal_path(demo).exists()


# --------------------------------------------------------------------------- import
def test_import_tsv_csv_jsonl(demo, tmp_path, capsys):
    tsv = tmp_path / "a.tsv"
    tsv.write_text("system\tdoc\tseg\tclass\tvalue\tjudge\ttime\tseconds\n"
                   "RuleMT\tdemo\t1\tfluency\t2\tcrowd-7\t2026-01-02T03:04:05Z\t9\n"
                   "WebTrans\tdemo\t20\tadequacy\t5\tcrowd-7\t\t\n", encoding="utf-8")
    csv_ = tmp_path / "b.csv"
    csv_.write_text('system,line,class,value,judge\n"RuleMT",4,sser,7.0,"x, y"\n',
                    encoding="utf-8")
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"system": "PhraseBase", "seg": "5", "doc": "demo", "class": "fluency",'
                     ' "value": 3, "judge": "j"}\n\n', encoding="utf-8")
    assert main(["import", "judgements", str(tsv), "--database", str(demo), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["imported"] == 2 and out["judgements"][1]["line"] == 20
    assert _score(demo, 1, "RuleMT", "fluency", "crowd-7") == (2.0, "2026-01-02T03:04:05Z",
                                                               "9.0")
    assert _score(demo, 20, "WebTrans", "adequacy", "crowd-7")[0] == 5.0
    assert main(["import", "judgements", str(csv_), "--database", str(demo)]) == 0
    assert _score(demo, 4, "RuleMT", "sser", "x, y")[0] == 7.0
    assert main(["import", "judgements", str(jsonl), "--database", str(demo)]) == 0
    assert _score(demo, 5, "PhraseBase", "fluency", "j")[0] == 3.0
    assert "1 judgement imported" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    ("system\tseg\tclass\tvalue\nRuleMT\t1\tfluency\t3\nNope\t2\tfluency\t3\n",
     "j.tsv:3: unknown system 'Nope'"),
    ("system\tseg\tclass\tvalue\nRuleMT\t99\tfluency\t3\n", "j.tsv:2: seg '99' is not a source"),
    ("system\tline\tclass\tvalue\nRuleMT\t1\tfluency\t3\nRuleMT\t2\tbeauty\t3\n",
     "j.tsv:3: unknown class 'beauty'"),
    ("system\tline\tclass\tvalue\nRuleMT\t1\tfluency\t9\n", "j.tsv:2: score 9"),
    ("system\tline\tclass\tvalue\nRuleMT\t1\tfluency\tgood\n", "j.tsv:2: "),
    ("system\tline\tclass\tvalue\tscore\nRuleMT\t1\tfluency\t3\t3\n",
     "j.tsv:2: unknown column(s) score"),
    ("system\tline\tclass\tvalue\nRuleMT\t1\tfluency\n", "j.tsv:2: 3 columns, the header has 4"),
    ("system\tline\tclass\nRuleMT\t1\tfluency\n", "j.tsv:2: no value"),
    ("system\tline\tclass\tvalue\nRuleMT\t1\tfluency\t3\nRuleMT\t1\tfluency\t4\n",
     "j.tsv:3: the same candidate, class and judge as line 2"),
    ("system\tclass\tvalue\nRuleMT\tfluency\t4\n", "j.tsv:2: no source given"),
    ("system\tline\tseg\tclass\tvalue\nRuleMT\t1\t1\tfluency\t4\n", "not both"),
    ("system\tline\tclass\tvalue\n", "no judgements in the file"),
])
def test_import_errors_name_the_row_and_write_nothing(demo, tmp_path, capsys, content,
                                                      message):
    before = demo.read_bytes()
    f = tmp_path / "j.tsv"
    f.write_text(content, encoding="utf-8")
    assert main(["import", "judgements", str(f), "--database", str(demo)]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert demo.read_bytes() == before and not journal_path(demo).exists()


def test_import_other_format_errors(demo, tmp_path, capsys):
    bad = tmp_path / "j.jsonl"
    bad.write_text('{"system": "RuleMT", "line": 1, "class": "fluency", "value": 3}\n[1]\n',
                   encoding="utf-8")
    assert main(["import", "judgements", str(bad), "--database", str(demo)]) == 2
    assert "j.jsonl:2: expected one JSON object per line" in capsys.readouterr().err
    other = tmp_path / "j.txt"
    other.write_text("x\n", encoding="utf-8")
    assert main(["import", "judgements", str(other), "--database", str(demo)]) == 2
    assert "expected .tsv, .csv or .jsonl" in capsys.readouterr().err


def test_seg_without_doc_when_unique_and_ambiguous(tmp_path, capsys):
    from evaltrans_qt.engine.data.database import Database, Levels
    from evaltrans_qt.io.etdb import save_database
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    for doc in ("d1", "d2"):
        for seg in ("1", "2"):
            src = db.add_source(f"{doc} {seg}", doc, seg if doc == "d1" or seg == "1" else "3")
            db.add_target(src, f"hyp {doc} {seg}", "S")
    path = tmp_path / "two.etdb.xml"
    save_database(db, path)
    f = tmp_path / "j.tsv"
    f.write_text("system\tseg\tclass\tvalue\nS\t3\tfluency\t4\n", encoding="utf-8")
    assert main(["import", "judgements", str(f), "--database", str(path)]) == 0
    assert _score(path, 4, "S", "fluency", None)[0] == 4.0          # d2 seg 3: unique
    f.write_text("system\tseg\tclass\tvalue\nS\t1\tfluency\t4\n", encoding="utf-8")
    assert main(["import", "judgements", str(f), "--database", str(path)]) == 2
    assert "j.tsv:2: seg '1' is in 2 documents: give doc" in capsys.readouterr().err
    f.write_text("system\tdoc\tseg\tclass\tvalue\nS\td2\t1\tfluency\t2\n", encoding="utf-8")
    assert main(["import", "judgements", str(f), "--database", str(path)]) == 0
    assert _score(path, 3, "S", "fluency", None)[0] == 2.0


def test_missing_database_and_unwritable_lock(tmp_path, demo, monkeypatch, capsys):
    argv = ["--source", "1", "--system", "RuleMT", "--class", "fluency", "--value", "3"]
    assert main(["judge", str(tmp_path / "no" / "x.etdb.xml"), *argv]) == 2
    assert "x.etdb.xml: file not found" in capsys.readouterr().err
    assert main(["judge", str(tmp_path), *argv]) == 2
    assert "not a file" in capsys.readouterr().err

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(judgements, "acquire_lock", denied)
    before = demo.read_bytes()
    assert main(["judge", str(demo), *argv]) == 2
    err = capsys.readouterr().err
    assert "cannot take the database's lock (Permission denied)" in err
    assert demo.read_bytes() == before and not journal_path(demo).exists()
