"""Imports: plain text, WMT folder (+ real WMT21 en-de counts), NIST SGML/XML, Aachen text."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from evaltrans_qt.engine.data.database import REFERENCE_CLASS, Database, Levels
from evaltrans_qt.errors import InputFormatError, ScoreError
from evaltrans_qt.io import aachen, etdb, plaintext, sgml, wmt


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


# ---------------------------------------------------------------- plain text
@pytest.fixture
def text_files(tmp_path):
    return {
        "src": write(tmp_path / "src.de", "Guten Tag .\nDanke .\nGuten Tag .\n"),
        "r1": write(tmp_path / "ref1.en", "Good day .\nThanks .\nHello .\n"),
        "r2": write(tmp_path / "ref2.en", "Hello .\r\nThank you .\r\nGood day .\r\n"),
        "a": write(tmp_path / "a.en", "Good day .\nThanks .\nGood day .\n"),
        "b": write(tmp_path / "b.en", "Good day .\n\nGood tag ."),  # empty output line, no final newline
    }


def test_plaintext_import(text_files):
    f = text_files
    db = plaintext.import_text(f["src"], [f["r1"], f["r2"]], [("A", f["a"]), ("B", f["b"])])
    assert db.levels[-1].name == REFERENCE_CLASS
    # line 3 repeats line 1's text: still its own source, seg = line number
    assert [(s.text, s.doc, s.seg) for s in db.sources] == [
        ("Guten Tag .", None, "1"), ("Danke .", None, "2"), ("Guten Tag .", None, "3")]
    s1, _, s3 = db.sources
    assert [(t.system, t.text, t.seg) for t in db.references(s1)] == [
        ("ref-1", "Good day .", None), ("ref-2", "Hello .", None)]
    assert [(t.system, t.text) for t in db.references(s3)] == [
        ("ref-1", "Hello ."), ("ref-2", "Good day .")]
    assert [t.text for _, t in db.candidates_by_system("B")] == ["Good day .", "", "Good tag ."]
    assert db.counts()["candidates"] == 6
    assert plaintext.repeated_source_warnings(db) == []


def test_plaintext_append_of_another_test_set_is_refused(tmp_path, text_files):
    """Appending files whose line 2 is another sentence than the database's segment 2:
    a clear error naming the file and line, and the database is unchanged."""
    f = text_files
    db = plaintext.import_text(f["src"], [f["r1"]], [("A", f["a"])])
    plaintext.import_text(f["src"], [], [("B", f["b"])], db=db)      # same test set: joins
    assert len(db.sources) == 3 and db.systems() == ["A", "B"]
    before = etdb.dumps(db)
    other = write(tmp_path / "other.de", "Guten Tag .\nBitte .\nGuten Tag .\n")
    with pytest.raises(InputFormatError, match="segment 2 is 'Danke .' in the database") as exc:
        plaintext.import_text(other, [f["r1"]], [("C", f["a"])], db=db)
    assert exc.value.path == other and exc.value.line == 2
    assert etdb.dumps(db) == before


def test_plaintext_line_count_mismatch(tmp_path, text_files):
    bad = write(tmp_path / "short.en", "Good day .\nThanks .\n")
    with pytest.raises(InputFormatError) as exc:
        plaintext.import_text(text_files["src"], [text_files["r1"]], [("S", bad)])
    assert exc.value.path == bad and exc.value.line == 3
    assert "2 lines" in exc.value.problem and "3" in exc.value.problem


@pytest.mark.parametrize("content,problem", [(None, "not found"), (b"", "empty"), (b"\n\n", "empty"),
                                             (b"Sch\xf6n\n", "not valid utf-8"),
                                             (b"ok\nbell\x07\n", "control character")])
def test_plaintext_bad_files(tmp_path, text_files, content, problem):
    path = tmp_path / "bad.txt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputFormatError, match=problem) as exc:
        plaintext.import_text(path, [text_files["r1"]])
    assert exc.value.path == path
    if content and problem != "empty":
        assert exc.value.line == content.count(b"\n", 0, len(content) - 2) + 1


def test_plaintext_latin1(tmp_path):
    src = write(tmp_path / "s.txt", "Schöne Grüße\n", "iso-8859-1")
    ref = write(tmp_path / "r.txt", "Kind regards\n", "iso-8859-1")
    db = plaintext.import_text(src, [ref], encoding="iso-8859-1")
    assert db.sources[0].text == "Schöne Grüße"


# ---------------------------------------------------------------- WMT
def _mqm_rows(path: Path):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    return rows[1:]


def test_wmt21_ende_counts(wmt_dir):
    db = wmt.import_wmt(wmt_dir, wmt_dir / "mqm.tsv", "mqm")
    src_lines = (wmt_dir / "newstest2021.en-de.src.en").read_text(encoding="utf-8").split("\n")[:-1]
    assert len(src_lines) == 1002 and len(set(src_lines)) == 1002  # no duplicate source lines
    c = db.counts()
    assert c["sources"] == 1002
    assert c["reference_ids"] == ["ref-A", "ref-C", "ref-D"]
    assert len(c["systems"]) == 20
    for src in db.sources:
        assert sorted(t.system for t in db.references(src)) == ["ref-A", "ref-C", "ref-D"]
        assert len(db.candidates(src)) == 20
    # line 7 of a system file is the candidate of source line 7
    line7 = (wmt_dir / "newstest2021.en-de.hyp.UEdin.de").read_text(encoding="utf-8").split("\n")[6]
    assert db.candidates_by_system("UEdin")[6][1].text == line7
    assert db.candidates_by_system("UEdin")[6][0].text == src_lines[6]

    # MQM: every non-empty TSV row is a score on exactly that target; nothing else is scored
    rows = _mqm_rows(wmt_dir / "mqm.tsv")
    want = {(s, int(i)): float(v) for s, i, v in rows if v.strip()}
    assert len(want) == 527 * 11
    scored_systems = {s for s, _ in want}
    assert scored_systems == {"Facebook-AI", "HuaweiTSC", "NVIDIA-NeMo", "Online-W", "UEdin",
                              "VolcTrans-AT", "VolcTrans-GLAT", "eTranslation",
                              "ref-A", "ref-C", "ref-D"}
    got = {}
    for i, src in enumerate(db.sources, 1):
        for t in src.targets:
            for s in t.scores_of("mqm"):
                got[(t.system, i)] = s.value
    assert got == want
    assert [lv.name for lv in db.levels] == ["mqm", REFERENCE_CLASS]
    lv = db.level("mqm")
    assert lv.continuous and lv.maximum == 0 and lv.minimum <= min(want.values())
    assert c["scored"]["mqm"] == 527 * 11


def test_wmt21_ende_database_round_trip(wmt_dir, tmp_path):
    db = wmt.import_wmt(wmt_dir, wmt_dir / "mqm.tsv")
    path = tmp_path / "wmt.etdb.xml"
    etdb.save_database(db, path)
    assert etdb.load_database(path) == db


@pytest.fixture
def mini_wmt(tmp_path):
    d = tmp_path / "wmt"
    d.mkdir()
    write(d / "test.en-de.src.en", "a\nb\nc\n")
    write(d / "test.en-de.ref.A.de", "A\nB\nC\n")
    write(d / "test.en-de.hyp.sys.v1.de", "x\ny\nz\n")
    write(d / "test.en-de.hyp.Other.de", "x\nyy\nzz\n")
    write(d / "scores.tsv", "system\tseg_id\tscore\nsys.v1\t1\t-1.5\nsys.v1\t2\t\nref-A\t3\t0\n"
                            "Other\t2\t-7\n")
    return d


def test_wmt_tsv_scores(mini_wmt):
    db = wmt.import_wmt(mini_wmt, mini_wmt / "scores.tsv", "mqm", judge="expert")
    assert db.systems() == ["Other", "sys.v1"]
    v1 = [t for _, t in db.candidates_by_system("sys.v1")]
    assert [t.value("mqm") for t in v1] == [-1.5, None, None]   # empty score = unscored
    assert v1[0].scores_of("mqm")[0].judge == "expert"
    assert db.references(db.sources[2])[0].value("mqm") == 0
    lv = db.level("mqm")
    assert (lv.minimum, lv.maximum) == (-7, 0)


@pytest.mark.parametrize("tsv,line,problem", [
    ("nosuch\t1\t-1\n", 1, "unknown system"),
    ("sys.v1\t4\t-1\n", 1, "outside 1..3"),
    ("sys.v1\t1\t-1\nsys.v1\tx\t-1\n", 2, "line number"),
    ("sys.v1\t1\tbad\n", 1, "must be a number"),
    ("sys.v1\t1\n", 1, "3 tab-separated"),
    ("sys.v1\t1\t-1\nsys.v1\t1\t-2\n", 2, "first at line 1"),
])
def test_wmt_tsv_errors(mini_wmt, tsv, line, problem):
    path = write(mini_wmt / "bad.tsv", tsv)
    with pytest.raises(InputFormatError, match=problem) as exc:
        wmt.import_wmt(mini_wmt, path)
    assert exc.value.path == path and exc.value.line == line


def test_wmt_score_outside_given_range(mini_wmt):
    with pytest.raises(ScoreError, match="outside") as exc:
        wmt.import_wmt(mini_wmt, mini_wmt / "scores.tsv", minimum=-5, maximum=0)
    assert exc.value.path == mini_wmt / "scores.tsv" and exc.value.line == 5


def test_wmt_folder_errors(tmp_path, mini_wmt):
    with pytest.raises(InputFormatError, match="not a folder"):
        wmt.import_wmt(tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputFormatError, match="no source file"):
        wmt.import_wmt(empty)
    write(mini_wmt / "test.en-de.hyp.Short.de", "x\n")
    with pytest.raises(InputFormatError, match="1 lines") as exc:
        wmt.import_wmt(mini_wmt)
    assert exc.value.path.name == "test.en-de.hyp.Short.de" and exc.value.line == 2


# ---------------------------------------------------------------- SGML / XML
SRC_SGM = """<srcset setid=test srclang=German>
<doc docid="d1" genre=news>
<seg id=1>Guten  Tag &amp; Hallo</seg>
<seg id="2">Danke</seg>
</doc>
<doc docid=d2>
<p><seg id=1>Tschüss</seg></p>
</doc>
</srcset>
"""
REF_SGM = """<refset setid=test srclang=German trglang=English>
<doc docid=d2 sysid=human1><seg id=1>Bye</seg></doc>
<doc docid=d1 sysid=human1>
<seg id=2>Thanks</seg>
<seg id=1>Good day &amp; hello</seg>
</doc>
<doc docid=d1 sysid=human2><seg id=1>Hello</seg><seg id=2>Thank you</seg></doc>
<doc docid=d2 sysid=human2><seg id=1>Goodbye</seg></doc>
</refset>
"""
TST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<mteval>
<tstset setid="test" srclang="German" trglang="English" sysid="mtA">
<doc docid="d1"><seg id="1">Good day and hello</seg><seg id="2">Thanks</seg></doc>
<doc docid="d2"><seg id="1">Bye bye</seg></doc>
</tstset>
</mteval>
"""


