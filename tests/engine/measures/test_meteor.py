"""METEOR equals NLTK's ``meteor_score`` (synonyms off: a WordNet stub without synsets) on
generated sentences and on WMT21 lines, with every option; the compiled matching equals
the plain one."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.stem.snowball import SnowballStemmer
from nltk.translate.meteor_score import meteor_score

from evaltrans_qt.engine.kernels.meteor import match_pair, match_pairs_py
from evaltrans_qt.engine.measures import meteor as meteor_module
from evaltrans_qt.engine.measures.alignment import explain_segment
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.meteor import METEOR
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.errors import OptionError


class NoSynonyms:
    """A WordNet without synsets: NLTK's synonym module then matches nothing new."""

    def synsets(self, word):
        return []


WORDS = ["run", "runs", "running", "Run", "cat", "cats", "Cat", "the", "The", "a", "on",
         "mat", "mats", "sat", "sit", "sitting", "house", "houses", "happy", "happily", ".",
         "ein", "Haus", "Häuser", "laufen", "läuft"]


def _sentence(rng: random.Random, lo: int = 0) -> list[str]:
    return [rng.choice(WORDS) for _ in range(rng.randint(lo, 14))]


def _scores(hyps, refs, options=None):
    vocab = Vocabulary()
    segs = [Segment(vocab.encode(h), tuple(vocab.encode(r) for r in rs))
            for h, rs in zip(hyps, refs)]
    m = METEOR(options)
    m.fit([], vocab)
    return m, m.corpus_stats(segs)


@pytest.mark.parametrize("opts, nltk_kw", [
    ({}, {}),
    ({"meteor_alpha": 0.5, "meteor_beta": 1.0, "meteor_gamma": 0.9},
     {"alpha": 0.5, "beta": 1.0, "gamma": 0.9}),
    ({"meteor_alpha": 0.0, "meteor_gamma": 0.0}, {"alpha": 0.0, "gamma": 0.0}),
    ({"meteor_stemmer": "snowball"}, {"stemmer": SnowballStemmer("english")}),
    ({"meteor_stemmer": "snowball", "stem_language": "german"},
     {"stemmer": SnowballStemmer("german")}),
])
def test_equals_nltk_on_generated_sentences(opts, nltk_kw):
    rng = random.Random(7)
    hyps = [_sentence(rng) for _ in range(400)]
    refs = [[_sentence(rng, 0 if k else 1) for _ in range(rng.randint(1, 3))] for k in range(400)]
    _m, stats = _scores(hyps, refs, EvalOptions(**opts))
    want = [meteor_score(rs, h, wordnet=NoSynonyms(), **nltk_kw) for h, rs in zip(hyps, refs)]
    assert np.abs(stats[:, 0] - np.array(want)).max() <= 1e-12
    assert len(set(want)) > 40                  # the cases are not all alike


def test_equals_nltk_on_wmt21_lines(wmt_dir):
    refs = [(wmt_dir / f"newstest2021.en-de.ref.{r}.de").read_text(encoding="utf-8").splitlines()
            for r in "ACD"]
    hyp = (wmt_dir / "newstest2021.en-de.hyp.Online-W.de").read_text(encoding="utf-8").splitlines()
    n = 300
    hyps = [tokenize(h, "mteval") for h in hyp[:n]]
    rs = [[tokenize(r[i], "mteval") for r in refs] for i in range(n)]
    m, stats = _scores(hyps, rs)
    want = np.array([meteor_score(r, h, wordnet=NoSynonyms()) for h, r in zip(hyps, rs)])
    assert np.abs(stats[:, 0] - want).max() <= 1e-12
    # the system score is the mean of the sentence scores
    assert m.score(stats.sum(axis=0)).value == pytest.approx(want.mean(), abs=1e-12)
    assert m.score_values(stats) == pytest.approx(want, abs=1e-12)


def test_compiled_matching_equals_the_plain_one():
    rng = np.random.default_rng(3)
    for _ in range(500):
        h = rng.integers(0, 6, rng.integers(0, 12))
        r = rng.integers(0, 6, rng.integers(0, 12))
        hs, rs = h // 2, r // 2                     # stems: pairs of ids share one
        mt, ch, to_ref = match_pair(h, hs, r, rs)
        assert (mt, ch) == match_pairs_py(h.tolist(), hs.tolist(), r.tolist(), rs.tolist())
        assert sorted(j for j in to_ref.tolist() if j >= 0) == \
            sorted(set(j for j in to_ref.tolist() if j >= 0))      # each reference word once


