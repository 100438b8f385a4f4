"""Score schemes: templates, adding/editing/removing classes, the reference class stays last."""

from __future__ import annotations

import copy

import pytest
from lxml import etree

from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import REFERENCE_CLASS, Database, Levels
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io import etdb, plaintext


def _text_db(tmp_path) -> Database:
    """What ``evaltrans import text`` builds: two sentences, one reference, two systems."""
    files = {"src": "ein Haus\nzwei Katzen\n", "ref": "a house\ntwo cats\n",
             "a": "a house\ntwo cat\n", "b": "one home\ncats two\n"}
    for name, text in files.items():
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    return plaintext.import_text(tmp_path / "src.txt", [tmp_path / "ref.txt"],
                                 [("A", tmp_path / "a.txt"), ("B", tmp_path / "b.txt")])


def _refs(db):
    return [(s.text, t.text) for s, t in db.iter_targets() if db.is_reference(t)]


def _xml_levels(path):
    """The <levels> classes of a saved file in order, read with lxml (not our reader)."""
    root = etree.parse(str(path), etree.XMLParser(no_network=True, load_dtd=False)).getroot()
    return [el.get("class") for el in root.iter("levels")]


# ------------------------------------------------------------ templates
def test_sser_template_is_survey_table_4_2_with_k_10():
    lv = schemes.template("sser")
    # survey §4.4.8 / Table 4.2: v(s, t) from 0 (nonsense) to K = 10 (perfect): 11 levels
    assert not lv.continuous and lv.count == 11 and lv.firstvalid == 0 and lv.perfect == 10
    for v in range(11):
        lv.validate(v)
        assert lv.is_valid_level(v)
    with pytest.raises(ScoreError):
        lv.validate(11)
    with pytest.raises(ScoreError):
        lv.validate(2.5)


@pytest.mark.parametrize("name, valid, invalid", [
    ("fluency5", [1, 2, 3, 4, 5], [6, 1.5, -1]),
    ("adequacy5", [1, 5], [6]),
    ("mqm", [-25, -7.5, 0], [0.5, -25.5]),
    ("reference", [0, 1], [2]),
])
def test_template_levels(name, valid, invalid):
    lv = schemes.template(name)
    for v in valid:
        lv.validate(v)
    for v in invalid:
        with pytest.raises(ScoreError):
            lv.validate(v)
    if name.endswith("5"):
        assert (lv.count, lv.firstvalid, lv.perfect) == (6, 1, 5)   # thesis Figure A.1: 0 = not judged
        assert not lv.is_valid_level(0)
    if name == "mqm":
        assert lv.continuous and (lv.minimum, lv.maximum, lv.perfect) == (-25, 0, 0)
    if name == "reference":
        assert lv.name == REFERENCE_CLASS and lv.perfect == 1


def test_unknown_template_names_the_known_ones():
    with pytest.raises(ScoreError, match="unknown template 'sser10'.*fluency5.*reference"):
        schemes.template("sser10")


# ------------------------------------------------------------ definitions are checked
@pytest.mark.parametrize("lv, problem", [
    (Levels("", 6, 2, 5, 5, 1), "needs a name"),
    (Levels(" fluency", 6, 2, 5, 5, 1), "spaces"),
    (Levels("flu,ency", 6, 2, 5, 5, 1), "comma"),
    (Levels("a\tb", 6, 2, 5, 5, 1), "control character"),
    (Levels("f", 1, 0, 0, 0, 0), "from 2 to 1000"),
    (Levels("f", 1001, 0, 0, 0, 0), "from 2 to 1000"),
    (Levels("f", 6, 2, 5, 5, 6), "firstvalid 6 .* levels 0..5"),
    (Levels("f", 6, 2, 5, 5, 1.5), "firstvalid 1.5"),
    (Levels("f", 6, 2, 5, 7, 1), "perfect 7 .* outside its levels 0..5"),
    (Levels("f", 6, -1, 5, 5, 1), "gray -1"),
    (Levels("f", 0, 0, 0, 0, 0, True, 5.0, 5.0), "minimum 5 must be below maximum 5"),
    (Levels("f", 0, 0, 0, 0, 0, True, None, 5.0), "finite minimum and maximum"),
    (Levels("f", 0, 0, 0, 0, 0, True, float("-inf"), 5.0), "finite minimum and maximum"),
    (Levels("f", 0, 0, 0, 9, 0, True, 0.0, 5.0), "perfect 9 .* outside its range"),
    (Levels("f", 6, float("nan"), 5, 5, 1), "gray .* finite"),
])
def test_bad_definitions_are_refused_naming_the_problem(lv, problem):
    with pytest.raises(ScoreError, match=problem):
        schemes.check_levels(lv)
    db = Database([Levels("isReference", 2, 0, 1, 1, 0)])
    with pytest.raises(ScoreError):
        schemes.add_class(db, lv)
    assert [x.name for x in db.levels] == ["isReference"]


