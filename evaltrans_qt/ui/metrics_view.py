"""The results view's "Metrics" tab: meta-evaluation as the WMT metrics task shows it.

A ranked table of every measure (ours and the database's external metrics) with its
significance cluster, Pearson, Kendall, pairwise accuracy and acc*_eq (with epsilon),
and a heat map of the metric-vs-metric p-values (row better than column). The numbers
come from :func:`evaltrans_qt.engine.metaeval.metrics_task.overview`, run on a worker thread
(:class:`~evaltrans_qt.ui.workers.LatestRunner`) whenever the results view's analysis
is ready or the controls change.

Object names: ``metricsView``, ``metricsTable``, ``metricsSignificance``,
``metricsStatistic``, ``metricsLevel``, ``metricsGrouping``, ``metricsMethod``.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.ui import plots
from evaltrans_qt.ui.workers import LatestRunner

_CLUSTER_COLOURS = ("#e8f1fb", "#ffffff")


class MetricsModel(QAbstractTableModel):
    """Rows = measures best first; raw floats under ``Qt.UserRole`` for sorting."""

    HEADERS = ("#", "measure", "cluster", "value", "pearson", "kendall", "pairwise acc.",
               "acc*_eq", "epsilon")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list = []
        self.values: list[float] = []
        self.statistic = ""

    def set_overview(self, ov) -> None:
        self.beginResetModel()
        self.rows = list(ov.table) if ov is not None else []
        self.values = list(ov.significance.values) if ov is not None else []
        self.statistic = ov.significance.statistic if ov is not None else ""
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            h = self.HEADERS[section]
            return f"{self.statistic} (ranked)" if h == "value" and self.statistic else h
        return None

    def raw(self, row: int, col: int):
        r = self.rows[row]
        return [row + 1, r.measure + ("*" if r.negated else ""), r.rank,
                self.values[row] if row < len(self.values) else math.nan,
                r.values.get("pearson", math.nan), r.values.get("kendall", math.nan),
                r.values.get("pairwise-accuracy", math.nan), r.values.get("acc-eq", math.nan),
                r.epsilon][col]

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        v = self.raw(index.row(), index.column())
        if role == Qt.UserRole:
            return v
        if role == Qt.DisplayRole:
            if isinstance(v, float):
                return "–" if not math.isfinite(v) else f"{v:.4g}" if index.column() == 8 \
                    else f"{v:.4f}"
            return str(v)
        if role == Qt.BackgroundRole:
            rank = self.rows[index.row()].rank or 1
            return QColor(_CLUSTER_COLOURS[(rank - 1) % 2])
        if role == Qt.ToolTipRole and index.column() == 2:
            return "significance cluster: no metric of the cluster is significantly better " \
                   "than another of it (mt-metrics-eval AssignRanks)"
        return None


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
        self.method.addItems(["perm-both", "williams"])
        self.samples = QSpinBox(objectName="metricsSamples")
        self.samples.setRange(50, 100000)
        self.samples.setValue(200)
        for label, w in (("Ranked by:", self.statistic), ("Level:", self.level),
                         ("Grouping:", self.grouping), ("Test:", self.method),
                         ("Resamples:", self.samples)):
            row.addWidget(QLabel(label))
            row.addWidget(w)
        self.status = QLabel("", objectName="metricsStatus")
        # a long status wraps instead of widening the window
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        row.addWidget(self.status, 1)
        lay.addLayout(row)
        split = QSplitter(Qt.Horizontal)
        self.table = QTableView(objectName="metricsTable")
        self.model = MetricsModel(self)
        self.table.setModel(self.model)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        split.addWidget(self.table)
        self.heatmap = plots.SignificanceMatrix(name="metricsSignificance")
        self.heatmap.clear_data("p-values between metrics appear after a run with human scores")
        split.addWidget(self.heatmap)
        split.setSizes([520, 480])
        lay.addWidget(split, 1)
        for box in (self.statistic, self.level, self.grouping, self.method):
            box.currentIndexChanged.connect(lambda *_: self.compute())
        self.samples.editingFinished.connect(self.compute)

    def on_analysis(self, analysis) -> None:
        """The results view has a new analysis (human class chosen): recompute."""
        self.compute(getattr(analysis, "human", None))

    def compute(self, human: str | None = None) -> None:
        res = self.results
        human = human or (res.analysis.human if getattr(res, "analysis", None) else None)
        db, run = res.database, res.run
        if db is None or run is None or not human:
            return
        method = self.method.currentText()
        statistic = self.statistic.currentText() if method == "perm-both" else "pearson"
        from evaltrans_qt.engine.metaeval.metrics_task import overview
        self.status.setText("computing…")
        self.runner.submit(overview, db, run, human, level=self.level.currentText(),
                           statistic=statistic, grouping=self.grouping.currentText(),
                           method=method, samples=self.samples.value(),
                           on_result=self.show_overview, on_error=self._on_error)

    def show_overview(self, ov) -> None:
        self.overview = ov
        self.error = ""
        self.model.set_overview(ov)
        sig = ov.significance
        names = [m + ("*" if r.negated else "") for m, r in zip(sig.measures, ov.table)]
        self.heatmap.set_data(names, sig.p, f"{sig.method}: p-value that row beats column "
                                            f"({sig.statistic}, {sig.level} level)")
        n_clusters = max(sig.ranks) if sig.ranks else 0
        self.status.setText(f"{len(sig.measures)} metrics in {n_clusters} cluster(s) against "
                            f"'{sig.human}' ({sig.n} {'systems' if sig.level == 'sys' else 'cells'}"
                            f"); * error measure, negated")

    def _on_error(self, exc: BaseException) -> None:
        self.error = str(exc)
        self.overview = None
        self.model.set_overview(None)
        self.heatmap.clear_data(str(exc))
        self.status.setText(str(exc))


def add_metrics_tab(results) -> MetricsView:
    """Add the Metrics tab to a ResultsView before its last (histogram) tab and follow its
    analyses (the one hook in ``results_view.py``)."""
    view = MetricsView(results)
    results.tabs.insertTab(results.tabs.count() - 1, view, "Metrics")
    results.analysisReady.connect(view.on_analysis)
    return view
