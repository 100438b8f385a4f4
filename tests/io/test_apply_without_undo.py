"""``apply_entry(..., undo=False)`` -- the command line's commit, which keeps no undo history
-- applies a per-target protocol change (error spans, post-edit, marks) exactly as the
undoable apply does, refuses the same bad changes and leaves the database unchanged then."""

from __future__ import annotations

import copy

import pytest

from evaltrans_qt.engine.data import protocols
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.schemes import template
from evaltrans_qt.engine.human.spans.model import ErrorSpan, Rejection
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io.etdb import dumps
from evaltrans_qt.io.journal import apply_entry


def _db() -> Database:
    db = Database([template("esa")])
    src = db.add_source("Der Zug kommt heute an.", doc="d1", seg="1")
    db.add_target(src, "The train arrives today.", "ref", reference=True)
    db.add_target(src, "Train come today.", "A")
    db.add_target(src, "The train is arriving today.", "B")
    protocols.define_items(src, [(0, 2), (2, 3)])
    return db


def _changes(db: Database) -> list:
    return [
        pc.spans_change(db, 0, 1, "ann", [ErrorSpan("Major", "Accuracy", 0, 5)], 7.5, "esa"),
        pc.spans_change(db, 0, 1, "ann", [ErrorSpan("Minor", "Fluency", 6, 10)], 2.0, "mqm",
                        [Rejection("xcomet", ErrorSpan("Minor", "Other", 11, 16))]),
        pc.spans_change(db, 0, 1, "ann", [ErrorSpan("Critical", "Accuracy", 0, 17)], 9.0,
                        "esa"),                          # replaces the first
        pc.spans_change(db, 0, 2, "ann", [], None, "esa"),
        pc.postedit_change(db, 0, 1, "ann", "The train comes today.", 12.0),
        pc.postedit_change(db, 0, 1, "ann", "The train will come today.", 3.0),
        pc.marks_change(db, 0, 2, "ann", ("OK", "meaning")),
        pc.spans_change(db, 0, 2, "ann", None, None, "esa"),   # removed again
        pc.postedit_change(db, 0, 2, "bob", "The train arrives today.", 1.0),
        pc.postedit_change(db, 0, 2, "bob", None),
    ]


def test_same_database_with_and_without_undo():
    with_undo, without = _db(), _db()
    for ch in _changes(with_undo):
        assert apply_entry(with_undo, ch) != []
    for ch in _changes(without):
        assert apply_entry(without, ch, undo=False) == []
    assert dumps(without) == dumps(with_undo)
    t = without.sources[0].targets[1]
    assert [(a.protocol, a.errors[0].severity) for a in t.span_annotations] == [
        ("esa", "Critical"), ("mqm", "Minor")]
    assert t.postedits[0].text == "The train will come today."
    assert without.sources[0].targets[2].span_annotations == []


@pytest.mark.parametrize("bad", [
    lambda db: pc.spans_change(db, 0, 1, "ann", [ErrorSpan("Major", "Accuracy", 0, 99)]),
    lambda db: pc.spans_change(db, 0, 1, "ann", [], None, "esa",
                               [Rejection("m", ErrorSpan("Major", "Accuracy", 5, 2))]),
    lambda db: pc.postedit_change(db, 0, 0, "ann", "a post-edit of a reference"),
    lambda db: pc.marks_change(db, 0, 1, "ann", ("OK",)),       # two items, one mark
])
def test_bad_change_refused_and_nothing_changed(bad):
    db = _db()
    apply_entry(db, _changes(db)[0], undo=False)
    before = copy.deepcopy(db)
    with pytest.raises(ScoreError):
        apply_entry(db, bad(db), undo=False)
    assert dumps(db) == dumps(before)