def test_discrete_and_continuous_defaults():
    lv = schemes.discrete("q", count=4, perfect=3, firstvalid=1)
    assert (lv.gray, lv.green) == (1, 3)
    lv = schemes.continuous("da", 0, 100)
    assert (lv.perfect, lv.green, lv.gray, lv.firstvalid) == (100, 100, 0, 0) and lv.continuous


# ------------------------------------------------------------ adding keeps the reference class last
def test_text_import_then_templates_keep_reference_last_and_references(tmp_path):
    db = _text_db(tmp_path)
    assert db.human_classes == [] and [lv.name for lv in db.levels] == [REFERENCE_CLASS]
    refs = _refs(db)
    assert len(refs) == 2
    schemes.add_template(db, "fluency5")
    schemes.add_template(db, "sser")
    schemes.add_class(db, schemes.continuous("da", 0, 100))
    assert [lv.name for lv in db.levels] == ["fluency", "sser", "da", REFERENCE_CLASS]
    assert db.human_classes == ["fluency", "sser", "da"]
    assert _refs(db) == refs
    # scores of every new class can be stored; the saved file has isReference last
    cands = [t for _, t in db.iter_candidates()]
    cands[0].set_score("fluency", 5, "ann")     # 5 = perfect of fluency, but not the last class
    cands[0].set_score("sser", 10, "ann")
    cands[1].set_score("da", 62.5, "ann")
    out = tmp_path / "scored.etdb.xml"
    etdb.save_database(db, out)
    assert _xml_levels(out) == ["fluency", "sser", "da", REFERENCE_CLASS]
    back = etdb.load_database(out)
    assert _refs(back) == refs and back.levels == db.levels
    assert schemes.score_count(back, "sser") == 1


def test_adding_to_an_empty_database_appends_is_reference_first():
    db = Database()
    schemes.add_template(db, "adequacy5", "adeq")
    assert [lv.name for lv in db.levels] == ["adeq", REFERENCE_CLASS]
    with pytest.raises(ScoreError, match="'adeq' is already declared"):
        schemes.add_template(db, "fluency5", "adeq")


def test_original_files_marking_class_stays_last():
    """A file of the original tool whose last class 'isPerfect' marks references (Figure A.1)."""
    db = Database([Levels("fluency-min", 6, 2, 5, 5, 1), Levels("isPerfect", 2, 0, 1, 1, 0)])
    src = db.add_source("ein Haus")
    ref = db.add_target(src, "a house", "r")
    ref.set_score("isPerfect", 1)
    db.add_target(src, "a home", "A").set_score("fluency-min", 5, "ann")
    schemes.add_template(db, "sser")
    assert [lv.name for lv in db.levels] == ["fluency-min", "sser", "isPerfect"]
    assert db.references(src) == [ref]
    # a second marking class would turn isPerfect's references into candidates: refused
    with pytest.raises(ScoreError, match="'isPerfect' already marks references"):
        schemes.add_template(db, "reference")
    assert [lv.name for lv in db.levels][-1] == "isPerfect"


def test_reference_template_on_a_file_without_references():
    db = Database([Levels("fluency", 6, 2, 5, 5, 1)])
    src = db.add_source("ein Haus")
    db.add_target(src, "a house", "A").set_score("fluency", 3, "ann")
    schemes.add_template(db, "reference")
    assert [lv.name for lv in db.levels] == ["fluency", REFERENCE_CLASS]
    assert db.references(src) == []


# ------------------------------------------------------------ removing
def _scored_db():
    db = Database()
    schemes.add_template(db, "fluency5")
    schemes.add_template(db, "adequacy5")
    src = db.add_source("ein Haus")
    db.add_target(src, "a house", "ref", reference=True)
    a = db.add_target(src, "a home", "A")
    b = db.add_target(src, "one house", "B")
    a.set_score("fluency", 4, "ann")
    a.set_score("fluency", 5, "bob")
    b.set_score("fluency", 2, "ann")
    a.set_score("adequacy", 3, "ann")
    return db, a, b


def test_remove_class_with_scores_needs_force():
    db, a, b = _scored_db()
    before = copy.deepcopy(db)
    with pytest.raises(schemes.ClassInUseError, match=r"'fluency' has 3 score\(s\) \(by ann, bob\)") as e:
        schemes.remove_class(db, "fluency")
    assert e.value.affected == 3
    assert db == before                                   # nothing changed
    assert schemes.remove_class(db, "fluency", force=True) == 3
    assert [lv.name for lv in db.levels] == ["adequacy", REFERENCE_CLASS]
    assert all(s.cls != "fluency" for _, t in db.iter_targets() for s in t.scores)
    db.validate_scores()
    assert len(db.references(db.sources[0])) == 1


