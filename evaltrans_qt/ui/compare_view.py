"""The compare view: a candidate against a reference, word by word, with the measure's alignment.

Identities are plain; substitutions, insertions and deletions differ in
colour *and* style (substitution: underlined, insertion: bold, deletion:
struck out), so nothing depends on colour alone. Block moves (CDER long jumps,
TER shifts, INVWER inversions) are framed in one colour per block in both
sentences and carry the block number. Hovering a word highlights its
counterpart(s) in the other sentence; a click pins the highlight. For BLEU
each candidate word shows one bar per n-gram order in which it was matched.
A breakdown (distance, reference length, rate, edit counts, blocks, n-gram
precisions, nearest reference) sits beside the sentences. For the error classes
(Popović & Ney 2011 §3, Hjerson; ``engine/measures/errorclasses.py``) each word is filled
with the colour of its class -- inflection, reordering, missing, extra, lexical; correct
words plain -- over the styles of its WER edit, the class named in its tooltip and the
legend.

The alignment is computed by :func:`compute_comparison` (Qt-free) on a worker
thread; results of superseded requests are ignored.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from PySide6.QtCore import QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.measures.alignment import Alignment, BlockKind, OpKind
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.ui.workers import LatestRunner

#: Selector order of the measures most used (their shortcuts Ctrl+1 ... stay put).
FIRST = ("wer", "cder", "ter", "invwer", "ljwer", "per", "bleu")


def alignable_measures() -> list[tuple[str, str]]:
    """Measures the view can draw, from the registry: ``(name, label)`` of every measure with
    an alignment (``Measure.align`` overridden) plus BLEU's matched n-grams."""
    from evaltrans_qt.engine.measures import load_all
    from evaltrans_qt.engine.measures.base import Measure
    reg = load_all()
    ok = {n for n, c in reg.items() if c.align is not Measure.align or n == "bleu"}
    names = [n for n in FIRST if n in ok] + sorted(ok - set(FIRST))
    return [(n, LABELS.get(n, n.upper())) for n in names]


#: Selector labels other than the measure's name in capitals.
LABELS = {"bleu": "BLEU n-grams", "errorclasses": "Error classes"}


#: Measures the view can draw, in selector order: (name, label).
MEASURES = alignable_measures()

MATCH, SUB, INS, DEL, NGRAM, NONE = "match", "sub", "ins", "del", "ngram", "none"

KIND_COLOURS = {SUB: QColor(230, 140, 0), INS: QColor(220, 50, 47), DEL: QColor(38, 120, 220)}
#: Okabe-Ito colours for blocks, recycled for block numbers > 8.
BLOCK_COLOURS = [QColor(c) for c in ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2",
                                     "#D55E00", "#F0E442", "#999999")]
ORDER_COLOURS = [QColor(c) for c in ("#56B4E9", "#009E73", "#E69F00", "#CC79A7", "#D55E00", "#0072B2")]
KIND_NAMES = {MATCH: "identity", SUB: "substitution", INS: "insertion", DEL: "deletion",
              NGRAM: "matched n-gram", NONE: "unmatched"}
BLOCK_NAMES = {BlockKind.LONG_JUMP: "long jump", BlockKind.SHIFT: "shift",
               BlockKind.INVERSION: "inversion"}
#: Fill of each error class (Hjerson's labels; Okabe-Ito colours, distinct from one another
#: in the common colour-vision deficiencies); correct words ("x") have none.
ERROR_CLASS_COLOURS = {"infl": QColor("#CC79A7"), "reord": QColor("#56B4E9"),
                       "miss": QColor("#0072B2"), "ext": QColor("#D55E00"),
                       "lex": QColor("#E69F00")}


def _set_text(label: QLabel, text: str) -> None:
    """Set a label's text only if it changed (each change re-lays out the window)."""
    if label.text() != text:
        label.setText(text)


def block_colour(number: int) -> QColor:
    return BLOCK_COLOURS[(number - 1) % len(BLOCK_COLOURS)]


# ----------------------------------------------------------------- Qt-free part
@dataclass
class TokenMark:
    """How one displayed word is drawn: its kind, counterparts, block and n-gram orders."""

    text: str
    kind: str = MATCH
    counterparts: tuple[int, ...] = ()
    block: int | None = None
    orders: tuple[int, ...] = ()
    tip: str = ""
    #: The word's error class (a key of :data:`ERROR_CLASS_COLOURS`), None when correct or
    #: not classified.
    error_class: str | None = None


@dataclass
class Comparison:
    """Everything the view draws for one (candidate, reference) pair."""

    measure: str
    hyp: list[TokenMark]
    ref: list[TokenMark]
    ref_label: str
    breakdown: list[tuple[str, str]]
    alignment: Alignment | None = None
    blocks: list[tuple[int, str]] = field(default_factory=list)
    hyp_rtl: bool = False
    ref_rtl: bool = False
    #: Index (in the ``refs`` passed in) of the reference shown.
    ref_index: int = 0
    #: Error classes in the words (class -> its name), for the legend; empty otherwise.
    error_classes: dict[str, str] = field(default_factory=dict)


