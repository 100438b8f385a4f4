"""The application compiles the measures' kernels ahead: a main window starts
engine.warmup.ensure_warm on a worker thread, once per process, without waiting for it."""

from __future__ import annotations

import threading

from PySide6.QtCore import QSettings

from evaltrans_qt.engine import warmup
from evaltrans_qt.ui.controllers import results as results_controller


def test_warmup_started_once_off_the_ui_thread(qtbot, tmp_path, monkeypatch):
    release = threading.Event()
    calls: list[threading.Thread] = []

    def slow_warm() -> None:               # a warm-up that takes until the test says so
        calls.append(threading.current_thread())
        release.wait(30)

    monkeypatch.setattr(warmup, "is_warm", lambda: False)
    monkeypatch.setattr(warmup, "ensure_warm", slow_warm)
    monkeypatch.setattr(results_controller, "_warmup_worker", None)
    from evaltrans_qt.ui.main_window import MainWindow
    windows = []
    try:
        for i in range(2):                 # a second window does not start it again
            settings = QSettings(str(tmp_path / f"w{i}.ini"), QSettings.IniFormat)
            w = MainWindow(settings=settings, autosave_ms=60_000)
            windows.append(w)
            qtbot.addWidget(w)
            # the window was built while the warm-up is still going: the UI did not wait
            assert not release.is_set()
        qtbot.waitUntil(lambda: len(calls) == 1, timeout=10_000)
        assert calls[0] is not threading.main_thread()
        qtbot.wait(200)
        assert len(calls) == 1
        assert results_controller.start_warmup() is None
    finally:
        release.set()
        for w in windows:
            w.close()
        from evaltrans_qt.ui.workers import wait_for_all
        wait_for_all(30000)


def test_no_warmup_when_warm(monkeypatch):
    monkeypatch.setattr(warmup, "is_warm", lambda: True)
    monkeypatch.setattr(results_controller, "_warmup_worker", None)
    assert results_controller.start_warmup() is None
    assert results_controller._warmup_worker is None
