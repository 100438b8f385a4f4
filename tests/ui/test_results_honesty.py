"""Results are never shown as what they are not.

Main tests: results are marked out of date after an option change and current after a
run; the report of a 20-system run has 20 systems. Also: opening a report asks and shows
its own date and signatures, long operations show a busy indicator, plots keep legend,
statistics and data apart and fit the data, exports are print-resolution files with
ordinary permissions, and the smaller items (segment numbers, INVWER, time left, eval time).
"""

from __future__ import annotations

import json
import os
import stat

import numpy as np
import pytest
from PySide6.QtCore import Qt

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.ui.results_models import RAW_ROLE, cell_text

from .conftest import open_db
from .test_results import run_to_end

MEASURES = ["wer", "bleu", "cder"]


@pytest.fixture
def results(qtbot, main_window, demo_copy):
    open_db(qtbot, main_window, demo_copy)
    return main_window, main_window.results.results_view


def test_out_of_date_after_an_option_change_and_current_after_a_run(qtbot, results):
    """A changed option marks the results out of date; a new run makes them current."""
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    assert window.workspace.run_is_current and view.banner.isHidden()
    old_wer = view.system_model.frame.set_index("system")["WER"].copy()
    view.set_options(EvalOptions(case="ignore"), MEASURES)     # what the dialog's OK does
    assert not window.workspace.run_is_current
    assert not view.banner.isHidden() and "options changed" in view.banner_text.text()
    assert view.run_again.isEnabled()
    # the old numbers stay readable, marked, until the run again is done
    assert view.system_model.frame.set_index("system")["WER"].equals(old_wer)
    with qtbot.waitSignal(view.runFinished, timeout=120_000):
        qtbot.mouseClick(view.run_again, Qt.LeftButton)
    qtbot.waitUntil(lambda: not view.running, timeout=30_000)
    assert window.workspace.run_is_current and view.banner.isHidden()
    assert view.run.options.case == "ignore"
    # a merge or import into the database makes the run out of date as well
    window.database_modified()
    assert not view.banner.isHidden() and "database changed" in view.banner_text.text()


def test_busy_indicator_while_the_level_changes(qtbot, results):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    view.tabs.setCurrentIndex(2)
    qtbot.waitUntil(view.busy.isHidden, timeout=30_000)
    assert view.scatter.has_data
    view.level_box.setCurrentText("system")
    # at once: the sentence plot is gone and the indicator shows
    assert not view.scatter.has_data and not view.busy.isHidden()
    qtbot.waitUntil(lambda: view.analysis.level == "system" and view.busy.isHidden(), timeout=60_000)
    assert view.scatter.has_data and len(view.scatter.x) == 4


def test_opening_a_report_asks_and_shows_its_date_and_signatures(qtbot, results, tmp_path):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    paths = view.save_report(str(tmp_path / "r.xml"), "WebTrans")
    view.ask_replace_results = lambda name: False               # "Cancel"
    assert not view.open_report(str(paths[0]))
    assert window.workspace.run_origin == "run" and len(view.run.systems) == 4
    from evaltrans_qt.io.report import read_report
    back = read_report(paths[0])
    view.ask_replace_results = lambda name: True
    assert view.open_report(str(paths[0]))
    qtbot.waitUntil(lambda: view.analysis is not None, timeout=60_000)
    assert not view.progress.format().startswith("done")         # nothing left from the run
    assert back.meta["date"] in view.progress.format() and back.meta["date"] in view.status.text()
    assert back.meta["signatures"]["bleu"] in view.status.text()
    assert not view.banner.isHidden() and "r.xml" in view.banner_text.text()
    assert back.meta["date"] in view.banner_text.text()


