"""An empty plot's hint (what it is waiting for) wraps within the plot: a long hint in a
narrow plot is not cut off at the sides, and it stays in the middle when the plot grows."""

from __future__ import annotations

from evaltrans_qt.ui import plots


def test_long_hint_wraps_inside_the_plot(qtbot):
    p = plots.CorrelationBars(name="rankingBars")
    qtbot.addWidget(p)
    p.resize(420, 300)
    p.show()
    qtbot.waitExposed(p)
    text = ("No short-segment rankings yet — Session → SegRanks → Extract segments…, then "
            "Session → Rank short segments (Ctrl+K)")
    p.clear_data(text)
    qtbot.wait(50)
    vb = p.getPlotItem().getViewBox()
    hint = p._hint
    box = hint.textItem.sceneBoundingRect()
    view = vb.sceneBoundingRect()
    assert box.width() <= view.width() and box.height() > hint.textItem.font().pointSize() * 2
    assert view.left() <= box.left() and box.right() <= view.right()    # not cut off
    p.resize(900, 300)
    qtbot.waitUntil(lambda: hint.textItem.textWidth() > 600)         # wider lines ...

    def centred() -> bool:                                            # ... in the middle
        box, view = hint.textItem.sceneBoundingRect(), vb.sceneBoundingRect()
        return abs(box.center().x() - view.center().x()) < 5 and box.width() <= view.width()
    qtbot.waitUntil(centred, timeout=3000)
    p.clear_data("")
    assert not hint.isVisible()


def test_matrix_axis_names_what_it_compares(qtbot):
    systems = plots.SignificanceMatrix()
    measures = plots.SignificanceMatrix(name="metricsSignificance", what="measure")
    for m in (systems, measures):
        qtbot.addWidget(m)
        m.set_data(["a", "b"], [[float("nan"), 0.2], [0.8, float("nan")]], title="t")
    assert systems.getAxis("bottom").labelText == "system (numbered as on the left)"
    assert measures.getAxis("bottom").labelText == "measure (numbered as on the left)"
