"""commit_changes(start=...): a new file is created by the commit's one write (what
``evaltrans campaign collect`` does for a new result), no starting copy written first."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.schemes import template
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.judgements import commit_changes, judgement_change
from evaltrans_qt.io.store import lock_path


def _db() -> Database:
    db = Database([template("esa")])
    src = db.add_source("a source sentence", doc="d", seg="1")
    db.add_target(src, "a candidate", "sysA")
    return db


def test_new_file_is_created_with_the_changes(tmp_path: Path) -> None:
    out = tmp_path / "new.etdb.xml"
    seen: list[Database] = []
    start = _db()

    def build(db: Database):
        seen.append(db)
        assert not out.exists()                       # nothing written before the commit
        return [judgement_change(db, system="sysA", cls="esa", value=70.0, line=1,
                                 judge="ann")]

    stored = commit_changes(out, build, journal=False, start=start)
    assert seen == [start] and len(stored) == 1
    back = load_database(out)
    s = back.sources[0].targets[0].scores
    assert [(x.cls, x.value, x.judge) for x in s] == [("esa", 70.0, "ann")]
    assert not lock_path(out).exists()                # the lock was released


def test_existing_file_is_opened_not_start(tmp_path: Path) -> None:
    out = tmp_path / "old.etdb.xml"
    save_database(_db(), out)
    start = _db()
    start.sources[0].targets[0].text = "another candidate"

    def build(db: Database):
        assert db is not start
        return [judgement_change(db, system="sysA", cls="esa", value=10.0, line=1)]

    commit_changes(out, build, journal=False, start=start)
    t = load_database(out).sources[0].targets[0]
    assert t.text == "a candidate" and [x.value for x in t.scores] == [10.0]


def test_start_needs_an_all_or_nothing_write(tmp_path: Path) -> None:
    out = tmp_path / "new.etdb.xml"
    with pytest.raises(ValueError, match="journal=False"):
        commit_changes(out, lambda db: [], journal=True, start=_db())
    assert not out.exists()


def test_refused_build_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "new.etdb.xml"

    def build(db: Database):
        return [judgement_change(db, system="nosuch", cls="esa", value=1.0, line=1)]

    with pytest.raises(Exception, match="nosuch"):
        commit_changes(out, build, journal=False, start=_db())
    assert not out.exists() and not lock_path(out).exists()


def test_apply_without_undo_changes_the_database_the_same_way() -> None:
    from evaltrans_qt.io.journal import apply_entry
    a, b = _db(), _db()
    for value in (30.0, 80.0, None):
        ch = judgement_change(a, system="sysA", cls="esa", value=value, line=1, judge="j")
        inverse = apply_entry(a, ch)
        assert len(inverse) == 1
        assert apply_entry(b, ch, undo=False) == []
        got = [[(s.cls, s.value, s.judge) for s in db.sources[0].targets[0].scores]
               for db in (a, b)]
        assert got[0] == got[1] == ([] if value is None else [("esa", value, "j")])
