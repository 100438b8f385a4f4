"""The errorclasses measure: its statistics are the error classification's counts, its
alignment carries one class per word, its options choose the base forms."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.analysis.error_classes import classify_system
from evaltrans_qt.engine.measures.alignment import explain_segment
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.errorclasses import ErrorClasses
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.error_classes import STAT_NAMES, rates
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.errors import OptionError

HYPS = ["the cats sees a red house .", "he go home yesterday", "", "a dog and a cat"]
REFS = [["the cat sees the red house .", "a cat sees the red houses ."],
        ["yesterday he went home"], ["the end"], ["a cat and a dog"]]


def _run(options: EvalOptions, hyps=HYPS, refs=REFS):
    v = Vocabulary()
    segs = [Segment(v.encode(h.split()), tuple(v.encode(r.split()) for r in rs))
            for h, rs in zip(hyps, refs)]
    m = ErrorClasses(options)
    m.fit([], v)
    return m, m.corpus_stats(segs)


@pytest.mark.parametrize("opts", [EvalOptions(), EvalOptions(error_classes_base="prefix4"),
                                  EvalOptions(stem_language="german")])
def test_statistics_are_the_classifications_counts(opts):
    m, stats = _run(opts)
    sents = classify_system([h.split() for h in HYPS], [[r.split() for r in rs] for rs in REFS],
                            base=opts.error_classes_base, language=opts.stem_language)
    assert np.array_equal(stats, np.stack([s.counts for s in sents]))
    total = m.score(stats.sum(axis=0))
    assert total.value == pytest.approx(rates(stats.sum(axis=0))["sum"])
    assert total.columns["MISer"] == pytest.approx(
        stats[:, STAT_NAMES.index("miss")].sum() / stats[:, STAT_NAMES.index("ref_len")].sum())
    assert m.score_values(stats) == pytest.approx([m.score(r).value for r in stats])


def test_base_form_options_change_the_classes():
    # "sees"/"see": the same Snowball stem, different four-letter prefixes ("sees"/"see")
    hyps, refs = ["they see it"], [["they sees it"]]
    _m, snow = _run(EvalOptions(), hyps, refs)
    _m, pre = _run(EvalOptions(error_classes_base="prefix4"), hyps, refs)
    infl = STAT_NAMES.index("hyp_infl")
    assert snow[0, infl] == 1 and pre[0, infl] == 0
    with pytest.raises(OptionError, match="stem-language"):
        EvalOptions(stem_language="klingon")


def test_alignment_colours_every_word():
    e = explain_segment("errorclasses", "a dog and a cat", ["a cat and a dog"])
    a = e.alignment
    assert a is not None
    assert a.notes["hyp_classes"] == ("x", "reord", "x", "x", "reord")
    assert len(a.notes["ref_classes"]) == len(a.ref)
    assert a.notes["class_names"]["reord"] == "reordering error"
    assert a.distance == 2.0 and '"hyp_classes"' in a.to_json()


def test_a_wmt21_system_equals_the_classification(wmt_dir):
    refs = [(wmt_dir / f"newstest2021.en-de.ref.{r}.de").read_text(encoding="utf-8")
            .splitlines()[:150] for r in "AC"]
    hyp = (wmt_dir / "newstest2021.en-de.hyp.Online-W.de").read_text(encoding="utf-8") \
        .splitlines()[:150]
    hyps = [" ".join(tokenize(h, "mteval")) for h in hyp]
    rs = [[" ".join(tokenize(r[i], "mteval")) for r in refs] for i in range(len(hyp))]
    _m, stats = _run(EvalOptions(stem_language="german"), hyps, rs)
    sents = classify_system([h.split() for h in hyps], [[r.split() for r in x] for x in rs],
                            language="german")
    assert np.array_equal(stats, np.stack([s.counts for s in sents]))
    assert stats[:, STAT_NAMES.index("hyp_infl")].sum() > 0
    assert {s.ref_index for s in sents} == {0, 1}
