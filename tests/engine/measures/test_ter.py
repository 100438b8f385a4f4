"""TER: identical to sacreBLEU's TER (WMT21 reference values, live sacreBLEU on random and
degenerate sentences), alignments whose costs sum to the edits."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import TER as SacreTER
from sacrebleu.metrics.lib_ter import translation_edit_rate

from evaltrans_qt.engine.kernels.packing import pack
from evaltrans_qt.engine.kernels.ter import ter_edits, ter_edits_batch, ter_reference
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.alignment import OpKind
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.ter import ter_alignment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize


def make(vocab=None, **opts):
    m = get("ter")(EvalOptions(**opts))
    m.fit([], vocab or Vocabulary())
    return m


def arr(words):
    return np.asarray([ord(c) for c in words], dtype=np.int32)


# ------------------------------------------------------------- WMT oracle
@pytest.fixture(scope="module")
def wmt(wmt13a):
    vals, vocab, load = wmt13a

    refs = [load(f"newstest2021.en-de.ref.{x}.de") for x in "ACD"]
    return vals, vocab, refs, load


def _check_systems(wmt, names):
    vals, vocab, refs, load = wmt
    m = make(vocab)
    for name in names:
        hyp = load(name)
        segs = [Segment(h, tuple(r[k] for r in refs)) for k, h in enumerate(hyp)]
        total = m.corpus_stats(segs).sum(axis=0)
        assert 100 * m.score(total).value == pytest.approx(
            vals[name]["ter_allrefs_tok13a_cased"], rel=1e-12, abs=1e-12), name
        total_a = m.corpus_stats([Segment(h, (r,)) for h, r in zip(hyp, refs[0])]).sum(axis=0)
        assert 100 * m.score(total_a).value == pytest.approx(
            vals[name]["ter_refA_tok13a_cased"], rel=1e-12, abs=1e-12), name


def test_ter_equals_sacrebleu_on_wmt_sample(wmt):
    """TER = sacreBLEU TER(case_sensitive=True) on 13a tokens, refs A,C,D and A."""
    _check_systems(wmt, sorted(wmt[0])[:3])


@pytest.mark.slow
def test_ter_equals_sacrebleu_on_all_wmt_systems(wmt):
    _check_systems(wmt, sorted(wmt[0])[3:])


# ------------------------------------------------------------- live sacreBLEU
def sacre_edits(h, r) -> int:
    return translation_edit_rate([str(x) for x in h], [str(x) for x in r])[0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcdef"), max_size=14), st.lists(st.sampled_from("abcdef"),
                                                                   max_size=14))
def test_kernel_equals_sacrebleu_and_reference(h, r):
    hyp, ref = arr(h), arr(r)
    e = ter_edits(hyp, ref)
    assert e == sacre_edits(h, r) == ter_reference(hyp, ref)
    a = ter_alignment(hyp, ref, h, r)
    assert a.distance == e
    assert a.operation_cost() == e
    # the final alignment uses every candidate word once and every reference word once
    assert sorted(op.hyp_pos for op in a.operations if op.hyp_pos is not None) == list(range(len(h)))
    assert [op.ref_pos for op in a.operations if op.ref_pos is not None] == list(range(len(r)))
    for op in a.operations:
        if op.kind is OpKind.MATCH:
            assert h[op.hyp_pos] == r[op.ref_pos]


@pytest.mark.parametrize("seed,n_h,n_r,alphabet", [
    (1, 60, 55, 4),    # many matching spans: hits the 1000-candidate limit
    (2, 90, 40, 6),    # very unequal lengths: the beam matters
    (3, 10, 130, 3),   # reference 13x longer: widened beam
    (4, 70, 70, 30),   # long, larger vocabulary (also hits the limit)
])
def test_degenerate_sentences_equal_sacrebleu(seed, n_h, n_r, alphabet):
    rnd = random.Random(seed)
    h = [rnd.randrange(alphabet) for _ in range(n_h)]
    r = [rnd.randrange(alphabet) for _ in range(n_r)]
    assert ter_edits(np.asarray(h, np.int32), np.asarray(r, np.int32)) == sacre_edits(h, r)


def test_batch_equals_single():
    rnd = random.Random(7)
    hyps = [np.asarray([rnd.randrange(5) for _ in range(rnd.randrange(0, 20))], np.int32)
            for _ in range(15)]
    refs = [np.asarray([rnd.randrange(5) for _ in range(rnd.randrange(0, 20))], np.int32)
            for _ in range(30)]
    pair_hyp = np.asarray([k // 2 for k in range(30)], np.int64)
    hf, ho = pack(hyps)
    rf, ro = pack(refs)
    got = ter_edits_batch(hf, ho, rf, ro, pair_hyp)
    assert list(got) == [ter_edits(hyps[h], refs[p]) for p, h in enumerate(pair_hyp)]


# ------------------------------------------------------------- measure
CASES = [
    ("the cat sat on the mat", ["the cat sat on the mat"]),
    ("on the mat the cat sat", ["the cat sat on the mat", "a cat was on the mat"]),
    ("", ["x y z"]),
    ("a b", [""]),
    ("", [""]),
    ("Hello World !", ["hello world !", "Hello there World"]),
]


@pytest.mark.parametrize("hyp,refs", CASES)
def test_sentence_score_equals_sacrebleu(hyp, refs):
    v = Vocabulary()
    m = make(v)
    seg = Segment(v.encode(hyp.split()), tuple(v.encode(r.split()) for r in refs), hyp,
                  tuple(refs))
    sc = m.score(m.sentence_stats(seg))
    want = SacreTER(case_sensitive=True).sentence_score(hyp, refs).score
    assert 100 * sc.value == pytest.approx(want)
    a = m.align(seg)
    assert a.operation_cost() == a.distance


def test_shift_is_reported():
    v = Vocabulary()
    seg = Segment(v.encode("we met on the airport at seven".split()),
                  (v.encode("we met at seven on the airport".split()),))
    a = make(v).align(seg)
    assert a.distance == 1
    assert len(a.blocks) == 1 and a.blocks[0].kind.value == "shift"
    b = a.blocks[0]
    assert b.cost == 1 and b.hyp_span == (5, 7) and b.ref_span == (2, 4)


def test_normalized_option_equals_sacrebleu():
    hyp = "It's 5.5 km—not &quot;far&quot;, isn't it?"
    refs = ["It is 5.5 km, not \"far\", is it?", "It's five km&amp;not far."]
    v = Vocabulary()
    m = make(v, ter_normalized=True)
    seg = Segment(v.encode(tokenize(hyp, "mteval")),
                  tuple(v.encode(tokenize(r, "mteval")) for r in refs), hyp, tuple(refs))
    want = SacreTER(normalized=True, case_sensitive=True).sentence_score(hyp, refs).score
    assert 100 * m.score(m.sentence_stats(seg)).value == pytest.approx(want)
