"""The results view's "Analysis" tab: system against system as compare-mt does (Neubig et
al. 2019) -- the application side of ``evaltrans analyze``.

The choice (systems A and B and any more, the measure, the reference, the numbers of
n-grams and examples, an optional training corpus) is the workspace's
:class:`~evaltrans_qt.analysis_choice.ComparisonChoice`: the controls here write it and
show it. The analysis is :func:`evaltrans_qt.api.analyze` (engine/analysis/pairwise.py),
run off the UI thread by a :class:`~evaltrans_qt.ui.workers.LatestRunner`
(:func:`analysis_job`, Qt-free); its :class:`~evaltrans_qt.engine.analysis.pairwise.
AnalysisResult` is shown as it is:

* *Scores*: the aggregate scores with their 95 % bootstrap intervals (bars with whiskers)
  and the p-values of the paired bootstrap;
* *Word accuracy*: F-measure by frequency bucket (compare-mt's buckets), or by label when
  label files were given, bars with the bootstrap intervals beside the table;
* *Sentence buckets*: the score by reference length (with intervals), the sentences by
  length difference and by sentence-level score;
* *N-grams*: for the pair shown, the n-grams A matches more often than B and vice versa
  (compare-mt's smoothed ratio);
* *Examples*: the sentences with the largest sentence-level differences in both
  directions; the selected one with its edits against the reference highlighted as the
  HTML report marks them (:func:`evaltrans_qt.io.html_report.highlighted`). A double-click
  opens the sentence in the compare view (the candidate of B when B's column was
  clicked, else A's);
* *Error classes*: the per-system rates when the analysis has them.

Tables are ``FrameModel`` tables (``ui/results_models.py``), the bars
:class:`~evaltrans_qt.ui.plots.CorrelationBars`. "Export HTML…" (and Evaluate → Export
analysis as HTML…) writes the self-contained report of
:func:`evaltrans_qt.io.html_report.write_html_report` on a worker thread; a failure goes to
the one error sink (:mod:`evaltrans_qt.ui.errors`).

The tab recomputes when its choice, the options (tokenisation, case) or the database
change while it is visible, otherwise when it is shown next.

Object names: ``analysisView``, ``analysisSystemA``, ``analysisSystemB``,
``analysisMoreSystems``, ``analysisMeasure``, ``analysisReference``, ``analysisTop``,
``analysisExamplesCount``, ``analysisTrain``, ``analysisCompute``, ``analysisExportHtml``,
``analysisStatus``, ``analysisPair``, ``analysisTabs``, ``analysisScores``,
``analysisScoreBars``, ``analysisSignificance``, ``analysisWordKind``, ``analysisWords``,
``analysisWordBars``, ``analysisBucketKind``, ``analysisBuckets``, ``analysisBucketBars``,
``analysisNgramsA``, ``analysisNgramsB``, ``analysisExamples``, ``analysisExampleDetail``,
``analysisErrorClasses``.
"""

from __future__ import annotations

import html
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.ui import plots
from evaltrans_qt.ui.results_models import FrameModel, table_view
from evaltrans_qt.ui.workers import LatestRunner, Worker, handle_errors, start_worker

if TYPE_CHECKING:
    from evaltrans_qt.engine.analysis.pairwise import AnalysisResult

#: The measure compare-mt reports (its BLEU and sentence BLEU); first in the selector.
COMPAREMT_BLEU = "comparemt-bleu"
#: Word-accuracy tables: key -> (label, AnalysisResult attribute).
WORD_KINDS = {"frequency": ("by frequency", "word_accuracy"),
              "label": ("by label", "label_accuracy")}
#: Sentence-bucket tables: key -> (label, attribute, value column, low, high, y label).
BUCKET_KINDS = {
    "length": ("score by reference length", "length_buckets", "score", "low", "high", None),
    "lengthdiff": ("sentences by length difference (output − reference)",
                   "lengthdiff_buckets", "sentences", None, None, "sentences"),
    "score": ("sentences by sentence-level score", "score_buckets", "sentences", None, None,
              "sentences"),
}
#: Columns of the n-gram tables and of the example table (as shown).
NGRAM_COLUMNS = ["rank", "ngram", "n", "ratio", "count_a", "count_b"]
EXAMPLE_COLUMNS = ["better", "rank", "segment", "diff", "score_a", "score_b", "reference",
                   "output_a", "output_b"]
