"""One way to make a window action: text, shortcut, status tip, object name."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


def make_action(window: QWidget, text: str, shortcut: str | QKeySequence | QKeySequence.StandardKey | None,
                slot: Callable | None, tip: str = "", checkable: bool = False,
                name: str = "") -> QAction:
    """An action of ``window`` (added to it, so its shortcut works with no menu open);
    the object name defaults to ``action_`` + the text's letters and digits (tests and
    the shortcuts dialog find actions by it)."""
    a = QAction(text, window)
    if shortcut:
        a.setShortcut(shortcut if isinstance(shortcut, QKeySequence) else QKeySequence(shortcut))
    if tip:
        a.setStatusTip(tip)
    a.setCheckable(checkable)
    a.setObjectName(name or "action_" + "".join(ch for ch in text.lower() if ch.isalnum()))
    if slot is not None:
        a.triggered.connect(slot)
    window.addAction(a)
    return a


__all__ = ["make_action"]
