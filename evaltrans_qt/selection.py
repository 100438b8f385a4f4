"""What the user is looking at: the current source, candidate and compare measure (Qt-free).

One :class:`Selection` lives in the workspace (``workspace.selection``). The browser (the
sources and translations tables), the compare view, the scoring session and the protocol
modes all read it there and change it through its methods; none keeps its own copy of the
current source or candidate, so whichever view moves the selection, every other one
follows by observing its signals:

* ``changed(source, target)`` -- the current source index and the index of the candidate
  among that source's targets (either may be None: nothing chosen);
* ``measure_changed(name)`` -- the measure whose alignment the compare view draws.

Opening another database clears the source and candidate (the workspace calls
:meth:`Selection.clear`); the measure is a preference of the view and stays.
"""

from __future__ import annotations

from psygnal import Signal

from evaltrans_qt.errors import EvalTransError


class SelectionError(EvalTransError):
    """An impossible selection (a negative index, a candidate without its source)."""


def _index(value: int | None, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SelectionError(f"{what} index must be an integer or None, got {value!r}")
    if value < 0:
        raise SelectionError(f"{what} index must not be negative, got {value}")
    return value


class Selection:
    """Current source, candidate (target) and compare measure (module doc)."""

    changed = Signal(object, object)
    measure_changed = Signal(str)

    def __init__(self) -> None:
        self.source: int | None = None
        self.target: int | None = None
        self.measure: str | None = None

    @property
    def pair(self) -> tuple[int, int] | None:
        """``(source, target)`` when both are chosen, else None."""
        if self.source is None or self.target is None:
            return None
        return self.source, self.target

    def select(self, source: int | None, target: int | None = None) -> bool:
        """Make ``source`` (and its candidate ``target``) current; ``changed`` is emitted
        only when that differs from the current selection. Returns whether it changed."""
        source = _index(source, "source")
        target = _index(target, "target")
        if source is None and target is not None:
            raise SelectionError(f"a candidate ({target}) cannot be selected without its source")
        if (source, target) == (self.source, self.target):
            return False
        self.source, self.target = source, target
        self.changed.emit(source, target)
        return True

    def clear(self) -> bool:
        """Nothing selected (another database); the measure stays."""
        return self.select(None, None)

    def set_measure(self, name: str) -> bool:
        """The compare view draws ``name`` (a measure's registry name); returns whether it changed."""
        if not isinstance(name, str) or not name:
            raise SelectionError(f"a measure name is a non-empty string, got {name!r}")
        if name == self.measure:
            return False
        self.measure = name
        self.measure_changed.emit(name)
        return True


__all__ = ["Selection", "SelectionError"]
