"""LJWER / d_LJ (thesis section 4.4.1): brute force agreement, CDER bounds
(eq. 4.19, right half only), approximation flags, alignments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from evaltrans_qt.engine.kernels.cder import cder_path
from evaltrans_qt.engine.kernels.ljwer import (
    lj_distance,
    lj_distance_bruteforce,
    lj_search,
    path_cost,
)
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.alignment import BlockKind, OpKind
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize


def ids(words, vocab):
    return np.asarray([vocab.setdefault(w, len(vocab)) for w in words], dtype=np.int32)


def cdcd_and_misc(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """d_CDCD (Algorithm 4.2, path start and end fixed) and lp_misc (eq. 4.18) of its path."""
    d, _, cov = cder_path(x, y, np.zeros((len(x), len(y))), False, True, True, 1.0)
    misc = sum(1.0 if c == 0 else (c - 1.0 if c >= 2 else 0.0) for c in cov)
    return float(d), misc


@pytest.mark.parametrize("a,b,d", [
    ("14 days no more .", "14 days now .", 2),    # refutes the left half of eq. 4.19 (misprint)
    ("a b c", "a b c", 0),
    ("a b c d", "c d a b", 3),                      # jump to c d, back to a b, jump to the end
    ("", "a b", 2),
    ("a b", "", 2),
])
def test_examples(a, b, d):
    voc: dict = {}
    x, y = ids(a.split(), voc), ids(b.split(), voc)
    assert lj_distance(x, y) == (d, True)
    assert lj_distance_bruteforce(a.split(), b.split()) == d


def test_left_half_of_eq_4_19_is_false_here():
    """d_CDCD + lp_dL <= d_LJ does not hold in general (documented misprint): 2 + 1 > 2."""
    voc: dict = {}
    x, y = ids("14 days no more .".split(), voc), ids("14 days now .".split(), voc)
    cd, _ = cdcd_and_misc(x, y)
    assert cd == 2 and max(len(x) - len(y), 0) == 1 and lj_distance(x, y)[0] == 2


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=6), st.lists(st.sampled_from("abcd"), max_size=6))
def test_equals_bruteforce(a, b):
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    d, exact, moves, pos, jumps = lj_search(x, y)
    assert exact
    assert d == lj_distance_bruteforce(a, b)
    assert path_cost(a, b, moves, pos, jumps) == d


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abcdef"), max_size=10), st.lists(st.sampled_from("abcdef"), max_size=10))
def test_cder_bounds(a, b):
    """d_CDCD <= d_LJ <= min(d_LEV, d_CDCD + lp_misc), boundary rule both (eq. 4.19 right half)."""
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    d, exact = lj_distance(x, y)
    assert exact
    cd, misc = cdcd_and_misc(x, y)
    assert cd <= d <= min(Levenshtein.distance(list(a), list(b)), cd + misc)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcde"), min_size=1, max_size=9),
       st.lists(st.sampled_from("abcde"), min_size=1, max_size=9), st.integers(1, 4))
def test_approximation_is_a_flagged_upper_bound(a, b, limit):
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    d, exact, moves, pos, jumps = lj_search(x, y, exact_limit=limit)
    assert exact == (len(a) <= limit)
    d_exact, _ = lj_distance(x, y)
    assert d_exact <= d <= Levenshtein.distance(list(a), list(b))
    assert path_cost(a, b, moves, pos, jumps) == d


# ---------------------------------------------------------------------- measure
def _measure(**kw):
    m = get("ljwer")(EvalOptions(allow_long_jumps=True, **kw))
    m.vocab = Vocabulary()
    return m


def test_enabled_only_with_allow_long_jumps():
    cls = get("ljwer")
    assert not cls.enabled(EvalOptions())
    assert cls.enabled(EvalOptions(allow_long_jumps=True))


def test_flags_and_stats():
    m = _measure()
    h = m.vocab.encode("a b c d".split())
    seg = Segment(h, (m.vocab.encode("c d a b".split()), m.vocab.encode("a x c d".split())))
    assert m.stat_names[-1] == "flag:approximated"
    assert m.sentence_stats(seg).tolist() == [1.0, 4.0, 0.0]   # b/x substitution (ref 2)
    assert m.sentence_flags(seg) == {"approximated": False}
    short = _measure(ljwer_exact_limit=3)
    short.vocab = m.vocab
    assert short.sentence_flags(seg) == {"approximated": True}
    st_ = short.corpus_stats([seg, Segment(h[:2], (h[:2],))])
    assert st_[:, 2].tolist() == [1.0, 0.0]
    assert short.score(st_.sum(axis=0)).details["approximated-sentences"] == 1.0


def test_alignment_blocks_and_costs():
    m = _measure()
    h = m.vocab.encode("a b c d".split())
    seg = Segment(h, (m.vocab.encode("c d a b".split()),))
    al = m.align(seg)
    assert al.distance == 3.0 and al.operation_cost() == pytest.approx(3.0)
    assert all(op.kind is OpKind.MATCH for op in al.operations)
    assert [b.kind for b in al.blocks] == [BlockKind.LONG_JUMP] * len(al.blocks)
    spans = sorted((b.hyp_span, b.ref_span) for b in al.blocks if b.hyp_span != b.ref_span)
    assert spans == [((0, 2), (2, 4)), ((2, 4), (0, 2))]
    assert al.notes["approximated"] is False


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=7), st.lists(st.sampled_from("abcd"), min_size=1, max_size=7))
def test_alignment_reproduces_distance(a, b):
    m = _measure()
    seg = Segment(m.vocab.encode(a), (m.vocab.encode(b),))
    al = m.align(seg)
    assert al.operation_cost() == pytest.approx(al.distance)
    assert al.distance == lj_distance_bruteforce(a, b)
    assert sorted(op.hyp_pos for op in al.operations if op.hyp_pos is not None) == list(range(len(a)))
    assert [op.ref_pos for op in al.operations if op.ref_pos is not None] == list(range(len(b)))


def test_real_sentences_bounds(wmt_dir):
    """Short WMT21 segments: exact and between d_CDCD and the Levenshtein distance."""
    vocab = Vocabulary()
    hyp = (wmt_dir / "newstest2021.en-de.hyp.Online-W.de").read_text(encoding="utf-8").splitlines()
    ref = (wmt_dir / "newstest2021.en-de.ref.A.de").read_text(encoding="utf-8").splitlines()
    n = 0
    for h, r in zip(hyp, ref):
        th, tr = tokenize(h), tokenize(r)
        if 5 <= len(th) <= 12:
            x, y = vocab.encode(th), vocab.encode(tr)
            d, exact = lj_distance(x, y)
            cd, misc = cdcd_and_misc(x, y)
            assert exact and cd <= d <= min(Levenshtein.distance(list(th), list(tr)), cd + misc)
            n += 1
        if n == 15:
            break
    assert n >= 10
