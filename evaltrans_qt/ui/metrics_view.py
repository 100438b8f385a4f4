"""The results view's "Metrics" tab: meta-evaluation as the WMT metrics task shows it.

A ranked table of every measure (ours and the database's external metrics) with its
significance cluster, Pearson, Kendall, pairwise accuracy and acc*_eq (with epsilon),
and a heat map of the metric-vs-metric p-values (row better than column). The numbers
come from :func:`evaltrans_qt.engine.metaeval.metrics_task.overview`, run on a worker thread
(:class:`~evaltrans_qt.ui.workers.LatestRunner`) whenever the workspace's run, scores or
analysis choice (its human score, :mod:`evaltrans_qt.analysis_choice`) change, or the
controls do.

The system level follows a convention (``engine/metaeval/conventions.py``; the
``metricsConvention`` box, default the one of the command line and the API); the
``metricsConventionLabel`` says which one the numbers use.

Object names: ``metricsView``, ``metricsTable``, ``metricsSignificance``,
``metricsStatistic``, ``metricsLevel``, ``metricsGrouping``, ``metricsMethod``,
``metricsConvention``, ``metricsConventionLabel``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.ui import plots
from evaltrans_qt.ui.export_dialog import ask_export, ask_export_plot
from evaltrans_qt.ui.results_models import DASH_FORMAT, NumberFormat, table_view
from evaltrans_qt.ui.workers import LatestRunner

_CLUSTER_COLOURS = ("#e8f1fb", "#ffffff")


#: The table's columns; the third is named after the ranking statistic when known.
COLUMNS = ("#", "measure", "cluster", "value", "pearson", "kendall", "pairwise acc.",
           "acc*_eq", "epsilon")
#: Statistics that may be undefined read "–"; epsilon with four significant digits.
FORMATS = {**dict.fromkeys(COLUMNS, DASH_FORMAT), "cluster": NumberFormat(decimals=0),
           "epsilon": NumberFormat("g", 4, missing="–", infinite="–")}
CLUSTER_TIP = ("significance cluster: no metric of the cluster is significantly better "
               "than another of it (mt-metrics-eval AssignRanks)")


def overview_frame(ov) -> pd.DataFrame:
    """Rows = measures best first (an error measure negated, marked ``*``); the value
    column is named ``<statistic> (ranked)``."""
    if ov is None:
        return pd.DataFrame([], columns=list(COLUMNS))
    values = list(ov.significance.values)
    rows = [(i + 1, r.measure + ("*" if r.negated else ""), r.rank,
             values[i] if i < len(values) else math.nan,
             r.values.get("pearson", math.nan), r.values.get("kendall", math.nan),
             r.values.get("pairwise-accuracy", math.nan), r.values.get("acc-eq", math.nan),
             r.epsilon) for i, r in enumerate(ov.table)]
    statistic = ov.significance.statistic
    columns = list(COLUMNS)
    if statistic:
        columns[3] = f"{statistic} (ranked)"
    return pd.DataFrame(rows, columns=columns)


def convention_text(convention: str, level: str) -> str:
    """The tab's line naming the convention of its numbers (``conventions.label`` form)."""
    from evaltrans_qt.engine.metaeval import conventions
    name, _, rest = convention.partition(" ")
    subset = "human" if "human subset" in rest else "all"
    text = conventions.describe(name, subset, "unweighted" not in rest) if name in \
        conventions.CONVENTIONS else convention
    return f"Convention: {convention}" + (f" -- {text}" if level == "sys" else
                                          " (segment level: the same under every convention)")


def cluster_colours(frame: pd.DataFrame) -> list[QColor]:
    """Alternating backgrounds by significance cluster (rows of one cluster alike)."""
    ranks = frame["cluster"].to_numpy(float) if "cluster" in frame else []
    return [QColor(_CLUSTER_COLOURS[(int(r) - 1) % 2 if r == r and r else 0]) for r in ranks]


