"""The frozen first column covers the table's whole viewport after the table is resized by
its layout (the table's resize event comes before its viewport has the new size)."""

from __future__ import annotations

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QTableView, QVBoxLayout, QWidget

from evaltrans_qt.ui.frozen_column import freeze_first_column


def test_overlay_follows_the_viewport(qtbot):
    model = QStandardItemModel(4, 30)
    for r in range(4):
        for c in range(30):
            model.setItem(r, c, QStandardItem(f"{r}.{c}"))
    box = QWidget()
    qtbot.addWidget(box)
    table = QTableView()
    table.setModel(model)
    QVBoxLayout(box).addWidget(table)
    frozen = freeze_first_column(table)
    box.resize(500, 300)
    box.show()
    qtbot.waitExposed(box)

    def covers() -> bool:
        return frozen.height() == table.viewport().height() + table.horizontalHeader().height()
    qtbot.waitUntil(covers)
    for height in (600, 450, 700):             # grown and shrunk by its layout
        box.resize(500, height)
        qtbot.wait(50)
        assert covers(), (height, frozen.height(), table.viewport().height())
