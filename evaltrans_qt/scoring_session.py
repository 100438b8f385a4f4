"""A judge's scoring session as a Qt-free model: the items, the cursor, scoring, undo.

A :class:`ScoringSessionModel` walks the candidates (not references) of the workspace's
database, of the chosen systems, in database order (:attr:`~ScoringSessionModel.items`:
(source index, target index) pairs), keeps the cursor (the current item and score class)
and the seconds spent on each item, and turns every score into a
:class:`~evaltrans_qt.io.journal.ScoreChange` committed through
:meth:`Workspace.commit` -- the journal first (fsync), then the database, then the
workspace's ``committed`` signal -- and recorded as one step of the workspace's undo
history (:mod:`evaltrans_qt.history`). Undoing it commits the inverse change and puts the
cursor back on that item and class, so the corrected value lands there.

"Take identical" gives the current item the scores of an identical translation already
scored (the database method, thesis section 1.2.1; Macháček §5.2), as one step.

Signals (psygnal, emitted in the thread that drives the model -- the UI thread):
``moved(pos)``, ``class_moved(class_pos)``, ``scored(change)``, ``classes_changed()``,
``progress_changed(done, total)``. The window's scoring panel only shows the model and
turns keys into calls (:class:`evaltrans_qt.ui.scoring.ScoringSession` is its Qt face).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from psygnal import Signal

from evaltrans_qt.engine.data.database import Database, Levels, Target
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.history import Committed
from evaltrans_qt.io import protocol_changes
from evaltrans_qt.io.journal import Change, ScoreChange, change_for, find_target
from evaltrans_qt.workspace import Workspace

Item = tuple[int, int]  # (source index, target index)


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
    from evaltrans_qt.engine.human.similar import similar  # numpy: loaded when needed

    src = db.sources[source_index]
    me = src.targets[target_index]
    seen: dict[tuple[int, int], SimilarTranslation] = {}
    for c in classes:
        for n in similar(db, src, me, c):
            other = None if n.source is None or n.source is src else db.source_index(n.source)
            si = source_index if other is None else other
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


def now_iso() -> str:
    """The ``time`` of a new score: an ISO 8601 timestamp with the local offset."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


