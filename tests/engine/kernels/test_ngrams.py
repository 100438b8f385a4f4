"""m-gram kernel (engine/kernels/ngrams.py) against its plain-Python reference; thesis Figure 5.2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.kernels.ngrams import (
    BOS_ID,
    EOS_ID,
    build_table,
    clipped_counts,
    clipped_counts_py,
    info_weights_py,
    ngrams_py,
    pair_common,
    pair_matches,
    window_counts,
)
from evaltrans_qt.engine.kernels.packing import pack
from evaltrans_qt.engine.text.preprocess import Vocabulary, pad
from evaltrans_qt.errors import OptionError

PAD_RULES = ("none", "initial", "end", "both")
# small alphabet (ids 2..5) so that m-grams repeat and match often
sentence = st.lists(st.integers(2, 5), max_size=9).map(lambda x: np.asarray(x, dtype=np.int32))
segment = st.tuples(sentence, st.lists(sentence, max_size=3))


def decode(table, ident: int) -> tuple:
    """The token tuple of a table id (walk the prefix chain)."""
    out = []
    while ident >= 0:
        out.append(int(table.last[ident]))
        ident = int(table.parent[ident])
    return tuple(reversed(out))


@settings(max_examples=150, deadline=None)
@given(st.lists(segment, min_size=1, max_size=5), st.integers(1, 5), st.sampled_from(PAD_RULES))
def test_kernel_equals_reference_implementation(segs, M, rule):
    hyps = [h for h, _ in segs]
    refs = [rs for _, rs in segs]
    all_refs = [r for rs in refs for r in rs]
    table = build_table(all_refs, M, rule)
    w = table.info_weights()
    w_py = info_weights_py(all_refs, M, rule)
    # every counted m-gram of the table is one of the reference's, with its count and weight
    counted = {decode(table, i): (int(table.counts[i]), w[i])
               for i in range(table.n_ids) if table.counts[i] > 0}
    assert set(counted) == set(w_py)
    for g, (c, wi) in counted.items():
        assert c == sum(ngrams_py(r, len(g), rule)[g] for r in all_refs)
        assert wi == pytest.approx(w_py[g], abs=1e-12)
    correct, total, info, missing = clipped_counts(hyps, refs, M, rule, table, w)
    assert missing == 0
    for k, (h, rs) in enumerate(segs):
        c, t, i = clipped_counts_py(h, rs, M, rule, w_py)
        assert correct[k].tolist() == c
        assert total[k].tolist() == t
        assert info[k] == pytest.approx(i, abs=1e-9)
    # without a global table (BLEU): the same counts
    c2, t2, _, _ = clipped_counts(hyps, refs, M, rule)
    assert np.array_equal(c2, correct) and np.array_equal(t2, total)


def test_figure_5_2_boundary_ngrams():
    """Thesis Figure 5.2 (§5.4): "I prefer the plane" with boundaries."""
    v = Vocabulary()
    ids = v.encode("I prefer the plane".split())
    bigrams = [tuple(v.decode(g)) for g in ngrams_py(ids, 2, "both")]
    assert bigrams == [("<s>", "I"), ("I", "prefer"), ("prefer", "the"), ("the", "plane"),
                       ("plane", "</s>")]
    # The figure lists the five trigrams below and, sixth, "[plane </s>]", which is
    # not a trigram; padding (preprocess.pad) appends a single </s> as the bigrams show.
    trigrams = [tuple(v.decode(g)) for g in ngrams_py(ids, 3, "both")]
    assert trigrams == [("<s>", "<s>", "I"), ("<s>", "I", "prefer"), ("I", "prefer", "the"),
                        ("prefer", "the", "plane"), ("the", "plane", "</s>")]
    assert pad(["a"], "both", 3) == ["<s>", "<s>", "a", "</s>"]
    # the kernel counts the same boundary m-grams
    table = build_table([ids], 3, "both")
    got = {decode(table, i) for i in range(table.n_ids) if table.counts[i] > 0}
    def to_ids(gram):   # boundary strings are the ids 0/1 (no word maps to them)
        return tuple(BOS_ID if w == "<s>" else EOS_ID if w == "</s>" else int(v.encode([w])[0])
                     for w in gram)
    want = {to_ids(g) for g in bigrams + trigrams} | {(int(x),) for x in ids} | {(EOS_ID,)}
    assert got == want
    assert (BOS_ID,) not in got  # <s> is never a unigram (order 1 has no initial padding)


def test_table_grows_beyond_initial_capacity():
    rng = np.random.default_rng(1)
    seqs = [rng.integers(2, 50_000, size=60).astype(np.int32) for _ in range(1500)]
    table = build_table(seqs, 4)
    assert table.n_ids > 1 << 17
    assert int(table.counts.sum()) == sum(4 * 60 - 6 for _ in seqs)
    assert set(np.unique(table.order).tolist()) == {1, 2, 3, 4}
    c, t, _, _ = clipped_counts(seqs[:3], [(s,) for s in seqs[:3]], 4)
    assert np.array_equal(c, t)


def test_pack_and_bad_rule():
    flat, off = pack([np.array([3, 4], np.int32), np.zeros(0, np.int32), np.array([5], np.int32)])
    assert flat.tolist() == [3, 4, 5] and off.tolist() == [0, 2, 2, 3]
    with pytest.raises(OptionError):
        build_table([flat], 2, "sideways")


def test_info_weight_worked_example():
    """eq. 3.8 by hand: refs "a b" and "a c": N(a)=2 of 4 words, N(a b)=1."""
    a, b, c = 2, 3, 4
    w = info_weights_py([[a, b], [a, c]], 2)
    assert w[(a,)] == 1.0 and w[(b,)] == 2.0 and w[(a, b)] == 1.0
    # eq. 5.8: with initial padding the prefix "<s>" counts once per sentence (K = 2)
    wp = info_weights_py([[a, b], [a, c]], 2, "initial")
    assert wp[(BOS_ID, a)] == math.log2(2 / 2)


@settings(max_examples=100, deadline=None)
@given(st.lists(segment, min_size=1, max_size=5), st.integers(1, 6))
def test_pair_matches_equal_reference_implementation(segs, M):
    match = pair_matches([h for h, _ in segs], [rs for _, rs in segs], M)
    row = 0
    for h, rs in segs:
        for r in rs:
            assert match[row].tolist() == clipped_counts_py(h, [r], M)[0]
            row += 1
    assert row == match.shape[0]


@settings(max_examples=150, deadline=None)
@given(st.lists(sentence, min_size=1, max_size=6), st.integers(1, 5), st.sampled_from(PAD_RULES),
       st.randoms(use_true_random=False))
def test_pair_common_with_boundaries_equals_counters(sents, M, rule, rnd):
    """Σ min of the padded m-gram counts (Table A.5) per pair, pairs in any order; and the
    number of padded m-grams of each sentence."""
    n = len(sents)
    a = np.array([rnd.randrange(n) for _ in range(6)], dtype=np.int64)
    b = np.array([rnd.randrange(n) for _ in range(6)], dtype=np.int64)
    if rnd.random() < 0.5:
        a.sort()
    common = pair_common(pack(sents), pack(sents), a, b, M, rule)
    lens = np.array([len(s) for s in sents])
    for m in range(1, M + 1):
        assert window_counts(lens, m, rule).tolist() == [
            sum(ngrams_py(s, m, rule).values()) for s in sents]
        for p in range(len(a)):
            x, y = ngrams_py(sents[a[p]], m, rule), ngrams_py(sents[b[p]], m, rule)
            assert common[p, m - 1] == sum(min(c, y[g]) for g, c in x.items())
