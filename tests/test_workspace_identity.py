"""The workspace (Qt-free) never overwrites a file that changed on disk and holds the
database's advisory lock while it is open: identity recorded at load and save, checked
before saves and autosaves (a change stops autosaving and emits ``changed_on_disk``);
the lock taken at open, moved by Save As, released at close; commands refuse to write
the file meanwhile."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from evaltrans_qt.io import store
from evaltrans_qt.io.etdb import demo_database_path, load_database, save_database
from evaltrans_qt.io.journal import Journal, change_for, journal_path
from evaltrans_qt.io.store import (
    DatabaseChangedError,
    DatabaseLockedError,
    PendingJournalError,
    lock_path,
)
from evaltrans_qt.workspace import Workspace, load_with_journal


@pytest.fixture
def demo(tmp_path) -> Path:
    p = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), p)
    return p


def _unscored(db):
    return next((i, j) for i, s in enumerate(db.sources) for j, t in enumerate(s.targets)
                if not db.is_reference(t) and t.value("fluency") is None)


def _score(ws: Workspace, value: float = 2.0) -> None:
    """A judgement as the scoring session makes it (Workspace.commit: journal, apply, signal)."""
    assert ws.database is not None and ws.journal is not None
    si, ti = _unscored(ws.database)
    ws.commit(change_for(ws.database, si, ti, "fluency", value, "kim"))


def _theirs(path: Path) -> None:
    """Another program changes the file (a command writing in place)."""
    db = load_database(path)
    si, ti = _unscored(db)
    db.sources[si].targets[ti].set_score("fluency", 5, "other")
    save_database(db, path)


def test_open_takes_the_lock_and_close_releases_it(demo):
    ws = Workspace.open(demo)
    assert ws.lock is not None and ws.lock.pid == os.getpid()
    assert store.lock_holder(demo) == ws.lock
    # a command may not write the file meanwhile (even from this process)
    opened = store.open_database(demo)
    with pytest.raises(DatabaseLockedError, match="open in evaltrans-qt, pid"):
        store.write_database(opened, demo)
    # a second workspace on the same file: told, no lock of its own
    notes: list[str] = []
    other = Workspace()
    other.message.connect(notes.append)
    other.set_database(load_database(demo), demo)
    assert other.lock is None and other.locked_by == ws.lock
    assert notes and "is open in evaltrans-qt, pid" in notes[0]
    other.close()
    assert lock_path(demo).exists()                      # not its lock to remove
    ws.close()
    assert not lock_path(demo).exists() and ws.lock is None
    store.write_database(opened, demo)                   # now the command may write


def test_opening_another_database_moves_the_lock(demo, tmp_path):
    second = tmp_path / "second.etdb.xml"
    shutil.copyfile(demo, second)
    ws = Workspace.open(demo)
    ws.set_database(load_database(second), second)
    assert not lock_path(demo).exists() and store.lock_holder(second) == ws.lock
    ws.set_database(None)
    assert not lock_path(second).exists() and ws.lock is None


def test_a_change_on_disk_stops_autosave_and_is_never_overwritten(demo):
    ws = Workspace.open(demo)
    seen: list[object] = []
    notes: list[str] = []
    ws.changed_on_disk.connect(seen.append)
    ws.message.connect(notes.append)
    _score(ws)
    assert ws.autosave_due and ws.check_disk()
    ws.save()                                            # our own save: no conflict after it
    assert ws.check_disk() and not journal_path(demo).exists()
    force = store.open_database(demo)
    force.database.sources[0].targets[-1].set_score("fluency", 1, "other")
    store.write_database(force, demo, force=True)       # someone forces a write in place
    _score(ws, 3.0)
    theirs = demo.read_bytes()
    assert not ws.autosave_due                           # checked: changed, autosave stops
    assert seen == [demo] and ws.disk_changed
    assert "changed on disk" in notes[-1] and "autosave stopped" in notes[-1]
    with pytest.raises(DatabaseChangedError, match="changed on disk since it was opened"):
        ws.save()
    assert demo.read_bytes() == theirs                   # theirs untouched
    assert len(Journal.for_database(demo).entries()) == 1  # mine kept in the journal
    assert seen == [demo]                                # the event once
    ws.save(overwrite_changed=True)                      # the user chose to (after a merge)
    assert not ws.disk_changed and ws.check_disk() and not ws.is_dirty
    _score(ws, 4.0)
    assert ws.autosave_due                               # autosave resumes


def test_a_touched_file_with_the_same_content_is_not_a_change(demo):
    ws = Workspace.open(demo)
    st = os.stat(demo)
    os.utime(demo, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))
    _score(ws)
    assert ws.autosave_due and not ws.disk_changed


def test_a_change_between_loading_and_showing_is_seen(demo):
    """The window loads on a worker and shows the database later: the identity is the one
    of the bytes loaded, not of the file when it is shown."""
    db, report = load_with_journal(demo)
    _theirs(demo)
    ws = Workspace()
    ws.set_database(db, demo, report)
    assert not ws.check_disk()


def test_the_windows_own_save_path_keeps_the_identity(demo):
    """The window saves on a worker (save_database) and then calls mark_saved."""
    ws = Workspace.open(demo)
    _score(ws)
    save_database(ws.database, demo)
    ws.mark_saved(ws.changes)
    _score(ws, 3.0)
    assert ws.autosave_due
    ws.discard_changes()                                 # not a save: the file is not adopted
    _theirs(demo)
    _score(ws, 4.0)
    assert not ws.autosave_due and ws.disk_changed


def test_save_as_moves_lock_and_journal(demo, tmp_path):
    ws = Workspace.open(demo)
    _score(ws)
    new = tmp_path / "copy.etdb.xml"
    paths: list[object] = []
    ws.path_changed.connect(paths.append)
    assert ws.save(new) == new
    assert ws.path == new and paths == [new] and not ws.is_dirty
    assert not lock_path(demo).exists() and store.lock_holder(new) == ws.lock
    assert not journal_path(demo).exists() and not journal_path(new).exists()
    assert load_database(new) == ws.database
    assert ws.check_disk()
    # Save As over a file whose journal holds judgements would orphan them
    third = tmp_path / "third.etdb.xml"
    shutil.copyfile(demo, third)
    db3 = load_database(third)
    Journal.for_database(third).append(change_for(db3, *_unscored(db3), "fluency", 1, "ann"))
    with pytest.raises(PendingJournalError):
        ws.save(third)
    assert ws.path == new
    ws.close()


def test_identity_check_costs_one_stat(demo, monkeypatch):
    ws = Workspace.open(demo)
    reads: list[object] = []
    real = store._read_with_identity
    monkeypatch.setattr(store, "_read_with_identity", lambda p: (reads.append(p), real(p))[1])
    for _ in range(20):
        assert ws.check_disk()
    assert reads == []                                   # no read, no hash
    st = os.stat(demo)
    os.utime(demo, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert ws.check_disk() and len(reads) == 1          # same size, other stat: hashed once
    assert ws.check_disk() and len(reads) == 1          # and the new stat remembered
    ws.close()


def _fluency(db, judge: str) -> list[float]:
    return [x.value for s in db.sources for t in s.targets for x in t.scores
            if x.cls == "fluency" and x.judge == judge]


def test_reload_theirs_and_reapply_mine_keeps_both(demo):
    """"Reload theirs and re-apply my unsaved judgements": the file read again without the
    journal, the journal -- every judgement made here since the last save -- replayed into
    it; the save writes both and empties the journal."""
    ws = Workspace.open(demo)
    _score(ws, 2.0)
    _theirs(demo)
    assert not ws.check_disk()
    assert not ws.unjournalled_changes                   # a score: in the journal
    opened = store.open_database(demo, replay_journal=False)
    report = ws.reapply_journal(opened.database)
    assert report is not None and len(report.applied) == 1
    ws.set_database(opened.database, demo, report)
    assert ws.check_disk() and ws.is_dirty and not ws.disk_changed
    ws.save()
    db = load_database(demo)
    assert _fluency(db, "other") == [5.0] and _fluency(db, "kim") == [2.0]
    assert not journal_path(demo).exists()
    ws.close()


def test_entries_a_reload_cannot_apply_are_kept_aside_at_the_save(demo):
    ws = Workspace.open(demo)
    _score(ws, 2.0)
    db = load_database(demo)                             # they remove the class I scored
    db.levels = [lv for lv in db.levels if lv.name != "fluency"]
    for s in db.sources:
        for t in s.targets:
            t.scores = [x for x in t.scores if x.cls != "fluency"]
    save_database(db, demo)
    opened = store.open_database(demo, replay_journal=False)
    report = ws.reapply_journal(opened.database)
    assert report is not None and not report.applied and (report.rejected or report.missing)
    ws.set_database(opened.database, demo, report)
    ws.save()
    aside = journal_path(demo).with_name(journal_path(demo).name + ".unapplied")
    kept = Journal(aside).entries()
    assert [(e.cls, e.value, e.judge) for e in kept] == [("fluency", 2.0, "kim")]
    ws.close()


def test_changes_outside_the_journal_are_known(demo):
    """A reload would lose an import or a merge (not journalled): the workspace knows."""
    ws = Workspace.open(demo)
    _score(ws)
    assert not ws.unjournalled_changes
    ws.modified()                                        # e.g. a merge into the database
    assert ws.unjournalled_changes
    _score(ws, 3.0)
    assert ws.unjournalled_changes                       # still unsaved
    ws.save()
    assert not ws.unjournalled_changes
    ws.mark_changed()
    assert ws.unjournalled_changes
    ws.discard_changes()
    assert not ws.unjournalled_changes
    ws.close()


def test_merged_disk_lets_the_save_write_over_the_file_it_merged(demo):
    from evaltrans_qt.engine.data.merge import merge
    ws = Workspace.open(demo)
    _score(ws, 2.0)
    _theirs(demo)
    assert not ws.autosave_due and ws.disk_changed
    theirs = store.open_database(demo, replay_journal=False)
    merge(ws.database, theirs.database, "old")
    ws.merged_disk(theirs.identity)
    ws.modified()
    assert ws.autosave_due
    _theirs(demo)                                        # and once more: refused again
    with pytest.raises(DatabaseChangedError):
        ws.save()
    theirs = store.open_database(demo, replay_journal=False)
    merge(ws.database, theirs.database, "old")
    ws.merged_disk(theirs.identity)
    ws.save()
    db = load_database(demo)
    assert sorted(_fluency(db, "other")) == [5.0, 5.0] and _fluency(db, "kim") == [2.0]
    assert not journal_path(demo).exists()
    ws.close()


def test_a_save_prepared_then_written_elsewhere_keeps_later_judgements(demo):
    """The window's three steps: a judgement made while the bytes are written stays in the
    journal (in place) or moves to the new file's journal (Save As)."""
    ws = Workspace.open(demo)
    _score(ws, 2.0)
    job = ws.prepare_save()
    identity = job.write()
    _score(ws, 3.0)                                      # during the write
    assert ws.finish_save(job, identity) is None
    assert [e.value for e in ws.journal.entries()] == [3.0] and ws.is_dirty
    assert ws.check_disk()
    new = demo.with_name("copy.etdb.xml")
    job = ws.prepare_save(new)
    identity = job.write()
    _score(ws, 4.0)
    ws.finish_save(job, identity)
    assert ws.path == new and not journal_path(demo).exists()
    assert [e.value for e in Journal.for_database(new).entries()] == [4.0]
    db, _report = load_with_journal(new)
    assert sorted(_fluency(db, "kim")) == [2.0, 3.0, 4.0]
    ws.close()