def test_the_report_of_a_20_system_run_has_20_systems(qtbot, main_window, wmt_dir, tmp_path):
    """On the real WMT21 en-de data: one report per system (the report format
    holds one system; named as `evaltrans batch --all-systems` names them), each with its
    system's BLEU as sacreBLEU computed it (reference_values.json)."""
    from evaltrans_qt.io.etdb import dumps
    from evaltrans_qt.io.report import read_report
    from evaltrans_qt.io.wmt import import_wmt
    path = tmp_path / "wmt21.etdb.xml"
    path.write_bytes(dumps(import_wmt(wmt_dir)))
    window = main_window
    open_db(qtbot, window, path)
    view = window.results.results_view
    with qtbot.waitSignal(view.runFinished, timeout=600_000):
        assert view.start_run(EvalOptions(bleu_smooth_method="exp"), ["bleu"])
    qtbot.waitUntil(lambda: not view.running, timeout=60_000)
    assert len(view.run.systems) == 20
    written = view.save_report(str(tmp_path / "report.xml"))
    assert len(written) == 20 and len(set(written)) == 20
    want = json.loads((wmt_dir / "reference_values.json").read_text(encoding="utf-8"))["systems"]
    got = {}
    for p in written:
        run = read_report(p)
        (system,) = run.systems
        assert p.name == f"report.{''.join(c if c.isalnum() or c in '-_.' else '_' for c in system)}.xml"
        got[system] = run.systems[system].scores["bleu"].value
    assert len(got) == 20
    for system, value in got.items():
        key = next(k for k in want if k.endswith(f".hyp.{system}.de"))
        assert 100 * value == pytest.approx(want[key]["bleu_allrefs"], abs=1e-9), system


# --------------------------------------------------------------------------- plots
def test_scatter_keeps_legend_statistics_and_data_apart_and_fits_the_data(qtbot):
    from evaltrans_qt.ui.plots import ScatterPlot
    plot = ScatterPlot()
    qtbot.addWidget(plot)
    plot.resize(600, 450)
    plot.show()
    rng = np.random.default_rng(1)
    x = rng.normal(-12, 0.5, 300)
    y = rng.uniform(-25, 0, 300)         # almost no correlation: the orthogonal line is steep
    plot.set_data(x, y, xlabel="x", ylabel="y", stats_text="r = 0.01\nρ = 0.02\nτ = 0.01")
    qtbot.wait(20)
    a, b = plot.lines["least orthogonal squares"]
    assert abs(a) * np.ptp(x) > 3 * np.ptp(y)       # the line would stretch the y axis ...
    (x0, x1), (y0, y1) = plot.getPlotItem().getViewBox().viewRange()
    assert x0 >= x.min() - 0.1 * np.ptp(x) and x1 <= x.max() + 0.1 * np.ptp(x)
    assert y0 >= y.min() - 0.1 * np.ptp(y) and y1 <= y.max() + 0.1 * np.ptp(y)   # ... it does not
    vb = plot.getPlotItem().getViewBox().sceneBoundingRect()
    assert not plot.legend.sceneBoundingRect().intersects(vb)
    assert not plot.stats.sceneBoundingRect().intersects(vb)
    assert not plot.stats.sceneBoundingRect().intersects(plot.legend.sceneBoundingRect())
    assert "ρ = 0.02" in plot.stats.text


def test_significance_heat_map_has_a_colour_legend_and_readable_p_values(qtbot):
    from evaltrans_qt.ui.plots import SignificanceMatrix
    m = SignificanceMatrix()
    qtbot.addWidget(m)
    assert not m.has_data and m._hint.isVisible() and "Compute" in m._hint.toPlainText()
    p = np.array([[np.nan, 0.01, 0.5], [0.01, np.nan, 0.2], [0.5, 0.2, np.nan]])
    m.set_data(["A", "B", "C"], p)
    assert m.colorbar.levels() == (0.0, 1.0)
    for t in m._texts:                   # text contrasts with its cell
        v = float(t.toPlainText())
        cell = m.cmap.map(v, mode="qcolor")
        assert abs(t.color.lightness() - cell.lightness()) > 100, v
        assert t.textItem.font().pointSizeF() >= 8


def test_plot_export_is_print_resolution_with_ordinary_permissions(qtbot, tmp_path):
    from PySide6.QtGui import QImage

    from evaltrans_qt.ui.plots import HistogramPlot, export_plot
    h = HistogramPlot()
    qtbot.addWidget(h)
    h.resize(500, 300)
    h.set_data({"A": np.arange(50.0), "B": np.arange(30.0)}, "x")
    old = os.umask(0o022)
    try:
        out = export_plot(h, tmp_path / "h.png")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    img = QImage(str(out))
    assert img.width() == 2400 and img.height() == 1440
    assert round(img.dotsPerMeterX() * 0.0254) == 300


# --------------------------------------------------------------------------- smaller things
def test_sentence_table_counts_segments_from_one(qtbot, results):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    m = view.sentence_model
    col = m.column_index("segment")
    raw = m.index(0, col).data(RAW_ROLE)
    assert raw == 0 and cell_text(view.sentence_proxy.index(0, col)) == "1"
    # the source list's first row is number 1 as well
    assert window.browse.source_model.index(0, 0).data(Qt.DisplayRole) == 0
    assert cell_text(window.browse.source_proxy.index(0, 0)) == "1"
    # human scores come right after system and segment
    cols = list(m.frame.columns)
    assert cols[:3] == ["system", "segment", "human:fluency"]


