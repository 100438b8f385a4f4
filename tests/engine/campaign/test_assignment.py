"""The campaign assignment (engine/campaign/assignment.py): redundancy, balance, no repeats
outside the planned ones, hidden systems, determinism -- properties over random campaigns."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.campaign.assignment import (
    BAD,
    INJECTED,
    REAL,
    REPEAT,
    assign,
    distribute,
    units_of,
)
from evaltrans_qt.engine.campaign.definition import (
    CampaignError,
    Definition,
    QCPlan,
    check_definition,
    parse_qc,
)
from evaltrans_qt.engine.campaign.qc import bad_reference, inject_error, overlaps


def _definition(n_sources: int, n_systems: int, n_annotators: int, r: int, batch: int,
                seed: int, qc: QCPlan = QCPlan(), docs: int = 0) -> Definition:
    systems = tuple(f"sys{k}" for k in range(n_systems))
    items = tuple((i, s) for i in range(n_sources) for s in systems)
    item_docs = tuple(f"doc{i % docs}" for i, _ in items) if docs else ()
    return check_definition(Definition(
        database="db.etdb.xml", protocol="esa", classes=("esa",), systems=systems, items=items,
        annotators=tuple(f"a{k}" for k in range(n_annotators)), redundancy=r, batch=batch,
        documents=bool(docs), seed=seed, qc=qc, item_docs=item_docs, fingerprint="x"))


campaigns = st.builds(
    lambda n, m, a, r_frac, batch, seed: _definition(n, m, a, max(1, round(r_frac * a)), batch,
                                                     seed),
    st.integers(1, 25), st.integers(1, 6), st.integers(1, 7), st.floats(0, 1),
    st.integers(1, 30), st.integers(0, 2**31))


@settings(max_examples=60, deadline=None)
@given(campaigns)
def test_every_item_is_judged_by_r_distinct_annotators(d):
    plans = assign(d)
    judges: dict[int, list[str]] = {}
    for a, p in plans.items():
        reals = p.real_items
        assert len(reals) == len(set(reals)), f"{a} got an item twice"
        for i in reals:
            judges.setdefault(i, []).append(a)
    assert set(judges) == set(range(len(d.items)))
    assert all(len(v) == d.redundancy == len(set(v)) for v in judges.values())


@settings(max_examples=60, deadline=None)
@given(campaigns)
def test_load_is_balanced_within_one_item(d):
    counts = [len(p.real_items) for p in assign(d).values()]
    assert max(counts) - min(counts) <= 1          # one unit; units are single items here
    assert max(counts) - min(counts) <= d.batch


@settings(max_examples=40, deadline=None)
@given(campaigns)
def test_same_definition_same_plan_and_another_seed_another(d):
    a, b = assign(d), assign(d)
    assert a == b
    if len(d.items) >= 8 and len(d.annotators) >= 2:
        other = assign(Definition(**{**d.__dict__, "seed": d.seed + 1}))
        assert [p.slots for p in other.values()] != [p.slots for p in a.values()]


@settings(max_examples=40, deadline=None)
@given(campaigns)
def test_systems_hidden_behind_per_annotator_ids(d):
    plans = assign(d)
    for p in plans.values():
        assert set(p.opaque.values()).isdisjoint(d.systems)
        assert len(set(p.opaque.values())) == len(p.opaque)    # one id per system
    if len(plans) >= 2 and len(d.systems) >= 1:
        ids = [set(p.opaque.values()) for p in plans.values() if p.opaque]
        assert all(x.isdisjoint(y) for k, x in enumerate(ids) for y in ids[k + 1:])


def test_each_annotator_sees_each_system_about_equally_often():
    d = _definition(200, 10, 6, 2, 50, seed=3)
    for p in assign(d).values():
        per = Counter(d.items[i][1] for i in p.real_items)
        expected = len(p.real_items) / 10
        assert set(per) == set(d.systems)
        # a random split would be off by ~8 (the binomial's sd); the tie on systems keeps
        # every count within 5 % of the expected
        assert all(abs(v - expected) <= 0.05 * expected for v in per.values()), per


def test_order_is_shuffled_not_database_order():
    d = _definition(50, 2, 2, 1, 10, seed=0)
    for p in assign(d).values():
        reals = p.real_items
        assert reals != sorted(reals)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.integers(1, 4), st.integers(2, 5), st.integers(1, 20),
       st.integers(0, 1000))
def test_documents_stay_together_and_in_order(n_docs, n_systems, n_annotators, batch, seed):
    d = _definition(3 * n_docs, n_systems, n_annotators, 2 if n_annotators > 2 else 1, batch,
                    seed, qc=QCPlan(repeats=0.2, injected=0.1), docs=n_docs)
    units = units_of(d)
    biggest = max(len(u) for u in units)
    plans = assign(d)
    counts = [len(p.real_items) for p in plans.values()]
    assert max(counts) - min(counts) <= biggest
    for p in plans.values():
        # every unit's real items are consecutive and in database order
        reals = [s for s in p.slots if s.kind == REAL]
        by_unit: dict[int, list[int]] = {}
        positions: dict[int, list[int]] = {}
        for pos, s in enumerate(p.slots):
            if s.kind == REAL:
                by_unit.setdefault(s.unit, []).append(s.item)
                positions.setdefault(s.unit, []).append(pos)
        for u, items in by_unit.items():
            assert items == sorted(items)
            pos = positions[u]
            assert pos == list(range(pos[0], pos[0] + len(pos))), "a document was split"
        # a batch never ends inside a document
        for a, b in zip(p.slots, p.slots[1:]):
            if a.unit == b.unit:
                assert a.batch == b.batch
        assert len(reals) == len(p.real_items)


def test_qc_copies_are_shares_of_own_items_and_repeats_far_apart():
    d = _definition(100, 4, 4, 2, 50, seed=1,
                    qc=parse_qc("bad-refs=0.1,injected=0.1,repeats=0.05"))
    for p in assign(d).values():
        reals = p.real_items
        n = len(reals)
        kinds = Counter(s.kind for s in p.slots)
        assert kinds[BAD] == round(0.1 * n) and kinds[INJECTED] == round(0.1 * n)
        assert kinds[REPEAT] == round(0.05 * n)
        own = set(reals)
        where = {s.item: k for k, s in enumerate(p.slots) if s.kind == REAL}
        for k, s in enumerate(p.slots):
            if s.kind != REAL:
                assert s.item in own                     # the original is in this bundle
                assert abs(where[s.item] - k) >= (n // 2 if s.kind == REPEAT else 2) - 1


def test_bad_input_refused():
    base = _definition(3, 1, 1, 1, 5, 0).__dict__
    with pytest.raises(CampaignError, match="named twice"):
        check_definition(Definition(**{**base, "annotators": ("a", "b", "a")}))
    with pytest.raises(CampaignError, match="redundancy 3"):
        _definition(3, 1, 2, 3, 5, 0)
    with pytest.raises(CampaignError, match="segranks"):
        check_definition(Definition(**{**_definition(3, 1, 1, 1, 5, 0).__dict__,
                                       "protocol": "segranks"}))
    with pytest.raises(CampaignError, match="at least 2 candidates"):
        check_definition(Definition(**{**_definition(3, 1, 1, 1, 5, 0).__dict__,
                                       "protocol": "ranking", "classes": ("rank",),
                                       "rank_size": 1}))
    from evaltrans_qt.engine.campaign.definition import TutorialItem
    with pytest.raises(CampaignError, match="--tutorial"):
        check_definition(Definition(**{**_definition(3, 2, 1, 1, 5, 0).__dict__,
                                       "protocol": "ranking", "classes": ("rank",),
                                       "tutorial": (TutorialItem("s", "c", {"rank": 1.0}),)}))
    with pytest.raises(CampaignError, match="bad-refs"):
        parse_qc("bad-refs")
    with pytest.raises(CampaignError, match="injected errors"):
        check_definition(Definition(**{**_definition(3, 1, 1, 1, 5, 0).__dict__,
                                       "protocol": "sser", "qc": QCPlan(injected=0.1)}))


def test_distribute_puts_no_unit_twice_on_one_annotator():
    d = _definition(30, 3, 3, 3, 10, seed=9)
    for units in distribute(d).values():
        assert len(units) == len(set(units)) == 90


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="abc xyz", min_size=0, max_size=60), st.integers(0, 10**6))
def test_bad_reference_always_differs_and_injection_span_marks_the_change(text, seed):
    rng = random.Random(seed)
    bad = bad_reference(text, "the quick brown fox jumps", rng)
    if text.split():
        assert bad != text
    new, (s, e), kind = inject_error(text, random.Random(seed))
    assert 0 <= s <= e <= len(new)
    assert new != text or kind == "swap"      # swapping two equal words changes nothing
    if kind == "swap":
        assert sorted(new) == sorted(text)
    if kind == "delete":
        assert len(new.split()) == len(text.split()) - 1
    assert overlaps((s, e), (s, e)) and overlaps((s, s), (s, e))
    assert not overlaps((e + 1, e + 2), (s, e))


def test_tutorial_answers_are_checked_with_feedback():
    from evaltrans_qt.engine.campaign.definition import TutorialItem, tutorial_check
    t = TutorialItem("ein Haus", "a hose", {"esa": 40.0}, ((2, 6),), tolerance=15,
                     feedback="'hose' is a wrong word: a major error.")
    assert tutorial_check(t, {"esa": 50}, [(2, 4)]) == (True, t.feedback)
    ok, text = tutorial_check(t, {"esa": 90}, [])
    assert not ok and "esa: expected 40 ± 15, given 90" in text and "'hose'" in text
    assert text.endswith(t.feedback)
    assert not tutorial_check(t, {}, [(2, 6)])[0]


def _ranking(n_sources: int, n_systems: int, n_annotators: int, r: int, k: int, seed: int,
             repeats: float = 0.0) -> Definition:
    d = _definition(n_sources, n_systems, n_annotators, r, 7, seed)
    return check_definition(Definition(**{**d.__dict__, "protocol": "ranking",
                                          "classes": ("rank",), "rank_size": k,
                                          "qc": QCPlan(repeats=repeats, bad_refs=repeats)}))


rankings = st.builds(
    lambda n, m, a, r_frac, k, seed, rep: _ranking(n, m, a, max(1, round(r_frac * a)), k, seed,
                                                   rep),
    st.integers(1, 12), st.integers(2, 9), st.integers(1, 6), st.floats(0, 1),
    st.integers(2, 6), st.integers(0, 2**31), st.sampled_from([0.0, 0.3]))


@settings(max_examples=50, deadline=None)
@given(rankings)
def test_ranking_units_and_their_assignment(d):
    units = units_of(d)
    # every candidate in exactly one unit; a unit is one source's, 2..k (3 when k = 2)
    assert sorted(i for u in units for i in u) == list(range(len(d.items)))
    assert all(len({d.items[i][0] for i in u}) == 1 for u in units)
    assert all(2 <= len(u) <= max(d.rank_size, 3) for u in units)
    plans = assign(d)
    assert plans == assign(d)                                  # deterministic
    got: Counter = Counter()
    for p in plans.values():
        screens: dict[int, list] = {}
        for s in p.slots:
            screens.setdefault(s.unit, []).append(s)
        for unit_slots in screens.values():                    # a screen is a whole unit
            items = sorted(s.item for s in unit_slots if s.kind != BAD)
            assert tuple(items) in set(units)
            kinds = [s.kind for s in unit_slots]
            assert set(kinds) in ({REAL}, {REPEAT}, {REAL, BAD})
            bad = [s for s in unit_slots if s.kind == BAD]     # at most one, of the screen
            assert len(bad) <= 1 and all(s.item in items for s in bad)
            assert len({s.batch for s in unit_slots}) == 1      # never split by a batch
            if REAL in kinds:
                got[tuple(items)] += 1
        reals = p.real_items
        assert len(reals) == len(set(reals))                   # no unit twice but repeats
        n_real = len({s.unit for s in p.slots if s.kind == REAL})
        repeated = {s.unit for s in p.slots if s.kind == REPEAT}
        assert len(repeated) == min(n_real, round(d.qc.repeats * n_real))
        assert sum(s.kind == BAD for s in p.slots) == min(n_real, round(d.qc.bad_refs * n_real))
    assert all(got[tuple(sorted(u))] == d.redundancy for u in units)   # r distinct annotators
    counts = [len(p.real_items) for p in plans.values()]          # balanced within one unit
    assert max(counts) - min(counts) <= max(len(u) for u in units)


def test_ranking_shuffles_the_candidates_inside_a_unit():
    d = _ranking(30, 5, 2, 1, 5, 1)
    orders = [tuple(s.item for s in p.slots if s.unit == u)
              for p in assign(d).values() for u in {s.unit for s in p.slots}]
    assert any(list(o) != sorted(o) for o in orders)           # not in database order
    assert all(len(o) == 5 for o in orders)