TIPS = {
    "ratio": "compare-mt's smoothed ratio (count A + α) / (count B + α), α = 1",
    "count_a": "matches of the n-gram in A's output (clipped by the reference)",
    "count_b": "matches of the n-gram in B's output (clipped by the reference)",
    "diff": "sentence score of A minus that of B",
    "fmeas": "F-measure of the bucket's reference words (compare-mt's word accuracy)",
    "fmeas_low": "2.5 % quantile of the bootstrap F-measures",
    "fmeas_high": "97.5 % quantile of the bootstrap F-measures",
    "p_value": "paired bootstrap against the first system (Koehn 2004)",
    "low": "2.5 % quantile of the bootstrap scores",
    "high": "97.5 % quantile of the bootstrap scores",
}
#: The edit marks' colours in the example panel (the HTML report's, io/html_report.py).
EDIT_CSS = (".e-m{background-color:#d8f0d8}.e-s{background-color:#fbe3b5}"
            ".e-i{background-color:#f6c4c4;text-decoration:underline}"
            ".e-d{background-color:#c9ddf5;text-decoration:line-through}")


def analysis_job(db: Database, options: EvalOptions, values: dict[str, Any]
                 ) -> AnalysisResult:
    """The analysis of the choice ``values`` (:meth:`ComparisonChoice.values`) with the
    workspace's ``options`` (tokenisation, case; Qt-free, for a worker thread)."""
    from evaltrans_qt.api import analyze
    return analyze(db, options=options, **values)


def export_job(result: AnalysisResult, path: Path, title: str) -> Path:
    """Write ``result``'s HTML report to ``path`` (Qt-free, for a worker thread)."""
    from evaltrans_qt.io.html_report import write_html_report
    write_html_report(result, path, title=title)
    return path


def bucket_series(frame: pd.DataFrame, systems: tuple[str, ...] | list[str], value: str,
                  low: str | None = None, high: str | None = None
                  ) -> tuple[list[str], dict[str, list[float]], dict[str, list[float]] | None,
                             dict[str, list[float]] | None]:
    """The bars of a per-(system, bucket) frame: the buckets (in the first system's
    order), one series of ``value`` per system, and its interval columns when given."""
    if frame is None or not len(frame):
        return [], {}, None, None
    buckets = [str(b) for b in frame[frame.system == systems[0]].bucket]

    def column(col: str) -> dict[str, list[float]]:
        out = {}
        for s in systems:
            rows = frame[frame.system == s].set_index("bucket")[col]
            out[s] = [float(rows.get(b, float("nan"))) for b in buckets]
        return out
    return (buckets, column(value), column(low) if low else None,
            column(high) if high else None)


