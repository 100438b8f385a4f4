"""The evaluation options dialog: every batch option (thesis Tables A.1-A.8), by measure.

Generated from :func:`evaltrans_qt.engine.options.option_fields`, so it always
covers exactly the options of ``evaltrans batch`` and of the report. Each
widget's tooltip is the option's help text with its thesis section. Presets
are thesis Table 8.3's "baseline" and "default" (plus "evaltrans default" and "sacrebleu").

The Measures tab shows what a run will compute: its ticks are the run's measures (with
no choice made, the measures the options enable, as
:meth:`~evaltrans_qt.workspace.Workspace.run_measures` runs them). Ticking a measure
that exists only under an option sets that option (INVWER: allow-transpositions, LJWER:
allow-long-jumps, WWER/WPER/WCDER: a substitution-cost-rule); a ticked measure the
current options still leave out says why beside it (``measureNote_<name>``), and the
line under the tabs (``measureSummary``) counts what will and will not run.

Every page scrolls, so the dialog fits a 1366x768 screen with a window manager's
decorations (:func:`fit_to_screen`); OK, Cancel and Restore defaults stay below the
pages, always visible.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.options import (
    PRESETS,
    SUBSTITUTION_COST_RULES,
    EvalOptions,
    option_fields,
)
from evaltrans_qt.errors import OptionError

#: Tab titles of the option groups (the report's <X-options> groups).
GROUP_TITLES = {
    "preprocessing": "Preprocessing", "wer": "WER / PER", "cder": "CDER", "nper": "m-PER",
    "sbper": "Skip-bigram PER", "bleu": "BLEU", "nist": "NIST", "invwer": "INVWER",
    "ljwer": "LJWER", "ter": "TER", "chrf": "chrF", "meteor": "METEOR",
    "errorclasses": "Error classes", "stemming": "Stemming", "general": "General",
}


#: Measures computed only when a flag option is set: ticking the measure sets the flag.
MEASURE_FLAGS = {"invwer": "allow_transpositions", "ljwer": "allow_long_jumps"}
#: Measures computed only with word-dependent substitution costs (thesis section 4.5):
#: ticking one sets the rule to the first rule other than none when it is none.
MEASURE_RULES = {"wwer": "substitution_cost_rule", "wper": "substitution_cost_rule",
                 "wcder": "substitution_cost_rule"}
#: Room a window manager's title bar and borders take (openbox, GNOME, KDE: 25-40 px).
DECORATION = QSize(16, 48)


def fit_to_screen(widget: QWidget, available: QRect | None = None) -> QSize:
    """Resize ``widget`` to its size hint, at most ``available`` (default: its screen's
    available geometry) less :data:`DECORATION`, and centre it there; returns the size."""
    if available is None:
        screen = widget.screen() or QGuiApplication.primaryScreen()
        available = screen.availableGeometry()
    room = QSize(available.width() - DECORATION.width(),
                 available.height() - DECORATION.height())
    hint = widget.sizeHint().expandedTo(widget.minimumSizeHint())
    size = QSize(min(hint.width(), room.width()), min(hint.height(), room.height()))
    widget.resize(size)
    widget.move(available.x() + (available.width() - size.width()) // 2,
                available.y() + max(0, (available.height() - size.height()
                                        - DECORATION.height()) // 2))
    return size


def _scrolled(page: QWidget) -> QScrollArea:
    """``page`` in a scroll area without a frame (a long page scrolls, the dialog fits)."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.NoFrame)
    area.setWidget(page)
    return area


def _changed_signal(editor: QWidget):
    """The signal an option editor emits when its value changes."""
    if isinstance(editor, QComboBox):
        return editor.currentIndexChanged
    if isinstance(editor, QCheckBox):
        return editor.toggled
    if isinstance(editor, QSpinBox):
        return editor.valueChanged
    return editor.textChanged   # type: ignore[attr-defined]


