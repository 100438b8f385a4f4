"""Qt models over result tables (pandas frames from ``engine/tables.py``).

:class:`FrameModel` is a read-only ``QAbstractTableModel``: ``Qt.DisplayRole``
is formatted text, :data:`RAW_ROLE` the real value (floats for sorting and
export). :class:`ResultsProxy` sorts numerically with NaN last in either
direction (as Orange3 does), filters by text and by an optional row mask.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt

RAW_ROLE = Qt.UserRole + 1


def format_value(v: object, decimals: int = 4) -> str:
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return ""
        return f"{v:.{decimals}f}"
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return "" if v is None else str(v)


class FrameModel(QAbstractTableModel):
    """A read-only table over a DataFrame; replace it with :meth:`set_frame`."""

    def __init__(self, frame: pd.DataFrame | None = None, parent=None,
                 tooltips: dict[str, str] | None = None) -> None:
        super().__init__(parent)
        self._frame = pd.DataFrame()
        self._columns: list[str] = []
        self._values: list[np.ndarray] = []
        self._tooltips = tooltips or {}
        if frame is not None:
            self.set_frame(frame)

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def set_frame(self, frame: pd.DataFrame, tooltips: dict[str, str] | None = None) -> None:
        self.beginResetModel()
        self._frame = frame.reset_index(drop=True)
        self._columns = [str(c) for c in frame.columns]
        self._values = [frame[c].to_numpy() for c in frame.columns]
        if tooltips is not None:
            self._tooltips = tooltips
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._frame)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        v = self._values[index.column()][index.row()]
        if role == Qt.DisplayRole:
            return format_value(v)
        if role == RAW_ROLE:
            if isinstance(v, (np.floating, float)):
                return float(v)
            if isinstance(v, np.integer):
                return int(v)
            return v
        if role == Qt.TextAlignmentRole and isinstance(v, (float, np.floating, np.integer)):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ToolTipRole and isinstance(v, str) and len(v) > 40:
            return v
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):  # noqa: N802
        if orientation == Qt.Horizontal and 0 <= section < len(self._columns):
            name = self._columns[section]
            if role == Qt.DisplayRole:
                return name.removeprefix("human:") + (" (human)" if name.startswith("human:") else "")
            if role == Qt.ToolTipRole:
                return self._tooltips.get(name, name)
        if orientation == Qt.Vertical and role == Qt.DisplayRole:
            return str(section + 1)
        return None

    def column_index(self, name: str) -> int:
        return self._columns.index(name)


class ResultsProxy(QSortFilterProxyModel):
    """Numeric sort with NaN last in both directions; text filter; optional row mask."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortRole(RAW_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseInsensitive)
        self.setFilterKeyColumn(-1)
        self._mask: np.ndarray | None = None

    def set_row_mask(self, mask: np.ndarray | None) -> None:
        """Show only source rows where ``mask`` is true (None: all rows)."""
        if hasattr(self, "beginFilterChange"):      # Qt >= 6.10
            self.beginFilterChange()
            self._mask = None if mask is None else np.asarray(mask, dtype=bool)
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._mask = None if mask is None else np.asarray(mask, dtype=bool)
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:  # noqa: N802
        if self._mask is not None and (row >= len(self._mask) or not self._mask[row]):
            return False
        return super().filterAcceptsRow(row, parent)

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:  # noqa: N802
        a = left.data(RAW_ROLE)
        b = right.data(RAW_ROLE)
        a_nan = a is None or (isinstance(a, float) and math.isnan(a))
        b_nan = b is None or (isinstance(b, float) and math.isnan(b))
        if a_nan or b_nan:
            # NaN sorts last whichever direction: in descending order Qt inverts
            # lessThan, so NaN must then compare as smallest.
            descending = self.sortOrder() == Qt.DescendingOrder
            if a_nan and b_nan:
                return False
            return (not a_nan) != descending
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)
