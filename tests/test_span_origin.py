"""The origin of an error annotation (``human`` | ``machine``): a machine's suggested spans
(imported xCOMET/GEMBA-MQM output, ``spans --suggest``) are stored apart from the judges'
annotations and counted by no human score -- the ``mqm`` column, ``mqm:<category>``, the
summary, the MQM TSV and mtme exports, the campaign agreement -- while the pre-filling
statistics still compare them with the judges'. Round trips through ``.etdb.xml``, the
journal (SIGKILL included) and JSON Lines; old files unchanged."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.campaign.agreement import (
    campaign_agreement,
    mqm_reliability,
    span_agreement,
)
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.protocol_scores import mqm, mqm_category, protocol_names
from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation, find_annotation
from evaltrans_qt.engine.human.spans.prefill import prefill_statistics
from evaltrans_qt.engine.human.spans.scores import (
    category_counts,
    has_spans,
    machine_mqm_system_scores,
    mqm_scores,
    summary,
)
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io.etdb import demo_database_path, load_database, save_database
from evaltrans_qt.io.journal import journal_path
from evaltrans_qt.io.mqm_tsv import mqm_rows
from evaltrans_qt.io.spans_jsonl import read_spans_jsonl, spans_records, write_spans_jsonl
from evaltrans_qt.span_session import SpanSessionModel
from evaltrans_qt.workspace import Workspace

MAJOR = ErrorSpan("Major", "Accuracy/Mistranslation", 4, 9)      # "trian"
MINOR = ErrorSpan("Minor", "Fluency/Grammar", 10, 15)            # "comes"


def _db() -> Database:
    """Two candidates of one source; ann and bob judged A, xcomet's spans on A and B."""
    db = Database()
    s = db.add_source("Der Zug kommt heute.", "d1", "1")
    a = db.add_target(s, "The trian comes today.", "A")
    b = db.add_target(s, "Train comes.", "B")
    a.span_annotations += [
        SpanAnnotation("ann", [MAJOR]),                                  # 5
        SpanAnnotation("bob", [MINOR]),                                  # 1
        SpanAnnotation("xcomet", [MAJOR, MINOR, ErrorSpan("Critical", "Other", 16, 21)],
                       origin="machine")]
    b.span_annotations.append(SpanAnnotation(
        "xcomet", [ErrorSpan("Major", "Accuracy/Omission", 0, 5)], origin="machine"))
    return db


# --------------------------------------------------------------------------- scores
def test_the_mqm_column_is_the_human_judges_alone():
    db = _db()
    # by hand: A = -(5 + 1) / 2 (ann, bob); B has no human annotation, so no MQM score
    assert mqm_scores(db) == {(0, "A", 0): -3.0}
    res = mqm(db)
    assert res.stats == {(0, "A", 0): (3.0, 1.0)}
    human_only = _db()
    for t in human_only.sources[0].targets:
        t.span_annotations = [a for a in t.span_annotations if a.origin == "human"]
    assert mqm(human_only).stats == res.stats
    assert mqm_category(db, "Accuracy").stats == {(0, "A", 0): (0.5, 1.0)}  # ann 1, bob 0
    with pytest.raises(Exception, match="no error of category 'Other'"):
        mqm_category(db, "Other")                # only xcomet's Critical span has it
    assert category_counts(db) == {"A": {"Accuracy": 1, "Accuracy/Mistranslation": 1,
                                         "Fluency": 1, "Fluency/Grammar": 1}}
    s = summary(db)
    assert (s["A"]["mqm"], s["A"]["mqm_segments"]) == (-3.0, 1)
    assert (s["B"]["mqm"], s["B"]["mqm_segments"]) == (None, 0)
    assert s["A"]["severities"] == {"Major": 1, "Minor": 1}
    # the machine's own column: Major 5 + Minor 1 + Critical 0 (score_mqm.py's default)
    assert machine_mqm_system_scores(db) == {"xcomet": {"A": -6.0, "B": -5.0}}
    assert s["A"]["mqm_machine"] == {"xcomet": -6.0} and s["B"]["mqm_machine"] == {
        "xcomet": -5.0}
    from evaltrans_qt.io.mtme import mqm_tables
    assert mqm_tables(db, ["A", "B"], 1) == {"seg": ["A -3.0"], "sys": ["A -3.0"]}
    rows = list(mqm_rows(db))[1:]                              # the TSV export: ann, bob
    assert [(r[4], r[8]) for r in rows] == [("ann", "Major"), ("bob", "Minor")]


