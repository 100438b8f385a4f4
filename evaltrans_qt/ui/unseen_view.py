r"""The results view's "Unseen systems" tab: reusing the judged database for a
system nobody ranked, Macháček ch. 3 -- the application side of ``evaltrans unseen``
and ``evaltrans segranks agreement``.

Choose a system (or every annotated one, leave-one-system-out, §3.2) and the method
(exact §3.2.1 | closest §3.2.2); the engine (``engine/human/unseen/matching.py``,
``levels.py``) runs off the UI thread through a :class:`~evaltrans_qt.ui.workers.LatestRunner`
(:func:`unseen_job`, Qt-free) and the view shows:

* *Systems (Tables 3.3-3.5)*: one row per evaluated system -- segments, hits, hit rate,
  AED (all matched segments, hits 0; Table 3.4) and over the misses, its ratio of wins
  on the scored segments and place among all systems there, against its own ratio of
  wins and place from the whole database (§3.1), and the worse / equal / better shares
  of Table 3.5; below it the Table 3.3/3.4 sub-table of the selected row (every
  system's ratio of wins on that row's scored segments);
* *Closest vs unseen (Table 3.5, Figure 3.3)*: the shares per edit distance over all
  rows, as a table and a pyqtgraph bar chart, and the "All" row;
* *Examples (Table 3.6)*: misses with their closest segment(s), D and C (W/E/B);
* *Segment vs sentence τ (Table 3.2)*: Kendall τ per system on the sentence-level
  comparisons it won (a), lost (b) and all (c) (``levels.level_agreement``).

The overestimation warning of §3.2 is always shown. Tables are ``FrameModel`` tables
(``ui/results_models.py``) over the frames of :func:`summary_frame` etc., exported through
``io/export.py`` ``write_table`` (CSV/TSV/JSON/LaTeX by suffix). A database without
ranked short segments gets a message saying how to make them. The view recomputes
when its controls change, and when the database changes while it is visible
(otherwise once it is shown again).

Object names: ``unseenView``, ``unseenSystem``, ``unseenMethod``, ``unseenCompute``,
``unseenStatus``, ``unseenTabs``, ``unseenSummary``, ``unseenScores``,
``unseenDistances``, ``unseenBars``, ``unseenExamples``, ``unseenLevels``,
``unseenLevelsStatus``, ``unseenWarning``, ``unseenExport``, ``unseenExportPlot``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import RankScores
from evaltrans_qt.engine.human.unseen.levels import LevelAgreement
from evaltrans_qt.engine.human.unseen.matching import OUTCOMES, OVERESTIMATE_WARNING, UnseenResult
from evaltrans_qt.ui import plots
from evaltrans_qt.ui.export_dialog import ask_export, ask_export_plot
from evaltrans_qt.ui.results_models import FrameModel, table_view
from evaltrans_qt.ui.workers import LatestRunner

#: The message for a database without ranked short segments.
NO_ANNOTATIONS = ("This database has no ranked short segments (SegRanks annotations), so there "
                  "is nothing to match an unseen system against: extract segments "
                  "(Session → SegRanks → Extract segments…) and rank them (Session → Rank "
                  "short segments, Ctrl+Alt+J), or import rankings ('evaltrans segranks "
                  "import').")

#: Which table each export name writes, with its LaTeX caption.
TABLES = {
    "summary": "Unseen systems: hit rate, AED, ratio of wins on the scored segments against "
               "the whole database, closest vs unseen (Machacek Tables 3.3-3.5)",
    "scores": "Ratio of wins of every system on the scored segments of one evaluated system "
              "(Machacek Tables 3.3/3.4)",
    "distances": "Closest vs unseen segment by edit distance (Machacek Table 3.5, Figure 3.3)",
    "examples": "Unseen segments and their closest ranked segments (Machacek Table 3.6)",
    "levels": "Kendall tau between segment-level and sentence-level comparisons "
              "(Machacek Table 3.2)",
}
#: The export menu's entries.
MENU = {"summary": "Systems (Tables 3.3–3.5)",
        "scores": "Sub-table of the selected system (Table 3.3/3.4)",
        "distances": "Closest vs unseen by edit distance (Table 3.5, Figure 3.3)",
        "examples": "Examples (Table 3.6)",
        "levels": "Segment vs sentence τ (Table 3.2)"}


# ----------------------------------------------------------------- Qt-free job
@dataclass
class UnseenAnalysis:
    """Everything the tab shows for one (system, method) choice (computed off-thread)."""

    method: str
    system: str | None                       # None: leave-one-system-out over all
    results: list[UnseenResult] = field(default_factory=list)
    own: RankScores | None = None            # ratio of wins on the whole database (§3.1)
    levels: LevelAgreement | None = None
    levels_error: str = ""
    error: str = ""                          # nothing to show, and why


def unseen_job(db: Database, system: str | None, method: str) -> UnseenAnalysis:
    """:func:`~evaltrans_qt.engine.human.unseen.matching.leave_one_system_out` (``system`` None)
    or :func:`~evaltrans_qt.engine.human.unseen.matching.evaluate_unseen`, the database's own
    segment-level ratio of wins and :func:`~evaltrans_qt.engine.human.unseen.levels.level_agreement`.
    Engine errors (an unknown system, closest matching without candidate segments)
    propagate; a database without annotations gives ``error`` = :data:`NO_ANNOTATIONS`."""
    from evaltrans_qt.engine.human.ranking import database_rank_scores
    from evaltrans_qt.engine.human.unseen import matching
    from evaltrans_qt.engine.human.unseen.annotated import annotated_segments
    from evaltrans_qt.engine.human.unseen.levels import level_agreement
    from evaltrans_qt.errors import OptionError
    out = UnseenAnalysis(method, system)
    segs = annotated_segments(db)
    if not segs:
        out.error = NO_ANNOTATIONS
        return out
    if system is None:
        out.results = matching.leave_one_system_out(db, method)
    else:
        out.results = [matching.evaluate_unseen(db, system, method, segs)]
    out.own = database_rank_scores(db, "segments")
    try:
        out.levels = level_agreement(db)
    except OptionError as exc:
        out.levels_error = str(exc)
    return out


def _place(ranking: list[tuple[str, float]], system: str) -> float:
    """1-based place of ``system`` in a best-first ranking (NaN if absent or unscored)."""
    for i, (s, v) in enumerate(ranking):
        if s == system:
            return float(i + 1) if not math.isnan(v) else math.nan
    return math.nan


def _share(counts: dict[str, int], key: str) -> float:
    n = sum(counts.values())
    return counts[key] / n if n else math.nan


SUMMARY_COLUMNS = ["system", "left out", "segments", "hits", "hit rate", "AED", "AED misses",
                   "ratio of wins (unseen)", "place (unseen)", "ratio of wins (own)",
                   "place (own)", "compared", "share worse", "share equal",
                   "share better"]
SUMMARY_TIPS = {
    "left out": "yes: its candidate segments are in the database and were left out (§3.2); "
                "no: matched by the ranked segments occurring in its translation (§3.3.2)",
    "segments": "ranked source segments the system has a candidate for",
    "hits": "segments whose candidate is already ranked (exact hit)",
    "hit rate": "hits / (hits + misses) (Macháček Table 3.3)",
    "AED": "average character edit distance to the closest ranked segment, hits 0 "
           "(Table 3.4; closest matching only)",
    "AED misses": "the same over the misses only",
    "ratio of wins (unseen)": "wins / (wins + losses) of the system on the scored segments, "
                              "taking the matched segment's rank (§3.2.1/§3.2.2)",
    "place (unseen)": "its place among all systems on those segments (1 = best)",
    "ratio of wins (own)": "its ratio of wins from its own annotations, whole database (§3.1)",
    "place (own)": "its place in the whole database (1 = best)",
    "compared": "annotations of the misses whose true rank is known (Table 3.5's base)",
    "share worse": "share of the compared annotations whose closest segment is ranked worse "
                   "than the unseen one (Table 3.5, there in %)",
    "share equal": "ranked equal (Table 3.5)",
    "share better": "ranked better (Table 3.5): why unseen systems are overestimated",
}


def summary_frame(a: UnseenAnalysis) -> pd.DataFrame:
    """One row per evaluated system (Tables 3.3-3.5 side by side; module doc)."""
    own = [(r.system, r.ratio) for r in a.own.rows] if a.own is not None else []
    own_ratio = dict(own)
    rows = []
    for r in a.results:
        ranking = r.scores.ranking()
        mine = r.scores.stats.get(r.system)
        oc = r.outcome_counts()
        rows.append({
            "system": r.system, "left out": "yes" if r.projected else "no",
            "segments": r.segments, "hits": r.hits, "hit rate": r.hit_rate,
            "AED": r.aed, "AED misses": r.aed_misses if r.method == "closest" else math.nan,
            "ratio of wins (unseen)": mine.ratio if mine is not None else math.nan,
            "place (unseen)": _place(ranking, r.system),
            "ratio of wins (own)": own_ratio.get(r.system, math.nan),
            "place (own)": _place(own, r.system),
            "compared": sum(oc.values()),
            **{f"share {o}": _share(oc, o) for o in OUTCOMES}})
    frame = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    for col in ("place (unseen)", "place (own)"):
        if len(frame) and frame[col].notna().all():
            frame[col] = frame[col].astype(int)
    return frame


def scores_frame(r: UnseenResult, own: RankScores | None = None) -> pd.DataFrame:
    """Every system's ratio of wins on ``r``'s scored segments, best first (one sub-table
    of Tables 3.3/3.4), with the ratio of wins on the whole database beside it."""
    own_ratio = {x.system: x.ratio for x in own.rows} if own is not None else {}
    rows = []
    for s, v in r.scores.ranking():
        w = r.scores.stats[s]
        rows.append({"system": s, "unseen": "◀ evaluated" if s == r.system else "",
                     "ratio of wins": v, "wins": w.wins, "losses": w.losses, "ties": w.ties,
                     "ratio of wins (own)": own_ratio.get(s, math.nan)})
    return pd.DataFrame(rows, columns=["system", "unseen", "ratio of wins", "wins", "losses",
                                       "ties", "ratio of wins (own)"])


def distance_frame(results: list[UnseenResult]) -> pd.DataFrame:
    """Worse / equal / better per edit distance over ``results`` (Figure 3.3 as a table)
    and a last row "All" (Table 3.5's All row)."""
    per: dict[int, dict[str, int]] = {}
    for r in results:
        for d, row in r.by_distance().items():
            acc = per.setdefault(d, dict.fromkeys(OUTCOMES, 0))
            for o in OUTCOMES:
                acc[o] += row[o]
    total = dict.fromkeys(OUTCOMES, 0)
    rows = []
    for d, c in sorted(per.items()):
        for o in OUTCOMES:
            total[o] += c[o]
        rows.append({"distance": str(d), **c, "n": sum(c.values()),
                     **{f"share {o}": _share(c, o) for o in OUTCOMES}})
    if rows:
        rows.append({"distance": "All", **total, "n": sum(total.values()),
                     **{f"share {o}": _share(total, o) for o in OUTCOMES}})
    return pd.DataFrame(rows, columns=["distance", *OUTCOMES, "n",
                                       *(f"share {o}" for o in OUTCOMES)])


def examples_frame(results: list[UnseenResult], limit: int = 10) -> pd.DataFrame:
    """The first ``limit`` examples of every result (Table 3.6: D distance, C W/E/B)."""
    rows = [{"system": e.system, "sentence": e.source_index + 1, "unseen segment": e.unseen,
             "closest segment": " / ".join(e.closest), "D": e.distance, "C": e.comparison}
            for r in results for e in r.examples(limit)]
    return pd.DataFrame(rows, columns=["system", "sentence", "unseen segment",
                                       "closest segment", "D", "C"])


def levels_frame(lv: LevelAgreement | None) -> pd.DataFrame:
    """Per system τ (a) on the sentence comparisons it won, (b) lost, (c) all (Table 3.2),
    with the concordant/discordant counts; by descending τ (c)."""
    cols = ["system", "tau (a) better", "tau (b) worse", "tau (c) all", "concordant",
            "discordant"]
    if lv is None:
        return pd.DataFrame([], columns=cols)
    rows = {r.system: r for r in lv.rows}
    return pd.DataFrame([{"system": s, "tau (a) better": rows[s].tau_better,
                          "tau (b) worse": rows[s].tau_worse, "tau (c) all": v,
                          "concordant": rows[s].all[0], "discordant": rows[s].all[1]}
                         for s, v in lv.table("all")], columns=cols)


# ------------------------------------------------------------------- the view
def _table(name: str, tips: dict[str, str] | None = None) -> tuple[QTableView, FrameModel]:
    view, model, _proxy = table_view(name, tips, dense=True)
    view.setSelectionMode(QTableView.SingleSelection)
    view.verticalHeader().hide()
    return view, model


class UnseenView(QWidget):
    """The Unseen systems tab (module doc); ``workspace`` is the application's workspace."""

    analysisReady = Signal(object)      # UnseenAnalysis
    failed = Signal(str)

    ALL = "__all__"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("unseenView")
        self.workspace = workspace
        self.analysis: UnseenAnalysis | None = None
        self.stale = True
        self._runner = LatestRunner(self)
        self._runner.idle.connect(lambda: self.compute_button.setEnabled(True))
        self._build()
        self._timer = QTimer(self, singleShot=True, interval=300)
        self._timer.timeout.connect(self._changed)
        from evaltrans_qt.ui.observe import observe
        ws = workspace
        observe(self, ws.database_changed, self._database_changed)
        observe(self, ws.database_modified, lambda _a: self._timer.start())
        observe(self, ws.committed, self._committed)
        self._fill_systems()

    # ---------------------------------------------------------------- layout
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("System:"))
        self.system_box = QComboBox(objectName="unseenSystem")
        self.system_box.setToolTip("A system left out of the database (its candidate segments "
                                   "are in it) or one without segments, matched by the ranked "
                                   "segments occurring in its translation (exact only)")
        self.system_box.activated.connect(lambda _i: self.compute())
        row.addWidget(self.system_box)
        row.addWidget(QLabel("Method:"))
        self.method_box = QComboBox(objectName="unseenMethod")
        self.method_box.addItem("exact (§3.2.1)", "exact")
        self.method_box.addItem("closest by edit distance (§3.2.2)", "closest")
        self.method_box.activated.connect(lambda _i: self.compute())
        row.addWidget(self.method_box)
        self.compute_button = QPushButton("Compute", objectName="unseenCompute")
        self.compute_button.clicked.connect(lambda: self.compute())
        row.addWidget(self.compute_button)
        self.status = QLabel("", objectName="unseenStatus", wordWrap=True)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        row.addWidget(self.status, 1)
        self.export_button = QPushButton("Export table…", objectName="unseenExport")
        self.export_button.setToolTip("One of the tables, as CSV, TSV, JSON or LaTeX")
        menu = QMenu(self.export_button)
        for which, label in MENU.items():
            menu.addAction(label, lambda w=which: self.ask_export_table(w))
        self.export_button.setMenu(menu)
        self.plot_button = QPushButton("Export plot…", objectName="unseenExportPlot")
        self.plot_button.clicked.connect(self.ask_export_plot)
        row.addWidget(self.export_button)
        row.addWidget(self.plot_button)
        lay.addLayout(row)

        self.tabs = QTabWidget(objectName="unseenTabs")
        # Systems: the summary over the selected row's sub-table
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Vertical)
        self.summary_view, self.summary_model = _table("unseenSummary", SUMMARY_TIPS)
        self.summary_view.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self._show_scores(self.summary_view.model().mapToSource(cur).row()))
        split.addWidget(self.summary_view)
        lower = QWidget()
        lv = QVBoxLayout(lower)
        lv.setContentsMargins(0, 0, 0, 0)
        self.scores_label = QLabel("", objectName="unseenScoresLabel")
        lv.addWidget(self.scores_label)
        self.scores_view, self.scores_model = _table("unseenScores")
        lv.addWidget(self.scores_view)
        split.addWidget(lower)
        split.setSizes([300, 260])
        v.addWidget(split)
        self.tabs.addTab(page, "Systems (Tables 3.3–3.5)")
        # Closest vs unseen by distance: chart beside its table
        page = QWidget()
        h = QHBoxLayout(page)
        h.setContentsMargins(0, 0, 0, 0)
        split = QSplitter(Qt.Horizontal)
        self.distance_view, self.distance_model = _table("unseenDistances")
        split.addWidget(self.distance_view)
        self.bars = plots.CorrelationBars(name="unseenBars")
        self.bars.hint = "closest vs unseen segment per edit distance (closest matching)"
        self.bars.clear_data()
        split.addWidget(self.bars)
        split.setSizes([420, 580])
        h.addWidget(split)
        self.tabs.addTab(page, "Closest vs unseen (Table 3.5, Figure 3.3)")
        self.examples_view, self.examples_model = _table("unseenExamples")
        self.tabs.addTab(self.examples_view, "Examples (Table 3.6)")
        page = QWidget()
        v = QVBoxLayout(page)
        v.setContentsMargins(0, 0, 0, 0)
        self.levels_status = QLabel("", objectName="unseenLevelsStatus", wordWrap=True)
        v.addWidget(self.levels_status)
        self.levels_view, self.levels_model = _table("unseenLevels")
        v.addWidget(self.levels_view, 1)
        self.tabs.addTab(page, "Segment vs sentence τ (Table 3.2)")
        lay.addWidget(self.tabs, 1)

        self.warning = QLabel("Warning: " + OVERESTIMATE_WARNING + " Use these numbers to "
                              "study the database's coverage, never to rank a new system.",
                              objectName="unseenWarning", wordWrap=True)
        self.warning.setStyleSheet("#unseenWarning { background: #fff3cd; color: #5c4400; "
                                   "border: 1px solid #e0c36b; padding: 3px; }")
        lay.addWidget(self.warning)

    # ------------------------------------------------------------ controls
    @property
    def system(self) -> str | None:
        """The chosen system, None for every annotated system (leave-one-system-out)."""
        d = self.system_box.currentData()
        return None if d in (None, self.ALL) else d

    @property
    def method(self) -> str:
        return self.method_box.currentData()

    def set_choice(self, system: str | None = None, method: str | None = None) -> None:
        """Choose the system (None: all, leave-one-system-out) and/or the method, without
        computing (call :meth:`compute`)."""
        if method is not None:
            i = self.method_box.findData(method)
            if i < 0:
                raise ValueError(f"method must be exact or closest, not {method!r}")
            self.method_box.setCurrentIndex(i)
        i = self.system_box.findData(self.ALL if system is None else system)
        if i < 0:
            raise ValueError(f"no system {system!r} in the database")
        self.system_box.setCurrentIndex(i)

    def _fill_systems(self) -> None:
        keep = self.system_box.currentData()
        self.system_box.clear()
        self.system_box.addItem("all, leave one system out (Table 3.3)", self.ALL)
        db = self.workspace.database
        for s in (db.systems() if db is not None else []):
            self.system_box.addItem(s or "(no id)", s)
        i = self.system_box.findData(keep)
        self.system_box.setCurrentIndex(max(i, 0))

    def _committed(self, change) -> None:
        """A ranking (or items, references) committed: the ranked segments may differ."""
        from evaltrans_qt.workspace import modifies_database
        if modifies_database(change):
            self._timer.start()

    def _database_changed(self) -> None:
        self._fill_systems()
        self._clear("")
        self.analysis = None
        self._changed()

    def _changed(self) -> None:
        """The database changed: recompute now if shown, else when shown next."""
        self.stale = True
        if self.isVisible() and self.workspace.database is not None:
            self.compute()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.stale and self.workspace.database is not None:
            self.compute()

    # --------------------------------------------------------------- compute
    def compute(self) -> bool:
        """Run :func:`unseen_job` for the chosen system and method in the background;
        :attr:`analysisReady` (or :attr:`failed`) follows. False without a database."""
        self._timer.stop()
        db = self.workspace.database
        if db is None:
            self._clear("Open a database with ranked short segments.")
            return False
        self.stale = False
        system, method = self.system, self.method
        who = "every annotated system left out in turn" if system is None else system
        self.status.setText(f"Computing {method} matching for {who}…")
        self.compute_button.setEnabled(False)
        self._runner.submit(unseen_job, db, system, method, on_result=self._show,
                            on_error=self._error)
        return True

    def _error(self, exc: BaseException) -> None:
        self.analysis = None
        self._clear(f"Cannot evaluate: {exc}")
        self.failed.emit(str(exc))

    def _clear(self, message: str) -> None:
        for m in (self.summary_model, self.scores_model, self.distance_model,
                  self.examples_model, self.levels_model):
            m.set_frame(pd.DataFrame())
        self._clear_bars()
        self.scores_label.setText("")
        self.levels_status.setText("")
        self.status.setText(message)

    def _clear_bars(self, hint: str | None = None) -> None:
        self.bars.clear_data(hint)
        self.bars.getAxis("bottom").showLabel(False)

    def _show(self, a: UnseenAnalysis) -> None:
        self.analysis = a
        if a.error:
            self._clear(a.error)
            self.analysisReady.emit(a)
            return
        self.summary_model.set_frame(summary_frame(a))
        self.summary_view.resizeColumnsToContents()
        self._show_scores(0)
        if self.summary_model.rowCount():
            self.summary_view.selectRow(0)
        dist = distance_frame(a.results)
        self.distance_model.set_frame(dist)
        self.distance_view.resizeColumnsToContents()
        by_d = dist[dist["distance"] != "All"]
        if len(by_d):
            self.bars.set_data(list(by_d["distance"]),
                               {o: list(by_d[f"share {o}"]) for o in OUTCOMES},
                               ylabel="share of the compared misses")
            self.bars.setLabel("bottom", "edit distance to the closest ranked segment")
        else:
            self._clear_bars("no misses with a known rank to compare"
                                 if a.method == "closest" else
                                 "choose closest matching to compare closest and unseen "
                                 "segments")
        self.examples_model.set_frame(examples_frame(a.results))
        self.examples_view.resizeColumnsToContents()
        self.levels_model.set_frame(levels_frame(a.levels))
        if a.levels is not None:
            lv = a.levels
            tau = "–" if math.isnan(lv.tau) else f"{lv.tau:.3f}"
            self.levels_status.setText(
                f"Kendall τ = {tau} over {lv.concordant} concordant and {lv.discordant} "
                f"discordant pairs on {lv.sentences} sentences judged at both levels; ties "
                "not considered (Macháček §3.1.2). Sorted by τ (c).")
        else:
            self.levels_status.setText(a.levels_error)
        n = len(a.results)
        hits = sum(r.hits for r in a.results)
        segs = sum(r.segments for r in a.results)
        how = "left out" if a.results and a.results[0].projected else "not in the segment database"
        who = f"{n} systems, each left out in turn" if a.system is None else f"{a.system} ({how})"
        self.status.setText(f"{a.method} matching, {who}: {hits} hits of {segs} ranked "
                            "segments. Select a row for its Table 3.3 sub-table.")
        self.analysisReady.emit(a)

    def _show_scores(self, row: int) -> None:
        a = self.analysis
        if a is None or not a.results or row < 0 or row >= self.summary_model.rowCount():
            self.scores_model.set_frame(pd.DataFrame())
            self.scores_label.setText("")
            return
        system = self.summary_model.record(row)["system"]
        r = next(x for x in a.results if x.system == system)
        self.scores_model.set_frame(scores_frame(r, a.own))
        self.scores_view.resizeColumnsToContents()
        extra = f", AED {r.aed:.2f}" if r.method == "closest" and not math.isnan(r.aed) else ""
        self.scores_label.setText(f"Ratio of wins on the segments scored with {system} as the "
                                  f"unseen system (hit rate {r.hit_rate:.2f}{extra}; "
                                  "right: the whole database):")

    # ------------------------------------------------------------ export
    def frame(self, which: str) -> pd.DataFrame:
        """The table ``which`` (a key of :data:`TABLES`) as shown."""
        if which not in TABLES:
            raise ValueError(f"table must be one of {', '.join(TABLES)}, not {which!r}")
        return {"summary": self.summary_model, "scores": self.scores_model,
                "distances": self.distance_model, "examples": self.examples_model,
                "levels": self.levels_model}[which].frame

    def current_table(self) -> str:
        """The main table of the page shown."""
        return ("summary", "distances", "examples", "levels")[max(self.tabs.currentIndex(), 0)]

    def export_table(self, path: str | Path, which: str | None = None) -> Path:
        """Write a table as CSV/TSV/JSON/LaTeX (by suffix; ``io/export.py`` ``write_table``);
        ``which`` defaults to the table of the page shown."""
        from evaltrans_qt.errors import SaveError
        from evaltrans_qt.io.export import write_table
        which = which or self.current_table()
        frame = self.frame(which)
        if frame.empty:
            raise SaveError("there is no unseen-systems table to export yet: compute it first",
                            Path(path))
        a = self.analysis
        cap = TABLES[which] + (f", {a.method} matching" if a is not None else "")
        return write_table(frame, path, caption=cap)

    def export_plot(self, path: str | Path) -> Path:
        return plots.export_plot(self.bars, path)

    def ask_export_table(self, which: str | None = None) -> None:
        which = which or self.current_table()
        ask_export(self, f"unseen-{which}", lambda p: self.export_table(p, which),
                   self.workspace.path, title="Export unseen-systems table")

    def ask_export_plot(self) -> None:
        ask_export_plot(self, "unseenBars", self.export_plot, self.workspace.path)


def add_unseen_tab(results) -> UnseenView:
    """Add the "Unseen systems" tab to a ResultsView after its Ranking tab (the one hook
    in ``results_view.py``)."""
    view = UnseenView(results.workspace)
    ranking = getattr(results, "ranking_view", None)
    at = results.tabs.indexOf(ranking) + 1 if ranking is not None else results.tabs.count()
    results.tabs.insertTab(at, view, "Unseen systems")
    return view
