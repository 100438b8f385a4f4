"""engine/run/scoring.py: the Scorer behind ``evaltrans score`` and ``evaltrans_qt.measure``,
compared with sacreBLEU's API (corpus and sentence level, variable numbers of references,
repeated lines) and jiwer."""

from __future__ import annotations

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.engine.run.scoring import Scorer
from evaltrans_qt.errors import InputFormatError, OptionError

SACRE = PRESETS["sacrebleu"]
HYPS = ["Mit freundlichen Grüßen", "the cat sat on the mat", "Mit freundlichen Grüßen",
        "hello there , world", "", "a b"]
#: repeated lines with *different* references (positional identity matters), an empty
#: reference line, and a second stream with missing (None) references: nrefs var
REF1 = ["Mit freundlichen Grüßen", "the cat is on the mat", "Viele Grüße",
        "hello world", "nothing", ""]
REF2 = ["Beste Grüße", None, "Mit freundlichen Grüßen", "hello , world", None, "a b c"]


def _sacre(metric, hyps, refs):
    return metric.corpus_score(hyps, refs)


@pytest.mark.parametrize("name,metric", [
    ("bleu", BLEU()), ("chrf", CHRF()), ("ter", TER()),
    ("bleu", BLEU(smooth_method="none")), ("chrf", CHRF(word_order=2)),
    ("ter", TER(case_sensitive=True, normalized=True))])
def test_corpus_scores_and_signatures_with_variable_references(name, metric):
    opts = SACRE
    if getattr(metric, "smooth_method", "exp") == "none":
        opts = SACRE.replace(bleu_smooth_method="none")
    if getattr(metric, "word_order", 0) == 2:
        opts = SACRE.replace(chrf_word_order=2)
    if getattr(metric, "normalized", False):
        opts = SACRE.replace(ter_case="use", ter_normalized=True)
    ours = Scorer([REF1, REF2], [name], opts).corpus_score(HYPS)[name]
    theirs = _sacre(metric, HYPS, [REF1, REF2])
    assert ours.score == pytest.approx(theirs.score, rel=1e-12, abs=1e-12)
    assert ours.signature == metric.get_signature().format()
    assert "nrefs:var" in ours.signature
    assert ours.name == theirs.name


def test_by_segment_equals_streams():
    rows = [[a] + ([b] if b is not None else []) for a, b in zip(REF1, REF2)]
    a = Scorer([REF1, REF2], ["bleu", "ter", "wer"]).corpus_score(HYPS)
    b = Scorer(rows, ["bleu", "ter", "wer"], by_segment=True).corpus_score(HYPS)
    assert {k: v.score for k, v in a.items()} == {k: v.score for k, v in b.items()}


@pytest.mark.parametrize("name,metric", [
    ("bleu", BLEU(effective_order=True)), ("chrf", CHRF()), ("ter", TER())])
def test_sentence_scores(name, metric):
    opts = SACRE.replace(bleu_effective_order=True)
    ours = Scorer([REF1], [name], opts).sentence_scores(HYPS)[name]
    for h, r, s in zip(HYPS, REF1, ours):
        assert s.score == pytest.approx(metric.sentence_score(h, [r]).score, abs=1e-9)
        if name == "bleu":
            assert s.verbose == metric.sentence_score(h, [r])._verbose


def test_positional_not_merged_by_text():
    """Identical hypotheses on two lines are scored against their own references."""
    s = Scorer([REF1[:3]], ["bleu"], SACRE.replace(bleu_effective_order=True)
               ).sentence_scores(HYPS[:3])["bleu"]
    assert s[0].score == pytest.approx(100.0) and s[2].score == 0.0


def test_scorer_reuses_references_for_many_systems():
    sc = Scorer([REF1, REF2], ["bleu", "chrf"])
    for hyps in (HYPS, list(reversed(HYPS))):
        got = sc.corpus_score(hyps)
        assert got["bleu"].score == pytest.approx(BLEU().corpus_score(hyps, [REF1, REF2]).score)
        assert got["chrf"].score == pytest.approx(CHRF().corpus_score(hyps, [REF1, REF2]).score)


def test_wer_with_one_reference_equals_jiwer():
    jiwer = pytest.importorskip("jiwer")
    refs = ["the cat sat on the mat", "a b c d", "x y"]
    hyps = ["the cat is on mat", "a c d e f", "x y"]
    got = Scorer([refs], ["wer"], EvalOptions(tokenization="none")).corpus_score(hyps)["wer"]
    assert got.value == pytest.approx(jiwer.wer(refs, hyps), abs=1e-12)
    assert got.score == pytest.approx(100 * got.value)
    assert got.signature.endswith("|evaltrans:0.1.0")


def test_bad_input():
    with pytest.raises(InputFormatError, match="2 hypotheses but 6"):
        Scorer([REF1]).corpus_score(HYPS[:2])
    with pytest.raises(InputFormatError, match="stream 2 has 2 lines"):
        Scorer([REF1, REF1[:2]])
    with pytest.raises(OptionError, match="one string"):
        Scorer("a reference")
    with pytest.raises(OptionError, match="hypothesis 1 is not a string"):
        Scorer([REF1]).corpus_score([None] + HYPS[1:])
    with pytest.raises(OptionError, match="unknown measure"):
        Scorer([REF1], ["nosuch"])
