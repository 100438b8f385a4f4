"""The category chooser of the MQM annotation screen (:mod:`evaltrans_qt.ui.span_screen`):
the typology's categories (engine/human/spans/model.py; the MQM core typology of
Freitag et al. 2021, Table 10, unless the database has its own) as a list beside the
text, one level at a time, each with the key that picks it.

At the top level a category's key is the letter the typology gives it (``a`` Accuracy,
``f`` Fluency...); a category with sub-categories opens them, numbered 1-9, and ``0``
(or Enter) takes the category itself. A double-click (or Enter on the current row at the
top level) picks a row. :meth:`CategoryChooser.key` turns a key press into a pick;
:attr:`CategoryChooser.picked` says which category path was chosen.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from evaltrans_qt.engine.human.spans.model import Typology

DIGITS = [getattr(Qt.Key, f"Key_{d}") for d in range(10)]
ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class CategoryChooser(QListWidget):
    """The typology's categories, one level at a time (module doc)."""

    picked = Signal(str)

    def __init__(self, typology: Typology, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("spanCategories")
        self.typology = typology
        #: the category whose sub-categories are shown ("" = the top level)
        self.parent_path = ""
        self.setToolTip("The category of the marked error: its key (a digit in a "
                        "sub-list; 0 or Enter the category itself), or double-click")
        self.itemActivated.connect(
            lambda it: self.picked.emit(it.data(Qt.ItemDataRole.UserRole)))
        self.show_level("")

    def show_level(self, parent: str) -> None:
        """List the sub-categories of ``parent`` ("" = the top level) with their keys."""
        self.parent_path = parent
        self.clear()
        ty = self.typology
        if parent:
            it = QListWidgetItem(f"0  {parent} (itself)")
            it.setData(Qt.ItemDataRole.UserRole, parent)
            self.addItem(it)
        for n, path in enumerate(ty.children(parent)):
            key = (ty.key_of(path) or "") if not parent else (str(n + 1) if n < 9 else "")
            it = QListWidgetItem(f"{key or ' '}  {path.rsplit('/', 1)[-1]}"
                                 f"{' ›' if ty.children(path) else ''}")
            it.setData(Qt.ItemDataRole.UserRole, path)
            self.addItem(it)

    def key(self, k: int, text: str) -> bool | None:
        """A key press while a category is asked for: True if it picked a category or
        opened a level, False if it is not a category key, None for Enter with nothing
        to pick (the screen asks for a key)."""
        ty = self.typology
        if k in ENTER:
            item = self.currentItem()
            path = self.parent_path or (item.data(Qt.ItemDataRole.UserRole) if item else None)
            if not path:
                return None
            self.picked.emit(path)
            return True
        if not self.parent_path:
            path = next((p for p in ty.children("") if ty.key_of(p) == text), None) \
                if text else None
        elif k in DIGITS:
            d = DIGITS.index(k)
            kids = ty.children(self.parent_path)
            path = self.parent_path if d == 0 else kids[d - 1] if d <= len(kids) else None
        else:
            return False
        if path is None:
            return False
        if path != self.parent_path and ty.children(path):
            self.show_level(path)
        else:
            self.picked.emit(path)
        return True


__all__ = ["CategoryChooser", "DIGITS"]
