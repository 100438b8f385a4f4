"""Reliability, the command line: inputs that once broke it, each now exiting
with 2 and a message instead of a traceback, a destroyed file or a silent misread."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltrans_qt.cli.batch import output_paths
from evaltrans_qt.cli.main import main
from evaltrans_qt.io import etdb


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def texts(tmp_path):
    def w(name: str, text: str) -> Path:
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return p
    return w


def test_1_overlong_line_exit_2_and_append_keeps_the_database(capsys, tmp_path, texts):
    src, ref = texts("s.txt", "a\nb\n"), texts("r.txt", "x\ny\n")
    db = tmp_path / "db.etdb.xml"
    assert run(capsys, "import", "text", "--source", src, "--reference", ref, "-o", db)[0] == 0
    before = db.read_bytes()
    hyp = tmp_path / "h.txt"
    hyp.write_text("ok\n" + "w" * 10_000_001 + "\n")
    rc, _, err = run(capsys, "import", "text", "--source", src, "--system", f"A={hyp}",
                     "--append", "-o", db)
    assert rc == 2 and f"{hyp}:2:" in err and "characters" in err
    assert db.read_bytes() == before
    assert etdb.load_database(db).counts()["candidates"] == 0


NS_DB = """<?xml version="1.0" encoding="utf-8"?>
<database xmlns:a="urn:a" a:owner="me">
  <version_id/>
  <levels class="fluency" count="6" gray="2" green="5" perfect="5" firstvalid="1"/>
  <source seg="1" xml:lang="de" a:b="1"><s_sent>s</s_sent><targets>
    <tgt sys="A"><t_sent>t</t_sent><eval class="fluency" val="3"/><eval class="fluency" val="4"/>
    </tgt></targets></source>
</database>
"""


def test_2_merge_onto_itself_keeps_a_loadable_file(capsys, tmp_path):
    w, other = tmp_path / "w.etdb.xml", tmp_path / "other.etdb.xml"
    w.write_text(NS_DB)
    other.write_text(NS_DB.replace('a:b="1"', 'a:b="1" a:c="2"'))
    rc, _, err = run(capsys, "merge", w, other, "-o", w)
    assert rc == 0, err
    db = etdb.load_database(w)
    assert db.sources[0].extra_attrs["xml:lang"] == "de"
    assert db.sources[0].extra_attrs["a:c"] == "2" and db.extra_attrs["a:owner"] == "me"


def test_2_command_line_writes_only_bytes_that_load(capsys, tmp_path, monkeypatch):
    w, other = tmp_path / "w.etdb.xml", tmp_path / "o.etdb.xml"
    w.write_text(NS_DB)
    other.write_text(NS_DB)
    before = w.read_bytes()
    monkeypatch.setattr(etdb.writer, "dumps", lambda db: b"<database><unclosed>")
    rc, _, err = run(capsys, "merge", w, other, "-o", w)
    assert rc == 2 and "would not load again" in err
    assert w.read_bytes() == before


def test_3_merge_identical_copy_prefer_new_reports_nothing(capsys, tmp_path):
    w, copy = tmp_path / "w.etdb.xml", tmp_path / "copy.etdb.xml"
    w.write_text(NS_DB)
    copy.write_text(NS_DB)
    out = tmp_path / "m.etdb.xml"
    rc, _, err = run(capsys, "merge", w, copy, "--prefer", "new", "-o", out)
    assert rc == 0 and "0 conflicting scores" in err
    assert etdb.load_database(out) == etdb.load_database(w)
    scores = etdb.load_database(out).sources[0].targets[0].scores
    assert sorted(s.value for s in scores) == [3.0, 4.0]


def test_4_report_names_never_collide(capsys, tmp_path, texts):
    names = ["A/B", "A_B", "A", "a", "", "x" * 300, "%41", "é"]
    paths = output_paths(str(tmp_path / "R.xml"), names)
    assert len(set(paths.values())) == len(names)
    assert len({str(p).casefold() for p in paths.values()}) == len(names)
    assert paths["A/B"].name == "R.A%2FB.xml" and paths["A_B"].name == "R.A_B.xml"
    assert all(p.parent == tmp_path and len(p.name) < 120 for p in paths.values())
    assert output_paths(str(tmp_path / "R.xml"), ["A/B", "A_B"]) == {
        k: paths[k] for k in ("A/B", "A_B")}                  # stable: depends on the id
    src, ref = texts("s.txt", "a b\nc d\n"), texts("r.txt", "a b\nc d\n")
    h1, h2 = texts("h1.txt", "a b\nc\n"), texts("h2.txt", "a\nc d\n")
    db = tmp_path / "db.etdb.xml"
    assert run(capsys, "import", "text", "--source", src, "--reference", ref,
               "--system", f"A/B={h1}", "--system", f"A_B={h2}", "-o", db)[0] == 0
    report = tmp_path / "R.xml"
    rc, out, err = run(capsys, "batch", "--database", db, "--all-systems", "--measures", "wer",
                       "--xml-mode", "--output-file", report, "--json")
    assert rc == 0, err
    written = {s: Path(v["report"]) for s, v in json.loads(out)["systems"].items()}
    assert written == {"A/B": tmp_path / "R.A%2FB.xml", "A_B": tmp_path / "R.A_B.xml"}
    assert all(p.exists() for p in written.values())


def test_7_score_max_inf_exits_2(capsys, tmp_path, texts):
    texts("t.src.en", "s\n")
    texts("t.hyp.A.de", "t\n")
    tsv = texts("s.tsv", "A\t1\t3\n")
    with pytest.raises(SystemExit) as e:
        main(["import", "wmt", str(tmp_path), "--scores", str(tsv), "--score-max", "inf",
              "-o", str(tmp_path / "x.etdb.xml")])
    assert e.value.code == 2
    assert "--score-max" in capsys.readouterr().err
    assert not (tmp_path / "x.etdb.xml").exists()


def test_7_info_on_a_report_with_bad_nr_exits_2(capsys, tmp_path, texts):
    r = texts("r.xml", '<?xml version="1.0"?>\n<report><candidate-statistics><system>A</system>'
                       '</candidate-statistics><evaluation/><candidate-evaluation>\n'
                       '<candidate nr="0"><source nr="0"/><target nr="1e9x"/></candidate>'
                       '</candidate-evaluation></report>\n')
    rc, _, err = run(capsys, "info", r)
    assert rc == 2 and f"{r}:3:" in err and "whole number" in err


def test_8_wmt_hypothesis_colliding_with_a_reference_exits_2(capsys, tmp_path, texts):
    texts("t.src.en", "s\n")
    texts("t.ref.A.de", "r\n")
    texts("t.hyp.ref-A.de", "h\n")
    tsv = texts("s.tsv", "ref-A\t1\t3\n")
    rc, _, err = run(capsys, "import", "wmt", tmp_path, "--scores", tsv, "-o",
                     tmp_path / "x.etdb.xml")
    assert rc == 2 and "t.hyp.ref-A.de" in err and "t.ref.A.de" in err
    assert not (tmp_path / "x.etdb.xml").exists()


@pytest.mark.parametrize("score", ["1_0", "\u0663", " 3 "])
def test_8_wmt_scores_must_be_plain_numbers(capsys, tmp_path, texts, score):
    texts("t.src.en", "s\n")
    texts("t.hyp.A.de", "t\n")
    tsv = texts("s.tsv", f"A\t1\t{score}\n")
    rc, _, err = run(capsys, "import", "wmt", tmp_path, "--scores", tsv, "-o",
                     tmp_path / "x.etdb.xml")
    assert rc == 2 and f"{tsv}:1:" in err
