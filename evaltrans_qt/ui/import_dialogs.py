"""File → Import dialogs for every format of the data layer (plain text, Aachen, SGML/XML, WMT).

Each dialog collects paths and builds a *job*: a Qt-free call of the matching
importer (``evaltrans_qt.io.*``), run on a worker. The imported database opens
as a new, untitled database, or is merged into the open one (then conflicts
are asked about, see :mod:`evaltrans_qt.ui.merge_dialog`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.workers import Worker, handle_errors, launch, start_worker

TITLES = {"text": "Import plain text files", "aachen": "Import Aachen text format",
          "sgml": "Import NIST SGML/XML", "wmt": "Import WMT folder"}


class PathField(QWidget):
    """A line edit with a Browse button (file, save file or folder)."""

    def __init__(self, caption: str, folder: bool = False, filt: str = "All files (*)") -> None:
        super().__init__()
        self.edit = QLineEdit()
        b = QPushButton("Browse…")
        b.clicked.connect(self._browse)
        self.caption, self.folder, self.filt = caption, folder, filt
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.edit, 1)
        lay.addWidget(b)

    def _browse(self) -> None:
        if self.folder:
            p = QFileDialog.getExistingDirectory(self, self.caption)
        else:
            p, _f = QFileDialog.getOpenFileName(self, self.caption, "", self.filt)
        if p:
            self.edit.setText(p)

    def path(self) -> str:
        return self.edit.text().strip()

    def set_path(self, p: str | Path) -> None:
        self.edit.setText(str(p))


class PathList(QWidget):
    """A list of files with Add/Remove buttons."""

    def __init__(self, caption: str) -> None:
        super().__init__()
        self.caption = caption
        self.list = QListWidget()
        add = QPushButton("Add…")
        rem = QPushButton("Remove")
        add.clicked.connect(self._add)
        rem.clicked.connect(lambda: [self.list.takeItem(self.list.row(i)) for i in self.list.selectedItems()])
        buttons = QVBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(rem)
        buttons.addStretch(1)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.list, 1)
        lay.addLayout(buttons)
        self.list.setMaximumHeight(90)

    def _add(self) -> None:
        paths, _f = QFileDialog.getOpenFileNames(self, self.caption)
        for p in paths:
            self.list.addItem(p)

    def paths(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def set_paths(self, paths) -> None:
        self.list.clear()
        for p in paths:
            self.list.addItem(str(p))


def _system_name(path: str) -> str:
    """System name from a file name: ``newstest.hyp.SYSTEM.de`` -> ``SYSTEM``, else the stem."""
    name = Path(path).name
    parts = name.split(".")
    if "hyp" in parts and parts.index("hyp") + 1 < len(parts):
        return parts[parts.index("hyp") + 1]
    return Path(path).stem


class ImportDialog(QDialog):
    """One dialog for all formats; ``job()`` returns the importer call."""

    def __init__(self, kind: str, can_merge: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName(f"import_{kind}")
        self.setWindowTitle(TITLES[kind])
        form = QFormLayout()
        self.fields: dict[str, Any] = {}
        if kind == "text":
            self._add(form, "source", "Source file:", PathField("Source file"))
            self._add(form, "references", "Reference files:", PathList("Reference files"))
            self._add(form, "systems", "System files:", PathList("System output files"))
        elif kind == "aachen":
            self._add(form, "file", "Aachen file:", PathField("Aachen text file"))
        elif kind == "sgml":
            self._add(form, "source", "Source set:", PathField("Source set", filt="SGML/XML (*.sgm *.xml);;All (*)"))
            self._add(form, "references", "Reference sets:", PathList("Reference sets"))
            self._add(form, "targets", "Test sets:", PathList("Test sets"))
        elif kind == "wmt":
            self._add(form, "folder", "WMT folder:", PathField("WMT folder", folder=True))
            self._add(form, "scores", "Scores TSV (optional):", PathField("Segment scores (TSV)"))
            cls = QLineEdit("mqm")
            self._add(form, "score_class", "Score class:", cls)
        else:
            raise ValueError(kind)
        self.merge_box = QCheckBox("Merge into the open database")
        self.merge_box.setObjectName("mergeIntoOpen")
        self.merge_box.setEnabled(can_merge)
        form.addRow(self.merge_box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        #: the window imported into (:func:`run_import`); None: OK only closes the dialog
        self.window_: Any = None
        self.worker: Worker | None = None
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)
        self.resize(560, 320)

    def accept(self) -> None:
        """OK: the import runs on a worker while the dialog stays open (OK disabled); it
        closes once the database is in, and stays with every field as typed on an error
        (a missing path, a file the importer refuses), the error shown over it."""
        window = self.window_
        if window is None:              # no window to import into: a plain dialog
            super().accept()
            return
        try:
            job = self.job()
        except EvalTransError as exc:
            errors.show_error(exc, self)
            return
        merge = self.merge_box.isChecked()
        if not merge and not window.files.confirm_discard():
            return
        self.ok_button.setEnabled(False)
        self.ok_button.setText("Importing…")
        self.worker = run_job(window, job, merge, failed=self._failed)
        self.worker.signals.finished.connect(lambda _r: QDialog.accept(self))

    def _failed(self, exc: BaseException) -> None:
        self.ok_button.setEnabled(True)
        self.ok_button.setText("OK")
        errors.show_error(exc, self)

    def _add(self, form: QFormLayout, key: str, label: str, w: QWidget) -> None:
        self.fields[key] = w
        w.setObjectName(f"field_{key}")
        form.addRow(label, w)

    def job(self) -> Callable[[], Database]:
        """The importer call for the entered paths (raises InputFormatError if one is missing)."""
        f = self.fields

        def need(key: str) -> str:
            p = f[key].path()
            if not p:
                raise InputFormatError(f"no {key} file given")
            return p

        if self.kind == "text":
            from evaltrans_qt.io.plaintext import import_text
            systems = [(_system_name(p), p) for p in f["systems"].paths()]
            return partial(import_text, need("source"), f["references"].paths(), systems)
        if self.kind == "aachen":
            from evaltrans_qt.io.aachen import import_aachen
            return partial(import_aachen, need("file"))
        if self.kind == "sgml":
            from evaltrans_qt.io.sgml import import_sgml
            return partial(import_sgml, need("source"), f["references"].paths(), f["targets"].paths())
        from evaltrans_qt.io.wmt import import_wmt
        scores = f["scores"].path() or None
        return partial(import_wmt, need("folder"), scores, f["score_class"].text().strip() or "mqm")


def run_job(window, job: Callable[[], Database], merge: bool = False, policy=None,
            failed: Callable[[BaseException], None] | None = None):
    """Run an import job on a worker, then open (or merge) the result in ``window``;
    ``failed`` (default: the error dialog over the window) receives an importer's error."""
    def import_and_check() -> tuple[Database, list[str]]:   # both on the worker
        # only sentences merged by text (Aachen, old files) can be reported: positional
        # imports keep one source per line
        from evaltrans_qt.io.plaintext import repeated_source_warnings
        db = job()
        return db, repeated_source_warnings(db)

    w = start_worker(import_and_check, _start=False)

    def done(result: tuple[Database, list[str]]) -> None:
        db, notes = result
        if merge and window.database is not None:
            from evaltrans_qt.ui.merge_dialog import merge_into
            merge_into(window, db, policy)
        else:
            window.set_database(db, None)
            window.workspace.mark_changed()  # an import is unsaved until saved
        if notes:
            errors.show_error(EvalTransError("\n".join(notes)), window,
                              title="Import: repeated source sentences")

    w.signals.finished.connect(done)
    def show(exc: BaseException) -> None:
        errors.show_error(exc, window)
    handle_errors(w, failed or show)
    launch(w)
    return w


def run_import(window, kind: str) -> ImportDialog | None:
    """Show the import dialog of ``kind`` and run the import (:meth:`ImportDialog.accept`);
    returns the dialog (open, not modal: it closes when the import succeeded)."""
    if not (window.database is not None) and not window.files.confirm_discard():
        return None
    dlg = ImportDialog(kind, window.database is not None, window)
    dlg.window_ = window
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.open()
    return dlg
