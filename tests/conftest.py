"""Shared test configuration: offscreen Qt, paths to the shared WMT data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
WMT = SHARED / "data" / "wmt21-ende"


@pytest.fixture(scope="session")
def wmt_dir() -> Path:
    if not WMT.is_dir():
        pytest.skip("../shared/data/wmt21-ende is not beside the checkout")
    return WMT
