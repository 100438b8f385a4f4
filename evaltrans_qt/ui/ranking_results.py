"""The results view's "Ranking" tab: system scores from relative rankings.

Per system the ratio of wins ignoring ties (Macháček §3.1), expected wins (Koehn 2012 as
WMT13 used it; and with ties as half a win), WMT's "≥ others" and the counts of wins,
losses and ties, from the short-segment rankings (expanded to systems, Macháček §3.1)
or the whole-sentence rankings -- :func:`evaltrans_qt.engine.human.ranking.database_rank_scores`.
Shown as a sortable table (:func:`scores_frame` in a ``FrameModel``) and a bar
chart (ratio of wins and expected wins per system); recomputed whenever the workspace's
database changes (a ranking screen submits or undoes, a database is opened or
imported into). Exported as CSV/TSV/JSON/LaTeX through ``io/export.py`` ``write_table`` -- the
same table as ``evaltrans ranking wins DB -o FILE``.

Object names: ``rankingResults``, ``rankingLevel``, ``rankingTable``, ``rankingBars``,
``rankingResultsStatus``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.human.ranking import LEVELS, RankScores, database_rank_scores
from evaltrans_qt.ui import plots
from evaltrans_qt.ui.export_dialog import ask_export, ask_export_plot
from evaltrans_qt.ui.results_models import DASH_FORMAT, table_view

#: The table's columns (the export's, ``RankScores.frame``, in words) with their tooltips.
COLUMNS = {"system": "",
           "ratio of wins": "wins / (wins + losses), ties ignored (Macháček §3.1)",
           "expected wins": "mean over opponents of wins / (wins + losses) (Koehn 2012; WMT13)",
           "expected wins (ties ½)": "mean over opponents of (wins + ties/2) / comparisons",
           "≥ others": "(wins + ties) / comparisons (WMT08-11)",
           "wins": "", "losses": "", "ties": "", "comparisons": ""}


def scores_frame(scores: RankScores | None) -> pd.DataFrame:
    """One row per system, best ratio of wins first (the table the tab shows)."""
    rows = [] if scores is None else [
        (r.system, r.ratio, r.expected_wins, r.expected_wins_ties, r.geq_others, r.wins,
         r.losses, r.ties, r.comparisons) for r in scores.rows]
    return pd.DataFrame(rows, columns=list(COLUMNS))


class RankingResultsView(QWidget):
    """The Ranking tab (module doc); ``workspace`` is the application's workspace."""

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("rankingResults")
        self.workspace = workspace
        self.scores: RankScores | None = None
        self.refreshes = 0
        self._level_chosen = False
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Rankings of:"))
        self.level = QComboBox(objectName="rankingLevel")
        self.level.addItem("short segments (SegRanks)", "segments")
        self.level.addItem("whole sentences", "sentences")
        self.level.activated.connect(self._level_activated)
        row.addWidget(self.level)
        self.status = QLabel("", objectName="rankingResultsStatus")
        row.addWidget(self.status, 1)
        self.export_button = QPushButton("Export table…", objectName="rankingExport")
        self.export_button.clicked.connect(self.ask_export_table)
        self.plot_button = QPushButton("Export plot…", objectName="rankingExportPlot")
        self.plot_button.clicked.connect(self.ask_export_plot)
        row.addWidget(self.export_button)
        row.addWidget(self.plot_button)
        lay.addLayout(row)
        split = QSplitter(Qt.Horizontal)
        self.table, self.model, self.proxy = table_view(
            "rankingTable", {c: tip for c, tip in COLUMNS.items() if tip},
            dict.fromkeys(COLUMNS, DASH_FORMAT), resize=QHeaderView.ResizeToContents,
            stretch=False)
        self.table.verticalHeader().hide()
        split.addWidget(self.table)
        self.bars = plots.CorrelationBars(name="rankingBars")
        self.bars.hint = "ratio of wins per system (after rankings are stored)"
        self.bars.clear_data()
        split.addWidget(self.bars)
        split.setSizes([560, 440])
        lay.addWidget(split, 1)
        self._timer = QTimer(self, singleShot=True, interval=150)
        self._timer.timeout.connect(self.refresh)
        from evaltrans_qt.ui.observe import observe
        ws = workspace
        observe(self, ws.database_changed, self._database_changed)
        observe(self, ws.database_modified, lambda _a: self._timer.start())
        observe(self, ws.committed, lambda _c: self._timer.start())
        self.refresh()

    @property
    def current_level(self) -> str:
        return self.level.currentData()

    def set_level(self, level: str) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
        self._level_chosen = True
        self.level.setCurrentIndex(self.level.findData(level))
        self.refresh()

    def _level_activated(self, _i: int) -> None:
        self._level_chosen = True
        self.refresh()

    def _database_changed(self) -> None:
        self._level_chosen = False
        self.refresh()

    def refresh(self) -> None:
        """Recompute the table and the chart from the database (cheap: counting)."""
        self._timer.stop()
        self.refreshes += 1
        db = self.workspace.database
        if db is None:
            self.scores = None
            self.model.set_frame(scores_frame(None))
            self.bars.clear_data()
            self.status.setText("")
            return
        level = self.current_level
        scores = database_rank_scores(db, level)
        if not scores.rankings and not self._level_chosen:     # show the level there is
            other = next(lv for lv in LEVELS if lv != level)
            alt = database_rank_scores(db, other)
            if alt.rankings:
                self.level.setCurrentIndex(self.level.findData(other))
                level, scores = other, alt
        self.scores = scores
        self.model.set_frame(scores_frame(scores))
        if scores.rows:
            systems = [r.system for r in scores.rows]
            self.bars.set_data(systems, {"ratio of wins": [r.ratio for r in scores.rows],
                                         "expected wins": [r.expected_wins for r in scores.rows]},
                               ylabel="share of wins")
        else:
            self.bars.clear_data(
                "No short-segment rankings yet — Session → SegRanks → Extract segments…, then "
                "Session → Rank short segments (Ctrl+Alt+J)" if level == "segments" else
                "No sentence rankings yet — Session → Rank whole sentences (Ctrl+Alt+K)")
        what = "segment annotations" if level == "segments" else "sentence rankings"
        self.status.setText(f"{scores.rankings} {what}, {len(scores.rows)} systems; ratio of "
                            "wins ignores ties (Macháček §3.1)")

    # ------------------------------------------------------------ export
    def export_table(self, path: str | Path) -> Path:
        """The table as CSV/TSV/JSON/LaTeX (by suffix), as ``evaltrans ranking wins -o``."""
        from evaltrans_qt.io.export import write_table
        if self.scores is None:
            self.refresh()
        scores = self.scores or RankScores([], {}, self.current_level)
        return write_table(scores.frame(), path,
                           caption=f"Ratio of wins ({scores.level}), Macháček §3.1")

    def export_plot(self, path: str | Path) -> Path:
        return plots.export_plot(self.bars, path)

    def ask_export_table(self) -> None:
        ask_export(self, f"wins-{self.current_level}", self.export_table, self.workspace.path,
                   title="Export ranking table")

    def ask_export_plot(self) -> None:
        ask_export_plot(self, "rankingBars", self.export_plot, self.workspace.path)


def add_ranking_tab(results) -> RankingResultsView:
    """Add the Ranking tab to a ResultsView before its last (histogram) tab (the one hook
    in ``results_view.py``)."""
    view = RankingResultsView(results.workspace)
    results.tabs.insertTab(results.tabs.count() - 1, view, "Ranking")
    return view
