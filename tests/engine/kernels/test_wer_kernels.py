"""Compiled kernels of the WER/PER family against their plain-Python reference implementations."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.kernels.bags import (
    bag_common_batch,
    bag_l1_batch,
    bag_l1_py,
    ngrams_py,
    per_from_l1,
    per_py,
    skip_bigram_bags,
    skip_bigrams_py,
)
from evaltrans_qt.engine.kernels.levenshtein import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    OP_SUB,
    lev_backtrace,
    lev_distance,
    lev_distance_batch,
    lev_distance_py,
    lev_distance_weighted,
    lev_distance_weighted_batch,
    unit_sub_matrix,
)
from evaltrans_qt.engine.kernels.ngrams import pair_common
from evaltrans_qt.engine.measures._distance import packed

ids = st.lists(st.integers(0, 5), max_size=12)


def arr(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int32)


@settings(max_examples=300, deadline=None)
@given(ids, ids)
def test_levenshtein_unit_equals_reference(a, b):
    assert lev_distance(arr(a), arr(b)) == lev_distance_py(a, b)
    assert lev_distance(arr(a), arr(b)) == lev_distance(arr(b), arr(a))  # symmetric (eq. 4.4)


@settings(max_examples=200, deadline=None)
@given(ids, ids, st.randoms(use_true_random=False))
def test_levenshtein_weighted_and_backtrace_equal_reference(a, b, rnd):
    sub = np.array([[0.0 if x == y else rnd.random() for y in b] for x in a]).reshape(len(a), len(b))
    expected = lev_distance_py(a, b, sub)
    assert lev_distance_weighted(arr(a), arr(b), sub) == pytest.approx(expected)
    d, ops, hp, rp, cs = lev_backtrace(arr(a), arr(b), sub)
    assert d == pytest.approx(expected)
    assert cs.sum() == pytest.approx(expected)
    for o, h, r, c in zip(ops, hp, rp, cs):
        if o in (OP_MATCH, OP_SUB):
            assert (a[h] == b[r]) == (o == OP_MATCH) and c == pytest.approx(sub[h, r])
        else:
            assert c == 1.0 and (h < 0) == (o == OP_DEL) and (r < 0) == (o == OP_INS)
    assert [h for h in hp if h >= 0] == list(range(len(a)))
    assert [r for r in rp if r >= 0] == list(range(len(b)))


def test_backtrace_tie_breaking_is_documented_order():
    # "a b" vs "b a": distance 2 via two substitutions (diagonal preferred) rather than del+ins
    d, ops, *_ = lev_backtrace(arr([1, 2]), arr([2, 1]), unit_sub_matrix(arr([1, 2]), arr([2, 1])))
    assert d == 2 and ops.tolist() == [OP_SUB, OP_SUB]
    # "a" vs "b a": from the end a matches a, then the reference word b is a deletion
    d, ops, *_ = lev_backtrace(arr([1]), arr([2, 1]), unit_sub_matrix(arr([1]), arr([2, 1])))
    assert ops.tolist() == [OP_DEL, OP_MATCH]


@settings(max_examples=50, deadline=None)
@given(st.lists(ids, min_size=1, max_size=6), st.lists(ids, min_size=1, max_size=5), st.data())
def test_batched_kernels_equal_single(hyps, uniq_refs, data):
    n_pairs = data.draw(st.integers(0, 10))
    pair_hyp = np.array([data.draw(st.integers(0, len(hyps) - 1)) for _ in range(n_pairs)], np.int64)
    pair_ref = np.array([data.draw(st.integers(0, len(uniq_refs) - 1)) for _ in range(n_pairs)], np.int64)
    refs = [uniq_refs[r] for r in pair_ref]
    hf, ho = packed([arr(h) for h in hyps])
    rf, ro = packed([arr(r) for r in uniq_refs])
    got = lev_distance_batch(hf, ho, rf, ro, pair_hyp, pair_ref)
    assert got.tolist() == [lev_distance_py(hyps[h], r) for h, r in zip(pair_hyp, refs)]
    blocks = [unit_sub_matrix(arr(hyps[h]), arr(r)).ravel() * 0.5 for h, r in zip(pair_hyp, refs)]
    so = np.zeros(len(refs) + 1, np.int64)
    np.cumsum([len(b) for b in blocks], out=so[1:])
    flat = np.concatenate(blocks) if blocks else np.zeros(0)
    got = lev_distance_weighted_batch(hf, ho, rf, ro, pair_hyp, pair_ref, flat, so)
    want = [lev_distance_py(hyps[h], r, 0.5 * unit_sub_matrix(arr(hyps[h]), arr(r)))
            for h, r in zip(pair_hyp, refs)]
    assert got.tolist() == pytest.approx(want)
    # count vectors: the same pairs through the bag kernel
    ids_all = np.concatenate([hf, rf])
    l1 = bag_l1_batch(ids_all, ho[:-1][pair_hyp], ho[1:][pair_hyp], ro[:-1][pair_ref] + len(hf),
                      ro[1:][pair_ref] + len(hf), int(ids_all.max(initial=0)) + 1)
    assert l1.tolist() == [bag_l1_py(hyps[h], r) for h, r in zip(pair_hyp, refs)]
    hl = np.array([len(hyps[h]) for h in pair_hyp], dtype=np.int64)
    rl = np.array([len(r) for r in refs], dtype=np.int64)
    assert per_from_l1(l1, hl, rl).tolist() == [per_py(hyps[h], r) for h, r in zip(pair_hyp, refs)]


def test_per_fixed_costs_eq_4_11():
    """Eq. 4.11 with c_SUB = 2 is the multiset distance (§4.2.1); unit costs give eq. 4.12."""
    a, b = [1, 2, 3, 3], [1, 4]
    l1 = np.array([bag_l1_py(a, b)])
    assert per_from_l1(l1, [4], [2])[0] == per_py(a, b) == 3.0
    assert per_from_l1(l1, [4], [2], c_sub=2.0)[0] == 4.0 == l1[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(ids, min_size=2, max_size=6), st.integers(1, 4), st.randoms(use_true_random=False))
def test_pair_common_gives_the_m_gram_l1(sents, max_n, rnd):
    """m-PER's count-vector L1 per order (eq. 4.12 on m-grams) from pair_common, for pairs in
    any order (shared candidates adjacent or not)."""
    flat, off = packed([arr(s) for s in sents])
    n = len(sents)
    a = np.array([rnd.randrange(n) for _ in range(8)], dtype=np.int64)
    b = np.array([rnd.randrange(n) for _ in range(8)], dtype=np.int64)
    common = pair_common((flat, off), (flat, off), a, b, max_n)
    for p in range(len(a)):
        for m in range(1, max_n + 1):
            x, y = ngrams_py(sents[a[p]], m), ngrams_py(sents[b[p]], m)
            assert len(x) + len(y) - 2 * common[p, m - 1] == bag_l1_py(x, y)


@settings(max_examples=100, deadline=None)
@given(st.lists(ids, min_size=1, max_size=6), st.integers(0, 5))
def test_skip_bigram_bags_are_exact(sents, skip):
    flat, off = packed([arr(s) for s in sents])
    keys, soff = skip_bigram_bags(flat, off, skip)
    seen: dict[tuple, int] = {}
    for k, s in enumerate(sents):
        want = skip_bigrams_py(s, skip)
        got = keys[soff[k]:soff[k + 1]].tolist()
        assert len(got) == len(want)
        for g, key in zip(want, got):
            assert seen.setdefault(g, key) == key      # equal skip bigrams, equal keys
    assert len(set(seen.values())) == len(seen)         # different ones differ


@settings(max_examples=150, deadline=None)
@given(st.lists(ids, min_size=2, max_size=6), st.integers(0, 5), st.randoms(use_true_random=False))
def test_bag_common_of_skip_bigrams_gives_the_counter_l1(sents, skip, rnd):
    flat, off = packed([arr(s) for s in sents])
    keys, soff = skip_bigram_bags(flat, off, skip)
    n = len(sents)
    a = np.sort(np.array([rnd.randrange(n) for _ in range(8)], dtype=np.int64))
    if rnd.random() < 0.5:
        rnd.shuffle(a)                      # runs of a shared first bag, or not
    b = np.array([rnd.randrange(n) for _ in range(8)], dtype=np.int64)
    common = bag_common_batch(keys, soff, a, b)
    for p in range(len(a)):
        x, y = skip_bigrams_py(sents[a[p]], skip), skip_bigrams_py(sents[b[p]], skip)
        assert len(x) + len(y) - 2 * common[p] == bag_l1_py(x, y)


@pytest.mark.parametrize("n,distinct", [(0, 1), (1, 1), (5000, 3), (3000, 2500)])
def test_bag_common_exact_with_colliding_keys(n, distinct):
    """Keys that share their hash bits (multiples of a large power of two, negative ones)
    are still compared exactly."""
    rng = np.random.default_rng(n)
    keys = rng.integers(-distinct, distinct, 2 * n).astype(np.int64) << 40
    off = np.array([0, n, 2 * n], dtype=np.int64)
    got = bag_common_batch(keys, off, np.array([0, 1, 0]), np.array([1, 0, 0]))
    ca, cb = Counter(keys[:n].tolist()), Counter(keys[n:].tolist())
    common = sum(min(c, cb[k]) for k, c in ca.items())
    assert got.tolist() == [common, common, n]


def _first_vs_rest(sents, rule):
    """(n, kernel arguments) comparing sentence 0 with each of the n others under a
    word-dependent substitution-cost rule (the fused kernels' packed layout)."""
    from evaltrans_qt.engine.text.preprocess import Vocabulary
    from evaltrans_qt.engine.text.subcosts import SubstitutionCosts
    v = Vocabulary()
    enc = [v.encode(s) for s in sents]
    hf, ho = packed(enc[:1])
    rf, ro = packed(enc[1:])
    n = len(enc) - 1
    return n, (hf, ho, rf, ro, np.zeros(n, np.int64), np.arange(n),
               *SubstitutionCosts(rule, v).kernel_args())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["talk", "talks", "walk", "usual", "unusual", "a"]),
                         max_size=6), min_size=2, max_size=5),
       st.sampled_from(["none", "prefix", "levenshtein"]))
