"""Saving safety found in review: a failed Save As changes nothing, recent files ask about
unsaved changes, and a save never writes bytes that do not load back."""

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from evaltrans_qt.ui.controllers.files import save_job
from evaltrans_qt.workspace import load_with_journal

from .conftest import open_db


def test_failed_save_as_keeps_path_journal_and_recent_files(qtbot, main_window, demo_copy, tmp_path):
    w = main_window
    open_db(qtbot, w, demo_copy)
    before_path, before_journal = w.database_path, w.journal
    w.save_as(tmp_path / "no-such-dir" / "copy.etdb.xml", wait=True)
    assert w.database_path == before_path and w.journal is before_journal
    assert not any("no-such-dir" in f for f in w.files.recent_files())
    good = tmp_path / "copy.etdb.xml"
    w.save_as(good, wait=True)
    assert w.database_path == good and good.exists()
    assert str(good) in w.files.recent_files()


def test_open_recent_asks_about_unsaved_changes(qtbot, main_window, demo_copy, tmp_path):
    w = main_window
    open_db(qtbot, w, demo_copy)
    w.workspace.mark_changed()                    # something unsaved
    asked = []
    w.files.ask_unsaved = lambda: (asked.append(1), QMessageBox.Cancel)[1]
    w.files._update_recent_menu()
    acts = w.files.recent_menu.actions()
    assert acts
    acts[0].trigger()
    assert asked and w.database_path == demo_copy     # cancelled: nothing switched


def test_save_job_refuses_bytes_that_do_not_load(tmp_path, monkeypatch):
    from evaltrans_qt.engine.data.database import Database, Levels
    from evaltrans_qt.errors import SaveError
    from evaltrans_qt.io import etdb
    db = Database([Levels("fluency", count=3, perfect=2, firstvalid=1)])
    target = tmp_path / "db.etdb.xml"
    target.write_bytes(b"old content")
    monkeypatch.setattr(etdb.writer, "dumps", lambda d: b"<database><broken")   # as if changed mid-save
    with pytest.raises(SaveError):
        save_job(db, target)
    assert target.read_bytes() == b"old content"
    assert isinstance(Path(target), Path)


def test_failing_autosave_reports_once_and_pauses(qtbot, main_window, demo_copy, monkeypatch):
    from evaltrans_qt.errors import SaveError
    from evaltrans_qt.ui import errors
    from evaltrans_qt.ui.controllers import files as mw
    w = main_window
    open_db(qtbot, w, demo_copy)
    monkeypatch.setattr(mw, "save_job", lambda db, path, before_write=None: (_ for _ in ()).throw(
        SaveError("disk full", path)))
    shown = []
    monkeypatch.setattr(errors, "show_error", lambda exc, parent=None: shown.append(exc))
    w.autosave_ms = 50
    w.autosave_enabled = True
    w.workspace.mark_changed()
    for _ in range(3):
        w.save()
        qtbot.waitUntil(lambda: w.files._saving is None, timeout=10_000)
        qtbot.wait(150)
    assert len(shown) == 1 and w.files._autosave_failed
    assert "NOT SAVED" in w.statusBar().currentMessage()
    assert not w.files._autosave_timer.isActive()


def test_score_that_cannot_be_journalled_is_not_applied(qtbot, main_window, demo_copy, monkeypatch):
    """Found in review: a read-only journal raised a raw OSError and left an undo entry."""
    from evaltrans_qt.io.journal import Journal
    from evaltrans_qt.ui import errors
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("tester", None, None, start_unscored=True)
    shown = []
    monkeypatch.setattr(errors, "show_error", lambda exc, parent=None: shown.append(exc))
    monkeypatch.setattr(Journal, "append", lambda self, ch: (_ for _ in ()).throw(
        OSError(30, "Read-only file system")))
    item = s.current
    before = [x.value for x in s.target(item).scores if x.judge == "tester"]
    assert s.score(3) is False
    assert len(w.workspace.history) == 0 and shown and "journal" in str(shown[0])
    assert [x.value for x in s.target(item).scores if x.judge == "tester"] == before


def _judged_by(db, judge: str) -> int:
    return sum(1 for src in db.sources for t in src.targets for x in t.scores if x.judge == judge)


def test_scores_entered_during_save_as_move_to_the_new_journal(qtbot, main_window, demo_copy,
                                                               tmp_path, monkeypatch):
    """Found in review: a score entered while an asynchronous Save As ran was journalled under
    the old name and that journal was then deleted; a crash before the next save lost it."""
    import threading

    from evaltrans_qt.io.etdb import load_database as load
    from evaltrans_qt.io.journal import journal_path
    from evaltrans_qt.ui.controllers import files as mw
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("tester", None, None, start_unscored=True)
    assert s.score(3)                                  # before Save As: goes into the file
    gate = threading.Event()
    real = mw.save_job

    def save_then_wait(db, path, before_write=None):   # the file is written, then the UI
        out = real(db, path, before_write=before_write)  # gets a score before the save ends
        gate.wait(20)
        return out
    monkeypatch.setattr(mw, "save_job", save_then_wait)
    new = tmp_path / "copy.etdb.xml"
    worker = w.save_as(new)
    assert worker is not None
    qtbot.waitUntil(lambda: new.exists(), timeout=10_000)
    assert s.score(2)                                  # journalled under the old name
    with qtbot.waitSignal(w.saved, timeout=20_000):
        gate.set()
    assert w.database_path == new
    assert not journal_path(demo_copy).exists()        # old journal gone ...
    moved = w.journal.entries()                        # ... its unsaved entry moved
    assert [(e.judge, e.value) for e in moved] == [("tester", 2.0)]
    assert _judged_by(load(new), "tester") == 1        # the file has only the first score
    db, report = load_with_journal(new)             # a crash now: both scores survive
    assert _judged_by(db, "tester") == 2


def test_scoring_is_refused_at_once_where_the_journal_cannot_be_written(qtbot, main_window,
                                                                        demo_copy, monkeypatch):
    """A database in a read-only folder: the session does not start (one clear error naming
    the journal) instead of failing at every score."""
    from evaltrans_qt.io.journal import Journal
    from evaltrans_qt.ui import errors
    w = main_window
    open_db(qtbot, w, demo_copy)
    shown = []
    monkeypatch.setattr(errors, "show_error", lambda exc, parent=None: shown.append(exc))
    monkeypatch.setattr(Journal, "_open", lambda self: (_ for _ in ()).throw(
        OSError(30, "Read-only file system")))
    assert w.start_session("tester", None, None, start_unscored=True) is None
    assert w.session is None
    assert len(shown) == 1 and "journal" in str(shown[0]) and "Read-only" in str(shown[0])
    assert shown[0].path is not None and str(shown[0].path).endswith(".journal")