def test_ticking_invwer_sets_allow_transpositions(qtbot):
    from evaltrans_qt.ui.options_dialog import OptionsDialog
    dlg = OptionsDialog(EvalOptions(), ["wer"])
    qtbot.addWidget(dlg)
    assert not dlg.options().allow_transpositions
    dlg._measure_boxes["invwer"].setChecked(True)
    assert dlg.options().allow_transpositions and "invwer" in dlg.measures()
    from evaltrans_qt.workspace import skipped_measures
    assert skipped_measures(["invwer"], dlg.options()) == {}
    assert "allow-transpositions" in skipped_measures(["invwer"], EvalOptions())["invwer"]


def test_time_left_is_the_runs_time_left_estimate():
    """The view's estimate is the run's TimeLeft (engine/run/schedule.py), not its own."""
    from evaltrans_qt.engine.run.schedule import TimeLeft
    from evaltrans_qt.run_controller import RunUpdate
    left = TimeLeft(workers=2)
    # the pair phase: the cost model's estimate from the first event on
    est = left.update(10.0, 3, 3006, cost_done=0.5, cost_total=600.0)
    assert est is not None and est > 120
    u = RunUpdate(3, 3006, "INVWER: 3 of 3006 sentence pairs", 10.0, est)
    assert u.eta_text().startswith("10 s, ~") and "min left" in u.eta_text()
    assert RunUpdate(5, 10, "rows", 10.0, 10.0).eta_text() == "10 s, ~10 s left"
    assert RunUpdate(0, 10, "tokenising", 30.0, None).eta_text() == "30 s"
    assert RunUpdate(10, 10, "done", 30.0, 0.0).eta_text() == "30 s"


def test_progress_shows_pairs_done_and_an_estimate(qtbot, results):
    from evaltrans_qt.run_controller import RunUpdate
    window, view = results
    view._on_update(RunUpdate(12, 3006, "INVWER: 12 of 3006 sentence pairs", 20.0, 400.0))
    assert "0.4 %" in view.progress.format() and "12 of 3006" in view.progress.format()
    assert view.eta.text() == "20 s, ~7 min left"
    assert view.warnings_label.isHidden()
    view._on_update(RunUpdate(12, 3006, "A: done", 21.0, 390.0, ("3 sentences approximated",)))
    assert not view.warnings_label.isHidden()
    assert "3 sentences approximated" in view.warnings_label.text()


def test_eval_time_is_a_timestamp_and_seconds_are_kept(qtbot, main_window, demo_copy):
    from datetime import datetime

    from evaltrans_qt.io.etdb import load_database
    from evaltrans_qt.ui.scoring import seconds_of
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("ana", ["fluency"])
    item = s.current
    s.score(3)
    w.save(wait=True)
    back = load_database(demo_copy)
    sc = next(x for x in back.sources[item[0]].targets[item[1]].scores if x.judge == "ana")
    assert datetime.fromisoformat(sc.time).tzinfo is not None
    assert seconds_of(sc) is not None and seconds_of(sc) >= 0
    assert sc.extra_attrs["seconds"] == f"{seconds_of(sc):.1f}"
    # older files: seconds spent in `time` stay readable
    from evaltrans_qt.engine.data.database import Score
    assert seconds_of(Score("fluency", 3.0, "x", "12.5")) == 12.5
    assert seconds_of(Score("fluency", 3.0, "x", "2005-03-01T10:00:00")) is None


def test_sacrebleu_is_imported_in_the_main_thread_at_start(main_window):
    import sys
    assert "sacrebleu.tokenizers.tokenizer_13a" in sys.modules
    assert "sacrebleu.metrics.chrf" in sys.modules


def test_file_dialogs_start_beside_the_database(qtbot, results, monkeypatch):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    asked = []
    from PySide6.QtWidgets import QFileDialog
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (asked.append(a[2]), ("", ""))[1]))
    view.ask_save_report()
    view.ask_export_table()
    view.tabs.setCurrentIndex(2)
    view.ask_export_plot()
    folder = str(window.database_path.parent)
    assert asked == [f"{folder}/demo.report.xml", f"{folder}/demo.systems.csv",
                     f"{folder}/demo.correlationPlot.png"], asked
