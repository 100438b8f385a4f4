"""An executor from a user's choice (``--executor``, the application's "Compute on")."""

from __future__ import annotations

from evaltrans_qt.engine.run.executors.base import Executor
from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
from evaltrans_qt.errors import OptionError

#: Where a run computes (``evaltrans batch --executor``, the application's "compute on"):
#: ``auto`` = :func:`choose_executor`; ``dask`` = a Dask scheduler at an address;
#: ``dask-local`` = a Dask ``LocalCluster`` (both need the ``[cluster]`` extra).
EXECUTOR_KINDS = ("auto", "local", "serial", "dask", "dask-local")


def make_executor(kind: str = "auto", *, workers: int | None = None,
                  scheduler: str | None = None, nice: int = 0) -> Executor | None:
    """The executor of a choice in :data:`EXECUTOR_KINDS` (None for ``auto``: the driver
    chooses). The executor never changes a number, only where it is computed."""
    if kind not in EXECUTOR_KINDS:
        raise OptionError(f"--executor: unknown executor '{kind}' "
                          f"(known: {', '.join(EXECUTOR_KINDS)})")
    if workers is not None and workers < 1:
        raise OptionError(f"--workers must be at least 1 (got {workers})")
    if scheduler and kind != "dask":
        raise OptionError(f"--scheduler {scheduler} needs --executor dask (got '{kind}')")
    if workers is not None and kind == "dask":
        raise OptionError("--workers is for a local executor; a Dask scheduler has the "
                          "workers started with 'dask worker'")
    if kind == "auto" and workers is not None:
        kind = "serial" if workers == 1 else "local"
    if kind == "serial":
        return SerialExecutor()
    if kind == "local":
        return LocalProcessExecutor(workers, nice=nice)
    if kind in ("dask", "dask-local"):
        from evaltrans_qt.engine.run.executors.dask import DaskExecutor
        if kind == "dask":
            if not scheduler:
                raise OptionError("--executor dask needs --scheduler tcp://HOST:PORT (the "
                                  "address 'dask scheduler' prints)")
            return DaskExecutor(scheduler)
        return DaskExecutor(workers=workers)
    return None
