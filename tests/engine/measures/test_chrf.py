"""chrF = sacreBLEU's CHRF: corpus values, per-segment statistics, edge cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF as SacreCHRF

from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.chrf import CHRF, f_scores
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import ScoreError
from tests.engine.ngram_wmt import load

_EMPTY = np.zeros(0, np.int32)


def segs(hyps: list[str], refs: list[list[str]]) -> list[Segment]:
    return [Segment(_EMPTY, tuple(_EMPTY for _ in rs), h, tuple(rs)) for h, rs in zip(hyps, refs)]


def sacre_stats(sacre: SacreCHRF, hyps: list[str], refs: list[list[str]]) -> np.ndarray:
    return np.array(sacre._extract_corpus_statistics(hyps, [list(r) for r in zip(*refs)]),
                    dtype=np.float64)


def test_corpus_chrf_equals_sacrebleu(wmt_dir):
    w = load(wmt_dir)
    m = CHRF()
    for system, vals in w.values["systems"].items():
        value = m.score(m.corpus_stats(w.segments(system)).sum(axis=0)).value
        assert 100 * value == pytest.approx(vals["chrf_allrefs"], rel=1e-12, abs=1e-12)


def test_segment_statistics_equal_sacrebleu(wmt_dir):
    """Row by row, the best-reference statistics are sacreBLEU's (first 150 segments, 2 systems)."""
    w = load(wmt_dir)
    sacre = SacreCHRF()
    m = CHRF()
    for system in list(w.values["systems"])[:2]:
        hyps = w.hyp_texts[system][:150]
        refs = [[r[i] for r in w.ref_texts] for i in range(150)]
        ours = m.corpus_stats(segs(hyps, refs))
        assert np.array_equal(ours, sacre_stats(sacre, hyps, refs))
        for row, h, rs in zip(ours[:20], hyps, refs):
            assert 100 * m.score(row).value == pytest.approx(sacre.sentence_score(h, rs).score,
                                                             abs=1e-12)


text = st.text(alphabet="ab cäA.", max_size=14)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(text, st.lists(text, min_size=1, max_size=3)), min_size=1,
                max_size=4), st.booleans())
def test_random_texts_equal_sacrebleu(rows, lower):
    sacre = SacreCHRF(lowercase=lower)
    m = CHRF(EvalOptions(case="ignore" if lower else "use"))
    for h, rs in rows:           # sacreBLEU needs the same number of references per call
        ours = m.corpus_stats(segs([h], [rs]))
        assert np.array_equal(ours, sacre_stats(sacre, [h], [rs]))
        assert 100 * m.score(ours[0]).value == pytest.approx(sacre.sentence_score(h, rs).score,
                                                             abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=18, max_size=18))
def test_vectorised_f_score_is_sacrebleus(xs):
    sacre = SacreCHRF()
    row = np.array(xs, dtype=np.float64)
    assert f_scores(row[None, :])[0] == sacre._compute_f_score(list(row))


def test_empty_hypothesis_and_reference():
    sacre = SacreCHRF()
    m = CHRF()
    for h, r in (("", "a b c"), ("a b c", ""), ("", ""), ("abc", "abc")):
        row = m.sentence_stats(segs([h], [[r]])[0])
        assert 100 * m.score(row).value == pytest.approx(sacre.sentence_score(h, [r]).score)
    assert m.score(m.sentence_stats(segs(["abc"], [["abc"]])[0])).value == pytest.approx(1.0)


def test_needs_raw_texts_and_is_registered():
    m = CHRF()
    with pytest.raises(ScoreError):
        m.corpus_stats([Segment(_EMPTY, (_EMPTY,), "a", ())])
    assert get("chrF") is CHRF and CHRF.higher_is_better
    assert len(m.stat_names) == 18 and m.corpus_stats([]).shape == (0, 18)
    d = m.score(np.arange(18, dtype=np.float64)).details
    assert [a["n"] for a, _ in d["n-gram"]] == [1, 2, 3, 4, 5, 6]


def test_char_ids_packed_equals_char_ids_per_text():
    """The chunk-wise extraction of code points (one encode for all candidates) gives each
    text exactly :func:`char_ids` (lower-casing first, whitespace of any kind removed)."""
    import random

    from evaltrans_qt.engine.measures.chrf import char_ids, char_ids_packed
    rng = random.Random(5)
    alphabet = list("aAbB .,;İıΣσς\u00a0\u2009\t\n\u3000ß€😀") + [""]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(300)]
    for lower in (False, True):
        for ws in (False, True):
            flat, off = char_ids_packed(texts, lower, ws)
            assert off[0] == 0 and off[-1] == len(flat) and flat.dtype == np.int32
            for i, t in enumerate(texts):
                assert flat[off[i]:off[i + 1]].tolist() == char_ids(t, lower, ws).tolist()
