"""WER/PER family: oracles from independent tools, thesis examples, properties, reference-length rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import REF_LENGTH_RULES, EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.engine.text.reflength import choose

DISTANCE_MEASURES = ["wer", "wwer", "per", "wper", "msder", "nper", "sbper"]


def make(name: str, vocab: Vocabulary | None = None, **opts):
    m = get(name)(EvalOptions(**opts))
    m.fit([], vocab or Vocabulary())
    return m


def seg(vocab: Vocabulary, hyp: str, *refs: str) -> Segment:
    return Segment(vocab.encode(hyp.split()), tuple(vocab.encode(r.split()) for r in refs), hyp, refs)


# ------------------------------------------------------------- WMT oracles
@pytest.fixture(scope="module")
def wmt(wmt13a):
    vals, vocab, load = wmt13a

    ref_a = load("newstest2021.en-de.ref.A.de")
    systems = {name: load(name) for name in vals}
    return vals, vocab, ref_a, systems


def test_wer_equals_jiwer_and_moses_on_wmt(wmt):
    """WER vs ref A = jiwer corpus WER (edits, ref length, value); per sentence = Moses."""
    vals, vocab, ref_a, systems = wmt
    wer = make("wer", vocab)
    for name, hyp in systems.items():
        stats = wer.corpus_stats([Segment(h, (r,)) for h, r in zip(hyp, ref_a)])
        total = stats.sum(axis=0)
        assert total[0] == vals[name]["wer_refA_edits"], name
        assert total[1] == vals[name]["wer_refA_reflen"], name
        assert wer.score(total).value == pytest.approx(vals[name]["wer_refA"], abs=1e-15)
        moses = np.asarray(vals[name]["moses_wer_refA_sent_stats"])
        np.testing.assert_array_equal(stats, moses, err_msg=name)


def test_per_sentences_equal_moses_on_wmt(wmt):
    """PER per sentence = Moses PerScorer = max(I, L) - matches (corpus values differ by design)."""
    vals, vocab, ref_a, systems = wmt
    per = make("per", vocab)
    for name, hyp in systems.items():
        stats = per.corpus_stats([Segment(h, (r,)) for h, r in zip(hyp, ref_a)])
        moses = np.asarray(vals[name]["moses_per_refA_sent_stats"])  # [matches, I, L]
        np.testing.assert_array_equal(stats[:, 0], np.maximum(moses[:, 1], moses[:, 2]) - moses[:, 0])
        np.testing.assert_array_equal(stats[:, 1], moses[:, 2])


def test_alignments_sum_to_distance_on_wmt(wmt):
    vals, vocab, ref_a, systems = wmt
    hyp = next(iter(systems.values()))
    for name in ("wer", "per", "msder"):
        m = make(name, vocab)
        for h, r in list(zip(hyp, ref_a))[:150]:
            s = Segment(h, (r,))
            al = m.align(s)
            assert al.operation_cost() == pytest.approx(m.sentence_stats(s)[0])


# ------------------------------------------------------ thesis worked examples
def test_per_thesis_example_eq_4_12_and_figure_4_1():
    """Thesis §4.2.1, eq. 4.12 and Figure 4.1: 'we have been there' vs 'we were there':
    PER = 1/2(3 + 1) = 2, Levenshtein 2."""
    v = Vocabulary()
    s = seg(v, "we have been there", "we were there")
    assert make("per", v).sentence_stats(s).tolist() == [2.0, 3.0]
    assert make("wer", v).sentence_stats(s).tolist() == [2.0, 3.0]
    assert make("msder", v).sentence_stats(s).tolist() == [3.0, 3.0]  # c_SUB = 2: |have|+|been|+|were|
    al = make("per", v).align(s)
    kinds = [(op.kind.value, op.hyp_pos, op.ref_pos) for op in al.operations]
    # Figure 4.1: we/we, have/were, there/there, been unmatched
    assert kinds == [("=", 0, 0), ("S", 1, 1), ("=", 3, 2), ("I", 2, None)]
    assert al.operation_cost() == 2.0


def test_skip_bigram_figure_4_2():
    """Figure 4.2: 'I prefer the plane' has 3 + 2 + 1 skip bigrams for skips 0, 1, 2."""
    v = Vocabulary()
    for skip, total in ((0, 3), (1, 5), (2, 6), (4, 6)):
        m = make("sbper", v, max_bigram_skip=skip)
        s = seg(v, "I prefer the plane", "I prefer the plane")
        assert m.sentence_stats(s).tolist() == [0.0, float(total)]
    # reversed order shares no skip bigram: PER = 1/2 (6 + 6) = 6
    s = seg(v, "plane the prefer I", "I prefer the plane")
    assert make("sbper", v, max_bigram_skip=2).sentence_stats(s).tolist() == [6.0, 6.0]


def test_nper_boundaries_figure_5_2():
    """Figure 5.2 / preprocess.pad: bigrams with 'both' = [<s> I] ... [plane </s>] = 5."""
    v = Vocabulary()
    s = seg(v, "I prefer the plane", "I prefer the plane")
    st_ = make("nper", v, nper_max_ngram=3, nper_pad_rule="both").sentence_stats(s)
    # [d, L, d1, L1, d2, L2, d3, L3]: 4 words + </s>; <s> I ... plane </s>: 5 bigrams, 5 trigrams
    assert st_[3] == 5 and st_[5] == 5 and st_[7] == 5
    st_ = make("nper", v, nper_max_ngram=3, nper_pad_rule="none").sentence_stats(s)
    assert st_.tolist() == [0, 9, 0, 4, 0, 3, 0, 2]
    # a swap of the first two words: unigrams agree; boundary bigram [<s> I] differs
    s2 = seg(v, "prefer I the plane", "I prefer the plane")
    st_ = make("nper", v, nper_max_ngram=2, nper_pad_rule="initial").sentence_stats(s2)
    # bigrams hyp: <s>prefer, prefer I, I the, the plane ; ref: <s>I, I prefer, prefer the, the plane
    assert st_.tolist() == [3.0, 8.0, 0.0, 4.0, 3.0, 4.0]


# ------------------------------------------------------ reference length rules
CASE_A = ("a b c d e f", ["a b c d", "a b c d e f g h x y", "q r"],
          {"average": (2, 16 / 3), "minimum": (2, 2), "maximum": (2, 10), "averageNearest": (2, 4),
           "minimumNearest": (2, 4), "maximumNearest": (2, 4), "lowestError": (4, 10)})
CASE_B = ("a b c d e f", ["a b c d", "a b c d e f x y", "a b c d e f g h x y"],
          {"average": (2, 22 / 3), "minimum": (2, 4), "maximum": (2, 10), "averageNearest": (2, 6),
           "minimumNearest": (2, 4), "maximumNearest": (2, 8), "lowestError": (2, 8)})
# lowestError tie on relative error (1/3): the smaller absolute distance wins (our tie-break)
CASE_C = ("a b c d", ["a b c d e f", "a b c"],
          {"average": (1, 4.5), "minimum": (1, 3), "maximum": (1, 6), "averageNearest": (1, 3),
           "minimumNearest": (1, 3), "maximumNearest": (1, 3), "lowestError": (1, 3)})


@pytest.mark.parametrize("case", [CASE_A, CASE_B, CASE_C], ids=["A", "B", "C"])
@pytest.mark.parametrize("rule", REF_LENGTH_RULES)
def test_reference_length_rules_hand_examples(case, rule):
    hyp, refs, expected = case
    v = Vocabulary()
    m = make("wer", v, wer_ref_length_rule=rule)
    s = seg(v, hyp, *refs)
    d, L = m.sentence_stats(s)
    assert (d, L) == pytest.approx(expected[rule])
    # every rule of the family honours the option; PER equals WER on these examples
    # except where word order matters, so just check consistency with choose()
    for name in ("per", "msder", "sbper"):
        mm = make(name, v, wer_ref_length_rule=rule)
        dist = mm.reference_distances(s)
        lens = [mm.sentence_stats(Segment(s.hyp, (r,)))[1] for r in s.refs]
        cd, cl, _ = choose(dist, lens, rule)
        assert mm.sentence_stats(s).tolist() == pytest.approx([cd, cl])


def test_lowest_error_alignment_uses_best_reference():
    v = Vocabulary()
    hyp, refs, _ = CASE_A
    s = seg(v, hyp, *refs)
    assert make("wer", v, wer_ref_length_rule="lowestError").align(s).ref_index == 1
    assert make("wer", v, wer_ref_length_rule="average").align(s).ref_index == 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), min_size=1, max_size=4), min_size=1, max_size=8),
       st.sampled_from(REF_LENGTH_RULES))
def test_vectorised_select_equals_choose(rows, rule):
    from evaltrans_qt.engine.measures._distance import select
    rmax = max(len(r) for r in rows)
    dist = np.zeros((len(rows), rmax))
    lens = np.zeros((len(rows), rmax))
    valid = np.zeros((len(rows), rmax), bool)
    for k, r in enumerate(rows):
        for j, x in enumerate(r):
            dist[k, j] = x % 4
            lens[k, j] = x
            valid[k, j] = True
    best, w = select(dist, lens, valid, rule)
    for k, r in enumerate(rows):
        d, L, b = choose(list(dist[k, :len(r)]), list(lens[k, :len(r)]), rule)
        assert dist[k, best[k]] == d
        assert (w[k] * lens[k]).sum() == pytest.approx(L)
        if rule == "lowestError":
            assert best[k] == b


# ------------------------------------------------------------- properties
words = st.lists(st.sampled_from("a b c d e f".split()), max_size=9)


@settings(max_examples=200, deadline=None)
@given(words, words)
def test_bounds_length_difference_per_levenshtein(h, r):
    """Thesis §4.1.3 and eq. 4.26: d_dI <= d_PER <= d_LEV; MSDER (§4.2.1) = sum |n_e - n~_e|."""
    v = Vocabulary()
    s = Segment(v.encode(h), (v.encode(r),))
    d_lev = make("wer", v).sentence_stats(s)[0]
    d_per = make("per", v).sentence_stats(s)[0]
    d_msd = make("msder", v).sentence_stats(s)[0]
    assert abs(len(h) - len(r)) <= d_per <= d_lev
    assert d_per <= d_msd <= 2 * d_per
    for rule in ("prefix", "levenshtein"):
        d_wper = make("wper", v, substitution_cost_rule=rule).sentence_stats(s)[0]
        d_wwer = make("wwer", v, substitution_cost_rule=rule).sentence_stats(s)[0]
        assert abs(len(h) - len(r)) - 1e-9 <= d_wper <= d_per + 1e-9
        assert d_wper <= d_wwer + 1e-9 and d_wwer <= d_lev + 1e-9


@settings(max_examples=100, deadline=None)
@given(words, st.lists(words, min_size=1, max_size=3))
def test_identical_reference_scores_zero(h, refs):
    v = Vocabulary()
    s = Segment(v.encode(h), tuple(v.encode(r) for r in refs) + (v.encode(h),))
    for name in DISTANCE_MEASURES:
        m = make(name, v, substitution_cost_rule="levenshtein")
        assert m.sentence_stats(s)[0] == 0.0, name


@settings(max_examples=150, deadline=None)
@given(words, words, st.sampled_from(["none", "prefix", "levenshtein"]))
def test_alignment_costs_sum_to_distance(h, r, rule):
    v = Vocabulary()
    s = Segment(v.encode(h), (v.encode(r),))
    for name in ("wer", "wwer", "per", "wper", "msder"):
        m = make(name, v, substitution_cost_rule=rule)
        al = m.align(s)
        d = m.sentence_stats(s)[0]
        assert al.operation_cost() == pytest.approx(d), name
        assert al.distance == pytest.approx(d), name
        # every word appears exactly once on its side
        assert sorted(op.hyp_pos for op in al.operations if op.hyp_pos is not None) == list(range(len(h)))
        ref_pos = [op.ref_pos for op in al.operations if op.ref_pos is not None]
        assert ref_pos == list(range(len(r))), name  # reference order
        for op in al.operations:
            if op.kind.value == "=":
                assert h[op.hyp_pos] == r[op.ref_pos]
            if op.kind.value == "S":
                assert h[op.hyp_pos] != r[op.ref_pos]


def test_leaving_one_out_is_left_to_the_driver():
    """The driver drops identical references once (evaluate.compute_chunk); measures must not
    drop them again (the driver keeps a lone identical reference)."""
    v = Vocabulary()
    s = seg(v, "a b c", "a b c", "a b d e")
    assert make("wer", v, leaving_one_out=("mWER",)).sentence_stats(s).tolist() == [0.0, 3.5]


def test_empty_sentences():
    v = Vocabulary()
    for name in DISTANCE_MEASURES:
        m = make(name, v, substitution_cost_rule="prefix")
        assert m.sentence_stats(seg(v, "", "")).tolist()[:2] == [0.0, 0.0]
        d, L = m.sentence_stats(seg(v, "", "a b c")).tolist()[:2]
        assert d == L > 0, name
        st = m.sentence_stats(seg(v, "a b", ""))
        assert st[1] == 0.0 and st[0] > 0, name
        # empty reference: the distance itself (jiwer: the insertion count), never inf
        assert m.score(np.array(st)).value == st[0], name


def test_nper_choose_references_separately():
    """Thesis §4.2.2: with separate choice each m may use another reference (never a larger
    distance)."""
    v = Vocabulary()
    s = seg(v, "a b c d", "d c b a", "a b x y")
    joint = make("nper", v, nper_max_ngram=2).sentence_stats(s)
    sep = make("nper", v, nper_max_ngram=2, nper_choose_references_separately=True).sentence_stats(s)
    # ref0: 1-PER 0, 2-PER 3 (sum 3); ref1: 1-PER 2, 2-PER 2 (sum 4)
    assert joint.tolist() == [3.0, 7.0, 0.0, 4.0, 3.0, 3.0]
    assert sep.tolist() == [2.0, 7.0, 0.0, 4.0, 2.0, 3.0]


def test_scores_and_details():
    v = Vocabulary()
    s = seg(v, "a b c d", "a b x d")
    sc = make("wer", v).score(make("wer", v).sentence_stats(s))
    assert sc.value == 0.25 and sc.columns == {"WER": 0.25}
    assert sc.details == {"error-rate": 0.25, "error-rate-percent": 25.0, "reference-length": 4.0,
                          "sum": 1.0}
    m = make("nper", v, nper_max_ngram=2)
    sc = m.score(m.sentence_stats(s))
    assert sc.columns == pytest.approx({"m-PER": 3 / 7, "1-PER": 0.25, "2-PER": 2 / 3})
    assert [a for a, _ in sc.details["n-gram"]] == [{"n": "1"}, {"n": "2"}]
    assert sc.details["n-gram"][1][1]["sum"] == 2.0


def test_enabled_and_registry():
    assert not get("wwer").enabled(EvalOptions())
    assert not get("wper").enabled(EvalOptions())
    assert get("wwer").enabled(EvalOptions(substitution_cost_rule="prefix"))
    for name in ("wer", "per", "msder", "nper", "sbper"):
        assert get(name).enabled(EvalOptions())
        assert get(name).report_element == name


def test_corpus_stats_equal_sentence_stats_with_varying_reference_counts():
    v = Vocabulary()
    segs = [seg(v, "a b c", "a b", "c b a", "x"), seg(v, "d e", "d e f"), seg(v, "", "a", "b b")]
    for name in DISTANCE_MEASURES:
        m = make(name, v, substitution_cost_rule="levenshtein", wer_ref_length_rule="lowestError",
                 nper_ref_length_rule="minimumNearest")
        batch = m.corpus_stats(segs)
        for k, s in enumerate(segs):
            np.testing.assert_allclose(batch[k], m.sentence_stats(s), err_msg=name)


def test_measures_pickle():
    import pickle
    v = Vocabulary()
    s = seg(v, "talk to me", "talks to him")
    for name in ("wwer", "wper"):
        m = make(name, v, substitution_cost_rule="prefix")
        before = m.sentence_stats(s)
        m2 = pickle.loads(pickle.dumps(m))
        np.testing.assert_allclose(m2.sentence_stats(s), before)


def test_through_the_driver_with_leaving_one_out():
    """evaluate() runs every measure of the family generically; a candidate equal to one of two
    references is compared with the other one only for the listed measures."""
    from evaltrans_qt.engine.data.database import Database, Levels
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    src = db.add_source("Das ist ein Test .")
    db.add_target(src, "this is a test .", "ref-0", reference=True)
    db.add_target(src, "that is one test .", "ref-1", reference=True)
    db.add_target(src, "this is a test .", "A")
    opts = EvalOptions(leaving_one_out=("mWER",), substitution_cost_rule="prefix")
    run = evaluate(db, opts, DISTANCE_MEASURES, executor=SerialExecutor())
    sys_a = run.systems["A"]
    assert sys_a.stats["wer"][0].tolist() == [2.0, 5.0]   # vs ref-1 only: this->that, a->one
    assert sys_a.stats["per"][0].tolist() == [0.0, 5.0]   # not listed: ref-0 counts
    for name in DISTANCE_MEASURES:
        assert sys_a.scores[name].value == pytest.approx(
            run.measure(name).score(sys_a.stats[name].sum(axis=0)).value)


# ----------------------------------------- m-PER / skip-bigram PER vs plain Python
def _agg(rule: str, values: list[float], nearest: list[int], best: int) -> float:
    if rule == "lowestError":
        return values[best]
    pool = [values[r] for r in nearest] if rule.endswith("Nearest") else values
    kind = rule.replace("Nearest", "")
    return {"average": sum(pool) / len(pool), "minimum": min(pool), "maximum": max(pool)}[kind]


@settings(max_examples=120, deadline=None)
@given(words, st.lists(words, min_size=1, max_size=3), st.integers(1, 4),
       st.sampled_from(["none", "initial", "end", "both"]), st.sampled_from(REF_LENGTH_RULES),
       st.booleans())
def test_nper_equals_plain_python(h, refs, max_n, pad_rule, rule, separately):
    from evaltrans_qt.engine.kernels.bags import ngrams_py, per_py
    from evaltrans_qt.engine.text.preprocess import pad
    v = Vocabulary()
    s = Segment(v.encode(h), tuple(v.encode(r) for r in refs))
    got = make("nper", v, nper_max_ngram=max_n, nper_pad_rule=pad_rule, nper_ref_length_rule=rule,
               nper_choose_references_separately=separately).sentence_stats(s)
    d = [[per_py(ngrams_py(pad(h, pad_rule, m), m), ngrams_py(pad(r, pad_rule, m), m))
          for m in range(1, max_n + 1)] for r in refs]
    lens = [[float(len(ngrams_py(pad(r, pad_rule, m), m))) for m in range(1, max_n + 1)] for r in refs]
    want = []
    if separately:
        for m in range(max_n):
            dm, lm, _ = choose([d[r][m] for r in range(len(refs))], [lens[r][m] for r in range(len(refs))], rule)
            want += [dm, lm]
    else:
        tot = [sum(x) for x in d]
        tl = [sum(x) for x in lens]
        _, lc, best = choose(tot, tl, rule)
        nearest = [r for r in range(len(refs)) if tot[r] == min(tot)]
        for m in range(max_n):
            want += [d[best][m], _agg(rule, [lens[r][m] for r in range(len(refs))], nearest, best)]
        assert sum(want[1::2]) == pytest.approx(lc)
    assert got[2:].tolist() == pytest.approx(want)
    assert got[0] == pytest.approx(sum(want[0::2])) and got[1] == pytest.approx(sum(want[1::2]))


@settings(max_examples=120, deadline=None)
@given(words, st.lists(words, min_size=1, max_size=3), st.integers(0, 5), st.sampled_from(REF_LENGTH_RULES))
def test_sbper_equals_plain_python(h, refs, skip, rule):
    from evaltrans_qt.engine.kernels.bags import per_py, skip_bigrams_py
    v = Vocabulary()
    s = Segment(v.encode(h), tuple(v.encode(r) for r in refs))
    got = make("sbper", v, max_bigram_skip=skip, wer_ref_length_rule=rule).sentence_stats(s)
    d = [per_py(skip_bigrams_py(h, skip), skip_bigrams_py(r, skip)) for r in refs]
    lens = [float(len(skip_bigrams_py(r, skip))) for r in refs]
    dd, ll, _ = choose(d, lens, rule)
    assert got.tolist() == pytest.approx([dd, ll])
