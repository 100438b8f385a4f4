"""Merging SegRanks data (engine/human/segranks/merge.py through engine.merge.merge): nothing of
either side is lost silently; conflicts are reported."""

from __future__ import annotations

import copy

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.engine.human.segranks.model import (
    CandidateSegment,
    SegmentRanking,
    SentenceSegments,
    SourceSegment,
    sentence_segments,
    set_sentence_segments,
)


def _db(rankings=(), text="der Hund bellt laut") -> Database:
    db = Database()
    src = db.add_source("the dog barks loudly", seg="1")
    db.add_target(src, "ref", "ref-A", reference=True)
    db.add_target(src, "der Hund bellt", "A")
    seg = SourceSegment((0, 1, 2), "the dog barks",
                        [CandidateSegment(text, ["A"]), CandidateSegment("ein Hund", ["B"])])
    set_sentence_segments(src, SentenceSegments([seg], list(rankings)))
    return db


def _ranking(judge, task, ranks):
    return SegmentRanking(judge, {0: ranks}, task, "2026-11-24T00:00:00", 12.5)


def test_identical_copy_changes_nothing():
    a = _db([_ranking("anna", "t1", (1, 2))])
    b = copy.deepcopy(a)
    report = merge(a, b, "new")
    assert a == b and not report.protocol_conflicts


def test_rankings_of_both_sides_are_kept_and_conflicts_reported():
    a = _db([_ranking("anna", "t1", (1, 2))])
    b = _db([_ranking("bob", "t1", (2, 1)), _ranking("anna", "t1", (2, 2))])
    report = merge(a, b, "old")
    data = sentence_segments(a.sources[0])
    assert [(r.judge, r.ranks[0]) for r in data.rankings] == [("anna", (1, 2)), ("bob", (2, 1))]
    (conflict,) = report.protocol_conflicts
    assert "judge anna" in conflict and "kept ours" in conflict
    a2 = _db([_ranking("anna", "t1", (1, 2))])
    merge(a2, b, "new")
    assert sentence_segments(a2.sources[0]).rankings[0].ranks[0] == (2, 2)


def test_segments_only_the_other_side_has_are_taken():
    a = _db()
    set_sentence_segments(a.sources[0], None)
    assert sentence_segments(a.sources[0]) is None
    b = _db([_ranking("bob", "t9", (1, 1))])
    merge(a, b, "old")
    assert sentence_segments(a.sources[0]) == sentence_segments(b.sources[0])


@pytest.mark.parametrize("policy,kept", [("old", "ours"), ("new", "theirs")])
def test_different_segments_keep_one_side_and_say_what_was_dropped(policy, kept):
    a = _db([_ranking("anna", "t1", (1, 2))])
    b = _db([_ranking("bob", "t2", (2, 1))], text="der Hund")
    mine, theirs = (copy.deepcopy(sentence_segments(x.sources[0])) for x in (a, b))
    report = merge(a, b, policy)
    assert sentence_segments(a.sources[0]) == (mine if policy == "old" else theirs)
    (conflict,) = report.protocol_conflicts
    assert f"kept {kept}" in conflict and "dropped 1 ranking(s)" in conflict


def test_database_equality_sees_segranks():
    a, b = _db([_ranking("anna", "t1", (1, 2))]), _db()
    assert a != b
