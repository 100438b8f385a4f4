"""Run Qt-free functions and generators off the UI thread (napari/Orange3 style).

``start_worker(fn, *args, **kwargs)`` runs ``fn`` on the global
``QThreadPool`` and reports back through Qt signals, which arrive in the UI
thread:

* ``started()``; ``progress(fraction: float, message: str)``;
  ``yielded(object)`` for partial results; ``finished(object)`` with the
  return value; ``errored(object)`` with the exception; ``cancelled()``;
  and always last ``done()``.

If ``fn`` is a generator function, its yields are examined: a number in
[0, 1], a ``(fraction, message)`` tuple, or an object with ``fraction`` (and
optional ``message``) or ``done``/``total`` attributes is *progress*;
anything else is a partial result (``yielded``). The generator's ``return``
value is the result. Cancelling sets a ``threading.Event``: it is passed to
``fn`` as ``cancel=`` when ``fn`` accepts that keyword, and a generator is
closed at its next yield. ``evaltrans_qt.errors.Cancelled`` raised by ``fn``
counts as cancelled, not as an error. A function that reports through a callback
instead of yielding (e.g. :meth:`evaltrans_qt.run_controller.RunJob.compute`) and
accepts ``report=`` is given one: each object it reports arrives, as is, in
``reported(object)``.

:class:`LatestRunner` keeps one job per purpose: submitting cancels the
previous job and results of stale generations are ignored (used for
alignments in the compare view).

Errors not handled by the caller go to :func:`evaltrans_qt.ui.errors.show_error`
(one place).
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from numbers import Real
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from evaltrans_qt.errors import Cancelled

#: Workers that were started and have not reported ``done`` (kept alive here).
_RUNNING: set[Worker] = set()


class WorkerSignals(QObject):
    started = Signal()
    progress = Signal(float, str)
    yielded = Signal(object)
    finished = Signal(object)
    errored = Signal(object)
    cancelled = Signal()
    reported = Signal(object)
    done = Signal()


def _as_progress(item: Any) -> tuple[float, str] | None:
    if isinstance(item, bool):
        return None
    if isinstance(item, Real):
        return float(item), ""
    if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Real)
            and isinstance(item[1], str)):
        return float(item[0]), item[1]
    frac = getattr(item, "fraction", None)
    if isinstance(frac, Real):
        return float(frac), str(getattr(item, "message", "") or "")
    done, total = getattr(item, "done", None), getattr(item, "total", None)
    if isinstance(done, Real) and isinstance(total, Real) and not isinstance(done, bool):
        return (float(done) / total if total else 0.0), str(getattr(item, "message", "") or "")
    return None


def _accepts_cancel(fn: Callable) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return "cancel" in sig.parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())


def _accepts_report(fn: Callable) -> bool:
    """``fn`` names a ``report`` parameter (a ``**kwargs`` is not enough: a callback nobody
    asked for would be passed on)."""
    try:
        return "report" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


class Worker(QRunnable):
    """One call of ``fn(*args, **kwargs)`` on a pool thread (see module doc)."""

    def __init__(self, fn: Callable, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.signals = WorkerSignals()
        self.cancel_event = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self.signals.done.connect(lambda: _RUNNING.discard(self))
        if _accepts_cancel(fn) and "cancel" not in kwargs:
            self.kwargs["cancel"] = self.cancel_event
        if _accepts_report(fn) and "report" not in kwargs:
            self.kwargs["report"] = lambda item: self._emit("reported", item)

    # convenience aliases, so callers can write worker.finished.connect(...)
    def __getattr__(self, name: str) -> Any:
        signals = self.__dict__.get("signals")
        if signals is not None and name in ("started", "progress", "yielded", "finished",
                                            "errored", "cancelled", "reported", "done"):
            return getattr(signals, name)
        raise AttributeError(name)

    def cancel(self) -> None:
        """Ask the job to stop (at its next yield, or when ``fn`` checks ``cancel``)."""
        self.cancel_event.set()

    @property
    def is_cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def _emit(self, name: str, *args: Any) -> None:
        try:
            getattr(self.signals, name).emit(*args)
        except RuntimeError:  # the receiver side is gone (application shutting down)
            pass

    def run(self) -> None:
        emit = self._emit
        try:
            emit("started")
            out = self.fn(*self.args, **self.kwargs)
            if inspect.isgenerator(out):
                out = self._drive(out)
            if self.cancel_event.is_set():
                emit("cancelled")
            else:
                self.result = out
                emit("finished", out)
        except Cancelled:
            emit("cancelled")
        except BaseException as exc:
            self.error = exc
            emit("errored", exc)
        finally:
            emit("done")

    def _drive(self, gen) -> Any:
        try:
            while True:
                if self.cancel_event.is_set():
                    gen.close()
                    return None
                item = next(gen)
                prog = _as_progress(item)
                if prog is not None:
                    self._emit("progress", *prog)
                else:
                    self._emit("yielded", item)
        except StopIteration as stop:
            return stop.value


def start_worker(fn: Callable, *args: Any, _start: bool = True, **kwargs: Any) -> Worker:
    """Create a :class:`Worker` and start it on the global pool (unless ``_start=False``).

    If nobody connects to ``errored`` before the error arrives, the error is
    shown by :func:`evaltrans_qt.ui.errors.show_error`.
    """
    w = Worker(fn, *args, **kwargs)
    w.signals.errored.connect(lambda exc, w=w: _default_error(w, exc))
    if _start:
        launch(w)
    return w


def launch(worker: Worker, pool: QThreadPool | None = None) -> Worker:
    """Start ``worker`` on ``pool`` (default: the global pool)."""
    _RUNNING.add(worker)
    (pool or QThreadPool.globalInstance()).start(worker)
    return worker


def _default_error(worker: Worker, exc: BaseException) -> None:
    if getattr(worker, "_error_handled", False):
        return
    from evaltrans_qt.ui import errors
    errors.show_error(exc)


def handle_errors(worker: Worker, handler: Callable[[BaseException], None]) -> Worker:
    """Route ``worker``'s errors to ``handler`` instead of the default dialog."""
    worker._error_handled = True  # type: ignore[attr-defined]
    worker.signals.errored.connect(handler)
    return worker


