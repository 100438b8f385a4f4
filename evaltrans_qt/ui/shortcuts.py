"""Help → Keyboard shortcuts: every action of the window with its keys, by menu.

The list is built from the window's menus at the time it is opened, so actions
added by other modules (e.g. the Evaluate menu) appear automatically.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)


def _clean(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


def menu_actions(menu: QMenu, path: str = "") -> list[tuple[str, QAction]]:
    """(menu path, action) for every action of ``menu`` and its submenus (separators skipped)."""
    out = []
    here = f"{path} → {_clean(menu.title())}" if path else _clean(menu.title())
    for act in menu.actions():
        if act.isSeparator():
            continue
        sub = act.menu()
        if isinstance(sub, QMenu):
            out.extend(menu_actions(sub, here))
        else:
            out.append((here, act))
    return out


def all_actions(window: QMainWindow) -> list[tuple[str, QAction]]:
    """Every menu action of ``window`` with its menu path (recent files excluded), each
    once (an action in two menus -- Save in File and in annotator mode's menu -- under
    the first)."""
    out: list[tuple[str, QAction]] = []
    seen: set[int] = set()
    for act in window.menuBar().actions():
        m = act.menu()
        if isinstance(m, QMenu):
            for p, a in menu_actions(m):
                if "recent" not in p.lower() and id(a) not in seen:
                    seen.add(id(a))
                    out.append((p, a))
    return out


def shortcut_text(act: QAction) -> str:
    return ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in act.shortcuts() if not k.isEmpty())


#: Keys handled inside widgets rather than by actions.
WIDGET_KEYS = [
    ("Compare view", "Mouse over a word", "highlight its counterpart in the other sentence"),
    ("Compare view", "Click a word", "pin / unpin the highlight"),
    ("Tables", "Up / Down, Page Up / Page Down", "move through sources and translations"),
    ("Tables", "Click a column header", "sort (again: reverse)"),
    ("Scoring", "Type a value, Enter", "score a continuous class (DA, MQM) or a scale over ten "
                                       "levels (SSER 0-10); Esc clears the typed value"),
    # the protocol modes (ui/protocol_modes.py)
    ("Post-edit / new reference editor", "Enter, Ctrl+Enter",
     "store the post-edit (HTER) or add the text as a reference (aWER)"),
    ("Post-edit / new reference editor", "Esc", "leave the editor without storing"),
    ("Information items", "O, E, S, M, X", "mark the current item OK, error, syntax, meaning, other "
                                           "(item-marking mode); Backspace: back one item"),
    ("Define information items", "Shift+arrows or mouse, Enter",
     "select words and make them an item; Delete removes the selected item"),
    # the ranking screens (ui/ranking_screen.py)
    ("Ranking screens", "Up / Down, or click", "choose a candidate"),
    ("Ranking screens", "1-9 (two digits from ten ranks on), U",
     "give it a rank (ties allowed); U: unusable (short segments)"),
    ("Ranking screens", "Left / Right, Delete", "one rank better / worse; back to not placed"),
    ("Ranking screens", "Drag a candidate", "drop it on a rank row"),
    ("Ranking screens", "Enter; Page Down / Page Up",
     "submit (only when every candidate is placed); next / previous sentence"),
    ("Ranking screens", "Ctrl+Z, Ctrl+Shift+Z", "undo / redo a placement or a submitted screen"),
]


class ShortcutsDialog(QDialog):
    """A table: menu, action, shortcut."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.tree = QTreeWidget()
        self.tree.setObjectName("shortcutsTable")
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self._rows: list[tuple[str, str, str]] = [
            *((path, _clean(act.text()), shortcut_text(act)) for path, act in all_actions(window)),
            *((where, what, key) for where, key, what in WIDGET_KEYS)]
        for row in self._rows:
            item = QTreeWidgetItem(self.tree, list(row))
            item.setToolTip(1, row[1])       # the whole text where it is elided
        # the keys first to the eye: Menu and Shortcut sized to their contents, the action
        # takes the rest and elides (a long action text never pushes the keys off the
        # dialog's right edge)
        self.tree.setHeaderLabels(["Menu", "Action", "Shortcut"])
        head = self.tree.header()
        head.setStretchLastSection(False)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.setWordWrap(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tree)
        lay.addWidget(buttons)
        self.resize(760, 560)

    def rows(self) -> list[tuple[str, str, str]]:
        return list(self._rows)
