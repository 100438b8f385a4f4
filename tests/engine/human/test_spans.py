"""Error spans (MQM, ESA): the model, typologies, mt-metrics-eval's weights (most specific
match) and the MQM/ESA scores as human columns (engine/human/spans)."""

from __future__ import annotations

import math

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.protocol_scores import protocol_names, protocol_result
from evaltrans_qt.engine.human.resolve import human_scores
from evaltrans_qt.engine.human.spans.model import (
    MQM_CORE,
    ErrorSpan,
    SpanAnnotation,
    Typology,
    canonical_severity,
    check_error,
)
from evaltrans_qt.engine.human.spans.scores import (
    WEIGHTS_ATTR,
    category_counts,
    ensure_esa_class,
    esa_system_scores,
    mqm_per_1000_words,
    mqm_scores,
    mqm_system_scores,
)
from evaltrans_qt.engine.human.spans.weights import DEFAULT_WEIGHTS, parse_weights
from evaltrans_qt.errors import OptionError, ScoreError


# --------------------------------------------------------------------------- weights
@pytest.mark.parametrize("severity,category,weight", [
    ("Major", "Accuracy/Mistranslation", 5.0),
    ("major", "accuracy/mistranslation", 5.0),           # case does not matter
    ("Minor", "Fluency/Spelling", 1.0),
    ("Minor", "Fluency/Punctuation", 0.1),               # most specific match
    ("Major", "Fluency/Punctuation", 5.0),               # Minor/… does not apply to Major
    ("Major", "Non-translation!", 25.0),
    ("Minor", "Non-translation!", 1.0),
    ("Neutral", "Fluency/Punctuation", 0.0),
    ("Critical", "Accuracy/Mistranslation", 0.0),        # not in the spec: weight 0
    ("no-error", "No-error", 0.0),
])
def test_default_weights_most_specific_match(severity, category, weight):
    assert DEFAULT_WEIGHTS.weight(severity, category) == weight


def test_a_spec_can_weigh_critical_and_deeper_paths():
    w = parse_weights("Major:5 Minor:1 Critical:10 Minor/Fluency:0.5 "
                      "Minor/Fluency/Punctuation:0.1")
    assert w.weight("Critical", "Accuracy") == 10
    assert w.weight("Minor", "Fluency/Grammar") == 0.5            # Minor/Fluency
    assert w.weight("Minor", "Fluency/Punctuation/Comma") == 0.1  # deepest prefix named
    assert w.weight("Minor", "Style/Awkward") == 1


@pytest.mark.parametrize("spec,needle", [("Major", "severity"), ("Major:x", "not a number"),
                                         (":3", "severity"), ("Major:inf", "finite"),
                                         ("  ", "empty")])
def test_bad_weight_specs_are_refused(spec, needle):
    with pytest.raises(OptionError, match=needle):
        parse_weights(spec)


# --------------------------------------------------------------------------- model
def test_core_typology_is_data_and_open():
    tops = MQM_CORE.children()
    assert tops[:3] == ["Accuracy", "Fluency", "Terminology"]
    assert "Non-translation!" in tops and "Source error" in tops
    assert "Accuracy/Omission" in MQM_CORE.children("Accuracy")
    assert MQM_CORE.key_of("Accuracy") == "a"
    MQM_CORE.check("Fluency/Display")                   # open: any category
    closed = Typology("mine", ("Errors/Big", "Errors/Small"), (("Errors", "e"),), closed=True)
    closed.check("Errors/Big")
    closed.check("Errors")                               # a parent is a category too
    with pytest.raises(ScoreError, match="closed typology"):
        closed.check("Fluency/Display")
    assert closed.with_categories(["X/Y"]).all_paths()[-2:] == ["X", "X/Y"]
    with pytest.raises(ScoreError, match="two categories"):
        Typology("bad", ("A", "B"), (("A", "k"), ("B", "k")))


def test_check_error_bounds_severity_side():
    t, s = "The train comes.", "Der Zug kommt."
    assert check_error(ErrorSpan("Major", "Accuracy", 4, 9), t, s).text_of(t) == "train"
    assert check_error(ErrorSpan("minor", "Accuracy/Omission", 3, 3), t, s).omission
    check_error(ErrorSpan("Minor", "Other", 0, len(s), "source"), t, s)
    with pytest.raises(ScoreError, match="outside the target"):
        check_error(ErrorSpan("Major", "Accuracy", 4, 99), t, s)
    with pytest.raises(ScoreError, match="outside the source"):
        check_error(ErrorSpan("Major", "Accuracy", 0, 15, "source"), t, s)
    with pytest.raises(ScoreError, match="outside"):
        check_error(ErrorSpan("Major", "Accuracy", 5, 4), t, s)
    with pytest.raises(ScoreError, match="unknown severity"):
        check_error(ErrorSpan("Huge", "Accuracy", 0, 1), t, s)
    with pytest.raises(ScoreError, match="category"):
        check_error(ErrorSpan("Major", " ", 0, 1), t, s)
    with pytest.raises(ScoreError, match="both start and end"):
        check_error(ErrorSpan("Major", "Accuracy", 0, None), t, s)
    assert canonical_severity(" MAJOR ") == "Major"