def test_sgml_and_xml_import(tmp_path):
    src = write(tmp_path / "src.sgm", SRC_SGM)
    ref = write(tmp_path / "ref.sgm", REF_SGM)
    tst = write(tmp_path / "tst.xml", TST_XML)
    db = sgml.import_sgml(src, [ref], [tst])
    assert [(s.doc, s.seg, s.text) for s in db.sources] == [
        ("d1", "1", "Guten Tag & Hallo"), ("d1", "2", "Danke"), ("d2", "1", "Tschüss")]
    assert db.reference_ids() == ["human1", "human2"]
    assert [t.text for t in db.references(db.sources[0])] == ["Good day & hello", "Hello"]
    assert [t.text for _, t in db.candidates_by_system("mtA")] == [
        "Good day and hello", "Thanks", "Bye bye"]


def test_sgml_xml_source_and_no_sysid(tmp_path):
    src = write(tmp_path / "src.xml", TST_XML.replace("tstset", "srcset").replace(' sysid="mtA"', ""))
    tst = write(tmp_path / "mtB.sgm", "<tstset><doc docid=d1><seg id=1>a</seg><seg id=2>b</seg></doc>"
                                      "<doc docid=d2><seg id=1>c</seg></doc></tstset>")
    ref_one = write(tmp_path / "ref1.sgm", "<refset><doc docid=d1><seg id=1>a</seg><seg id=2>b</seg>"
                                          "</doc><doc docid=d2><seg id=1>c</seg></doc></refset>")
    db = sgml.import_sgml(src, [ref_one, ref_one], [tst])
    assert db.reference_ids() == ["ref-1", "ref-2"]  # no sysid: numbered in file order
    assert db.systems() == ["mtB"]                   # no sysid: file stem
    dup = write(tmp_path / "dup.sgm", "<tstset><doc docid=d1>\n<seg id=1>a</seg>\n<seg id=1>b</seg>"
                                      "</doc></tstset>")
    with pytest.raises(InputFormatError, match="appears twice") as exc:
        sgml.import_sgml(src, [], [dup])
    assert exc.value.line == 3


