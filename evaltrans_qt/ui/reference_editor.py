"""Add a new reference to a source (survey §4.4.4, aWER): a small dialog.

The text starts as the current candidate (the judge corrects it) or empty; the name
defaults to ``added-N`` (:func:`evaltrans_qt.engine.data.protocols.next_added_name`).
The change itself is made by :class:`evaltrans_qt.ui.protocol_modes.ProtocolModes`.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)


class AddReferenceDialog(QDialog):
    """Source (read-only), reference text, optional name."""

    def __init__(self, source: str, candidate: str, default_name: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("addReferenceDialog")
        self.setWindowTitle("Add reference")
        src = QLabel(source)
        src.setWordWrap(True)
        self.edit = QLineEdit()
        self.edit.setObjectName("referenceText")
        self.edit.setPlaceholderText("a correct translation of the source")
        self.edit.setMinimumWidth(480)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("referenceName")
        self.name_edit.setPlaceholderText(default_name)
        start = QPushButton("Start from the candidate")
        start.setAutoDefault(False)
        start.clicked.connect(lambda: self.edit.setText(candidate))
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b03020;")
        form = QFormLayout(self)
        form.addRow("Source:", src)
        form.addRow("Reference:", self.edit)
        form.addRow("", start)
        form.addRow("Name:", self.name_edit)
        form.addRow(self.error)
        form.addRow(self.buttons)

    def text(self) -> str:
        return " ".join(self.edit.text().split())

    def name(self) -> str | None:
        return self.name_edit.text().strip() or None

    def _accept(self) -> None:
        if not self.text():
            self.error.setText("Type the reference text.")
            return
        self.accept()


__all__ = ["AddReferenceDialog"]