def test_fused_word_cost_levenshtein_equals_reference(sents, rule):
    """lev_distance_rule_batch (costs computed on the fly) = Algorithm 4.1 with subcosts.cost."""
    from evaltrans_qt.engine.kernels.levenshtein import lev_distance_rule_batch
    from evaltrans_qt.engine.text.subcosts import cost
    n, args = _first_vs_rest(sents, rule)
    got = lev_distance_rule_batch(*args)
    for k in range(n):
        sub = [[cost(a, b, rule) for b in sents[k + 1]] for a in sents[0]]
        assert got[k] == pytest.approx(lev_distance_py(sents[0], sents[k + 1], sub))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=140), st.lists(st.integers(0, 3), max_size=140))
def test_levenshtein_long_sentences_both_code_paths(a, b):
    """Bit-parallel path (shorter side <= 64 words) and row DP (both > 64) agree with Algorithm 4.1."""
    assert lev_distance(arr(a), arr(b)) == lev_distance_py(a, b)
    sub = unit_sub_matrix(arr(a), arr(b))
    assert lev_distance_weighted(arr(a), arr(b), sub) == lev_distance_py(a, b)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 9), st.randoms(use_true_random=False), st.booleans())
def test_assignment_kernel_equals_scipy(n, rnd, coarse):
    """The compiled assignment solver reaches scipy's optimum (ties: coarse costs)."""
    from scipy.optimize import linear_sum_assignment

    from evaltrans_qt.engine.kernels.assignment import lsap_cost
    c = np.array([[rnd.random() for _ in range(n)] for _ in range(n)])
    if coarse:
        c = np.round(c * 2) / 2
    rows, cols = linear_sum_assignment(c)

    def z(dt):
        return np.empty(n, dtype=dt)
    got = lsap_cost(c, n, z(np.float64), z(np.float64), z(np.float64), z(np.int64), z(np.int64),
                    z(np.int64), z(np.int64), z(np.bool_), z(np.bool_))
    assert got == pytest.approx(c[rows, cols].sum())


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["talk", "talks", "walk", "usual", "unusual", "a"]),
                         max_size=7), min_size=2, max_size=5),
       st.sampled_from(["none", "prefix", "levenshtein"]))
def test_wper_batch_equals_scipy_on_padded_matrix(sents, rule):
    from evaltrans_qt.engine.kernels.assignment import wper_batch
    from evaltrans_qt.engine.measures.per import assignment
    from evaltrans_qt.engine.text.subcosts import cost
    n, args = _first_vs_rest(sents, rule)
    got = wper_batch(*args)
    for k in range(n):
        sub = np.array([[cost(a, b, rule) for b in sents[k + 1]] for a in sents[0]])
        assert got[k] == pytest.approx(assignment(sub.reshape(len(sents[0]), len(sents[k + 1])))[0])
    if rule == "none":  # unit costs: the assignment problem is eq. 4.12
        assert got.tolist() == [per_py(sents[0], s) for s in sents[1:]]