@pytest.mark.parametrize("kind,text,line,problem", [
    ("ref", "<refset>\n<doc docid=d1 sysid=r><seg id=1>a</seg><seg id=2>b</seg></doc>\n</refset>",
     None, "missing"),
    ("ref", "<refset>\n<doc docid=d1 sysid=r><seg id=1>a</seg><seg id=2>b</seg></doc>\n"
            "<doc docid=d2 sysid=r><seg id=1>c</seg>\n<seg id=9>x</seg></doc></refset>", 4, "not in the source"),
    ("ref", "<refset>\n<seg id=1>a</seg>\n</refset>", 2, "outside a <doc>"),
    ("ref", "<refset>\n<doc docid=d1><seg id=1>a\n</doc></refset>", 3, "inside a <seg>"),
    ("ref", "<srcset><doc docid=d1><seg id=1>a</seg></doc></srcset>", None, "no <refset>"),
    ("ref", "just text", None, "no srcset"),
    ("xml", '<?xml version="1.0"?>\n<mteval>\n<refset><doc docid="d1"></refset></mteval>', 3, "malformed"),
    ("xml", '<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<mteval/>',
     2, "ENTITY"),
])
def test_sgml_errors(tmp_path, kind, text, line, problem):
    src = write(tmp_path / "src.sgm", SRC_SGM)
    bad = write(tmp_path / ("bad.xml" if kind == "xml" else "bad.sgm"), text)
    with pytest.raises(InputFormatError, match=problem) as exc:
        sgml.import_sgml(src, [bad])
    assert exc.value.path == bad
    if line is not None:
        assert exc.value.line == line