def _measure_tooltip(name: str, cls) -> str:
    """What the measure is, where it comes from, and whether it needs an option."""
    src = getattr(cls, "source", "") or ""
    need = {"invwer": "Needs allow-transpositions (set when ticked).",
            "ljwer": "Needs allow-long-jumps (set when ticked).",
            "wwer": "Needs a substitution-cost-rule other than none (set when ticked).",
            "wper": "Needs a substitution-cost-rule other than none (set when ticked).",
            "wcder": "Needs a substitution-cost-rule other than none (set when ticked)."
            }.get(name, "")
    direction = "higher is better" if getattr(cls, "higher_is_better", True) else \
        "lower is better"
    parts = [f"<b>{cls.long_name}</b> ({name}; {direction})", src, need]
    return "<br>".join(p for p in parts if p)


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
        self._measure_notes: dict[str, QLabel] = {}
        #: no measure chosen yet (the run's defaults): OK keeps it so unless ticks change
        self._defaults = measures is None

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
                self.tabs.addTab(_scrolled(page), GROUP_TITLES.get(group, group))
            editor = self._make_editor(f)
            editor.setToolTip(_tooltip(f))
            label = QLabel(f.metadata["flag"])
            label.setToolTip(_tooltip(f))
            forms[group].addRow(label, editor)
            self._editors[f.name] = editor

        self.summary = QLabel(objectName="measureSummary", wordWrap=True)
        layout.addWidget(self.summary)
        self._build_compute_row(layout, compute)
        self.error_label = QLabel(objectName="optionsError")
        self.error_label.setStyleSheet("color: #c62828;")
        self.error_label.setWordWrap(True)
        layout.addWidget(self.error_label)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel
                                   | QDialogButtonBox.RestoreDefaults)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.RestoreDefaults).clicked.connect(self._restore_defaults)
        buttons.button(QDialogButtonBox.RestoreDefaults).setToolTip(
            "The command line's default options and measures (evaltrans batch without options)")
        layout.addWidget(buttons)
        self.buttons = buttons
        self.set_options(options or EvalOptions())
        if measures is None:      # the run's measures: those the options enable
            self._tick(self._default_measures(self._current_options()))
        for editor in self._editors.values():
            _changed_signal(editor).connect(lambda *_: self._update_notes())
        self._update_notes()
        fit_to_screen(self)

    def sizeHint(self) -> QSize:
        """Wide enough for every tab title and measure note; the pages scroll."""
        hint = super().sizeHint()
        return QSize(max(hint.width(), 760), max(hint.height(), 640))

    # ---- building -------------------------------------------------------
    def _build_measure_tab(self, measures: list[str] | None) -> None:
        from evaltrans_qt.engine.measures import load_all
        page = QWidget()
        outer = QVBoxLayout(page)
        outer.addWidget(QLabel("Ticked measures are what a run computes. Ticking INVWER or "
                               "LJWER also sets the option it needs (allow-transpositions, "
                               "allow-long-jumps), WWER, WPER or WCDER a "
                               "substitution-cost-rule; a measure the options still leave out "
                               "says why beside it.", wordWrap=True))
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        for row, (name, cls) in enumerate(sorted(load_all().items())):
            box = QCheckBox(f"{cls.long_name} ({name})")
            box.setObjectName(f"measure_{name}")
            box.setToolTip(_measure_tooltip(name, cls))
            box.setChecked(measures is not None and name in measures)
            note = QLabel("", objectName=f"measureNote_{name}")
            note.setStyleSheet("color: #8a4b00;")
            grid.addWidget(box, row, 0)
            grid.addWidget(note, row, 1)
            self._measure_boxes[name] = box
            self._measure_notes[name] = note
            box.toggled.connect(lambda on, n=name: self._measure_ticked(n, on))
        outer.addLayout(grid)
        outer.addStretch(1)
        self.tabs.addTab(_scrolled(page), "Measures")

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
        self._defaults = False
        editor = self._editors.get(MEASURE_FLAGS.get(name) or MEASURE_RULES.get(name, ""))
        if on and isinstance(editor, QCheckBox) and not editor.isChecked():
            editor.setChecked(True)
        elif on and isinstance(editor, QComboBox) and editor.currentText() == "none":
            editor.setCurrentText(next(r for r in SUBSTITUTION_COST_RULES if r != "none"))
        self._update_notes()

    def _current_options(self) -> EvalOptions | None:
        try:
            return self.options()
        except OptionError:
            return None

    @staticmethod
    def _default_measures(options: EvalOptions | None) -> list[str]:
        from evaltrans_qt.engine.run.driver import default_measures
        return default_measures(options or EvalOptions())

    def _tick(self, measures: list[str]) -> None:
        for n, b in self._measure_boxes.items():
            b.blockSignals(True)
            b.setChecked(n in measures)
            b.blockSignals(False)

    def not_run(self) -> dict[str, str]:
        """Ticked measures the current options leave out, each with what it needs
        (:func:`evaltrans_qt.workspace.skipped_measures`)."""
        from evaltrans_qt.workspace import skipped_measures
        opts = self._current_options()
        if opts is None:
            return {}
        return skipped_measures(self.measures() or self._default_measures(opts), opts)

    def _update_notes(self) -> None:
        """The note beside each ticked measure the options leave out, and the summary."""
        skipped = self.not_run()
        for name, note in self._measure_notes.items():
            need = skipped.get(name)
            note.setText(f"not run: needs {need}" if need else "")
        ticked = [n for n, b in self._measure_boxes.items() if b.isChecked()]
        run = [n for n in ticked if n not in skipped]
        text = f"A run computes {len(run)} measure(s): {', '.join(n.upper() for n in run)}."
        if skipped:
            text += " Not run: " + "; ".join(f"{m.upper()} needs {need}"
                                             for m, need in skipped.items()) + "."
        self.summary.setText(text)

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

    def measures(self) -> list[str] | None:
        """The ticked measures; None while no measure was chosen and the ticks are the
        options' defaults (a run then computes what the options enable)."""
        ticked = [n for n, b in self._measure_boxes.items() if b.isChecked()]
        if self._defaults and set(ticked) == set(self._default_measures(self._current_options())):
            return None
        return ticked

    def set_measures(self, measures: list[str]) -> None:
        for n, b in self._measure_boxes.items():
            b.setChecked(n in measures)

    # ---- slots --------------------------------------------------------------
    def _apply_preset(self, index: int) -> None:
        if index > 0:
            self.set_options(list(PRESETS.values())[index - 1])
            if self._defaults:      # the ticks stay the run's measures
                self._tick(self._default_measures(self._current_options()))
            self._update_notes()

    def _restore_defaults(self) -> None:
        self.set_options(EvalOptions())
        self._defaults = True
        self._tick(self._default_measures(EvalOptions()))
        self._update_notes()

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

