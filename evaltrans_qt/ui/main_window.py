"""The main window: source list -> targets -> compare view, scoring sessions, files.

The application's state lives in one Qt-free :class:`~evaltrans_qt.workspace.Workspace`
(``window.workspace``): database, path, journal, dirty state, autosave policy, options,
measures, last run. The window and every panel observe it; ``database``,
``database_path``, ``journal``, ``options`` and the dirty counters here are views of it,
never copies. Contract used by other parts of the UI (results/analysis):

* ``database`` (current :class:`Database` or None), ``database_path``;
* signals ``databaseChanged()`` and ``scoreChanged(object)`` (a
  :class:`~evaltrans_qt.io.journal.ScoreChange`, on every score change), relayed from
  the workspace's ``database_changed`` / ``committed``;
* menus ``evaluate_menu`` ("Evaluate") and ``view_menu``;
* ``add_panel(title, widget, area) -> QDockWidget`` and
  ``open_in_compare(source_index, target_index)``.

Stable object names: ``sourceList``, ``targetTable``, ``compareView``,
``measureSelector``, ``scorePanel``, ``similarPanel``, ``sessionProgress``.

Never losing a score: score changes of a session are journalled (fsync) before
they are applied (:mod:`evaltrans_qt.io.journal`); the database is autosaved
atomically a few seconds after a change (on a worker thread) and the journal
is then cleared up to what the save included. Opening a database replays a
left-over journal and tells the user what was recovered.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QTableView,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.io.journal import Journal, ReplayReport
from evaltrans_qt.io.store import (
    DatabaseChangedError,
    DatabaseLockedError,
    FileIdentity,
    save_with_identity,
)
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.compare_view import MEASURES, CompareView
from evaltrans_qt.ui.models import KEY_ROLE, SCORED_STATES, SourceTable, TargetTable
from evaltrans_qt.ui.results_models import attach_frame_model
from evaltrans_qt.ui.scoring import (
    ScorePanel,
    ScoringSession,
    SessionDialog,
    SimilarPanel,
    identical_scores,
    similar_translations,
)
from evaltrans_qt.ui.workers import Worker, handle_errors, start_worker
from evaltrans_qt.workspace import AUTOSAVE_MS, SaveJob, Workspace, load_with_journal

ORGANISATION = "evaltrans_qt"
APPLICATION = "evaltrans-qt"
MAX_RECENT = 10
#: Shown above the score classes dialog when a session is started without classes.
NO_CLASSES_INTRO = ("This database declares no score classes yet. Add the classes to judge -- e.g. "
                    "fluency5 and adequacy5, or sser -- then close this dialog to start the session.")


def make_settings() -> QSettings:
    """The application's settings (INI; tests redirect the path with ``QSettings.setPath``)."""
    return QSettings(QSettings.IniFormat, QSettings.UserScope, ORGANISATION, APPLICATION)


def data_dir() -> Path:
    """Where the working copy of the demo database lives (``EVALTRANS_QT_DATA_DIR`` overrides)."""
    env = os.environ.get("EVALTRANS_QT_DATA_DIR")
    if env:
        return Path(env)
    loc = QStandardPaths.writableLocation(QStandardPaths.AppDataLocation)
    return Path(loc) if loc else Path.home() / ".evaltrans_qt"


def demo_working_copy() -> Path:
    """Copy the bundled demo database to the data directory (once) and return the copy."""
    from evaltrans_qt.io.etdb import demo_database_path
    d = data_dir()
    d.mkdir(parents=True, exist_ok=True)
    dst = d / "demo.etdb.xml"
    if not dst.exists():
        shutil.copyfile(demo_database_path(), dst)
    return dst


def save_job(db: Database, path: str | Path, *, before_write=None) -> FileIdentity:
    """Save on a worker thread through the one validated write path
    (:func:`evaltrans_qt.io.store.save_with_identity`: serialise, check that the bytes load
    back, ``before_write`` -- the workspace's disk and lock check -- then the atomic
    replace), as the command line does; returns the identity of the bytes written.

    The UI thread may change the database meanwhile (scores; merges wait for the save,
    see ``wait_for_save``); the check guarantees that whatever was serialised is a
    loadable database before it replaces the file on disk.
    """
    return save_with_identity(db, path, before_write=before_write)


