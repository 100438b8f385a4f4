"""The undo history of the application: Qt-free, one list of steps for every kind of change.

A :class:`History` is a list of done steps and a position in it (like Qt's
undo stack, without Qt): :meth:`History.undo` undoes the step before the position,
:meth:`History.redo` redoes the one after it, pushing a new step drops the steps undone
before it. Two kinds of step:

* :class:`Committed` -- judgements committed through :meth:`Workspace.commit`
  (scores, post-edits, item marks, items, references, rankings; several in one step,
  e.g. the scores taken from an identical translation). Undo and redo are changes too:
  undo commits the inverse changes that :meth:`Workspace.commit` returned (journal first,
  fsync, then the database, then the workspace's ``committed`` signal), in reverse order;
  redo commits the changes again. Nothing is undone behind the journal's back.
* :class:`Step` -- anything else undoable: two callables (score-class edits, which
  restore snapshots of the classes and the scores they touched and are saved at once
  rather than journalled; a ranking screen's placements, which are drafts until the
  screen is submitted).

A step that fails (the journal cannot be written, the database refuses a change) leaves
the position where it was and raises; a :class:`Committed` step whose second change
fails commits the inverse of its first again, so a step is undone entirely or not at
all.

The workspace holds the application's history (``workspace.history``) and clears it when
another database is opened. The :attr:`History.changed` signal (psygnal) tells the undo and
redo actions to update their text and state. Qt-free: the engine, the workspace and pure
Python tests drive it; the window only turns Ctrl+Z / Ctrl+Shift+Z into :meth:`undo` and
:meth:`redo`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import weakref
from collections.abc import Callable, Sequence
from typing import Protocol

from psygnal import Signal

from evaltrans_qt.io.journal import Change, Journal

#: Steps kept by default (the oldest are dropped beyond it).
LIMIT = 10_000

#: Called after a :class:`Committed` step was undone (True) or redone (False), with the
#: changes committed for it (as journalled): the views follow (cursor, panels).
After = Callable[[list[Change], bool], None]


class Commit(Protocol):
    """What :meth:`Workspace.commit` returns (:class:`evaltrans_qt.workspace.Commit`)."""

    @property
    def change(self) -> Change: ...

    @property
    def inverse(self) -> list[Change]: ...


class Workspace(Protocol):
    """What a history commits through: :class:`evaltrans_qt.workspace.Workspace` (which
    holds a history, so this module cannot import it back)."""

    @property
    def journal(self) -> Journal | None: ...

    def commit(self, change: Change) -> Commit: ...


class Entry(Protocol):
    """One undoable step of a :class:`History`."""

    text: str

    def undo(self) -> None: ...

    def redo(self) -> None: ...


def _weak(fn: After | None) -> Callable[[], After | None]:
    """A bound method held weakly (an ended session or a closed screen is not kept alive
    by the history, and is not called any more); other callables held as they are."""
    if fn is None:
        return lambda: None
    if hasattr(fn, "__self__") and hasattr(fn, "__func__"):
        return weakref.WeakMethod(fn)
    return lambda: fn


class Committed:
    """Changes committed through :meth:`Workspace.commit` as one step (module doc).

    ``commits``: what :meth:`Workspace.commit` returned for each change, in order.
    ``after(changes, undone)`` is called after an undo or a redo (not after the first
    commit: whoever committed it already followed)."""

    def __init__(self, workspace: Workspace, commits: Sequence[Commit], text: str,
                 after: After | None = None) -> None:
        if not commits:
            raise ValueError("a committed step needs at least one change")
        self.workspace = workspace
        self.text = text
        self.changes: list[Change] = [c.change for c in commits]
        self.inverses: list[list[Change]] = [list(c.inverse) for c in commits]
        self._after = _weak(after)

    def undo(self) -> None:
        todo = [ch for inv in reversed(self.inverses) for ch in inv]
        done = commit_all(self.workspace, todo)
        self._follow([c.change for c in done], True)

    def redo(self) -> None:
        done = commit_all(self.workspace, [dataclasses.replace(ch, seq=0) for ch in self.changes])
        self.changes = [c.change for c in done]
        self.inverses = [list(c.inverse) for c in done]
        self._follow(self.changes, False)

    def _follow(self, changes: list[Change], undone: bool) -> None:
        fn = self._after()
        if fn is not None:
            fn(changes, undone)


def commit_all(workspace: Workspace, changes: Sequence[Change]) -> list[Commit]:
    """Commit ``changes`` in order through :meth:`Workspace.commit`, all or none: if one
    fails, the inverses of those already committed are committed (newest first) and the
    error propagates."""
    done: list[Commit] = []
    try:
        for ch in changes:
            done.append(workspace.commit(ch))
    except BaseException:
        for c in reversed(done):            # best effort: the first error is the one told
            for inv in c.inverse:
                with contextlib.suppress(Exception):
                    workspace.commit(inv)
        raise
    return done


@dataclasses.dataclass
class Step:
    """A step that is not a journalled judgement: ``undo`` and ``redo`` callables."""

    text: str
    undo_fn: Callable[[], None]
    redo_fn: Callable[[], None]

    def undo(self) -> None:
        self.undo_fn()

    def redo(self) -> None:
        self.redo_fn()


class History:
    """Done steps and a position (module doc). ``workspace``: whose :meth:`commit` the
    :meth:`commit` convenience uses (None: only already-done steps are pushed)."""

    #: The steps, the position or the clean position changed.
    changed = Signal()

    def __init__(self, workspace: Workspace | None = None, limit: int = LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"a history keeps at least one step, not {limit}")
        self.workspace = workspace
        self.limit = limit
        self._entries: list[Entry] = []
        #: Steps done: ``_entries[:index]`` are done, the rest were undone (redo them).
        self.index = 0
        #: The position that matches the saved state (None: no longer reachable).
        self.clean_index: int | None = 0
        #: Bumped by :meth:`clear`: a step cleared while it ran does not move the position.
        self._generation = 0
        self._running: Entry | None = None

    # ------------------------------------------------------------ state
    def __len__(self) -> int:
        return len(self._entries)

    @property
    def entries(self) -> list[Entry]:
        """The steps, oldest first (a copy)."""
        return list(self._entries)

    @property
    def can_undo(self) -> bool:
        return self.index > 0 and self._running is None

    @property
    def can_redo(self) -> bool:
        return self.index < len(self._entries) and self._running is None

    @property
    def undo_text(self) -> str:
        """What :meth:`undo` undoes ("" if nothing)."""
        return self._entries[self.index - 1].text if self.index > 0 else ""

    @property
    def redo_text(self) -> str:
        """What :meth:`redo` redoes ("" if nothing)."""
        return self._entries[self.index].text if self.index < len(self._entries) else ""

    @property
    def is_clean(self) -> bool:
        """Whether the position is the one marked by :meth:`set_clean`."""
        return self.clean_index == self.index

    def set_clean(self) -> None:
        """The present position matches the saved state."""
        self.clean_index = self.index
        self.changed.emit()

    # ------------------------------------------------------------ changing it
    def push(self, entry: Entry) -> Entry:
        """Record ``entry``, already done, as the newest step (the steps undone before it
        are dropped). Refused while a step runs (an undo must not record a new step)."""
        if self._running is not None:
            raise RuntimeError(f"cannot record '{entry.text}' while "
                               f"'{self._running.text}' is being undone or redone")
        del self._entries[self.index:]
        if self.clean_index is not None and self.clean_index > self.index:
            self.clean_index = None
        self._entries.append(entry)
        self.index += 1
        over = len(self._entries) - self.limit
        if over > 0:
            del self._entries[:over]
            self.index -= over
            if self.clean_index is not None:
                self.clean_index = self.clean_index - over if self.clean_index >= over else None
        self.changed.emit()
        return entry

    def commit(self, changes: Change | Sequence[Change], text: str,
               after: After | None = None) -> Committed:
        """Commit ``changes`` through the workspace (:func:`commit_all`: all or none) and
        record them as one step; errors propagate with nothing recorded."""
        if self.workspace is None:
            raise RuntimeError("this history has no workspace to commit through")
        todo = [changes] if not isinstance(changes, Sequence) else list(changes)
        entry = Committed(self.workspace, commit_all(self.workspace, todo), text, after)
        self.push(entry)
        return entry

    def step(self, text: str, undo: Callable[[], None], redo: Callable[[], None]) -> Step:
        """Record a :class:`Step` already done."""
        entry = Step(text, undo, redo)
        self.push(entry)
        return entry

    def undo(self) -> Entry | None:
        """Undo the newest done step; returns it (None: nothing to undo). Its error
        propagates with the position unchanged."""
        if not self.can_undo:
            return None
        entry = self._entries[self.index - 1]
        if self._run(entry, entry.undo):
            self.index -= 1
            self.changed.emit()
        return entry

    def redo(self) -> Entry | None:
        """Redo the oldest undone step; returns it (None: nothing to redo)."""
        if not self.can_redo:
            return None
        entry = self._entries[self.index]
        if self._run(entry, entry.redo):
            self.index += 1
            self.changed.emit()
        return entry

    def _run(self, entry: Entry, fn: Callable[[], None]) -> bool:
        """Run ``fn``; False if the history was cleared meanwhile (nothing to move)."""
        generation = self._generation
        self._running = entry
        try:
            fn()
        finally:
            self._running = None
        return generation == self._generation

    def clear(self) -> None:
        """Forget every step (another database; the end of a scoring session)."""
        self._entries.clear()
        self.index = 0
        self.clean_index = 0
        self._generation += 1
        self.changed.emit()


__all__ = ["History", "Committed", "Step", "Entry", "After", "commit_all", "LIMIT"]
