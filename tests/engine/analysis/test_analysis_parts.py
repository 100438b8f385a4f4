"""The analysis' parts one by one: bucket names and indices, NLTK's sentence BLEU, n-gram
counts, edits, the corpus taken from a database (which reference, which sentences), label
and training files with their errors, registry measures, the JSON form."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from compare_mt import bucketers, ngram_utils
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

import evaltrans_qt as et
from evaltrans_qt.engine.analysis.buckets import bucket_index, bucket_names, score_edges
from evaltrans_qt.engine.analysis.corpus import corpus_from_database, corpus_from_lists
from evaltrans_qt.engine.analysis.examples import word_edits
from evaltrans_qt.engine.analysis.ngram_diff import compare_ngrams
from evaltrans_qt.engine.analysis.pairwise import AnalysisSettings, Labels, analyze_systems
from evaltrans_qt.engine.analysis.scoring import comparemt_bleu_stats, sentbleu_scores
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import EvalTransError, InputFormatError, OptionError

FAST = AnalysisSettings(samples=20, error_classes=False)


@pytest.mark.parametrize(("edges", "kind"), [((1, 2, 3, 4, 5, 10, 100, 1000), "int"),
                                             ((10, 20, 30, 40, 50, 60), "int"),
                                             ((-20, -10, -5, -1, 0, 1, 2, 6, 11), "int"),
                                             (score_edges(100.0), "float")])
def test_bucket_names_and_indices_are_comparemts(edges, kind):
    theirs = bucketers.Bucketer()
    theirs.set_bucket_cutoffs(list(edges), num_type=kind)
    assert bucket_names(edges, kind) == theirs.bucket_strs
    values = [-30, -1, 0, 0.5, 1, 2, 9.99, 10, 59, 60, 99.9, 100, 1000, 5000]
    assert bucket_index(values, edges).tolist() == [theirs.cutoff_into_bucket(v)
                                                    for v in values]


def test_sentence_bleu_equals_nltks_method_2():
    rng = random.Random(5)
    words = [f"w{i}" for i in range(12)]
    refs, outs = [], []
    for _ in range(300):
        refs.append(rng.choices(words, k=rng.randint(1, 25)))
        outs.append(rng.choices(words, k=rng.randint(0, 25)))
    refs += [["a", "b"], ["a"], ["a", "b", "c", "d"]]
    outs += [[], ["a"], ["a", "b", "c", "d", "e"]]
    ours = sentbleu_scores(comparemt_bleu_stats(refs, outs))
    smooth = SmoothingFunction().method2
    theirs = [100 * sentence_bleu([r], o, smoothing_function=smooth) for r, o in zip(refs, outs)]
    assert np.allclose(ours, theirs, rtol=0, atol=1e-9)
    # empty output: 0; one matching word: p_2..4 = (0 + 1) / (1 + 1) by method 2
    assert ours[-3] == 0 and abs(ours[-2] - 100 * 0.5 ** 0.75) < 1e-9


def test_ngram_counts_equal_comparemts():
    rng = random.Random(2)
    words = ["a", "b", "c", "d", "e"]
    ref = [rng.choices(words, k=rng.randint(0, 12)) for _ in range(60)]
    out = [rng.choices(words, k=rng.randint(0, 12)) for _ in range(60)]
    for lo, hi in ((1, 4), (2, 3)):
        ours = compare_ngrams(ref, out, lo, hi)
        theirs = ngram_utils.compare_ngrams(ref, out, min_length=lo, max_length=hi)
        for kind, counter in zip(("total", "match", "over", "under"), theirs):
            assert ours.as_dict(kind) == {k: v for k, v in counter.items() if v}, kind
    with pytest.raises(OptionError, match="n-gram lengths"):
        compare_ngrams(ref, out, 3, 2)


def test_edits():
    e = word_edits("a x c d d".split(), "a b c d".split())
    assert e.out == ("=", "S", "=", "=", "I") or e.out == ("=", "S", "=", "I", "=")
    assert e.ref == ("=", "S", "=", "=")
    assert word_edits([], ["a"]).ref == ("D",) and word_edits(["a"], []).out == ("I",)


# --------------------------------------------------------------------------- corpus
SOURCES = ["eins", "zwei", "drei", "vier"]
REFS = [["one .", "a one ."], ["two .", "a two ."], ["three .", None], ["four .", "a four ."]]
HYPS = {"A": ["one .", "two !", "three .", "four ."], "B": ["a one", "two .", "tree", "for ."]}


@pytest.fixture
def db():
    return et.Database.from_lists(SOURCES, REFS, HYPS)


def test_first_reference_by_default_and_a_named_one(db):
    ids = db.reference_ids()
    c = corpus_from_database(db, ["A", "B"], EvalOptions(tokenization="none"))
    assert c.ref_texts == ["one .", "two .", "three .", "four ."] and c.reference == "first"
    named = corpus_from_database(db, ["A", "B"], EvalOptions(tokenization="none"),
                                 reference=ids[1])
    # the source without that reference is left out
    assert named.ref_texts == ["a one .", "a two .", "a four ."]
    assert named.source_index == [0, 1, 3] and named.segments == ["1", "2", "4"]
    assert named.outs["B"] == [["a", "one"], ["two", "."], ["for", "."]]
    with pytest.raises(OptionError, match="unknown reference 'ref-9'"):
        corpus_from_database(db, ["A", "B"], reference="ref-9")
    with pytest.raises(OptionError, match="unknown system 'C'"):
        corpus_from_database(db, ["A", "C"])


def test_tokenisation_follows_the_options(db):
    c = corpus_from_database(db, ["A", "B"], EvalOptions(tokenization="mteval", case="ignore"))
    assert c.outs["A"][1] == ["two", "!"] and c.tokenization == "mteval"
    res = et.analyze(db, ["A", "B"], tokenization="none", samples=10)
    assert res.meta["tokenization"] == "none" and "tok:none" in res.signatures["measure"]


def test_label_files_and_their_errors(db, tmp_path):
    good = tmp_path / "ref.tags"
    good.write_text("N P\nN P\nN P\nN P\n", encoding="utf-8")
    res = et.analyze(db, ["A", "B"], labels=[good], tokenization="none", samples=10)
    frame = res.label_accuracy
    assert list(frame[frame.system == "A"].bucket) == ["N", "P", "other"]
    assert frame.precision.isna().all()               # no output labels: recall only
    assert frame[frame.system == "A"].recall.tolist()[:2] == [1.0, 0.75]
    short = tmp_path / "short.tags"
    short.write_text("N P\nN P\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as err:
        et.analyze(db, ["A", "B"], labels=[short], tokenization="none")
    assert str(err.value.path) == str(short) and err.value.line == 3 and "expected 4" in str(err.value)
    wrong = tmp_path / "wrong.tags"
    wrong.write_text("N P\nN P\nN\nN P\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as err:
        et.analyze(db, ["A", "B"], labels=[wrong], tokenization="none")
    assert err.value.line == 3 and "1 labels for the 2 words" in str(err.value)
    sys_tags = tmp_path / "a.tags"
    sys_tags.write_text("N P\nN P\nN P\nN P\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as err:        # B's output "a one" has 2 words
        et.analyze(db, ["A", "B"], labels=[good, sys_tags, short], tokenization="none")
    assert str(err.value.path) == str(short)
    with pytest.raises(OptionError, match="one file per system"):
        et.analyze(db, ["A", "B"], labels=[good, sys_tags], tokenization="none")


def test_unreadable_training_file(db, tmp_path):
    with pytest.raises(EvalTransError) as err:
        et.analyze(db, ["A", "B"], train=tmp_path / "missing.txt")
    assert "missing.txt" in str(err.value) and "not found" in str(err.value)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("a b\nd\xe9j\xe0\n".encode("latin-1"))
    with pytest.raises(InputFormatError) as err:
        et.analyze(db, ["A", "B"], train=bad)
    assert err.value.line == 2


def test_a_registry_measure_scores_against_the_one_reference():
    refs = ["the cat sat on the mat", "hello world", "we meet at noon"]
    outs = {"A": ["the cat is on the mat", "hello there world", "we meet at noon"],
            "B": ["a cat sat", "hello world", "we will meet"]}
    c = corpus_from_lists(refs, outs)
    res = analyze_systems(c, measure="chrf", settings=FAST)
    for s in ("A", "B"):
        direct = et.measure("chrf").corpus_score(outs[s], [refs])
        assert abs(res.scores[res.scores.system == s].score.iloc[0] - direct.score) < 1e-9
    assert res.measure == "chrf" and res.signatures["measure"].startswith("chrf|nrefs:1|")
    with pytest.raises(OptionError, match="unknown measure 'nope'"):
        analyze_systems(c, measure="nope", settings=FAST)


def test_json_form_and_three_systems():
    refs = ["a b c d", "e f g h", "a c e g"]
    outs = {"A": ["a b c d", "e f h", "a c e"], "B": ["a b", "e f g h", "g e c a"],
            "C": ["x y", "e f g", "a c e g"]}
    res = analyze_systems(corpus_from_lists(refs, outs), settings=AnalysisSettings(samples=10))
    data = json.loads(json.dumps(res.to_dict()))
    assert data["systems"] == ["A", "B", "C"] and data["sentences"] == 3
    pairs = {(r["system_a"], r["system_b"]) for r in data["examples"]}
    assert pairs == {("A", "B"), ("A", "C"), ("B", "C")}
    assert set(data["significance"]) == {"A", "B", "C"}
    assert {r["system"] for r in data["error_classes"]} == {"A", "B", "C"}
    assert data["settings"]["seed"] == 12345 and data["settings"]["freq_edges"][0] == 1
    assert data["scores"][0]["p_value"] is None          # NaN -> null


def test_bad_settings_are_refused():
    c = corpus_from_lists(["a b"], {"A": ["a"], "B": ["b"]})
    with pytest.raises(OptionError, match="increasing"):
        analyze_systems(c, settings=AnalysisSettings(freq_edges=(5, 2)))
    with pytest.raises(OptionError, match="seed"):
        analyze_systems(c, settings=AnalysisSettings(seed=-1))
    with pytest.raises(OptionError, match="n-gram comparison"):
        analyze_systems(c, settings=AnalysisSettings(ngram_compare="most", samples=5,
                                                     error_classes=False))
    with pytest.raises(InputFormatError, match="labels"):
        analyze_systems(c, settings=FAST, labels=Labels([["N"]]))


def test_progress_and_cancel():
    from evaltrans_qt.engine.analysis.pairwise import STEPS
    from evaltrans_qt.errors import Cancelled
    c = corpus_from_lists(["a b c", "d e f"], {"A": ["a b", "d e f"], "B": ["a c", "d f"]})
    seen: list[str] = []
    analyze_systems(c, settings=AnalysisSettings(samples=5), progress=seen.append)
    assert seen == [s for s in STEPS]

    class StopAfter:
        def __init__(self, n: int) -> None:
            self.calls, self.n = 0, n

        def is_set(self) -> bool:
            self.calls += 1
            return self.calls > self.n

    seen.clear()
    with pytest.raises(Cancelled):
        analyze_systems(c, settings=FAST, progress=seen.append, cancel=StopAfter(2))
    assert seen == ["scores", "word_accuracy"]


def test_gleu_reads_the_source_of_a_database():
    """GLEU (a registry measure that uses the source) in the analysis equals compare-mt's
    GleuScorer on the same tokens; without sources it is a clear error."""
    from compare_mt.scorers import GleuScorer
    db = et.Database.demo()
    res = et.analyze(db, ["WebTrans", "RuleMT"], measure="gleu", samples=10,
                     tokenization="none")
    c = corpus_from_database(db, ["WebTrans", "RuleMT"], EvalOptions(tokenization="none"))
    src = [s.split() for s in c.source_texts]
    theirs = [GleuScorer().score_corpus(c.ref, c.outs[s], src)[0] for s in c.systems]
    assert np.allclose(res.scores.score, theirs, rtol=0, atol=1e-9)
    lists = corpus_from_lists(["a b c"], {"A": ["a b"], "B": ["a c"]})
    with pytest.raises(EvalTransError, match="source"):
        analyze_systems(lists, measure="gleu", settings=FAST)
