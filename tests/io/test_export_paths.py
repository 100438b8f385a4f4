"""io/export.py suggested_path: the file name every export dialog offers."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltrans_qt.io.export import suggested_path


@pytest.mark.parametrize("db, what, suffix, expected", [
    (None, "systems", ".csv", "systems.csv"),
    (Path("/d/news.etdb.xml"), "wins-segments", ".csv", "/d/news.wins-segments.csv"),
    (Path("/d/news.xml"), "report", ".xml", "/d/news.report.xml"),
    (Path("/d/news.etdb"), "unseenBars", ".png", "/d/news.unseenBars.png"),
    (Path("/d/news.txt"), "plot", ".png", "/d/news.txt.plot.png"),
])
def test_suggested_path(db, what, suffix, expected):
    assert suggested_path(db, what, suffix) == (str(Path(expected)) if db else expected)
