"""The system table's 95 % intervals and significance clusters are the numbers of
``evaltrans significance`` (paired bootstrap, its default seed), clustered as WMT does."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaltrans_qt.cli.main import main as cli_main
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.ui.results_models import cell_text

from .conftest import open_db
from .test_results import run_to_end


def test_intervals_and_clusters_equal_evaltrans_significance(qtbot, main_window, demo_copy,
                                                            capsys):
    open_db(qtbot, main_window, demo_copy)
    view = main_window.results.results_view
    run_to_end(qtbot, view, options=EvalOptions(), measures=["wer", "bleu"])
    assert view.interval_measure.currentText() == "bleu"            # BLEU first
    qtbot.waitUntil(lambda: view.intervals is not None and "cluster" in
                    view.system_model.frame.columns, timeout=60_000)
    rc = cli_main(["significance", str(main_window.database_path),
                   "--measure", "bleu", "--json"])
    assert rc == 0
    cli = json.loads(capsys.readouterr().out)
    frame = view.system_model.frame.set_index("system")
    for i, s in enumerate(cli["systems"]):
        lo, hi = cli["intervals"][i]
        assert frame.loc[s, "BLEU 95% low"] == pytest.approx(lo, rel=1e-12)
        assert frame.loc[s, "BLEU 95% high"] == pytest.approx(hi, rel=1e-12)
        assert lo <= frame.loc[s, "BLEU"] <= hi or cli["n_sentences"] < 5
    # clusters: best first; a new cluster exactly where a system of the current one is
    # significantly better (p < 0.05)
    p = np.array(cli["p_values"])
    order = list(np.argsort(-np.array(cli["scores"]), kind="stable"))
    ranks, rank, start = [], 1, 0
    for k, i in enumerate(order):
        if any(p[order[j], i] < 0.05 for j in range(start, k)):
            rank, start = rank + 1, k
        ranks.append(rank)
    expect = {cli["systems"][i]: r for i, r in zip(order, ranks)}
    assert {s: int(frame.loc[s, "cluster"]) for s in expect} == expect
    assert frame["cluster"].min() == 1 and frame["cluster"].max() > 1   # not one big cluster
    # the cells: intervals in the display scale (0-100), clusters as whole numbers
    m = view.system_model
    row = 0
    s = m.frame.iloc[row]["system"]
    assert cell_text(m.index(row, m.column_index("BLEU 95% low"))) == \
        f"{100 * frame.loc[s, 'BLEU 95% low']:.2f}"
    assert cell_text(m.index(row, m.column_index("cluster"))) == str(expect[s])
    # another measure: its own intervals (WER: lower is better, clusters best first)
    view.interval_measure.setCurrentText("wer")
    qtbot.waitUntil(lambda: view.intervals is not None and view.intervals.measure == "wer"
                    and "WER 95% low" in view.system_model.frame.columns, timeout=60_000)
    f = view.system_model.frame.set_index("system")
    best = f["WER"].idxmin()
    assert f.loc[best, "cluster"] == 1


def test_a_new_run_never_shows_the_previous_runs_intervals(qtbot, main_window, demo_copy):
    from evaltrans_qt.ui.results_view import system_intervals
    open_db(qtbot, main_window, demo_copy)
    view = main_window.results.results_view
    run_to_end(qtbot, view, options=EvalOptions(), measures=["bleu"])
    qtbot.waitUntil(lambda: view._intervals_run is view.run, timeout=60_000)
    first = view.run
    run_to_end(qtbot, view, options=EvalOptions(case="ignore", bleu_pad_rule="both"),
               measures=["bleu"])
    assert view.run is not first
    # until the new run's intervals arrive, the table has none (not the old run's)
    frame = view.system_model.frame
    assert "cluster" not in frame.columns or view._intervals_run is view.run
    qtbot.waitUntil(lambda: view._intervals_run is view.run
                    and "BLEU 95% low" in view.system_model.frame.columns, timeout=60_000)
    expect = system_intervals(view.run, "bleu")
    got = view.system_model.frame.set_index("system")
    for s, (lo, hi) in expect.bounds.items():
        assert got.loc[s, "BLEU 95% low"] == pytest.approx(lo, rel=1e-12)
        assert got.loc[s, "BLEU 95% high"] == pytest.approx(hi, rel=1e-12)