def test_empty_sides_score_zero_and_no_reference_does_not_count():
    m, stats = _scores([[], ["a"], ["a"]], [[["a"]], [[]], []])
    assert stats[:, 0].tolist() == [0.0, 0.0, 0.0]
    assert stats[:, 1].tolist() == [1.0, 1.0, 0.0]
    assert m.score(np.zeros(6)).value == 0.0


def test_options_are_checked_and_named_in_the_signature():
    from evaltrans_qt.engine.run.signature import signature_for
    with pytest.raises(OptionError, match="meteor-alpha"):
        EvalOptions(meteor_alpha=1.5)
    sig = signature_for("meteor", EvalOptions(meteor_stemmer="snowball", meteor_alpha=0.5))
    text = sig.format()
    assert "stemmer:snowball" in text and "synonyms:off" in text and "alpha:0.5" in text


def test_synonyms_are_never_downloaded(monkeypatch):
    import nltk
    import nltk.data

    def missing(name, *a, **k):
        raise LookupError(name)

    def no_download(*a, **k):
        raise AssertionError("must not download")

    monkeypatch.setattr(nltk.data, "find", missing)
    monkeypatch.setattr(nltk, "download", no_download)
    with pytest.raises(OptionError, match="never downloaded"):
        METEOR(EvalOptions(meteor_synonyms="wordnet"))


def test_synonym_module_equals_nltk_with_the_same_wordnet(monkeypatch):
    class Lemma:
        def __init__(self, name):
            self._name = name

        def name(self):
            return self._name

    class Synset:
        def __init__(self, names):
            self._names = names

        def lemmas(self):
            return [Lemma(n) for n in self._names]

    class TinyWordNet:
        groups = [["cat", "feline", "kitty"], ["mat", "rug", "carpet"], ["sit", "perch"]]

        def synsets(self, word):
            return [Synset(g) for g in self.groups if word in g]

    monkeypatch.setattr(meteor_module, "local_wordnet", TinyWordNet)
    rng = random.Random(5)
    words = ["cat", "feline", "kitty", "mat", "rug", "carpet", "sit", "perch", "on", "the"]
    hyps = [[rng.choice(words) for _ in range(rng.randint(1, 9))] for _ in range(200)]
    refs = [[[rng.choice(words) for _ in range(rng.randint(1, 9))]] for _ in range(200)]
    _m, stats = _scores(hyps, refs, EvalOptions(meteor_synonyms="wordnet"))
    want = [meteor_score(rs, h, wordnet=TinyWordNet()) for h, rs in zip(hyps, refs)]
    off = [meteor_score(rs, h, wordnet=NoSynonyms()) for h, rs in zip(hyps, refs)]
    assert np.abs(stats[:, 0] - np.array(want)).max() <= 1e-12
    assert want != off                          # the synonyms did match something


def test_alignment_shows_exact_and_stem_matches():
    e = explain_segment("meteor", "the cats sat on the mat", ["a cat sat on the mats"])
    a = e.alignment
    assert a is not None
    matched = {(op.hyp_pos, op.ref_pos) for op in a.operations if op.kind.value == "="}
    assert {(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)} <= matched
    assert (1, 1) in a.notes["stem_matches"] and (5, 5) in a.notes["stem_matches"]
    assert e.score.value == pytest.approx(a.notes["score"])


# --------------------------------------------------------------------------- property-based

_words = st.lists(st.sampled_from(WORDS), max_size=12)


def _meteor_equals_nltk(hyp, refs, alpha, beta, gamma):
    opts = EvalOptions(meteor_alpha=alpha, meteor_beta=beta, meteor_gamma=gamma)
    _m, stats = _scores([hyp], [refs], opts)
    want = meteor_score(refs, hyp, wordnet=NoSynonyms(), alpha=alpha, beta=beta, gamma=gamma)
    assert abs(stats[0, 0] - want) <= 1e-12


@settings(max_examples=250, deadline=None)
@given(_words, st.lists(_words, min_size=1, max_size=3),
       st.floats(0, 1), st.floats(0, 5), st.floats(0, 1))
def test_equals_nltk_on_any_sentences(hyp, refs, alpha, beta, gamma):
    _meteor_equals_nltk(hyp, refs, alpha, beta, gamma)


@pytest.mark.fuzz
@settings(max_examples=5000, deadline=None)
@given(_words, st.lists(_words, min_size=1, max_size=3),
       st.floats(0, 1), st.floats(0, 5), st.floats(0, 1))
def test_equals_nltk_on_any_sentences_deeply(hyp, refs, alpha, beta, gamma):
    _meteor_equals_nltk(hyp, refs, alpha, beta, gamma)
