"""GLEU equals compare-mt's GleuScorer (which uses the source) on the same tokens, sentence
and corpus level; in a run the source reaches it; without a source it is refused."""

from __future__ import annotations

import random

import numpy as np
import pytest
from compare_mt.scorers import GleuScorer
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.measures.alignment import explain_segment
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.gleu import GLEU, gleu_stats, gleu_value
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.errors import ScoreError

WORDS = "a b c d e f the cat sat on mat".split()


def _stats(hyps, refs, srcs):
    v = Vocabulary()
    segs = [Segment(v.encode(h), tuple(v.encode(r) for r in rs), " ".join(h),
                    tuple(" ".join(r) for r in rs), " ".join(s))
            for h, rs, s in zip(hyps, refs, srcs)]
    m = GLEU()
    m.fit([], v)
    return m, m.corpus_stats(segs)


def test_equals_compare_mt_on_generated_sentences():
    rng = random.Random(13)

    def sent(lo):
        return [rng.choice(WORDS) for _ in range(rng.randint(lo, 14))]

    refs, hyps, srcs = ([sent(1) for _ in range(1200)], [sent(0) for _ in range(1200)],
                        [sent(0) for _ in range(1200)])
    m, stats = _stats(hyps, [[r] for r in refs], srcs)
    scorer = GleuScorer()
    want = np.array([scorer.score_sentence(r, h, s)[0] / 100
                     for r, h, s in zip(refs, hyps, srcs)])
    got = np.array([m.score(row).value for row in stats])
    assert np.abs(got - want).max() <= 1e-12
    assert len(set(want.round(9))) > 200
    corpus = scorer.score_corpus(refs, hyps, srcs)[0] / 100
    assert corpus > 0
    assert m.score(stats.sum(axis=0)).value == pytest.approx(corpus, abs=1e-12)


def test_equals_compare_mt_on_wmt21_lines_with_the_source(wmt_dir):
    def lines(name, n=300):
        text = (wmt_dir / name).read_text(encoding="utf-8").splitlines()[:n]
        return [tokenize(x, "mteval") for x in text]

    refs, hyps = lines("newstest2021.en-de.ref.A.de"), lines("newstest2021.en-de.hyp.UEdin.de")
    srcs = lines("newstest2021.en-de.src.en")
    m, stats = _stats(hyps, [[r] for r in refs], srcs)
    scorer = GleuScorer()
    assert m.score(stats.sum(axis=0)).value == pytest.approx(
        scorer.score_corpus(refs, hyps, srcs)[0] / 100, abs=1e-12)


def test_the_source_penalises_copied_ngrams():
    hyp, ref = "a b c d".split(), "a b x d".split()
    clean = gleu_value(gleu_stats(hyp, ref, "y y y y".split()))
    copied = gleu_value(gleu_stats(hyp, ref, "a b c d".split()))
    assert copied < clean


def test_without_a_source_gleu_is_refused():
    v = Vocabulary()
    m = GLEU()
    m.fit([], v)
    with pytest.raises(ScoreError, match="source"):
        m.sentence_stats(Segment(v.encode(["a"]), (v.encode(["a"]),)))
    e = explain_segment("gleu", "a b c d", ["a b x d"])
    assert "source" in e.error
    e = explain_segment("gleu", "a b c d", ["a b x d"], source="a b c d")
    assert e.error == "" and e.score.value == pytest.approx(
        GleuScorer().score_sentence("a b x d".split(), "a b c d".split(),
                                    "a b c d".split())[0] / 100)


def test_a_run_passes_the_database_sources():
    """Copying each candidate into its source changes nothing but the source: the run's
    GLEU drops (the copied n-grams missing from the references are penalised)."""
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    from evaltrans_qt.io.etdb import demo_database_path, load_database
    db = load_database(demo_database_path())
    run = evaluate(db, EvalOptions(), ["gleu"], executor=SerialExecutor())
    system = next(iter(run.systems))
    copied = load_database(demo_database_path())
    n = 0
    for src in copied.sources:
        mine = [t for t in src.targets if t.system == system]
        if mine:
            src.text = mine[0].text
            n += 1
    assert n
    again = evaluate(copied, EvalOptions(), ["gleu"], executor=SerialExecutor())
    before = run.systems[system].scores["gleu"].value
    after = again.systems[system].scores["gleu"].value
    assert 0 < after < before < 1


_words = st.lists(st.sampled_from(WORDS), max_size=14)


@settings(max_examples=300, deadline=None)
@given(_words.filter(bool), _words, _words)
def test_equals_compare_mt_on_any_sentences(ref, hyp, src):
    want = GleuScorer().score_sentence(ref, hyp, src)[0] / 100
    assert abs(gleu_value(gleu_stats(hyp, ref, src)) - want) <= 1e-12
