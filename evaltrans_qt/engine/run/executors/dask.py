"""A Dask executor: the units of work of a run (:mod:`evaltrans_qt.engine.run.work`) on a
Dask cluster -- a scheduler somewhere (``tcp://host:8786``) or a ``LocalCluster``.

Needs the ``[cluster]`` extra (``dask[distributed]``), imported only when a
:class:`DaskExecutor` is made, so nothing else depends on Dask. The workers must
be able to import ``evaltrans_qt`` (the same version; README "Running on a cluster").

Per :meth:`DaskExecutor.run` the fitted measures (with their fitted state and, in
the row phase, the pair phase's values) are scattered to every worker once
(``client.scatter(..., broadcast=True)``); each task is one existing
:class:`~evaltrans_qt.engine.run.work.Chunk` or
:class:`~evaltrans_qt.engine.run.work.PairBatch` and carries only its own segments, so
the tokenised corpus travels once. Tasks are submitted in the order the driver
gives (most expensive first) with decreasing Dask priorities and stream back as
they finish (``distributed.as_completed``). A worker lost mid-run costs only the
tasks it held: the scheduler reruns them elsewhere (``allowed-failures``), and
``retries`` reruns a task whose worker raised. Every task runs the same pure
:func:`~evaltrans_qt.engine.run.work.compute`, so the numbers are bit-identical to
those of the local pool. Cancel cancels the futures; a worker busy only with this
run's tasks is restarted (through its nanny), so a minute-long INVWER pair does
not keep running for nobody.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from evaltrans_qt.engine.measures.base import Measure
from evaltrans_qt.engine.run.executors.base import CancelFlag, Executor
from evaltrans_qt.engine.run.work import Chunk, ChunkResult, PairBatch, compute
from evaltrans_qt.errors import Cancelled, OptionError

#: How the extra is installed (named in the error when Dask is missing).
INSTALL_HINT = "pip install 'evaltrans_qt[cluster]'  (dask[distributed])"


def _distributed() -> Any:
    """The ``distributed`` package, or an :class:`OptionError` saying how to install it."""
    try:
        import distributed
    except ImportError as exc:
        raise OptionError(f"the Dask executor needs dask[distributed]: {INSTALL_HINT} "
                          f"({exc})") from None
    return distributed


class DaskExecutor(Executor):
    """Runs a run's chunks and pair batches on a Dask cluster (module doc).

    ``address``: a running scheduler (``tcp://host:8786``); otherwise a ``LocalCluster``
    of ``workers`` single-threaded worker processes (``processes=False``: threads in
    this process) is started on first use. ``client``: use an existing
    ``distributed.Client`` (not closed by :meth:`close`). ``retries``: reruns of a task
    that raised on its worker (lost workers are handled by the scheduler anyway).
    ``restart_on_cancel``: restart workers busy only with this run's tasks on cancel.
    """

    def __init__(self, address: str | None = None, *, workers: int | None = None,
                 processes: bool = True, client: Any = None, retries: int = 3,
                 poll_seconds: float = 0.05, restart_on_cancel: bool = True,
                 connect_timeout: float = 10.0) -> None:
        if address is not None and not str(address).strip():
            raise OptionError("--scheduler: empty address (expected e.g. tcp://host:8786)")
        if workers is not None and workers < 1:
            raise OptionError(f"--workers must be at least 1 (got {workers})")
        _distributed()
        self.address = address
        self.workers = workers
        self.processes = processes
        self.retries = retries
        self.poll_seconds = poll_seconds
        self.restart_on_cancel = restart_on_cancel
        self.connect_timeout = connect_timeout
        self._client = client
        self._own_client = client is None
        self._cluster: Any = None

    # ---- connection -----------------------------------------------------
    @property
    def client(self) -> Any:
        """The ``distributed.Client`` (connects or starts the LocalCluster on first use)."""
        if self._client is None:
            dist = _distributed()
            if self.address is not None:
                try:
                    self._client = dist.Client(self.address, timeout=self.connect_timeout,
                                               set_as_default=False)
                except (OSError, TimeoutError) as exc:
                    raise OptionError(f"--scheduler {self.address}: cannot reach the Dask "
                                      f"scheduler ({exc})") from None
            else:
                self._cluster = dist.LocalCluster(
                    n_workers=self.workers or 2, threads_per_worker=1,
                    processes=self.processes, dashboard_address=":0")
                self._client = dist.Client(self._cluster, set_as_default=False)
        return self._client

    @property
    def max_workers(self) -> int:
        """Worker threads of the cluster now (what the driver sizes chunks and batches for)."""
        return max(1, sum(self.client.nthreads().values()))

    # ---- work ---------------------------------------------------------------
    def run(self, measures: Mapping[str, Measure], chunks: Sequence[Chunk | PairBatch],
            cancel: CancelFlag | None = None) -> Iterator[tuple[int, ChunkResult | list]]:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if not chunks:
            return
        client = self.client
        dist = _distributed()
        token = uuid.uuid4().hex[:12]
        # a list of one: scatter() would send a dict's values as separate keys
        [shared] = client.scatter([dict(measures)], broadcast=True, hash=False)
        n = len(chunks)
        index: dict[Any, int] = {}
        for i, work in enumerate(chunks):
            kind = "pairs" if isinstance(work, PairBatch) else "rows"
            fut = client.submit(compute, shared, work, key=f"evaltrans-{kind}-{token}-{i}",
                                priority=n - i, retries=self.retries, pure=False)
            index[fut] = i
        yield from self._collect(dist, client, index, cancel, shared)

    def _collect(self, dist, client, index: dict, cancel, shared) -> Iterator[tuple[int, Any]]:
        """Yield (index, result) as futures finish; on exit cancel what is left."""
        pending = dict(index)
        ac = dist.as_completed(list(pending), loop=client.loop)
        complete = False
        try:
            while pending:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                batch = ac.next_batch(block=False) if ac.has_ready() else []
                if not batch:
                    time.sleep(self.poll_seconds)
                    continue
                for fut in sorted(batch, key=lambda f: pending[f]):
                    i = pending.pop(fut)
                    result = fut.result()
                    fut.release()
                    yield i, result
            complete = True
        finally:
            left = list(pending)
            if left:
                busy = self._busy_workers(client, {f.key for f in left}) \
                    if not complete and self.restart_on_cancel else []
                with contextlib.suppress(Exception):
                    client.cancel(left, force=True)
                if busy:
                    # a running task cannot be interrupted: restart its worker (nanny)
                    with contextlib.suppress(Exception):
                        client.restart_workers(busy, timeout=30, raise_for_error=False)
            with contextlib.suppress(Exception):
                shared.release()

    @staticmethod
    def _busy_workers(client, keys: set) -> list[str]:
        """Workers computing only keys of ``keys`` (this run's), which a cancel restarts so
        that a long task does not run on for nobody; workers with other work are left
        alone."""
        try:
            return [w for w, held in client.processing().items()
                    if held and all(k in keys for k in held)]
        except Exception:
            return []

    def map(self, fn: Callable, items: Sequence, cancel: CancelFlag | None = None) -> Iterator:
        """One task per item, submitted in the given order with decreasing priorities (the
        order the local pool starts them in; ``Client.map`` takes one priority for all),
        results yielded in order; cancel cancels what is left."""
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if len(items) <= 1:
            yield from super().map(fn, items, cancel)
            return
        client = self.client
        token = uuid.uuid4().hex[:12]
        name = getattr(fn, "__name__", "map")
        n = len(items)
        futures = [client.submit(fn, item, key=f"evaltrans-{name}-{token}-{i}",
                                 priority=n - i, retries=self.retries, pure=False)
                   for i, item in enumerate(items)]
        try:
            for fut in futures:
                while not fut.done():
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                    time.sleep(self.poll_seconds)
                yield fut.result()
                fut.release()
        finally:
            with contextlib.suppress(Exception):
                client.cancel([f for f in futures if not f.done()], force=True)

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._own_client:
            with contextlib.suppress(Exception):
                client.close()
        cluster, self._cluster = self._cluster, None
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()
