"""The pairwise analysis against compare-mt 0.2.10 itself, run in-process on the same tokens:
every bucket table, n-gram list and example list (compare-mt's ``generate_*`` functions of
``compare_mt_main``; tolerance 1e-9 on arithmetic)."""

from __future__ import annotations

import random

import compare_mt.compare_mt_main as cmt
import numpy as np
import pytest
from compare_mt import reporters

from evaltrans_qt.engine.analysis.buckets import bucket_names
from evaltrans_qt.engine.analysis.corpus import corpus_from_lists
from evaltrans_qt.engine.analysis.pairwise import AnalysisSettings, Labels, analyze_systems
from evaltrans_qt.engine.analysis.scoring import comparemt_bleu_score, comparemt_bleu_stats

TOL = 1e-9
# a Zipf-like vocabulary: a few very frequent words, many rare ones
WORDS = [f"w{i}" for i in range(400)]
WEIGHTS = [1.0 / (i + 1) for i in range(400)]
TAGS = ["N", "V", "D", "P"]


def _sentence(rng: random.Random, n: int) -> list[str]:
    return rng.choices(WORDS, WEIGHTS, k=n)


def _noisy(rng: random.Random, ref: list[str], p: float) -> list[str]:
    out = []
    for w in ref:
        r = rng.random()
        if r < p / 3:
            continue                                    # drop
        out.append(rng.choice(WORDS) if r < p else w)   # substitute or keep
        if rng.random() < p / 4:
            out.append(rng.choice(WORDS[:20]))          # insert a frequent word
    if rng.random() < 0.2 and len(out) > 3:             # swap two words
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out or [rng.choice(WORDS)]


def build_corpus(n: int = 40, seed: int = 7) -> tuple[list[str], dict[str, list[str]]]:
    """n references (lengths 1..75, every length bucket used) and two systems with
    different noise; some outputs shorter than 4 words; two repeated sentence triples."""
    rng = random.Random(seed)
    refs, a, b = [], [], []
    for i in range(n):
        length = [1, 3, 5, 8, 12, 15, 18, 22, 25, 28, 33, 38, 44, 48, 52, 58, 63, 75][i % 18]
        r = _sentence(rng, length)
        refs.append(r)
        a.append(_noisy(rng, r, 0.25))
        b.append(_noisy(rng, r, 0.45) if i % 5 else r[:2])
    refs[n - 1], a[n - 1], b[n - 1] = refs[3], a[3], b[3]          # a repeated triple
    return ([" ".join(r) for r in refs],
            {"A": [" ".join(x) for x in a], "B": [" ".join(x) for x in b]})


@pytest.fixture(scope="module")
def data():
    refs, outs = build_corpus()
    corpus = corpus_from_lists(refs, outs)
    ref = corpus.ref
    sys_outs = [corpus.outs["A"], corpus.outs["B"]]
    rng = random.Random(3)
    ref_labels = [[rng.choice(TAGS) for _ in r] for r in ref]
    out_labels = {s: [[rng.choice(TAGS) for _ in o] for o in corpus.outs[s]] for s in ("A", "B")}
    result = analyze_systems(corpus, settings=AnalysisSettings(samples=50, seed=1),
                             labels=Labels(ref_labels, out_labels, tuple(TAGS[:3])))
    return {"corpus": corpus, "ref": ref, "outs": sys_outs, "result": result,
            "ref_labels": ref_labels, "out_labels": out_labels}


@pytest.fixture(autouse=True)
def _names(monkeypatch):
    monkeypatch.setattr(reporters, "sys_names", ["A", "B"], raising=False)


def _accuracy_equal(frame, statistics, names):
    for s, system in enumerate(("A", "B")):
        rows = frame[frame.system == system]
        assert list(rows.bucket) == list(names)
        for (_, row), theirs in zip(rows.iterrows(), statistics[s]):
            mcnt, rcnt, ocnt, rec, prec, fmeas = theirs
            assert (row.matches, row.ref_words, row.out_words) == (mcnt, rcnt, ocnt)
            assert abs(row.recall - rec) < TOL and abs(row.precision - prec) < TOL
            assert abs(row.fmeas - fmeas) < TOL


def test_the_corpus_uses_every_length_bucket_and_short_outputs(data):
    lengths = [len(r) for r in data["ref"]]
    assert min(lengths) < 10 and max(lengths) >= 60
    assert any(len(o) < 4 for o in data["outs"][1])     # BleuScorer's max(1, total)


def test_word_accuracy_by_frequency_in_the_references(data, capsys):
    rep = cmt.generate_word_accuracy_report(data["ref"], data["outs"])
    names = rep.bucketer.bucket_strs
    assert names == bucket_names((1, 2, 3, 4, 5, 10, 100, 1000))
    frame = data["result"].word_accuracy
    _accuracy_equal(frame, rep.statistics, names)
    assert frame.ref_words.sum() == 2 * sum(map(len, data["ref"]))
    # the buckets are not all empty: the comparison means something
    assert (frame.groupby("bucket").ref_words.sum() > 0).sum() >= 5