# ---------------------------------------------------------------- Aachen
AACHEN = """SOURCE Guten Tag .
TARGET 10 Good day .
TARGET 7 Good tag .
TARGET - Hello day .

SOURCE Danke .
TARGET 10 Thanks .
TARGET 3 Thank .
"""


def test_aachen_import_export_round_trip(tmp_path):
    path = write(tmp_path / "db.txt", AACHEN)
    db = aachen.import_aachen(path)
    assert [lv.name for lv in db.levels] == ["score"]
    s1 = db.sources[0]
    assert [t.text for t in db.references(s1)] == ["Good day ."]  # 10 = perfect: a reference (A.2)
    assert [t.value("score") for t in db.candidates(s1)] == [7, None]
    assert aachen.dumps_aachen(db) == AACHEN.replace("\n\n", "\n")
    out = tmp_path / "out.txt"
    aachen.export_aachen(db, out)
    assert aachen.dumps_aachen(aachen.import_aachen(out)) == out.read_text()


def test_aachen_export_of_demo_database(tmp_path):
    db = etdb.load_database(etdb.demo_database_path())
    text = aachen.dumps_aachen(db, "adequacy")
    again = aachen.import_aachen(write(tmp_path / "d.txt", text))
    assert len(again.sources) == 20
    assert again.counts()["references"] == db.counts()["references"]
    assert again.level("score").continuous  # means over two judges, e.g. 3.5
    with pytest.raises(ScoreError, match="no score class"):
        aachen.dumps_aachen(db, "nosuch")


