"""judgement_copy (engine/data/judgement_copy.py): the same database as far as the file
shows, and no change made to the original afterwards -- new scores, replaced or
appended-to lists of judgements, new targets and sources, new classes, a replaced
top-level element -- reaches it."""

from __future__ import annotations

from evaltrans_qt.engine.data.database import Database, ItemMarks, PostEdit, Score
from evaltrans_qt.engine.data.judgement_copy import judgement_copy
from evaltrans_qt.engine.data.schemes import template
from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation
from evaltrans_qt.io.etdb.writer import dumps


def _db() -> Database:
    db = Database()
    db.add_class(template("adequacy5", "adequacy5"))
    for i in range(4):
        src = db.add_source(f"source {i} words here", doc="d1", seg=str(i + 1))
        src.items = [(0, 1)]
        db.add_target(src, f"reference {i}", "ref", reference=True)
        for s in ("A", "B"):
            t = db.add_target(src, f"candidate {i} of {s}", s)
            t.set_score("adequacy5", 1 + (i % 5), judge="anna")
            t.set_score("adequacy5", 5 - (i % 5), judge="ben")
            t.span_annotations = [SpanAnnotation("anna", [ErrorSpan("major", "accuracy", 0, 3)],
                                                 protocol="mqm")]
            t.item_marks = [ItemMarks(("OK",), "anna")]
            t.postedits = [PostEdit(f"post-edit {i}", "anna")]
    db.add_source("a sentence without seg")
    db.extra_children = ["<campaign-result version=\"1\"/>"]
    db.extra_attrs = {"lp": "de-en"}
    return db


def test_the_copy_is_the_same_database():
    db = _db()
    c = judgement_copy(db)
    assert dumps(c) == dumps(db)
    assert c.sources is not db.sources and c.levels is not db.levels
    # indexed as the original, over its own sources
    assert c.source_by_key("d1", "2") is c.sources[1]
    assert c.find_source("a sentence without seg") is c.sources[-1]
    assert c.sources_by_text("source 0 words here") == [c.sources[0]]


def test_no_later_change_reaches_the_copy():
    db = _db()
    want = dumps(db)
    c = judgement_copy(db)
    src, t = db.sources[0], db.sources[0].targets[1]
    t.set_score("adequacy5", 3, judge="anna")                 # replaces the list
    t.scores.append(Score("adequacy5", 2, "carl"))           # in place, as a merge does
    t.span_annotations.append(SpanAnnotation("ben", [], protocol="mqm"))
    t.item_marks.append(ItemMarks(("error",), "ben"))
    t.postedits.append(PostEdit("another", "ben"))
    db.add_target(src, "a new candidate", "C")               # appended to the source's list
    src.items.append((1, 2))
    db.add_source("a new source", doc="d1", seg="99")
    db.add_class(template("fluency5", "fluency5"))
    db.extra_children.append("<other/>")
    db.extra_attrs["lp"] = "en-de"
    assert dumps(db) != want
    assert dumps(c) == want
    assert c.source_by_key("d1", "99") is None


def test_sources_false_keeps_only_the_top_level():
    db = _db()
    c = judgement_copy(db, sources=False)
    assert c.sources == [] and c.extra_children == db.extra_children
    db.extra_children[0] = "<campaign-result version=\"1\" campaign=\"x\"/>"
    assert c.extra_children == ["<campaign-result version=\"1\"/>"]
    assert c.human_classes == db.human_classes


def test_a_span_annotation_changed_later_does_not_reach_the_copy():
    """Changing a judge's error spans replaces their annotation (io/protocol_changes.py),
    so a copy made before keeps the spans it had."""
    from evaltrans_qt.io import protocol_changes as pc
    from evaltrans_qt.io.journal import apply_entry

    db = Database([template("esa")])
    src = db.add_source("Der Zug kommt.", doc="d", seg="1")
    db.add_target(src, "The train comes.", "A")
    apply_entry(db, pc.spans_change(db, 0, 0, "ann", [ErrorSpan("Minor", "Style", 0, 3)],
                                    2.0, "esa"))
    frozen = judgement_copy(db)
    for undo in (True, False):
        apply_entry(db, pc.spans_change(db, 0, 0, "ann", [ErrorSpan("Major", "Accuracy",
                                                                    4, 9)], 5.0, "esa"),
                    undo=undo)
        assert db.sources[0].targets[0].span_annotations[0].errors[0].severity == "Major"
        ann = frozen.sources[0].targets[0].span_annotations[0]
        assert (ann.errors[0].severity, ann.seconds) == ("Minor", 2.0)
