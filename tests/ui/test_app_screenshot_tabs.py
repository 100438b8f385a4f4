"""``evaltrans-qt --screenshot --view results --tab TITLE``: the tab is chosen by its title's
beginning (case ignored), an unknown one stops with the tabs there are; the whole-sentence
ranking screen is a view of its own."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QTabWidget, QWidget

from evaltrans_qt.ui.app import _show_results_tab, parse_args


def test_parse_tab_and_ranking_sentences():
    a = parse_args(["--screenshot", "x.png", "--view", "results", "--tab", "histogram"])
    assert (a.view, a.tab) == ("results", "histogram")
    assert parse_args(["--view", "ranking-sentences"]).view == "ranking-sentences"
    assert parse_args([]).tab is None


def _window(qtbot, titles):
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    for t in titles:
        tabs.addTab(QWidget(), t)
    computed: list[bool] = []
    view = SimpleNamespace(tabs=tabs, compute_significance=lambda: computed.append(True))
    return SimpleNamespace(results=SimpleNamespace(results_view=view)), tabs, computed


def test_tab_by_title_beginning(qtbot):
    win, tabs, computed = _window(qtbot, ["Systems", "Sentences", "Significance", "Histogram"])
    _show_results_tab(win, "SEN")
    assert tabs.currentIndex() == 1 and not computed
    _show_results_tab(win, "sig")
    assert tabs.currentIndex() == 2 and computed == [True]     # its p-values are computed
    with pytest.raises(SystemExit, match="no such results tab.*Histogram"):
        _show_results_tab(win, "bogus")
    assert tabs.currentIndex() == 2


def test_screenshot_of_a_results_tab_exits_cleanly(tmp_path):
    """The whole mode on the demo: a PNG of the screen's size and exit status 0 (the process
    waits for the kernels' warm-up instead of crashing under it at exit)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from PySide6.QtGui import QImage
    out = tmp_path / "histogram.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", EVALTRANS_QT_DATA_DIR=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "cfg"), HOME=str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "evaltrans_qt.ui.app", "--screenshot", str(out),
                        "--view", "results", "--tab", "histogram", "--size", "1366x768"],
                       env=env, cwd=Path(__file__).resolve().parents[2], capture_output=True,
                       text=True, timeout=400)
    assert p.returncode == 0, p.stderr[-2000:]
    img = QImage(str(out))
    assert not img.isNull() and (img.width(), img.height()) == (1366, 768)
