"""WMT14 metrics-task tables (Macháček ch. 4, Tables 4.2-4.7) on the demo database split
into two 'language pairs', and their LaTeX export."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.metaeval.correlation import correlate_run
from evaltrans_qt.engine.metaeval.wmt14_tables import wmt14_tables
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.io.etdb import demo_database_path, load_database
from evaltrans_qt.io.export import to_latex


def test_tables_layout_values_and_latex():
    db = load_database(demo_database_path())
    run = evaluate(db, EvalOptions(), ["bleu", "ter"])
    t = wmt14_tables({"xx-en": (db, run), "yy-en": (db, run)}, "fluency", n_boot=100)
    sys_t, seg_t, var_t = t["system"], t["segment"], t["variants"]
    ref = {c.measure: c for c in correlate_run(db, run, "fluency", level="system",
                                               n_boot=100, convention="thesis")}
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


def test_wmt14_tables_command_json_and_latex(tmp_path, capsys):
    import json
    import shutil

    from evaltrans_qt.cli.main import main
    db = tmp_path / "demo.etdb.xml"
    shutil.copy(demo_database_path(), db)
    tex = tmp_path / "t.tex"
    rc = main(["wmt14-tables", f"xx-en={db}", f"yy-en={db}", "--human", "fluency",
               "--measures", "bleu,ter", "--bootstrap", "100", "--json", "-o", str(tex)])
    assert rc == 0
    got = json.loads(capsys.readouterr().out)
    d = load_database(demo_database_path())
    want = wmt14_tables({"xx-en": (d, evaluate(d, EvalOptions(), ["bleu", "ter"])),
                         "yy-en": (d, evaluate(d, EvalOptions(), ["bleu", "ter"]))},
                        "fluency", n_boot=100)
    assert [r["metric"] for r in got["system"]] == list(want["system"]["metric"])
    assert got["segment"][0]["Average"] == pytest.approx(want["segment"]["Average"].iloc[0])
    assert tex.read_text().count(r"\toprule") == 3
    # every output names its system-level convention: the thesis'
    assert got["convention"] == "thesis"
    assert tex.read_text().startswith("% convention: system level, thesis convention")
    rc = main(["wmt14-tables", f"xx-en={db}", "--human", "fluency", "--measures", "bleu",
               "--bootstrap", "10"])
    assert rc == 0 and "convention: system level, thesis convention (section 5.5)" in \
        capsys.readouterr().out
    assert main(["wmt14-tables", "xx-en"]) == 2
