"""Merging databases: added sources/targets, conflicts under each policy, reports."""

from __future__ import annotations

import copy

import pytest

from evaltrans_qt.engine.data.database import REFERENCE_CLASS, Database, Levels, Score
from evaltrans_qt.engine.data.merge import Choice, merge
from evaltrans_qt.errors import InputFormatError, ScoreError


def fl() -> Levels:
    return Levels("fluency", 6, 2, 5, 5, 1)


def old_db() -> Database:
    db = Database([fl()])
    s = db.add_source("eins")
    db.add_target(s, "one", "ref-A", reference=True)
    t = db.add_target(s, "one", "sys1")
    t.set_score("fluency", 5, "anna")
    u = db.add_target(s, "won", "sys2")
    u.set_score("fluency", 2, "anna")
    return db


def new_db() -> Database:
    db = Database([fl()])
    s = db.add_source("eins")
    db.add_target(s, "one", "ref-A", reference=True)
    t = db.add_target(s, "one", "sys1")
    t.set_score("fluency", 4, "anna")        # conflict 1
    t.set_score("fluency", 5, "ben")         # new judge: added, no conflict
    u = db.add_target(s, "won", "sys2")
    u.set_score("fluency", 3, "anna")        # conflict 2
    db.add_target(s, "one", "sys3").set_score("fluency", 5, "ben")  # new target, same text
    s2 = db.add_source("zwei")
    db.add_target(s2, "two", "ref-A", reference=True)
    db.add_target(s2, "too", "sys1")
    return db


def anna(db: Database, system: str) -> float:
    t = db.find_target(db.sources[0], {"sys1": "one", "sys2": "won"}[system], system)
    return next(s.value for s in t.scores if s.judge == "anna")


def test_added_sources_targets_scores():
    db = old_db()
    other = new_db()
    snapshot = copy.deepcopy(other)
    rep = merge(db, other, "old")
    assert other == snapshot  # the other database is not changed
    assert (rep.added_sources, rep.added_targets, rep.added_scores) == (1, 3, 1)
    assert [s.text for s in db.sources] == ["eins", "zwei"]
    assert db.systems() == ["sys1", "sys2", "sys3"]
    assert [t.system for t in db.references(db.sources[1])] == ["ref-A"]
    assert "1 sources, 3 targets and 1 scores added" in rep.summary()


@pytest.mark.parametrize("policy,sys1,sys2", [("old", 5, 2), ("new", 4, 3)])
def test_policy_old_and_new(policy, sys1, sys2):
    db = old_db()
    rep = merge(db, new_db(), policy)
    assert (anna(db, "sys1"), anna(db, "sys2")) == (sys1, sys2)
    assert len(rep.conflicts) == 2
    assert {r.kept for r in rep.conflicts} == {policy} and {r.by for r in rep.conflicts} == {"policy"}
    c = rep.conflicts[0].conflict
    assert (c.cls, c.judge, c.target.system) == ("fluency", "anna", "sys1")
    assert rep.kept_old == (2 if policy == "old" else 0)


def test_callback_per_conflict():
    db = old_db()
    asked = []

    def ask(conflict):
        asked.append((conflict.target.system, conflict.old.value, conflict.new.value))
        return "new" if conflict.target.system == "sys1" else "old"
    rep = merge(db, new_db(), ask)
    assert asked == [("sys1", 5, 4), ("sys2", 2, 3)]
    assert (anna(db, "sys1"), anna(db, "sys2")) == (4, 2)
    assert [r.by for r in rep.conflicts] == ["callback", "callback"]


def test_callback_apply_to_all_asks_once():
    db = old_db()
    asked = []

    def ask(conflict):
        asked.append(conflict)
        return Choice("new", apply_to_all=True)
    rep = merge(db, new_db(), ask)
    assert len(asked) == 1
    assert (anna(db, "sys1"), anna(db, "sys2")) == (4, 3)
    assert [r.by for r in rep.conflicts] == ["callback", "apply-to-all"]


def test_equal_scores_are_no_conflict_and_merge_is_idempotent():
    db = old_db()
    merge(db, new_db(), "new")
    again = copy.deepcopy(db)
    rep = merge(db, new_db(), "old")
    assert rep.conflicts == [] and db == again


