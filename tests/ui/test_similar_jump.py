"""Similar-translations panel: shows the judges who scored each
translation, and activating a row opens that translation in the compare view."""

from __future__ import annotations

from evaltrans_qt.ui.models import KEY_ROLE
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
    panel = w.similar_panel
    qtbot.waitUntil(lambda: panel.topLevelItemCount() > 0)
    assert panel.headerItem().text(2) == "Judge"
    first = panel.topLevelItem(0)
    want = panel.similar[0]
    judges = {sc.judge for sc in want.target.scores if sc.cls == "fluency" and not sc.extrapolated}
    assert set(first.text(2).split(", ")) == {j or "(anonymous)" for j in judges}
    got = []
    panel.jumpRequested.connect(lambda a, b: got.append((a, b)))
    panel.itemActivated.emit(first, 0)
    assert got == [(want.source_index, want.target_index)]
    qtbot.waitUntil(lambda: w.target_table.currentIndex().data(KEY_ROLE)
                    == (want.source_index, want.target_index))
