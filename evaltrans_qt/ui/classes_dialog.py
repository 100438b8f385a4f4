"""Edit → Score classes…: define, edit and remove the score classes (``<levels>``) of the database.

* the list of classes (:func:`classes_frame` over
  :func:`evaltrans_qt.engine.data.schemes.describe`, a ``FrameModel`` table); the last one
  decides references (thesis Appendix A.2) and is marked so.
* :class:`ClassCommand` is one step of the workspace's undo history
  (:mod:`evaltrans_qt.history`): it snapshots the classes and the scores it touches
  (:mod:`evaltrans_qt.engine.data.schemes`) so Ctrl+Z restores both. Class edits are not
  journalled judgements -- the window saves the file at once after each, undo and redo
  included -- so the step restores its snapshots itself instead of committing changes.
* :class:`ClassesDialog` (``classesDialog``) adds classes from a template or a
  form, edits the selected class, removes it -- asking first when scores would
  be deleted. Every change goes through ``window.change_classes`` (the undo
  history, dirty state and an immediate save, so a session journal never
  refers to a class the file does not declare).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.ui.results_models import GENERAL_FORMAT, table_view

# ----------------------------------------------------------------- table
#: The list's columns; perfect, gray and green read as Python's ``:g``.
COLUMNS = ["Class", "Scale", "Perfect", "Gray", "Green", "Scores", "Role"]
FORMATS = dict.fromkeys(("Perfect", "Gray", "Green"), GENERAL_FORMAT)
REFERENCE_TIP = ("The last class decides which targets are references (thesis Appendix A.2): "
                 "a target whose value here is at least 'perfect' is a reference. It always "
                 "stays last.")


def classes_frame(db: Database | None, rows: list[dict]) -> pd.DataFrame:
    """One row per class of :func:`evaltrans_qt.engine.data.schemes.describe` (file order)."""
    out = []
    for r in rows:
        lv = db.level(r["name"])
        out.append((r["name"], schemes.scale_text(lv), float(lv.perfect), float(lv.gray),
                    float(lv.green), int(r["scores"]),
                    "decides references" if r["decides_references"] else ""))
    return pd.DataFrame(out, columns=COLUMNS)


# ----------------------------------------------------------------- undoable change
class ClassCommand:
    """One change of the classes (and the scores it deletes or renames); a step of the
    undo history (:class:`evaltrans_qt.history.Entry`).

    :meth:`apply_first` runs ``change(db)`` once (raising on bad input, then nothing
    changed and nothing is recorded); redo/undo restore the snapshots after/before.
    """

    def __init__(self, window, text: str, change: Callable[[Database], object],
                 touches: list[str]) -> None:
        self.text = text
        self.main = window
        self.change = change
        self.touches = touches
        self.before: schemes.Snapshot | None = None
        self.after: schemes.Snapshot | None = None

    def apply_first(self) -> None:
        db = self.main.database
        targets = schemes.touched_targets(db, self.touches) if self.touches else []
        self.before = schemes.snapshot(db, targets)
        try:
            self.change(db)
        except BaseException:
            schemes.restore(db, self.before)
            raise
        self.after = schemes.snapshot(db, targets)
        self._human_before = [lv.name for lv in self.before.levels]
        self.main.classes_changed(self._human_before)

    def _snapshots(self) -> tuple[schemes.Snapshot, schemes.Snapshot]:
        if self.before is None or self.after is None:
            raise RuntimeError(f"'{self.text}' was never applied (apply_first)")
        return self.before, self.after

    def redo(self) -> None:
        before, after = self._snapshots()
        schemes.restore(self.main.database, after)
        self.main.classes_changed([lv.name for lv in before.levels])

    def undo(self) -> None:
        before, after = self._snapshots()
        schemes.restore(self.main.database, before)
        self.main.classes_changed([lv.name for lv in after.levels])


# ----------------------------------------------------------------- dialog
class ClassesDialog(QDialog):
    """Score classes: list (model/view), add from a template or the form, edit, remove."""

    def __init__(self, window, intro: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.main = window
        self.setObjectName("classesDialog")
        self.setWindowTitle("Score classes")
        #: The classes as :func:`~evaltrans_qt.engine.data.schemes.describe` lists them.
        self.rows: list[dict] = []
        # file order matters (the last class decides references): not sortable
        self.table, self.model, self.proxy = table_view(
            "classesTable", formats=FORMATS, sortable=False, resize=QHeaderView.ResizeToContents)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.selectionModel().currentRowChanged.connect(
            lambda cur, _p: self._fill(self._row(cur)))
        self.reload()

        # templates
        self.template_box = QComboBox()
        self.template_box.setObjectName("classTemplate")
        for t in schemes.TEMPLATES.values():
            self.template_box.addItem(f"{t.name} — {t.description}", t.name)
        self.add_template_button = QPushButton("Add from template")
        self.add_template_button.setObjectName("addTemplateButton")
        self.add_template_button.clicked.connect(lambda: self.add_template(self.template_box.currentData()))
        trow = QHBoxLayout()
        trow.addWidget(self.template_box, 1)
        trow.addWidget(self.add_template_button)

        # form
        self.name = QLineEdit()
        self.name.setObjectName("className")
        self.kind = QComboBox()
        self.kind.setObjectName("classKind")
        self.kind.addItem("levels 0 … count−1", False)
        self.kind.addItem("continuous (minimum … maximum)", True)
        self.count = QSpinBox()
        self.count.setObjectName("classCount")
        self.count.setRange(2, schemes.MAX_LEVELS)
        self.count.setValue(6)
        self.spins: dict[str, QDoubleSpinBox] = {}
        for key, default in (("firstvalid", 1), ("perfect", 5), ("gray", 2), ("green", 5),
                             ("minimum", 0), ("maximum", 100)):
            sp = QDoubleSpinBox()
            sp.setObjectName(f"class_{key}")
            sp.setRange(-1e9, 1e9)
            sp.setDecimals(3)
            sp.setValue(default)
            self.spins[key] = sp
        self.kind.currentIndexChanged.connect(lambda _i: self._kind_changed())
        form_box = QGroupBox("Class")
        form = QFormLayout(form_box)
        form.addRow("Name:", self.name)
        form.addRow("Kind:", self.kind)
        form.addRow("Count (levels incl. 0):", self.count)
        form.addRow("First valid level:", self.spins["firstvalid"])
        form.addRow("Minimum:", self.spins["minimum"])
        form.addRow("Maximum:", self.spins["maximum"])
        form.addRow("Perfect (reference level):", self.spins["perfect"])
        form.addRow("Gray from:", self.spins["gray"])
        form.addRow("Green from:", self.spins["green"])
        self.form = form
        self.add_button = QPushButton("Add")
        self.add_button.setObjectName("addClassButton")
        self.add_button.clicked.connect(self.add_from_form)
        self.edit_button = QPushButton("Apply to selected")
        self.edit_button.setObjectName("editClassButton")
        self.edit_button.clicked.connect(self.edit_selected)
        self.remove_button = QPushButton("Remove selected")
        self.remove_button.setObjectName("removeClassButton")
        self.remove_button.clicked.connect(self.remove_selected)
        brow = QHBoxLayout()
        for b in (self.add_button, self.edit_button, self.remove_button):
            b.setAutoDefault(False)
            brow.addWidget(b)
        self.add_template_button.setAutoDefault(False)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.accept)
        buttons.accepted.connect(self.accept)

        lay = QVBoxLayout(self)
        if intro:
            lab = QLabel(intro)
            lab.setObjectName("classesIntro")
            lab.setWordWrap(True)
            lay.addWidget(lab)
        lay.addWidget(self.table, 1)
        lay.addLayout(trow)
        lay.addWidget(form_box)
        lay.addLayout(brow)
        lay.addWidget(buttons)
        self._kind_changed()
        self.resize(640, 560)

    # ---- the list
    def reload(self) -> None:
        """List the database's classes again (after a change)."""
        db = self.main.database
        self.rows = schemes.describe(db) if db is not None else []
        self.model.set_frame(classes_frame(db, self.rows))
        reference = [r["decides_references"] for r in self.rows]
        bold = QFont()
        bold.setBold(True)
        self.model.set_row_data(Qt.FontRole, [bold if ref else None for ref in reference])
        self.model.set_row_data(Qt.ToolTipRole, [REFERENCE_TIP if ref else None for ref in reference])

    def _row(self, index) -> int:
        """The row of :attr:`rows` shown at a view index (-1: none)."""
        if not index.isValid():
            return -1
        return self.model.frame_row(self.proxy.mapToSource(index).row())

    def level(self, row: int) -> Levels:
        return self.main.database.level(self.rows[row]["name"])

    # ---- form
    def _kind_changed(self) -> None:
        cont = bool(self.kind.currentData())
        for w, on in ((self.count, not cont), (self.spins["firstvalid"], not cont),
                      (self.spins["minimum"], cont), (self.spins["maximum"], cont)):
            w.setEnabled(on)

    def _fill(self, row: int) -> None:
        if not 0 <= row < len(self.rows):
            return
        lv = self.level(row)
        self.name.setText(lv.name)
        self.kind.setCurrentIndex(1 if lv.continuous else 0)
        if not lv.continuous:
            self.count.setValue(lv.count)
        for key in ("firstvalid", "perfect", "gray", "green"):
            self.spins[key].setValue(getattr(lv, key))
        if lv.continuous:
            self.spins["minimum"].setValue(lv.minimum if lv.minimum is not None else 0)
            self.spins["maximum"].setValue(lv.maximum if lv.maximum is not None else 0)

    def form_levels(self, base: Levels | None = None) -> Levels:
        """The class the form describes (keeping ``base``'s unknown attributes); raises
        :class:`~evaltrans_qt.errors.ScoreError` for a continuous class that cannot be."""
        v = {k: sp.value() for k, sp in self.spins.items()}
        extra = dict(base.extra_attrs) if base is not None else {}
        name = self.name.text()
        if self.kind.currentData():
            lv = schemes.continuous(name, v["minimum"], v["maximum"], perfect=v["perfect"],
                                    gray=v["gray"], green=v["green"])
            return replace(lv, extra_attrs=extra)
        return Levels(name, count=self.count.value(), gray=v["gray"], green=v["green"],
                      perfect=v["perfect"], firstvalid=v["firstvalid"], extra_attrs=extra)

    def selected(self) -> str | None:
        row = self._row(self.table.currentIndex())
        return self.rows[row]["name"] if row >= 0 else None

    def select(self, name: str) -> None:
        for k, r in enumerate(self.rows):
            if r["name"] == name:
                at = self.proxy.mapFromSource(self.model.index(self.model.row_of(k), 0))
                self.table.selectRow(at.row())
                return

    # ---- actions
    def ask(self, question: str) -> bool:
        """Ask before deleting scores (tests replace this method)."""
        return QMessageBox.question(self, "Score classes", question,
                                    QMessageBox.Yes | QMessageBox.No, QMessageBox.No) == QMessageBox.Yes

    def _run(self, text: str, change: Callable[[Database, bool], object], touches: list[str],
             select: str | None = None) -> bool:
        """Apply a change through the window; when scores are affected ask, then force."""
        from evaltrans_qt.ui import errors
        try:
            try:
                ok = self.main.change_classes(text, lambda db: change(db, False), touches)
            except schemes.ClassInUseError as exc:
                if not self.ask(f"{exc.problem}.\n\nDo it anyway?"):
                    return False
                ok = self.main.change_classes(text, lambda db: change(db, True), touches)
        except EvalTransError as exc:
            errors.show_error(exc, self)
            return False
        self.reload()
        if select:
            self.select(select)
        return ok

    def add_template(self, template: str, class_name: str | None = None) -> bool:
        lv = schemes.template(template, class_name)
        return self._run(f"add class '{lv.name}'", lambda db, _f: schemes.add_class(db, lv), [], lv.name)

    def add_from_form(self) -> bool:
        try:
            lv = self.form_levels()
        except EvalTransError as exc:
            from evaltrans_qt.ui import errors
            errors.show_error(exc, self)
            return False
        return self._run(f"add class '{lv.name}'", lambda db, _f: schemes.add_class(db, lv), [], lv.name)

    def edit_selected(self) -> bool:
        name = self.selected()
        if name is None:
            return False
        try:
            new = self.form_levels(self.main.database.level(name))
        except EvalTransError as exc:
            from evaltrans_qt.ui import errors
            errors.show_error(exc, self)
            return False
        return self._run(f"edit class '{name}'", lambda db, f: schemes.edit_class(db, name, new, f), [name], new.name)

    def remove_selected(self) -> bool:
        name = self.selected()
        if name is None:
            return False
        return self._run(f"remove class '{name}'", lambda db, f: schemes.remove_class(db, name, f), [name])
