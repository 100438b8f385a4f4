"""Reliability, the library side: one test or more per failure found, each failing on
the code before the fix. Speed is measured as a scaling ratio, not a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pandas as pd
import pytest

from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.errors import EvalTransError, InputFormatError, SaveError
from evaltrans_qt.io import aachen, atomic, etdb, export, journal, limits, plaintext, sgml, wmt
from evaltrans_qt.io.report import loads_report

LEVELS = """  <levels class="fluency" count="6" gray="2" green="5" perfect="5" firstvalid="1"/>
  <levels class="isReference" count="2" gray="0" green="1" perfect="1" firstvalid="0"/>
"""


def _db_xml(body: str, root_attrs: str = "", head: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="utf-8"?>\n{head}<database{root_attrs}>\n'
            f"  <version_id>v</version_id>\n{LEVELS}{body}</database>\n").encode()


# ------------------------------------------------------------------ 1. text too long
def test_1_sentence_over_the_limit_is_refused_before_writing(tmp_path):
    db = Database([Levels("fluency", 6, perfect=5, firstvalid=1)])
    src = db.add_source("s", None, "1")
    db.add_target(src, "x" * (limits.MAX_TEXT_CHARS + 1), "A")
    out = tmp_path / "db.etdb.xml"
    out.write_bytes(b"old")
    with pytest.raises(SaveError, match="at most 1000000"):
        etdb.save_database(db, out)
    assert out.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["db.etdb.xml"]          # no temp file left either


def test_1_import_refuses_a_line_over_the_limit_naming_it(tmp_path):
    (tmp_path / "s.txt").write_text("a\n" + "b" * (limits.MAX_TEXT_CHARS + 1) + "\n")
    with pytest.raises(InputFormatError) as e:
        plaintext.import_text(tmp_path / "s.txt")
    assert e.value.line == 2 and "characters" in e.value.problem
    # exactly the limit is fine and reads back (libxml2 holds 10 000 000 bytes)
    (tmp_path / "s.txt").write_text("\U0001F600" * limits.MAX_TEXT_CHARS + "\n")
    db = plaintext.import_text(tmp_path / "s.txt")
    etdb.save_database(db, tmp_path / "ok.etdb.xml")
    assert etdb.load_database(tmp_path / "ok.etdb.xml") == db


# ------------------------------------------------------------------ 2. namespaces, validated write
def test_2_namespaced_attributes_round_trip_as_valid_xml(tmp_path):
    body = ('  <source seg="1" xml:lang="de" xmlns:a="urn:a" a:b="1">\n'
            '    <s_sent>s</s_sent>\n    <targets>\n'
            '      <tgt sys="A" xmlns:c="urn:c" c:d="2"><t_sent>t</t_sent>'
            '<eval class="fluency" val="3" xml:space="preserve"/></tgt>\n'
            '    </targets>\n  </source>\n')
    data = _db_xml(body, ' xmlns:r="urn:r" r:x="y"')
    db = etdb.loads(data)
    path = tmp_path / "w.etdb.xml"
    etdb.save_database(db, path)
    again = etdb.load_database(path)
    assert again == db
    src = again.sources[0]
    assert src.extra_attrs["xml:lang"] == "de" and src.extra_attrs["a:b"] == "1"
    assert again.sources[0].targets[0].extra_attrs["c:d"] == "2"
    assert again.sources[0].targets[0].scores[0].extra_attrs == {"xml:space": "preserve"}
    assert again.extra_attrs["r:x"] == "y"
    from lxml import etree
    root = etree.fromstring(path.read_bytes())
    assert root.find("source").get("{urn:a}b") == "1"
    assert root.find("source").get("{http://www.w3.org/XML/1998/namespace}lang") == "de"


def test_2_every_write_parses_back_before_replacing(tmp_path, monkeypatch):
    db = etdb.loads(_db_xml(""))
    path = tmp_path / "db.etdb.xml"
    path.write_bytes(b"old")
    monkeypatch.setattr(etdb.writer, "dumps", lambda d: b"<database><broken")
    with pytest.raises(SaveError, match="would not load again"):
        etdb.save_database(db, path)
    assert path.read_bytes() == b"old"


def test_2_invalid_attribute_name_is_a_save_error_not_a_broken_file(tmp_path):
    db = etdb.loads(_db_xml(""))
    db.extra_attrs["{urn:x}y"] = "1"
    with pytest.raises(SaveError, match="attribute name"):
        etdb.save_database(db, tmp_path / "x.etdb.xml")
    assert not (tmp_path / "x.etdb.xml").exists()


def test_6_sixty_thousand_root_attributes_read_in_order():
    attrs = "".join(f' a{i}="{i}"' for i in range(60_000))
    db = etdb.loads(_db_xml("", attrs))
    assert len(db.extra_attrs) == 60_000 and list(db.extra_attrs)[-1] == "a59999"
    assert etdb.loads(etdb.dumps(db)) == db


# ------------------------------------------------------------------ 3. merge
ANON = """  <source seg="1" note="n1"><s_sent>s</s_sent>
    <comment>ours</comment>
    <targets>
      <tgt sys="A" flag="x"><t_sent>t</t_sent>
        <eval class="fluency" val="3"/><eval class="fluency" val="4"/>
        <comment>c1</comment>
      </tgt>
    </targets>
  </source>
