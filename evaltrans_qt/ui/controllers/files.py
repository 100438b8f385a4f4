"""File → Open, Save, Save as, Import, Merge, Autosave, recent files, changes on disk, closing.

Never losing a score: score changes of a session are journalled (fsync) before they are
applied (:mod:`evaltrans_qt.io.journal`); the database is autosaved atomically a few
seconds after a change (on a worker thread) and the journal is then cleared up to what
the save included. Opening a database replays a left-over journal and tells the user what
was recovered. Nothing is written over a file that changed on disk since it was opened or
saved here (:mod:`~evaltrans_qt.ui.disk_change_dialog` asks), nor over a file another
process holds (read-only here).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, QStandardPaths, Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.io.journal import ReplayReport
from evaltrans_qt.io.store import (
    DatabaseChangedError,
    DatabaseLockedError,
    FileIdentity,
    save_with_identity,
)
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.controllers.actions import make_action
from evaltrans_qt.ui.workers import Worker, handle_errors, launch, start_worker, wait_for_all
from evaltrans_qt.workspace import SaveJob, load_with_journal

ORGANISATION = "evaltrans_qt"
APPLICATION = "evaltrans-qt"
MAX_RECENT = 10


def make_settings() -> QSettings:
    """The application's settings (INI; tests redirect the path with ``QSettings.setPath``)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANISATION, APPLICATION)


def data_dir() -> Path:
    """Where the working copy of the demo database lives (``EVALTRANS_QT_DATA_DIR`` overrides)."""
    env = os.environ.get("EVALTRANS_QT_DATA_DIR")
    if env:
        return Path(env)
    loc = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(loc) if loc else Path.home() / ".evaltrans_qt"


def demo_working_copy() -> Path:
    """Copy the bundled demo database to the data directory (once) and return the copy."""
    from evaltrans_qt.io.etdb import demo_database_path
    d = data_dir()
    d.mkdir(parents=True, exist_ok=True)
    dst = d / "demo.etdb.xml"
    if not dst.exists():
        shutil.copyfile(demo_database_path(), dst)
    return dst


def save_job(db: Database, path: str | Path, *, before_write=None) -> FileIdentity:
    """Save on a worker thread through the one validated write path
    (:func:`evaltrans_qt.io.store.save_with_identity`: serialise, check that the bytes load
    back, ``before_write`` -- the workspace's disk and lock check -- then the atomic
    replace), as the command line does; returns the identity of the bytes written.

    The UI thread may change the database meanwhile (scores; merges wait for the save,
    see ``wait_for_save``); the check guarantees that whatever was serialised is a
    loadable database before it replaces the file on disk.
    """
    return save_with_identity(db, path, before_write=before_write)


