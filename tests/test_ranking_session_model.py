"""The Qt-free ranking session (``evaltrans_qt.ranking_session``): sentences, boards,
cursor, drafts, submit and undo, for SegRanks segments and whole sentences, on the bundled
example campaign (segments extracted with the README's command). Pure Python (no Qt)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main as cli
from evaltrans_qt.engine.human.ranking import RANK_CLASS
from evaltrans_qt.engine.human.segranks.model import sentence_segments
from evaltrans_qt.io.journal import Journal
from evaltrans_qt.ranking_session import (
    Board,
    RankingSessionModel,
    SegmentRanking,
    SentenceRanking,
)
from evaltrans_qt.workspace import Workspace

EXAMPLE = Path(__file__).resolve().parents[1] / "resources" / "segranks_example"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ws(tmp_path):
    d = tmp_path / "camp"
    shutil.copytree(EXAMPLE, d)
    out = tmp_path / "campaign.etdb.xml"
    assert cli(["segranks", "extract", "--database", str(d / "campaign.etdb.xml"), "--trees",
                str(d / "sources.ptb"), "--alignments-dir", str(d), "-o",
                str(tmp_path / "x.segments"), "--output-database", str(out)]) == 0
    w = Workspace.open(out, autosave=False)
    yield w
    w.close()


def _messages(model) -> list[str]:
    out: list[str] = []
    model.message.connect(out.append)
    return out


def test_board_places_and_says_so():
    b = Board(["a", "b", "c"], unusable=True)
    moves: list[tuple] = []
    b.moved.connect(lambda *a: moves.append(a))
    assert b.max_rank == 4 and b.unplaced() == [0, 1, 2] and not b.complete()
    b.place(1, 4)
    b.place(1, 4)                                  # already there: nothing happens
    assert b.ranks() == [None, 4, None] and moves == [(1, None, 4)]
    with pytest.raises(ValueError, match="1 to 4"):
        b.place(0, 5)
    with pytest.raises(ValueError):
        Board(["a"], unusable=False, ranks=[2])


def test_segments_place_submit_undo_redo_through_the_journal(ws):
    clock = Clock()
    m = RankingSessionModel(SegmentRanking(ws, "anna"), clock=clock)
    said = _messages(m)
    stored: list[int] = []
    m.stored.connect(stored.append)
    assert m.start() and m.si == 0 and len(m.boards) == 2
    assert [b.n for b in m.boards] == [2, 3] and m.cursor == (0, 0)
    assert m.rank_current(1) and m.rank_current(2)  # board 0 done, the cursor moves on
    assert m.cursor == (1, 0)
    assert not m.rank_current(9) and "9 is not a rank here (1 to 4)" in said[-1]
    m.rank_current(1)
    m.rank_current(4)                              # unusable
    assert not m.submit()                          # one candidate still not placed
    assert "Not submitted" in said[-1] and "1 candidate(s)" in said[-1] and m.cursor == (1, 2)
    m.rank_current(2)
    clock.now += 12.0
    assert m.submit() and stored == [0] and m.si == 1
    db = ws.database
    assert [r.ranks for r in sentence_segments(db.sources[0]).rankings] == \
        [{0: (1, 2), 1: (1, 4, 2)}]
    assert sentence_segments(db.sources[0]).rankings[0].seconds == pytest.approx(12.0)
    assert m.history.undo_text == "submit sentence 1"
    m.history.undo()                               # the submit: the inverse, committed
    assert sentence_segments(db.sources[0]).rankings == []
    assert m.si == 0 and [b.ranks() for b in m.boards] == [[1, 2], [1, 4, 2]]
    m.history.undo()                               # the last placement
    assert m.boards[1].ranks() == [1, 4, None] and m.cursor == (1, 2)
    m.history.redo()
    m.history.redo()
    assert [r.ranks for r in sentence_segments(db.sources[0]).rankings] == \
        [{0: (1, 2), 1: (1, 4, 2)}] and m.si == 1
    assert len(Journal(ws.journal.path).entries()) == 3   # submit, its inverse, again
    assert len(ws.history) == 0                    # the screen's steps are its own


def test_a_draft_is_kept_when_the_judge_moves_on_and_comes_back(ws):
    m = RankingSessionModel(SegmentRanking(ws, "ben"))
    m.start()
    m.place(1, 2, 3)
    first = m.si
    m.step(1)
    assert m.si != first and m.drafts[first] == [[None, None], [None, None, 3]]
    m.step(-1)
    assert m.si == first and m.boards[1].ranks() == [None, None, 3] and first not in m.drafts
    m.history.undo()                               # placements are steps too
    assert m.boards[1].ranks() == [None, None, None]


def test_a_journal_that_cannot_be_written_stores_nothing(ws, monkeypatch):
    m = RankingSessionModel(SegmentRanking(ws, "anna"))
    m.start()
    for k, b in enumerate(m.boards):
        for c in range(b.n):
            m.place(k, c, 1)

    def read_only(self, ch):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(Journal, "append", read_only)
    steps = len(m.history)
    with pytest.raises(OSError):
        m.submit()
    assert sentence_segments(ws.database.sources[0]).rankings == []
    assert len(m.history) == steps and m.si == 0


def test_whole_sentences_ties_submit_and_the_sampler(ws):
    tasks = SentenceRanking(ws, "ben", n=3, seed=1)
    m = RankingSessionModel(tasks)
    assert m.start() and m.si == m.order[0] and len(m.boards) == 1
    board = m.boards[0]
    assert board.n == 3 and not board.unusable and board.max_rank == 3
    shown = tasks.shown[m.si]
    m.rank_current(1)
    m.rank_current(1)                              # a tie
    m.rank_current(2)
    si = m.si
    assert m.submit()
    src = ws.database.sources[si]
    got = {src.targets[ti].system: sc.value for ti in shown for sc in src.targets[ti].scores
           if sc.cls == RANK_CLASS and sc.judge == "ben"}
    assert sorted(got.values()) == [1.0, 1.0, 2.0] and len(got) == 3
    assert tasks.is_done(si) and m.progress()[1] == 1
    m.history.undo()
    assert not tasks.is_done(si) and m.si == si and m.boards[0].ranks() == [1, 1, 2]
