"""Empty and degenerate inputs: WER-family error rates with an empty
reference are the distance (jiwer: the insertion count), chrF and TER give sacreBLEU's values
for empty candidates and references, and no measure of the registry returns inf or NaN."""

from __future__ import annotations

import itertools

import jiwer
import numpy as np
import pytest
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.metrics import TER as SacreTER

from evaltrans_qt.engine.measures import get, load_all
from evaltrans_qt.engine.measures.base import Segment, error_rate_details, error_rates
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary

PAIRS = [("", ""), ("a b", ""), ("", "a b"), ("a", "a"), ("a b c", " ")]   # (hyp, ref)


def seg(v: Vocabulary, hyp: str, *refs: str) -> Segment:
    return Segment(v.encode(hyp.split()), tuple(v.encode(r.split()) for r in refs), hyp, refs)


def make(name: str, v: Vocabulary, opts: EvalOptions | None = None):
    m = get(name)(opts or EvalOptions())
    m.fit([], v)
    return m


def test_error_rate_helpers_never_inf():
    assert error_rate_details(2.0, 0.0)["error-rate"] == 2.0
    assert error_rate_details(0.0, 0.0)["error-rate"] == 0.0
    assert error_rate_details(3.0, 4.0)["error-rate-percent"] == 75.0
    assert error_rates(np.array([2.0, 0.0, 3.0]), np.array([0.0, 0.0, 4.0])).tolist() == [2.0, 0.0,
                                                                                          0.75]


@pytest.mark.parametrize("rows", [
    [("a b", "")],
    [("a b", ""), ("", "")],
    [("a b", ""), ("x y z", "x y"), ("", "q")],
    [("", ""), ("", "")],
])
def test_wer_with_empty_references_equals_jiwer(rows):
    """jiwer 4: the corpus WER over no reference words is the number of insertions; otherwise
    Σ edits / Σ reference words as usual."""
    v = Vocabulary()
    m = make("wer", v)
    total = m.corpus_stats([seg(v, h, r) for h, r in rows]).sum(axis=0)
    want = jiwer.wer([r for _, r in rows], [h for h, _ in rows])
    assert m.score(total).value == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert m.score_values(total[None])[0] == m.score(total).value


@pytest.mark.parametrize("name", ["wer", "per", "msder", "cder", "sbper", "nper", "invwer",
                                  "ljwer"])
def test_distance_measures_with_empty_reference_give_the_distance(name):
    v = Vocabulary()
    m = make(name, v, EvalOptions(allow_transpositions=True, allow_long_jumps=True))
    st = m.sentence_stats(seg(v, "a b", ""))
    assert st[1] == 0 and st[0] > 0
    assert m.score(st).value == st[0] and np.isfinite(m.score(st).value)
    assert m.score(m.sentence_stats(seg(v, "", ""))).value == 0.0
    assert m.score(m.sentence_stats(seg(v, "", "a b"))).value == 1.0


CHRF_OPTIONS = [dict(c=c, w=w, eps=e, ws=s) for c, w, e, s in
                itertools.product((1, 6), (0, 2), (False, True), (False, True))]


@pytest.mark.parametrize("cfg", CHRF_OPTIONS, ids=str)
def test_chrf_empty_sides_equal_sacrebleu(cfg):
    sacre = SacreCHRF(char_order=cfg["c"], word_order=cfg["w"], eps_smoothing=cfg["eps"],
                      whitespace=cfg["ws"])
    m = get("chrf")(EvalOptions(chrf_char_order=cfg["c"], chrf_word_order=cfg["w"],
                                chrf_eps_smoothing=cfg["eps"], chrf_whitespace=cfg["ws"]))
    v = Vocabulary()
    st = m.corpus_stats([seg(v, h, r) for h, r in PAIRS])
    for row, (h, r) in zip(st, PAIRS):
        assert 100 * m.score(row).value == pytest.approx(sacre.sentence_score(h, [r]).score,
                                                         abs=1e-9)
    want = sacre.corpus_score([h for h, _ in PAIRS], [[r for _, r in PAIRS]]).score
    assert 100 * m.score(st.sum(axis=0)).value == pytest.approx(want, abs=1e-9)
    assert np.isfinite(m.score_values(st)).all()


@pytest.mark.parametrize("tercom,cased", [(False, True), (True, False), (True, True)])
def test_ter_empty_sides_equal_sacrebleu(tercom, cased):
    sacre = SacreTER(case_sensitive=cased)
    v = Vocabulary()
    m = make("ter", v, EvalOptions(ter_tokenization="tercom" if tercom else "run",
                                   ter_case="use" if cased else "ignore"))
    st = m.corpus_stats([seg(v, h, r) for h, r in PAIRS])
    for row, (h, r) in zip(st, PAIRS):
        assert 100 * m.score(row).value == pytest.approx(sacre.sentence_score(h, [r]).score,
                                                         abs=1e-9)
    for rows in (PAIRS, PAIRS[:2], [("a b", ""), ("", " ")]):
        want = sacre.corpus_score([h for h, _ in rows], [[r for _, r in rows]]).score
        total = m.corpus_stats([seg(v, h, r) for h, r in rows]).sum(axis=0)
        assert 100 * m.score(total).value == pytest.approx(want, abs=1e-9)
        assert 100 * m.score_values(total[None])[0] == pytest.approx(want, abs=1e-9)


OPTION_SETS = [
    EvalOptions(allow_transpositions=True, allow_long_jumps=True, substitution_cost_rule="prefix"),
    EvalOptions(bleu_pad_rule="both", nist_pad_rule="both", nper_pad_rule="both",
                wer_ref_length_rule="lowestError", cder_ref_length_rule="minimum",
                cder_coverage_rule="miscoverage", chrf_word_order=2, chrf_eps_smoothing=True,
                ter_tokenization="tercom"),
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=["all-measures", "other-rules"])
def test_no_measure_returns_inf_or_nan_on_degenerate_segments(opts):
    v = Vocabulary()
    segs = [seg(v, "", ""), seg(v, "a b", ""), seg(v, "", "a b"), seg(v, "a", "", " "),
            seg(v, "a b", "", "a b c"), seg(v, "\t", "\u00a0")]
    opt_in = {"mer", "wil", "wip", "cer",           # off by default, on request
              "meteor", "ribes", "errorclasses"}     # (GLEU needs sources: test_gleu.py)
    names = [n for n, cls in load_all().items() if cls.enabled(opts) or n in opt_in]
    assert {"wer", "chrf", "ter", "mer", "cer", "bleu", "nist"} <= set(names)
    for name in names:
        m = get(name)(opts)
        m.fit([Segment(s.hyp[:0], s.refs, "", s.ref_texts) for s in segs], v)
        st = m.corpus_stats(segs)
        rows = np.vstack([st, st.sum(axis=0), st[1:3].sum(axis=0)])
        for row in rows:
            sc = m.score(row)
            assert np.isfinite([sc.value, *sc.columns.values()]).all(), (name, row, sc)
        assert np.isfinite(m.score_values(rows)).all(), name