def is_rtl(text: str) -> bool:
    """True if the first strong directional character is right-to-left."""
    for ch in text:
        d = unicodedata.bidirectional(ch)
        if d in ("R", "AL"):
            return True
        if d == "L":
            return False
    return False


def marks_from_alignment(al: Alignment) -> tuple[list[TokenMark], list[TokenMark]]:
    """Token marks of candidate and reference from an :class:`Alignment`."""
    hyp = [TokenMark(w, INS) for w in al.hyp]
    ref = [TokenMark(w, DEL) for w in al.ref]
    h_cp: dict[int, list[int]] = {}
    r_cp: dict[int, list[int]] = {}
    h_seen: set[int] = set()
    for op in al.operations:
        if op.kind in (OpKind.MATCH, OpKind.SUB) and op.hyp_pos is not None and op.ref_pos is not None:
            kind = MATCH if op.kind == OpKind.MATCH else SUB
            if 0 <= op.hyp_pos < len(hyp):
                # CDER may cover a candidate word several times: a substitution shows over an identity
                if op.hyp_pos not in h_seen or kind == SUB:
                    hyp[op.hyp_pos].kind = kind
                h_seen.add(op.hyp_pos)
                h_cp.setdefault(op.hyp_pos, []).append(op.ref_pos)
            if 0 <= op.ref_pos < len(ref):
                ref[op.ref_pos].kind = kind
                r_cp.setdefault(op.ref_pos, []).append(op.hyp_pos)
        elif op.kind == OpKind.INS and op.hyp_pos is not None and 0 <= op.hyp_pos < len(hyp) \
                and op.hyp_pos not in h_seen:
            hyp[op.hyp_pos].kind = INS
        elif op.kind == OpKind.DEL and op.ref_pos is not None and 0 <= op.ref_pos < len(ref):
            ref[op.ref_pos].kind = DEL
    for i, cp in h_cp.items():
        hyp[i].counterparts = tuple(cp)
    for j, cp in r_cp.items():
        ref[j].counterparts = tuple(cp)
    for b in al.blocks:
        for i in range(*b.hyp_span):
            if 0 <= i < len(hyp):
                hyp[i].block = b.number
        for j in range(*b.ref_span):
            if 0 <= j < len(ref):
                ref[j].block = b.number
    for m, other in ((hyp, ref), (ref, hyp)):
        for t in m:
            tip = KIND_NAMES[t.kind]
            if t.counterparts:
                tip += ": " + t.text + " ↔ " + " ".join(other[k].text for k in t.counterparts
                                                       if 0 <= k < len(other))
            if t.block is not None:
                kinds = {b.number: b.kind for b in al.blocks}
                tip += f"; block {t.block} ({BLOCK_NAMES.get(kinds.get(t.block), 'block')})"
            t.tip = tip
    return hyp, ref


def apply_error_classes(al: Alignment, hyp: list[TokenMark], ref: list[TokenMark]
                        ) -> dict[str, str]:
    """Give each word the error class the alignment's notes hold (``hyp_classes``,
    ``ref_classes`` and ``class_names`` of the ``errorclasses`` measure), naming it first in
    the word's tooltip; returns the classes that occur (class -> name), in the measure's
    order. Nothing happens for an alignment without classes."""
    names = al.notes.get("class_names") or {}
    seen: set[str] = set()
    for marks, key in ((hyp, "hyp_classes"), (ref, "ref_classes")):
        for t, cls in zip(marks, al.notes.get(key) or ()):
            if cls in ERROR_CLASS_COLOURS:
                t.error_class = cls
                seen.add(cls)
            if cls in names:
                t.tip = f"{names[cls]} (WER alignment: {t.tip})"
    return {c: str(names.get(c, c)) for c in ERROR_CLASS_COLOURS if c in seen}


