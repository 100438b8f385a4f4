"""The error-span annotation screen (``ui/span_screen.py``) driven by keys and the mouse:
mark, relabel, delete, undo, redo, omission, ESA score, suggestions, document context,
the 1366x768 fit, the menu, and no span lost to SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtCore import QPoint, Qt

from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.mqm_tsv import read_mqm_tsv
from evaltrans_qt.span_session import SpanSessionModel, document_order
from evaltrans_qt.ui.span_screen import SpanScreen
from evaltrans_qt.workspace import Workspace

from .conftest import open_db

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
ROWS = [("A", "d1", "1", "1", "Der Zug kommt.", "The trian comes."),
        ("A", "d1", "2", "2", "Er geht nach Hause.", "He goes home."),
        ("A", "d2", "1", "3", "Guten Morgen.", "Good morning."),
        ("B", "d1", "1", "1", "Der Zug kommt.", "Train is coming."),
        ("B", "d1", "2", "2", "Er geht nach Hause.", "He walks home."),
        ("B", "d2", "1", "3", "Guten Morgen.", "Morning good.")]
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


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


def screen_for(qtbot, ws, protocol="mqm", judge="kim"):
    m = SpanSessionModel(ws, judge, protocol=protocol, items=document_order(ws.database, "A"))
    s = SpanScreen(m)
    qtbot.addWidget(s)
    s.show()
    return s


def select_keys(qtbot, s, at: int, words: int = 1) -> None:
    """The cursor to ``at``, then Shift+Right ``words`` times (by word)."""
    s.target.select(at, at)
    for _ in range(words):
        qtbot.keyClick(s.target, Qt.Key.Key_Right, SHIFT)


def test_mark_by_keyboard_relabel_delete_undo_redo(qtbot, ws):
    s = screen_for(qtbot, ws)
    m = s.model
    select_keys(qtbot, s, 4)                      # "trian" by word
    assert s.target.selection() == (4, 9)
    qtbot.keyClick(s.target, Qt.Key.Key_2)        # major: now the category
    assert m.errors() == [] and "category" in s.status.text()
    qtbot.keyClick(s.target, Qt.Key.Key_A)        # Accuracy: its sub-categories shown
    assert any("Mistranslation" in s.categories.item(r).text() for r in range(s.categories.count()))
    qtbot.keyClick(s.target, Qt.Key.Key_3)        # Addition, Omission, Mistranslation
    assert [(e.start, e.end, e.severity, e.category) for e in m.errors()] == \
        [(4, 9, "Major", "Accuracy/Mistranslation")]
    assert s.error_list.count() == 1 and "«trian»" in s.error_list.item(0).text()
    c = s.target.textCursor()
    c.setPosition(6)
    at = s.target.cursorRect(c).center()
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip
    QApplication.sendEvent(s.target, QHelpEvent(QEvent.Type.ToolTip, at,
                                                 s.target.viewport().mapToGlobal(at)))
    assert "1. Major · Accuracy/Mistranslation · «trian»" in QToolTip.text()
    assert len(s.target.extraSelections()) == 1
    s.error_list.setCurrentRow(0)                 # select it: relabel
    qtbot.keyClick(s.target, Qt.Key.Key_1)
    assert m.errors()[0].severity == "Minor"
    qtbot.keyClick(s.target, Qt.Key.Key_C)
    qtbot.keyClick(s.target, Qt.Key.Key_F)
    qtbot.keyClick(s.target, Qt.Key.Key_2)        # Fluency/Spelling
    assert m.errors()[0].category == "Fluency/Spelling"
    select_keys(qtbot, s, 10)                     # new words selected: a severity marks them
    assert s.selected is None
    qtbot.keyClick(s.target, Qt.Key.Key_1)
    qtbot.keyClick(s.target, Qt.Key.Key_Return)   # Enter before the category: asked for it
    assert len(m.errors()) == 1 and "category" in s.status.text()
    qtbot.keyClick(s.target, Qt.Key.Key_Escape)
    assert s.pending is None and len(m.errors()) == 1 and m.index == 0
    s.error_list.setCurrentRow(0)
    qtbot.keyClick(s.target, Qt.Key.Key_Delete)
    assert m.errors() == [] and s.error_list.count() == 0
    qtbot.keyClick(s.target, Qt.Key.Key_Z, CTRL)
    assert [(e.severity, e.category) for e in m.errors()] == [("Minor", "Fluency/Spelling")]
    assert s.error_list.count() == 1
    qtbot.keyClick(s.target, Qt.Key.Key_Z, CTRL | SHIFT)
    assert m.errors() == []
    assert ws.history.can_undo


def test_mouse_selection_snaps_unless_alt(qtbot, ws):
    s = screen_for(qtbot, ws)
    t = s.target
    vp = t.viewport()

    def at(pos: int) -> QPoint:
        c = t.textCursor()
        c.setPosition(pos)
        return t.cursorRect(c).center()
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=at(5))
    qtbot.mouseMove(vp, at(7))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=at(7))
    assert t.selection() == (4, 9)                # inside "trian": the whole word
    t.select(5, 7)                                # a drag ending with Alt held: as selected
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.AltModifier, at(7))
    assert t.selection() == (5, 7)
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=at(7))
    assert t.selection() == (4, 9)


def test_omission_no_error_next_previous_and_context(qtbot, ws):
    s = screen_for(qtbot, ws)
    m = s.model
    assert "Er geht nach Hause." in s.after.text() and "He goes home." in s.after.text()
    assert "start of the document" in s.before.text()
    s.target.select(15, 15)
    qtbot.keyClick(s.target, Qt.Key.Key_O)
    qtbot.keyClick(s.target, Qt.Key.Key_2)
    assert m.errors() == [ErrorSpan("Major", "Accuracy/Omission", 15, 15)]
    assert "omission at 15" in s.error_list.item(0).text()
    qtbot.keyClick(s.target, Qt.Key.Key_N)
    assert m.index == 1 and s.target.toPlainText() == "He goes home."
    assert "Der Zug kommt." in s.before.text()
    qtbot.keyClick(s.target, Qt.Key.Key_Return)   # nothing marked: "no error", then next
    assert m.annotation(1) is not None and m.annotation(1).errors == [] and m.index == 2
    qtbot.keyClick(s.target, Qt.Key.Key_P)
    assert m.index == 1 and "done" in s.header.text()


def test_esa_spans_then_score(qtbot, ws):
    s = screen_for(qtbot, ws, protocol="esa")
    m = s.model
    select_keys(qtbot, s, 4)
    qtbot.keyClick(s.target, Qt.Key.Key_2)        # ESA: marked at once, no category
    assert [(e.start, e.end, e.severity) for e in m.errors()] == [(4, 9, "Major")]
    select_keys(qtbot, s, 10)
    qtbot.keyClick(s.target, Qt.Key.Key_3)        # no critical in ESA: refused, shown
    assert len(m.errors()) == 1 and "ESA" in s.status.text()
    qtbot.keyClick(s.target, Qt.Key.Key_Return)   # no score typed yet: asked for
    assert m.index == 0 and "score" in s.status.text()
    s.score.clear()
    qtbot.keyClicks(s.score, "70")
    qtbot.keyClick(s.score, Qt.Key.Key_Return)
    assert m.score(0) == 70.0 and m.index == 1
    qtbot.keyClick(s.target, Qt.Key.Key_P)
    assert s.score.text() == "70"
    s.score.setText("101")
    qtbot.keyClick(s.score, Qt.Key.Key_Return)
    assert m.score(0) == 70.0 and m.index == 0    # out of range: refused


def test_suggestions_accepted_and_rejected(qtbot, ws):
    machine = SpanSessionModel(ws, "xcomet", items=document_order(ws.database, "A"))
    machine.add_error(4, 9, "major", "Accuracy/Mistranslation")
    machine.add_error(10, 15, "minor", "Fluency/Grammar")
    s = screen_for(qtbot, ws)
    m = s.model
    m.use_suggestions("xcomet")
    assert s.error_list.count() == 2 and "suggested" in s.error_list.item(0).text()
    s.error_list.setCurrentRow(0)
    qtbot.keyClick(s.target, Qt.Key.Key_A)
    assert [(e.start, e.category) for e in m.errors()] == [(4, "Accuracy/Mistranslation")]
    assert len(m.suggestions()) == 1
    s.error_list.setCurrentRow(1)                 # the remaining suggestion, after the errors
    qtbot.keyClick(s.target, Qt.Key.Key_R)
    assert m.suggestions() == [] and len(m.errors()) == 1 and s.error_list.count() == 1
    # the rejection is recorded in the judge's annotation, and undone by Ctrl+Z
    assert [(r.machine, r.error.start) for r in m.annotation().rejected] == [("xcomet", 10)]
    assert "rejected: 1" in s.errors_label.text()
    qtbot.keyClick(s.target, Qt.Key.Key_Z, CTRL)
    assert len(m.suggestions()) == 1 and m.annotation().rejected == []
    assert "rejected" not in s.errors_label.text()


def test_labels_are_drawn_inline_under_the_spans(qtbot, ws):
    s = screen_for(qtbot, ws)
    m = s.model
    m.add_error(4, 9, "Major", "Accuracy/Mistranslation")      # "trian"
    m.add_error(10, 15, "Minor", "Fluency/Grammar")            # "comes", right after it
    qtbot.wait(10)
    labels = s.target.inline_labels()
    # "trian" is short: its label is shortened so that the next stays under "comes"
    assert labels[0][1].startswith("1 M") and labels[0][1].endswith("…")
    assert [(text, row) for _r, text, row in labels[1:]] == [("2 Minor Grammar", 1)]
    c = s.target.textCursor()
    c.setPosition(4)
    under = s.target.cursorRect(c)
    c.setPosition(10)
    under2 = s.target.cursorRect(c)
    first, second = labels[0][0], labels[1][0]
    assert first.left() == under.left() and first.top() > under.bottom() - 2
    assert second.left() == under2.left() and second.left() > first.right()   # no overlap
    m.delete(1)
    assert [text for _r, text, _n in s.target.inline_labels()] == ["1 Major Mistranslation"]
    m.undo()
    s.target.setFixedWidth(150)                    # "comes" near the right edge
    qtbot.wait(10)
    assert all(0 <= r.left() and r.right() <= s.target.viewport().width()
               for r, _t, _n in s.target.inline_labels())
    s.target.setMinimumWidth(0)
    s.target.setMaximumWidth(16777215)
    # the room under the line holds the label: the next line starts below it
    s.target.setPlainText(m.target().text + " " + "word " * 60)
    m.changed.emit(m.index)
    qtbot.wait(10)
    tops = []
    for pos in range(len(s.target.toPlainText())):
        c.setPosition(pos)
        tops.append(s.target.cursorRect(c).top())
    second_line = min(t for t in tops if t > under.top())
    assert s.target.inline_labels()[0][0].bottom() < second_line
    # drawn: the label's background is the severity's colour
    img = s.target.viewport().grab().toImage()
    r = s.target.inline_labels()[0][0]
    px = img.pixelColor(r.left() + 2, r.center().y())
    assert (px.red(), px.green() < 200, px.blue() < 180) == (px.red(), True, True) \
        and px.red() > 230, px.name()


def test_esa_labels_show_the_severity_only_and_suggestions_a_mark(qtbot, ws):
    s = screen_for(qtbot, ws, protocol="esa")
    m = s.model
    m.add_error(4, 9, "Minor", "Other")
    t = ws.database.sources[0].targets[0]
    from evaltrans_qt.engine.human.spans.model import SpanAnnotation
    t.span_annotations.append(SpanAnnotation("xcomet", [ErrorSpan("Major", "Other", 10, 15)]))
    m.use_suggestions("xcomet")
    texts = [text for _r, text, _n in s.target.inline_labels()]
    assert texts[1] == "?2 Major" and texts[0] in ("1 Minor", "1 Mi…", "1 M…")  # no category


def test_fits_1366x768(qtbot, ws):
    s = screen_for(qtbot, ws)
    hint = s.minimumSizeHint()
    assert hint.width() <= 1366 and hint.height() <= 768 - 60
    s.resize(1366, 708)
    qtbot.wait(10)
    for w in (s.target, s.source, s.error_list, s.keys, s.categories, s.after):
        g = w.geometry()
        top = w.mapTo(s, QPoint(0, 0))
        assert w.isVisible() and g.height() > 10
        assert top.y() + g.height() <= s.height() and top.x() + g.width() <= s.width()


def test_menu_opens_the_screen(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    assert w.spans.act_mqm in w.protocol_modes.menu.actions()
    screen = w.spans.open_screen("mqm", judge="kim")
    assert screen is not None and screen.isVisible() and screen.model.judge == "kim"
    screen.close()
    # --screenshot --view mqm|esa: the demo's most-marked candidate of each protocol
    w.spans.screenshot_view("mqm", "1366x740")
    sc = w.spans.screen
    assert sc is not None and sc.model.judge == "anna" and sc.model.target().system == "RuleMT"
    assert len(sc.model.errors()) == 4 and sc.selected == 0 and sc.width() == 1366
    w.spans.screenshot_view("esa", "1366x740")
    sc = w.spans.screen
    assert sc.esa and sc.model.judge == "eva" and sc.score.text() == "47"
    assert sc.categories.isHidden()
    sc.close()


def test_sigkill_loses_no_span_marked_on_the_screen(path):
    code = textwrap.dedent(f"""
        import os, signal
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QApplication
        from PySide6.QtTest import QTest
        app = QApplication([])
        from evaltrans_qt.workspace import Workspace
        from evaltrans_qt.span_session import SpanSessionModel, document_order
        from evaltrans_qt.ui.span_screen import SpanScreen
        ws = Workspace.open({str(path)!r}, autosave=False)
        s = SpanScreen(SpanSessionModel(ws, "kim", items=document_order(ws.database, "A")))
        s.show()
        s.target.select(4, 4)
        QTest.keyClick(s.target, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
        for k in (Qt.Key.Key_2, Qt.Key.Key_A, Qt.Key.Key_3):
            QTest.keyClick(s.target, k)
        s.target.select(15, 15)
        QTest.keyClick(s.target, Qt.Key.Key_O)
        QTest.keyClick(s.target, Qt.Key.Key_1)
        QTest.keyClick(s.target, Qt.Key.Key_Return)
        assert len(s.model.errors(0)) == 2 and s.model.index == 1
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, env=env)
    assert r.returncode == -signal.SIGKILL, r.stderr.decode()
    w = Workspace.open(path, autosave=False)      # the journal is replayed
    try:
        t = w.database.sources[0].targets[0]
        a = next(a for a in t.span_annotations if a.judge == "kim")
        assert [(e.start, e.end, e.severity, e.category) for e in a.errors] == \
            [(4, 9, "Major", "Accuracy/Mistranslation"), (15, 15, "Minor", "Accuracy/Omission")]
        w.save()
    finally:
        w.close()
    db = load_database(path)
    assert any(a.judge == "kim" for a in db.sources[0].targets[0].span_annotations)


def test_setup_lists_the_machines_first_and_chooses_one(qtbot):
    from evaltrans_qt.ui.controllers.spans import NONE, SpanSetupDialog
    d = SpanSetupDialog("esa", "kim", ["A", "B"], ["anna", "xcomet"], machines=["ter", "xcomet"])
    qtbot.addWidget(d)
    items = [(d.machine.itemText(i), d.machine.itemData(i)) for i in range(d.machine.count())]
    assert items == [(NONE, None), ("ter (machine)", "ter"), ("xcomet (machine)", "xcomet"),
                     ("anna", "anna"), ("xcomet", "xcomet")]
    assert d.machine.currentData() == "ter"          # pre-filled spans show at once
    plain = SpanSetupDialog("mqm", "kim", ["A"], ["anna"])
    qtbot.addWidget(plain)
    assert plain.machine.currentData() is None       # no machine: no suggestions chosen
