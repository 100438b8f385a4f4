"""The evaluation options dialog: every batch option (thesis Tables A.1-A.8), by measure.

Generated from :func:`evaltrans_qt.engine.options.option_fields`, so it always
covers exactly the options of ``evaltrans batch`` and of the report. Each
widget's tooltip is the option's help text with its thesis section. Presets
are thesis Table 8.3's "baseline" and "default" (plus "evaltrans default" and "sacrebleu").
"""

from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.options import PRESETS, EvalOptions, option_fields
from evaltrans_qt.errors import OptionError

#: Tab titles of the option groups (the report's <X-options> groups).
GROUP_TITLES = {
    "preprocessing": "Preprocessing", "wer": "WER / PER", "cder": "CDER", "nper": "m-PER",
    "sbper": "Skip-bigram PER", "bleu": "BLEU", "nist": "NIST", "invwer": "INVWER",
    "ljwer": "LJWER", "ter": "TER", "chrf": "chrF", "general": "General",
}


#: Measures computed only when a flag option is set: ticking the measure sets the flag.
MEASURE_FLAGS = {"invwer": "allow_transpositions", "ljwer": "allow_long_jumps"}


def _tooltip(f: dataclasses.Field) -> str:
    sec = f.metadata.get("section")
    where = f" (thesis section {sec})" if sec and sec != "-" else ""
    return f"<b>--{f.metadata['flag']}</b>{where}<br>{f.metadata['help']}"