#: Pools of :class:`LatestRunner` instances (interactive jobs never queue behind long runs).
_POOLS: list[QThreadPool] = []


def wait_for_all(msecs: int = 30000) -> bool:
    """Block until the global pool and the runners' pools are idle (tests, shutdown)."""
    ok = QThreadPool.globalInstance().waitForDone(msecs)
    for p in list(_POOLS):
        try:
            ok = p.waitForDone(msecs) and ok
        except RuntimeError:
            _POOLS.remove(p)
    return ok


class LatestRunner(QObject):
    """Runs one job at a time for one purpose; a new submit cancels and supersedes the old.

    ``submit(fn, *args, on_result=cb, **kwargs)`` calls ``cb(result)`` only if
    no newer job was submitted meanwhile (stale generations are ignored).
    ``idle`` is emitted when the newest job has reported.
    """

    idle = Signal()
    busy = Signal()

    def __init__(self, parent: QObject | None = None, own_pool: bool = True) -> None:
        super().__init__(parent)
        self.generation = 0
        self._current: Worker | None = None
        #: A private one-thread pool, so interactive jobs never wait for long engine runs.
        self.pool: QThreadPool | None = None
        if own_pool:
            self.pool = QThreadPool(self)
            self.pool.setMaxThreadCount(1)
            _POOLS.append(self.pool)

    @property
    def pending(self) -> bool:
        return self._current is not None

    def submit(self, fn: Callable, *args: Any, on_result: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None, **kwargs: Any) -> Worker:
        if self._current is not None:
            self._current.cancel()
        self.generation += 1
        gen = self.generation
        w = start_worker(fn, *args, _start=False, **kwargs)
        if on_error is not None:
            handle_errors(w, lambda exc: self._is_current(gen) and on_error(exc))
        if on_result is not None:
            w.signals.finished.connect(lambda res: self._is_current(gen) and on_result(res))
        w.signals.done.connect(lambda: self._finish(gen))
        self._current = w
        self.busy.emit()
        launch(w, self.pool)
        return w

    def _is_current(self, gen: int) -> bool:
        # a job that ends after its owner (and so this runner, its child) was deleted --
        # a window closed while it computed -- has nothing left to show its result in
        return gen == self.generation and shiboken6.isValid(self)

    def _finish(self, gen: int) -> None:
        if self._is_current(gen):
            self._current = None
            self.idle.emit()

    def cancel(self) -> None:
        if self._current is not None:
            self._current.cancel()
        self.generation += 1
        self._current = None
