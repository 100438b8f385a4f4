"""Data model: reference rule of thesis Appendix A.2, look-ups, score classes, counts."""

from __future__ import annotations

import pytest

from evaltrans_qt.engine.data.database import REFERENCE_CLASS, Database, Levels, Score, Source
from evaltrans_qt.errors import InputFormatError, ScoreError


def fluency() -> Levels:
    return Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)


def small() -> Database:
    db = Database([fluency()])
    s1 = db.add_source("Guten Tag .")
    db.add_target(s1, "good day .", "ref-A", reference=True)
    db.add_target(s1, "hello .", "ref-B", reference=True)
    a = db.add_target(s1, "good day .", "sysA")   # same text as a reference and as sysB
    b = db.add_target(s1, "good day .", "sysB")
    c = db.add_target(s1, "good tag .", "sysC")
    a.set_score("fluency", 5, judge="anna")
    b.set_score("fluency", 4, judge="ben")
    c.scores.append(Score("fluency", 2, extrapolated=True))
    s2 = db.add_source("Danke .")
    db.add_target(s2, "thanks .", "ref-A", reference=True)
    db.add_target(s2, "thank .", "sysA")
    return db


def test_reference_rule_last_class_at_least_perfect():
    """Thesis Appendix A.2: the last class decides; value >= perfect makes a reference."""
    db = Database([fluency(), Levels("isPerfect", 2, 0, 1, 1, 0)])
    src = db.add_source("x")
    t_ref = db.add_target(src, "r")
    t_ref.scores.append(Score("isPerfect", 1))
    t_cand = db.add_target(src, "c")
    t_cand.scores += [Score("isPerfect", 0), Score("fluency", 5)]
    assert db.references(src) == [t_ref] and db.candidates(src) == [t_cand]
    # with fluency last, a fluency-5 target (>= perfect 5) is the reference instead
    db.levels.reverse()
    assert db.references(src) == [t_cand]


def test_add_target_reference_appends_reference_class_last():
    db = small()
    assert [lv.name for lv in db.levels] == ["fluency", REFERENCE_CLASS]
    assert db.human_classes == ["fluency"]
    lv = db.level(REFERENCE_CLASS)
    assert (lv.count, lv.perfect) == (2, 1)


def test_identical_candidates_stay_attributable_to_each_system():
    db = small()
    assert db.systems() == ["sysA", "sysB", "sysC"]
    assert db.reference_ids() == ["ref-A", "ref-B"]
    a = db.candidates_by_system("sysA")
    b = db.candidates_by_system("sysB")
    assert [t.text for _, t in a] == ["good day .", "thank ."]
    assert [t.text for _, t in b] == ["good day ."]
    assert a[0][1] is not b[0][1] and a[0][1].value("fluency") == 5 and b[0][1].value("fluency") == 4


def test_unscored_ignores_references_and_extrapolations():
    db = small()
    assert [(s.text, t.system) for s, t in db.unscored("fluency")] == [
        ("Guten Tag .", "sysC"), ("Danke .", "sysA")]
    assert [t.system for _, t in db.unscored("fluency", judge="anna")] == ["sysB", "sysC", "sysA"]


def test_counts():
    c = small().counts()
    assert {k: c[k] for k in ("sources", "targets", "references", "candidates")} == {
        "sources": 2, "targets": 7, "references": 3, "candidates": 4}
    assert c["systems"] == ["sysA", "sysB", "sysC"]
    assert c["scored"] == {"fluency": 2} and c["unscored"] == {"fluency": 2}
    assert c["judges"] == ["anna", "ben"]


def test_sources_without_seg_are_identified_by_text():
    """Thesis Appendix A.2: sources without position merge by their text."""
    db = Database()
    a = db.add_source("same")
    b = db.add_source("same", doc="d")          # a doc alone is no position
    assert a is b and len(db.sources) == 1 and a.occurrences == 2 and a.key is None


