"""Browsing: the sources and translations tables, their filters, and the compare view.

What is current -- the source, its candidate and the measure the compare view draws --
lives in the workspace's :class:`~evaltrans_qt.selection.Selection`, never here: choosing
a row in a table or a measure in the View menu writes the selection; the tables (here) and
the compare view (by itself) follow its ``changed`` and ``measure_changed`` signals,
whoever moved it (a table, a scoring session, the results view's "open in compare", a
similar translation, the compare view's measure selector).

Stable object names: ``sourceList``, ``sourceFilter``, ``systemFilter``, ``stateFilter``,
``sourceCounts``, ``targetTable``, ``targetFilter``, ``allTargets``, ``databaseInfo``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.ui.compare_view import MEASURES
from evaltrans_qt.ui.controllers.actions import make_action
from evaltrans_qt.ui.models import KEY_ROLE, SCORED_STATES, SourceTable, TargetTable
from evaltrans_qt.ui.results_models import attach_frame_model


def setup_table(view: QTableView) -> None:
    """The browser's look for a table of ``attach_frame_model`` (rows selected, sortable,
    numbers drawn by the delegate): one row at a time, compact, no row numbers."""
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    vh = view.verticalHeader()
    vh.setVisible(False)
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(view.fontMetrics().height() + 6)
    hh = view.horizontalHeader()
    hh.setStretchLastSection(False)
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    hh.setHighlightSections(False)
    view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)


def _panel(*rows) -> QWidget:
    """A panel of widgets and rows of widgets (a list: side by side, stretched alike)."""
    w = QWidget()
    v = QVBoxLayout(w)
    v.setContentsMargins(2, 2, 2, 2)
    for row in rows:
        if isinstance(row, list):
            h = QHBoxLayout()
            for widget, stretch in row:
                h.addWidget(widget, stretch)
            v.addLayout(h)
        else:
            v.addWidget(row[0], row[1])
    return w


class BrowseController(QObject):
    """Sources, translations, filters, the selection and the compare view (module doc)."""

    def __init__(self, window: Any) -> None:
        """``window``: the :class:`~evaltrans_qt.ui.main_window.MainWindow` composing this;
        its ``compare_view`` is the central widget."""
        super().__init__(window)
        self.window = window
        self.workspace = ws = window.workspace
        self.selection = ws.selection
        self.compare_view = window.compare_view
        self._following = False          # the tables are being moved to the selection
        self._build_sources()
        self._build_targets()
        self.db_label = QLabel()
        self.db_label.setObjectName("databaseInfo")
        window.statusBar().addPermanentWidget(self.db_label)
        self._build_actions()
        self.selection.changed.connect(self._selection_changed)
        ws.database_changed.connect(self._show_database)
        ws.database_modified.connect(self._refresh_class_columns)
        ws.committed.connect(self._committed)

    # ------------------------------------------------------------ building
    def _build_sources(self) -> None:
        self.source_list = QTableView()
        self.source_list.setObjectName("sourceList")
        self.source_model, self.source_proxy = attach_frame_model(self.source_list)
        self.sources = SourceTable(self.source_model, self.source_proxy, self)   # fills the model
        setup_table(self.source_list)
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
        self.window.add_panel("Sources", _panel(
            (self.source_filter, 0), [(self.system_filter, 1), (self.state_filter, 1)],
            (self.source_list, 1), (self.source_counts, 0)), Qt.DockWidgetArea.LeftDockWidgetArea)
        self.source_filter.textChanged.connect(self.sources.set_text)
        self.system_filter.currentIndexChanged.connect(
            lambda _i: self.sources.set_system(self.system_filter.currentData()))
        self.state_filter.currentIndexChanged.connect(
            lambda _i: self.sources.set_state(self.state_filter.currentData()))
        self.sources.countsChanged.connect(
            lambda shown, total: self.source_counts.setText(f"{shown} of {total} sources"))
        self.source_list.selectionModel().currentRowChanged.connect(self._source_selected)

    def _build_targets(self) -> None:
        self.target_table = QTableView()
        self.target_table.setObjectName("targetTable")
        self.target_model, self.target_proxy = attach_frame_model(self.target_table)
        self.targets = TargetTable(self.target_model, self.target_proxy, self)   # fills the model
        setup_table(self.target_table)
        self.target_filter = QLineEdit()
        self.target_filter.setObjectName("targetFilter")
        self.target_filter.setPlaceholderText("Filter translations")
        self.target_filter.setClearButtonEnabled(True)
        self.all_targets = QCheckBox("All sources")
        self.all_targets.setObjectName("allTargets")
        self.all_targets.setToolTip("List the targets of every source (Ctrl+Alt+L)")
        self.window.add_panel("Translations", _panel(
            [(self.target_filter, 1), (self.all_targets, 0)], (self.target_table, 1)),
            Qt.DockWidgetArea.BottomDockWidgetArea)
        self.target_table.selectionModel().currentRowChanged.connect(self._target_selected)
        self.target_filter.textChanged.connect(self.targets.set_text)
        self.all_targets.toggled.connect(self._toggle_all_targets)

    def _build_actions(self) -> None:
        w = self.window

        def a(*args, **kw):
            return make_action(w, *args, **kw)
        self.act_find = a("&Find source", QKeySequence.StandardKey.Find, self._focus_filter)
        self.act_next_source = a("Next source", "Ctrl+Down", lambda: self._step_source(1))
        self.act_prev_source = a("Previous source", "Ctrl+Up", lambda: self._step_source(-1))
        self.act_all_targets = a("Show translations of all sources", "Ctrl+Alt+L",
                                 lambda: self.all_targets.toggle())
        # the first nine measures of the compare view get View menu entries with Ctrl+1 ... Ctrl+9;
        # every other measure that can align is in the view's selector (from the registry)
        self.measure_actions = QActionGroup(w)
        for k, (name, label) in enumerate(MEASURES[:9]):
            act = a(f"Show {label}", f"Ctrl+{k + 1}", None, checkable=True,
                    name=f"action_measure_{name}")
            act.triggered.connect(lambda _c=False, n=name: self.selection.set_measure(n))
            self.measure_actions.addAction(act)
        self.measure_actions.actions()[0].setChecked(True)
        self.compare_view.measure_selector.currentIndexChanged.connect(self._measure_shown)

    def _measure_shown(self, i: int) -> None:
        acts = self.measure_actions.actions()
        if 0 <= i < len(acts):
            acts[i].setChecked(True)
        elif self.measure_actions.checkedAction() is not None:
            self.measure_actions.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
            self.measure_actions.checkedAction().setChecked(False)

    # ------------------------------------------------------------ the database
    def _show_database(self) -> None:
        """Another database: the tables and filters start afresh (the selection is cleared
        by the workspace), its first source is selected."""
        db = self.workspace.database
        for f in (self.source_filter, self.target_filter):
            f.blockSignals(True)
            f.clear()
            f.blockSignals(False)
        self.sources.set_text("")
        self.targets.set_text("")
        self.state_filter.setCurrentIndex(0)
        self.sources.set_database(db)
        self.targets.set_database(db)
        self.arrange_target_columns()
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
        self.update_counts()
        if db is not None and db.sources:
            self.source_list.selectRow(0)

    def reload(self) -> None:
        """The database's classes or structure changed: both tables read it again."""
        db = self.workspace.database
        self.sources.set_database(db)
        self.targets.set_database(db)
        self.arrange_target_columns()
        if self.all_targets.isChecked():
            self.targets.show_all()

    def database_modified(self) -> None:
        """Call after changing the database outside a session (merge, import): tables
        afresh, the first source selected, autosave; results of earlier runs are marked out
        of date (the workspace)."""
        db = self.workspace.database
        self.sources.set_database(db)
        self.targets.set_database(db)
        self.arrange_target_columns()
        self.compare_view.clear()
        if db is not None and db.sources:
            self.source_list.selectRow(0)
        self.update_counts()
        self.workspace.modified(affects_results=True)
        self.window.databaseChanged.emit()

    def _committed(self, change) -> None:
        """A ranking, items or reference change may add score classes (the first ranking
        adds ``rank``)."""
        from evaltrans_qt.workspace import modifies_database
        if modifies_database(change):
            self._refresh_class_columns()

    def _refresh_class_columns(self, _affects_results: bool = False) -> None:
        """A change outside the session (e.g. the first ranking adds the ``rank`` class)
        may add or remove score classes: rebuild the translations table's class columns,
        keeping the shown source (or the all-targets view)."""
        db = self.workspace.database
        model = self.targets
        if db is None or list(db.human_classes) == model.classes:
            return
        shown, show_all = model.source_index, self.all_targets.isChecked()
        model.set_database(db)
        if show_all:
            model.show_all()
        elif shown is not None and shown < len(db.sources):
            model.set_source(shown)
        self.arrange_target_columns()

    def arrange_target_columns(self) -> None:
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

    def update_counts(self) -> None:
        db = self.workspace.database
        if db is not None:
            c = db.counts()
            self.db_label.setText(f"{c['sources']} sources · {c['candidates']} candidates · "
                                  f"{c['references']} references · {len(c['systems'])} systems")
        else:
            self.db_label.setText("")

    # ------------------------------------------------------------ moving
    def _focus_filter(self) -> None:
        self.window.panels["Sources"].show()
        self.source_filter.setFocus()
        self.source_filter.selectAll()

    def _step_source(self, step: int) -> None:
        cur = self.source_list.currentIndex()
        row = (cur.row() if cur.isValid() else -1) + step
        if 0 <= row < self.source_proxy.rowCount():
            self.source_list.selectRow(row)

    def _source_selected(self, current, _previous=None) -> None:
        """A source row became current: its targets are listed and one of them chosen (the
        selected one if it belongs to this source, else its first candidate)."""
        db = self.workspace.database
        if self._following or not current.isValid() or db is None:
            return
        si = current.data(KEY_ROLE)
        if self.all_targets.isChecked():
            return
        if self.targets.source_index != si:
            self.targets.set_source(si)
        sel = self.selection
        want = sel.target if sel.source == si else None
        if want is None:
            cands = [j for j, t in enumerate(db.sources[si].targets) if not db.is_reference(t)]
            want = cands[0] if cands else (0 if db.sources[si].targets else None)
        if want is None:
            sel.select(si, None)
        elif self.target_table.currentIndex().data(KEY_ROLE) == (si, want):
            self._target_chosen(si, want)
        else:
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
        if self._following or not current.isValid() or self.workspace.database is None:
            return
        self._target_chosen(*current.data(KEY_ROLE))

    def _target_chosen(self, si: int, ti: int) -> None:
        """The user chose a candidate: it becomes the selection; chosen again (the tables
        were rebuilt) the compare view draws it afresh."""
        if not self.selection.select(si, ti):
            self.compare_view.show_selection()

    def _toggle_all_targets(self, on: bool) -> None:
        if self.workspace.database is None:
            return
        if on:
            self.targets.show_all()
        else:
            cur = self.source_list.currentIndex()
            self.targets.set_source(cur.data(KEY_ROLE) if cur.isValid() else None)
        pair = self.selection.pair
        if pair is not None:
            self._select_target_row(*pair)

    def open_in_compare(self, source_index: int, target_index: int) -> None:
        """Select a source and one of its targets: the tables and the compare view follow."""
        if self.workspace.database is None:
            return
        if not self.selection.select(source_index, target_index):
            self._follow(source_index, target_index)     # e.g. a filter hid its rows

    def _selection_changed(self, si: int | None, ti: int | None) -> None:
        """The selection moved (the compare view follows it by itself): the tables too."""
        db = self.workspace.database
        if db is not None and si is not None and ti is not None and si < len(db.sources) \
                and ti < len(db.sources[si].targets):
            self._follow(si, ti)

    def _follow(self, si: int, ti: int) -> None:
        """Make the tables show the selected source and candidate (clearing the filters
        that hide them)."""
        self._following = True
        try:
            if self.all_targets.isChecked():
                self._select_target_row(si, ti)
                return
            pidx = self.sources.index_of(si)
            if not pidx.isValid():
                self.source_filter.clear()
                self.state_filter.setCurrentIndex(0)
                self.system_filter.setCurrentIndex(0)
                pidx = self.sources.index_of(si)
            if self.source_list.currentIndex().row() != pidx.row() or \
                    not self.source_list.currentIndex().isValid():
                self.source_list.setCurrentIndex(pidx)
                self.source_list.selectRow(pidx.row())
            self.source_list.scrollTo(pidx)
            if self.targets.source_index != si:
                self.targets.set_source(si)
            if self.target_table.currentIndex().data(KEY_ROLE) != (si, ti):
                self._select_target_row(si, ti)
        finally:
            self._following = False

    def redraw(self) -> None:
        """Draw the selected candidate again (its text or its references changed)."""
        self.compare_view.show_selection()


__all__ = ["BrowseController", "setup_table"]
