"""Help → Getting started: a short illustrated page shipped with the product.

The page is ``resources/getting_started.html`` with its screenshots in
``resources/getting_started/`` (package data of ``evaltrans_qt.resources``), shown in a
:class:`QTextBrowser` that follows links inside the page and opens outside ones in the
web browser. The dialog is sized to fit the screen it opens on, window decorations
included (:func:`evaltrans_qt.ui.options_dialog.fit_to_screen`); the page scrolls.

Object names for tests: ``gettingStartedDialog``, ``gettingStartedText``.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from PySide6.QtCore import QSize, QUrl
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from evaltrans_qt.errors import EvalTransError

#: The page, relative to the resources package.
PAGE = "getting_started.html"


def page_path() -> Path:
    """Where the Getting started page is (:class:`EvalTransError` if the install lacks it)."""
    path = Path(str(importlib.resources.files("evaltrans_qt.resources") / PAGE))
    if not path.is_file():
        raise EvalTransError(f"{path}: the Getting started page is missing from this "
                             "installation (package data of evaltrans_qt.resources)")
    return path


class GettingStartedDialog(QDialog):
    """The Getting started page in a scrolling browser; Close closes it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gettingStartedDialog")
        self.setWindowTitle("Getting started")
        lay = QVBoxLayout(self)
        self.text = QTextBrowser(objectName="gettingStartedText")
        self.text.setOpenExternalLinks(True)
        path = page_path()
        self.text.setSearchPaths([str(path.parent)])
        self.text.setSource(QUrl.fromLocalFile(str(path)))
        lay.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.buttons = buttons
        from evaltrans_qt.ui.options_dialog import fit_to_screen
        fit_to_screen(self)

    def sizeHint(self) -> QSize:
        """Wide enough for the page's pictures (620 px) and a scrollbar."""
        return QSize(720, 900)


def show_getting_started(parent: QWidget | None = None) -> GettingStartedDialog:
    """Open the page (non-modal: the user can follow it while working)."""
    dlg = GettingStartedDialog(parent)
    from PySide6.QtCore import Qt
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.show()
    return dlg
