"""The Metrics tab names its system-level convention, defaults to the command line's, and
shows the numbers ``evaltrans correlate --stats`` prints for the same convention."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.metaeval.conventions import DEFAULT_CONVENTION
from evaltrans_qt.engine.metaeval.metrics_task import overview
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.ui.metrics_view import MetricsView, convention_text

HUMAN = "adequacy"
STATS = ("pearson", "kendall", "pairwise-accuracy", "acc-eq")


@pytest.mark.parametrize("convention", ["mtme", "thesis"])
def test_metrics_tab_shows_the_cli_numbers_and_names_the_convention(qtbot, demo_copy, capsys,
                                                                    convention):
    db = load_database(demo_copy)
    run = evaluate(db, EvalOptions(), ["bleu", "ter"])
    view = MetricsView(SimpleNamespace(database=db, run=run, analysis=None))
    qtbot.addWidget(view)
    assert view.convention.currentText() == DEFAULT_CONVENTION
    view.convention.blockSignals(True)
    view.convention.setCurrentText(convention)
    view.convention.blockSignals(False)
    # the tab's compute path with its controls' values, run here synchronously
    ov = overview(db, run, HUMAN, level=view.level.currentText(),
                  statistic=view.statistic.currentText(), grouping="none",
                  method=view.method.currentText(), samples=50,
                  convention=view.convention.currentText())
    view.show_overview(ov)
    label = view.convention_label.text()
    assert label.startswith(f"Convention: {convention}")
    assert ("mt-metrics-eval" if convention == "mtme" else "thesis convention") in label
    assert main(["correlate", str(demo_copy), "--measures", "bleu,ter", "--human", HUMAN,
                 "--stats", ",".join(STATS), "--level", "sys", "--convention", convention,
                 "--json"]) == 0
    cli = {r["measure"]: r for r in json.loads(capsys.readouterr().out)}
    model = view.proxy
    columns = {model.headerData(c, Qt.Horizontal): c for c in range(model.columnCount())}
    for r in range(model.rowCount()):
        name = model.index(r, columns["measure"]).data().rstrip("*")
        for stat, col in (("pearson", "pearson"), ("kendall", "kendall"),
                          ("pairwise-accuracy", "pairwise acc."), ("acc-eq", "acc*_eq")):
            assert model.index(r, columns[col]).data() == pytest.approx(cli[name][stat],
                                                                        abs=1e-12)
        assert cli[name]["convention"] == convention


def test_convention_text_at_segment_level():
    assert "same under every convention" in convention_text("mtme", "seg")
    assert "plain means" in convention_text("thesis (unweighted)", "sys")


def test_metrics_tab_perm_pairs_ranks_by_acc_eq(qtbot, demo_copy, monkeypatch):
    db = load_database(demo_copy)
    run = evaluate(db, EvalOptions(), ["bleu", "ter"])
    ws = SimpleNamespace(database=db, run=run, analysis=SimpleNamespace(human=HUMAN))
    view = MetricsView(SimpleNamespace(workspace=ws))
    qtbot.addWidget(view)
    seen = {}
    monkeypatch.setattr(view.runner, "submit",
                        lambda fn, *a, **k: seen.update(k, fn=fn))
    view.method.blockSignals(True)
    view.method.setCurrentText("perm-pairs")
    view.method.blockSignals(False)
    view.compute(HUMAN)
    assert seen["statistic"] == "acc-eq" and seen["method"] == "perm-pairs"
    assert seen["convention"] == DEFAULT_CONVENTION
