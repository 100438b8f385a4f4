"""Scoring sessions: a judge scores candidates from the keyboard without losing a score.

* :class:`ScoringSession` (a QObject) is the Qt face of the Qt-free
  :class:`~evaltrans_qt.scoring_session.ScoringSessionModel`, which walks the candidates of
  a database in order, keeps the current item and score class and the time spent per
  item, and commits every score through the workspace's undo history
  (:mod:`evaltrans_qt.history`): :meth:`Workspace.commit` -- the journal (fsync) first,
  then the database, then its signal -- before ``scoreChanged`` is emitted; undo commits
  the inverse change, redo the change again.
* :class:`ScorePanel` (``scorePanel``) shows one row of buttons per score class
  (colours from the ``gray``/``green`` thresholds), the candidate, and the
  progress bar (``sessionProgress``).
* :class:`SimilarPanel` (``similarPanel``) lists already-scored translations
  of the same source, identical ones first, then by word edit distance (the
  "database method", thesis section 1.2.1, Macháček §5.2); the identical one's scores are
  offered with one key.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QRegularExpression, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetrics,
    QKeySequence,
    QPalette,
    QRegularExpressionValidator,
)
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database, Levels, Target
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.io.journal import seconds_of as seconds_of  # re-exported
from evaltrans_qt.scoring_session import Item, ScoringSessionModel, SimilarTranslation
from evaltrans_qt.scoring_session import identical_scores as identical_scores  # re-exported
from evaltrans_qt.scoring_session import now_iso as now_iso  # re-exported
from evaltrans_qt.scoring_session import (  # re-exported
    similar_translations as similar_translations,
)
from evaltrans_qt.ui.results_models import GENERAL_FORMAT, attach_frame_model, cell_text
from evaltrans_qt.workspace import Workspace


# ----------------------------------------------------------------- session
class ScoringSession(QObject):
    """The Qt face of a :class:`~evaltrans_qt.scoring_session.ScoringSessionModel`: the
    model's psygnal signals as Qt signals, a score that cannot be recorded shown as an
    error; everything else is the model's (``model``)."""

    currentChanged = Signal(int)
    classChanged = Signal(int)
    #: The session's score classes changed (added, renamed, removed): rebuild the rows.
    classesChanged = Signal()
    scoreChanged = Signal(object)  # ScoreChange (with sequence number when journalled)
    progressChanged = Signal(int, int)

    def __init__(self, db: Database, judge: str, classes: list[str], workspace: Workspace,
                 systems: list[str] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if db is not workspace.database:
            raise ValueError("a scoring session scores the workspace's open database")
        self.model = ScoringSessionModel(workspace, judge, classes, systems)
        m = self.model
        m.moved.connect(self._moved)
        m.class_moved.connect(self._class_moved)
        m.classes_changed.connect(self._classes_changed)
        m.scored.connect(self._scored)
        m.progress_changed.connect(self._progress)

    # psygnal holds these bound methods weakly; the model never outlives the session
    def _moved(self, k: int) -> None:
        self.currentChanged.emit(k)

    def _class_moved(self, k: int) -> None:
        self.classChanged.emit(k)

    def _classes_changed(self) -> None:
        self.classesChanged.emit()

    def _scored(self, change: object) -> None:
        self.scoreChanged.emit(change)

    def _progress(self, done: int, total: int) -> None:
        self.progressChanged.emit(done, total)

    # ---- the model's state
    @property
    def workspace(self) -> Workspace:
        return self.model.workspace

    @property
    def db(self) -> Database:
        return self.model.db

    @property
    def judge(self) -> str | None:
        return self.model.judge

    @property
    def classes(self) -> list[str]:
        return self.model.classes

    @property
    def levels(self) -> list[Levels]:
        return self.model.levels

    @property
    def items(self) -> list[Item]:
        return self.model.items

    @property
    def index_of(self) -> dict[Item, int]:
        return self.model.index_of

    @property
    def pos(self) -> int:
        return self.model.pos

    @property
    def class_pos(self) -> int:
        return self.model.class_pos

    @property
    def current(self) -> Item | None:
        return self.model.current

    @property
    def current_class(self) -> str:
        return self.model.current_class

    def target(self, item: Item) -> Target:
        return self.model.target(item)

    def judge_value(self, item: Item, cls: str) -> float | None:
        return self.model.judge_value(item, cls)

    def is_scored(self, item: Item) -> bool:
        return self.model.is_scored(item)

    def first_unscored_class(self, item: Item) -> int:
        return self.model.first_unscored_class(item)

    def progress(self) -> tuple[int, int]:
        return self.model.progress()

    def seconds_on(self, item: Item) -> float:
        return self.model.seconds_on(item)

    def valid_value(self, cls: str, value: float) -> bool:
        return self.model.valid_value(cls, value)

    # ---- moving (the model's)
    def go_to(self, k: int) -> None:
        self.model.go_to(k)

    def focus(self, item: Item, cls: str) -> None:
        self.model.focus(item, cls)

    def next(self) -> None:
        self.model.next()

    def previous(self) -> None:
        self.model.previous()

    def next_unscored(self) -> bool:
        return self.model.next_unscored()

    def first_unscored(self) -> None:
        self.model.first_unscored()

    def set_class(self, i: int) -> None:
        self.model.set_class(i)

    def next_class(self) -> None:
        self.model.next_class()

    def previous_class(self) -> None:
        self.model.previous_class()

    def finish(self) -> None:
        self.model.finish()

    def set_classes(self, classes: list[str]) -> None:
        self.model.set_classes(classes)

    # ---- scoring: the model's, a failure shown
    def score(self, value: float, cls: str | None = None, advance: bool = True) -> bool:
        """:meth:`ScoringSessionModel.score`; False (and the error shown) if the value is
        invalid or the score could not be recorded."""
        return self._recorded(lambda: self.model.score(value, cls, advance))

    def clear(self, cls: str | None = None) -> bool:
        return self._recorded(lambda: self.model.clear(cls))

    def take_identical(self, similar: list[SimilarTranslation] | None = None) -> bool:
        """Give the current item the scores of an identical, already-scored translation."""
        return self._recorded(lambda: self.model.take_identical(similar))

    def _recorded(self, do: Callable[[], bool]) -> bool:
        """Run ``do`` (a commit through the workspace's history); a journal that cannot be
        written (read-only folder, full disk) or a value the database refuses is shown,
        and nothing was recorded -- neither a score nor an undo step."""
        from evaltrans_qt.ui import errors
        try:
            return do()
        except OSError as exc:
            journal = self.workspace.journal
            where = journal.path if journal is not None else None
            errors.show_error(SaveError(f"score not recorded: the journal cannot be written "
                                        f"({exc.strerror or exc})", where))
        except (EvalTransError, LookupError) as exc:   # refused by the database: not recorded
            errors.show_error(exc if isinstance(exc, EvalTransError) else EvalTransError(str(exc)))
        return False


# ----------------------------------------------------------------- widgets
def level_colour(lv: Levels, value: float) -> QColor:
    """Button colour from the class' thresholds: >= green green, >= gray gray, else red."""
    if value >= lv.green:
        return QColor(56, 160, 70)
    if value >= lv.gray:
        return QColor(140, 140, 140)
    return QColor(205, 70, 60)


def level_values(lv: Levels) -> list[float]:
    if lv.continuous:
        return []
    first = int(max(0, lv.firstvalid))
    return [float(v) for v in range(first, lv.count)]


def typed_entry(lv: Levels) -> bool:
    """Whether a class is scored by typing its value and Enter: continuous classes (DA,
    MQM) and scales whose levels need two digits (SSER's 0-10, survey Table 4.2)."""
    return lv.continuous or lv.count > 10


def parse_value(text: str) -> float | None:
    """A typed score: ``-7.5``, ``-7,5`` (decimal comma) or ``10``; None if not a number.

    The strict parser of :func:`evaltrans_qt.io.limits.parse_number` (ASCII decimal digits
    only: no ``inf``/``nan``, ``1_0`` or non-ASCII digits that ``float()`` would take)."""
    from evaltrans_qt.io.limits import parse_number
    try:
        return parse_number(text.strip().replace(",", "."))
    except ValueError:
        return None


#: Characters a typed score may contain; every other printable key goes to the window's
#: shortcuts (N, P, U, I keep working while the value editor has the focus).
_VALUE_CHARS = set("0123456789-+.,")


class ValueEditor(QLineEdit):
    """The keyboard entry of one typed-entry class: type the value, Enter commits.

    Ctrl+Z / Ctrl+Shift+Z and letter keys are left to the window (undo the last score,
    navigate), not taken as line-edit undo or text.
    """

    committed = Signal(str, float)
    rejected = Signal(str)

    def __init__(self, cls: str, lv: Levels, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cls = cls
        self.lv = lv
        self.setObjectName(f"score_{cls}_value")
        self.setValidator(QRegularExpressionValidator(QRegularExpression(r"[-+]?\d*([.,]\d*)?"), self))
        lo, hi = value_range(lv)
        self.setPlaceholderText(f"{lo:g} … {hi:g}, Enter")
        self.setToolTip(f"Type the {cls} score ({lo:g} to {hi:g}) and press Enter")
        self.setMaximumWidth(130)
        self.returnPressed.connect(self.commit)

    def commit(self) -> None:
        v = parse_value(self.text())
        if v is None:
            self.rejected.emit(f"type a number for '{self.cls}', then Enter")
            return
        self.committed.emit(self.cls, v)

    def event(self, ev: QEvent) -> bool:
        if ev.type() == QEvent.ShortcutOverride:
            ctrl = ev.modifiers() & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier)
            if ev.matches(QKeySequence.Undo) or ev.matches(QKeySequence.Redo) or (
                    ctrl and ev.key() in (Qt.Key_Z, Qt.Key_Y)) or (
                    not ctrl and ev.text() and ev.text().isprintable() and ev.text() not in _VALUE_CHARS):
                ev.ignore()
                return False
        if ev.type() == QEvent.KeyPress and ev.key() == Qt.Key_Escape:
            self.clear()
            return True
        return super().event(ev)


def value_range(lv: Levels) -> tuple[float, float]:
    """The lowest and highest value a judge may give in class ``lv``."""
    if lv.continuous:
        return (lv.minimum if lv.minimum is not None else -math.inf,
                lv.maximum if lv.maximum is not None else math.inf)
    return max(0.0, float(lv.firstvalid)), float(lv.count - 1)


#: Score buttons per line of a class' row in the scoring panel.
BUTTONS_PER_ROW = 6


class ScorePanel(QWidget):
    """Rows of score buttons for the session's classes, the candidate, and the progress bar.

    Classes with :func:`typed_entry` get a :class:`ValueEditor` (``score_<class>_value``):
    it has the keyboard focus while its class is current, and shows the current item's
    value or nothing -- never the previous item's.
    """

    #: A hint for the status bar (e.g. a typed value outside the class' range).
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scorePanel")
        self.setFocusPolicy(Qt.StrongFocus)
        self.session: ScoringSession | None = None
        #: The header names the candidate's system (off in annotator mode: no system names).
        self.show_system = True
        self.header = QLabel("No scoring session. Session → Start scoring session… (Ctrl+J)")
        self.header.setObjectName("sessionHeader")
        self.header.setWordWrap(True)
        self.candidate = QLabel()
        self.candidate.setObjectName("sessionCandidate")
        self.candidate.setWordWrap(True)
        self.candidate.setTextInteractionFlags(Qt.TextSelectableByMouse)
        f = self.candidate.font()
        f.setPointSizeF(f.pointSizeF() * 1.2)
        self.candidate.setFont(f)
        self.progress = QProgressBar()
        self.progress.setObjectName("sessionProgress")
        self.progress.setFormat("no scoring session")
        self.progress.setMaximum(1)
        self.progress.setValue(0)
        self.time_label = QLabel()
        self.identical_label = QLabel()
        self.identical_label.setObjectName("identicalHint")
        self.identical_label.setWordWrap(True)
        self.rows_box = QGroupBox("Scores")
        self.grid = QGridLayout(self.rows_box)
        self.groups: dict[str, QButtonGroup] = {}
        self.labels: dict[str, QLabel] = {}
        self.editors: dict[str, ValueEditor] = {}
        self._shown: dict[str, tuple[Item, float | None]] = {}
        # two rows of two: the panel fits a narrow dock without cutting a button
        self.nav = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for k, (key, text) in enumerate((("previous", "◀ Previous (P)"), ("next", "Next ▶ (N)"),
                                         ("next_unscored", "Next unscored (U)"),
                                         ("identical", "Take identical (I)"))):
            b = QPushButton(text)
            b.setObjectName(f"session_{key}")
            b.setFocusPolicy(Qt.NoFocus)
            self.buttons[key] = b
            self.nav.addWidget(b, k // 2, k % 2)
        self.buttons["previous"].clicked.connect(lambda: self.session and self.session.previous())
        self.buttons["next"].clicked.connect(lambda: self.session and self.session.next())
        self.buttons["next_unscored"].clicked.connect(lambda: self.session and self.session.next_unscored())
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.progress)
        lay.addWidget(self.candidate)
        lay.addWidget(self.rows_box)
        lay.addWidget(self.identical_label)
        lay.addLayout(self.nav)
        lay.addWidget(self.time_label)
        lay.addStretch(1)
        self._set_enabled(False)

    def minimumSizeHint(self) -> QSize:
        """The score controls keep their size: the panel's minimum height is what its rows need
        at its width (word-wrapped labels included), so a dock can never squeeze a button."""
        base = super().minimumSizeHint()
        lay = self.layout()
        w = max(self.width(), base.width())
        h = lay.totalHeightForWidth(w) if lay is not None and lay.hasHeightForWidth() else -1
        return QSize(base.width(), max(base.height(), h))

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        if ev.oldSize().width() != ev.size().width():
            self.updateGeometry()           # another width, another height for the wrapped labels

    def _set_enabled(self, on: bool) -> None:
        for b in self.buttons.values():
            b.setEnabled(on)

    def set_session(self, session: ScoringSession | None) -> None:
        old = self.session
        if old is not None and old is not session:
            for sig in (old.currentChanged, old.classChanged, old.scoreChanged, old.classesChanged):
                with contextlib.suppress(RuntimeError, TypeError):
                    sig.disconnect(self._session_signal)
        self.session = session
        self._set_enabled(session is not None)
        self._build_rows()
        if session is None:
            self.header.setText("No scoring session. Session → Start scoring session… (Ctrl+J)")
            self.candidate.clear()
            self.identical_label.clear()
            self.progress.setMaximum(1)
            self.progress.setValue(0)
            self.progress.setFormat("no scoring session")
            return
        self.progress.setFormat("%v / %m scored")
        if old is not session:
            session.currentChanged.connect(self._session_signal)
            session.classChanged.connect(self._session_signal)
            session.scoreChanged.connect(self._session_signal)
            session.classesChanged.connect(self._session_signal)
        self.refresh()

    def _session_signal(self, *_args) -> None:
        s = self.session
        if s is not None and list(self.labels) != s.classes:
            self._build_rows()
        self.refresh()

    def _build_rows(self) -> None:
        """One row per class of the session (again after the classes were edited)."""
        while self.grid.count():
            w = self.grid.takeAt(0).widget()
            if w is not None:
                w.hide()
                w.deleteLater()
        for g in self.groups.values():
            g.deleteLater()
        self.groups.clear()
        self.labels.clear()
        self.editors.clear()
        self._shown.clear()
        session = self.session
        self.rows_box.setMinimumHeight(0)
        if session is None:
            return
        for r, (cls, lv) in enumerate(zip(session.classes, session.levels)):
            lab = QLabel(cls)
            self.labels[cls] = lab
            self.grid.addWidget(lab, r, 0)
            group = QButtonGroup(self)
            group.setExclusive(False)
            self.groups[cls] = group
            # the class' controls wrap after BUTTONS_PER_ROW buttons (SSER's 0-10 would
            # otherwise make the panel 600 pixels wide)
            box = QWidget()
            box.setObjectName(f"score_{cls}_controls")
            sub = QGridLayout(box)
            sub.setContentsMargins(0, 0, 0, 0)
            sub.setHorizontalSpacing(3)
            sub.setVerticalSpacing(3)
            line = 0
            if typed_entry(lv):
                ed = ValueEditor(cls, lv)
                ed.committed.connect(self._clicked)
                ed.rejected.connect(self.message)
                self.editors[cls] = ed
                sub.addWidget(ed, 0, 0, 1, BUTTONS_PER_ROW)
                line = 1
            for k, v in enumerate(level_values(lv)):
                b = QPushButton(f"{v:g}")
                b.setObjectName(f"score_{cls}_{v:g}")
                b.setCheckable(True)
                b.setFocusPolicy(Qt.NoFocus)
                b.setMinimumWidth(32)
                b.setSizePolicy(QSizePolicy.Minimum, QSizePolicy.Fixed)
                c = level_colour(lv, v)
                b.setStyleSheet(
                    f"QPushButton {{ border: 1px solid {c.darker(130).name()}; border-radius: 3px;"
                    f" padding: 3px 5px; background: rgba({c.red()},{c.green()},{c.blue()},60); }}"
                    f" QPushButton:checked {{ background: {c.name()}; color: white; font-weight: bold; }}")
                key = "type it, then Enter" if typed_entry(lv) else f"key {v:g}"
                b.setToolTip(f"{cls} = {v:g} ({key} when '{cls}' is the current class)")
                b.clicked.connect(lambda _c=False, c_=cls, val=v: self._clicked(c_, val))
                group.addButton(b)
                sub.addWidget(b, line + k // BUTTONS_PER_ROW, k % BUTTONS_PER_ROW)
            sub.setColumnStretch(BUTTONS_PER_ROW, 1)
            self.grid.addWidget(box, r, 1)
        self.grid.setColumnStretch(self.grid.columnCount(), 1)
        # never squeezed below what its rows need (word-wrapped labels above it would
        # otherwise take the height from the buttons)
        self.grid.activate()
        self.rows_box.setMinimumHeight(self.rows_box.minimumSizeHint().height())
        self.layout().invalidate()
        self.layout().activate()
        self.updateGeometry()

    def _clicked(self, cls: str, value: float) -> None:
        s = self.session
        if s is None or cls not in s.classes:
            return
        s.set_class(s.classes.index(cls))
        if not s.score(value, cls):
            lo, hi = value_range(s.db.level(cls))
            self.message.emit(f"{value:g} is not a valid score of '{cls}' ({lo:g} to {hi:g})")

    def type_text(self, text: str) -> bool:
        """Keys typed while the window had the focus: into the current class' value editor.

        Returns False when the current class is not scored by typing."""
        s = self.session
        ed = self.editors.get(s.current_class) if s is not None else None
        if ed is None:
            return False
        ed.setFocus()
        ed.insert(text)
        return True

    def refresh(self, similar: list[SimilarTranslation] | None = None) -> None:
        s = self.session
        if s is None or s.current is None:
            return
        item = s.current
        t = s.target(item)
        src = s.db.sources[item[0]]
        system = f" — system <b>{t.system or '-'}</b> — source {item[0] + 1}" \
            if self.show_system else ""
        _set_text(self.header, f"Judge <b>{s.judge or '(anonymous)'}</b> — item {s.pos + 1} of "
                               f"{len(s.items)}{system}")
        self.header.setToolTip(src.text)
        _set_text(self.candidate, t.text)
        self.candidate.setAlignment(Qt.AlignRight if _rtl(t.text) else Qt.AlignLeft)
        done, total = s.progress()
        if self.progress.maximum() != max(total, 1):
            self.progress.setMaximum(max(total, 1))
        if self.progress.value() != done:
            # QProgressBar.setValue repaints synchronously (~13 ms a score on WMT21): paint
            # with the rest of the window instead
            self.progress.setUpdatesEnabled(False)
            self.progress.setValue(done)
            self.progress.setUpdatesEnabled(True)
            self.progress.update()
        pal = self.palette()
        for k, cls in enumerate(s.classes):
            v = s.judge_value(item, cls)
            lab = self.labels.get(cls)
            if lab is None:
                continue
            current = k == s.class_pos
            text = ("▶ " if current else "   ") + cls
            if lab.text() != text:  # restyle only on change (style sheets re-polish the row)
                lab.setText(text)
                f = lab.font()
                f.setBold(current)
                lab.setFont(f)
                lab.setStyleSheet(f"color: {pal.color(QPalette.Highlight).name()};" if current else "")
            for b in self.groups[cls].buttons():
                b.setChecked(v is not None and b.text() == f"{v:g}")
            ed = self.editors.get(cls)
            if ed is not None and self._shown.get(cls) != (item, v):
                # a new item (or a changed value): its own value or nothing, never the last item's
                self._shown[cls] = (item, v)
                ed.setText("" if v is None else f"{v:g}")
        self.focus_current()
        _set_text(self.time_label, f"Time on this item: {s.seconds_on(item):.0f} s")

    def focus_current(self) -> None:
        """The current class' value editor has the keyboard focus; otherwise none of them."""
        s = self.session
        ed = self.editors.get(s.current_class) if s is not None else None
        if ed is not None:
            if not ed.hasFocus() and self.isVisible():
                ed.setFocus()
        elif any(e.hasFocus() for e in self.editors.values()):
            self.setFocus()

    def show_identical(self, vals: dict[str, float]) -> None:
        if vals:
            txt = ", ".join(f"{c} {v:g}" for c, v in vals.items())
            _set_text(self.identical_label, f"An identical translation was scored: {txt} — press I to take it.")
            self.buttons["identical"].setEnabled(True)
        else:
            _set_text(self.identical_label, "")
            self.buttons["identical"].setEnabled(False)


def _set_text(label: QLabel, text: str) -> None:
    if label.text() != text:
        label.setText(text)


def _rtl(text: str) -> bool:
    from evaltrans_qt.ui.compare_view import is_rtl
    return is_rtl(text)


class SimilarPanel(QTableView):
    """Already-scored translations of the current source (identical first, then nearest),
    with the judges who scored them: a ``FrameModel`` table (:func:`similar_frame`).
    Activating a row (double-click, Enter) emits :attr:`jumpRequested` (source index,
    target index) and opens that translation in the window's compare view
    (``open_in_compare``, when the window has it)."""

    jumpRequested = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("similarPanel")
        # the order is the point (identical first, then nearest): not sortable
        self.table_model, self.proxy = attach_frame_model(self, sortable=False)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 4)
        self.horizontalHeader().setStretchLastSection(True)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setSelectionMode(QTableView.SingleSelection)
        self.similar: list[SimilarTranslation] = []
        self.activated.connect(self._activated)
        self.clear()

    def clear(self) -> None:
        """No current candidate: an empty list."""
        self.show_similar([], [])

    def _activated(self, index) -> None:
        if not index.isValid():
            return
        s = self.similar[self.table_model.frame_row(self.proxy.mapToSource(index).row())]
        si, ti = s.source_index, s.target_index
        self.jumpRequested.emit(si, ti)
        win = self.window()
        if si >= 0 and hasattr(win, "open_in_compare"):
            win.open_in_compare(si, ti)

    def show_similar(self, similar: list[SimilarTranslation], classes: list[str]) -> None:
        self.similar = similar
        self.table_model.set_frame(similar_frame(similar, classes),
                                   formats=dict.fromkeys(classes, GENERAL_FORMAT))
        bold = self.font()
        bold.setBold(True)
        self.table_model.set_row_data(Qt.FontRole, [bold if s.identical else None for s in similar])
        self.table_model.set_row_data(Qt.ToolTipRole, [s.target.text for s in similar])
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Each column but the translation as wide as its widest text (bold for identical
        rows), measured from the texts the cells show -- ``resizeColumnToContents`` asks the
        delegate for every cell's size hint, ~12 ms a step on the WMT21 database."""
        model, header = self.proxy, self.horizontalHeader()
        fm = self.fontMetrics()
        bold = self.font()
        bold.setBold(True)
        fmb = QFontMetrics(bold)
        pad = 2 * (self.style().pixelMetric(QStyle.PM_FocusFrameHMargin, None, self) + 1) + 8
        rows = model.rowCount()
        for col in range(model.columnCount() - 1):
            title = str(model.headerData(col, Qt.Horizontal, Qt.DisplayRole) or "")
            width = fmb.horizontalAdvance(title) + pad + 12          # room for the sort arrow
            for r in range(rows):
                metrics = fmb if self.similar[r].identical else fm
                width = max(width, metrics.horizontalAdvance(cell_text(model.index(r, col))) + pad)
            header.resizeSection(col, width)


def similar_frame(similar: list[SimilarTranslation], classes: list[str]):
    """Distance ("= identical" or the word edit distance), system, judges, the scores of
    ``classes`` (mean over judges, human only) and the translation, one row each."""
    import pandas as pd
    rows = []
    for s in similar:
        vals = [s.target.value(c, include_extrapolated=False) for c in classes]
        judges = ", ".join(j or "(anonymous)" for j in s.judges) or "-"
        rows.append(["= identical" if s.identical else s.distance, s.target.system or "-",
                     judges, *(math.nan if v is None else float(v) for v in vals),
                     s.target.text])
    return pd.DataFrame(rows, columns=["Dist.", "System", "Judge", *classes, "Translation"])


class SessionDialog(QDialog):
    """Choose the judge name, the score classes and the systems of a scoring session."""

    def __init__(self, db: Database, judge: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Start scoring session")
        self.setObjectName("sessionDialog")
        self.judge = QLineEdit(judge)
        self.judge.setObjectName("judgeName")
        self.judge.setPlaceholderText("your name or initials")
        self.class_boxes: list[QCheckBox] = []
        form = QFormLayout(self)
        form.addRow("Judge:", self.judge)
        self.class_box = QVBoxLayout()
        self.no_classes = QLabel("No score classes yet: add them with “Score classes…”.")
        self.class_box.addWidget(self.no_classes)
        #: Opens Edit → Score classes (connected by the window); then :meth:`set_classes`.
        self.classes_button = QPushButton("Score classes…")
        self.classes_button.setObjectName("sessionClassesButton")
        self.classes_button.setAutoDefault(False)
        outer = QVBoxLayout()
        outer.addLayout(self.class_box)
        outer.addWidget(self.classes_button, 0, Qt.AlignLeft)
        form.addRow("Score classes:", outer)
        self.set_classes(db.human_classes)
        self.system_boxes = []
        sysbox = QVBoxLayout()
        for s in db.systems():
            cb = QCheckBox(s or "(no system id)")
            cb.setProperty("system", s)
            cb.setChecked(True)
            self.system_boxes.append(cb)
            sysbox.addWidget(cb)
        form.addRow("Systems:", sysbox)
        self.start_unscored = QCheckBox("Start at the first candidate I have not scored")
        self.start_unscored.setChecked(True)
        form.addRow(self.start_unscored)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def set_classes(self, names: list[str]) -> None:
        """One check box per class (again after the classes were edited; choices are kept)."""
        was = {cb.text(): cb.isChecked() for cb in self.class_boxes}
        for cb in self.class_boxes:
            self.class_box.removeWidget(cb)
            cb.deleteLater()
        self.class_boxes = []
        for c in names:
            cb = QCheckBox(c)
            cb.setChecked(was.get(c, True))
            self.class_boxes.append(cb)
            self.class_box.addWidget(cb)
        self.no_classes.setVisible(not names)

    def classes(self) -> list[str]:
        return [cb.text() for cb in self.class_boxes if cb.isChecked()]

    def systems(self) -> list[str]:
        return [cb.property("system") for cb in self.system_boxes if cb.isChecked()]
