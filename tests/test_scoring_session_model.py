"""The Qt-free scoring session (``evaltrans_qt.scoring_session``): items, cursor, scoring
through the workspace's history, undo and redo, take-identical. Pure Python (no Qt)."""

from __future__ import annotations

import shutil

import pytest

from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.etdb import demo_database_path
from evaltrans_qt.io.journal import Journal
from evaltrans_qt.scoring_session import ScoringSessionModel, identical_scores, similar_translations
from evaltrans_qt.workspace import Workspace


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ws(tmp_path):
    p = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), p)
    w = Workspace.open(p, autosave=False)
    yield w
    w.close()


def _session(ws, classes=("fluency", "adequacy"), judge="kim", **kw) -> ScoringSessionModel:
    return ScoringSessionModel(ws, judge, list(classes), **kw)


def _record(signal) -> list[tuple]:
    out: list[tuple] = []
    signal.connect(lambda *a: out.append(a))
    return out


def test_items_are_the_candidates_of_the_chosen_systems_in_database_order(ws):
    db = ws.database
    s = _session(ws)
    want = [(i, j) for i, src in enumerate(db.sources) for j, t in enumerate(src.targets)
            if not db.is_reference(t)]
    assert s.items == want and s.index_of[want[3]] == 3
    one = _session(ws, systems=["WebTrans"])
    assert one.items and {one.target(it).system for it in one.items} == {"WebTrans"}
    assert len(one.items) == len(db.sources)
    with pytest.raises(EvalTransError, match="at least one score class"):
        _session(ws, classes=())
    assert s.progress() == (0, len(want)) and s.judge_value(want[0], "fluency") is None
    anna = _session(ws, judge="anna")              # anna scored the demo already
    assert anna.progress()[0] > 0


def test_score_advances_class_then_item_and_undo_puts_the_cursor_back(ws):
    s = _session(ws)
    moved, scored = _record(s.moved), _record(s.scored)
    first = s.current
    assert s.score(4)
    assert s.current == first and s.current_class == "adequacy" and moved == []
    assert s.score(2)
    second = s.current
    assert second != first and s.current_class == "fluency" and moved[-1] == (s.pos,)
    assert s.judge_value(first, "fluency") == 4.0 and s.judge_value(first, "adequacy") == 2.0
    assert s.progress()[0] == 1 and len(scored) == 2
    assert ws.history.undo_text == "adequacy = 2 (item 1)"
    ws.history.undo()                              # the cursor goes back to what is undone
    assert s.current == first and s.current_class == "adequacy"
    assert s.judge_value(first, "adequacy") is None and s.progress()[0] == 0
    ws.history.redo()
    assert s.judge_value(first, "adequacy") == 2.0 and s.progress()[0] == 1
    entries = Journal(ws.journal.path).entries()
    assert [(e.cls, e.value, e.judge) for e in entries] == [
        ("fluency", 4.0, "kim"), ("adequacy", 2.0, "kim"), ("adequacy", None, "kim"),
        ("adequacy", 2.0, "kim")]
    assert all(e.time and "T" in e.time for e in entries if e.value is not None)


def test_invalid_values_are_refused_and_nothing_is_recorded(ws):
    s = _session(ws)
    assert not s.score(0)                          # below the first valid level
    assert not s.score(9)                          # above the highest
    assert len(ws.history) == 0 and not ws.journal.path.exists()
    sser = _session(ws, classes=("sser",))
    assert sser.score(10) and sser.judge_value(sser.items[0], "sser") == 10.0


def test_a_journal_that_cannot_be_written_propagates_with_nothing_recorded(ws, monkeypatch):
    s = _session(ws)
    item = s.current

    def read_only(self, ch):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(Journal, "append", read_only)
    with pytest.raises(OSError):
        s.score(3)
    assert s.judge_value(item, "fluency") is None and len(ws.history) == 0
    assert s.current == item and s.current_class == "fluency"


