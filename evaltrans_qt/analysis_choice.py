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

A :class:`ComparisonChoice` (``workspace.comparison``) is the other analysis the results
view offers: system against system in the manner of compare-mt (``evaltrans analyze``) --
which systems, measure, reference and sizes; the Analysis tab writes and reads it.
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


def _follow_database(workspace: _Followed, modifies: Callable[[Any], bool],
                     follow: Callable[[Database | None, bool], None]) -> None:
    """Call ``follow(database, another_database)`` when ``workspace`` opens another
    database (True), modifies it, or commits a change for which ``modifies(change)`` is
    true (False); connected with a high priority, so a choice is valid before any view
    observing the workspace reads it."""
    ref = weakref.ref(workspace)

    def database() -> Database | None:
        ws = ref()
        return ws.database if ws is not None else None

    def opened(*_args) -> None:
        follow(database(), True)

    def changed(*_args) -> None:
        follow(database(), False)

    def committed(change) -> None:
        if modifies(change):
            follow(database(), False)

    # the closures hold only a weak reference to the workspace; the workspace holds
    # the choice and the signals hold the closures
    workspace.database_changed.connect(opened, priority=10)
    workspace.database_modified.connect(changed, priority=10)
    workspace.committed.connect(committed, priority=10)


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
        _follow_database(workspace, modifies, lambda db, _new: self.follow(db))
        return self

    def __repr__(self) -> str:
        return (f"AnalysisChoice(human={self.human!r}, level={self.level!r}, "
                f"normalize={self.normalize!r})")


class ComparisonChoice:
    """What the results view's Analysis tab compares (Qt-free; ``workspace.comparison``):
    the ``systems`` (two or more, every pair compared), the ``measure`` of the aggregate
    scores, length buckets and examples (``comparemt-bleu`` or a registry measure), the
    ``reference`` id (None: the first reference of each source), the ``top`` n-grams and
    ``examples`` per direction, the bootstrap ``samples`` (compare-mt's defaults: 50, 10,
    1000), an optional training corpus ``train`` for the frequency buckets and optional
    ``labels`` files (the reference's, then one per system) -- the arguments of
    ``evaltrans analyze`` and :func:`evaltrans_qt.api.analyze`.

    It follows the open database (:meth:`attach`): ``available`` systems and
    ``references`` are the database's; chosen systems it no longer has are dropped and
    the choice is filled up to two with the first others. Signals: ``changed()`` -- any
    choice; ``systems_changed(available)`` -- the database's systems or references."""

    changed = Signal()
    systems_changed = Signal(object)

    #: compare-mt 0.2.10's defaults (``compare_mt_main.main``) and sacreBLEU's samples.
    DEFAULTS: dict[str, Any] = {"measure": "comparemt-bleu", "top": 50, "examples": 10,
                                "samples": 1000}

    def __init__(self) -> None:
        self.available: list[str] = []
        self.references: list[str] = []
        self.systems: tuple[str, ...] = ()
        self.measure: str = self.DEFAULTS["measure"]
        self.reference: str | None = None
        self.top: int = self.DEFAULTS["top"]
        self.examples: int = self.DEFAULTS["examples"]
        self.samples: int = self.DEFAULTS["samples"]
        self.train: str | None = None
        self.labels: tuple[str, ...] | None = None

    def values(self) -> dict[str, Any]:
        """The choice as keyword arguments of :func:`evaltrans_qt.api.analyze` (with
        ``systems``)."""
        return {"systems": list(self.systems), "measure": self.measure,
                "reference": self.reference, "top": self.top, "examples": self.examples,
                "samples": self.samples, "train": self.train,
                "labels": list(self.labels) if self.labels is not None else None}

    def set(self, **changes: Any) -> bool:
        """Change any of :meth:`values`' keys (checked: two distinct known systems, a known
        reference, counts of at least 1; an :class:`~evaltrans_qt.errors.OptionError`
        names the problem). Emits ``changed`` once if anything changed; returns whether
        it did."""
        new = self.values()
        unknown = set(changes) - set(new)
        if unknown:
            raise OptionError(f"comparison: unknown choice {', '.join(sorted(unknown))}")
        new.update(changes)
        systems = tuple(str(s) for s in new["systems"])
        if len(set(systems)) != len(systems):
            raise OptionError(f"comparison: a system is chosen twice ({', '.join(systems)})")
        if self.available:
            missing = [s for s in systems if s not in self.available]
            if missing:
                raise OptionError(f"comparison: unknown system '{missing[0]}' (known: "
                                  f"{', '.join(self.available)})")
        ref = new["reference"] or None
        if ref is not None and self.references and ref not in self.references:
            raise OptionError(f"comparison: unknown reference '{ref}' (references: "
                              f"{', '.join(self.references)})")
        for key in ("top", "examples", "samples"):
            v = new[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise OptionError(f"comparison: {key} must be a whole number of at least 1, "
                                  f"got {v!r}")
        measure = str(new["measure"]).strip()
        if not measure:
            raise OptionError("comparison: name a measure")
        labels = None if not new["labels"] else tuple(str(p) for p in new["labels"])
        if labels is not None and len(labels) > 1 and "labels" not in changes \
                and systems != self.systems:
            labels = labels[:1]     # the systems' label files belong to the systems before
        state = (systems, measure, ref, new["top"], new["examples"], new["samples"],
                 new["train"] or None, labels)
        old = (self.systems, self.measure, self.reference, self.top, self.examples,
               self.samples, self.train, self.labels)
        if state == old:
            return False
        (self.systems, self.measure, self.reference, self.top, self.examples, self.samples,
         self.train, self.labels) = state
        self.changed.emit()
        return True

    def follow(self, db: Database | None, another: bool = False) -> None:
        """Take ``db``'s systems and reference ids (class doc); ``another``: a newly
        opened database (the training and label files, which belong to the old one, are
        forgotten). Emits only what changed."""
        available = list(db.systems()) if db is not None else []
        references = list(db.reference_ids()) if db is not None else []
        if (available, references) != (self.available, self.references):
            self.available, self.references = available, references
            self.systems_changed.emit(list(available))
        kept = [s for s in self.systems if s in available]
        for s in available:
            if len(kept) >= 2:
                break
            if s not in kept:
                kept.append(s)
        ref = self.reference if self.reference in references else None
        files = (None, None) if another else (self.train, self.labels)
        if (tuple(kept), ref, *files) != (self.systems, self.reference, self.train,
                                          self.labels):
            self.systems, self.reference = tuple(kept), ref
            self.train, self.labels = files
            self.changed.emit()

    def attach(self, workspace: _Followed,
               modifies: Callable[[Any], bool]) -> ComparisonChoice:
        """Follow ``workspace``'s database as :meth:`AnalysisChoice.attach` does."""
        _follow_database(workspace, modifies, self.follow)
        return self

    def __repr__(self) -> str:
        return f"ComparisonChoice(systems={self.systems!r}, measure={self.measure!r})"


__all__ = ["AnalysisChoice", "ComparisonChoice", "human_scores_of"]
