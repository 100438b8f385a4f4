"""BLEU, BLEU-S, BLEU-S' (thesis section 3.1) against sacreBLEU values and worked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.measures import get, load_all
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.bleu import BLEU, length_penalty, reference_lengths
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.engine.text.reflength import ngram_reference_length
from tests.engine.ngram_wmt import load

PAD_RULES = ("none", "initial", "end", "both")


def seg(v: Vocabulary, hyp: str, *refs: str) -> Segment:
    return Segment(v.encode(hyp.split()), tuple(v.encode(r.split()) for r in refs), hyp, refs)


def bleu(hyp: str, *refs: str, **opts):
    m = BLEU(EvalOptions(**opts))
    return m.score(m.sentence_stats(seg(Vocabulary(), hyp, *refs)))


# --------------------------------------------------------------------------- oracles
def test_corpus_bleu_equals_sacrebleu_all_refs_and_ref_a(wmt_dir):
    """sacreBLEU 2.6 corpus_bleu(tokenize="13a") = BLEU with minimumNearest, no smoothing."""
    w = load(wmt_dir)
    m = BLEU()
    for system, vals in w.values["systems"].items():
        allrefs = m.score(m.corpus_stats(w.segments(system)).sum(axis=0))
        assert 100 * allrefs.value == pytest.approx(vals["bleu_allrefs"], rel=1e-12, abs=1e-12)
        ref_a = m.score(m.corpus_stats(w.segments(system, (0,))).sum(axis=0))
        assert 100 * ref_a.value == pytest.approx(vals["bleu_refA"], rel=1e-12, abs=1e-12)


def test_sentence_bleu_s_equals_sacrebleu_add_k(wmt_dir):
    """BLEU-S (s1 = 0, s_m>1 = 1, eq. 3.6) = sentence_bleu(add-k, k = 1) on every segment."""
    w = load(wmt_dir)
    m = BLEU()
    for system, vals in w.values["systems"].items():
        stats = m.corpus_stats(w.segments(system))
        ours = np.array([m.score(row).columns["BLEU-S"] for row in stats]) * 100
        assert np.abs(ours - np.array(vals["sent_bleu_s_allrefs"])).max() < 1e-9


# --------------------------------------------------------------------------- worked examples
def test_papineni_modified_unigram_precision():
    """Papineni et al. 2002: "the the the the the the the" scores 2/7 unigram precision."""
    s = bleu("the the the the the the the", "the cat is on the mat", "there is a cat on the mat")
    n1 = s.details["n-gram"][0]
    assert n1[0] == {"n": 1}
    assert (n1[1]["correct"], n1[1]["total"]) == (2.0, 7.0)
    assert n1[1]["precision"] == pytest.approx(2 / 7)
    assert s.value == 0.0                                      # no matching bigram
    # BLEU-S: p_m>1 = (0 + 1) / (N_m + 1); BLEU-S': (0 + 0.5) / (N_m + 0.5)
    s_un = math.exp((math.log(2 / 7) + math.log(1 / 7) + math.log(1 / 6) + math.log(1 / 5)) / 4)
    r_un = math.exp((math.log(2 / 7) + math.log(.5 / 6.5) + math.log(.5 / 5.5)
                     + math.log(.5 / 4.5)) / 4)
    assert s.details["s-score-unpenalized"] == pytest.approx(s_un)
    assert s.details["r-score-unpenalized"] == pytest.approx(r_un)
    assert s.details["length-penalty"] == 1.0                  # 7 >= closest length 7
    assert s.columns == {"BLEU": 0.0, "BLEU-S": pytest.approx(s_un),
                         "BLEU-S'": pytest.approx(r_un)}


def test_length_penalty_and_reference_length_rules():
    """eq. 3.5 with Table A.4 rules; minimumNearest ties go to the shorter reference."""
    hyp, r4, r6, r9 = "a b c d e", "a b c d", "a b c d e f", "a b c d e f g h i"
    assert bleu(hyp, r4, r6).details["reference-length"] == 4.0       # |5-4| = |5-6|
    assert bleu(hyp, r6, r9, bleu_ref_length_rule="average").details["reference-length"] == 7.5
    s = bleu(hyp, r6, r9, bleu_ref_length_rule="minimum")
    assert s.details["reference-length"] == 6.0
    assert s.details["length-penalty"] == pytest.approx(math.exp(1 - 6 / 5))
    assert s.details["score"] == pytest.approx(s.details["score-unpenalized"]
                                               * math.exp(1 - 6 / 5))
    assert length_penalty(0, 3) == 0.0 and length_penalty(3, 0) == 1.0
    assert length_penalty(0, 0) == 1.0                     # sacreBLEU: bp = 1 unless I < L*


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.lists(st.integers(0, 12), min_size=1,
                                                         max_size=4)), min_size=1, max_size=6),
       st.sampled_from(("average", "minimum", "minimumNearest")))
def test_vectorised_reference_lengths_equal_reflength(rows, rule):
    hyps = [np.zeros(h, np.int32) for h, _ in rows]
    refs = [tuple(np.zeros(n, np.int32) for n in lens) for _, lens in rows]
    hyp_len, ref_len = reference_lengths(hyps, refs, rule)
    for k, (h, lens) in enumerate(rows):
        assert hyp_len[k] == h
        assert ref_len[k] == ngram_reference_length(h, lens, rule)


def test_empty_hypothesis_and_empty_reference():
    empty_hyp = bleu("", "a b c")
    assert empty_hyp.value == 0.0 and empty_hyp.details["length-penalty"] == 0.0
    assert empty_hyp.columns == {"BLEU": 0.0, "BLEU-S": 0.0, "BLEU-S'": 0.0}
    empty_ref = bleu("a b c", "")
    assert empty_ref.value == 0.0 and empty_ref.details["length-penalty"] == 1.0
    assert empty_ref.columns["BLEU-S"] == 0.0
    both_empty = bleu("", "")
    assert both_empty.value == 0.0 and both_empty.details["length-penalty"] == 1.0


words = st.lists(st.sampled_from("a b c d e".split()), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(words, st.sampled_from(PAD_RULES), st.integers(1, 5))
def test_identical_sentences_score_one(ws, rule, M):
    s = bleu(" ".join(ws), " ".join(ws), "x y", bleu_pad_rule=rule, max_ngram=M)
    assert s.columns["BLEU-S"] == pytest.approx(1.0)
    assert s.columns["BLEU-S'"] == pytest.approx(1.0)
    # genuine BLEU needs a candidate m-gram of every order (undefined otherwise, counted 0)
    padded_len = len(ws) + (M - 1 if rule in ("initial", "both") else 0) + (
        1 if rule in ("end", "both") else 0)
    assert s.value == (pytest.approx(1.0) if padded_len >= M else 0.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(words, st.lists(words, min_size=1, max_size=3)), min_size=2,
                max_size=5))
def test_statistics_add_up_and_rows_are_sentences(rows):
    v = Vocabulary()
    segs = [seg(v, " ".join(h), *(" ".join(r) for r in rs)) for h, rs in rows]
    m = BLEU(EvalOptions(bleu_pad_rule="both"))
    stats = m.corpus_stats(segs)
    for i, s in enumerate(segs):
        assert np.array_equal(stats[i], m.sentence_stats(s))
    # <= 1 up to sacreBLEU's rounding: exp(log(100)) = 100.00000000000004 for a perfect match
    assert m.score(stats.sum(axis=0)).value <= 1.0 + 1e-15


def test_boundary_ngrams_count():
    """Figure 5.2 / Table A.5: "both" adds [<s> a], [b </s>] and the unigram </s>."""
    s = bleu("a b", "a b", bleu_pad_rule="both", max_ngram=2)
    totals = [p["total"] for _, p in s.details["n-gram"]]
    assert totals == [3.0, 3.0]
    assert s.value == pytest.approx(1.0)
    assert s.details["candidate-length"] == 2.0               # lengths stay unpadded
    # with boundaries, a candidate that starts differently loses the [<s> x] bigram
    plain = bleu("b a b", "a b a", max_ngram=2)
    padded = bleu("b a b", "a b a", max_ngram=2, bleu_pad_rule="initial")
    assert [p["correct"] for _, p in plain.details["n-gram"]] == [2.0, 2.0]
    assert [p["total"] for _, p in plain.details["n-gram"]] == [3.0, 2.0]
    assert [p["correct"] for _, p in padded.details["n-gram"]] == [2.0, 2.0]
    assert [p["total"] for _, p in padded.details["n-gram"]] == [3.0, 3.0]


def test_all_ngrams_reports_each_maximum_order():
    hyp, ref = "a b c d e f", "a b c x e f"
    full = bleu(hyp, ref, all_ngrams=True)
    for attrs, part in full.details["n-gram"]:
        single = bleu(hyp, ref, max_ngram=attrs["n"])
        for key in ("score", "score-unpenalized", "s-score", "r-score-unpenalized"):
            assert part[key] == pytest.approx(single.details[key])
    assert "score" not in bleu(hyp, ref).details["n-gram"][0][1]


def test_registered_and_described():
    load_all()
    cls = get("BLEU")
    assert cls is BLEU and cls.higher_is_better and cls.report_element == "bleu"
    m = BLEU(EvalOptions(max_ngram=3))
    assert m.stat_names == ["hyp_len", "ref_len", "correct_1", "correct_2", "correct_3",
                            "total_1", "total_2", "total_3"]
    assert m.corpus_stats([]).shape == (0, 8)
