"""Protocols in storage: .etdb.xml round trip of items, marks, post-edits and added
references; clear load errors; journal replay after a SIGKILL; merge keeps both sides;
the EvalTrans report carries the values."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from lxml import etree

from evaltrans_qt.engine.data import protocols as P
from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.engine.human import protocol_scores as S
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.etdb import dumps, load_database, loads, save_database
from evaltrans_qt.io.journal import Journal, journal_path, replay


def make_db() -> Database:
    db = Database()
    s1 = db.add_source("Der Zug hat heute Verspätung .", seg="1")
    db.add_target(s1, "The train is late today .", "ref", reference=True)
    db.add_target(s1, "The train has today delay .", "A")
    db.add_target(s1, "The train is late today .", "B")
    s2 = db.add_source("Guten Morgen !", seg="2")
    db.add_target(s2, "Good morning !", "ref", reference=True)
    db.add_target(s2, "Good tomorrow !", "A")
    db.add_target(s2, "Good morning !", "B")
    return db


def with_protocols(db: Database) -> Database:
    schemes.add_template(db, "sser")
    s1, s2 = db.sources
    a1 = P.target_of(db, s1, "A", candidate=True)
    P.define_items(s1, P.parse_spans("1-2,3-5"))
    P.set_marks(db, s1, a1, "OK,syntax", "anna")
    P.set_marks(db, s1, a1, "OK,OK", None)
    P.set_postedit(db, a1, "The train has a delay today .", "anna", 41.5)
    P.set_postedit(db, a1, "The train is late today .", "ben")
    P.add_reference(db, s2, "Good morning & welcome <3", "added-1", judge="anna")
    a1.set_score("sser", 6, "anna")
    return db


def test_round_trip_exact(tmp_path):
    db = with_protocols(make_db())
    data = dumps(db)
    back = loads(data)
    assert back == db
    assert dumps(back) == data
    s1 = back.sources[0]
    assert s1.items == [(0, 2), (2, 5)]
    a1 = P.target_of(back, s1, "A", candidate=True)
    assert a1.postedit_by("anna").seconds == 41.5 and a1.postedit_by("ben").seconds is None
    assert a1.marks_by(None).marks == ("OK", "OK")
    added = P.target_of(back, back.sources[1], "added-1")
    assert added.added and added.added_by == "anna" and back.is_reference(added)
    assert added.text == "Good morning & welcome <3"
    # the file is plain XML the original tool can skip: documented element names
    root = etree.fromstring(data)
    assert root.find("source/items/item").get("words") == "1-2"
    assert root.find("source/items/item").text == "Der Zug"
    assert {e.tag for e in root.iter()} >= {"items", "item", "postedit", "marks"}
    p = tmp_path / "x.etdb.xml"
    save_database(db, p)
    assert load_database(p) == db


@pytest.mark.parametrize("change, message", [
    (("<marks judge=\"anna\">OK syntax</marks>", "<marks judge=\"anna\">OK wrong</marks>"),
     "item marks are"),
    (("<marks judge=\"anna\">OK syntax</marks>", "<marks judge=\"anna\">OK</marks>"),
     "1 mark\\(s\\), but its source has 2"),
    (('<item words="3-5">', '<item words="3-9">'), "outside the sentence"),
    (('<item words="1-2">Der Zug</item>', '<item words="1-2">Die Bahn</item>'),
     "says 'Die Bahn'"),
    (('seconds="41.5"', 'seconds="-1"'), "seconds of <postedit> must be >= 0"),
    (('<item words="1-2">', '<item words="x">'), "not a word span"),
])
def test_bad_protocol_data_is_a_clear_error(change, message):
    text = dumps(with_protocols(make_db())).decode()
    assert change[0] in text
    bad = text.replace(change[0], change[1]).encode()
    with pytest.raises(InputFormatError, match=message) as exc:
        loads(bad, "x.etdb.xml")
    assert exc.value.line is not None


CRASH = textwrap.dedent("""
    import os, signal, sys
    from evaltrans_qt.io.etdb import load_database
    from evaltrans_qt.io.journal import Journal
    from evaltrans_qt.io import protocol_changes as pc
    path = sys.argv[1]
    db = load_database(path)
    j = Journal.for_database(path)
    a = [t.system for t in db.sources[0].targets].index("A")
    for ch in (pc.items_change(db, 0, [(0, 2), (2, 5)]),
               pc.postedit_change(db, 0, a, "anna", "The train has a delay today .", 12.0),
               pc.marks_change(db, 0, a, "anna", ("OK", "meaning")),
               pc.reference_change(db, 1, None, "add", text="Morning !", judge="anna"),
               pc.reference_change(db, 1, 2, "mark")):
        pc.apply_protocol_change(db, j.append(ch))
    os.kill(os.getpid(), signal.SIGKILL)       # no save
