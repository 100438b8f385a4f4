"""Adjudication: the disagreements (engine/campaign/adjudication.py) and the Qt-free session
that records final judgements as the judge ``adjudicated`` (evaltrans_qt/
adjudication_session.py): score spread and lone spans, take / set / add / remove / clear,
undo and redo through the workspace's history, the journal, and recovery after SIGKILL."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.adjudication_session import AdjudicationSession
from evaltrans_qt.engine.campaign.adjudication import (
    find_disagreements,
    lone_spans,
    score_disagreement,
    span_disagreement,
)
from evaltrans_qt.engine.campaign.agreement import ADJUDICATED
from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation
from evaltrans_qt.engine.human.spans.prefill import overlaps
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.journal import Journal, journal_path
from evaltrans_qt.workspace import Workspace


def _db() -> Database:
    """Three candidates judged by anna and ben on a 1..5 scale (count 6, firstvalid 1:
    range 4), with MQM spans on the first two."""
    db = Database([Levels("fluency", 6, firstvalid=1)])
    db.ensure_reference_class()
    for k, (a, b) in enumerate([(1, 5), (3, 4), (2, 4)]):
        src = db.add_source(f"Quelle {k}.", doc="d", seg=str(k + 1))
        t = db.add_target(src, f"the candidate number {k} here", system="S")
        t.set_score("fluency", a, "anna")
        t.set_score("fluency", b, "ben")
    t0 = db.sources[0].targets[0]
    t0.span_annotations = [
        SpanAnnotation("anna", [ErrorSpan("Major", "Accuracy", 4, 13),
                                ErrorSpan("Minor", "Fluency", 21, 22)]),
        SpanAnnotation("ben", [ErrorSpan("Minor", "Accuracy", 4, 9)])]
    t1 = db.sources[1].targets[0]
    t1.span_annotations = [SpanAnnotation("anna", [ErrorSpan("Minor", "Style", 0, 3)]),
                           SpanAnnotation("ben", [ErrorSpan("Minor", "Style", 0, 3)])]
    return db


def test_score_spread_beyond_a_share_of_the_scale():
    db = _db()
    d = score_disagreement(db, (0, 0), "fluency", 0.25)
    assert d is not None and d.spread == 4.0 and d.scores == {"anna": 1.0, "ben": 5.0}
    assert score_disagreement(db, (1, 0), "fluency", 0.25) is None        # 1 <= 0.25 * 4
    assert score_disagreement(db, (2, 0), "fluency", 0.25) is not None    # 2 > 1
    assert score_disagreement(db, (2, 0), "fluency", 0.5) is None         # 2 <= 2
    assert score_disagreement(db, (1, 0), "fluency", 0.25, always=True).spread == 1.0


def test_lone_spans_and_severity():
    db = _db()
    d = span_disagreement(db, (0, 0))
    # anna's 4:13 overlaps ben's 4:9; anna's 21:22 is hers alone
    assert d is not None and [(x.judge, x.index) for x in d.lone] == [("anna", 1)]
    assert span_disagreement(db, (1, 0)) is None                          # the same span
    strict = span_disagreement(db, (0, 0), severity=True)                 # Major vs Minor
    assert [(x.judge, x.index) for x in strict.lone] == [("anna", 0), ("anna", 1), ("ben", 0)]
    assert lone_spans({"a": [ErrorSpan("Minor", "X", 3, 3)],
                       "b": [ErrorSpan("Minor", "X", 0, 5)]}) == []       # omission inside


def test_find_disagreements_in_database_order():
    got = [(d.item, d.kind, d.name) for d in find_disagreements(_db(), 0.25)]
    assert got == [((0, 0), "score", "fluency"), ((0, 0), "spans", "mqm"),
                   ((2, 0), "score", "fluency")]
    assert [d.item for d in find_disagreements(_db(), 0.25, spans=False)] == [(0, 0), (2, 0)]
    with pytest.raises(ScoreError, match="no score class 'x'"):
        find_disagreements(_db(), classes=["x"])
    with pytest.raises(ScoreError, match=">= 0"):
        find_disagreements(_db(), -1)


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "c.etdb.xml"
    save_database(_db(), p)
    return p


@pytest.fixture
def ws(path):
    w = Workspace.open(path, autosave=False)
    yield w
    w.close()


def test_session_records_final_judgements_undoably(ws, path):
    s = AdjudicationSession(ws, 0.25)
    assert len(s) == 3 and s.progress() == (0, 3)
    seen: list[int] = []
    s.changed.connect(seen.append)
    assert s.current().kind == "score"
    s.take("ben")
    assert s.current().final == 5.0 and s.progress() == (1, 3)
    s.set_score(3)
    assert s.current().final == 3.0
    with pytest.raises(ScoreError, match="not one of its levels"):
        s.set_score(7)
    with pytest.raises(ScoreError, match="not a spans one"):
        s.add_span("anna", 0)
    with pytest.raises(ScoreError, match="'eva' did not judge"):
        s.take("eva")
    assert s.undo() and s.current().final == 5.0
    assert s.redo() and s.current().final == 3.0
    # the annotators' own scores are untouched
    t = ws.database.sources[0].targets[0]
    assert {(x.judge, x.value) for x in t.scores if x.cls == "fluency"} == {
        ("anna", 1.0), ("ben", 5.0), (ADJUDICATED, 3.0)}
    assert s.next() and s.current().kind == "spans"
    s.add_span("anna", 1)
    s.add_span("ben", 0)
    assert s.current().final == (ErrorSpan("Minor", "Fluency", 21, 22),
                                 ErrorSpan("Minor", "Accuracy", 4, 9))
    with pytest.raises(ScoreError, match="already"):
        s.add_span("ben", 0)
    s.remove_span(0)
    assert s.current().final == (ErrorSpan("Minor", "Accuracy", 4, 9),)
    assert s.undo() and len(s.current().final) == 2
    s.take("anna")
    assert len(s.current().final) == 2 and s.current().final[0].severity == "Major"
    assert s.clear() and s.current().final is None and not s.clear()
    assert s.undo() and s.current().final is not None
    s.set_spans([])                                        # "no error" is a judgement too
    assert s.current().final == () and s.current().adjudicated
    assert s.progress() == (2, 3)
    assert s.next_open() and s.index == 2
    s.take("anna")
    assert not s.next_open()
    assert seen and set(seen) == {0, 1, 2}
    # every step went through the journal as the adjudicated judge's
    entries = Journal(journal_path(path)).entries()
    assert entries and {getattr(e, "judge", None) for e in entries} == {ADJUDICATED}
    assert len(entries) == 13
    # and the final judgements are in the saved file
    ws.save()
    db = load_database(path)
    final = [a for a in db.sources[0].targets[0].span_annotations if a.judge == ADJUDICATED]
    assert len(final) == 1 and final[0].errors == []


def test_session_without_disagreements(tmp_path):
    db = _db()
    for src in db.sources:
        for t in src.targets:
            t.set_score("fluency", 3, "ben")
            t.set_score("fluency", 3, "anna")
            t.span_annotations = []
    p = tmp_path / "a.etdb.xml"
    save_database(db, p)
    w = Workspace.open(p, autosave=False)
    try:
        s = AdjudicationSession(w)
        assert len(s) == 0
        with pytest.raises(ScoreError, match="disagree nowhere"):
            s.current()
    finally:
        w.close()


def test_sigkill_loses_no_final_judgement(path, tmp_path):
    backup = tmp_path / "backup.etdb.xml"
    shutil.copy(path, backup)
    code = textwrap.dedent(f"""
        import os, signal
        from evaltrans_qt.workspace import Workspace
        from evaltrans_qt.adjudication_session import AdjudicationSession
        ws = Workspace.open({str(path)!r}, autosave=False)
        s = AdjudicationSession(ws, 0.25)
        s.set_score(2)
        s.next()
        s.add_span("ben", 0)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr.decode()
    assert path.read_bytes() == backup.read_bytes()                     # nothing saved
    w = Workspace.open(path, autosave=False)
    try:
        assert w.recovered is not None and len(w.recovered.applied) == 2
        t = w.database.sources[0].targets[0]
        assert [x.value for x in t.scores if x.judge == ADJUDICATED] == [2.0]
        final = [a for a in t.span_annotations if a.judge == ADJUDICATED]
        assert [(e.start, e.end) for e in final[0].errors] == [(4, 9)]
    finally:
        w.close()
    assert os.path.exists(journal_path(path))


_spans = st.lists(st.builds(lambda s, n: ErrorSpan("Minor", "X", s, s + n),
                            st.integers(0, 30), st.integers(0, 5)), max_size=5)


@settings(max_examples=100, deadline=None)
@given(_spans, _spans)
def test_lone_spans_properties(a, b):
    assert lone_spans({"x": a, "y": list(a)}) == []            # the same spans: no lone one
    got = {(x.judge, x.index) for x in lone_spans({"x": a, "y": b})}
    swapped = {({"x": "y", "y": "x"}[j], n) for j, n in
               ((x.judge, x.index) for x in lone_spans({"x": b, "y": a}))}
    assert got == swapped                                       # names do not matter
    for j, n in got:                                            # lone = overlapped by none
        e = (a if j == "x" else b)[n]
        assert not any(overlaps(e, o) for o in (b if j == "x" else a))
