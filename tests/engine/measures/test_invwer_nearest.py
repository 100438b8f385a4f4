"""INVWER's pair phase by candidate: a candidate's references are one
unit, the likely nearest searched in full and the others only up to the least distance
found (kernels.invwer.inv_search ``bound``, inv_nearest). Same statistics as every pair
on its own, under every reference-length rule; exact per-reference distances where a run
reports them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.kernels.invwer import (
    inv_bounded,
    inv_distance_cyk,
    inv_nearest,
    inv_search,
    nearest_order,
    table_bytes,
)
from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.measures.base import Segment, pair_key
from evaltrans_qt.engine.measures.invwer import INVWER
from evaltrans_qt.engine.options import REF_LENGTH_RULES, EvalOptions
from evaltrans_qt.engine.run.corpus import build_corpus
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
from evaltrans_qt.engine.run.schedule import collect_groups, collect_pairs, pair_batches
from evaltrans_qt.engine.run.work import compute_pairs
from tests.engine.run.test_pairwise import _db  # the demo database + a copying and a twin system

words = st.lists(st.integers(0, 3), max_size=7).map(lambda x: np.asarray(x, np.int32))
costs = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)
                  ).filter(lambda c: c[1] + c[2] > 0 or c[0] > 0)


# --------------------------------------------------------------------------- kernel
@settings(max_examples=300, deadline=None)
@given(words, words, costs, st.integers(-2, 12))
def test_bounded_search_is_exact_up_to_the_bound(c, r, k, bound):
    cs, cd, ci, cv = k
    d = int(inv_distance_cyk(c, r, cs, cd, ci, cv)) if len(c) and len(r) else \
        len(c) * cd + len(r) * ci
    got = inv_search(c, r, cs, cd, ci, cv, bound=bound)[0]
    assert got == (d if d <= bound else -1)


def _ratio(d: int, length: int) -> float:
    return d / length if length else (0.0 if d == 0 else np.inf)


@settings(max_examples=400, deadline=None)
@given(words, st.lists(words, min_size=1, max_size=4), costs, st.booleans())
def test_inv_nearest_keeps_the_nearest_and_proves_the_rest_farther(c, refs, k, relative):
    cs, cd, ci, cv = k
    full = [inv_bounded(c, r, cs, cd, ci, cv) for r in refs]
    got = inv_nearest(c, refs, cs, cd, ci, cv, relative=relative)
    key = (lambda d, j: _ratio(d, len(refs[j]))) if relative else (lambda d, j: d)
    least = min(key(x.distance, j) for j, x in enumerate(full))
    for j, (f, g) in enumerate(zip(full, got)):
        if key(f.distance, j) == least:   # every nearest reference, ties included
            assert not g.farther and (g.distance, g.exact) == (f.distance, f.exact)
        elif g.farther:                   # a proven lower bound, beyond the least
            assert key(g.distance, j) > least and g.distance <= f.distance
        else:
            assert (g.distance, g.exact) == (f.distance, f.exact)


def test_inv_nearest_on_a_tight_budget_matches_inv_bounded():
    """Over the budget the first search is the bounded approximation (an upper bound); a
    reference beyond it is beyond the true least distance, and the counted least value is
    inv_bounded's."""
    rng = np.random.default_rng(7)
    seen_approx = 0
    for _ in range(30):
        c = rng.integers(0, 30, 45).astype(np.int32)
        refs = [np.concatenate([c[20:], c[:20]]), rng.permutation(c).astype(np.int32),
                rng.integers(0, 30, 40).astype(np.int32)]
        budget = table_bytes(45, 45, 200) + (1 << 16)
        full = [inv_bounded(c, r, max_bytes=budget) for r in refs]
        got = inv_nearest(c, refs, max_bytes=budget)
        least = min(f.distance for f in full)
        seen_approx += not all(f.exact for f in full)
        assert min(g.distance for g in got if not g.farther) == least
        for f, g in zip(full, got):
            if g.farther:
                assert g.distance > least
            else:
                assert (g.distance, g.exact) == (f.distance, f.exact)
    assert seen_approx


def test_nearest_order_puts_the_closest_bounds_first():
    c = np.arange(10, dtype=np.int32)
    far = np.arange(10, 20, dtype=np.int32)
    near = c.copy()
    near[3] = 99
    assert nearest_order(c, [far, near, c]) == [2, 1, 0]
    assert nearest_order(c, [c, c]) == [0, 1]           # ties keep the order
    # by ratio: 11 edits over 20 words come before 5 over 5 (bag + Levenshtein)
    long_ = np.concatenate([c, np.arange(10, 20, dtype=np.int32)])
    long_[0] = 99
    short = c[:5].copy()
    assert nearest_order(c, [short, long_]) == [0, 1]
    assert nearest_order(c, [short, long_], relative=True) == [1, 0]


