"""The application's runs of the measures (Qt-free): plan, compute, keep the result.

One :class:`RunController` belongs to a workspace. A run has three steps, so that the
window can compute on a worker thread:

1. :meth:`RunController.start` (UI thread) takes the workspace's options, measures and
   database and picks the executor -- the workspace's "Compute on" choice
   (:meth:`~evaltrans_qt.workspace.Workspace.run_executor`, i.e.
   :func:`~evaltrans_qt.engine.run.executors.choice.make_executor`); on this machine the
   driver's own rule (:func:`~evaltrans_qt.engine.run.executors.local.choose_executor`)
   decides between serial and a process pool, and the pool is the controller's, kept
   across runs and started at a lower priority so that the window stays responsive;
2. :meth:`RunJob.compute` (any thread) calls the evaluation driver as ``evaltrans batch``
   does (:func:`evaltrans_qt.engine.run.driver.evaluate`) and reports each
   :class:`RunUpdate` -- progress, the one time estimate
   (:class:`~evaltrans_qt.engine.run.schedule.TimeLeft`) and the driver's warnings -- and
   each finished system; :meth:`RunJob.cancel` stops it (the driver raises
   :class:`~evaltrans_qt.errors.Cancelled`);
3. :meth:`RunController.finish` (UI thread) makes the driver's own
   :class:`~evaltrans_qt.engine.run.results.RunResult` (with its warnings and seconds in
   ``meta``) the workspace's run and records it in the session file.

:meth:`RunController.run` does the three in a row (scripts, tests).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import Progress, evaluate
from evaltrans_qt.engine.run.executors.base import CancelFlag, Executor
from evaltrans_qt.engine.run.results import RunResult, SystemResult
from evaltrans_qt.engine.run.schedule import TimeLeft, format_seconds
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.workspace import KEEP, Workspace

#: Priority (``nice``) of the application's own process pool: the window stays responsive.
POOL_NICE = 10
#: Rows per chunk sent to the process pool: chunks travel pickled, and pickling holds the
#: GIL in one C call, so small chunks keep each hold short enough for a fluid window
#: (1002 rows: ~90 ms).
POOL_CHUNK_ROWS = 128


class RunError(EvalTransError):
    """A run that cannot start (no database, a run already going)."""


@dataclass(frozen=True)
class RunUpdate:
    """A progress event of a running run, as the window shows it."""

    done: int
    total: int
    message: str
    #: Seconds since the run started.
    elapsed: float
    #: :class:`TimeLeft`'s estimate (None while there is nothing to go by).
    seconds_left: float | None
    #: Warnings of this event (the driver's: skipped candidates, approximated sentences).
    warnings: tuple[str, ...] = ()

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total > 0 else 0.0

    def eta_text(self) -> str:
        """``12 s, ~3 min left``; only the time spent while there is no estimate."""
        spent = f"{self.elapsed:.0f} s"
        if self.seconds_left is None or self.done >= self.total > 0:
            return spent if self.elapsed >= 2 else ""
        return f"{spent}, ~{format_seconds(self.seconds_left)} left"


@dataclass
class RunJob:
    """One planned run (:meth:`RunController.start`)."""

    database: Database
    options: EvalOptions
    measures: list[str]
    executor: Executor | None
    chunk_size: int | None = None
    #: Chosen measures the options leave out, with the option each needs.
    skipped: dict[str, str] = field(default_factory=dict)
    workers: int = 1
    clock: Callable[[], float] = time.monotonic
    cancel_event: threading.Event = field(default_factory=threading.Event)
    #: Every warning reported so far (the driver's ``RunResult.meta["warnings"]`` in the end).
    warnings: list[str] = field(default_factory=list)
    #: Systems finished so far (before the run's result exists).
    finished: dict[str, SystemResult] = field(default_factory=dict)
    last: RunUpdate | None = None

    def cancel(self) -> None:
        """Ask the run to stop at the driver's next check."""
        self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def compute(self, cancel: CancelFlag | None = None,
                report: Callable[[Any], None] | None = None) -> RunResult:
        """The driver's run (any thread): ``report`` gets each :class:`RunUpdate` and each
        finished :class:`SystemResult`; ``cancel`` (or :meth:`cancel`) stops it with
        :class:`~evaltrans_qt.errors.Cancelled`."""
        flag = _Either(self.cancel_event, cancel)
        left = TimeLeft(self.workers)
        t0 = self.clock()

        def progress(p: Progress) -> None:
            elapsed = self.clock() - t0
            self.warnings.extend(p.warnings)
            self.last = RunUpdate(p.done, p.total, p.message, elapsed, left.see(elapsed, p),
                                  tuple(p.warnings))
            if report is not None:
                report(self.last)

        def system(sr: SystemResult) -> None:
            self.finished[sr.system] = sr
            if report is not None:
                report(sr)

        return evaluate(self.database, self.options, self.measures, executor=self.executor,
                        cancel=flag, progress=progress, chunk_size=self.chunk_size,
                        on_system=system)