def test_aachen_export_refuses_values_that_would_become_references():
    db = Database([Levels("da", 0, 0, 100, 100, 0, True, 0, 100)])
    s = db.add_source("x")
    db.add_target(s, "y").scores.append(aachen.Score("da", 80))
    with pytest.raises(ScoreError, match="would read back as a reference"):
        aachen.dumps_aachen(db)


@pytest.mark.parametrize("text,line,problem,err", [
    ("TARGET 3 x\n", 1, "before any SOURCE", InputFormatError),
    ("SOURCE a\nTARGET good x\n", 2, "not a score", InputFormatError),
    ("SOURCE a\n\nTARGET 11 x\n", 3, "outside 0..10", ScoreError),
    ("SOURCE a\nTARGTE 3 x\n", 2, "SOURCE or TARGET", InputFormatError),
])
def test_aachen_errors(tmp_path, text, line, problem, err):
    path = write(tmp_path / "bad.txt", text)
    with pytest.raises(err, match=problem) as exc:
        aachen.import_aachen(path)
    assert exc.value.path == path and exc.value.line == line


def test_no_import_changes_a_database_on_error(tmp_path, text_files):
    db = etdb.load_database(etdb.demo_database_path())
    before = etdb.dumps(db)
    bad = write(tmp_path / "short.en", "x\n")
    with pytest.raises(InputFormatError):
        plaintext.import_text(text_files["src"], [text_files["r1"]], [("S", bad)], db=db)
    assert etdb.dumps(db) == before


AACHEN_REPEATED = ("SOURCE Danke.\nTARGET 10 Thank you.\nTARGET 4 Thanks you.\n"
                   "SOURCE Das Haus ist klein.\nTARGET 10 The house is small.\n"
                   "SOURCE Danke.\nTARGET 10 Thanks.\nTARGET 7 Thank you.\n")


def test_repeated_source_lines_with_different_references_are_reported(tmp_path):
    """Aachen text has no positions: a source sentence that occurs twice with different
    references is merged (thesis Appendix A.2), which changes scores against per-line tools; the
    warning says so. The positional text import keeps the lines apart: no warning."""
    from evaltrans_qt.io.plaintext import import_text, repeated_source_warnings
    db = aachen.import_aachen(write(tmp_path / "a.txt", AACHEN_REPEATED))
    assert len(db.sources) == 2 and db.sources[0].occurrences == 2
    notes = repeated_source_warnings(db)
    assert len(notes) == 2 and notes[0].startswith("1 source sentence(s) without segment ids")
    assert "'Danke.': 2 different references in (no id)" == notes[1]
    # the same sentence twice with the same reference: merged, but nothing changes
    same = AACHEN_REPEATED.replace("TARGET 10 Thanks.", "TARGET 10 Thank you.")
    assert repeated_source_warnings(aachen.import_aachen(write(tmp_path / "b.txt", same))) == []
    # several references of one sentence that occurs once are no repeat
    multi = "SOURCE Danke.\nTARGET 10 Thank you.\nTARGET 10 Thanks.\n"
    assert repeated_source_warnings(aachen.import_aachen(write(tmp_path / "c.txt", multi))) == []
    (tmp_path / "src.txt").write_text("Danke.\nDas Haus ist klein.\nDanke.\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("Thank you.\nThe house is small.\nThanks.\n",
                                      encoding="utf-8")
    db = import_text(tmp_path / "src.txt", [tmp_path / "ref.txt"])
    assert len(db.sources) == 3 and repeated_source_warnings(db) == []


def test_warning_for_databases_written_before_positions(tmp_path):
    """A database an earlier version wrote: a repeated line was merged into the first
    line's source, its targets keeping their own line as <tgt seg>; still warned about."""
    db = etdb.loads(b"""<database><levels class="isReference" count="2" perfect="1"/>
      <source seg="1"><s_sent>Danke.</s_sent><targets>
        <tgt sys="ref-1"><t_sent>Thank you.</t_sent><eval class="isReference" val="1"/></tgt>
        <tgt sys="ref-1" seg="3"><t_sent>Thanks.</t_sent><eval class="isReference" val="1"/></tgt>
      </targets></source></database>""")
    from evaltrans_qt.io.plaintext import repeated_source_warnings
    notes = repeated_source_warnings(db)
    assert len(notes) == 2 and notes[1] == "'Danke.' (first line 1): 2 different references in ref-1"


