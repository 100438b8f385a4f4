"""CDER: Moses CderScorer oracle on WMT21, hand examples (thesis 4.4.2/4.4.3, CDER paper),
properties against the independent plain-Python reference implementation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.kernels.cder import (
    cder_bits_batch,
    cder_distance,
    cder_distance_batch,
    cder_dp_batch,
    cder_path,
    cder_reference,
)
from evaltrans_qt.engine.kernels.levenshtein import lev_distance
from evaltrans_qt.engine.kernels.packing import pack
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.cder import boundaries, path_alignment
from evaltrans_qt.engine.options import CDER_PAD_RULES, REF_LENGTH_RULES, EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.engine.text.reflength import choose
from evaltrans_qt.engine.text.subcosts import cost as sub_cost

PADS = {"none": (False, False), "left": (True, False), "right": (False, True),
        "both": (True, True)}


def make(name="cder", vocab=None, **opts):
    m = get(name)(EvalOptions(**opts))
    m.fit([], vocab or Vocabulary())
    return m


def seg(vocab, hyp, *refs):
    return Segment(vocab.encode(hyp.split()), tuple(vocab.encode(r.split()) for r in refs),
                   hyp, refs)


# ------------------------------------------------------------- Moses oracle
@pytest.fixture(scope="module")
def wmt(wmt13a):
    vals, vocab, load = wmt13a

    ref_a = load("newstest2021.en-de.ref.A.de")
    return vals, vocab, ref_a, {name: load(name) for name in vals}


def test_cder_equals_moses_per_sentence_and_system(wmt):
    """Forward, pad rule both, one reference, unit costs = Moses CderScorer."""
    vals, vocab, ref_a, systems = wmt
    m = make("cder", vocab)
    assert m.options.cder_pad_rule == "both"
    for name, hyp in systems.items():
        stats = m.corpus_stats([Segment(h, (r,)) for h, r in zip(hyp, ref_a)])
        moses = np.asarray(vals[name]["moses_cder_refA_sent_stats"])
        np.testing.assert_array_equal(stats[:, :2], moses, err_msg=name)
        total = stats.sum(axis=0)
        np.testing.assert_array_equal(total[:2], vals[name]["moses_cder_refA_stats"])
        # Moses prints the rate with 6 digits
        assert m.score(total).value == pytest.approx(vals[name]["moses_cder_refA"], abs=1e-6)


def test_without_long_jumps_is_moses_wer(wmt):
    """Algorithm 4.2 with c_LJ = inf is Algorithm 4.1: Moses WER (CderScorer without jumps)."""
    vals, vocab, ref_a, systems = wmt
    rf, ro = pack(ref_a)
    pairs = np.arange(len(ref_a), dtype=np.int64)
    for name, hyp in systems.items():
        hf, ho = pack(hyp)
        d = cder_distance_batch(hf, ho, rf, ro, pairs, pairs, False, True, True, np.inf, False,
                                np.zeros(1), np.zeros(len(ro), np.int64))
        moses = np.asarray(vals[name]["moses_wer_refA_sent_stats"])[:, 0]
        np.testing.assert_array_equal(d, moses, err_msg=name)


# ------------------------------------------------------------- hand examples
@pytest.mark.parametrize("pad,expected", [("both", 2), ("none", 1), ("left", 1), ("right", 1)])
def test_swap_with_boundary_rules(pad, expected):
    """'a b' vs 'b a' (worked by hand, Table A.6): two substitutions with fixed ends;
    with a free start or end one long jump suffices."""
    v = Vocabulary()
    st_, en = boundaries(pad)
    assert cder_distance(v.encode("a b".split()), v.encode("b a".split()), st_, en) == expected
    m = make("cder", v, cder_pad_rule=pad)
    assert m.sentence_stats(seg(v, "a b", "b a"))[0] == expected


def test_identity_empty_and_thesis_example():
    v = Vocabulary()
    e = lambda s: v.encode(s.split())
    assert cder_distance(e("a b c"), e("a b c")) == 0
    assert cder_distance(e(""), e("x y z")) == 3          # every reference word missing
    assert cder_distance(e("x y"), e("")) == 1            # Moses: one jump to the fixed end
    assert cder_distance(e("x y"), e(""), False, False) == 0
    # "14 days no more ." vs "14 days now .": substitution + one jump (eq. 4.19's left
    # half, d_CDCD + lp <= d_LJ, is a misprint: 2 + 1 > 2 = d_LJ)
    assert cder_distance(e("14 days no more ."), e("14 days now .")) == 2
    # CDER paper Figure 1 sentences: every reference word found, three long jumps
    a = path_alignment(e("we met at seven o'clock on the airport ."),
                       e("we met at the airport at seven o'clock ."), None, True, True,
                       ["w"] * 9, ["w"] * 9)
    assert a.distance == 3 and a.counts()["match"] == 9 and a.notes["long_jumps"] == 3


def test_directions_and_coverage_penalties():
    """Worked by hand. Candidate 'a b', reference 'a b a b': forward d = 1 ('a b' read
    twice, one jump back to column 0 -- allowed by eq. 4.16 and Moses, not by the loop
    bounds printed in Algorithm 4.2, which would give 2), coverage a:2 b:2 -> lp_misc = 2 (eq. 4.18), lp_len = 0
    (eq. 4.17). Backward (CD for the candidate): 'a b' found once plus one jump -> 1;
    its length penalty counts the reference's excess (2), its miscoverage the two
    reference words left uncovered (2)."""
    v = Vocabulary()
    s = seg(v, "a b", "a b a b")
    want = {"none": (1, 1), "length": (1, 3), "miscoverage": (3, 3), "half": (2, 3)}
    for rule, (fwd, bwd) in want.items():
        row = make("cder", v, cder_coverage_rule=rule).sentence_stats(s)
        assert (row[0], row[1], row[2]) == (fwd, 4, bwd), rule
        assert row[4] == (fwd + bwd) / 2 and row[6] == max(fwd, bwd)
    a = make("cder", v, cder_coverage_rule="half").align(s)
    assert a.notes["coverage"] == [2, 2]
    assert a.notes["penalised_distance"] == 2
    # 'a b c' vs 'a b': the extra candidate word is passed once (no miscoverage),
    # the length difference is 1
    s = seg(v, "a b c", "a b")
    want = {"none": 1, "length": 2, "miscoverage": 1, "half": 1.5}
    for rule, fwd in want.items():
        assert make("cder", v, cder_coverage_rule=rule).sentence_stats(s)[0] == fwd, rule


def test_score_details_and_columns():
    v = Vocabulary()
    m = make("cder", v)
    stats = m.corpus_stats([seg(v, "a b", "b a"), seg(v, "a b c", "a b c d")])
    total = stats.sum(axis=0)
    sc = m.score(total)
    assert set(sc.details) == {"forward", "backward", "bidirectional", "maximum"}
    assert set(sc.columns) == {"CDER", "CDER-bwd", "CDER-bi", "CDER-max"}
    assert sc.details["forward"]["sum"] == 3 and sc.details["forward"]["reference-length"] == 6
    assert sc.value == pytest.approx(0.5)
    assert sc.columns["CDER-bi"] == pytest.approx((sc.columns["CDER"] + sc.columns["CDER-bwd"]) / 2)


def test_reference_length_rule_and_best_reference():
    v = Vocabulary()
    s = seg(v, "a b c", "a b c d e f", "a x")
    m = make("cder", v, cder_ref_length_rule="lowestError")
    st_ = m.sentence_stats(s)
    assert (st_[0], st_[1]) == (3, 6)       # 3/6 < 2/2
    assert m.align(s).ref_index == 0
    m = make("cder", v, cder_ref_length_rule="average")
    assert tuple(m.sentence_stats(s)[:2]) == (2, 4)
    assert m.align(s).ref_index == 1


def test_wcder_prefix_costs():
    """Table 4.2: c_SUB,prefix(talk, talks) = 0.11 -> WCDER distance 1 - 4/4.5."""
    v = Vocabulary()
    m = make("wcder", v, substitution_cost_rule="prefix")
    m.fit([], v)
    s = seg(v, "we talk", "we talks")
    assert m.sentence_stats(s)[0] == pytest.approx(1 - 4 / 4.5)
    a = m.align(s)
    assert a.operation_cost() == pytest.approx(a.distance)
    assert make("cder", v).sentence_stats(s)[0] == 1


# ------------------------------------------------------------- properties
words = st.lists(st.sampled_from("abcde"), max_size=7)


@settings(max_examples=150, deadline=None)
@given(words, words, st.sampled_from(CDER_PAD_RULES))
def test_kernel_equals_reference(h, r, pad):
    hyp = np.asarray([ord(c) for c in h], np.int32)
    ref = np.asarray([ord(c) for c in r], np.int32)
    sf, ef = PADS[pad]
    d = cder_distance(hyp, ref, sf, ef)
    assert d == cder_reference(hyp, ref, sf, ef)
    # CD for the reference is never worse than Levenshtein (fixed ends: a Levenshtein path is
    # a CDCD path); without jumps it is Levenshtein
    assert d <= lev_distance(hyp, ref)
    assert cder_distance(hyp, ref, True, True, np.inf) == lev_distance(hyp, ref)
    # best path: same distance, operation + block costs sum to it, reference covered once
    a = path_alignment(hyp, ref, None, sf, ef, [str(x) for x in h], [str(x) for x in r])
    assert a.distance == d
    assert a.operation_cost() == pytest.approx(d)
    assert sorted(op.ref_pos for op in a.operations if op.ref_pos is not None) == list(range(len(r)))
    cov = np.bincount([op.hyp_pos for op in a.operations if op.hyp_pos is not None],
                      minlength=len(h))
    assert list(cov) == a.notes["coverage"]


@settings(max_examples=60, deadline=None)
@given(st.lists(words, min_size=1, max_size=4), st.lists(words, min_size=1, max_size=4),
       st.sampled_from(CDER_PAD_RULES))
def test_batch_both_directions(hs, rs, pad):
    hyps = [np.asarray([ord(c) for c in h], np.int32) for h in hs]
    refs = [np.asarray([ord(c) for c in r], np.int32) for r in rs]
    # every candidate with every reference, references shared between pairs
    pair_hyp = np.repeat(np.arange(len(hyps)), len(refs)).astype(np.int64)
    pair_ref = np.tile(np.arange(len(refs)), len(hyps)).astype(np.int64)
    hf, ho = pack(hyps)
    rf, ro = pack(refs)
    sf, ef = PADS[pad]
    for backward in (False, True):
        d = cder_distance_batch(hf, ho, rf, ro, pair_hyp, pair_ref, backward, sf, ef, 1.0, False,
                                np.zeros(1), np.zeros(len(pair_hyp) + 1, np.int64))
        for p, (h, r) in enumerate(zip(pair_hyp, pair_ref)):
            a, b = (refs[r], hyps[h]) if backward else (hyps[h], refs[r])
            assert d[p] == cder_reference(a, b, sf, ef)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["talk", "talks", "we", "usual", "unusual"]), max_size=6),
       st.lists(st.sampled_from(["talk", "talks", "we", "usual", "unusual"]), max_size=6),
       st.sampled_from(["prefix", "levenshtein"]))
def test_word_dependent_costs_equal_reference(h, r, rule):
    v = Vocabulary()
    hyp, ref = v.encode(h), v.encode(r)
    m = make("wcder", v, substitution_cost_rule=rule)
    sub = m.sub_matrix(hyp, ref)
    want = cder_reference(hyp, ref, sub=lambda i, l: sub_cost(h[i], r[l], rule))
    s = Segment(hyp, (ref,))
    assert m.sentence_stats(s)[0] == pytest.approx(want)
    want_b = cder_reference(ref, hyp, sub=lambda i, l: sub_cost(r[i], h[l], rule))
    assert m.sentence_stats(s)[2] == pytest.approx(want_b)
    d, _e, _c = cder_path(hyp, ref, sub, True)
    assert d == pytest.approx(want)
    a = m.align(s)
    assert a.operation_cost() == pytest.approx(a.distance)


@settings(max_examples=60, deadline=None)
@given(st.lists(words, min_size=1, max_size=3), words)
def test_stats_add_up(refs, h):
    v = Vocabulary()
    s = Segment(v.encode(h), tuple(v.encode(r) for r in refs))
    m = make("cder", v)
    row = m.sentence_stats(s)
    assert row.shape == (8,)
    assert row[4] <= row[6]                                   # average <= maximum
    np.testing.assert_array_equal(m.corpus_stats([s, s]).sum(axis=0), 2 * row)


@settings(max_examples=60, deadline=None)
@given(words, st.lists(words, min_size=1, max_size=3), st.sampled_from(REF_LENGTH_RULES),
       st.sampled_from(CDER_PAD_RULES))
def test_reference_length_rules_follow_choose(h, refs, rule, pad):
    """Each direction's distance and length = reflength.choose over the per-reference values."""
    v = Vocabulary()
    s = Segment(v.encode(h), tuple(v.encode(r) for r in refs))
    row = make("cder", v, cder_ref_length_rule=rule, cder_pad_rule=pad).sentence_stats(s)
    sf, ef = PADS[pad]
    fwd = [cder_reference(s.hyp, r, sf, ef) for r in s.refs]
    bwd = [cder_reference(r, s.hyp, sf, ef) for r in s.refs]
    per_dir = [fwd, bwd, [(a + b) / 2 for a, b in zip(fwd, bwd)],
               [max(a, b) for a, b in zip(fwd, bwd)]]
    lengths = [len(r) for r in refs]
    for k, dists in enumerate(per_dir):
        d, L, _ = choose(dists, lengths, rule)
        assert (row[2 * k], row[2 * k + 1]) == pytest.approx((d, L)), k


