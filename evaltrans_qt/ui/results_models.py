"""The tables of the user interface: one model, one proxy, one number delegate.

Every table the UI shows is a :class:`FrameModel` (a read-only ``QAbstractTableModel``
over a pandas frame, e.g. from ``engine/run/tables.py``) behind a :class:`ResultsProxy`,
drawn by a :class:`NumberDelegate` -- :func:`table_view` builds the three together
(:func:`attach_frame_model` for a view subclass).

* The model keeps the frame's values: ``Qt.DisplayRole``, ``Qt.EditRole`` and
  :data:`RAW_ROLE` (``Qt.UserRole``) all give the raw value (float, int, str or None),
  which is what sorting compares and what tests and exports read. A column may be given
  labels instead (:meth:`FrameModel.set_cell_data` with ``Qt.DisplayRole``: the sources'
  ``2/4`` scored, sorted by its ratio); ``RAW_ROLE`` is the value all the same.
* Roles beyond the value come per cell (:meth:`FrameModel.set_cell_data`: a column's
  format, font, tooltip, alignment, colour, row by row), per row
  (:meth:`FrameModel.set_row_data`: the same for every cell of a row) or by default
  (numbers right-aligned, long texts as their own tooltip), in that order.
* One row changes in place (:meth:`FrameModel.update_row`: values and roles of one
  frame row, ``dataChanged`` for that row only): a score given in a session updates
  its row of a 20 000-row table without a reset. The row stays where it is until the
  table is sorted or filtered again.
* :class:`NumberDelegate` is the one place numbers become text: each column's
  :class:`NumberFormat` (:data:`FORMAT_ROLE`; by default four decimals, NaN blank).
* Sorting puts NaN/None last in both directions. The rule is
  :meth:`ResultsProxy.lessThan`; for a :class:`FrameModel` the proxy hands the sort to
  the model, which applies the same rule with numpy in one step: sorting the 20 000
  sentences of WMT21 en-de through a Python ``lessThan`` freezes the window for
  seconds (about 290 000 calls), the numpy sort takes milliseconds. Filtering (a row
  mask, a text filter) is done by the model the same way.

The model shows the frame rows listed in :attr:`FrameModel.order` (the rows passing
the row mask and text filter, in sort order); masks are kept in the frame's original
row order, so they survive re-sorting. Sorting and filtering are layout changes, not
resets: the current row and the selection stay on their rows while those are shown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import replace as dataclasses_replace
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

#: The raw value of a cell (the same as Qt.DisplayRole and Qt.EditRole): the sort key.
RAW_ROLE = Qt.ItemDataRole.UserRole.value
#: The :class:`NumberFormat` of a cell (its column's); past the roles of ``ui/models.py``.
FORMAT_ROLE = Qt.ItemDataRole.UserRole.value + 16

_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_EDIT = Qt.ItemDataRole.EditRole.value
_ALIGN = Qt.ItemDataRole.TextAlignmentRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_RIGHT = int((Qt.AlignRight | Qt.AlignVCenter).value)


@dataclass(frozen=True)
class NumberFormat:
    """How a column's numbers read: ``decimals`` places (style ``"f"``) or significant
    digits (style ``"g"``; ``NumberFormat("g", 6)`` is Python's ``:g``), ``missing`` for
    NaN and None, ``infinite`` for ±inf (None: Python's ``inf``), ``offset`` added to
    integers (1: a 0-based index counted from 1, as the source list counts), ``whole``:
    a float without a fraction as ``:g`` writes it (``3``), and a ``prefix`` before
    every number."""

    style: str = "f"
    decimals: int = 4
    missing: str = ""
    infinite: str | None = None
    offset: int = 0
    whole: bool = False
    prefix: str = ""
    #: a float is shown times ``factor`` (100: a fraction as sacreBLEU's 0-100 display)
    factor: float = 1.0

    def text(self, v: object) -> str:
        if v is None:
            return self.missing
        if isinstance(v, (bool, np.bool_)):
            return str(bool(v))
        if isinstance(v, (int, np.integer)):
            return f"{self.prefix}{int(v) + self.offset}"
        if isinstance(v, (float, np.floating)):
            if math.isnan(v):
                return self.missing
            v = v * self.factor
            if math.isinf(v):
                return f"{self.prefix}{v:g}" if self.infinite is None else self.infinite
            if self.whole and v == int(v):
                return f"{self.prefix}{v:g}"
            return f"{self.prefix}{v:.{self.decimals}{self.style}}"
        return str(v)


#: Four decimals, NaN blank: every column without a format of its own.
DEFAULT_FORMAT = NumberFormat()
#: Python's ``:g`` (score values: ``3``, ``2.5``).
GENERAL_FORMAT = NumberFormat("g", 6)
#: Four decimals; NaN and ±inf as a dash (statistics that may be undefined).
DASH_FORMAT = NumberFormat(missing="–", infinite="–")

#: Index columns shown counting from 1 (the source list's numbers); values stay 0-based.
ONE_BASED = {"segment": NumberFormat(offset=1)}


#: Display scales of the measures sacreBLEU reports on 0-100 (BLEU, chrF, TER): the name
#: the results view's ``scaleSelector`` shows and the factor a fraction is shown times.
SCALES = {"0–100 (sacreBLEU)": 100.0, "0–1 (fractions)": 1.0}
DEFAULT_SCALE = "0–100 (sacreBLEU)"
#: Measures whose columns the scale applies to (sacreBLEU's ``score`` is 100 x fraction).
PERCENT_MEASURES = ("bleu", "chrf", "ter")
#: A percent column's format: two decimals (sacreBLEU prints one or two).
PERCENT_FORMAT = NumberFormat(decimals=2, factor=100.0)


def percent_columns(systems) -> set[str]:
    """The table columns of the :data:`PERCENT_MEASURES` (``BLEU``, ``BLEU-S``, ``chrF``,
    ``TER`` ...) in ``systems`` ({system: SystemResult}, a run's ``systems``), as their
    scores name them."""
    out: set[str] = set()
    for sr in (systems or {}).values():
        for m in PERCENT_MEASURES:
            if m in sr.scores:
                out.update(sr.scores[m].columns)
    return out


def scale_formats(columns, factor: float) -> dict[str, NumberFormat]:
    """Column formats of the display scale: ``columns`` (and their derived ``X 95% low``,
    ``X 95% high``, ``X A``, ``X B``) times ``factor`` when it is not 1."""
    if factor == 1.0:
        return {}
    fmt = dataclasses_replace(PERCENT_FORMAT, factor=factor)
    out = {}
    for c in columns:
        for suffix in ("", " 95% low", " 95% high", " A", " B"):
            out[f"{c}{suffix}"] = fmt
    return out


def format_number(v: object, fmt: NumberFormat | None = None) -> str:
    """``v`` as a table cell shows it (``fmt`` default: :data:`DEFAULT_FORMAT`)."""
    return (fmt or DEFAULT_FORMAT).text(v)


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, (float, np.floating)) and math.isnan(v))


def _real(v: object) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def sorts_before(a: object, b: object, descending: bool = False) -> bool:
    """Whether ``a`` is *less than* ``b`` for a sort (``QSortFilterProxyModel.lessThan``):
    numbers by value, anything else by its lower-cased text, NaN/None last in both
    directions (Qt sorts descending by asking ``lessThan(b, a)``)."""
    if _missing(a) or _missing(b):
        if _missing(a) and _missing(b):
            return False
        return _missing(a) == descending
    if _real(a) and _real(b):
        return float(a) < float(b)
    return str(a).lower() < str(b).lower()


def sort_order(values: np.ndarray, descending: bool) -> np.ndarray:
    """Stable permutation sorting ``values`` by :func:`sorts_before` in one numpy/pandas
    step (NaN/None last in both directions)."""
    if pd.api.types.is_numeric_dtype(values.dtype) and values.dtype != bool:
        v = values.astype(float)
        nan = np.isnan(v)
        key = -v if descending else v
        return np.lexsort((np.where(nan, 0.0, key), nan))
    s = pd.Series(values, dtype=object).map(lambda x: None if _missing(x) else str(x).lower())
    order = s.sort_values(ascending=not descending, na_position="last", kind="stable").index
    return order.to_numpy()


def _role(role: Any) -> int:
    """A Qt role (enum or int) as an int."""
    return int(getattr(role, "value", role))


def _plain(v: object) -> object:
    """A numpy scalar as the Python value Qt carries."""
    if isinstance(v, np.generic):
        return v.item()
    return v


class FrameModel(QAbstractTableModel):
    """A read-only table over a DataFrame; replace it with :meth:`set_frame` (or
    :meth:`set_columns`), change one row in place with :meth:`update_row`.

    ``tooltips`` are the header tooltips by column name; ``formats`` the
    :class:`NumberFormat` of columns by name (others: :data:`DEFAULT_FORMAT`)."""

    def __init__(self, frame: pd.DataFrame | None = None, parent=None,
                 tooltips: Mapping[str, str] | None = None,
                 formats: Mapping[str, NumberFormat] | None = None) -> None:
        super().__init__(parent)
        self._frame: pd.DataFrame | None = pd.DataFrame()   # None: built from the columns when read
        self._labels: list = []
        self._columns: list[str] = []
        self._values: list[np.ndarray] = []     # the columns (sorting, masks)
        self._owned: set[int] = set()
        self._plain_values: list[list | None] = []  # the same as Python values, when read
        self._total = 0                         # rows of the frame
        self._column_formats: list[NumberFormat] = []
        self._order = np.zeros(0, dtype=np.int64)
        self._shown: list[int] = []             # _order as a list (data())
        self._n = 0
        self._mask: np.ndarray | None = None
        self._text = ""
        self._sort: tuple[int, bool] | None = None
        self._tooltips = dict(tooltips or {})
        self._formats = {**ONE_BASED, **(formats or {})}
        self._row_data: dict[int, list] = {}
        self._cells: dict[int, dict[int, list]] = {}
        if frame is not None:
            self.set_frame(frame)

    @property
    def frame(self) -> pd.DataFrame:
        """The frame in its original row order (with the rows' updates)."""
        if self._frame is None:
            frame = pd.DataFrame(dict(enumerate(self._values)), index=pd.RangeIndex(self._total))
            frame.columns = pd.Index(self._labels)
            self._frame = frame
        return self._frame

    def set_frame(self, frame: pd.DataFrame, tooltips: Mapping[str, str] | None = None,
                  formats: Mapping[str, NumberFormat] | None = None) -> None:
        """Show ``frame`` (row and cell data are cleared, the sort column is kept if it
        still exists); ``tooltips`` and ``formats`` replace the previous ones when given."""
        frame = frame.reset_index(drop=True)
        self._set(list(frame.columns), [frame.iloc[:, k].to_numpy() for k in range(frame.shape[1])],
                  len(frame), frame, tooltips, formats)

    def set_columns(self, columns: Sequence[tuple[object, np.ndarray]],
                    tooltips: Mapping[str, str] | None = None,
                    formats: Mapping[str, NumberFormat] | None = None,
                    cells: Mapping[tuple[int, int], Sequence] | None = None,
                    rows: Mapping[int, Sequence] | None = None) -> None:
        """:meth:`set_frame` for a frame given as ``(name, values)`` columns of equal
        length, with its cell data (``{(role, column index): values}``, as
        :meth:`set_cell_data`) and row data (``{role: values}``, as :meth:`set_row_data`)
        in the same reset; the DataFrame is built only when :attr:`frame` is read. For a
        table replaced at every step (the translations of one source)."""
        arrays = [np.asarray(v) for _, v in columns]
        self._set([name for name, _ in columns], arrays, len(arrays[0]) if arrays else 0,
                  None, tooltips, formats, cells, rows)

    def _set(self, labels: list, arrays: list[np.ndarray], total: int,
             frame: pd.DataFrame | None, tooltips: Mapping[str, str] | None,
             formats: Mapping[str, NumberFormat] | None,
             cells: Mapping[tuple[int, int], Sequence] | None = None,
             rows: Mapping[int, Sequence] | None = None) -> None:
        self.beginResetModel()
        self._frame = frame
        self._labels = labels
        self._columns = [str(c) for c in labels]
        self._values = arrays
        self._owned = set()                     # columns copied for update_row
        self._plain_values = [None] * len(arrays)
        self._total = total
        self._row_data = {_role(role): list(v) for role, v in (rows or {}).items()}
        self._cells = {}
        for (role, c), v in (cells or {}).items():
            self._cells.setdefault(_role(role), {})[c] = list(v)
        if self._sort is not None and self._sort[0] >= len(self._columns):
            self._sort = None
        if tooltips is not None:
            self._tooltips = dict(tooltips)
        if formats is not None:
            self._formats = {**ONE_BASED, **formats}
        self._column_formats = [self._formats.get(c, DEFAULT_FORMAT) for c in self._columns]
        self._show_rows(self._visible())
        self.endResetModel()

    def set_row_data(self, role: int, values: Sequence | None) -> None:
        """Per frame row, the value of ``role`` for every cell of the row (e.g. a
        background colour, a bold font, a tooltip; None in a row: nothing). Kept until
        the next :meth:`set_frame`."""
        role = _role(role)
        if values is None:
            self._row_data.pop(role, None)
        else:
            self._row_data[role] = list(values)
        self._all_changed(role)

    def set_cell_data(self, role: int, column: int | str, values: Sequence | object,
                      every: bool = False) -> None:
        """Per frame row, the value of ``role`` in one column (by index or name): a
        sequence over the frame's rows, or with ``every`` one value for the whole column.
        The values given are the answer, None included (no row data, no default); None
        without ``every`` removes them. ``Qt.DisplayRole`` gives the column labels (the
        cells' text; sorting still compares the raw values). Kept until the next
        :meth:`set_frame`."""
        role = _role(role)
        c = column if isinstance(column, int) else self.column_index(column)
        if every:
            self._cells.setdefault(role, {})[c] = [values] * self._total
        elif values is None:
            self._cells.get(role, {}).pop(c, None)
        else:
            self._cells.setdefault(role, {})[c] = list(values)
        self._all_changed(role)

    def _all_changed(self, role: int) -> None:
        if self._n:
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self._n - 1, max(len(self._columns) - 1, 0)), [role])

    def update_row(self, frame_row: int, values: Mapping[int | str, object] | None = None,
                   cells: Mapping[tuple[int, int | str], object] | None = None,
                   rows: Mapping[int, object] | None = None) -> None:
        """Change row ``frame_row`` of the frame in place: raw ``values`` by column (index
        or name; a float column takes None as NaN, an integer column becomes float for a
        float or None), ``cells`` ``{(role, column): value}`` of columns given cell data
        (:meth:`set_cell_data`), ``rows`` ``{role: value}`` of its row data. One
        ``dataChanged`` for that row if it is shown; no reset, and the row keeps its place
        (sort and filters apply to it at the next :meth:`sort` or filter change)."""
        for col, v in (values or {}).items():
            self._store(col if isinstance(col, int) else self.column_index(col), frame_row, v)
        for (role, col), v in (cells or {}).items():
            c = col if isinstance(col, int) else self.column_index(col)
            self._cells[_role(role)][c][frame_row] = v
        for role, v in (rows or {}).items():
            self._row_data.setdefault(_role(role), [None] * self._total)[frame_row] = v
        k = self.row_of(frame_row)
        if k >= 0:
            self.dataChanged.emit(self.index(k, 0), self.index(k, max(len(self._columns) - 1, 0)))

    def _store(self, c: int, r: int, v: object) -> None:
        """Set frame row ``r`` of column ``c`` to ``v``, widening the column's dtype if needed."""
        arr = self._values[c]
        kind = arr.dtype.kind
        if kind != "O":
            number = v is None or (_real(v) and not isinstance(v, (bool, np.bool_)))
            if kind in "iu" and number and not isinstance(v, (int, np.integer)):
                arr = arr.astype(float)
            elif kind == "b" and isinstance(v, (bool, np.bool_)):
                pass
            elif not (kind in "iuf" and number):
                arr = arr.astype(object)
        if arr is self._values[c] and c not in self._owned:    # the caller's frame or array
            arr = arr.copy()
        self._owned.add(c)
        arr[r] = np.nan if v is None and arr.dtype.kind == "f" else v
        plain = self._plain_values[c]
        if plain is not None and arr.dtype == self._values[c].dtype:
            plain[r] = _plain(arr[r])
        else:
            self._plain_values[c] = None
        self._values[c] = arr
        self._frame = None

    def _visible(self) -> np.ndarray:
        n = self._total
        keep = np.ones(n, dtype=bool)
        if self._mask is not None:
            keep[:] = False
            m = self._mask[:n]
            keep[:len(m)] = m
        if self._text:
            keep &= self.text_mask(self._text)
        rows = np.flatnonzero(keep)
        if self._sort is not None and len(rows):
            col, desc = self._sort
            rows = rows[sort_order(self._values[col][rows], desc)]
        return rows.astype(np.int64)

    def _show_rows(self, order: np.ndarray) -> None:
        self._order = order
        self._shown = order.tolist()
        self._n = len(order)

    def _relayout(self) -> None:
        """Show :meth:`_visible` rows as a layout change: persistent indexes (the current
        row, the selection) follow their frame rows, or become invalid if filtered out."""
        self.layoutAboutToBeChanged.emit()
        old = self._shown
        self._show_rows(self._visible())
        olds = self.persistentIndexList()
        if olds:
            where = {r: i for i, r in enumerate(self._shown)}
            self.changePersistentIndexList(
                olds, [self.index(where[f], i.column())
                       if i.row() < len(old) and (f := old[i.row()]) in where
                       else QModelIndex() for i in olds])
        self.layoutChanged.emit()

    def set_row_mask(self, mask: np.ndarray | None) -> None:
        """Show only frame rows where ``mask`` is true (None: all rows)."""
        self._mask = None if mask is None else np.asarray(mask, dtype=bool)
        self._relayout()

    def set_text_filter(self, text: str) -> None:
        """Show only rows whose text columns contain ``text`` (case-insensitive)."""
        self._text = text.strip()
        self._relayout()

    # ---- rows as shown vs. rows of the frame
    def frame_row(self, row: int) -> int:
        """Row of :attr:`frame` shown at model row ``row``."""
        return self._shown[row]

    def row_of(self, frame_row: int) -> int:
        """Model row showing row ``frame_row`` of :attr:`frame` (-1: filtered out)."""
        at = np.flatnonzero(self._order == frame_row)
        return int(at[0]) if len(at) else -1

    def record(self, row: int) -> pd.Series:
        """The frame's record shown at model row ``row``."""
        return self.frame.iloc[self.frame_row(row)]

    @property
    def order(self) -> np.ndarray:
        return self._order

    # ---- Qt model interface
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._n

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: QModelIndex, role: int = _DISPLAY):
        # called for every role of every cell painted: plain ints and lists, no numpy here
        if role.__class__ is not int:
            role = _role(role)
        r = self._shown[index.row()]
        c = index.column()
        cells = self._cells.get(role)
        if cells is not None and role != RAW_ROLE and role != _EDIT:
            col = cells.get(c)
            if col is not None:
                return col[r]
        if role == _DISPLAY or role == RAW_ROLE or role == _EDIT:
            v = (self._plain_values[c] or self._plain_column(c))[r]
            return v.item() if isinstance(v, np.generic) else v
        if role == FORMAT_ROLE:
            return self._column_formats[c]
        per_row = self._row_data.get(role)
        if per_row is not None and r < len(per_row) and per_row[r] is not None:
            return per_row[r]
        if role == _ALIGN:
            return _RIGHT if _real((self._plain_values[c] or self._plain_column(c))[r]) else None
        if role == _TOOLTIP:
            v = (self._plain_values[c] or self._plain_column(c))[r]
            return v if isinstance(v, str) and len(v) > 40 else None
        return None

    def _plain_column(self, c: int) -> list:
        """Column ``c`` as a list of Python values (built when the column is first shown)."""
        plain = self._plain_values[c] = self._values[c].tolist()
        return plain

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY):
        if role.__class__ is not int:
            role = _role(role)
        if orientation == Qt.Horizontal and 0 <= section < len(self._columns):
            name = self._columns[section]
            if role == _DISPLAY:
                return name.removeprefix("human:") + (" (human)" if name.startswith("human:") else "")
            if role == _TOOLTIP:
                return self._tooltips.get(name, name)
        if orientation == Qt.Vertical and role == _DISPLAY:
            return str(section + 1)
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.AscendingOrder) -> None:
        """Sort by ``column`` (:func:`sort_order`; -1: the frame's own order)."""
        if column < 0:
            if self._sort is None:
                return
            self._sort = None
        elif column >= len(self._columns):     # e.g. requested before data arrived: remember
            self._sort = (column, order == Qt.DescendingOrder)
            return
        else:
            self._sort = (column, order == Qt.DescendingOrder)
        self._relayout()

    def column_index(self, name: str) -> int:
        return self._columns.index(name)

    def text_mask(self, text: str) -> np.ndarray:
        """Frame rows whose text columns contain ``text`` (case-insensitive), vectorised."""
        frame = self.frame
        mask = np.zeros(len(frame), dtype=bool)
        needle = text.lower()
        for k in range(frame.shape[1]):
            col = frame.iloc[:, k]
            if not pd.api.types.is_numeric_dtype(col):
                mask |= col.astype(str).str.lower().str.contains(needle, regex=False).to_numpy()
        return mask


