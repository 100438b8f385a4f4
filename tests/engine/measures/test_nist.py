"""NIST (thesis section 3.2, eq. 3.8-3.10, eq. 5.8) against mteval-v13a and worked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.nist import NIST, length_penalty
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.errors import ScoreError
from tests.engine.ngram_wmt import load


def fitted(refs: list[list[str]], v: Vocabulary, **opts) -> NIST:
    m = NIST(EvalOptions(**opts))
    m.fit([Segment(np.zeros(0, np.int32), tuple(v.encode(r.split()) for r in rs))
           for rs in refs], v)
    return m


def score(m: NIST, v: Vocabulary, hyp: str, *refs: str):
    return m.score(m.sentence_stats(Segment(v.encode(hyp.split()),
                                            tuple(v.encode(r.split()) for r in refs))))


def test_nist_close_to_mteval(wmt_dir):
    """NIST (5-grams, average reference length) vs mteval-v13a.pl -c: |Δ| <= 0.003, not 0.

    We follow the definition (eq. 3.8-3.10) on sacreBLEU 13a tokens. mteval's Perl
    deviates in two ways on this data (see ../shared/data/README.md): (1) in
    ``$mgram ? count($mgram) : $tot_wrds`` the prefix string "0" is false, so a
    bigram starting with the token "0" gets a unigram-style weight; (2) it splits
    only on ASCII whitespace, so the no-break spaces in references A and C stay
    inside tokens. Quirk (1) alone accounts for up to 0.0028 here (our values are
    lower for every system); emulating both reproduces mteval to <= 0.0017.
    """
    w = load(wmt_dir)
    m = NIST()
    m.fit(w.fit_segments(), w.vocab)
    diffs = []
    for system, vals in w.values["systems"].items():
        ours = m.score(m.corpus_stats(w.segments(system)).sum(axis=0)).value
        diffs.append(ours - vals["mteval_nist_allrefs_cased"])
    assert max(abs(d) for d in diffs) <= 0.003
    assert max(abs(d) for d in diffs) > 0          # the quirks do show on this data


def test_length_penalty_beta_from_definition():
    """eq. 3.10 with β chosen so that lp(2/3) = 1/2 (the printed eq. 3.11 is a misprint)."""
    assert length_penalty(2, 3) == pytest.approx(0.5, abs=1e-15)
    assert length_penalty(3, 3) == 1.0 and length_penalty(4, 3) == 1.0
    assert length_penalty(0, 3) == 0.0
    assert length_penalty(1, 2) == pytest.approx(math.exp(-(math.log(0.5) / math.log(1.5)) ** 2
                                                          * math.log(2)))


def test_worked_example_info_weights_and_score():
    """Refs "a b c" and "a b d": N(a)=N(b)=2, N(c)=N(d)=1 of 6 words; N(a b)=2, N(b c)=1.

    Candidate "a b c": unigram info log2(6/2)·2 + log2(6/1) = 2 log2 3 + log2 6;
    bigrams: Info(a b) = log2(2/2) = 0, Info(b c) = log2(2/1) = 1; trigram
    Info(a b c) = log2(N(a b)/N(a b c)) = log2(2/1) = 1.
    """
    v = Vocabulary()
    m = fitted([["a b c", "a b d"]], v, nist_max_ngram=3)
    s = score(m, v, "a b c", "a b c", "a b d")
    parts = [p for _, p in s.details["n-gram"]]
    assert parts[0]["information"] == pytest.approx(2 * math.log2(3) + math.log2(6))
    assert parts[0]["part"] == pytest.approx((2 * math.log2(3) + math.log2(6)) / 3)
    assert parts[1]["information"] == pytest.approx(1.0)
    assert parts[2]["information"] == pytest.approx(1.0)
    assert s.details["length-penalty"] == 1.0           # 3 words, average reference 3
    assert s.value == pytest.approx(parts[0]["part"] + 1 / 2 + 1 / 1)
    assert s.columns == {"NIST": s.value}


def test_initial_boundary_uses_eq_5_8():
    """With initial padding Info([<s> e1]) = log2(K / N([<s> e1])) (thesis §5.4, eq. 5.8)."""
    v = Vocabulary()
    refs = [["a b"], ["a c"], ["b a"]]                    # K = 3 reference sentences
    m = fitted(refs, v, nist_max_ngram=2, nist_pad_rule="initial")
    s = score(m, v, "a", "a b")
    # bigram [<s> a]: N = 2 of K = 3 sentences -> log2(3/2); unigram a: log2(6/3)
    parts = [p for _, p in s.details["n-gram"]]
    assert parts[1]["total"] == 1.0 and parts[1]["correct"] == 1.0
    assert parts[1]["information"] == pytest.approx(math.log2(3 / 2))
    assert parts[0]["information"] == pytest.approx(1.0)


def test_all_ngrams_and_empty_cases():
    v = Vocabulary()
    m = fitted([["a b c d", "a b x d"]], v, all_ngrams=True)
    s = score(m, v, "a b c d", "a b c d", "a b x d")
    for attrs, part in s.details["n-gram"]:
        single = fitted([["a b c d", "a b x d"]], v, nist_max_ngram=attrs["n"])
        assert part["score"] == pytest.approx(score(single, v, "a b c d", "a b c d",
                                                    "a b x d").value)
    empty = score(m, v, "", "a b c d")
    assert empty.value == 0.0 and empty.details["length-penalty"] == 0.0
    no_ref_words = score(m, v, "a b", "")
    assert no_ref_words.value == 0.0 and no_ref_words.details["length-penalty"] == 1.0


def test_needs_fit_and_the_fitted_references():
    v = Vocabulary()
    with pytest.raises(ScoreError):
        NIST().sentence_stats(Segment(v.encode(["a"]), (v.encode(["a"]),)))
    m = fitted([["a b"]], v)
    with pytest.raises(ScoreError):
        score(m, v, "z y", "z y")                          # references fit() never saw
    assert get("nist") is NIST and NIST.higher_is_better


def test_fitted_measure_pickles():
    """The executor sends fitted measures to worker processes."""
    import pickle
    v = Vocabulary()
    m = fitted([["a b c", "a b d"]], v)
    m2 = pickle.loads(pickle.dumps(m))
    seg = Segment(v.encode("a b d".split()), (v.encode("a b c".split()),))
    assert np.array_equal(m.sentence_stats(seg), m2.sentence_stats(seg))
