"""The application never overwrites a database that changed on disk, and each answer to
"the file changed on disk" keeps both sides' data.

The window opens a database, a judgement is made (journalled), another program changes the
file -- ``evaltrans classes DB --add-template mqm --force`` (which folds the journal into
what it writes) or a plain write of a modified database (which does not) -- and the autosave
runs: the file is not overwritten and the question is asked. Each answer (reload theirs and
re-apply mine, merge theirs into mine, save mine under another name, cancel) is given
programmatically (``window.files.disk_change.ask``) and both the outside change and the judgement
are found afterwards, in the file or the journal. Also: another process holding the file's
lock makes the window read-only (title and status bar) and it does not autosave over it.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QMessageBox

from evaltrans_qt.cli.main import main as cli
from evaltrans_qt.io import store
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.journal import Journal, journal_path
from evaltrans_qt.ui.disk_change_dialog import (
    MERGE,
    RELOAD,
    SAVE_AS,
    DiskChangeDialog,
    ask_choice,
)
from evaltrans_qt.ui.merge_dialog import ConflictDialog, InteractivePolicy

from .conftest import open_db

ME = "me"


def _mine(db) -> list[tuple[str, str, float]]:
    """My judgements: (source text, system, fluency value)."""
    return [(src.text, t.system or "", x.value) for src in db.sources for t in src.targets
            for x in t.scores if x.judge == ME and x.cls == "fluency"]


def _theirs_marker(db) -> bool:
    """The outside change: the mqm class (command line) or a score by 'other'."""
    return db.has_class("mqm") or any(x.judge == "other" for _s, t in db.iter_targets()
                                       for x in t.scores)


def _score(qtbot, w) -> tuple[str, str, float]:
    """One judgement in a scoring session: journalled, not saved (autosave is 60 s away)."""
    s = w.start_session(ME, ["fluency"], start_unscored=True)
    si, ti = s.current
    assert s.score(4)
    src = w.database.sources[si]
    assert Journal.for_database(w.database_path).entries()
    return (src.text, src.targets[ti].system or "", 4.0)


def _change_outside(path, how: str) -> bytes:
    """Another program changes the file while the window has it open; its bytes."""
    if how == "cli":
        assert cli(["classes", str(path), "--add-template", "mqm", "--force"]) == 0
    else:
        db = load_database(path)                  # the bare file, without my journal
        _src, t = next((s, t) for s, t in db.iter_targets()
                       if not db.is_reference(t) and t.value("adequacy") is None)
        t.set_score("adequacy", 2, "other")
        save_database(db, path)
    return path.read_bytes()


def _asked(w, answer: str | None) -> list[tuple[object, bool]]:
    """Answer the question with ``answer`` (recording each question)."""
    asked: list[tuple[object, bool]] = []

    def ask(path, can_reload):
        assert w.workspace.disk_changed and w.files._saving is None   # asked before anything
        asked.append((path, can_reload))
        return answer
    w.files.disk_change.ask = ask
    return asked


def _autosave_refused(qtbot, w, path, theirs: bytes) -> None:
    """The autosave runs: nothing is written over their file, the question is coming."""
    w.files.autosave()
    assert w.workspace.disk_changed and w.files._saving is None
    assert path.read_bytes() == theirs


@pytest.mark.parametrize("how", ["cli", "plain"])
def test_reload_theirs_and_reapply_mine(qtbot, main_window, demo_copy, how):
    w = main_window
    open_db(qtbot, w, demo_copy)
    mine = _score(qtbot, w)
    asked = _asked(w, RELOAD)
    theirs = _change_outside(demo_copy, how)
    with qtbot.waitSignal(w.saved, timeout=60_000):
        _autosave_refused(qtbot, w, demo_copy, theirs)   # then asked; reloaded; saved
    assert asked == [(demo_copy, True)]
    db = load_database(demo_copy)                      # the bare file: both
    assert _theirs_marker(db) and mine in _mine(db)
    assert not journal_path(demo_copy).exists()        # folded into the file
    assert not w.workspace.disk_changed and not w.is_dirty
    assert mine in _mine(w.database) and _theirs_marker(w.database)


@pytest.mark.parametrize("how", ["cli", "plain"])
def test_merge_theirs_into_mine(qtbot, main_window, demo_copy, how):
    w = main_window
    open_db(qtbot, w, demo_copy)
    mine = _score(qtbot, w)
    asked = _asked(w, MERGE)
    w.files.disk_change.merge_policy = "old"
    theirs = _change_outside(demo_copy, how)
    with qtbot.waitSignal(w.saved, timeout=60_000):
        _autosave_refused(qtbot, w, demo_copy, theirs)
    assert len(asked) == 1
    db = load_database(demo_copy)
    assert _theirs_marker(db) and mine in _mine(db)
    assert not journal_path(demo_copy).exists()
    assert not w.workspace.disk_changed and not w.is_dirty


def test_merge_shows_the_conflicts(qtbot, main_window, demo_copy):
    """They changed the very score I gave: the merge asks (here: take theirs), and my
    judgement is in the journal of the window's database until the choice is made."""
    w = main_window
    open_db(qtbot, w, demo_copy)
    text, system, _v = _score(qtbot, w)
    db = load_database(demo_copy)
    src = next(s for s in db.sources if s.text == text)
    t = next(t for t in src.targets if (t.system or "") == system)
    t.set_score("fluency", 1, ME)                      # the same key, another value
    save_database(db, demo_copy)
    shown: list[ConflictDialog] = []
    w.files.disk_change.merge_policy = InteractivePolicy(w, lambda dlg: (shown.append(dlg),
                                                                   dlg.take_new.click()))
    _asked(w, MERGE)
    with qtbot.waitSignal(w.saved, timeout=60_000):
        w.save()                                       # Ctrl+S: checked first as well
    assert len(shown) == 1 and w.files.last_merge_report.took_new == 1
    assert (text, system, 1.0) in _mine(load_database(demo_copy))


