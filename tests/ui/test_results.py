"""The analysis loop: options dialog, background runs (cancel / complete), result tables against the
batch command, opening a sentence, every plot, exports, and event-loop latency during a run."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from PySide6.QtCore import QElapsedTimer, Qt, QTimer

from evaltrans_qt.cli.main import main as cli_main
from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.errors import OptionError
from evaltrans_qt.ui.results_models import RAW_ROLE

from .conftest import open_db

MEASURES = ["wer", "per", "bleu", "nist", "cder", "ter", "chrf"]


class SlowExecutor(SerialExecutor):
    """Serial, but each chunk takes at least ``delay`` seconds (a long run in miniature)."""

    def __init__(self, delay: float = 0.4) -> None:
        super().__init__()
        self.delay = delay

    def run(self, measures, chunks, cancel=None):
        for item in super().run(measures, chunks, cancel):
            t_end = time.perf_counter() + self.delay
            while time.perf_counter() < t_end:
                if cancel is not None and cancel.is_set():
                    break
                time.sleep(0.01)
            yield item


@pytest.fixture
def results(qtbot, main_window, demo_copy):
    open_db(qtbot, main_window, demo_copy)
    view = main_window.results.results_view
    return main_window, view


def run_to_end(qtbot, view, **kw):
    with qtbot.waitSignal(view.runFinished, timeout=120_000):
        assert view.start_run(**kw)
    with qtbot.waitSignal(view.analysisReady, timeout=120_000):
        pass
    qtbot.waitUntil(lambda: not view.running, timeout=10_000)


# --------------------------------------------------------------------------- options
def test_options_dialog_covers_every_option_and_presets(qtbot):
    from evaltrans_qt.engine.options import option_fields
    from evaltrans_qt.ui.options_dialog import OptionsDialog
    dlg = OptionsDialog(EvalOptions(), ["wer", "bleu"])
    qtbot.addWidget(dlg)
    assert dlg.objectName() == "optionsDialog"
    for f in option_fields():                       # every batch option has an editor with help
        assert dlg.editor(f.metadata["flag"]).toolTip()
    assert dlg.measures() == ["bleu", "wer"]
    dlg.preset.setCurrentText("thesis default")
    dlg._apply_preset(dlg.preset.currentIndex())
    assert dlg.options() == PRESETS["thesis default"]
    dlg.editor("bleu-pad-rule").setCurrentText("initial")
    assert dlg.preset.currentIndex() == 0            # edited -> custom
    assert dlg.options().bleu_pad_rule == "initial"
    dlg.editor("transposition-costs").setText("1,2")
    with pytest.raises(OptionError):
        dlg.options()
    dlg._accept()
    assert "transposition-costs" in dlg.error_label.text() and dlg.isVisible() is False


def test_options_are_saved_with_the_database_session(results):
    window, view = results
    opts = EvalOptions(bleu_pad_rule="both", wer_ref_length_rule="lowestError")
    view.set_options(opts, ["wer", "bleu"])
    from evaltrans_qt.io.session import load_session
    sess = load_session(window.database_path)
    assert sess.options == opts and sess.measures == ["wer", "bleu"]
    ws = window.workspace                    # the one copy of the options
    ws.options, ws.measures = EvalOptions(), None
    view.load_session_options()
    assert view.options == opts and view.measures == ["wer", "bleu"]
    assert window.compare_view.options is ws.options


# --------------------------------------------------------------------------- runs
def test_cancel_one_run_then_complete_another(qtbot, results):
    window, view = results
    assert window.findChild(type(view.progress), "runProgress") is view.progress
    assert view.start_run(EvalOptions(), MEASURES, executor=SlowExecutor(0.5))
    assert view.running and view.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: view.progress.value() > 0 or bool(view._partial), timeout=60_000)
    view.cancel_run()
    qtbot.waitUntil(lambda: not view.running, timeout=30_000)
    assert view.run is None and view.progress.format() == "cancelled"
    assert len(view._partial) < len(window.database.systems())   # it really stopped early
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    assert set(view.run.systems) == set(window.database.systems())
    assert view.progress.format().startswith("done")
    from evaltrans_qt.io.session import load_session
    runs = load_session(window.database_path).runs
    assert runs and runs[-1]["measures"] == MEASURES      # the run is recorded with its options


def test_invwer_run_uses_the_controllers_niced_pool(qtbot, results):
    """INVWER has a pair phase: even the small demo database runs it on the run
    controller's own (niced, persistent) process pool, not on a pool iter_evaluate would
    start itself."""
    from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor
    from evaltrans_qt.run_controller import POOL_NICE
    window, view = results
    try:
        run_to_end(qtbot, view, options=EvalOptions(allow_transpositions=True),
                   measures=["wer", "invwer"])
        pool = view.runs.pool
        assert isinstance(pool, LocalProcessExecutor) and pool.nice == POOL_NICE
        run_to_end(qtbot, view, options=EvalOptions(allow_transpositions=True),
                   measures=["wer", "invwer"])
        assert view.runs.pool is pool                       # kept across runs
        assert set(view.run.systems) == set(window.database.systems())
        saved = 0.0
        for s in view.run.systems.values():   # per segment, nearest d_inv <= nearest d_LEV
            inv, wer = s.stats["invwer"][:, 0], s.stats["wer"][:, 0]
            assert np.all(inv <= wer)
            saved += wer.sum() - inv.sum()
        assert saved > 0                       # some reordering in the demo is an inversion
    finally:
        view.runs.close()


def test_system_table_equals_batch_command(qtbot, results, tmp_path, capsys):
    window, view = results
    opts = EvalOptions(bleu_pad_rule="both", wer_ref_length_rule="lowestError")
    run_to_end(qtbot, view, options=opts, measures=MEASURES)
    rc = cli_main(["batch", "--database", str(window.database_path), "--all-systems", "--json",
                   "--bleu-pad-rule", "both", "--wer-ref-length-rule", "lowestError",
                   "--measures", ",".join(MEASURES), "--output-file", str(tmp_path / "r.txt")])
    assert rc == 0
    batch = json.loads(capsys.readouterr().out)
    frame = view.system_model.frame.set_index("system")
    checked = 0
    for system, data in batch["systems"].items():
        for _m, sc in data["scores"].items():
            for col, v in sc["columns"].items():
                assert frame.loc[system, col] == pytest.approx(v, rel=1e-12, abs=1e-12), (system, col)
                checked += 1
    assert checked >= 4 * len(MEASURES)
    # the table sorts numerically by the raw value
    col = view.system_model.column_index("BLEU")
    view.system_view.sortByColumn(col, Qt.DescendingOrder)
    shown = [view.system_proxy.index(r, col).data(RAW_ROLE)
             for r in range(view.system_proxy.rowCount())]
    assert shown == sorted(shown, reverse=True)


def test_sentence_table_filters_and_opens_compare_view(qtbot, results):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    n = view.sentence_proxy.rowCount()
    assert n == len(list(window.database.iter_candidates()))
    view.sentence_filter.setText("RuleMT")
    assert 0 < view.sentence_proxy.rowCount() < n
    view.sentence_filter.setText("")
    view.disagree_measure.setCurrentText("WER")
    view.disagree_box.setChecked(True)
    assert view.sentence_proxy.rowCount() < n
    masked = view.sentence_proxy.rowCount()
    col = view.sentence_model.column_index("human:fluency")
    view.sentence_view.sortByColumn(col, Qt.DescendingOrder)
    assert view.sentence_proxy.rowCount() == masked               # the mask survives sorting
    vals = [view.sentence_proxy.index(r, col).data(RAW_ROLE) for r in range(masked)]
    finite = [v for v in vals if v == v]
    assert finite == sorted(finite, reverse=True) and all(v == v for v in vals[:len(finite)])
    view.disagree_box.setChecked(False)
    assert view.sentence_proxy.rowCount() == n
    # double-click a sentence -> the compare view shows that candidate
    proxy_index = view.sentence_proxy.index(5, 0)
    row = view.sentence_proxy.mapToSource(proxy_index).row()
    rec = view.sentence_model.record(row)
    seg, system = int(rec["segment"]), rec["system"]
    view.sentence_view.doubleClicked.emit(proxy_index)
    src = window.database.sources[seg]
    target = next(t for t in src.targets if t.system == system and not window.database.is_reference(t))
    assert window.compare_view._source == src.text
    assert window.compare_view._hyp == target.text
    # largest difference between two systems
    view.diff_a.setCurrentText("Lumen-NMT")
    view.diff_b.setCurrentText("RuleMT")
    diff = view.show_difference()
    d = diff["difference"].abs().to_numpy()
    assert np.all(d[:-1] >= d[1:])


# --------------------------------------------------------------------------- plots
def test_every_plot_is_produced(qtbot, results, tmp_path):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    a = view.analysis
    assert a.human == "fluency" and len(a.correlations) == len(MEASURES)
    # scatter: sentence level, both regression lines, statistics text (plots draw when shown)
    view.tabs.setCurrentIndex(next(i for i in range(view.tabs.count())
                                   if view.tabs.widget(i).isAncestorOf(view.scatter)))
    view.plot_measure.setCurrentText("bleu")
    assert len(view.scatter.x) == a.correlations[0].n
    assert set(view.scatter.lines) == {"least squares", "least orthogonal squares"}
    c = view.correlation_of("bleu")
    assert c.pearson > 0 and c.pearson_ci[0] <= c.pearson <= c.pearson_ci[1]
    assert np.isclose(np.corrcoef(view.scatter.x, view.scatter.y)[0, 1], c.pearson)
    # bars: one bar per measure
    assert len(next(iter(view.bars.values.values()))) == len(MEASURES)
    # system level
    with qtbot.waitSignal(view.analysisReady, timeout=60_000):
        view.level_box.setCurrentText("system")
    assert len(view.scatter.x) == 4
    # combination curve (Figure 8.1)
    view.comb_a.setCurrentText("WER")
    view.comb_b.setCurrentText("BLEU")
    view.compute_combination()
    qtbot.waitUntil(lambda: "optimal weights" in view.comb_text.text(), timeout=60_000)
    # significance matrix
    view.sig_measure.setCurrentText("bleu")
    view.sig_samples.setValue(200)
    view.compute_significance()
    qtbot.waitUntil(lambda: view.sig_plot.pvalues.shape == (4, 4), timeout=60_000)
    p = view.sig_plot.pvalues
    assert np.allclose(p, p.T, equal_nan=True) and np.nanmax(p) <= 1
    # histogram: drawn when its tab is shown
    view.tabs.setCurrentIndex(view.tabs.count() - 1)
    view.hist_measure.setCurrentText("BLEU")
    assert sum(int(c.sum()) for c in view.histogram.counts.values()) == len(a.tables.sentences)
    import pyqtgraph as pg
    for name in ("correlationPlot", "correlationBars", "combinationPlot", "significanceMatrix",
                 "histogramPlot"):
        assert window.findChild(pg.PlotWidget, name) is not None, name


# --------------------------------------------------------------------------- exports
def test_exports_report_csv_latex_png(qtbot, results, tmp_path):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    csv = tmp_path / "systems.csv"
    view.export_table(str(csv), "systems")
    lines = csv.read_text().splitlines()
    sig_lines = (tmp_path / "systems.signature.txt").read_text().splitlines()   # the sidecar
    assert [ln.split(":")[0] for ln in sig_lines] == list(MEASURES)
    bleu_line = next(ln for ln in sig_lines if ln.startswith("bleu:"))
    assert "|tok:13a|smooth:none|version:" in bleu_line
    # the header tooltip names the same signature
    col = list(view.system_model.frame.columns).index("BLEU")
    tip = view.system_model.headerData(col, Qt.Horizontal, Qt.ToolTipRole)
    assert bleu_line.split(": ", 1)[1] in tip
    assert lines[0].startswith("system,") and "BLEU" in lines[0] and len(lines) == 5
    tex = tmp_path / "corr.tex"
    view.export_table(str(tex), "correlations")
    text = tex.read_text()
    assert r"\toprule" in text and r"\bottomrule" in text and "pearson" in text
    assert text.count(r"\\") == 1 + len(MEASURES)
    png = tmp_path / "scatter.png"
    view.tabs.setCurrentIndex(2)
    view.export_plot(str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "scatter.svg"
    view.export_plot(str(svg))
    assert "<svg" in svg.read_text()[:500]
    report = tmp_path / "report.xml"
    view.save_report(str(report), "WebTrans")
    from evaltrans_qt.io.report import read_report
    back = read_report(report)
    assert back.options == view.run.options
    assert back.meta["signatures"] == view.run.signatures()
    assert back.signature("ter") == view.run.signature("ter")
    assert back.systems["WebTrans"].scores["bleu"].value == pytest.approx(
        view.run.systems["WebTrans"].scores["bleu"].value, abs=1e-9)
    # a saved report opens again in the same tables (after the question, answered yes)
    asked = []
    view.ask_replace_results = lambda name: asked.append(name) or True
    view.open_report(str(report))
    assert asked == ["report.xml"]
    qtbot.waitUntil(lambda: list(view.system_model.frame.get("system", [])) == ["WebTrans"],
                    timeout=60_000)


def test_bad_export_suffix_is_a_clear_error(qtbot, results, tmp_path):
    window, view = results
    from evaltrans_qt.errors import SaveError
    with pytest.raises(SaveError, match="use .png or .svg"):
        view.export_plot(str(tmp_path / "plot.gif"))
    assert not (tmp_path / "plot.gif").exists()


# --------------------------------------------------------------------------- responsiveness
def test_event_loop_keeps_running_during_a_long_run(qtbot, results):
    """A 10 ms timer keeps firing while a run computes in the background."""
    window, view = results
    gaps: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def tick():
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    # real computation (not sleeping): all measures, several option sets, serial in the worker
    opts = EvalOptions(allow_transpositions=True, allow_long_jumps=True,
                       substitution_cost_rule="prefix")
    run_to_end(qtbot, view, options=opts, measures=None, executor=SerialExecutor())
    timer.stop()
    assert len(gaps) > 20
    worst = max(gaps)
    print(f"event loop: {len(gaps)} ticks, worst gap {worst} ms, median {np.median(gaps)} ms")
    assert worst < 500   # generous for a loaded 2-core CI machine; the benchmark reports real figures


# --------------------------------------------------------------------------- live correlation
def test_live_correlation_updates_while_scoring(qtbot, results):
    window, view = results
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    live = window.results.live_panel
    qtbot.waitUntil(lambda: live.updates >= 1, timeout=30_000)
    before = live.updates
    n_before = int(live.model.frame["n"].max())
    # score one more candidate of the class through the window's normal path
    db = window.database
    src_i, tgt_i = next((i, j) for i, s in enumerate(db.sources) for j, t in enumerate(s.targets)
                        if not db.is_reference(t) and t.value("fluency") is None)
    from evaltrans_qt.io.journal import ScoreChange
    t = db.sources[src_i].targets[tgt_i]
    window.workspace.commit(ScoreChange(db.sources[src_i].text, t.text, t.system, "fluency",
                                        3, "tester", target_index=tgt_i))
    qtbot.waitUntil(lambda: live.updates > before, timeout=30_000)
    assert int(live.model.frame["n"].max()) == n_before + 1


def test_screenshot_of_the_results_view(tmp_path):
    """`evaltrans-qt --screenshot OUT.png --view results FILE` runs, waits, renders, exits."""
    import os
    import shutil
    import subprocess
    import sys

    from PySide6.QtGui import QImage

    from evaltrans_qt.io.etdb import demo_database_path
    db = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), db)
    out = tmp_path / "results.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", EVALTRANS_QT_DATA_DIR=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    proc = subprocess.run([sys.executable, "-c", "import sys; from evaltrans_qt.ui.app import main; "
                           "sys.exit(main(sys.argv[1:]))", "--screenshot", str(out), "--view",
                           "results", "--size", "1000x700", str(db)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1000, 700)
    assert db.with_name(db.name + ".session.json").exists()    # the run was recorded
    # a screenshot hides panels and switches autosave off: none of it may reach the settings
    assert not any((tmp_path / "config").rglob("*.ini"))


def test_opening_another_database_cancels_the_run_of_the_first(qtbot, results, tmp_path):
    """Found in review: A's run finished into B's view and B's session log."""
    import shutil

    from evaltrans_qt.io.session import load_session
    window, view = results
    other = tmp_path / "other.etdb.xml"
    shutil.copyfile(window.database_path, other)
    assert view.start_run(EvalOptions(), MEASURES, executor=SlowExecutor(0.5))
    open_db(qtbot, window, other)
    qtbot.waitUntil(lambda: not view.running, timeout=60_000)
    qtbot.wait(500)
    assert view.run is None
    assert load_session(other).runs == []


def test_damaged_session_file_is_kept_aside_not_overwritten(results):
    window, view = results
    from evaltrans_qt.io.session import load_session, session_path
    sp = session_path(window.database_path)
    sp.write_text("{ this is not json", encoding="utf-8")
    view.set_options(EvalOptions(max_ngram=3), ["bleu"])
    bad = sp.with_name(sp.name + ".bad")
    assert bad.read_text(encoding="utf-8") == "{ this is not json"
    assert load_session(window.database_path).options.max_ngram == 3
    assert "damaged" in view.status.text()
