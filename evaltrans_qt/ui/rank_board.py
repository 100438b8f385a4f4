"""Rank rows of one ranking task: a Qt model of candidates placed in rank bins, and the
widget that shows each bin as a row of draggable chips.

:class:`RankBinsModel` shows a Qt-free :class:`~evaltrans_qt.ranking_session.Board` (the
ranks are the board's) as a two-level item model: the top-level rows are the bins --
"not placed", rank 1 .. rank N and, for short segments, "unusable" (rank N+1, Macháček
§2.2/§3.1) -- and their children are the candidates placed there (ties: several
candidates in one bin). A candidate is moved with :meth:`RankBinsModel.request`, which
both keyboard and drag and drop use: a real drop arrives in :meth:`dropMimeData` (the
mime data of :meth:`mimeData`, bin = the parent index of the drop), so tests of the
drop go through the code path a mouse drop uses. ``request`` hands the move to
``on_request`` (the screen's session makes it an undoable step) or applies it with
:meth:`place`; the rows follow the board's ``moved`` signal, whoever moved it.

:class:`RankBoard` shows a model: one labelled :class:`QListView` per bin, its root
index that bin, chips flowing left to right (segments) or one per line (sentences).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

from PySide6.QtCore import (
    QAbstractItemModel,
    QItemSelectionModel,
    QMimeData,
    QModelIndex,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QLabel,
    QListView,
    QSizePolicy,
    QWidget,
)

from evaltrans_qt.ranking_session import Board

MIME_TYPE = "application/x-evaltrans-rank-candidate"
#: Bin 0 holds the candidates not placed yet.
UNPLACED = 0
_BIN_ID = 0          # internal id of a bin index; a candidate's is its bin + 1

_CHIP_STYLE = """
QListView { background: %s; border: 1px solid #c8ccd4; border-radius: 3px; }
QListView::item { border: 2px solid #a9b1bf; border-radius: 3px; padding: 2px 6px;
                  margin: 2px; background: #ffffff; color: #111; }
QListView::item:selected { border: 2px solid #0072B2; background: #dcebf7; color: #111; }
"""


class RankBinsModel(QAbstractItemModel):
    """The candidates of a :class:`~evaltrans_qt.ranking_session.Board` in bins 0 (not
    placed), 1..n (ranks) and, with ``unusable``, n+1 (see module doc). The ranks are the
    board's (a Qt-free model); this model only lays them out in rows and follows the
    board's ``moved`` signal."""

    def __init__(self, board: Board, parent=None) -> None:
        super().__init__(parent)
        self.board = board
        self.bins: list[list[int]] = [[] for _ in range(board.max_rank + 1)]
        for c in range(board.n):
            self.bins[board.rank_of(c) or UNPLACED].append(c)
        self.token = uuid.uuid4().hex            # drops from another board are refused
        #: Where a move asked for by the keyboard or a drop goes (the screen's session
        #: makes it an undoable step); None: :meth:`place` at once.
        self.on_request: Callable[[int, int | None], None] | None = None
        board.moved.connect(self._moved)

    # ------------------------------------------------------------------ state (the board's)
    @property
    def labels(self) -> list[str]:
        return self.board.labels

    @property
    def tooltips(self) -> list[str]:
        return self.board.tooltips

    @property
    def unusable(self) -> bool:
        return self.board.unusable

    @property
    def n(self) -> int:
        return self.board.n

    @property
    def max_rank(self) -> int:
        """The highest rank: N, or N+1 (= unusable) for short segments."""
        return self.board.max_rank

    def rank_of(self, c: int) -> int | None:
        return self.board.rank_of(c)

    def ranks(self) -> list[int | None]:
        return self.board.ranks()

    def unplaced(self) -> list[int]:
        return self.board.unplaced()

    def complete(self) -> bool:
        return self.board.complete()

    def bin_name(self, b: int) -> str:
        if b == UNPLACED:
            return "not placed"
        if self.unusable and b == self.max_rank:
            return f"unusable ({b})"
        return f"rank {b}" + (" (best)" if b == 1 else "")

    def request(self, c: int, rank: int | None) -> bool:
        """Move candidate ``c`` to ``rank`` (None: not placed) -- keyboard and drops alike:
        through ``on_request`` (an undoable step) when set, else at once."""
        if not self.board.valid(c, rank) or self.board.rank_of(c) == rank:
            return False
        if self.on_request is not None:
            self.on_request(c, rank)
        else:
            self.place(c, rank)
        return True

    def place(self, c: int, rank: int | None) -> None:
        """Put candidate ``c`` into bin ``rank`` (the board's; the rows follow)."""
        self.board.place(c, rank)

    def _moved(self, c: int, old: int | None, new: int | None) -> None:
        """The board moved ``c``: from its row to the new bin's (after the candidates
        already there, in their original order: a stable reading order)."""
        ob, nb = old or UNPLACED, new or UNPLACED
        if ob == nb or c not in self.bins[ob]:
            return
        row = self.bins[ob].index(c)
        self.beginRemoveRows(self.index(ob, 0), row, row)
        self.bins[ob].pop(row)
        self.endRemoveRows()
        pos = sum(1 for x in self.bins[nb] if x < c)
        self.beginInsertRows(self.index(nb, 0), pos, pos)
        self.bins[nb].insert(pos, c)
        self.endInsertRows()

    def candidate_index(self, c: int) -> QModelIndex:
        b = self.board.rank_of(c) or UNPLACED
        return self.index(self.bins[b].index(c), 0, self.index(b, 0))

    # ------------------------------------------------------------------ Qt model API
    def index(self, row: int, column: int = 0, parent: QModelIndex = QModelIndex()) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, _BIN_ID) if row < len(self.bins) else QModelIndex()
        if parent.internalId() != _BIN_ID:
            return QModelIndex()
        b = parent.row()
        return self.createIndex(row, 0, b + 1) if row < len(self.bins[b]) else QModelIndex()

    def parent(self, index: QModelIndex | None = None):  # type: ignore[override]
        if index is None:                      # QObject.parent()
            return super().parent()
        if not index.isValid() or index.internalId() == _BIN_ID:
            return QModelIndex()
        return self.createIndex(int(index.internalId()) - 1, 0, _BIN_ID)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self.bins)
        if parent.internalId() == _BIN_ID:
            return len(self.bins[parent.row()])
        return 0

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 1

    def candidate_of(self, index: QModelIndex) -> int | None:
        if not index.isValid() or index.internalId() == _BIN_ID:
            return None
        return self.bins[int(index.internalId()) - 1][index.row()]

    def bin_of(self, index: QModelIndex) -> int | None:
        """The bin an index stands for (a candidate's index: the bin it is in)."""
        if not index.isValid():
            return None
        return index.row() if index.internalId() == _BIN_ID else int(index.internalId()) - 1

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        c = self.candidate_of(index)
        if c is None:
            return self.bin_name(index.row()) if role == Qt.DisplayRole else None
        if role == Qt.DisplayRole:
            return self.labels[c]
        if role == Qt.ToolTipRole:
            return self.tooltips[c] or None
        if role == Qt.UserRole:
            return c
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlags:
        if not index.isValid():
            return Qt.ItemIsDropEnabled
        if index.internalId() == _BIN_ID:
            return Qt.ItemIsEnabled | Qt.ItemIsDropEnabled
        return Qt.ItemIsEnabled | Qt.ItemIsSelectable | Qt.ItemIsDragEnabled

    def supportedDropActions(self) -> Qt.DropActions:
        return Qt.MoveAction

    def supportedDragActions(self) -> Qt.DropActions:
        return Qt.MoveAction

    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, indexes) -> QMimeData:
        cands = [c for c in (self.candidate_of(i) for i in indexes) if c is not None]
        md = QMimeData()
        md.setData(MIME_TYPE, json.dumps({"board": self.token, "candidates": cands}).encode())
        return md

    def _decode(self, data: QMimeData) -> list[int] | None:
        if data is None or not data.hasFormat(MIME_TYPE):
            return None
        try:
            d = json.loads(bytes(data.data(MIME_TYPE)).decode())
        except ValueError:
            return None
        if d.get("board") != self.token:
            return None
        return [c for c in d.get("candidates", []) if isinstance(c, int) and 0 <= c < self.n]

    def canDropMimeData(self, data, action, row, column, parent) -> bool:
        return bool(self._decode(data)) and self.bin_of(parent) is not None

    def dropMimeData(self, data, action, row, column, parent) -> bool:
        """A drop on a bin row (or on a candidate in it): move the dragged candidates there.
        The dragging view's clean-up after a MoveAction removes nothing (removeRows is
        refused): the move is done here."""
        cands = self._decode(data)
        b = self.bin_of(parent)
        if not cands or b is None:
            return False
        for c in cands:
            self.request(c, b or None)
        return True

    # a move is never a remove: the view's clean-up after a MoveAction must not delete rows
    def removeRows(self, row: int, count: int, parent: QModelIndex = QModelIndex()) -> bool:
        return False


