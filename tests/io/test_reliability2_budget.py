"""Alignment kernels check their memory budget before allocating: a 20 000-word pair is
refused with a clear error while the process stays small (the substitution matrix alone
would take 3.2 GB)."""

from __future__ import annotations

import resource

import pytest

from evaltrans_qt.engine.measures.alignment import explain_segment
from evaltrans_qt.errors import InputFormatError


@pytest.mark.parametrize("measure", ["wer", "cder", "gsa"])
def test_aligning_a_huge_pair_is_refused_before_allocating(measure):
    hyp = " ".join(f"w{i % 500}" for i in range(20_000))
    ref = " ".join(f"w{(i * 7) % 500}" for i in range(20_000))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputFormatError, match="memory budget"):
        explain_segment(measure, hyp, [ref])
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 500