class ScoringSessionModel:
    """A judge's pass over the candidates of the workspace's database (module doc).

    ``systems``: the systems whose candidates are scored (None or empty: all);
    ``clock``: seconds for the time spent on an item (monotonic)."""

    moved = Signal(int)
    class_moved = Signal(int)
    #: A score of this session was committed, undone or redone (the change as journalled).
    scored = Signal(object)
    #: The session's score classes changed (added, renamed, removed).
    classes_changed = Signal()
    progress_changed = Signal(int, int)

    def __init__(self, workspace: Workspace, judge: str | None, classes: Sequence[str],
                 systems: Sequence[str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not classes:
            raise EvalTransError("a scoring session needs at least one score class")
        if workspace.database is None:
            raise EvalTransError("a scoring session needs an open database")
        #: The database and journal are the workspace's (no copy: Save As, a reload).
        self.workspace = workspace
        self.judge = judge or None
        self.classes = list(classes)
        self.levels: list[Levels] = [self.db.level(c) for c in self.classes]  # ScoreError
        self._clock = clock
        self._list_items(None if not systems else {s or "" for s in systems})
        self.pos = 0
        self.class_pos = self.first_unscored_class(self.items[0]) if self.items else 0
        self._spent: dict[Item, float] = {}
        self._shown_at = clock()
        self._scored = {it for it in self.items if self.is_scored(it)}

    def _list_items(self, want: set[str] | None) -> None:
        """``items`` (and ``index_of``): every candidate -- not a reference -- of the systems
        ``want`` (None: all), in database order."""
        is_ref = self.db.reference_test()
        self.items: list[Item] = [
            (i, j) for i, src in enumerate(self.db.sources) for j, t in enumerate(src.targets)
            if not is_ref(t) and (want is None or (t.system or "") in want)]
        self.index_of = {it: k for k, it in enumerate(self.items)}

    # ------------------------------------------------------------ state
    @property
    def db(self) -> Database:
        """The workspace's open database (the session ends when another is opened)."""
        db = self.workspace.database
        if db is None:
            raise EvalTransError("the scoring session's database was closed")
        return db

    @property
    def history(self):
        return self.workspace.history

    def target(self, item: Item) -> Target:
        return self.db.sources[item[0]].targets[item[1]]

    @property
    def current(self) -> Item | None:
        return self.items[self.pos] if self.items else None

    @property
    def current_class(self) -> str:
        return self.classes[self.class_pos]

    def judge_value(self, item: Item, cls: str) -> float | None:
        """This judge's own (not extrapolated) value of ``cls`` on ``item``, if any."""
        for s in self.target(item).scores:
            if s.cls == cls and s.judge == self.judge and not s.extrapolated:
                return s.value
        return None

    def _judged(self, item: Item) -> set[str]:
        """Classes this judge has scored (not extrapolated) on ``item``."""
        return {s.cls for s in self.target(item).scores
                if s.judge == self.judge and not s.extrapolated}

    def is_scored(self, item: Item) -> bool:
        have = self._judged(item)
        return all(c in have for c in self.classes)

    def first_unscored_class(self, item: Item) -> int:
        """Position of the first class this judge has not scored on ``item`` (0 if all are)."""
        have = self._judged(item)
        return next((k for k, c in enumerate(self.classes) if c not in have), 0)

    def progress(self) -> tuple[int, int]:
        """(items fully scored by this judge, items)."""
        return len(self._scored), len(self.items)

    def seconds_on(self, item: Item) -> float:
        extra = self._clock() - self._shown_at if item == self.current else 0.0
        return self._spent.get(item, 0.0) + extra

    # ------------------------------------------------------------ navigation
    def _leave(self) -> None:
        cur = self.current
        now = self._clock()
        if cur is not None:
            self._spent[cur] = self._spent.get(cur, 0.0) + now - self._shown_at
        self._shown_at = now

    def go_to(self, k: int) -> None:
        """Show item ``k`` (clamped) with the cursor on its first class not yet scored by
        this judge (a half-scored item is resumed where it was left)."""
        if not self.items:
            return
        k = max(0, min(k, len(self.items) - 1))
        if k == self.pos:
            return
        self._leave()
        self.pos = k
        self.class_pos = self.first_unscored_class(self.items[k])
        self.moved.emit(k)
        self.class_moved.emit(self.class_pos)

    def jump(self, item: Item) -> bool:
        """Go to ``item`` (source index, target index); False if it is not in the session."""
        k = self.index_of.get(item)
        if k is None:
            return False
        self.go_to(k)
        return True

    def focus(self, item: Item, cls: str) -> None:
        """Put the cursor on ``item`` and class ``cls`` (after undo/redo changed that score)."""
        self.jump(item)
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
            if self.items[k] not in self._scored:
                self.go_to(k)
                return True
        return False

    def first_unscored(self) -> None:
        """Start at the first item not fully scored by this judge, on its first unscored class."""
        for k, it in enumerate(self.items):
            if it not in self._scored:
                self.pos = k
                break
        if self.items:
            self.class_pos = self.first_unscored_class(self.items[self.pos])
        self._shown_at = self._clock()
        self.moved.emit(self.pos)
        self.class_moved.emit(self.class_pos)

    def set_class(self, i: int) -> None:
        self.class_pos = i % len(self.classes)
        self.class_moved.emit(self.class_pos)

    def next_class(self) -> None:
        self.set_class(self.class_pos + 1)

    def previous_class(self) -> None:
        self.set_class(self.class_pos - 1)

    # ------------------------------------------------------------ scoring
    def valid_value(self, cls: str, value: float) -> bool:
        """Whether a judge may give ``value`` in ``cls`` (a level at or above the first
        valid one; within a continuous class' range)."""
        lv = self.db.level(cls)
        try:
            lv.validate(value)
        except EvalTransError:
            return False
        return lv.continuous or value >= lv.firstvalid

    def change(self, item: Item, cls: str, value: float | None,
               seconds: float | None = None) -> ScoreChange:
        """The change giving ``item`` this judge's ``value`` of ``cls`` (None: clears it),
        timed now, with the seconds spent."""
        ch = change_for(self.db, item[0], item[1], cls, value, self.judge, now_iso())
        if seconds is not None:
            ch = replace(ch, seconds=round(float(seconds), 1))
        return ch

    def score(self, value: float, cls: str | None = None, advance: bool = True) -> bool:
        """Score the current item in ``cls`` (default: the current class) as one undoable step.

        With ``advance`` the cursor moves to the next class still missing, and after the
        last one to the next unscored item. False for an invalid value (nothing
        committed); a journal that cannot be written (:class:`OSError`) or a value the
        database refuses propagates with nothing committed and nothing recorded."""
        item = self.current
        if item is None:
            return False
        cls = cls or self.current_class
        if not self.valid_value(cls, float(value)):
            return False
        shown = f"{float(value):g}"
        self.commit([self.change(item, cls, float(value), self.seconds_on(item))],
                    f"{cls} = {shown} (item {self.pos + 1})")
        if advance:
            self._advance_after(cls)
        return True

    def _advance_after(self, cls: str) -> None:
        """After scoring ``cls``: the next class still missing, else the next unscored item."""
        cur = self.current
        if cur is None:
            return
        if cur in self._scored:
            if not self.next_unscored():
                self.set_class(0)
            return
        k = self.classes.index(cls)
        n = len(self.classes)
        for step in range(1, n + 1):
            i = (k + step) % n
            if self.judge_value(cur, self.classes[i]) is None:
                self.set_class(i)
                return

    def clear(self, cls: str | None = None) -> bool:
        """Remove this judge's score of ``cls`` (default: the current class) on the current
        item, as one undoable step; False if there is none."""
        item = self.current
        if item is None:
            return False
        cls = cls or self.current_class
        if self.judge_value(item, cls) is None:
            return False
        self.commit([self.change(item, cls, None)], f"{cls} = clear (item {self.pos + 1})")
        return True

    def take_identical(self, similar: list[SimilarTranslation] | None = None) -> bool:
        """Give the current item the scores of an identical translation already scored
        (:func:`identical_scores` of ``similar``, default :func:`similar_translations`) as
        one undoable step; values not valid here are left out. Moves on to the next
        unscored item when the item is then fully scored. False if there is nothing to take."""
        item = self.current
        if item is None:
            return False
        sim = similar if similar is not None else similar_translations(self.db, *item, self.classes)
        secs = self.seconds_on(item)
        changes: list[Change] = [self.change(item, c, float(v), secs)
                                 for c, v in identical_scores(sim, self.classes).items()
                                 if self.valid_value(c, float(v))]
        if not changes:
            return False
        self.commit(changes, "take identical translation's scores")
        if item in self._scored:
            self.next_unscored()
        return True

    def commit(self, changes: list[Change], text: str) -> Committed:
        """Commit ``changes`` through the workspace's history (journal first, all or none)
        as one undoable step, and follow them here."""
        entry = self.history.commit(changes, text, after=self._undone)
        self._follow(entry.changes)
        return entry

    def _undone(self, changes: list[Change], undone: bool) -> None:
        """A step of this session was undone or redone: follow it, the cursor goes there."""
        self._follow(changes)
        last = next((c for c in reversed(changes) if isinstance(c, ScoreChange)), None)
        if last is not None:
            item = self.item_of(last)
            if item is not None:
                self.focus(item, last.cls)

    def _follow(self, changes: list[Change]) -> None:
        """The progress follows committed score changes; ``scored`` for each."""
        for ch in changes:
            if not isinstance(ch, ScoreChange):
                continue
            item = self.item_of(ch)
            if item is not None:
                if self.is_scored(item):
                    self._scored.add(item)
                else:
                    self._scored.discard(item)
            self.scored.emit(ch)
        self.progress_changed.emit(*self.progress())

    def item_of(self, ch: ScoreChange) -> Item | None:
        """The session item a score change refers to (None: not one of its items)."""
        db = self.db
        cur = self.current               # the usual case, without looking anything up
        if cur is not None and ch.target_index == cur[1]:
            here, mine = db.sources[cur[0]], self.target(cur)
            if mine.text == ch.target and mine.system == ch.system and here.text == ch.source \
                    and (not ch.seg or (here.doc, here.seg) == (ch.doc, ch.seg)):
                return cur
        src = protocol_changes.source_of(db, ch)
        si = db.source_index(src) if src is not None else None
        if si is None:
            return None
        ti = ch.target_index
        if ti is not None and (si, ti) in self.index_of:
            at = db.sources[si].targets[ti]
            if at.text == ch.target and at.system == ch.system:
                return si, ti
        t = find_target(db, ch)
        if t is None:
            return None
        ti = next((j for j, x in enumerate(db.sources[si].targets) if x is t), None)
        return (si, ti) if ti is not None and (si, ti) in self.index_of else None

    def finish(self) -> None:
        """The session ends: the time on the current item is counted."""
        self._leave()

    def set_classes(self, classes: Sequence[str]) -> None:
        """Score ``classes`` from now on (the database's classes were edited, a candidate
        became a reference): the candidates are listed again, the item is kept."""
        if not classes:
            raise EvalTransError("a scoring session needs at least one score class")
        cur_item, cur_cls = self.current, (self.current_class if self.classes else None)
        self.levels = [self.db.level(c) for c in classes]
        self.classes = list(classes)
        self._list_items({self.target(it).system or "" for it in self.items})
        self.pos = self.index_of.get(cur_item, min(self.pos, max(len(self.items) - 1, 0))) \
            if cur_item is not None else 0
        self._scored = {it for it in self.items if self.is_scored(it)}
        if cur_cls in self.classes:
            self.class_pos = self.classes.index(cur_cls)
        else:
            cur = self.current
            self.class_pos = self.first_unscored_class(cur) if cur is not None else 0
        self.classes_changed.emit()
        self.progress_changed.emit(*self.progress())
        if self.current != cur_item:
            self.moved.emit(self.pos)
        self.class_moved.emit(self.class_pos)


__all__ = ["ScoringSessionModel", "Item", "now_iso", "SimilarTranslation", "similar_translations",
           "identical_scores"]