def test_word_accuracy_by_frequency_in_a_training_file(data, tmp_path, capsys):
    from evaltrans_qt.io.analysis_inputs import read_train_counts
    rng = random.Random(11)
    train = tmp_path / "train.txt"
    train.write_text("\n".join(" ".join(_sentence(rng, 30)) for _ in range(300)) + "\n",
                     encoding="utf-8")
    rep = cmt.generate_word_accuracy_report(data["ref"], data["outs"],
                                            freq_corpus_file=str(train))
    ours = analyze_systems(data["corpus"], train_counts=read_train_counts(train),
                           settings=AnalysisSettings(samples=10))
    _accuracy_equal(ours.word_accuracy, rep.statistics, rep.bucketer.bucket_strs)
    assert ours.settings.frequency_source == "training corpus"
    assert not ours.word_accuracy.equals(data["result"].word_accuracy)


def test_label_accuracy(data, tmp_path, capsys):
    files = []
    for s in ("A", "B"):
        f = tmp_path / f"{s}.tags"
        f.write_text("\n".join(" ".join(x) for x in data["out_labels"][s]) + "\n",
                     encoding="utf-8")
        files.append(str(f))
    rep = cmt.generate_word_accuracy_report(data["ref"], data["outs"], bucket_type="label",
                                            label_set="N+V+D", ref_labels=data["ref_labels"],
                                            out_labels=";".join(files))
    frame = data["result"].label_accuracy
    assert rep.bucketer.bucket_strs == ["N", "V", "D", "other"]
    _accuracy_equal(frame, rep.statistics, rep.bucketer.bucket_strs)


def test_sentence_length_buckets_with_corpus_bleu(data, capsys):
    rep = cmt.generate_sentence_bucketed_report(data["ref"], data["outs"], bucket_type="length",
                                                statistic_type="score", score_measure="bleu")
    frame = data["result"].length_buckets
    assert rep.bucketer.bucket_strs == list(frame[frame.system == "A"].bucket)
    for s, system in enumerate(("A", "B")):
        ours = frame[frame.system == system].score.tolist()
        assert np.allclose(ours, rep.sys_stats[s], rtol=0, atol=TOL), (ours, rep.sys_stats[s])
    assert (frame.sentences > 0).all()


def test_length_difference_and_score_buckets(data, capsys):
    res = data["result"]
    rep = cmt.generate_sentence_bucketed_report(data["ref"], data["outs"],
                                                bucket_type="lengthdiff")
    rep2 = cmt.generate_sentence_bucketed_report(data["ref"], data["outs"], bucket_type="score",
                                                 score_measure="sentbleu")
    for frame, theirs in ((res.lengthdiff_buckets, rep), (res.score_buckets, rep2)):
        assert list(frame[frame.system == "A"].bucket) == theirs.bucketer.bucket_strs
        for s, system in enumerate(("A", "B")):
            assert frame[frame.system == system].sentences.tolist() == theirs.sys_stats[s]
    assert res.score_buckets.groupby("system").sentences.sum().tolist() == [40, 40]
    assert (res.score_buckets.sentences > 0).sum() >= 6


def test_aggregate_scores(data, capsys):
    res = data["result"]
    bleu = cmt.generate_score_report(data["ref"], data["outs"], score_type="bleu")
    length = cmt.generate_score_report(data["ref"], data["outs"], score_type="length")
    assert np.allclose(res.scores.score, bleu.scores, rtol=0, atol=TOL)
    assert np.allclose(res.scores.length_ratio, length.scores, rtol=0, atol=TOL)
    # the bootstrap interval holds the score; the p-value is a probability
    assert ((res.scores["low"] <= res.scores.score) & (res.scores.score <= res.scores["high"])).all()
    assert 0 < res.scores.p_value[1] <= 1 and res.significance.loc["A", "B"] == res.scores.p_value[1]


def test_comparemt_bleu_quirks():
    """BleuScorer's sentence totals are max(1, total) and an order without matches adds log 1
    (compare-mt's formula, kept so the numbers agree)."""
    from compare_mt.scorers import BleuScorer
    ref = [["a", "b", "c", "d", "e"], ["x", "y"]]
    out = [["a", "b", "x", "d", "e"], ["x"]]
    theirs = BleuScorer().score_corpus(ref, out)[0]
    st = comparemt_bleu_stats(ref, out)
    assert st[1, 2 + 4:].tolist() == [1, 1, 1, 1]               # "x": no 2..4-grams, total 1
    assert abs(comparemt_bleu_score(st.sum(axis=0))[0] - theirs) < TOL
    assert comparemt_bleu_score(comparemt_bleu_stats([["a"]], [["b"]]).sum(axis=0))[0] == 0


