"""The open database changed on disk: ask, then keep both sides' data.

Another program (an ``evaltrans`` command run with ``--force``, another copy of the
application, a sync tool) may replace the file while it is open here. The workspace notices
before every save and autosave (:meth:`~evaltrans_qt.workspace.Workspace.check_disk`):
the file is not overwritten, autosave stops and ``changed_on_disk`` is emitted. Then
:class:`DiskChange` asks with :class:`DiskChangeDialog`:

* **Reload theirs and re-apply my unsaved judgements** (the default): the file on disk is
  read again on a worker, without its journal; the journal -- which holds exactly the
  judgements made here since the last save -- is replayed into it
  (:meth:`~evaltrans_qt.workspace.Workspace.reapply_journal`), it becomes the open
  database and is saved. Not offered when unsaved changes include some the journal does
  not hold (an import, a merge, a class edit): the reload would lose them.
* **Merge theirs into mine**: the file on disk is read on a worker and merged into the open
  database with File → Merge's merge (:func:`~evaltrans_qt.ui.merge_dialog.merge_into`:
  each conflicting score shown), then saved over the file (only if it is still the one
  merged).
* **Save mine under another name…**: Save As; their file stays as it is.
* **Cancel**: nothing is written, autosave stays stopped; the question comes back at the
  next save (Ctrl+S, or Save when closing). The unsaved judgements stay in the journal.

The status bar shows the file's state (``fileState``): "read-only: open in evaltrans-qt,
pid N" while another process holds the file's lock (nothing is saved over it; the lock
is taken as soon as that process lets go), "changed on disk: not saved" while the question
is open. Tests answer without a dialog by replacing :meth:`DiskChange.ask` (and
:meth:`DiskChange.ask_save_path`, :attr:`DiskChange.merge_policy`), as they replace the
window's ``ask_unsaved``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.io import store
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.workers import handle_errors, launch, start_worker

RELOAD, MERGE, SAVE_AS = "reload", "merge", "save_as"
#: The dialog's width: its text wraps there (fits a 1366x768 screen with room to spare).
WIDTH = 560

_CHOICES = (
    (RELOAD, "&Reload theirs and re-apply my unsaved judgements",
     "Opens the file as it is on disk and replays your judgements from its journal onto "
     "it, then saves. Where you scored what they changed, your judgement wins."),
    (MERGE, "&Merge theirs into mine",
     "Merges the file on disk into the open database as File → Merge does (each "
     "conflicting score is shown to choose), then saves over it."),
    (SAVE_AS, "&Save mine under another name…",
     "Writes the open database to a new file and goes on there; their file stays as it is."),
)
NO_RELOAD = ("Not possible now: some unsaved changes (an import, a merge or a class edit) "
             "are not in the journal and a reload would lose them.")


class DiskChangeDialog(QDialog):
    """The question (module doc): three choices, reload preselected, and Cancel."""

    def __init__(self, path: Path, can_reload: bool = True, unsaved: int = 0,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("diskChangeDialog")
        self.setWindowTitle("File changed on disk")
        lay = QVBoxLayout(self)
        kept = (f" Your {unsaved} unsaved change{'s' if unsaved != 1 else ''} are kept: "
                "judgements in its journal, everything in this window." if unsaved else "")
        intro = QLabel(f"<b>{path.name}</b> was changed by another program since it was "
                       "opened or last saved here. It was not overwritten and autosave "
                       f"is stopped.{kept}")
        intro.setObjectName("diskChangeText")
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.RichText)
        lay.addWidget(intro)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        for key, label, help_text in _CHOICES:
            button = QRadioButton(label)
            button.setObjectName(f"diskChoice_{key}")
            self.group.addButton(button)
            self.buttons[key] = button
            note = QLabel(NO_RELOAD if key == RELOAD and not can_reload else help_text)
            note.setWordWrap(True)
            note.setIndent(22)
            note.setEnabled(key != RELOAD or can_reload)
            lay.addWidget(button)
            lay.addWidget(note)
        self.buttons[RELOAD].setEnabled(can_reload)
        self.buttons[RELOAD if can_reload else MERGE].setChecked(True)
        box = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        box.button(QDialogButtonBox.Ok).setText("Continue")
        box.button(QDialogButtonBox.Cancel).setToolTip(
            "Not now: nothing is written, autosave stays stopped; asked again at the next save")
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        lay.addWidget(box)
        self.setFixedWidth(WIDTH)

    def choice(self) -> str | None:
        """The checked choice once accepted; None when cancelled."""
        if self.result() != QDialog.Accepted:
            return None
        return next((k for k, b in self.buttons.items() if b.isChecked()), None)


def ask_choice(parent: QWidget, path: Path, can_reload: bool, unsaved: int) -> str | None:
    """Run :class:`DiskChangeDialog` (modal); RELOAD, MERGE, SAVE_AS or None (Cancel)."""
    dlg = DiskChangeDialog(path, can_reload, unsaved, parent)
    if errors.auto_close_ms:                 # tests that forget to answer: Cancel, no hang
        QTimer.singleShot(errors.auto_close_ms, dlg.reject)
    dlg.exec()
    choice = dlg.choice()
    dlg.deleteLater()
    return choice


class DiskChange:
    """The window's answer to a change on disk and its file-state label (module doc)."""

    def __init__(self, window) -> None:
        self.window = window
        #: The conflict policy of "Merge theirs into mine" (None: ask per conflict).
        self.merge_policy = None
        self._answers = 0                    # questions asked (a pending one is then moot)
        self._scheduled = False
        self._asking = False
        self._reading = False                # an answer is reading the file on disk
        self.label = QLabel()
        self.label.setObjectName("fileState")
        self.label.hide()
        window.statusBar().addPermanentWidget(self.label)
        ws = window.workspace
        ws.changed_on_disk.connect(self._changed)
        for signal in (ws.lock_changed, ws.path_changed):
            signal.connect(self.refresh)
        ws.database_changed.connect(self.refresh)
        ws.dirty_changed.connect(self.refresh)

    # ------------------------------------------------------------ questions (tests replace)
    def ask(self, path: Path, can_reload: bool) -> str | None:
        """RELOAD, MERGE, SAVE_AS or None (Cancel): :class:`DiskChangeDialog`."""
        ws = self.window.workspace
        return ask_choice(self.window, path, can_reload, ws.changes - ws.saved_changes)

    def ask_save_path(self) -> str:
        """Where "Save mine under another name" writes ("" : cancelled)."""
        path = self.window.workspace.path
        start = str(path.with_name(path.name.replace(".etdb.xml", "") + "-mine.etdb.xml")) \
            if path is not None else "mine.etdb.xml"
        chosen, _f = QFileDialog.getSaveFileName(self.window, "Save my database as", start,
                                                 "EvalTrans databases (*.etdb.xml)")
        return chosen

    # ------------------------------------------------------------ state shown
    def refresh(self, *_args) -> None:
        """The status bar's file state and the window title."""
        ws = self.window.workspace
        if ws.read_only and ws.locked_by is not None:
            text = f"read-only: {ws.locked_by.describe()}"
            tip = ("Another program holds this database open: nothing is saved over it here "
                   "(Save As writes a copy). Close it there to save here.")
        elif ws.disk_changed:
            text, tip = "changed on disk: not saved", ("The file was changed by another "
                                                       "program; save (Ctrl+S) to choose "
                                                       "what to keep")
        else:
            text = tip = ""
        self.label.setText(text)
        self.label.setToolTip(tip)
        self.label.setVisible(bool(text))
        self.window.update_title()

    def _changed(self, _path: object = None) -> None:
        self.refresh()
        self.ask_later()

    def ask_later(self) -> None:
        """Ask once the current event is handled (never from inside a save)."""
        if self._scheduled or self._asking:
            return
        self._scheduled = True
        answers = self._answers
        QTimer.singleShot(0, self.window, lambda: self._ask_now(answers))

    def _ask_now(self, answers: int) -> None:
        self._scheduled = False
        if answers == self._answers:         # not answered meanwhile (a save that waited)
            self.resolve()

    # ------------------------------------------------------------ the answers
    def resolve(self, wait: bool = False) -> bool:
        """Ask and do what the user chose (``wait``: before returning, e.g. when closing).
        True if the answer leaves nothing to ask (started, with ``wait`` done)."""
        ws = self.window.workspace
        if ws.path is None or not ws.disk_changed:
            return True
        if self._asking or self._reading:
            return False
        self._answers += 1
        can_reload = not ws.unjournalled_changes
        self._asking = True
        try:
            choice = self.ask(ws.path, can_reload)
        finally:
            self._asking = False
        if choice == RELOAD and can_reload:
            return self.reload_theirs(wait)
        if choice == MERGE:
            return self.merge_theirs(wait)
        if choice == SAVE_AS:
            return self.save_mine_as(wait)
        self.window.statusBar().showMessage(
            f"NOT SAVED: {ws.path.name} changed on disk. Autosave stays stopped and your "
            "unsaved judgements stay in its journal; you are asked again at the next save "
            "(Ctrl+S).")
        return False

    def _read_theirs(self, then, wait: bool) -> bool:
        """Read the file on disk without its journal (worker; ``wait``: here) and call
        ``then(opened)`` -- unless another database was opened meanwhile."""
        w, ws = self.window, self.window.workspace
        path = ws.path
        w.wait_for_save()

        def done(opened: store.Opened) -> None:
            if ws.path is not None and path is not None and store.same_file(ws.path, path) \
                    and ws.disk_changed:
                then(opened)

        if wait:
            try:
                opened = store.open_database(path, replay_journal=False)
            except EvalTransError as exc:
                errors.show_error(exc, w)
                return False
            done(opened)
            return not ws.disk_changed
        job = start_worker(store.open_database, path, replay_journal=False, _start=False)
        job.signals.finished.connect(done)
        handle_errors(job, lambda exc: errors.show_error(exc, w))
        self._reading = True                 # no second question meanwhile (Ctrl+S)
        job.signals.done.connect(self._read_done)
        w.statusBar().showMessage(f"Reading {path.name} as it is on disk …")
        launch(job)
        return True

    def _read_done(self) -> None:
        self._reading = False

    def reload_theirs(self, wait: bool = False) -> bool:
        """Their file, with my journal replayed into it, becomes the open database; saved."""
        w, ws = self.window, self.window.workspace

        def reload(opened: store.Opened) -> None:
            path = opened.path
            report = ws.reapply_journal(opened.database)
            scoring = w.session is not None
            w.set_database(opened.database, path, report, reloaded=True)
            mine = len(report.applied) if report is not None else 0
            lost = (len(report.missing) + len(report.rejected) + len(report.skipped)) \
                if report is not None else 0
            w.statusBar().showMessage(
                f"Reloaded {path.name} from disk; {mine} unsaved judgement"
                f"{'s' if mine != 1 else ''} re-applied"
                + ("; the scoring session ended: start it again (Ctrl+J)" if scoring else ""),
                15000)
            if lost and report is not None:
                errors.show_error(SaveError(
                    f"{lost} of your unsaved judgements could not be re-applied to the file "
                    f"on disk ({report.summary()}); they are kept in "
                    f"{ws.journal.path.name if ws.journal else 'the journal'}.unapplied at "
                    "the next save", path), w)
            w.save(wait=wait)                # theirs and mine into the file, journal folded

        return self._read_theirs(reload, wait)

    def merge_theirs(self, wait: bool = False) -> bool:
        """Their file merged into the open database (conflicts shown), then saved over it."""
        w, ws = self.window, self.window.workspace

        def merged(opened: store.Opened) -> None:
            from evaltrans_qt.ui.merge_dialog import merge_into
            if merge_into(w, opened.database, self.merge_policy) is None:
                return                       # failed (shown); still changed on disk
            ws.merged_disk(opened.identity)
            self.refresh()
            w.save(wait=wait)

        return self._read_theirs(merged, wait)

    def save_mine_as(self, wait: bool = False) -> bool:
        """Save As another name; their file stays as it is."""
        w, ws = self.window, self.window.workspace
        path = self.ask_save_path()
        if not path:
            w.statusBar().showMessage("Not saved: choose another name, or save again to "
                                      "choose what to keep.", 8000)
            return False
        if ws.path is not None and store.same_file(path, ws.path):
            errors.show_error(SaveError("that is the file that changed on disk: choose "
                                        "another name to keep both", Path(path)), w)
            return False
        w.save_as(Path(path), wait=wait)
        return not wait or not ws.disk_changed


__all__ = ["DiskChange", "DiskChangeDialog", "ask_choice", "RELOAD", "MERGE", "SAVE_AS"]
