"""Autosave, the unsaved-changes question, recent files and geometry in (temporary) QSettings."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.ui.main_window import MainWindow
from tests.ui.conftest import open_db


def test_autosave_writes_file_and_clears_journal(qtbot, main_window, demo_copy):
    w = main_window
    w.autosave_ms = 50
    open_db(qtbot, w, demo_copy)
    s = w.start_session("auto", ["fluency"], start_unscored=False)
    item = s.current
    with qtbot.waitSignal(w.saved, timeout=120_000):
        s.score(3)
    assert not w.is_dirty
    assert w.journal.entries() == []
    db = load_database(demo_copy)
    t = db.sources[item[0]].targets[item[1]]
    assert [(x.value, x.judge) for x in t.scores if x.judge == "auto"] == [(3.0, "auto")]


def test_close_with_unsaved_changes_asks(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("q", ["fluency"], start_unscored=False)
    s.score(2)
    assert w.is_dirty
    asked = []
    w.files.ask_unsaved = lambda: asked.append(1) or QMessageBox.Cancel
    w.close()
    assert asked and w.isVisible()          # cancelled: still open, nothing lost
    w.files.ask_unsaved = lambda: asked.append(2) or QMessageBox.Save
    w.close()
    assert asked == [1, 2] and not w.isVisible()
    db = load_database(demo_copy)
    assert sum(1 for _s, tg in db.iter_targets() for x in tg.scores if x.judge == "q") == 1


def test_recent_files_and_geometry_use_the_given_settings(qtbot, demo_copy, tmp_path, ui_sandbox):
    ini = tmp_path / "s.ini"
    w = MainWindow(QSettings(str(ini), QSettings.IniFormat))
    w.files.ask_unsaved = lambda: QMessageBox.Discard
    w.show()
    open_db(qtbot, w, demo_copy)
    assert w.files.recent_files()[0] == str(demo_copy)
    assert w.files.recent_menu.actions()[0].text().endswith(str(demo_copy))
    w.panels["Translations"].hide()  # the dock layout is part of the saved state
    w.close()
    w2 = MainWindow(QSettings(str(ini), QSettings.IniFormat))
    w2.files.ask_unsaved = lambda: QMessageBox.Discard
    assert w2.files.recent_files()[0] == str(demo_copy)
    assert QSettings(str(ini), QSettings.IniFormat).value("window/geometry") is not None
    assert w2.panels["Translations"].isHidden() and not w2.panels["Sources"].isHidden()
    w2.close()
    # the default settings object lives in the redirected (temporary) folder, not the user's
    from evaltrans_qt.ui.controllers.files import make_settings
    assert make_settings().fileName().startswith(str(ui_sandbox))
