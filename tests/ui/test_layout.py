"""A layout for 1366x768 and up, checked by widget geometry (not by eye).

Checked: every view rendered at 1366x768 (``evaltrans-qt --screenshot --size 1366x768 --view
compare|scoring|results``) keeps all controls of the scoring panel, the results toolbar and
the status bar inside the window. The test screen is made 1366x768 (the window's
``WindowLayout.available_geometry``); the views are prepared exactly as the screenshot mode prepares them.
"""

from __future__ import annotations

import argparse

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
)

from .conftest import open_db

SCREEN = QRect(0, 0, 1366, 768)


@pytest.fixture
def laptop(qtbot, tmp_path, monkeypatch):
    """A main window on a 1366x768 screen (fresh settings: the default layout)."""
    from evaltrans_qt.ui.controllers.layout import WindowLayout
    from evaltrans_qt.ui.main_window import MainWindow
    monkeypatch.setattr(WindowLayout, "available_geometry", lambda self: QRect(SCREEN))
    settings = QSettings(str(tmp_path / "settings" / "laptop.ini"), QSettings.IniFormat)
    w = MainWindow(settings=settings, autosave_ms=60_000, persist_settings=False)
    w.files.ask_unsaved = lambda: QMessageBox.Discard
    w.window_layout.assume_unframed()      # as --screenshot: the picture is the whole screen
    w.show()
    yield w
    w.end_session()
    w.close()


def fully_inside(window, widget) -> bool:
    """The widget's whole rectangle lies inside the window and nothing clips it."""
    top_left = widget.mapTo(window, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    if not window.rect().contains(rect):
        return False
    p = widget.parentWidget()
    while p is not None and p is not window:        # clipped by a parent (a squeezed dock)?
        if not QRect(p.mapTo(window, QPoint(0, 0)), p.size()).contains(rect):
            return False
        p = p.parentWidget()
    return True


def controls(root):
    found = []
    for kind in (QAbstractButton, QLineEdit, QProgressBar, QLabel):
        found += [c for c in root.findChildren(kind) if c.isVisibleTo(root) and c.width() > 0]
    return found


def prepare(window, view):
    from evaltrans_qt.ui.app import _prepare_view
    from evaltrans_qt.ui.workers import wait_for_all
    args = argparse.Namespace(view=view, measure=None)
    _prepare_view(window, args)
    for _ in range(20):
        wait_for_all(10_000)
        QApplication.processEvents()
    window.resize(SCREEN.width(), SCREEN.height())
    QApplication.processEvents()


def check_status_bar(window):
    sb = window.statusBar()
    assert sb.isVisible() and fully_inside(window, sb)
    assert window.browse.db_label.isVisible() and fully_inside(window, window.browse.db_label)


def test_default_layout_fits_the_screen(laptop):
    w = laptop
    assert w.frameGeometry().width() <= SCREEN.width() and w.frameGeometry().height() <= SCREEN.height()
    shown = {t for t, d in w.panels.items() if d.isVisible()}
    assert shown == {"Sources", "Translations"}      # panels with nothing to show are closed


def test_a_saved_layout_larger_than_the_screen_is_reset(qtbot, tmp_path, monkeypatch):
    from evaltrans_qt.ui.main_window import MainWindow
    ini = str(tmp_path / "settings" / "big.ini")
    big = MainWindow(settings=QSettings(ini, QSettings.IniFormat))
    big.resize(2400, 1500)
    big.settings.setValue("window/geometry", big.saveGeometry())
    big.settings.setValue("window/state", big.saveState())
    big.settings.sync()
    big.deleteLater()
    from evaltrans_qt.ui.controllers.layout import WindowLayout
    monkeypatch.setattr(WindowLayout, "available_geometry", lambda self: QRect(SCREEN))
    w = MainWindow(settings=QSettings(ini, QSettings.IniFormat))
    qtbot.addWidget(w)
    assert w.width() <= SCREEN.width() and w.height() <= SCREEN.height()


@pytest.mark.parametrize("view", ["compare", "scoring", "results"])
def test_every_view_keeps_its_controls_inside_1366x768(qtbot, laptop, demo_copy, view):
    w = laptop
    open_db(qtbot, w, demo_copy)
    prepare(w, view)
    assert (w.width(), w.height()) == (SCREEN.width(), SCREEN.height())
    check_status_bar(w)
    if view == "scoring":
        panel = w.scoring.score_panel
        assert w.session is not None and panel.isVisible()
        got = controls(panel)
        # every score button of every class (SSER's eleven too), the value editors, navigation
        assert len([c for c in got if c.objectName().startswith("score_")]) >= 5 + 5 + 11 + 1
        outside = [c.objectName() or c.text() for c in got if not fully_inside(w, c)]
        assert outside == []
        for c in got:                    # not squeezed below its own minimum size
            if isinstance(c, QAbstractButton):
                assert c.width() >= c.minimumSizeHint().width() - 1, c.objectName()
                assert c.height() >= c.minimumSizeHint().height() - 1, c.objectName()
    if view == "results":
        rv = w.results.results_view
        assert rv.isVisible() and rv.analysis is not None
        bar = [rv.options_button, rv.run_button, rv.cancel_button, rv.progress, rv.level_box,
               rv.human_box, rv.normalize_box]
        outside = [c.objectName() for c in bar if not fully_inside(w, c)]
        assert outside == []
        # the plots get room: the scatter plot is at least a third of the window high
        assert rv.scatter.height() >= SCREEN.height() // 3
    if view == "compare":
        cv = w.compare_view
        assert fully_inside(w, cv.measure_selector) and fully_inside(w, cv.against)
        assert cv.comparison is not None and cv.comparison.blocks
        th = w.browse.target_table.horizontalHeader()
        from evaltrans_qt.ui.models import TargetTable
        text = TargetTable.FIXED.index("Translation")
        assert th.visualIndex(text) == th.count() - 1        # the translation last ...
        assert th.sectionSize(text) >= 250                    # ... and wide
        assert th.visualIndex(len(TargetTable.FIXED)) == 3   # human scores after system