def test_machine_spans_alone_make_no_mqm_column():
    db = _db()
    for t in db.sources[0].targets:
        t.span_annotations = [a for a in t.span_annotations if a.origin == "machine"]
    assert not has_spans(db) and has_spans(db, origin=None)
    assert "mqm" not in protocol_names(db) and mqm_scores(db) == {}
    assert list(mqm_rows(db))[1:] == []                       # the TSV export: no rater


def test_agreement_ignores_machine_annotations():
    db = _db()
    rel = mqm_reliability(db)
    assert rel.judges == ("ann", "bob")
    sa = span_agreement(db)
    assert sa is not None and [(p.a, p.b) for p in sa.pairs] == [("ann", "bob")]
    assert campaign_agreement(db).judges == ("ann", "bob")
    only_one = _db()
    t = only_one.sources[0].targets[0]
    t.span_annotations = [a for a in t.span_annotations if a.judge != "bob"]
    assert span_agreement(only_one) is None                 # ann and a machine: no pair


def test_campaigns_see_no_judge_in_a_machine():
    from evaltrans_qt.engine.campaign.adjudication import span_disagreement
    from evaltrans_qt.engine.campaign.plan import judged
    db = _db()
    d = span_disagreement(db, (0, 0), always=True)
    assert d is not None and sorted(d.spans) == ["ann", "bob"]
    b = db.sources[0].targets[1]                 # xcomet's spans only: not judged
    assert not judged(b, None) and judged(db.sources[0].targets[0], None)


def test_prefill_statistics_compare_the_machine_with_the_judges():
    st = prefill_statistics(_db(), "xcomet")
    # ann kept MAJOR, left MINOR and the Critical alone; bob kept MINOR, left the others
    assert (st.candidates, st.kept, st.removed, st.machine_spans) == (2, 2, 4, 6)
    # a database written before origins: the machine's spans were a judge's
    legacy = _db()
    for _, t in legacy.iter_candidates():
        for a in t.span_annotations:
            a.origin = "human"
    assert prefill_statistics(legacy, "xcomet") == st


# --------------------------------------------------------------------------- .etdb.xml
def test_etdb_round_trip_and_bad_origin(tmp_path):
    db = _db()
    p = tmp_path / "o.etdb.xml"
    save_database(db, p)
    text = p.read_text(encoding="utf-8")
    assert text.count('<errors judge="xcomet" origin="machine">') == 2
    assert '<errors judge="ann">' in text and "origin=\"human\"" not in text
    back = load_database(p)
    for t0, t1 in zip(db.sources[0].targets, back.sources[0].targets, strict=True):
        assert t1.span_annotations == t0.span_annotations
    # a judge of the same name as the machine: two annotations, told apart by origin
    t = back.sources[0].targets[0]
    t.span_annotations.append(SpanAnnotation("xcomet", []))
    save_database(back, p)
    again = load_database(p).sources[0].targets[0].span_annotations
    assert [(a.judge, a.origin) for a in again if a.judge == "xcomet"] == [
        ("xcomet", "machine"), ("xcomet", "human")]
    p.write_text(text.replace('origin="machine"', 'origin="robot"', 1), encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"o\.etdb\.xml:\d+: origin 'robot' of <errors>"):
        load_database(p)


def test_old_files_are_written_again_unchanged(tmp_path):
    src = demo_database_path()
    db = load_database(src)
    assert {a.origin for _, t in db.iter_candidates() for a in t.span_annotations} == {"human"}
    out = tmp_path / "demo.etdb.xml"
    save_database(db, out)
    assert out.read_bytes() == src.read_bytes()


# --------------------------------------------------------------------------- journal
def test_journal_entries_carry_the_origin_and_old_ones_replay_as_human():
    db = _db()
    ch = pc.spans_change(db, 0, 1, "ter", [ErrorSpan("Minor", "Other", 0, 5)],
                         origin="machine")
    d = json.loads(ch.to_json())
    assert d["origin"] == "machine"
    back = pc.from_dict(d)
    assert back == ch
    old = {k: v for k, v in d.items() if k != "origin"}         # written before origins
    assert pc.from_dict(old).origin == "human"
    with pytest.raises(Exception, match="origin 'robot'"):
        pc.from_dict({**d, "origin": "robot"})
    # applying it touches the machine's annotation only; its inverse removes it again
    t = db.sources[0].targets[1]
    human = pc.spans_change(db, 0, 1, "ter", [], origin="human")
    pc.apply_protocol_change(db, human)
    (undo,) = pc.apply_protocol_change(db, ch)
    assert [(a.judge, a.origin, len(a.errors)) for a in t.span_annotations] == [
        ("xcomet", "machine", 1), ("ter", "human", 0), ("ter", "machine", 1)]
    pc.apply_protocol_change(db, undo)
    assert find_annotation(t.span_annotations, "ter", origin="machine") is None
    assert find_annotation(t.span_annotations, "ter", origin="human") is not None


