"""Session → Protocols → MQM… / ESA…: the error-span annotation screen.

The view of a :class:`~evaltrans_qt.span_session.SpanSessionModel`: it shows the model
and turns mouse and keys into its calls; every edit is the model's (journaled, undoable).
MQM: Freitag et al. 2021, "Experts, Errors, and Context", section 3 and Table 10 (spans,
categories, severities); ESA: Kocmi et al. 2024, "Error Span Annotation", section 2
(Minor/Major spans, then a 0-100 score).

* The candidate and its source are read-only texts. A mouse selection is widened to whole
  words (:func:`~evaltrans_qt.engine.human.spans.text.snap`) unless Alt is held; with
  the keyboard Left/Right move by word and Shift extends; ``O`` marks an omission at the
  cursor.
* Then a severity key (:data:`SEVERITY_KEYS`: 1 minor, 2 major, 3 critical, 0 neutral;
  ESA: 1 and 2 only) and, in MQM, the category from the list beside the text (its letter,
  then a digit for a sub-category, 0 or Enter for the category itself; the chooser is
  :mod:`evaltrans_qt.ui.span_categories`). Spans are coloured by severity, labelled inline
  under the text (number, severity, short category; :mod:`evaltrans_qt.ui.span_text`) and
  listed with their full labels.
* A click in a marked span (or its row in the list) selects it: a severity key relabels
  it, ``C`` chooses another category, Del deletes it.
* ``N``/``P`` next/previous candidate; Enter commits the segment (MQM: "no error" if
  nothing is marked; ESA: the 0-100 score typed in the score field, ``S`` to reach it)
  and goes on; Ctrl+Z / Ctrl+Shift+Z undo and redo through the workspace's history.
* The previous and next segments of the same document are shown dimmed around it.
* Pre-filled spans (a machine judge's, e.g. ``xcomet``, imported with ``evaltrans spans
  --import-json``) are drawn outlined in another style; ``A`` accepts the selected one
  into the judge's annotation, ``R`` rejects it -- recorded in the judge's annotation, so
  the pre-filling statistics tell it from a suggestion left alone (see
  :meth:`SpanSessionModel.reject_suggestion`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.spans_jsonl import DEFAULT_CATEGORY
from evaltrans_qt.span_session import SpanSessionModel
from evaltrans_qt.ui.span_categories import CategoryChooser
from evaltrans_qt.ui.span_text import COLOURS, SpanText, label, named

#: Severity keys, shown on the screen.
SEVERITY_KEYS: dict[int, str] = {Qt.Key.Key_1: "Minor", Qt.Key.Key_2: "Major",
                                 Qt.Key.Key_3: "Critical", Qt.Key.Key_0: "Neutral"}
OMISSION = "Accuracy/Omission"


class SpanScreen(QWidget):
    """The annotation screen over a :class:`SpanSessionModel` (module doc)."""

    def __init__(self, model: SpanSessionModel, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("spanScreen")
        self.model = model
        self.esa = model.protocol == "esa"
        self.setWindowTitle(f"{'ESA' if self.esa else 'MQM'} annotation — {model.judge or 'anonymous'}")
        #: the error selected in the list (index into :meth:`rows`), or None
        self.selected: int | None = None
        #: the severity typed, waiting for a category (MQM), with the span or error it is for
        self.pending: tuple[str, str, int, int] | None = None     # (severity, side, start, end)
        self.relabel_category = False
        self._build()
        from evaltrans_qt.ui.observe import observe
        observe(self, model.shown, self._shown)
        observe(self, model.changed, self._changed)
        self._shown(model.index)

    # ------------------------------------------------------------ building
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        self.header = named(QLabel(), "spanHeader")
        lay.addWidget(self.header)
        dim = "color: palette(mid);"
        self.before = named(QLabel(), "contextBefore", wrap=True)
        self.before.setStyleSheet(dim)
        lay.addWidget(self.before)
        self.source = SpanText("source", self, esa=self.esa)
        self.target = SpanText("target", self, esa=self.esa)
        self.source.setMaximumHeight(80)
        self.target.setMaximumHeight(150)
        lay.addWidget(QLabel("Source:"))
        lay.addWidget(self.source)
        lay.addWidget(QLabel("Translation (select the error, then its severity):"))
        mid = QHBoxLayout()
        mid.addWidget(self.target, 3)
        self.categories = CategoryChooser(self.model.typology)
        self.categories.setMaximumWidth(300)
        self.categories.setMaximumHeight(150)
        mid.addWidget(self.categories, 1)
        lay.addLayout(mid)
        self.after = named(QLabel(), "contextAfter", wrap=True)
        self.after.setStyleSheet(dim)
        lay.addWidget(self.after)
        self.errors_label = QLabel()
        lay.addWidget(self.errors_label)
        self.error_list = named(QListWidget(), "spanErrors")
        lay.addWidget(self.error_list, 1)
        row = QHBoxLayout()
        self.score = named(QLineEdit(), "esaScore")
        self.score.setPlaceholderText("0–100, Enter")
        self.score.setMaximumWidth(110)
        self.score.returnPressed.connect(lambda: self._safely(self.commit_segment))
        self.score_label = QLabel("ESA score (S):")
        row.addWidget(self.score_label)
        row.addWidget(self.score)
        self.score_label.setVisible(self.esa)
        self.score.setVisible(self.esa)
        names = ["Minor", "Major"] + ([] if self.esa else ["Critical", "Neutral"])
        key = {v: k for k, v in {"1": "Minor", "2": "Major", "3": "Critical", "0": "Neutral"}.items()}
        sev = " ".join(f"<span style='background:{COLOURS[n]}; color:black'>&nbsp;{key[n]} "
                       f"{n.lower()}&nbsp;</span>" for n in names)
        self.keys = named(QLabel(f"Keys: {sev} · O omission here · Del delete · "
                           f"{'' if self.esa else 'C category · '}A/R accept/reject suggestion · "
                           "N/P next/previous · Enter commit · Ctrl+Z undo · Alt+drag: no snapping"), "spanKeys", wrap=True)
        row.addWidget(self.keys, 1)
        lay.addLayout(row)
        self.status = named(QLabel(), "spanStatus")
        lay.addWidget(self.status)
        for t in (self.source, self.target):
            t.keyPressed.connect(self.handle_key)
            t.clicked.connect(lambda pos, side=t.side: self._click(side, pos))
            t.spanSelected.connect(self._span_selected)
        self.error_list.currentRowChanged.connect(self._select_row)
        self.categories.picked.connect(self._pick_category)
        self._show_categories("")
        self.resize(1100, 640)

    # ------------------------------------------------------------ showing the model
    def rows(self) -> list[tuple[ErrorSpan, bool]]:
        """The judge's errors, then the pending suggestions: ``(error, is_suggestion)``."""
        m = self.model
        return [(e, False) for e in m.errors()] + [(e, True) for e in m.suggestions()]

    def _shown(self, i: int) -> None:
        m = self.model
        t = m.target()
        src = m.database.sources[m.current[0]]
        self.header.setText(f"<b>{i + 1} / {len(m.items)}</b> · system <b>{t.system or '?'}</b>"
                            f" · document {src.doc or '–'} · judge {m.judge or '–'}"
                            f"{' · done' if m.done() else ''}")
        self.source.setPlainText(m.source_text())
        self.target.setPlainText(t.text)
        ctx = m.context()
        fmt = [f"{'▲' if c.offset < 0 else '▼'} {c.source}  →  {c.candidate or '–'}" for c in ctx]
        self.before.setText("\n".join(s for c, s in zip(ctx, fmt) if c.offset < 0)
                            or "(start of the document)")
        self.after.setText("\n".join(s for c, s in zip(ctx, fmt) if c.offset > 0)
                           or "(end of the document)")
        score = m.score() if self.esa else None
        self.score.setText("" if score is None else f"{score:g}")
        self.pending, self.selected = None, None
        self._show_categories("")
        self._refresh()
        self.target.setFocus()

    def _changed(self, i: int) -> None:
        if i == self.model.index:
            if self.selected is not None and self.selected >= len(self.rows()):
                self.selected = None
            self._refresh()
            if self.esa:
                s = self.model.score()
                self.score.setText("" if s is None else f"{s:g}")

    def _refresh(self) -> None:
        rows = self.rows()
        t, s = self.model.target().text, self.model.source_text()
        n, rejected = len(self.model.errors()), len(self.model.rejected())
        self.errors_label.setText(
            f"Errors marked by {self.model.judge or 'you'}: {n}"
            + (f", suggestions: {len(rows) - n}" if len(rows) > n else "")
            + (f", rejected: {rejected}" if rejected else "")
            + " — click one to relabel (severity key" + ("" if self.esa else ", C category")
            + ") or delete it (Del)")
        self.error_list.blockSignals(True)
        self.error_list.clear()
        for n, (e, sugg) in enumerate(rows):
            text = label(e, t if e.side == "target" else s)
            it = QListWidgetItem(f"{n + 1}. {'suggested: ' if sugg else ''}{text}")
            it.setBackground(QColor(COLOURS.get(e.severity, "#cccccc")).lighter(115 if not sugg else 135))
            it.setForeground(QColor("#000000"))
            self.error_list.addItem(it)
        if self.selected is not None and self.selected < len(rows):
            self.error_list.setCurrentRow(self.selected)
        self.error_list.blockSignals(False)
        for w in (self.source, self.target):
            w.paint_spans(rows, self.selected)

    def _show_categories(self, parent: str) -> None:
        if self.esa:
            self.categories.hide()              # ESA marks severities only
        else:
            self.categories.show_level(parent)

    def _message(self, text: str) -> None:
        self.status.setText(text)

    # ------------------------------------------------------------ input
    def _focused_text(self) -> SpanText:
        return self.source if self.source.hasFocus() else self.target

    def _click(self, side: str, pos: int) -> None:
        for n, (e, _s) in enumerate(self.rows()):
            if e.side == side and e.start is not None and e.end is not None \
                    and (e.start <= pos < e.end or e.start == e.end == pos):
                self.select_error(n)
                return
        self.select_error(None)

    def _span_selected(self) -> None:
        """New words selected: the next severity key marks them (no error selected)."""
        if self.selected is not None:
            self.selected = None
            self._refresh()

    def _select_row(self, row: int) -> None:
        self.select_error(row if row >= 0 else None)

    def select_error(self, n: int | None) -> None:
        """Select row ``n`` of :meth:`rows` (None: none) for relabelling or deleting."""
        self.selected = n
        self.pending = None
        self._refresh()

    def handle_key(self, e: QKeyEvent) -> None:
        """The screen's keys (module doc); errors of the model are shown, not raised."""
        try:
            if not self._key(e):
                e.ignore()
        except EvalTransError as exc:
            self._message(str(exc))

    def _safely(self, call) -> None:
        try:
            call()
        except EvalTransError as exc:
            self._message(str(exc))

    def keyPressEvent(self, e: QKeyEvent) -> None:
        self.handle_key(e)

    def _key(self, e: QKeyEvent) -> bool:
        m, k, text = self.model, e.key(), e.text().lower()
        if e.matches(QKeySequence.StandardKey.Undo):
            return m.undo() or True
        if e.matches(QKeySequence.StandardKey.Redo) or (
                k == Qt.Key.Key_Z and e.modifiers() == (Qt.KeyboardModifier.ControlModifier
                                                        | Qt.KeyboardModifier.ShiftModifier)):
            return m.redo() or True
        if e.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            return False
        if k == Qt.Key.Key_Escape:
            self.pending, self.relabel_category = None, False
            self._show_categories("")
            self._message("")
            return True
        if (self.pending is not None or self.relabel_category) and not self.esa \
                and self._category_key(k, text):
            return True
        if k in SEVERITY_KEYS:
            self.severity(SEVERITY_KEYS[k])
        elif text == "o":
            w = self._focused_text()
            self.pending = None
            self.pending_omission(w.side, w.textCursor().position())
        elif text == "c" and self.selected is not None and not self.esa:
            self.relabel_category = True
            self._message("category for the selected error: its key")
        elif k in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.delete_selected()
        elif text == "a":
            self.accept_selected(True)
        elif text == "r":
            self.accept_selected(False)
        elif text == "n":
            m.next()
        elif text == "p":
            m.previous()
        elif text == "s" and self.esa:
            self.score.setFocus()
        elif k in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.commit_segment()
        else:
            return False
        return True

    def _category_key(self, k: int, text: str) -> bool:
        done = self.categories.key(k, text)
        if done is None:
            self._message("the category first: its key (Esc to cancel)")
        return done is not False

    # ------------------------------------------------------------ model calls
    def severity(self, severity: str) -> None:
        """A severity key: relabel the selected error, or mark the selected text (MQM
        then asks for the category; ESA marks at once)."""
        m = self.model
        rows = self.rows()
        if self.selected is not None and self.selected < len(rows) and not rows[self.selected][1]:
            m.relabel(self.selected, severity=severity)
            return
        w = self._focused_text()
        start, end = w.selection()
        if self.pending is not None and self.pending[2] == self.pending[3]:
            _sev, side, start, end = self.pending     # an omission waiting for its severity
        elif start == end:
            self._message("select the words of the error first (or O for an omission)")
            return
        else:
            side = w.side
        if self.esa:
            m.add_error(start, end, severity, OMISSION if start == end else DEFAULT_CATEGORY,
                        side=side, snap=False)
            self.pending = None
            return
        if start == end:
            m.add_omission(start, severity, OMISSION, side=side)
            self.pending = None
            return
        self.pending = (severity, side, start, end)
        self._message(f"{severity}: now the category (its key, Esc to cancel)")

    def pending_omission(self, side: str, position: int) -> None:
        self.pending = ("", side, position, position)
        self._message(f"omission at {position}: its severity (1 minor, 2 major…)")

    def _pick_category(self, path: str | None) -> None:
        if not path:
            return
        m = self.model
        if self.relabel_category and self.selected is not None:
            m.relabel(self.selected, category=path)
        elif self.pending is not None and self.pending[0]:
            sev, side, start, end = self.pending
            m.add_error(start, end, sev, path, side=side, snap=False)
        self.pending, self.relabel_category = None, False
        self._show_categories("")
        self._message("")

    def delete_selected(self) -> None:
        rows = self.rows()
        if self.selected is None or self.selected >= len(rows):
            self._message("select an error to delete (click it)")
        elif rows[self.selected][1]:
            self.accept_selected(False)
        else:
            n, self.selected = self.selected, None
            self.model.delete(n)

    def accept_selected(self, accept: bool) -> None:
        """Accept (or reject) the selected suggestion."""
        rows = self.rows()
        if self.selected is None or self.selected >= len(rows) or not rows[self.selected][1]:
            self._message("select a suggested span first")
            return
        k = self.selected - len(self.model.errors())
        if accept:
            self.model.accept_suggestion(k)
        else:
            self.model.reject_suggestion(k)
            self.selected = None
            self._refresh()

    def commit_segment(self) -> None:
        """Enter: MQM -- "no error" unless something is marked; ESA -- the typed score;
        then the next candidate."""
        m = self.model
        if self.esa:
            typed = self.score.text().strip()
            if not typed:
                self.score.setFocus()
                self._message("type the 0–100 score first, then Enter")
                return
            try:
                value = float(typed)
            except ValueError:
                self._message(f"{typed!r} is not a number from 0 to 100")
                return
            m.set_score(value)
        elif m.annotation() is None:
            m.no_error()
        if not m.next():
            self._message("that was the last translation")


__all__ = ["SpanScreen", "SpanText", "SEVERITY_KEYS", "COLOURS", "label", "named"]
