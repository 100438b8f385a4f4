"""SSA, GSA, Dice and SER as registry measures (survey §4.4.1, 4.4.6, 4.4.7), against values
worked out by hand from the survey's formulas; SSA = 1 - WER (jiwer) on real text."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.measures import get, load_all
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.scoring import Scorer


def values(measure, hyps, refs, options=None, by_segment=True):
    scorer = Scorer(refs, [measure], options or EvalOptions(), by_segment=by_segment)
    return [s.value for s in scorer.sentence_scores(hyps)[measure]]


def corpus(measure, hyps, refs, options=None):
    scorer = Scorer(refs, [measure], options or EvalOptions(), by_segment=True)
    return scorer.corpus_score(hyps)[measure]


# SSA = 1 - (I + D + S) / |R|   (survey §4.4.1)
@pytest.mark.parametrize("hyp, ref, expected", [
    ("a b c", "a b c", 1.0),
    ("b a c", "a b c", 1 - 2 / 3),           # misplaced "a": 2 edits
    ("x a", "a y", 1 - 2 / 2),               # insert x, delete y (or 2 substitutions)
    ("b c d", "a", 1 - 3 / 1),               # 1 substitution + 2 insertions: negative
    ("", "a b", 1 - 2 / 2),                  # 2 deletions
])
def test_ssa_by_hand(hyp, ref, expected):
    assert values("ssa", [hyp], [[ref]]) == [pytest.approx(expected)]


# GSA = 1 - (M + I' + D' + S) / |R|: a misplaced word counted once (survey §4.4.1)
@pytest.mark.parametrize("hyp, ref, expected, moves", [
    ("a b c", "a b c", 1.0, 0),
    ("b a c", "a b c", 1 - 1 / 3, 1),        # one move instead of D + I
    ("c a b", "a b c", 1 - 1 / 3, 1),        # "c" moved to the front
    ("x a", "a y", 1 - 2 / 2, 0),            # different words: I' = D' = 1, no move
    ("b c d", "a", 1 - 3 / 1, 0),
    ("d b c a", "a b c d", 1 - 2 / 4, 0),    # ends swapped: 2 substitutions are cheaper
    ("b c d a", "a b c d", 1 - 1 / 4, 1),    # "a" moved to the end: one move
])
def test_gsa_by_hand(hyp, ref, expected, moves):
    res = corpus("gsa", [hyp], [[ref]])
    assert res.value == pytest.approx(expected)
    assert res.parts["moves"] == moves


def test_gsa_at_least_ssa_and_corpus_sums():
    hyps = ["b a c", "x a", "the cat sat on the mat", "on the mat the cat sat"]
    refs = [["a b c"], ["a y"], ["the cat sat on the mat"], ["the cat sat on the mat"]]
    ssa = values("ssa", hyps, refs)
    gsa = values("gsa", hyps, refs)
    assert all(g >= s - 1e-12 for g, s in zip(gsa, ssa))
    # corpus: 1 - sum errors / sum |R| = 1 - (1 + 2 + 0 + e4) / (3 + 2 + 6 + 6)
    st = Scorer(refs, ["gsa"], EvalOptions(), by_segment=True).stats(hyps)["gsa"]
    errors = st[:, 0] + st[:, 1] + st[:, 2] - st[:, 3]
    assert errors[:3].tolist() == [1, 2, 0]
    assert corpus("gsa", hyps, refs).value == pytest.approx(1 - errors.sum() / 17)


def test_gsa_alignment_costs_add_up():
    m = get("gsa")(EvalOptions())
    from evaltrans_qt.engine.measures.base import Segment
    seg = Segment(np.array([1, 2, 3, 0, 4], np.int32), (np.array([0, 1, 2, 3, 5], np.int32),))
    al = m.align(seg)
    # "0" moved (one move), "4" for "5" (one substitution): 2 errors
    assert al.distance == 2 and al.operation_cost() == pytest.approx(2)
    assert len(al.blocks) == 1


def test_ssa_is_one_minus_wer(wmt_dir):
    import jiwer
    # words = runs of non-space characters on both sides (the raw lines hold spaces that
    # jiwer's transform and str.split() treat differently)
    norm = lambda t: " ".join(t.split())
    hyps = [norm(t) for t in (wmt_dir / "newstest2021.en-de.hyp.Facebook-AI.de")
            .read_text("utf-8").split("\n")[:60]]
    refs = [norm(t) for t in (wmt_dir / "newstest2021.en-de.ref.A.de")
            .read_text("utf-8").split("\n")[:60]]
    opts = EvalOptions(tokenization="none")
    ssa = corpus("ssa", hyps, [[r] for r in refs], opts).value
    assert ssa == pytest.approx(1 - jiwer.wer(refs, hyps), abs=1e-12)
    gsa = corpus("gsa", hyps, [[r] for r in refs], opts).value
    assert gsa >= ssa


# Dice = 2 |s1 ∩ s2| / (|s1| + |s2|)   (survey §4.4.6), multisets
@pytest.mark.parametrize("hyp, refs, expected", [
    ("a b c", ["c b a"], 1.0),                        # position independent
    ("a b", ["c d"], 0.0),
    ("the cat the", ["the the the dog"], 2 * 2 / (3 + 4)),   # min(2, 3) common "the"
    ("a b", ["a x y z", "a b q"], 2 * 2 / (2 + 3)),   # the best reference counts
    ("", [""], 1.0),
])
def test_dice_by_hand(hyp, refs, expected):
    assert values("dice", [hyp], [refs]) == [pytest.approx(expected)]


def test_dice_corpus_is_micro_average():
    # (2*1 + 2*2) / ((2 + 2) + (2 + 2)) = 6 / 8
    assert corpus("dice", ["a b", "c d"], [["a x"], ["d c"]]).value == pytest.approx(0.75)


# SER: share of candidates matching no reference exactly (survey §4.4.7)
def test_ser_by_hand():
    hyps = ["Hello, world", "hello world", "a b", "c"]
    refs = [["Hello , world"], ["Hello world"], ["x", "a b"], ["d"]]
    # 13a: match, case differs, matches the 2nd reference, no match -> 2 of 4
    assert corpus("ser", hyps, refs).value == pytest.approx(0.5)
    assert corpus("ser", hyps, refs, EvalOptions(case="ignore")).value == pytest.approx(0.25)
    assert values("ser", hyps, refs) == [0.0, 1.0, 0.0, 1.0]


def test_registered_opt_in_with_report_elements():
    reg = load_all()
    for name, higher in (("ssa", True), ("gsa", True), ("dice", True), ("ser", False)):
        cls = reg[name]
        assert cls.report_element == name and cls.higher_is_better is higher
        assert cls.default_enabled is False
        m = cls(EvalOptions())
        stats = np.zeros((3, len(m.stat_names)))
        assert m.score_values(stats).shape == (3,)
        assert np.isfinite(m.score_values(stats)).all()
