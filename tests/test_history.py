"""The Qt-free undo history (``evaltrans_qt.history``): steps, position, clean state, and
committed judgements undone by committing their inverses through ``Workspace.commit``.

Pure Python: no Qt is imported here."""

from __future__ import annotations

import shutil

import pytest

from evaltrans_qt.errors import ScoreError
from evaltrans_qt.history import History, Step
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io.etdb import demo_database_path
from evaltrans_qt.io.journal import Journal, change_for
from evaltrans_qt.workspace import Workspace


@pytest.fixture
def ws(tmp_path):
    p = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), p)
    w = Workspace.open(p, autosave=False)
    yield w
    w.close()


def _candidate(db, si: int = 0) -> int:
    return next(j for j, t in enumerate(db.sources[si].targets) if not db.is_reference(t))


def _value(db, si: int, ti: int, cls: str, judge: str) -> float | None:
    return next((s.value for s in db.sources[si].targets[ti].scores
                 if s.cls == cls and s.judge == judge), None)


def _counter(signal) -> list[int]:
    calls: list[int] = []
    signal.connect(lambda *a: calls.append(1))
    return calls


# ------------------------------------------------------------------ plain steps
def test_steps_undo_redo_texts_and_a_new_step_drops_the_undone_ones():
    h = History()
    state: list[str] = []
    changed = _counter(h.changed)

    def step(name: str) -> None:
        state.append(name)
        h.step(name, lambda: state.remove(name), lambda: state.append(name))

    assert not h.can_undo and not h.can_redo and h.undo() is None and h.redo() is None
    step("a")
    step("b")
    assert (h.undo_text, h.redo_text, h.index, len(h)) == ("b", "", 2, 2)
    assert h.undo().text == "b" and state == ["a"]
    assert (h.undo_text, h.redo_text, h.can_redo) == ("a", "b", True)
    assert h.redo().text == "b" and state == ["a", "b"]
    h.undo()
    step("c")                                  # "b" was undone: it cannot come back now
    assert [e.text for e in h.entries] == ["a", "c"] and not h.can_redo
    assert state == ["a", "c"]
    assert len(changed) == 6                   # 3 pushes, 2 undos, 1 redo


def test_clean_position_and_limit():
    h = History(limit=3)
    noop = (lambda: None, lambda: None)
    for k in range(2):
        h.step(f"s{k}", *noop)
    h.set_clean()
    assert h.is_clean and h.clean_index == 2
    h.undo()
    assert not h.is_clean
    h.redo()
    assert h.is_clean
    h.undo()
    h.step("other", *noop)                     # the saved state cannot be reached any more
    assert h.clean_index is None and not h.is_clean
    for k in range(3):
        h.step(f"t{k}", *noop)
    assert [e.text for e in h.entries] == ["t0", "t1", "t2"] and h.index == 3
    with pytest.raises(ValueError):
        History(limit=0)


def test_a_failing_step_leaves_the_position_and_a_step_cannot_record_another():
    h = History()

    def boom() -> None:
        raise OSError(28, "No space left on device")

    h.push(Step("x", boom, lambda: None))
    with pytest.raises(OSError):
        h.undo()
    assert h.index == 1 and h.can_undo
    inner: list[Exception] = []

    def record() -> None:
        try:
            h.step("inner", lambda: None, lambda: None)
        except RuntimeError as exc:
            inner.append(exc)

    h.push(Step("y", record, lambda: None))
    h.undo()
    assert inner and "while 'y' is being undone" in str(inner[0]) and len(h) == 2


def test_clear_while_a_step_runs_does_not_move_the_position():
    h = History()
    h.step("a", lambda: None, lambda: None)
    h.step("b", lambda: h.clear(), lambda: None)
    assert h.undo() is not None
    assert (len(h), h.index, h.can_undo, h.can_redo) == (0, 0, False, False)


# ------------------------------------------------------------------ committed judgements
def test_a_score_undone_and_redone_is_three_commits_in_the_journal(ws):
    db = ws.database
    ti = _candidate(db)
    before = _value(db, 0, ti, "fluency", "kim")
    committed = _counter(ws.committed)
    followed: list[tuple[int, bool]] = []
    entry = ws.history.commit(change_for(db, 0, ti, "fluency", 3.0, "kim"), "fluency = 3",
                              after=lambda chs, undone: followed.append((len(chs), undone)))
    assert _value(db, 0, ti, "fluency", "kim") == 3.0 and entry.changes[0].seq == 1
    assert ws.history.undo() is entry
    assert _value(db, 0, ti, "fluency", "kim") == before is None
    assert ws.history.redo() is entry
    assert _value(db, 0, ti, "fluency", "kim") == 3.0
    journal = Journal(ws.journal.path).entries()
    assert [(e.seq, e.value) for e in journal] == [(1, 3.0), (2, None), (3, 3.0)]
    assert len(committed) == 3 and followed == [(1, True), (1, False)]
    # a replay of the journal (a crash now) gives the same database
    again = Workspace.open(ws.path)
    assert _value(again.database, 0, ti, "fluency", "kim") == 3.0
    again.close()