class MetricsView(QWidget):
    """The Metrics tab (see module doc). ``results`` is the owning ResultsView."""

    def __init__(self, results, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("metricsView")
        self.results = results
        self.overview = None
        self.error = ""
        self.runner = LatestRunner(self)
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.statistic = QComboBox(objectName="metricsStatistic")
        self.statistic.addItems(["pearson", "kendall", "pairwise-accuracy", "acc-eq"])
        self.level = QComboBox(objectName="metricsLevel")
        self.level.addItems(["sys", "seg"])
        self.grouping = QComboBox(objectName="metricsGrouping")
        self.grouping.addItems(["none", "item", "system"])
        self.method = QComboBox(objectName="metricsMethod")
        self.method.addItems(["perm-both", "williams", "perm-pairs"])
        self.method.setToolTip("perm-both: metric scores swapped (any statistic); williams: "
                               "Pearson only; perm-pairs: pairwise comparisons swapped "
                               "(acc*_eq, as the WMT23-WMT25 tasks)")
        from evaltrans_qt.engine.metaeval.conventions import CONVENTIONS, DEFAULT_CONVENTION
        self.convention = QComboBox(objectName="metricsConvention")
        self.convention.addItems(list(CONVENTIONS))
        self.convention.setCurrentText(DEFAULT_CONVENTION)
        self.convention.setToolTip("system level: mtme = mt-metrics-eval's (each measure's own "
                                   "system score, plain human means); thesis = section 5.5 "
                                   "(recomputed from the human-scored sentences, "
                                   "length-weighted human means)")
        self.samples = QSpinBox(objectName="metricsSamples")
        self.samples.setRange(50, 100000)
        self.samples.setValue(200)
        for label, w in (("Ranked by:", self.statistic), ("Level:", self.level),
                         ("Grouping:", self.grouping), ("Convention:", self.convention),
                         ("Test:", self.method),
                         ("Resamples:", self.samples)):
            row.addWidget(QLabel(label))
            row.addWidget(w)
        self.status = QLabel("", objectName="metricsStatus")
        # a long status wraps instead of widening the window
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        row.addWidget(self.status, 1)
        lay.addLayout(row)
        self.convention_label = QLabel("", objectName="metricsConventionLabel")
        self.convention_label.setWordWrap(True)
        lay.addWidget(self.convention_label)
        split = QSplitter(Qt.Horizontal)
        # ranked best first, rows coloured by significance cluster: not sortable
        self.table, self.model, self.proxy = table_view(
            "metricsTable", {"cluster": CLUSTER_TIP}, FORMATS, sortable=False,
            resize=QHeaderView.ResizeToContents, stretch=False)
        self.table.verticalHeader().hide()
        split.addWidget(self.table)
        self.heatmap = plots.SignificanceMatrix(name="metricsSignificance", what="measure")
        self.heatmap.clear_data("p-values between metrics appear after a run with human scores")
        split.addWidget(self.heatmap)
        split.setSizes([520, 480])
        lay.addWidget(split, 1)
        for box in (self.statistic, self.level, self.grouping, self.method, self.convention):
            box.currentIndexChanged.connect(lambda *_: self.compute())
        self.samples.editingFinished.connect(self.compute)

    def compute(self, human: str | None = None) -> None:
        """Recompute against ``human`` (default: the workspace's analysis choice)."""
        ws = self.results.workspace
        human = human or ws.analysis.human
        db, run = ws.database, ws.run
        if db is None or run is None or not human:
            return
        method = self.method.currentText()
        statistic = {"williams": "pearson", "perm-pairs": "acc-eq"}.get(
            method, self.statistic.currentText())
        from evaltrans_qt.engine.metaeval.metrics_task import overview
        self.status.setText("computing…")
        self.runner.submit(overview, db, run, human, level=self.level.currentText(),
                           statistic=statistic, grouping=self.grouping.currentText(),
                           method=method, samples=self.samples.value(),
                           convention=self.convention.currentText(),
                           on_result=self.show_overview, on_error=self._on_error)

    def show_overview(self, ov) -> None:
        self.overview = ov
        self.error = ""
        self._show_table(ov)
        sig = ov.significance
        names = [m + ("*" if r.negated else "") for m, r in zip(sig.measures, ov.table)]
        self.heatmap.set_data(names, sig.p, f"{sig.method}: p-value that row beats column "
                                            f"({sig.statistic}, {sig.level} level)")
        n_clusters = max(sig.ranks) if sig.ranks else 0
        self.status.setText(f"{len(sig.measures)} metrics in {n_clusters} cluster(s) against "
                            f"'{sig.human}' ({sig.n} {'systems' if sig.level == 'sys' else 'cells'}"
                            f"); * error measure, negated")
        self.convention_label.setText(convention_text(sig.convention, sig.level))

    def _show_table(self, ov) -> None:
        frame = overview_frame(ov)
        self.model.set_frame(frame, formats={**FORMATS, frame.columns[3]: DASH_FORMAT})
        self.model.set_row_data(Qt.BackgroundRole, cluster_colours(frame))

    def export_table(self, path: str | Path) -> Path:
        """The table as CSV/TSV/JSON/LaTeX (by suffix, ``io/export.py`` ``write_table``)."""
        from evaltrans_qt.errors import SaveError
        from evaltrans_qt.io.export import write_table
        frame = self.model.frame
        if frame.empty:
            raise SaveError("there is no metrics table to export yet: run the measures on a "
                            "database with human scores first", Path(path))
        ov = self.overview
        caption = "Metrics ranked as the WMT metrics task ranks them" + (
            f" ({ov.significance.statistic}, {ov.significance.method}, "
            f"{ov.significance.level} level, {ov.significance.convention} convention, "
            f"against '{ov.significance.human}')"
            if ov is not None else "")
        return write_table(frame, path, caption=caption)

    def ask_export_table(self) -> None:
        ask_export(self, "metrics", self.export_table, self.results.workspace.path,
                   title="Export metrics table")

    def export_plot(self, path: str | Path) -> Path:
        """The p-value heat map as PNG or SVG (by suffix)."""
        return plots.export_plot(self.heatmap, path)

    def ask_export_plot(self) -> None:
        ask_export_plot(self, "metricsSignificance", self.export_plot,
                        self.results.workspace.path)

    def _on_error(self, exc: BaseException) -> None:
        self.error = str(exc)
        self.overview = None
        self._show_table(None)
        self.heatmap.clear_data(str(exc))
        self.status.setText(str(exc))
        self.convention_label.setText("")


def add_metrics_tab(results) -> MetricsView:
    """Add the Metrics tab to a ResultsView before its last (histogram) tab (the one hook
    in ``results_view.py``); it observes the workspace: a run, committed scores and the
    analysis choice recompute it (debounced)."""
    from PySide6.QtCore import QTimer

    from evaltrans_qt.ui.observe import observe
    view = MetricsView(results)
    results.tabs.insertTab(results.tabs.count() - 1, view, "Metrics")
    view.timer = timer = QTimer(view, singleShot=True, interval=400)
    timer.timeout.connect(lambda: view.compute())
    ws = results.workspace
    observe(view, ws.run_changed, lambda: timer.start())
    observe(view, ws.committed, lambda _change: timer.start())
    observe(view, ws.analysis.changed, lambda: timer.start())

    def reset() -> None:                     # nothing of the previous database stays
        timer.stop()
        view.runner.cancel()
        view.overview = None
        view._show_table(None)
        view.heatmap.clear_data("p-values between metrics appear after a run with human "
                                "scores")
        view.status.setText("")

    observe(view, ws.database_changed, reset)
    return view
