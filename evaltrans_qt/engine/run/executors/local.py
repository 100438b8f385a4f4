"""Executors: where the units of work of a run (:mod:`evaltrans_qt.engine.run.work`) are computed.

:class:`SerialExecutor` runs them in-process, :class:`LocalProcessExecutor` on
all cores; :func:`choose_executor` picks one (serial below
:data:`SERIAL_THRESHOLD` rows x measures). The distributed executor
(:class:`~evaltrans_qt.engine.run.executors.dask.DaskExecutor`, optional extra
``[cluster]``) implements :meth:`Executor.run` and :meth:`Executor.map` and nothing
else changes; :func:`~evaltrans_qt.engine.run.executors.choice.make_executor` makes any
of them from a user's choice.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import pickle
import tempfile
import threading
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from evaltrans_qt.engine.measures.base import Measure
from evaltrans_qt.engine.run.executors.base import Executor
from evaltrans_qt.engine.run.work import Chunk, ChunkResult, PairBatch, compute
from evaltrans_qt.errors import Cancelled

#: Below this many (rows x measures) the driver runs in-process (no pool start-up).
SERIAL_THRESHOLD = 4000
#: Modules a forkserver imports once, before it forks workers (the unit of work and
#: the tokeniser batches the executors run).
_PRELOAD = ["evaltrans_qt.engine.run.executors.local", "evaltrans_qt.engine.run.corpus"]


class SerialExecutor(Executor):
    """In-process, one chunk after another (tests, small jobs, debugging)."""

    def run(self, measures, chunks, cancel=None):
        for i, chunk in enumerate(chunks):
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            yield i, compute(measures, chunk)


#: In a worker process: (run token, fitted measures) of the latest run.
_WORKER_CACHE: tuple[str, Mapping[str, Measure]] | None = None


def _worker_compute(token: str, blob_path: str, work: Chunk | PairBatch) -> ChunkResult | list:
    """Worker side: load the run's fitted measures once (from a pickle file), compute an item."""
    global _WORKER_CACHE
    if _WORKER_CACHE is None or _WORKER_CACHE[0] != token:
        with open(blob_path, "rb") as fh:
            _WORKER_CACHE = (token, pickle.load(fh))
    return compute(_WORKER_CACHE[1], work)


def _lower_priority(increment: int) -> None:
    """Worker initializer: run at a lower scheduling priority (``os.nice``)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(increment)


def default_start_method() -> str:
    """``fork`` from a single-threaded process (the command line: workers start at once,
    with everything imported); otherwise ``forkserver`` (the Qt application runs the
    engine in a worker thread, and ``fork`` of a threaded process can deadlock); ``spawn``
    where neither exists."""
    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1 \
            and threading.current_thread() is threading.main_thread():
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


class LocalProcessExecutor(Executor):
    """A local process pool (all cores by default), kept for the executor's lifetime.

    Per run, the fitted measures are pickled once to a temporary file that each
    worker loads once; each chunk carries only its segments. At most one item per
    worker is submitted at a time, so items start in the given order and none
    starts after a cancel (a running item cannot be interrupted).
    """

    def __init__(self, max_workers: int | None = None, poll_seconds: float = 0.05,
                 start_method: str | None = None, nice: int = 0) -> None:
        self.max_workers = max_workers or os.cpu_count() or 1
        self.poll_seconds = poll_seconds
        #: Scheduling-priority increment of the workers (the application uses 10 so
        #: that its event loop wins the CPU over a run that occupies every core).
        self.nice = nice
        #: None = :func:`default_start_method`, decided when the pool starts (in that thread).
        self.start_method = start_method
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            method = self.start_method or default_start_method()
            ctx = mp.get_context(method)
            if method == "forkserver":
                ctx.set_forkserver_preload(_PRELOAD)
            if self.nice:
                self._pool = ProcessPoolExecutor(max_workers=self.max_workers, mp_context=ctx,
                                                 initializer=_lower_priority,
                                                 initargs=(self.nice,))
            else:
                self._pool = ProcessPoolExecutor(max_workers=self.max_workers, mp_context=ctx)
        return self._pool

    def _gather(self, futures: Sequence[Future], cancel):
        """Yield the futures' results in order; cancel the pending ones on exit."""
        finished = False
        try:
            for fut in futures:
                while not wait([fut], timeout=self.poll_seconds).done:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                yield fut.result()
            finished = True
        finally:
            if not finished:
                for fut in futures:
                    fut.cancel()

    def run(self, measures, chunks, cancel=None):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        fd, blob_path = tempfile.mkstemp(prefix="evaltrans-measures-", suffix=".pkl")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(dict(measures), fh, protocol=pickle.HIGHEST_PROTOCOL)
            token = uuid.uuid4().hex
            yield from self._windowed(self._get_pool(), token, blob_path, chunks, cancel)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(blob_path)

    def _windowed(self, pool: ProcessPoolExecutor, token: str, blob_path: str,
                  items: Sequence, cancel):
        """Submit ``items`` in order, one per worker in flight; yield (index, result).

        A run that stops early (cancelled, or an item failed) while items are still
        running stops the workers (:meth:`_abandon_pool`) instead of letting them finish
        work nobody waits for -- an INVWER pair can take a minute.
        """
        running: dict[Future, int] = {}
        nxt = 0
        complete = False
        try:
            while nxt < len(items) or running:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                while nxt < len(items) and len(running) < self.max_workers:
                    running[pool.submit(_worker_compute, token, blob_path, items[nxt])] = nxt
                    nxt += 1
                done, _ = wait(running, timeout=self.poll_seconds, return_when=FIRST_COMPLETED)
                finished = [(running.pop(fut), fut) for fut in done]
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                # refill before handing results out, so no worker waits for the consumer
                while nxt < len(items) and len(running) < self.max_workers:
                    running[pool.submit(_worker_compute, token, blob_path, items[nxt])] = nxt
                    nxt += 1
                for i, fut in sorted(finished):
                    yield i, fut.result()
            complete = True
        finally:
            busy = [fut for fut in running if not fut.cancel()]
            if not complete and any(not fut.done() for fut in busy):
                self._abandon_pool()

    def _abandon_pool(self) -> None:
        """Terminate the workers now and forget the pool; the next run starts a new one."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        for proc in procs:
            with contextlib.suppress(Exception):
                proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            with contextlib.suppress(Exception):
                proc.join(timeout=2.0)

    def map(self, fn, items, cancel=None):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if len(items) <= 1:
            yield from super().map(fn, items, cancel)
            return
        pool = self._get_pool()
        yield from self._gather([pool.submit(fn, item) for item in items], cancel)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def choose_executor(rows: int, n_measures: int, expensive: bool = False) -> Executor:
    """Serial for tiny inputs (pool start-up would dominate), else all cores; always all
    cores for ``expensive`` measures (a non-zero pair cost, e.g. INVWER)."""
    if (os.cpu_count() or 1) < 2 or (rows * max(1, n_measures) <= SERIAL_THRESHOLD
                                     and not expensive):
        return SerialExecutor()
    return LocalProcessExecutor()
