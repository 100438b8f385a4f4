"""Information items (IER, survey §4.4.16): defining them and marking them while scoring.

* :class:`ItemsDialog` (``itemsDialog``): the source's words (tokenised as items count
  them, :func:`evaltrans_qt.engine.data.protocols.source_words`) in a list; select words with
  the mouse (click, Shift+click, drag) or the keyboard (Shift+arrows) and press Enter
  (or "Add item") to make them an item; Delete removes the selected item. The spans
  are also editable as text (``1-3,4-7``, as ``evaltrans items --define``).
* :class:`ItemMarkingPanel` (``itemsPanel``): the items of the current candidate's
  source, one row each; the window's keys O / E / S / M / X mark the current item
  OK / error / syntax / meaning / other and move on, Backspace goes back. When every
  item has a mark, ``completed(marks)`` is emitted (one change: one mark per item,
  as :func:`evaltrans_qt.engine.data.protocols.set_marks` requires).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data import protocols
from evaltrans_qt.errors import ScoreError

#: Row colours of the marks (OK green, the errors reddish, other grey).
MARK_COLOURS = {"OK": QColor(190, 235, 190), "error": QColor(245, 185, 175),
                "syntax": QColor(250, 215, 160), "meaning": QColor(240, 170, 200),
                "other": QColor(215, 215, 215)}


# ------------------------------------------------------------------ defining items
class _WordList(QListWidget):
    """The source's words, flowing like text; Enter adds the selection as an item."""

    enter = Signal()
    delete = Signal()

    def keyPressEvent(self, ev) -> None:
        if ev.key() in (Qt.Key_Return, Qt.Key_Enter):
            self.enter.emit()
            return
        super().keyPressEvent(ev)


class _ItemList(QListWidget):
    delete = Signal()

    def keyPressEvent(self, ev) -> None:
        if ev.key() in (Qt.Key_Delete, Qt.Key_Backspace):
            self.delete.emit()
            return
        super().keyPressEvent(ev)


