"""Agreement: kappa hand examples (Macháček §2.2.1), Fleiss, inter-annotator correlation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.engine.human import agreement as ag
from evaltrans_qt.engine.human.ranking import add_ranking


def test_cohen_kappa_hand_example_pooled_chance():
    a = ["<", "<", "=", ">", "<", "="]
    b = ["<", ">", "=", ">", "<", "<"]
    # P(A) = 4/6; pooled frequencies over 12 labels: < 6, = 3, > 3
    p_e = (6 / 12) ** 2 + (3 / 12) ** 2 + (3 / 12) ** 2
    assert ag.chance_agreement(a, b) == pytest.approx(p_e)
    assert ag.cohen_kappa(a, b) == pytest.approx((4 / 6 - p_e) / (1 - p_e))


def test_cohen_kappa_original_chance_and_sklearn_value():
    # classic 2x2 example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> kappa 0.4
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert ag.cohen_kappa(a, b, chance="cohen") == pytest.approx(0.4)


def test_fleiss_kappa_wikipedia_example():
    table = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
                      [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
                      [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    assert ag.fleiss_kappa(table) == pytest.approx(0.210, abs=5e-4)


def _scored_db() -> Database:
    db = Database([Levels("adequacy", count=6, firstvalid=1)])
    db.ensure_reference_class()
    vals = {  # item -> (judge a, judge b); judge b is judge a + 1 (bias) with one disagreement
        0: (1, 2), 1: (2, 3), 2: (3, 4), 3: (4, 5), 4: (2, 2),
    }
    for i, (va, vb) in vals.items():
        src = db.add_source(f"s{i}")
        db.add_target(src, f"r{i}", "ref", reference=True)
        t = db.add_target(src, f"c{i}", "sys")
        t.scores += [Score("adequacy", va, "A"), Score("adequacy", vb, "B")]
    # an intra-annotator repeat by A on item 0
    db.sources[0].targets[1].scores.append(Score("adequacy", 1, "A"))
    return db


def test_inter_annotator_correlation_and_normalisation():
    db = _scored_db()
    raw = ag.annotator_correlation(db, "adequacy")
    # inter pairs: 5 items x A-B, item 0 has a second A judgement -> 2 A-B pairs there
    assert raw.inter_pairs == 6 and raw.intra_pairs == 1
    assert raw.intra == pytest.approx(math.nan, nan_ok=True)  # a single pair has no r
    norm = ag.annotator_correlation(db, "adequacy", normalize=True)
    # a constant offset between judges is removed by (0,1) normalisation -> higher r
    assert norm.inter > raw.inter
    pairs = [(1, 2), (1, 2), (2, 3), (3, 4), (4, 5), (2, 2)]
    x = [a for a, b in pairs] + [b for a, b in pairs]
    y = [b for a, b in pairs] + [a for a, b in pairs]
    assert raw.inter == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert raw.by_pair[("A", "B")][1] == 6


def test_score_kappa_per_judge():
    db = _scored_db()
    rep = ag.score_kappa(db, "adequacy")
    assert rep.inter_n == 6 and rep.intra_n == 1
    assert rep.intra == pytest.approx(1.0)      # A gave 1 both times
    assert set(rep.per_judge) == {"A", "B"}


def test_ranking_kappa_inter_and_intra():
    db = Database()
    src = db.add_source("s")
    db.add_target(src, "ref", "ref", reference=True)
    ts = [db.add_target(src, f"t{k}", f"S{k}") for k in range(3)]
    add_ranking(db, src, {1: 1, 2: 2, 3: 3}, judge="a", task="1")
    add_ranking(db, src, {1: 1, 2: 3, 3: 2}, judge="b", task="2")
    add_ranking(db, src, {1: 1, 2: 2, 3: 3}, judge="a", task="3")
    assert all(len(t.scores) == 3 for t in ts)
    rep = ag.ranking_kappa(db)
    # comparisons (S0,S1), (S0,S2), (S1,S2): task1 < < <, task2 < < >, task3 < < <
    p_e = (8 / 9) ** 2 + (1 / 9) ** 2
    assert rep.p_e == pytest.approx(p_e)
    # inter: a-b twice (tasks 1-2, 2-3), 3 comparisons each, 2 of 3 agree
    assert rep.inter_n == 6
    assert rep.inter == pytest.approx((4 / 6 - p_e) / (1 - p_e))
    assert rep.intra_n == 3 and rep.intra == pytest.approx(1.0)