""")


def test_journal_recovers_after_sigkill(tmp_path):
    path = tmp_path / "db.etdb.xml"
    save_database(make_db(), path)
    before = path.read_bytes()
    proc = subprocess.run([sys.executable, "-c", CRASH, str(path)], capture_output=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == -9, proc.stderr.decode()
    assert path.read_bytes() == before                 # nothing was saved
    db = load_database(path)
    report = replay(db, Journal(journal_path(path)).entries())
    assert len(report.applied) == 5 and not report.missing and not report.rejected
    s1, s2 = db.sources
    a1 = P.target_of(db, s1, "A", candidate=True)
    assert s1.items == [(0, 2), (2, 5)]
    assert a1.postedit_by("anna").text == "The train has a delay today ." and \
        a1.postedit_by("anna").seconds == 12.0
    assert a1.marks_by("anna").marks == ("OK", "meaning")
    assert [t.system for t in db.references(s2)] == ["ref", "B", "added-1"]
    # replaying again changes nothing (idempotent), and the result saves and loads
    again = load_database(path)
    replay(again, Journal(journal_path(path)).entries())
    replay(again, Journal(journal_path(path)).entries())
    assert again == db
    save_database(db, path)
    assert load_database(path) == db


def test_merge_keeps_both_sides():
    ours = with_protocols(make_db())
    theirs = with_protocols(make_db())
    a_theirs = P.target_of(theirs, theirs.sources[0], "A", candidate=True)
    P.set_postedit(theirs, a_theirs, "The train is delayed today .", "anna", 3)   # conflict
    P.set_postedit(theirs, a_theirs, "The train is late today !", "carl")         # new judge
    P.set_marks(theirs, theirs.sources[0], a_theirs, "meaning,OK", "carl")
    P.add_reference(theirs, theirs.sources[0], "Today the train is late .", judge="carl")
    report = merge(ours, theirs, "old")
    a = P.target_of(ours, ours.sources[0], "A", candidate=True)
    assert [p.judge for p in a.postedits] == ["anna", "ben", "carl"]
    assert a.postedit_by("anna").text == "The train has a delay today ."       # kept ours
    assert a.marks_by("carl").marks == ("meaning", "OK")
    assert any(t.added_by == "carl" for t in ours.references(ours.sources[0]))
    assert len(report.protocol_conflicts) == 1 and "anna" in report.protocol_conflicts[0]
    assert "conflicting post-edits" in report.summary()

    ours2 = with_protocols(make_db())
    merge(ours2, theirs, "new")
    a2 = P.target_of(ours2, ours2.sources[0], "A", candidate=True)
    assert a2.postedit_by("anna").text == "The train is delayed today ."


def test_merge_different_items_drop_the_losers_marks():
    ours = with_protocols(make_db())
    theirs = with_protocols(make_db())
    P.define_items(theirs.sources[0], [(0, 5)], force=True)
    P.set_marks(theirs, theirs.sources[0], P.target_of(theirs, theirs.sources[0], "A"),
                "error", "carl")
    report = merge(ours, theirs, "old")
    a = P.target_of(ours, ours.sources[0], "A")
    assert ours.sources[0].items == [(0, 2), (2, 5)]
    assert [m.judge for m in a.item_marks] == ["anna", None]
    assert "items differ (kept ours" in report.protocol_conflicts[0]
    loads(dumps(ours))                                   # still a valid file


def test_report_contains_protocol_values():
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.io.report import build_report
    db = with_protocols(make_db())
    run = evaluate(db, EvalOptions(), ["wer"])
    vals = S.system_values(db, "A")
    root = etree.fromstring(build_report(run, "A", protocols=vals, date="x", author="x"))
    got = {p.get("name"): p for p in root.iter("protocol")}
    assert set(got) == {"sser:sser", "ier", "hter", "awer", "ser"}
    # HTER of A, source 1: anna's post-edit takes 2 edits (shift "today", insert "a") of 7
    # words, ben's 3 substitutions of 6; judges averaged: (2.5, 6.5) -> 2.5 / 6.5
    assert float(got["hter"].text) == pytest.approx(2.5 / 6.5)
    assert got["hter"].get("sentences") == "1"
    assert float(got["sser:sser"].text) == pytest.approx(0.4)
    assert float(got["ier"].text) == pytest.approx(0.5 / 2)
    assert got["ser"].get("sentences") == "2" and float(got["ser"].text) == 1.0
