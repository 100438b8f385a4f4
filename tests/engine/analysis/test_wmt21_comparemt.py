"""The analysis of two WMT21 en-de systems (the first 200 segments, three references)
against compare-mt 0.2.10 run on the same tokens (the first reference, or the one named)."""

from __future__ import annotations

import compare_mt.compare_mt_main as cmt
import numpy as np
import pytest
from compare_mt import reporters

import evaltrans_qt as et
from evaltrans_qt.engine.analysis.corpus import corpus_from_database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.io.plaintext import database_from_files

SYSTEMS = ("Facebook-AI", "Online-W")
LINES = 200
TOL = 1e-9


@pytest.fixture(scope="module")
def wmt_db(wmt_dir, tmp_path_factory):
    t = tmp_path_factory.mktemp("wmt21-analysis")

    def head(name: str) -> str:
        lines = (wmt_dir / name).read_text(encoding="utf-8").splitlines()[:LINES]
        (t / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return str(t / name)

    return database_from_files(
        head("newstest2021.en-de.src.en"),
        [head(f"newstest2021.en-de.ref.{r}.de") for r in "ACD"],
        {s: head(f"newstest2021.en-de.hyp.{s}.de") for s in SYSTEMS})


@pytest.fixture(autouse=True)
def _names(monkeypatch):
    monkeypatch.setattr(reporters, "sys_names", list(SYSTEMS), raising=False)


@pytest.mark.parametrize("reference", [None, "ref-2"])
def test_wmt21_against_comparemt(wmt_db, wmt_dir, reference, capsys):
    res = et.analyze(wmt_db, list(SYSTEMS), reference=reference, samples=50)
    corpus = corpus_from_database(wmt_db, SYSTEMS, EvalOptions(), reference=reference)
    want = "C" if reference else "A"
    lines = (wmt_dir / f"newstest2021.en-de.ref.{want}.de").read_text(
        encoding="utf-8").splitlines()[:LINES]
    assert corpus.ref_texts == lines and res.n_sentences == LINES
    ref, outs = corpus.ref, [corpus.outs[s] for s in SYSTEMS]

    words = cmt.generate_word_accuracy_report(ref, outs)
    frame = res.word_accuracy
    for i, s in enumerate(SYSTEMS):
        rows = frame[frame.system == s]
        assert rows.matches.tolist() == [t[0] for t in words.statistics[i]]
        assert np.allclose(rows.fmeas, [t[5] for t in words.statistics[i]], rtol=0, atol=TOL)

    length = cmt.generate_sentence_bucketed_report(ref, outs, bucket_type="length",
                                                   statistic_type="score", score_measure="bleu")
    for i, s in enumerate(SYSTEMS):
        ours = res.length_buckets[res.length_buckets.system == s].score
        assert np.allclose(ours, length.sys_stats[i], rtol=0, atol=TOL)

    scores = cmt.generate_score_report(ref, outs, score_type="bleu")
    assert np.allclose(res.scores.score, scores.scores, rtol=0, atol=TOL)

    ngrams = cmt.generate_ngram_report(ref, outs, compare_directions="0-1")
    top = res.ngrams[res.ngrams.better == SYSTEMS[0]]
    full = sorted(ngrams.scorelist[0], key=lambda kv: (-kv[1], kv[0]))[:50]
    assert [tuple(g.split(" ")) for g in top.ngram] == [k for k, _ in full]

    ex = cmt.generate_sentence_examples(ref, outs, compare_directions="0-1")
    mine = res.examples[res.examples.better == SYSTEMS[0]]
    assert mine["index"].tolist() == [row[5] for row in ex.scorediff_lists[0][:10]]
    assert np.allclose(mine.score_a, [row[1] for row in ex.scorediff_lists[0][:10]],
                       rtol=0, atol=TOL)
    # the error classes are there, one row per system, rates between 0 and 1
    assert res.error_classes is not None and list(res.error_classes.system) == list(SYSTEMS)
    assert ((res.error_classes.wer_rate > 0) & (res.error_classes.wer_rate < 1)).all()
