"""The ranking screens and the results view's Ranking tab, on the bundled
example campaign (resources/segranks_example, segments extracted with the README's
command). Drag and drop goes through the views' real drop handling (a QDropEvent on a
rank row's viewport -> QAbstractItemView.dropEvent -> RankBinsModel.dropMimeData) or
through dropMimeData itself; ratios of wins are counted by hand from the ranks given
(Macháček §3.1: every system of a merged candidate gets its rank)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from evaltrans_qt.cli.main import main as cli
from evaltrans_qt.engine.human.ranking import RANK_CLASS, SECONDS_ATTR, TASK_ATTR
from evaltrans_qt.engine.human.segranks.model import sentence_segments
from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.ui.ranking_screen import SEGMENTS, SENTENCES
from evaltrans_qt.ui.results_models import cell_text

from .conftest import SEGRANKS_EXAMPLE, extract_campaign, open_db


@pytest.fixture
def campaign(tmp_path) -> Path:
    """The README's extraction of the bundled campaign into a private database."""
    return extract_campaign(tmp_path)


def real_drop(view, mime, pos=None) -> bool:
    """Deliver a drop to ``view`` as a mouse drop arrives (enter, move, drop events)."""
    pos = pos if pos is not None else view.viewport().rect().center()
    vp = view.viewport()
    for cls in (QDragEnterEvent, QDragMoveEvent):
        QApplication.sendEvent(vp, cls(pos, Qt.MoveAction, mime, Qt.LeftButton, Qt.NoModifier))
    ev = QDropEvent(QPointF(pos), Qt.MoveAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(vp, ev)
    return ev.isAccepted()


def key(screen, k, mods=Qt.NoModifier) -> None:
    QTest.keyClick(screen, k, mods)


def by_system(rows) -> dict[str, tuple[int, int, int, float]]:
    return {r.system: (r.wins, r.losses, r.ties, round(r.ratio, 6)) for r in rows}


def test_segment_screen_keyboard_drop_submit_undo_save_reopen(qtbot, main_window, campaign,
                                                              tmp_path):
    w = main_window
    db = open_db(qtbot, w, campaign)
    tab = w.results.results_view.ranking_view
    assert w.results.results_view.tabs.tabText(w.results.results_view.tabs.indexOf(tab)) == "Ranking"
    assert tab.model.rowCount() == 0
    s = w.ranking.open_screen(SEGMENTS, judge="anna")
    assert s.si == 0 and len(s.tasks_) == 2
    seg0, seg1 = sentence_segments(db.sources[0]).segments
    m0, m1 = s.tasks_[0].model, s.tasks_[1].model
    assert m0.labels == [c.text for c in seg0.candidates]
    assert m1.max_rank == 4                      # 3 candidates + "unusable"
    assert "<b>bridge</b>" in s.tasks_[0].heading and "<b>spring</b>" in s.tasks_[1].heading
    assert "<b>The</b>" in s.tasks_[0].heading and "<b>The</b>" not in s.tasks_[1].heading

    # keyboard: the cursor starts on the first candidate; a digit ranks it and moves on
    assert s.cursor == (0, 0)
    key(s, "1")
    key(s, "2")
    assert m0.ranks() == [1, 2] and s.cursor == (1, 0)
    key(s, "3")
    assert s.cursor == (1, 1)
    key(s, Qt.Key_Up)                            # back to the one just ranked
    key(s, Qt.Key_Left)                          # one rank better: 3 -> 2
    key(s, Qt.Key_Left)                          # 2 -> 1
    assert m1.rank_of(0) == 1
    # a click selects a candidate, as the keyboard cursor does
    view, rect = s.boards[1].chip_rect(2)
    QTest.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    assert s.cursor == (1, 2)
    # drag and drop: candidate 1 of segment 2 onto the "unusable" row (a real drop event)
    unusable_row = s.boards[1].views[4]
    assert real_drop(unusable_row, m1.mimeData([m1.candidate_index(1)]))
    assert m1.rank_of(1) == 4

    # refused while a candidate is not placed: nothing stored, nothing journaled
    journal = w.journal.path
    before = journal.read_text(encoding="utf-8") if journal.exists() else ""
    key(s, Qt.Key_Return)
    assert "Not submitted" in s.status.text() and "1 candidate" in s.status.text()
    assert sentence_segments(db.sources[0]).rankings == []
    assert s.si == 0 and s.cursor == (1, 2)      # the cursor went to the unplaced one
    assert (journal.read_text(encoding="utf-8") if journal.exists() else "") == before

    # the last one through dropMimeData (the model's drop API), on rank row 2
    assert m1.dropMimeData(m1.mimeData([m1.candidate_index(2)]), Qt.MoveAction, -1, 0,
                           m1.index(2, 0))
    assert m1.ranks() == [1, 4, 2]
    key(s, Qt.Key_Return)
    rk = sentence_segments(db.sources[0]).rankings
    assert [(r.judge, r.ranks) for r in rk] == [("anna", {0: (1, 2), 1: (1, 4, 2)})]
    assert rk[0].seconds is not None and rk[0].seconds >= 0 and rk[0].time
    assert s.si == 1                             # on to the next sentence to rank
    assert '"type":"segranking"' in journal.read_text(encoding="utf-8")

    # the Ranking tab follows. By hand (seg. 1: A=B=1, C=2; seg. 2: A=1, B=4, C=2):
    # A 3 wins 0 losses 1 tie; B 1-2-1; C 1-3-0
    expect = {"sysA": (3, 0, 1, 1.0), "sysB": (1, 2, 1, round(1 / 3, 6)),
              "sysC": (1, 3, 0, 0.25)}
    qtbot.waitUntil(lambda: tab.scores is not None and tab.scores.rankings == 2, timeout=5000)
    assert tab.current_level == "segments"
    assert by_system(tab.scores.rows) == expect
    assert [tab.proxy.index(r, 0).data() for r in range(3)] == ["sysA", "sysB", "sysC"]
    assert cell_text(tab.proxy.index(1, 1)) == "0.3333"
    assert list(tab.bars.values["ratio of wins"]) == pytest.approx([1.0, 1 / 3, 0.25])

    # undo (Ctrl+Z): the submit is taken back -- database, journal, tab -- and the screen
    # is back on sentence 1 with the candidates where they were; redo puts it back
    key(s, Qt.Key_Z, Qt.ControlModifier)
    assert sentence_segments(db.sources[0]).rankings == []
    assert s.si == 0 and [t.model.ranks() for t in s.tasks_] == [[1, 2], [1, 4, 2]]
    qtbot.waitUntil(lambda: tab.scores.rankings == 0, timeout=5000)
    key(s, Qt.Key_Z, Qt.ControlModifier)          # and the last placement
    assert s.tasks_[1].model.ranks() == [1, 4, None]
    key(s, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    key(s, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert [r.ranks for r in sentence_segments(db.sources[0]).rankings] == \
        [{0: (1, 2), 1: (1, 4, 2)}]
    qtbot.waitUntil(lambda: tab.scores.rankings == 2, timeout=5000)

    # a crash now loses nothing: the journal alone gives the ranking back
    from evaltrans_qt.workspace import load_with_journal
    recovered, report = load_with_journal(campaign)
    assert report is not None and report.applied
    assert [r.ranks for r in sentence_segments(recovered.sources[0]).rankings] == \
        [{0: (1, 2), 1: (1, 4, 2)}]

    # "unusable" by key U on sentence 2 (one segment, 2 candidates), then submit
    assert s.si == 1 and len(s.tasks_) == 1
    key(s, "u")
    key(s, "1")
    key(s, Qt.Key_Return)
    assert [r.ranks for r in sentence_segments(db.sources[1]).rankings] == [{0: (3, 1)}]

    # save, reopen: the ranks are there, in the file and on the screen
    w.save(wait=True)
    s.close()
    saved = load_database(campaign)
    assert [(r.judge, r.ranks) for r in sentence_segments(saved.sources[0]).rankings] == \
        [("anna", {0: (1, 2), 1: (1, 4, 2)})]
    db2 = open_db(qtbot, w, campaign)
    assert [r.ranks for r in sentence_segments(db2.sources[1]).rankings] == [{0: (3, 1)}]
    s2 = w.ranking.open_screen(SEGMENTS, judge="anna")
    assert s2.si == 2                            # the first sentence anna has not ranked
    key(s2, Qt.Key_PageUp)
    key(s2, Qt.Key_PageUp)
    assert s2.si == 0 and [t.model.ranks() for t in s2.tasks_] == [[1, 2], [1, 4, 2]]
    qtbot.waitUntil(lambda: tab.scores is not None and tab.scores.rankings == 3, timeout=5000)

    # export: the same table as `evaltrans ranking wins DB -o FILE`
    tab.export_table(tmp_path / "gui.csv")
    assert cli(["ranking", "wins", str(campaign), "--segments", "-o",
                str(tmp_path / "cli.csv")]) == 0
    assert (tmp_path / "gui.csv").read_text() == (tmp_path / "cli.csv").read_text()
    frame = pd.read_csv(tmp_path / "gui.csv", comment="#")
    assert list(frame["system"]) == [r.system for r in tab.scores.rows]
    tab.export_table(tmp_path / "gui.tex")
    assert "\\toprule" in (tmp_path / "gui.tex").read_text()
    s2.close()


def test_sentence_screen_ties_drop_undo(qtbot, main_window, campaign):
    w = main_window
    db = open_db(qtbot, w, campaign)
    tab = w.results.results_view.ranking_view
    s = w.ranking.open_screen(SENTENCES, judge="ben", n=3)
    assert s.objectName() == "sentencesRankingScreen"
    assert s.si == 0 and len(s.tasks_) == 1
    model = s.tasks_[0].model
    shown = s.shown[0]
    src = db.sources[0]
    assert model.n == 3 and not model.unusable and model.max_rank == 3
    assert sorted(src.targets[ti].system for ti in shown) == ["sysA", "sysB", "sysC"]
    assert model.labels == [src.targets[ti].text for ti in shown]
    assert s.source_label.text() == src.text
    assert s.reference_label.text() == db.references(src)[0].text
    # ties by keyboard: the first two share rank 1; the third is dropped on rank 2
    key(s, "1")
    key(s, "1")
    assert s.cursor == (0, 2)
    key(s, Qt.Key_Return)                        # refused: one not placed
    assert "Not submitted" in s.status.text() and not db.has_class(RANK_CLASS)
    assert real_drop(s.boards[0].views[2], model.mimeData([model.candidate_index(2)]))
    assert model.ranks() == [1, 1, 2]
    key(s, Qt.Key_Return)
    got = {src.targets[ti].system: sc for ti in shown for sc in src.targets[ti].scores
           if sc.cls == RANK_CLASS}
    assert {k: (v.value, v.judge) for k, v in got.items()} == {
        src.targets[shown[0]].system: (1.0, "ben"), src.targets[shown[1]].system: (1.0, "ben"),
        src.targets[shown[2]].system: (2.0, "ben")}
    assert len({v.extra_attrs[TASK_ATTR] for v in got.values()}) == 1
    assert all(float(v.extra_attrs[SECONDS_ATTR]) >= 0 and v.time for v in got.values())
    assert s.si == 1
    # the tab shows the sentence level (the only one with rankings): a tie and two wins
    qtbot.waitUntil(lambda: tab.scores is not None and tab.scores.rankings == 1, timeout=5000)
    assert tab.current_level == "sentences"
    a, b, c = (src.targets[ti].system for ti in shown)
    assert by_system(tab.scores.rows) == {a: (1, 0, 1, 1.0), b: (1, 0, 1, 1.0),
                                          c: (0, 2, 0, 0.0)}
    # undo takes the scores away again
    s.act_undo.trigger()
    assert not any(sc.cls == RANK_CLASS for t in src.targets for sc in t.scores)
    assert s.si == 0 and s.tasks_[0].model.ranks() == [1, 1, 2]
    qtbot.waitUntil(lambda: tab.scores.rankings == 0, timeout=5000)
    s.act_redo.trigger()
    assert sum(sc.cls == RANK_CLASS for t in src.targets for sc in t.scores) == 3
    s.close()


def test_sentence_screen_draws_pairs_evenly(qtbot, main_window, campaign):
    """N=2 of 3 systems on 5 sentences: every pair of systems is compared 1 or 2 times."""
    w = main_window
    open_db(qtbot, w, campaign)
    s = w.ranking.open_screen(SENTENCES, judge="cleo", n=2)
    for _ in range(5):
        assert s.tasks_[0].model.n == 2
        key(s, "1")
        key(s, "2")
        key(s, Qt.Key_Return)
    lo, hi = s.sampler.spread()
    assert (lo, hi) in ((1, 2), (2, 2)) and sum(s.sampler.pairs.values()) == 5
    assert "Every sentence is ranked" in s.status.text()
    s.close()


def test_segments_screen_needs_extracted_segments(qtbot, main_window, tmp_path):
    from evaltrans_qt.ui import errors
    w = main_window
    shutil.copyfile(SEGRANKS_EXAMPLE / "campaign.etdb.xml", tmp_path / "plain.etdb.xml")
    open_db(qtbot, w, tmp_path / "plain.etdb.xml")
    assert w.ranking.open_screen(SEGMENTS, judge="anna") is None
    assert "no extracted segments" in str(errors.history[-1])


def test_ranking_tab_exports_through_the_window_actions(qtbot, main_window, campaign, tmp_path,
                                                        monkeypatch):
    """Ctrl+E / Ctrl+Shift+P on the Ranking tab write its table and its bar chart."""
    from PySide6.QtGui import QImage

    from evaltrans_qt.engine.human.segranks.sessions import record_segment_ranking
    from evaltrans_qt.io.etdb import save_database
    from evaltrans_qt.ui import export_dialog
    db = load_database(campaign)
    record_segment_ranking(db, 4, {0: [2, 1]}, "dora", seconds=3.0)   # sysC beats A and B
    save_database(db, campaign)
    w = main_window
    open_db(qtbot, w, campaign)
    view = w.results.results_view
    tab = view.ranking_view
    view.tabs.setCurrentWidget(tab)
    assert by_system(tab.scores.rows) == {"sysC": (2, 0, 0, 1.0), "sysA": (0, 1, 1, 0.0),
                                          "sysB": (0, 1, 1, 0.0)}
    target = {"path": str(tmp_path / "t.csv")}
    monkeypatch.setattr(export_dialog.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (target["path"], ""))
    w.results.act_export_table.trigger()
    frame = pd.read_csv(tmp_path / "t.csv")
    assert list(frame["system"]) == ["sysC", "sysA", "sysB"]
    assert list(frame["ratio_of_wins"]) == [1.0, 0.0, 0.0]
    assert list(frame["ties"]) == [0, 1, 1]
    target["path"] = str(tmp_path / "bars.png")
    w.results.act_export_plot.trigger()
    img = QImage(str(tmp_path / "bars.png"))
    assert not img.isNull() and img.width() >= 1000


def test_screenshot_of_the_ranking_screen(campaign, tmp_path):
    """``--screenshot --view ranking`` renders the SegRanks screen and changes nothing."""
    import os
    import subprocess
    import sys

    from PySide6.QtGui import QImage
    before = campaign.read_bytes()
    out = tmp_path / "rank.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", EVALTRANS_QT_DATA_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "evaltrans_qt.ui.app", "--screenshot", str(out),
                        "--view", "ranking", "--size", "900x600", str(campaign)],
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (900, 600)
    assert campaign.read_bytes() == before
    assert not Path(str(campaign) + ".journal").exists()