def test_characteristic_ngrams(data, capsys):
    rep = cmt.generate_ngram_report(data["ref"], data["outs"], compare_directions="0-1")
    theirs = rep.scorelist[0]                        # all n-grams, ratio high to low
    frame = data["result"].ngrams
    a = frame[frame.better == "A"]
    b = frame[frame.better == "B"]
    assert len(a) == len(b) == 50
    # the same ratios in the same order as compare-mt's top and bottom 50
    assert np.allclose(a.ratio, [v for _, v in theirs[:50]], rtol=0, atol=TOL)
    assert np.allclose(b.ratio, [v for _, v in reversed(theirs[-50:])], rtol=0, atol=TOL)
    # the same n-grams once equal ratios are ordered by text as ours are
    full = sorted(theirs, key=lambda kv: (-kv[1], kv[0]))
    assert [tuple(g.split(" ")) for g in a.ngram] == [k for k, _ in full[:50]]
    low = sorted(theirs, key=lambda kv: (kv[1], kv[0]))
    assert [tuple(g.split(" ")) for g in b.ngram] == [k for k, _ in low[:50]]
    for _, row in a.head(5).iterrows():
        g = tuple(row.ngram.split(" "))
        assert (row.count_a, row.count_b) == (rep.matches[0][g], rep.matches[1][g])
    assert a.ratio.iloc[0] > 0.5 > b.ratio.iloc[0]


def test_sentence_examples(data, capsys):
    rep = cmt.generate_sentence_examples(data["ref"], data["outs"], compare_directions="0-1")
    theirs = rep.scorediff_lists[0]
    frame = data["result"].examples
    a = frame[frame.better == "A"]
    b = frame[frame.better == "B"]
    assert a["index"].tolist() == [row[5] for row in theirs[:10]]
    assert b["index"].tolist() == [row[5] for row in reversed(theirs[-10:])]
    for rows, part in ((a, theirs[:10]), (b, list(reversed(theirs[-10:])))):
        assert np.allclose(rows.score_a, [r[1] for r in part], rtol=0, atol=TOL)
        assert np.allclose(rows.score_b, [r[2] for r in part], rtol=0, atol=TOL)
    assert len(theirs) == 39                       # the repeated triple counted once
    # largest difference first in both directions (compare-mt takes the last ten even where
    # B is not better)
    assert a["diff"].is_monotonic_decreasing and a["diff"].iloc[0] > 0
    assert b["diff"].is_monotonic_increasing and b["diff"].iloc[0] < 0


def test_example_edits_mark_every_word(data):
    frame = data["result"].examples
    for _, row in frame.iterrows():
        assert len(row.edits_a) == len(row.output_a) and len(row.ref_edits_a) == len(row.reference)
        assert set(row.edits_a) <= {"=", "S", "I"} and set(row.ref_edits_b) <= {"=", "S", "D"}
        # matches pair equal words: as many on each side
        assert row.edits_a.count("=") == row.ref_edits_a.count("=")
        assert row.edits_a.count("S") == row.ref_edits_a.count("S")
        for w, m in zip(row.output_a, row.edits_a):
            if m == "=":
                assert w in row.reference


def test_case_ignored_equals_comparemts_case_insensitive(capsys):
    """``case="ignore"`` (our tokens lower-cased) gives compare-mt's ``case_insensitive=True``
    numbers on the original tokens."""
    rng = random.Random(9)
    refs, outs = build_corpus(n=30, seed=4)

    def shout(line: str) -> str:
        return " ".join(w.upper() if rng.random() < 0.3 else w for w in line.split())

    refs = [shout(r) for r in refs]
    outs = {s: [shout(o) for o in lines] for s, lines in outs.items()}
    ours = analyze_systems(corpus_from_lists(refs, outs, case="ignore"),
                           settings=AnalysisSettings(samples=10, error_classes=False))
    ref = [r.split() for r in refs]
    sys_outs = [[o.split() for o in outs[s]] for s in ("A", "B")]
    words = cmt.generate_word_accuracy_report(ref, sys_outs, case_insensitive=True)
    _accuracy_equal(ours.word_accuracy, words.statistics, words.bucketer.bucket_strs)
    bleu = cmt.generate_score_report(ref, sys_outs, score_type="bleu", case_insensitive=True)
    assert np.allclose(ours.scores.score, bleu.scores, rtol=0, atol=TOL)
    ex = cmt.generate_sentence_examples(ref, sys_outs, case_insensitive=True)
    a = ours.examples[ours.examples.better == "A"]
    assert np.allclose(a.score_a, [row[1] for row in ex.scorediff_lists[0][:10]], rtol=0,
                       atol=TOL)
