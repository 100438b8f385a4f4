"""Human-evaluation protocols in the results: protocol columns in the results view,
<human-protocols> in the reports of the application and of ``evaltrans batch``, strict typed
score values."""

from __future__ import annotations

import math

import pytest
from lxml import etree

from evaltrans_qt.engine.human import protocol_scores
from evaltrans_qt.io.etdb import load_database
from tests.ui.conftest import open_db
from tests.ui.test_results import run_to_end


@pytest.mark.parametrize("text,value", [("-7,5", -7.5), ("10", 10.0), ("3.", 3.0),
                                        ("inf", None), ("nan", None), ("1_0", None),
                                        ("\u0663", None), ("1e999", None), ("", None)])
def test_typed_values_use_the_strict_parser(text, value):
    from evaltrans_qt.ui.scoring import parse_value
    assert parse_value(text) == value


def _protocols_in(path):
    root = etree.parse(str(path)).getroot()
    return {p.get("name"): (float(p.text), int(p.get("sentences")))
            for p in root.iter("protocol")}


def _expected(db, system):
    return {n: v for n, v in protocol_scores.system_values(db, system).items()}


def _close(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


def test_batch_report_has_the_databases_protocols(demo_copy, tmp_path):
    from evaltrans_qt.cli.main import main
    db = load_database(demo_copy)
    out = tmp_path / "r.xml"
    system = next(s for s in db.systems() if s and any(
        t.postedits for _, t in db.iter_targets() if t.system == s))
    rc = main(["batch", "--database", str(demo_copy), "--system", system, "--measures", "wer",
               "--xml-mode", "--output-file", str(out), "--jobs", "1"])
    assert rc == 0
    got = _protocols_in(out)
    want = _expected(db, system)
    assert set(got) == set(want) and {"hter", "ier", "awer", "ser"} <= set(got)
    for n, v in want.items():
        assert _close(got[n][0], float(v.value)) and got[n][1] == v.sentences, n


def test_results_view_shows_protocol_columns_and_report_has_them(qtbot, main_window, demo_copy,
                                                                  tmp_path):
    w = main_window
    open_db(qtbot, w, demo_copy)
    view = w.results.results_view
    run_to_end(qtbot, view, measures=["wer", "bleu"])
    # the result tables of this run carry the protocols as human columns (engine/run/tables.py)
    from evaltrans_qt.engine.run.tables import build_tables
    cols = list(build_tables(view.run, w.database).systems.columns)
    for p in ("hter", "ier", "awer"):
        assert f"human:{p}" in cols, (p, cols)
    paths = view.save_report(str(tmp_path / "rep.xml"))
    db = w.database
    for path in paths:
        system = path.name.split(".")[1] if len(paths) > 1 else None
        got = _protocols_in(path)
        assert {"hter", "ier", "awer", "ser"} <= set(got)
        if system and system in db.systems():
            for n, v in _expected(db, system).items():
                assert _close(got[n][0], float(v.value)), n


def test_protocols_are_offered_and_correlated_in_the_results_view(qtbot, main_window, demo_copy):
    """The human selector offers the protocols the judges' work defines, and choosing one
    correlates every measure with it (negated error rates: higher = better)."""
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    w = main_window
    open_db(qtbot, w, demo_copy)
    view = w.results.results_view
    run_to_end(qtbot, view, measures=["wer", "bleu"])
    offered = [view.human_box.itemText(i) for i in range(view.human_box.count())]
    assert {"hter", "ier", "awer"} <= set(offered) and "sser:sser" in offered
    assert offered.index("hter") > offered.index(w.database.human_classes[-1])
    with qtbot.waitSignal(view.analysisReady, timeout=60_000):
        view.human_box.setCurrentText("hter")
    frame = view.corr_model.frame
    assert len(frame) > 0
    want = {c.measure: c for c in correlate_run(w.database, view.run, "hter",
                                                level=view.level_box.currentText())}
    assert set(want) >= {"wer", "bleu"} and set(frame["human"]) == {"hter"}
    for _, row in frame.iterrows():
        assert row["pearson"] == pytest.approx(want[row["measure"]].pearson, abs=1e-12)