# --------------------------------------------------------------------------- scores
def _db() -> Database:
    """Two systems, two segments, two raters; values by hand below."""
    db = Database()
    s1 = db.add_source("Der Zug kommt.", "d1", "1")
    s2 = db.add_source("Er geht heute nach Hause.", "d1", "2")
    a1 = db.add_target(s1, "The trian comes", "A")
    b1 = db.add_target(s1, "Zug kommt.", "B")
    a2 = db.add_target(s2, "He goes home.", "A")
    db.add_target(s2, "He goes home today.", "B")      # not annotated
    db.add_target(s1, "The train is coming.", "ref", reference=True)
    a1.span_annotations += [
        SpanAnnotation("r1", [ErrorSpan("Minor", "Fluency/Spelling", 4, 9),
                              ErrorSpan("Minor", "Fluency/Punctuation", 15, 15)]),
        SpanAnnotation("r2", [])]                          # r2: no error
    b1.span_annotations.append(SpanAnnotation("r1", [ErrorSpan("Major", "Non-translation!",
                                                               0, 10)]))
    a2.span_annotations.append(SpanAnnotation("r2", [
        ErrorSpan("Major", "Accuracy/Omission", 8, 8),
        ErrorSpan("Critical", "Accuracy/Mistranslation", 0, 2),
        ErrorSpan("Neutral", "Style/Awkward", 3, 7)]))
    return db


def test_mqm_segment_scores_are_score_mqm_values():
    db = _db()
    got = mqm_scores(db)
    # A seg 1: r1 = 1 + 0.1, r2 = 0 -> mean 0.55; B seg 1: 25; A seg 2: 5 + 0 (Critical) + 0
    assert got == pytest.approx({(0, "A", 0): -0.55, (0, "B", 0): -25.0, (1, "A", 0): -5.0})
    assert (1, "B", 0) not in got                         # not annotated: no score
    assert mqm_system_scores(db) == pytest.approx({"A": -2.775, "B": -25.0})
    # per 1000 source words: A: 5.55 / (3 + 5) words
    assert mqm_per_1000_words(db)["A"] == pytest.approx(-1000 * 5.55 / 8)


def test_database_weights_are_used():
    db = _db()
    db.extra_attrs[WEIGHTS_ATTR] = "Major:5 Minor:1 Critical:10"
    assert mqm_scores(db)[(1, "A", 0)] == -15.0
    assert mqm_scores(db)[(0, "B", 0)] == -5.0             # no Non-translation entry now


def test_mqm_is_a_human_column_like_the_protocols():
    db = _db()
    assert "mqm" in protocol_names(db, only_with_data=True)
    assert "mqm" not in protocol_names(Database(), only_with_data=True)
    res = protocol_result(db, "mqm")
    assert res.system("A").value == pytest.approx(2.775)            # mean penalty
    assert res.system("A").sentences == 2
    hs = human_scores(db, "mqm")                                     # what correlate reads
    assert hs.values == pytest.approx(mqm_scores(db))
    only_r2 = protocol_result(db, "mqm", judge="r2")
    assert only_r2.sentence((0, "A", 0)) == 0.0 and (0, "B", 0) not in only_r2.stats


def test_category_counts_count_every_level():
    c = category_counts(_db())
    assert c["A"]["Fluency"] == 2 and c["A"]["Fluency/Punctuation"] == 1
    assert c["A"]["Accuracy"] == 2 and c["B"] == {"Non-translation!": 1}


def test_esa_is_a_continuous_class_and_its_mean():
    db = _db()
    lv = ensure_esa_class(db)
    assert lv.continuous and (lv.minimum, lv.maximum) == (0.0, 100.0)
    assert ensure_esa_class(db) is lv
    a1 = db.sources[0].targets[0]
    a1.set_score("esa", 80, "r1")
    a1.set_score("esa", 60, "r2")
    db.sources[1].targets[0].set_score("esa", 30, "r1")
    with pytest.raises(ScoreError):
        lv.validate(101)
    assert esa_system_scores(db) == {"A": pytest.approx(50.0)}      # (70 + 30) / 2
    hs = human_scores(db, "esa")
    assert hs.values[(0, "A", 0)] == 70 and math.isnan(hs.values.get((0, "B", 0), math.nan))