class OptionsDialog(QDialog):
    """Edit an :class:`EvalOptions` and the set of measures to run."""

    def __init__(self, options: EvalOptions | None = None, measures: list[str] | None = None,
                 parent: QWidget | None = None, *, compute: tuple[str, str] = ("auto", "")
                 ) -> None:
        super().__init__(parent)
        self.setObjectName("optionsDialog")
        self.setWindowTitle("Evaluation options")
        self._editors: dict[str, QWidget] = {}
        self._measure_boxes: dict[str, QCheckBox] = {}

        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("Preset:"))
        self.preset = QComboBox(objectName="presetSelector")
        self.preset.addItem("(custom)")
        self.preset.addItems(list(PRESETS))
        self.preset.setToolTip("evaltrans default = the command line's defaults; sacrebleu = "
                               "sacreBLEU's own defaults for BLEU, chrF and TER; thesis "
                               "Table 8.3: baseline and experimental default settings.")
        self.preset.activated.connect(self._apply_preset)
        top.addWidget(self.preset, 1)
        layout.addLayout(top)

        self.tabs = QTabWidget(objectName="optionTabs")
        layout.addWidget(self.tabs, 1)
        self._build_measure_tab(measures)
        forms: dict[str, QFormLayout] = {}
        for f in option_fields():
            group = f.metadata["group"]
            if group not in forms:
                page = QWidget()
                forms[group] = QFormLayout(page)
                forms[group].setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
                self.tabs.addTab(page, GROUP_TITLES.get(group, group))
            editor = self._make_editor(f)
            editor.setToolTip(_tooltip(f))
            label = QLabel(f.metadata["flag"])
            label.setToolTip(_tooltip(f))
            forms[group].addRow(label, editor)
            self._editors[f.name] = editor

        self._build_compute_row(layout, compute)
        self.error_label = QLabel(objectName="optionsError")
        self.error_label.setStyleSheet("color: #c62828;")
        self.error_label.setWordWrap(True)
        layout.addWidget(self.error_label)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel
                                   | QDialogButtonBox.RestoreDefaults)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.RestoreDefaults).clicked.connect(
            lambda: self.set_options(EvalOptions()))
        layout.addWidget(buttons)
        self.set_options(options or EvalOptions())

    # ---- building -------------------------------------------------------
    def _build_measure_tab(self, measures: list[str] | None) -> None:
        from evaltrans_qt.engine.measures import load_all
        page = QWidget()
        form = QVBoxLayout(page)
        form.addWidget(QLabel("Measures to compute. Ticking INVWER or LJWER also sets the option "
                              "it needs (allow-transpositions, allow-long-jumps); WWER, WPER and "
                              "WCDER need a substitution-cost-rule other than none.",
                              wordWrap=True))
        for name, cls in sorted(load_all().items()):
            box = QCheckBox(f"{cls.long_name} ({name})")
            box.setObjectName(f"measure_{name}")
            box.setToolTip(getattr(cls, "source", "") or cls.long_name)
            box.setChecked(measures is None or name in measures)
            form.addWidget(box)
            self._measure_boxes[name] = box
            if name in MEASURE_FLAGS:
                box.toggled.connect(lambda on, n=name: self._measure_ticked(n, on))
        form.addStretch(1)
        self.tabs.addTab(page, "Measures")

    def _build_compute_row(self, layout: QVBoxLayout, compute: tuple[str, str]) -> None:
        """"Compute on: this machine / Dask scheduler at ..." (Workspace.compute_on; where a
        run computes never changes its numbers, so it is not an evaluation option)."""
        row = QHBoxLayout()
        row.addWidget(QLabel("Compute on:"))
        self.compute_kind = QComboBox(objectName="computeOn")
        self.compute_kind.addItems(["this machine", "Dask scheduler at"])
        self.compute_kind.setToolTip("Where runs compute; the numbers are the same. A Dask "
                                     "scheduler: start one with 'dask scheduler' and workers "
                                     "with 'dask worker tcp://HOST:8786' (README: Running on "
                                     "a cluster; needs the [cluster] extra).")
        self.scheduler_edit = QLineEdit(objectName="schedulerAddress")
        self.scheduler_edit.setPlaceholderText("tcp://host:8786")
        self.compute_kind.currentIndexChanged.connect(
            lambda i: self.scheduler_edit.setEnabled(i == 1))
        row.addWidget(self.compute_kind)
        row.addWidget(self.scheduler_edit, 1)
        layout.addLayout(row)
        self.set_compute_on(*compute)

    def set_compute_on(self, kind: str, scheduler: str = "") -> None:
        self.compute_kind.setCurrentIndex(1 if kind == "dask" else 0)
        self.scheduler_edit.setText(scheduler)
        self.scheduler_edit.setEnabled(kind == "dask")

    def compute_on(self) -> tuple[str, str]:
        """``("auto", "")`` or ``("dask", address)`` -- for :meth:`Workspace.set_compute_on`."""
        if self.compute_kind.currentIndex() == 1:
            return "dask", self.scheduler_edit.text().strip()
        return "auto", ""

    def _measure_ticked(self, name: str, on: bool) -> None:
        """Ticking a measure that exists only under an option sets that option (without it a
        ticked INVWER was silently skipped unless allow-transpositions was set elsewhere)."""
        editor = self._editors.get(MEASURE_FLAGS[name])
        if on and isinstance(editor, QCheckBox) and not editor.isChecked():
            editor.setChecked(True)

    def _make_editor(self, f: dataclasses.Field) -> QWidget:
        kind = f.metadata.get("kind")
        choices = f.metadata.get("choices")
        if choices:
            w = QComboBox()
            w.addItems(list(choices))
            w.currentIndexChanged.connect(self._mark_custom)
            return w
        if kind == "flag":
            w = QCheckBox()
            w.toggled.connect(self._mark_custom)
            return w
        if kind == "int":
            w = QSpinBox()
            w.setRange(1 if "ngram" in f.name else 0, 200)
            w.valueChanged.connect(self._mark_custom)
            return w
        w = QLineEdit()
        w.textEdited.connect(self._mark_custom)
        return w

    # ---- values -----------------------------------------------------------
    def set_options(self, options: EvalOptions) -> None:
        for f in option_fields():
            w = self._editors[f.name]
            v = getattr(options, f.name)
            w.blockSignals(True)
            if isinstance(w, QComboBox):
                w.setCurrentText(str(v))
            elif isinstance(w, QCheckBox):
                w.setChecked(bool(v))
            elif isinstance(w, QSpinBox):
                w.setValue(int(v))
            else:
                w.setText(",".join(str(x) for x in v) if isinstance(v, tuple) else str(v))
            w.blockSignals(False)
        for i, opts in enumerate(PRESETS.values(), start=1):
            if opts == options:
                self.preset.setCurrentIndex(i)
                break
        else:
            self.preset.setCurrentIndex(0)

    def options(self) -> EvalOptions:
        """The options in the dialog; raises OptionError naming the bad option."""
        values = {}
        for f in option_fields():
            w = self._editors[f.name]
            if isinstance(w, QComboBox):
                values[f.name] = w.currentText()
            elif isinstance(w, QCheckBox):
                values[f.name] = w.isChecked()
            elif isinstance(w, QSpinBox):
                values[f.name] = w.value()
            else:
                values[f.name] = w.text()
        return EvalOptions.from_dict(values)

    def measures(self) -> list[str]:
        return [n for n, b in self._measure_boxes.items() if b.isChecked()]

    def set_measures(self, measures: list[str]) -> None:
        for n, b in self._measure_boxes.items():
            b.setChecked(n in measures)

    # ---- slots --------------------------------------------------------------
    def _apply_preset(self, index: int) -> None:
        if index > 0:
            self.set_options(list(PRESETS.values())[index - 1])

    def _mark_custom(self, *_args) -> None:
        self.preset.setCurrentIndex(0)

    def _accept(self) -> None:
        try:
            self.options()
            kind, address = self.compute_on()
            if kind == "dask" and not address:
                raise OptionError("Compute on: a Dask scheduler needs its address "
                                  "(e.g. tcp://host:8786)")
        except OptionError as exc:
            self.error_label.setText(str(exc))
            return
        self.accept()

    def editor(self, flag_or_name: str) -> QWidget:
        """The editor widget of an option (by flag or field name); for tests and scripting."""
        for f in option_fields():
            if flag_or_name in (f.name, f.metadata["flag"]):
                return self._editors[f.name]
        raise KeyError(flag_or_name)

