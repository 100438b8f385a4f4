"""Similar-translations panel: shows the judges who scored each
translation, and activating a row opens that translation in the compare view."""

from __future__ import annotations

from PySide6.QtCore import Qt

from evaltrans_qt.ui.models import KEY_ROLE
from evaltrans_qt.ui.results_models import cell_text
from evaltrans_qt.ui.scoring import similar_translations
from tests.ui.conftest import open_db


def test_judges_shown_and_activation_jumps(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    s = w.start_session("dora", ["fluency"])
    for k, (si, ti) in enumerate(s.items):  # noqa: B007 - k is used after the break
        sim = [x for x in similar_translations(db, si, ti, ["fluency"]) if x.target_index != ti]
        if sim:
            break
    else:
        raise AssertionError("the demo database should have a scored neighbour")
    s.go_to(k)
    panel = w.scoring.similar_panel
    model = panel.model()
    qtbot.waitUntil(lambda: model.rowCount() > 0)
    assert model.headerData(2, Qt.Horizontal) == "Judge"
    want = panel.similar[0]
    judges = {sc.judge for sc in want.target.scores if sc.cls == "fluency" and not sc.extrapolated}
    assert set(cell_text(model.index(0, 2)).split(", ")) == {j or "(anonymous)" for j in judges}
    # the score as Python's :g writes it (a mean over judges may be 2.5)
    value = want.target.value("fluency", include_extrapolated=False)
    assert cell_text(model.index(0, 3)) == f"{value:g}"
    got = []
    panel.jumpRequested.connect(lambda a, b: got.append((a, b)))
    panel.activated.emit(model.index(0, 0))
    assert got == [(want.source_index, want.target_index)]
    qtbot.waitUntil(lambda: w.browse.target_table.currentIndex().data(KEY_ROLE)
                    == (want.source_index, want.target_index))
