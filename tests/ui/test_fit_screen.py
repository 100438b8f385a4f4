"""Every dialog and the main window fit a 1366x768 laptop screen (and a 1920x1080 one) with
a window manager's decorations: each is opened, as the application opens it, on a virtual
screen of that size (tests/ui/fit_screen_probe.py in a subprocess: the offscreen screen's
size is fixed when the application starts), and its frame -- its geometry plus the
decorations the layout reserves (``FRAME_GUESS``: a title bar and borders) -- must lie
inside the available screen, at no less than its minimum size, with every button of its
own inside it. Also: the window remembers its maximised state and splitter sizes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QMargins, QRect, QSettings, Qt
from PySide6.QtWidgets import QMessageBox, QSplitter

from evaltrans_qt.ui.controllers.layout import FRAME_GUESS

ROOT = Path(__file__).resolve().parents[2]

#: Every dialog the probe opens (a dialog missing from its output fails the test).
DIALOGS = ("options", "classes", "import_text", "import_aachen", "import_sgml", "import_wmt",
           "merge_conflict", "session_setup", "ranking_setup_sentences",
           "ranking_setup_segments", "shortcuts", "disk_change", "export", "add_reference",
           "information_items", "error", "segranks_extract", "getting_started",
           "ranking_sentences_screen", "span_setup", "span_mqm_screen", "span_esa_screen",
           "campaign_create", "campaign_bundle", "campaign_collect", "campaign_qc_report",
           "campaign_agreement", "adjudication_screen")


@pytest.fixture(scope="module", params=["1366x768", "1920x1080"])
def probe(request, tmp_path_factory) -> tuple[str, dict]:
    from evaltrans_qt.io.etdb import demo_database_path
    d = tmp_path_factory.mktemp(f"fit{request.param}")
    db = d / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), db)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(d / "cfg"),
           "EVALTRANS_QT_DATA_DIR": str(d / "data")}
    res = subprocess.run([sys.executable, "-m", "tests.ui.fit_screen_probe", request.param,
                          str(db)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return request.param, json.loads(res.stdout.strip().splitlines()[-1])


def _frame(entry: dict) -> QRect:
    x, y, w, h = entry["geometry"]
    return QRect(x, y, w + FRAME_GUESS[0], h + FRAME_GUESS[1])


def _check(name: str, entry: dict, avail: QRect) -> None:
    assert entry["visible"], name
    frame = _frame(entry)
    assert avail.contains(frame), f"{name}: frame {frame} outside the available {avail}"
    w, h = entry["geometry"][2:]
    mw, mh = entry["minimum"]
    assert w >= mw and h >= mh, f"{name}: {w}x{h} below its minimum {mw}x{mh} (clipped)"
    assert not entry["buttons_outside"], f"{name}: buttons outside: {entry['buttons_outside']}"


def test_main_window_fits_with_decorations(probe):
    size, out = probe
    avail = QRect(*out["available"])
    assert f"{avail.width()}x{avail.height()}" == size
    _check("main window", out["main_window"], avail)
    w, h = out["main_window"]["geometry"][2:]
    # the available area is used (up to the layout's 1600x1000), not a fixed small size
    assert w >= min(1600, avail.width() - FRAME_GUESS[0]) - 1
    assert h >= min(1000, avail.height() - FRAME_GUESS[1]) - 1


@pytest.mark.parametrize("name", DIALOGS)
def test_dialog_fits_with_decorations(probe, name):
    _size, out = probe
    assert name in out["dialogs"], sorted(out["dialogs"])
    _check(name, out["dialogs"][name], QRect(*out["available"]))


def test_a_dialog_larger_than_the_screen_is_made_to_fit(qtbot, main_window):
    """The window fits each dialog it parents when it is shown: a dialog sized for a large
    screen is shrunk and moved inside the available area."""
    from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout
    avail = main_window.window_layout.available_geometry()
    dlg = QDialog(main_window)
    QVBoxLayout(dlg).addWidget(QLabel("a dialog made for a large screen"))
    dlg.resize(avail.width() + 400, avail.height() + 300)
    dlg.move(avail.x() + 50, avail.y() + 50)
    dlg.open()
    qtbot.waitExposed(dlg)
    frame = dlg.frameGeometry()
    if frame == dlg.geometry():                 # no frame measured: the one reserved
        frame = QRect(dlg.pos(), dlg.size().grownBy(QMargins(0, 0, *FRAME_GUESS)))
    assert avail.contains(frame), (frame, avail)
    assert dlg.width() >= dlg.minimumSizeHint().width()
    dlg.close()


def test_maximised_state_and_splitters_are_restored(qtbot, tmp_path):
    from evaltrans_qt.ui.main_window import MainWindow
    ini = str(tmp_path / "restore.ini")
    w = MainWindow(settings=QSettings(ini, QSettings.Format.IniFormat), autosave_ms=60_000)
    w.files.ask_unsaved = lambda: QMessageBox.StandardButton.Discard
    w.show()
    splitters = w.window_layout.splitters()
    assert len(splitters) >= 2 and len(set(splitters)) == len(splitters)
    key, split = next((k, s) for k, s in splitters.items() if s.count() >= 2)
    total = sum(split.sizes())
    wanted = [int(total * 0.8), total - int(total * 0.8)]
    split.setSizes(wanted)
    w.showMaximized()
    qtbot.waitUntil(w.isMaximized)
    w.close()
    again = MainWindow(settings=QSettings(ini, QSettings.Format.IniFormat), autosave_ms=60_000)
    again.files.ask_unsaved = lambda: QMessageBox.StandardButton.Discard
    assert again.windowState() & Qt.WindowState.WindowMaximized
    restored = again.window_layout.splitters()[key]
    assert isinstance(restored, QSplitter)
    assert restored.saveState() == split.saveState()
    again.close()


def test_wide_table_keeps_its_first_column_in_view(qtbot, main_window):
    """The results view's wide tables keep the system column in view when scrolled
    sideways (an overlay showing column 0 of the same model), and sorting by it from the
    overlay sorts the table."""
    import pandas as pd
    from PySide6.QtWidgets import QTableView

    from evaltrans_qt.ui.controllers.results import WIDE_TABLES
    from evaltrans_qt.ui.frozen_column import FrozenColumn
    view = main_window.results.results_view
    for name in WIDE_TABLES:
        assert view.findChild(QTableView, name).findChild(FrozenColumn) is not None, name
    table = view.findChild(QTableView, "systemTable")
    frozen = table.findChild(FrozenColumn)
    systems = ["WebTrans", "Lumen-NMT", "RuleMT", "PhraseBase"]
    frame = pd.DataFrame({"system": systems,
                          **{f"measure{k}": [0.1 * k + i for i in range(4)] for k in range(30)}})
    main_window.show_panel("Results")
    view.tabs.setCurrentWidget(view.tabs.widget(0))
    table.model().sourceModel().set_frame(frame)
    qtbot.waitUntil(lambda: frozen.isVisible())
    bar = table.horizontalScrollBar()
    assert bar.maximum() > 0                         # wide: it scrolls
    bar.setValue(bar.maximum())
    qtbot.wait(50)
    assert table.columnViewportPosition(0) < 0      # column 0 scrolled out of the table ...
    assert frozen.isVisible() and frozen.x() == table.verticalHeader().width() + table.frameWidth()
    assert frozen.width() == table.columnWidth(0) > 0   # ... and shown by the overlay
    assert [not frozen.isColumnHidden(c) for c in range(frozen.model().columnCount())] == \
        [True] + [False] * 30
    shown = [frozen.model().index(r, 0).data() for r in range(frozen.model().rowCount())]
    assert shown == systems
    frozen.horizontalHeader().sectionClicked.emit(0)
    rows = [table.model().index(r, 0).data() for r in range(4)]
    assert rows == sorted(systems)
    assert [frozen.model().index(r, 0).data() for r in range(4)] == rows