@settings(max_examples=60, deadline=None)
@given(words, words)
def test_miscoverage_penalty_is_that_of_the_best_path(h, r):
    v = Vocabulary()
    s = Segment(v.encode(h), (v.encode(r),))
    m = make("cder", v, cder_coverage_rule="miscoverage")
    a = m.align(s)
    cov = a.notes["coverage"]
    want = sum(1 if c == 0 else c - 1 for c in cov)               # eq. 4.18, unit costs
    assert a.notes["miscoverage_penalty"] == want
    assert m.sentence_stats(s)[0] == a.distance + want


# ------------------------------------------------- bit-parallel kernel (unit costs, c_LJ = 1)
#: Candidate lengths around the 64-bit word boundaries (columns 0..I need I + 1 bits).
BOUNDARY_LENGTHS = [0, 1, 2, 63, 64, 65, 127, 128, 129, 200]


def bits_dp_ref(hyps, refs, pair_hyp, pair_ref, backward, sf, ef):
    """Bit kernel, float DP (Algorithm 4.2) and the dispatching batch entry, for the same pairs."""
    hf, ho = pack(hyps)
    rf, ro = pack(refs)
    pair_hyp = np.asarray(pair_hyp, np.int64)
    pair_ref = np.asarray(pair_ref, np.int64)
    so = np.zeros(len(pair_hyp) + 1, np.int64)
    bits = cder_bits_batch(hf, ho, rf, ro, pair_hyp, pair_ref, backward, sf, ef)
    dp = cder_dp_batch(hf, ho, rf, ro, pair_hyp, pair_ref, backward, sf, ef, 1.0, False,
                       np.zeros(1), so)
    routed = cder_distance_batch(hf, ho, rf, ro, pair_hyp, pair_ref, backward, sf, ef, 1.0,
                                 False, np.zeros(1), so)
    np.testing.assert_array_equal(routed, bits)
    return bits, dp


