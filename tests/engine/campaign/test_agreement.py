"""Agreement of several annotators (engine/campaign/agreement.py): Krippendorff's alpha equal
to the ``krippendorff`` package on a matrix built here from the raw judgements, pairwise
correlations equal to scipy's, span precision/recall/F1 worked by hand, gold comparisons,
and properties (F1 symmetric, alpha = 1 for identical annotators)."""

from __future__ import annotations

import math
import random

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evaltrans_qt.engine.campaign import agreement as ag
from evaltrans_qt.engine.data.database import ITEM_MARKS, Database, ItemMarks, Levels
from evaltrans_qt.engine.human.ranking import add_ranking
from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation
from evaltrans_qt.errors import ScoreError

JUDGES = ["ann", "bob", "cid", "dan"]


def _campaign(seed: int = 1, n: int = 40) -> tuple[Database, list[tuple[str, int, float]]]:
    """n candidates of one system, each scored 1..5 by 2 or 3 of the judges (a noisy
    copy of a true quality), and the raw (judge, candidate, value) list."""
    rnd = random.Random(seed)
    db = Database([Levels("quality", 6, firstvalid=1)])
    db.ensure_reference_class()
    raw = []
    for k in range(n):
        src = db.add_source(f"source {k}", doc="d", seg=str(k + 1))
        t = db.add_target(src, f"candidate {k}", system="S")
        truth = rnd.randint(1, 5)
        for j in rnd.sample(JUDGES, rnd.choice([2, 3])):
            v = min(5, max(1, truth + rnd.choice([-1, 0, 0, 0, 1])))
            t.set_score("quality", v, j)
            raw.append((j, k, float(v)))
    return db, raw


def _matrix(raw: list[tuple[str, object, float]]) -> np.ndarray:
    judges = sorted({j for j, _, _ in raw})
    units = list(dict.fromkeys(u for _, u, _ in raw))
    m = np.full((len(judges), len(units)), np.nan)
    for j, u, v in raw:
        m[judges.index(j), units.index(u)] = v
    return m


def test_interval_alpha_equals_the_package_on_the_raw_matrix():
    db, raw = _campaign()
    want = krippendorff.alpha(reliability_data=_matrix(raw), level_of_measurement="interval")
    rep = ag.campaign_agreement(db)
    [c] = rep.classes
    assert c.name == "quality" and c.level == "interval"
    assert c.alpha == pytest.approx(want, abs=1e-12)
    assert 0.3 < c.alpha < 1                       # noisy copies of one truth agree well
    assert c.units == 40 and c.judgements == len(raw)
    assert c.kappa is not None and math.isfinite(c.kappa.fleiss)


def test_pairs_are_pearson_and_kendall_tau_b_over_common_units():
    db, raw = _campaign(seed=3)
    c = ag.campaign_agreement(db).classes[0]
    by = {(j, u): v for j, u, v in raw}
    for p in c.pairs:
        common = sorted(u for (j, u) in by if j == p.a and (p.b, u) in by)
        x = [by[(p.a, u)] for u in common]
        y = [by[(p.b, u)] for u in common]
        assert p.n == len(common)
        if len(common) > 2 and len(set(x)) > 1 and len(set(y)) > 1:
            assert p.pearson == pytest.approx(stats.pearsonr(x, y)[0])
            assert p.kendall == pytest.approx(stats.kendalltau(x, y)[0])
    assert {(p.a, p.b) for p in c.pairs} <= {(a, b) for a in JUDGES for b in JUDGES if a < b}


def test_ordinal_alpha_of_ranks():
    db = Database([])
    db.ensure_reference_class()
    raw = []
    rnd = random.Random(5)
    for k in range(12):
        src = db.add_source(f"s{k}", doc="d", seg=str(k + 1))
        for m in range(3):
            db.add_target(src, f"c{k}{m}", system=f"S{m}")
        for j in ("ann", "bob"):
            ranks = {m: rnd.randint(1, 3) for m in range(3)}
            add_ranking(db, src, ranks, j, f"{j}-{k}")
            raw += [(j, (k, m), float(r)) for m, r in ranks.items()]
    [c] = [c for c in ag.campaign_agreement(db).classes if c.name == "rank"]
    assert c.level == "ordinal"
    want = krippendorff.alpha(reliability_data=_matrix(raw), level_of_measurement="ordinal")
    assert c.alpha == pytest.approx(want)
    assert c.kappa is not None                      # ranking kappa of Machacek 2.2.1


def test_nominal_alpha_of_item_marks():
    db = Database([Levels("fluency", 6, firstvalid=1)])
    db.ensure_reference_class()
    rnd = random.Random(7)
    raw = []
    for k in range(15):
        src = db.add_source(f"s{k}", doc="d", seg=str(k + 1))
        t = db.add_target(src, f"c{k}", system="S")
        for j in ("ann", "bob", "cid"):
            marks = tuple(rnd.choice(ITEM_MARKS[:3]) for _ in range(3))
            t.item_marks.append(ItemMarks(marks, j))
            raw += [(j, (k, i), float(ITEM_MARKS.index(m))) for i, m in enumerate(marks)]
    [c] = [c for c in ag.campaign_agreement(db).classes if c.name == "items"]
    assert c.level == "nominal"
    want = krippendorff.alpha(reliability_data=_matrix(raw), level_of_measurement="nominal")
    assert c.alpha == pytest.approx(want)
    assert all(not math.isnan(p.kappa) and math.isnan(p.pearson) for p in c.pairs)
    assert c.kappa is not None and math.isfinite(c.kappa.fleiss)


