"""Campaign → Adjudicate…: the coordinator's screen over the Qt-free
:class:`~evaltrans_qt.adjudication_session.AdjudicationSession` -- item by item where the
annotators disagree beyond the threshold (a score spread, spans found by only some), their
judgements side by side, and the final judgement (judge ``adjudicated``; Freitag et al.
2021 §3's review of each rater against the others), every edit journaled and undoable
through the workspace's history.

Keys (all on the screen, nothing needs the mouse):

* ``1`` … ``9`` -- take annotator *k*'s judgement (the *k*-th row) as the final one;
* a score item: ``Enter`` (or ``V``, ``=``) goes to *Final value*: type it, Enter records
  it (``Escape`` back without recording);
* a spans item: ``Up``/``Down`` choose a span in the table, ``+`` (or ``A``) adds it to
  the final spans, ``-`` removes the last final span;
* ``Delete`` -- clear the final judgement; ``N``/``Right`` next, ``P``/``Left``
  previous, ``U`` the next item without a final judgement;
* ``Ctrl+Z`` / ``Ctrl+Shift+Z`` -- undo / redo.

Stable object names: ``adjudicationScreen``, ``adjudicationHeader``,
``adjudicationJudges`` (the table), ``adjudicationFinal`` (the value field),
``adjudicationThreshold`` (the share of the scale beyond which a spread is listed),
``adjudicationFinalText``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.adjudication_session import AdjudicationSession
from evaltrans_qt.engine.campaign.adjudication import Disagreement
from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.observe import observe


def span_text(e: ErrorSpan, text: str) -> str:
    """``[3:9] "marked" major Accuracy/Mistranslation`` (an omission: ``[3] omission``)."""
    if e.start is None or e.end is None:
        where = "(whole segment)"
    elif e.start == e.end:
        where = f"[{e.start}] omission"
    else:
        where = f"[{e.start}:{e.end}] \"{e.text_of(text)}\""
    return f"{where} {e.severity} {e.category}".strip()


class AdjudicationScreen(QWidget):
    """The adjudication screen (module doc)."""

    def __init__(self, session: AdjudicationSession, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("adjudicationScreen")
        self.setWindowTitle("Adjudication")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.session = session
        #: rows of the table: (judge, error number or None)
        self.rows: list[tuple[str, int | None]] = []
        lay = QVBoxLayout(self)
        self.header = QLabel()
        self.header.setObjectName("adjudicationHeader")
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        self.threshold = QDoubleSpinBox()
        self.threshold.setObjectName("adjudicationThreshold")
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setValue(session.threshold)
        self.threshold.setFocusPolicy(Qt.FocusPolicy.ClickFocus)     # the keys stay here
        self.threshold.setToolTip("A score item is listed when the annotators' spread "
                                  "exceeds this share of the scale")
        self.threshold.valueChanged.connect(self.set_threshold)
        top.addWidget(QLabel("Threshold:"))
        top.addWidget(self.threshold)
        lay.addLayout(top)
        form = QFormLayout()
        self.source = QTextEdit(readOnly=True)
        self.candidate = QTextEdit(readOnly=True)
        for w in (self.source, self.candidate):
            w.setMaximumHeight(70)
            w.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        form.addRow("Source:", self.source)
        form.addRow("Translation:", self.candidate)
        lay.addLayout(form)
        self.table = QTableWidget(0, 3)
        self.table.setObjectName("adjudicationJudges")
        self.table.setHorizontalHeaderLabels(["key", "annotator", "judgement"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)     # the screen takes the keys
        lay.addWidget(self.table, 1)
        fin = QFormLayout()
        self.final = QLineEdit()
        self.final.setObjectName("adjudicationFinal")
        self.final.setPlaceholderText("type the final value, then Enter")
        self.final.returnPressed.connect(self._typed)
        QShortcut(QKeySequence("Escape"), self.final, self.setFocus,
                  context=Qt.ShortcutContext.WidgetShortcut)
        self.final_text = QLabel()
        self.final_text.setObjectName("adjudicationFinalText")
        self.final_text.setWordWrap(True)
        fin.addRow("Final value:", self.final)
        fin.addRow("Final judgement:", self.final_text)
        lay.addLayout(fin)
        keys = QLabel("1–9 take an annotator's judgement · Enter, type the value, Enter · + add the "
                      "chosen span, − remove the last · Delete clear · N/P next/previous · "
                      "U next open · Ctrl+Z undo")
        keys.setWordWrap(True)
        lay.addWidget(keys)
        for seq, slot in ((QKeySequence.StandardKey.Undo, lambda: self.session.undo()),
                          (QKeySequence.StandardKey.Redo, lambda: self.session.redo()),
                          ("Ctrl+Shift+Z", lambda: self.session.redo())):
            sc = QShortcut(QKeySequence(seq), self)
            sc.activated.connect(slot)
        self._follow(session)
        self.resize(900, 560)
        self.refresh()

    def _follow(self, session: AdjudicationSession) -> None:
        def shown(_i: int) -> None:
            if session is self.session:       # not a session of an earlier threshold
                self.refresh()
        observe(self, session.shown, shown)
        observe(self, session.changed, shown)

    def set_threshold(self, threshold: float) -> None:
        """List the disagreements beyond ``threshold`` (a share of the scale) instead."""
        old = self.session
        if threshold == old.threshold:
            return
        self.session = AdjudicationSession(old.workspace, threshold, severity=old.severity)
        self._follow(self.session)
        self.refresh()

    # ------------------------------------------------------------ showing
    def refresh(self) -> None:
        s = self.session
        if not len(s):
            self.header.setText("The annotators disagree nowhere beyond the threshold.")
            self.table.setRowCount(0)
            self.final.setEnabled(False)
            return
        d = s.current()
        src, cand = s.texts()
        done, total = s.progress()
        what = (f"{d.name}: spread {d.spread:g}" if d.kind == "score"
                else f"{d.name} spans: {d.spread:g} found by only some annotators")
        self.header.setText(f"<b>Item {s.index + 1} of {total}</b> · {what} · "
                            f"{done} of {total} adjudicated")
        self.source.setPlainText(src)
        self.candidate.setPlainText(cand)
        self._fill(d, cand)
        self.final.setEnabled(d.kind == "score")
        self.final.setText("" if d.kind != "score" or d.final is None else f"{d.final:g}")
        if not self.final.hasFocus():
            self.setFocus()
        self.final_text.setText(self._final_text(d, cand))

    def _fill(self, d: Disagreement, cand: str) -> None:
        lone = {(x.judge, x.index) for x in d.lone}
        self.rows = []
        cells: list[tuple[str, str, str]] = []
        for k, j in enumerate(d.judges, 1):
            key = str(k) if k <= 9 else ""
            if d.kind == "score":
                self.rows.append((j, None))
                cells.append((key, j, f"{d.scores[j]:g}"))
                continue
            errs = d.spans[j]
            self.rows.append((j, None))
            cells.append((key, j, f"{len(errs)} error(s)" if errs else "no error"))
            for n, e in enumerate(errs):
                self.rows.append((j, n))
                mark = "  ◆ found by this annotator only" if (j, n) in lone else ""
                cells.append(("", "", f"   {span_text(e, cand)}{mark}"))
        self.table.setRowCount(len(cells))
        for r, row in enumerate(cells):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        if d.kind == "spans":
            first = next((r for r, (_j, n) in enumerate(self.rows) if n is not None), 0)
            self.table.selectRow(first)

    @staticmethod
    def _final_text(d: Disagreement, cand: str) -> str:
        if d.final is None:
            return "none yet"
        if isinstance(d.final, tuple):
            return "; ".join(span_text(e, cand) for e in d.final) or "no error"
        return f"{d.final:g}"

    # ------------------------------------------------------------ keys
    def _do(self, call, *args) -> None:
        try:
            call(*args)
        except EvalTransError as exc:
            errors.show_error(exc, self)

    def _typed(self) -> None:
        text = self.final.text().strip().replace(",", ".")
        try:
            value = float(text)
        except ValueError:
            errors.show_error(EvalTransError(f"{text!r} is not a number"), self)
            return
        self._do(self.session.set_score, value)
        self.setFocus()

    def keyPressEvent(self, e: QKeyEvent) -> None:
        s, key, text = self.session, e.key(), e.text()
        if not len(s):
            super().keyPressEvent(e)
            return
        d = s.current()
        if text.isdigit() and text != "0":
            judges = d.judges
            k = int(text) - 1
            if k < len(judges):
                self._do(s.take, judges[k])
        elif d.kind == "score" and (key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_V)
                                    or text == "="):
            self.final.setFocus()
            self.final.selectAll()
        elif key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            r = self.table.currentRow() + (1 if key == Qt.Key.Key_Down else -1)
            if 0 <= r < self.table.rowCount():
                self.table.selectRow(r)
        elif key in (Qt.Key.Key_N, Qt.Key.Key_Right):
            s.next()
        elif key in (Qt.Key.Key_P, Qt.Key.Key_Left):
            s.previous()
        elif key == Qt.Key.Key_U:
            if not s.next_open():
                self.header.setText(self.header.text() + " · every item is adjudicated")
        elif key == Qt.Key.Key_Delete:
            self._do(s.clear)
        elif d.kind == "spans" and (key in (Qt.Key.Key_Plus, Qt.Key.Key_A) or text == "+"):
            r = self.table.currentRow()
            if 0 <= r < len(self.rows) and self.rows[r][1] is not None:
                judge, n = self.rows[r]
                self._do(s.add_span, judge, n)
        elif d.kind == "spans" and (key == Qt.Key.Key_Minus or text == "-"):
            final = d.final if isinstance(d.final, tuple) else ()
            if final:
                self._do(s.remove_span, len(final) - 1)
        else:
            super().keyPressEvent(e)

__all__ = ["AdjudicationScreen", "span_text"]