def test_import_and_batch_commands_print_the_repeated_source_warning(tmp_path, capsys):
    """Only for sentences merged by text (Aachen, old files); positional imports: none."""
    from evaltrans_qt.cli.main import main as cli_main
    (tmp_path / "src.txt").write_text("Danke.\nDanke.\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("Thank you.\nThanks.\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("Thanks.\nThank you.\n", encoding="utf-8")
    out = tmp_path / "db.etdb.xml"
    assert cli_main(["import", "text", "--source", str(tmp_path / "src.txt"), "--reference",
                     str(tmp_path / "ref.txt"), "--system", f"A={tmp_path / 'hyp.txt'}",
                     "-o", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    assert cli_main(["batch", "--source", str(tmp_path / "src.txt"), "--reference",
                     str(tmp_path / "ref.txt"), "--target", str(tmp_path / "hyp.txt"),
                     "--measures", "wer", "--output-file", str(tmp_path / "r.txt")]) == 0
    assert "warning" not in capsys.readouterr().err
    merged = tmp_path / "aachen.etdb.xml"
    assert cli_main(["import", "aachen", str(write(tmp_path / "a.txt", AACHEN_REPEATED)),
                     "-o", str(merged)]) == 0
    assert "warning: 1 source sentence(s) without segment ids" in capsys.readouterr().err
    # an old EvalTrans file that lists the sentence twice, without seg: merged on loading
    old = tmp_path / "old.etdb.xml"
    old.write_text('<database><levels class="isPerfect" count="2" perfect="1"/>' + "".join(
        f'<source><s_sent>Danke.</s_sent><targets><tgt sys="human"><t_sent>{r}</t_sent>'
        f'<eval class="isPerfect" val="1"/></tgt><tgt sys="A"><t_sent>{h}</t_sent></tgt>'
        f'</targets></source>' for r, h in (("Thank you.", "Thanks."), ("Thanks.", "Thank you.")))
        + "</database>", encoding="utf-8")
    assert cli_main(["batch", "--database", str(old), "--all-systems", "--measures", "wer",
                     "--output-file", str(tmp_path / "m.txt")]) == 0
    assert "warning: 1 source sentence(s) without segment ids" in capsys.readouterr().err


def test_sgml_repeated_segment_keeps_its_own_references(tmp_path):
    """NIST sets: each (docid, seg id) is a source, also when the sentence
    repeats; appending a set with another sentence at a known position is refused."""
    src = write(tmp_path / "src.sgm", "<srcset><doc docid=d1><seg id=1>Danke</seg>"
                                      "<seg id=2>Hallo</seg></doc><doc docid=d2><seg id=1>Danke"
                                      "</seg></doc></srcset>")
    ref = write(tmp_path / "ref.sgm", "<refset sysid=h><doc docid=d1><seg id=1>Thanks</seg>"
                                      "<seg id=2>Hello</seg></doc><doc docid=d2><seg id=1>Thank you"
                                      "</seg></doc></refset>")
    db = sgml.import_sgml(src, [ref])
    assert [(s.doc, s.seg) for s in db.sources] == [("d1", "1"), ("d1", "2"), ("d2", "1")]
    assert [[t.text for t in db.references(s)] for s in db.sources] == [
        ["Thanks"], ["Hello"], ["Thank you"]]
    before = etdb.dumps(db)
    other = write(tmp_path / "other.sgm", "<srcset><doc docid=d2>\n<seg id=1>Bitte</seg>"
                                          "</doc></srcset>")
    with pytest.raises(InputFormatError, match="document d2 segment 1 is 'Danke' in the "
                                               "database") as exc:
        sgml.import_sgml(other, [], [], db=db)
    assert exc.value.path == other and exc.value.line == 2
    assert etdb.dumps(db) == before
