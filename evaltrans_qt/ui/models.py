"""The database browser's tables: the sources and the translations of a
:class:`~evaltrans_qt.engine.data.database.Database`.

Both are tables like every other (:mod:`evaltrans_qt.ui.results_models`): a
:class:`~evaltrans_qt.ui.results_models.FrameModel` behind a
:class:`~evaltrans_qt.ui.results_models.ResultsProxy`, numbers drawn by the
:class:`~evaltrans_qt.ui.results_models.NumberDelegate`. This module holds no model of its
own; :class:`SourceTable` and :class:`TargetTable` fill such a model from the database
(one frame, built once), filter it with a row mask and change one row in place after a
score change (:meth:`FrameModel.update_row`: ``dataChanged`` for that row, no reset).

* sources: number (shown from 1), text (tooltip with ``[doc:seg]``), references,
  candidates, scored candidates as ``2/4`` (sorted by the ratio; green when complete);
* translations of one source (:meth:`TargetTable.set_source`) or of all sources
  (:meth:`TargetTable.show_all`, tens of thousands of rows): source number, kind (ref or
  cand; references bold), system, translation, one column per human score class (the
  mean over judges; an extrapolated score italic, marked ``≈``) and the judges.

Every row carries its key under :data:`KEY_ROLE` (a source's index; a target's
``(source_index, target_index)``) and its kind under :data:`KIND_ROLE`. A row changed in
place keeps its place (and stays shown) until the table is next sorted or filtered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from evaltrans_qt.engine.data.database import Database, Target
from evaltrans_qt.ui.results_models import (
    FORMAT_ROLE,
    ONE_BASED,
    FrameModel,
    NumberFormat,
    ResultsProxy,
)

#: (source_index, target_index) of a target row; source_index of a source row.
KEY_ROLE = Qt.ItemDataRole.UserRole.value + 2
#: The row's kind: "ref" or "cand" (targets), or scored state (sources).
KIND_ROLE = Qt.ItemDataRole.UserRole.value + 3

_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_FONT = Qt.ItemDataRole.FontRole.value
_ALIGN = Qt.ItemDataRole.TextAlignmentRole.value
_FOREGROUND = Qt.ItemDataRole.ForegroundRole.value
_LEFT = int((Qt.AlignLeading | Qt.AlignVCenter).value)
#: Source numbers count from 1 (the frame tables' ``segment`` column reads the same).
_ONE_BASED = ONE_BASED["segment"]
#: A human score: whole levels as they are (``3``), means over judges with two decimals;
#: an extrapolated score (thesis section 1.2.1) marked ``≈``.
SCORE_FORMAT = NumberFormat(decimals=2, whole=True)
EXTRAPOLATED_FORMAT = NumberFormat(decimals=2, whole=True, prefix="≈")
EXTRAPOLATED_TIP = "extrapolated from similar scored translations"
_COMPLETE_COLOUR = "#2e7d32"

SCORED_ALL = "all"
SCORED_COMPLETE = "complete"
SCORED_PARTIAL = "some unscored"
SCORED_NONE = "unscored"
SCORED_STATES = (SCORED_ALL, SCORED_COMPLETE, SCORED_PARTIAL, SCORED_NONE)


def target_scored(target: Target, classes: list[str]) -> bool:
    """True if the target has a human (non-extrapolated) score in every class."""
    if not classes:
        return False
    have = {s.cls for s in target.scores if not s.extrapolated}
    return all(c in have for c in classes)


def _tint(color: str) -> QColor:
    """``color``, lighter on a dark palette."""
    c = QColor(color)
    app = QApplication.instance()
    if app is not None and app.palette().color(QPalette.Base).lightness() < 128:
        c = c.lighter(170)
    return c


def _texts(values: list[str]) -> np.ndarray:
    """A text column (an object array: one Python string per row)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


