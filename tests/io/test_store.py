"""One way to open and write a database (io/store.py): the journal replayed on open (every
kind of entry), folded into an in-place write and removed after it, left alone by a write
elsewhere; refusals (changed on disk, locked by another process, journal of a replaced
file); the advisory lock (second holder refused, stale lock taken over); a crash between
the write and the journal's removal loses and duplicates nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io import store
from evaltrans_qt.io.etdb import dumps, load_database, save_database
from evaltrans_qt.io.journal import (
    Change,
    Journal,
    ScoreChange,
    apply_entry,
    change_for,
    journal_path,
)
from evaltrans_qt.io.segranks import changes as rc
from evaltrans_qt.io.store import (
    DatabaseChangedError,
    DatabaseLockedError,
    PendingJournalError,
    acquire_lock,
    lock_holder,
    lock_path,
    open_database,
    release_lock,
    write_database,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "segranks_example"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _campaign() -> Database:
    """The bundled SegRanks campaign with its segments extracted and a fluency class."""
    from evaltrans_qt.engine.human.segranks.extract import extract_database
    from evaltrans_qt.engine.human.segranks.model import source_tokens
    from evaltrans_qt.io.segranks import alignments, trees
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    tr = trees.read_ptb(EXAMPLE / "sources.ptb", [source_tokens(s) for s in db.sources])
    al = {s: (alignments.read_pharaoh(EXAMPLE / f"{s}.pharaoh"), f"{s}.pharaoh")
          for s in ("sysA", "sysB", "sysC")}
    extract_database(db, tr, al)
    schemes.add_template(db, "fluency5")
    return db


def _commit(db: Database, j: Journal, ch: Change) -> None:
    """What the application does: journal first, then apply."""
    ch = j.append(ch)
    apply_entry(db, ch)


def _sys_index(db: Database, si: int, system: str) -> int:
    return [t.system for t in db.sources[si].targets].index(system)


def _with_journal(tmp_path: Path) -> tuple[Path, Database, int]:
    """A saved campaign plus a journal of unsaved judgements of every kind (with undos and
    re-rankings); returns the path, the database the application would show, and the
    number of journal entries."""
    path = tmp_path / "db.etdb.xml"
    save_database(_campaign(), path)
    db = load_database(path)
    cls = next(lv.name for lv in db.levels if lv.name != "isReference")
    j = Journal.for_database(path)
    a, b = _sys_index(db, 0, "sysA"), _sys_index(db, 0, "sysB")
    changes = [
        lambda: change_for(db, 0, a, cls, 4, "kim"),
        lambda: change_for(db, 0, b, cls, 3, "kim"),
        lambda: change_for(db, 0, b, cls, None, "kim"),                 # its undo
        lambda: pc.items_change(db, 1, [(0, 2), (2, 4)]),
        lambda: pc.marks_change(db, 1, _sys_index(db, 1, "sysA"), "kim", ("OK", "syntax")),
        lambda: pc.postedit_change(db, 1, _sys_index(db, 1, "sysB"), "kim", "An edit .", 5.0),
        lambda: pc.reference_change(db, 2, None, "add", text="Books saved me .", judge="kim"),
        lambda: pc.reference_change(db, 2, _sys_index(db, 2, "sysC"), "mark"),
        lambda: rc.segment_ranking_change(db, 0, "kim", {0: [1, 2], 1: [2, 1, 3]}, "t1",
                                          seconds=12.0),
        lambda: rc.segment_ranking_change(db, 0, "kim", {0: [2, 1], 1: [1, 1, 2]}, "t1",
                                          seconds=14.0),               # re-ranked
        lambda: rc.sentence_ranking_change(db, 1, "kim", {1: 1, 2: 2, 3: 2}, "w1", seconds=3.0),
    ]
    for make in changes:
        _commit(db, j, make())
    j.close()
    return path, db, len(changes)


# --------------------------------------------------------------------------- opening
def test_open_replays_every_kind_of_entry_and_counts_them(tmp_path):
    path, expected, n = _with_journal(tmp_path)
    file_before, journal_before = path.read_bytes(), journal_path(path).read_bytes()
    opened = open_database(path)
    assert opened.unsaved == n == 11
    assert opened.note == "11 unsaved judgements from the journal included"
    assert dumps(opened.database) == dumps(expected)          # what the application shows
    assert dumps(opened.database) != file_before
    # the file's identity is that of the bytes read; nothing on disk changed
    st = os.stat(path)
    assert (opened.identity.size, opened.identity.mtime_ns) == (st.st_size, st.st_mtime_ns)
    import hashlib
    assert opened.identity.digest == hashlib.sha256(file_before).hexdigest()
    assert path.read_bytes() == file_before and journal_path(path).read_bytes() == journal_before
    plain = open_database(path, replay_journal=False)
    assert plain.unsaved == 0 and dumps(plain.database) == file_before
    assert plain.note == "11 unsaved judgements in the journal not included"


def test_open_without_a_journal_says_nothing(tmp_path):
    path = tmp_path / "db.etdb.xml"
    save_database(_campaign(), path)
    opened = open_database(path)
    assert opened.recovered is None and opened.unsaved == 0 and opened.note is None


def test_one_judgement_is_singular(tmp_path):
    path = tmp_path / "db.etdb.xml"
    db = _campaign()
    save_database(db, path)
    Journal.for_database(path).append(change_for(db, 0, 1, "fluency", 2, "kim"))
    assert open_database(path).note == "1 unsaved judgement from the journal included"


# --------------------------------------------------------------------------- writing
def test_write_in_place_folds_the_journal_and_removes_it(tmp_path):
    path, expected, n = _with_journal(tmp_path)
    opened = open_database(path)
    written = write_database(opened, path)
    assert written.folded == n and written.set_aside is None
    assert not journal_path(path).exists()                   # its entries are in the file
    assert path.read_bytes() == dumps(expected)
    again = open_database(path)
    assert again.note is None and dumps(again.database) == dumps(expected)
    # the identity moved with the write: writing the same Opened again is not refused
    assert written.identity == opened.identity == store.disk_identity(path, opened.identity)
    opened.database.sources[0].targets[1].set_score("fluency", 1, "ben")
    write_database(opened, path)
    assert [(x.judge, x.value) for x in load_database(path).sources[0].targets[1]
            .scores_of("fluency")] == [("kim", 4.0), ("ben", 1.0)]


def test_the_database_alone_is_enough_to_write_it_back(tmp_path):
    """A caller that kept only the Database open_database returned (a command's helper)
    gets the same checks and the same fold."""
    path, expected, n = _with_journal(tmp_path)
    db = open_database(path).database
    written = write_database(db, path)
    assert written.folded == n and not journal_path(path).exists()
    assert path.read_bytes() == dumps(expected)
    assert store.opened_of(db) is not None and store.opened_of(_campaign()) is None
    theirs = load_database(path)
    theirs.sources[0].targets[2].set_score("fluency", 1, "other")
    save_database(theirs, path)
    with pytest.raises(DatabaseChangedError):
        write_database(db, path)
    assert load_database(path) == theirs


def test_write_elsewhere_leaves_the_source_and_its_journal_alone(tmp_path):
    path, expected, _n = _with_journal(tmp_path)
    before, journal_before = path.read_bytes(), journal_path(path).read_bytes()
    other = tmp_path / "other.etdb.xml"
    written = write_database(open_database(path), other)
    assert written.folded == 0
    assert other.read_bytes() == dumps(expected)             # the judgements included
    assert path.read_bytes() == before
    assert journal_path(path).read_bytes() == journal_before
    assert not journal_path(other).exists()


def test_a_merge_written_over_its_second_input_folds_that_journal(tmp_path):
    """``merge A B -o B``: the result includes B (and B's journal); B's journal is folded,
    A's left alone."""
    from evaltrans_qt.engine.data.merge import merge
    b_path, expected_b, n = _with_journal(tmp_path)
    a_path = tmp_path / "a.etdb.xml"
    a_db = _campaign()
    a_db.sources[2].targets[1].set_score("fluency", 5, "ann")
    save_database(a_db, a_path)
    Journal.for_database(a_path).append(change_for(a_db, 2, 2, "fluency", 1, "ann"))
    a_journal = journal_path(a_path).read_bytes()
    a, b = open_database(a_path), open_database(b_path)
    merge(a.database, b.database)
    with pytest.raises(PendingJournalError):                 # B's journal unaccounted for
        write_database(a, b_path)
    written = write_database(a, b_path, includes=[b])
    assert written.folded == n and not journal_path(b_path).exists()
    assert journal_path(a_path).read_bytes() == a_journal
    out = load_database(b_path)
    assert out.sources[2].targets[2].value("fluency") == 1.0     # A's journal included
    assert dumps(out) == dumps(a.database)


def test_a_file_changed_on_disk_is_not_replaced(tmp_path):
    path, _expected, _n = _with_journal(tmp_path)
    opened = open_database(path)
    theirs = load_database(path)
    theirs.sources[0].targets[1].set_score("fluency", 5, "other")
    save_database(theirs, path)                              # another program wrote it
    journal_before = journal_path(path).read_bytes()
    with pytest.raises(DatabaseChangedError) as exc:
        write_database(opened, path)
    assert str(exc.value) == (f"{path}: changed on disk since this command read it; nothing "
                              "was written (run the command again)")
    assert load_database(path) == theirs                     # theirs kept ...
    assert journal_path(path).read_bytes() == journal_before  # ... and the journal too
    # removed since it was read: changed as well
    path.unlink()
    with pytest.raises(DatabaseChangedError):
        write_database(opened, path)


def test_a_change_while_serialising_is_caught_before_the_replace(tmp_path, monkeypatch):
    from evaltrans_qt.io import etdb
    path = tmp_path / "db.etdb.xml"
    save_database(_campaign(), path)
    opened = open_database(path)
    theirs = load_database(path)
    theirs.sources[0].targets[1].set_score("fluency", 5, "other")
    real = etdb.writer.serialised

    def slow(db, p):                      # another program writes while we serialise
        data = real(db, p)
        if db is not theirs:
            save_database(theirs, path)
        return data

    monkeypatch.setattr(etdb.writer, "serialised", slow)
    with pytest.raises(DatabaseChangedError):
        write_database(opened, path)
    assert load_database(path) == theirs


def test_a_touched_but_equal_file_is_unchanged(tmp_path):
    path = tmp_path / "db.etdb.xml"
    save_database(_campaign(), path)
    opened = open_database(path)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert store.unchanged_on_disk(path, opened.identity)
    write_database(opened, path)                             # same content: not refused
    # same size, other content: the hash tells
    data = bytearray(path.read_bytes())
    i = data.index(b"spring")
    data[i:i + 6] = b"Spring"
    opened = open_database(path)
    path.write_bytes(bytes(data))
    assert not store.unchanged_on_disk(path, opened.identity)


def test_replacing_a_file_with_a_pending_journal_is_refused(tmp_path):
    path, _expected, n = _with_journal(tmp_path)
    journal_before = journal_path(path).read_bytes()
    fresh = _campaign()
    with pytest.raises(PendingJournalError, match=f"{n} unsaved judgements in db.etdb.xml.journal "
                       "would be orphaned"):
        write_database(fresh, path)
    assert journal_path(path).read_bytes() == journal_before
    with pytest.raises(PendingJournalError, match="without its journal"):
        write_database(open_database(path, replay_journal=False), path)
    written = write_database(fresh, path, force=True)        # forced: set aside, not lost
    assert path.read_bytes() == dumps(fresh) and not journal_path(path).exists()
    assert written.set_aside == tmp_path / "db.etdb.xml.journal.replaced"
    assert len(Journal(written.set_aside).entries()) == n


def test_entries_that_could_not_be_applied_are_kept_aside(tmp_path):
    path = tmp_path / "db.etdb.xml"
    db = _campaign()
    save_database(db, path)
    j = Journal.for_database(path)
    j.append(change_for(db, 0, 1, "fluency", 2, "kim"))
    gone = ScoreChange(source="not in this database", target="x", system="A", cls="fluency",
                       value=1.0)
    j.append(gone)
    j.close()
    with open(journal_path(path), "ab") as fh:
        fh.write(b"garbage\n")
    opened = open_database(path)
    assert opened.unsaved == 1
    assert opened.note == ("1 unsaved judgement from the journal included; 2 could not be "
                           "applied (first: not a JSON line)")
    written = write_database(opened, path)
    assert written.folded == 1 and not journal_path(path).exists()
    aside = tmp_path / "db.etdb.xml.journal.unapplied"
    assert written.set_aside == aside
    kept = Journal(aside)
    assert [e.source for e in kept.entries()] == ["not in this database"]
    assert kept.skipped_lines == [b"garbage\n"]


def test_entries_appended_after_opening_stay_in_the_journal(tmp_path):
    path = tmp_path / "db.etdb.xml"
    db = _campaign()
    save_database(db, path)
    Journal.for_database(path).append(change_for(db, 0, 1, "fluency", 2, "kim"))
    opened = open_database(path)
    later = Journal.for_database(path).append(change_for(db, 0, 2, "fluency", 3, "kim"))
    write_database(opened, path)
    assert Journal.for_database(path).entries() == [later]
    assert load_database(path).sources[0].targets[1].value("fluency") == 2


CRASH = textwrap.dedent("""
    import os, signal, sys
    from evaltrans_qt.io import store
    path = sys.argv[1]
    opened = store.open_database(path)
    store._fold = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # dies after the write
    store.write_database(opened, path)
""")


def test_a_crash_between_the_write_and_the_journal_removal_is_harmless(tmp_path):
    path, expected, n = _with_journal(tmp_path)
    proc = subprocess.run([sys.executable, "-c", CRASH, str(path)], capture_output=True,
                          timeout=120, env=ENV)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    written = path.read_bytes()
    assert written == dumps(expected)                         # the file has everything
    assert len(Journal.for_database(path).entries()) == n     # the journal is still there
    # its replay onto the file that already holds it changes nothing (every kind)
    opened = open_database(path)
    assert opened.unsaved == n and not opened.recovered.missing and not opened.recovered.rejected
    assert dumps(opened.database) == written
    write_database(opened, path)
    assert path.read_bytes() == written and not journal_path(path).exists()


# --------------------------------------------------------------------------- lock
HOLD = textwrap.dedent("""
    import sys, time
    from evaltrans_qt.io.store import acquire_lock
    acquire_lock(sys.argv[1])
    print("locked", flush=True)
    time.sleep(120)
""")


def test_the_lock_refuses_a_second_writer_and_a_dead_holder_is_taken_over(tmp_path):
    path = tmp_path / "db.etdb.xml"
    save_database(_campaign(), path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE,
                              env=ENV)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        info = lock_holder(path)
        assert info is not None and info.pid == holder.pid and not info.stale
        opened = open_database(path)
        before = path.read_bytes()
        with pytest.raises(DatabaseLockedError) as exc:
            write_database(opened, path)
        assert str(exc.value).startswith(
            f"{path}: open in evaltrans-qt, pid {holder.pid}: close it there or write "
            "elsewhere with -o")
        assert exc.value.holder == info and path.read_bytes() == before
        with pytest.raises(DatabaseLockedError):
            acquire_lock(path)
        write_database(opened, tmp_path / "elsewhere.etdb.xml")   # -o OTHER is fine
        write_database(opened, path, force=True)                  # --force writes anyway
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
        if holder.stdout is not None:
            holder.stdout.close()
    # the holder died (SIGKILL: its lock file is left behind) -> stale, taken over
    assert lock_path(path).exists() and lock_holder(path) is None
    mine = acquire_lock(path)
    assert json.loads(lock_path(path).read_text())["pid"] == os.getpid()
    write_database(open_database(path), path, lock=mine)
    release_lock(mine)
    assert not lock_path(path).exists()


def test_lock_file_contents_and_own_lock(tmp_path):
    path = tmp_path / "db.etdb.xml"
    save_database(_campaign(), path)
    lock = acquire_lock(path)
    d = json.loads(lock_path(path).read_text())
    assert d["evaltrans-lock"] == 1 and d["pid"] == os.getpid() and d["host"] == lock.host
    assert d["program"] == "evaltrans-qt" and d["token"] == lock.token
    from datetime import datetime
    started = datetime.fromisoformat(d["started"].replace("Z", "+00:00")).timestamp()
    assert started <= time.time() and d.get("start_ticks") == store._start_ticks(os.getpid())
    opened = open_database(path)
    with pytest.raises(DatabaseLockedError):                 # another holder in this process
        write_database(opened, path)
    write_database(opened, path, lock=lock)                  # the holder itself writes
    other = store.LockInfo(path, lock.pid, lock.host, lock.started)
    release_lock(other)                                      # not its lock: left alone
    assert lock_path(path).exists()
    release_lock(lock)
    assert not lock_path(path).exists()
    release_lock(lock)                                       # twice: nothing to do


def test_stale_and_unreadable_locks(tmp_path):
    path = tmp_path / "db.etdb.xml"
    lp = lock_path(path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(30)
    lp.write_text(json.dumps({"evaltrans-lock": 1, "pid": dead.pid, "host": store._HOST,
                              "started": "2020-01-01T00:00:00.000Z", "program": "evaltrans-qt",
                              "token": "old"}))
    assert lock_holder(path) is None
    lock = acquire_lock(path)
    assert json.loads(lp.read_text())["token"] == lock.token
    release_lock(lock)
    if store._start_ticks(os.getpid()) is not None:         # /proc: a reused pid is stale too
        lp.write_text(json.dumps({"evaltrans-lock": 1, "pid": os.getpid(), "host": store._HOST,
                                  "started": "2000-01-01T00:00:00.000Z", "token": "reused",
                                  "start_ticks": store._start_ticks(os.getpid()) + 1}))
        assert lock_holder(path) is None
        release_lock(acquire_lock(path))
    # another machine's lock is never stale
    lp.write_text(json.dumps({"evaltrans-lock": 1, "pid": 1, "host": "elsewhere.example",
                              "started": "2020-01-01T00:00:00.000Z", "token": "remote"}))
    with pytest.raises(DatabaseLockedError, match="open in evaltrans-qt on elsewhere.example, pid 1"):
        acquire_lock(path)
    # a lock being written right now (empty) holds; an old unreadable one is stale
    lp.write_bytes(b"")
    with pytest.raises(DatabaseLockedError):
        acquire_lock(path)
    old = time.time() - 2 * store.UNREADABLE_LOCK_SECONDS
    os.utime(lp, (old, old))
    release_lock(acquire_lock(path))
    assert not lp.exists()


def test_the_documented_journal_example_reads_and_replays(tmp_path):
    """docs/journal.md's example is a valid journal of the bundled campaign."""
    doc = (ROOT / "docs" / "journal.md").read_text(encoding="utf-8")
    block = doc.split("```jsonl\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "campaign.etdb.xml"
    db = load_database(EXAMPLE / "campaign.etdb.xml")
    schemes.add_template(db, "fluency5")
    save_database(db, path)
    journal_path(path).write_text(block, encoding="utf-8")
    j = Journal.for_database(path)
    assert len(j.entries()) == 7 and j.skipped == []
    opened = open_database(path)
    assert opened.unsaved == 7 and opened.note == "7 unsaved judgements from the journal included"
    out = opened.database
    assert out.sources[0].targets[1].value("fluency") is None          # scored, then undone
    assert out.sources[1].items == [(0, 2), (2, 4)]
    assert out.sources[1].targets[2].postedit_by("kim").seconds == 5.0
    assert [t.system for t in out.references(out.sources[2])] == ["ref", "added-1"]
    assert [s.value for t in out.sources[1].targets for s in t.scores_of("rank")] == [1.0, 2.0]
