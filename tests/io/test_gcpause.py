"""io/gcpause.py: the collector paused inside, restored as it was after (nested too)."""

from __future__ import annotations

import gc

import pytest

from evaltrans_qt.io.etdb import loads
from evaltrans_qt.io.gcpause import paused_gc


@pytest.fixture
def collector_enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_inside_and_enabled_after_nested_pauses(collector_enabled) -> None:
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()           # the inner pause ending does not resume it
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled(collector_enabled) -> None:
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()


def test_resumed_when_the_block_raises(collector_enabled) -> None:
    with pytest.raises(ValueError), paused_gc():
        raise ValueError("x")
    assert gc.isenabled()


def test_loads_resumes_the_collector_after_a_refused_file(collector_enabled) -> None:
    from evaltrans_qt.errors import InputFormatError
    with pytest.raises(InputFormatError):
        loads(b"<database><source></source></database>")
    assert gc.isenabled()