@pytest.mark.parametrize("how", ["cli", "plain"])
def test_save_mine_under_another_name(qtbot, main_window, demo_copy, tmp_path, how):
    w = main_window
    open_db(qtbot, w, demo_copy)
    mine = _score(qtbot, w)
    asked = _asked(w, SAVE_AS)
    other = tmp_path / "mine.etdb.xml"
    w.files.disk_change.ask_save_path = lambda: str(other)
    theirs = _change_outside(demo_copy, how)
    with qtbot.waitSignal(w.saved, timeout=60_000):
        _autosave_refused(qtbot, w, demo_copy, theirs)
    assert len(asked) == 1
    assert w.database_path == other and mine in _mine(load_database(other))
    assert demo_copy.read_bytes() == theirs            # their file as they left it
    assert _theirs_marker(load_database(demo_copy))
    assert not journal_path(demo_copy).exists() and not journal_path(other).exists()
    assert store.lock_holder(other) == w.workspace.lock and store.lock_holder(demo_copy) is None


def test_cancel_keeps_autosave_stopped_and_asks_again_at_the_next_save(qtbot, main_window,
                                                                       demo_copy):
    w = main_window
    w.autosave_ms = 20
    open_db(qtbot, w, demo_copy)
    asked = _asked(w, None)
    theirs = _change_outside(demo_copy, "plain")
    mine = _score(qtbot, w)                             # the autosave is due now: checked
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=10_000)
    qtbot.wait(200)                                    # no autosave comes
    assert demo_copy.read_bytes() == theirs and not w.files._autosave_timer.isActive()
    assert "NOT SAVED" in w.statusBar().currentMessage()
    label = w.findChild(type(w.files.disk_change.label), "fileState")
    assert label is not None and label.isVisible() and "changed on disk" in label.text()
    entries = Journal.for_database(demo_copy).entries()
    assert [(e.judge, e.value) for e in entries] == [(ME, 4.0)]   # mine: in the journal
    w.files.disk_change.ask = lambda path, can_reload: (asked.append((path, can_reload)), RELOAD)[1]
    with qtbot.waitSignal(w.saved, timeout=60_000):
        w.save()                                       # Ctrl+S: asked again
    assert len(asked) == 2
    db = load_database(demo_copy)
    assert _theirs_marker(db) and mine in _mine(db)
    assert not label.isVisible()


def test_a_change_during_the_write_is_caught_on_the_worker(qtbot, main_window, demo_copy,
                                                          monkeypatch):
    """The file changes after the check on the UI thread and before the write: the worker's
    check refuses, nothing is written, the user is asked."""
    from evaltrans_qt.ui.controllers import files as mw
    w = main_window
    open_db(qtbot, w, demo_copy)
    mine = _score(qtbot, w)
    real = mw.save_job
    changed: list[bytes] = []

    def theirs_first(db, path, before_write=None):
        changed.append(_change_outside(path, "plain"))
        return real(db, path, before_write=before_write)
    monkeypatch.setattr(mw, "save_job", theirs_first)
    asked = _asked(w, None)
    w.save()
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=30_000)
    assert demo_copy.read_bytes() == changed[0] and w.workspace.disk_changed
    monkeypatch.setattr(mw, "save_job", real)
    w.files.disk_change.ask = lambda path, can_reload: MERGE
    w.files.disk_change.merge_policy = "old"
    with qtbot.waitSignal(w.saved, timeout=60_000):
        w.save()
    db = load_database(demo_copy)
    assert _theirs_marker(db) and mine in _mine(db)


