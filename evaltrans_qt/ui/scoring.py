"""Scoring sessions: a judge scores candidates from the keyboard without losing a score.

* :class:`ScoringSession` (a QObject) walks the candidates of a database in
  order, keeps the current item and score class, the time spent per item, and
  turns every score into a :class:`ScoreCommand` on a ``QUndoStack``. Every
  change (including undo, which commits the inverse change, and redo) goes through
  :meth:`ScoringSession.commit` -- :meth:`Workspace.commit`: the journal (fsync) first,
  then the database, then its signal -- before ``scoreChanged`` is emitted.
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
import dataclasses
import math
import time
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QRegularExpression, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QKeySequence,
    QPalette,
    QRegularExpressionValidator,
    QUndoCommand,
    QUndoStack,
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
    QTableView,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database, Levels, Target
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.journal import ScoreChange, change_for
from evaltrans_qt.io.journal import seconds_of as seconds_of  # re-exported
from evaltrans_qt.ui.results_models import GENERAL_FORMAT, attach_frame_model
from evaltrans_qt.workspace import Commit, Workspace

Item = tuple[int, int]  # (source index, target index)


# ----------------------------------------------------------------- similar translations
@dataclass
class SimilarTranslation:
    """An already-scored translation of the same source sentence, with its word edit
    distance, the source it belongs to (another source with the same text is pooled,
    engine/human/similar.py) and the judges who scored it."""

    target_index: int
    target: Target
    distance: int
    identical: bool
    source_index: int = -1
    judges: tuple[str | None, ...] = ()


def similar_translations(db: Database, source_index: int, target_index: int,
                         classes: list[str]) -> list[SimilarTranslation]:
    """Already-scored translations of the same source: identical first, then nearest.

    Scored = has a human (not extrapolated) score of one of ``classes``;
    distance = word-level Levenshtein distance (the database method, thesis section 1.2.1;
    :func:`evaltrans_qt.engine.human.similar.similar`, merged over the classes).
    """
    from evaltrans_qt.engine.human.similar import similar

    src = db.sources[source_index]
    me = src.targets[target_index]
    seen: dict[tuple[int, int], SimilarTranslation] = {}
    for c in classes:
        for n in similar(db, src, me, c):
            si = source_index if n.source is None or n.source is src else db.source_index(n.source)
            key = (si, n.index)
            if key in seen:
                old = seen[key]
                old.judges = tuple(dict.fromkeys(old.judges + n.judges))
                continue
            seen[key] = SimilarTranslation(n.index, n.target, n.distance, n.identical, si, n.judges)
    out = list(seen.values())
    out.sort(key=lambda s: (not s.identical, s.distance, s.source_index != source_index,
                            s.source_index, s.target_index))
    return out


def identical_scores(similar: list[SimilarTranslation], classes: list[str]) -> dict[str, float]:
    """Scores (mean over judges) of the first identical scored translation, per class."""
    for s in similar:
        if not s.identical:
            break
        vals = {}
        for c in classes:
            v = s.target.value(c, include_extrapolated=False)
            if v is not None:
                vals[c] = v
        if vals:
            return vals
    return {}


# ----------------------------------------------------------------- session
def now_iso() -> str:
    """The ``time`` of a new score: an ISO 8601 timestamp with the local offset."""
    from datetime import datetime
    return datetime.now().astimezone().isoformat(timespec="seconds")


class ScoreCommand(QUndoCommand):
    """Set (or clear) one class' score of one item by the session's judge; undoable."""

    def __init__(self, session: ScoringSession, item: Item, cls: str, value: float | None,
                 seconds: float | None) -> None:
        super().__init__()
        self.session = session
        self.item = item
        self.cls = cls
        #: The changes that undo this one (from :meth:`Workspace.commit`), once applied.
        self.inverse: list[ScoreChange] = []
        self.value = value
        # ``time``: when (ISO 8601, as older EvalTrans files hold); ``seconds``: time spent
        self.time = now_iso()
        self.seconds = None if seconds is None else round(float(seconds), 1)
        shown = "clear" if value is None else f"{value:g}"
        self.setText(f"{cls} = {shown} (item {session.index_of.get(item, 0) + 1})")

    #: True once :meth:`ScoringSession.push` applied the change itself (journal first);
    #: QUndoStack.push then calls redo() once more, which must not apply it again.
    applied_before_push = False

    def redo(self) -> None:
        if self.applied_before_push:
            self.applied_before_push = False
            return
        self.inverse = self.session.apply(self.item, self.cls, self.value, self.time,
                                          seconds=self.seconds).inverse
        self.session.focus(self.item, self.cls)

    def undo(self) -> None:
        for ch in self.inverse:               # undo is a change too: committed like any other
            self.session.commit(self.item, ch)
        # the cursor goes to the class just undone, so the corrected digit lands there
        self.session.focus(self.item, self.cls)


class ScoringSession(QObject):
    """A judge's pass over the candidates of a database (see module doc)."""

    currentChanged = Signal(int)
    classChanged = Signal(int)
    #: The session's score classes changed (added, renamed, removed): rebuild the rows.
    classesChanged = Signal()
    scoreChanged = Signal(object)  # ScoreChange (with sequence number when journalled)
    progressChanged = Signal(int, int)

    def __init__(self, db: Database, judge: str, classes: list[str], workspace: Workspace,
                 undo_stack: QUndoStack | None = None, systems: list[str] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        if not classes:
            raise ValueError("a scoring session needs at least one score class")
        if db is not workspace.database:
            raise ValueError("a scoring session scores the workspace's open database")
        #: The database and journal are the workspace's (no copy: Save As, a reload); every
        #: score goes through :meth:`Workspace.commit` (journal, apply, signal).
        self.workspace = workspace
        self.judge = judge or None
        self.classes = list(classes)
        self.levels: list[Levels] = [db.level(c) for c in self.classes]
        self.undo_stack = undo_stack if undo_stack is not None else QUndoStack(self)
        self._list_items(None if not systems else {s or "" for s in systems})
        self.pos = 0
        self.class_pos = self.first_unscored_class(self.items[0]) if self.items else 0
        self._spent: dict[Item, float] = {}
        self._shown_at = time.monotonic()
        self._scored = sum(self.is_scored(it) for it in self.items)

    def _list_items(self, want: set[str] | None) -> None:
        """``items`` (and ``index_of``): every candidate -- not a reference -- of the systems
        ``want`` (None: all), in database order."""
        is_ref = self.db.reference_test()
        self.items: list[Item] = [
            (i, j) for i, src in enumerate(self.db.sources) for j, t in enumerate(src.targets)
            if not is_ref(t) and (want is None or (t.system or "") in want)]
        self.index_of = {it: k for k, it in enumerate(self.items)}

    # ---- state
    @property
    def db(self) -> Database:
        """The workspace's open database (the session ends when another is opened)."""
        return self.workspace.database

    def target(self, item: Item) -> Target:
        return self.db.sources[item[0]].targets[item[1]]

    @property
    def current(self) -> Item | None:
        return self.items[self.pos] if self.items else None

    @property
    def current_class(self) -> str:
        return self.classes[self.class_pos]

    def judge_value(self, item: Item, cls: str) -> float | None:
        for s in self.target(item).scores:
            if s.cls == cls and s.judge == self.judge and not s.extrapolated:
                return s.value
        return None

    def _judged(self, item: Item) -> set[str]:
        """Classes this judge has scored (not extrapolated) on ``item``."""
        return {s.cls for s in self.target(item).scores if s.judge == self.judge and not s.extrapolated}

    def is_scored(self, item: Item) -> bool:
        have = self._judged(item)
        return all(c in have for c in self.classes)

    def first_unscored_class(self, item: Item) -> int:
        """Position of the first class this judge has not scored on ``item`` (0 if all are)."""
        have = self._judged(item)
        return next((k for k, c in enumerate(self.classes) if c not in have), 0)

    def progress(self) -> tuple[int, int]:
        return self._scored, len(self.items)

    def seconds_on(self, item: Item) -> float:
        extra = time.monotonic() - self._shown_at if item == self.current else 0.0
        return self._spent.get(item, 0.0) + extra

    # ---- navigation
    def _leave(self) -> None:
        cur = self.current
        if cur is not None:
            self._spent[cur] = self._spent.get(cur, 0.0) + time.monotonic() - self._shown_at
        self._shown_at = time.monotonic()

    def go_to(self, k: int) -> None:
        """Show item ``k`` with the cursor on its first class not yet scored by this judge
        (a half-scored item is resumed where it was left)."""
        if not self.items:
            return
        k = max(0, min(k, len(self.items) - 1))
        if k == self.pos:
            return
        self._leave()
        self.pos = k
        self.class_pos = self.first_unscored_class(self.items[k])
        self.currentChanged.emit(k)
        self.classChanged.emit(self.class_pos)

    def focus(self, item: Item, cls: str) -> None:
        """Put the cursor on ``item`` and class ``cls`` (after undo/redo changed that score)."""
        k = self.index_of.get(item)
        if k is not None:
            self.go_to(k)
        if cls in self.classes:
            self.set_class(self.classes.index(cls))

    def next(self) -> None:
        self.go_to(self.pos + 1)

    def previous(self) -> None:
        self.go_to(self.pos - 1)

    def next_unscored(self) -> bool:
        """Go to the next item (wrapping) not yet fully scored by this judge; False if none."""
        n = len(self.items)
        for step in range(1, n + 1):
            k = (self.pos + step) % n
            if not self.is_scored(self.items[k]):
                self.go_to(k)
                return True
        return False

    def first_unscored(self) -> None:
        """Start at the first item not fully scored by this judge, on its first unscored class."""
        for k, it in enumerate(self.items):
            if not self.is_scored(it):
                self.pos = k
                break
        if self.items:
            self.class_pos = self.first_unscored_class(self.items[self.pos])
        self._shown_at = time.monotonic()
        self.currentChanged.emit(self.pos)
        self.classChanged.emit(self.class_pos)

    def set_class(self, i: int) -> None:
        self.class_pos = i % len(self.classes)
        self.classChanged.emit(self.class_pos)

    def next_class(self) -> None:
        self.set_class(self.class_pos + 1)

    def previous_class(self) -> None:
        self.set_class(self.class_pos - 1)

    # ---- scoring
    def valid_value(self, cls: str, value: float) -> bool:
        lv = self.db.level(cls)
        try:
            lv.validate(value)
        except Exception:
            return False
        return lv.continuous or value >= lv.firstvalid

    def score(self, value: float, cls: str | None = None, advance: bool = True) -> bool:
        """Score the current item in ``cls`` (default: the current class); undoable.

        With ``advance`` the session moves to the next class, and after the last
        class to the next unscored item. Returns False for an invalid value.
        """
        item = self.current
        if item is None:
            return False
        cls = cls or self.current_class
        if not self.valid_value(cls, float(value)):
            return False
        if not self.push(ScoreCommand(self, item, cls, float(value), self.seconds_on(item))):
            return False
        if advance:
            self._advance_after(cls)
        return True

    def _advance_after(self, cls: str) -> None:
        """After scoring ``cls``: the next class still missing, else the next unscored item."""
        if self.is_scored(self.current):
            if not self.next_unscored():
                self.set_class(0)
            return
        k = self.classes.index(cls)
        n = len(self.classes)
        for step in range(1, n + 1):
            i = (k + step) % n
            if self.judge_value(self.current, self.classes[i]) is None:
                self.set_class(i)
                return

    def clear(self, cls: str | None = None) -> None:
        item = self.current
        if item is not None:
            self.push(ScoreCommand(self, item, cls or self.current_class, None, None))

    def take_identical(self, similar: list[SimilarTranslation] | None = None) -> bool:
        """Give the current item the scores of an identical, already-scored translation."""
        item = self.current
        if item is None:
            return False
        sim = similar if similar is not None else similar_translations(self.db, *item, self.classes)
        vals = identical_scores(sim, self.classes)
        if not vals:
            return False
        self.undo_stack.beginMacro("take identical translation's scores")
        secs = self.seconds_on(item)
        for c, v in vals.items():
            if self.valid_value(c, v):
                self.push(ScoreCommand(self, item, c, v, secs))
        self.undo_stack.endMacro()
        if self.is_scored(item):
            self.next_unscored()
        return True

    def push(self, cmd: ScoreCommand) -> bool:
        """Commit ``cmd`` (Workspace.commit: journal first) and put it on the undo stack --
        only if it worked.

        A journal that cannot be written (read-only folder, full disk) must not leave a
        score that was never recorded, nor an undo entry for it; nor a value the database
        refuses (shown, nothing recorded).
        """
        try:
            cmd.redo()
        except OSError as exc:
            from evaltrans_qt.errors import SaveError
            from evaltrans_qt.ui import errors
            journal = self.workspace.journal
            where = journal.path if journal is not None else None
            errors.show_error(SaveError(f"score not recorded: the journal cannot be written "
                                        f"({exc.strerror or exc})", where))
            return False
        except (EvalTransError, LookupError) as exc:   # refused by the database: not recorded
            from evaltrans_qt.ui import errors
            errors.show_error(exc if isinstance(exc, EvalTransError) else EvalTransError(str(exc)))
            return False
        cmd.applied_before_push = True
        self.undo_stack.push(cmd)
        return True

    def apply(self, item: Item, cls: str, value: float | None, time_: str | None,
              extrapolated: bool = False, seconds: float | None = None) -> Commit:
        """Score ``item``: one change committed (:meth:`commit`)."""
        ch = change_for(self.db, item[0], item[1], cls, value, self.judge, time_, extrapolated)
        if seconds is not None:
            ch = dataclasses.replace(ch, seconds=seconds)
        return self.commit(item, ch)

    def commit(self, item: Item, ch: ScoreChange) -> Commit:
        """Commit ``ch`` (a change of ``item``) through :meth:`Workspace.commit` -- journal
        first (fsync), then the database, then its signal -- and follow it here."""
        before = self.is_scored(item)
        done = self.workspace.commit(ch)
        after = self.is_scored(item)
        self._scored += int(after) - int(before)
        self.scoreChanged.emit(done.change)
        self.progressChanged.emit(*self.progress())
        return done

    def finish(self) -> None:
        self._leave()

    def set_classes(self, classes: list[str]) -> None:
        """Score ``classes`` from now on (the database's classes were edited): the candidates
        are listed again (the reference class may have changed), the item is kept."""
        if not classes:
            raise ValueError("a scoring session needs at least one score class")
        cur_item, cur_cls = self.current, (self.current_class if self.classes else None)
        self.levels = [self.db.level(c) for c in classes]
        self.classes = list(classes)
        self._list_items({self.target(it).system or "" for it in self.items})
        self.pos = self.index_of.get(cur_item, min(self.pos, max(len(self.items) - 1, 0)))
        self._scored = sum(self.is_scored(it) for it in self.items)
        if cur_cls in self.classes:
            self.class_pos = self.classes.index(cur_cls)
        else:
            self.class_pos = self.first_unscored_class(self.current) if self.current else 0
        self.classesChanged.emit()
        self.progressChanged.emit(*self.progress())
        if self.current != cur_item:
            self.currentChanged.emit(self.pos)
        self.classChanged.emit(self.class_pos)


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
        _set_text(self.header, f"Judge <b>{s.judge or '(anonymous)'}</b> — item {s.pos + 1} of {len(s.items)}"
                            f" — system <b>{t.system or '-'}</b> — source {item[0] + 1}")
        self.header.setToolTip(src.text)
        _set_text(self.candidate, t.text)
        self.candidate.setAlignment(Qt.AlignRight if _rtl(t.text) else Qt.AlignLeft)
        done, total = s.progress()
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
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
        for col in range(self.table_model.columnCount() - 1):
            self.resizeColumnToContents(col)


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