def pairs_of(systems: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """Every pair of ``systems`` in the order the analysis compares them."""
    return list(combinations(systems, 2))


#: Rows a column's width is measured on (Qt's default is 1000: a visible pause for the long
#: tables of a WMT test set, shown on the UI thread); the widest text column's cap.
FIT_ROWS, MAX_WIDTH = 40, 300


def _table(name: str) -> tuple[QTableView, FrameModel]:
    view, model, _proxy = table_view(name, TIPS, dense=True)
    view.verticalHeader().hide()
    view.horizontalHeader().setResizeContentsPrecision(FIT_ROWS)
    view.setSelectionMode(QTableView.SingleSelection)
    return view, model


class AnalysisView(QWidget):
    """The Analysis tab (module doc). ``workspace``: the application's workspace;
    ``open_in_compare(source_index, target_index)``: the window's, or None."""

    analysisReady = Signal(object)      # AnalysisResult
    failed = Signal(str)
    exported = Signal(object)           # Path of the HTML report written

    def __init__(self, workspace, open_in_compare=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("analysisView")
        self.workspace = workspace
        self.open_in_compare = open_in_compare
        self.result: AnalysisResult | None = None
        #: The choice, options and data version the result shown is of.
        self._result_key: tuple | None = None
        self.stale = True
        self.export_worker: Worker | None = None
        self._example_rows = pd.DataFrame()
        self._runner = LatestRunner(self)
        self._runner.idle.connect(lambda: self.compute_button.setEnabled(True))
        self._timer = QTimer(self, singleShot=True, interval=300)
        self._timer.timeout.connect(self._changed)
        self._filling = False
        self._build()
        from evaltrans_qt.ui.observe import observe
        ws = workspace
        observe(self, ws.comparison.systems_changed, lambda _s: self._fill_choices())
        observe(self, ws.comparison.changed, self._choice_changed)
        observe(self, ws.database_changed, self._database_changed)
        observe(self, ws.database_modified, lambda _a: self._timer.start())
        observe(self, ws.options_changed, lambda: self._timer.start())
        self._fill_choices()

    @property
    def choice(self):
        return self.workspace.comparison

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Systems:"))
        self.system_a = QComboBox(objectName="analysisSystemA")
        self.system_a.setToolTip("System A (compared with B and any more systems)")
        self.system_b = QComboBox(objectName="analysisSystemB")
        self.system_b.setToolTip("System B")
        for k, box in enumerate((self.system_a, self.system_b)):
            box.setSizeAdjustPolicy(QComboBox.AdjustToContents)
            box.activated.connect(lambda _i, k=k: self._write_systems(k))
            row.addWidget(box)
        self.more = QToolButton(objectName="analysisMoreSystems", text="More…")
        self.more.setToolTip("Further systems to compare (every pair is compared)")
        self.more.setPopupMode(QToolButton.InstantPopup)
        self.more_menu = QMenu(self.more)
        self.more.setMenu(self.more_menu)
        row.addWidget(self.more)
        row.addWidget(QLabel("Measure:"))
        self.measure_box = QComboBox(objectName="analysisMeasure")
        self.measure_box.setToolTip("Score of the aggregate table, the length and score "
                                    "buckets and the examples: compare-mt's BLEU (default) "
                                    "or a measure of the registry")
        self.measure_box.activated.connect(
            lambda _i: self._write(measure=self.measure_box.currentData()))
        row.addWidget(self.measure_box)
        row.addWidget(QLabel("Reference:"))
        self.reference_box = QComboBox(objectName="analysisReference")
        self.reference_box.setToolTip("The reference compared with (compare-mt takes one)")
        self.reference_box.activated.connect(
            lambda _i: self._write(reference=self.reference_box.currentData()))
        row.addWidget(self.reference_box)
        row.addStretch(1)
        lay.addLayout(row)

        row = QHBoxLayout()
        self.train_button = QToolButton(objectName="analysisTrain", text="Training corpus…")
        self.train_button.setToolTip("Count word frequencies in a training corpus (one "
                                     "sentence a line) instead of the test references")
        self.train_button.setPopupMode(QToolButton.MenuButtonPopup)
        self.train_button.clicked.connect(self.ask_train)
        menu = QMenu(self.train_button)
        menu.addAction("Frequencies in the test references", lambda: self._write(train=None))
        menu.addSeparator()
        menu.addAction("Label files (e.g. POS tags)…", self.ask_labels)
        menu.addAction("No label files", lambda: self._write(labels=None))
        self.train_button.setMenu(menu)
        row.addWidget(self.train_button)
        row.addWidget(QLabel("n-grams:"))
        self.top_spin = QSpinBox(objectName="analysisTop", minimum=1, maximum=1000)
        self.top_spin.setToolTip("Characteristic n-grams per direction (compare-mt: 50)")
        self.top_spin.editingFinished.connect(lambda: self._write(top=self.top_spin.value()))
        row.addWidget(self.top_spin)
        row.addWidget(QLabel("examples:"))
        self.examples_spin = QSpinBox(objectName="analysisExamplesCount", minimum=1,
                                      maximum=1000)
        self.examples_spin.setToolTip("Example sentences per direction (compare-mt: 10)")
        self.examples_spin.editingFinished.connect(
            lambda: self._write(examples=self.examples_spin.value()))
        row.addWidget(self.examples_spin)
        self.pair_label = QLabel("Pair:")
        row.addWidget(self.pair_label)
        self.pair_box = QComboBox(objectName="analysisPair")
        self.pair_box.setToolTip("The pair whose n-grams and examples are shown")
        self.pair_box.currentIndexChanged.connect(lambda _i: self._show_pair())
        row.addWidget(self.pair_box)
        self.compute_button = QPushButton("Analyse", objectName="analysisCompute")
        self.compute_button.setToolTip("Compute the analysis again")
        self.compute_button.clicked.connect(lambda: self.compute())
        row.addWidget(self.compute_button)
        self.export_button = QPushButton("Export HTML…", objectName="analysisExportHtml")
        self.export_button.setToolTip("The whole analysis as one self-contained HTML file "
                                      "(no network: inline charts and styles)")
        self.export_button.clicked.connect(self.ask_export_html)
        row.addWidget(self.export_button)
        self.status = QLabel("", objectName="analysisStatus", wordWrap=True)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        row.addWidget(self.status, 1)
        lay.addLayout(row)

        self.tabs = QTabWidget(objectName="analysisTabs")
        lay.addWidget(self.tabs, 1)
        self._chart_splits: list[QSplitter] = []
        self._unfitted: set[QTableView] = set()
        self.tabs.currentChanged.connect(lambda _i: self._page_shown())
        # Scores: bars with intervals beside the table, p-values below
        page, split = self._chart_page()
        self.score_bars = plots.CorrelationBars(name="analysisScoreBars")
        self.score_bars.hint = "the corpus score of each system with its 95 % interval"
        self.score_bars.clear_data()
        split.addWidget(self.score_bars)
        right = QSplitter(Qt.Vertical)
        self.scores_view, self.scores_model = _table("analysisScores")
        self.sig_view, self.sig_model = _table("analysisSignificance")
        right.addWidget(self.scores_view)
        right.addWidget(self.sig_view)
        split.addWidget(right)
        self.tabs.addTab(page, "Scores")
        # Word accuracy
        page, split = self._chart_page()
        self.word_kind = QComboBox(objectName="analysisWordKind")
        self.word_kind.currentIndexChanged.connect(lambda _i: self._show_words())
        page.layout().insertWidget(0, self.word_kind)
        self.word_bars = plots.CorrelationBars(name="analysisWordBars")
        self.word_bars.hint = "word F-measure by frequency bucket"
        self.word_bars.clear_data()
        self.words_view, self.words_model = _table("analysisWords")
        split.addWidget(self.word_bars)
        split.addWidget(self.words_view)
        self.tabs.addTab(page, "Word accuracy")
        # Sentence buckets
        page, split = self._chart_page()
        self.bucket_kind = QComboBox(objectName="analysisBucketKind")
        for key, (label, *_rest) in BUCKET_KINDS.items():
            self.bucket_kind.addItem(label, key)
        self.bucket_kind.currentIndexChanged.connect(lambda _i: self._show_buckets())
        page.layout().insertWidget(0, self.bucket_kind)
        self.bucket_bars = plots.CorrelationBars(name="analysisBucketBars")
        self.bucket_bars.hint = "sentence buckets"
        self.bucket_bars.clear_data()
        self.buckets_view, self.buckets_model = _table("analysisBuckets")
        split.addWidget(self.bucket_bars)
        split.addWidget(self.buckets_view)
        self.tabs.addTab(page, "Sentence buckets")
        # N-grams: A better | B better
        page = QWidget()
        h = QHBoxLayout(page)
        h.setContentsMargins(0, 0, 0, 0)
        self.ngram_views: list[QTableView] = []
        self.ngram_models: list[FrameModel] = []
        self.ngram_labels: list[QLabel] = []
        for side in ("A", "B"):
            box = QWidget()
            v = QVBoxLayout(box)
            v.setContentsMargins(0, 0, 0, 0)
            label = QLabel("", wordWrap=True)
            view, model = _table(f"analysisNgrams{side}")
            v.addWidget(label)
            v.addWidget(view, 1)
            h.addWidget(box)
            self.ngram_labels.append(label)
            self.ngram_views.append(view)
            self.ngram_models.append(model)
        self.tabs.addTab(page, "N-grams")
        # Examples: the table over the selected sentence's edits
        split = QSplitter(Qt.Vertical)
        self.examples_view, self.examples_model = _table("analysisExamples")
        self.examples_view.setToolTip("Double-click: open the sentence in the compare view "
                                      "(B's candidate from B's columns, else A's)")
        self.examples_view.doubleClicked.connect(self._example_activated)
        self.examples_view.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self._show_example(cur))
        self.example_detail = QTextBrowser(objectName="analysisExampleDetail")
        self.example_detail.document().setDefaultStyleSheet(EDIT_CSS)
        split.addWidget(self.examples_view)
        split.addWidget(self.example_detail)
        split.setSizes([260, 160])
        self.tabs.addTab(split, "Examples")
        page, split = self._chart_page()
        self.error_bars = plots.CorrelationBars(name="analysisErrorBars")
        self.error_bars.hint = "error class rates of each system"
        self.error_bars.clear_data()
        self.error_view, self.error_model = _table("analysisErrorClasses")
        split.addWidget(self.error_bars)
        split.addWidget(self.error_view)
        self._error_index = self.tabs.addTab(page, "Error classes")
        self.tabs.setTabVisible(self._error_index, False)
        for split in self._chart_splits:
            split.setStretchFactor(0, 3)
            split.setStretchFactor(1, 2)
            split.setSizes([600, 400])

    def _fit(self, view: QTableView) -> None:
        """Columns fitted to their contents (capped at :data:`MAX_WIDTH`), now if ``view``
        is shown, else when its page is (measuring costs time on the UI thread)."""
        if not view.isVisible():
            self._unfitted.add(view)
            return
        self._unfitted.discard(view)
        view.resizeColumnsToContents()
        for c in range(view.model().columnCount()):
            if view.columnWidth(c) > MAX_WIDTH:
                view.setColumnWidth(c, MAX_WIDTH)

    def _page_shown(self) -> None:
        for view in [v for v in self._unfitted if v.isVisible()]:
            self._fit(view)

    def _chart_page(self) -> tuple[QWidget, QSplitter]:
        """A page of a chart beside its table (3 : 2 of the width)."""
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Horizontal)
        v.addWidget(split, 1)
        self._chart_splits.append(split)
        return page, split

    # ------------------------------------------------------------ the choice
    def _fill_choices(self) -> None:
        """The selectors from the workspace's choice and the database."""
        c = self.choice
        self._filling = True
        try:
            for box in (self.system_a, self.system_b):
                box.clear()
                for s in c.available:
                    box.addItem(s or "(no id)", s)
            self.measure_box.clear()
            self.measure_box.addItem("compare-mt BLEU", COMPAREMT_BLEU)
            from evaltrans_qt.engine.measures import load_all
            for name in sorted(load_all()):
                self.measure_box.addItem(name, name)
            self.reference_box.clear()
            self.reference_box.addItem("first of each source", None)
            for r in c.references:
                self.reference_box.addItem(r, r)
        finally:
            self._filling = False
        self._show_choice()

    def _show_choice(self) -> None:
        """Show the workspace's choice in the selectors."""
        c = self.choice
        self._filling = True
        try:
            systems = list(c.systems)
            for box, k in ((self.system_a, 0), (self.system_b, 1)):
                box.setCurrentIndex(box.findData(systems[k]) if len(systems) > k else -1)
            self.more_menu.clear()
            for s in c.available:
                if s in systems[:2]:
                    continue
                act = self.more_menu.addAction(s or "(no id)")
                act.setCheckable(True)
                act.setChecked(s in systems)
                act.toggled.connect(lambda on, s=s: self._toggle_more(s, on))
            extra = len(systems) - 2
            self.more.setText(f"+{extra} more…" if extra > 0 else "More…")
            self.more.setEnabled(len(c.available) > 2)
            i = self.measure_box.findData(c.measure)
            if i < 0:
                self.measure_box.addItem(c.measure, c.measure)
                i = self.measure_box.count() - 1
            self.measure_box.setCurrentIndex(i)
            self.reference_box.setCurrentIndex(max(self.reference_box.findData(c.reference), 0))
            self.top_spin.setValue(c.top)
            self.examples_spin.setValue(c.examples)
            self.train_button.setText(f"Training corpus: {Path(c.train).name}" if c.train
                                      else "Training corpus…")
            self.train_button.setToolTip(
                "Count word frequencies in a training corpus (one sentence a line) instead "
                "of the test references; the menu: label files for word accuracy by label"
                + (f"\nLabel files: {', '.join(c.labels)}" if c.labels else ""))
        finally:
            self._filling = False

    def _write(self, **changes: Any) -> bool:
        """Write the workspace's choice; a refused value is shown the product's way and
        the selectors go back to the choice."""
        if self._filling:
            return False
        from evaltrans_qt.errors import EvalTransError
        try:
            return self.choice.set(**changes)
        except EvalTransError as exc:
            from evaltrans_qt.ui import errors
            errors.show_error(exc, self)
            self._show_choice()
            return False

    def _write_systems(self, changed: int) -> None:
        """System A (``changed`` 0) or B (1) was picked; picking the other one's system
        swaps them, picking one of the further systems takes its place there."""
        old = list(self.choice.systems)
        picked = (self.system_a, self.system_b)[changed].currentData()
        new = old[:2] if len(old) >= 2 else old + [None] * (2 - len(old))
        if picked in new and new[changed] != picked:
            new[1 - changed] = new[changed]
        new[changed] = picked
        rest = [s for s in old[2:] if s not in new]
        self._write(systems=[s for s in new if s is not None] + rest)

    def _toggle_more(self, system: str, on: bool) -> None:
        systems = [s for s in self.choice.systems if s != system]
        if on:
            systems.append(system)
        self._write(systems=systems)

    def set_systems(self, *systems: str) -> None:
        """Choose ``systems`` (A, B, then any more) in the workspace's choice."""
        self.choice.set(systems=list(systems))

    def ask_train(self) -> None:
        path, _f = QFileDialog.getOpenFileName(self, "Training corpus (one sentence a line)",
                                               str(self.workspace.path.parent)
                                               if self.workspace.path else "",
                                               "Text (*.txt *.tok *);;All files (*)")
        if path:
            self._write(train=path)

    def ask_labels(self) -> None:
        """Ask for the reference's label file (one line of labels per source, one label
        per reference word), then optionally one per chosen system (cancel: none)."""
        start = str(self.workspace.path.parent) if self.workspace.path else ""
        ref, _f = QFileDialog.getOpenFileName(
            self, "Labels of the reference words (one line per source)", start)
        if not ref:
            return
        files = [ref]
        for s in self.choice.systems:
            path, _f = QFileDialog.getOpenFileName(
                self, f"Labels of {s}'s words (cancel: the reference's labels only)", start)
            if not path:
                files = [ref]
                break
            files.append(path)
        self._write(labels=files)

    def _choice_changed(self) -> None:
        self._show_choice()
        self._timer.start()

    def _database_changed(self) -> None:
        self.result = None
        self._result_key = None
        self._clear("")
        self._changed()

    def _key(self) -> tuple:
        c = self.choice
        v = c.values()
        return (tuple(v["systems"]), v["measure"], v["reference"], v["top"], v["examples"],
                v["samples"], v["train"], tuple(v["labels"] or ()),
                self.workspace.options, self.workspace.data_version)

    def _changed(self) -> None:
        """The choice, options or data changed: recompute now if shown, else when shown."""
        if self.result is not None and self._result_key == self._key():
            return
        self.stale = True
        if self.isVisible() and self.workspace.database is not None:
            self.compute()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._page_shown()
        if self.stale and self.workspace.database is not None:
            self.compute()

    # --------------------------------------------------------------- compute
    def compute(self) -> bool:
        """Run :func:`analysis_job` for the workspace's choice in the background;
        :attr:`analysisReady` (or :attr:`failed`) follows. False when there is nothing to
        compare (no database, fewer than two systems)."""
        self._timer.stop()
        db = self.workspace.database
        c = self.choice
        if db is None:
            self._clear("Open a database with two or more systems and a reference.")
            return False
        if len(c.systems) < 2:
            self._clear("The analysis compares two or more systems: this database has "
                        f"{len(c.available)}.")
            return False
        self.stale = False
        key = self._key()
        self.status.setText(f"Analysing {', '.join(c.systems)}…")
        self.compute_button.setEnabled(False)
        self._runner.submit(analysis_job, db, self.workspace.options, c.values(),
                            on_result=lambda r, key=key: self._show(r, key),
                            on_error=self._error)
        return True

    def _error(self, exc: BaseException) -> None:
        from evaltrans_qt.errors import EvalTransError
        self.result = None
        self._result_key = None
        self._clear(f"Cannot analyse: {exc.problem if isinstance(exc, EvalTransError) else exc}")
        if not isinstance(exc, EvalTransError):
            from evaltrans_qt.ui import errors
            errors.show_error(exc, self)
        self.failed.emit(str(exc))

    def _clear(self, message: str) -> None:
        models = [self.scores_model, self.sig_model, self.words_model, self.buckets_model,
                  self.examples_model, self.error_model, *self.ngram_models]
        for m in models:
            m.set_frame(pd.DataFrame())
        for bars in (self.score_bars, self.word_bars, self.bucket_bars, self.error_bars):
            bars.clear_data()
        for label in self.ngram_labels:
            label.setText("")
        self.example_detail.clear()
        self.pair_box.blockSignals(True)
        self.pair_box.clear()
        self.pair_box.blockSignals(False)
        self.tabs.setTabVisible(self._error_index, False)
        self.status.setText(message)

    def _show(self, r: AnalysisResult, key: tuple) -> None:
        self.result = r
        self._result_key = key
        systems = list(r.systems)
        self.scores_model.set_frame(r.scores)
        self._fit(self.scores_view)
        self.sig_model.set_frame(r.significance.reset_index().rename(
            columns={"index": "p-value"}))
        self._fit(self.sig_view)
        sc = r.scores.set_index("system")
        self.score_bars.set_data([r.measure], {s: [float(sc.score[s])] for s in systems},
                                 {s: [float(sc["low"][s])] for s in systems},
                                 {s: [float(sc["high"][s])] for s in systems},
                                 ylabel=r.measure)
        self.word_kind.blockSignals(True)
        keep = self.word_kind.currentData()
        self.word_kind.clear()
        for key_, (label, attr) in WORD_KINDS.items():
            if getattr(r, attr) is not None:
                self.word_kind.addItem(f"Word F-measure {label}", key_)
        self.word_kind.setCurrentIndex(max(self.word_kind.findData(keep), 0))
        self.word_kind.blockSignals(False)
        self._show_words()
        self._show_buckets()
        self.pair_box.blockSignals(True)
        keep_pair = self.pair_box.currentData()
        self.pair_box.clear()
        for a, b in pairs_of(systems):
            self.pair_box.addItem(f"{a} vs {b}", (a, b))
        self.pair_box.setCurrentIndex(max(self.pair_box.findData(keep_pair), 0))
        self.pair_box.blockSignals(False)
        many = len(systems) > 2
        self.pair_label.setVisible(many)
        self.pair_box.setVisible(many)
        self._show_pair()
        if r.error_classes is not None:
            self._show_error_classes(r)
        self.tabs.setTabVisible(self._error_index, r.error_classes is not None)
        ref = r.meta.get("reference")
        ref = "the first reference of each source" if ref in (None, "first") else f"reference {ref}"
        self.status.setText(
            f"{len(systems)} systems on {r.n_sentences} sentences against {ref}; "
            f"{r.measure}; word frequencies in the "
            f"{r.settings.frequency_source} (signatures: hover)")
        self.status.setToolTip("\n".join([r.measure_name] + [
            f"{k}: {v}" for k, v in r.signatures.items()]))
        self.analysisReady.emit(r)

    def _show_error_classes(self, r: AnalysisResult) -> None:
        """Hjerson's rates first (the five class rates of its SUMerr, the sum and its block
        variant; engine/measures/errorclasses.py), then the counts; the five rates as
        bars, one series per system."""
        from evaltrans_qt.engine.measures.errorclasses import COLUMNS
        from evaltrans_qt.ui.results_models import NumberFormat
        frame = r.error_classes
        if frame is None:
            return
        if "system" not in frame.columns:
            frame = frame.reset_index()
        first = ["system"] + [f"{k}_rate" for k in COLUMNS if f"{k}_rate" in frame.columns]
        frame = frame[first + [c for c in frame.columns if c not in first]]
        counts = {c: NumberFormat("f", 0) for c in frame.columns
                  if not c.endswith("_rate") and c != "system"}
        tips = {f"{k}_rate": f"Hjerson's {name}" for k, name in COLUMNS.items()}
        self.error_model.set_frame(frame, tooltips={**TIPS, **tips}, formats=counts)
        self._fit(self.error_view)
        classes = [k for k in COLUMNS if k not in ("sum", "b_sum")
                   and f"{k}_rate" in frame.columns]
        rows = frame.set_index("system")
        self.error_bars.set_data([COLUMNS[k] for k in classes],
                                 {s: [float(rows.loc[s, f"{k}_rate"]) for k in classes]
                                  for s in r.systems if s in rows.index},
                                 ylabel="rate (Popović & Ney 2011)")

    def _show_words(self) -> None:
        r = self.result
        key = self.word_kind.currentData()
        frame = getattr(r, WORD_KINDS[key][1]) if r is not None and key else None
        if frame is None:
            self.words_model.set_frame(pd.DataFrame())
            self.word_bars.clear_data()
            return
        self.words_model.set_frame(frame)
        self._fit(self.words_view)
        known = bool(frame.fmeas.notna().any())
        value = "fmeas" if known else "recall"
        buckets, vals, lows, highs = bucket_series(
            frame, r.systems, value, "fmeas_low" if known else None,
            "fmeas_high" if known else None)
        self.word_bars.set_data(buckets, vals, lows, highs,
                                ylabel="F-measure" if known else "recall")
        self.word_bars.setLabel("bottom", "frequency of the reference word" if key ==
                                "frequency" else "label")

    def _show_buckets(self) -> None:
        r = self.result
        key = self.bucket_kind.currentData()
        if r is None or key is None:
            return
        label, attr, value, low, high, ylabel = BUCKET_KINDS[key]
        frame = getattr(r, attr)
        self.buckets_model.set_frame(frame)
        self._fit(self.buckets_view)
        buckets, vals, lows, highs = bucket_series(frame, r.systems, value, low, high)
        self.bucket_bars.set_data(buckets, vals, lows, highs, ylabel=ylabel or r.measure)
        self.bucket_bars.setLabel("bottom", {"length": "reference length (words)",
                                             "lengthdiff": "output − reference length",
                                             "score": f"sentence-level {r.measure}"}[key])

    def pair(self) -> tuple[str, str] | None:
        """The pair whose n-grams and examples are shown."""
        return self.pair_box.currentData()

    def _show_pair(self) -> None:
        r = self.result
        pair = self.pair()
        if r is None or pair is None:
            return
        a, b = pair
        ng = r.ngrams
        for k, (better, other) in enumerate(((a, b), (b, a))):
            rows = ng[(ng.system_a == a) & (ng.system_b == b) & (ng.better == better)] \
                if len(ng) else pd.DataFrame(columns=NGRAM_COLUMNS)
            self.ngram_models[k].set_frame(rows[NGRAM_COLUMNS])
            self._fit(self.ngram_views[k])
            self.ngram_labels[k].setText(
                f"<b>{html.escape(better)}</b> matches more often than "
                f"{html.escape(other)} ({len(rows)} n-grams; count_a: {html.escape(a)}, "
                f"count_b: {html.escape(b)})")
        ex = r.examples
        rows = ex[(ex.system_a == a) & (ex.system_b == b)] if len(ex) else ex
        self._example_rows = rows.reset_index(drop=True)
        shown = self._example_rows.copy()
        for col in ("reference", "output_a", "output_b"):
            if col in shown:
                shown[col] = [" ".join(t) for t in shown[col]]
        self.examples_model.set_frame(shown[EXAMPLE_COLUMNS] if len(shown)
                                      else pd.DataFrame(columns=EXAMPLE_COLUMNS))
        self._fit(self.examples_view)
        self.example_detail.clear()
        if len(shown):
            self.examples_view.selectRow(0)

    # --------------------------------------------------------------- examples
    def example_record(self, row: int) -> pd.Series:
        """The analysis' example row behind table row ``row`` (as the table is sorted)."""
        return self._example_rows.iloc[self.examples_model.frame_row(row)]

    def _show_example(self, index: QModelIndex) -> None:
        if not index.isValid() or self.result is None:
            return
        row = self.examples_view.model().mapToSource(index).row()
        e = self.example_record(row)
        from evaltrans_qt.io.html_report import EDIT_CLASSES, EDIT_NAMES, highlighted
        a, b = e.system_a, e.system_b
        esc = html.escape
        legend = " ".join(f"<span class='{c}'>&nbsp;{esc(n)}&nbsp;</span>"
                          for c, n in EDIT_NAMES.items() if c in EDIT_CLASSES.values())
        self.example_detail.setHtml(
            f"<p><b>Segment {esc(str(e.segment))}</b>: {esc(a)} − {esc(b)} = "
            f"{e['diff']:.4f} ({esc(a)} {e.score_a:.4f}, {esc(b)} {e.score_b:.4f})</p>"
            + (f"<p><b>Source</b>: {esc(e.source)}</p>" if e.source else "")
            + f"<p><b>Reference vs {esc(a)}</b>: {highlighted(e.reference, e.ref_edits_a)}<br>"
            f"<b>{esc(a)}</b>: {highlighted(e.output_a, e.edits_a)}</p>"
            f"<p><b>Reference vs {esc(b)}</b>: {highlighted(e.reference, e.ref_edits_b)}<br>"
            f"<b>{esc(b)}</b>: {highlighted(e.output_b, e.edits_b)}</p>"
            f"<p><small>{legend}</small></p>")

    def _example_activated(self, index: QModelIndex) -> None:
        row = self.examples_view.model().mapToSource(index).row()
        col = self.examples_model.headerData(index.column(), Qt.Horizontal)
        self.open_example(row, "b" if str(col).endswith("_b") else "a")

    def open_example(self, row: int, side: str = "a") -> bool:
        """Open example ``row`` (table order) in the compare view: system A's candidate
        (``side`` "a") or B's. False without a window, or when the candidate is gone."""
        db = self.workspace.database
        if self.open_in_compare is None or db is None or self.result is None \
                or not 0 <= row < self.examples_model.rowCount():
            return False
        e = self.example_record(row)
        system = e.system_a if side == "a" else e.system_b
        si = int(e.source_index)
        if si >= len(db.sources):
            return False
        for ti, t in enumerate(db.sources[si].targets):
            if (t.system or "") == system and not db.is_reference(t):
                self.open_in_compare(si, ti)
                return True
        return False

    # ------------------------------------------------------------ export
    def _title(self) -> str:
        r = self.result
        where = self.workspace.path.name if self.workspace.path else "the database"
        return f"{', '.join(r.systems) if r else ''} on {where}"

    def export_html(self, path: str | Path) -> Worker:
        """Write the HTML report of the analysis shown to ``path`` on a worker thread
        (computing the analysis first when none is shown or it is out of date);
        :attr:`exported` follows, a failure is shown by :mod:`evaltrans_qt.ui.errors`."""
        target = Path(path)
        r, key = self.result, self._key()
        if r is not None and self._result_key == key:
            w = start_worker(export_job, r, target, self._title(), _start=False)
        else:
            db = self.workspace.database
            if db is None:
                from evaltrans_qt.errors import SaveError
                raise SaveError("there is no analysis to export: open a database", target)
            where = self.workspace.path.name if self.workspace.path else "the database"

            def both(db=db, options=self.workspace.options, values=self.choice.values()):
                res = analysis_job(db, options, values)
                export_job(res, target, f"{', '.join(res.systems)} on {where}")
                return target
            w = start_worker(both, _start=False)

        def failed(exc: BaseException) -> None:
            from evaltrans_qt.ui import errors
            errors.show_error(exc, self, title="Analysis not exported")
            self.status.setText(f"Not exported: {exc}")
        handle_errors(w, failed)
        w.signals.finished.connect(lambda p: self._exported(Path(p)))
        self.export_worker = w
        self.status.setText(f"Writing {target.name}…")
        from evaltrans_qt.ui.workers import launch
        launch(w)
        return w

    def _exported(self, path: Path) -> None:
        self.status.setText(f"{path}: analysis report written")
        self.exported.emit(path)

    def ask_export_html(self) -> Worker | None:
        """Ask where to write the HTML report (beside the database), then
        :meth:`export_html`."""
        from evaltrans_qt.io.export import suggested_path
        from evaltrans_qt.ui.export_dialog import chosen_path, file_filters
        formats = (("HTML", ".html"),)
        start = suggested_path(self.workspace.path, "analysis", ".html")
        path, selected = QFileDialog.getSaveFileName(self, "Export analysis as HTML", start,
                                                     file_filters(formats))
        if not path:
            return None
        try:
            return self.export_html(chosen_path(path, selected, formats))
        except Exception as exc:         # nothing to export
            from evaltrans_qt.ui import errors
            errors.show_error(exc, self)
            return None


def add_analysis_tab(results) -> AnalysisView:
    """Add the "Analysis" tab to a ResultsView after its Unseen systems tab (Histogram
    stays last; the one hook in ``results_view.py``)."""
    window = getattr(results, "window_", None)
    view = AnalysisView(results.workspace, getattr(window, "open_in_compare", None))
    unseen = getattr(results, "unseen_view", None)
    at = results.tabs.indexOf(unseen) + 1 if unseen is not None else results.tabs.count()
    results.tabs.insertTab(at, view, "Analysis")
    return view


__all__ = ["AnalysisView", "add_analysis_tab", "analysis_job", "bucket_series", "export_job",
           "pairs_of"]
