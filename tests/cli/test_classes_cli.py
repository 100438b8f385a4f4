"""``evaltrans classes``: list, add (levels, continuous, template), edit, remove; exit 2 and nothing
written on bad input."""

from __future__ import annotations

import json

import pytest
from lxml import etree

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.data import schemes
from evaltrans_qt.io import etdb


def run(capsys, *argv) -> tuple[int, str, str]:
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as exc:            # argparse's own errors
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def imported(tmp_path, capsys):
    """A database as ``evaltrans import text`` writes it (references, no human classes)."""
    for name, text in (("src", "ein Haus\nzwei Katzen\n"), ("ref", "a house\ntwo cats\n"),
                       ("a", "a house\ntwo cat\n"), ("b", "one home\ncats two\n")):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    db = tmp_path / "t.etdb.xml"
    rc, _, _ = run(capsys, "import", "text", "--source", tmp_path / "src.txt", "--reference",
                   tmp_path / "ref.txt", "--system", f"A={tmp_path / 'a.txt'}",
                   "--system", f"B={tmp_path / 'b.txt'}", "-o", db)
    assert rc == 0
    return db


def _classes(capsys, db) -> list[dict]:
    rc, out, _ = run(capsys, "classes", db, "--json")
    assert rc == 0
    return json.loads(out)


def _xml_classes(path) -> list[str]:
    root = etree.parse(str(path), etree.XMLParser(no_network=True, load_dtd=False)).getroot()
    return [el.get("class") for el in root.iter("levels")]


def test_list_add_template_levels_continuous(capsys, imported):
    rows = _classes(capsys, imported)
    assert [(r["name"], r["scores"], r["decides_references"]) for r in rows] == [("isReference", 2, True)]
    rc, out, err = run(capsys, "classes", imported, "--add-template", "sser")
    assert rc == 0 and "added class 'sser'" in err and "sser" in out and "decides references" in out
    rc, _, _ = run(capsys, "classes", imported, "--add", "fluency", "--count", 6, "--perfect", 5,
                   "--firstvalid", 1, "--gray", 2, "--green", 4)
    assert rc == 0
    rc, _, _ = run(capsys, "classes", imported, "--add-continuous", "mqm", "--min", -25, "--max", 0)
    assert rc == 0
    rc, _, _ = run(capsys, "classes", imported, "--add-template", "fluency5", "--name", "fluency-b")
    assert rc == 0
    rows = {r["name"]: r for r in _classes(capsys, imported)}
    assert list(rows) == ["sser", "fluency", "mqm", "fluency-b", "isReference"]
    assert (rows["sser"]["count"], rows["sser"]["perfect"], rows["sser"]["firstvalid"]) == (11, 10, 0)
    assert (rows["fluency"]["count"], rows["fluency"]["gray"], rows["fluency"]["green"]) == (6, 2, 4)
    assert rows["mqm"]["continuous"] and (rows["mqm"]["minimum"], rows["mqm"]["maximum"]) == (-25, 0)
    # the reference class stays last in the file itself (the original tool reads the last class)
    assert _xml_classes(imported)[-1] == "isReference"
    db = etdb.load_database(imported)
    assert db.human_classes == ["sser", "fluency", "mqm", "fluency-b"]
    assert len(db.reference_ids()) == 1 and db.systems() == ["A", "B"]


def _score(path, cls, value, judge="ann"):
    db = etdb.load_database(path)
    for _, t in db.iter_candidates():
        t.set_score(cls, value, judge)
    etdb.save_database(db, path)


def test_remove_with_scores_needs_force(capsys, imported):
    run(capsys, "classes", imported, "--add-template", "fluency5")
    _score(imported, "fluency", 4)
    before = imported.read_bytes()
    rc, _, err = run(capsys, "classes", imported, "--remove", "fluency")
    assert rc == 2 and "'fluency' has 4 score(s)" in err and "--force" in err
    assert imported.read_bytes() == before
    rc, _, err = run(capsys, "classes", imported, "--remove", "fluency", "--force")
    assert rc == 0 and "its 4 score(s)" in err
    db = etdb.load_database(imported)
    assert not db.has_class("fluency") and all(s.cls == "isReference" for _, t in db.iter_targets()
                                                for s in t.scores)


