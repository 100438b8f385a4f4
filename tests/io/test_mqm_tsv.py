"""Google's MQM TSV (io/mqm_tsv.py), spans in .etdb.xml (io/etdb/spans.py), the 'spans'
journal change (io/protocol_changes.py) and spans as JSON Lines (io/spans_jsonl.py).

The TSV files are built here in the released format (no released file is copied)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation
from evaltrans_qt.engine.human.spans.scores import mqm_scores
from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io.etdb import loads
from evaltrans_qt.io.etdb.writer import dumps
from evaltrans_qt.io.journal import Journal, apply_entry, replay
from evaltrans_qt.io.mqm_tsv import mark, read_mqm_tsv, unmark, write_mqm_tsv
from evaltrans_qt.io.spans_jsonl import read_spans_jsonl, write_spans_jsonl

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"
S1, S2 = "Der Zug kommt.", "Er geht nach Hause."
ROWS = [  # system-major, rater rows of one candidate together
    ("sysA", "d1", "1", "1", "rater1", S1, "The <v>trian</v> comes.", "Fluency/Spelling",
     "Minor"),
    ("sysA", "d1", "1", "1", "rater1", S1, "The trian comes<v>.</v>", "Fluency/Punctuation",
     "Minor"),
    ("sysA", "d1", "1", "1", "rater2", S1, "The trian comes.", "No-error", "no-error"),
    ("sysA", "d1", "2", "2", "rater1", "<v>Er</v> geht nach Hause.", "He goes home.",
     "Source error", "Minor"),
    ("sysA", "d1", "2", "2", "rater1", S2, "He goes<v></v> home.", "Accuracy/Omission",
     "Major"),
    ("sysA", "d1", "2", "2", "rater2", S2, "He goes home.", "Style/Awkward", "Neutral"),
    ("refB", "d1", "1", "1", "rater1", S1, "The train <v>arrives</v>.", "Fluency/Display",
     "Minor"),
    ("refB", "d1", "2", "2", "rater2", S2, "He goes home.", "Non-translation!", "Major"),
]


def _tsv(path: Path, rows, header: str = HEADER) -> Path:
    path.write_text(header + "\n" + "".join("\t".join(r) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def test_unmark_and_mark():
    assert unmark("a <v>bc</v> d") == ("a bc d", 2, 4)
    assert unmark("ab<v></v>c") == ("abc", 2, 2)
    assert unmark("plain") == ("plain", None, None)
    assert mark("a bc d", 2, 4) == "a <v>bc</v> d"
    for bad, needle in (("a <v>b", "without </v>"), ("a</v> b", "without <v>"),
                        ("</v>a<v>", "before"), ("<v>a</v><v>b</v>", "2 spans")):
        with pytest.raises(ValueError, match=needle):
            unmark(bad)


def test_import_builds_sources_candidates_and_spans(tmp_path):
    db, rep = read_mqm_tsv(_tsv(tmp_path / "m.tsv", ROWS))
    assert (rep.rows, rep.errors, rep.skipped) == (8, 7, [])
    assert [s.text for s in db.sources] == [S1, S2]
    assert [(s.doc, s.seg, s.extra_attrs["seg_id"]) for s in db.sources] == [
        ("d1", "1", "1"), ("d1", "2", "2")]
    assert db.systems() == ["sysA", "refB"]                  # human translations stay judged
    a1 = db.sources[0].targets[0]
    assert a1.text == "The trian comes."
    r1, r2 = a1.span_annotations
    assert (r1.judge, r2.judge, r2.errors) == ("rater1", "rater2", [])
    assert r1.errors[0] == ErrorSpan("Minor", "Fluency/Spelling", 4, 9)
    src_err, omission = db.sources[1].targets[0].span_annotations[0].errors
    assert (src_err.side, src_err.start, src_err.end) == ("source", 0, 2)
    assert omission.omission and omission.start == len("He goes")
    # score_mqm.py: rater1 1.1, rater2 0 -> -0.55; seg 2: rater1 1 + 5, rater2 0 -> -3
    got = mqm_scores(db)
    assert got[(0, "sysA", 0)] == pytest.approx(-0.55)
    assert got[(1, "sysA", 0)] == pytest.approx(-3.0)
    assert got[(1, "refB", 0)] == pytest.approx(-25.0)


@pytest.mark.parametrize("order", ["system", "segment"])
def test_round_trip_is_byte_identical(tmp_path, order):
    rows = ROWS if order == "system" else sorted(ROWS, key=lambda r: (int(r[3]), r[0] != "sysA"))
    src = _tsv(tmp_path / "in.tsv", rows)
    db, _ = read_mqm_tsv(src)
    # through the database file too
    db2 = loads(dumps(db))
    out = tmp_path / "out.tsv"
    assert write_mqm_tsv(db2, out) == len(rows)
    assert out.read_bytes() == src.read_bytes()


def test_round_trip_with_a_comment_column(tmp_path):
    rows = [r + (c,) for r, c in zip(ROWS, ["", "typo", "all fine", "", "x y", "", "", ""],
                                     strict=True)]
    src = _tsv(tmp_path / "in.tsv", rows, HEADER + "\tcomment")
    db, _ = read_mqm_tsv(src)
    assert db.sources[0].targets[0].span_annotations[0].errors[1].comment == "typo"
    write_mqm_tsv(loads(dumps(db)), tmp_path / "out.tsv")
    assert (tmp_path / "out.tsv").read_bytes() == src.read_bytes()


def test_interleaved_raters_keep_the_files_order_until_an_edit(tmp_path):
    rows = [ROWS[0], ROWS[2], ROWS[1], *ROWS[3:]]
    src = _tsv(tmp_path / "in.tsv", rows)
    db, _ = read_mqm_tsv(src)
    write_mqm_tsv(loads(dumps(db)), tmp_path / "out.tsv")      # through the database file
    assert (tmp_path / "out.tsv").read_bytes() == src.read_bytes()
    # an annotation edited to another number of rows: candidates grouped, raters in turn
    db.sources[0].targets[0].span_annotations[0].errors.pop()
    write_mqm_tsv(db, tmp_path / "out.tsv")
    out = (tmp_path / "out.tsv").read_text(encoding="utf-8").splitlines()
    assert sorted(out) == sorted([HEADER] + ["\t".join(r) for r in rows if r != ROWS[1]])
    assert out[1:3] == ["\t".join(r) for r in (ROWS[0], ROWS[2])]   # grouped by rater


@pytest.mark.parametrize("row,needle", [
    (("sysA", "d1", "3", "3", "r", "S", "a <v>b", "Other", "Major"), "<v> without </v>"),
    (("sysA", "d1", "1", "1", "r", S1, "The trian goes.", "Other", "Major"),
     "differs from system 'sysA'"),
    (("sysA", "d1", "1", "1", "r", "Der Zug geht.", "The trian comes.", "Other", "Major"),
     "differs from the source"),
    (("sysA", "d1", "3", "3", "r", "S", "T", "Other", "Huge"), "unknown severity"),
    (("sysA", "d1", "x", "3", "r", "S", "T", "Other", "Major"), "doc_id"),
    (("sysA", "d1", "3", "3", "r", "<v>S</v>", "<v>T</v>", "Other", "Major"), "both"),
    (("sysA", "d1", "1", "9", "r", S1, "The trian comes.", "Other", "Major"), "seg_id"),
    (("sysA", "d1", "3", "3", "r", "S", "T", "Other"), "8 fields"),
])
def test_strict_import_names_the_row_and_lenient_skips_it(tmp_path, row, needle):
    path = _tsv(tmp_path / "bad.tsv", [*ROWS, row, ROWS[0][:2] + ("4", "4") + ROWS[0][4:5]
                                       + ("X", "Y", "Other", "Minor")])
    with pytest.raises(InputFormatError, match=needle) as exc:
        read_mqm_tsv(path)
    assert exc.value.line == len(ROWS) + 2 and str(path) in str(exc.value)
    db, rep = read_mqm_tsv(path, lenient=True)
    assert [line for line, _ in rep.skipped] == [len(ROWS) + 2]
    assert needle in rep.skipped[0][1]
    assert rep.rows == len(ROWS) + 1 and len(db.sources) == 3      # the row after it counts


def test_header_weights_reference_lp(tmp_path):
    with pytest.raises(InputFormatError, match="missing rater"):
        read_mqm_tsv(_tsv(tmp_path / "h.tsv", [], HEADER.replace("rater", "judge")))
    with pytest.raises(OptionError):
        read_mqm_tsv(_tsv(tmp_path / "m.tsv", ROWS), weights="Major=5")
    db, _ = read_mqm_tsv(_tsv(tmp_path / "m.tsv", ROWS), weights="Major:1 Minor:1",
                         lp="de-en", reference="refB")
    assert mqm_scores(db)[(1, "refB", 0)] == -1.0                    # the given weights
    assert db.extra_attrs["mtme-lp"] == "de-en"
    refs = [t for s in db.sources for t in db.references(s)]
    assert [(t.system, t.text) for t in refs] == [("refB", "The train arrives."),
                                                  ("refB", "He goes home.")]
    assert "refB" in db.systems()                                    # still a judged candidate
    from evaltrans_qt.io.mtme import export_mtme
    files = {p.relative_to(tmp_path / "mt").as_posix()
             for p in export_mtme(db, tmp_path / "mt")}
    assert {"references/de-en.refB.txt", "system-outputs/de-en/refB.txt",
            "human-scores/de-en.mqm.seg.score", "human-scores/de-en.mqm.sys.score"} <= files
    sys_lines = (tmp_path / "mt/human-scores/de-en.mqm.sys.score").read_text().splitlines()
    # weights Major:1 Minor:1 (Neutral unnamed: 0): sysA seg 1 (2 + 0) / 2, seg 2 (2 + 0) / 2
    assert sys_lines == ["refB -1.0", "sysA -1.0"]
    back = loads(dumps(db))
    write_mqm_tsv(back, tmp_path / "o.tsv")                          # references not exported
    assert (tmp_path / "o.tsv").read_bytes() == (tmp_path / "m.tsv").read_bytes()
    with pytest.raises(InputFormatError, match="no system of that name"):
        read_mqm_tsv(tmp_path / "m.tsv", reference="refX")


# --------------------------------------------------------------------------- .etdb.xml
def _small() -> Database:
    db = Database()
    s = db.add_source("Der Zug kommt.", "d", "1")
    db.add_target(s, "The train comes & goes.", "A")
    return db


def test_errors_element_round_trips_and_files_without_spans_are_unchanged():
    db = _small()
    before = dumps(db)
    assert b"<errors" not in before
    t = db.sources[0].targets[0]
    t.span_annotations.append(SpanAnnotation("r1", [
        ErrorSpan("Major", "Accuracy/Mistranslation", 4, 9, comment='a "b" <c>'),
        ErrorSpan("Minor", "Accuracy/Omission", 3, 3, "source", seconds=1.5),
        ErrorSpan("minor", "Style/Awkward")], 12.5))
    t.span_annotations.append(SpanAnnotation(None, []))
    data = dumps(db)
    assert b'<error start="4" end="9" severity="Major"' in data and b">train</error>" in data
    back = loads(data)
    assert back.sources[0].targets[0].span_annotations == t.span_annotations
    assert dumps(back) == data
    t.span_annotations.clear()
    assert dumps(db) == before


@pytest.mark.parametrize("inner,needle", [
    ('<error start="4" end="9" severity="Major" category="A">trian</error>', "says 'trian'"),
    ('<error start="4" end="90" severity="Major" category="A"/>', "outside the target"),
    ('<error start="4" end="9" severity="Big" category="A">train</error>', "unknown severity"),
    ('<error start="4" severity="Major" category="A"/>', "both start and end"),
    ('<error start="x" end="9" severity="Major" category="A"/>', "whole number"),
    ('<error severity="Major"/>', "severity and category"),
    ('<error start="4" end="9" severity="Major" category="A" color="red">train</error>',
     "unknown attribute"),
])
def test_bad_errors_elements_name_the_line(inner, needle):
    data = dumps(_small()).replace(
        b"</t_sent>\n", b"</t_sent>\n        <errors judge=\"r\">\n" + inner.encode()
        + b"\n        </errors>\n")
    with pytest.raises(InputFormatError, match=needle) as exc:
        loads(data, "x.etdb.xml")
    assert exc.value.line is not None and exc.value.path == "x.etdb.xml"


def test_two_errors_elements_of_one_judge_are_refused():
    data = dumps(_small()).replace(b"</t_sent>\n", b'</t_sent><errors judge="r"/>'
                                   b'<errors judge="r"/>\n')
    with pytest.raises(InputFormatError, match="two <errors>"):
        loads(data)


# --------------------------------------------------------------------------- journal
def test_spans_change_is_journaled_replayed_and_undone(tmp_path):
    db = _small()
    jr = Journal(tmp_path / "x.journal")
    e1 = ErrorSpan("Major", "Accuracy", 4, 9, seconds=2.0)
    ch = jr.append(pc.spans_change(db, 0, 0, "r1", [e1], 10.0))
    undo = apply_entry(db, ch)
    ch2 = jr.append(pc.spans_change(db, 0, 0, "r1", [e1, ErrorSpan("Minor", "Other", 0, 0)]))
    apply_entry(db, ch2)
    jr.close()
    fresh = _small()
    report = replay(fresh, Journal(tmp_path / "x.journal").entries())
    assert len(report.applied) == 2 and not report.rejected
    assert fresh.sources[0].targets[0].span_annotations == \
        db.sources[0].targets[0].span_annotations
    for u in apply_entry(fresh, undo[0]):                  # undo the first: nothing left
        assert isinstance(u, pc.SpansChange) and u.errors is not None
    assert fresh.sources[0].targets[0].span_annotations == []
    bad = pc.spans_change(db, 0, 0, "r1", [ErrorSpan("Major", "A", 0, 99)])
    with pytest.raises(Exception, match="outside"):
        apply_entry(db, bad)


def test_a_garbled_spans_entry_is_skipped(tmp_path):
    p = tmp_path / "x.journal"
    good = pc.spans_change(_small(), 0, 0, "r", [ErrorSpan("Major", "A", 0, 3)])
    d = json.loads(good.to_json())
    d["errors"][0]["start"] = "0"
    p.write_text(good.to_json() + "\n" + json.dumps(d) + "\n", encoding="utf-8")
    jr = Journal(p)
    assert len(jr.entries()) == 1 and jr.skipped and "start" in jr.skipped[0][1]


# --------------------------------------------------------------------------- merge
def test_merge_of_two_judges_spans_reports_conflicts():
    a, b = _small(), _small()
    ta, tb = a.sources[0].targets[0], b.sources[0].targets[0]
    ta.span_annotations.append(SpanAnnotation("r1", [ErrorSpan("Major", "A", 0, 3)]))
    tb.span_annotations.append(SpanAnnotation("r2", [ErrorSpan("Minor", "B", 4, 9)]))
    tb.span_annotations.append(SpanAnnotation("r1", [ErrorSpan("Minor", "A", 0, 3)]))
    report = merge(a, b, "old")
    assert [x.judge for x in ta.span_annotations] == ["r1", "r2"]
    assert ta.span_annotations[0].errors[0].severity == "Major"       # kept ours
    assert any("error spans of judge r1 differ" in c for c in report.protocol_conflicts)


# --------------------------------------------------------------------------- JSONL
def test_spans_jsonl_round_trip_and_errors(tmp_path):
    db, _ = read_mqm_tsv(_tsv(tmp_path / "m.tsv", ROWS))
    out = tmp_path / "s.jsonl"
    n = write_spans_jsonl(db, out)
    assert n == 6
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert first["system"] == "sysA" and first["doc"] == "d1" and first["seg"] == "1"
    fresh, _ = read_mqm_tsv(_tsv(tmp_path / "m.tsv", ROWS))
    for t in (t for s in fresh.sources for t in s.targets):
        t.span_annotations.clear()
    for ch in read_spans_jsonl(out, fresh):
        apply_entry(fresh, ch)
    assert mqm_scores(fresh) == mqm_scores(db)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"system": "sysA", "seg": "1", "doc": "d1", "spans": []}\n'
                   '{"system": "sysA", "line": 2, "spans": [{"start": 0, "end": 99, '
                   '"severity": "major"}]}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match="span 1: span 0:99 is outside") as exc:
        read_spans_jsonl(bad, fresh, judge="xcomet")
    assert exc.value.line == 2
    ok = tmp_path / "ok.jsonl"
    ok.write_text('{"system": "sysA", "line": 2, "spans": [{"start": 0, "end": 2, '
                  '"severity": "major"}]}\n', encoding="utf-8")
    (ch,) = read_spans_jsonl(ok, fresh, judge="xcomet")
    assert ch.judge == "xcomet" and ch.errors == (ErrorSpan("major", "Other", 0, 2),)


# --------------------------------------------------------------------------- Marot's rows
MAROT = ("system\tdoc\tdocSegId\tglobalSegId\trater\tsource\ttarget\tcategory\tseverity\t"
         "metadata\t# Documentation: see the tool's page")


def _meta(**ms: int) -> str:
    """A row's metadata as the Marot/Anthea tools write it: events with their times."""
    return json.dumps({"timestamp": 1725456558197, "timing": {
        k.replace("_", "-"): {"count": 1, "timeMS": v, "log": [{"ts": 1725456544016}]}
        for k, v in ms.items()}, "marked_text": ""})