class MainWindow(QMainWindow):
    """The application window (see module doc for the contract)."""

    databaseChanged = Signal()
    scoreChanged = Signal(object)
    #: Emitted after a save finished successfully (path).
    saved = Signal(object)

    # ---------------------------------------------------------- views of the workspace
    @property
    def database(self) -> Database | None:
        return self.workspace.database

    @property
    def database_path(self) -> Path | None:
        return self.workspace.path

    @property
    def journal(self) -> Journal | None:
        return self.workspace.journal

    @property
    def options(self) -> EvalOptions:
        return self.workspace.options

    @property
    def autosave_ms(self) -> int:
        return self.workspace.autosave_ms

    @autosave_ms.setter
    def autosave_ms(self, ms: int) -> None:
        self.workspace.set_autosave(ms=ms)

    @property
    def autosave_enabled(self) -> bool:
        return self.workspace.autosave

    @autosave_enabled.setter
    def autosave_enabled(self, on: bool) -> None:
        self.workspace.set_autosave(on)

    def __init__(self, settings: QSettings | None = None, autosave_ms: int = AUTOSAVE_MS) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or make_settings()
        self.workspace = Workspace(autosave_ms=autosave_ms)
        self.session: ScoringSession | None = None
        self.undo_stack = QUndoStack(self)
        self._saving: Worker | None = None
        self._save_again = False
        self._loading: Worker | None = None
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.timeout.connect(self.autosave)
        self._autosave_paused = 0
        self._current: tuple[int, int] | None = None
        self.panels: dict[str, QDockWidget] = {}

        self._build_views()
        self._build_actions()
        self._build_menus()
        self._observe_workspace()
        from evaltrans_qt.ui.disk_change_dialog import DiskChange
        self.disk_change = DiskChange(self)   # changed on disk / read-only: asks, shows
        self._update_title()
        from evaltrans_qt.ui import analysis
        analysis.install(self)
        from evaltrans_qt.ui import protocol_modes  # references, post-edits, items
        protocol_modes.install(self)
        self._restore_settings()

    # ================================================================ building
    def _build_views(self) -> None:
        self.compare_view = CompareView(self.workspace)
        self.setCentralWidget(self.compare_view)

        # sources
        self.source_list = QTableView()
        self.source_list.setObjectName("sourceList")
        self.source_model, self.source_proxy = attach_frame_model(self.source_list)
        self.sources = SourceTable(self.source_model, self.source_proxy, self)   # fills the model
        self._setup_table(self.source_list)
        sh = self.source_list.horizontalHeader()
        sh.moveSection(SourceTable.COL_TEXT, len(SourceTable.COLUMNS) - 1)
        sh.setStretchLastSection(True)
        for c in (SourceTable.COL_INDEX, SourceTable.COL_REFS, SourceTable.COL_CANDS,
                  SourceTable.COL_SCORED):
            sh.resizeSection(c, 44 if c != SourceTable.COL_SCORED else 56)
        self.source_filter = QLineEdit()
        self.source_filter.setObjectName("sourceFilter")
        self.source_filter.setPlaceholderText("Filter sources (Ctrl+F)")
        self.source_filter.setClearButtonEnabled(True)
        self.system_filter = QComboBox()
        self.system_filter.setObjectName("systemFilter")
        self.state_filter = QComboBox()
        self.state_filter.setObjectName("stateFilter")
        for s in SCORED_STATES:
            self.state_filter.addItem(s, s)
        self.source_counts = QLabel()
        self.source_counts.setObjectName("sourceCounts")
        w = QWidget()
        v = QVBoxLayout(w)
        v.setContentsMargins(2, 2, 2, 2)
        v.addWidget(self.source_filter)
        h = QHBoxLayout()
        h.addWidget(self.system_filter, 1)
        h.addWidget(self.state_filter, 1)
        v.addLayout(h)
        v.addWidget(self.source_list, 1)
        v.addWidget(self.source_counts)
        self.add_panel("Sources", w, Qt.LeftDockWidgetArea)

        # targets
        self.target_table = QTableView()
        self.target_table.setObjectName("targetTable")
        self.target_model, self.target_proxy = attach_frame_model(self.target_table)
        self.targets = TargetTable(self.target_model, self.target_proxy, self)   # fills the model
        self._setup_table(self.target_table)
        self.target_filter = QLineEdit()
        self.target_filter.setObjectName("targetFilter")
        self.target_filter.setPlaceholderText("Filter translations")
        self.target_filter.setClearButtonEnabled(True)
        self.all_targets = QCheckBox("All sources")
        self.all_targets.setObjectName("allTargets")
        self.all_targets.setToolTip("List the targets of every source (Ctrl+Alt+L)")
        w = QWidget()
        v = QVBoxLayout(w)
        v.setContentsMargins(2, 2, 2, 2)
        h = QHBoxLayout()
        h.addWidget(self.target_filter, 1)
        h.addWidget(self.all_targets)
        v.addLayout(h)
        v.addWidget(self.target_table, 1)
        self.add_panel("Translations", w, Qt.BottomDockWidgetArea)
        # the right-hand panels (scoring) reach down to the status bar: their controls get
        # the window's height, the translations the width beside them
        self.setCorner(Qt.BottomRightCorner, Qt.RightDockWidgetArea)

        # scoring
        self.score_panel = ScorePanel()
        self.add_panel("Scoring", self.score_panel, Qt.RightDockWidgetArea)
        self.similar_panel = SimilarPanel()
        self.add_panel("Similar scored translations", self.similar_panel, Qt.RightDockWidgetArea)
        self.session_progress = self.score_panel.progress
        self.score_panel.message.connect(lambda text: self.statusBar().showMessage(text, 4000))

        self.db_label = QLabel()
        self.db_label.setObjectName("databaseInfo")
        self.statusBar().addPermanentWidget(self.db_label)

        # wiring
        self.source_filter.textChanged.connect(self.sources.set_text)
        self.system_filter.currentIndexChanged.connect(
            lambda _i: self.sources.set_system(self.system_filter.currentData()))
        self.state_filter.currentIndexChanged.connect(
            lambda _i: self.sources.set_state(self.state_filter.currentData()))
        self.sources.countsChanged.connect(self._show_counts)
        self.source_list.selectionModel().currentRowChanged.connect(self._source_selected)
        self.target_table.selectionModel().currentRowChanged.connect(self._target_selected)
        self.target_filter.textChanged.connect(self.targets.set_text)
        self.all_targets.toggled.connect(self._toggle_all_targets)

    def _observe_workspace(self) -> None:
        ws = self.workspace
        ws.database_changed.connect(self._show_database)
        ws.dirty_changed.connect(self._dirty_changed)
        ws.path_changed.connect(lambda _p: self._update_title())
        ws.committed.connect(self._committed)
        ws.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        ws.database_modified.connect(self._refresh_class_columns)

    def _committed(self, change) -> None:
        """A judgement committed (Workspace.commit): relayed as ``scoreChanged``; a ranking,
        items or reference change may add score classes (the first ranking adds ``rank``)."""
        from evaltrans_qt.workspace import modifies_database
        if modifies_database(change):
            self._refresh_class_columns()
        self.scoreChanged.emit(change)

    def _refresh_class_columns(self, _affects_results: bool = False) -> None:
        """A change outside the session (e.g. the first ranking adds the ``rank`` class)
        may add or remove score classes: rebuild the translations table's class columns,
        keeping the shown source (or the all-targets view)."""
        db = self.database
        model = self.targets
        if db is None or list(db.human_classes) == model.classes:
            return
        shown, show_all = model.source_index, self.all_targets.isChecked()
        model.set_database(db)
        if show_all:
            model.show_all()
        elif shown is not None and shown < len(db.sources):
            model.set_source(shown)
        self._arrange_target_columns()

    @staticmethod
    def _setup_table(view: QTableView) -> None:
        """The browser's look for a table of ``attach_frame_model`` (rows selected, sortable,
        numbers drawn by the delegate): one row at a time, compact, no row numbers."""
        view.setSelectionMode(QAbstractItemView.SingleSelection)
        view.setWordWrap(False)
        view.setAlternatingRowColors(True)
        vh = view.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.Fixed)
        vh.setDefaultSectionSize(view.fontMetrics().height() + 6)
        hh = view.horizontalHeader()
        hh.setStretchLastSection(False)
        hh.setSectionResizeMode(QHeaderView.Interactive)
        hh.setHighlightSections(False)
        view.setHorizontalScrollMode(QAbstractItemView.ScrollPerPixel)

    def _arrange_target_columns(self) -> None:
        """Human-score columns right after the system, the translation last and stretching
        (it takes the width that is left instead of being cut to a few letters)."""
        th = self.target_table.horizontalHeader()
        n = self.target_model.columnCount()
        text_col = TargetTable.COL_TEXT
        if th.visualIndex(text_col) != n - 1:
            th.moveSection(th.visualIndex(text_col), n - 1)
        th.setStretchLastSection(True)
        for c, width in ((0, 44), (1, 48), (2, 110)):
            th.resizeSection(c, width)
        for c in range(len(TargetTable.FIXED), n):
            th.resizeSection(c, 72)

    def add_panel(self, title: str, widget: QWidget, area=Qt.RightDockWidgetArea) -> QDockWidget:
        """Add a dockable panel; its show/hide action goes into the View menu."""
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.replace(' ', '_')}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.panels[title] = dock
        view_menu = getattr(self, "view_menu", None)
        if view_menu is not None:
            self._add_panel_action(dock)
        return dock

    def _add_panel_action(self, dock: QDockWidget) -> None:
        act = dock.toggleViewAction()
        n = len([a for a in self.view_menu.actions() if a.property("panelToggle")])
        act.setProperty("panelToggle", True)
        if n < 9:
            act.setShortcut(QKeySequence(f"Alt+{n + 1}"))
        else:
            act.setShortcut(QKeySequence(f"Ctrl+Alt+{n - 8}"))
        self.view_menu.insertAction(self._view_sep, act)
        self.addAction(act)

    def _act(self, text: str, shortcut, slot, tip: str = "", checkable: bool = False,
             name: str = "") -> QAction:
        a = QAction(text, self)
        if shortcut:
            a.setShortcut(QKeySequence(shortcut) if not isinstance(shortcut, QKeySequence) else shortcut)
        if tip:
            a.setStatusTip(tip)
        a.setCheckable(checkable)
        a.setObjectName(name or "action_" + "".join(ch for ch in text.lower() if ch.isalnum()))
        if slot is not None:
            a.triggered.connect(slot)
        self.addAction(a)
        return a

    def _build_actions(self) -> None:
        a = self._act
        self.act_open = a("&Open…", QKeySequence.Open, self.open_dialog, "Open an EvalTrans database")
        self.act_demo = a("Open &demo database", "Ctrl+Shift+D", self.open_demo)
        self.act_save = a("&Save", QKeySequence.Save, lambda: self.save(), "Save the database")
        self.act_save_as = a("Save &as…", "Ctrl+Shift+S", lambda: self.save_as())
        self.act_import_text = a("Plain text files…", "Ctrl+Alt+T", lambda: self.import_dialog("text"))
        self.act_import_aachen = a("Aachen text format…", "Ctrl+Alt+A", lambda: self.import_dialog("aachen"))
        self.act_import_sgml = a("NIST SGML/XML…", "Ctrl+Alt+G", lambda: self.import_dialog("sgml"))
        self.act_import_wmt = a("WMT folder…", "Ctrl+Alt+W", lambda: self.import_dialog("wmt"))
        self.act_merge = a("&Merge database…", "Ctrl+Shift+M", self.merge_dialog)
        self.act_autosave = a("Auto&save", "Ctrl+Alt+S", self._toggle_autosave, checkable=True)
        self.act_autosave.setChecked(True)
        self.act_quit = a("&Quit", "Ctrl+Q", self.close)
        self.act_quit.setShortcutContext(Qt.ApplicationShortcut)

        self.act_undo = self.undo_stack.createUndoAction(self, "&Undo")
        self.act_undo.setShortcut(QKeySequence("Ctrl+Z"))
        self.act_undo.setObjectName("action_undo")
        self.act_redo = self.undo_stack.createRedoAction(self, "&Redo")
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.act_redo.setObjectName("action_redo")
        self.addAction(self.act_undo)
        self.addAction(self.act_redo)
        self.act_classes = a("Score &classes…", "Ctrl+Shift+K", lambda: self.classes_dialog(),
                             "Define, edit and remove the score classes of the database")
        self.act_find = a("&Find source", QKeySequence.Find, self._focus_filter)
        self.act_next_source = a("Next source", "Ctrl+Down", lambda: self._step_source(1))
        self.act_prev_source = a("Previous source", "Ctrl+Up", lambda: self._step_source(-1))
        self.act_all_targets = a("Show translations of all sources", "Ctrl+Alt+L",
                                 lambda: self.all_targets.toggle())

        # the first nine measures of the compare view get View menu entries with Ctrl+1 ... Ctrl+9;
        # every other measure that can align is in the view's selector (from the registry)
        self.measure_actions = QActionGroup(self)
        for k, (name, label) in enumerate(MEASURES[:9]):
            act = a(f"Show {label}", f"Ctrl+{k + 1}", None, checkable=True,
                    name=f"action_measure_{name}")
            act.triggered.connect(lambda _c=False, n=name: self.compare_view.set_measure(n))
            self.measure_actions.addAction(act)
        self.measure_actions.actions()[0].setChecked(True)

        def _measure_shown(i: int) -> None:
            acts = self.measure_actions.actions()
            if 0 <= i < len(acts):
                acts[i].setChecked(True)
            elif self.measure_actions.checkedAction() is not None:
                self.measure_actions.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
                self.measure_actions.checkedAction().setChecked(False)
        self.compare_view.measure_selector.currentIndexChanged.connect(_measure_shown)

        # session
        self.act_start_session = a("&Start scoring session…", "Ctrl+J", self.start_session_dialog)
        self.act_end_session = a("&End scoring session", "Ctrl+Shift+J", self.end_session)
        self.act_next = a("Next candidate", "N", lambda: self.session and self.session.next())
        self.act_next.setShortcuts([QKeySequence("N"), QKeySequence("Alt+Right")])
        self.act_prev = a("Previous candidate", "P", lambda: self.session and self.session.previous())
        self.act_prev.setShortcuts([QKeySequence("P"), QKeySequence("Alt+Left")])
        self.act_next_unscored = a("Next unscored candidate", "U",
                                   lambda: self.session and self._next_unscored())
        self.act_identical = a("Take identical translation's scores", "I", self.take_identical)
        self.act_next_class = a("Next score class", "Tab", lambda: self.session and self.session.next_class())
        self.act_prev_class = a("Previous score class", "Shift+Tab",
                                lambda: self.session and self.session.previous_class())
        self.act_prev_class.setShortcuts([QKeySequence("Shift+Tab"), QKeySequence("Backtab"), QKeySequence("Shift+Backtab")])
        self.act_clear_score = a("Clear score of current class", "Delete",
                                 lambda: self.session and self.session.clear())
        self.score_actions = []
        for d in range(10):
            act = a(f"Score {d}", str(d), None, name=f"action_score_{d}")
            act.triggered.connect(lambda _c=False, v=d: self.score_current(v))
            self.score_actions.append(act)
        self.session_actions = [self.act_end_session, self.act_next, self.act_prev, self.act_next_unscored,
                                self.act_identical, self.act_next_class, self.act_prev_class,
                                self.act_clear_score, *self.score_actions]
        for act in self.session_actions:
            act.setEnabled(False)

        self.act_shortcuts = a("&Keyboard shortcuts", "F1", self.show_shortcuts)
        self.act_about = a("&About evaltrans-qt", "Ctrl+Shift+F1", self.about)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        m = mb.addMenu("&File")
        m.setObjectName("fileMenu")
        m.addActions([self.act_open, self.act_demo])
        self.recent_menu = m.addMenu("Open &recent")
        self.recent_menu.setObjectName("recentMenu")
        m.addSeparator()
        m.addActions([self.act_save, self.act_save_as])
        m.addSeparator()
        imp = m.addMenu("&Import")
        imp.setObjectName("importMenu")
        imp.addActions([self.act_import_text, self.act_import_aachen, self.act_import_sgml, self.act_import_wmt])
        m.addAction(self.act_merge)
        m.addSeparator()
        m.addAction(self.act_autosave)
        m.addSeparator()
        m.addAction(self.act_quit)
        self.file_menu = m

        m = mb.addMenu("&Edit")
        m.setObjectName("editMenu")
        m.addActions([self.act_undo, self.act_redo])
        m.addSeparator()
        m.addAction(self.act_classes)
        m.addSeparator()
        m.addActions([self.act_find, self.act_next_source, self.act_prev_source])
        self.edit_menu = m

        m = mb.addMenu("&View")
        m.setObjectName("viewMenu")
        self.view_menu = m
        self._view_sep = m.addSeparator()
        m.addAction(self.act_all_targets)
        m.addSeparator()
        m.addActions(self.measure_actions.actions())
        for dock in self.panels.values():
            self._add_panel_action(dock)

        m = mb.addMenu("&Session")
        m.setObjectName("sessionMenu")
        m.addActions([self.act_start_session, self.act_end_session])
        m.addSeparator()
        m.addActions([self.act_next, self.act_prev, self.act_next_unscored, self.act_identical])
        m.addSeparator()
        m.addActions([self.act_next_class, self.act_prev_class, self.act_clear_score])
        scores = m.addMenu("Score")
        scores.addActions(self.score_actions)
        from evaltrans_qt.ui.ranking_actions import install_actions  # ranking screens
        install_actions(self, m)
        self.session_menu = m

        self.evaluate_menu = mb.addMenu("E&valuate")
        self.evaluate_menu.setObjectName("evaluateMenu")

        m = mb.addMenu("&Help")
        m.setObjectName("helpMenu")
        m.addActions([self.act_shortcuts, self.act_about])
        self.help_menu = m

        tb = QToolBar("Main toolbar", self)
        tb.setObjectName("mainToolbar")
        tb.addActions([self.act_open, self.act_save, self.act_undo, self.act_redo, self.act_start_session])
        self.addToolBar(tb)
        self.toolbar = tb
        self._update_recent_menu()

    # ================================================================ settings
    def available_geometry(self):
        """The screen's available area (without task bars) the window lives on."""
        screen = self.screen() or QApplication.primaryScreen()
        return screen.availableGeometry()

    def _frame_margins(self) -> tuple[int, int]:
        """Width and height the window frame adds to the client area (0 before it is shown)."""
        return (max(self.frameGeometry().width() - self.geometry().width(), 0),
                max(self.frameGeometry().height() - self.geometry().height(), 0))

    def fits_screen(self) -> bool:
        """Whether the whole window (frame included) lies inside the available screen area."""
        avail = self.available_geometry()
        frame = self.frameGeometry()
        return avail.contains(frame) or (frame.width() <= avail.width()
                                         and frame.height() <= avail.height()
                                         and not self.isVisible())

    def default_layout(self) -> None:
        """A layout that fits the available screen (never larger; 1366x768 and up): the
        compare view in the middle, sources left, translations below; the results share
        the bottom area with the translations (a tab) so tables and plots get its whole
        height; panels with nothing to show yet (scoring, similar translations, results,
        live correlation) stay closed until they have something."""
        avail = self.available_geometry()
        fw, fh = self._frame_margins()
        w = min(1600, avail.width() - fw)
        h = min(1000, avail.height() - fh)
        p = self.panels
        # closed first: a hidden panel's minimum size cannot push the window off the screen
        for title in ("Scoring", "Similar scored translations", "Results", "Live correlation"):
            if title in p:
                p[title].hide()
        if "Results" in p:
            self.tabifyDockWidget(p["Translations"], p["Results"])
        if "Live correlation" in p:
            self.tabifyDockWidget(p["Similar scored translations"], p["Live correlation"])
        self.resize(w, h)
        self.move(avail.x() + max(0, (avail.width() - w - fw) // 2),
                  avail.y() + max(0, (avail.height() - h - fh) // 2))
        for title in ("Sources", "Translations"):
            p[title].show()
        p["Translations"].raise_()
        self.resizeDocks([p["Sources"]], [int(w * 0.26)], Qt.Horizontal)
        self.resizeDocks([p["Translations"]], [int(h * 0.30)], Qt.Vertical)

    def show_panel(self, title: str) -> None:
        """Show a panel (and bring its tab to the front), keeping the window on the screen."""
        dock = self.panels[title]
        dock.show()
        dock.raise_()
        self.fit_to_screen()

    def fit_to_screen(self) -> None:
        """Never larger than the available screen (a panel's minimum size can grow the window)."""
        avail = self.available_geometry()
        fw, fh = self._frame_margins()
        w = min(self.width(), avail.width() - fw)
        h = min(self.height(), avail.height() - fh)
        if (w, h) != (self.width(), self.height()):
            self.resize(w, h)
        frame = self.frameGeometry()
        if not avail.contains(frame):     # moved back onto the screen
            self.move(max(avail.x(), min(frame.x(), avail.right() - frame.width() + 1)),
                      max(avail.y(), min(frame.y(), avail.bottom() - frame.height() + 1)))

    _shown_once = False

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        if not self._shown_once:          # the frame's size is known only now
            self._shown_once = True
            self.fit_to_screen()

    def _layout_for_content(self) -> None:
        """Panels follow what there is to show (a new database has no results yet)."""
        if self.session is None:
            for title in ("Scoring", "Similar scored translations", "Live correlation"):
                if title in self.panels:
                    self.panels[title].hide()

    def _restore_settings(self) -> None:
        s = self.settings
        geo = s.value("window/geometry")
        st = s.value("window/state")
        if geo is not None and self.restoreGeometry(geo) and self.fits_screen():
            if st is not None:
                self.restoreState(st)
            if not self.fits_screen():         # a saved layout made for a larger screen
                self.default_layout()
        else:
            self.default_layout()
        measure = s.value("compare/measure")
        if measure:
            self.compare_view.set_measure(str(measure))
        auto = s.value("autosave", True)
        self.act_autosave.setChecked(auto not in (False, "false", 0, "0"))
        self.autosave_enabled = self.act_autosave.isChecked()

    #: False for runs that must leave the user's settings alone (``--screenshot``).
    persist_settings = True

    def _store_settings(self) -> None:
        if not self.persist_settings:
            return
        s = self.settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("compare/measure", self.compare_view.measure)
        s.setValue("autosave", self.autosave_enabled)
        s.sync()

    def recent_files(self) -> list[str]:
        v = self.settings.value("recentFiles", [])
        if isinstance(v, str):
            v = [v]
        return [str(x) for x in (v or [])]

    def _add_recent(self, path: Path) -> None:
        if not self.persist_settings:
            return
        files = [str(path)] + [f for f in self.recent_files() if f != str(path)]
        self.settings.setValue("recentFiles", files[:MAX_RECENT])
        self._update_recent_menu()

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for k, f in enumerate(self.recent_files()):
            act = self.recent_menu.addAction(f"&{k + 1} {f}")
            act.setShortcut(QKeySequence(f"Ctrl+Shift+{k + 1}") if k < 9 else QKeySequence())
            act.triggered.connect(lambda _c=False, p=f: self._confirm_discard() and self.open_database(p))
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def _toggle_autosave(self, on: bool) -> None:
        self.autosave_enabled = on
        if on and self.is_dirty:
            self._schedule_autosave()

    # ================================================================ database
    @property
    def is_dirty(self) -> bool:
        return self.workspace.is_dirty

    def _dirty_changed(self, dirty: bool) -> None:
        self._update_title()
        if dirty:
            self._schedule_autosave()

    _autosave_failed = False

    def _save_failed(self, exc: BaseException) -> None:
        """A failed save: tell once, keep a visible 'not saved' state, stop autosaving until
        a save succeeds (a full disk must not raise a dialog every few seconds). The file
        changed on disk just before the write: the workspace notices and the user is asked
        (:mod:`~evaltrans_qt.ui.disk_change_dialog`), no error."""
        if isinstance(exc, DatabaseChangedError):
            self._autosave_timer.stop()
            if self.workspace.check_disk():        # changed back meanwhile: try again later
                self._schedule_autosave()
            else:
                self.disk_change.ask_later()
            return
        exc = self._read_only_error(exc)
        first = not self._autosave_failed
        self._autosave_failed = True
        self._autosave_timer.stop()
        self.statusBar().showMessage(f"NOT SAVED: {exc} — autosave paused; save with Ctrl+S "
                                     "or Save as once the problem is fixed")
        if first:
            errors.show_error(exc, self)

    def _read_only_error(self, exc: BaseException) -> BaseException:
        """A refusal because another process holds the file, worded for this window."""
        if isinstance(exc, DatabaseLockedError) and exc.holder is not None:
            return SaveError(f"read-only here: {exc.holder.describe()}. Close it there, or "
                             "save under another name (Save as)", exc.path)
        return exc

    def _schedule_autosave(self) -> None:
        if self._autosave_failed:
            return
        if self.workspace.read_only:
            self.workspace.retry_lock()            # its holder may have closed it
        if self.workspace.autosave_due and not self._autosave_timer.isActive() \
                and not self._autosave_paused:
            self._autosave_timer.start(self.autosave_ms)

    def _update_title(self) -> None:
        name = self.database_path.name if self.database_path else ("untitled" if self.database else "")
        star = " *" if self.is_dirty else ""
        holder = self.workspace.locked_by
        if name and self.workspace.read_only and holder is not None:
            name += f"{star} (read-only: {holder.describe()})"
            star = ""
        self.setWindowTitle(f"{name}{star} — evaltrans-qt" if name else "evaltrans-qt")

    def _update_counts(self) -> None:
        if self.database is not None:
            c = self.database.counts()
            self.db_label.setText(f"{c['sources']} sources · {c['candidates']} candidates · "
                                  f"{c['references']} references · {len(c['systems'])} systems")
        else:
            self.db_label.setText("")

    def open_dialog(self) -> None:
        if not self._confirm_discard():
            return
        start = str(self.database_path.parent) if self.database_path else ""
        path, _f = QFileDialog.getOpenFileName(self, "Open database", start,
                                               "EvalTrans databases (*.etdb.xml *.xml);;All files (*)")
        if path:
            self.open_database(path)

    def open_demo(self) -> Worker | None:
        if not self._confirm_discard():
            return None
        try:
            path = demo_working_copy()
        except OSError as exc:
            errors.show_error(exc, self)
            return None
        return self.open_database(path)

    def open_database(self, path: str | Path) -> Worker:
        """Load ``path`` on a worker (replaying a left-over journal); ``databaseChanged`` when done."""
        path = Path(path)
        self.statusBar().showMessage(f"Opening {path} …")
        QApplication.setOverrideCursor(Qt.WaitCursor)
        w = start_worker(load_with_journal, path, _start=False)

        def done(res) -> None:
            db, report = res
            self.set_database(db, path, report)

        def failed(exc) -> None:
            self.statusBar().showMessage(f"Could not open {path}", 10000)
            errors.show_error(exc, self)

        w.signals.finished.connect(done)
        handle_errors(w, failed)
        w.signals.done.connect(QApplication.restoreOverrideCursor)
        self._loading = w
        from evaltrans_qt.ui.workers import launch
        launch(w)
        return w

    def set_database(self, db: Database | None, path: str | Path | None = None,
                     recovered: ReplayReport | None = None, *, reloaded: bool = False) -> None:
        """Show ``db`` (already loaded); ``recovered`` is the journal replay, if any
        (``reloaded``: the file read again after it changed on disk, the unsaved judgements
        of this window replayed -- said by the caller, not as a recovery)."""
        self.end_session()
        self.undo_stack.clear()
        self._current = None
        self._autosave_timer.stop()
        self._autosave_failed = False
        self.workspace.set_database(db, path, recovered)   # every observer resets (_show_database)
        if self.database_path is not None:
            self._add_recent(self.database_path)
        if recovered is not None and recovered.applied:
            self._schedule_autosave()
        self.statusBar().showMessage(f"Opened {self.database_path or 'database'}", 5000)
        if not reloaded and recovered is not None and \
                (recovered.applied or recovered.missing or recovered.rejected):
            self._tell_recovered(recovered)

    def _show_database(self) -> None:
        """The workspace opened another database: every panel of the window starts afresh."""
        db = self.database
        self._current = None
        for f in (self.source_filter, self.target_filter):
            f.blockSignals(True)
            f.clear()
            f.blockSignals(False)
        self.sources.set_text("")
        self.targets.set_text("")
        self.state_filter.setCurrentIndex(0)
        self.sources.set_database(db)
        self.targets.set_database(db)
        self._arrange_target_columns()
        self.source_list.resizeColumnToContents(0)
        self.system_filter.blockSignals(True)
        self.system_filter.clear()
        self.system_filter.addItem("all systems", None)
        for s in (db.systems() if db else []):
            self.system_filter.addItem(s or "(no id)", s)
        self.system_filter.blockSignals(False)
        self.sources.set_system(None)
        self.compare_view.clear()
        if self.all_targets.isChecked() and db is not None:
            self.targets.show_all()
        self._update_title()
        self._update_counts()
        if db is not None and db.sources:
            self.source_list.selectRow(0)
        self._layout_for_content()
        self.databaseChanged.emit()

    def _tell_recovered(self, report: ReplayReport) -> None:
        box = QMessageBox(QMessageBox.Information, "Scores recovered",
                          "The previous session ended without saving. " + report.summary() + ".",
                          QMessageBox.Ok, self)
        box.setObjectName("recoveredDialog")
        box.setAttribute(Qt.WA_DeleteOnClose)
        self.last_recovery = report
        box.open()
        if errors.auto_close_ms:
            QTimer.singleShot(errors.auto_close_ms, box.close)
        self.statusBar().showMessage(report.summary(), 15000)

    def save(self, wait: bool = False) -> Worker | None:
        """Save atomically to ``database_path`` on a worker (``wait`` blocks until done).
        Never over a file that changed on disk since it was opened or saved here: then
        nothing is written and the user is asked (:mod:`~evaltrans_qt.ui.disk_change_dialog`)."""
        if self.database is None:
            return None
        if self.database_path is None:
            return self.save_as(wait=wait)
        return self._save_to(None, wait)

    def save_as(self, path: str | Path | None = None, wait: bool = False) -> Worker | None:
        if self.database is None:
            return None
        if path is None:
            start = str(self.database_path) if self.database_path else "untitled.etdb.xml"
            path, _f = QFileDialog.getSaveFileName(self, "Save database as", start,
                                                   "EvalTrans databases (*.etdb.xml)")
            if not path:
                return None
        path = Path(path)
        if self.database_path is not None and path == self.database_path:
            return self._save_to(None, wait)
        # Path, journal, lock and recent files switch to the new name only once the save
        # there succeeded (_saved): a failed Save As leaves everything as it was.
        if self._saving is not None and not wait:
            self.wait_for_save()               # not folded into a pending in-place save
        return self._save_to(path, wait)

    def _save_to(self, path: Path | None, wait: bool) -> Worker | None:
        """Save in place (``path`` None) or as ``path``: the workspace checks first
        (:meth:`~evaltrans_qt.workspace.Workspace.prepare_save`: the file changed on disk
        -> the user is asked; another process holds it -> refused), the bytes are written
        on a worker (``wait``: here) with the same checks right before the replace, and the
        workspace finishes (journal, identity of the bytes written)."""
        if self._saving is not None:
            if wait:
                from evaltrans_qt.ui.workers import wait_for_all
                wait_for_all()
                QApplication.processEvents()
            else:
                self._save_again = True
                return self._saving
        self._autosave_timer.stop()
        try:
            job = self.workspace.prepare_save(path)
        except DatabaseChangedError:
            if wait:                             # e.g. Save when closing: answer now
                self.disk_change.resolve(wait=True)
            else:
                self.disk_change.ask_later()
            return None
        except (EvalTransError, OSError) as exc:
            errors.show_error(self._read_only_error(exc), self)
            return None
        if wait:
            try:
                identity = save_job(job.database, job.target, before_write=job.check)
            except DatabaseChangedError as exc:
                self._save_failed(exc)
                if not self.workspace.disk_changed:
                    return None
                self.disk_change.resolve(wait=True)
                return None
            except Exception as exc:
                errors.show_error(self._read_only_error(exc), self)
                return None
            self._saved(job, identity)
            return None
        w = start_worker(save_job, job.database, job.target, before_write=job.check,
                         _start=False)
        w.signals.finished.connect(lambda identity: self._saved(job, identity))
        handle_errors(w, self._save_failed)
        w.signals.done.connect(self._save_done)
        self._saving = w
        from evaltrans_qt.ui.workers import launch
        launch(w)
        return w

    def _saved(self, job: SaveJob, identity: FileIdentity) -> None:
        """The bytes are in place: the workspace clears the journal up to what they hold
        (Save As: moves what came later to the new file's journal, and the lock), records
        their identity and marks the changes saved."""
        if job.database is not self.database:
            return                               # another database was opened meanwhile
        problem = self.workspace.finish_save(job, identity)
        if problem is not None:
            errors.show_error(SaveError(problem, job.target), self)
        if not job.in_place:
            self._add_recent(job.target)
        self._autosave_failed = False
        self._update_title()
        self.statusBar().showMessage(f"Saved {job.target}", 4000)
        self.saved.emit(job.target)

    def _save_done(self) -> None:
        self._saving = None
        if self._save_again:
            self._save_again = False
            if self.is_dirty:
                self.save()
        elif self.is_dirty:
            self._schedule_autosave()

    def autosave(self) -> None:
        """The autosave timer: save if the workspace says one is due -- which checks that
        the file is still the one loaded or saved here and that no other process holds it."""
        if self.workspace.read_only:
            self.workspace.retry_lock()
        if not self._autosave_paused and self.workspace.autosave_due:
            self.save()

    @contextlib.contextmanager
    def autosave_paused(self):
        """No autosave starts inside: a merge asks about conflicts in dialogs, whose event
        loop would otherwise let the autosave timer serialise a half-merged database while
        the merge goes on changing it. Afterwards a pending autosave is scheduled again."""
        self._autosave_paused += 1
        self._autosave_timer.stop()
        try:
            yield
        finally:
            self._autosave_paused -= 1
            if not self._autosave_paused and self.is_dirty:
                self._schedule_autosave()

    def wait_for_save(self, timeout_s: float = 120.0) -> None:
        """Block (processing events) until a running save has finished -- before a merge
        or import changes the database structure under the serialiser."""
        import time
        end = time.monotonic() + timeout_s
        while self._saving is not None and time.monotonic() < end:
            QApplication.processEvents()
            time.sleep(0.01)

    def _confirm_discard(self) -> bool:
        """Ask what to do with unsaved changes; True if we may go on."""
        if self.database is None or not self.is_dirty:
            return True
        ans = self.ask_unsaved()
        if ans == QMessageBox.Save:
            self.save(wait=True)
            return not self.is_dirty
        if ans == QMessageBox.Discard:
            self.workspace.discard_changes()
            return True
        return False

    def ask_unsaved(self):
        """The unsaved-changes question (tests replace this method)."""
        return QMessageBox.question(
            self, "Unsaved changes", "The database has unsaved changes. Save them?",
            QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)

    def closeEvent(self, ev) -> None:
        if self.session is not None:
            self.session.finish()
        if not self._confirm_discard():
            ev.ignore()
            return
        self.compare_view.runner.cancel()
        if self._saving is not None:  # let a running (auto)save finish; other jobs are not waited for
            w = self._saving
            w.wait_done = []
            w.signals.done.connect(lambda: w.wait_done.append(1))
            from PySide6.QtCore import QDeadlineTimer, QEventLoop
            deadline = QDeadlineTimer(120_000)
            while not w.wait_done and self._saving is not None and not deadline.hasExpired():
                QApplication.processEvents(QEventLoop.AllEvents, 50)
        self.workspace.close()
        self._store_settings()
        ev.accept()

    # ================================================================ browsing
    def _show_counts(self, shown: int, total: int) -> None:
        self.source_counts.setText(f"{shown} of {total} sources")

    def _focus_filter(self) -> None:
        self.panels["Sources"].show()
        self.source_filter.setFocus()
        self.source_filter.selectAll()

    def _step_source(self, step: int) -> None:
        cur = self.source_list.currentIndex()
        row = (cur.row() if cur.isValid() else -1) + step
        if 0 <= row < self.source_proxy.rowCount():
            self.source_list.selectRow(row)

    def _source_selected(self, current, _previous=None) -> None:
        if not current.isValid() or self.database is None:
            return
        si = current.data(KEY_ROLE)
        if self.all_targets.isChecked():
            return
        if self.targets.source_index != si:
            self.targets.set_source(si)
        want = self._current[1] if self._current and self._current[0] == si else None
        if want is None:
            cands = [j for j, t in enumerate(self.database.sources[si].targets)
                     if not self.database.is_reference(t)]
            want = cands[0] if cands else (0 if self.database.sources[si].targets else None)
        if want is not None:
            self._select_target_row(si, want)

    def _select_target_row(self, si: int, ti: int) -> None:
        if self.targets.frame_row(si, ti) < 0:
            return
        pidx = self.targets.index_of(si, ti)
        if not pidx.isValid():
            self.target_filter.clear()
            pidx = self.targets.index_of(si, ti)
        self.target_table.setCurrentIndex(pidx)
        self.target_table.selectRow(pidx.row())
        self.target_table.scrollTo(pidx)

    def _target_selected(self, current, _previous=None) -> None:
        if not current.isValid() or self.database is None:
            return
        si, ti = current.data(KEY_ROLE)
        self._show_compare(si, ti)

    def _toggle_all_targets(self, on: bool) -> None:
        if self.database is None:
            return
        if on:
            self.targets.show_all()
        else:
            cur = self.source_list.currentIndex()
            self.targets.set_source(cur.data(KEY_ROLE) if cur.isValid() else None)
        if self._current is not None:
            self._select_target_row(*self._current)

    def _show_compare(self, si: int, ti: int) -> None:
        db = self.database
        src = db.sources[si]
        t = src.targets[ti]
        self._current = (si, ti)
        refs = [(r.system or f"ref {k + 1}", r.text) for k, r in enumerate(src.targets)
                if r is not t and db.is_reference(r)]
        others = [(o.system or f"#{k + 1}", o.text) for k, o in enumerate(src.targets)
                  if o is not t and not db.is_reference(o)]
        label = t.system or "-"
        if db.is_reference(t):
            label += " (a reference, compared with the others)"
        self.compare_view.set_pair(src.text, t.text, label, refs, others)

    def open_in_compare(self, source_index: int, target_index: int) -> None:
        """Select a source and one of its targets and show them in the compare view."""
        if self.database is None:
            return
        self._current = (source_index, target_index)
        if self.all_targets.isChecked():
            self._select_target_row(source_index, target_index)
            self._show_compare(source_index, target_index)
            return
        pidx = self.sources.index_of(source_index)
        if not pidx.isValid():
            self.source_filter.clear()
            self.state_filter.setCurrentIndex(0)
            self.system_filter.setCurrentIndex(0)
            pidx = self.sources.index_of(source_index)
        cur = self.source_list.currentIndex()
        if cur.isValid() and cur.row() == pidx.row():
            self._select_target_row(source_index, target_index)
        else:
            self.source_list.setCurrentIndex(pidx)
            self.source_list.selectRow(pidx.row())
        self.source_list.scrollTo(pidx)
        if self._current != (source_index, target_index) or \
                self.target_table.currentIndex().data(KEY_ROLE) != (source_index, target_index):
            self._select_target_row(source_index, target_index)

    # ================================================================ sessions
    def start_session_dialog(self) -> None:
        if self.database is None:
            return
        if not self.database.human_classes:
            # e.g. right after a text import: define the classes first, then start
            self.classes_dialog(NO_CLASSES_INTRO, modal=True)
            if self.database is None or not self.database.human_classes:
                self.statusBar().showMessage("A scoring session needs at least one score class.", 5000)
                return
        dlg = SessionDialog(self.database, str(self.settings.value("session/judge", "")), self)
        dlg.classes_button.clicked.connect(
            lambda: (self.classes_dialog(modal=True), dlg.set_classes(self.database.human_classes)))
        self.last_session_dialog = dlg
        if dlg.exec() != SessionDialog.Accepted:
            return
        if not dlg.classes():
            errors.show_error(EvalTransError("choose at least one score class"), self)
            return
        self.start_session(dlg.judge.text().strip(), dlg.classes(), dlg.systems(),
                           dlg.start_unscored.isChecked())

    def start_session(self, judge: str, classes: list[str] | None = None, systems: list[str] | None = None,
                      start_unscored: bool = True) -> ScoringSession | None:
        """Start scoring (the database must have a file, for the journal)."""
        if self.database is None:
            return None
        if self.database_path is None:
            self.save_as()
            if self.database_path is None:
                return None
        why = self.workspace.read_only_reason()     # another program's journal: not ours
        if why is not None:
            errors.show_error(SaveError(why, self.database_path), self)
            return None
        self.end_session()
        classes = classes or self.database.human_classes
        if self.journal is not None:
            try:
                self.journal.ensure_writable()
            except OSError as exc:
                errors.show_error(SaveError(
                    f"cannot start scoring: the score journal cannot be written "
                    f"({exc.strerror or exc}); save the database to a writable folder first",
                    self.journal.path), self)
                return None
        try:
            s = ScoringSession(self.database, judge, classes, self.workspace, self.undo_stack, systems,
                               self)
        except Exception as exc:
            errors.show_error(exc if isinstance(exc, EvalTransError) else EvalTransError(str(exc)), self)
            return None
        self.session = s
        if self.persist_settings:
            self.settings.setValue("session/judge", judge)
        s.currentChanged.connect(self._session_moved)
        s.scoreChanged.connect(self._session_scored)
        self.score_panel.set_session(s)
        self.protocol_modes.set_session(s)           # post-edit / item modes follow
        self.score_panel.buttons["identical"].clicked.connect(self.take_identical)
        for act in self.session_actions:
            act.setEnabled(True)
        self.show_panel("Similar scored translations")
        if self.workspace.run is not None:
            self.panels["Live correlation"].show()
        self.show_panel("Scoring")
        if self.panels["Scoring"].width() < 300:
            self.resizeDocks([self.panels["Scoring"]], [max(340, int(self.width() * 0.28))],
                             Qt.Horizontal)
        # the score controls first: the panel gets its full height, the similar ones the rest
        need = self.score_panel.minimumSizeHint().height() + 30
        self.resizeDocks([self.panels["Scoring"], self.panels["Similar scored translations"]],
                         [need, max(120, self.height() - need)], Qt.Vertical)
        if start_unscored:
            s.first_unscored()
        else:
            self._session_moved(0)
        self.score_panel.setFocus()
        self.score_panel.focus_current()   # a typed-entry class: its value editor
        return s

    def end_session(self) -> None:
        s = self.session
        if s is None:
            return
        s.finish()
        self.session = None
        self.undo_stack.clear()
        self.score_panel.set_session(None)
        self.protocol_modes.set_session(None)
        self.similar_panel.clear()
        for act in self.session_actions:
            act.setEnabled(False)
        s.deleteLater()

    def _session_moved(self, _k: int) -> None:
        s = self.session
        if s is None or s.current is None:
            return
        si, ti = s.current
        self.open_in_compare(si, ti)
        sim = similar_translations(self.database, si, ti, s.classes)
        self.similar_panel.show_similar(sim, s.classes)
        self.score_panel.show_identical(identical_scores(sim, s.classes))
        self.score_panel.refresh()

    def _session_scored(self, change) -> None:
        s = self.session
        if s is None:
            return
        from evaltrans_qt.io.journal import find_source  # (doc, seg) or text
        si = find_source(self.database, change)
        idx = self.database.source_index(si) if si is not None else None
        if idx is not None and change.target_index is not None:
            self.sources.refresh_source(idx)
            self.targets.refresh_target(idx, change.target_index)
        # dirty and ``committed`` (-> scoreChanged): done by Workspace.commit

    def score_current(self, value: int) -> None:
        """A digit key: scores the current class, or is typed into its value editor (continuous
        classes and scales of more than ten levels: the value is committed with Enter)."""
        if self.session is None or self.score_panel.type_text(str(value)):
            return
        if not self.session.score(value):
            self.statusBar().showMessage(f"{value} is not a level of '{self.session.current_class}'", 3000)

    def _next_unscored(self) -> None:
        if not self.session.next_unscored():
            self.statusBar().showMessage("Every candidate of this session is scored.", 5000)

    def take_identical(self) -> None:
        s = self.session
        if s is None:
            return
        if not s.take_identical(self.similar_panel.similar):
            self.statusBar().showMessage("No identical scored translation for this candidate.", 3000)

    # ================================================================ score classes
    def classes_dialog(self, intro: str = "", modal: bool = False):
        """Edit → Score classes…: list, add (templates), edit and remove classes."""
        from evaltrans_qt.ui.classes_dialog import ClassesDialog
        if self.database is None:
            return None
        dlg = ClassesDialog(self, intro)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        self.last_classes_dialog = dlg
        if modal:
            dlg.exec()
        else:
            dlg.open()
        return dlg

    def change_classes(self, text: str, change, touches: list[str]) -> bool:
        """Apply ``change(database)`` (a class edit of :mod:`evaltrans_qt.engine.data.schemes`) as one
        undoable step; errors (:class:`EvalTransError`) propagate and change nothing."""
        from evaltrans_qt.ui.classes_dialog import ClassCommand
        if self.database is None:
            return False
        self.wait_for_save()                 # never change classes under a running serialiser
        cmd = ClassCommand(self, text, change, touches)
        cmd.apply_first()
        self.undo_stack.push(cmd)
        return True

    def classes_changed(self, before: list[str]) -> None:
        """After the classes changed (or an undo/redo of that): tables, session rows, and an
        immediate save -- the journal of a session must only name classes the file declares."""
        db = self.database
        if db is None:
            return
        cur = self._current
        self.sources.set_database(db)
        self.targets.set_database(db)
        self._arrange_target_columns()
        if self.all_targets.isChecked():
            self.targets.show_all()
        s = self.session
        if s is not None:
            human = db.human_classes
            keep = [c for c in s.classes if c in human] + [c for c in human if c not in before
                                                           and c not in s.classes]
            if keep:
                s.set_classes(keep)
            else:   # later: ending clears the undo stack, which may be running this change
                QTimer.singleShot(0, lambda: self.session is s and self.end_session())
                self.statusBar().showMessage("Scoring session ended: none of its classes is left.", 8000)
        if cur is not None and cur[0] < len(db.sources) and cur[1] < len(db.sources[cur[0]].targets):
            self.open_in_compare(*cur)
        self._update_counts()
        self.workspace.modified(affects_results=False)   # classes: the measures' numbers stand
        if self.database_path is not None:
            self.save(wait=True)
        self.databaseChanged.emit()

    # ================================================================ import, merge, help
    def import_dialog(self, kind: str) -> None:
        from evaltrans_qt.ui import import_dialogs
        import_dialogs.run_import(self, kind)

    def merge_dialog(self) -> None:
        from evaltrans_qt.ui import merge_dialog
        merge_dialog.choose_and_merge(self)

    def database_modified(self) -> None:
        """Call after changing the database outside a session (merge, import): refresh and
        autosave; results of earlier runs are marked out of date (the workspace)."""
        db = self.database
        self.sources.set_database(db)
        self.targets.set_database(db)
        self._arrange_target_columns()
        self.compare_view.clear()
        if db is not None and db.sources:
            self.source_list.selectRow(0)
        self._update_counts()
        self.workspace.modified(affects_results=True)
        self.databaseChanged.emit()

    def show_shortcuts(self) -> None:
        from evaltrans_qt.ui.shortcuts import ShortcutsDialog
        dlg = ShortcutsDialog(self)
        dlg.setAttribute(Qt.WA_DeleteOnClose)
        dlg.open()

    def about(self) -> None:
        box = QMessageBox(QMessageBox.Information, "About evaltrans-qt",
                          "evaltrans-qt — evaluation of machine translation, successor of RWTH EvalTrans.\n"
                          "Help → Keyboard shortcuts (F1) lists every key.", QMessageBox.Ok, self)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.open()
