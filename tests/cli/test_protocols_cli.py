"""evaltrans reference / items / postedit / human: changes written
atomically, bad input exits 2 with a clear message and writes nothing."""

from __future__ import annotations

import json

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.data import protocols as P
from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.io.etdb import load_database, save_database


@pytest.fixture
def dbfile(tmp_path):
    db = Database()
    s1 = db.add_source("Der Zug hat heute Verspätung .", seg="1")
    db.add_target(s1, "The train is late today .", "ref", reference=True)
    db.add_target(s1, "The train has today delay .", "A")
    db.add_target(s1, "The train is late today .", "B")
    s2 = db.add_source("Guten Morgen !", seg="2")
    db.add_target(s2, "Good morning !", "ref", reference=True)
    db.add_target(s2, "Good tomorrow !", "A")
    db.add_target(s2, "Morning !", "B")
    schemes.add_template(db, "sser")
    p = tmp_path / "db.etdb.xml"
    save_database(db, p)
    return p


def run(*argv) -> int:
    return main([str(a) for a in argv])


def test_a_whole_protocol_session(dbfile, capsys):
    assert run("items", dbfile, "--source", 1, "--define", "1-2,3-5") == 0
    assert run("items", dbfile, "--source", 1, "--system", "A", "--judge", "anna",
               "--marks", "OK,syntax") == 0
    assert run("postedit", dbfile, "--source", 1, "--system", "A", "--judge", "anna",
               "--text", "The train has a delay today .", "--seconds", 30, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["hter"], out["edits"], out["postedit_length"]) == (pytest.approx(2 / 7), 2, 7)
    assert run("reference", dbfile, "--source", 2, "--add", "Good tomorrow !", "--judge",
               "anna", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["system"] == "added-1" and out["references"] == ["ref", "added-1"]
    assert run("reference", dbfile, "--source", 2, "--system", "B") == 0
    db = load_database(dbfile)
    s1, s2 = db.sources
    assert s1.items == [(0, 2), (2, 5)]
    assert P.target_of(db, s1, "A").marks_by("anna").marks == ("OK", "syntax")
    assert [t.system for t in db.references(s2)] == ["ref", "B", "added-1"]

    assert run("human", dbfile, "--json") == 0
    h = json.loads(capsys.readouterr().out)
    a = h["systems"]["A"]
    assert a["ier"] == {"value": 0.5, "sentences": 1, "numerator": 1.0, "denominator": 2.0}
    assert a["hter"]["value"] == pytest.approx(2 / 7) and a["hter"]["sentences"] == 1
    # aWER: source 1 "has today delay" vs "is late today": 3 edits of 6 words; source 2
    # equals the added reference: 0 edits, average length of its references "Good morning !",
    # "Morning !" (B, promoted) and "Good tomorrow !" (added) = 8/3 -> 3 / (6 + 8/3)
    assert a["awer"]["value"] == pytest.approx(3 / (6 + 8 / 3)) and a["awer"]["sentences"] == 2
    assert a["ser"]["value"] == 0.5
    assert h["systems"]["B"]["awer"]["sentences"] == 1        # B's source-2 line is a reference
    assert a["sser:sser"] == {"value": None, "sentences": 0, "numerator": 0.0, "denominator": 0.0}
    assert h["added_references"] == 1
    assert run("human", dbfile) == 0
    text = capsys.readouterr().out
    assert "SSER(sser)" in text and "HTER" in text and "28.57 (1)" in text

    assert run("reference", dbfile, "--source", 2, "--system", "added-1", "--unmark") == 0
    assert run("reference", dbfile, "--source", 2, "--system", "B", "--unmark") == 0
    db = load_database(dbfile)
    assert [t.system for t in db.references(db.sources[1])] == ["ref"]
    assert run("items", dbfile, "--source", 1, "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["items"][1] == {"words": "3-5", "text": "hat heute Verspätung"}


@pytest.mark.parametrize("argv, message", [
    (("items", "--source", 1, "--define", "1-2,4-9"), "outside the sentence"),
    (("items", "--source", 1, "--define", "2-1"), "cannot come before"),
    (("items", "--source", 3, "--define", "1-2"), "source 3 does not exist"),
    (("items", "--source", 0, "--define", "1-2"), "source 0 does not exist"),
    (("items", "--source", 1, "--system", "A", "--judge", "j", "--marks", "OK"),
     "no information items"),
    (("items", "--source", 1, "--marks", "OK"), "needs --system"),
    (("reference", "--source", 1, "--system", "Z"), "no candidate of system 'Z'"),
    (("reference", "--source", 1, "--system", "A", "--unmark"), "no reference of system 'A'"),
    (("reference", "--source", 1), "either --system"),
    (("reference", "--source", 1, "--add", "x", "--unmark"), "--unmark is not used"),
    (("reference", "--source", 1, "--add", "  "), "empty"),
    (("postedit", "--source", 1, "--system", "ref", "--judge", "j", "--text", "x"),
     "no candidate of system 'ref'"),
    (("postedit", "--source", 1, "--system", "A", "--judge", "j", "--text", "x",
      "--seconds", "-3"), "seconds"),
    (("human", "--judge", "nobody"), "judge 'nobody'"),
])
def test_bad_input_exits_2_and_writes_nothing(dbfile, capsys, argv, message):
    before = dbfile.read_bytes()
    argv = (argv[0], dbfile, *argv[1:])
    assert run(*argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert dbfile.read_bytes() == before


def test_wrong_number_of_marks(dbfile, capsys):
    run("items", dbfile, "--source", 1, "--define", "1-2,3-5")
    before = dbfile.read_bytes()
    assert run("items", dbfile, "--source", 1, "--system", "A", "--judge", "j",
               "--marks", "OK,OK,OK") == 2
    assert "3 mark(s) given, but the source has 2" in capsys.readouterr().err
    assert run("items", dbfile, "--source", 1, "--define", "1-5") == 0   # no marks yet
    assert dbfile.read_bytes() != before


def test_redefining_marked_items_needs_force(dbfile, capsys):
    run("items", dbfile, "--source", 1, "--define", "1-2,3-5")
    run("items", dbfile, "--source", 1, "--system", "A", "--judge", "j", "--marks", "OK,OK")
    assert run("items", dbfile, "--source", 1, "--define", "1-5") == 2
    assert "--force" in capsys.readouterr().err
    assert run("items", dbfile, "--source", 1, "--define", "1-5", "--force") == 0
    assert P.target_of(load_database(dbfile), load_database(dbfile).sources[0], "A").item_marks == []


def test_a_journal_of_unsaved_changes_is_written_with_the_change(dbfile, capsys):
    """The unsaved post-edit of a journal beside the file is included in the change written
    in place, and removed from the journal (it is in the file now)."""
    from evaltrans_qt.io import protocol_changes as pc
    from evaltrans_qt.io.journal import Journal, journal_path
    db = load_database(dbfile)
    j = Journal.for_database(dbfile)
    j.append(pc.postedit_change(db, 0, 1, "anna", "x"))
    j.close()
    assert run("postedit", dbfile, "--source", 1, "--system", "A", "--judge", "b",
               "--text", "y") == 0
    assert f"{dbfile}: 1 unsaved judgement from the journal included" in \
        capsys.readouterr().err
    t = P.target_of(load_database(dbfile), load_database(dbfile).sources[0], "A")
    assert {p.judge: p.text for p in t.postedits} == {"anna": "x", "b": "y"}
    assert not journal_path(dbfile).exists()


def test_output_elsewhere_leaves_the_input(dbfile, tmp_path):
    out = tmp_path / "out.etdb.xml"
    before = dbfile.read_bytes()
    assert run("reference", dbfile, "--source", 1, "--system", "A", "-o", out) == 0
    assert dbfile.read_bytes() == before
    db = load_database(out)
    assert db.is_reference(P.target_of(db, db.sources[0], "A"))
