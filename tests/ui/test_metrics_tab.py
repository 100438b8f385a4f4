"""The results view's "Metrics" tab fills on the demo database -- ranked metrics
with significance clusters (a FrameModel table) and the metric-vs-metric p-value heat
map -- shows an external metric of the database like our own measures, and exports both."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from evaltrans_qt.ui.results_models import cell_text

from .conftest import open_db


def test_metrics_tab_fills_on_the_demo_database(qtbot, main_window, demo_copy, tmp_path,
                                                monkeypatch):
    from evaltrans_qt.engine.measures.external import ExternalMetric, add_external
    from evaltrans_qt.io.etdb import load_database, save_database
    db = load_database(demo_copy)
    rng = np.random.default_rng(0)
    ext = ExternalMetric("COMET-like", True)
    for i, src in enumerate(db.sources):
        for t in db.candidates(src):
            ext.segments.setdefault(t.system, {})[i] = float(rng.normal())
    add_external(db, ext)
    save_database(db, demo_copy)
    open_db(qtbot, main_window, demo_copy)
    view = main_window.results.results_view
    metrics = view.metrics_view
    assert view.tabs.tabText(view.tabs.indexOf(metrics)) == "Metrics"
    assert view.tabs.tabText(view.tabs.count() - 1) == "Histogram"
    with qtbot.waitSignal(view.runFinished, timeout=120_000):
        assert view.start_run(measures=["wer", "bleu", "ter", "chrf"])
    qtbot.waitUntil(lambda: metrics.overview is not None or bool(metrics.error), timeout=120_000)
    assert not metrics.error, metrics.error
    ov = metrics.overview
    model = metrics.proxy
    rows = range(model.rowCount())
    names = [model.index(r, 1).data().rstrip("*") for r in rows]
    assert sorted(names) == sorted(["wer", "bleu", "ter", "chrf", "COMET-like"])
    values = [model.index(r, 3).data() for r in rows]
    assert values == sorted(values, reverse=True)                 # ranked, best first
    clusters = [model.index(r, 2).data() for r in rows]
    assert clusters[0] == 1 and clusters == sorted(clusters)
    # the delegate writes the numbers as the table always has: four decimals, the
    # cluster as a whole number, epsilon with four significant digits or a dash
    assert [cell_text(model.index(r, 3)) for r in rows] == [f"{v:.4f}" for v in values]
    assert [cell_text(model.index(r, 2)) for r in rows] == [str(c) for c in clusters]
    eps = [model.index(r, 8).data() for r in rows]
    assert [cell_text(model.index(r, 8)) for r in rows] == [
        f"{e:.4g}" if np.isfinite(e) else "–" for e in eps]
    assert model.headerData(3, Qt.Horizontal) == f"{ov.significance.statistic} (ranked)"
    assert metrics.heatmap.pvalues.shape == (5, 5)
    p = metrics.heatmap.pvalues
    assert np.isnan(np.diag(p)).all() and np.nanmax(p) <= 1 and np.nanmin(p) >= 0
    assert ov.significance.human in ("fluency", "adequacy", "sser")
    # another test recomputes off the UI thread
    metrics.method.setCurrentText("williams")
    qtbot.waitUntil(lambda: metrics.overview is not ov and metrics.overview is not None,
                    timeout=60_000)
    assert metrics.overview.significance.method == "williams"
    # Evaluate -> Export table / plot on this tab: the metrics table and the heat map
    import pandas as pd
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QFileDialog
    view.tabs.setCurrentWidget(metrics)
    target = {"path": str(tmp_path / "metrics")}
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (target["path"], "CSV (*.csv)"))
    main_window.results.act_export_table.trigger()
    frame = pd.read_csv(tmp_path / "metrics.csv")
    assert list(frame["measure"]) == list(metrics.model.frame["measure"])
    target["path"] = str(tmp_path / "heat.png")
    main_window.results.act_export_plot.trigger()
    assert not QImage(str(tmp_path / "heat.png")).isNull()
