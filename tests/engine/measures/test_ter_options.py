"""TER with every option = sacreBLEU's ``TER(normalized, no_punct, asian_support,
case_sensitive)``, live: statistics row by row, corpus and sentence scores, on an edge corpus
and on a 100-segment slice of WMT21 en-de (sacreBLEU's TER takes ~45 s per full system);
``ter_case`` on the run's tokens; the alignment uses the same preprocessing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sacrebleu.metrics import TER as SacreTER

from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.ter import TER
from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.errors import ScoreError
from tests.engine.ngram_wmt import load

EDGE = [
    ("", ["a b c", None]),
    ("a b c", ["", "a b"]),
    ("", ["", None]),
    ("a", ["a", "b"]),
    ("The cat sat on the mat.", ["the cat sat on the mat .", "On the mat the cat sat."]),
    ("It's 5.5 km—not &quot;far&quot;, isn't it?", ["It is 5.5 km, not \"far\", is it?",
                                                     "It's five km&amp;not far."]),
    ("我爱北京天安门。", ["我爱北京，天安门。", "我 爱 北京"]),
    ("ひらがなカタカナ漢字", ["ひらがな カタカナ 漢字", None]),
    ("👍🏽 ok 🎉!", ["👍 ok", "ok 🎉 🎉"]),
    ("cafe\u0301 AU lait", ["café au lait", "CAFE\u0301 au LAIT"]),
    ("a\u00a0b c", ["a b c", "a\u00a0b\u00a0c"]),
    ("x\ty\t\tz", ["x y z", "x\ty z "]),
    ("bababb's\tx, (hi)!", ["bababb's x,", "(hi) bababb 's"]),
    ("short", ["a much longer reference sentence than the hypothesis", "short ."]),
    ("one two three four five six seven", ["seven six five four three two one", None]),
    ("Ａｂｃ．１２３，full-width！", ["Ａｂｃ 123, full width!", None]),
]

TERCOM = list(itertools.product((False, True), repeat=4))   # normalized, no_punct, asian, cased


def make(vocab: Vocabulary, **opts) -> TER:
    m = TER(EvalOptions(**opts))
    m.fit([], vocab)
    return m


def segments(vocab: Vocabulary, rows, method: str = "mteval", case: str = "use") -> list[Segment]:
    out = []
    for h, refs in rows:
        rs = tuple(r for r in refs if r is not None)
        out.append(Segment(vocab.encode(tokenize(h, method, case)),
                           tuple(vocab.encode(tokenize(r, method, case)) for r in rs), h, rs))
    return out


def streams(rows) -> list[list[str | None]]:
    return [list(s) for s in zip(*(refs for _, refs in rows))]


def check(m: TER, s: SacreTER, segs: list[Segment], hyps, refs, sentences: bool = True) -> None:
    ours = m.corpus_stats(segs)
    want = np.array(s._extract_corpus_statistics(hyps, refs), dtype=np.float64)
    np.testing.assert_allclose(ours, want, rtol=0, atol=1e-12)
    corpus = s.corpus_score(hyps, refs).score
    assert 100 * m.score(ours.sum(axis=0)).value == pytest.approx(corpus, abs=1e-9)
    assert 100 * m.score_values(ours.sum(axis=0)[None])[0] == pytest.approx(corpus, abs=1e-9)
    if sentences:
        for row, h, rs in zip(ours, hyps, zip(*refs)):
            want_s = s.sentence_score(h, [r for r in rs if r is not None]).score
            assert 100 * m.score(row).value == pytest.approx(want_s, abs=1e-9)


@pytest.mark.parametrize("norm,no_punct,asian,cased", TERCOM,
                         ids=lambda v: "1" if v else "0")
def test_tercom_matrix_on_edge_corpus(norm, no_punct, asian, cased):
    v = Vocabulary()
    m = make(v, ter_tokenization="tercom", ter_normalized=norm, ter_no_punct=no_punct,
             ter_asian_support=asian, ter_case="use" if cased else "ignore")
    s = SacreTER(normalized=norm, no_punct=no_punct, asian_support=asian, case_sensitive=cased)
    check(m, s, segments(v, EDGE), [h for h, _ in EDGE], streams(EDGE))


@pytest.mark.parametrize("norm,no_punct,asian", [(False, False, False), (True, False, False),
                                                 (True, True, True), (False, True, False)])
def test_implied_tercom_tokenisation(norm, no_punct, asian):
    """ter_normalized / ter_no_punct / ter_asian_support imply tercom; ter_case run = --case."""
    v = Vocabulary()
    m = make(v, case="ignore", ter_normalized=norm, ter_no_punct=no_punct,
             ter_asian_support=asian, ter_tokenization="tercom" if not (norm or no_punct or asian)
             else "run")
    s = SacreTER(normalized=norm, no_punct=no_punct, asian_support=asian, case_sensitive=False)
    check(m, s, segments(v, EDGE), [h for h, _ in EDGE], streams(EDGE))


def test_sacrebleu_preset_is_sacrebleus_default_ter():
    v = Vocabulary()
    m = TER(PRESETS["sacrebleu"])
    m.fit([], v)
    check(m, SacreTER(), segments(v, EDGE), [h for h, _ in EDGE], streams(EDGE))


@pytest.mark.parametrize("ter_case,cased", [("use", True), ("ignore", False), ("run", True)])
def test_run_tokens_with_ter_case(ter_case, cased):
    """ter_tokenization run: the run's 13a tokens; ter_case lower-cases them (or keeps case
    even when the run ignores it) = sacreBLEU TER(case_sensitive) on the tokenised text."""
    rows = [r for r in EDGE if "&" not in r[0]]      # 13a unescapes &quot;: keep it out
    tok = [(" ".join(tokenize(h, "mteval")), [None if r is None else " ".join(tokenize(r, "mteval"))
                                               for r in refs]) for h, refs in rows]
    s = SacreTER(case_sensitive=cased)
    for run_case in ("use", "ignore"):
        v = Vocabulary()
        m = make(v, case=run_case, ter_case=ter_case)
        if ter_case == "run" and run_case == "ignore":
            s = SacreTER(case_sensitive=False)
        check(m, s, segments(v, rows, case=run_case), [h for h, _ in tok], streams(tok))


@pytest.mark.parametrize("norm,no_punct,asian,cased", [(False, False, False, False),
                                                       (True, False, False, True),
                                                       (True, True, True, False),
                                                       (False, True, False, True)])
def test_wmt_slice_equals_sacrebleu(wmt_dir, norm, no_punct, asian, cased):
    """100 segments of WMT21 en-de with refs A, C, D, raw text, per option set."""
    w = load(wmt_dir)
    n = 100
    system = sorted(w.values["systems"])[norm + 2 * no_punct]
    v = Vocabulary()
    m = make(v, ter_tokenization="tercom", ter_normalized=norm, ter_no_punct=no_punct,
             ter_asian_support=asian, ter_case="use" if cased else "ignore")
    s = SacreTER(normalized=norm, no_punct=no_punct, asian_support=asian, case_sensitive=cased)
    check(m, s, w.segments(system)[:n], w.hyp_texts[system][:n],
          [list(r[:n]) for r in w.ref_texts], sentences=False)


def test_alignment_uses_ters_preprocessing():
    v = Vocabulary()
    m = make(v, ter_tokenization="tercom", ter_case="ignore", ter_normalized=True)
    seg = segments(v, [("On the Mat, the cat sat.", ["the cat sat on the mat .", "x"])])[0]
    a = m.align(seg)
    assert a.ref_index == 0
    assert a.hyp == ("on", "the", "mat", ",", "the", "cat", "sat", ".")
    assert a.ref == ("the", "cat", "sat", "on", "the", "mat", ".")
    assert a.distance == m.sentence_stats(seg)[0] == a.operation_cost()
    assert m.reference_distances(seg)[0] == a.distance


def test_own_tokenisation_needs_raw_texts():
    v = Vocabulary()
    seg = Segment(v.encode(["a"]), (v.encode(["a"]),))
    assert make(v).sentence_stats(seg).tolist() == [0.0, 1.0]     # run tokens: fine
    with pytest.raises(ScoreError, match="raw reference texts"):
        make(v, ter_tokenization="tercom").sentence_stats(seg)
    with pytest.raises(ScoreError, match="raw reference texts"):
        make(v, ter_case="ignore").sentence_stats(seg)


def test_segment_without_references_does_not_count():
    v = Vocabulary()
    m = make(v, ter_tokenization="tercom")
    lone = Segment(v.encode(["a", "b"]), (), "a b", ())
    assert m.sentence_stats(lone).tolist() == [0.0, 0.0]
    assert m.score(m.sentence_stats(lone)).value == 0.0
    pair = segments(v, [("a b", ["a c"])])
    assert m.corpus_stats(pair + [lone]).sum(axis=0).tolist() == [1.0, 2.0]
