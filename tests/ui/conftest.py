"""Fixtures for the application tests: temporary settings and data directory, a main window.

No test writes to the user's real settings: QSettings (INI, user scope) is
redirected to a temporary folder, and the demo working copy goes to
``EVALTRANS_QT_DATA_DIR`` in a temporary folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings


@pytest.fixture(autouse=True)
def ui_sandbox(tmp_path, monkeypatch):
    """Temporary QSettings path, data directory and auto-closing error dialogs."""
    cfg = tmp_path / "settings"
    cfg.mkdir()
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(cfg))
    monkeypatch.setenv("EVALTRANS_QT_DATA_DIR", str(tmp_path / "data"))
    from evaltrans_qt.ui import errors
    monkeypatch.setattr(errors, "auto_close_ms", 100)
    errors.history.clear()
    yield cfg
    from evaltrans_qt.ui.workers import wait_for_all
    wait_for_all(30000)
    _close_leftovers()


def _close_leftovers() -> None:
    """Close the popups, modal dialogs and windows a test left open: an application-modal
    dialog or a popup that outlives its test takes the mouse of every later one."""
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance()
    if app is None:
        return
    for _ in range(20):
        w = app.activePopupWidget() or app.activeModalWidget()
        if w is None:
            break
        w.close()
    for w in app.topLevelWidgets():
        if w.isVisible():
            w.close()
    app.processEvents()


@pytest.fixture
def demo_copy(tmp_path) -> Path:
    """A private copy of the demo database."""
    from evaltrans_qt.io.etdb import demo_database_path
    dst = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), dst)
    return dst


@pytest.fixture
def main_window(qtbot, tmp_path):
    """A MainWindow with temporary settings and no autosave timer surprises (long interval)."""
    from evaltrans_qt.ui.main_window import MainWindow
    settings = QSettings(str(tmp_path / "settings" / "test.ini"), QSettings.IniFormat)
    from PySide6.QtWidgets import QMessageBox
    w = MainWindow(settings=settings, autosave_ms=60_000)
    w.files.ask_unsaved = lambda: QMessageBox.Discard  # tests of the question replace this
    w.show()
    yield w
    w.end_session()
    w.close()
    from evaltrans_qt.ui.workers import wait_for_all
    wait_for_all(30000)


def open_db(qtbot, window, path, timeout: int = 120_000):
    """Open ``path`` in ``window`` and wait until it is shown."""
    with qtbot.waitSignal(window.databaseChanged, timeout=timeout):
        window.open_database(path)
    return window.database


def wait_compare(qtbot, window, timeout: int = 180_000):
    """Wait until the compare view has no alignment pending (generous: a first call may compile kernels)."""
    qtbot.waitUntil(lambda: not window.compare_view.runner.pending, timeout=timeout)
    return window.compare_view.comparison


#: The bundled SegRanks campaign (README "SegRanks").
SEGRANKS_EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "segranks_example"


def extract_campaign(tmp_path: Path) -> Path:
    """The README's extraction of the bundled campaign into a private database (through
    ``evaltrans segranks extract``); returns the database written."""
    from evaltrans_qt.cli.main import main as cli
    d = tmp_path / "camp"
    shutil.copytree(SEGRANKS_EXAMPLE, d)
    out = tmp_path / "campaign.etdb.xml"
    assert cli(["segranks", "extract", "--database", str(d / "campaign.etdb.xml"), "--trees",
                str(d / "sources.ptb"), "--alignments-dir", str(d), "-o",
                str(tmp_path / "x.segments"), "--output-database", str(out)]) == 0
    return out
