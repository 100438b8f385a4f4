"""Session → SegRanks → Extract segments…: ``evaltrans segranks extract`` in the application.

The same options as the command line (``cli/segranks.py``): parse trees (Penn Treebank or
CoNLL-U), alignments (a folder of ``SYSTEM.pharaoh`` files, else computed with eflomal,
optionally saved), systems, Algorithm 1's minimum and maximum length, tokenisation,
symmetrisation, the ``.segments`` file to write and its systems column. The inputs are
read (and aligned) in the background with progress
(:func:`evaltrans_qt.io.segranks.inputs.gather_inputs`, the command line's code); the
segments are then stored in the open database
(:func:`~evaltrans_qt.engine.human.segranks.extract.extract_database`: earlier segments and
their rankings are replaced, as the command line does), which is marked changed, and the
TSV (Macháček appendix B.2) is written. An error leaves the dialog open with its fields.

Object names for tests: ``segranksDialog``, ``segranksTrees``, ``segranksAlignments``,
``segranksOutput``, ``segranksProgress``, ``segranksStatus``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.errors import OptionError


@dataclass
class ExtractRequest:
    """The dialog's fields, as ``evaltrans segranks extract`` takes them."""

    trees: str
    alignments_dir: str = ""
    systems: tuple[str, ...] = ()
    min_length: int = 3
    max_length: int = 6
    tokenize: str = "none"
    symmetrize: str = ""
    save_alignments: str = ""
    output: str = ""
    systems_column: bool = False

    def check(self) -> None:
        """:class:`OptionError` naming the field at fault (before anything runs)."""
        if not self.trees or not Path(self.trees).is_file():
            raise OptionError(f"Parse trees: '{self.trees}' is not a file (Penn Treebank .ptb "
                              "or CoNLL-U .conllu, one tree per source)")
        if self.alignments_dir and not Path(self.alignments_dir).is_dir():
            raise OptionError(f"Alignments: '{self.alignments_dir}' is not a folder")
        if not self.output:
            raise OptionError("Segments file: give the .segments file to write")
        if not Path(self.output).parent.is_dir():
            raise OptionError(f"Segments file: the folder of '{self.output}' does not exist")
        if self.min_length > self.max_length:
            raise OptionError(f"Minimum length {self.min_length} is above the maximum "
                              f"{self.max_length}")


def gather_job(db, req: ExtractRequest, report=None):
    """The background part: trees and alignments read (eflomal when none are given)."""
    from evaltrans_qt.io.segranks.inputs import gather_inputs
    conllu = req.trees.lower().endswith((".conllu", ".conll"))
    return gather_inputs(db, trees=None if conllu else req.trees,
                         conllu=req.trees if conllu else None,
                         alignments_dir=req.alignments_dir or None,
                         systems=list(req.systems) or None, tokenize=req.tokenize,
                         symmetrize=req.symmetrize or None,
                         save_alignments=req.save_alignments or None,
                         progress=report)