class _BinView(QListView):
    """One bin's chips; grows with its content (no inner scroll bar)."""

    def __init__(self, vertical: bool, parent=None) -> None:
        super().__init__(parent)
        self.vertical = vertical
        self.setFlow(QListView.TopToBottom if vertical else QListView.LeftToRight)
        self.setWrapping(not vertical)
        self.setResizeMode(QListView.Adjust)
        self.setWordWrap(vertical)
        self.setUniformItemSizes(False)
        self.setDragDropMode(QAbstractItemView.DragDrop)
        self.setDefaultDropAction(Qt.MoveAction)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setFocusPolicy(Qt.NoFocus)        # the screen handles the keyboard
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self._line = self.fontMetrics().height() + 16
        self.setFixedHeight(self._line + 6)

    def fit(self) -> None:
        """Height = the chips' (laid out for the current width), at least one line."""
        model, root = self.model(), self.rootIndex()
        bottom = 0
        if model is not None and root.isValid():
            self.executeDelayedItemsLayout()
            for r in range(model.rowCount(root)):
                rect = self.visualRect(model.index(r, 0, root))
                bottom = max(bottom, rect.bottom() + self.verticalOffset())
        self.setFixedHeight(max(self._line + 6, bottom + 2 * self.frameWidth() + 8))

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        QTimer.singleShot(0, self.fit)

    def sizeHint(self) -> QSize:
        return QSize(400, self.minimumHeight())