def test_invalid_scores_leave_database_unchanged():
    db = old_db()
    before = copy.deepcopy(db)
    other = new_db()
    other.levels[0] = Levels("fluency", 11, 2, 10, 10, 0)  # a 0..10 scale under the same name
    other.sources[0].targets[1].set_score("fluency", 9, "carl")
    with pytest.raises(ScoreError, match="not one of its levels"):
        merge(db, other, "new")
    assert db == before


def test_new_classes_go_before_reference_class():
    db = old_db()
    other = new_db()
    other.add_class(Levels("adequacy", 6, 2, 5, 5, 1))
    other.sources[0].targets[1].set_score("adequacy", 4, "ben")
    rep = merge(db, other, "old")
    assert [lv.name for lv in db.levels] == ["fluency", "adequacy", REFERENCE_CLASS]
    assert rep.added_classes == ["adequacy"]
    assert db.sources[0].targets[1].value("adequacy") == 4


def test_other_reference_class_is_translated():
    """An original file marking references with isPerfect merges into an isReference database."""
    db = old_db()
    other = Database([fl(), Levels("isPerfect", 2, 0, 1, 1, 0)])
    s = other.add_source("drei")
    r = other.add_target(s, "three", "human")
    r.scores.append(Score("isPerfect", 1))
    other.add_target(s, "tree", "sys1").scores.append(Score("isPerfect", 0))
    rep = merge(db, other, "old")
    assert [lv.name for lv in db.levels] == ["fluency", REFERENCE_CLASS]
    src = db.source_by_text("drei")
    assert [t.system for t in db.references(src)] == ["human"]
    assert [t.system for t in db.candidates(src)] == ["sys1"]
    assert any("isPerfect" in n for n in rep.notes)


def test_merge_into_empty_database_copies_classes():
    db = Database()
    merge(db, new_db(), "old")
    assert db == new_db()


# ------------------------------------------------------------ positional sources
def positional(scores: dict[str, float], refs=("thanks .", "hello .", "thank you .")) -> Database:
    """Lines 1 and 3 repeat a sentence with different references; A's candidates equal."""
    db = Database([fl()])
    for i, ref in enumerate(refs):
        src = db.add_source("Hallo ." if i == 1 else "Danke .", doc="d", seg=str(i + 1))
        db.add_target(src, ref, "ref-A", reference=True)
        t = db.add_target(src, "thanks .", "A")
        if str(i + 1) in scores:
            t.set_score("fluency", scores[str(i + 1)], "anna")
    return db


def test_positional_databases_merge_by_doc_and_seg():
    """Two databases with seg attributes: a repeated sentence's lines stay apart, each
    line's scores land on its own candidate."""
    db = positional({"1": 5})
    rep = merge(db, positional({"3": 2}), "old")
    assert [(s.seg, s.text) for s in db.sources] == [("1", "Danke ."), ("2", "Hallo ."),
                                                    ("3", "Danke .")]
    assert rep.added_sources == 0 and rep.added_targets == 0 and rep.added_scores == 1
    assert [s.targets[1].value("fluency") for s in db.sources] == [5, None, 2]
    assert [[t.text for t in db.references(s)] for s in db.sources] == [
        ["thanks ."], ["hello ."], ["thank you ."]]


def test_same_position_with_another_sentence_is_refused():
    db = positional({"1": 5})
    before = copy.deepcopy(db)
    other = positional({})
    other.sources[1].text = "Bitte ."
    other.reindex()
    with pytest.raises(InputFormatError, match="document d segment 2 is 'Hallo .' here but "
                                               "'Bitte .' in the other"):
        merge(db, other, "new")
    assert db == before


def test_old_files_without_seg_still_merge_identical_sources():
    """Thesis Appendix A.2: sources without seg are identified by text, also across the two files; a
    text source of the other file finds the line of ours that has its target."""
    db = Database([fl()])
    for text in ("eins", "zwei", "eins"):
        db.add_source(text)
    assert len(db.sources) == 2 and db.sources[0].occurrences == 2
    merge(db, old_db(), "old")
    assert [s.text for s in db.sources] == ["eins", "zwei"]
    pos = positional({"3": 4})
    text_only = Database([fl()])
    src = text_only.add_source("Danke .")
    text_only.add_target(src, "thanks .", "A").set_score("fluency", 1, "ben")
    text_only.add_target(src, "danke .", "B")
    rep = merge(pos, text_only, "old")
    assert rep.added_sources == 0 and rep.added_targets == 1
    assert pos.sources[0].targets[1].value("fluency") == 1       # first line with A's text
    assert [t.system for t in pos.sources[0].targets] == ["ref-A", "A", "B"]
