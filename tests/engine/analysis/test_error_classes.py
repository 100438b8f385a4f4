"""Error classes (Popović & Ney 2011 §3) on hand-worked examples of the paper's
definitions, against Hjerson's own output (``data/hjerson_outputs.json``, made by
``data/make_hjerson_outputs.py`` with Hjerson itself), and the file checks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.analysis.error_classes import classify_system, read_word_file
from evaltrans_qt.engine.analysis.error_classes_corpus import (
    class_rates,
    hjerson_table,
    pos_rates,
    system_class_rates,
)
from evaltrans_qt.engine.kernels.levenshtein import lev_distance_py
from evaltrans_qt.engine.text.error_classes import (
    CORRECT,
    EXT,
    HJERSON_NAMES,
    INFL,
    LEX,
    MISS,
    REORD,
    STAT_NAMES,
    base_forms,
    classify,
    classify_best,
    rates,
)
from evaltrans_qt.errors import InputFormatError, OptionError

DATA = Path(__file__).parent / "data"
X = CORRECT


def _cls(hyp: str, ref: str, hb: str | None = None, rb: str | None = None):
    h, r = hyp.split(), ref.split()
    return classify(h, r, (hb or hyp).split(), (rb or ref).split())


# --------------------------------------------------------------------------- hand-worked
def test_identical_sentences_have_no_error():
    s = _cls("the cat sat", "the cat sat")
    assert s.hyp_classes == (X, X, X) and s.ref_classes == (X, X, X)
    assert not s.counts[2:].any()


def test_inflection_needs_the_base_form_in_the_other_bag():
    # "sees"/"see": full forms differ (PER error on both sides), base forms agree -> infl;
    # "a"/"the": base forms differ as well -> lexical (a substitution in WER)
    s = _cls("the cat see a house", "the cat sees the house",
             "the cat see a house", "the cat see the house")
    assert s.hyp_classes == (X, X, INFL, LEX, X)
    assert s.ref_classes == (X, X, INFL, LEX, X)
    assert s.count("hyp_infl") == s.count("ref_infl") == 1
    assert s.count("hyp_lex") == s.count("ref_lex") == 1
    # without the shared base form the same word is a lexical error
    s2 = _cls("the cat see a house", "the cat sees the house")
    assert s2.hyp_classes[2] == LEX


def test_reordering_is_a_wer_error_found_among_the_other_sides_wer_errors():
    s = _cls("a dog and a cat", "a cat and a dog")
    # WER substitutes dog<->cat; both are in the other side's bag: reordering, no PER error
    assert s.hyp_classes == (X, REORD, X, X, REORD)
    assert s.ref_classes == (X, REORD, X, X, REORD)
    assert s.count("rper") == s.count("hper") == 0
    assert s.count("hyp_reord") == 2 and s.count("b_hyp_reord") == 2


def test_missing_and_extra_words_are_deletions_and_insertions_without_a_match():
    s = _cls("the big red house", "the house")
    assert s.hyp_classes == (X, EXT, EXT, X)
    assert s.ref_classes == (X, X)
    assert s.count("ext") == 2 and s.count("b_ext") == 1        # one block of two
    s = _cls("the house", "the big red house")
    assert s.ref_classes == (X, MISS, MISS, X)
    assert s.count("miss") == 2 and s.count("b_miss") == 1


def test_empty_sides():
    s = _cls("", "the house")
    assert s.hyp_classes == () and s.ref_classes == (MISS, MISS)
    s = _cls("a house", "")            # every candidate word is extra (Hjerson keeps none)
    assert s.hyp_classes == (EXT, EXT) and s.ref_classes == ()
    r = rates(s.counts)
    assert r["ext"] == 1.0 and r["wer"] == 2.0            # zero reference length: the count


def test_rates_are_counts_over_the_side_lengths():
    s = _cls("the big red house", "the house")
    r = rates(s.counts)
    assert r["ext"] == pytest.approx(2 / 4) and r["wer"] == pytest.approx(2 / 2)
    assert r["sum"] == pytest.approx(r["hyp_infl"] + r["hyp_reord"] + r["miss"] + r["ext"]
                                     + r["hyp_lex"])


def test_best_reference_is_the_lowest_relative_wer_first_on_ties():
    refs = [["a", "b", "c", "d"], ["a", "b"], ["a", "b"]]
    s = classify_best(["a", "b"], refs, ["a", "b"], refs)
    assert s.ref_index == 1
    s = classify_best(["x"], [["y"], ["z"]], ["x"], [["y"], ["z"]])
    assert s.ref_index == 0


def test_base_forms_snowball_and_prefix4():
    assert base_forms(["houses", "running"], "snowball", "english") == ["hous", "run"]
    assert base_forms(["Häuser"], "snowball", "german") == ["haus"]
    assert base_forms(["houses", "a"], "prefix4") == ["hous", "a"]
    with pytest.raises(OptionError, match="klingon"):
        base_forms(["a"], "snowball", "klingon")
    with pytest.raises(OptionError, match="lemmas"):
        base_forms(["a"], "lemmas")


# --------------------------------------------------------------------------- Hjerson itself
@pytest.fixture(scope="module", params=["hjerson_outputs.json", "hjerson_prefix4.json"])
def hjerson(request):
    """Hjerson's output with base-form files, and without them (its four-letter fallback:
    our ``prefix4`` base forms, computed here rather than read from the record)."""
    data = json.loads((DATA / request.param).read_text(encoding="utf-8"))
    if "prefix4" in request.param:
        assert "-B" not in data["command"]
        for case in data["sentences"]:
            case["hyp_bases"] = " ".join(base_forms(case["hyp"].split(), "prefix4"))
            case["ref_bases"] = [" ".join(base_forms(r.split(), "prefix4")) for r in case["refs"]]
    return data


def test_word_classes_and_sentence_counts_equal_hjersons(hjerson):
    checked = 0
    for case in hjerson["sentences"]:
        refs = [r.split() for r in case["refs"]]
        s = classify_best(case["hyp"].split(), refs, case["hyp_bases"].split(),
                          [r.split() for r in case["ref_bases"]])
        assert list(s.hyp_classes) == case["hyp_classes"], case
        assert list(s.ref_classes) == case["ref_classes"], case
        mine = dict(zip(STAT_NAMES, s.counts.tolist()))
        for stat, name in HJERSON_NAMES.items():
            if name in case["counts"]:
                assert mine[stat] == case["counts"][name], (case, name)
                checked += 1
    assert checked > 1000


def test_system_rates_equal_hjersons_totals(hjerson):
    cases = hjerson["sentences"]
    sents = classify_system([c["hyp"].split() for c in cases],
                            [[r.split() for r in c["refs"]] for c in cases],
                            [c["hyp_bases"].split() for c in cases],
                            [[r.split() for r in c["ref_bases"]] for c in cases])
    df = class_rates({"sys": sents}, percent=True)
    table = hjerson_table(df)
    for stat, name in HJERSON_NAMES.items():
        count, rate = hjerson["total"][name]
        assert df.loc["sys", stat] == count, name
        assert table.loc["sys", name] == pytest.approx(rate, abs=0.005), name
    for ours, theirs in (("sum", "SUMerr"), ("b_sum", "bSUMerr"), ("rb_sum", "rbSUMerr")):
        assert df.loc["sys", f"{ours}_rate"] == pytest.approx(hjerson["total"][theirs][1],
                                                              abs=0.005)


def test_base_form_files_feed_the_classification(tmp_path):
    data = json.loads((DATA / "hjerson_outputs.json").read_text(encoding="utf-8"))
    cases = [c for c in data["sentences"] if len(c["refs"]) == 1][:30]
    hyps = [c["hyp"].split() for c in cases]
    refs = [c["refs"][0].split() for c in cases]
    (tmp_path / "hyp.base").write_text("".join(c["hyp_bases"] + "\n" for c in cases),
                                       encoding="utf-8")
    (tmp_path / "ref.base").write_text("".join(c["ref_bases"][0] + "\n" for c in cases),
                                       encoding="utf-8")
    hb = read_word_file(tmp_path / "hyp.base", hyps)
    rb = read_word_file(tmp_path / "ref.base", refs)
    sents = classify_system(hyps, [[r] for r in refs], hb, [[b] for b in rb])
    assert [list(s.hyp_classes) for s in sents] == [c["hyp_classes"] for c in cases]
    with pytest.raises(OptionError, match="klingon"):
        classify_system(hyps, [[r] for r in refs], language="klingon")


# --------------------------------------------------------------------------- files and POS
def test_word_files_with_wrong_counts_name_file_and_line(tmp_path):
    words = [["a", "b"], ["c"]]
    f = tmp_path / "hyp.base"
    f.write_text("a b\nc\n", encoding="utf-8")
    assert read_word_file(f, words) == words
    f.write_text("a b\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="1 lines, but the text has 2") as e:
        read_word_file(f, words)
    assert e.value.path == f
    f.write_text("a b\nc d\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="2 items, but the sentence has 1 words") as e:
        read_word_file(f, words, "POS tags")
    assert e.value.line == 2 and "POS tags" in str(e.value) and str(f) in str(e.value)
    with pytest.raises(InputFormatError, match="1 sentences, but the text has 2"):
        classify_system([["a"], ["b"]], [[["a"]], [["b"]]], [["a"]], None)


def test_pos_rates_split_the_class_rates_by_tag():
    sents = classify_system([["the", "big", "house"], ["a", "dog"]],
                            [[["the", "house"]], [["a", "cat"]]], base="prefix4")
    df = pos_rates(sents, [["DT", "JJ", "NN"], ["DT", "NN"]], [["DT", "NN"], ["DT", "NN"]])
    assert df.loc[("hyp", "JJ"), EXT] == pytest.approx(1 / 5)
    assert df.loc[("hyp", "NN"), LEX] == pytest.approx(1 / 5)
    assert df.loc[("ref", "NN"), LEX] == pytest.approx(1 / 4)
    hyp = df.loc["hyp"]
    assert hyp["words"].sum() == pytest.approx(1.0)
    # a class column sums to the share of words with that class
    labels = [c for s in sents for c in s.hyp_classes]
    assert hyp[EXT].sum() == pytest.approx(labels.count(EXT) / len(labels))
    with pytest.raises(InputFormatError, match="candidate POS tags"):
        pos_rates(sents, [["DT"], ["DT", "NN"]], [["DT", "NN"], ["DT", "NN"]])


def test_counts_add_up_over_sentences():
    sents = classify_system([["a", "b"], ["c"]], [[["b", "a"]], [["d", "c"]]], base="prefix4")
    df = class_rates({"A": sents})
    total = np.sum([s.counts for s in sents], axis=0)
    assert df.loc["A", "hyp_reord"] == total[STAT_NAMES.index("hyp_reord")] == 2
    assert df.loc["A", "miss_rate"] == pytest.approx(1 / 4)


def test_system_class_rates_classifies_every_system():
    refs = [[["the", "house"]], [["a", "cat"]]]
    df = system_class_rates({"A": [["the", "house"], ["a", "cat"]],
                             "B": [["house", "the"], ["a", "dog"]]}, refs, base="prefix4")
    assert df.loc["A", "sum_rate"] == 0.0
    assert df.loc["B", "hyp_reord"] == 2 and df.loc["B", "hyp_lex"] == 1


# --------------------------------------------------------------------------- properties
_words = st.lists(st.sampled_from(["a", "b", "c", "ab", "abc", "d"]), max_size=10)


@settings(max_examples=300, deadline=None)
@given(_words, _words)
def test_every_word_gets_one_class_and_the_counts_agree(hyp, ref):
    s = classify(hyp, ref, [w[:1] for w in hyp], [w[:1] for w in ref])
    assert len(s.hyp_classes) == len(hyp) and len(s.ref_classes) == len(ref)
    assert set(s.hyp_classes) <= {X, INFL, REORD, EXT, LEX}
    assert set(s.ref_classes) <= {X, INFL, REORD, MISS, LEX}
    c = dict(zip(STAT_NAMES, s.counts.tolist()))
    common = sum((Counter(hyp) & Counter(ref)).values())
    assert c["hper"] == len(hyp) - common and c["rper"] == len(ref) - common
    assert c["wer"] == lev_distance_py(hyp, ref)
    assert c["hyp_reord"] == s.hyp_classes.count(REORD)
    assert c["ref_reord"] == s.ref_classes.count(REORD)
    assert c["ext"] >= s.hyp_classes.count(EXT) and c["miss"] >= s.ref_classes.count(MISS)
    # each PER error at most once (Hjerson: one whose WER counterpart is a match -- a
    # repeated word matched by WER at another occurrence than by PER -- gets no class)
    assert c["hyp_infl"] + c["ext"] + c["hyp_lex"] <= c["hper"]
    assert c["ref_infl"] + c["miss"] + c["ref_lex"] <= c["rper"]
    if hyp == ref:
        assert set(s.hyp_classes) <= {X}
