"""INVWER / d_inv (thesis section 4.4.4): worked examples, corrected misprints,
agreement of the pruned search with unpruned references, bounds (eq. 4.26), symmetry, alignment."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from evaltrans_qt.engine.kernels.invwer import (
    inv_distance,
    inv_distance_cyk,
    inv_distance_py,
    inv_search,
)
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.alignment import BlockKind, OpKind
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.engine.text.reflength import choose
from evaltrans_qt.errors import OptionError


def ids(words, vocab=None):
    vocab = {} if vocab is None else vocab
    return np.asarray([vocab.setdefault(w, len(vocab)) for w in words], dtype=np.int32)


def pair(a: str, b: str):
    voc: dict = {}
    return ids(a.split(), voc), ids(b.split(), voc)


def per_py(a, b) -> int:
    """Unit-cost PER (bag) distance, eq. 4.11: max(I, L) - matches."""
    m = sum((Counter(a) & Counter(b)).values())
    return max(len(a), len(b)) - m


THESIS_CAND = "we will meet at noon in the lobby"
THESIS_REF = "we will meet in the lobby at twelve o'clock"


# ----------------------------------------------------------------- worked examples
def test_thesis_example_is_3():
    assert inv_distance(*pair(THESIS_CAND, THESIS_REF)) == 3       # §4.4.4, "Example"
    # "would be 5" (same example)
    assert Levenshtein.distance(THESIS_CAND.split(), THESIS_REF.split()) == 5


@pytest.mark.parametrize("a,b,d", [
    ("a b c d", "a b d c", 1),   # §4.4.4, "Properties"
    ("a b d c", "b d a c", 1),   # §4.4.4, "Properties"
    ("a b c d", "b d a c", 3),   # printed 4; by Table 4.1 it is 3: <a/a eps/c , b/b c/eps d/d>
    ("a", "x a", 1),             # split with an empty left candidate part (Algorithm 4.3 misprint)
    ("x a", "a", 1),
    ("a b", "b a", 1),
    ("a b c", "c b a", 2),       # reversal of k words: k-1 inversions
    ("", "a b", 2),
    ("a b c", "", 3),
    ("", "", 0),
])
def test_small_examples(a, b, d):
    x, y = pair(a, b)
    assert inv_distance(x, y) == d
    assert inv_distance_py(a.split(), b.split()) == d
    assert inv_distance_cyk(x, y, 1, 1, 1, 1) == d


def test_triangle_counterexample():
    """d_inv is not a metric (§4.4.4, "Properties"): 3 > 1 + 1."""
    d1 = inv_distance(*pair("a b c d", "a b d c"))
    d2 = inv_distance(*pair("a b d c", "b d a c"))
    d3 = inv_distance(*pair("a b c d", "b d a c"))
    assert d3 > d1 + d2


def test_costs_are_applied():
    x, y = pair("a b", "b a")
    assert inv_distance(x, y, 1, 1, 1, 5) == 2          # two deletions/insertions... or subs
    assert inv_distance(x, y, 5, 1, 1, 5) == 2          # delete + insert one word
    assert inv_distance(x, y, 5, 5, 5, 1) == 1          # one inversion
    x, y = pair("a", "b")
    assert inv_distance(x, y, 3, 1, 1, 1) == 2          # e/eps eps/e~ cheaper than substitution
    x, y = pair("a b c", "a")
    assert inv_distance(x, y, 1, 2, 7, 1) == 4          # two candidate words alone at c_DEL = 2
    assert inv_distance(y, x, 1, 2, 7, 1) == 14         # two reference words alone at c_INS = 7


# --------------------------------------------------------------- property tests
words = st.lists(st.sampled_from("abcd"), min_size=0, max_size=5)
costs = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))


@settings(max_examples=150, deadline=None)
@given(words, words, costs)
def test_pruned_equals_unpruned_reference(a, b, c):
    """The A* search with bounds equals the plain recursion over all splits (eq. 4.24)."""
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    assert inv_distance(x, y, *c) == inv_distance_py(a, b, *c)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=9), st.lists(st.sampled_from("abcde"), max_size=9),
       costs)
def test_pruned_equals_cyk_longer(a, b, c):
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    assert inv_distance(x, y, *c) == inv_distance_cyk(x, y, *c)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=9), st.lists(st.sampled_from("abcde"), max_size=9),
       st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 3)))
def test_scaled_costs_scale_the_distance(a, b, c):
    """d_inv is linear in the costs: x40 pushes the upper bound past 120 units, so this
    compares the int16 table (large costs) with the int8 one (small costs)."""
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    small = inv_distance(x, y, *c)
    big = inv_distance(x, y, *(40 * v for v in c))
    assert big == 40 * small
    if len(a) + len(b) >= 4:
        assert small == inv_distance_cyk(x, y, *c)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abcdef"), max_size=12), st.lists(st.sampled_from("abcdef"), max_size=12))
def test_per_le_inv_le_lev(a, b):
    """eq. 4.26: d_PER <= d_inv <= d_LEV (unit costs)."""
    voc: dict = {}
    d = inv_distance(ids(a, voc), ids(b, voc))
    assert per_py(a, b) <= d <= Levenshtein.distance(list(a), list(b))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=10), st.lists(st.sampled_from("abcd"), max_size=10),
       st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))
def test_symmetric_with_symmetric_costs(a, b, c_sub, c_indel, c_inv):
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    assert inv_distance(x, y, c_sub, c_indel, c_indel, c_inv) == \
        inv_distance(y, x, c_sub, c_indel, c_indel, c_inv)


def _check_tree(a, b, c, d, ops, invs):
    """Every word exactly once, MATCH only for equal words, costs add up to d."""
    c_sub, c_del, c_ins, c_inv = c
    seen_c = sorted(int(i) for code, i, _ in ops if i >= 0)
    seen_r = sorted(int(l) for code, _, l in ops if l >= 0)
    assert seen_c == list(range(len(a))) and seen_r == list(range(len(b)))
    total = 0
    for code, i, l in ops:
        if code == 0:
            assert a[i] == b[l]
        elif code == 1:
            assert a[i] != b[l]
            total += c_sub
        elif code == 2:
            total += c_del
        else:
            total += c_ins
    total += c_inv * len(invs)
    assert total == d


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from("abcd"), max_size=6), st.lists(st.sampled_from("abcd"), max_size=6),
       costs)
def test_tree_is_valid_and_costs_add_up(a, b, c):
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    d, ops, invs, _ = inv_search(x, y, *c, want_tree=True)
    assert d == inv_distance_py(a, b, *c)
    _check_tree(a, b, c, d, ops.tolist(), invs.tolist())
    for i0, i1, l0, l1, isp, lsp, _, _ in invs.tolist():
        assert i0 < isp < i1 and l0 < lsp < l1


# ---------------------------------------------------------------------- measure
def _measure(**kw):
    m = get("invwer")(EvalOptions(allow_transpositions=True, **kw))
    m.vocab = Vocabulary()
    return m


def test_pair_cost_has_a_fixed_part_and_grows_with_the_length():
    """Even a one-word pair costs the call (~50 us); longer pairs cost more."""
    from evaltrans_qt.engine.measures.invwer import PAIR_FIXED_SECONDS
    m = _measure()
    assert m.pair_cost(1, 1) >= PAIR_FIXED_SECONDS >= 1e-5
    assert m.pair_cost(0, 5) == PAIR_FIXED_SECONDS
    costs = [m.pair_cost(n, n) for n in (1, 10, 40, 140)]
    assert costs == sorted(costs) and costs[-1] > 1.0 > costs[1]


def test_enabled_only_with_allow_transpositions():
    cls = get("invwer")
    assert not cls.enabled(EvalOptions())
    assert cls.enabled(EvalOptions(allow_transpositions=True))


def test_measure_alignment_thesis_example():
    m = _measure()
    h = m.vocab.encode(THESIS_CAND.split())
    r = m.vocab.encode(THESIS_REF.split())
    seg = Segment(h, (r,))
    stats = m.sentence_stats(seg)
    assert stats.tolist() == [3.0, 9.0, 0.0]
    assert m.score(stats).value == pytest.approx(3 / 9)
    al = m.align(seg)
    assert al.distance == 3.0 and al.operation_cost() == pytest.approx(3.0)
    assert al.counts() == {"match": 7, "sub": 1, "ins": 0, "del": 1, "blocks": 1}
    (blk,) = al.blocks
    assert blk.kind is BlockKind.INVERSION and blk.number == 1
    # the inverted part "at noon" (candidate 3-5) goes to "at twelve [o'clock]" (reference 6-)
    assert blk.hyp_span == (3, 5) and blk.ref_span[0] == 6 and blk.cost == 1.0
    (sub,) = [op for op in al.operations if op.kind is OpKind.SUB]
    assert (al.hyp[sub.hyp_pos], al.ref[sub.ref_pos]) == ("noon", "twelve")


def test_measure_denominator_and_costs():
    m = _measure(transposition_costs=(2, 1, 1, 1, 1))
    h = m.vocab.encode("a b c d".split())
    r = m.vocab.encode("b d a c".split())
    seg = Segment(h, (r,))
    assert m.sentence_stats(seg)[0] == 1.5
    al = m.align(seg)
    assert al.distance == 1.5 and al.operation_cost() == pytest.approx(1.5)
    with pytest.raises(OptionError):
        _measure(transposition_costs=(1, -1, 1, 1, 1)).sentence_stats(seg)


@pytest.mark.parametrize("rule", ["average", "minimumNearest", "lowestError", "maximum"])
def test_reference_length_rules(rule):
    m = _measure(wer_ref_length_rule=rule)
    h = m.vocab.encode("a b c d e".split())
    refs = tuple(m.vocab.encode(s.split()) for s in ("b a c d e f g", "e d c b a", "a b x"))
    seg = Segment(h, refs)
    dists = [inv_distance(h, r) for r in refs]
    d, L, _ = choose(dists, [len(r) for r in refs], rule)
    assert m.sentence_stats(seg).tolist() == [d, L, 0.0]
    al = m.align(seg)
    assert al.operation_cost() == pytest.approx(al.distance)
    assert al.ref_index == m.best_reference(seg) and al.distance == dists[al.ref_index]


def test_alignment_searches_each_reference_once(monkeypatch):
    """Without cached distances every reference is searched once, with its tree; with the
    run's cached distances only the chosen reference is searched."""
    from evaltrans_qt.engine.measures import invwer as inv_module
    from evaltrans_qt.engine.measures.base import pair_key
    m = _measure()
    h = m.vocab.encode("a b c d e".split())
    refs = tuple(m.vocab.encode(s.split()) for s in ("b a c d e f g", "e d c b a", "a b x"))
    seg = Segment(h, refs)
    expected = m.best_reference(seg)                 # by the rule, from plain distances
    calls = []
    real = inv_module.inv_bounded

    def counted(*a, **k):
        calls.append(bool(a[6] if len(a) > 6 else k.get("want_tree")))
        return real(*a, **k)

    monkeypatch.setattr(inv_module, "inv_bounded", counted)
    al = m.align(seg)
    assert calls == [True] * 3 and al.ref_index == expected and al.distance == 3.0
    calls.clear()
    m.pair_cache = {pair_key(h, r): (float(real(h, r).distance), True) for r in refs}
    assert m.align(seg).ref_index == expected and calls == [True]


def test_real_sentences_agree_with_cyk(wmt_dir):
    """Short WMT21 segments: the pruned search equals unpruned Algorithm 4.3."""
    vocab = Vocabulary()
    hyp = (wmt_dir / "newstest2021.en-de.hyp.Facebook-AI.de").read_text(encoding="utf-8").splitlines()
    ref = (wmt_dir / "newstest2021.en-de.ref.A.de").read_text(encoding="utf-8").splitlines()
    n = 0
    for h, r in zip(hyp, ref):
        x, y = vocab.encode(tokenize(h)), vocab.encode(tokenize(r))
        if 4 <= len(x) <= 9 and 4 <= len(y) <= 9:
            assert inv_distance(x, y) == inv_distance_cyk(x, y, 1, 1, 1, 1)
            n += 1
        if n == 12:
            break
    assert n >= 5
