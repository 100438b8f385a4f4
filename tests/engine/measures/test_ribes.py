"""RIBES equals compare-mt's RibesScorer on the same tokens (generated sentences and WMT21
lines, sentence and corpus level); several references take the best sentence score."""

from __future__ import annotations

import random

import numpy as np
import pytest
from compare_mt.scorers import RibesScorer
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.measures.alignment import explain_segment
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.ribes import RIBES, ribes_sentence
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize

WORDS = "a b c d e f the cat sat on mat".split()


def _stats(hyps, refs):
    v = Vocabulary()
    segs = [Segment(v.encode(h), tuple(v.encode(r) for r in rs)) for h, rs in zip(hyps, refs)]
    m = RIBES()
    m.fit([], v)
    return m, m.corpus_stats(segs)


def test_equals_compare_mt_on_generated_sentences():
    rng = random.Random(11)
    refs = [[rng.choice(WORDS) for _ in range(rng.randint(1, 16))] for _ in range(1500)]
    hyps = [[rng.choice(WORDS) for _ in range(rng.randint(0, 16))] for _ in range(1500)]
    m, stats = _stats(hyps, [[r] for r in refs])
    scorer = RibesScorer()
    want = np.array([scorer.score_sentence(r, h)[0] / 100 for r, h in zip(refs, hyps)])
    assert np.abs(stats[:, 0] - want).max() <= 1e-12
    assert len(set(want.round(9))) > 200
    corpus = scorer.score_corpus(refs, hyps)[0] / 100
    assert m.score(stats.sum(axis=0)).value == pytest.approx(corpus, abs=1e-12)


def test_equals_compare_mt_on_wmt21_lines(wmt_dir):
    ref = (wmt_dir / "newstest2021.en-de.ref.A.de").read_text(encoding="utf-8").splitlines()
    hyp = (wmt_dir / "newstest2021.en-de.hyp.UEdin.de").read_text(encoding="utf-8").splitlines()
    refs = [tokenize(x, "mteval") for x in ref[:400]]
    hyps = [tokenize(x, "mteval") for x in hyp[:400]]
    m, stats = _stats(hyps, [[r] for r in refs])
    scorer = RibesScorer()
    want = np.array([scorer.score_sentence(r, h)[0] / 100 for r, h in zip(refs, hyps)])
    assert np.abs(stats[:, 0] - want).max() <= 1e-12
    assert m.score(stats.sum(axis=0)).value == pytest.approx(
        scorer.score_corpus(refs, hyps)[0] / 100, abs=1e-12)


def test_several_references_take_the_best_and_empty_sides_score_zero():
    a, b = "the cat sat on the mat".split(), "on the mat the cat sat".split()
    hyp = "the cat sat on the mat".split()
    _m, stats = _stats([hyp, hyp, [], hyp], [[b, a], [b], [a], [[]]])
    assert stats[0, 0] == pytest.approx(1.0)
    assert stats[1, 0] == pytest.approx(ribes_sentence(list(range(6)), [3, 4, 5, 0, 1, 2])[0])
    assert stats[1, 0] < 1.0
    assert stats[2, 0] == 0.0 and stats[3, 0] == 0.0
    assert stats[:, 1].tolist() == [1.0, 1.0, 1.0, 1.0]


def test_alignment_pairs_each_aligned_word_once():
    e = explain_segment("ribes", "mat the on sat cat the", ["the cat sat on the mat"])
    a = e.alignment
    assert a is not None
    pairs = {(op.hyp_pos, op.ref_pos) for op in a.operations if op.kind.value == "="}
    assert (0, 5) in pairs and (3, 2) in pairs and (4, 1) in pairs
    assert a.notes["kendall_tau"] < 0.5 and e.score.value == pytest.approx(a.notes["score"])


_words = st.lists(st.sampled_from(WORDS), max_size=14)


@settings(max_examples=300, deadline=None)
@given(_words, _words)
def test_equals_compare_mt_on_any_sentences(ref, hyp):
    ids = {w: i for i, w in enumerate(WORDS)}
    want = RibesScorer().score_sentence(ref, hyp)[0] / 100 if ref else 0.0
    got, pairs = ribes_sentence([ids[w] for w in ref], [ids[w] for w in hyp])
    assert abs(got - want) <= 1e-12
    assert len({h for h, _ in pairs}) == len(pairs)           # a candidate word aligned once
