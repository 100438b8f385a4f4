"""The significance matrix's tooltips: the pair, its p-value and the probability that
humans agree with the measure's order (Kocmi et al. 2024, engine/metaeval/thresholds.py)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF


def test_hovering_a_cell_shows_pair_p_value_and_agreement(qtbot):
    from evaltrans_qt.engine.metaeval.thresholds import agreement_matrix, published_model
    from evaltrans_qt.ui.plots import SignificanceMatrix
    m = SignificanceMatrix()
    qtbot.addWidget(m)
    m.resize(500, 400)
    scores = [0.30, 0.29, 0.25]
    model = published_model("bleu", scores, ours=True)
    assert model is not None
    agree = agreement_matrix(scores, model)
    p = np.array([[np.nan, 0.3, 0.01], [0.3, np.nan, 0.02], [0.01, 0.02, np.nan]])
    notes = [[f"P(humans agree with this order) = {a:.3f}" for a in row] for row in agree]
    m.set_data(["A", "B", "C"], p, notes=notes)
    # one BLEU point: Kocmi et al.'s 64% (their README: 63.989%)
    assert agree[0, 1] == np.float64(agree[1, 0])
    assert round(float(agree[0, 1]), 3) == 0.640
    assert m.tooltip_at(0, 1) == "A vs B: p = 0.3000\nP(humans agree with this order) = 0.640"
    assert m.tooltip_at(1, 1) == "" and m.tooltip_at(5, 0) == ""
    m._hover(m.getPlotItem().vb.mapViewToScene(QPointF(2.5, 0.5)))
    assert m.toolTip().startswith("A vs C: p = 0.0100\nP(humans agree with this order) = 0.8")
    m.clear_data()
    assert m.toolTip() == "" and m.tooltip_at(0, 1) == ""
