"""Installs the analysis loop into the main window.

:func:`install` adds the results view as a dock ("Results"), a live
correlation panel ("Live correlation") and the Evaluate menu actions
(options, run, cancel, reports, exports). The main window calls it at the
end of its construction and keeps ``window.results_view`` and
``window.live_panel``.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.run.results import RunResult
from evaltrans_qt.ui.results_models import table_view
from evaltrans_qt.ui.results_view import ResultsView
from evaltrans_qt.ui.workers import LatestRunner


def live_correlations(run: RunResult, db: Database, human: str) -> pd.DataFrame:
    """Sentence-level r, rho, tau of every measure with the ``human`` scores given so far.

    No bootstrap (it must be quick); error measures negated so that positive
    means agreement. Runs on a worker thread.
    """
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    rows = []
    try:
        cors = correlate_run(db, run, human, level="sentence", n_boot=0)
    except Exception:
        cors = []
    for c in cors:
        rows.append({"measure": c.measure, "n": c.n, "r": c.pearson, "rho": c.spearman,
                     "tau": c.kendall})
    return pd.DataFrame(rows, columns=["measure", "n", "r", "rho", "tau"])


class LiveCorrelationPanel(QWidget):
    """Correlation of each measure with the scores entered so far (updates while scoring).

    Observes the workspace: another database empties it, a score change updates it."""

    IDLE = ("Run the measures (Ctrl+R) to follow their correlation with your scores while "
            "you judge.")

    def __init__(self, results: ResultsView, parent: QWidget | None = None, workspace=None) -> None:
        super().__init__(parent)
        self.setObjectName("liveCorrelation")
        self.results = results
        self.workspace = workspace or results.workspace
        self.human: str | None = None
        lay = QVBoxLayout(self)
        self.label = QLabel(self.IDLE, wordWrap=True, objectName="liveStatus")
        lay.addWidget(self.label)
        self.view, self.model, _proxy = table_view("liveCorrelationTable")
        lay.addWidget(self.view, 1)
        self.runner = LatestRunner(self)
        self.timer = QTimer(self, singleShot=True, interval=300)
        self.timer.timeout.connect(self.update_now)
        self.updates = 0
        from evaltrans_qt.ui.observe import observe
        observe(self, self.workspace.database_changed, self.reset)
        observe(self, self.workspace.committed, self._committed)

    def reset(self) -> None:
        """Nothing of the previous database stays."""
        self.timer.stop()
        self.runner.cancel()
        self.human = None
        self.model.set_frame(pd.DataFrame())
        self.label.setText(self.IDLE)

    def _committed(self, change) -> None:
        """A judgement committed: a score or post-edit updates the live correlation (a
        ranking, items or a reference change is not a score of the shown class)."""
        from evaltrans_qt.workspace import modifies_database
        if not modifies_database(change):
            self.score_changed(change)

    def score_changed(self, change) -> None:
        cls = getattr(change, "cls", None)
        if cls:
            self.human = cls
        self.timer.start()

    def update_now(self) -> None:
        run = self.workspace.run
        db = self.workspace.database
        human = self.human or (db.human_classes[0] if db is not None and db.human_classes else None)
        if run is None or db is None or not human:
            return
        self.runner.submit(live_correlations, run, db, human,
                           on_result=lambda f, h=human: self._show(h, f))

    def show_analysis(self, analysis) -> None:
        """After a run: take the sentence-level correlations the results view computed
        (no second computation competing for the CPU)."""
        if analysis.level != "sentence" or not analysis.correlations:
            return
        rows = [{"measure": c.measure, "n": c.n, "r": c.pearson, "rho": c.spearman,
                 "tau": c.kendall} for c in analysis.correlations]
        self.human = self.human or analysis.human
        if analysis.human == self.human:
            self._show(analysis.human, pd.DataFrame(rows, columns=["measure", "n", "r", "rho", "tau"]))

    def _show(self, human: str, frame: pd.DataFrame) -> None:
        self.updates += 1
        self.model.set_frame(frame)
        n = int(frame["n"].max()) if len(frame) else 0
        self.label.setText(f"Sentence-level correlation with '{human}' over the {n} candidates "
                           "scored so far (error measures negated).")


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


def install(window) -> ResultsView:
    """Add the results dock, live correlation panel and Evaluate actions to ``window``."""
    preload_sacrebleu()
    view = ResultsView(window)
    window.results_view = view
    window.results_dock = window.add_panel("Results", view, Qt.BottomDockWidgetArea)
    live = LiveCorrelationPanel(view)
    window.live_panel = live
    window.live_dock = window.add_panel("Live correlation", live, Qt.RightDockWidgetArea)

    menu = window.evaluate_menu

    def action(text: str, keys, slot, name: str, tip: str = ""):
        act = menu.addAction(text)
        act.setObjectName(name)
        if keys:
            act.setShortcuts([QKeySequence(k) for k in keys])
        if tip:
            act.setStatusTip(tip)
            act.setToolTip(tip)
        act.triggered.connect(lambda *_: slot())
        return act

    def show_results():
        window.show_panel("Results") if hasattr(window, "show_panel") else window.results_dock.show()

    menu.addSeparator()
    window.act_eval_options = action("Evaluation &options…", ["Ctrl+Shift+O"], view.edit_options,
                                     "action_eval_options",
                                     "Every measure option of EvalTransBatchEval")
    window.act_run = action("&Run measures", ["Ctrl+R", "F5"],
                            lambda: (show_results(), view.start_run()), "action_run",
                            "Run the chosen measures on all systems in the background")
    window.act_cancel_run = action("&Cancel run", ["Ctrl+."], view.cancel_run, "action_cancel_run")
    window.act_results = action("Show &results", ["Ctrl+Shift+R"], show_results, "action_results")
    menu.addSeparator()
    window.act_save_report = action("Save EvalTrans &report…", ["Ctrl+Shift+E"],
                                    view.ask_save_report, "action_save_report")
    window.act_open_report = action("Open re&port…", ["Ctrl+Shift+L"],
                                    lambda: (show_results(), view.ask_open_report()),
                                    "action_open_report")
    window.act_export_table = action("Export &table (CSV/LaTeX)…", ["Ctrl+E"],
                                     view.ask_export_table, "action_export_table")
    window.act_export_plot = action("Export &plot (PNG/SVG)…", ["Ctrl+Shift+P"],
                                    view.ask_export_plot, "action_export_plot")

    # the views observe the workspace themselves; here only what spans panels
    window.workspace.database_changed.connect(freeze_long_lived)
    view.analysisReady.connect(live.show_analysis)
    view.runFinished.connect(lambda _run: freeze_long_lived())
    view.runFinished.connect(lambda _run: window.session is not None and window.live_dock.show())
    # compile the numba kernels in the background so the first run/alignment is quick
    from evaltrans_qt.engine import warmup
    from evaltrans_qt.ui.workers import start_worker
    if not warmup.is_warm():
        start_worker(warmup.ensure_warm)
    return view


__all__ = ["install", "LiveCorrelationPanel", "live_correlations"]
