"""The protocol of an error annotation (``mqm`` | ``esa``) and explicit rejections of
suggested spans, through every layer: the model and scores, the ``.etdb.xml`` extension
(old files unchanged byte for byte), the journal (old entries still replay), JSON Lines,
merge, the MQM TSV export, the annotation session and the pre-filling statistics."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.spans.model import (
    ErrorSpan,
    Rejection,
    SpanAnnotation,
    find_annotation,
)
from evaltrans_qt.engine.human.spans.prefill import compare, prefill_statistics
from evaltrans_qt.engine.human.spans.scores import (
    category_counts,
    mqm_penalties,
    summary,
)
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io.etdb import demo_database_path, load_database, save_database
from evaltrans_qt.io.mqm_tsv import mqm_rows
from evaltrans_qt.io.spans_jsonl import read_spans_jsonl, spans_records, write_spans_jsonl
from evaltrans_qt.span_session import SpanSessionModel
from evaltrans_qt.workspace import Workspace


def _db() -> Database:
    db = Database()
    s = db.add_source("Der Zug kommt heute.", "d1", "1")
    t = db.add_target(s, "The trian comes today.", "A")
    db.add_target(s, "Train comes.", "B")
    t.span_annotations += [
        SpanAnnotation("j", [ErrorSpan("Major", "Accuracy/Mistranslation", 4, 9)]),
        SpanAnnotation("j", [ErrorSpan("Minor", "Other", 16, 21)], 20.0, protocol="esa",
                       rejected=[Rejection("xcomet", ErrorSpan("Major", "Other", 0, 3))])]
    return db


# --------------------------------------------------------------------------- scores
def test_esa_spans_do_not_enter_mqm_and_are_counted_apart():
    db = _db()
    assert mqm_penalties(db) == {(0, "A", 0): 5.0}          # the Minor ESA span weighs nothing
    assert category_counts(db)["A"] == {"Accuracy": 1, "Accuracy/Mistranslation": 1}
    assert category_counts(db, protocol="esa")["A"] == {"Other": 1}
    s = summary(db)["A"]
    assert (s["mqm"], s["mqm_segments"], s["esa_segments"]) == (-5.0, 1, 1)
    assert s["severities"] == {"Major": 1} and s["esa_severities"] == {"Minor": 1}
    t = db.sources[0].targets[0]
    assert find_annotation(t.span_annotations, "j", "esa").errors[0].category == "Other"
    assert find_annotation(t.span_annotations, "j", "mqm").errors[0].severity == "Major"


def test_demo_mqm_counts_the_mqm_judges_only():
    db = load_database(demo_database_path())
    s = summary(db)
    # anna and ben (MQM) annotated sources 1-3, eva (ESA) sources 4-5
    assert {v["mqm_segments"] for v in s.values()} == {3}
    assert {v["esa_segments"] for v in s.values()} == {2}
    assert all(a.protocol == ("esa" if a.judge == "eva" else "mqm")
               for _, t in db.iter_candidates() for a in t.span_annotations)
    assert s["RuleMT"]["esa_categories"] == {"Accuracy": 1, "Accuracy/Omission": 1,
                                             "Other": 3}


# --------------------------------------------------------------------------- .etdb.xml
def test_etdb_round_trip_and_old_files_unchanged(tmp_path):
    db = _db()
    p = tmp_path / "a.etdb.xml"
    save_database(db, p)
    text = p.read_text(encoding="utf-8")
    assert '<errors judge="j" protocol="esa" seconds="20">' in text
    assert '<rejected machine="xcomet" start="0" end="3" severity="Major" ' \
           'category="Other">The</rejected>' in text
    assert '<errors judge="j">' in text                      # mqm: no attribute
    back = load_database(p)
    t0, t1 = (x.sources[0].targets[0] for x in (db, back))
    assert t1.span_annotations == t0.span_annotations
    # a file written before the protocol existed: read as MQM, written again unchanged
    old = subprocess.run(["git", "show", "54a78f3:resources/demo.etdb.xml"],
                         capture_output=True, cwd=demo_database_path().parent.parent)
    if old.returncode != 0:
        pytest.skip("the repository's history is not available")
    q = tmp_path / "old.etdb.xml"
    q.write_bytes(old.stdout)
    odb = load_database(q)
    assert {a.protocol for _, t in odb.iter_candidates() for a in t.span_annotations} == {"mqm"}
    r = tmp_path / "again.etdb.xml"
    save_database(odb, r)
    assert r.read_bytes() == old.stdout


@pytest.mark.parametrize("errors, needle", [
    ('<errors judge="x" protocol="dqf"/>', "protocol 'dqf' of <errors>"),
    ('<errors judge="x"/><errors judge="x"/>', "two <errors> of judge 'x', protocol mqm and origin human"),
    ('<errors judge="x"><rejected machine="m" start="0" end="3" severity="Major" '
     'category="Other">Zug</rejected></errors>', "says 'Zug'"),
    ('<errors judge="x"><rejected start="0" end="1" severity="Major" category="O" '
     'who="m">T</rejected></errors>', "unknown attribute 'who' of <rejected>"),
])
def test_bad_protocol_or_rejection_is_refused_naming_the_line(tmp_path, errors, needle):
    p = tmp_path / "b.etdb.xml"
    p.write_text('<?xml version="1.0" encoding="utf-8" ?>\n<database>\n'
                 '  <source doc="d" seg="1">\n    <s_sent>Der Zug.</s_sent>\n'
                 '    <targets>\n    <tgt sys="A">\n      <t_sent>The train.</t_sent>\n'
                 f'      {errors}\n    </tgt>\n    </targets>\n  </source>\n</database>\n',
                 encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"b\.etdb\.xml:8: ") as exc:
        load_database(p)
    assert needle in str(exc.value)


def test_two_protocols_of_one_judge_coexist(tmp_path):
    p = tmp_path / "c.etdb.xml"
    save_database(_db(), p)
    t = load_database(p).sources[0].targets[0]
    assert [(a.judge, a.protocol) for a in t.span_annotations] == [("j", "mqm"), ("j", "esa")]


# --------------------------------------------------------------------------- journal
def test_journal_entries_old_and_new():
    db = _db()
    old_entry = {"type": "spans", "source": "Der Zug kommt heute.", "doc": "d1", "seg": "1",
                 "target": "Train comes.", "system": "B", "judge": "j",
                 "errors": [{"severity": "Minor", "category": "Other", "start": 0,
                             "end": 5, "side": "target", "comment": None, "seconds": None}],
                 "seconds": 3, "target_index": 1, "seq": 4}
    ch = pc.from_dict(old_entry)
    assert isinstance(ch, pc.SpansChange) and ch.protocol == "mqm" and ch.rejected == ()
    pc.apply_protocol_change(db, ch)
    assert db.sources[0].targets[1].span_annotations[0].protocol == "mqm"
    # an ESA change leaves the judge's MQM annotation alone; its inverse restores
    new = pc.spans_change(db, 0, 0, "j", [], 4.0, "esa",
                          [Rejection("m", ErrorSpan("Minor", "Other", 4, 9))])
    back = pc.from_dict(json.loads(new.to_json()))
    assert back == new
    t = db.sources[0].targets[0]
    undo = pc.apply_protocol_change(db, back)
    esa = find_annotation(t.span_annotations, "j", "esa")
    assert esa.errors == [] and esa.rejected == [Rejection("m", ErrorSpan("Minor", "Other",
                                                                          4, 9))]
    assert find_annotation(t.span_annotations, "j", "mqm").errors[0].start == 4
    pc.apply_protocol_change(db, undo[0])
    esa = find_annotation(t.span_annotations, "j", "esa")
    assert esa.errors[0].category == "Other" and esa.rejected[0].machine == "xcomet"
    with pytest.raises(Exception, match="protocol 'x'"):
        pc.from_dict({**json.loads(new.to_json()), "protocol": "x"})


# --------------------------------------------------------------------------- JSONL, merge, TSV
def test_jsonl_protocol_and_rejections_round_trip(tmp_path):
    db = _db()
    recs = spans_records(db)
    assert [r["protocol"] for r in recs] == ["mqm", "esa"]
    assert recs[1]["rejected"] == [{"machine": "xcomet", "start": 0, "end": 3,
                                    "severity": "Major", "category": "Other"}]
    p = tmp_path / "s.jsonl"
    write_spans_jsonl(db, p)
    fresh = _db()
    for t in fresh.sources[0].targets:
        t.span_annotations.clear()
    for ch in read_spans_jsonl(p, fresh):
        pc.apply_protocol_change(fresh, ch)
    assert fresh.sources[0].targets[0].span_annotations == db.sources[0].targets[0].span_annotations
    p.write_text('{"system": "A", "line": 1, "protocol": "esa", "spans": []}\n'
                 '{"system": "A", "line": 1, "protocol": "psqm", "spans": []}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"s\.jsonl:2: ") as exc:
        read_spans_jsonl(p, fresh)
    assert "'protocol' must be one of mqm, esa" in str(exc.value)


def test_merge_is_per_judge_and_protocol():
    from evaltrans_qt.engine.data.merge import merge
    ours, theirs = _db(), _db()
    ta = theirs.sources[0].targets[0]
    ta.span_annotations = [a for a in ta.span_annotations if a.protocol == "esa"]
    ta.span_annotations[0].rejected = []
    ot = ours.sources[0].targets[0]
    ot.span_annotations = [a for a in ot.span_annotations if a.protocol == "mqm"]
    report = merge(ours, theirs)
    assert sorted(a.protocol for a in ot.span_annotations) == ["esa", "mqm"]
    assert not report.protocol_conflicts
    again = _db()                                           # its ESA one differs: the rejection
    report = merge(again, theirs)
    assert any("ESA error spans of judge j differ" in c for c in report.protocol_conflicts)
    assert find_annotation(again.sources[0].targets[0].span_annotations, "j",
                           "esa").rejected                    # ours kept


def test_mqm_tsv_export_leaves_esa_annotations_out():
    rows = list(mqm_rows(_db()))
    assert len(rows) == 2 and rows[1][4] == "j" and rows[1][8] == "Major"


# --------------------------------------------------------------------------- prefill
def test_explicit_rejections_are_told_apart_from_spans_left_alone():
    machine = [ErrorSpan("Major", "Accuracy", 0, 5),          # kept
               ErrorSpan("Minor", "Fluency", 10, 15),         # rejected explicitly
               ErrorSpan("Minor", "Fluency", 20, 24),         # changed
               ErrorSpan("Major", "Accuracy", 30, 35)]        # left alone: removed
    final = [ErrorSpan("Major", "Accuracy", 0, 5), ErrorSpan("Minor", "Style", 21, 23),
             ErrorSpan("Major", "Style", 11, 12)]              # over the rejected one: added
    c = compare(machine, final, [machine[1]])
    assert (c.kept, c.rejected, c.changed, c.removed, c.added) == (1, 1, 1, 1, 1)
    assert c.machine_spans == 4 and c.kept_share == 0.25 and c.rejected_share == 0.25
    assert compare(machine, final).rejected == 0            # without the record: changed
    d = c.to_dict()
    assert d["rejected"] == 1 and d["rejected_share"] == 0.25


# --------------------------------------------------------------------------- the session
@pytest.fixture
def ws(tmp_path):
    db = _db()
    t = db.sources[0].targets[0]
    t.span_annotations = [SpanAnnotation("m", [ErrorSpan("Major", "Other", 0, 3),
                                               ErrorSpan("Minor", "Other", 16, 21)])]
    p = tmp_path / "w.etdb.xml"
    save_database(db, p)
    w = Workspace.open(p, autosave=False)
    yield w
    w.close()


def test_session_records_rejections_and_its_protocol(ws):
    m = SpanSessionModel(ws, "j", protocol="esa", clock=lambda: 0.0, stamp=lambda: "T")
    m.use_suggestions("m")
    assert len(m.suggestions()) == 2
    m.reject_suggestion(0)                                    # "The"
    a = m.annotation()
    assert a is not None and a.protocol == "esa" and a.errors == []
    assert a.rejected == [Rejection("m", ErrorSpan("Major", "Other", 0, 3))]
    assert [e.start for e in m.suggestions()] == [16]
    machine = ws.database.sources[0].targets[0].span_annotations[0]
    machine.errors = [replace(e, seconds=2.0) for e in machine.errors]     # imported again
    assert [e.start for e in m.suggestions()] == [16]       # still rejected: same span
    st = prefill_statistics(ws.database, "m")
    assert (st.rejected, st.removed, st.kept) == (1, 1, 0)
    m.undo()                                                  # the suggestion is back
    assert len(m.suggestions()) == 2 and m.annotation() is None
    m.redo()
    m.accept_suggestion(0)                                    # the other one, kept
    st = prefill_statistics(ws.database, "m")
    assert (st.kept, st.rejected, st.removed) == (1, 1, 0)
    # an MQM session of the same judge does not see the ESA annotation
    q = SpanSessionModel(ws, "j", protocol="mqm", clock=lambda: 0.0)
    assert q.annotation() is None and q.errors() == []
    q.add_error(4, 9, "Major", "Accuracy/Mistranslation")
    t = ws.database.sources[0].targets[0]
    assert sorted(a.protocol for a in t.span_annotations if a.judge == "j") == ["esa", "mqm"]
    # j's MQM penalty is 5 (the Major); the ESA spans (a Minor) do not add to it
    assert mqm_penalties(ws.database, judge="j", all_judges=False)[(0, "A", 0)] == 5.0
