"""Unseen systems from a SegRanks database (Macháček ch. 3), worked out by hand on the
database of tests/engine/unseen_db.py."""

from __future__ import annotations

import copy
import math

import pytest

from evaltrans_qt.engine.human.unseen import annotated as an
from evaltrans_qt.engine.human.unseen import levels, matching
from evaltrans_qt.errors import OptionError
from tests.engine.human.unseen_db import make_db


def test_leave_one_out_view_drops_only_own_candidates():
    db = make_db()
    seg0, seg1 = an.annotated_segments(db)
    v = seg0.without("C")
    assert v.candidates == ("p q", "s t") and v.rankings == ((1, 3),)
    v = seg1.without("C")                 # "u v" shared with B: kept, credited to B only
    assert v.candidates == ("u", "u v", "w") and v.systems[1] == ("B",)
    assert v.rankings == ((2, 1, 3), (2, 1, 2))


def test_exact_matching_hit_rate_and_ratio_of_wins_on_hits():
    res = matching.evaluate_unseen(make_db(), "C", "exact")
    # segment 0: "p r" only C produced -> miss; segment 1: "u v" also B's -> hit
    assert [m.hit for m in res.matches] == [False, True]
    assert res.hit_rate == 0.5 and math.isnan(res.aed)
    # scored on segment 1 only: j1 A2 B1 C1 D3, j2 A2 B1 C1 D2
    st = res.scores.stats
    assert (st["A"].wins, st["A"].losses, st["A"].ties) == (1, 4, 1)
    assert (st["B"].wins, st["B"].losses, st["B"].ties) == (4, 0, 2)
    assert (st["C"].wins, st["C"].losses, st["C"].ties) == (4, 0, 2)
    assert (st["D"].wins, st["D"].losses, st["D"].ties) == (0, 5, 1)
    assert res.scores.stats["A"].ratio == pytest.approx(1 / 5)


def test_closest_matching_aed_and_taken_rank():
    res = matching.evaluate_unseen(make_db(), "C", "closest")
    miss = res.matches[0]
    # "p r" -> "p q" 1 edit, "s t" 2 edits: the closest is "p q", rank 1; true rank 2
    assert (miss.distance, miss.closest, miss.taken, miss.true_ranks) == (1, (0,), (1.0,), (2,))
    assert miss.outcomes() == ["better"]
    assert res.aed == pytest.approx(0.5)          # (1 + 0 for the hit) / 2
    assert res.aed_misses == 1.0
    # every segment scored; segment 0 adds A1 B1 C1 D3: A w1 t2 to its w1 l4 t1 of segment 1
    assert (res.scores.stats["A"].wins, res.scores.stats["A"].losses) == (2, 4)
    assert res.scores.stats["A"].ratio == pytest.approx(1 / 3)
    assert res.scores.stats["C"].ratio == 1.0 and res.scores.stats["D"].ratio == 0.0


def test_closest_ties_in_distance_are_averaged():
    res = matching.evaluate_unseen(make_db(), "D", "closest")
    m0 = res.matches[0]
    # "s t" is 2 edits from both "p q" (rank 1) and "p r" (rank 2): rank 1.5 taken
    assert m0.closest == (0, 1) and m0.distance == 2 and m0.taken == (1.5,)
    # "w" -> "u" 1 edit (ranks 2, 2), "u v" 3: taken (2, 2) against true (3, 2)
    m1 = res.matches[1]
    assert m1.taken == (2.0, 2.0) and m1.outcomes() == ["better", "equal"]
    assert res.aed == pytest.approx(1.5)


def test_worse_equal_better_over_all_left_out_systems():
    db = make_db()
    before = copy.deepcopy(db)
    results = matching.leave_one_system_out(db, "closest")
    assert [r.system for r in results] == ["A", "B", "C", "D"]
    per = {r.system: r.outcome_counts() for r in results}
    # A's "u" -> "w" (1 edit; "u v" 2): j1 3 vs 2 worse, j2 2 vs 2 equal
    assert per["A"] == {"worse": 1, "equal": 1, "better": 0}
    assert per["B"] == {"worse": 0, "equal": 0, "better": 0}       # only hits
    assert per["C"] == {"worse": 0, "equal": 0, "better": 1}
    assert per["D"] == {"worse": 0, "equal": 1, "better": 2}
    assert matching.total_outcomes(results) == {"worse": 1, "equal": 2, "better": 3}
    assert results[3].by_distance() == {1: {"worse": 0, "equal": 1, "better": 1},
                                         2: {"worse": 0, "equal": 0, "better": 1}}
    ex = results[0].examples()
    assert [(e.unseen, e.closest, e.distance, e.comparison) for e in ex] == \
        [("u", ("w",), 1, "W")]     # mean taken 2.5 vs mean true 2: worse
    # the leave-one-out never touched the database
    assert db == before
    assert [r.hit_rate for r in matching.leave_one_system_out(db, "exact")] == [0.5, 1.0, 0.5, 0.0]
    assert db == before


