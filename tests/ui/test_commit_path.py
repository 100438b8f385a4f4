"""The application's judgements go through ``Workspace.commit`` -- one commit and one
``committed`` signal each, undo and redo included (issue 25, item 3)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io.journal import ScoreChange
from tests.ui.conftest import open_db


def _spy(ws):
    calls: list[object] = []
    signals: list[object] = []
    real = ws.commit

    def commit(change):
        calls.append(change)
        return real(change)

    ws.commit = commit                       # a test spy on the instance, not a view's write
    ws.committed.connect(signals.append)
    return calls, signals


def test_scores_protocol_changes_and_their_undo_are_commits(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    ws = w.workspace
    calls, signals = _spy(ws)
    s = w.start_session("carla", ["fluency"], start_unscored=False)
    assert s is not None
    item = s.current
    qtbot.keyClick(w, Qt.Key_4)
    assert len(calls) == len(signals) == 1 and isinstance(calls[0], ScoreChange)
    assert signals[0].seq == 1 and len(ws.journal.entries()) == 1
    w.workspace.history.undo()               # undo: the inverse change, committed
    assert len(calls) == len(signals) == 2 and calls[1].value is None
    assert s.judge_value(item, "fluency") is None
    w.workspace.history.redo()
    assert len(calls) == 3 and s.judge_value(item, "fluency") == 4.0
    # a post-edit through the protocol modes: the same path
    assert w.protocol_modes.push(pc.postedit_change(w.database, *item, "carla", "Ein Text ."),
                                 "post-edit")
    assert len(calls) == len(signals) == 4 and isinstance(calls[3], pc.PostEditChange)
    w.workspace.history.undo()
    assert len(calls) == 5 and w.database.sources[item[0]].targets[item[1]].postedits == []
    assert [e.seq for e in ws.journal.entries()] == [1, 2, 3, 4, 5]


def test_edit_undo_names_the_step_and_a_failed_undo_is_shown(qtbot, main_window, demo_copy,
                                                             monkeypatch):
    """Edit → Undo / Redo follow the workspace's history (no QUndoStack): their text names
    the step, they are disabled with nothing to do; an undo the journal refuses is an
    error and changes nothing."""
    from evaltrans_qt.io.journal import Journal
    from evaltrans_qt.ui import errors
    w = main_window
    open_db(qtbot, w, demo_copy)
    undo, redo = w.scoring.act_undo, w.scoring.act_redo
    assert not undo.isEnabled() and not redo.isEnabled()
    s = w.start_session("carla", ["fluency"], start_unscored=False)
    item = s.current
    qtbot.keyClick(w, Qt.Key_4)
    assert undo.isEnabled() and undo.text() == "&Undo fluency = 4 (item 1)"
    shown: list[Exception] = []
    monkeypatch.setattr(errors, "show_error", lambda exc, parent=None: shown.append(exc))
    monkeypatch.setattr(Journal, "append", lambda self, ch: (_ for _ in ()).throw(
        OSError(28, "No space left on device")))
    undo.trigger()
    assert shown and "undo not recorded" in str(shown[0])
    assert s.judge_value(item, "fluency") == 4.0 and undo.isEnabled()
    monkeypatch.undo()
    undo.trigger()
    assert s.judge_value(item, "fluency") is None
    assert not undo.isEnabled() and redo.text() == "&Redo fluency = 4 (item 1)"
