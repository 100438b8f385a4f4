"""The score journal (Qt-free): append with fsync, torn lines, replay, partial clearing."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.io.journal import Journal, ScoreChange, change_for, journal_path, replay


def _db() -> Database:
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    src = db.add_source("Quelle eins")
    db.add_target(src, "reference one", "ref", reference=True)
    db.add_target(src, "candidate one", "A")
    db.add_target(src, "candidate one", "B")  # same text, other system: must stay apart
    db.add_source("Quelle zwei")
    return db


def test_path_next_to_database(tmp_path):
    assert journal_path(tmp_path / "x.etdb.xml") == tmp_path / "x.etdb.xml.journal"


def test_append_replay_and_remove(tmp_path):
    db = _db()
    j = Journal.for_database(tmp_path / "x.etdb.xml")
    assert j.entries() == [] and j.last_seq == 0
    a = j.append(change_for(db, 0, 1, "fluency", 4, "kim", "3.2"))
    b = j.append(change_for(db, 0, 2, "fluency", 2, "kim"))
    c = j.append(change_for(db, 0, 1, "fluency", 5, "kim"))
    d = j.append(change_for(db, 0, 2, "fluency", None, "kim"))   # an undo: removal
    assert [e.seq for e in (a, b, c, d)] == [1, 2, 3, 4]
    j.close()
    fresh = _db()
    rep = replay(fresh, Journal(j.path).entries())
    assert len(rep.applied) == 4 and rep.missing == []
    tA, tB = fresh.sources[0].targets[1], fresh.sources[0].targets[2]
    assert [(s.value, s.judge) for s in tA.scores] == [(5.0, "kim")]
    assert tB.scores == []
    # replay is idempotent
    replay(fresh, Journal(j.path).entries())
    assert [(s.value, s.judge) for s in tA.scores] == [(5.0, "kim")]


def test_torn_last_line_is_ignored_and_repaired(tmp_path):
    db = _db()
    j = Journal(tmp_path / "j.journal")
    j.append(change_for(db, 0, 1, "fluency", 4, "kim"))
    j.close()
    with open(j.path, "ab") as f:
        f.write(b'{"source": "Quelle eins", "target": "cand')   # died mid-write
    j2 = Journal(j.path)
    assert len(j2.entries()) == 1
    j2.append(change_for(db, 0, 2, "fluency", 3, "kim"))
    assert [e.value for e in j2.entries()] == [4.0, 3.0]


def test_missing_targets_are_reported(tmp_path):
    j = Journal(tmp_path / "j.journal")
    j.append(ScoreChange("no such source", "t", None, "fluency", 3.0))
    rep = replay(_db(), j.entries())
    assert rep.applied == [] and len(rep.missing) == 1
    assert "could not be applied" in rep.summary()


def test_clear_up_to_a_save(tmp_path):
    db = _db()
    j = Journal(tmp_path / "j.journal")
    for v in (1, 2, 3):
        j.append(change_for(db, 0, 1, "fluency", v, "kim"))
    j.clear(2)                      # a save included the first two
    assert [e.value for e in j.entries()] == [3.0]
    j.append(change_for(db, 0, 1, "fluency", 4, "kim"))
    assert [e.seq for e in j.entries()] == [3, 4]
    j.clear()
    assert not j.path.exists()


def test_survives_sigkill_right_after_append(tmp_path):
    """A child appends and is killed at once: the entry is on disk (fsync before returning)."""
    path = tmp_path / "k.journal"
    code = textwrap.dedent(f"""
        import os, signal
        from evaltrans_qt.io.journal import Journal, ScoreChange
        j = Journal({str(path)!r})
        for k in range(20):
            j.append(ScoreChange("s", "t", None, "fluency", float(k % 5 + 1), "kim"))
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    p = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert p.returncode == -9
    assert [e.seq for e in Journal(path).entries()] == list(range(1, 21))


def test_clearing_an_already_cleared_journal_leaves_no_file(tmp_path):
    """An autosave that ends after Discard cleared the journal clears up to its own
    snapshot: that must not leave a header-only journal behind."""
    db = _db()
    j = Journal(tmp_path / "j.journal")
    for v in (1, 2):
        j.append(change_for(db, 0, 1, "fluency", v, "kim"))
    j.clear()                       # Discard
    j.clear(1)                      # the save that was running ends
    assert not j.path.exists()
    j.append(change_for(db, 0, 1, "fluency", 5, "kim"))
    assert [e.value for e in j.entries()] == [5.0]


# ------------------------------------------------------------ positional sources
def _repeated_db() -> Database:
    """One sentence on lines 1 and 3 (positional: two sources), each with its own candidate
    of system A -- the same text on both lines, so only the position tells them apart."""
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    for line, ref in (("1", "thanks ."), ("2", "hello ."), ("3", "thank you .")):
        src = db.add_source("Hallo ." if line == "2" else "Danke .", seg=line)
        db.add_target(src, ref, "ref-1", reference=True)
        db.add_target(src, "thanks .", "A")
    return db


def test_entries_of_a_repeated_sentence_replay_on_their_own_line(tmp_path):
    db = _repeated_db()
    j = Journal(tmp_path / "x.journal")
    j.append(change_for(db, 2, 1, "fluency", 4, "kim"))     # line 3 only
    j.close()
    (entry,) = Journal(j.path).entries()
    assert (entry.source, entry.doc, entry.seg) == ("Danke .", None, "3")
    fresh = _repeated_db()
    rep = replay(fresh, [entry])
    assert len(rep.applied) == 1
    assert fresh.sources[2].targets[1].value("fluency") == 4
    assert fresh.sources[0].targets[1].scores == []          # line 1 untouched
    # the position now holds another sentence: the entry is missing, never misapplied
    other = _repeated_db()
    other.sources[2].text = "Bitte ."
    other.reindex()
    assert replay(other, [entry]).missing == [entry]


def test_old_entries_without_position_still_replay(tmp_path):
    """A journal written before sources had positions identifies the source by text only."""
    db = _repeated_db()
    j = Journal(tmp_path / "old.journal")
    j.path.write_text('{"evaltrans-journal": 1}\n' + json.dumps(
        {"source": "Hallo .", "target": "thanks .", "system": "A", "cls": "fluency",
         "value": 3, "judge": "kim", "target_index": 1, "seq": 1}) + "\n", encoding="utf-8")
    (entry,) = j.entries()
    assert entry.seg is None and entry.doc is None
    rep = replay(db, [entry])
    assert len(rep.applied) == 1 and db.sources[1].targets[1].value("fluency") == 3
    # a text source (old EvalTrans file) gets entries without position
    ch = change_for(_db(), 0, 1, "fluency", 2)
    assert (ch.doc, ch.seg) == (None, None)
    assert '"seg":null' in ch.to_json()
