"""The one place where the application shows errors (STYLE: napari's single error sink).

:func:`show_error` turns an exception into a dialog. An
:class:`~evaltrans_qt.errors.EvalTransError` names its file, line (column) and
problem; anything else is an unexpected error with its traceback under
"Details". Dialogs are opened non-modally (``open()``), so the application
keeps running and tests can close them. :func:`install_excepthook` routes
``sys.excepthook`` and ``threading.excepthook`` here.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QGridLayout,
    QMessageBox,
    QSizePolicy,
    QSpacerItem,
    QWidget,
)

from evaltrans_qt.errors import EvalTransError

#: Every error shown, most recent last (tests and the status bar read it).
history: list[BaseException] = []
#: Called with each error before the dialog opens (tests may set this).
listeners: list[Callable[[BaseException], None]] = []
#: Milliseconds after which dialogs close themselves (tests set this; 0 = never).
auto_close_ms: int = 0


def describe(exc: BaseException) -> tuple[str, str]:
    """(headline, details) for an error: what is wrong, then where -- each said once (the
    problem is the dialog's text; the details name only file, line and column)."""
    if isinstance(exc, EvalTransError):
        parts = []
        if exc.path is not None:
            parts.append(f"File: {exc.path}")
        if exc.line is not None:
            parts.append(f"Line: {exc.line}")
        if exc.column is not None:
            parts.append(f"Column: {exc.column}")
        return exc.problem, "\n".join(parts)
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.strerror or exc}", f"File: {exc.filename}"
    return f"Unexpected error: {type(exc).__name__}: {exc}", ""


def show_error(exc: BaseException, parent: QWidget | None = None,
               title: str | None = None) -> QMessageBox | None:
    """Show ``exc`` in a dialog naming file, line and problem; returns the dialog."""
    history.append(exc)
    for fn in list(listeners):
        fn(exc)
    app = QApplication.instance()
    if app is None:
        traceback.print_exception(type(exc), exc, exc.__traceback__)
        return None
    if parent is None:
        parent = QApplication.activeWindow() or _main_window()
    headline, details = describe(exc)
    box = QMessageBox(parent)
    box.setObjectName("errorDialog")
    box.setIcon(QMessageBox.Icon.Critical if not isinstance(exc, EvalTransError) else QMessageBox.Icon.Warning)
    box.setWindowTitle(title or ("Problem with input" if isinstance(exc, EvalTransError) else "Error"))
    box.setText(headline)
    if details:
        box.setInformativeText(details)
    if not isinstance(exc, EvalTransError):
        box.setDetailedText("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    grid = box.layout()         # wide enough for its title and a path on a line (Qt's own
    if isinstance(grid, QGridLayout):   # minimum wraps both); a QMessageBox's layout is a grid
        grid.addItem(QSpacerItem(420, 0, QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Expanding),
                     grid.rowCount(), 0, 1, grid.columnCount())
    box.open()
    if auto_close_ms:
        QTimer.singleShot(auto_close_ms, box.close)
    _show_in_status_bar(parent, headline)
    return box


def _main_window() -> QWidget | None:
    for w in QApplication.topLevelWidgets():
        if w.objectName() == "mainWindow" and w.isVisible():
            return w
    return None


def _show_in_status_bar(parent: QWidget | None, text: str) -> None:
    win = parent.window() if parent is not None else None
    bar = getattr(win, "statusBar", None)
    if callable(bar):
        try:
            bar().showMessage(text, 10000)
        except RuntimeError:
            pass


class _Relay(QObject):
    """Moves errors raised on other threads to the UI thread."""

    error = Signal(object)


_relay: _Relay | None = None


def install_excepthook() -> None:
    """Send uncaught exceptions (UI thread and other threads) to :func:`show_error`."""
    global _relay
    _relay = _Relay()
    _relay.error.connect(show_error, Qt.ConnectionType.QueuedConnection)

    def hook(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        traceback.print_exception(exc_type, exc, tb)
        if _relay is not None:
            _relay.error.emit(exc)

    def thread_hook(args):
        hook(args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = hook
    threading.excepthook = thread_hook


def open_dialogs() -> list[QMessageBox]:
    """Error dialogs currently open (tests)."""
    return [w for w in QApplication.topLevelWidgets()
            if isinstance(w, QMessageBox) and w.objectName() == "errorDialog" and w.isVisible()] + [
        w for top in QApplication.topLevelWidgets()
        for w in top.findChildren(QMessageBox, "errorDialog") if w.isVisible()]
