"""chrF with every option = sacreBLEU's ``CHRF(char_order, word_order, beta, lowercase,
whitespace, eps_smoothing)``, live: statistics row by row, corpus and sentence scores, on an
edge corpus (empty sides, 1-3 words, CJK, emoji, combining accents, no-break spaces, tabs,
references of different lengths, variable numbers of references) and on WMT21 en-de."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF as SacreCHRF

from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.chrf import CHRF, f_scores
from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.errors import OptionError
from tests.engine.ngram_wmt import load

_EMPTY = np.zeros(0, np.int32)

# (hypothesis, references); None = no reference in that stream (sacreBLEU's convention)
EDGE = [
    ("", ["a b c", None, None]),
    ("a b c", ["", "a b", None]),
    ("", ["", None, None]),
    ("a", ["a", "b", "a b"]),
    ("the cat", ["The cat.", "the  cat", "a cat sat"]),
    ("Hello, world!", ["hello world", "(Hello) world!", None]),
    ("我爱北京天安门", ["我爱北京", "北京天安门。", "我 爱 北京"]),
    ("👍🏽 ok 🎉", ["👍 ok", "ok 🎉🎉", None]),
    ("cafe\u0301 au lait", ["café au lait", "CAFE\u0301 AU LAIT", None]),
    ("a\u00a0b c", ["a b c", "a\u00a0b\u00a0c", None]),
    ("x\ty\t\tz", ["x y z", "x\ty z", "xyz"]),
    ("  leading and trailing  ", ["leading and trailing", None, None]),
    ("ÄÖÜ Straße İstanbul", ["äöü strasse istanbul", "ÄÖÜ STRASSE", None]),
    ("short", ["a much longer reference sentence than the hypothesis", "short.", "shor t"]),
    ("one two three four five six seven", ["one two", None, None]),
    ("(hi) 'quoted' end.", ["(hi) \"quoted\" end .", "hi quoted end", None]),
]

MATRIX = [dict(c=c, w=w, beta=b, eps=e, ws=s, lc=l)
          for c, w, b, e, s, l in itertools.product(range(1, 7), range(3), (1, 2, 3),
                                                    (False, True), (False, True), (False, True))]


def measure(c=6, w=0, beta=2, eps=False, ws=False, lc=False, run_case="use") -> CHRF:
    return CHRF(EvalOptions(case=run_case, chrf_char_order=c, chrf_word_order=w, chrf_beta=beta,
                            chrf_eps_smoothing=eps, chrf_whitespace=ws,
                            chrf_case="ignore" if lc else "use"))


def sacre(c=6, w=0, beta=2, eps=False, ws=False, lc=False) -> SacreCHRF:
    return SacreCHRF(char_order=c, word_order=w, beta=beta, lowercase=lc, whitespace=ws,
                     eps_smoothing=eps)


def segments(rows) -> list[Segment]:
    out = []
    for h, refs in rows:
        rs = tuple(r for r in refs if r is not None)
        out.append(Segment(_EMPTY, tuple(_EMPTY for _ in rs), h, rs))
    return out


def streams(rows) -> list[list[str | None]]:
    return [list(s) for s in zip(*(refs for _, refs in rows))]


@pytest.mark.parametrize("cfg", MATRIX, ids=lambda c: "c{c}w{w}b{beta}e{eps:d}s{ws:d}l{lc:d}".format(**c))
def test_option_matrix_on_edge_corpus(cfg):
    m, s = measure(**cfg), sacre(**cfg)
    hyps = [h for h, _ in EDGE]
    ours = m.corpus_stats(segments(EDGE))
    want = np.array(s._extract_corpus_statistics(hyps, streams(EDGE)), dtype=np.float64)
    assert np.array_equal(ours, want)
    corpus = s.corpus_score(hyps, streams(EDGE)).score
    assert 100 * m.score(ours.sum(axis=0)).value == pytest.approx(corpus, abs=1e-9)
    assert 100 * m.score_values(ours.sum(axis=0)[None])[0] == pytest.approx(corpus, abs=1e-9)
    sentence = [s.sentence_score(h, [r for r in refs if r is not None]).score for h, refs in EDGE]
    np.testing.assert_allclose(100 * m.score_values(ours), sentence, rtol=0, atol=1e-9)
    assert len(m.stat_names) == ours.shape[1] == 3 * (cfg["c"] + cfg["w"])


@pytest.mark.parametrize("cfg", [dict(w=2), dict(w=2, beta=1, eps=True),
                                 dict(c=4, w=1, ws=True, lc=True), dict(c=3, beta=3, eps=True)],
                         ids=str)
def test_wmt_slices_equal_sacrebleu(wmt_dir, cfg):
    """WMT21 en-de, refs A, C, D, 300 segments of one system per option set (sacreBLEU's
    pure-Python chrF takes ~5 s per full system): statistics row by row and corpus score."""
    w = load(wmt_dir)
    m, s = measure(**cfg), sacre(**cfg)
    n = 300
    system = sorted(w.values["systems"])[len(cfg)]
    hyps = w.hyp_texts[system][:n]
    refs = [list(r[:n]) for r in w.ref_texts]
    st = m.corpus_stats(w.segments(system)[:n])
    assert np.array_equal(st, np.array(s._extract_corpus_statistics(hyps, refs), dtype=np.float64))
    want = s.corpus_score(hyps, refs).score
    assert 100 * m.score(st.sum(axis=0)).value == pytest.approx(want, abs=1e-9)


def test_wmt_default_equals_reference_values(wmt_dir):
    """Default options, every segment of three systems: sacreBLEU's chrF (reference_values.json)."""
    w = load(wmt_dir)
    m = measure()
    for system in sorted(w.values["systems"])[:3]:
        st = m.corpus_stats(w.segments(system))
        assert 100 * m.score(st.sum(axis=0)).value == pytest.approx(
            w.values["systems"][system]["chrf_allrefs"], abs=1e-9)


