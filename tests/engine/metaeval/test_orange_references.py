"""ORANGE finds references by the database's rule (the last class at its ``perfect`` level,
thesis Appendix A.2), not by a class name: a database whose references are marked by an
original EvalTrans ``isPerfect`` class is held out like one marked by ``isReference``."""

from __future__ import annotations

import pytest

from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.engine.metaeval.orange import HELD_OUT, held_out_database, orange


def _database(marking: str) -> Database:
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1),
                   Levels(marking, count=2, gray=0, green=1, perfect=1, firstvalid=0)])
    for i, (refs, cands) in enumerate([
            (["the cat sat on the mat", "a cat sat on the mat", "the cat is on the mat"],
             {"A": "the cat sat on a mat", "B": "cat mat"}),
            (["hello world", "hello , world"], {"A": "hello world", "B": "hi"})]):
        src = db.add_source(f"source {i}", None, str(i + 1))
        for k, text in enumerate(refs):
            db.add_target(src, text, f"ref-{k}").scores.append(Score(marking, 1.0))
        for system, text in cands.items():
            db.add_target(src, text, system)
    return db


@pytest.mark.parametrize("marking", ["isReference", "isPerfect"])
def test_held_out_database_keeps_the_other_references(marking):
    db = _database(marking)
    out, origin = held_out_database(db, 2)          # only the first source has a third one
    assert origin == [0]
    (src,) = out.sources
    assert [t.system for t in out.references(src)] == ["ref-0", "ref-1"]
    assert [t.system for t in out.candidates(src)] == [HELD_OUT, "A", "B"]


def test_orange_is_the_same_whatever_class_marks_the_references():
    a = orange(_database("isReference"), measures=["wer", "bleu"])
    b = orange(_database("isPerfect"), measures=["wer", "bleu"])
    assert [r.to_dict() for r in a] == [r.to_dict() for r in b]
    assert {r.measure: r.n for r in a} == {"wer": 5, "bleu": 5}
