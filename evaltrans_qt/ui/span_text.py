"""The texts of the error-span annotation screen (:mod:`evaltrans_qt.ui.span_screen`): the
candidate or its source, read-only, in which the judge selects spans, with the marked
spans coloured by severity and **labelled inline**.

Each marked span (and each pending suggestion) gets a small label drawn right under its
first character, in the space the lines leave between them (the text's line height is
:data:`LINE_HEIGHT` per cent): its number in the error list, the severity and the last
level of its category -- ``1 Major Mistranslation``; ESA spans show the severity only
(their category is not the judge's), a suggestion is prefixed ``?``. A label starts under
its span; where it would run into the next span's label on the same line it is shortened
("1 Major Mistr…") so that every label stays under its own span, and only when even its
number does not fit is the next label moved right; a label past the right edge is pulled
back in. Hovering a span shows its full label
(:func:`label`) as a tooltip.

Selection follows the screen's rules (MQM: Freitag et al. 2021, section 3; ESA: Kocmi et
al. 2024, section 2): a mouse selection snaps to whole words
(:func:`~evaltrans_qt.engine.human.spans.text.snap`) unless Alt is held; Left/Right
move by word and Shift extends.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QEvent, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import QLabel, QTextEdit, QToolTip, QWidget

from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.engine.human.spans.text import next_boundary, previous_boundary, snap

#: Background colour of a span per severity.
COLOURS = {"Neutral": "#d9d9d9", "Minor": "#ffe082", "Major": "#ffab91", "Critical": "#ef5350"}
#: Line height of the texts, in per cent: the room under each line the labels are drawn in.
LINE_HEIGHT = 175
#: Longest category name shown inline (longer ones end with "…").
SHORT = 16

W = TypeVar("W", bound=QWidget)


def named(w: W, name: str, wrap: bool = False) -> W:
    """``w`` with its object name (tests find widgets by it); a label word-wrapped."""
    w.setObjectName(name)
    if wrap and isinstance(w, QLabel):
        w.setWordWrap(True)
    return w


def label(e: ErrorSpan, text: str) -> str:
    """``Major · Accuracy/Mistranslation · «trian»`` (an omission: ``omission at 4``)."""
    where = (f"omission at {e.start}" if e.omission
             else f"«{e.text_of(text)}»" if e.located else "not located")
    side = " (source)" if e.side == "source" else ""
    return f"{e.severity} · {e.category} · {where}{side}"


def short_label(n: int, e: ErrorSpan, suggestion: bool, esa: bool) -> str:
    """The inline label of row ``n`` (0-based) of the error list (module doc)."""
    leaf = e.category.rsplit("/", 1)[-1]
    if len(leaf) > SHORT:
        leaf = leaf[:SHORT - 1] + "…"
    return f"{'?' if suggestion else ''}{n + 1} {e.severity}" + ("" if esa else f" {leaf}")


class SpanText(QTextEdit):
    """A read-only text (the candidate or the source) in which spans are selected."""

    keyPressed = Signal(QKeyEvent)
    clicked = Signal(int)            # a click without a selection, at this position
    spanSelected = Signal()          # words selected (mouse or Shift+arrows): a new error

    def __init__(self, side: str, parent: QWidget | None = None, esa: bool = False) -> None:
        super().__init__(parent)
        self.side = side
        self.esa = esa
        self.setObjectName(f"spanText_{side}")
        self.setReadOnly(True)
        self.setAcceptRichText(False)
        self._painted: list[tuple[ErrorSpan, bool]] = []
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        f = self.font()
        f.setPointSizeF(f.pointSizeF() * 1.25)
        self.setFont(f)
        self.label_font = QFont(f)
        self.label_font.setPointSizeF(f.pointSizeF() * 0.7)

    def setPlainText(self, text: str) -> None:
        """Set the text, with the line height that leaves room for the labels."""
        super().setPlainText(text)
        c = QTextCursor(self.document())
        c.select(QTextCursor.SelectionType.Document)
        fmt = QTextBlockFormat()
        fmt.setLineHeight(LINE_HEIGHT, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
        c.mergeBlockFormat(fmt)

    def selection(self) -> tuple[int, int]:
        c = self.textCursor()
        return c.selectionStart(), c.selectionEnd()

    def select(self, start: int, end: int, anchor_at_start: bool = True) -> None:
        c = self.textCursor()
        c.setPosition(start if anchor_at_start else end)
        c.setPosition(end if anchor_at_start else start, QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(c)

    def keyPressEvent(self, e: QKeyEvent) -> None:
        k, mods = e.key(), e.modifiers()
        if k in (Qt.Key.Key_Left, Qt.Key.Key_Right) \
                and not mods & Qt.KeyboardModifier.ControlModifier:
            c = self.textCursor()
            text = self.toPlainText()
            pos = c.position()
            new = (next_boundary(text, pos) if k == Qt.Key.Key_Right
                   else previous_boundary(text, pos))
            keep = bool(mods & Qt.KeyboardModifier.ShiftModifier)
            c.setPosition(new, QTextCursor.MoveMode.KeepAnchor if keep
                          else QTextCursor.MoveMode.MoveAnchor)
            self.setTextCursor(c)
            if keep:
                self.spanSelected.emit()
            return
        self.keyPressed.emit(e)

    def mouseReleaseEvent(self, e: QMouseEvent) -> None:
        super().mouseReleaseEvent(e)
        start, end = self.selection()
        if start == end:
            self.clicked.emit(self.cursorForPosition(e.position().toPoint()).position())
        else:
            if not e.modifiers() & Qt.KeyboardModifier.AltModifier:
                a, b = snap(self.toPlainText(), start, end)
                self.select(a, b)
            self.spanSelected.emit()

    def event(self, e: QEvent) -> bool:
        """A tooltip over a marked span: its number and label."""
        if e.type() == QEvent.Type.ToolTip and isinstance(e, QHelpEvent):
            pos = self.cursorForPosition(self.viewport().mapFromGlobal(e.globalPos())).position()
            text = self.toPlainText()
            tips = [f"{n + 1}. {'suggested: ' if sugg else ''}{label(x, text)}"
                    for n, (x, sugg) in enumerate(self._painted)
                    if x.side == self.side and x.start is not None and x.end is not None
                    and (x.start <= pos < x.end or x.start == x.end == pos)]
            if tips:
                QToolTip.showText(e.globalPos(), "\n".join(tips), self)
            else:
                QToolTip.hideText()
            return True
        return super().event(e)

    def paint_spans(self, errors: list[tuple[ErrorSpan, bool]], selected: int | None) -> None:
        """Colour ``errors`` (``(error, is_suggestion)``) of this side; ``selected`` (an
        index into ``errors``) gets a frame; their labels are drawn inline."""
        sels = []
        self._painted = list(errors)
        n = len(self.toPlainText())
        for i, (e, suggestion) in enumerate(errors):
            if e.side != self.side or e.start is None or e.end is None:
                continue
            sel = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            colour = QColor(COLOURS.get(e.severity, "#cccccc"))
            if suggestion:                    # pre-filled: underlined, light
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
                fmt.setUnderlineColor(colour.darker(140))
                colour.setAlpha(90)
            fmt.setBackground(colour)
            if i == selected:
                fmt.setFontWeight(700)
                fmt.setFontUnderline(True)
            c = self.textCursor()
            start, end = e.start, e.end
            if start == end:                  # an omission: the character after it
                start, end = (start, start + 1) if start < n else (max(0, start - 1), start)
            c.setPosition(start)
            c.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            sel.cursor, sel.format = c, fmt
            sels.append(sel)
        self.setExtraSelections(sels)
        self.viewport().update()

    # ------------------------------------------------------------ inline labels
    def inline_labels(self) -> list[tuple[QRect, str, int]]:
        """Where each label of this side goes, in viewport coordinates: ``(rectangle,
        text, row)``, ``row`` the index into the painted errors (module doc)."""
        fm = QFontMetrics(self.label_font)
        h = fm.height()
        n = len(self.toPlainText())
        wanted: list[tuple[int, int, int, str, int]] = []      # line top, x, bottom, text, row
        for i, (e, sugg) in enumerate(self._painted):
            if e.side != self.side or e.start is None or e.end is None:
                continue
            c = QTextCursor(self.document())
            c.setPosition(min(e.start, n))
            r = self.cursorRect(c)
            wanted.append((r.top(), r.left(), r.bottom(), short_label(i, e, sugg, self.esa), i))
        wanted.sort()
        out: list[tuple[QRect, str, int]] = []
        right = self.viewport().width()
        free = 0                                   # first free x on the current line
        for k, (top, x0, bottom, text, i) in enumerate(wanted):
            if k == 0 or wanted[k - 1][0] != top:
                free = 0
            x = max(x0, free)
            w = fm.horizontalAdvance(text) + 6
            if x + w > right:                      # at the line's end: pulled back in
                x = max(free, right - w)
            nxt = wanted[k + 1] if k + 1 < len(wanted) and wanted[k + 1][0] == top else None
            limit = right if nxt is None else min(right, nxt[1] - 2)
            if x + w > limit:                      # shortened, its number kept
                short = fm.elidedText(text, Qt.TextElideMode.ElideRight, max(limit - x - 6, 0))
                if short and short != "…" and short.startswith(text.split(" ", 1)[0]):
                    text, w = short, fm.horizontalAdvance(short) + 6
            free = x + w + 2
            out.append((QRect(x, bottom + 1, w, h), text, i))
        return sorted(out, key=lambda o: o[2])

    def paintEvent(self, e: QPaintEvent) -> None:
        super().paintEvent(e)
        if not self._painted:
            return
        p = QPainter(self.viewport())
        try:
            p.setFont(self.label_font)
            for rect, text, i in self.inline_labels():
                err, sugg = self._painted[i]
                bg = QColor(COLOURS.get(err.severity, "#cccccc"))
                bg.setAlpha(110 if sugg else 235)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(bg)
                p.drawRoundedRect(QRectF(rect), 3, 3)
                p.setPen(QColor("#555555" if sugg else "#000000"))
                p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        finally:
            p.end()


__all__ = ["COLOURS", "LINE_HEIGHT", "SpanText", "label", "named", "short_label"]
