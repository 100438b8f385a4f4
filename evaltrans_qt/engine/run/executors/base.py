"""The executor contract: :class:`Executor` runs a run's units of work
(:mod:`evaltrans_qt.engine.run.work`); :class:`CancelFlag` stops it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol

from evaltrans_qt.engine.measures.base import Measure
from evaltrans_qt.engine.run.work import Chunk, ChunkResult, PairBatch
from evaltrans_qt.errors import Cancelled


class CancelFlag(Protocol):
    """Anything with ``is_set()`` (a :class:`threading.Event`, the UI's cancel token)."""

    def is_set(self) -> bool: ...


class Executor(ABC):
    """Runs units of work (:class:`Chunk`, :class:`PairBatch`) through :func:`compute`.
    Implement :meth:`run` to add a backend (e.g. Dask: scatter the measures once,
    ``client.submit(compute, measures, work)`` per item, at most one per worker in
    flight so that the items start in the given order)."""

    @abstractmethod
    def run(self, measures: Mapping[str, Measure], chunks: Sequence[Chunk | PairBatch],
            cancel: CancelFlag | None = None) -> Iterator[tuple[int, ChunkResult | list]]:
        """Yield ``(index, compute(measures, chunks[index]))`` as items finish, in any order.

        Items start in the given order (the pair phase lists the most expensive first),
        none starts once ``cancel.is_set()``, and :class:`Cancelled` is raised promptly.
        """

    def map(self, fn: Callable, items: Sequence, cancel: CancelFlag | None = None) -> Iterator:
        """``fn(item)`` for each item, results in order (used to tokenise in parallel).

        ``fn`` is a module-level function; items and results are picklable.
        """
        for item in items:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            yield fn(item)

    def close(self) -> None:  # noqa: B027 - optional hook; most executors hold nothing
        """Release resources (pools, connections)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
