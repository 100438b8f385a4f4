"""The results view: run the metric engine in the background, read tables and plots, export.

Everything heavy runs off the UI thread through :mod:`evaltrans_qt.ui.workers`:
the evaluation itself (a :class:`~evaltrans_qt.run_controller.RunJob` of the view's
:class:`~evaltrans_qt.run_controller.RunController`: the driver's run, its progress,
time estimate and warnings, results streamed in per system), and the analysis of a
finished run (result frames, correlations with bootstrap intervals, significance,
combination curves), which is redone by a :class:`~evaltrans_qt.ui.workers.LatestRunner`
whenever the workspace's analysis choice (human class, level, normalisation;
:class:`~evaltrans_qt.analysis_choice.AnalysisChoice`, which the selectors here write)
or human scores change.

Options, measures, database, the analysis choice and the last run live in the window's
:class:`~evaltrans_qt.workspace.Workspace`; the view observes it: another
database clears every table and plot, changed options or data show the
results as out of date (``staleBanner`` with "Run again"), a run or a report
read back replaces them. Long operations show ``busyIndicator``.

Object names for tests: ``resultsView``, ``runProgress``, ``systemTable``,
``sentenceTable``, ``correlationPlot``, ``correlationBars``,
``correlationTable``, ``combinationPlot``, ``significanceMatrix``,
``histogramPlot``, ``staleBanner``, ``runAgainButton``, ``busyIndicator``,
``runWarnings`` (the driver's warnings of the last run), ``runSkipped`` (chosen measures
the run leaves out), ``scaleSelector`` (the display scale), ``intervalMeasure`` (the
measure of the system table's intervals and clusters), ``conventionSelector``.

Numbers read as the field reads them: BLEU, chrF and TER show on 0-100 as sacreBLEU
prints them (``scaleSelector``; 0-1 the other choice) in every table, plot and export
of this view -- the run keeps fractions, so sorting and the API are unchanged. The
system table has each system's 95 % bootstrap interval of one measure and its
significance cluster (systems not significantly different at p < 0.05 share a rank, as
WMT reports them): :func:`system_intervals`, the numbers ``evaltrans significance``
prints. System-level correlations say their convention
(:mod:`~evaltrans_qt.engine.metaeval.conventions`; ``conventionSelector``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.results import RunResult, SystemResult
from evaltrans_qt.engine.run.tables import (
    ResultTables,
    build_tables,
    disagreement,
    system_difference,
)
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.export import suggested_path
from evaltrans_qt.run_controller import RunController, RunJob, RunUpdate
from evaltrans_qt.ui import plots
from evaltrans_qt.ui.export_dialog import ask_export, ask_export_plot
from evaltrans_qt.ui.results_models import (
    DEFAULT_SCALE,
    GENERAL_FORMAT,
    PERCENT_MEASURES,
    SCALES,
    human_first,
    percent_columns,
    scale_formats,
    table_view,
)
from evaltrans_qt.ui.workers import LatestRunner, handle_errors, start_worker


# ----------------------------------------------------------------- Qt-free jobs
@dataclass
class Analysis:
    """Everything derived from a run for one human class and level (computed off-thread)."""

    tables: ResultTables
    human: str | None
    level: str
    correlations: list = field(default_factory=list)   # engine.metaeval.correlation.Correlation
    error: str = ""


def analyse(run: RunResult, db: Database | None, human: str | None, level: str,
            normalize: bool, n_boot: int = 1000, convention: str | None = None) -> Analysis:
    """Tables and correlations of every measure with ``human`` (worker thread); system
    level under ``convention`` (default: the one default of every tab and the command
    line, :data:`~evaltrans_qt.engine.metaeval.conventions.DEFAULT_CONVENTION`)."""
    from evaltrans_qt.engine.metaeval.conventions import DEFAULT_CONVENTION
    tables = build_tables(run, db, human_classes=[human] if human else [])
    out = Analysis(tables, human, level)
    if db is not None and human:
        from evaltrans_qt.engine.metaeval.correlation import correlate_run
        try:
            out.correlations = correlate_run(db, run, human, level=level, normalize=normalize,
                                             n_boot=n_boot,
                                             convention=convention or DEFAULT_CONVENTION)
        except Exception as exc:  # e.g. no scored candidate: the tables still show
            out.error = str(exc)
    return out


@dataclass
class SystemIntervals:
    """95 % bootstrap intervals and significance clusters of one measure's system scores
    (:func:`system_intervals`)."""

    measure: str
    column: str
    #: {system: (low, high)} in the engine's unit (fractions)
    bounds: dict[str, tuple[float, float]]
    #: {system: cluster rank}, 1 = best
    clusters: dict[str, int]
    samples: int
    n_sentences: int


def system_intervals(run: RunResult, measure: str, samples: int = 1000,
                     alpha: float = 0.05) -> SystemIntervals:
    """Each system's 95 % interval of ``measure`` and its cluster (worker thread).

    The intervals are sacreBLEU's paired bootstrap ``estimate_ci`` over the sentences all
    systems share, with its default seed (``evaltrans significance``'s numbers:
    :func:`~evaltrans_qt.engine.metaeval.significance.run_significance`). Clusters as WMT
    reports them (mt-metrics-eval ``AssignRanks``,
    :func:`~evaltrans_qt.engine.metaeval.statistics.metric_significance.assign_ranks`):
    systems sorted best first; a system starts a new cluster when some system of the
    current one is significantly better (p < ``alpha``), else it shares its rank."""
    from evaltrans_qt.engine.metaeval.significance import run_significance
    from evaltrans_qt.engine.metaeval.statistics.metric_significance import assign_ranks
    res = run_significance(run, measure, method="bootstrap", samples=samples)
    order = np.argsort(-res.scores if res.higher_is_better else res.scores, kind="stable")
    ranks = assign_ranks(res.p_values[np.ix_(order, order)], alpha)
    bounds = res.intervals if res.intervals is not None else np.full((len(res.systems), 2),
                                                                      np.nan)
    sr = next(iter(run.systems.values()))
    column = next(iter(sr.scores[measure].columns)) if measure in sr.scores else measure
    return SystemIntervals(
        measure, column,
        {s: (float(bounds[i][0]), float(bounds[i][1])) for i, s in enumerate(res.systems)},
        {res.systems[int(i)]: r for i, r in zip(order, ranks)}, res.samples, res.n_sentences)


def significance_job(run: RunResult, measure: str, method: str, samples: int):
    from evaltrans_qt.engine.metaeval.significance import run_significance
    return run_significance(run, measure, method=method, samples=samples)


def combination_job(frame: pd.DataFrame, col_a: str, col_b: str, human_col: str,
                    dir_a: int, dir_b: int):
    """Weight curve (eq. 6.9, Figure 8.1) and optimal weights with 10-fold CV."""
    from evaltrans_qt.engine.metaeval.combination import (
        cross_validate,
        optimal_weights,
        weight_curve,
    )
    sub = frame[[col_a, col_b, human_col, "segment"]].dropna()
    xa = dir_a * sub[col_a].to_numpy(float)
    xb = dir_b * sub[col_b].to_numpy(float)
    y = sub[human_col].to_numpy(float)
    ws, rs = weight_curve(xb, xa, y)   # w = weight of B
    X = np.column_stack([xa, xb])
    w = optimal_weights(X, y)
    cv = cross_validate(X, y, k=10, groups=sub["segment"].to_numpy()) if len(y) >= 20 else None
    return ws, rs, w, cv


def _empty_note(text: str) -> QLabel:
    """The message an empty panel shows in place of its content: what to do first."""
    note = QLabel(text, wordWrap=True)
    note.setObjectName("emptyNote")
    note.setStyleSheet("#emptyNote { color: #555; padding: 12px; font-style: italic; }")
    return note


class _SentenceLabels:
    """Hover labels of sentence points, formatted only when asked (20 000 points)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.system = frame["system"].to_numpy()
        self.segment = frame["segment"].to_numpy()

    def __len__(self) -> int:
        return len(self.system)

    def __getitem__(self, i):
        if isinstance(i, (int, np.integer)):
            return f"{self.system[i]} #{int(self.segment[i]) + 1}"
        return np.asarray([f"{s} #{int(g) + 1}" for s, g in zip(self.system[i], self.segment[i])],
                          dtype=object)


