"""Adjudication as a Qt-free model: the items where the annotators disagree, their
judgements side by side, and the coordinator's final judgement, journaled and undoable.

The disagreements are those of :func:`evaltrans_qt.engine.campaign.adjudication.
find_disagreements` (a score spread beyond a threshold, spans found by only some
annotators), listed once when the session starts, so the coordinator's place does not
jump while they work. :meth:`AdjudicationSession.current` gives the current one as the
database has it now (:func:`~evaltrans_qt.engine.campaign.adjudication.refresh`): each
annotator's value or spans and the final judgement so far.

The final judgement is the judgement of the judge :data:`ADJUDICATED`:

* a score item: :meth:`~AdjudicationSession.set_score` (any valid value of the class) or
  :meth:`~AdjudicationSession.take` (one annotator's value);
* a spans item: :meth:`~AdjudicationSession.take` (one annotator's whole annotation),
  :meth:`~AdjudicationSession.add_span` (one annotator's span added to the final ones),
  :meth:`~AdjudicationSession.remove_span`, :meth:`~AdjudicationSession.set_spans`;
* either: :meth:`~AdjudicationSession.clear` (no final judgement).

Every edit is one step committed through the workspace's undo history
(:meth:`History.commit <evaltrans_qt.history.History.commit>` ->
:meth:`Workspace.commit <evaltrans_qt.workspace.Workspace.commit>`: the journal first,
fsynced, then the database), as the scoring and span sessions do, so it survives a crash
and Ctrl+Z commits the inverse. The adjudication screen only shows this model and turns
keys into calls.

Signals (psygnal): ``shown(i)`` -- item ``i`` is the current one; ``changed(i)`` -- item
``i``'s final judgement changed (an edit, an undo or a redo).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from psygnal import Signal

from evaltrans_qt.engine.campaign.adjudication import (
    DEFAULT_THRESHOLD,
    Disagreement,
    check_threshold,
    find_disagreements,
    refresh,
)
from evaltrans_qt.engine.campaign.agreement import ADJUDICATED
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.spans.model import ErrorSpan, check_error
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io import protocol_changes
from evaltrans_qt.io.journal import Change, change_for
from evaltrans_qt.workspace import Workspace


class AdjudicationSession:
    """The coordinator's pass through the disagreements of the workspace's database
    (module doc)."""

    shown = Signal(int)
    changed = Signal(int)

    def __init__(self, workspace: Workspace, threshold: float = DEFAULT_THRESHOLD, *,
                 classes: Iterable[str] | None = None, spans: bool = True,
                 severity: bool = False) -> None:
        db = workspace.database
        if db is None:
            raise LookupError("no database is open")
        self.workspace = workspace
        self.threshold = check_threshold(threshold)
        self.severity = severity
        #: The disagreements found when the session started (module doc).
        self.items: list[Disagreement] = find_disagreements(
            db, self.threshold, classes=classes, spans=spans, severity=severity)
        self.index = 0

    # ------------------------------------------------------------ where we are
    @property
    def database(self) -> Database:
        db = self.workspace.database
        assert db is not None
        return db

    def __len__(self) -> int:
        return len(self.items)

    def current(self, i: int | None = None) -> Disagreement:
        """Item ``i`` (default: the current one) as the database has it now."""
        if not self.items:
            raise ScoreError("the annotators disagree nowhere beyond the threshold")
        return refresh(self.database, self.items[self.index if i is None else i],
                       self.threshold, severity=self.severity)

    def texts(self, i: int | None = None) -> tuple[str, str]:
        """(source, candidate) of item ``i``."""
        si, ti = self.items[self.index if i is None else i].item
        src = self.database.sources[si]
        return src.text, src.targets[ti].text

    def progress(self) -> tuple[int, int]:
        """(items with a final judgement, items)."""
        return sum(1 for i in range(len(self.items)) if self.current(i).adjudicated), \
            len(self.items)

    def go(self, i: int) -> None:
        if not 0 <= i < len(self.items):
            raise IndexError(f"item {i} is not in 0..{len(self.items) - 1}")
        self.index = i
        self.shown.emit(i)

    def next(self) -> bool:
        """Go to the next item; False at the last one."""
        if self.index + 1 >= len(self.items):
            return False
        self.go(self.index + 1)
        return True

    def previous(self) -> bool:
        if self.index == 0:
            return False
        self.go(self.index - 1)
        return True

    def next_open(self) -> bool:
        """Go to the next item (after the current one, wrapping) without a final
        judgement; False when every item has one."""
        n = len(self.items)
        for k in range(1, n + 1):
            i = (self.index + k) % n
            if not self.current(i).adjudicated:
                self.go(i)
                return True
        return False

    # ------------------------------------------------------------ final judgements
    def set_score(self, value: float) -> None:
        """The final value of the current score item (a valid value of its class)."""
        d = self._expect("score")
        self.database.level(d.name).validate(float(value))
        self._commit(self._score_change(d, float(value)), f"adjudicate {d.name} = {value:g}")

    def take(self, judge: str) -> None:
        """Make annotator ``judge``'s judgement of the current item the final one."""
        d = self.current()
        if judge not in d.judges:
            raise ScoreError(f"{judge!r} did not judge this item (judges: "
                             f"{', '.join(d.judges)})")
        if d.kind == "score":
            self._commit(self._score_change(d, d.scores[judge]),
                         f"adjudicate {d.name}: take {judge}'s {d.scores[judge]:g}")
        else:
            self._commit(self._spans_change(d, d.spans[judge]),
                         f"adjudicate {d.name}: take {judge}'s spans")

    def add_span(self, judge: str, n: int) -> ErrorSpan:
        """Add annotator ``judge``'s error ``n`` (0-based) to the final spans (they start
        empty); refused when the final spans have it already."""
        d = self._expect("spans")
        errs = d.spans.get(judge)
        if errs is None:
            raise ScoreError(f"{judge!r} did not annotate this item (judges: "
                             f"{', '.join(d.judges)})")
        if not 0 <= n < len(errs):
            raise ScoreError(f"{judge} has no error {n + 1} here ({len(errs)} errors)")
        final = list(d.final) if isinstance(d.final, tuple) else []
        e = errs[n]
        if e in final:
            raise ScoreError(f"the final spans have {judge}'s error {n + 1} already")
        self._commit(self._spans_change(d, [*final, e]),
                     f"adjudicate {d.name}: add {judge}'s error {n + 1}")
        return e

    def remove_span(self, n: int) -> None:
        """Remove final error ``n`` (0-based)."""
        d = self._expect("spans")
        final = list(d.final) if isinstance(d.final, tuple) else []
        if not 0 <= n < len(final):
            raise ScoreError(f"there is no final error {n + 1} ({len(final)} errors)")
        del final[n]
        self._commit(self._spans_change(d, final), f"adjudicate {d.name}: remove error {n + 1}")

    def set_spans(self, errors: Sequence[ErrorSpan]) -> None:
        """The final spans of the current spans item (empty: no error)."""
        d = self._expect("spans")
        self._commit(self._spans_change(d, list(errors)), f"adjudicate {d.name}: spans")

    def clear(self) -> bool:
        """Remove the final judgement of the current item; False if it had none."""
        d = self.current()
        if not d.adjudicated:
            return False
        ch = (self._score_change(d, None) if d.kind == "score"
              else self._spans_change(d, None))
        self._commit(ch, f"adjudicate {d.name}: clear")
        return True

    def undo(self) -> bool:
        return self.workspace.history.undo() is not None

    def redo(self) -> bool:
        return self.workspace.history.redo() is not None

    # ------------------------------------------------------------ internals
    def _expect(self, kind: str) -> Disagreement:
        d = self.current()
        if d.kind != kind:
            raise ScoreError(f"this item is a {d.kind} disagreement ({d.name}), not a {kind} one")
        return d

    def _score_change(self, d: Disagreement, value: float | None) -> Change:
        si, ti = d.item
        return change_for(self.database, si, ti, d.name, value, ADJUDICATED,
                          time.strftime("%Y-%m-%dT%H:%M:%S"))

    def _spans_change(self, d: Disagreement, errors: list[ErrorSpan] | tuple[ErrorSpan, ...]
                      | None) -> Change:
        si, ti = d.item
        src = self.database.sources[si]
        for e in errors or ():
            check_error(e, src.targets[ti].text, src.text)
        return protocol_changes.spans_change(self.database, si, ti, ADJUDICATED, errors,
                                             protocol=d.name)

    def _commit(self, ch: Change, text: str) -> None:
        self.workspace.history.commit(ch, text, after=self._follow)
        self.changed.emit(self.index)

    def _follow(self, changes: list[Change], undone: bool) -> None:
        """After an undo or redo: ``changed`` for the items the changes touched."""
        db = self.database
        touched = set()
        for ch in changes:
            src = protocol_changes.source_of(db, ch)
            if src is not None:
                touched.add((db.source_index(src), getattr(ch, "target_index", None)))
        for i, d in enumerate(self.items):
            if d.item in touched:
                self.changed.emit(i)