def test_mqm_alpha_of_penalties_and_adjudicated_left_out():
    db = Database([])
    db.ensure_reference_class()
    pen = {"ann": [], "bob": []}
    for k, (na, nb) in enumerate([(0, 0), (1, 1), (2, 1), (0, 1), (3, 3)]):
        src = db.add_source(f"s{k}", doc="d", seg=str(k + 1))
        t = db.add_target(src, "word " * 10, system="S")
        t.span_annotations = [
            SpanAnnotation("ann", [ErrorSpan("Major", "Accuracy", i, i + 4) for i in range(na)]),
            SpanAnnotation("bob", [ErrorSpan("Major", "Accuracy", i, i + 4) for i in range(nb)]),
            SpanAnnotation(ag.ADJUDICATED, [])]
        pen["ann"].append(5.0 * na)
        pen["bob"].append(5.0 * nb)
    [c] = [c for c in ag.campaign_agreement(db).classes if c.name == "mqm-penalty"]
    assert c.judges == ("ann", "bob")               # the adjudicated judge is no annotator
    want = krippendorff.alpha(reliability_data=[pen["ann"], pen["bob"]],
                              level_of_measurement="interval")
    assert c.alpha == pytest.approx(want)
    with_gold = ag.campaign_agreement(db, gold=ag.ADJUDICATED)
    [c] = [c for c in with_gold.classes if c.name == "mqm-penalty"]
    assert [(p.a, p.b, p.n) for p in c.gold] == [("ann", ag.ADJUDICATED, 5),
                                                 ("bob", ag.ADJUDICATED, 5)]


def test_gold_is_left_out_of_alpha_and_compared_with_everyone():
    db, raw = _campaign(seed=9)
    rep = ag.campaign_agreement(db, gold="ann")
    c = rep.classes[0]
    assert "ann" not in c.judges and all("ann" not in (p.a, p.b) for p in c.pairs)
    want = krippendorff.alpha(reliability_data=_matrix([r for r in raw if r[0] != "ann"]),
                              level_of_measurement="interval")
    assert c.alpha == pytest.approx(want)
    assert sorted(p.a for p in c.gold) == ["bob", "cid", "dan"]
    assert all(p.b == "ann" for p in c.gold)
    with pytest.raises(ScoreError, match="gold judge 'zed' judged nothing"):
        ag.campaign_agreement(db, gold="zed")


# ------------------------------------------------------------------ spans by hand
def E(start, end, sev="Minor", side="target"):
    return ErrorSpan(sev, "Accuracy", start, end, side)


def test_span_counts_worked_by_hand():
    a = [E(0, 4, "Major"), E(10, 12), E(20, 20), ErrorSpan("Minor", "Other")]  # unlocated
    b = [E(2, 6), E(10, 12), E(30, 33)]
    c = ag.span_counts(a, b)
    # characters: A covers 0-3, 10-11 (6); B covers 2-5, 10-11, 30-32 (9); common 2,3,10,11
    ch = c["characters"]
    assert (ch.matched_a, ch.total_a, ch.matched_b, ch.total_b) == (4, 6, 4, 9)
    assert ch.precision == pytest.approx(4 / 6) and ch.recall == pytest.approx(4 / 9)
    assert ch.f1 == pytest.approx(2 * (4 / 6) * (4 / 9) / (4 / 6 + 4 / 9))
    # with severity the Major 0:4 matches nothing: common 10, 11
    chs = c["characters+severity"]
    assert (chs.matched_a, chs.total_a, chs.matched_b, chs.total_b) == (2, 6, 2, 9)
    # spans: A has 3 located (the omission at 20 included), B 3
    assert (c["exact"].matched_a, c["exact"].matched_b) == (1, 1)              # 10:12
    assert (c["overlap"].matched_a, c["overlap"].matched_b) == (2, 2)          # + 0:4 ~ 2:6
    assert c["overlap"].precision == pytest.approx(2 / 3)
    assert (c["overlap+severity"].matched_a, c["overlap+severity"].matched_b) == (1, 1)
    assert (c["exact"].total_a, c["exact"].total_b) == (3, 3)
    # a side is never matched with the other
    assert ag.span_counts([E(0, 4, side="source")], [E(0, 4)])["characters"].matched_a == 0