def test_moves_next_previous_jump_clamped_and_next_unscored_wraps(ws):
    s = _session(ws, classes=("fluency",))
    s.next()
    s.next()
    assert s.pos == 2
    s.previous()
    assert s.pos == 1
    s.go_to(10_000)
    assert s.pos == len(s.items) - 1
    s.go_to(-5)
    assert s.pos == 0
    assert s.jump(s.items[5]) and s.pos == 5
    assert not s.jump((0, 0))                      # a reference: not an item of the session
    s.go_to(len(s.items) - 1)
    assert s.score(3)                              # the last item scored: wraps to the first
    assert s.pos == 0
    s.go_to(1)
    assert s.next_unscored() and s.pos == 2
    for _ in range(len(s.items) - 1):              # score all that is left
        assert s.score(5)
    assert s.progress() == (len(s.items), len(s.items)) and not s.next_unscored()


def test_first_unscored_resumes_a_half_scored_item_on_its_missing_class(ws):
    s = _session(ws)
    s.go_to(3)
    assert s.score(4)                              # fluency of item 3, adequacy missing
    t = _session(ws)
    t.first_unscored()
    assert t.pos == 0
    t.go_to(3)
    assert t.current_class == "adequacy"
    s.go_to(0)
    s.score(1)
    s.score(1)
    s.go_to(1)
    s.score(1)
    s.score(1)
    u = _session(ws)
    u.first_unscored()
    assert u.pos == 2


def test_seconds_spent_are_counted_per_item_and_journalled(ws):
    clock = Clock()
    s = _session(ws, classes=("fluency",), clock=clock)
    first = s.current
    clock.now += 7.25
    assert s.seconds_on(first) == pytest.approx(7.25)
    s.next()
    clock.now += 2
    s.previous()
    clock.now += 1
    assert s.seconds_on(first) == pytest.approx(8.25)
    assert s.score(2)
    assert Journal(ws.journal.path).entries()[-1].seconds == pytest.approx(8.2)


def test_clear_removes_the_judges_score_as_one_step(ws):
    s = _session(ws, classes=("fluency",))
    item = s.current
    assert not s.clear()                           # nothing to clear
    s.score(3, advance=False)
    assert s.clear() and s.judge_value(item, "fluency") is None
    ws.history.undo()
    assert s.judge_value(item, "fluency") == 3.0


def test_take_identical_is_one_step(ws, tmp_path):
    from evaltrans_qt.api import Database
    from evaltrans_qt.io.etdb.writer import save_database
    db = Database.from_lists(["a b c", "d e f"], ["x y z", "u v w"],
                             systems={"A": ["same text", "other"], "B": ["same text", "else"]},
                             human={"ade": {"A": [4, None], "B": [None, None]},
                                    "flu": {"A": [3, None], "B": [None, None]}},
                             scales={"ade": (0, 5), "flu": (0, 5)})
    path = tmp_path / "small.etdb.xml"
    save_database(db, path)
    w = Workspace.open(path, autosave=False)
    s = ScoringSessionModel(w, "kim", ["ade", "flu"], systems=["B"])
    src0 = w.database.sources[0]
    b0 = next(j for j, t in enumerate(src0.targets) if t.system == "B")
    assert s.current == (0, b0)
    sim = similar_translations(w.database, 0, b0, s.classes)
    assert sim and sim[0].identical and identical_scores(sim, s.classes) == {"ade": 4.0, "flu": 3.0}
    assert s.take_identical()
    assert s.judge_value((0, b0), "ade") == 4.0 and s.judge_value((0, b0), "flu") == 3.0
    assert s.pos == 1 and len(w.history) == 1      # moved on; one step for both classes
    assert not s.take_identical()                  # nothing identical scored for the next one
    w.history.undo()
    assert s.judge_value((0, b0), "ade") is None and s.judge_value((0, b0), "flu") is None
    assert s.pos == 0 and s.progress()[0] == 0
    w.close()


def test_set_classes_keeps_the_item_and_lists_the_candidates_again(ws):
    s = _session(ws)
    s.go_to(4)
    item = s.current
    changed = _record(s.classes_changed)
    s.set_classes(["adequacy"])
    assert s.current == item and s.classes == ["adequacy"] and changed == [()]
    with pytest.raises(EvalTransError):
        s.set_classes([])
