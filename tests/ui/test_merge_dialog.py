"""Merging a second database: each conflict asked with keep old / take new / apply to all."""

from __future__ import annotations

import copy

import pytest

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.ui.merge_dialog import ConflictDialog, InteractivePolicy, merge_into


def _db(values: dict[str, float], extra: str | None = None) -> Database:
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    src = db.add_source("Das Haus ist klein.")
    db.add_target(src, "The house is small.", "ref", reference=True)
    for sysname, v in values.items():
        t = db.add_target(src, f"output of {sysname}", sysname)
        t.set_score("fluency", v, judge="ann")
    if extra:
        db.add_target(src, extra, "new-system")
    return db


def _value(db, system):
    src = db.sources[0]
    return next(t for t in src.targets if t.system == system).value("fluency")


@pytest.mark.parametrize("button, apply_all, expected", [
    ("keep_old", False, {"A": 1, "B": 2, "C": 3}),
    ("take_new", False, {"A": 5, "B": 4, "C": 3}),
    ("keep_old", True, {"A": 1, "B": 2, "C": 3}),
    ("take_new", True, {"A": 5, "B": 4, "C": 3}),
])
def test_merge_conflicts_each_choice(qtbot, main_window, button, apply_all, expected):
    w = main_window
    old = _db({"A": 1, "B": 2, "C": 3})
    new = _db({"A": 5, "B": 4, "C": 3}, extra="a new translation")
    w.set_database(old, None)
    shown = []

    def decide(dlg: ConflictDialog):
        shown.append((dlg.old_label.text(), dlg.new_label.text()))
        dlg.apply_all.setChecked(apply_all)
        getattr(dlg, button).click()

    report = merge_into(w, new, InteractivePolicy(w, decide))
    # two conflicts (A, B); C is equal; with "apply to all" only the first is asked
    assert shown[0] == ("1", "5")
    assert len(shown) == (1 if apply_all else 2)
    assert len(report.conflicts) == 2
    for sysname, v in expected.items():
        assert _value(w.database, sysname) == v
    assert report.added_targets == 1
    assert "2 conflicting scores" in report.summary()
    assert w.files.last_merge_report is report
    assert w.is_dirty
    # the browser shows the merged target
    assert w.browse.sources.row(0).cands == 4


def test_merge_mixed_choices_then_policy(qtbot, main_window):
    w = main_window
    w.set_database(_db({"A": 1, "B": 2}), None)
    answers = iter(["take_new", "keep_old"])
    report = merge_into(w, _db({"A": 5, "B": 4}),
                        InteractivePolicy(w, lambda dlg: getattr(dlg, next(answers)).click()))
    assert (_value(w.database, "A"), _value(w.database, "B")) == (5, 2)
    assert (report.took_new, report.kept_old) == (1, 1)


def test_merge_invalid_scores_shows_error_and_keeps_database(qtbot, main_window):
    from evaltrans_qt.ui import errors
    w = main_window
    mine = _db({"A": 1})
    w.set_database(mine, None)
    before = copy.deepcopy(mine)
    bad = _db({"A": 2})
    bad.levels[0] = Levels("fluency", count=20, gray=2, green=5, perfect=5, firstvalid=1)
    bad.sources[0].targets[1].set_score("fluency", 17, judge="zed")
    assert merge_into(w, bad, "new") is None
    assert errors.history and "17" in str(errors.history[-1])
    assert w.database == before


def test_no_autosave_runs_while_a_conflict_is_asked(qtbot, main_window, tmp_path):
    """Found in review: the conflict dialog's event loop let the autosave timer serialise a
    half-merged database while the merge went on changing it. Autosave now waits for the
    merge, then saves the merged database."""
    from evaltrans_qt.io.etdb import load_database, save_database
    w = main_window
    w.autosave_ms = 10
    path = tmp_path / "old.etdb.xml"
    old = _db({"A": 1, "B": 2})
    save_database(old, path)
    w.set_database(old, path)
    w.workspace.mark_changed()                        # something unsaved: autosave is due
    w.files._schedule_autosave()
    saving_while_asked = []
    saves = []
    w.saved.connect(lambda p: saves.append(p))

    def decide(dlg: ConflictDialog):
        qtbot.wait(200)                               # the dialog is open for a while
        saving_while_asked.append(w.files._saving is not None or bool(saves))
        dlg.take_new.click()

    with qtbot.waitSignal(w.saved, timeout=10_000):
        report = merge_into(w, _db({"A": 5, "B": 4}), InteractivePolicy(w, decide))
    assert len(report.conflicts) == 2 and saving_while_asked == [False, False]
    saved = load_database(path)
    assert _value(saved, "A") == 5 and _value(saved, "B") == 4   # the autosave came after
