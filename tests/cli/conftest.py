"""Fixtures shared by the command-line tests."""

from __future__ import annotations

import shutil

import pytest

from evaltrans_qt.io.etdb import demo_database_path


@pytest.fixture()
def demo(tmp_path):
    """A copy of the demo database in ``tmp_path`` (the command may write it)."""
    p = tmp_path / "demo.etdb.xml"
    shutil.copy(demo_database_path(), p)
    return p
