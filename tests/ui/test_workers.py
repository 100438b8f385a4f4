"""The generic worker: results, progress, partial results, cancel, errors, stale generations."""

from __future__ import annotations

import threading
import time

from evaltrans_qt.errors import Cancelled
from evaltrans_qt.ui.workers import LatestRunner, handle_errors, launch, start_worker


def test_function_result_runs_off_ui_thread(qtbot):
    main = threading.get_ident()
    w = start_worker(lambda: threading.get_ident(), _start=False)
    with qtbot.waitSignal(w.signals.finished) as blk:   # connected before the job can finish
        launch(w)
    assert blk.args[0] != main


def test_generator_progress_yields_and_return(qtbot):
    def job():
        yield 0.5
        yield (0.75, "almost")
        yield {"partial": 1}
        return 42

    w = start_worker(job, _start=False)
    progress, parts = [], []
    w.signals.progress.connect(lambda f, m: progress.append((f, m)))
    w.signals.yielded.connect(parts.append)
    from evaltrans_qt.ui.workers import launch
    with qtbot.waitSignal(w.signals.finished) as blk:
        launch(w)
    assert blk.args == [42]
    assert progress == [(0.5, ""), (0.75, "almost")] and parts == [{"partial": 1}]


def test_cancel_flag_and_cancelled_signal(qtbot):
    started = threading.Event()

    def job(cancel):
        started.set()
        while not cancel.is_set():
            time.sleep(0.01)
        raise Cancelled()

    w = start_worker(job)
    started.wait(5)
    with qtbot.waitSignal(w.signals.cancelled):
        w.cancel()


def test_errors_are_routed(qtbot):
    seen = []
    w = start_worker(lambda: 1 / 0, _start=False)
    handle_errors(w, seen.append)
    from evaltrans_qt.ui import errors
    n = len(errors.history)
    from evaltrans_qt.ui.workers import launch
    with qtbot.waitSignal(w.signals.done):
        launch(w)
    assert isinstance(seen[0], ZeroDivisionError) and len(errors.history) == n


def test_latest_runner_ignores_stale_results(qtbot):
    r = LatestRunner()
    got = []

    def slow(x, delay):
        time.sleep(delay)
        return x

    r.submit(slow, "old", 0.3, on_result=got.append)
    r.submit(slow, "new", 0.0, on_result=got.append)
    qtbot.waitUntil(lambda: not r.pending, timeout=5000)
    time.sleep(0.4)
    qtbot.wait(50)
    assert got == ["new"]


def test_a_function_reporting_through_a_callback(qtbot):
    """``report=`` (as the run controller's job computes): every object reported arrives,
    as is and in order, in the UI thread's ``reported``; a ``**kwargs`` function is not
    handed a callback it did not ask for."""
    main = threading.get_ident()

    def job(report):
        for item in (0.5, ("x", 1), {"done": 3, "total": 4}):
            report(item)
        return threading.get_ident()

    got, threads = [], []

    def on_report(item):
        got.append(item)
        threads.append(threading.get_ident())

    w = start_worker(job, _start=False)
    w.signals.reported.connect(on_report)
    with qtbot.waitSignal(w.signals.finished) as blk:
        launch(w)
    qtbot.waitUntil(lambda: len(got) == 3)
    assert got == [0.5, ("x", 1), {"done": 3, "total": 4}]
    assert set(threads) == {main} and blk.args[0] != main

    def loose(**kwargs):
        return sorted(kwargs)

    w = start_worker(loose, _start=False)
    with qtbot.waitSignal(w.signals.finished) as blk:
        launch(w)
    assert blk.args == [["cancel"]]
