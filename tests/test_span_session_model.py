"""The Qt-free error-span annotation session (``evaltrans_qt.span_session``) and the word
helpers it snaps with (``engine/human/spans/text.py``): mark, relabel, move, delete, undo,
redo, omission, ESA score, document context, and recovery after SIGKILL. Pure Python."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from evaltrans_qt.engine.human.spans.model import ErrorSpan, Typology
from evaltrans_qt.engine.human.spans.text import next_boundary, previous_boundary, snap, words
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.journal import Journal, journal_path
from evaltrans_qt.io.mqm_tsv import read_mqm_tsv
from evaltrans_qt.span_session import SpanSessionModel, document_order
from evaltrans_qt.workspace import Workspace

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
ROWS = [("A", "d1", "1", "1", "Der Zug kommt.", "The trian comes."),
        ("A", "d1", "2", "2", "Er geht nach Hause.", "He goes home."),
        ("A", "d2", "1", "3", "Guten Morgen.", "Good morning."),
        ("B", "d1", "1", "1", "Der Zug kommt.", "Train is coming."),
        ("B", "d1", "2", "2", "Er geht nach Hause.", "He walks home."),
        ("B", "d2", "1", "3", "Guten Morgen.", "Morning good.")]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def path(tmp_path):
    tsv = tmp_path / "m.tsv"
    tsv.write_text(HEADER + "".join(f"{s}\t{d}\t{i}\t{g}\tr0\t{src}\t{t}\tNo-error\tno-error\n"
                                    for s, d, i, g, src, t in ROWS), encoding="utf-8")
    db, _ = read_mqm_tsv(tsv)
    p = tmp_path / "m.etdb.xml"
    save_database(db, p)
    return p


@pytest.fixture
def ws(path):
    w = Workspace.open(path, autosave=False)
    yield w
    w.close()


def test_words_snap_and_boundaries():
    t = "The trian comes, quickly."
    assert words(t)[:4] == [(0, 3), (4, 9), (10, 15), (15, 16)]
    assert snap(t, 5, 6) == (4, 9)                 # inside a word: the whole word
    assert snap(t, 3, 5) == (4, 9)                 # the space before it is dropped
    assert snap(t, 14, 16) == (10, 16)             # "comes" and the comma
    assert snap(t, 4, 4) == (4, 4)                 # empty: an omission stays one
    assert snap(t, 9, 2) == (0, 9)                 # a selection made backwards
    assert next_boundary(t, 3) == 9 and next_boundary(t, 24) == 25
    assert previous_boundary(t, 9) == 4 and previous_boundary(t, 0) == 0


def test_mark_relabel_move_delete_undo_redo_omission(ws, path):
    clock = Clock()
    m = SpanSessionModel(ws, "kim", items=document_order(ws.database, "A"), clock=clock)
    seen: list[int] = []
    m.changed.connect(seen.append)
    assert m.target().text == "The trian comes." and m.errors() == []
    clock.now = 4.0
    e = m.add_error(6, 7, "major", "Accuracy/Mistranslation")        # snapped to "trian"
    assert (e.start, e.end, e.severity) == (4, 9, "Major")
    assert m.annotation().seconds == 4.0
    m.add_error(3, 5, "minor", "Fluency/Spelling", snap=False)       # Alt held: as selected
    assert m.errors()[1].text_of(m.target().text) == " t"
    m.relabel(0, severity="minor", category="Fluency/Spelling")
    assert m.errors()[0].severity == "Minor" and m.errors()[0].category == "Fluency/Spelling"
    m.move(1, 10, 12)
    assert (m.errors()[1].start, m.errors()[1].end) == (10, 15)
    m.delete(0)
    assert [x.start for x in m.errors()] == [10]
    m.add_omission(15, "major")
    assert m.errors()[1] == ErrorSpan("Major", "Accuracy/Omission", 15, 15)
    assert m.undo() and len(m.errors()) == 1                          # omission undone
    assert m.undo() and [x.start for x in m.errors()] == [4, 10]      # delete undone
    assert m.redo() and [x.start for x in m.errors()] == [10]
    assert seen and set(seen) == {0}
    # every step went through the journal, in order; the last state is what replay gives
    entries = Journal(journal_path(path)).entries()
    assert [getattr(x, "judge", None) for x in entries] == ["kim"] * len(entries)
    assert len(entries) == 9
    with pytest.raises(ScoreError, match="no error 5"):
        m.delete(4)
    with pytest.raises(ScoreError, match="outside"):
        m.add_error(0, 99, "minor", "Other", snap=False)


def test_navigation_context_and_document_order(ws):
    m = SpanSessionModel(ws, "kim", items=document_order(ws.database, "B"))
    assert [m.target(i).text for i in range(3)] == ["Train is coming.", "He walks home.",
                                                    "Morning good."]
    assert [(c.offset, c.candidate) for c in m.context()] == [(1, "He walks home.")]
    assert m.next() and [(c.offset, c.source) for c in m.context()] == [
        (-1, "Der Zug kommt.")]
    assert m.next() and m.context() == []            # d2 has one segment
    assert not m.next() and m.previous() and m.index == 1
    assert not m.done()
    m.no_error()
    assert m.done() and m.errors() == [] and m.annotation() is not None


def test_esa_score_and_severities(ws, path):
    m = SpanSessionModel(ws, "kim", protocol="esa")
    assert ws.database.has_class("esa") and load_database(path).has_class("esa")  # saved
    with pytest.raises(ScoreError, match="ESA marks"):
        m.add_error(0, 3, "neutral", "Other")
    m.add_error(0, 3, "major", "Other")
    assert not m.done()
    m.set_score(65)
    assert m.done() and m.score() == 65.0
    with pytest.raises(ScoreError):
        m.set_score(101)
    assert m.undo() and m.score() is None and len(m.errors()) == 1
    m.next()
    m.set_score(90)                                  # no span: committed as "no error" too
    assert m.annotation() is not None and m.annotation().errors == []


def test_a_closed_typology_is_enforced(ws):
    closed = Typology("mine", ("Errors/Big",), closed=True)
    m = SpanSessionModel(ws, "kim", typology=closed)
    m.add_error(0, 3, "major", "Errors/Big")
    with pytest.raises(ScoreError, match="closed typology"):
        m.add_error(4, 9, "major", "Fluency/Spelling")
    assert len(m.errors()) == 1


def test_sigkill_loses_no_span(path):
    code = textwrap.dedent(f"""
        import os, signal
        from evaltrans_qt.workspace import Workspace
        from evaltrans_qt.span_session import SpanSessionModel
        ws = Workspace.open({str(path)!r}, autosave=False)
        m = SpanSessionModel(ws, "kim")
        m.add_error(4, 9, "major", "Accuracy/Mistranslation")
        m.add_omission(15, "minor")
        m.next()
        m.no_error()
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr.decode()
    assert not any(a.judge == "kim" for s in load_database(path).sources for t in s.targets
                   for a in t.span_annotations)                       # not saved
    w = Workspace.open(path, autosave=False)
    try:
        assert w.recovered is not None and len(w.recovered.applied) == 3
        db = w.database
        kim = [[a for a in t.span_annotations if a.judge == "kim"]
               for t in db.sources[0].targets]
        assert [(e.start, e.end, e.severity) for e in kim[0][0].errors] == [(4, 9, "Major"),
                                                                           (15, 15, "Minor")]
        assert kim[1][0].errors == []
    finally:
        w.close()
    assert os.path.exists(journal_path(path))