class FilesController(QObject):
    """The window's files: open, save, autosave, recent files, disk changes (module doc)."""

    def __init__(self, window: Any) -> None:
        """``window``: the :class:`~evaltrans_qt.ui.main_window.MainWindow` composing this."""
        super().__init__(window)
        self.window = window
        self.workspace = ws = window.workspace
        self._saving: Worker | None = None
        self._save_again = False
        self._loading: Worker | None = None
        self._autosave_failed = False
        self._autosave_paused = 0
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.timeout.connect(self.autosave)
        #: The last journal replay told to the user, the last merge's report.
        self.last_recovery: ReplayReport | None = None
        self.last_merge_report = None
        self._build_actions()
        ws.dirty_changed.connect(self._dirty_changed)
        from evaltrans_qt.ui.disk_change_dialog import DiskChange
        self.disk_change = DiskChange(window)   # changed on disk / read-only: asks, shows

    def _build_actions(self) -> None:
        w = self.window

        def a(*args, **kw):
            return make_action(w, *args, **kw)
        self.act_open = a("&Open…", QKeySequence.StandardKey.Open, self.open_dialog, "Open an EvalTrans database")
        self.act_demo = a("Open &demo database", "Ctrl+Shift+D", self.open_demo)
        self.act_save = a("&Save", QKeySequence.StandardKey.Save, lambda: self.save(), "Save the database")
        self.act_save_as = a("Save &as…", "Ctrl+Shift+S", lambda: self.save_as())
        self.act_import_text = a("Plain text files…", "Ctrl+Alt+T", lambda: self.import_dialog("text"))
        self.act_import_aachen = a("Aachen text format…", "Ctrl+Alt+A",
                                   lambda: self.import_dialog("aachen"))
        self.act_import_sgml = a("NIST SGML/XML…", "Ctrl+Alt+G", lambda: self.import_dialog("sgml"))
        self.act_import_wmt = a("WMT folder…", "Ctrl+Alt+W", lambda: self.import_dialog("wmt"))
        self.import_actions = [self.act_import_text, self.act_import_aachen, self.act_import_sgml,
                               self.act_import_wmt]
        self.act_merge = a("&Merge database…", "Ctrl+Shift+M", self.merge_dialog)
        self.act_autosave = a("Auto&save", "Ctrl+Alt+S", self._toggle_autosave, checkable=True)
        self.act_autosave.setChecked(True)
        self.act_quit = a("&Quit", "Ctrl+Q", w.close)
        self.act_quit.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.recent_menu = QMenu("Open &recent", w)
        self.recent_menu.setObjectName("recentMenu")
        self._update_recent_menu()

    # ------------------------------------------------------------ opening
    def open_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path0 = self.workspace.path
        start = str(path0.parent) if path0 else ""
        path, _f = QFileDialog.getOpenFileName(self.window, "Open database", start,
                                               "EvalTrans databases (*.etdb.xml *.xml);;All files (*)")
        if path:
            self.open_database(path)

    def open_demo(self) -> Worker | None:
        if not self.confirm_discard():
            return None
        try:
            path = demo_working_copy()
        except OSError as exc:
            errors.show_error(exc, self.window)
            return None
        return self.open_database(path)

    def open_database(self, path: str | Path) -> Worker:
        """Load ``path`` on a worker (replaying a left-over journal); ``databaseChanged`` when done."""
        path = Path(path)
        bar = self.window.statusBar()
        bar.showMessage(f"Opening {path} …")
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        w = start_worker(load_with_journal, path, _start=False)

        def done(res) -> None:
            db, report = res
            self.set_database(db, path, report)

        def failed(exc) -> None:
            bar.showMessage(f"Could not open {path}", 10000)
            errors.show_error(exc, self.window)

        w.signals.finished.connect(done)
        handle_errors(w, failed)
        w.signals.done.connect(QApplication.restoreOverrideCursor)
        self._loading = w
        launch(w)
        return w

    def set_database(self, db: Database | None, path: str | Path | None = None,
                     recovered: ReplayReport | None = None, *, reloaded: bool = False) -> None:
        """Show ``db`` (already loaded); ``recovered`` is the journal replay, if any
        (``reloaded``: the file read again after it changed on disk, the unsaved judgements
        of this window replayed -- said by the caller, not as a recovery)."""
        self.window.scoring.end_session()
        self._autosave_timer.stop()
        self._autosave_failed = False
        self.workspace.set_database(db, path, recovered)   # every observer resets
        if self.workspace.path is not None:
            self._add_recent(self.workspace.path)
        if recovered is not None and recovered.applied:
            self._schedule_autosave()
        self.window.statusBar().showMessage(f"Opened {self.workspace.path or 'database'}", 5000)
        if not reloaded and recovered is not None and \
                (recovered.applied or recovered.missing or recovered.rejected):
            self._tell_recovered(recovered)

    def _tell_recovered(self, report: ReplayReport) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, "Scores recovered",
                          "The previous session ended without saving. " + report.summary() + ".",
                          QMessageBox.StandardButton.Ok, self.window)
        box.setObjectName("recoveredDialog")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_recovery = report
        box.open()
        if errors.auto_close_ms:
            QTimer.singleShot(errors.auto_close_ms, box.close)
        self.window.statusBar().showMessage(report.summary(), 15000)

    def import_dialog(self, kind: str) -> None:
        from evaltrans_qt.ui import import_dialogs
        import_dialogs.run_import(self.window, kind)

    def merge_dialog(self) -> None:
        from evaltrans_qt.ui import merge_dialog
        merge_dialog.choose_and_merge(self.window)

    def merged(self, report) -> None:
        """A merge finished (:mod:`~evaltrans_qt.ui.merge_dialog` has shown its summary):
        its report is kept (``last_merge_report``)."""
        self.last_merge_report = report

    # ------------------------------------------------------------ saving
    def save(self, wait: bool = False) -> Worker | None:
        """Save atomically to the workspace's path on a worker (``wait`` blocks until done).
        Never over a file that changed on disk since it was opened or saved here: then
        nothing is written and the user is asked (:mod:`~evaltrans_qt.ui.disk_change_dialog`)."""
        if self.workspace.database is None:
            return None
        if self.workspace.path is None:
            return self.save_as(wait=wait)
        return self._save_to(None, wait)

    def save_as(self, path: str | Path | None = None, wait: bool = False) -> Worker | None:
        if self.workspace.database is None:
            return None
        current = self.workspace.path
        if path is None:
            # untitled (e.g. just imported): beside the last file worked on, else at home --
            # never the folder the program happened to be started from
            recent = [Path(p) for p in self.recent_files()]
            folder = recent[0].parent if recent else Path.home()
            start = str(current) if current else str(folder / "untitled.etdb.xml")
            path, _f = QFileDialog.getSaveFileName(self.window, "Save database as", start,
                                                   "EvalTrans databases (*.etdb.xml)")
            if not path:
                return None
        path = Path(path)
        if current is not None and path == current:
            return self._save_to(None, wait)
        # Path, journal, lock and recent files switch to the new name only once the save
        # there succeeded (_saved): a failed Save As leaves everything as it was.
        if self._saving is not None and not wait:
            self.wait_for_save()               # not folded into a pending in-place save
        return self._save_to(path, wait)

    def _save_to(self, path: Path | None, wait: bool) -> Worker | None:
        """Save in place (``path`` None) or as ``path``: the workspace checks first
        (:meth:`~evaltrans_qt.workspace.Workspace.prepare_save`: the file changed on disk
        -> the user is asked; another process holds it -> refused), the bytes are written
        on a worker (``wait``: here) with the same checks right before the replace, and the
        workspace finishes (journal, identity of the bytes written)."""
        if self._saving is not None:
            if wait:
                wait_for_all()
                QApplication.processEvents()
            else:
                self._save_again = True
                return self._saving
        self._autosave_timer.stop()
        try:
            job = self.workspace.prepare_save(path)
        except DatabaseChangedError:
            if wait:                             # e.g. Save when closing: answer now
                self.disk_change.resolve(wait=True)
            else:
                self.disk_change.ask_later()
            return None
        except (EvalTransError, OSError) as exc:
            errors.show_error(self._read_only_error(exc), self.window)
            return None
        if wait:
            try:
                identity = save_job(job.database, job.target, before_write=job.check)
            except DatabaseChangedError as exc:
                self._save_failed(exc)
                if not self.workspace.disk_changed:
                    return None
                self.disk_change.resolve(wait=True)
                return None
            except Exception as exc:
                errors.show_error(self._read_only_error(exc), self.window)
                return None
            self._saved(job, identity)
            return None
        w = start_worker(save_job, job.database, job.target, before_write=job.check,
                         _start=False)
        w.signals.finished.connect(lambda identity: self._saved(job, identity))
        handle_errors(w, self._save_failed)
        w.signals.done.connect(self._save_done)
        self._saving = w
        launch(w)
        return w

    def _saved(self, job: SaveJob, identity: FileIdentity) -> None:
        """The bytes are in place: the workspace clears the journal up to what they hold
        (Save As: moves what came later to the new file's journal, and the lock), records
        their identity and marks the changes saved."""
        if job.database is not self.workspace.database:
            return                               # another database was opened meanwhile
        problem = self.workspace.finish_save(job, identity)
        if problem is not None:
            errors.show_error(SaveError(problem, job.target), self.window)
        if not job.in_place:
            self._add_recent(job.target)
        self._autosave_failed = False
        self.window.update_title()
        self.window.statusBar().showMessage(f"Saved {job.target}", 4000)
        self.window.saved.emit(job.target)

    def _save_done(self) -> None:
        self._saving = None
        if self._save_again:
            self._save_again = False
            if self.workspace.is_dirty:
                self.save()
        elif self.workspace.is_dirty:
            self._schedule_autosave()

    def _save_failed(self, exc: BaseException) -> None:
        """A failed save: tell once, keep a visible 'not saved' state, stop autosaving until
        a save succeeds (a full disk must not raise a dialog every few seconds). The file
        changed on disk just before the write: the workspace notices and the user is asked
        (:mod:`~evaltrans_qt.ui.disk_change_dialog`), no error."""
        if isinstance(exc, DatabaseChangedError):
            self._autosave_timer.stop()
            if self.workspace.check_disk():        # changed back meanwhile: try again later
                self._schedule_autosave()
            else:
                self.disk_change.ask_later()
            return
        exc = self._read_only_error(exc)
        first = not self._autosave_failed
        self._autosave_failed = True
        self._autosave_timer.stop()
        self.window.statusBar().showMessage(f"NOT SAVED: {exc} — autosave paused; save with "
                                            "Ctrl+S or Save as once the problem is fixed")
        if first:
            errors.show_error(exc, self.window)

    @staticmethod
    def _read_only_error(exc: BaseException) -> BaseException:
        """A refusal because another process holds the file, worded for this window."""
        if isinstance(exc, DatabaseLockedError) and exc.holder is not None:
            return SaveError(f"read-only here: {exc.holder.describe()}. Close it there, or "
                             "save under another name (Save as)", exc.path)
        return exc

    def wait_for_save(self, timeout_s: float = 120.0) -> None:
        """Block (processing events) until a running save has finished -- before a merge
        or import changes the database structure under the serialiser."""
        import time
        end = time.monotonic() + timeout_s
        while self._saving is not None and time.monotonic() < end:
            QApplication.processEvents()
            time.sleep(0.01)

    # ------------------------------------------------------------ autosave
    def _dirty_changed(self, dirty: bool) -> None:
        self.window.update_title()
        if dirty:
            self._schedule_autosave()

    def _schedule_autosave(self) -> None:
        if self._autosave_failed:
            return
        ws = self.workspace
        if ws.read_only:
            ws.retry_lock()            # its holder may have closed it
        if ws.autosave_due and not self._autosave_timer.isActive() and not self._autosave_paused:
            self._autosave_timer.start(ws.autosave_ms)

    def autosave(self) -> None:
        """The autosave timer: save if the workspace says one is due -- which checks that
        the file is still the one loaded or saved here and that no other process holds it."""
        if self.workspace.read_only:
            self.workspace.retry_lock()
        if not self._autosave_paused and self.workspace.autosave_due:
            self.save()

    @contextlib.contextmanager
    def autosave_paused(self) -> Iterator[None]:
        """No autosave starts inside: a merge asks about conflicts in dialogs, whose event
        loop would otherwise let the autosave timer serialise a half-merged database while
        the merge goes on changing it. Afterwards a pending autosave is scheduled again."""
        self._autosave_paused += 1
        self._autosave_timer.stop()
        try:
            yield
        finally:
            self._autosave_paused -= 1
            if not self._autosave_paused and self.workspace.is_dirty:
                self._schedule_autosave()

    def _toggle_autosave(self, on: bool) -> None:
        self.workspace.set_autosave(on)
        if on and self.workspace.is_dirty:
            self._schedule_autosave()

    # ------------------------------------------------------------ recent files
    def recent_files(self) -> list[str]:
        v = self.window.settings.value("recentFiles", [])
        if isinstance(v, str):
            v = [v]
        return [str(x) for x in (v or [])]

    def _add_recent(self, path: Path) -> None:
        if not self.window.persist_settings:
            return
        files = [str(path)] + [f for f in self.recent_files() if f != str(path)]
        self.window.settings.setValue("recentFiles", files[:MAX_RECENT])
        self._update_recent_menu()

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for k, f in enumerate(self.recent_files()):
            act = self.recent_menu.addAction(f"&{k + 1} {f}")
            act.setShortcut(QKeySequence(f"Ctrl+Shift+{k + 1}") if k < 9 else QKeySequence())
            act.triggered.connect(lambda _c=False, p=f: self.confirm_discard() and self.open_database(p))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    # ------------------------------------------------------------ unsaved changes, closing
    def confirm_discard(self) -> bool:
        """Ask what to do with unsaved changes; True if we may go on."""
        if self.workspace.database is None or not self.workspace.is_dirty:
            return True
        ans = self.ask_unsaved()
        if ans == QMessageBox.StandardButton.Save:
            self.save(wait=True)
            return not self.workspace.is_dirty
        if ans == QMessageBox.StandardButton.Discard:
            self.workspace.discard_changes()
            return True
        return False

    def ask_unsaved(self):
        """The unsaved-changes question (tests replace this method)."""
        return QMessageBox.question(
            self.window, "Unsaved changes", "The database has unsaved changes. Save them?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)

    def may_close(self) -> bool:
        """The window is closing: ask about unsaved changes (False: stay open), else let a
        running (auto)save finish -- other jobs are not waited for -- and close the workspace."""
        if not self.confirm_discard():
            return False
        self.window.compare_view.runner.cancel()
        if self._saving is not None:
            w = self._saving
            finished: list[int] = []
            w.signals.done.connect(lambda: finished.append(1))
            from PySide6.QtCore import QDeadlineTimer, QEventLoop
            deadline = QDeadlineTimer(120_000)
            while not finished and self._saving is not None and not deadline.hasExpired():
                QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        self.workspace.close()
        return True


__all__ = ["FilesController", "make_settings", "data_dir", "demo_working_copy", "save_job",
           "ORGANISATION", "APPLICATION", "MAX_RECENT"]
