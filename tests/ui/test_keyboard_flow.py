"""The keyboard flow never stalls: one key sequence per action (Shift+Tab reaches the
previous score class), Ctrl+J on a just-imported, untitled database asks for the classes,
the judge and the file name once each and then scores, a ranking placement moves the
cursor to the next candidate not placed, and the import dialog stays open with its fields
when the import fails."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QFileDialog, QWidget

from evaltrans_qt.engine.data import schemes
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.classes_dialog import ClassesDialog
from evaltrans_qt.ui.import_dialogs import ImportDialog, run_import
from evaltrans_qt.ui.ranking_screen import SEGMENTS, SENTENCES
from evaltrans_qt.ui.scoring import SessionDialog

from .conftest import extract_campaign, open_db

#: Keys Qt treats as one: a Shift+Tab press arrives as Backtab (with or without Shift).
SAME_KEY = {"Backtab": "Shift+Tab", "Shift+Backtab": "Shift+Tab"}


def _key_table(window) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(top-level window, key sequence) -> (action object name, text) of every QAction of
    the window, its docks and the windows it owns (ranking screens), whatever the mode
    (disabled actions included). Actions of different top-level windows never compete."""
    table: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for act in window.findChildren(QAction):
        owner = act.parent()
        top = owner.window().objectName() if isinstance(owner, QWidget) else window.objectName()
        for seq in act.shortcuts():
            if seq.isEmpty():
                continue
            text = seq.toString(QKeySequence.SequenceFormat.PortableText)
            table[(top, SAME_KEY.get(text, text))].append((act.objectName(), act.text()))
    return table


def test_one_action_per_key_sequence_and_one_sequence_per_key(qtbot, main_window, tmp_path):
    w = main_window
    open_db(qtbot, w, extract_campaign(tmp_path))    # ranking campaign: every mode there is
    w.start_session("gus")
    screens = [w.ranking.open_screen(kind, judge="gus") for kind in (SEGMENTS, SENTENCES)]
    table = _key_table(w)
    tops = {top for top, _k in table}
    assert {"mainWindow", "segmentsRankingScreen", "sentencesRankingScreen"} <= tops
    assert len([k for top, k in table if top == "mainWindow"]) > 60   # the whole window
    shared = {k: v for k, v in table.items() if len(v) > 1}
    assert not shared, f"key sequences bound more than once: {shared}"
    assert table[("mainWindow", "Shift+Tab")] == [("action_previousscoreclass",
                                                   "Previous score class")]
    assert table[("mainWindow", "Tab")] == [("action_nextscoreclass", "Next score class")]
    for s in screens:
        if s is not None:
            s.close()


def test_shift_tab_goes_to_the_previous_class(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("dana", ["fluency", "adequacy"], start_unscored=False)
    assert s is not None and s.current_class == "fluency"
    qtbot.keyClick(w, Qt.Key.Key_Tab)
    assert s.current_class == "adequacy"
    qtbot.keyClick(w, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert s.current_class == "fluency"
    qtbot.keyClick(w, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)   # wraps
    assert s.current_class == "adequacy"


def _text_files(tmp_path):
    src = tmp_path / "src.txt"
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "test.hyp.sysA.de"
    src.write_text("ein Haus\nzwei Katzen\n", encoding="utf-8")
    ref.write_text("a house\ntwo cats\n", encoding="utf-8")
    hyp.write_text("a home\ntwo cat\n", encoding="utf-8")
    return src, ref, hyp


def test_ctrl_j_on_untitled_import_starts_the_session(qtbot, main_window, tmp_path, monkeypatch):
    w = main_window
    src, ref, hyp = _text_files(tmp_path)
    dlg = run_import(w, "text")
    assert isinstance(dlg, ImportDialog) and dlg.isVisible()
    dlg.fields["source"].set_path(src)
    dlg.fields["references"].set_paths([ref])
    dlg.fields["systems"].set_paths([hyp])
    with qtbot.waitSignal(w.databaseChanged, timeout=60_000):
        dlg.ok_button.click()
    qtbot.waitUntil(lambda: not dlg.isVisible())
    assert w.database is not None and w.database_path is None and not w.database.human_classes
    asked: dict[str, int] = defaultdict(int)

    def classes_exec(self) -> int:               # the user adds fluency5, closes
        asked["classes"] += 1
        w.change_classes("add fluency", lambda db: schemes.add_template(db, "fluency5"), [])
        return 0

    def session_exec(self) -> int:               # the user types a judge, OK
        asked["judge"] += 1
        self.judge.setText("erin")
        return QDialog.DialogCode.Accepted.value

    target = tmp_path / "imported.etdb.xml"

    offered: list[str] = []

    def save_name(_parent, _caption, start, *_a, **_k):
        asked["save"] += 1
        offered.append(start)
        return str(target), ""

    monkeypatch.setattr(ClassesDialog, "exec", classes_exec)
    monkeypatch.setattr(SessionDialog, "exec", session_exec)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_name))
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    qtbot.keyClick(w, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    assert dict(asked) == {"classes": 1, "judge": 1, "save": 1}
    assert w.session is not None and w.session.judge == "erin"
    assert w.database_path == target and target.exists()
    # offered at home (no file worked on yet), not in the folder the program started from
    assert offered == [str(Path.home() / "untitled.etdb.xml")]
    assert w.session.classes == ["fluency"]
    # scoring works at once: a digit scores the current candidate
    first = w.session.current
    qtbot.keyClick(w, Qt.Key.Key_3)
    t = w.session.target(first)
    assert t.value("fluency", include_extrapolated=False) == 3.0


def test_ranking_placement_moves_to_the_next_unplaced(qtbot, main_window, tmp_path):
    w = main_window
    open_db(qtbot, w, extract_campaign(tmp_path))
    s = w.ranking.open_screen(SENTENCES, judge="finn", n=3)
    assert s.cursor == (0, 0)
    qtbot.keyClick(s, Qt.Key.Key_Down)
    qtbot.keyClick(s, Qt.Key.Key_Down)
    assert s.cursor == (0, 2)
    qtbot.keyClick(s, "2")                       # the last one: on to the first not placed
    assert s.tasks_[0].model.ranks() == [None, None, 2]
    assert s.cursor == (0, 0)
    qtbot.keyClick(s, "1")                       # skips none placed between: candidate 1
    assert s.cursor == (0, 1)
    qtbot.keyClick(s, "3")
    assert s.tasks_[0].model.ranks() == [1, 3, 2]
    # a digit now never re-ranks the candidate just placed by accident of the cursor
    s.close()


def test_import_dialog_stays_open_with_its_fields_on_errors(qtbot, main_window, tmp_path):
    w = main_window
    src, ref, _hyp = _text_files(tmp_path)
    ref.write_text("only one line\n", encoding="utf-8")      # the importer refuses it
    dlg = run_import(w, "text")
    assert dlg is not None
    n0 = len(errors.history)
    dlg.ok_button.click()                        # no source given: said at once
    assert len(errors.history) == n0 + 1 and dlg.isVisible()
    dlg.fields["source"].set_path(src)
    dlg.fields["references"].set_paths([ref])
    dlg.ok_button.click()
    assert not dlg.ok_button.isEnabled()         # importing
    qtbot.waitUntil(lambda: len(errors.history) == n0 + 2, timeout=60_000)
    qtbot.waitUntil(lambda: dlg.ok_button.isEnabled())
    assert dlg.isVisible() and w.database is None
    assert dlg.fields["source"].path() == str(src)
    assert dlg.fields["references"].paths() == [str(ref)]
    assert "ref.txt" in str(errors.history[-1].path)
    dlg.close()