class SegRanksExtractDialog(QDialog):
    """Extract SegRanks segments into the open database (module doc)."""

    extracted = Signal(object)          # ExtractionSummary

    def __init__(self, workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("segranksDialog")
        self.setWindowTitle("Extract SegRanks segments")
        self.workspace = workspace
        self.worker = None
        self.summary = None
        from evaltrans_qt.engine.human.segranks.projection import SYMMETRIZATIONS
        from evaltrans_qt.engine.options import TOKENIZATIONS
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Short segments of each source sentence (Algorithm 1 on its parse "
                             "tree), projected onto every system's candidate through a word "
                             "alignment and merged where identical (Macháček ch. 2), as "
                             "'evaltrans segranks extract' does. Earlier segments of the "
                             "database and their rankings are replaced.", wordWrap=True))
        form = QFormLayout()
        self.trees = self._path_row(form, "Parse trees:", "segranksTrees", "file",
                                    "Penn Treebank (.ptb) or CoNLL-U (.conllu) trees, one per "
                                    "source in database order (--trees / --conllu)")
        self.alignments = self._path_row(form, "Alignments folder:", "segranksAlignments", "dir",
                                         "A folder of SYSTEM.pharaoh word alignments (i-j, "
                                         "0-based; --alignments-dir). Empty: computed with "
                                         "eflomal (needs the [align] extra)")
        self.systems = QLineEdit(objectName="segranksSystems",
                                 placeholderText="all (or those with an alignment)")
        self.systems.setToolTip("Systems to project onto, comma-separated (--systems)")
        form.addRow("Systems:", self.systems)
        row = QHBoxLayout()
        self.min_len = QSpinBox(objectName="segranksMin", minimum=1, maximum=100, value=3)
        self.max_len = QSpinBox(objectName="segranksMax", minimum=1, maximum=100, value=6)
        self.min_len.setToolTip("minLength of Algorithm 1: shortest segment in words (--min)")
        self.max_len.setToolTip("maxLength of Algorithm 1: longest segment in words (--max)")
        for w in (QLabel("from"), self.min_len, QLabel("to"), self.max_len, QLabel("words")):
            row.addWidget(w)
        row.addStretch(1)
        form.addRow("Segment length:", row)
        self.tokenize = QComboBox(objectName="segranksTokenize")
        self.tokenize.addItems(list(TOKENIZATIONS))
        self.tokenize.setCurrentText("none")
        self.tokenize.setToolTip("How sentences split into the tokens trees and alignments "
                                 "count (--tokenize; none: on spaces, for pre-tokenised text)")
        form.addRow("Tokenisation:", self.tokenize)
        self.symmetrize = QComboBox(objectName="segranksSymmetrize")
        self.symmetrize.addItems(["(default)", *SYMMETRIZATIONS])
        self.symmetrize.setToolTip("How eflomal's two directions are combined (--symmetrize); "
                                   "only when alignments are computed")
        form.addRow("Symmetrisation:", self.symmetrize)
        self.save_alignments = self._path_row(form, "Save computed alignments to:",
                                              "segranksSaveAlignments", "dir",
                                              "Write computed alignments as "
                                              "FOLDER/SYSTEM.pharaoh (--save-alignments)")
        self.output = self._path_row(form, "Segments file:", "segranksOutput", "save",
                                     "The 6-field .segments TSV to write (Macháček appendix "
                                     "B.2; -o)")
        self.systems_column = QCheckBox("add a 7th field with each segment's systems",
                                        objectName="segranksSystemsColumn")
        self.systems_column.setToolTip("--systems-column")
        form.addRow("", self.systems_column)
        lay.addLayout(form)
        self.progress = QProgressBar(objectName="segranksProgress")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setTextVisible(False)
        lay.addWidget(self.progress)
        self.status = QLabel("", objectName="segranksStatus", wordWrap=True)
        lay.addWidget(self.status)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Close)
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Extract")
        self.buttons.accepted.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        from evaltrans_qt.ui.options_dialog import fit_to_screen
        fit_to_screen(self)

    def _path_row(self, form: QFormLayout, label: str, name: str, kind: str,
                  tip: str) -> QLineEdit:
        edit = QLineEdit(objectName=name)
        edit.setToolTip(tip)
        browse = QPushButton("Browse…")
        browse.setToolTip(tip)

        def pick() -> None:
            if kind == "dir":
                path = QFileDialog.getExistingDirectory(self, label, edit.text())
            elif kind == "save":
                path, _ = QFileDialog.getSaveFileName(self, label, edit.text(),
                                                      "SegRanks segments (*.segments)")
            else:
                path, _ = QFileDialog.getOpenFileName(self, label, edit.text(),
                                                      "Trees (*.ptb *.conllu *.conll);;"
                                                      "All files (*)")
            if path:
                edit.setText(path)
        browse.clicked.connect(pick)
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(browse)
        form.addRow(label, row)
        return edit

    def request(self) -> ExtractRequest:
        sym = self.symmetrize.currentText()
        return ExtractRequest(
            trees=self.trees.text().strip(), alignments_dir=self.alignments.text().strip(),
            systems=tuple(s.strip() for s in self.systems.text().split(",") if s.strip()),
            min_length=self.min_len.value(), max_length=self.max_len.value(),
            tokenize=self.tokenize.currentText(),
            symmetrize="" if sym == "(default)" else sym,
            save_alignments=self.save_alignments.text().strip(),
            output=self.output.text().strip(), systems_column=self.systems_column.isChecked())

    @property
    def running(self) -> bool:
        return self.worker is not None

    def start(self) -> bool:
        """Check the fields and start reading the inputs in the background; False (and the
        reason under the fields) when they are not right."""
        if self.running:
            return False
        db = self.workspace.database
        req = self.request()
        try:
            if db is None:
                raise OptionError("open or import a database first")
            if self.workspace.read_only:
                raise OptionError("the database is read-only: "
                                  + (self.workspace.read_only_reason() or "open elsewhere"))
            req.check()
        except OptionError as exc:
            self._said(str(exc), error=True)
            return False
        from evaltrans_qt.ui.workers import handle_errors, launch, start_worker
        w = start_worker(gather_job, db, req, _start=False)
        w.signals.reported.connect(lambda text: self.status.setText(f"{text}…"))
        w.signals.finished.connect(lambda inputs: self._store(db, req, inputs))
        handle_errors(w, lambda exc: self._said(str(exc), error=True))
        w.signals.done.connect(self._done)
        self.worker = w
        self.progress.setRange(0, 0)            # busy: eflomal gives no fraction
        self.ok.setEnabled(False)
        self.status.setStyleSheet("")
        self.status.setText("starting…")
        launch(w)
        return True

    def _store(self, db, req: ExtractRequest, inputs) -> None:
        """On the UI thread: the segments into the open database, the TSV written."""
        if db is not self.workspace.database:
            self._said("another database was opened meanwhile: nothing extracted", error=True)
            return
        from evaltrans_qt.engine.human.segranks.extract import extract_database
        from evaltrans_qt.errors import EvalTransError
        from evaltrans_qt.io.atomic import atomic_write_text
        from evaltrans_qt.io.segranks import formats
        try:
            summary = extract_database(db, inputs.trees, inputs.alignments,
                                       min_length=req.min_length, max_length=req.max_length,
                                       tokenization=req.tokenize, trees_path=inputs.trees_path)
        except EvalTransError as exc:
            self._said(str(exc), error=True)
            return
        self.workspace.modified(affects_results=False)   # segments: no measure changes
        try:
            atomic_write_text(Path(req.output), formats.segments_tsv(db, systems=req.systems_column))
        except (OSError, EvalTransError) as exc:
            self._said(f"segments stored in the database; {req.output} not written: {exc}",
                       error=True)
            return
        self.summary = summary
        ratio = 100 * summary.merged_ratio if summary.projected else float("nan")
        self._said(f"{summary.sentences} sentences, {summary.segments} segments, "
                   f"{summary.projected} candidate segments from {len(summary.systems)} "
                   f"systems, {summary.merged} after merging ({ratio:.1f} %); stored in the "
                   f"database (save it) and written to {Path(req.output).name}. Rank them: "
                   "Session → Rank short segments (Ctrl+Alt+J).")
        self.extracted.emit(summary)

    def _said(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet("color: #c62828;" if error else "")
        self.status.setText(text)

    def _done(self) -> None:
        self.worker = None
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if self.summary is not None else 0)
        self.ok.setEnabled(True)


def show_extract_dialog(window) -> SegRanksExtractDialog:
    """Open the dialog for ``window``'s workspace (non-modal)."""
    from PySide6.QtCore import Qt
    dlg = SegRanksExtractDialog(window.workspace, window)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.show()
    return dlg