def test_reload_is_not_offered_when_unsaved_changes_are_not_in_the_journal(qtbot, main_window,
                                                                           demo_copy):
    """An import or a merge is not journalled: a reload would lose it."""
    w = main_window
    open_db(qtbot, w, demo_copy)
    w.database_modified()                              # e.g. a merge into the database
    asked = _asked(w, None)
    theirs = _change_outside(demo_copy, "plain")
    w.save()
    qtbot.waitUntil(lambda: len(asked) == 1, timeout=10_000)
    assert asked == [(demo_copy, False)] and demo_copy.read_bytes() == theirs


def test_closing_with_save_answers_the_question_first(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    mine = _score(qtbot, w)
    _change_outside(demo_copy, "plain")               # my judgement only in the journal
    asked = _asked(w, RELOAD)
    w.files.ask_unsaved = lambda: QMessageBox.Save
    w.close()
    assert not w.isVisible() and len(asked) == 1
    db = load_database(demo_copy)
    assert _theirs_marker(db) and mine in _mine(db)
    assert not journal_path(demo_copy).exists() and store.lock_holder(demo_copy) is None


def test_read_only_while_another_process_holds_the_file(qtbot, main_window, demo_copy):
    other = store.acquire_lock(demo_copy)               # as another evaltrans-qt would
    w = main_window
    w.autosave_ms = 20
    open_db(qtbot, w, demo_copy)
    assert w.workspace.read_only
    assert "read-only: open in evaltrans-qt, pid" in w.windowTitle()
    label = w.files.disk_change.label
    assert label.isVisible() and label.text().startswith("read-only: open in evaltrans-qt, pid")
    from evaltrans_qt.ui import errors
    assert w.start_session(ME, ["fluency"]) is None    # its journal is the other program's
    assert "read-only here" in str(errors.history[-1]) and not journal_path(demo_copy).exists()
    # post-edit, new reference, item marking and item definition refuse too, saying why
    pm = w.protocol_modes
    w.open_in_compare(0, next(j for j, t in enumerate(w.database.sources[0].targets)
                              if not w.database.is_reference(t)))
    for mode in ("postedit", "reference"):
        assert pm.enter_mode(mode) is False and pm.mode is None
        assert "Read-only" in w.statusBar().currentMessage()
    pm.define_items_dialog()
    assert getattr(pm, "last_dialog", None) is None      # no dialog opened
    assert not journal_path(demo_copy).exists()
    before = demo_copy.read_bytes()
    w.workspace.mark_changed()                          # something unsaved
    qtbot.wait(150)
    w.files.autosave()
    qtbot.wait(50)
    assert demo_copy.read_bytes() == before and w.is_dirty and w.files._saving is None
    store.release_lock(other)                           # the other one closed it
    with qtbot.waitSignal(w.saved, timeout=60_000):
        w.files._schedule_autosave()                          # the next change: lock taken, saved
    assert not w.workspace.read_only and "read-only" not in w.windowTitle()
    assert not label.isVisible() and store.lock_holder(demo_copy) == w.workspace.lock


def test_the_dialog_fits_a_small_screen_and_defaults_to_reload(qtbot, tmp_path):
    from evaltrans_qt.ui import errors
    dlg = DiskChangeDialog(tmp_path / "campaign.etdb.xml", True, 3)
    qtbot.addWidget(dlg)
    dlg.show()
    assert dlg.buttons[RELOAD].isChecked() and dlg.buttons[RELOAD].isEnabled()
    size = dlg.sizeHint().expandedTo(dlg.size())
    assert size.width() <= 1366 and size.height() <= 768 - 60
    for button in dlg.buttons.values():
        assert QRect(0, 0, dlg.width(), dlg.height()).contains(button.geometry())
    dlg.accept()
    assert dlg.choice() == RELOAD
    cannot = DiskChangeDialog(tmp_path / "campaign.etdb.xml", False, 1)
    qtbot.addWidget(cannot)
    assert not cannot.buttons[RELOAD].isEnabled() and cannot.buttons[MERGE].isChecked()
    cannot.reject()
    assert cannot.choice() is None
    assert errors.auto_close_ms                         # unanswered: Cancel, never a hang
    assert ask_choice(None, tmp_path / "x.etdb.xml", True, 1) is None