# --------------------------------------------------------------------------- driver
def _plain(monkeypatch, db, options, systems):
    """Every pair on its own in the row chunks (INVWER without a pair cost)."""
    with monkeypatch.context() as mp:
        mp.setattr(INVWER, "pair_cost", lambda self, i, l: 0.0)
        return evaluate(db, options, ["invwer"], systems, executor=SerialExecutor())


@pytest.mark.parametrize("rule", REF_LENGTH_RULES)
def test_grouped_pair_phase_gives_the_statistics_of_single_pairs(monkeypatch, rule):
    db = _db()
    options = EvalOptions(allow_transpositions=True, wer_ref_length_rule=rule,
                          transposition_costs=(2, 2, 2, 2, 1))
    systems = db.systems() + ["ref-B"]
    farther: list[int] = []
    original = INVWER.group_values

    def counting(self, hyp, refs):
        out = original(self, hyp, refs)
        farther.extend(1 for v in out if len(v) > 2)
        return out

    monkeypatch.setattr(INVWER, "group_values", counting)
    grouped = evaluate(db, options, ["invwer"], systems, executor=SerialExecutor())
    plain = _plain(monkeypatch, db, options, systems)
    for s in systems:
        np.testing.assert_array_equal(grouped.systems[s].stats["invwer"],
                                      plain.systems[s].stats["invwer"])
        assert grouped.systems[s].scores["invwer"] == plain.systems[s].scores["invwer"]
    assert len(farther) > 20           # the grouped path really ran and pruned


@pytest.mark.parametrize("loo", [(), ("invwer",)])
def test_grouped_pair_phase_in_worker_processes(monkeypatch, loo):
    db = _db()
    options = EvalOptions(allow_transpositions=True, leaving_one_out=loo)
    with LocalProcessExecutor(2) as ex:
        grouped = evaluate(db, options, ["invwer"], executor=ex)
    plain = _plain(monkeypatch, db, options, None)
    for s in grouped.systems:
        np.testing.assert_array_equal(grouped.systems[s].stats["invwer"],
                                      plain.systems[s].stats["invwer"])


def test_reported_reference_distances_are_exact(monkeypatch):
    """A run that reports every reference's distance computes every pair in full; a
    "farther" cache entry read for per-reference distances is searched again."""
    db = _db()
    options = EvalOptions(allow_transpositions=True)
    run = evaluate(db, options, ["invwer"], executor=SerialExecutor(), reference_distances=True)
    vocab, rows, fit, _ = build_corpus(db, options)
    m = get_measure("invwer")(options)
    m.fit(fit, vocab)
    fresh = get_measure("invwer")(options)
    fresh.fit(fit, vocab)
    batches, keys, _ = pair_batches({"invwer": m}, rows, frozenset(), 1, together=True)
    cache = {}
    for b, k in zip(batches, keys):
        cache.update(zip(k, compute_pairs({"invwer": m}, b)))
    assert any(len(v) > 2 for v in cache.values())
    m.pair_cache = cache
    for r in rows[:3]:
        want = run.systems[r.system].ref_distances["invwer"]
        for k, seg in enumerate(r.segments):
            np.testing.assert_array_equal(m.reference_distances(seg), want[k][:len(seg.refs)])
            # the alignment view's reference: the same as without the cache
            assert m.best_reference(seg) == fresh.best_reference(seg)
    none = pair_batches({"invwer": m}, rows, frozenset(), 1, together=False)[0]
    assert all(not b.groups for b in none)


def test_a_pair_shared_by_two_reference_sets_is_its_own_group():
    options = EvalOptions(allow_transpositions=True)
    m = get_measure("invwer")(options)
    h = np.array([1, 2, 3], np.int32)
    a, b, c = (np.array(x, np.int32) for x in ([1, 2], [3, 2, 1], [4]))

    class Rows:
        def __init__(self, segs):
            self.segments = segs

    rows = [Rows([Segment(h, (a, b)), Segment(h, (a, c)), Segment(h, (a, b))])]
    groups = collect_groups(m, "invwer", rows, frozenset())
    keyed = sorted(sorted(k for k, _ in g) for g in groups)
    assert keyed == sorted([[pair_key(h, b)], [pair_key(h, c)], [pair_key(h, a)]])
    assert sum(len(g) for g in groups) == len(collect_pairs(m, "invwer", rows, frozenset()))
    rows = [Rows([Segment(h, (a, b, c)), Segment(h, (a, b, c))])]
    (only,) = collect_groups(m, "invwer", rows, frozenset())
    assert [k for k, _ in only] == [pair_key(h, x) for x in (a, b, c)]


def test_group_cost_is_below_the_pairs_and_grows_with_them():
    m = get_measure("invwer")(EvalOptions(allow_transpositions=True))
    pairs = [m.pair_cost(40, 42), m.pair_cost(40, 38), m.pair_cost(40, 55)]
    g = m.group_cost(pairs)
    assert 0 < g < sum(pairs)
    assert m.group_cost(pairs + [m.pair_cost(40, 60)]) > g
    assert m.group_cost([m.pair_cost(80, 80), *pairs[1:]]) > g
    assert m.group_cost([]) == 0.0