def test_edit_refuses_to_invalidate_scores_unless_forced(capsys, imported, tmp_path):
    run(capsys, "classes", imported, "--add-template", "fluency5")
    _score(imported, "fluency", 5)
    before = imported.read_bytes()
    rc, _, err = run(capsys, "classes", imported, "--edit", "fluency", "--count", 5, "--perfect", 4,
                     "--green", 4)
    assert rc == 2 and "4 score(s) outside the new levels" in err and imported.read_bytes() == before
    rc, _, _ = run(capsys, "classes", imported, "--edit", "fluency", "--rename", "flu")
    assert rc == 0
    db = etdb.load_database(imported)
    assert db.human_classes == ["flu"] and schemes.score_count(db, "flu") == 4
    out = tmp_path / "other.etdb.xml"
    rc, _, _ = run(capsys, "classes", imported, "--edit", "flu", "--count", 5, "--perfect", 4,
                   "--green", 4, "--force", "-o", out)
    assert rc == 0 and schemes.score_count(etdb.load_database(out), "flu") == 0
    assert schemes.score_count(etdb.load_database(imported), "flu") == 4      # -o: FILE untouched


@pytest.mark.parametrize("argv, message", [
    (["--add", "q", "--count", 4], "--add needs --perfect, --firstvalid"),
    (["--add", "q", "--count", 4, "--perfect", 5, "--firstvalid", 1], "perfect 5 of class 'q' is outside"),
    (["--add", "q,r", "--count", 4, "--perfect", 3, "--firstvalid", 1], "comma"),
    (["--add", "isReference", "--count", 2, "--perfect", 1, "--firstvalid", 0], "already"),
    (["--add-continuous", "da", "--min", 100, "--max", 0], "minimum 100 must be below maximum 0"),
    (["--add-continuous", "da", "--min", 0], "--add-continuous needs --max"),
    (["--add-template", "sser", "--count", 3], "--count is only used with --add or --edit"),
    (["--add-template", "sser10"], "invalid choice: 'sser10'"),
    (["--remove", "nope"], "unknown score class 'nope'"),
    (["--remove", "isReference", "--force"], "decides which targets are references"),
    (["--edit", "isReference"], "--edit needs at least one of"),
    (["--edit", "isReference", "--min", 0], "--min/--max apply to continuous classes"),
    (["--force"], "--force is only used with --add or --add-continuous or --add-template "
                     "or --edit or --remove"),
    (["-o", "x.etdb.xml"], "-o/--output is only used with a change"),
])
def test_bad_input_exits_2_with_a_clear_message_and_writes_nothing(capsys, imported, argv, message):
    run(capsys, "classes", imported, "--add-template", "fluency5")
    before = imported.read_bytes()
    rc, _, err = run(capsys, "classes", imported, *argv)
    assert rc == 2 and message in err
    assert imported.read_bytes() == before
    assert not (imported.parent / "x.etdb.xml").exists()


def test_a_pending_session_journal_is_counted_and_kept(capsys, imported):
    """The unsaved score of a journal is counted in the listing and kept by a change written
    in place (then removed from the journal); a class in use is still protected."""
    from evaltrans_qt.io.journal import Journal, change_for, journal_path
    run(capsys, "classes", imported, "--add-template", "fluency5")
    db = etdb.load_database(imported)
    si, ti = next((i, j) for i, s in enumerate(db.sources) for j, t in enumerate(s.targets)
                  if not db.is_reference(t))
    j = Journal(journal_path(imported))
    j.append(change_for(db, si, ti, "fluency", 3, "ann"))
    j.close()
    before = imported.read_bytes()
    rc, out, err = run(capsys, "classes", imported, "--json")
    assert rc == 0 and err == f"{imported}: 1 unsaved judgement from the journal included\n"
    assert next(r for r in json.loads(out) if r["name"] == "fluency")["scores"] == 1
    rc, _, err = run(capsys, "classes", imported, "--remove", "fluency")
    assert rc == 2 and "--force" in err and imported.read_bytes() == before
    rc, _, _ = run(capsys, "classes", imported, "--add-template", "adequacy5")
    assert rc == 0 and not journal_path(imported).exists()
    assert etdb.load_database(imported).sources[si].targets[ti].value("fluency") == 3


def test_missing_file_exits_2(capsys, tmp_path):
    rc, _, err = run(capsys, "classes", tmp_path / "none.etdb.xml")
    assert rc == 2 and "none.etdb.xml" in err