def test_sources_with_seg_are_identified_by_position():
    """Positional identity: (doc, seg) identifies a source; a repeated sentence keeps both lines."""
    db = Database()
    a = db.add_source("same", seg="1")
    b = db.add_source("same", seg="2")
    c = db.add_source("same", doc="d2", seg="1")
    assert len({id(a), id(b), id(c)}) == 3 and len(db.sources) == 3
    assert (a.key, b.key, c.key) == (("", "1"), ("", "2"), ("d2", "1"))
    assert db.add_source("same", seg="2") is b and b.occurrences == 1   # same segment again
    assert db.source_by_key(None, "2") is b and db.source_by_key("", "2") is b
    assert db.source_by_key("d2", "2") is None
    assert db.source_by_text("same") is a and db.sources_by_text("same") == [a, b, c]
    assert db.source_index(c) == 2 and db.source_index(Source("same", seg="2")) is None
    # a text-identified source with the same text is a third identity
    t = db.add_source("same")
    assert t.key is None and db.source_by_text("same") is t and len(db.sources) == 4


def test_same_position_with_another_sentence_is_an_error():
    db = Database()
    db.add_source("eins", doc="d", seg="3")
    with pytest.raises(InputFormatError, match="document d segment 3 holds two different"):
        db.add_source("zwei", doc="d", seg="3")
    assert len(db.sources) == 1


def test_reindex_merges_by_identity():
    db = Database()
    a, b = db.add_source("x", seg="1"), db.add_source("x", seg="2")
    db.add_target(a, "one", "A")
    db.add_target(b, "two", "A")
    b.seg = "1"                                  # edited in place: now the same position
    db.reindex()
    assert db.sources == [a] and [t.text for t in a.targets] == ["one", "two"]
    a2 = db.add_source("y", seg="2")
    a2.seg = "1"
    with pytest.raises(InputFormatError, match="segment 1 holds two different"):
        db.reindex()
    assert db.sources == [a, a2]                 # nothing changed


@pytest.mark.parametrize("value,ok", [(0, True), (5, True), (3, True), (6, False), (-1, False),
                                      (2.5, False), (float("nan"), False)])
def test_discrete_levels_validate(value, ok):
    lv = fluency()
    if ok:
        lv.validate(value)
    else:
        with pytest.raises(ScoreError):
            lv.validate(value)


def test_continuous_levels_validate():
    lv = Levels("mqm", 0, -25, 0, 0, -25, continuous=True, minimum=-25, maximum=0)
    lv.validate(-3.33)
    with pytest.raises(ScoreError, match="outside"):
        lv.validate(0.5)


def test_add_class_keeps_reference_class_last():
    db = small()
    db.add_class(Levels("adequacy", 6, 2, 5, 5, 1))
    assert [lv.name for lv in db.levels] == ["fluency", "adequacy", REFERENCE_CLASS]
    with pytest.raises(ScoreError):
        db.add_class(Levels("adequacy", 6, 2, 5, 5, 1))
    # a database without references gets isReference first, so the new class cannot mark references
    db2 = Database([fluency()])
    db2.add_class(Levels("mqm", 0, -25, 0, 0, -25, True, -25, 0))
    assert [lv.name for lv in db2.levels] == ["fluency", "mqm", REFERENCE_CLASS]


def test_mark_reference_uses_the_class_in_use():
    db = Database([fluency(), Levels("isPerfect", 2, 0, 1, 1, 0)])
    src = db.add_source("x")
    old = db.add_target(src, "r1")
    old.scores.append(Score("isPerfect", 1))
    new = db.add_target(src, "r2")
    db.mark_reference(new)
    assert [lv.name for lv in db.levels] == ["fluency", "isPerfect"]
    assert db.references(src) == [old, new]


def test_set_and_remove_score_per_judge():
    db = small()
    _, t = db.candidates_by_system("sysA")[0]
    t.set_score("fluency", 3, judge="anna")
    t.set_score("fluency", 4, judge="ben")
    assert sorted(s.value for s in t.scores_of("fluency")) == [3, 4]
    assert t.value("fluency") == 3.5
    assert t.remove_score("fluency", "anna") and not t.remove_score("fluency", "anna")


def test_validate_scores():
    db = small()
    db.validate_scores()
    db.sources[0].targets[2].scores.append(Score("fluency", 9))
    with pytest.raises(ScoreError):
        db.validate_scores()