"""


def test_3_identical_copy_with_prefer_new_changes_nothing():
    a, b = etdb.loads(_db_xml(ANON)), etdb.loads(_db_xml(ANON))
    report = merge(a, b, "new")
    assert report.conflicts == [] and report.added_scores == 0
    assert a == etdb.loads(_db_xml(ANON))
    assert sorted(s.value for s in a.sources[0].targets[0].scores) == [3.0, 4.0]


def test_3_merge_keeps_unknown_attributes_and_elements_of_both_sides():
    ours = etdb.loads(_db_xml(ANON))
    theirs_body = (ANON.replace('note="n1"', 'note="n2" extra="e"')
                   .replace("<comment>ours</comment>", "<comment>theirs</comment>")
                   .replace('flag="x"', 'flag="x" other="o"')
                   .replace("<comment>c1</comment>", "<comment>c2</comment>"))
    theirs = etdb.loads(_db_xml(theirs_body + "  <meta>top</meta>\n", ' owner="them"'))
    report = merge(ours, theirs, "old")
    src, tgt = ours.sources[0], ours.sources[0].targets[0]
    assert src.extra_attrs == {"note": "n1", "extra": "e"}
    assert src.extra_children == ["<comment>ours</comment>", "<comment>theirs</comment>"]
    assert tgt.extra_attrs == {"flag": "x", "other": "o"}
    assert tgt.extra_children == ["<comment>c1</comment>", "<comment>c2</comment>"]
    assert ours.extra_children == ["<meta>top</meta>"] and ours.extra_attrs == {"owner": "them"}
    assert len(report.attribute_conflicts) == 1 and "note" in report.attribute_conflicts[0]
    assert report.conflicts == []


def test_3_anonymous_scores_are_matched_as_multisets():
    ours = etdb.loads(_db_xml(ANON))
    theirs = etdb.loads(_db_xml(ANON.replace('val="4"', 'val="5"')))
    report = merge(ours, theirs, "new")
    assert len(report.conflicts) == 1
    c = report.conflicts[0].conflict
    assert (c.old.value, c.new.value) == (4.0, 5.0)
    assert sorted(s.value for s in ours.sources[0].targets[0].scores) == [3.0, 5.0]


# ------------------------------------------------------------------ 6. linear readers
def _sgml(n: int, kind: str, sysid: str = "") -> str:
    sys_attr = f' sysid="{sysid}"' if sysid else ""
    segs = "".join(f'<seg id="{i}">words {i} &amp; more</seg>\n' for i in range(1, n + 1))
    return f'<{kind} setid="t"{sys_attr}>\n<doc docid="d">\n{segs}</doc>\n</{kind}>\n'


def _best_time(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def test_6_sgml_import_scales_linearly_and_numbers_lines(tmp_path):
    """4x the segments must take well under 16x the time (it did: line numbers were
    counted from the file start at every tag)."""
    for n in (3000, 12000):
        (tmp_path / f"s{n}.sgm").write_text(_sgml(n, "srcset"))
    t_small = _best_time(lambda: sgml.parse_sgml(tmp_path / "s3000.sgm"))
    t_big = _best_time(lambda: sgml.parse_sgml(tmp_path / "s12000.sgm"))
    assert t_big < 8 * t_small, (t_small, t_big)
    bad = _sgml(5000, "srcset").replace('<seg id="4000">', '<seg id="3999">')
    (tmp_path / "bad.sgm").write_text(bad)
    with pytest.raises(InputFormatError) as e:
        sgml.parse_sgml(tmp_path / "bad.sgm")
    assert e.value.line == 4002            # header 2 lines, seg 4000 on line 4002


def test_6_counts_scale_with_targets_plus_classes():
    """``info``'s counts: 4x the classes on the same targets must not cost 4x (it was
    targets x classes)."""
    def make(k: int) -> Database:
        db = Database([Levels(f"c{i}", 3) for i in range(k)] + [Levels("isReference", 2, perfect=1)])
        for i in range(2000):
            src = db.add_source(f"s{i}", None, str(i + 1))
            t = db.add_target(src, "t", "A")
            t.scores.append(Score("c0", 1))
        return db
    small, big = make(100), make(400)
    t_small = _best_time(small.counts)
    t_big = _best_time(big.counts)
    assert t_big < 2.5 * t_small, (t_small, t_big)
    c = big.counts()
    assert c["scored"]["c0"] == 2000 and c["unscored"]["c0"] == 0
    assert c["unscored"]["c399"] == 2000 and c["scored"]["c399"] == 0


# ------------------------------------------------------------------ 7. clear errors
def test_7_wmt_score_range_must_be_finite():
    with pytest.raises(InputFormatError, match="finite"):
        wmt.score_levels("mqm", [1.0], maximum=float("inf"))


REPORT = b"""<?xml version="1.0" encoding="utf-8"?>
<report><candidate-statistics><system>A</system></candidate-statistics>
<evaluation/><candidate-evaluation><candidate nr="0"><source nr="X"/><target nr="0"/>
</candidate></candidate-evaluation></report>
"""


def test_7_report_with_non_numeric_nr_is_an_input_error():
    with pytest.raises(InputFormatError) as e:
        loads_report(REPORT, "r.xml")
    assert e.value.line == 3 and "nr must be a whole number" in e.value.problem


GOOD_ENTRY = {"source": "s", "target": "t", "system": "A", "cls": "fluency", "value": 3,
              "seq": 1, "doc": None, "seg": "1"}


@pytest.mark.parametrize("bad", [
    '"seq": 1e400', '"target_index": "0"', '"target_index": 0.5', '"target_index": [0]',
    '"source": ["s"]', '"judge": 7', '"time": 12.5', '"value": "3"', '"extrapolated": "no"'])
def test_7_journal_entries_with_wrong_types_are_skipped_naming_the_line(tmp_path, bad):
    db = etdb.loads(_db_xml('  <source seg="1"><s_sent>s</s_sent><targets>'
                            '<tgt sys="A"><t_sent>t</t_sent></tgt></targets></source>\n'))
    good = json.dumps(GOOD_ENTRY)
    key = bad.split(":")[0].strip('"')
    entry = json.dumps({k: v for k, v in GOOD_ENTRY.items() if k != key})[:-1] + ", " + bad + "}"
    p = tmp_path / "db.etdb.xml.journal"
    p.write_text('{"evaltrans-journal": 1}\n' + entry + "\n" + good.replace('"seq": 1', '"seq": 2')
                 + "\n")
    j = journal.Journal(p)
    entries = j.entries()
    assert [e.seq for e in entries] == [2]
    assert j.skipped and j.skipped[0][0] == 2 and key in j.skipped[0][1]
    journal.replay(db, entries)
    etdb.save_database(db, tmp_path / "db.etdb.xml")          # later saves still work
    assert etdb.load_database(tmp_path / "db.etdb.xml").sources[0].targets[0].scores[0].value == 3


# ------------------------------------------------------------------ 8. silent misreads
def test_8_aachen_with_cr_only_line_ends(tmp_path):
    p = tmp_path / "mac.txt"
    p.write_bytes(b"SOURCE eins\rTARGET 10 one\rTARGET 4 won\rSOURCE zwei\rTARGET 10 two\r")
    db = aachen.import_aachen(p)
    assert [s.text for s in db.sources] == ["eins", "zwei"]
    assert [t.text for t in db.sources[0].targets] == ["one", "won"]


def test_8_wmt_hypothesis_named_like_a_reference_is_refused(tmp_path):
    for name in ("t.src.en", "t.ref.A.de", "t.hyp.ref-A.de", "t.hyp.B.de"):
        (tmp_path / name).write_text("x\n")
    with pytest.raises(InputFormatError, match="ref-A"):
        wmt.scan_folder(tmp_path)


@pytest.mark.parametrize("text", ["1_0", "\u0663", " 3 ", "3 ", "inf", "nan", "1e400", "0x3",
                                  "", "+", "1.2.3"])
def test_8_one_strict_number_parser(text, tmp_path):
    with pytest.raises(ValueError):
        limits.parse_number(text)
    val = text.replace('"', "&quot;")
    body = (f'  <source seg="1"><s_sent>s</s_sent><targets><tgt sys="A"><t_sent>t</t_sent>'
            f'<eval class="fluency" val="{val}"/></tgt></targets></source>\n')
    with pytest.raises(EvalTransError):
        etdb.loads(_db_xml(body))
    (tmp_path / "a.txt").write_text(f"SOURCE s\nTARGET {text} t\n")
    if text.strip() == text and text:         # Aachen splits at the first space
        with pytest.raises(EvalTransError):
            aachen.import_aachen(tmp_path / "a.txt")
    for name, body in (("t.src.en", "s\n"), ("t.hyp.A.de", "t\n")):
        (tmp_path / name).write_text(body)
    (tmp_path / "s.tsv").write_text(f"A\t1\t{text}\n")
    if text.strip():
        with pytest.raises(EvalTransError):
            wmt.import_wmt(tmp_path, tmp_path / "s.tsv")


def test_8_plain_numbers_still_read():
    assert [limits.parse_number(t) for t in ("3", "-2.5", "+1", ".5", "1e-3", "7.")] == \
        [3.0, -2.5, 1.0, 0.5, 0.001, 7.0]


# ------------------------------------------------------------------ 9. leftovers, injection
def test_9_stale_temp_of_a_killed_save_is_removed_on_the_next_save(tmp_path):
    target = tmp_path / "db.etdb.xml"
    code = ("import os, sys; from evaltrans_qt.io import atomic\n"
            "with atomic.atomic_writer(sys.argv[1]) as fh:\n"
            "    fh.write(b'partial' * 1000); fh.flush(); os.kill(os.getpid(), 9)\n")
    subprocess.run([sys.executable, "-c", code, str(target)], check=False)
    left = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    assert len(left) == 1 and left[0].startswith(".db.etdb.xml.")
    other = tmp_path / ".other.xml.123.abcdefgh.tmp"          # another file's temp: kept
    other.write_text("x")
    etdb.save_database(etdb.loads(_db_xml("")), target)
    assert sorted(os.listdir(tmp_path)) == [other.name, "db.etdb.xml"]


def test_9_temp_removed_when_the_write_fails(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic.atomic_writer(tmp_path / "f.txt") as fh:
            fh.write(b"x")
            raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []


def test_9_old_style_temp_names_cleaned_once_stale(tmp_path):
    target = tmp_path / "f.txt"
    old = tmp_path / ".f.txt.k2j4h5g6.tmp"
    old.write_text("x")
    atomic.atomic_write_bytes(target, b"1")
    assert old.exists()                      # could be a live save of an older version
    os.utime(old, (time.time() - 2 * atomic.STALE_SECONDS,) * 2)
    atomic.atomic_write_bytes(target, b"2")
    assert not old.exists()


def test_9_csv_export_neutralises_formulas_but_keeps_numbers(tmp_path):
    frame = pd.DataFrame({"system": ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)",
                                     "\tx", "-3", "plain"],
                          "bleu": [-0.5, 1.0, 2.0, 3.0, 4.0, 6.0, -7.25]})
    for suffix, sep in ((".csv", ","), (".tsv", "\t")):
        p = export.write_table(frame, tmp_path / f"t{suffix}")
        back = pd.read_csv(p, sep=sep, comment=None, keep_default_na=False)
        assert list(back["system"]) == ["'=HYPERLINK(\"http://x\")", "'+1+1", "'-2+3", "'@SUM(A1)",
                                        "'\tx", "-3", "plain"]
        assert list(back["bleu"]) == [-0.5, 1.0, 2.0, 3.0, 4.0, 6.0, -7.25]
    p = export.write_table(pd.DataFrame({"=x": ["\rcmd"]}), tmp_path / "h.csv")
    assert p.read_bytes().startswith(b"'=x\n'\rcmd")


BOMB = b"""<?xml version="1.0"?>
<!-- a <report> or <database> mentioned in a comment -->
<!DOCTYPE report [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<report><author>&b;</author></report>
"""


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_9_entity_check_cannot_be_bypassed(encoding):
    data = BOMB.decode().replace('version="1.0"?>', f'version="1.0" encoding="{encoding}"?>')
    raw = data.encode(encoding)
    with pytest.raises(InputFormatError, match="ENTITY"):
        loads_report(raw, "r.xml")
    with pytest.raises(InputFormatError, match="ENTITY"):
        etdb.loads(raw.replace(b"report", b"database") if encoding == "utf-8"
                   else data.replace("report", "database").encode(encoding))