def test_run_case_and_preset():
    """chrf_case run follows --case; the sacrebleu preset is sacreBLEU's default chrF."""
    rows = EDGE[4:6] + EDGE[12:13]
    hyps = [h for h, _ in rows]
    for run_case, lc in (("use", False), ("ignore", True)):
        m = CHRF(EvalOptions(case=run_case))
        got = 100 * m.score(m.corpus_stats(segments(rows)).sum(axis=0)).value
        assert got == pytest.approx(sacre(lc=lc).corpus_score(hyps, streams(rows)).score,
                                    abs=1e-9)
    m = CHRF(PRESETS["sacrebleu"])
    got = 100 * m.score(m.corpus_stats(segments(rows)).sum(axis=0)).value
    assert got == pytest.approx(SacreCHRF().corpus_score(hyps, streams(rows)).score, abs=1e-9)
    assert measure(lc=True, run_case="use").lowercase and not measure(run_case="ignore").lowercase


def test_segment_without_references_does_not_count():
    m = measure(w=2)
    seg = Segment(_EMPTY, (), "a b c", ())
    assert not m.sentence_stats(seg).any()
    assert m.score(m.sentence_stats(seg)).value == 0.0
    both = m.corpus_stats(segments([("a b", ["a b"])]) + [seg]).sum(axis=0)
    assert m.score(both).value == pytest.approx(1.0)


def test_word_ngram_report_elements():
    m = measure(c=2, w=2)
    d = m.score(m.sentence_stats(segments([("a b, c", ["a b c"])])[0])).details
    assert [a["n"] for a, _ in d["n-gram"]] == [1, 2]
    assert [a["n"] for a, _ in d["word-n-gram"]] == [1, 2]
    # words "a", "b", ",", "c" vs "a", "b", "c": 3 of 4 unigrams match
    assert d["word-n-gram"][0][1]["match"] == 3 and d["word-n-gram"][0][1]["hypothesis"] == 4


def test_orders_must_not_both_be_zero():
    with pytest.raises(OptionError, match="chrf"):
        measure(c=0, w=0)
    m = measure(c=0, w=2)        # word n-grams only: still sacreBLEU's value
    rows = EDGE[4:6]
    got = 100 * m.score(m.corpus_stats(segments(rows)).sum(axis=0)).value
    want = sacre(c=0, w=2).corpus_score([h for h, _ in rows], streams(rows)).score
    assert got == pytest.approx(want, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2), st.integers(0, 3), st.booleans(),
       st.lists(st.integers(0, 5), min_size=15, max_size=15))
def test_vectorised_f_scores_are_sacrebleus_floats(c, w, beta, eps, xs):
    """f_scores (and score_values) give sacreBLEU's _compute_f_score floats exactly."""
    k = 3 * (c + w)
    row = np.array(xs[:k] + [0] * max(0, k - len(xs)), dtype=np.float64)
    want = sacre(c=c, w=w, beta=beta, eps=eps)._compute_f_score([int(x) for x in row])
    assert f_scores(row[None, :], beta, eps)[0] == want
    assert measure(c=c, w=w, beta=beta, eps=eps).score_values(row[None, :])[0] == want / 100.0