class ItemsDialog(QDialog):
    """Define the information items of one source by selecting its words (module doc)."""

    def __init__(self, words: list[str], spans: list[tuple[int, int]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("itemsDialog")
        self.setWindowTitle("Information items")
        self.words = list(words)
        self._spans: list[tuple[int, int]] = list(spans)
        self.word_list = _WordList()
        self.word_list.setObjectName("itemWords")
        self.word_list.setFlow(QListView.LeftToRight)
        self.word_list.setWrapping(True)
        self.word_list.setResizeMode(QListView.Adjust)
        self.word_list.setSpacing(3)
        self.word_list.setSelectionMode(QAbstractItemView.ExtendedSelection)
        for k, w in enumerate(self.words):
            it = QListWidgetItem(f"{w}")
            it.setToolTip(f"word {k + 1}")
            self.word_list.addItem(it)
        self.item_list = _ItemList()
        self.item_list.setObjectName("itemList")
        self.spans_edit = QLineEdit()
        self.spans_edit.setObjectName("itemSpans")
        self.spans_edit.setPlaceholderText("e.g. 1-3,4-7 (word numbers, from 1)")
        self.error = QLabel()
        self.error.setObjectName("itemsError")
        self.error.setStyleSheet("color: #b03020;")
        add = QPushButton("Add item (Enter)")
        add.setObjectName("addItem")
        add.setAutoDefault(False)
        remove = QPushButton("Remove item (Delete)")
        remove.setAutoDefault(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        for b in self.buttons.buttons():
            b.setAutoDefault(False)
            b.setDefault(False)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Select the words of an item (mouse, or Shift+arrows) and press "
                             "Enter. Items are in sentence order and do not overlap; punctuation "
                             "may stay outside."))
        lay.addWidget(self.word_list, 2)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        lay.addLayout(row)
        lay.addWidget(self.item_list, 2)
        lay.addWidget(QLabel("Items as word spans:"))
        lay.addWidget(self.spans_edit)
        lay.addWidget(self.error)
        lay.addWidget(self.buttons)
        add.clicked.connect(self.add_selection)
        remove.clicked.connect(self.remove_selected)
        self.word_list.enter.connect(self.add_selection)
        self.item_list.delete.connect(self.remove_selected)
        self.spans_edit.editingFinished.connect(self._spans_typed)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self._show()
        self.resize(560, 420)

    def spans(self) -> list[tuple[int, int]]:
        return list(self._spans)

    def select_words(self, first: int, last: int) -> None:
        """Select words ``first``..``last`` (0-based, inclusive), as the mouse would."""
        self.word_list.clearSelection()
        for k in range(first, last + 1):
            self.word_list.item(k).setSelected(True)

    def add_selection(self) -> bool:
        rows = sorted(self.word_list.row(it) for it in self.word_list.selectedItems())
        if not rows:
            self.error.setText("Select the words of the item first.")
            return False
        if rows != list(range(rows[0], rows[-1] + 1)):
            self.error.setText("An item is a run of adjacent words: select words next to each other.")
            return False
        new = sorted(self._spans + [(rows[0], rows[-1] + 1)])
        try:
            protocols.check_items(new, len(self.words))
        except ScoreError as exc:
            self.error.setText(f"Not added: {exc.problem}")
            return False
        self._spans = new
        self.word_list.clearSelection()
        self._show()
        return True

    def remove_selected(self) -> None:
        k = self.item_list.currentRow()
        if 0 <= k < len(self._spans):
            del self._spans[k]
            self._show()

    def _spans_typed(self) -> None:
        try:
            new = protocols.check_items(protocols.parse_spans(self.spans_edit.text()), len(self.words))
        except ScoreError as exc:
            self.error.setText(exc.problem)
            return
        self._spans = new
        self._show()

    def _accept(self) -> None:
        if self.spans_edit.text().strip() != protocols.format_spans(self._spans):
            self._spans_typed()
            if self.error.text():
                return
        self.accept()

    def _show(self) -> None:
        self.error.clear()
        self.item_list.clear()
        in_item = {}
        for k, (a, b) in enumerate(self._spans):
            self.item_list.addItem(f"{k + 1}. words {protocols.format_spans([(a, b)])}: "
                                   f"{' '.join(self.words[a:b])}")
            for p in range(a, b):
                in_item[p] = k
        shades = (QColor(200, 225, 250), QColor(225, 205, 250))
        for p in range(self.word_list.count()):
            it = self.word_list.item(p)
            k = in_item.get(p)
            it.setBackground(QBrush(shades[k % 2]) if k is not None else QBrush())
        self.spans_edit.setText(protocols.format_spans(self._spans))


# ------------------------------------------------------------------ marking items
class ItemMarkingPanel(QWidget):
    """The items of the current candidate's source with the judge's marks (module doc)."""

    completed = Signal(tuple)
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("itemsPanel")
        self.item: tuple[int, int] | None = None
        self.pending: list[str | None] = []
        self.pos = 0
        self._stored: tuple[str, ...] | None = None
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.candidate = QLabel()
        self.candidate.setObjectName("itemsCandidate")
        self.candidate.setWordWrap(True)
        f = self.candidate.font()
        f.setPointSizeF(f.pointSizeF() * 1.15)
        self.candidate.setFont(f)
        self.tree = QTreeWidget()
        self.tree.setObjectName("itemsTable")
        self.tree.setRootIsDecorated(False)
        self.tree.setHeaderLabels(["#", "Source item", "Mark"])
        self.tree.setFocusPolicy(Qt.NoFocus)
        self.tree.setWordWrap(True)
        hh = self.tree.header()
        hh.setStretchLastSection(False)
        hh.setSectionResizeMode(1, QHeaderView.Stretch)
        self.keys = QLabel("Keys: O = OK, E = error, S = syntax, M = meaning, X = other; "
                           "Backspace = back one item. Every item marked: stored (Ctrl+Z undoes).")
        self.keys.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.candidate)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.keys)
        self.set_item(None, None, None)

    def set_item(self, item, source, target, marks: tuple[str, ...] | None = None) -> None:
        """Show ``source``'s items for candidate ``target`` with the judge's ``marks``."""
        if item is None or source is None:
            self.item = None
            self.pending = []
            self.header.setText("Item marking: define the source's items (Ctrl+Alt+D), then "
                                "Session → Protocols → Mark information items (Ctrl+Alt+I).")
            self.candidate.clear()
            self.tree.clear()
            return
        stored = tuple(marks) if marks is not None else None
        if item != self.item or stored != self._stored or len(self.pending) != len(source.items):
            self.item = item
            self._stored = stored
            n = len(source.items)
            self.pending = list(stored) if stored is not None and len(stored) == n else [None] * n
            self.pos = next((k for k, m in enumerate(self.pending) if m is None), 0)
        self.header.setText(f"<b>Information items</b> of source {item[0] + 1} — candidate "
                            f"<b>{target.system or '-'}</b>: how is each item translated?")
        self.candidate.setText(target.text)
        self.texts = protocols.item_texts(source)
        self._show()

    def _show(self) -> None:
        self.tree.clear()
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for k, text in enumerate(getattr(self, "texts", [])):
            m = self.pending[k] if k < len(self.pending) else None
            row = QTreeWidgetItem(self.tree, [("▶ " if k == self.pos else "") + str(k + 1), text,
                                              m or ""])
            if m is not None:
                for c in range(3):
                    row.setBackground(c, MARK_COLOURS[m])
            if k == self.pos:
                for c in range(3):
                    row.setFont(c, bold)
        for c in (0, 2):
            self.tree.resizeColumnToContents(c)

    def mark(self, mark: str) -> bool:
        """Mark the current item; when every item is marked, emit ``completed``."""
        if self.item is None or not self.pending:
            return False
        self.pending[self.pos] = mark
        done = all(m is not None for m in self.pending)
        if self.pos < len(self.pending) - 1:
            self.pos += 1
        self._show()
        if done:
            marks = tuple(self.pending)
            if marks != self._stored:
                self.completed.emit(marks)
        else:
            left = sum(m is None for m in self.pending)
            self.message.emit(f"{left} item(s) still to mark")
        return True

    def back(self) -> None:
        if self.pending:
            self.pos = max(0, self.pos - 1)
            self._show()


__all__ = ["ItemsDialog", "ItemMarkingPanel", "MARK_COLOURS"]
