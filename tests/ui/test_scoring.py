"""Scoring sessions: keyboard scoring, classes, navigation, undo/redo, save and reopen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressBar

from evaltrans_qt.ui.results_models import cell_text
from tests.ui.conftest import open_db


def _key(qtbot, window, key, mod=Qt.NoModifier):
    qtbot.keyClick(window, key, mod)


def _judge_scores(db, judge):
    out = {}
    for _i, src in enumerate(db.sources):
        for _j, t in enumerate(src.targets):
            for s in t.scores:
                if s.judge == judge:
                    out[(src.text, t.text, t.system, s.cls)] = s.value
    return out


def test_keyboard_scoring_undo_save_reopen(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    w.activateWindow()
    qtbot.waitUntil(lambda: w.isActiveWindow() or True)
    s = w.start_session("carla", ["fluency", "adequacy"], start_unscored=False)
    assert s is not None and s.pos == 0
    progress = w.findChild(QProgressBar, "sessionProgress")
    assert progress is not None and progress.value() == 0 and progress.maximum() == len(s.items)
    first = s.current
    # fluency 4, adequacy 3 on the first candidate (digits score the current class, then move on)
    _key(qtbot, w, Qt.Key_4)
    assert s.current == first and s.current_class == "adequacy"
    _key(qtbot, w, Qt.Key_3)
    # both classes scored -> the session moved on to the next unscored candidate
    assert s.current != first
    t = s.target(first)
    assert t.value("fluency", include_extrapolated=False) is not None
    assert [x.value for x in t.scores if x.judge == "carla"] == [4.0, 3.0]
    # time = when (ISO 8601), seconds = time spent on the item
    from datetime import datetime
    for x in (x for x in t.scores if x.judge == "carla"):
        assert datetime.fromisoformat(x.time).tzinfo is not None
        assert float(x.extra_attrs["seconds"]) >= 0
    assert progress.value() == 1
    second = s.current
    # Tab / Shift+Tab move between classes (wrapping)
    _key(qtbot, w, Qt.Key_Tab)
    assert s.current_class == "adequacy"
    _key(qtbot, w, Qt.Key_Backtab, Qt.ShiftModifier)
    assert s.current_class == "fluency"
    _key(qtbot, w, Qt.Key_Backtab, Qt.ShiftModifier)
    assert s.current_class == "adequacy"
    # score adequacy first: the session then goes back to the class still missing
    _key(qtbot, w, Qt.Key_5)
    assert s.current == second and s.current_class == "fluency"
    _key(qtbot, w, Qt.Key_2)
    assert s.judge_value(second, "adequacy") == 5.0 and s.judge_value(second, "fluency") == 2.0
    third = s.current
    _key(qtbot, w, Qt.Key_1)
    assert s.judge_value(third, "fluency") == 1.0
    # a digit outside the levels (firstvalid is 1, count 6) is refused
    _key(qtbot, w, Qt.Key_9)
    assert s.judge_value(third, "adequacy") is None
    # undo the last score (fluency of the third), redo, undo again
    _key(qtbot, w, Qt.Key_Z, Qt.ControlModifier)
    assert s.judge_value(third, "fluency") is None
    _key(qtbot, w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert s.judge_value(third, "fluency") == 1.0
    _key(qtbot, w, Qt.Key_Z, Qt.ControlModifier)
    assert s.judge_value(third, "fluency") is None
    # navigation keys
    k = s.pos
    _key(qtbot, w, Qt.Key_N)
    assert s.pos == k + 1
    _key(qtbot, w, Qt.Key_P)
    assert s.pos == k
    expected = _judge_scores(db, "carla")
    assert len(expected) == 4
    # the journal holds every change so far (5 scores + 3 undo/redo steps)
    assert len(w.journal.entries()) == 8
    with qtbot.waitSignal(w.saved, timeout=120_000):
        w.save()
    assert not w.is_dirty and w.journal.entries() == []
    w.end_session()
    db2 = open_db(qtbot, w, demo_copy)
    assert db2 is not db
    assert _judge_scores(db2, "carla") == expected


def test_next_unscored_and_identical(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    s = w.start_session("dora", ["fluency"], start_unscored=True)
    # first item: nothing scored by dora yet -> position 0
    assert s.pos == 0
    # find an item with an identical scored translation among the candidates of its source
    from evaltrans_qt.ui.scoring import identical_scores, similar_translations
    for k, (si, ti) in enumerate(s.items):  # noqa: B007 - k is used after the break
        sim = similar_translations(db, si, ti, ["fluency"])
        vals = identical_scores(sim, ["fluency"])
        if vals:
            break
    else:
        raise AssertionError("the demo database should have an identical translation")
    s.go_to(k)
    panel = w.scoring.similar_panel
    qtbot.waitUntil(lambda: panel.model().rowCount() > 0)
    assert cell_text(panel.model().index(0, 0)) == "= identical"
    qtbot.keyClick(w, Qt.Key_I)
    assert s.judge_value((si, ti), "fluency") == vals["fluency"]
    # U skips scored items
    s.go_to(k)
    qtbot.keyClick(w, Qt.Key_U)
    assert not s.is_scored(s.current)


def test_similar_order_identical_first_then_distance(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    from evaltrans_qt.ui.scoring import similar_translations
    for i, src in enumerate(db.sources):
        for j, t in enumerate(src.targets):
            sim = similar_translations(db, i, j, ["fluency", "adequacy"])
            keys = [(not x.identical, x.distance) for x in sim]
            assert keys == sorted(keys)
            assert all(x.identical == (x.target.text == t.text) for x in sim)


def test_session_dialog_defaults_and_unknown_class(qtbot, main_window, demo_copy):
    from evaltrans_qt.ui import errors
    from evaltrans_qt.ui.scoring import SessionDialog
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    dlg = SessionDialog(db, "eve", w)
    assert dlg.judge.text() == "eve"
    assert dlg.classes() == db.human_classes and dlg.systems() == db.systems()
    dlg.deleteLater()
    assert w.start_session("eve", ["no-such-class"]) is None
    assert "no-such-class" in str(errors.history[-1])
    # a session restricted to one system only visits that system's candidates
    s = w.start_session("eve", ["fluency"], systems=[db.systems()[0]])
    assert s.items and all(s.target(it).system == db.systems()[0] for it in s.items)


# ------------------------------------------------------------ typed values
def _typed_db(path):
    """Three candidates of one source, one reference; an MQM (continuous) and an SSER class."""
    from evaltrans_qt.engine.data.database import Database, Levels
    from evaltrans_qt.io.etdb import save_database
    db = Database([Levels("mqm", 0, -5, 0, 0, -25, True, -25.0, 0.0),
                   Levels("sser", 11, 5, 9, 10, 0)])
    db.ensure_reference_class()
    src = db.add_source("ein kleiner Test", seg="1")
    db.add_target(src, "a small test", "ref", reference=True)
    for name, text in (("A", "a little test"), ("B", "one small test"), ("C", "a small check")):
        db.add_target(src, text, name)
    save_database(db, path)
    return path


def _type(qtbot, window, text):
    """Type like a keyboard: each key goes to the widget that has the focus."""
    from PySide6.QtWidgets import QApplication
    for ch in text:
        qtbot.keyClicks(QApplication.focusWidget() or window, ch)


def _enter(qtbot, window):
    from PySide6.QtWidgets import QApplication
    qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key_Return)


def test_continuous_and_two_digit_classes_are_typed_and_committed_with_enter(qtbot, main_window, tmp_path):
    from PySide6.QtWidgets import QApplication, QLineEdit
    w = main_window
    open_db(qtbot, w, _typed_db(tmp_path / "typed.etdb.xml"))
    w.activateWindow()
    s = w.start_session("tia", ["mqm", "sser"], start_unscored=False)
    mqm = w.findChild(QLineEdit, "score_mqm_value")
    sser = w.findChild(QLineEdit, "score_sser_value")
    assert mqm is not None and sser is not None
    first = s.current
    qtbot.waitUntil(lambda: QApplication.focusWidget() is mqm)
    _type(qtbot, w, "-7,5")                         # decimal comma accepted
    assert s.judge_value(first, "mqm") is None      # nothing counts before Enter
    _enter(qtbot, w)
    assert s.judge_value(first, "mqm") == -7.5
    assert s.current == first and s.current_class == "sser"
    assert QApplication.focusWidget() is sser
    _type(qtbot, w, "10")                           # SSER 10 (perfect) needs two digits
    _enter(qtbot, w)
    assert s.judge_value(first, "sser") == 10.0
    second = s.current
    assert second != first and s.current_class == "mqm"
    # the next item starts empty: nothing of the previous item is carried over
    assert mqm.text() == "" and sser.text() == ""
    _enter(qtbot, w)                                # Enter on an empty editor scores nothing
    assert s.judge_value(second, "mqm") is None
    _type(qtbot, w, "-30")                          # outside [-25, 0]: refused, stays
    _enter(qtbot, w)
    assert s.judge_value(second, "mqm") is None and s.current_class == "mqm"
    mqm.clear()
    # digits typed while the window (not the editor) has the focus go into the editor
    w.browse.source_list.setFocus()
    qtbot.keyClick(w, Qt.Key_0)
    assert mqm.text() == "0" and s.judge_value(second, "mqm") is None
    _enter(qtbot, w)
    assert s.judge_value(second, "mqm") == 0.0 and s.current_class == "sser"
    # Ctrl+Z in the editor undoes the last score (not the editor's text) and goes back to it
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Z, Qt.ControlModifier)
    assert s.judge_value(second, "mqm") is None and s.current_class == "mqm"
    assert mqm.text() == ""
    # going back shows the first item's own values
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_P)
    assert s.current == first and mqm.text() == "-7.5" and sser.text() == "10"
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_N)
    assert s.current == second and mqm.text() == "" and sser.text() == ""
