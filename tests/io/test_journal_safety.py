"""Journal safety found in review: short writes never leave a glued/torn entry behind,
and a journal that does not fit the database is rejected instead of poisoning it."""

import os

import pytest

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.io import journal as jmod
from evaltrans_qt.io.etdb import dumps, loads
from evaltrans_qt.io.journal import Journal, ScoreChange, replay


def _db() -> Database:
    db = Database([Levels("fluency", count=3, gray=1, green=2, perfect=2, firstvalid=1)])
    src = db.add_source("Hallo .")
    db.add_target(src, "hello .", "A")
    return db


def _change(value) -> ScoreChange:
    return ScoreChange(source="Hallo .", target="hello .", system="A", cls="fluency", value=value)


def test_failed_write_is_cut_back_and_raised(tmp_path, monkeypatch):
    j = Journal(tmp_path / "db.etdb.xml.journal")
    j.append(_change(1))
    real = os.write
    calls = {"n": 0}

    def short_then_fail(fd, data):
        calls["n"] += 1
        if calls["n"] == 1:
            return real(fd, bytes(data[:7]))      # disk fills after 7 bytes
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jmod.os, "write", short_then_fail)
    with pytest.raises(OSError):
        j.append(_change(2))
    monkeypatch.setattr(jmod.os, "write", real)
    j.append(_change(2))                           # space again: a clean new line
    assert [e.value for e in j.entries()] == [1, 2]
    assert [e.seq for e in j.entries()] == [1, 2]


def test_foreign_journal_entries_are_rejected_and_the_database_stays_savable():
    db = _db()
    report = replay(db, [_change(2), _change(4), ScoreChange("Hallo .", "hello .", "A", "style", 1)])
    assert len(report.applied) == 1 and len(report.rejected) == 2
    assert "rejected" in report.summary()
    loads(dumps(db))                               # still a valid database


def test_non_finite_journal_values_are_skipped(tmp_path):
    p = tmp_path / "db.etdb.xml.journal"
    p.write_text('{"source": "Hallo .", "target": "hello .", "cls": "fluency", "value": Infinity}\n')
    assert Journal(p).entries() == []


def test_absurd_level_counts_are_refused_at_load():
    from evaltrans_qt.errors import InputFormatError
    from evaltrans_qt.io.etdb import loads as load_bytes
    xml = b'<database><levels class="f" count="1000000000000000000" perfect="1" firstvalid="0"/></database>'
    with pytest.raises(InputFormatError, match="levels"):
        load_bytes(xml)


def test_validate_refuses_infinite_values():
    from evaltrans_qt.errors import ScoreError
    with pytest.raises(ScoreError):
        Levels("f", count=3).validate(float("inf"))