def bleu_marks(ngrams, hyp: list[str], ref: list[str], shown: int) -> tuple[list[TokenMark], list[TokenMark]]:
    """Marks for BLEU from the engine's matches (:class:`~evaltrans_qt.engine.measures.alignment.NgramMatches`):
    each candidate word carries the orders of the matched m-grams covering it; words of the
    shown reference carry the orders of its m-grams equal to a matched one."""
    n_orders = len(ngrams.correct)
    h = [TokenMark(w, NONE) for w in hyp]
    r = [TokenMark(w, NONE) for w in ref]
    h_orders: list[set[int]] = [set() for _ in hyp]
    r_orders: list[set[int]] = [set() for _ in ref]
    h_cp: list[set[int]] = [set() for _ in hyp]
    r_cp: list[set[int]] = [set() for _ in ref]
    ref_spans = ngrams.ref_spans[shown] if 0 <= shown < len(ngrams.ref_spans) else ((),) * n_orders
    for m in range(1, n_orders + 1):
        at: dict[tuple[str, ...], list[int]] = {}
        for c, d in ref_spans[m - 1]:
            for k in range(c, d):
                r_orders[k].add(m)
            at.setdefault(tuple(ref[c:d]), []).append(c)
        for a, b in ngrams.hyp_spans[m - 1]:
            for k in range(a, b):
                h_orders[k].add(m)
            for c in at.get(tuple(hyp[a:b]), []) if b > a else []:
                for k in range(b - a):
                    h_cp[a + k].add(c + k)
                    r_cp[c + k].add(a + k)
    for i, t in enumerate(h):
        t.orders = tuple(sorted(h_orders[i]))
        t.kind = NGRAM if t.orders else NONE
        t.counterparts = tuple(sorted(h_cp[i]))
        t.tip = (f"matched in {', '.join(f'{o}-grams' for o in t.orders)}" if t.orders
                 else "not matched in any reference")
    for j, t in enumerate(r):
        t.orders = tuple(sorted(r_orders[j]))
        t.kind = NGRAM if t.orders else NONE
        t.counterparts = tuple(sorted(r_cp[j]))
        t.tip = (f"part of matched {', '.join(f'{o}-grams' for o in t.orders)}" if t.orders
                 else "not matched")
    return h, r


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def compute_comparison(measure_name: str, hyp_text: str, ref_texts: list[str], ref_labels: list[str],
                       options: EvalOptions | None = None, shown_ref: int | None = None,
                       max_n: int | None = None) -> Comparison:
    """Align ``hyp_text`` with ``ref_texts`` for one measure (Qt-free; runs on a worker).

    The explanation is :func:`evaltrans_qt.engine.measures.alignment.explain_segment` (the path of
    ``evaltrans align`` too); this only turns it into marks and a breakdown.
    ``shown_ref=None`` shows the reference the measure found nearest
    (``Alignment.ref_index``; for BLEU the one closest in length).
    """
    from evaltrans_qt.engine.measures.alignment import explain_segment

    if shown_ref is not None:
        texts_used, labels_used, offset = [ref_texts[shown_ref]], [ref_labels[shown_ref]], shown_ref
    else:
        texts_used, labels_used, offset = list(ref_texts), list(ref_labels), 0
    e = explain_segment(measure_name, hyp_text, texts_used, options,
                        max_order=max_n if measure_name == "bleu" else None)
    score, stats = e.score, e.stats
    breakdown: list[tuple[str, str]] = []
    if e.ngrams is not None:
        k = e.ref_index if 0 <= e.ref_index < len(labels_used) else 0
        ref_tok = list(e.refs[k]) if e.refs else []
        h, r = bleu_marks(e.ngrams, list(e.hyp), ref_tok, k)
        if score is not None:
            breakdown.append(("Sentence BLEU", _fmt(score.value)))
        for o, (c, t) in enumerate(zip(e.ngrams.correct, e.ngrams.total), start=1):
            p = c / t if t else 0.0
            breakdown.append((f"{o}-gram precision", f"{c}/{t} = {p:.3f}"))
        if e.ngrams.pad_rule != "none":
            breakdown.append(("Sentence boundaries", f"pad rule {e.ngrams.pad_rule} (Table A.5)"))
        breakdown.append(("Candidate length", str(len(e.hyp))))
        breakdown.append(("Reference length (shown)", str(len(ref_tok))))
        if score is not None:
            for key, val in score.columns.items():
                if isinstance(val, (int, float)):
                    breakdown.append((key, _fmt(float(val))))
        breakdown.append(("Reference shown", labels_used[k] if labels_used else "-"))
        return Comparison(measure_name, h, r, labels_used[k] if labels_used else "", breakdown,
                          hyp_rtl=is_rtl(hyp_text), ref_rtl=bool(texts_used) and is_rtl(texts_used[k]),
                          ref_index=offset + k)
    al = e.alignment
    if al is None:
        raise ValueError(f"measure '{measure_name}' has no alignment to show")
    h, r = marks_from_alignment(al)
    classes = apply_error_classes(al, h, r)
    k = al.ref_index if 0 <= al.ref_index < len(labels_used) else 0
    counts = al.counts()
    breakdown.append(("Distance", _fmt(float(al.distance))))
    if score is not None:
        details = score.details if isinstance(score.details, dict) else {}
        ref_len = details.get("reference-length")
        if ref_len is None and stats is not None and len(stats) > 1:
            ref_len = float(stats[1])
        breakdown.append(("Reference length", _fmt(float(ref_len)) if ref_len is not None else "-"))
        breakdown.append(("SUMerr (sum of the class rates)" if al.notes.get("class_names")
                          else "Rate", f"{100 * score.value:.2f} %"))
    elif e.error:
        breakdown.append(("Score", f"not available: {e.error}"))
    breakdown.append(("Identities", str(counts.get("match", 0))))
    breakdown.append(("Substitutions", str(counts.get("sub", 0))))
    breakdown.append(("Insertions", str(counts.get("ins", 0))))
    breakdown.append(("Deletions", str(counts.get("del", 0))))
    kinds = Counter(b.kind for b in al.blocks)
    for kind, label in ((BlockKind.LONG_JUMP, "Long jumps"), (BlockKind.SHIFT, "Shifts"),
                        (BlockKind.INVERSION, "Inversions")):
        if kinds.get(kind) or (measure_name in ("cder", "wcder", "ljwer") and kind == BlockKind.LONG_JUMP) or (
                measure_name == "ter" and kind == BlockKind.SHIFT) or (
                measure_name == "invwer" and kind == BlockKind.INVERSION):
            breakdown.append((label, str(kinds.get(kind, 0))))
    breakdown.append(("Nearest reference", labels_used[k] if labels_used else "-"))
    if e.reference_distances and len(labels_used) > 1:
        for lab, d in zip(labels_used, e.reference_distances):
            breakdown.append((f"  distance to {lab}", _fmt(float(d))))
    if al.notes.get("approximated"):
        breakdown.append(("Note", "approximated (long sentence)"))
    for cls, name in (al.notes.get("class_names") or {}).items():
        if cls in ERROR_CLASS_COLOURS:
            n_h = sum(t.error_class == cls for t in h)
            n_r = sum(t.error_class == cls for t in r)
            breakdown.append((name[:1].upper() + name[1:], f"{n_h} candidate, {n_r} reference"))
    blocks = [(b.number, BLOCK_NAMES.get(b.kind, str(b.kind))) for b in al.blocks]
    shown_text = texts_used[k] if texts_used else ""
    return Comparison(measure_name, h, r, labels_used[k] if labels_used else "", breakdown, al, blocks,
                      hyp_rtl=is_rtl(hyp_text), ref_rtl=is_rtl(shown_text), ref_index=offset + k,
                      error_classes=classes)


