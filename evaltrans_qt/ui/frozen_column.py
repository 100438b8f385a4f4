"""A table's first column kept in view while the table scrolls sideways (the system or
measure a row is about stays beside its numbers in a wide table).

Qt's "Frozen Column" example (Qt documentation, *Frozen Column Example*): a second
:class:`QTableView` over the table's viewport shows only column 0 of the same model and
selection, and follows the table's rows, column width and vertical scrolling.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView


class FrozenColumn(QTableView):
    """Column 0 of ``view``, drawn over it (module doc); ``view.frozen_column`` is not set:
    find it as ``view.findChild(FrozenColumn)``."""

    def __init__(self, view: QTableView) -> None:
        super().__init__(view)
        self.setObjectName(f"{view.objectName()}_frozen")
        self.main = view
        self.setModel(view.model())
        self.setSelectionModel(view.selectionModel())
        self.setItemDelegate(view.itemDelegate())      # numbers drawn as in the table
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(view.verticalScrollMode())
        self.setAlternatingRowColors(view.alternatingRowColors())
        self.setSelectionBehavior(view.selectionBehavior())
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setStyleSheet("QTableView { border: none; border-right: 1px solid palette(mid); }")
        self.verticalHeader().setDefaultSectionSize(view.verticalHeader().defaultSectionSize())
        view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.viewport().stackUnder(self)
        view.horizontalHeader().sectionResized.connect(self._column_resized)
        view.verticalHeader().sectionResized.connect(lambda row, _o, h: self.setRowHeight(row, h))
        view.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        self.verticalScrollBar().valueChanged.connect(view.verticalScrollBar().setValue)
        # sorting stays the table's: a click here sorts it by column 0, its indicator shows
        head, main_head = self.horizontalHeader(), view.horizontalHeader()
        head.setSectionsClickable(view.isSortingEnabled())
        head.setSortIndicatorShown(main_head.isSortIndicatorShown())
        head.setSortIndicator(main_head.sortIndicatorSection(), main_head.sortIndicatorOrder())
        main_head.sortIndicatorChanged.connect(self._mirror_sort)
        head.sectionClicked.connect(self._sort)
        model = view.model()
        for sig in (model.modelReset, model.columnsInserted, model.columnsRemoved,
                    model.layoutChanged):
            sig.connect(self.refresh)
        view.installEventFilter(self)
        self.refresh()

    def _mirror_sort(self, col: int, order: Qt.SortOrder) -> None:
        self.horizontalHeader().setSortIndicator(col, order)

    def _sort(self, col: int) -> None:
        """Column 0's header clicked: the table sorts by it (again: the other way)."""
        head = self.main.horizontalHeader()
        order = Qt.SortOrder.AscendingOrder
        if head.sortIndicatorSection() == col and head.sortIndicatorOrder() == order:
            order = Qt.SortOrder.DescendingOrder
        self.main.sortByColumn(col, order)

    def refresh(self, *_args: object) -> None:
        """Only column 0 shown, as wide as the table's; hidden while the table has no rows
        or a single column (nothing to keep in view)."""
        model = self.model()
        for c in range(model.columnCount()):
            self.setColumnHidden(c, c != 0)
        self.setVisible(model.columnCount() > 1 and model.rowCount() > 0)
        self._column_resized(0, 0, self.main.columnWidth(0))

    def _column_resized(self, col: int, _old: int, width: int) -> None:
        if col == 0:
            self.setColumnWidth(0, width)
            self._place()

    def _place(self) -> None:
        v = self.main
        f = v.frameWidth()
        self.setGeometry(v.verticalHeader().width() + f, f, v.columnWidth(0),
                         v.viewport().height() + v.horizontalHeader().height())
        self.verticalScrollBar().setValue(v.verticalScrollBar().value())

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        if obj is self.main and ev.type() in (QEvent.Type.Resize, QEvent.Type.Show,
                                              QEvent.Type.LayoutRequest):
            self.refresh()
            if ev.type() == QEvent.Type.Resize:
                # the table's viewport takes its new size after this event: place again then
                QTimer.singleShot(0, self, self._place)
        return False


def freeze_first_column(view: QTableView) -> FrozenColumn:
    """Keep ``view``'s first column in view while it scrolls sideways; returns the overlay."""
    existing = view.findChild(FrozenColumn)
    return existing if existing is not None else FrozenColumn(view)


__all__ = ["FrozenColumn", "freeze_first_column"]