def test_sigkill_keeps_machine_and_human_annotations_apart(tmp_path):
    p = tmp_path / "k.etdb.xml"
    db = _db()
    for t in db.sources[0].targets:
        t.span_annotations.clear()
    save_database(db, p)
    code = textwrap.dedent(f"""
        import os, signal
        from evaltrans_qt.engine.human.spans.model import ErrorSpan
        from evaltrans_qt.io import protocol_changes as pc
        from evaltrans_qt.span_session import SpanSessionModel
        from evaltrans_qt.workspace import Workspace
        ws = Workspace.open({str(p)!r}, autosave=False)
        ws.commit(pc.spans_change(ws.database, 0, 0, "xcomet",
                                  [ErrorSpan("Major", "Other", 4, 9)], origin="machine"))
        m = SpanSessionModel(ws, "xcomet")        # a judge who shares the machine's name
        m.use_suggestions("xcomet")
        m.reject_suggestion(0)
        m.add_error(10, 15, "minor", "Fluency/Grammar")
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr.decode()
    assert not load_database(p).sources[0].targets[0].span_annotations      # not saved
    w = Workspace.open(p, autosave=False)
    try:
        assert w.recovered is not None and len(w.recovered.applied) == 3
        anns = w.database.sources[0].targets[0].span_annotations
        machine = find_annotation(anns, "xcomet", origin="machine")
        human = find_annotation(anns, "xcomet", origin="human")
        assert machine is not None and [e.start for e in machine.errors] == [4]
        assert human is not None and [e.start for e in human.errors] == [10]
        assert [r.error.start for r in human.rejected] == [4]
        assert mqm_scores(w.database) == {(0, "A", 0): -1.0}    # the human Minor only
    finally:
        w.close()
    assert os.path.exists(journal_path(p))


# --------------------------------------------------------------------------- JSON Lines
def test_jsonl_import_defaults_to_machine_and_round_trips_human(tmp_path):
    db = _db()
    recs = spans_records(db)
    assert [(r["judge"], r["origin"]) for r in recs] == [
        ("ann", "human"), ("bob", "human"), ("xcomet", "machine"), ("xcomet", "machine")]
    p = tmp_path / "s.jsonl"
    write_spans_jsonl(db, p)
    fresh = _db()
    for t in fresh.sources[0].targets:
        t.span_annotations.clear()
    for ch in read_spans_jsonl(p, fresh):
        pc.apply_protocol_change(fresh, ch)
    for t0, t1 in zip(db.sources[0].targets, fresh.sources[0].targets, strict=True):
        assert t1.span_annotations == t0.span_annotations        # ann and bob stay human
    q = tmp_path / "x.jsonl"
    q.write_text('{"system": "A", "line": 1, "judge": "gemba", "spans": []}\n'
                 '{"system": "A", "line": 1, "judge": "gemba", "origin": "human", '
                 '"spans": []}\n', encoding="utf-8")
    a, b = read_spans_jsonl(q, fresh)                          # one of each: no clash
    assert (a.origin, b.origin) == ("machine", "human")
    with pytest.raises(InputFormatError, match=r"x\.jsonl:2: a second object"):
        read_spans_jsonl(q, fresh, origin="human")            # now both are gemba's, human
    q.write_text('{"system": "A", "line": 1, "origin": "robot", "spans": []}\n',
                 encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"x\.jsonl:1: 'origin' must be one of"):
        read_spans_jsonl(q, fresh)
    q.write_text('{"system": "A", "line": 1, "judge": "j", "spans": [], "rejected": '
                 '[{"machine": "m", "start": 0, "end": 3, "severity": "Major"}]}\n',
                 encoding="utf-8")
    with pytest.raises(InputFormatError, match="not to a machine's suggested spans"):
        read_spans_jsonl(q, fresh)


# --------------------------------------------------------------------------- merge
def test_merge_is_per_judge_protocol_and_origin():
    from evaltrans_qt.engine.data.merge import merge
    ours, theirs = _db(), _db()
    ot, tt = ours.sources[0].targets[0], theirs.sources[0].targets[0]
    ot.span_annotations = [a for a in ot.span_annotations if a.origin == "human"]
    tt.span_annotations.append(SpanAnnotation("xcomet", [MAJOR]))   # a judge named so
    report = merge(ours, theirs)
    assert not report.protocol_conflicts
    assert sorted((a.judge, a.origin) for a in ot.span_annotations) == [
        ("ann", "human"), ("bob", "human"), ("xcomet", "human"), ("xcomet", "machine")]
    other = _db()
    other.sources[0].targets[0].span_annotations[2].errors.pop()
    report = merge(other, theirs)
    assert any("MQM error spans of machine xcomet differ" in c
               for c in report.protocol_conflicts)


# --------------------------------------------------------------------------- session
@pytest.fixture
def ws(tmp_path):
    p = tmp_path / "w.etdb.xml"
    save_database(_db(), p)
    w = Workspace.open(p, autosave=False)
    yield w
    w.close()


def test_the_session_takes_suggestions_from_the_machine_annotation(ws):
    m = SpanSessionModel(ws, "cleo", clock=lambda: 0.0)
    m.use_suggestions("xcomet")
    assert [e.start for e in m.suggestions()] == [4, 10, 16]
    m.accept_suggestion(0)
    a = m.annotation()
    assert a is not None and a.origin == "human" and a.errors == [MAJOR]
    # cleo's acceptance is a judgement: the mqm column now has three judges on A
    assert mqm_scores(ws.database) == {(0, "A", 0): -(5 + 1 + 5) / 3}
    # a judge called like the machine edits a human annotation of their own
    x = SpanSessionModel(ws, "xcomet", clock=lambda: 0.0)
    x.use_suggestions("xcomet")
    assert x.annotation() is None and len(x.suggestions()) == 3
    x.no_error()
    anns = ws.database.sources[0].targets[0].span_annotations
    assert find_annotation(anns, "xcomet", origin="machine").errors != []
    assert find_annotation(anns, "xcomet", origin="human").errors == []


# --------------------------------------------------------------------------- command line
def test_cli_list_and_human_json_tell_the_machine_apart(ws, capsys):
    path = str(ws.path)
    ws.close()
    assert main(["spans", path, "--source", "1", "--system", "A", "--list", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["annotations"]
    assert [(a["judge"], a["origin"]) for a in got] == [
        ("ann", "human"), ("bob", "human"), ("xcomet", "machine")]
    assert main(["spans", path, "--source", "1", "--system", "A", "--list"]) == 0
    assert "judge xcomet (MQM, machine suggestions): 3 errors" in capsys.readouterr().out
    assert main(["human", path, "--json"]) == 0
    spans = json.loads(capsys.readouterr().out)["spans"]
    assert spans["A"]["mqm"] == -3.0 and spans["A"]["mqm_machine"] == {"xcomet": -6.0}
    # --add edits the judge's human annotation, never the machine's of the same name
    assert main(["spans", path, "--source", "1", "--system", "B", "--judge", "xcomet",
                 "--add", "0:5", "--severity", "minor"]) == 0
    anns = load_database(path).sources[0].targets[1].span_annotations
    assert [(a.origin, len(a.errors)) for a in anns] == [("machine", 1), ("human", 1)]


def test_suggest_changes_no_human_column(tmp_path, capsys):
    """TER's suggested spans on the demo leave ``correlate --human mqm`` (and so TER's
    correlation with MQM) exactly as it was: no circularity."""
    import shutil
    demo = tmp_path / "demo.etdb.xml"
    shutil.copy(demo_database_path(), demo)
    args = ["correlate", str(demo), "--human", "mqm", "--measures", "ter,bleu", "--level",
            "sentence", "--json"]
    assert main(args) == 0
    before = json.loads(capsys.readouterr().out)
    assert main(["spans", str(demo), "--suggest", "ter"]) == 0
    db = load_database(demo)
    ter = [a for _, t in db.iter_candidates() for a in t.span_annotations if a.judge == "ter"]
    assert ter and {a.origin for a in ter} == {"machine"} and any(a.errors for a in ter)
    capsys.readouterr()
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == before
