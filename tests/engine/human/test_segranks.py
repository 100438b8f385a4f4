"""SegRanks engine: Algorithm 1, projection, merging, expansion, ratio of wins,
expected wins, kappa and annotator statistics by hand (Macháček ch. 2-3)."""

from __future__ import annotations

import math

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.agreement import annotator_statistics, segment_kappa
from evaltrans_qt.engine.human.ranking import (
    database_rank_scores,
    expand,
    pairwise,
    rank_scores,
    ratio_of_wins,
)
from evaltrans_qt.engine.human.segranks.extract import extract_database
from evaltrans_qt.engine.human.segranks.model import (
    CandidateSegment,
    SourceSegment,
    merge_candidates,
    sentence_segments,
)
from evaltrans_qt.engine.human.segranks.projection import links_by_source, project, symmetrize
from evaltrans_qt.engine.human.segranks.sessions import (
    PairSampler,
    record_segment_ranking,
    record_sentence_ranking,
)
from evaltrans_qt.engine.human.segranks.tree import Node, extract_segments, uncovered
from evaltrans_qt.errors import InputFormatError, OptionError, ScoreError


def leaf(i: int, w: str = "w") -> Node:
    return Node(w, token=i)


def pre(tag: str, i: int) -> Node:
    return Node(tag, [leaf(i)])


# ------------------------------------------------------------------ Algorithm 1
def figure_2_1_tree() -> Node:
    """'Both bridges are then closed for the whole weekend' -- a long clause whose verb and
    adverb are lone children, as 'jsou' and 'pak' in Macháček Figure 2.1 (maxLength 4)."""
    np1 = Node("NP", [pre("DT", 0), pre("NNS", 1)])                       # Both bridges
    np2 = Node("NP", [pre("DT", 6), pre("JJ", 7), pre("NN", 8)])         # the whole weekend
    pp = Node("PP", [pre("IN", 5), np2])                                  # for the whole weekend
    vp = Node("VP", [pre("VBP", 2), pre("RB", 3), pre("VBN", 4), pp])     # are then closed ...
    return Node("ROOT", [Node("S", [np1, vp])])


def test_algorithm_1_leaves_words_uncovered_as_in_figure_2_1():
    tree = figure_2_1_tree()
    segs = extract_segments(tree, min_length=2, max_length=4)
    # S (9) and VP (7) are too long: descend; NP 'Both bridges' (2) and the PP (4) are
    # taken whole; 'are', 'then', 'closed' are single words below minLength
    assert segs == [(0, 1), (5, 6, 7, 8)]
    assert uncovered(tree, segs) == [2, 3, 4]


def test_algorithm_1_defaults_and_no_descent_into_short_nodes():
    tree = figure_2_1_tree()
    # default 3..6: S (9) too long; NP 'Both bridges' has 2 < 3 leaves -> dropped and NOT
    # descended into; VP has 7 > 6 -> its children: the PP (4) is taken
    assert extract_segments(tree) == [(5, 6, 7, 8)]
    # a node with exactly maxLength leaves is one segment, its sub-phrases are not
    assert extract_segments(tree, 3, 9) == [tuple(range(9))]
    assert extract_segments(tree, 1, 1) == [(0,), (1,), (2,), (3,), (4,), (5,), (6,), (7,), (8,)]


@pytest.mark.parametrize("lo,hi", [(-1, 6), (4, 3), (0, 0), (1.5, 6)])
def test_bad_lengths_refused(lo, hi):
    with pytest.raises(OptionError):
        extract_segments(figure_2_1_tree(), lo, hi)


def test_dependency_tree_head_word_stays_uncovered():
    # 'the old man bought a red car': bought <- man (the, old), bought <- car (a, red)
    man = Node("nsubj", [Node("det", token=0), Node("amod", token=1)], token=2)
    car = Node("obj", [Node("det", token=4), Node("amod", token=5)], token=6)
    root = Node("root", [Node("root", [man, car], token=3)])
    assert root.leaves == tuple(range(7))
    segs = extract_segments(root, 3, 6)
    assert segs == [(0, 1, 2), (4, 5, 6)]
    assert uncovered(root, segs) == [3]


def test_deep_tree_needs_no_recursion():
    node = leaf(2999)
    for i in range(2998, -1, -1):                       # right-branching, 3000 deep
        node = Node("X", [leaf(i), node])
    segs = extract_segments(node, 3, 6)
    assert segs == [tuple(range(2994, 3000))]