def test_esa_class_goes_before_the_reference_class():
    db = _db()                                   # has isReference (a reference was added)
    ensure_esa_class(db)
    assert [lv.name for lv in db.levels][-1] == db.reference_levels.name
    assert db.is_reference(db.sources[0].targets[-1])
    assert not db.is_reference(db.sources[0].targets[0])


# --------------------------------------------------------------------------- pre-filled spans
def test_prefilled_spans_kept_changed_removed_added():
    from evaltrans_qt.engine.human.spans.prefill import compare, prefill_statistics
    machine = [ErrorSpan("Major", "Accuracy", 0, 5),          # kept
               ErrorSpan("Minor", "Fluency", 10, 15),         # changed: severity
               ErrorSpan("Minor", "Fluency", 20, 24),         # changed: span shrunk
               ErrorSpan("Major", "Accuracy", 30, 35)]        # removed
    final = [ErrorSpan("Major", "Accuracy", 0, 5), ErrorSpan("Major", "Fluency", 10, 15),
             ErrorSpan("Minor", "Fluency", 21, 23), ErrorSpan("Minor", "Style", 40, 42),
             ErrorSpan("Major", "Accuracy/Omission", 45, 45)]   # added twice
    c = compare(machine, final)
    assert (c.kept, c.changed, c.removed, c.added) == (1, 2, 1, 2)
    assert c.kept_share == 0.25
    # characters: machine 5+5+4+5 = 19, final 5+5+2+2 = 14, overlap 5+5+2 = 12
    assert (c.machine_chars, c.final_chars, c.overlap_chars) == (19, 14, 12)
    assert c.precision == pytest.approx(12 / 19) and c.recall == pytest.approx(12 / 14)
    db = _db()
    t = db.sources[0].targets[0]          # "The trian comes": r1 spelling 4:9, punct 15:15
    t.span_annotations.append(SpanAnnotation("xcomet", [
        ErrorSpan("Minor", "Fluency/Spelling", 4, 9), ErrorSpan("Major", "Accuracy", 0, 3)]))
    s = prefill_statistics(db, "xcomet")
    # r1: kept 1, removed 1, added 1 (the omission); r2 (no error): removed 2
    assert (s.candidates, s.kept, s.changed, s.removed, s.added) == (2, 1, 0, 3, 1)
    assert prefill_statistics(db, "xcomet", ["r2"]).to_dict()["kept_share"] == 0.0


def test_per_category_counts_are_protocols_by_name():
    db = _db()
    res = protocol_result(db, "mqm:Accuracy")
    # A seg 2 (r2): Omission + Mistranslation; A seg 1: none (r1) and none (r2)
    assert res.sentence((1, "A", 0)) == 2.0 and res.sentence((0, "A", 0)) == 0.0
    assert res.system("A").value == pytest.approx(1.0)
    fl = human_scores(db, "mqm:Fluency")               # negated like every protocol
    assert fl.values[(0, "A", 0)] == -1.0              # (2 + 0) / 2 judges
    assert "mqm:Accuracy" not in protocol_names(db)
    with pytest.raises(ScoreError, match="no error of category 'Nothing'"):
        protocol_result(db, "mqm:Nothing")


# --------------------------------------------------------------------------- suggestions
def test_spans_suggested_from_a_ter_alignment():
    from evaltrans_qt.engine.measures.alignment_spans import suggested_spans, token_offsets
    t = "Yesterday the cat sat quickly on mat ."
    got = [(e.category, t[e.start:e.end], e.start, e.severity)
           for e in suggested_spans(t, ["the cat sat on the mat yesterday ."])]
    # TER: "Yesterday" inserted, "quickly" substituted, "on" shifted, "the" missing
    # (an omission after "mat"), all Minor suggestions
    assert got == [("Accuracy/Addition", "Yesterday", 0, "Minor"),
                   ("Accuracy/Mistranslation", "quickly", 22, "Minor"),
                   ("Style/Awkward", "on", 30, "Minor"),
                   ("Accuracy/Omission", "", 36, "Minor")]
    assert suggested_spans(t, [t]) == [] and suggested_spans(t, []) == []
    w = suggested_spans("The big big dog", ["The dog"], "wer")
    assert [(e.category, e.start, e.end) for e in w] == [("Accuracy/Addition", 4, 11)]
    assert token_offsets("a &amp; b", ["a", "&", "b"]) == [(0, 1), (2, 3), (8, 9)]
    assert token_offsets("ab", ["x"]) == [None]