# ----------------------------------------------------------------- widgets
class TokenFlow(QWidget):
    """A sentence drawn word by word, wrapping to the width, right-to-left when needed."""

    hovered = Signal(int)
    clicked = Signal(int)

    PAD_X, GAP, TOP, BOTTOM = 3, 5, 12, 6

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.marks: list[TokenMark] = []
        self.rtl = False
        self.highlight: set[int] = set()
        self.hover_index = -1
        self._rects: list[QRect] = []
        self._layout_width = -1
        self._height = 0
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Minimum)
        f = self.font()
        f.setPointSizeF(f.pointSizeF() * 1.15)
        self.setFont(f)

    # data
    def set_marks(self, marks: list[TokenMark], rtl: bool = False) -> None:
        self.marks = marks
        self.rtl = rtl
        self.highlight = set()
        self.hover_index = -1
        self._layout_width = -1
        self.updateGeometry()
        self.update()

    def kinds(self) -> list[str]:
        return [m.kind for m in self.marks]

    def set_highlight(self, indices) -> None:
        self.highlight = set(indices)
        self.update()

    # geometry
    def _fonts(self, mark: TokenMark) -> QFont:
        f = QFont(self.font())
        if mark.kind == SUB:
            f.setUnderline(True)
        elif mark.kind == INS:
            f.setBold(True)
        elif mark.kind == DEL:
            f.setStrikeOut(True)
            f.setItalic(True)
        return f

    def _do_layout(self, width: int) -> int:
        key = (width, self.logicalDpiX(), self.font().key())
        if key == self._layout_width:
            return self._height
        fm = QFontMetrics(self.font(), self)
        bold = QFont(self.font())
        bold.setBold(True)
        fmb = QFontMetrics(bold, self)
        line_h = fm.height() + self.TOP + self.BOTTOM
        x, y = 0, 0
        rects = []
        avail = max(width, 50)
        for m in self.marks:
            w = (fmb if m.kind == INS else fm).horizontalAdvance(m.text) + 2 * self.PAD_X
            if x > 0 and x + w > avail:
                x, y = 0, y + line_h
            rects.append(QRect(x, y + self.TOP, min(w, avail), fm.height()))
            x += w + self.GAP
        if self.rtl:
            rects = [QRect(avail - r.x() - r.width(), r.y(), r.width(), r.height()) for r in rects]
        self._rects = rects
        self._layout_width = key
        self._height = (y + line_h) if self.marks else line_h
        return self._height

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, w: int) -> int:
        return self._do_layout(w)

    def sizeHint(self) -> QSize:
        w = max(self.width(), 300)
        return QSize(w, self._do_layout(w))

    def minimumSizeHint(self) -> QSize:
        return QSize(100, self._do_layout(max(self.width(), 100)))

    def showEvent(self, ev) -> None:
        self._layout_width = -1  # the screen (DPI) is known only now
        self.updateGeometry()
        super().showEvent(ev)

    def resizeEvent(self, ev) -> None:
        self._do_layout(self.width())
        if self.height() != self._height:
            self.setMinimumHeight(self._height)
        super().resizeEvent(ev)

    def token_rect(self, i: int) -> QRect:
        self._do_layout(self.width())
        return self._rects[i]

    def index_at(self, pos: QPoint) -> int:
        self._do_layout(self.width())
        for i, r in enumerate(self._rects):
            if r.adjusted(-2, -self.TOP, 2, self.BOTTOM).contains(pos):
                return i
        return -1

    # painting
    def paintEvent(self, ev) -> None:
        self._do_layout(self.width())
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        pal = self.palette()
        text_col = pal.color(QPalette.Text)
        hl = pal.color(QPalette.Highlight)
        fonts = {k: self._fonts(TokenMark("", k)) for k in (MATCH, SUB, INS, DEL, NGRAM, NONE)}
        centre = Qt.AlignCenter
        small = QFont(self.font())
        small.setPointSizeF(max(8.0, self.font().pointSizeF() * 0.8))   # block numbers: readable
        small.setBold(True)
        classified = any(m.error_class is not None for m in self.marks)
        for i, (m, r) in enumerate(zip(self.marks, self._rects)):
            fill = self.fill_colour(m, classified)
            if fill is not None:
                p.fillRect(r, fill)
            if i in self.highlight or i == self.hover_index:
                fill = QColor(hl)
                fill.setAlpha(110)
                p.fillRect(r.adjusted(-1, -1, 1, 1), fill)
                p.setPen(QPen(hl, 2))
                p.drawRect(r.adjusted(-2, -2, 2, 2))
            if m.block is not None:
                col = block_colour(m.block)
                p.setPen(QPen(col, 2))
                p.drawRoundedRect(r.adjusted(-1, -3, 1, 3), 3, 3)
            p.setPen(text_col)
            p.setFont(fonts[m.kind])
            p.drawText(r, centre, m.text)
            if m.kind == SUB and not classified:  # a coloured underline shows in any palette
                p.setPen(QPen(KIND_COLOURS[SUB], 2))
                p.drawLine(r.left() + 2, r.bottom() + 2, r.right() - 2, r.bottom() + 2)
            for k, o in enumerate(m.orders):
                col = ORDER_COLOURS[(o - 1) % len(ORDER_COLOURS)]
                p.fillRect(QRect(r.left(), r.bottom() + 2 + 2 * k, r.width(), 2), col)
        # block numbers: a badge at the first word of each block run
        prev = None
        for _i, (m, r) in enumerate(zip(self.marks, self._rects)):
            if m.block is not None and m.block != prev:
                col = block_colour(m.block)
                p.setFont(small)
                fmn = QFontMetrics(small, self)
                label = str(m.block)
                w = fmn.horizontalAdvance(label) + 6
                h = fmn.height()
                x = r.right() - w + 2 if self.rtl else r.left() - 2
                badge = QRect(x, r.top() - h + 1, w, h - 1)
                p.setPen(Qt.NoPen)
                p.setBrush(col)
                p.drawRoundedRect(badge, 3, 3)
                p.setPen(QColor("black") if col.lightness() > 140 else QColor("white"))
                p.drawText(badge, Qt.AlignCenter, label)
                p.setBrush(Qt.NoBrush)
            prev = m.block
        p.end()

    @staticmethod
    def fill_colour(m: TokenMark, classified: bool = False) -> QColor | None:
        """The background of a word: its error class's colour (``classified``: the words
        carry error classes, so an unclassified one is correct and plain), else its edit
        kind's or its highest n-gram order's; None for none."""
        if classified or m.error_class is not None:
            if m.error_class is None:
                return None
            fill = QColor(ERROR_CLASS_COLOURS[m.error_class])
            fill.setAlpha(110)
            return fill
        base = KIND_COLOURS.get(m.kind)
        if m.kind == NGRAM and m.orders:
            base = ORDER_COLOURS[(max(m.orders) - 1) % len(ORDER_COLOURS)]
        if base is None:
            return None
        fill = QColor(base)
        fill.setAlpha(70 if m.kind != NGRAM else 45)
        return fill

    # interaction
    def mouseMoveEvent(self, ev) -> None:
        i = self.index_at(ev.position().toPoint())
        if i != self.hover_index:
            self.hover_index = i
            self.update()
            self.hovered.emit(i)
            if i >= 0 and self.marks[i].tip:
                QToolTip.showText(ev.globalPosition().toPoint(), self.marks[i].tip, self)
        super().mouseMoveEvent(ev)

    def leaveEvent(self, ev) -> None:
        if self.hover_index != -1:
            self.hover_index = -1
            self.update()
            self.hovered.emit(-1)
        super().leaveEvent(ev)

    def mousePressEvent(self, ev) -> None:
        self.clicked.emit(self.index_at(ev.position().toPoint()))
        super().mousePressEvent(ev)


