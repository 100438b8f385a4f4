"""Where the session's cursor goes after undo, redo and when an item is resumed.

A digit scores the *current* class, so a cursor on the wrong class after Ctrl+Z or
on an already scored class of a half-scored item makes the next key land in the
wrong class. Each test types the key a judge would type next and checks where it
landed.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui.conftest import open_db


def _key(qtbot, window, key, mod=Qt.NoModifier):
    qtbot.keyClick(window, key, mod)


def _undo(qtbot, w):
    _key(qtbot, w, Qt.Key_Z, Qt.ControlModifier)


def _redo(qtbot, w):
    _key(qtbot, w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)


def test_undo_returns_to_the_class_it_undid(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("ulla", ["fluency", "adequacy"], start_unscored=False)
    first = s.current
    _key(qtbot, w, Qt.Key_4)                       # fluency 4, cursor moves to adequacy
    assert s.current_class == "adequacy"
    _undo(qtbot, w)
    assert s.judge_value(first, "fluency") is None
    assert s.current == first and s.current_class == "fluency"
    _key(qtbot, w, Qt.Key_3)                       # the corrected digit: fluency, not adequacy
    assert s.judge_value(first, "fluency") == 3.0
    assert s.judge_value(first, "adequacy") is None


def test_undo_after_the_item_moved_on_returns_to_item_and_class(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("ulla", ["fluency", "adequacy"], start_unscored=False)
    first = s.current
    _key(qtbot, w, Qt.Key_4)
    _key(qtbot, w, Qt.Key_5)                       # both classes: the session moved on
    assert s.current != first
    _undo(qtbot, w)                                # undoes adequacy 5 of the first item
    assert s.current == first and s.current_class == "adequacy"
    _key(qtbot, w, Qt.Key_2)
    assert s.judge_value(first, "adequacy") == 2.0 and s.judge_value(first, "fluency") == 4.0


def test_redo_goes_to_the_item_and_class_it_redid(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("ulla", ["fluency", "adequacy"], start_unscored=False)
    first = s.current
    _key(qtbot, w, Qt.Key_4)
    _key(qtbot, w, Qt.Key_5)
    _undo(qtbot, w)
    _undo(qtbot, w)                                # both undone: cursor on fluency of the first item
    assert s.current == first and s.current_class == "fluency"
    _key(qtbot, w, Qt.Key_N)
    _key(qtbot, w, Qt.Key_N)                       # the judge browses away ...
    assert s.current != first
    _redo(qtbot, w)                                # ... and redoes fluency 4 of the first item
    assert s.judge_value(first, "fluency") == 4.0
    assert s.current == first and s.current_class == "fluency"
    _key(qtbot, w, Qt.Key_N)
    _redo(qtbot, w)
    assert s.judge_value(first, "adequacy") == 5.0
    assert s.current == first and s.current_class == "adequacy"


def _half_scored(db, judge):
    """Give the judge a fluency (but no adequacy) score on the 2nd and 4th candidates."""
    cands = [(i, j) for i, src in enumerate(db.sources) for j, t in enumerate(src.targets)
             if not db.is_reference(t)]
    for i, j in (cands[1], cands[3]):
        db.sources[i].targets[j].set_score("fluency", 3, judge)
    return cands


def test_navigating_to_a_half_scored_item_goes_to_its_first_unscored_class(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    cands = _half_scored(db, "vera")
    s = w.start_session("vera", ["fluency", "adequacy"], start_unscored=False)
    assert s.current == cands[0] and s.current_class == "fluency"
    _key(qtbot, w, Qt.Key_N)                       # next: the 2nd candidate has fluency already
    assert s.current == cands[1] and s.current_class == "adequacy"
    _key(qtbot, w, Qt.Key_4)
    assert s.judge_value(cands[1], "fluency") == 3.0            # untouched
    assert s.judge_value(cands[1], "adequacy") == 4.0
    # the 3rd is unscored: its first class; back on the fully scored 2nd: the first class
    s.go_to(2)
    assert s.current_class == "fluency"
    _key(qtbot, w, Qt.Key_Tab)
    _key(qtbot, w, Qt.Key_P)                       # back to the fully scored 2nd: first class
    assert s.current == cands[1] and s.current_class == "fluency"
    s.go_to(2)
    _key(qtbot, w, Qt.Key_4)                       # fluency of the 3rd, cursor on its adequacy
    _key(qtbot, w, Qt.Key_U)                       # skip it: the next unscored is the 4th
    assert s.current == cands[3] and s.current_class == "adequacy"


def test_resuming_a_session_starts_at_the_first_unscored_class(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    cands = [(i, j) for i, src in enumerate(db.sources) for j, t in enumerate(src.targets)
             if not db.is_reference(t)]
    i, j = cands[0]
    db.sources[i].targets[j].set_score("fluency", 2, "wim")
    s = w.start_session("wim", ["fluency", "adequacy"], start_unscored=True)
    assert s.current == cands[0] and s.current_class == "adequacy"
    _key(qtbot, w, Qt.Key_5)
    assert s.judge_value(cands[0], "fluency") == 2.0 and s.judge_value(cands[0], "adequacy") == 5.0
    w.end_session()
    s = w.start_session("wim", ["fluency", "adequacy"], start_unscored=False)
    assert s.current == cands[0] and s.current_class == "fluency"   # fully scored: first class
    w.end_session()
    db.sources[i].targets[j].remove_score("adequacy", "wim")
    s = w.start_session("wim", ["fluency", "adequacy"], start_unscored=False)
    assert s.current == cands[0] and s.current_class == "adequacy"
