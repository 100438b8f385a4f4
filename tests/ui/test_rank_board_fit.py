"""Every chip of a rank row is inside its row at 1366x768: a row grows with its chips
(two unplaced candidates wrap to a second line and must not slide under the next row)."""

from __future__ import annotations

from tests.ui.conftest import open_db


def _clipped(screen) -> list[str]:
    out = []
    for board in screen.boards:
        for b, view in board.views.items():
            m, root = view.model(), view.rootIndex()
            for r in range(m.rowCount(root)):
                rect = view.visualRect(m.index(r, 0, root))
                if not view.viewport().rect().contains(rect):
                    out.append(f"row {b} chip {r}: {rect} outside {view.viewport().rect()}")
    return out


def test_rank_rows_fit_their_chips(qtbot, main_window, demo_copy):
    from evaltrans_qt.ui.ranking_screen import SENTENCES
    open_db(qtbot, main_window, demo_copy)
    s = main_window.ranking.open_screen(SENTENCES, judge="judge")
    s.resize(1366, 768)
    s.show()
    m = s.tasks_[0].model
    s.place(0, 0, 1)
    s.place(0, m.n - 1, m.max_rank)               # two candidates stay unplaced
    qtbot.waitUntil(lambda: not _clipped(s), timeout=3000)
    s.resize(700, 768)                           # narrower: the chips wrap more
    qtbot.waitUntil(lambda: not _clipped(s), timeout=3000)
    s.close()