def test_the_write_checks_the_disk_again_right_before_replacing(demo):
    ws = Workspace.open(demo)
    _score(ws)
    job = ws.prepare_save()
    _theirs(demo)                                        # between the check and the write
    theirs = demo.read_bytes()
    with pytest.raises(DatabaseChangedError):
        job.write()
    assert demo.read_bytes() == theirs
    ws.close()


def test_read_only_while_another_holds_the_lock_and_retried(demo):
    first = Workspace.open(demo)
    held = first.lock
    ws = Workspace()
    holders: list[object] = []
    ws.lock_changed.connect(holders.append)
    ws.set_database(load_database(demo), demo)
    assert ws.read_only and ws.locked_by == held and holders == [held]
    with pytest.raises(DatabaseLockedError):             # its journal is not ours
        _score(ws)
    assert ws.journal is not None and ws.journal.entries() == []
    ws.modified(affects_results=False)                   # unsaved (e.g. a class edit)
    assert not ws.autosave_due                           # never autosaves over it
    with pytest.raises(DatabaseLockedError):
        ws.save()
    assert not ws.retry_lock()
    first.close()
    assert ws.retry_lock() and not ws.read_only and holders == [held, None]
    assert store.lock_holder(demo) == ws.lock and ws.autosave_due
    ws.close()