# ------------------------------------------------------------------ projection
def test_projection_rule():
    # source 0..4, candidate 0..6
    links = [(0, 0), (1, 3), (2, 1), (3, 5), (4, 6)]
    by = links_by_source(links)
    assert project((0, 1, 2), by) == (0, 4)             # 0,3,1 -> span 0..3 (2 unaligned inside)
    assert project((3,), by) == (5, 6)
    assert project((1, 3), by) == (3, 6)                # discontinuous source: one span 3..5
    assert project((7, 8), by) is None                  # nothing aligned
    # an unaligned candidate word at the edge is not added
    assert project((4,), links_by_source([(4, 6)])) == (6, 7)


def test_grow_diag_final_and_by_hand():
    fwd = [(0, 0), (1, 1), (2, 1), (3, 3), (0, 3)]
    rev = [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert symmetrize(fwd, rev, "intersection") == [(0, 0), (1, 1), (3, 3)]
    assert symmetrize(fwd, rev, "union") == [(0, 0), (0, 3), (1, 1), (2, 1), (2, 2), (3, 3)]
    # grow-diag from the intersection: (2, 1) neighbours (1, 1) and source word 2 is
    # unaligned -> added; (2, 2) neighbours (1, 1) and candidate word 2 is unaligned ->
    # added; (0, 3) neighbours no link and both its words are aligned -> not added,
    # neither by final-and
    assert symmetrize(fwd, rev) == [(0, 0), (1, 1), (2, 1), (2, 2), (3, 3)]


def test_merging_keeps_systems_in_order():
    out = merge_candidates({"A": "das Haus", "B": "ein Haus", "C": "das Haus", "D": None})
    assert out == [CandidateSegment("das Haus", ["A", "C"]), CandidateSegment("ein Haus", ["B"])]


def _db() -> Database:
    db = Database()
    s = db.add_source("the big dog saw a small cat", seg="1")
    db.add_target(s, "der große Hund sah eine kleine Katze", "ref", reference=True)
    db.add_target(s, "der große Hund sah eine kleine Katze", "A")
    db.add_target(s, "der große Hund sah eine winzige Katze", "B")
    db.add_target(s, "großer Hund sah Katze", "C")
    return db


def _tree() -> Node:
    np1 = Node("NP", [pre("DT", 0), pre("JJ", 1), pre("NN", 2)])
    np2 = Node("NP", [pre("DT", 4), pre("JJ", 5), pre("NN", 6)])
    return Node("ROOT", [Node("S", [np1, Node("VP", [pre("VBD", 3), np2])])])


DIAG = [[(i, i) for i in range(7)]]


def test_extract_database_projects_and_merges():
    db = _db()
    c_links = [[(1, 0), (2, 1), (3, 2), (6, 3)]]        # 'the', 'a', 'small' unaligned
    summ = extract_database(db, [_tree()], {"A": (DIAG, "a"), "B": (DIAG, "b"),
                                            "C": (c_links, "c")})
    data = sentence_segments(db.sources[0])
    assert [s.text for s in data.segments] == ["the big dog", "saw a small cat"]
    seg1, seg2 = data.segments
    assert seg1.candidates == [CandidateSegment("der große Hund", ["A", "B"]),
                               CandidateSegment("großer Hund", ["C"])]
    assert seg2.words == (3, 4, 5, 6)
    assert [c.text for c in seg2.candidates] == ["sah eine kleine Katze", "sah eine winzige Katze",
                                                 "sah Katze"]
    assert (summ.segments, summ.projected, summ.merged) == (2, 6, 5)


def test_extract_refuses_out_of_range_links_and_changes_nothing():
    db = _db()
    with pytest.raises(InputFormatError) as e:
        extract_database(db, [_tree()], {"A": ([[(0, 0), (2, 9)]], "a.pharaoh")})
    assert e.value.path == "a.pharaoh" and e.value.line == 1 and "candidate token 9" in str(e.value)
    with pytest.raises(InputFormatError) as e:
        extract_database(db, [_tree()], {"A": ([[(7, 0)]], "a.pharaoh")})
    assert "source token 7" in e.value.problem
    with pytest.raises(InputFormatError):
        extract_database(db, [_tree()], {"nobody": (DIAG, "x")})
    assert sentence_segments(db.sources[0]) is None


# ------------------------------------------------------------------ Macháček §3.1
SEGMENT = SourceSegment((0, 1, 2), "the huge volume", [
    CandidateSegment("velkému objemu", ["CU-TectoMT"]),
    CandidateSegment("obrovské hlasitosti", ["commercial1"]),
    CandidateSegment("obrovský objem", ["uedin-unconstrained", "commercial2", "onlineB", "onlineA"]),
    CandidateSegment("obrovské množství", ["cu-funky", "cu-bojar", "uedin-wmt14", "cu-depfix"]),
])
# the segment annotation of Macháček §3.1 in candidate order, and its system annotation
SEGMENT_RANKS = (1, 5, 2, 2)
SYSTEM_ANNOTATION = {"uedin-unconstrained": 2, "commercial1": 5, "commercial2": 2,
                     "CU-TectoMT": 1, "onlineB": 2, "onlineA": 2, "cu-funky": 2, "cu-bojar": 2,
                     "uedin-wmt14": 2, "cu-depfix": 2}


def test_expansion_reproduces_the_system_annotation():
    assert expand(SEGMENT, SEGMENT_RANKS) == SYSTEM_ANNOTATION


def test_ratio_of_wins_of_the_expanded_annotation():
    comps = pairwise(expand(SEGMENT, SEGMENT_RANKS))
    assert len(comps) == 45                              # N(N-1)/2, N = 10 systems
    res = rank_scores(comps)
    assert res.row("CU-TectoMT").ratio == 1.0 and res.row("commercial1").ratio == 0.0
    for s in SYSTEM_ANNOTATION:
        if s not in ("CU-TectoMT", "commercial1"):
            r = res.row(s)
            assert (r.wins, r.losses, r.ties, r.ratio) == (1, 1, 7, 0.5)
    assert res.rows[0].system == "CU-TectoMT" and res.rows[-1].system == "commercial1"
    # same counts as the earlier ratio_of_wins
    old = ratio_of_wins(comps)
    assert {s: (w.wins, w.losses, w.ties) for s, w in old.stats.items()} == \
        {r.system: (r.wins, r.losses, r.ties) for r in res.rows}


def test_expected_wins_and_geq_by_hand():
    # A beats B twice, ties once; B beats C once; A and C tie once
    comps = [("A", "B", 1), ("B", "A", -1), ("A", "B", 0), ("B", "C", 1), ("C", "A", 0)]
    res = rank_scores(comps)
    a, b, c = res.row("A"), res.row("B"), res.row("C")
    assert (a.wins, a.losses, a.ties) == (2, 0, 2)
    assert a.ratio == 1.0 and a.geq_others == 1.0
    # expected wins (Koehn 2012): A vs B 2/2; A vs C no decisive comparison -> left out
    assert a.expected_wins == 1.0
    # with ties as half: A-B (2 + 0.5)/3, A-C 0.5/1
    assert a.expected_wins_ties == pytest.approx(((2.5 / 3) + 0.5) / 2)
    assert b.ratio == pytest.approx(1 / 3) and b.expected_wins == pytest.approx((0 + 1) / 2)
    assert b.geq_others == pytest.approx(2 / 4)
    assert math.isnan(c.ratio) is False and c.ratio == 0.0 and c.expected_wins == 0.0


def _ranked_db() -> Database:
    db = _db()
    extract_database(db, [_tree()], {"A": (DIAG, "a"), "B": (DIAG, "b"),
                                     "C": ([[(1, 0), (2, 1), (3, 2), (6, 3)]], "c")})
    return db


def test_record_segment_ranking_and_system_scores():
    db = _ranked_db()
    rk, old = record_segment_ranking(db, 0, {0: [1, 2], 1: [1, 2, 4]}, "anna", seconds=30)
    assert old is None and rk.seconds == 30.0 and rk.time
    res = database_rank_scores(db)
    # segment 1: A=B (1) > C (2); segment 2: A (1) > B (2) > C (4)
    assert (res.row("A").wins, res.row("A").losses, res.row("A").ties) == (3, 0, 1)
    assert (res.row("C").wins, res.row("C").losses) == (0, 4)
    assert res.row("B").ratio == pytest.approx(2 / 3)


@pytest.mark.parametrize("ranks,msg", [
    ({0: [1, 2]}, "not ranked yet"),                 # a segment missing
    ({0: [1, 4], 1: [1, 1, 1]}, "from 1 to 3"),      # rank above N+1
    ({0: [1], 1: [1, 1, 1]}, "2 candidate"),         # too few ranks
    ({5: [1, 1]}, "no segment"),
])
def test_bad_segment_rankings_refused(ranks, msg):
    db = _ranked_db()
    with pytest.raises(ScoreError, match=msg):
        record_segment_ranking(db, 0, ranks, "anna")
    assert sentence_segments(db.sources[0]).rankings == []


def test_kappa_by_hand_and_table_2_3():
    db = _ranked_db()
    # segment 2 has candidates x, y, z; comparisons in order (x,y) (x,z) (y,z)
    record_segment_ranking(db, 0, {0: [1, 2], 1: [1, 2, 3]}, "anna", seconds=40, task="t1")
    record_segment_ranking(db, 0, {0: [1, 1], 1: [1, 3, 2]}, "ben", seconds=20, task="t2")
    record_segment_ranking(db, 0, {0: [1, 2], 1: [1, 2, 2]}, "anna", seconds=30, task="t3")
    # labels of each ranking: seg1 (a,b); seg2 (x,y) (x,z) (y,z)
    #   anna t1: <  | < < <      ben: =  | < < >      anna t3: <  | < < =
    # pooled over the 12 labels: '<' 8, '=' 2, '>' 1 ... count them:
    labels = ["<", "<", "<", "<", "=", "<", "<", ">", "<", "<", "<", "="]
    p_e = sum((labels.count(x) / 12) ** 2 for x in "<=>")
    k = segment_kappa(db)
    assert k.p_e == pytest.approx(p_e)
    # inter: anna t1 vs ben (4 comparisons, agree on 2), ben vs anna t3 (agree on 2)
    assert k.inter_n == 8 and k.inter == pytest.approx((4 / 8 - p_e) / (1 - p_e))
    # intra: anna t1 vs anna t3: agree on 3 of 4
    assert k.intra_n == 4 and k.intra == pytest.approx((3 / 4 - p_e) / (1 - p_e))
    rows = {r.judge: r for r in annotator_statistics(db)}
    assert (rows["anna"].sentences, rows["anna"].segments, rows["anna"].seconds) == (2, 4, 70.0)
    assert rows["anna"].seconds_per_segment == 17.5
    assert rows["ben"].kappa_intra != rows["ben"].kappa_intra       # NaN: never twice
    assert rows["Total"].segments == 6 and rows["Total"].kappa_inter == k.inter


def test_sentence_ranking_stats():
    db = _db()
    record_sentence_ranking(db, 0, {1: 1, 2: 2, 3: 3}, "anna", seconds=12.5, task="w1")
    res = database_rank_scores(db, "sentences")
    assert [r.system for r in res.rows] == ["A", "B", "C"] and res.rankings == 1
    rows = {r.judge: r for r in annotator_statistics(db, "sentences")}
    assert rows["anna"].seconds == 12.5 and rows["anna"].sentences == 1
    with pytest.raises(ScoreError, match="reference"):
        record_sentence_ranking(db, 0, {0: 1, 1: 2}, "anna")


def test_pair_sampler_compares_pairs_evenly():
    systems = [f"s{i}" for i in range(8)]
    sampler = PairSampler(systems, n=5, seed=1)
    for _ in range(280):
        shown = sampler.draw()
        assert len(shown) == 5 and len(set(shown)) == 5
    lo, hi = sampler.spread()
    # 280 screens x 10 pairs / 28 pairs = 100 per pair on average
    assert lo >= 90 and hi <= 110
    assert sampler.draw(["s1", "s2"]) in (["s1", "s2"], ["s2", "s1"])


def test_unranked_is_the_judges_to_do_list():
    from evaltrans_qt.engine.human.segranks import unranked
    db = _ranked_db()
    assert unranked(db, "anna") == [0]
    record_segment_ranking(db, 0, {0: [1, 2]}, "anna", complete=False, task="p")
    assert unranked(db, "anna") == [0]                  # one of two segments ranked
    record_segment_ranking(db, 0, {1: [1, 2, 2]}, "anna", complete=False, task="q")
    assert unranked(db, "anna") == [] and unranked(db, "ben") == [0]