# ------------------------------------------------------------------- the view
class ResultsView(QWidget):
    """Run measures in the background; system/sentence tables; correlation plots; export."""

    runFinished = Signal(object)        # RunResult
    analysisReady = Signal(object)      # Analysis

    def __init__(self, window=None, parent: QWidget | None = None, workspace=None,
                 runs: RunController | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultsView")
        self.window_ = window
        from evaltrans_qt.workspace import Workspace
        self.workspace = workspace or getattr(window, "workspace", None) or Workspace()
        #: Starts the runs and keeps their results (Qt-free; this view only shows them).
        self.runs = runs if runs is not None else RunController(self.workspace)
        self.analysis: Analysis | None = None
        self._report_note = ""
        self.worker = None
        self._partial: dict[str, SystemResult] = {}
        self._analysis_runner = LatestRunner(self)
        self._side_runner = LatestRunner(self)
        self._ci_runner = LatestRunner(self)
        self.intervals: SystemIntervals | None = None
        self._intervals_run: RunResult | None = None     # the run they are of
        self._refresh_timer = QTimer(self, singleShot=True, interval=400)
        self._refresh_timer.timeout.connect(self.refresh_analysis)
        self._build()
        from evaltrans_qt.ui.observe import observe
        ws = self.workspace
        observe(self, ws.database_changed, self.database_changed)
        observe(self, ws.database_modified, self._database_modified)
        observe(self, ws.committed, self._committed)
        observe(self, ws.currency_changed, lambda _c: self._update_banner())
        observe(self, ws.run_changed, self._update_banner)
        observe(self, ws.message, lambda text: self.status.setText(text))
        observe(self, ws.analysis.classes_changed, lambda _c: self._fill_humans())
        observe(self, ws.analysis.changed, self._choice_changed)
        self._fill_humans()

    # ------------------------------------------------------- views of the workspace
    @property
    def options(self) -> EvalOptions:
        return self.workspace.options

    @property
    def measures(self) -> list[str] | None:
        return self.workspace.measures

    @property
    def run(self) -> RunResult | None:
        return self.workspace.run

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.options_button = QPushButton("Options…", objectName="optionsButton")
        self.options_button.setToolTip("All evaluation options (thesis Tables A.1-A.8)")
        self.options_button.clicked.connect(self.edit_options)
        self.run_button = QPushButton("Run measures", objectName="runButton")
        self.run_button.setToolTip("Run the chosen measures on every system in the background")
        self.run_button.clicked.connect(lambda: self.start_run())
        self.cancel_button = QPushButton("Cancel", objectName="cancelButton", enabled=False)
        self.cancel_button.setToolTip("Stop the run (Ctrl+.); the results shown before stay")
        self.cancel_button.clicked.connect(self.cancel_run)
        self.progress = QProgressBar(objectName="runProgress")
        self.progress.setRange(0, 1000)
        self.progress.setFormat("idle")
        self.progress.setTextVisible(True)
        self.progress.setMinimumWidth(120)
        self.eta = QLabel("", objectName="runEta")
        self.busy = QProgressBar(objectName="busyIndicator")
        self.busy.setRange(0, 0)                 # indeterminate: something is being computed
        self.busy.setMaximumWidth(90)
        self.busy.setTextVisible(False)
        self.busy.setToolTip("Computing (analysis, significance or combination)…")
        self.busy.hide()
        for w in (self.options_button, self.run_button, self.cancel_button):
            bar.addWidget(w)
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.eta)
        bar.addWidget(self.busy)
        lay.addLayout(bar)

        # out-of-date results: say so, offer to run again
        self.banner = QFrame(objectName="staleBanner")
        self.banner.setFrameShape(QFrame.StyledPanel)
        self.banner.setStyleSheet("#staleBanner { background: #fff3cd; border: 1px solid #e0c36b; }"
                                  " #staleBanner QLabel { color: #5c4400; }")
        hb = QHBoxLayout(self.banner)
        hb.setContentsMargins(6, 2, 6, 2)
        self.banner_text = QLabel("", objectName="staleText", wordWrap=True)
        self.banner_text.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.run_again = QPushButton("Run again", objectName="runAgainButton")
        self.run_again.setToolTip("Run the measures again with the current options on the "
                                  "current database (the numbers shown are from before)")
        self.run_again.clicked.connect(lambda: self.start_run())
        hb.addWidget(self.banner_text, 1)
        hb.addWidget(self.run_again)
        self.banner.hide()
        lay.addWidget(self.banner)
        # the driver's warnings of the last run (skipped candidates, approximations)
        self.warnings_label = QLabel("", objectName="runWarnings", wordWrap=True)
        self.warnings_label.setStyleSheet("#runWarnings { color: #8a4b00; }")
        self.warnings_label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.warnings_label.hide()
        lay.addWidget(self.warnings_label)
        # chosen measures the run leaves out, with what each needs: stays until the next run
        self.skipped_label = QLabel("", objectName="runSkipped", wordWrap=True)
        self.skipped_label.setStyleSheet("#runSkipped { color: #8a4b00; }")
        self.skipped_label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.skipped_label.hide()
        lay.addWidget(self.skipped_label)
        for r in (self._analysis_runner, self._side_runner, self._ci_runner):
            r.busy.connect(self._update_busy)
            r.idle.connect(self._update_busy)

        ctl = QHBoxLayout()
        ctl.addWidget(QLabel("Human score:"))
        # the selectors show and write the workspace's analysis choice
        choice = self.workspace.analysis
        self.human_box = QComboBox(objectName="humanSelector")
        self.human_box.setToolTip("The human score (class) the correlations, the sentence "
                                  "table's human column and the plots compare with")
        self.human_box.currentIndexChanged.connect(
            lambda *_: choice.set_human(self.human_box.currentText() or None))
        ctl.addWidget(self.human_box)
        ctl.addWidget(QLabel("Level:"))
        self.level_box = QComboBox(objectName="levelSelector")
        self.level_box.setToolTip("Sentence level: one point per candidate; system level: one "
                                  "per system (its system scores, under the convention chosen "
                                  "on the Correlation tab)")
        self.level_box.addItems(["sentence", "system"])
        self.level_box.setCurrentText(choice.level)
        self.level_box.currentIndexChanged.connect(
            lambda *_: choice.set_level(self.level_box.currentText()))
        ctl.addWidget(self.level_box)
        self.normalize_box = QCheckBox("(0,1) normalisation", objectName="normalizeBox")
        self.normalize_box.setToolTip("Thesis section 5.5: normalise each judge to mean 0, "
                                      "standard deviation 1 before averaging")
        self.normalize_box.setChecked(choice.normalize)
        self.normalize_box.toggled.connect(lambda on: choice.set_normalize(bool(on)))
        ctl.addWidget(self.normalize_box)
        ctl.addWidget(QLabel("Scale:"))
        self.scale_box = QComboBox(objectName="scaleSelector")
        self.scale_box.addItems(list(SCALES))
        settings = getattr(self.window_, "settings", None)     # the choice of last time
        saved = str(settings.value("results/scale", DEFAULT_SCALE)) if settings is not None \
            else DEFAULT_SCALE
        self.scale_box.setCurrentText(saved if saved in SCALES else DEFAULT_SCALE)
        self.scale_box.setToolTip("How BLEU, chrF and TER read in every table, plot and export "
                                  "of the results: 0–100 as sacreBLEU and papers print them, or "
                                  "the fractions the engine computes (0–1). Correlations and "
                                  "p-values do not change.")
        self.scale_box.currentIndexChanged.connect(lambda *_: self._scale_changed())
        ctl.addWidget(self.scale_box)
        ctl.addStretch(1)
        self.status = QLabel("", objectName="resultsStatus")
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        ctl.addWidget(self.status, 1)
        lay.addLayout(ctl)

        self.tabs = QTabWidget(objectName="resultsTabs")
        self.tabs.currentChanged.connect(lambda *_: self._update_visible_plots())
        self._stale_plots: set[str] = set()
        lay.addWidget(self.tabs, 1)
        self._build_system_tab()
        self._build_sentence_tab()
        self._build_correlation_tab()
        self._build_combination_tab()
        self._build_significance_tab()
        self._build_histogram_tab()
        from evaltrans_qt.ui.metrics_view import add_metrics_tab  # the "Metrics" tab
        self.metrics_view = add_metrics_tab(self)
        from evaltrans_qt.ui.ranking_results import add_ranking_tab  # the "Ranking" tab
        self.ranking_view = add_ranking_tab(self)
        from evaltrans_qt.ui.unseen_view import add_unseen_tab  # the "Unseen systems" tab
        self.unseen_view = add_unseen_tab(self)
        from evaltrans_qt.ui.analysis_view import add_analysis_tab  # the "Analysis" tab
        self.analysis_view = add_analysis_tab(self)

    def _build_system_tab(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        f = self.system_filter = QLineEdit(objectName="resultsSystemFilter",
                                           placeholderText="Filter systems…")
        v.addWidget(f)
        row = QHBoxLayout()
        row.addWidget(QLabel("95 % intervals and clusters of:"))
        self.interval_measure = QComboBox(objectName="intervalMeasure")
        self.interval_measure.setToolTip(
            "The measure whose 95 % bootstrap intervals (1000 resamples, sacreBLEU's paired "
            "bootstrap and seed, as 'evaltrans significance' prints them) and significance "
            "clusters the table shows. Systems in the same cluster are not significantly "
            "different (p ≥ 0.05); cluster 1 is the best, as WMT reports them.")
        self.interval_measure.currentIndexChanged.connect(lambda *_: self.compute_intervals())
        row.addWidget(self.interval_measure)
        row.addStretch(1)
        v.addLayout(row)
        self.system_empty = _empty_note("No run yet — Evaluate → Run measures (Ctrl+R), or "
                                        "Evaluate → Open report to read one back.")
        v.addWidget(self.system_empty)
        self.system_view, self.system_model, self.system_proxy = table_view("systemTable", dense=True)
        f.setToolTip("Show only the systems whose name contains this text")
        f.textChanged.connect(self.system_proxy.set_text_filter)
        v.addWidget(self.system_view)
        self.tabs.addTab(page, "Systems")

    def _build_sentence_tab(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        row = QHBoxLayout()
        self.sentence_filter = QLineEdit(objectName="sentenceFilter",
                                         placeholderText="Filter sentences (system or text)…")
        row.addWidget(self.sentence_filter, 2)
        self.disagree_box = QCheckBox("metrics disagree with humans", objectName="disagreeFilter")
        self.disagree_box.setToolTip("Show sentences where |z(measure) − z(human)| > 1.5 for "
                                     "the measure chosen on the right (signs adjusted)")
        row.addWidget(self.disagree_box)
        self.disagree_measure = QComboBox(objectName="disagreeMeasure")
        self.disagree_measure.setToolTip("The measure column the disagreement filter and the "
                                         "largest-difference list use")
        row.addWidget(self.disagree_measure)
        self.diff_a = QComboBox(objectName="diffSystemA")
        self.diff_b = QComboBox(objectName="diffSystemB")
        self.diff_button = QPushButton("Largest difference A−B", objectName="diffButton")
        self.diff_button.setToolTip("Sentences where two systems differ most on the measure "
                                    "chosen for the disagreement filter")
        row.addStretch(1)
        v.addLayout(row)
        row = QHBoxLayout()                  # second row: a 1366-pixel screen holds both
        row.addWidget(QLabel("Difference:"))
        for w in (self.diff_a, self.diff_b, self.diff_button):
            row.addWidget(w)
        row.addStretch(1)
        v.addLayout(row)
        self.sentence_empty = _empty_note("No run yet — Evaluate → Run measures (Ctrl+R): one "
                                          "row per candidate, double-click opens it.")
        v.addWidget(self.sentence_empty)
        self.sentence_view, self.sentence_model, self.sentence_proxy = table_view("sentenceTable", dense=True)
        self.sentence_filter.textChanged.connect(self.sentence_proxy.set_text_filter)
        self.disagree_box.toggled.connect(lambda *_: self._apply_disagreement())
        self.disagree_measure.currentIndexChanged.connect(lambda *_: self._apply_disagreement())
        self.diff_button.clicked.connect(self.show_difference)
        self.sentence_view.doubleClicked.connect(self._open_sentence)
        v.addWidget(self.sentence_view)
        self.tabs.addTab(page, "Sentences")

    def _build_correlation_tab(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        row = QHBoxLayout()
        row.addWidget(QLabel("Measure:"))
        self.plot_measure = QComboBox(objectName="plotMeasureSelector")
        self.plot_measure.setToolTip("The measure plotted against the human score (x axis); "
                                     "the table below lists every measure")
        self.plot_measure.currentIndexChanged.connect(lambda *_: self._update_scatter())
        row.addWidget(self.plot_measure)
        from evaltrans_qt.engine.metaeval import conventions
        row.addWidget(QLabel("System level:"))
        self.convention_box = QComboBox(objectName="conventionSelector")
        for c in conventions.CONVENTIONS:
            self.convention_box.addItem(
                {"mtme": "mt-metrics-eval: measure's own system score, plain human mean",
                 "thesis": "thesis 5.5: human-scored sentences only, length-weighted mean"
                 }.get(c, c), c)
        self.convention_box.setCurrentIndex(
            list(conventions.CONVENTIONS).index(conventions.DEFAULT_CONVENTION))
        self.convention_box.setToolTip(
            "Which numbers stand for a system in system-level correlations. The default is the "
            "one of the Metrics tab and the command line (evaltrans correlate --convention).")
        self.convention_box.currentIndexChanged.connect(lambda *_: self.refresh_analysis())
        row.addWidget(self.convention_box)
        # one line (its tooltip in full): a laptop's dock leaves the plots little height
        self.convention_text = QLabel("", objectName="conventionText")
        self.convention_text.setStyleSheet("color: #555;")
        self.convention_text.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        row.addWidget(self.convention_text, 1)
        v.addLayout(row)
        # the scatter takes the tab's whole height (on a 1366x768 screen the results dock is
        # ~300 px: under a table it was ~30 px tall); bars over the table on the right
        split = QSplitter(Qt.Vertical)
        top = QSplitter(Qt.Horizontal)
        self.scatter = plots.ScatterPlot()
        self.scatter.setMinimumHeight(160)
        self.bars = plots.CorrelationBars()
        top.addWidget(self.scatter)
        top.addWidget(split)
        split.addWidget(self.bars)
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 2)
        self.corr_view, self.corr_model, self.corr_proxy = table_view("correlationTable", dense=True)
        self.corr_view.setToolTip("Correlation of each measure with the human score chosen "
                                  "above; low/high: 95 % bootstrap interval (1000 resamples of "
                                  "source sentences); error measures negated")
        split.addWidget(self.corr_view)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        v.addWidget(top, 1)
        self.tabs.addTab(page, "Correlation")

    def _build_combination_tab(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        row = QHBoxLayout()
        self.comb_a = QComboBox(objectName="combinationA")
        self.comb_b = QComboBox(objectName="combinationB")
        for box in (self.comb_a, self.comb_b):
            box.setToolTip("A measure column of the combination (1−w)·A + w·B; error "
                           "measures enter negated")
        go = QPushButton("Combine", objectName="combinationButton")
        go.setToolTip("Correlation of (1−w)·A + w·B with the human score for w from 0 to 1, "
                      "the best weight and 10-fold cross-validated weights (thesis eq. 6.9, "
                      "6.15, Figure 8.1)")
        go.clicked.connect(self.compute_combination)
        for w in (QLabel("A:"), self.comb_a, QLabel("B:"), self.comb_b, go):
            row.addWidget(w)
        row.addStretch(1)
        v.addLayout(row)
        self.combination = plots.CombinationCurve()
        self.combination.clear_data("Choose measures A and B, then Combine: the correlation of "
                                    "(1−w)·A + w·B with the human score over w (Figure 8.1)")
        v.addWidget(self.combination, 1)
        self.comb_text = QLabel("", objectName="combinationText", wordWrap=True)
        v.addWidget(self.comb_text)
        self.tabs.addTab(page, "Combination")

    def _build_significance_tab(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        row = QHBoxLayout()
        self.sig_measure = QComboBox(objectName="significanceMeasure")
        self.sig_measure.setToolTip("The measure whose system scores are compared pairwise")
        self.sig_method = QComboBox(objectName="significanceMethod")
        self.sig_method.addItems(["bootstrap", "randomization"])
        self.sig_samples = QSpinBox(objectName="significanceSamples")
        self.sig_samples.setRange(100, 100000)
        self.sig_samples.setValue(1000)
        self.sig_method.setToolTip("bootstrap: sacreBLEU's paired bootstrap resampling "
                                   "(Koehn 2004); randomization: approximate randomisation "
                                   "(Riezler & Maxwell 2005)")
        self.sig_samples.setToolTip("Resamples (bootstrap) or trials (randomization); "
                                    "sacreBLEU's defaults are 1000 and 10000")
        go = QPushButton("Compute", objectName="significanceButton")
        go.setToolTip("p-values of every pair of systems on the chosen measure, as "
                      "'evaltrans significance' computes them (its default seed)")
        go.clicked.connect(self.compute_significance)
        for w in (QLabel("Measure:"), self.sig_measure, QLabel("Method:"), self.sig_method,
                  QLabel("Samples:"), self.sig_samples, go):
            row.addWidget(w)
        row.addStretch(1)
        v.addLayout(row)
        self.sig_plot = plots.SignificanceMatrix()
        self.sig_plot.clear_data("Choose a measure and press Compute: p-values of every pair "
                                 "of systems")
        v.addWidget(self.sig_plot, 1)
        self.tabs.addTab(page, "Significance")

    def _build_histogram_tab(self) -> None:
        page = QWidget()
        v = QVBoxLayout(page)
        row = QHBoxLayout()
        self.hist_measure = QComboBox(objectName="histogramMeasure")
        self.hist_measure.setToolTip("The measure column whose sentence scores are counted, one "
                                     "curve per system")
        self.hist_measure.currentIndexChanged.connect(lambda *_: self._update_histogram())
        row.addWidget(QLabel("Sentence scores of:"))
        row.addWidget(self.hist_measure)
        row.addStretch(1)
        v.addLayout(row)
        self.histogram = plots.HistogramPlot()
        v.addWidget(self.histogram, 1)
        self.tabs.addTab(page, "Histogram")

    # ------------------------------------------------------------- database
    @property
    def database(self) -> Database | None:
        return self.workspace.database

    def set_database(self, db: Database | None) -> None:
        """Used without a main window (tests, scripts): the view's workspace opens ``db``."""
        self.workspace.set_database(db)

    def database_changed(self) -> None:
        """Another database is open: nothing of the previous one stays (tables, plots, filters,
        texts); a run or analysis still running for it is cancelled."""
        if self.worker is not None:
            self.worker.cancel()
        self.runs.cancel()
        self._analysis_runner.cancel()
        self._side_runner.cancel()
        self._refresh_timer.stop()
        self._fill_humans()
        self.analysis = None
        self._clear()
        self._update_busy()
        self._update_banner()

    def _fill_humans(self) -> None:
        """The human scores of the workspace's analysis choice, its current one chosen."""
        choice = self.workspace.analysis
        self.human_box.blockSignals(True)
        self.human_box.clear()
        self.human_box.addItems(choice.classes)
        if choice.human in choice.classes:
            self.human_box.setCurrentText(choice.human)
        self.human_box.blockSignals(False)

    def _choice_changed(self) -> None:
        """The workspace's analysis choice changed (here or elsewhere): show it, redo the
        analysis."""
        choice = self.workspace.analysis
        for box, signal_on in ((self.human_box, choice.human or ""),
                               (self.level_box, choice.level)):
            if box.currentText() != signal_on:
                box.blockSignals(True)
                box.setCurrentText(signal_on)
                box.blockSignals(False)
        if self.normalize_box.isChecked() != choice.normalize:
            self.normalize_box.blockSignals(True)
            self.normalize_box.setChecked(choice.normalize)
            self.normalize_box.blockSignals(False)
        self.refresh_analysis()

    def _database_modified(self, _affects_results: bool) -> None:
        """Import, merge or class edits: redo the analysis (the analysis choice has taken
        the database's human classes already)."""
        if self.run is not None:
            self._refresh_timer.start()

    def _committed(self, change) -> None:
        """A judgement committed: rankings, items and references may add human classes."""
        from evaltrans_qt.workspace import affects_results, modifies_database
        if modifies_database(change):
            self._database_modified(affects_results(change))
        else:
            self.scores_changed()

    def scores_changed(self) -> None:
        """Human scores changed: redo the analysis soon (debounced)."""
        if self.run is not None:
            self._refresh_timer.start()

    def _clear(self) -> None:
        for m in (self.system_model, self.sentence_model, self.corr_model):
            m.set_frame(pd.DataFrame())
        for box in (self.disagree_measure, self.plot_measure, self.hist_measure, self.comb_a,
                    self.comb_b, self.sig_measure, self.diff_a, self.diff_b):
            box.blockSignals(True)
            box.clear()
            box.blockSignals(False)
        for f in (self.sentence_filter, self.system_filter):
            f.blockSignals(True)
            f.clear()
            f.blockSignals(False)
        self.system_proxy.set_text_filter("")
        self.sentence_proxy.set_text_filter("")
        self.sentence_proxy.set_row_mask(None)
        self.disagree_box.blockSignals(True)
        self.disagree_box.setChecked(False)
        self.disagree_box.blockSignals(False)
        for p in (self.scatter, self.bars, self.combination, self.sig_plot, self.histogram):
            p.clear_data()
        self.comb_text.clear()
        self.status.clear()
        self.show_warnings(())
        self.show_skipped({})
        self._ci_runner.cancel()
        self.intervals = None
        self.interval_measure.blockSignals(True)
        self.interval_measure.clear()
        self.interval_measure.blockSignals(False)
        self.convention_text.clear()
        self._show_empty_notes()
        self.eta.clear()
        self.progress.setValue(0)
        self.progress.setFormat("idle")

    # -------------------------------------------------------------- options
    def edit_options(self) -> bool:
        from evaltrans_qt.ui.options_dialog import OptionsDialog
        dlg = OptionsDialog(self.options, self.measures, self,
                            compute=self.workspace.compute_on)
        if dlg.exec() != OptionsDialog.Accepted:
            return False
        self.set_options(dlg.options(), dlg.measures())
        self.workspace.set_compute_on(*dlg.compute_on())   # where runs compute (no signature)
        return True

    def set_options(self, options: EvalOptions, measures: list[str] | None = None) -> None:
        """The workspace's options and measures (saved in the database's session file)."""
        self.workspace.set_options(options, measures)

    def load_session_options(self) -> None:
        """Take options and measures from the database's session file, if any."""
        self.workspace.load_session_options()

    def _run_measures(self) -> list[str]:
        return self.workspace.run_measures()

    def _update_banner(self) -> None:
        ws = self.workspace
        reason = ws.stale_reason()
        if ws.run is None or not reason:
            self.banner.hide()
            return
        if ws.run_origin == "report":
            meta = ws.run.meta or {}
            text = (f"Results of the report <b>{ws.report_path.name if ws.report_path else ''}</b>"
                    f" (date {meta.get('date') or 'unknown'}): {reason}.")
        else:
            text = f"<b>Out of date:</b> {reason}; the numbers shown are from the earlier run."
        self.banner_text.setText(text)
        self.banner_text.setToolTip("\n".join(f"{m}: {sig}" for m, sig in ws.run.signatures().items()))
        self.run_again.setEnabled(not self.running and ws.database is not None)
        self.banner.show()

    def _update_busy(self) -> None:
        on = (self._analysis_runner.pending or self._side_runner.pending
              or self._ci_runner.pending)
        self.busy.setVisible(on)

    # ------------------------------------------------------------------ runs
    @property
    def running(self) -> bool:
        return self.worker is not None

    def start_run(self, options: EvalOptions | None = None, measures: list[str] | None = None,
                  executor=None) -> bool:
        """Start a background run of the measures (:class:`RunController`); False if there
        is nothing to evaluate or a run is going.

        ``options`` / ``measures`` (if given) become the workspace's first; ``executor``
        overrides the workspace's choice (tests)."""
        if self.database is None or self.running:
            return False
        try:        # e.g. "Compute on: Dask scheduler at …" that cannot be reached
            job = self.runs.start(options, measures, executor)
        except Exception as exc:
            self._on_error(exc)
            return False
        self._partial = {}
        self.progress.setValue(0)
        self.progress.setFormat("starting…")
        self.eta.setText("")
        self.show_warnings(())
        self.run_button.setEnabled(False)
        self.run_again.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.show_skipped(job.skipped)
        w = start_worker(job.compute, _start=False)

        def current(job: RunJob = job) -> bool:
            return self.database is job.database    # False once another database is open

        w.signals.reported.connect(lambda item: current() and self._on_report(job, item))
        w.signals.finished.connect(lambda run: self._on_finished(job, run))
        w.signals.cancelled.connect(lambda: current() and self._on_cancelled())
        handle_errors(w, lambda exc: current() and self._on_error(exc))
        w.signals.done.connect(lambda w=w: self._on_done(w, job))
        self.worker = w
        from evaltrans_qt.ui.workers import launch
        launch(w)
        return True

    def cancel_run(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.runs.cancel()
            self.progress.setFormat("cancelling…")

    def _on_report(self, job: RunJob, item) -> None:
        if isinstance(item, RunUpdate):
            self._on_update(item, job.warnings)
        elif isinstance(item, SystemResult):
            self._on_system(item)

    def _on_update(self, u: RunUpdate, warnings=()) -> None:
        """Progress, the run's time estimate (its :class:`TimeLeft`) and its warnings."""
        f = u.fraction
        self.progress.setValue(int(1000 * f))
        # one decimal: INVWER's sentence pairs move the bar by < 1 % for minutes
        self.progress.setFormat(f"{100 * f:.1f} %  {u.message}")
        self.eta.setText(u.eta_text())
        if u.warnings:
            self.show_warnings(warnings or u.warnings)

    def show_skipped(self, skipped: dict[str, str]) -> None:
        """The chosen measures a run leaves out, each with what it needs, on a line of its
        own (progress and status never overwrite it); hidden when none is left out."""
        text = "; ".join(f"{m.upper()} needs {need}" for m, need in skipped.items())
        self.skipped_label.setText(f"Not run: {text} (Options…, Measures tab)" if text else "")
        self.skipped_label.setVisible(bool(text))

    def show_warnings(self, warnings) -> None:
        """The driver's warnings of a run (hidden without any)."""
        warnings = list(dict.fromkeys(warnings))
        if not warnings:
            self.warnings_label.clear()
            self.warnings_label.setToolTip("")
            self.warnings_label.hide()
            return
        more = f" (and {len(warnings) - 1} more)" if len(warnings) > 1 else ""
        self.warnings_label.setText(f"Warning: {warnings[0]}{more}")
        self.warnings_label.setToolTip("\n".join(warnings))
        self.warnings_label.show()

    def _on_system(self, item: SystemResult) -> None:
        self._partial[item.system] = item
        rows = [{"system": s, **{c: v for sc in sr.scores.values() for c, v in sc.columns.items()}}
                for s, sr in self._partial.items()]
        self.system_model.set_frame(pd.DataFrame(rows), None, self._formats(self._partial))
        self._show_empty_notes()
        self.status.setText(f"{len(self._partial)} system(s) done")

    def _on_finished(self, job: RunJob, result: RunResult) -> None:
        """The driver's result (its warnings and seconds in ``meta``) becomes the
        workspace's run through the controller; dropped if another database is open."""
        run = self.runs.finish(job, result)
        if run is None:
            return
        seconds = float(run.meta.get("seconds", 0.0))
        self.progress.setValue(1000)
        self.progress.setFormat(f"done in {seconds:.1f} s")
        self.eta.setText("")
        self.show_warnings(run.meta.get("warnings", ()))
        self.runFinished.emit(run)
        # let the window finish its own updates before the analysis competes for the GIL
        QTimer.singleShot(300, self.refresh_analysis)

    def _on_cancelled(self) -> None:
        self.progress.setFormat("cancelled")
        self.eta.setText("")
        self.status.setText("Run cancelled; previous results kept" if self.run else "Run cancelled")
        self._partial = {}
        if self.run is not None and self.analysis is not None:
            self._show_analysis(self.analysis)

    def _on_error(self, exc: BaseException) -> None:
        self.progress.setFormat("failed")
        from evaltrans_qt.ui import errors
        errors.show_error(exc, self)

    def _on_done(self, worker=None, job: RunJob | None = None) -> None:
        if job is not None and self.runs.job is job:    # cancelled or failed
            self.runs.finish(job, None)
        if worker is not None and worker is not self.worker:
            return
        self.worker = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self._update_banner()

    def show_run(self, run: RunResult, origin: str = "run", report_path: str | None = None) -> None:
        """Show a finished run (e.g. read from a report: ``origin="report"``)."""
        self.workspace.set_run(run, origin, report_path)
        self.refresh_analysis()

    # -------------------------------------------------------------- analysis
    def refresh_analysis(self) -> None:
        if self.run is None:
            return
        choice = self.workspace.analysis
        human, level = choice.human, choice.level
        db = self.database if self._run_matches_db() else None
        if self.analysis is not None and self.analysis.level != level:
            # never show the other level's plot while this one is computed
            self.scatter.clear_data(f"computing the {level}-level correlations…")
            self.bars.clear_data("")
        self._analysis_runner.submit(analyse, self.run, db, human, level,
                                     choice.normalize, 1000, self.convention_box.currentData(),
                                     on_result=self._show_analysis,
                                     on_error=self._on_error)
        self._update_busy()

    def _run_matches_db(self) -> bool:
        db = self.database
        if db is None or self.run is None:
            return False
        n = len(db.sources)
        return all(all(i < n for i in sr.segments) for sr in self.run.systems.values())

    def _show_analysis(self, a: Analysis) -> None:
        self.analysis = a
        t = a.tables
        sigs = self.run.column_signatures() if self.run is not None else {}
        tips = {c: ("higher is better" if d > 0 else "lower is better")
                + (f"\nsignature: {sigs[c]}" if c in sigs else "")
                for c, d in t.directions.items()}
        if self.scale_factor() != 1.0:
            for c in self._percent():
                if c in tips:
                    tips[c] += "\nshown 0–100 (× 100, as sacreBLEU prints it)"
        self._tips = tips
        self._show_system_table()
        self.sentence_model.set_frame(human_first(t.sentences), tips, self._formats())
        self._show_empty_notes()
        self._fill_combos(t)
        self._apply_disagreement()
        self._show_correlations(a)
        self._stale_plots = {"scatter", "histogram"}
        self._update_visible_plots()
        text = a.error or f"{len(t.systems)} systems, {len(t.sentences)} sentences"
        if self.workspace.run_origin == "report":
            text = f"{self._report_note} — {text}"       # the report's own date and signatures
        self.status.setText(text)
        self.comb_text.setText("") if not self.combination.has_data else None
        if self.intervals is None or self._intervals_run is not self.run \
                or self.intervals.measure != self.interval_measure.currentText():
            self.compute_intervals()
        self.analysisReady.emit(a)

    # ------------------------------------------------------- scale, intervals
    def scale_factor(self) -> float:
        """What BLEU, chrF and TER are shown times: 100 (0–100) or 1 (0–1)."""
        return SCALES.get(self.scale_box.currentText(), 1.0)

    def _percent(self) -> set[str]:
        return percent_columns(self.run.systems if self.run is not None else self._partial)

    def _formats(self, systems=None) -> dict:
        """Column formats of the display scale (``systems``: partial results of a run)."""
        cols = set(percent_columns(systems)) if systems is not None else set(self._percent())
        if self.intervals is not None and self.intervals.column in cols:
            cols.add(self.intervals.column)
        return scale_formats(cols, self.scale_factor())

    def _scale_changed(self) -> None:
        """Every table and plot of the view again, in the new scale (kept for next time)."""
        settings = getattr(self.window_, "settings", None)
        if settings is not None:
            settings.setValue("results/scale", self.scale_box.currentText())
        if self.analysis is not None:       # correlations and p-values have no scale
            self._show_analysis(self.analysis)

    def _show_empty_notes(self) -> None:
        self.system_empty.setVisible(self.system_model.rowCount() == 0)
        self.sentence_empty.setVisible(self.sentence_model.rowCount() == 0)

    def _show_system_table(self) -> None:
        """The system table: the analysis' system scores, with the 95 % interval and the
        cluster of :attr:`intervals` when they are of this run."""
        a = self.analysis
        if a is None:
            return
        frame = human_first(self._with_report_humans(a.tables.systems))
        iv = self.intervals if self._intervals_run is self.run else None   # never another run's
        if iv is not None and "system" in frame.columns:
            names = frame["system"]
            at = list(frame.columns).index(iv.column) + 1 if iv.column in frame.columns \
                else len(frame.columns)
            frame = frame.copy()
            frame.insert(at, f"{iv.column} 95% low",
                         [iv.bounds.get(s, (np.nan, np.nan))[0] for s in names])
            frame.insert(at + 1, f"{iv.column} 95% high",
                         [iv.bounds.get(s, (np.nan, np.nan))[1] for s in names])
            frame.insert(1, "cluster", [float(iv.clusters.get(s, np.nan)) for s in names])
        tips = dict(getattr(self, "_tips", {}))
        if iv is not None:
            tips["cluster"] = (f"Significance cluster of {iv.measure.upper()}: systems in one "
                               "cluster are not significantly different (paired bootstrap, "
                               f"{iv.samples} resamples, p ≥ 0.05); 1 = best")
            for end in ("low", "high"):
                tips[f"{iv.column} 95% {end}"] = (
                    f"95 % bootstrap interval of {iv.column} ({iv.samples} resamples over the "
                    f"{iv.n_sentences} sentences all systems share; evaltrans significance)")
        self.system_model.set_frame(frame, tips, {**self._formats(), "cluster": GENERAL_FORMAT})

    def _with_report_humans(self, systems: pd.DataFrame) -> pd.DataFrame:
        """A report read back: every human score it holds (``<human-score class>`` of its
        candidate statistics, ``<human-protocols>``) as ``human:<name>`` columns, where the
        database gives none (a report without sentences cannot be matched to it)."""
        run = self.run
        if run is None or self.workspace.run_origin != "report" or "system" not in systems:
            return systems
        meta = run.meta or {}
        values: dict[str, float] = {}
        for attrs, v in (meta.get("candidate-statistics") or {}).get("human-score", []) or []:
            if isinstance(attrs, dict) and attrs.get("class") is not None:
                values[str(attrs["class"])] = v
        for name, v in (meta.get("human-protocols") or {}).items():
            values.setdefault(name, v)
        if not values:
            return systems
        out = systems.copy()
        system = (meta.get("candidate-statistics") or {}).get("system")
        for name, v in values.items():
            col = f"human:{name}"
            try:
                num = float(v)
            except (TypeError, ValueError):
                continue
            if col not in out.columns or out[col].isna().all():
                out[col] = [num if (system is None or s == system) else np.nan
                            for s in out["system"]]
        return out

    def compute_intervals(self) -> None:
        """The 95 % intervals and clusters of the chosen measure, in the background."""
        m = self.interval_measure.currentText()
        if self.run is None or not m or len(self.run.systems) < 2 \
                or not all(m in sr.stats for sr in self.run.systems.values()):
            self.intervals = None
            self._show_system_table()
            return
        run = self.run
        self._ci_runner.submit(system_intervals, run, m,
                               on_result=lambda iv, run=run: self._show_intervals(run, iv),
                               on_error=self._on_error)
        self._update_busy()

    def _show_intervals(self, run: RunResult, iv: SystemIntervals) -> None:
        if run is not self.run:          # another run meanwhile
            return
        self.intervals = iv
        self._intervals_run = run
        self._show_system_table()

    def _fill_combos(self, t: ResultTables) -> None:
        cols = list(t.measure_columns)
        measures = list(self.run.measures) if self.run else []
        systems = list(t.systems["system"]) if len(t.systems) else []
        for box, items in ((self.disagree_measure, cols), (self.plot_measure, measures),
                           (self.hist_measure, cols), (self.comb_a, cols), (self.comb_b, cols),
                           (self.sig_measure, measures), (self.interval_measure,
                                                           self._interval_measures()),
                           (self.diff_a, systems),
                           (self.diff_b, systems)):
            keep = box.currentText()
            box.blockSignals(True)
            box.clear()
            box.addItems(items)
            if keep in items:
                box.setCurrentText(keep)
            box.blockSignals(False)
        if self.comb_b.count() > 1 and self.comb_b.currentIndex() == self.comb_a.currentIndex():
            self.comb_b.setCurrentIndex(1)
        if self.diff_b.count() > 1 and self.diff_b.currentIndex() == self.diff_a.currentIndex():
            self.diff_b.setCurrentIndex(1)

    def _interval_measures(self) -> list[str]:
        """Measures with sentence statistics (a report read back may have none), BLEU first."""
        if self.run is None:
            return []
        ms = [m for m in self.run.measures
              if all(m in sr.stats for sr in self.run.systems.values())]
        return sorted(ms, key=lambda m: (m != "bleu", ms.index(m)))

    def _show_correlations(self, a: Analysis) -> None:
        rows = []
        for c in a.correlations:
            rows.append({"measure": c.measure, "human": c.human, "level": c.level, "n": c.n,
                         "pearson": c.pearson, "r low": c.pearson_ci[0], "r high": c.pearson_ci[1],
                         "spearman": c.spearman, "rho low": c.spearman_ci[0],
                         "rho high": c.spearman_ci[1], "kendall": c.kendall,
                         "tau low": c.kendall_ci[0], "tau high": c.kendall_ci[1],
                         "tau_b": c.kendall_b, "tau-bar": c.tau_bar,
                         "convention": c.convention if c.level == "system" else ""})
        self.corr_model.set_frame(pd.DataFrame(rows))
        from evaltrans_qt.engine.metaeval import conventions
        conv = self.convention_box.currentData() or conventions.DEFAULT_CONVENTION
        text = (conventions.describe(conv) if a.level == "system"
                else "Sentence level: one point per scored candidate (the convention applies "
                     "at system level).")
        self.convention_text.setText(text)
        self.convention_text.setToolTip(text)
        if a.correlations:
            names = [c.measure for c in a.correlations]
            key = f"{a.human} ({a.level})"
            self.bars.set_data(names, {key: [c.pearson for c in a.correlations]},
                               {key: [c.pearson_ci[0] for c in a.correlations]},
                               {key: [c.pearson_ci[1] for c in a.correlations]},
                               ylabel="Pearson r (error measures negated)")

    def correlation_of(self, measure: str):
        if self.analysis is None:
            return None
        return next((c for c in self.analysis.correlations if c.measure == measure), None)

    def _update_visible_plots(self) -> None:
        """Redraw only the plots of the shown tab (20 000-point plots are not free)."""
        page = self.tabs.currentWidget()
        if "scatter" in self._stale_plots and page is not None and page.isAncestorOf(self.scatter):
            self._stale_plots.discard("scatter")
            self._update_scatter()
        if "histogram" in self._stale_plots and page is not None and page.isAncestorOf(self.histogram):
            self._stale_plots.discard("histogram")
            self._update_histogram()

    def _update_scatter(self) -> None:
        a = self.analysis
        m = self.plot_measure.currentText()
        if a is not None and not a.human:
            self.scatter.clear_data("No human scores yet — Session → Start scoring session "
                                    "(Ctrl+J), or import scored data; then measure against "
                                    "human score")
            self.bars.clear_data("no human score to correlate with")
            return
        if a is None or not m or self.run is None:
            return
        hcol = f"human:{a.human}"
        c = self.correlation_of(m)
        k = self.scale_factor()
        unit = " ×100" if k != 1.0 else ""
        named = False
        if a.level == "system" and c is not None and c.system_scores:
            names = list(c.system_scores)
            f_sys = k if m in PERCENT_MEASURES else 1.0
            x = [f_sys * c.system_scores[s][0] for s in names]
            y = [c.system_scores[s][1] for s in names]
            labels = names
            named = True
            xlabel = (f"{m}{unit if f_sys != 1.0 else ''} (system, "
                      f"{'negated' if c.negated else 'as is'}"
                      + (f"; {c.convention}" if c.convention else "") + ")")
        else:
            col = self.run.measure(m)
            f = a.tables.sentences
            headline = next((k for k in a.tables.measure_columns if k in f.columns
                             and k.lower().startswith(m.lower())), None)
            if headline is None or hcol not in f.columns:
                return
            f_col = k if headline in self._percent() else 1.0
            x = f_col * f[headline].to_numpy(float)
            y = f[hcol].to_numpy(float)
            labels = _SentenceLabels(f)
            xlabel = (f"{headline}{unit if f_col != 1.0 else ''} (sentence; "
                      f"{'higher' if col.higher_is_better else 'lower'} is better)")
        text = ""
        if c is not None:
            text = (f"r = {c.pearson:.3f} [{c.pearson_ci[0]:.3f}, {c.pearson_ci[1]:.3f}]\n"
                    f"ρ = {c.spearman:.3f} [{c.spearman_ci[0]:.3f}, {c.spearman_ci[1]:.3f}]\n"
                    f"τ = {c.kendall:.3f} [{c.kendall_ci[0]:.3f}, {c.kendall_ci[1]:.3f}]")
            if not math.isnan(c.tau_bar):
                text += f"\nτ̄ = {c.tau_bar:.3f}"
            text += f"\nn = {c.n}" + ("  (error measure negated)" if c.negated else "")
        # the statistics go into the plot's own row under the legend (never over the data)
        self.scatter.set_data(x, y, xlabel=xlabel, ylabel=a.human, title=f"{m} vs {a.human}",
                              stats_text=text, labels=labels, name_points=named)

    def _update_histogram(self) -> None:
        a = self.analysis
        col = self.hist_measure.currentText()
        if a is None or not col or col not in a.tables.sentences.columns:
            return
        f = a.tables.sentences
        k = self.scale_factor() if col in self._percent() else 1.0
        self.histogram.set_data({s: k * g[col].to_numpy(float)
                                 for s, g in f.groupby("system", sort=False)},
                                col + (" ×100" if k != 1.0 else ""))

    # ---------------------------------------------------------- sentence table
    def _apply_disagreement(self) -> None:
        a = self.analysis
        if a is None or not self.disagree_box.isChecked() or not a.human:
            self.sentence_proxy.set_row_mask(None)
            return
        col = self.disagree_measure.currentText()
        hcol = f"human:{a.human}"
        f = a.tables.sentences
        if col not in f.columns or hcol not in f.columns:
            self.sentence_proxy.set_row_mask(None)
            return
        d = disagreement(f, col, hcol, a.tables.directions[col])
        self.sentence_proxy.set_row_mask(np.nan_to_num(d, nan=0.0) > 1.5)

    def show_difference(self) -> pd.DataFrame | None:
        a = self.analysis
        col = self.disagree_measure.currentText()
        if a is None or not col or self.diff_a.currentText() == self.diff_b.currentText():
            return None
        diff = system_difference(a.tables.sentences, col, self.diff_a.currentText(),
                                 self.diff_b.currentText())
        self.sentence_proxy.set_row_mask(None)
        fmts = self._formats()
        if col in self._percent() and self.scale_factor() != 1.0:
            fmts["difference"] = fmts[col]
        self.sentence_model.set_frame(diff, None, fmts)
        self.status.setText(f"{col}: {self.diff_a.currentText()} − {self.diff_b.currentText()}, "
                            "largest difference first (re-run the analysis to restore the table)")
        return diff

    def _open_sentence(self, index) -> None:
        src = self.sentence_proxy.mapToSource(index)
        self.open_sentence_row(src.row())

    def open_sentence_row(self, row: int) -> bool:
        """Open row ``row`` of the sentence table in the main window's compare view."""
        f = self.sentence_model.frame
        if self.window_ is None or row >= len(f) or "segment" not in f.columns:
            return False
        rec = self.sentence_model.record(row)
        seg = int(rec["segment"])
        system = rec["system"] if "system" in f.columns else self.diff_a.currentText()
        db = self.database
        if db is None or seg >= len(db.sources):
            return False
        for ti, t in enumerate(db.sources[seg].targets):
            if (t.system or "") == system and not db.is_reference(t):
                self.window_.open_in_compare(seg, ti)
                return True
        return False

    # ------------------------------------------------ combination, significance
    def compute_combination(self) -> None:
        a = self.analysis
        if a is None or not a.human:
            return
        ca, cb = self.comb_a.currentText(), self.comb_b.currentText()
        hcol = f"human:{a.human}"
        d = a.tables.directions
        self.combination.clear_data(f"combining {ca} and {cb}…")
        self._side_runner.submit(combination_job, a.tables.sentences, ca, cb, hcol, d[ca], d[cb],
                                 on_result=lambda res, ca=ca, cb=cb: self._show_combination(ca, cb, res),
                                 on_error=self._on_error)
        self._update_busy()

    def _show_combination(self, ca: str, cb: str, res) -> None:
        ws, rs, w, cv = res
        self.combination.set_data(ws, rs, ca, cb)
        i = int(np.nanargmax(rs)) if len(rs) else 0
        text = (f"best weight of {cb}: {ws[i]:.2f} (r = {rs[i]:.3f}); optimal weights from "
                f"covariances (eq. 6.15): {ca} {w[0]:.3f}, {cb} {w[1]:.3f}")
        if cv is not None:
            text += (f"; 10-fold cross-validation (weights never judged on the sentences they "
                     f"were fit on): pooled held-out r = {cv.pooled_r:.3f}, mean per fold "
                     f"{cv.mean_r:.3f}")
        self.comb_text.setText(text)

    def compute_significance(self) -> None:
        if self.run is None or len(self.run.systems) < 2:
            return
        m = self.sig_measure.currentText()
        self.sig_plot.clear_data(f"computing {self.sig_method.currentText()} p-values of {m}…")
        self._side_runner.submit(significance_job, self.run, m, self.sig_method.currentText(),
                                 self.sig_samples.value(), on_result=self._show_significance,
                                 on_error=self._on_error)
        self._update_busy()

    def _show_significance(self, res) -> None:
        notes = None
        if getattr(res, "agreement", None) is not None and res.agreement_model is not None:
            how = res.agreement_model.describe()
            notes = [[f"P(humans agree with this order) = {a:.3f}\n({how})" for a in row]
                     for row in res.agreement]
        self.sig_plot.set_data(res.systems, res.p_values,
                               title=f"{res.meta.get('measure', '')}: {res.method}, "
                                     f"{res.samples} samples (p-values)", notes=notes)

    # ------------------------------------------------------------------ export
    def current_plot(self):
        page = self.tabs.currentWidget()
        for p in (self.scatter, self.combination, self.sig_plot, self.histogram):
            if page is not None and page.isAncestorOf(p):
                return p
        return self.scatter

    def export_table(self, path: str | Path, which: str = "systems") -> None:
        """Write the system, sentence or correlation table as CSV, TSV, JSON or LaTeX (by suffix)."""
        from evaltrans_qt.io.export import write_table
        model = {"systems": self.system_model, "sentences": self.sentence_model,
                 "correlations": self.corr_model}[which]
        frame = model.frame
        if which != "correlations" and self.scale_factor() != 1.0:   # as the table shows it
            frame = frame.copy()
            for c, fmt in self._formats().items():
                if c in frame.columns:
                    frame[c] = frame[c] * fmt.factor
            if "difference" in frame.columns and any(
                    c.endswith(" A") and c[:-2] in self._percent() for c in frame.columns):
                frame["difference"] = frame["difference"] * self.scale_factor()
        write_table(frame, path, signatures=self.run.signatures() if self.run else None)

    def export_plot(self, path: str | Path) -> None:
        plots.export_plot(self.current_plot(), path)

    def save_report(self, path: str, system: str | None = None) -> list[Path]:
        """EvalTrans XML reports of the current run (Figures A.2/A.3), every system.

        The report format holds one system (``io/report.py``), so a run of several
        systems is written as ``evaltrans batch --all-systems --output-file PATH`` writes
        it: one file per system beside ``PATH``, named ``STEM.<system>.xml``
        (:func:`evaltrans_qt.cli.batch.output_paths`); one system: ``PATH`` itself.
        ``system`` writes that system alone to ``PATH``. Returns the files written."""
        from evaltrans_qt.cli.batch import output_paths
        from evaltrans_qt.io.atomic import atomic_write_bytes
        from evaltrans_qt.io.report import build_report
        if self.run is None:
            raise EvalTransError("there is no run to report: run the measures first")
        systems = [system] if system else list(self.run.systems)
        paths = output_paths(path, systems)
        # the database's human protocols and rankings, as evaltrans batch writes them
        from evaltrans_qt.cli.batch import report_extras
        extras = report_extras(self.workspace.database, systems, self.run.options) \
            if self.workspace.run_origin == "run" else {}
        data = {s: build_report(self.run, s, **extras.get(s, {}))      # all, before any is written
                for s in systems}
        for s in systems:
            atomic_write_bytes(paths[s], data[s])
        return [paths[s] for s in systems]

    def open_report(self, path: str, ask: bool = True) -> bool:
        """Read a report back into the tables; asks before replacing results on screen.
        The report's own date and signatures are shown (banner, status)."""
        from evaltrans_qt.io.report import read_report
        run = read_report(path)
        if ask and self.run is not None and not self.ask_replace_results(Path(path).name):
            return False
        self.analysis = None
        self._clear()
        meta = run.meta or {}
        self.progress.setFormat(f"report of {meta.get('date') or 'unknown date'}")
        sigs = run.signatures()
        self._report_note = (f"Report {Path(path).name}, {meta.get('date') or 'no date'}: "
                             + "; ".join(f"{m} {sig}" for m, sig in sigs.items()))
        self.status.setText(self._report_note)
        self.status.setToolTip("\n".join(f"{m}: {sig}" for m, sig in sigs.items()))
        self.show_run(run, "report", path)
        return True

    def ask_replace_results(self, name: str) -> bool:
        """The question before a report replaces the results on screen (tests replace this)."""
        ans = QMessageBox.question(self, "Replace results",
                                   f"Replace the results shown by those of the report {name}?",
                                   QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Yes)
        return ans == QMessageBox.Yes

    # dialogs (thin wrappers used by the menu actions)
    def ask_export_table(self) -> None:
        page = self.tabs.currentWidget()
        for tab in (getattr(self, "ranking_view", None), getattr(self, "unseen_view", None),
                    getattr(self, "metrics_view", None)):
            if tab is not None and page is tab:
                return tab.ask_export_table()
        which = {0: "systems", 1: "sentences", 2: "correlations"}.get(self.tabs.currentIndex(),
                                                                     "systems")
        ask_export(self, which, lambda p: self.export_table(p, which), self.workspace.path)

    def ask_export_plot(self) -> None:
        page = self.tabs.currentWidget()
        for tab in (getattr(self, "ranking_view", None), getattr(self, "unseen_view", None),
                    getattr(self, "metrics_view", None)):
            if tab is not None and page is tab:
                return tab.ask_export_plot()
        plot = self.current_plot()
        ask_export_plot(self, plot.objectName() or "plot", lambda p: plots.export_plot(plot, p),
                        self.workspace.path)

    def ask_save_report(self) -> None:
        if self.run is None:
            return
        n = len(self.run.systems)
        path, _ = QFileDialog.getSaveFileName(
            self, f"Save EvalTrans report ({n} systems: one file each, NAME.<system>.xml)"
            if n > 1 else "Save EvalTrans report",
            suggested_path(self.workspace.path, "report", ".xml"),
            "EvalTrans report (*.xml)")
        if path:
            written = self.save_report(path)
            self.status.setText(f"Report written: {len(written)} file(s), "
                                + ", ".join(p.name for p in written[:3])
                                + (" …" if len(written) > 3 else ""))

    def ask_open_report(self) -> None:
        start = str(self.workspace.path.parent) if self.workspace.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open EvalTrans report", start,
                                              "EvalTrans report (*.xml)")
        if path:
            self.open_report(path)
