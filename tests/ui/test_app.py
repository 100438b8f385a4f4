"""``evaltrans-qt --screenshot``: renders the main window to a PNG and exits (README images)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from evaltrans_qt.ui.app import parse_args

ROOT = Path(__file__).resolve().parents[2]


def test_parse_args():
    a = parse_args(["db.etdb.xml", "--screenshot", "x.png", "--view", "compare"])
    assert (a.file, a.screenshot, a.view) == ("db.etdb.xml", "x.png", "compare")
    assert parse_args([]).file is None


@pytest.mark.parametrize("view", ["compare", "scoring", "metrics", "unseen"])
def test_screenshot_of_demo(tmp_path, view):
    out = tmp_path / f"{view}.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", EVALTRANS_QT_DATA_DIR=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "cfg"), HOME=str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "evaltrans_qt.ui.app", "--screenshot", str(out), "--view", view,
                        "--size", "1200x800"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr[-2000:]
    img = QImage(str(out))
    assert not img.isNull() and img.width() == 1200 and 800 <= img.height() <= 900
    # no demo scores were written and no journal is left behind
    assert not (tmp_path / "data" / "demo.etdb.xml.journal").exists()