def test_undo_across_kinds_in_one_history(ws):
    """A score, a post-edit and a step that is not journalled (a class edit's kind) are
    undone newest first, each its own way."""
    db = ws.database
    ti = _candidate(db)
    t = db.sources[0].targets[ti]
    old = _value(db, 0, ti, "fluency", "anna")
    ws.history.commit(change_for(db, 0, ti, "fluency", 1.0, "anna"), "score")
    ws.history.commit(pc.postedit_change(db, 0, ti, "anna", "Ein neuer Text ."), "post-edit")
    notes: list[str] = ["added"]
    ws.history.step("note", lambda: notes.remove("added"), lambda: notes.append("added"))
    assert ws.history.undo_text == "note"
    ws.history.undo()
    assert notes == [] and t.postedit_by("anna") is not None
    ws.history.undo()
    assert t.postedit_by("anna") is None and _value(db, 0, ti, "fluency", "anna") == 1.0
    ws.history.undo()
    assert _value(db, 0, ti, "fluency", "anna") == old != 1.0
    assert not ws.history.can_undo
    for _ in range(3):
        ws.history.redo()
    assert notes == ["added"] and t.postedit_by("anna").text == "Ein neuer Text ."
    assert _value(db, 0, ti, "fluency", "anna") == 1.0


def test_several_changes_are_one_step_all_or_none(ws):
    db = ws.database
    ti = _candidate(db)
    ok = change_for(db, 0, ti, "fluency", 2.0, "kim")
    bad = change_for(db, 0, ti, "no-such-class", 2.0, "kim")
    with pytest.raises(ScoreError):
        ws.history.commit([ok, bad], "two")
    assert _value(db, 0, ti, "fluency", "kim") is None and len(ws.history) == 0
    # journalled: the first change and its inverse (the refused one was taken out again)
    assert [e.value for e in Journal(ws.journal.path).entries()] == [2.0, None]
    step = ws.history.commit([ok, change_for(db, 0, ti, "adequacy", 4.0, "kim")], "two")
    assert len(step.changes) == 2 and len(ws.history) == 1
    ws.history.undo()
    assert _value(db, 0, ti, "fluency", "kim") is None
    assert _value(db, 0, ti, "adequacy", "kim") is None


def test_an_undo_the_journal_refuses_changes_nothing(ws, monkeypatch):
    db = ws.database
    ti = _candidate(db)
    ws.history.commit(change_for(db, 0, ti, "fluency", 5.0, "kim"), "fluency = 5")

    def full(self, ch):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Journal, "append", full)
    with pytest.raises(OSError):
        ws.history.undo()
    assert _value(db, 0, ti, "fluency", "kim") == 5.0 and ws.history.index == 1
    monkeypatch.undo()
    ws.history.undo()
    assert _value(db, 0, ti, "fluency", "kim") is None


def test_the_history_is_cleared_when_another_database_opens(ws, tmp_path):
    db = ws.database
    ws.history.commit(change_for(db, 0, _candidate(db), "fluency", 4.0, "kim"), "a score")
    changed = _counter(ws.history.changed)
    other = tmp_path / "other.etdb.xml"
    shutil.copyfile(demo_database_path(), other)
    from evaltrans_qt.io.store import open_database
    opened = open_database(other)
    ws.set_database(opened.database, other, opened.recovered, identity=opened.identity)
    assert len(ws.history) == 0 and not ws.history.can_undo and changed


def test_a_follower_that_is_gone_is_not_called(ws):
    db = ws.database
    ti = _candidate(db)

    class View:
        calls = 0

        def follow(self, changes, undone) -> None:
            View.calls += 1

    v = View()
    ws.history.commit(change_for(db, 0, ti, "fluency", 4.0, "kim"), "x", after=v.follow)
    ws.history.undo()
    assert View.calls == 1
    del v                                      # the view closed: the history does not keep it
    ws.history.redo()
    assert View.calls == 1 and _value(db, 0, ti, "fluency", "kim") == 4.0
