"""While an alignment computes, the compare view shows nothing stale and says so."""

from __future__ import annotations

import time

from evaltrans_qt.ui import compare_view as cv
from evaltrans_qt.ui.compare_view import MATCH, NONE, CompareView


def test_no_stale_alignment_under_a_new_measure(qtbot, monkeypatch):
    view = CompareView()
    qtbot.addWidget(view)
    view.set_measure("wer")
    view.set_pair("src", "a b c", "X", [("A", "a b c")])
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending,
                    timeout=180_000)
    assert view.hyp_flow.kinds() == [MATCH] * 3
    real = cv.compute_comparison

    def slow(*args):                # a first use that compiles kernels
        time.sleep(1.0)
        return real(*args)
    monkeypatch.setattr(cv, "compute_comparison", slow)
    view.set_measure("per")
    qtbot.wait(400)
    assert view.runner.pending and view.comparison is None
    assert view.hyp_flow.kinds() == [NONE] * 3 and view.ref_flow.marks == []
    top = view.breakdown.topLevelItem(0)
    assert top.text(0) == "Computing…" and "PER" in top.text(1)
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending,
                    timeout=180_000)
    assert view.hyp_flow.kinds() == [MATCH] * 3
    assert view.breakdown.topLevelItem(0).text(0) != "Computing…"
