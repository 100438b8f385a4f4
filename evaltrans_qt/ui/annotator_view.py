"""The annotator's window content while a campaign bundle is open (annotator mode,
:class:`~evaltrans_qt.campaign_mode.AnnotatorMode`): the coordinator's instructions, the
practice (tutorial) items with feedback, and the work -- the product's own scoring panel
(:class:`~evaltrans_qt.ui.scoring.ScorePanel`) or span screen
(:class:`~evaltrans_qt.ui.span_screen.SpanScreen`) or whole-sentence ranking screen
(:class:`~evaltrans_qt.ui.ranking_screen.SentenceRankingScreen`) over the bundle, without
system names;
for post-edit and item-marking bundles the product's post-edit editor
(:class:`~evaltrans_qt.ui.postedit_panel.PostEditPanel`, HTER, survey §4.4.17) or item
marking panel (:class:`~evaltrans_qt.ui.items_panel.ItemMarkingPanel`, survey §4.4.16) in
a :class:`ProtocolPage` that steps through the bundle's positions.

Stable object names: ``annotatorView`` (the tabs), ``annotatorInstructions``,
``annotatorPractice``, ``annotatorWork``, ``workSource``, ``workReference``,
``protocolPage``, ``protocolHeader``, ``protocolPrevious``, ``protocolNext``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.campaign_mode import AnnotatorMode
from evaltrans_qt.engine.campaign.definition import TutorialItem, tutorial_check
from evaltrans_qt.ui.span_screen import SpanScreen


class AnnotatorSpanScreen(SpanScreen):
    """The span screen embedded in the annotator's window: the header says where the
    annotator is, never the (opaque) system id."""

    def __init__(self, model, parent: QWidget | None = None) -> None:
        super().__init__(model, parent)
        self.setWindowFlags(Qt.WindowType.Widget)
        self.setWindowTitle("Annotation")

    def _shown(self, i: int) -> None:
        super()._shown(i)
        m = self.model
        self.header.setText(f"<b>Item {i + 1} of {len(m.items)}</b>"
                            f"{' · done' if m.done() else ''}")


def annotator_ranking_screen(workspace, judge: str, n: int, parent: QWidget | None = None):
    """The product's whole-sentence ranking screen embedded in the annotator's window: all
    ``n`` (at most) candidates of a bundle position, labelled "candidate 1…", never by id."""
    from evaltrans_qt.ui.ranking_screen import SentenceRankingScreen
    screen = SentenceRankingScreen(workspace, judge, n, parent=parent)
    screen.setWindowFlags(Qt.WindowType.Widget)
    screen.setWindowTitle("Ranking")
    return screen


def _text_label(name: str) -> QLabel:
    lab = QLabel()
    lab.setObjectName(name)
    lab.setWordWrap(True)
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    lab.setTextFormat(Qt.TextFormat.PlainText)
    return lab


class WorkPage(QWidget):
    """The source (and, when the protocol shows them, the references) above the judging
    widget the controller puts in (:meth:`set_judging`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("annotatorWork")
        self.lay = QVBoxLayout(self)
        self.texts = QWidget()
        form = QFormLayout(self.texts)
        self.source = _text_label("workSource")
        self.reference = _text_label("workReference")
        form.addRow("Source:", self.source)
        self.reference_label = QLabel("Reference:")
        form.addRow(self.reference_label, self.reference)
        self.lay.addWidget(self.texts)
        self.judging: QWidget | None = None

    def set_texts(self, source: str, references: list[str]) -> None:
        self.texts.show()
        self.source.setText(source)
        self.reference.setText("\n".join(references))
        self.reference.setVisible(bool(references))
        self.reference_label.setVisible(bool(references))

    def set_judging(self, widget: QWidget, texts: bool) -> None:
        """``widget`` judges the items; ``texts``: the source/reference lines are shown
        above it (the span screen shows its own)."""
        self.judging = widget
        self.lay.addWidget(widget, 1)
        widget.show()
        self.texts.setVisible(texts)

    def take_judging(self) -> QWidget | None:
        w, self.judging = self.judging, None
        if w is not None:
            self.lay.removeWidget(w)
        return w


class ProtocolPage(QWidget):
    """A post-edit or item-marking panel with the position ("Item 3 of 40") and
    Previous/Next; in item marking, keys O/E/S/M/X mark the current information item
    and Backspace goes back one (the keys of Session → Protocols, which annotator mode
    hides). ``moved(step)``: Previous (-1) or Next (+1) was asked for."""

    moved = Signal(int)

    def __init__(self, panel: QWidget, marks: dict[str, str] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("protocolPage")
        self.panel = panel
        self.marks = {v: k for k, v in (marks or {}).items()}
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.header = QLabel()
        self.header.setObjectName("protocolHeader")
        self.previous = QPushButton("Previous")
        self.previous.setObjectName("protocolPrevious")
        self.previous.clicked.connect(lambda: self.moved.emit(-1))
        self.next_button = QPushButton("Next")
        self.next_button.setObjectName("protocolNext")
        self.next_button.clicked.connect(lambda: self.moved.emit(1))
        row.addWidget(self.header, 1)
        row.addWidget(self.previous)
        row.addWidget(self.next_button)
        lay.addLayout(row)
        lay.addWidget(panel, 1)
        panel.show()
        if self.marks:
            self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def keyPressEvent(self, ev) -> None:
        mark = self.marks.get(ev.text().upper())
        if mark is not None and hasattr(self.panel, "mark"):
            self.panel.mark(mark)
            return
        if ev.key() == Qt.Key.Key_Backspace and hasattr(self.panel, "back"):
            self.panel.back()
            return
        super().keyPressEvent(ev)


class PracticePage(QWidget):
    """The tutorial items one by one: the annotator answers, :func:`tutorial_check` says
    whether it was right and shows the coordinator's feedback. Nothing is stored."""

    def __init__(self, items: tuple[TutorialItem, ...], classes: tuple[str, ...],
                 spans: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("annotatorPractice")
        self.items, self.classes, self.spans_on = items, classes, spans
        self.index = 0
        self.marked: list[tuple[int, int]] = []
        lay = QVBoxLayout(self)
        self.header = QLabel()
        self.header.setObjectName("practiceHeader")
        lay.addWidget(self.header)
        form = QFormLayout()
        self.source = _text_label("practiceSource")
        self.reference = _text_label("practiceReference")
        self.candidate = QTextEdit()
        self.candidate.setObjectName("practiceCandidate")
        self.candidate.setReadOnly(True)
        self.candidate.setMaximumHeight(90)
        form.addRow("Source:", self.source)
        form.addRow("Reference:", self.reference)
        form.addRow("Translation:", self.candidate)
        self.values: dict[str, QDoubleSpinBox] = {}
        for c in classes:
            box = QDoubleSpinBox()
            box.setObjectName(f"practice_{c}")
            box.setRange(-1, 100)
            box.setSpecialValueText("–")
            box.setValue(-1)
            self.values[c] = box
            form.addRow(f"{c}:", box)
        lay.addLayout(form)
        row = QHBoxLayout()
        self.mark = QPushButton("Mark selected text as an error")
        self.mark.setObjectName("practiceMark")
        self.mark.clicked.connect(self._mark)
        self.mark.setVisible(spans)
        self.check = QPushButton("Check my answer")
        self.check.setObjectName("practiceCheck")
        self.check.clicked.connect(self.check_answer)
        self.next_button = QPushButton("Next practice item")
        self.next_button.setObjectName("practiceNext")
        self.next_button.clicked.connect(lambda: self.show_item(self.index + 1))
        row.addWidget(self.mark)
        row.addWidget(self.check)
        row.addWidget(self.next_button)
        row.addStretch(1)
        lay.addLayout(row)
        self.feedback = QLabel()
        self.feedback.setObjectName("practiceFeedback")
        self.feedback.setWordWrap(True)
        lay.addWidget(self.feedback)
        lay.addStretch(1)
        self.show_item(0)

    def show_item(self, k: int) -> None:
        self.index = k % len(self.items)
        t = self.items[self.index]
        self.header.setText(f"Practice item {self.index + 1} of {len(self.items)} — "
                            "answers here are not stored")
        self.source.setText(t.source)
        self.reference.setText(t.reference or "–")
        self.candidate.setPlainText(t.candidate)
        self.marked = []
        for box in self.values.values():
            box.setValue(-1)
        self.feedback.clear()

    def _mark(self) -> None:
        cur = self.candidate.textCursor()
        if cur.hasSelection():
            self.marked.append((cur.selectionStart(), cur.selectionEnd()))
            self.feedback.setText(f"{len(self.marked)} error(s) marked")

    def check_answer(self) -> str:
        """Check the answer given; the feedback text shown (also returned)."""
        scores = {c: b.value() for c, b in self.values.items() if b.value() >= 0}
        ok, why = tutorial_check(self.items[self.index], scores, self.marked)
        text = "\n".join(["Correct." if ok else "Not quite.", *([why] if why else [])])
        self.feedback.setText(text)
        return text


class AnnotatorView(QTabWidget):
    """Instructions, practice (when the bundle has tutorial items) and the work (module doc)."""

    def __init__(self, mode: AnnotatorMode, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("annotatorView")
        self.instructions = QTextBrowser()
        self.instructions.setObjectName("annotatorInstructions")
        self.instructions.setOpenExternalLinks(True)
        self.instructions.document().setMarkdown(mode.instructions)
        self.addTab(self.instructions, "Instructions")
        self.practice: PracticePage | None = None
        if mode.tutorial:
            info = mode.info
            assert info is not None
            self.practice = PracticePage(mode.tutorial, info.classes, mode.protocol.spans)
            self.addTab(self.practice, "Practice")
        self.work = WorkPage()
        self.addTab(self.work, "Work")

    def show_work(self) -> None:
        self.setCurrentWidget(self.work)

    def show_instructions(self) -> None:
        self.setCurrentWidget(self.instructions)


__all__ = ["AnnotatorSpanScreen", "annotator_ranking_screen", "WorkPage", "ProtocolPage", "PracticePage", "AnnotatorView"]