def test_unseen_system_without_segments_matches_occurring_candidates():
    db = make_db()
    src = db.sources[0]
    db.add_target(src, "z p q u v k", "E")
    res = matching.evaluate_unseen(db, "E", "exact")
    assert not res.projected and res.hit_rate == 1.0
    # segment 1: both "u" and "u v" occur -> the longer "u v" (rank 1 in both annotations)
    assert [m.unseen for m in res.matches] == ["p q", "u v"]
    assert [m.taken for m in res.matches] == [(1.0,), (1.0, 1.0)]
    db.add_target(src, "z uu u k", "F")          # "u" as a word only, "p q" nowhere
    res = matching.evaluate_unseen(db, "F", "exact")
    assert [m.hit for m in res.matches] == [False, True] and res.matches[1].unseen == "u"
    with pytest.raises(OptionError, match="closest matching needs"):
        matching.evaluate_unseen(db, "F", "closest")


def test_pooled_by_source_text_for_unseen_systems():
    db = make_db()
    src2 = db.add_source("x y z w", doc="d2", seg="1")   # the same sentence again
    db.add_target(src2, "k p q m", "E")
    res = matching.evaluate_unseen(db, "E", "exact")
    assert [m.hit for m in res.matches] == [True, False]   # annotations of the first occurrence


def test_errors_name_the_problem():
    db = make_db()
    with pytest.raises(OptionError, match="method"):
        matching.evaluate_unseen(db, "A", "fuzzy")
    with pytest.raises(OptionError, match="no annotated candidate segments"):
        matching.leave_one_system_out(db, "exact", ["Z"])
    from evaltrans_qt.engine.human.segranks.model import set_sentence_segments
    set_sentence_segments(db.sources[0], None)
    with pytest.raises(OptionError, match="no ranked short segments"):
        matching.evaluate_unseen(db, "A")


def test_segment_vs_sentence_kendall_tau_table_3_2():
    res = levels.level_agreement(make_db())
    # segment-level decisive comparisons vs the sentence order A > B > C > D:
    # seg 0 (j1): 5 concordant; seg 1 j1: 3 c, 2 d; seg 1 j2: 2 c, 2 d
    assert (res.concordant, res.discordant) == (10, 4)
    assert res.tau == pytest.approx(6 / 14)
    rows = {r.system: r for r in res.rows}
    assert rows["A"].better == (3, 4) and rows["A"].worse == (0, 0)
    assert rows["A"].tau_better == pytest.approx(-1 / 7) and math.isnan(rows["A"].tau_worse)
    assert rows["D"].worse == (8, 0) and rows["D"].tau_all == 1.0
    # disagreement quotient: C seg 5/7 over sent 1/3; B 1 over 2/3; A 3/7 over 1; D undefined
    q = [(d.system, d.quotient) for d in res.quotients]
    assert q == [("C", pytest.approx(15 / 7)), ("B", pytest.approx(1.5)),
                 ("A", pytest.approx(3 / 7))]
    assert res.table("all")[0][0] == "D"


def test_segment_vs_sentence_needs_both_levels():
    with pytest.raises(OptionError, match="whole-sentence rankings"):
        levels.level_agreement(make_db(sentence_ranks=False))


def test_win_counts_equal_engine_ranking_pairwise():
    """The fast counting of matching.accumulate = engine.ranking's pairwise comparisons."""
    from evaltrans_qt.engine.human.ranking import pairwise, rank_scores
    db = make_db()
    for method in ("exact", "closest"):
        for res in matching.leave_one_system_out(db, method):
            comps = []
            for m in res.matches:
                for ranks, taken in zip(m.segment.rankings, m.taken):
                    sys_ranks = {s: float(r) for r, ss in zip(ranks, m.segment.systems) for s in ss}
                    sys_ranks[res.system] = taken
                    comps.extend(pairwise(sys_ranks))
            ref = rank_scores(comps)
            for row in ref.rows:
                w = res.scores.stats[row.system]
                assert (w.wins, w.losses, w.ties) == (row.wins, row.losses, row.ties)
