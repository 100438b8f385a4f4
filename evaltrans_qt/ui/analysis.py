"""Installs the analysis loop into the main window.

:func:`install` adds the results view as a dock ("Results"), a live
correlation panel ("Live correlation") and the Evaluate menu actions
(options, run, cancel, reports, exports). The main window calls it at the
end of its construction and keeps ``window.results_view`` and
``window.live_panel``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from evaltrans_qt.ui.live_correlation import LiveCorrelationPanel, live_correlations
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
