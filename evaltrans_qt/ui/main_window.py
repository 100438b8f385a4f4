"""The main window: source list -> targets -> compare view, scoring sessions, files.

The application's state lives in one Qt-free :class:`~evaltrans_qt.workspace.Workspace`
(``window.workspace``): database, path, journal, dirty state, autosave policy, options,
measures, last run, the selection (current source, candidate, compare measure). The
window is a thin composition of controllers, each owning its widgets, actions and state
(:mod:`evaltrans_qt.ui.controllers`):

* ``files`` (:class:`~.controllers.files.FilesController`) -- open, save, autosave,
  recent files, changes on disk, closing;
* ``browse`` (:class:`~.controllers.browse.BrowseController`) -- sources, translations,
  filters, the selection and the compare view;
* ``scoring`` (:class:`~.controllers.session.SessionController`) -- scoring sessions,
  score classes, undo/redo;
* ``results`` (:class:`~.controllers.results.ResultsController`) -- results and live
  correlation panels, the Evaluate menu;
* ``ranking`` (:class:`~.controllers.ranking.RankingController`) -- the ranking screens;
* ``protocol_modes`` (:class:`~evaltrans_qt.ui.protocol_modes.ProtocolModes`) --
  references, post-edits, information items;
* ``window_layout`` (:class:`~.controllers.layout.WindowLayout`) -- panels on the screen,
  window settings;
* ``campaign`` (:class:`~.controllers.campaign.CampaignController`) -- the Campaign menu
  and annotator mode (a campaign bundle opened).

Contract used by other parts of the UI: ``database``, ``database_path``, ``session`` (views
of the workspace and of the scoring controller); signals ``databaseChanged()``,
``scoreChanged(object)`` (a :class:`~evaltrans_qt.io.journal.ScoreChange`, relayed from
the workspace's ``committed``) and ``saved(path)``; menus ``file_menu``, ``edit_menu``,
``view_menu``, ``session_menu``, ``evaluate_menu``, ``help_menu``;
``add_panel(title, widget, area) -> QDockWidget``, ``show_panel(title)`` and
``open_in_compare(source_index, target_index)``; the few delegating methods below (save,
open, sessions) that dialogs and scripts call.

Stable object names: ``sourceList``, ``targetTable``, ``compareView``,
``measureSelector``, ``scorePanel``, ``similarPanel``, ``sessionProgress``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMessageBox, QToolBar, QWidget

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.io.journal import Journal, ReplayReport
from evaltrans_qt.ui.compare_view import CompareView
from evaltrans_qt.ui.controllers.actions import make_action
from evaltrans_qt.ui.controllers.browse import BrowseController
from evaltrans_qt.ui.controllers.campaign import CampaignController
from evaltrans_qt.ui.controllers.files import FilesController, make_settings
from evaltrans_qt.ui.controllers.layout import WindowLayout
from evaltrans_qt.ui.controllers.ranking import RankingController
from evaltrans_qt.ui.controllers.results import ResultsController
from evaltrans_qt.ui.controllers.session import SessionController
from evaltrans_qt.ui.controllers.spans import SpansController
from evaltrans_qt.ui.protocol_modes import ProtocolModes
from evaltrans_qt.ui.scoring import ScoringSession
from evaltrans_qt.ui.workers import Worker
from evaltrans_qt.workspace import AUTOSAVE_MS, Workspace


class MainWindow(QMainWindow):
    """The application window (see module doc for the contract)."""

    databaseChanged = Signal()
    scoreChanged = Signal(object)
    #: Emitted after a save finished successfully (path).
    saved = Signal(object)

    def __init__(self, settings: QSettings | None = None, autosave_ms: int = AUTOSAVE_MS, *,
                 persist_settings: bool = True) -> None:
        """``persist_settings`` False: a run that leaves the user's settings alone (recent
        files, judge name, layout; ``--screenshot``)."""
        super().__init__()
        self.setObjectName("mainWindow")
        self.settings = settings or make_settings()
        self.persist_settings = persist_settings
        self.workspace = Workspace(autosave_ms=autosave_ms)
        self.panels: dict[str, QDockWidget] = {}
        self._shown_once = False
        self.compare_view = CompareView(self.workspace)
        self.setCentralWidget(self.compare_view)
        self._build_menus()          # empty; the controllers add panels and actions
        self.window_layout = WindowLayout(self)
        self.browse = BrowseController(self)
        # the right-hand panels (scoring) reach down to the status bar: their controls get
        # the window's height, the translations the width beside them
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.scoring = SessionController(self)
        self.files = FilesController(self)
        self.ranking = RankingController(self)
        self._fill_menus()
        self.results = ResultsController(self)
        self.protocol_modes = ProtocolModes(self)   # references, post-edits, items
        self.spans = SpansController(self)          # MQM / ESA annotation screen
        self.campaign = CampaignController(self)    # Campaign menu, annotator mode
        ws = self.workspace
        ws.database_changed.connect(self._database_shown)
        ws.path_changed.connect(self._path_changed)
        ws.committed.connect(self._committed)
        ws.message.connect(self._message)
        self.update_title()
        self.window_layout.restore_settings()

    # ================================================================ views of the state
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
    def is_dirty(self) -> bool:
        return self.workspace.is_dirty

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

    @property
    def session(self) -> ScoringSession | None:
        """The running scoring session (the scoring controller's), or None."""
        return self.scoring.session

    # ================================================================ building
    def add_panel(self, title: str, widget: QWidget, area=Qt.DockWidgetArea.RightDockWidgetArea) -> QDockWidget:
        """Add a dockable panel; its show/hide action goes into the View menu (Alt+1 …)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.replace(' ', '_')}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.panels[title] = dock
        act = dock.toggleViewAction()
        n = len([a for a in self.view_menu.actions() if a.property("panelToggle")])
        act.setProperty("panelToggle", True)
        act.setShortcut(QKeySequence(f"Alt+{n + 1}" if n < 9 else f"Ctrl+Alt+{n - 8}"))
        self.view_menu.insertAction(self._view_sep, act)
        self.addAction(act)
        return dock

    def show_panel(self, title: str) -> None:
        """Show a panel (and bring its tab to the front), keeping the window on the screen."""
        self.window_layout.show_panel(title)

    def _build_menus(self) -> None:
        mb = self.menuBar()

        def menu(title: str, name: str):
            m = mb.addMenu(title)
            m.setObjectName(name)
            return m
        self.file_menu = menu("&File", "fileMenu")
        self.edit_menu = menu("&Edit", "editMenu")
        self.view_menu = menu("&View", "viewMenu")
        self._view_sep = self.view_menu.addSeparator()
        self.session_menu = menu("&Session", "sessionMenu")
        self.evaluate_menu = menu("E&valuate", "evaluateMenu")
        self.help_menu = menu("&Help", "helpMenu")

    def _fill_menus(self) -> None:
        """The menus and the toolbar, from the controllers' actions."""
        f, b, s = self.files, self.browse, self.scoring
        m = self.file_menu
        m.addActions([f.act_open, f.act_demo])
        m.addMenu(f.recent_menu)
        m.addSeparator()
        m.addActions([f.act_save, f.act_save_as])
        m.addSeparator()
        imp = m.addMenu("&Import")
        imp.setObjectName("importMenu")
        imp.addActions(f.import_actions)
        m.addAction(f.act_merge)
        for act in (f.act_autosave, f.act_quit):
            m.addSeparator()
            m.addAction(act)

        m = self.edit_menu
        m.addActions([s.act_undo, s.act_redo])
        m.addSeparator()
        m.addAction(s.act_classes)
        m.addSeparator()
        m.addActions([b.act_find, b.act_next_source, b.act_prev_source])

        m = self.view_menu
        m.addAction(b.act_all_targets)
        m.addSeparator()
        m.addActions(b.measure_actions.actions())

        m = self.session_menu
        m.addActions([s.act_start_session, s.act_end_session])
        m.addSeparator()
        m.addActions([s.act_next, s.act_prev, s.act_next_unscored, s.act_identical])
        m.addSeparator()
        m.addActions([s.act_next_class, s.act_prev_class, s.act_clear_score])
        scores = m.addMenu("Score")
        scores.addActions(s.score_actions)
        m.addSeparator()
        m.addActions(self.ranking.actions)
        segranks = m.addMenu("SegRan&ks")
        segranks.setObjectName("segranksMenu")
        from evaltrans_qt.ui.segranks_dialog import show_extract_dialog
        self.act_segranks_extract = make_action(self, "&Extract segments…", "Ctrl+Alt+X",
                                                lambda: show_extract_dialog(self))
        segranks.addAction(self.act_segranks_extract)

        self.act_shortcuts = make_action(self, "&Keyboard shortcuts", "F1", self.show_shortcuts)
        self.act_about = make_action(self, "&About evaltrans-qt", "Ctrl+Shift+F1", self.about)
        from evaltrans_qt.ui.help_dialog import show_getting_started
        self.act_getting_started = make_action(self, "&Getting started", "Shift+F1",
                                               lambda: show_getting_started(self))
        self.help_menu.addActions([self.act_getting_started, self.act_shortcuts, self.act_about])

        tb = QToolBar("Main toolbar", self)
        tb.setObjectName("mainToolbar")
        tb.addActions([f.act_open, f.act_save, s.act_undo, s.act_redo, s.act_start_session])
        self.addToolBar(tb)
        self.toolbar = tb

    # ================================================================ the workspace
    def _database_shown(self) -> None:
        """Another database: every controller has reset (they observe the workspace); the
        title, the panels with nothing to show, then ``databaseChanged``."""
        self.update_title()
        self.window_layout.layout_for_content()
        self.databaseChanged.emit()

    def _path_changed(self, _path: object) -> None:
        self.update_title()

    def _committed(self, change: object) -> None:
        """A judgement committed (Workspace.commit): relayed as ``scoreChanged``."""
        self.scoreChanged.emit(change)

    def _message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def update_title(self) -> None:
        """File name, ``*`` while unsaved, who holds the file when it is read-only here."""
        ws = self.workspace
        name = ws.path.name if ws.path else ("untitled" if ws.database else "")
        star = " *" if ws.is_dirty else ""
        holder = ws.locked_by
        if name and ws.read_only and holder is not None:
            name += f"{star} (read-only: {holder.describe()})"
            star = ""
        self.setWindowTitle(f"{name}{star} — evaltrans-qt" if name else "evaltrans-qt")

    # ================================================================ delegates
    # what dialogs, scripts and tests call on the window; the controllers do the work
    def open_database(self, path: str | Path) -> Worker:
        return self.files.open_database(path)

    def open_demo(self) -> Worker | None:
        return self.files.open_demo()

    def set_database(self, db: Database | None, path: str | Path | None = None,
                     recovered: ReplayReport | None = None, *, reloaded: bool = False) -> None:
        self.files.set_database(db, path, recovered, reloaded=reloaded)

    def save(self, wait: bool = False) -> Worker | None:
        return self.files.save(wait)

    def save_as(self, path: str | Path | None = None, wait: bool = False) -> Worker | None:
        return self.files.save_as(path, wait)

    def wait_for_save(self, timeout_s: float = 120.0) -> None:
        self.files.wait_for_save(timeout_s)

    def autosave_paused(self):
        return self.files.autosave_paused()

    def database_modified(self) -> None:
        self.browse.database_modified()

    def open_in_compare(self, source_index: int, target_index: int) -> None:
        self.browse.open_in_compare(source_index, target_index)

    def start_session(self, judge: str, classes: list[str] | None = None,
                      systems: list[str] | None = None,
                      start_unscored: bool = True) -> ScoringSession | None:
        return self.scoring.start_session(judge, classes, systems, start_unscored)

    def end_session(self) -> None:
        self.scoring.end_session()

    def score_current(self, value: int) -> None:
        self.scoring.score_current(value)

    def classes_dialog(self, intro: str = "", modal: bool = False):
        return self.scoring.classes_dialog(intro, modal)

    def change_classes(self, text: str, change, touches: list[str]) -> bool:
        return self.scoring.change_classes(text, change, touches)

    def classes_changed(self, before: list[str]) -> None:
        self.scoring.classes_changed(before)

    # ================================================================ help, events
    def show_shortcuts(self) -> None:
        from evaltrans_qt.ui.shortcuts import ShortcutsDialog
        dlg = ShortcutsDialog(self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()

    def about(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, "About evaltrans-qt",
                          "evaltrans-qt — evaluation of machine translation, successor of RWTH EvalTrans.\n"
                          "Help → Keyboard shortcuts (F1) lists every key.", QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        if not self._shown_once:          # the frame's size is known only now
            self._shown_once = True
            self.window_layout.after_shown()

    def closeEvent(self, ev) -> None:
        if self.session is not None:
            self.session.finish()
        if not self.files.may_close():
            ev.ignore()
            return
        self.window_layout.store_settings()
        ev.accept()