def human_first(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns in reading order: system and segment, then the human scores, then the
    measures, and text columns last (where the table's last column stretches)."""
    cols = [str(c) for c in frame.columns]
    head = [c for c in ("system", "segment") if c in cols]
    human = [c for c in cols if c.startswith("human:")]
    text = [c for c in cols if c not in head and c not in human
            and not pd.api.types.is_numeric_dtype(frame[c])]
    rest = [c for c in cols if c not in head and c not in human and c not in text]
    return frame[head + human + rest + text]


class ResultsProxy(QSortFilterProxyModel):
    """The proxy of every table: sorts by the raw value with NaN/None last in both
    directions (:meth:`lessThan`). Over a :class:`FrameModel` it hands sorting and
    filtering to the model, which applies the same rule in one numpy step."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortRole(RAW_ROLE)

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:
        role = self.sortRole()
        return sorts_before(left.data(role), right.data(role),
                            self.sortOrder() == Qt.DescendingOrder)

    def sort(self, column: int, order: Qt.SortOrder = Qt.AscendingOrder) -> None:
        src = self.sourceModel()
        if isinstance(src, FrameModel):
            src.sort(column, order)
        else:
            super().sort(column, order)

    def set_row_mask(self, mask: np.ndarray | None) -> None:
        self.sourceModel().set_row_mask(mask)

    def set_text_filter(self, text: str) -> None:
        self.sourceModel().set_text_filter(text)


class NumberDelegate(QStyledItemDelegate):
    """Draws every table cell; the one place numbers become text (module doc)."""

    def displayText(self, value, locale) -> str:
        """``value`` in the default format (a view without a :data:`FORMAT_ROLE`)."""
        return format_number(value)

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().initStyleOption(option, index)
        text = self.text(index)
        if text:
            option.features |= QStyleOptionViewItem.HasDisplay
        option.text = text

    @staticmethod
    def text(index: QModelIndex) -> str:
        """The text cell ``index`` shows (its column's :class:`NumberFormat`)."""
        fmt = index.data(FORMAT_ROLE)
        return format_number(index.data(_DISPLAY), fmt if isinstance(fmt, NumberFormat) else None)


def cell_text(index: QModelIndex) -> str:
    """The text a table shows at ``index`` (as its :class:`NumberDelegate` draws it)."""
    return NumberDelegate.text(index)


def attach_frame_model(view: QTableView, tooltips: Mapping[str, str] | None = None,
                       formats: Mapping[str, NumberFormat] | None = None,
                       sortable: bool = True) -> tuple[FrameModel, ResultsProxy]:
    """Give ``view`` a :class:`FrameModel` behind a :class:`ResultsProxy`, drawn by a
    :class:`NumberDelegate`, selecting whole rows; sortable tables start in the frame's
    own order."""
    model = FrameModel(parent=view, tooltips=tooltips, formats=formats)
    proxy = ResultsProxy(view)
    proxy.setSourceModel(model)
    view.setModel(proxy)
    view.setItemDelegate(NumberDelegate(view))
    view.setSortingEnabled(sortable)
    # natural order (database / source order) until the user clicks a header
    view.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)
    view.setSelectionBehavior(QTableView.SelectRows)
    return model, proxy


def table_view(name: str, tooltips: Mapping[str, str] | None = None,
               formats: Mapping[str, NumberFormat] | None = None, sortable: bool = True,
               resize: QHeaderView.ResizeMode = QHeaderView.Interactive,
               stretch: bool = True, dense: bool = False,
               parent: QWidget | None = None) -> tuple[QTableView, FrameModel, ResultsProxy]:
    """A table view named ``name`` (:func:`attach_frame_model`), columns resized by
    ``resize``, the last one stretching (``stretch``); ``dense``: 22-pixel rows in
    alternating colours (the long result tables)."""
    view = QTableView(parent, objectName=name)
    model, proxy = attach_frame_model(view, tooltips, formats, sortable)
    view.horizontalHeader().setSectionResizeMode(resize)
    view.horizontalHeader().setStretchLastSection(stretch)
    if dense:
        view.setAlternatingRowColors(True)
        view.verticalHeader().setDefaultSectionSize(22)
    return view, model, proxy
