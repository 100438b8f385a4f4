"""The post-edit editor (HTER, survey §4.4.17) and the new-reference editor (aWER, §4.4.4).

:class:`PostEditPanel` (``postEditPanel``) holds the candidate in an editor
(``postEditEditor``). As the judge types, the edits are highlighted at once through
the engine's one alignment path (:func:`evaltrans_qt.engine.measures.alignment.explain_segment`,
as the compare view and ``evaltrans align``), no second aligner:

* post-edit mode: the TER alignment of the original candidate against the edited text
  (HTER = TER of the candidate against its targeted reference, survey §4.4.17); the
  words of the edited text that were substituted, inserted or shifted are marked;
* new-reference mode: the WER alignment of the edited text against the source's
  references -- the words that differ from the nearest reference are marked, so the
  judge starts from the WER edits (survey §4.4.4).

Enter (or Ctrl+Enter) stores (``stored(text)``), Esc leaves (``cancelled()``). The
alignment of one sentence takes about a millisecond (measured in
``tests/ui/test_protocol_modes.py``), so it runs in the UI thread on every change.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.measures.alignment_spans import token_offsets

POSTEDIT, REFERENCE = "postedit", "reference"
#: Highlight colours: substituted, inserted, shifted words.
COLOURS = {"sub": QColor(255, 200, 90), "ins": QColor(255, 150, 150), "shift": QColor(150, 200, 255)}


@dataclass(frozen=True)
class LiveEdits:
    """What the editor marks: ``spans`` (start, end, kind) in the edited text, a summary."""

    spans: tuple[tuple[int, int, str], ...]
    summary: str
    distance: float | None = None
    length: int = 0


def token_spans(text: str, tokens) -> list[tuple[int, int] | None]:
    """Character span of each token in ``text`` (searched in order, case-insensitively;
    None for a token the tokeniser rewrote): the engine's
    :func:`~evaltrans_qt.engine.measures.alignment_spans.token_offsets`."""
    return token_offsets(text, [str(t) for t in tokens])


def live_edits(mode: str, original: str, text: str, references, options=None) -> LiveEdits:
    """The edits to highlight in ``text`` (module doc)."""
    from evaltrans_qt.engine.measures.alignment import OpKind, explain_segment
    if not text.strip():
        return LiveEdits((), "the text is empty")
    if mode == POSTEDIT:
        ex = explain_segment("ter", original, [text], options)
        al = ex.alignment
        if al is None:
            return LiveEdits((), ex.error or "no alignment")
        where = token_spans(text, ex.refs[0])
        marks: dict[int, str] = {}
        for b in al.blocks:
            for p in range(*b.ref_span):
                marks[p] = "shift"
        for op in al.operations:
            if op.ref_pos is not None and op.kind in (OpKind.SUB, OpKind.DEL):
                marks[op.ref_pos] = "sub" if op.kind == OpKind.SUB else "ins"
        n = len(ex.refs[0])
        c = al.counts()
        deleted = c["ins"]            # candidate words the judge removed (not visible in the text)
        summary = (f"TER edits {al.distance:g} over {n} words: HTER {al.distance / n:.3f}" if n
                   else "TER: empty post-edit")
        summary += (f" — {c['sub']} substituted, {c['del']} inserted, {deleted} deleted, "
                    f"{c['blocks']} shift(s)")
        length = n
    else:
        if not references:
            return LiveEdits((), "the source has no reference yet: this text becomes its first")
        ex = explain_segment("wer", text, list(references), options)
        al = ex.alignment
        if al is None:
            return LiveEdits((), ex.error or "no alignment")
        where = token_spans(text, ex.hyp)
        marks = {}
        for op in al.operations:
            if op.hyp_pos is not None and op.kind in (OpKind.SUB, OpKind.INS):
                marks[op.hyp_pos] = "sub" if op.kind == OpKind.SUB else "ins"
        summary = (f"WER edits against the nearest reference (reference {al.ref_index + 1}): "
                   f"{al.distance:g}")
        length = len(ex.hyp)
    spans = tuple((w[0], w[1], marks[p]) for p, w in enumerate(where)
                  if p in marks and w is not None)
    return LiveEdits(spans, summary, float(al.distance), length)


class PostEditEditor(QPlainTextEdit):
    """One line of text: Enter / Ctrl+Enter stores, Esc leaves; no line breaks."""

    submitted = Signal()
    escaped = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("postEditEditor")
        self.setTabChangesFocus(True)

    def keyPressEvent(self, ev) -> None:
        if ev.key() in (Qt.Key_Return, Qt.Key_Enter):
            self.submitted.emit()
            return
        if ev.key() == Qt.Key_Escape:
            self.escaped.emit()
            return
        super().keyPressEvent(ev)

    def insertFromMimeData(self, source) -> None:
        """Pasted line breaks become spaces (a sentence is one line)."""
        if source.hasText():
            self.insertPlainText(" ".join(source.text().split()))
            return
        super().insertFromMimeData(source)


class PostEditPanel(QWidget):
    """The candidate in an editor with its edits highlighted live (module doc)."""

    stored = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("postEditPanel")
        self.item: tuple[int, int] | None = None
        self.mode: str | None = None
        self.original = ""
        self.references: list[str] = []
        self.options = None
        self.edits: LiveEdits | None = None
        self.updates = 0
        self.header = QLabel("Post-edit: Session → Protocols → Post-edit the candidate (Ctrl+Alt+E)")
        self.header.setWordWrap(True)
        self.source = QLabel()
        self.source.setObjectName("postEditSource")
        self.source.setWordWrap(True)
        self.source.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.editor = PostEditEditor()
        f = self.editor.font()
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.editor.setFont(f)
        self.editor.setMinimumHeight(self.editor.fontMetrics().lineSpacing() * 4)
        self.summary = QLabel()
        self.summary.setObjectName("postEditSummary")
        self.summary.setWordWrap(True)
        self.store_button = QPushButton("Store (Enter)")
        self.store_button.setObjectName("postEditStore")
        self.cancel_button = QPushButton("Leave (Esc)")
        legend = QLabel(" ".join(
            f"<span style='background:{COLOURS[k].name()}'>&nbsp;{t}&nbsp;</span>"
            for k, t in (("sub", "substituted"), ("ins", "inserted"), ("shift", "shifted"))))
        buttons = QHBoxLayout()
        buttons.addWidget(self.store_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(legend)
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.source)
        lay.addWidget(self.editor, 1)
        lay.addWidget(self.summary)
        lay.addLayout(buttons)
        self.editor.textChanged.connect(self.update_edits)
        self.editor.submitted.connect(self.submit)
        self.editor.escaped.connect(self.cancelled.emit)
        self.store_button.clicked.connect(self.submit)
        self.cancel_button.clicked.connect(self.cancelled.emit)
        self.set_item(None, None, None)

    def set_item(self, item, mode: str | None, text: str | None, references=(), source: str = "",
                 postedit: str | None = None, options=None) -> None:
        """Edit candidate ``text`` of ``item`` in ``mode`` (None: nothing to edit)."""
        self.item, self.mode = item, mode
        self.original = text or ""
        self.references = list(references)
        self.options = options
        on = item is not None
        self.editor.setEnabled(on)
        self.store_button.setEnabled(on)
        self.cancel_button.setEnabled(on)
        if not on:
            self.header.setText("Not editing. Session → Protocols: post-edit (Ctrl+Alt+E) or "
                                "edit into a new reference (Ctrl+Alt+N).")
            self.source.clear()
            self.editor.blockSignals(True)
            self.editor.clear()
            self.editor.blockSignals(False)
            self.editor.setExtraSelections([])
            self.summary.clear()
            return
        if mode == POSTEDIT:
            self.header.setText("<b>Post-edit</b>: correct the candidate with as few edits as "
                                "possible; Enter stores it as its targeted reference (HTER).")
        else:
            self.header.setText("<b>New reference</b> (aWER): edit the candidate into a correct "
                                "translation, starting from the words that differ from the "
                                "references; Enter adds it as a reference.")
        self.source.setText(f"Source: {source}")
        self.editor.setPlainText(postedit if postedit is not None else self.original)
        self.editor.moveCursor(QTextCursor.End)
        self.update_edits()

    def text(self) -> str:
        return " ".join(self.editor.toPlainText().split())

    def update_edits(self) -> None:
        """Highlight the edits of the text as it is now (module doc)."""
        if self.item is None:
            return
        self.updates += 1
        text = self.editor.toPlainText()
        try:
            self.edits = live_edits(self.mode, self.original, text, self.references, self.options)
        except Exception as exc:
            self.edits = LiveEdits((), f"cannot align: {exc}")
        sels = []
        for a, b, kind in self.edits.spans:
            sel = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            fmt.setBackground(COLOURS[kind])
            sel.format = fmt
            cur = QTextCursor(self.editor.document())
            cur.setPosition(a)
            cur.setPosition(b, QTextCursor.KeepAnchor)
            sel.cursor = cur
            sels.append(sel)
        self.editor.setExtraSelections(sels)
        self.summary.setText(self.edits.summary)

    def submit(self) -> None:
        text = self.text()
        if self.item is None:
            return
        if not text:
            self.summary.setText("The text is empty: nothing stored.")
            return
        self.stored.emit(text)


__all__ = ["PostEditPanel", "PostEditEditor", "live_edits", "token_spans", "LiveEdits",
           "POSTEDIT", "REFERENCE"]
