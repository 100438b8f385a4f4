"""The analysis loop of the window: the results view as a panel ("Results"), the live
correlation panel ("Live correlation") and the Evaluate menu (options, run, cancel,
reports, exports). The views observe the workspace themselves; here only what spans
panels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from evaltrans_qt.ui.live_correlation import LiveCorrelationPanel
from evaltrans_qt.ui.results_view import ResultsView


def freeze_long_lived() -> None:
    """Move the objects alive now (a loaded database, a finished run) out of the
    garbage collector's reach (``gc.freeze``).

    A full collection traverses every tracked object while holding the GIL; with
    the WMT database and a run (~300 000 objects) that is ~100 ms each time, a
    visible stall of the UI while a worker allocates. Frozen objects are still
    freed by reference counting; only cyclic garbage among them is kept.
    """
    import gc
    gc.freeze()     # no gc.collect() first: that would be the very pause we avoid


def preload_sacrebleu() -> None:
    """Import sacreBLEU (metrics, tokenizers) and every measure module once, in the main
    thread, before any worker thread can: two threads importing ``sacrebleu.tokenizers``
    at once can fail with importlib's _DeadlockError (the tokenizer loader in
    ``engine/text/preprocess.py`` also holds a lock)."""
    import sacrebleu  # noqa: F401
    from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: F401
    from sacrebleu.tokenizers import tokenizer_13a, tokenizer_ter  # noqa: F401

    from evaltrans_qt.engine.measures import load_all
    load_all()


#: The results view's tables whose first column (system, measure) stays in view.
WIDE_TABLES = ("systemTable", "sentenceTable", "correlationTable")

#: The warm-up's worker, once :func:`start_warmup` started it (one per process).
_warmup_worker: Any = None


def start_warmup() -> Any:
    """Compile the numba kernels in the background (:func:`engine.warmup.ensure_warm` on a
    worker thread), so that the first run or alignment is quick; once per process, and not
    when they are warm already. The worker, or None when nothing was started."""
    global _warmup_worker
    from evaltrans_qt.engine import warmup
    from evaltrans_qt.ui.workers import start_worker
    if _warmup_worker is not None or warmup.is_warm():
        return None
    _warmup_worker = start_worker(warmup.ensure_warm)
    return _warmup_worker


class ResultsController(QObject):
    """Results and live-correlation panels, Evaluate actions (module doc)."""

    def __init__(self, window: Any) -> None:
        """``window``: the :class:`~evaltrans_qt.ui.main_window.MainWindow` composing this;
        the actions go into its ``evaluate_menu``."""
        super().__init__(window)
        self.window = window
        preload_sacrebleu()
        self.results_view = view = ResultsView(window)
        self.results_dock = window.add_panel("Results", view, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.live_panel = live = LiveCorrelationPanel(view)
        self.live_dock = window.add_panel("Live correlation", live, Qt.DockWidgetArea.RightDockWidgetArea)
        self._build_actions(window.evaluate_menu)
        # wide tables: the system (measure) a row is about stays in view when scrolling
        from PySide6.QtWidgets import QTableView

        from evaltrans_qt.ui.frozen_column import freeze_first_column
        for name in WIDE_TABLES:
            table = view.findChild(QTableView, name)
            if table is not None:
                freeze_first_column(table)
        window.workspace.database_changed.connect(freeze_long_lived)
        view.analysisReady.connect(live.show_analysis)
        view.runFinished.connect(lambda _run: freeze_long_lived())
        view.runFinished.connect(lambda _run: window.session is not None and self.live_dock.show())
        start_warmup()

    def _build_actions(self, menu) -> None:
        view = self.results_view

        def action(text: str, keys: list[str], slot: Callable[[], object], name: str,
                   tip: str = "") -> QAction:
            act = menu.addAction(text)
            act.setObjectName(name)
            act.setShortcuts([QKeySequence(k) for k in keys])
            if tip:
                act.setStatusTip(tip)
                act.setToolTip(tip)
            act.triggered.connect(lambda *_: slot())
            return act

        menu.addSeparator()
        self.act_eval_options = action("Evaluation &options…", ["Ctrl+Shift+O"], view.edit_options,
                                       "action_eval_options",
                                       "Every measure option of EvalTransBatchEval")
        self.act_run = action("&Run measures", ["Ctrl+R", "F5"],
                              self._run, "action_run",
                              "Run the chosen measures on all systems in the background")
        self.act_cancel_run = action("&Cancel run", ["Ctrl+."], view.cancel_run, "action_cancel_run")
        self.act_results = action("Show &results", ["Ctrl+Shift+R"], self.show_results,
                                  "action_results")
        menu.addSeparator()
        self.act_save_report = action("Save EvalTrans &report…", ["Ctrl+Shift+E"],
                                      view.ask_save_report, "action_save_report")
        self.act_open_report = action("Open re&port…", ["Ctrl+Shift+L"],
                                      self._open_report, "action_open_report")
        self.act_export_table = action("Export &table (CSV/LaTeX)…", ["Ctrl+E"],
                                       view.ask_export_table, "action_export_table")
        self.act_export_plot = action("Export &plot (PNG/SVG)…", ["Ctrl+Shift+P"],
                                      view.ask_export_plot, "action_export_plot")
        self.act_export_analysis = action("Export &analysis as HTML…", ["Ctrl+Shift+H"],
                                          self._export_analysis,
                                          "action_export_analysis",
                                          "The Analysis tab's comparison of systems as one "
                                          "self-contained HTML report")

    def _run(self) -> None:
        self.show_results()
        self.results_view.start_run()

    def _open_report(self) -> None:
        self.show_results()
        self.results_view.ask_open_report()

    def _export_analysis(self) -> None:
        self.show_results()
        view = self.results_view
        view.tabs.setCurrentWidget(view.analysis_view)
        view.analysis_view.ask_export_html()

    def show_results(self) -> None:
        """The results panel shown and in front, the window kept on the screen."""
        self.window.show_panel("Results")


__all__ = ["ResultsController", "freeze_long_lived", "preload_sacrebleu"]
