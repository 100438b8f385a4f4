"""Database method: similar translations, reuse, extrapolation, leave-one-out report."""

from __future__ import annotations

import time

import pytest

from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.engine.human import similar as sim


def _db() -> Database:
    db = Database([Levels("adequacy", 6, firstvalid=1)])
    src = db.add_source("der Hund bellt")
    db.add_target(src, "the dog barks", "ref", reference=True)
    rows = [("A", "the dog barks", 5), ("B", "the dog is barking", 4), ("C", "a dog barks", 3),
            ("D", "the dog barks", None), ("E", "dog the barks loud", None),
            ("F", "a cat barks", 2), ("G", "the dog barks", 4)]
    for sysname, text, v in rows:
        t = db.add_target(src, text, sysname)
        if v is not None:
            t.scores.append(Score("adequacy", v, "j"))
    return db


def test_identical_first_then_by_word_edit_distance():
    db = _db()
    src = db.sources[0]
    d = src.targets[4]                                    # D: "the dog barks", unscored
    ns = sim.similar(db, src, d, "adequacy")
    assert [n.target.system for n in ns] == ["A", "G", "C", "B", "F"]
    assert [n.distance for n in ns] == [0, 0, 1, 2, 2]
    assert ns[0].identical and not ns[2].identical
    assert sim.estimate(ns) == (4.5, 0, 2)                # identical ones averaged


def test_reuse_identical_marks_extrapolated():
    db = _db()
    assert sim.reuse_identical(db, "adequacy") == 1
    d = db.sources[0].targets[4]
    (s,) = d.scores
    # mean 4.5 of the identical A (5) and G (4), rounded half-to-even to a level
    assert s.extrapolated and s.value == 4.0
    # E has no identical translation: untouched
    assert db.sources[0].targets[5].scores == []


def test_extrapolate_nearest_ties_averaged_and_max_distance():
    db = _db()
    assert sim.extrapolate(db, "adequacy", max_distance=1) == 1     # only D (distance 0)
    # a second run refreshes D's estimate and adds E
    assert sim.extrapolate(db, "adequacy") == 2
    assert [s.value for s in db.sources[0].targets[4].scores] == [4.0]
    e = db.sources[0].targets[5]
    # "dog the barks loud" vs the scored: A/G 3 edits, B 3, C 3, F 3 ... -> mean of the nearest
    ns = sim.similar(db, db.sources[0], e, "adequacy")
    best = min(n.distance for n in ns)
    expect = sum(n.value for n in ns if n.distance == best) / sum(n.distance == best for n in ns)
    assert e.scores[0].extrapolated and e.scores[0].value == round(expect)
    # extrapolated scores are not neighbours
    assert all(not n.target.scores[0].extrapolated for n in ns)


def test_leave_one_out_report():
    db = _db()
    rep = sim.leave_one_out(db, "adequacy")
    # by hand (estimates rounded to levels, half to even):
    # A est 4 (identical G) true 5: -1; B "the dog is barking": A/G at 2 edits -> 4.5 -> 4 vs 4: 0
    # C "a dog barks": A, G, F at 1 edit -> 11/3 -> 4 vs 3: +1; F "a cat barks": C at 1 -> 3 vs 2: +1
    # G est 5 (identical A) vs 4: +1
    diffs = [-1, 0, 1, 1, 1]
    assert rep.n == 5 and rep.not_estimable == 0
    assert rep.bias == pytest.approx(sum(diffs) / 5)
    assert rep.mean_abs_diff == pytest.approx(sum(abs(d) for d in diffs) / 5)
    assert rep.share_exact == pytest.approx(0.2)
    assert "overestimat" in rep.format().lower() or "optimistic" in rep.format().lower()
    assert rep.per_system["F"] == (1, pytest.approx(1.0))


def test_fast_enough_for_the_ui():
    db = Database([Levels("adequacy", 6, firstvalid=1)])
    src = db.add_source("s")
    words = "the quick brown fox jumps over the lazy dog and runs away into the dark forest".split()
    for k in range(25):
        t = db.add_target(src, " ".join(words[k % 5:] + words[:k % 5]), f"S{k}")
        if k % 2:
            t.scores.append(Score("adequacy", k % 5 + 1, "j"))
    target = src.targets[0]
    sim.similar(db, src, target, "adequacy")
    t0 = time.perf_counter()
    for _ in range(50):
        sim.similar(db, src, target, "adequacy")
    assert (time.perf_counter() - t0) / 50 < 0.010
