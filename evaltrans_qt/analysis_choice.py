"""What a run's results are analysed against: human class, level, normalisation (Qt-free).

One :class:`AnalysisChoice` lives in the workspace (``workspace.analysis``). The results
view's selectors write it; the results view, the live-correlation panel and the Metrics
tab read it when they compute, and recompute when it changes, so they always agree on
the human score they correlate with.

* ``human`` -- the human score: a score class of the database, or a protocol the judges'
  work defines (``sser:<class>``, ``ier``, ``hter``, ``awer``;
  :func:`~evaltrans_qt.engine.human.protocol_scores.protocol_names`); None when the
  database has none;
* ``level`` -- ``sentence`` or ``system`` correlation
  (:data:`evaltrans_qt.engine.metaeval.correlation.LEVELS`);
* ``normalize`` -- each judge's scores to mean 0, standard deviation 1 before averaging
  (thesis section 5.5).

It follows the open database (:meth:`AnalysisChoice.follow`): another database, an
import, a merge, a class edit or a ranking/item/reference change may add or remove
human classes; a chosen class that no longer exists falls back to the first one.
Signals: ``changed()`` -- any of the three changed; ``classes_changed(classes)`` -- the
human classes available.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from psygnal import Signal

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import OptionError


class _Followed(Protocol):
    """What :meth:`AnalysisChoice.attach` follows (the workspace, which holds the choice:
    no import back)."""

    database: Database | None
    database_changed: Any
    database_modified: Any
    committed: Any


def human_scores_of(db: Database | None) -> list[str]:
    """The human scores a run can be analysed against: the score classes, then the
    protocols the judges' work defines (SSER classes with scores, IER with marks, HTER
    with post-edits, aWER with added references)."""
    if db is None:
        return []
    from evaltrans_qt.engine.human.protocol_scores import protocol_names
    names = list(db.human_classes)
    return names + [p for p in protocol_names(db, only_with_data=True) if p not in names]


class AnalysisChoice:
    """Human class, level and normalisation of the analysis (module doc)."""

    changed = Signal()
    classes_changed = Signal(object)

    def __init__(self, human: str | None = None, level: str = "sentence",
                 normalize: bool = False) -> None:
        self.classes: list[str] = []
        self.human: str | None = human
        self.level = self._level(level) if level != "sentence" else level
        self.normalize = bool(normalize)

    @staticmethod
    def _level(level: str) -> str:
        from evaltrans_qt.engine.metaeval.correlation import LEVELS  # scipy: on first use
        if level not in LEVELS:
            raise OptionError(f"analysis level '{level}' is not one of {', '.join(LEVELS)}")
        return level

    # ------------------------------------------------------------ choosing
    def set(self, *, human: str | None | object = ..., level: str | None = None,
            normalize: bool | None = None) -> bool:
        """Change any of the three (checked: an unknown class or level is an
        :class:`~evaltrans_qt.errors.OptionError` naming it); ``changed`` is emitted once
        if anything changed. Returns whether it did."""
        new_human = self.human if human is ... else human
        if new_human is not None and not isinstance(new_human, str):
            raise OptionError(f"human score must be a class name or None, got {new_human!r}")
        if new_human is not None and self.classes and new_human not in self.classes:
            raise OptionError(f"human score '{new_human}' is not in the database (known: "
                              f"{', '.join(self.classes)})")
        new_level = self.level if level is None else self._level(level)
        new_norm = self.normalize if normalize is None else bool(normalize)
        if (new_human, new_level, new_norm) == (self.human, self.level, self.normalize):
            return False
        self.human, self.level, self.normalize = new_human, new_level, new_norm
        self.changed.emit()
        return True

    def set_human(self, human: str | None) -> bool:
        return self.set(human=human or None)

    def set_level(self, level: str) -> bool:
        return self.set(level=level)

    def set_normalize(self, on: bool) -> bool:
        return self.set(normalize=on)

    # ------------------------------------------------------------ following the database
    def follow(self, db: Database | None) -> None:
        """Take the human scores of ``db``; a chosen class that is not among them falls
        back to the first (None without any). Emits ``classes_changed`` and ``changed``
        only for what changed."""
        classes = human_scores_of(db)
        self.set_classes(classes)

    def set_classes(self, classes: Sequence[str]) -> None:
        """The human scores available (see :meth:`follow`)."""
        classes = list(classes)
        if classes != self.classes:
            self.classes = classes
            self.classes_changed.emit(list(classes))
        if self.human not in classes:
            human = classes[0] if classes else None
            if human != self.human:
                self.human = human
                self.changed.emit()

    def attach(self, workspace: _Followed,
               modifies: Callable[[Any], bool]) -> AnalysisChoice:
        """Follow ``workspace``'s database: another database, ``database_modified`` and
        the commits for which ``modifies(change)`` is true (the workspace's
        ``modifies_database``: rankings, items, references; a score adds no class).
        Connected with a high priority, so the choice is valid before any view observing
        the workspace reads it."""
        ref = weakref.ref(workspace)

        def database() -> Database | None:
            ws = ref()
            return ws.database if ws is not None else None

        def changed(*_args) -> None:
            self.follow(database())

        def committed(change) -> None:
            if modifies(change):
                self.follow(database())

        # the closures hold only a weak reference to the workspace; the workspace holds
        # the choice and the signals hold the closures
        workspace.database_changed.connect(changed, priority=10)
        workspace.database_modified.connect(changed, priority=10)
        workspace.committed.connect(committed, priority=10)
        return self

    def __repr__(self) -> str:
        return (f"AnalysisChoice(human={self.human!r}, level={self.level!r}, "
                f"normalize={self.normalize!r})")


__all__ = ["AnalysisChoice", "human_scores_of"]
