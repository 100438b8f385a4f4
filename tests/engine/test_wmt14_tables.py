"""WMT14 metrics-task tables (Macháček ch. 4, Tables 4.2-4.7) on the demo database split
into two 'language pairs', and their LaTeX export."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.driver import evaluate
from evaltrans_qt.engine.metaeval import correlate_run
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.wmt14_tables import wmt14_tables
from evaltrans_qt.io.etdb import demo_database_path, load_database
from evaltrans_qt.io.export import to_latex


def test_tables_layout_values_and_latex():
    db = load_database(demo_database_path())
    run = evaluate(db, EvalOptions(), ["bleu", "ter"])
    t = wmt14_tables({"xx-en": (db, run), "yy-en": (db, run)}, "fluency", n_boot=100)
    sys_t, seg_t, var_t = t["system"], t["segment"], t["variants"]
    ref = {c.measure: c for c in correlate_run(db, run, "fluency", level="system", n_boot=100)}
    n = ref["bleu"].n
    assert list(sys_t.columns) == ["metric", f"xx-en {n}", f"yy-en {n}", "Average",
                                   "Spearman average"]
    row = sys_t.set_index("metric").loc["bleu"]
    assert row["Average"] == pytest.approx(ref["bleu"].pearson)      # same pair twice
    lo, hi = ref["bleu"].pearson_ci
    assert row[f"xx-en {n}"] == f"{ref['bleu'].pearson:.3f} ± {(hi - lo) / 2:.3f}"
    assert list(sys_t["Average"]) == sorted(sys_t["Average"], reverse=True)
    seg = {c.measure: c for c in correlate_run(db, run, "fluency", level="sentence", n_boot=0)}
    assert seg_t.set_index("metric").loc["ter", "xx-en"] == pytest.approx(seg["ter"].wmt["wmt14"])
    assert list(var_t.columns) == ["metric", "WMT12", "WMT13", "WMT14", "HTIES"]
    tex = to_latex(sys_t, caption="System-level correlations")
    assert r"\toprule" in tex and "xx-en" in tex and np.isfinite(row["Average"])
