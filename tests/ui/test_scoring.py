"""Scoring sessions: keyboard scoring, classes, navigation, undo/redo, save and reopen (issue 6)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressBar

from tests.ui.conftest import open_db


def _key(qtbot, window, key, mod=Qt.NoModifier):
    qtbot.keyClick(window, key, mod)


def _judge_scores(db, judge):
    out = {}
    for i, src in enumerate(db.sources):
        for j, t in enumerate(src.targets):
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
    assert all(x.time is not None and float(x.time) >= 0 for x in t.scores if x.judge == "carla")
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
    for k, (si, ti) in enumerate(s.items):
        sim = similar_translations(db, si, ti, ["fluency"])
        vals = identical_scores(sim, ["fluency"])
        if vals:
            break
    else:
        raise AssertionError("the demo database should have an identical translation")
    s.go_to(k)
    qtbot.waitUntil(lambda: w.similar_panel.topLevelItemCount() > 0)
    assert w.similar_panel.topLevelItem(0).text(0) == "= identical"
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
