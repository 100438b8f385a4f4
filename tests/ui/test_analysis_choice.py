"""The analysis choice lives in the workspace: the results view's selectors write it, and
the live-correlation panel and the Metrics tab follow the workspace, not the results
view; the driver's warnings of a run are shown."""

from __future__ import annotations

import pytest

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.workspace import Workspace

MEASURES = ["wer", "bleu", "ter"]


@pytest.fixture
def view(qtbot, demo_copy):
    import sacrebleu  # noqa: F401 - imported in this thread before any worker imports it
    from sacrebleu.tokenizers import tokenizer_13a, tokenizer_ter  # noqa: F401

    from evaltrans_qt.engine.measures import load_all
    from evaltrans_qt.ui.results_view import ResultsView
    load_all()
    ws = Workspace.open(demo_copy, autosave=False)
    v = ResultsView(workspace=ws)
    qtbot.addWidget(v)
    yield v
    v.runs.close()
    ws.close()


def _run(qtbot, view) -> None:
    with qtbot.waitSignal(view.runFinished, timeout=120_000):
        assert view.start_run(EvalOptions(), MEASURES)
    qtbot.waitUntil(lambda: not view.running, timeout=30_000)


def test_the_selectors_write_the_workspaces_choice(qtbot, view):
    choice = view.workspace.analysis
    assert [view.human_box.itemText(i) for i in range(view.human_box.count())] == choice.classes
    assert view.human_box.currentText() == choice.human == "fluency"
    view.human_box.setCurrentText("adequacy")
    assert choice.human == "adequacy"
    view.level_box.setCurrentText("system")
    view.normalize_box.setChecked(True)
    assert (choice.level, choice.normalize) == ("system", True)
    # and they show a choice made elsewhere
    choice.set(human="sser", level="sentence", normalize=False)
    assert view.human_box.currentText() == "sser" and view.level_box.currentText() == "sentence"
    assert not view.normalize_box.isChecked()


def test_live_panel_and_metrics_follow_the_workspace(qtbot, view):
    """Setting the workspace's human score recomputes the live panel (one that knows no
    results view at all), the Metrics tab and the results view's analysis."""
    from evaltrans_qt.ui.live_correlation import LiveCorrelationPanel
    ws = view.workspace
    live = LiveCorrelationPanel(workspace=ws)
    qtbot.addWidget(live)
    _run(qtbot, view)
    qtbot.waitUntil(lambda: live.updates >= 1 and "'fluency'" in live.label.text(),
                    timeout=60_000)
    metrics = view.metrics_view
    qtbot.waitUntil(lambda: metrics.overview is not None and not metrics.runner.pending,
                    timeout=120_000)
    assert metrics.overview.significance.human == "fluency"
    fluency = live.model.frame.copy()
    # scoring another class: the panel stays with the choice and says how to follow it
    from evaltrans_qt.io.journal import ScoreChange
    db = ws.database
    si, ti = next((i, j) for i, s in enumerate(db.sources) for j, t in enumerate(s.targets)
                  if not db.is_reference(t) and t.value("adequacy") is None)
    t = db.sources[si].targets[ti]
    before = live.updates
    ws.commit(ScoreChange(db.sources[si].text, t.text, t.system, "adequacy", 4, "tester",
                          target_index=ti))
    qtbot.waitUntil(lambda: live.updates > before, timeout=60_000)
    assert "with 'fluency'" in live.label.text()
    assert "You are scoring 'adequacy'" in live.label.text()
    assert live.model.frame["n"].max() == fluency["n"].max()
    before = live.updates
    ws.analysis.set_human("adequacy")                     # not through the results view
    qtbot.waitUntil(lambda: live.updates > before and "'adequacy'" in live.label.text(),
                    timeout=60_000)
    assert "You are scoring" not in live.label.text()
    assert sorted(live.model.frame["measure"]) == sorted(MEASURES)
    assert not live.model.frame["r"].equals(fluency["r"])  # other scores, other numbers
    qtbot.waitUntil(lambda: metrics.overview is not None
                    and metrics.overview.significance.human == "adequacy", timeout=120_000)
    qtbot.waitUntil(lambda: view.analysis is not None and view.analysis.human == "adequacy",
                    timeout=120_000)
    assert view.human_box.currentText() == "adequacy"
    # another database: the panel empties, the choice takes that database's classes
    ws.set_database(None)
    assert len(live.model.frame) == 0 and live.label.text() == live.IDLE
    assert ws.analysis.human is None and view.human_box.count() == 0


def test_the_drivers_warnings_are_shown(qtbot, view):
    db = view.workspace.database
    src = db.add_source("a source without any reference")
    db.add_target(src, "a lonely candidate", "RuleMT")
    _run(qtbot, view)
    warnings = view.workspace.run.meta["warnings"]
    assert any("1 candidate(s) skipped" in w for w in warnings)
    assert not view.warnings_label.isHidden()
    assert "skipped" in view.warnings_label.text()
    assert all(w in view.warnings_label.toolTip() for w in warnings)
    # a run without warnings hides them again
    db.sources.pop()
    db.reindex()
    _run(qtbot, view)
    assert view.workspace.run.meta["warnings"] == () and view.warnings_label.isHidden()
