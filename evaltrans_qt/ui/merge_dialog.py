"""Merge another database into the open one, asking about each conflicting score.

The other file is loaded on a worker; the merge itself
(:func:`evaltrans_qt.engine.data.merge.merge`) runs on the UI thread because it
asks the user: :class:`ConflictDialog` shows old and new score side by side
with *Keep old*, *Take new* and *Apply to all*; a summary follows.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.merge import Choice, Conflict, MergeReport, merge
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.workers import handle_errors, start_worker


def _score_text(s) -> str:
    parts = [f"{s.value:g}"]
    if s.extrapolated:
        parts.append("(extrapolated)")
    if s.time:
        parts.append(f"time {s.time}")
    return " ".join(parts)


class ConflictDialog(QDialog):
    """One conflict: old vs new score, keep old / take new, apply to all."""

    def __init__(self, conflict: Conflict, number: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictDialog")
        self.setWindowTitle(f"Merge conflict {number}")
        self.choice = "old"
        form = QFormLayout()
        src = QLabel(conflict.source.text)
        src.setWordWrap(True)
        tgt = QLabel(conflict.target.text)
        tgt.setWordWrap(True)
        form.addRow("Source:", src)
        form.addRow(f"Translation ({conflict.target.system or '-'}):", tgt)
        form.addRow("Score class:", QLabel(f"{conflict.cls}" + (f", judge {conflict.judge}"
                                                                   if conflict.judge else "")))
        grid = QGridLayout()
        grid.addWidget(QLabel("<b>Old (open database)</b>"), 0, 0)
        grid.addWidget(QLabel("<b>New (merged file)</b>"), 0, 1)
        self.old_label = QLabel(_score_text(conflict.old))
        self.new_label = QLabel(_score_text(conflict.new))
        grid.addWidget(self.old_label, 1, 0)
        grid.addWidget(self.new_label, 1, 1)
        self.apply_all = QCheckBox("Apply to all further conflicts")
        self.apply_all.setObjectName("applyToAll")
        buttons = QDialogButtonBox()
        self.keep_old = QPushButton("Keep &old")
        self.keep_old.setObjectName("keepOld")
        self.take_new = QPushButton("Take &new")
        self.take_new.setObjectName("takeNew")
        buttons.addButton(self.keep_old, QDialogButtonBox.AcceptRole)
        buttons.addButton(self.take_new, QDialogButtonBox.AcceptRole)
        self.keep_old.clicked.connect(lambda: self._choose("old"))
        self.take_new.clicked.connect(lambda: self._choose("new"))
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addLayout(grid)
        lay.addWidget(self.apply_all)
        lay.addWidget(buttons)

    def _choose(self, which: str) -> None:
        self.choice = which
        self.accept()

    def result_choice(self) -> Choice:
        return Choice(self.choice, self.apply_all.isChecked())


class InteractivePolicy:
    """A merge policy callback that asks with :class:`ConflictDialog`.

    ``decide`` may be replaced (tests) by a function ``ConflictDialog -> None``
    that clicks a button instead of running the dialog's event loop.
    """

    def __init__(self, parent: QWidget | None = None, decide=None) -> None:
        self.parent = parent
        self.decide = decide
        self.asked = 0

    def __call__(self, conflict: Conflict) -> Choice:
        self.asked += 1
        dlg = ConflictDialog(conflict, self.asked, self.parent)
        if self.decide is not None:
            self.decide(dlg)
        else:
            dlg.exec()
        choice = dlg.result_choice()
        dlg.deleteLater()
        return choice


def merge_into(window, other: Database, policy=None) -> MergeReport | None:
    """Merge ``other`` into ``window.database`` and refresh the window; returns the report."""
    if window.database is None:
        window.set_database(other, None)
        return None
    if policy is None:
        policy = InteractivePolicy(window)
    window.wait_for_save()        # never change the structure under a running save
    with window.autosave_paused():   # ... nor start one from a conflict dialog's event loop
        try:
            report = merge(window.database, other, policy)
        except Exception as exc:
            errors.show_error(exc, window)
            return None
        window.database_modified()
    show_summary(window, report)
    return report


def show_summary(window, report: MergeReport) -> QMessageBox:
    box = QMessageBox(QMessageBox.Information, "Merge finished", report.summary() + ".",
                      QMessageBox.Ok, window)
    box.setObjectName("mergeSummary")
    box.setAttribute(Qt.WA_DeleteOnClose)
    box.open()
    if errors.auto_close_ms:
        QTimer.singleShot(errors.auto_close_ms, box.close)
    window.statusBar().showMessage("Merged: " + report.summary(), 15000)
    window.files.merged(report)
    return box


def merge_file(window, path: str | Path, policy=None):
    """Load ``path`` on a worker, then merge it (UI thread, asking per conflict)."""
    from evaltrans_qt.io.etdb import load_database
    w = start_worker(load_database, Path(path), _start=False)
    w.signals.finished.connect(lambda other: merge_into(window, other, policy))
    handle_errors(w, lambda exc: errors.show_error(exc, window))
    from evaltrans_qt.ui.workers import launch
    launch(w)
    return w


def choose_and_merge(window) -> None:
    if window.database is None:
        return
    path, _f = QFileDialog.getOpenFileName(window, "Merge database", "",
                                           "EvalTrans databases (*.etdb.xml *.xml);;All files (*)")
    if path:
        merge_file(window, path)