def test_marot_rows_give_seconds_and_round_trip(tmp_path):
    rows = [("sysA", "d1", "1", "7", "r3", S1, "The <v>trian</v> comes.", "Fluency/Spelling",
             "Minor", _meta(started_new_error=5454, chose_severity_minor=1200)),
            ("sysB", "d1", "1", "7", "r3", S1, "Train comes.", "No-error", "No-error",
             _meta(next_arrow=2234)),
            ("sysA", "d1", "1", "7", "r3", S1, "The trian comes<v>.</v>",
             "Fluency/Punctuation", "Minor", _meta(marked_error_span_end=3000)),
            ("sysA", "d1", "2", "8", "r3", S2, "He goes home.", "No-error", "No-error", "")]
    src = _tsv(tmp_path / "in.tsv", rows, MAROT)
    db, report = read_mqm_tsv(src)
    assert report.rows == 4 and db.sources[0].extra_attrs["seg_id"] == "7"
    a = db.sources[0].targets[0].span_annotations[0]
    assert [e.seconds for e in a.errors] == [6.654, 3.0] and a.seconds == 9.654
    assert db.sources[0].targets[1].span_annotations[0].seconds == 2.234
    assert db.sources[1].targets[0].span_annotations[0].seconds is None
    back = loads(dumps(db))                                 # the metadata kept in the file
    write_mqm_tsv(back, tmp_path / "out.tsv")
    assert (tmp_path / "out.tsv").read_bytes() == src.read_bytes()
    write_spans_jsonl(back, tmp_path / "s.jsonl")
    first = json.loads((tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["seconds"] == 9.654 and first["spans"][0]["metadata"] == rows[0][9]


@pytest.mark.parametrize("meta,needle", [
    ("{not json", "is not JSON"), ("[1, 2]", "not a JSON object"),
    ('{"timing": {"next-arrow": {"timeMS": -4}}}', "timeMS of 'next-arrow'")])
def test_bad_marot_metadata_names_the_row(tmp_path, meta, needle):
    rows = [("sysA", "d1", "1", "7", "r3", S1, "The trian comes.", "No-error", "No-error",
             _meta(next_arrow=10)),
            ("sysB", "d1", "1", "7", "r3", S1, "Train comes.", "No-error", "No-error", meta)]
    src = _tsv(tmp_path / "in.tsv", rows, MAROT)
    with pytest.raises(InputFormatError, match=r"in\.tsv:3: row 3: ") as exc:
        read_mqm_tsv(src)
    assert needle in str(exc.value)


def test_hands_on_the_wheel_rows_are_refused_or_skipped(tmp_path):
    rows = [("sysA", "d1", "1", "7", "r3", S1, "The <v>trian</v> comes.", "Fluency/Spelling",
             "HOTW-test", _meta(found_hands_on_the_wheel_error=800)),
            ("sysA", "d1", "1", "7", "r3", S1, "The trian comes<v>.</v>",
             "Fluency/Punctuation", "Minor", _meta(next_arrow=100))]
    src = _tsv(tmp_path / "in.tsv", rows, MAROT)
    with pytest.raises(InputFormatError, match="unknown severity 'HOTW-test'"):
        read_mqm_tsv(src)
    db, report = read_mqm_tsv(src, lenient=True)
    assert [n for n, _ in report.skipped] == [2] and report.rows == 1
    assert db.sources[0].targets[0].span_annotations[0].seconds == 0.1


def test_two_merged_imports_export_grouped_not_by_line(tmp_path):
    a = _tsv(tmp_path / "a.tsv", ROWS[:3])
    b = _tsv(tmp_path / "b.tsv", [r[:4] + (name,) + r[5:]
                                  for r, name in zip(ROWS[:3], ("rater9", "rater9", "rater8"),
                                                     strict=True)])
    db, _ = read_mqm_tsv(a)
    other, _ = read_mqm_tsv(b)
    merge(db, other)
    write_mqm_tsv(db, tmp_path / "out.tsv")
    out = (tmp_path / "out.tsv").read_text(encoding="utf-8").splitlines()
    # both files have lines 2-4: grouped by candidate and rater, not interleaved by line
    assert [r.split("\t")[4] for r in out[1:]] == ["rater1", "rater1", "rater2", "rater9",
                                                   "rater9", "rater8"]