class CompareView(QWidget):
    """Source, candidate and reference with the chosen measure's alignment, plus a breakdown.

    ``set_pair(source_text, candidate, candidate_label, references)`` where
    ``references`` is a list of ``(label, text)``; the "against" selector offers
    the nearest reference, each reference, and any extra targets given in
    ``others`` (another candidate, to compare two candidates).

    In the application it follows the workspace's selection
    (:class:`~evaltrans_qt.selection.Selection`): the selected candidate is drawn
    (:meth:`show_selection`) and the measure is the selection's -- the measure selector
    writes it, and shows whatever another view chose.
    """

    comparisonReady = Signal(object)

    def __init__(self, workspace=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareView")
        from evaltrans_qt.workspace import Workspace
        #: The options come from here (never a copy): a change recomputes the alignment.
        self.workspace = workspace if workspace is not None else Workspace()
        from evaltrans_qt.ui.observe import observe
        observe(self, self.workspace.options_changed, self.recompute)
        observe(self, self.workspace.database_changed, self.clear)
        self.selection = self.workspace.selection
        observe(self, self.selection.changed, self._selection_changed)
        observe(self, self.selection.measure_changed, self._measure_selected)
        self.runner = LatestRunner(self)
        # an alignment not back within this time: the view clears what it showed and says
        # it is computing (never an earlier alignment under the new measure or candidate)
        self._computing_timer = QTimer(self, singleShot=True, interval=150)
        self._computing_timer.timeout.connect(self._show_computing)
        self.comparison: Comparison | None = None
        self._source = ""
        self._hyp = ""
        self._hyp_label = ""
        self._refs: list[tuple[str, str]] = []
        self._others: list[tuple[str, str]] = []
        self._pinned: tuple[str, int] | None = None

        self.measure_selector = QComboBox()
        self.measure_selector.setObjectName("measureSelector")
        self.measure_selector.setToolTip("Measure whose alignment is drawn (Ctrl+1 … Ctrl+7)")
        for name, label in MEASURES:
            self.measure_selector.addItem(label, name)
        self.against = QComboBox()
        self.against.setObjectName("compareAgainst")
        self.against.setToolTip("Reference (or other candidate) to compare with")
        self.max_n = QSpinBox()
        self.max_n.setRange(1, 6)
        self.max_n.setValue(4)
        self.max_n.setPrefix("n ≤ ")
        self.max_n.setToolTip("Highest BLEU n-gram order shown")
        self.max_n.setVisible(False)

        bar = QHBoxLayout()
        bar.addWidget(QLabel("Measure:"))
        bar.addWidget(self.measure_selector)
        bar.addWidget(QLabel("against:"))
        bar.addWidget(self.against, 1)
        bar.addWidget(self.max_n)
        self.status = QLabel("")
        self.status.setObjectName("compareStatus")
        self.status.setFixedWidth(90)  # text changes must not re-layout the window
        self.measure_selector.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        bar.addWidget(self.status)

        self.source_label = QLabel()
        self.source_label.setObjectName("compareSource")
        self.source_label.setWordWrap(True)
        self.source_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.hyp_title = QLabel()
        self.hyp_flow = TokenFlow()
        self.hyp_flow.setObjectName("candidateFlow")
        self.ref_title = QLabel()
        self.ref_flow = TokenFlow()
        self.ref_flow.setObjectName("referenceFlow")
        self.legend = QLabel()
        self.legend.setObjectName("compareLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.RichText)

        inner = QWidget()
        v = QVBoxLayout(inner)
        for w in (self._title("Source"), self.source_label, self.hyp_title, self.hyp_flow,
                  self.ref_title, self.ref_flow, self.legend):
            v.addWidget(w)
        v.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setWidget(inner)

        self.breakdown = QTreeWidget()
        self.breakdown.setObjectName("breakdownPanel")
        self.breakdown.setHeaderLabels(["Breakdown", "Value"])
        self.breakdown.setRootIsDecorated(False)
        self.breakdown.setMinimumWidth(250)

        split = QSplitter(Qt.Horizontal)
        split.addWidget(scroll)
        split.addWidget(self.breakdown)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([700, 260])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(split, 1)

        self.measure_selector.currentIndexChanged.connect(self._measure_changed)
        self.against.currentIndexChanged.connect(lambda _i: self.recompute())
        self.max_n.valueChanged.connect(lambda _v: self.recompute())
        self.hyp_flow.hovered.connect(lambda i: self._hover("hyp", i))
        self.ref_flow.hovered.connect(lambda i: self._hover("ref", i))
        self.hyp_flow.clicked.connect(lambda i: self._click("hyp", i))
        self.ref_flow.clicked.connect(lambda i: self._click("ref", i))
        self._update_legend()
        if self.selection.measure is None:
            self.selection.set_measure(self.measure)
        else:
            self._measure_selected(self.selection.measure)

    @staticmethod
    def _title(text: str) -> QLabel:
        lab = QLabel(text)
        f = lab.font()
        f.setBold(True)
        lab.setFont(f)
        return lab

    # public API
    @property
    def measure(self) -> str:
        return self.measure_selector.currentData()

    def set_measure(self, name: str) -> None:
        i = self.measure_selector.findData(name)
        if i >= 0:
            self.measure_selector.setCurrentIndex(i)

    def _measure_selected(self, name: str) -> None:
        """The selection's measure changed: draw it (a measure this view cannot align
        leaves it, and then the selection, at the one shown)."""
        self.set_measure(name)
        if self.measure != name:
            self.selection.set_measure(self.measure)

    def _selection_changed(self, _source: int | None, _target: int | None) -> None:
        self.show_selection()

    def show_selection(self) -> None:
        """Draw the selected candidate against the references and the other candidates of
        its source (nothing selected, or not in the database: empty)."""
        db = self.workspace.database
        pair = self.selection.pair
        if db is None or pair is None or pair[0] >= len(db.sources) \
                or pair[1] >= len(db.sources[pair[0]].targets):
            self.clear()
            return
        src = db.sources[pair[0]]
        t = src.targets[pair[1]]
        refs = [(r.system or f"ref {k + 1}", r.text) for k, r in enumerate(src.targets)
                if r is not t and db.is_reference(r)]
        others = [(o.system or f"#{k + 1}", o.text) for k, o in enumerate(src.targets)
                  if o is not t and not db.is_reference(o)]
        label = t.system or "-"
        if db.is_reference(t):
            label += " (a reference, compared with the others)"
        self.set_pair(src.text, t.text, label, refs, others)

    @property
    def options(self) -> EvalOptions:
        """The workspace's options (read-only here: change them through the workspace)."""
        return self.workspace.options

    def clear(self) -> None:
        self.runner.cancel()
        self._source = self._hyp = ""
        self._refs, self._others = [], []
        self.comparison = None
        self.source_label.clear()
        self.hyp_title.clear()
        self.ref_title.clear()
        self.hyp_flow.set_marks([])
        self.ref_flow.set_marks([])
        self.breakdown.clear()
        self.status.setText("")

    def set_pair(self, source: str, candidate: str, candidate_label: str,
                 references: list[tuple[str, str]], others: list[tuple[str, str]] = ()) -> None:
        self._source, self._hyp, self._hyp_label = source, candidate, candidate_label
        self._refs, self._others = list(references), list(others)
        self.source_label.setText(source)
        self.source_label.setLayoutDirection(Qt.RightToLeft if is_rtl(source) else Qt.LeftToRight)
        self.source_label.setAlignment(Qt.AlignRight if is_rtl(source) else Qt.AlignLeft)
        self.against.blockSignals(True)
        prev = self.against.currentText()
        self.against.clear()
        if self._refs:
            self.against.addItem("nearest reference", ("nearest", -1))
        for k, (lab, _t) in enumerate(self._refs):
            self.against.addItem(f"reference {lab}", ("ref", k))
        for k, (lab, _t) in enumerate(self._others):
            self.against.addItem(f"candidate {lab}", ("other", k))
        i = self.against.findText(prev)
        self.against.setCurrentIndex(i if i >= 0 else 0)
        self.against.blockSignals(False)
        self.recompute()

    def recompute(self) -> None:
        """Start computing the alignment for the current pair (on a worker)."""
        self._pinned = None
        if not self._hyp and not self._refs:
            return
        choice = self.against.currentData()
        if choice is None:
            self.comparison = None
            self.hyp_title.setText(f"Candidate {self._hyp_label}")
            self.hyp_flow.set_marks([TokenMark(w, NONE) for w in self._hyp.split()], is_rtl(self._hyp))
            self.ref_title.setText("No reference for this source")
            self.ref_flow.set_marks([])
            self.breakdown.clear()
            return
        kind, k = choice
        if kind == "other":
            texts, labels, shown = [self._others[k][1]], [self._others[k][0]], 0
        else:
            texts = [t for _l, t in self._refs]
            labels = [lab for lab, _t in self._refs]
            shown = None if kind == "nearest" else k
        self.status.setText("computing…")
        self.max_n.setVisible(self.measure == "bleu")
        self._computing_timer.start()
        self.runner.submit(compute_comparison, self.measure, self._hyp, texts, labels, self.options,
                           shown, self.max_n.value() if self.measure == "bleu" else None,
                           on_result=self._show, on_error=self._failed)

    # results
    def _show_computing(self) -> None:
        """While an alignment computes: the words without marks, no breakdown, and why."""
        self.comparison = None
        self.hyp_flow.set_marks([TokenMark(w, NONE) for w in self._hyp.split()], is_rtl(self._hyp))
        self.ref_flow.set_marks([])
        self.breakdown.clear()
        QTreeWidgetItem(self.breakdown, ["Computing…", f"the {self.measure.upper()} alignment "
                                         "(its first use compiles the measure's kernels: "
                                         "seconds)"])
        self.legend.setText("")

    def _failed(self, exc: BaseException) -> None:
        self._computing_timer.stop()
        self.status.setText("")
        self.comparison = None
        self.hyp_flow.set_marks([TokenMark(w, NONE) for w in self._hyp.split()], is_rtl(self._hyp))
        self.ref_flow.set_marks([])
        self.breakdown.clear()
        QTreeWidgetItem(self.breakdown, ["Not available", f"{self.measure}: {exc}"])

    def _show(self, c: Comparison) -> None:
        self._computing_timer.stop()
        self.comparison = c
        self.status.setText("")
        against = self.against.currentData()
        other = against is not None and against[0] == "other"
        _set_text(self.hyp_title, f"<b>Candidate</b> {self._hyp_label}")
        _set_text(self.ref_title, f"<b>{'Candidate' if other else 'Reference'}</b> {c.ref_label}"
                               + (" (nearest)" if against and against[0] == "nearest" else ""))
        self.hyp_flow.set_marks(c.hyp, c.hyp_rtl)
        self.ref_flow.set_marks(c.ref, c.ref_rtl)
        self.breakdown.clear()
        for key, val in c.breakdown:
            QTreeWidgetItem(self.breakdown, [key, val])
        self.breakdown.resizeColumnToContents(0)
        self._update_legend()
        self.comparisonReady.emit(c)

    def _measure_changed(self, _i: int) -> None:
        self.selection.set_measure(self.measure)      # the one current measure
        self.max_n.setVisible(self.measure == "bleu")
        self.recompute()

    def _update_legend(self) -> None:
        def sw(col: QColor, style: str, text: str) -> str:
            c = QColor(col)
            return (f"<span style='background-color: rgba({c.red()},{c.green()},{c.blue()},0.35);"
                    f"{style}'>&nbsp;{text}&nbsp;</span>")
        if self.measure == "bleu":
            parts = [sw(ORDER_COLOURS[o - 1], "", f"{o}-gram") for o in range(1, self.max_n.value() + 1)]
            self.legend.setText("Matched n-grams (one bar per order under each word): " + " ".join(parts))
            return
        parts = [sw(KIND_COLOURS[SUB], "text-decoration: underline;", "substitution"),
                 sw(KIND_COLOURS[INS], "font-weight: bold;", "insertion (candidate only)"),
                 sw(KIND_COLOURS[DEL], "text-decoration: line-through; font-style: italic;",
                    "deletion (reference only)")]
        text = "Identities plain; " + " ".join(parts)
        if self.comparison is not None and self.comparison.error_classes:
            text = ("Error classes (Popović &amp; Ney 2011; correct words plain, the WER edit "
                    "as the style): " + " ".join(
                        sw(ERROR_CLASS_COLOURS[c], "", name)
                        for c, name in self.comparison.error_classes.items()))
        elif self.measure == "errorclasses":
            text = "Error classes: every word correct"
        if self.comparison is not None and self.comparison.blocks:
            text += "; blocks: " + " ".join(
                sw(block_colour(n), "font-weight: bold;", f"{n} {kind}") for n, kind in self.comparison.blocks)
        self.legend.setText(text)

    def _flows(self, side: str) -> tuple[TokenFlow, TokenFlow]:
        return (self.hyp_flow, self.ref_flow) if side == "hyp" else (self.ref_flow, self.hyp_flow)

    def _hover(self, side: str, i: int) -> None:
        if self._pinned is not None:
            return
        self.highlight_counterpart(side, i)

    def _click(self, side: str, i: int) -> None:
        if i < 0 or self._pinned == (side, i):
            self._pinned = None
            self.highlight_counterpart(side, -1)
            return
        self._pinned = None
        self.highlight_counterpart(side, i)
        self._pinned = (side, i)

    def highlight_counterpart(self, side: str, i: int) -> list[int]:
        """Highlight the counterpart(s) of word ``i`` of ``side`` ("hyp"/"ref"); returns them."""
        mine, other = self._flows(side)
        if i < 0 or i >= len(mine.marks):
            mine.set_highlight([])
            other.set_highlight([])
            return []
        cps = [k for k in mine.marks[i].counterparts if 0 <= k < len(other.marks)]
        mine.set_highlight([i])
        other.set_highlight(cps)
        return cps
