"""Numbers as the field reads them: BLEU, chrF and TER on 0-100 (sacreBLEU) by default,
0-1 on request, in every table, plot and export of the results view; system-level
scatter points carry the system names; the correlations name their convention."""

from __future__ import annotations

import pandas as pd
import pytest

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.ui.results_models import cell_text

from .conftest import open_db
from .test_results import run_to_end

MEASURES = ["bleu", "chrf", "ter", "wer"]


@pytest.fixture
def view(qtbot, main_window, demo_copy):
    open_db(qtbot, main_window, demo_copy)
    v = main_window.results.results_view
    run_to_end(qtbot, v, options=EvalOptions(), measures=MEASURES)
    return v


def _cell(view, system: str, col: str) -> str:
    m = view.system_model
    row = list(m.frame["system"]).index(system)
    return cell_text(m.index(row, m.column_index(col)))


def test_tables_plots_and_exports_follow_the_scale(qtbot, view, tmp_path):
    assert view.scale_box.currentText().startswith("0–100")          # the default
    raw = {s: view.run.systems[s].scores["bleu"].value for s in view.run.systems}
    wer = {s: view.run.systems[s].scores["wer"].value for s in view.run.systems}
    s0 = next(iter(raw))
    # the model keeps fractions (sorting, API); the cells read 0-100 for BLEU, chrF, TER
    assert view.system_model.frame.set_index("system").loc[s0, "BLEU"] == pytest.approx(raw[s0])
    assert _cell(view, s0, "BLEU") == f"{100 * raw[s0]:.2f}"
    chrf = view.run.systems[s0].scores["chrf"].columns["chrF"]
    assert _cell(view, s0, "chrF") == f"{100 * chrf:.2f}"
    assert _cell(view, s0, "WER") == f"{wer[s0]:.4f}"                # not a sacreBLEU metric
    col = view.sentence_model.column_index("BLEU")
    v = view.sentence_model.frame.iloc[0]["BLEU"]
    assert cell_text(view.sentence_model.index(0, col)) == f"{100 * v:.2f}"
    view.tabs.setCurrentIndex(next(i for i in range(view.tabs.count())
                                   if view.tabs.widget(i).isAncestorOf(view.histogram)))
    view.hist_measure.setCurrentText("BLEU")
    assert view.histogram.edges.max() > 1.5                          # 0-100
    out = view.export_table(tmp_path / "s.csv", "systems") or tmp_path / "s.csv"
    exported = pd.read_csv(out).set_index("system")
    assert exported.loc[s0, "BLEU"] == pytest.approx(100 * raw[s0], rel=1e-5)
    assert exported.loc[s0, "WER"] == pytest.approx(wer[s0], rel=1e-5)
    # 0-1: the engine's fractions everywhere
    view.scale_box.setCurrentIndex(1)
    assert _cell(view, s0, "BLEU") == f"{raw[s0]:.4f}"
    view._update_histogram()
    assert view.histogram.edges.max() <= 1.0 + 1e-9
    view.export_table(tmp_path / "f.csv", "systems")
    assert pd.read_csv(tmp_path / "f.csv").set_index("system").loc[s0, "BLEU"] == \
        pytest.approx(raw[s0], rel=1e-5)
    # the choice is kept for the next start
    from evaltrans_qt.ui.results_view import ResultsView
    again = ResultsView(view.window_)
    qtbot.addWidget(again)
    assert again.scale_box.currentText().startswith("0–1")


def test_system_scatter_names_its_points_and_its_convention(qtbot, view):
    from evaltrans_qt.engine.metaeval import conventions
    view.tabs.setCurrentIndex(2)
    view.level_box.setCurrentText("system")
    qtbot.waitUntil(lambda: view.analysis.level == "system" and view.busy.isHidden(),
                    timeout=60_000)
    view.plot_measure.setCurrentText("bleu")
    view._update_scatter()
    names = sorted(t.textItem.toPlainText() for t in view.scatter.point_names)
    assert names == sorted(view.run.systems)
    assert max(view.scatter.x) > 1.5                                 # BLEU on 0-100
    frame = view.corr_model.frame
    assert set(frame["convention"]) == {conventions.label(conventions.DEFAULT_CONVENTION)}
    assert view.convention_text.text() == conventions.describe(conventions.DEFAULT_CONVENTION)
    # the other convention on request: the table and the text say so
    view.convention_box.setCurrentIndex(list(conventions.CONVENTIONS).index("thesis"))
    qtbot.waitUntil(lambda: set(view.corr_model.frame["convention"]) == {"thesis"},
                    timeout=60_000)
    assert "thesis convention" in view.convention_text.text()
    # sentence level: hover labels only (thousands of points)
    view.level_box.setCurrentText("sentence")
    qtbot.waitUntil(lambda: view.analysis.level == "sentence" and view.busy.isHidden(),
                    timeout=60_000)
    view._update_scatter()
    assert view.scatter.point_names == []


def test_a_reopened_report_shows_every_human_column_it_holds(qtbot, view, tmp_path):
    from evaltrans_qt.cli.batch import report_extras
    from evaltrans_qt.io.report import build_report
    run = view.run
    s = next(iter(run.systems))
    extras = report_extras(view.workspace.database, [s], run.options)[s]
    assert "ser" in extras["protocols"]
    path = tmp_path / "r.xml"
    path.write_bytes(build_report(run, s, human={"adequacy": (4.25, 20, 0)}, **extras))
    view.ask_replace_results = lambda name: True
    assert view.open_report(str(path))
    qtbot.waitUntil(lambda: view.analysis is not None, timeout=60_000)
    frame = view.system_model.frame.set_index("system")
    assert frame.loc[s, "human:adequacy"] == pytest.approx(4.25)
    assert frame.loc[s, "human:ser"] == pytest.approx(float(extras["protocols"]["ser"].value))
    assert {f"human:{k}" for k in extras["protocols"]} <= set(frame.columns)   # every one


def test_correlation_and_metrics_tabs_agree_under_the_default_convention(qtbot, view):
    """One default convention: the Correlation tab's system-level Pearson of every measure is
    the Metrics tab's (the issue saw 0.824 against 0.847 for BLEU)."""
    view.level_box.setCurrentText("system")
    qtbot.waitUntil(lambda: view.analysis.level == "system" and view.busy.isHidden(),
                    timeout=60_000)
    mv = view.metrics_view
    mv.level.setCurrentText("sys")
    mv.overview = None
    mv.compute(view.analysis.human)
    qtbot.waitUntil(lambda: mv.overview is not None, timeout=120_000)
    pearson = {r.measure: r.values.get("pearson") for r in mv.overview.table}
    for c in view.analysis.correlations:
        if c.measure in pearson:
            assert c.pearson == pytest.approx(pearson[c.measure], abs=1e-9), c.measure
    assert {c.measure for c in view.analysis.correlations} & set(pearson)