def test_span_agreement_per_pair_average_and_gold():
    db = Database([])
    db.ensure_reference_class()
    src = db.add_source("s", doc="d", seg="1")
    t = db.add_target(src, "x" * 40, system="S")
    t.span_annotations = [SpanAnnotation("ann", [E(0, 4), E(10, 12)]),
                          SpanAnnotation("bob", [E(0, 4)]),
                          SpanAnnotation("cid", [E(30, 34)])]
    [sp] = ag.campaign_agreement(db).spans
    assert sp.protocol == "mqm" and sp.candidates == 1
    f = {(p.a, p.b): p.counts["exact"].f1 for p in sp.pairs}
    # ann~bob: P 1/2, R 1/1 -> 2/3; ann~cid and bob~cid: nothing matched -> 0
    assert f == {("ann", "bob"): pytest.approx(2 / 3), ("ann", "cid"): 0.0, ("bob", "cid"): 0.0}
    assert sp.average()["exact"]["f1"] == pytest.approx(2 / 9)
    [gsp] = ag.campaign_agreement(db, gold="bob").spans
    assert [(p.a, p.b) for p in gsp.pairs] == [("ann", "cid")]
    g = {p.a: p.counts["exact"] for p in gsp.gold}
    assert g["ann"].precision == 0.5 and g["ann"].recall == 1.0
    assert g["cid"].precision == 0.0 and g["cid"].recall == 0.0
    d = ag.campaign_agreement(db, gold="bob").to_dict()["spans"][0]
    assert d["gold_average"]["exact"]["precision"] == pytest.approx(0.25)


def test_esa_spans_are_compared_apart_from_mqm():
    db = Database([])
    db.ensure_reference_class()
    src = db.add_source("s", doc="d", seg="1")
    t = db.add_target(src, "x" * 40, system="S")
    t.span_annotations = [SpanAnnotation("ann", [E(0, 4)], protocol="esa"),
                          SpanAnnotation("bob", [E(0, 4)], protocol="esa"),
                          SpanAnnotation("ann", [E(10, 14)])]
    rep = ag.campaign_agreement(db)
    assert [s.protocol for s in rep.spans] == ["esa"]            # one MQM annotator only
    assert rep.spans[0].pairs[0].counts["exact"].f1 == 1.0
    assert [c.name for c in rep.classes] == []                   # no MQM pair either


# ------------------------------------------------------------------ properties
spans = st.lists(st.builds(lambda s, n, sev: E(s, s + n, sev), st.integers(0, 30),
                           st.integers(0, 6), st.sampled_from(["Minor", "Major"])),
                 max_size=6)


@settings(max_examples=150, deadline=None)
@given(spans, spans)
def test_f1_is_symmetric(a, b):
    ab, ba = ag.span_counts(a, b), ag.span_counts(b, a)
    for m in ag.SPAN_MODES:
        x, y = ab[m].f1, ba[m].f1
        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y)
        assert (math.isnan(ab[m].precision) and math.isnan(ba[m].recall)) \
            or ab[m].precision == pytest.approx(ba[m].recall)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=2, max_size=20).filter(lambda v: len(set(v)) > 1),
       st.integers(2, 4))
def test_alpha_is_one_for_identical_annotators(values, judges):
    db = Database([Levels("q", 6, firstvalid=1)])
    db.ensure_reference_class()
    for k, v in enumerate(values):
        t = db.add_target(db.add_source(f"s{k}", doc="d", seg=str(k + 1)), f"c{k}", system="S")
        for j in JUDGES[:judges]:
            t.set_score("q", v, j)
    [c] = ag.campaign_agreement(db).classes
    assert c.alpha == pytest.approx(1.0)
    assert all(p.pearson == pytest.approx(1.0) for p in c.pairs)


def test_alpha_is_undefined_without_variation():
    db = Database([Levels("q", 6, firstvalid=1)])
    db.ensure_reference_class()
    t = db.add_target(db.add_source("s", doc="d", seg="1"), "c", system="S")
    t.set_score("q", 3, "ann")
    t.set_score("q", 3, "bob")
    assert math.isnan(ag.campaign_agreement(db).classes[0].alpha)
    assert ag.campaign_agreement(db).to_dict()["classes"][0]["alpha"] is None


# ------------------------------------------------------------------ large data
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(3, 30),
       st.sampled_from(["nominal", "ordinal", "interval"]))
def test_coincidence_alpha_equals_the_package(seed, judges, units, level):
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 6, (judges, units)).astype(float)
    m[rng.random(m.shape) < 0.4] = np.nan
    pairable = (~np.isnan(m)).sum(axis=0) >= 2
    if not pairable.any() or np.unique(m[:, pairable][~np.isnan(m[:, pairable])]).size < 2:
        return
    want = krippendorff.alpha(reliability_data=m, level_of_measurement=level)
    assert ag.coincidence_alpha(m, level) == pytest.approx(want, abs=1e-9)


def test_large_matrices_take_the_coincidence_path(monkeypatch):
    db, raw = _campaign(seed=11)
    want = krippendorff.alpha(reliability_data=_matrix(raw), level_of_measurement="interval")
    called = []
    monkeypatch.setattr(ag, "PACKAGE_CELLS", 10)
    real = ag.coincidence_alpha
    monkeypatch.setattr(ag, "coincidence_alpha", lambda *a: called.append(1) or real(*a))
    assert ag.campaign_agreement(db).classes[0].alpha == pytest.approx(want)
    assert called