def test_remove_unused_class_and_unknown_class():
    db, a, b = _scored_db()
    schemes.add_template(db, "sser")
    assert schemes.remove_class(db, "sser") == 0
    with pytest.raises(ScoreError, match="unknown score class 'sser'"):
        schemes.remove_class(db, "sser")


def test_the_reference_deciding_class_cannot_be_removed_while_others_remain():
    db, a, b = _scored_db()
    for force in (False, True):
        with pytest.raises(ScoreError, match="decides which targets are references.*'adequacy' decide"):
            schemes.remove_class(db, REFERENCE_CLASS, force=force)
    schemes.remove_class(db, "fluency", force=True)
    schemes.remove_class(db, "adequacy", force=True)
    with pytest.raises(schemes.ClassInUseError, match=r"1 score\(s\)"):
        schemes.remove_class(db, REFERENCE_CLASS)
    assert schemes.remove_class(db, REFERENCE_CLASS, force=True) == 1
    assert db.levels == [] and len(db.candidates(db.sources[0])) == 3


# ------------------------------------------------------------ editing
def test_edit_that_invalidates_scores_is_refused_naming_how_many():
    db, a, b = _scored_db()
    before = copy.deepcopy(db)
    new = Levels("fluency", count=5, gray=2, green=4, perfect=4, firstvalid=1)   # level 5 is gone
    with pytest.raises(schemes.ClassInUseError, match=r"1 score\(s\) outside the new levels") as e:
        schemes.edit_class(db, "fluency", new)
    assert e.value.affected == 1 and db == before
    assert schemes.edit_class(db, "fluency", new, force=True) == 1
    assert b.value("fluency") == 2 and a.scores_of("fluency")[0].judge == "ann"
    assert db.level("fluency") is new
    db.validate_scores()


def test_edit_raising_firstvalid_counts_judgements_that_would_become_not_judged():
    db, a, b = _scored_db()
    new = Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=3)
    with pytest.raises(schemes.ClassInUseError, match=r"1 judgement\(s\) below the new firstvalid 3"):
        schemes.edit_class(db, "fluency", new)
    assert schemes.edit_class(db, "fluency", new, force=True) == 1
    assert b.scores_of("fluency") == []


def test_edit_that_keeps_scores_valid_and_rename():
    db, a, b = _scored_db()
    wider = Levels("fluency", count=8, gray=2, green=6, perfect=7, firstvalid=1)
    assert schemes.edit_class(db, "fluency", wider) == 0
    assert schemes.edit_class(db, "fluency", Levels("flu", 8, 2, 6, 7, 1)) == 0
    assert [lv.name for lv in db.levels] == ["flu", "adequacy", REFERENCE_CLASS]
    assert a.value("flu") == 4.5 and a.scores_of("fluency") == []
    with pytest.raises(ScoreError, match="'adequacy' is already declared"):
        schemes.edit_class(db, "flu", Levels("adequacy", 8, 2, 6, 7, 1))
    with pytest.raises(ScoreError, match="keeps its name"):
        schemes.edit_class(db, REFERENCE_CLASS, Levels("isRef", 2, 0, 1, 1, 0))
    # discrete -> continuous keeps integer scores inside the range
    assert schemes.edit_class(db, "adequacy", schemes.continuous("adequacy", 0, 100)) == 0
    assert a.value("adequacy") == 3


def test_edit_of_the_reference_class_that_would_change_references_is_refused():
    db, a, b = _scored_db()
    refs = _refs(db)
    new = Levels(REFERENCE_CLASS, count=3, gray=0, green=2, perfect=2, firstvalid=0)
    with pytest.raises(schemes.ClassInUseError, match=r"1 reference\(s\) would become candidates"):
        schemes.edit_class(db, REFERENCE_CLASS, new)
    assert _refs(db) == refs
    assert schemes.edit_class(db, REFERENCE_CLASS, new, force=True) == 0
    assert _refs(db) == []


# ------------------------------------------------------------ undo support
def test_snapshot_restores_a_forced_removal_and_edit():
    db, a, b = _scored_db()
    before = copy.deepcopy(db)
    targets = schemes.touched_targets(db, ["fluency"])
    snap = schemes.snapshot(db, targets)
    schemes.remove_class(db, "fluency", force=True)
    after = schemes.snapshot(db, targets)
    schemes.restore(db, snap)
    assert db == before
    schemes.restore(db, after)
    assert not db.has_class("fluency") and schemes.score_count(db, "fluency") == 0


def test_describe_lists_classes_in_file_order_with_scores_and_role():
    db, a, b = _scored_db()
    rows = schemes.describe(db)
    assert [(r["name"], r["scores"], r["decides_references"]) for r in rows] == [
        ("fluency", 3, False), ("adequacy", 1, False), (REFERENCE_CLASS, 1, True)]
    assert schemes.scale_text(db.level("fluency")) == "levels 1..5"
    assert schemes.scale_text(schemes.template("mqm")) == "continuous -25..0"