@st.composite
def long_pair(draw):
    """A candidate of a word-boundary (or small) length over a small vocabulary and a reference
    made of candidate blocks (long matches across word boundaries) and random words."""
    v = draw(st.integers(1, 5))
    n = draw(st.sampled_from(BOUNDARY_LENGTHS) | st.integers(0, 9))
    hyp = draw(st.lists(st.integers(0, v), min_size=n, max_size=n))
    ref: list[int] = []
    for _ in range(draw(st.integers(0, 4))):
        if hyp and draw(st.booleans()):
            a = draw(st.integers(0, len(hyp) - 1))
            ref += hyp[a:a + draw(st.integers(1, 80))]
        else:
            ref += draw(st.lists(st.integers(0, v + 1), max_size=draw(st.sampled_from([3, 70]))))
    if draw(st.booleans()):
        hyp, ref = ref, hyp
    return np.asarray(hyp, np.int32), np.asarray(ref, np.int32)


@settings(max_examples=200, deadline=None)
@given(long_pair())
def test_bit_kernel_equals_dp_and_reference(pair):
    """Unit costs, c_LJ = 1: bit-parallel kernel == float DP (Algorithm 4.2) == plain-Python
    shortest path (eq. 4.16), all four boundary rules (Table A.6), both CD directions; the
    reference is run where its O(I^2 L) relaxation stays cheap."""
    hyp, ref = pair
    for sf, ef in PADS.values():
        for backward in (False, True):
            bits, dp = bits_dp_ref([hyp], [ref], [0], [0], backward, sf, ef)
            assert bits[0] == dp[0], (sf, ef, backward)
            cand, other = (ref, hyp) if backward else (hyp, ref)
            if (len(cand) + 1) ** 2 * max(len(other), 1) <= 40000:
                assert bits[0] == cder_reference(cand, other, sf, ef), (sf, ef, backward)


