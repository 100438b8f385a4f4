"""Qt models of a :class:`~evaltrans_qt.engine.data.database.Database`: sources and targets.

``SourceTableModel`` lists the sources with reference/candidate counts and
their scored state; ``TargetTableModel`` lists targets (references and
candidates) of one source or of the whole database, with one column per human
score class. Both keep plain Python rows (built once, refreshed per row on a
score change) and expose raw values under :data:`SORT_ROLE`. Numbers are given as
numbers (``Qt.DisplayRole``) with their :class:`~evaltrans_qt.ui.results_models.NumberFormat`
(:data:`~evaltrans_qt.ui.results_models.FORMAT_ROLE`); the views draw them with the
tables' one :class:`~evaltrans_qt.ui.results_models.NumberDelegate`.

Sorting 50 000 rows through ``QSortFilterProxyModel``'s C++ comparator would
call Python ``data()`` ~10^6 times, so the proxies here delegate ``sort`` to
the source model, which sorts its row list with one key function and
announces a layout change; the proxies only filter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QApplication

from evaltrans_qt.engine.data.database import Database, Target
from evaltrans_qt.ui.results_models import FORMAT_ROLE, ONE_BASED, NumberFormat

SORT_ROLE = Qt.ItemDataRole.UserRole.value + 1
#: (source_index, target_index) of a target row; source_index of a source row.
KEY_ROLE = Qt.ItemDataRole.UserRole.value + 2
#: The row's kind: "ref" or "cand" (targets), or scored state (sources).
KIND_ROLE = Qt.ItemDataRole.UserRole.value + 3

# Roles as plain ints: comparing a role with a Qt enum costs ~10 µs in PySide6,
# which data() would pay for every cell painted.
_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_FONT = Qt.ItemDataRole.FontRole.value
_ALIGN = Qt.ItemDataRole.TextAlignmentRole.value
_FOREGROUND = Qt.ItemDataRole.ForegroundRole.value
_RIGHT = int((Qt.AlignRight | Qt.AlignVCenter).value)
_LEFT = int((Qt.AlignLeading | Qt.AlignVCenter).value)
_FORMAT = FORMAT_ROLE
#: Source numbers count from 1 (the frame tables' ``segment`` column reads the same).
_ONE_BASED = ONE_BASED["segment"]
#: A human score: whole levels as they are (``3``), means over judges with two decimals;
#: an extrapolated score (thesis section 1.2.1) marked ``≈``.
SCORE_FORMAT = NumberFormat(decimals=2, whole=True)
EXTRAPOLATED_FORMAT = NumberFormat(decimals=2, whole=True, prefix="≈")

SCORED_ALL = "all"
SCORED_COMPLETE = "complete"
SCORED_PARTIAL = "some unscored"
SCORED_NONE = "unscored"
SCORED_STATES = (SCORED_ALL, SCORED_COMPLETE, SCORED_PARTIAL, SCORED_NONE)


def refilter(proxy: QSortFilterProxyModel) -> None:
    """Re-run the filter (``beginFilterChange``/``endFilterChange`` on Qt >= 6.10)."""
    if hasattr(proxy, "beginFilterChange"):
        proxy.beginFilterChange()
        proxy.endFilterChange()
    else:
        proxy.invalidateFilter()


class ModelSortedProxy(QSortFilterProxyModel):
    """A filtering proxy whose sorting is done by the source model itself (numpy/Python
    key sort once), never by per-comparison ``lessThan``/``data()`` calls."""

    def sort(self, column, order=Qt.AscendingOrder) -> None:
        src = self.sourceModel()
        if src is not None:
            src.sort(column, order)


def target_scored(target: Target, classes: list[str]) -> bool:
    """True if the target has a human (non-extrapolated) score in every class."""
    if not classes:
        return False
    have = {s.cls for s in target.scores if not s.extrapolated}
    return all(c in have for c in classes)


class _SortableModel(QAbstractTableModel):
    """Rows are a Python list; ``sort`` reorders it with a key (fast for 10^5 rows)."""

    headers: list[str] = []

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[tuple] = []
        self._sort: tuple[int, Qt.SortOrder] | None = None

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == _DISPLAY and orientation == Qt.Horizontal and 0 <= section < len(self.headers):
            return self.headers[section]
        return None

    def sort_value(self, row: tuple, column: int):
        raise NotImplementedError

    def sort(self, column: int, order: Qt.SortOrder = Qt.AscendingOrder) -> None:
        if not 0 <= column < len(self.headers):
            return
        self.layoutAboutToBeChanged.emit()
        old_persistent = self.persistentIndexList()
        old_rows = [self._rows[i.row()] for i in old_persistent]
        desc = order == Qt.DescendingOrder
        nums, texts, nones = [], [], []
        for r in self._rows:
            v = self.sort_value(r, column)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                nones.append(r)
            elif isinstance(v, (int, float)):
                nums.append((v, r))
            else:
                texts.append((str(v).casefold(), r))
        nums.sort(key=lambda p: p[0], reverse=desc)
        texts.sort(key=lambda p: p[0], reverse=desc)
        keyed = [r for _, r in nums] + [r for _, r in texts] + nones
        self._rows = keyed
        self._sort = (column, order)
        pos = {id(r): i for i, r in enumerate(self._rows)}
        new = [self.index(pos[id(r)], i.column()) for r, i in zip(old_rows, old_persistent)]
        self.changePersistentIndexList(old_persistent, new)
        self.layoutChanged.emit()


@dataclass
class _SourceRow:
    index: int
    text: str
    doc: str
    refs: int
    cands: int
    scored: int
    systems: frozenset


class SourceTableModel(_SortableModel):
    """Sources of a database: number, text, references, candidates, scored candidates."""

    headers = ["#", "Source", "Refs", "Cands", "Scored"]
    COL_INDEX, COL_TEXT, COL_REFS, COL_CANDS, COL_SCORED = range(5)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.db: Database | None = None
        self._row_of: dict[int, int] = {}
        self.classes: list[str] = []

    def set_database(self, db: Database | None) -> None:
        self.beginResetModel()
        self.db = db
        self.classes = db.human_classes if db is not None else []
        self._rows = [self._make(i) for i in range(len(db.sources))] if db is not None else []
        self._sort = None
        self.endResetModel()
        self._reindex()

    def _make(self, i: int) -> _SourceRow:
        db = self.db
        src = db.sources[i]
        refs = cands = scored = 0
        systems = set()
        for t in src.targets:
            if db.is_reference(t):
                refs += 1
            else:
                cands += 1
                systems.add(t.system or "")
                if target_scored(t, self.classes):
                    scored += 1
        doc = f"{src.doc or ''}:{src.seg or ''}" if (src.doc or src.seg) else ""
        return _SourceRow(i, src.text, doc, refs, cands, scored, frozenset(systems))

    def _reindex(self) -> None:
        self._row_of = {r.index: k for k, r in enumerate(self._rows)}

    def sort(self, column, order=Qt.AscendingOrder) -> None:
        super().sort(column, order)
        self._reindex()

    def refresh_source(self, source_index: int) -> None:
        """Recount one source (after a score change)."""
        k = self._row_of.get(source_index)
        if k is None or self.db is None:
            return
        self._rows[k] = self._make(source_index)
        self.dataChanged.emit(self.index(k, 0), self.index(k, len(self.headers) - 1))

    def row_for_source(self, source_index: int) -> int:
        return self._row_of.get(source_index, -1)

    def row(self, k: int) -> _SourceRow:
        return self._rows[k]

    def state(self, r: _SourceRow) -> str:
        if r.cands == 0 or r.scored == r.cands:
            return SCORED_COMPLETE
        return SCORED_NONE if r.scored == 0 else SCORED_PARTIAL

    def sort_value(self, r: _SourceRow, column: int):
        return (r.index, r.text, r.refs, r.cands, r.scored / r.cands if r.cands else None)[column]

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        c = index.column()
        if role == _DISPLAY:
            if c == self.COL_INDEX:
                return r.index
            if c == self.COL_TEXT:
                return r.text
            if c == self.COL_REFS:
                return r.refs
            if c == self.COL_CANDS:
                return r.cands
            if c == self.COL_SCORED:
                return f"{r.scored}/{r.cands}"
        elif role == _FORMAT and c == self.COL_INDEX:
            return _ONE_BASED
        elif role == SORT_ROLE:
            return self.sort_value(r, c)
        elif role == KEY_ROLE:
            return r.index
        elif role == KIND_ROLE:
            return self.state(r)
        elif role == _TOOLTIP and c == self.COL_TEXT:
            tip = r.text
            if r.doc:
                tip = f"[{r.doc}] {tip}"
            return tip
        elif role == _ALIGN and c != self.COL_TEXT:
            return _RIGHT
        elif role == _FOREGROUND and c == self.COL_SCORED:
            st = self.state(r)
            if st == SCORED_COMPLETE:
                return _tint("#2e7d32")
        return None


class SourceFilterProxy(ModelSortedProxy):
    """Filters sources by text, by system, and by scored state; counts in ``countsChanged``."""

    countsChanged = Signal(int, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._text = ""
        self._system: str | None = None
        self._state = SCORED_ALL

    def set_text(self, text: str) -> None:
        self._text = text.casefold().strip()
        self._refilter()

    def set_system(self, system: str | None) -> None:
        self._system = system or None
        self._refilter()

    def set_state(self, state: str) -> None:
        self._state = state
        self._refilter()

    def _refilter(self) -> None:
        refilter(self)
        self.countsChanged.emit(self.rowCount(), self.sourceModel().rowCount() if self.sourceModel() else 0)

    def filterAcceptsRow(self, row: int, parent) -> bool:
        m: SourceTableModel = self.sourceModel()
        r = m.row(row)
        if self._text and self._text not in r.text.casefold():
            return False
        if self._system is not None and self._system not in r.systems:
            return False
        if self._state != SCORED_ALL and m.state(r) != self._state:
            return False
        return True


class TargetTableModel(_SortableModel):
    """Targets of one source (``set_source``) or of all sources (``show_all``).

    Columns: source number, kind (ref/cand), system, translation, one column per
    human score class (mean over judges; ``≈`` marks an extrapolated score),
    judges.
    """

    FIXED = ["Src", "Kind", "System", "Translation"]

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.db: Database | None = None
        self.classes: list[str] = []
        self.headers = list(self.FIXED) + ["Judges"]
        self.source_index: int | None = None
        self._ref_font = QFont()
        self._ref_font.setBold(True)
        self._ext_font = QFont()
        self._ext_font.setItalic(True)

    # rows: (source_index, target_index, kind, system, text, values tuple, extrapolated tuple, judges)
    def set_database(self, db: Database | None) -> None:
        self.db = db
        self.classes = list(db.human_classes) if db is not None else []
        self.beginResetModel()
        self.headers = list(self.FIXED) + self.classes + ["Judges"]
        self._rows = []
        self.source_index = None
        self.endResetModel()

    def set_source(self, source_index: int | None) -> None:
        self.beginResetModel()
        self.source_index = source_index
        self._rows = [] if source_index is None or self.db is None else [
            self._make(source_index, j) for j in range(len(self.db.sources[source_index].targets))]
        self._sort = None
        self.endResetModel()

    def show_all(self) -> None:
        """All targets of the database (tens of thousands of rows)."""
        self.beginResetModel()
        self.source_index = None
        db = self.db
        self._rows = [] if db is None else [
            self._make(i, j) for i, src in enumerate(db.sources) for j in range(len(src.targets))]
        self._sort = None
        self.endResetModel()

    def _make(self, i: int, j: int) -> tuple:
        t = self.db.sources[i].targets[j]
        kind = "ref" if self.db.is_reference(t) else "cand"
        vals = []
        ext = []
        for c in self.classes:
            human = [s.value for s in t.scores if s.cls == c and not s.extrapolated]
            if human:
                vals.append(sum(human) / len(human))
                ext.append(False)
            else:
                guess = [s.value for s in t.scores if s.cls == c]
                vals.append(sum(guess) / len(guess) if guess else None)
                ext.append(bool(guess))
        judges = ", ".join(sorted({s.judge for s in t.scores if s.judge}))
        return (i, j, kind, t.system or "", t.text, tuple(vals), tuple(ext), judges)

    def refresh_target(self, source_index: int, target_index: int) -> None:
        for k, r in enumerate(self._rows):
            if r[0] == source_index and r[1] == target_index:
                self._rows[k] = self._make(source_index, target_index)
                self.dataChanged.emit(self.index(k, 0), self.index(k, len(self.headers) - 1))
                return

    def row_of(self, source_index: int, target_index: int) -> int:
        for k, r in enumerate(self._rows):
            if r[0] == source_index and r[1] == target_index:
                return k
        return -1

    def key(self, k: int) -> tuple[int, int]:
        r = self._rows[k]
        return r[0], r[1]

    def row(self, k: int) -> tuple:
        return self._rows[k]

    def sort_value(self, r: tuple, column: int):
        n = len(self.FIXED)
        if column == 0:
            return r[0]
        if column < n:
            return r[column + 1]
        if column < n + len(self.classes):
            return r[5][column - n]
        return r[7]

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        r = self._rows[index.row()]
        c = index.column()
        n = len(self.FIXED)
        if role == _DISPLAY:
            if c == 0:
                return r[0]
            if c < n:
                return r[c + 1]
            if c < n + len(self.classes):
                return r[5][c - n]
            return r[7]
        if role == _FORMAT:
            if c == 0:
                return _ONE_BASED
            if n <= c < n + len(self.classes):
                return EXTRAPOLATED_FORMAT if r[6][c - n] else SCORE_FORMAT
            return None
        if role == SORT_ROLE:
            return self.sort_value(r, c)
        if role == KEY_ROLE:
            return (r[0], r[1])
        if role == KIND_ROLE:
            return r[2]
        if role == _FONT:
            if r[2] == "ref":
                return self._ref_font
            if n <= c < n + len(self.classes) and r[6][c - n]:
                return self._ext_font
        if role == _TOOLTIP:
            if c == 3:
                return r[4]
            if n <= c < n + len(self.classes) and r[6][c - n]:
                return "extrapolated from similar scored translations"
        if role == _ALIGN and c >= n and c < n + len(self.classes):
            return _RIGHT
        if role == _ALIGN and c == 3:
            return _LEFT
        return None


class TargetFilterProxy(ModelSortedProxy):
    """Filters targets by text, system and kind; sorting is delegated to the model."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._text = ""
        self._system: str | None = None
        self._kind: str | None = None

    def set_text(self, text: str) -> None:
        self._text = text.casefold().strip()
        refilter(self)

    def set_system(self, system: str | None) -> None:
        self._system = system or None
        refilter(self)

    def set_kind(self, kind: str | None) -> None:
        self._kind = kind or None
        refilter(self)

    def filterAcceptsRow(self, row: int, parent) -> bool:
        if not (self._text or self._system or self._kind):
            return True
        r = self.sourceModel().row(row)
        if self._kind and r[2] != self._kind:
            return False
        if self._system is not None and r[3] != self._system:
            return False
        if self._text and self._text not in r[4].casefold():
            return False
        return True


def _tint(color: str):
    from PySide6.QtGui import QColor
    c = QColor(color)
    app = QApplication.instance()
    if app is not None and app.palette().color(QPalette.Base).lightness() < 128:
        c = c.lighter(170)
    return c


__all__ = ["SourceTableModel", "SourceFilterProxy", "TargetTableModel", "TargetFilterProxy",
           "SORT_ROLE", "KEY_ROLE", "KIND_ROLE", "SCORED_STATES", "target_scored",
           "QPersistentModelIndex"]