class RankBoard(QWidget):
    """The bins of a :class:`RankBinsModel` as labelled rows of chips: "not placed" first,
    then rank 1 .. N and "unusable". ``candidateClicked(c)`` via ``on_click``."""

    def __init__(self, model: RankBinsModel, vertical: bool = False, name: str = "rankBoard",
                 on_click: Callable[[int], None] | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.model = model
        self.on_click = on_click
        self.views: dict[int, _BinView] = {}
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        order = [UNPLACED] + list(range(1, model.max_rank + 1))
        for row, b in enumerate(order):
            label = QLabel(model.bin_name(b))
            label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
            label.setMinimumWidth(90)
            view = _BinView(vertical)
            view.setObjectName(f"{name}_bin{b}")
            view.setModel(model)
            view.setRootIndex(model.index(b, 0))
            bg = "#fff5e6" if b == UNPLACED else "#fbeaea" if model.unusable and \
                b == model.max_rank else "#f4f6fa"
            view.setStyleSheet(_CHIP_STYLE % bg)
            view.clicked.connect(lambda idx, m=model: self._clicked(m.candidate_of(idx)))
            grid.addWidget(label, row, 0)
            grid.addWidget(view, row, 1)
            self.views[b] = view
        grid.setColumnStretch(1, 1)
        model.rowsInserted.connect(lambda *_: QTimer.singleShot(0, self.fit))
        model.rowsRemoved.connect(lambda *_: QTimer.singleShot(0, self.fit))
        QTimer.singleShot(0, self.fit)

    def _clicked(self, c: int | None) -> None:
        if c is not None and self.on_click is not None:
            self.on_click(c)

    def fit(self) -> None:
        for v in self.views.values():
            v.fit()

    def show_current(self, c: int | None) -> None:
        """Select candidate ``c`` (the keyboard cursor) in the row that holds it; None clears."""
        for v in self.views.values():
            v.clearSelection()
        if c is None:
            return
        b = self.model.rank_of(c) or UNPLACED
        idx = self.model.candidate_index(c)
        v = self.views[b]
        v.selectionModel().select(idx, QItemSelectionModel.ClearAndSelect)
        v.setCurrentIndex(idx)
        v.scrollTo(idx)

    def chip_rect(self, c: int):
        """(view, rectangle of candidate ``c``'s chip in its viewport) -- for mouse tests."""
        b = self.model.rank_of(c) or UNPLACED
        v = self.views[b]
        return v, v.visualRect(self.model.candidate_index(c))