@pytest.mark.parametrize("n", BOUNDARY_LENGTHS)
def test_bit_kernel_at_word_boundaries(n):
    """Worked by hand, distinct words 0..n-1 (columns 0..n): identical -> 0; the
    reference is a block from the middle of the candidate (crossing the 64-bit word
    boundaries) -> one jump in with a fixed start, one jump out with a fixed end; the
    halves swapped (n >= 63) -> one jump back, plus one in / out with a fixed start / end."""
    cand = np.arange(n, dtype=np.int32)
    for sf, ef in PADS.values():
        assert cder_distance(cand, cand, sf, ef) == 0
        a, b = n // 3, min(n, n // 3 + 70)
        mid = cand[a:b]
        want = int(sf and a > 0) + int(ef and b < n)
        assert cder_distance(cand, mid, sf, ef) == want, (sf, ef)
        if n >= 63:                                     # halves swapped: B A for A B
            swap = np.concatenate([cand[n // 2:], cand[:n // 2]])
            assert cder_distance(cand, swap, sf, ef) == 1 + int(sf) + int(ef), (sf, ef)
        # 5 reference words missing: a substitution or vertical edge each; only with both
        # ends fixed and n > 5 the path cannot end at column n without one more edge
        want = 5 + int(sf and ef and n > 5)
        assert cder_distance(cand, np.full(5, n + 7, np.int32), sf, ef) == want, (sf, ef)
    # the long sides against the plain-Python reference (short other side keeps it cheap)
    rng = np.random.default_rng(n)
    ref = np.concatenate([cand[n // 2:n // 2 + 2], rng.integers(0, 4, 2).astype(np.int32)])
    for sf, ef in PADS.values():
        assert cder_distance(cand, ref, sf, ef) == cder_reference(cand, ref, sf, ef)


def test_bit_kernel_shared_candidates_and_sparse_ids():
    """Pairs in any order (a candidate's masks are reused only by consecutive pairs) and ids
    far apart or negative (renumbered before indexing) give the float DP's distances."""
    rng = np.random.default_rng(7)
    words = np.array([-2**31, -5, 0, 3, 2**31 - 1], np.int32)
    hyps = [words[rng.integers(0, 5, n)] for n in (0, 3, 64, 70, 130, 5)]
    refs = [words[rng.integers(0, 5, n)] for n in (2, 0, 63, 129, 66)]
    pair_hyp = rng.integers(0, len(hyps), 80)
    pair_ref = rng.integers(0, len(refs), 80)
    pair_hyp[10:20] = 4                                 # runs sharing a candidate
    pair_ref[30:40] = 3
    for sf, ef in PADS.values():
        for backward in (False, True):
            bits, dp = bits_dp_ref(hyps, refs, pair_hyp, pair_ref, backward, sf, ef)
            np.testing.assert_array_equal(bits, dp)
            # same distances with the ids renumbered densely (the measures' usual case)
            u = {w: k for k, w in enumerate(sorted(set(words.tolist())))}
            dense = [np.asarray([u[w] for w in s.tolist()], np.int32) for s in hyps]
            dense_r = [np.asarray([u[w] for w in s.tolist()], np.int32) for s in refs]
            d2, _ = bits_dp_ref(dense, dense_r, pair_hyp, pair_ref, backward, sf, ef)
            np.testing.assert_array_equal(d2, bits)


def test_other_jump_costs_use_the_dp():
    """c_LJ != 1 is not unit-cost: cder_distance_batch routes it to Algorithm 4.2 (checked
    against the plain-Python shortest path)."""
    v = Vocabulary()
    hyp, ref = v.encode("a b c d e".split()), v.encode("d e a b x c".split())
    hf, ho = pack([hyp])
    rf, ro = pack([ref])
    one = np.zeros(1, np.int64)
    for c_lj in (0.5, 2.0, 3.0):
        d = cder_distance_batch(hf, ho, rf, ro, one, one, False, True, True, c_lj, False,
                                np.zeros(1), np.zeros(2, np.int64))
        assert d[0] == cder_reference(hyp, ref, True, True, c_lj)
        assert cder_distance(hyp, ref, True, True, c_lj) == d[0]