class _BrowserTable(QObject):
    """A :class:`FrameModel` (and its proxy) filled from a database and filtered by a row
    mask that the subclass computes (:meth:`_row_mask`; None: every row)."""

    def __init__(self, model: FrameModel, proxy: ResultsProxy, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.proxy = proxy
        self.db: Database | None = None

    @property
    def headers(self) -> list[str]:
        return [str(self.model.headerData(c, Qt.Horizontal)) for c in range(self.model.columnCount())]

    def _row_mask(self) -> np.ndarray | None:
        raise NotImplementedError

    def _show(self, columns: list[tuple[str, np.ndarray]], formats: dict[str, NumberFormat],
              cells: dict[tuple[int, int], list], rows: dict[int, list]) -> None:
        """Show a frame of ``columns`` (formatted by ``formats``) with its cell and row data
        (:meth:`FrameModel.set_columns`); the filters apply to the new rows."""
        model = self.model
        filtered = self._row_mask_active()
        if filtered:
            model.set_row_mask(None)            # the old mask would be read against new rows
        model.set_columns(columns, formats=formats, cells=cells, rows=rows)
        if filtered:
            model.set_row_mask(self._row_mask())

    def _row_mask_active(self) -> bool:
        raise NotImplementedError

    def _refilter(self) -> None:
        self.model.set_row_mask(self._row_mask())

    def _index(self, frame_row: int) -> QModelIndex:
        """The proxy index of frame row ``frame_row`` (invalid: not shown)."""
        k = self.model.row_of(frame_row) if frame_row >= 0 else -1
        return self.proxy.mapFromSource(self.model.index(k, 0)) if k >= 0 else QModelIndex()


@dataclass
class SourceRow:
    """What the sources table shows of one source."""

    index: int
    text: str
    doc: str
    refs: int
    cands: int
    scored: int
    systems: frozenset

    @property
    def state(self) -> str:
        if self.cands == 0 or self.scored == self.cands:
            return SCORED_COMPLETE
        return SCORED_NONE if self.scored == 0 else SCORED_PARTIAL

    @property
    def ratio(self) -> float:
        return self.scored / self.cands if self.cands else float("nan")

    @property
    def label(self) -> str:
        return f"{self.scored}/{self.cands}"

    @property
    def tooltip(self) -> str:
        return f"[{self.doc}] {self.text}" if self.doc else self.text


class SourceTable(_BrowserTable):
    """The sources of a database: number, text, references, candidates, scored candidates;
    filtered by text, system and scored state (``countsChanged(shown, total)``). Frame row
    ``i`` is source ``i``."""

    countsChanged = Signal(int, int)

    COLUMNS = ["#", "Source", "Refs", "Cands", "Scored"]
    COL_INDEX, COL_TEXT, COL_REFS, COL_CANDS, COL_SCORED = range(5)

    def __init__(self, model: FrameModel, proxy: ResultsProxy, parent: QObject | None = None) -> None:
        super().__init__(model, proxy, parent)
        self.classes: list[str] = []
        self._rows: list[SourceRow] = []
        self._text = ""
        self._system: str | None = None
        self._state = SCORED_ALL
        self.set_database(None)

    def set_database(self, db: Database | None) -> None:
        self.db = db
        self.classes = db.human_classes if db is not None else []
        self._rows = [self._make(i) for i in range(len(db.sources))] if db is not None else []
        rows = self._rows
        columns = [
            ("#", np.array([r.index for r in rows], dtype=np.int64)),
            ("Source", _texts([r.text for r in rows])),
            ("Refs", np.array([r.refs for r in rows], dtype=np.int64)),
            ("Cands", np.array([r.cands for r in rows], dtype=np.int64)),
            ("Scored", np.array([r.ratio for r in rows], dtype=float)),
        ]
        green = _tint(_COMPLETE_COLOUR)
        cells = {
            (_DISPLAY, self.COL_SCORED): [r.label for r in rows],
            (_FOREGROUND, self.COL_SCORED): [green if r.state == SCORED_COMPLETE else None
                                             for r in rows],
            (_TOOLTIP, self.COL_TEXT): [r.tooltip for r in rows],
        }
        self._show(columns, {"#": _ONE_BASED}, cells,
                   {KEY_ROLE: [r.index for r in rows], KIND_ROLE: [r.state for r in rows]})

    def _make(self, i: int) -> SourceRow:
        db = self.db
        src = db.sources[i]
        is_ref = db.reference_test()
        refs = cands = scored = 0
        systems = set()
        for t in src.targets:
            if is_ref(t):
                refs += 1
            else:
                cands += 1
                systems.add(t.system or "")
                if target_scored(t, self.classes):
                    scored += 1
        doc = f"{src.doc or ''}:{src.seg or ''}" if (src.doc or src.seg) else ""
        return SourceRow(i, src.text, doc, refs, cands, scored, frozenset(systems))

    def refresh_source(self, source_index: int) -> None:
        """Recount one source (after a score change): its row changes in place."""
        if self.db is None or not 0 <= source_index < len(self._rows):
            return
        r = self._rows[source_index] = self._make(source_index)
        green = _tint(_COMPLETE_COLOUR) if r.state == SCORED_COMPLETE else None
        self.model.update_row(
            source_index,
            values={self.COL_REFS: r.refs, self.COL_CANDS: r.cands, self.COL_SCORED: r.ratio},
            cells={(_DISPLAY, self.COL_SCORED): r.label, (_FOREGROUND, self.COL_SCORED): green},
            rows={KIND_ROLE: r.state})

    def row(self, source_index: int) -> SourceRow:
        """What the table shows of source ``source_index``."""
        return self._rows[source_index]

    def index_of(self, source_index: int) -> QModelIndex:
        """The proxy index (column 0) of a source's row; invalid if it is filtered out."""
        return self._index(source_index if 0 <= source_index < len(self._rows) else -1)

    # ---- filters
    def set_text(self, text: str) -> None:
        self._text = text.casefold().strip()
        self._changed()

    def set_system(self, system: str | None) -> None:
        self._system = system or None
        self._changed()

    def set_state(self, state: str) -> None:
        self._state = state
        self._changed()

    def _changed(self) -> None:
        self._refilter()
        self.countsChanged.emit(self.proxy.rowCount(), len(self._rows))

    def _row_mask_active(self) -> bool:
        return bool(self._text) or self._system is not None or self._state != SCORED_ALL

    def _row_mask(self) -> np.ndarray | None:
        if not self._row_mask_active():
            return None
        text, system, state = self._text, self._system, self._state
        return np.fromiter(
            ((not text or text in r.text.casefold())
             and (system is None or system in r.systems)
             and (state == SCORED_ALL or r.state == state) for r in self._rows),
            dtype=bool, count=len(self._rows))


@dataclass
class TargetRow:
    """What the translations table shows of one target."""

    source_index: int
    target_index: int
    kind: str
    system: str
    text: str
    values: tuple          # per class: the mean human score, else the mean extrapolated one (NaN: none)
    extrapolated: tuple    # per class: the value is extrapolated
    judges: str


class TargetTable(_BrowserTable):
    """Targets of one source (:meth:`set_source`) or of all sources (:meth:`show_all`):
    source number, kind, system, translation, one column per human score class, judges;
    filtered by translation text, system and kind."""

    FIXED = ["Src", "Kind", "System", "Translation"]
    COL_SOURCE, COL_KIND, COL_SYSTEM, COL_TEXT = range(4)

    def __init__(self, model: FrameModel, proxy: ResultsProxy, parent: QObject | None = None) -> None:
        super().__init__(model, proxy, parent)
        self.classes: list[str] = []
        self.source_index: int | None = None
        self._all = False
        self._offsets = np.zeros(1, dtype=np.int64)     # all sources: frame row of (i, 0)
        self._count = 0                                  # rows of the frame
        self._ref_font = QFont()
        self._ref_font.setBold(True)
        self._ext_font = QFont()
        self._ext_font.setItalic(True)
        self._text = ""
        self._system: str | None = None
        self._kind: str | None = None
        self._rows([])

    def set_database(self, db: Database | None) -> None:
        """A database (no rows shown until :meth:`set_source` or :meth:`show_all`)."""
        self.db = db
        self.classes = list(db.human_classes) if db is not None else []
        self.source_index = None
        self._all = False
        self._rows([])

    def set_source(self, source_index: int | None) -> None:
        """The targets of one source (None: none)."""
        self.source_index = source_index
        self._all = False
        db = self.db
        if source_index is None or db is None:
            self._rows([])
            return
        is_ref = db.reference_test()
        self._rows([self._make(source_index, j, t, is_ref)
                    for j, t in enumerate(db.sources[source_index].targets)])

    def show_all(self) -> None:
        """All targets of the database (tens of thousands of rows)."""
        self.source_index = None
        db = self.db
        if db is None:
            self._all = False
            self._rows([])
            return
        self._all = True
        is_ref = db.reference_test()
        self._offsets = np.concatenate(([0], np.cumsum([len(s.targets) for s in db.sources])))
        self._rows([self._make(i, j, t, is_ref)
                    for i, src in enumerate(db.sources) for j, t in enumerate(src.targets)])

    def _make(self, i: int, j: int, t: Target, is_ref: Callable[[Target], bool]) -> TargetRow:
        vals = []
        ext = []
        for c in self.classes:
            human = [s.value for s in t.scores if s.cls == c and not s.extrapolated]
            if human:
                vals.append(sum(human) / len(human))
                ext.append(False)
            else:
                guess = [s.value for s in t.scores if s.cls == c]
                vals.append(sum(guess) / len(guess) if guess else float("nan"))
                ext.append(bool(guess))
        judges = ", ".join(sorted({s.judge for s in t.scores if s.judge}))
        return TargetRow(i, j, "ref" if is_ref(t) else "cand", t.system or "", t.text,
                         tuple(vals), tuple(ext), judges)

    def _rows(self, rows: list[TargetRow]) -> None:
        n = len(self.FIXED)
        self._count = len(rows)
        columns = [
            ("Src", np.array([r.source_index for r in rows], dtype=np.int64)),
            ("Kind", _texts([r.kind for r in rows])),
            ("System", _texts([r.system for r in rows])),
            ("Translation", _texts([r.text for r in rows])),
        ]
        for k, c in enumerate(self.classes):
            columns.append((c, np.array([r.values[k] for r in rows], dtype=float)))
        columns.append(("Judges", _texts([r.judges for r in rows])))
        refs = [r.kind == "ref" for r in rows]
        none = [None] * len(rows)
        cells: dict[tuple[int, int], list] = {
            (_TOOLTIP, self.COL_KIND): none,       # short texts: no tooltips of their own
            (_TOOLTIP, self.COL_SYSTEM): none,
            (_TOOLTIP, n + len(self.classes)): none,
            (_TOOLTIP, self.COL_TEXT): [r.text for r in rows],
            (_ALIGN, self.COL_SOURCE): none,
            (_ALIGN, self.COL_TEXT): [_LEFT] * len(rows),
        }
        for k in range(len(self.classes)):
            score_cells = [self._score_cell(r, k, ref) for r, ref in zip(rows, refs)]
            cells[(FORMAT_ROLE, n + k)] = [f for f, _, _ in score_cells]
            cells[(_FONT, n + k)] = [font for _, font, _ in score_cells]
            cells[(_TOOLTIP, n + k)] = [tip for _, _, tip in score_cells]
        self._show(columns, {"Src": _ONE_BASED}, cells, {
            _FONT: [self._ref_font if ref else None for ref in refs],
            KEY_ROLE: [(r.source_index, r.target_index) for r in rows],
            KIND_ROLE: [r.kind for r in rows]})

    def _score_cell(self, r: TargetRow, k: int, ref: bool) -> tuple:
        """Format, font and tooltip of ``r``'s score in class ``k``."""
        if r.extrapolated[k]:
            return EXTRAPOLATED_FORMAT, self._ref_font if ref else self._ext_font, EXTRAPOLATED_TIP
        return SCORE_FORMAT, self._ref_font if ref else None, None

    def frame_row(self, source_index: int, target_index: int) -> int:
        """The frame row of a target (-1: not in the table)."""
        db = self.db
        if db is None or not 0 <= source_index < len(db.sources):
            return -1
        if self._all:
            if source_index + 1 >= len(self._offsets):
                return -1
            k = int(self._offsets[source_index]) + target_index
            return k if 0 <= target_index and k < int(self._offsets[source_index + 1]) else -1
        if self.source_index == source_index and 0 <= target_index < self._count:
            return target_index
        return -1

    def refresh_target(self, source_index: int, target_index: int) -> None:
        """Read one target again (after a score change): its row changes in place."""
        k = self.frame_row(source_index, target_index)
        if k < 0 or target_index >= len(self.db.sources[source_index].targets):
            return
        t = self.db.sources[source_index].targets[target_index]
        r = self._make(source_index, target_index, t, self.db.reference_test())
        n = len(self.FIXED)
        ref = r.kind == "ref"
        values: dict[int | str, object] = {self.COL_KIND: r.kind, n + len(self.classes): r.judges}
        cells: dict[tuple[int, int | str], object] = {}
        for c in range(len(self.classes)):
            values[n + c] = r.values[c]
            f, font, tip = self._score_cell(r, c, ref)
            cells[(FORMAT_ROLE, n + c)] = f
            cells[(_FONT, n + c)] = font
            cells[(_TOOLTIP, n + c)] = tip
        self.model.update_row(k, values=values, cells=cells,
                              rows={_FONT: self._ref_font if ref else None, KIND_ROLE: r.kind})

    def index_of(self, source_index: int, target_index: int) -> QModelIndex:
        """The proxy index (column 0) of a target's row; invalid if it is not shown."""
        return self._index(self.frame_row(source_index, target_index))

    # ---- filters
    def set_text(self, text: str) -> None:
        self._text = text.casefold().strip()
        self._refilter()

    def set_system(self, system: str | None) -> None:
        self._system = system or None
        self._refilter()

    def set_kind(self, kind: str | None) -> None:
        self._kind = kind or None
        self._refilter()

    def _row_mask_active(self) -> bool:
        return bool(self._text or self._system or self._kind)

    def _row_mask(self) -> np.ndarray | None:
        if not self._row_mask_active():
            return None
        frame = self.model.frame
        keep = np.ones(len(frame), dtype=bool)
        if self._kind:
            keep &= frame.iloc[:, self.COL_KIND].to_numpy() == self._kind
        if self._system is not None:
            keep &= frame.iloc[:, self.COL_SYSTEM].to_numpy() == self._system
        if self._text:
            text = frame.iloc[:, self.COL_TEXT].astype(str).str.casefold()
            keep &= text.str.contains(self._text, regex=False).to_numpy(dtype=bool)
        return keep


__all__ = ["SourceTable", "TargetTable", "SourceRow", "TargetRow", "KEY_ROLE", "KIND_ROLE",
           "SCORED_STATES", "SCORE_FORMAT", "EXTRAPOLATED_FORMAT", "target_scored"]