class _Either:
    """Set when either flag is (the job's own and the worker's)."""

    def __init__(self, a: CancelFlag, b: CancelFlag | None) -> None:
        self.a, self.b = a, b

    def is_set(self) -> bool:
        return self.a.is_set() or (self.b is not None and self.b.is_set())


class RunController:
    """Starts the workspace's runs and keeps their results (module doc)."""

    def __init__(self, workspace: Workspace, *, nice: int = POOL_NICE) -> None:
        self.workspace = workspace
        self.nice = nice
        self.job: RunJob | None = None
        #: The process pool of runs on this machine (kept across runs; :meth:`close`).
        self.pool: Executor | None = None

    @property
    def running(self) -> bool:
        return self.job is not None

    def choose_executor(self, db: Database, measures: list[str]) -> Executor:
        """The executor of a run: the workspace's choice, else serial or this
        controller's niced process pool, as the driver's rule decides."""
        chosen = self.workspace.run_executor()
        if chosen is not None:
            return chosen
        from evaltrans_qt.engine.run.executors.choice import make_executor
        from evaltrans_qt.engine.run.executors.local import SerialExecutor, choose_executor
        from evaltrans_qt.engine.run.schedule import has_expensive_pairs
        rows = sum(len(db.candidates(s)) for s in db.sources)
        rule = choose_executor(rows, len(measures), has_expensive_pairs(measures))
        if isinstance(rule, SerialExecutor):
            return rule
        rule.close()                           # not started: its pool is made when used
        if self.pool is None:
            self.pool = make_executor("local", nice=self.nice)
        assert self.pool is not None
        return self.pool

    def start(self, options: EvalOptions | None = None, measures: list[str] | None = None,
              executor: Executor | None = None) -> RunJob:
        """Plan a run of the workspace's measures (``options``/``measures``, if given,
        become the workspace's first). :class:`RunError` without a database or while a
        run is going."""
        ws = self.workspace
        db = ws.database
        if db is None:
            raise RunError("there is nothing to evaluate: open a database first")
        if self.job is not None:
            raise RunError("a run is already going: cancel it or wait for it to finish")
        if options is not None or measures is not None:
            ws.set_options(options if options is not None else ws.options,
                           measures if measures is not None else KEEP)
        names = ws.run_measures()
        if executor is None:
            executor = self.choose_executor(db, names)
        from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor
        chunk = POOL_CHUNK_ROWS if isinstance(executor, LocalProcessExecutor) else None
        self.job = RunJob(db, ws.options, names, executor, chunk, ws.skipped(),
                          workers=int(getattr(executor, "max_workers", 1) or 1))
        return self.job

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def finish(self, job: RunJob, result: RunResult | None) -> RunResult | None:
        """The run ended (UI thread): its result becomes the workspace's run -- unless it
        was cancelled, failed (``result`` None) or another database was opened meanwhile
        (then it is dropped and None returned)."""
        if job is self.job:
            self.job = None
        ws = self.workspace
        if result is None or job.cancelled or ws.database is not job.database:
            return None
        if result.database_path is None and ws.path is not None:
            result = replace(result, database_path=str(ws.path))
        ws.set_run(result)
        ws.record_run(result, float(result.meta.get("seconds", 0.0)))
        return result

    def run(self, options: EvalOptions | None = None, measures: list[str] | None = None,
            executor: Executor | None = None,
            report: Callable[[Any], None] | None = None) -> RunResult:
        """:meth:`start`, :meth:`RunJob.compute` and :meth:`finish` in this thread."""
        job = self.start(options, measures, executor)
        result: RunResult | None = None
        try:
            result = job.compute(report=report)
        finally:
            done = self.finish(job, result)
        assert done is not None
        return done

    def close(self) -> None:
        """Stop this controller's process pool (a remote executor is the workspace's)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()


__all__ = ["RunController", "RunJob", "RunUpdate", "RunError", "POOL_NICE", "POOL_CHUNK_ROWS"]
