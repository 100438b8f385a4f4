"""The database method extended: pooling over sources with the same
text, character distance, leave-one-system-out and the per-system accuracy report,
judges of the neighbours -- by hand."""

from __future__ import annotations

import copy

import pytest

from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.engine.human import similar as sim
from evaltrans_qt.errors import OptionError


def _db() -> Database:
    db = Database([Levels("adequacy", 6, firstvalid=1)])
    src = db.add_source("der Hund bellt")
    db.add_target(src, "the dog barks", "ref", reference=True)
    for system, text, v, judge in [("A", "the dog barks", 5, "ann"), ("B", "the dogs bark", 3, "bob"),
                                   ("C", "a dog barks", 4, "ann"), ("D", "the dog barks", 4, "bob")]:
        db.add_target(src, text, system).scores.append(Score("adequacy", v, judge))
    return db


def test_pooled_over_sources_with_the_same_text():
    db = _db()
    other = db.add_source("der Hund bellt", doc="d2", seg="7")    # the sentence repeated
    db.add_target(other, "the dog barks", "ref", reference=True)
    e = db.add_target(other, "the dog bark", "E")
    ns = sim.similar(db, other, e, "adequacy")
    # the judged translations of the first occurrence are the neighbours
    assert {n.target.system for n in ns} == {"A", "B", "C", "D"}
    assert all(n.source is db.sources[0] for n in ns)
    assert ns[0].judges in (("ann",), ("bob",))
    assert sim.extrapolate(db, "adequacy") == 1
    # nearest by words: A, D (1 substitution) and B (1) -> (5 + 4 + 3) / 3 = 4
    assert e.scores[0].extrapolated and e.scores[0].value == 4.0


def test_character_distance():
    db = _db()
    src = db.sources[0]
    x = db.add_target(src, "the dog barked", "X")
    words = sim.similar(db, src, x, "adequacy")
    chars = sim.similar(db, src, x, "adequacy", distance="chars")
    # words: A, D 1 (barks -> barked); B (dogs, bark) and C (a, barks) 2
    assert sorted((n.target.system, n.distance) for n in words) == \
        [("A", 1), ("B", 2), ("C", 2), ("D", 1)]
    # characters: A, D "s" -> "ed" 2; B "s" deleted + "ed" 3; C "the" -> "a" 3 + 2
    assert sorted((n.target.system, n.distance) for n in chars) == \
        [("A", 2), ("B", 3), ("C", 5), ("D", 2)]
    assert sim.estimate(chars) == (4.5, 2, 2)
    with pytest.raises(OptionError, match="distance"):
        sim.similar(db, src, x, "adequacy", distance="bytes")


def test_leave_one_system_out_per_system_accuracy_by_hand():
    db = _db()
    db.add_target(db.sources[0], "the dog barks", "A").scores.append(Score("adequacy", 3, "ann"))
    before = copy.deepcopy(db)
    cand = sim.leave_one_out(db, "adequacy")
    syst = sim.leave_one_out(db, "adequacy", scope="system")
    assert db == before
    # candidate scope: A's first "the dog barks" (5) sees D and A's second (4, 3): 3.5 -> 4
    # system scope: it sees only D (identical, 4)
    # A1 5: est 4 (D) -> -1;  A2 3: est 4 (D) -> +1;  B 3: nearest A1 A2 D (1 edit): 4 -> +1
    # C 4: A1 A2 D at 1 edit (5, 3, 4) -> 4 -> 0;  D 4: A1 A2 identical -> 4 -> 0
    a = syst.systems["A"]
    assert (a.n, a.mean_abs_diff, a.share_exact, a.bias) == (2, 1.0, 0.0, 0.0)
    assert syst.systems["B"].bias == 1.0 and syst.systems["D"].share_exact == 1.0
    assert syst.bias == pytest.approx(1 / 5) and syst.scope == "system"
    assert cand.systems["A"].n == 2
    # candidate scope A1: D 4, A2 3 identical -> 3.5 -> 4 (half to even): -1
    assert cand.per_system["A"][1] == pytest.approx(((4 - 5) + (4.0 - 3)) / 2)
    d = syst.to_dict()
    assert d["per_system"]["A"] == {"n": 2, "bias": 0.0, "mean_abs_diff": 1.0, "share_exact": 0.0}
    assert "Leave-one-system-out" in syst.format()
