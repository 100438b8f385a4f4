"""The live-correlation panel: each measure's sentence-level correlation with the
human scores entered so far, updated while the user judges.

Correlations as in :mod:`evaltrans_qt.engine.metaeval.correlation` (SPEC, meta-evaluation).
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.run.results import RunResult
from evaltrans_qt.ui.results_models import table_view
from evaltrans_qt.ui.results_view import ResultsView
from evaltrans_qt.ui.workers import LatestRunner


def live_correlations(run: RunResult, db: Database, human: str,
                      normalize: bool = False) -> pd.DataFrame:
    """Sentence-level r, rho, tau of every measure with the ``human`` scores given so far.

    No bootstrap (it must be quick); error measures negated so that positive
    means agreement; ``normalize``: each judge to mean 0, standard deviation 1 first
    (thesis section 5.5). Runs on a worker thread.
    """
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    rows = []
    try:
        cors = correlate_run(db, run, human, level="sentence", normalize=normalize, n_boot=0)
    except Exception:
        cors = []
    for c in cors:
        rows.append({"measure": c.measure, "n": c.n, "r": c.pearson, "rho": c.spearman,
                     "tau": c.kendall})
    return pd.DataFrame(rows, columns=["measure", "n", "r", "rho", "tau"])


class LiveCorrelationPanel(QWidget):
    """Correlation of each measure with the scores entered so far (updates while scoring).

    Observes the workspace, never the results view: another database empties it; a run,
    a committed score and the workspace's analysis choice (its human score and
    normalisation; the level here is always the sentence) update it, on a worker thread.
    """

    IDLE = ("Run the measures (Ctrl+R) to follow their correlation with your scores while "
            "you judge.")

    def __init__(self, results: ResultsView | None = None, parent: QWidget | None = None,
                 workspace=None) -> None:
        super().__init__(parent)
        self.setObjectName("liveCorrelation")
        self.results = results
        self.workspace = workspace if workspace is not None else results.workspace
        #: The class of the last score committed (a hint when it is not the one analysed).
        self.scored: str | None = None
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
        ws = self.workspace
        observe(self, ws.database_changed, self.reset)
        observe(self, ws.committed, self._committed)
        observe(self, ws.run_changed, self._run_changed)
        observe(self, ws.analysis.changed, self._choice_changed)

    @property
    def human(self) -> str | None:
        """The human score correlated with: the workspace's analysis choice."""
        return self.workspace.analysis.human

    def reset(self) -> None:
        """Nothing of the previous database stays."""
        self.timer.stop()
        self.runner.cancel()
        self.scored = None
        self.model.set_frame(pd.DataFrame())
        self.label.setText(self.IDLE)

    def _run_changed(self) -> None:
        if self.workspace.run is None:
            self.timer.stop()
            self.runner.cancel()
            self.model.set_frame(pd.DataFrame())
            self.label.setText(self.IDLE)
        else:
            self.timer.start()

    def _choice_changed(self) -> None:
        """Another human score or normalisation chosen: recompute soon."""
        self.timer.start()

    def _committed(self, change) -> None:
        """A judgement committed: a score or post-edit updates the live correlation (a
        ranking, items or a reference change is not a score of the shown class)."""
        from evaltrans_qt.workspace import modifies_database
        if not modifies_database(change):
            self.score_changed(change)

    def score_changed(self, change) -> None:
        cls = getattr(change, "cls", None)
        if cls:
            self.scored = cls
        self.timer.start()

    def update_now(self) -> None:
        ws = self.workspace
        run, db, human = ws.run, ws.database, self.human
        if run is None or db is None or not human:
            return
        normalize = ws.analysis.normalize
        self.runner.submit(live_correlations, run, db, human, normalize,
                           on_result=lambda f, h=human: self._show(h, f))

    def show_analysis(self, analysis) -> None:
        """A shortcut after a run: take the sentence-level correlations the results view
        computed when they are those of the workspace's choice (no second computation
        competing for the CPU); otherwise the panel computes its own."""
        choice = self.workspace.analysis
        if (analysis.level != "sentence" or not analysis.correlations or choice.normalize
                or analysis.human != choice.human):
            return
        rows = [{"measure": c.measure, "n": c.n, "r": c.pearson, "rho": c.spearman,
                 "tau": c.kendall} for c in analysis.correlations]
        self.timer.stop()
        self.runner.cancel()
        self._show(analysis.human, pd.DataFrame(rows, columns=["measure", "n", "r", "rho", "tau"]))

    def _show(self, human: str, frame: pd.DataFrame) -> None:
        self.updates += 1
        self.model.set_frame(frame)
        n = int(frame["n"].max()) if len(frame) else 0
        text = (f"Sentence-level correlation with '{human}' over the {n} candidates "
                "scored so far (error measures negated).")
        if self.scored and self.scored != human:
            text += (f" You are scoring '{self.scored}': choose it as the human score in "
                     "Results to follow it here.")
        self.label.setText(text)


__all__ = ["LiveCorrelationPanel", "live_correlations"]
