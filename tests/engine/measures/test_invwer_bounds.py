"""INVWER search bounds: the outside bound h of every bispan -- the bag
bounds and the run bounds -- is admissible and consistent, checked against exact inside and
outside costs (eq. 4.24) of small random pairs; the run tables against a brute-force
enumeration of their relaxation; the search with and without the run bounds on random
pairs (repeated words, zero costs, the int16 table, the budget fallback)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.kernels import invwer as K
from evaltrans_qt.engine.kernels.invwer import (
    inv_bounded,
    inv_distance,
    inv_distance_cyk,
    inv_distance_py,
    inv_inside_py,
    inv_search,
)
from tests.engine.measures.test_invwer import ids


def rand_pair(rng, n_max: int, vocab: int, n_min: int = 1):
    a = rng.integers(0, vocab, int(rng.integers(n_min, n_max + 1))).astype(np.int32)
    b = rng.integers(0, vocab, int(rng.integers(n_min, n_max + 1))).astype(np.int32)
    return a, b


def splits(p):
    """(x, y, extra) for every child x of bispan p with sibling y (straight, inverted)."""
    i0, i1, l0, l1 = p
    for ip in range(i0, i1 + 1):
        for lp in range(l0, l1 + 1):
            if (ip, lp) not in ((i0, l0), (i1, l1)):
                x, y = (i0, ip, l0, lp), (ip, i1, lp, l1)
                yield x, y, 0
                yield y, x, 0
            if (ip, lp) not in ((i0, l1), (i1, l0)):
                x, y = (i0, ip, lp, l1), (ip, i1, l0, lp)
                yield x, y, 1
                yield y, x, 1


def exact_outside(q, I, L, c_inv):
    """Least cost of the rest of a tree that has the bispan as a node (0 for the root)."""
    out = {(0, I, 0, L): 0}
    spans = sorted(((i0, i1, l0, l1) for i0 in range(I + 1) for i1 in range(i0, I + 1)
                    for l0 in range(L + 1) for l1 in range(l0, L + 1)),
                   key=lambda s: -(s[1] - s[0] + s[3] - s[2]))
    for p in spans:
        if p not in out:
            continue
        for x, y, inv in splits(p):
            v = out[p] + q(*y) + inv * c_inv
            if v < out.get(x, v + 1):
                out[x] = v
    return out


def kernel_h(a, b, costs, runs: bool):
    """h of every bispan as the search stores it (int16 table, capped at ub + 1)."""
    c, r, V = K._local_ids(a, b)
    ub = int(K.lev_costs(c, r, *costs[:3]))
    I, L = len(c), len(r)
    bh = np.empty(I * (I + 1) * L * (L + 1) // 2, np.int16)
    K._init_h(c, r, V, *costs, ub, bh, 32767, runs)
    NR = L * (L + 1) // 2

    def h(i0, i1, l0, l1):
        return int(bh[2 * ((i1 * (i1 - 1) // 2 + i0) * NR + l1 * (l1 - 1) // 2 + l0) + 1])
    return h


def nonempty(x):
    return x[1] > x[0] and x[3] > x[2]


COSTS = [(1, 1, 1, 1), (1, 1, 1, 2), (2, 1, 1, 1), (3, 1, 2, 1), (1, 2, 1, 0), (0, 1, 1, 1),
         (1, 0, 1, 1), (2, 3, 1, 3)]


@pytest.mark.parametrize("costs", COSTS)
def test_h_is_admissible_and_consistent(costs):
    """For every bispan x: h(x) <= the exact outside cost; for every parent p of x with
    sibling y: h(x) <= Q(y) (+ c_inv if p is inverted) + h(p). Both with and without the
    run bounds; the run bounds must raise h somewhere (else this test checks nothing new)."""
    rng = np.random.default_rng(sum(costs) * 7 + costs[0])
    raised = 0
    for _ in range(12):
        a, b = rand_pair(rng, 6, 3, 2)
        I, L = len(a), len(b)
        q = inv_inside_py(a.tolist(), b.tolist(), *costs)   # Q of every bispan (eq. 4.24)
        out = exact_outside(q, I, L, costs[3])
        h_old = kernel_h(a, b, costs, False)
        h_new = kernel_h(a, b, costs, True)
        for x in out:
            if not nonempty(x):
                continue
            assert h_old(*x) <= h_new(*x) <= out[x], (a, b, x)
            raised += h_new(*x) > h_old(*x)
        for p in out:
            if not nonempty(p):
                continue
            for x, y, inv in splits(p):
                if nonempty(x):
                    assert h_new(*x) <= q(*y) + inv * costs[3] + h_new(*p), (a, b, p, x, y)
    if costs[3] > 0 and min(costs[0], costs[1] + costs[2]) > 0:
        assert raised > 0


def bag(n_c, n_r, m, costs):
    """Bag (PER) cost of n_c candidate and n_r reference words with m identical pairs."""
    c_sub, c_del, c_ins, _ = costs
    s, k = min(c_sub, c_del + c_ins), min(n_c, n_r)
    return (k - m) * s + (n_c - k) * c_del + (n_r - k) * c_ins


def bag_h_py(a, b, costs, x):
    """The bag bounds of h by direct counting (module doc: no inverted ancestor, crossing
    one way only, two or more inversions)."""
    i0, i1, l0, l1 = x
    A, B, C, D = (Counter(v) for v in (a[:i0], a[i1:], b[:l0], b[l1:]))
    words = set(A) | set(B) | set(C) | set(D)
    full = sum(min(A[w] + B[w], C[w] + D[w]) for w in words)
    bc = sum(min(A[w] + B[w], C[w] + D[w], B[w] + C[w]) for w in words)
    ad = sum(min(A[w] + B[w], C[w] + D[w], A[w] + D[w]) for w in words)
    n_c, n_r = len(a) - (i1 - i0), len(b) - (l1 - l0)
    zero = (bag(i0, l0, sum((A & C).values()), costs)
            + bag(len(a) - i1, len(b) - l1, sum((B & D).values()), costs))
    return min(zero, bag(n_c, n_r, max(bc, ad), costs) + costs[3],
               bag(n_c, n_r, full, costs) + 2 * costs[3])


@pytest.mark.parametrize("costs", COSTS[:5])
def test_bag_bounds_equal_direct_counting(costs):
    """The table's h without the run bounds equals the bag bounds counted directly."""
    rng = np.random.default_rng(300 + sum(costs))
    for _ in range(10):
        a, b = rand_pair(rng, 9, 4)
        ub = int(K.lev_costs(*K._local_ids(a, b)[:2], *costs[:3]))
        h = kernel_h(a, b, costs, False)
        for x in itertools.product(range(len(a) + 1), range(len(a) + 1), range(len(b) + 1),
                                   range(len(b) + 1)):
            if nonempty(x):
                assert h(*x) == min(bag_h_py(a.tolist(), b.tolist(), costs, x), ub + 1), x


def runs_brute(c, r, i, l0, l1, s, c_inv):
    """The relaxation of ``_runs`` by enumeration: every map of a subset of c[:i] to equal
    words of r outside [l0, l1) (a reference word may be used again)."""
    options = [[None] + [j for j in range(len(r)) if r[j] == c[k] and not l0 <= j < l1]
               for k in range(i)]
    best = 0
    for choice in itertools.product(*options):
        seq = [j for j in choice if j is not None]
        des = sum(1 for u, v in zip(seq, seq[1:]) if v <= u)
        if seq and seq[-1] >= l1:
            des += 1
        best = min(best, -s * len(seq) + c_inv * des)
    return best


@pytest.mark.parametrize("seed", range(8))
def test_run_tables_equal_their_definition(seed):
    rng = np.random.default_rng(100 + seed)
    a, b = rand_pair(rng, 6, 3)
    c, r, V = K._local_ids(a, b)
    s, c_inv = int(rng.integers(0, 4)), int(rng.integers(0, 4))
    A, B, RA, RB = K._run_tables(c, r, V, s, c_inv)
    I, L = len(c), len(r)
    cr, rr = c[::-1].tolist(), r[::-1].tolist()
    for l0 in range(L):
        for l1 in range(l0 + 1, L + 1):
            for i in range(I + 1):
                assert A[i, l1, l0] == runs_brute(c.tolist(), r.tolist(), i, l0, l1, s, c_inv)
                assert B[i, l1, l0] == runs_brute(cr, rr, I - i, L - l1, L - l0, s, c_inv)
    for i0 in range(I):
        for i1 in range(i0 + 1, I + 1):
            for l in range(L + 1):
                assert RA[i0, i1, l] == runs_brute(r.tolist(), c.tolist(), l, i0, i1, s, c_inv)
                assert RB[i0, i1, l] == runs_brute(rr, cr, L - l, I - i1, I - i0, s, c_inv)


def search(a, b, costs=(1, 1, 1, 1), runs=True, **kw):
    saved = K.RUNS_MIN_CELLS, K.RUNS_MIN_GAP
    K.RUNS_MIN_CELLS, K.RUNS_MIN_GAP = (0, 0) if runs else (1 << 60, 1 << 60)
    try:
        return inv_search(a, b, *costs, **kw)
    finally:
        K.RUNS_MIN_CELLS, K.RUNS_MIN_GAP = saved


def spy_astar(monkeypatch, pick=lambda args: args[-1], runs_everywhere: bool = True) -> list:
    """Record ``pick(args)`` of every :func:`_astar` call (default: whether it used the run
    bounds); with ``runs_everywhere`` the run bounds apply to every pair size and gap."""
    calls: list = []
    real = K._astar

    def spy(*args):
        calls.append(pick(args))
        return real(*args)

    monkeypatch.setattr(K, "_astar", spy)
    if runs_everywhere:
        monkeypatch.setattr(K, "RUNS_MIN_CELLS", 0)
        monkeypatch.setattr(K, "RUNS_MIN_GAP", 0)
    return calls


words = st.lists(st.sampled_from("abcde"), min_size=0, max_size=10)
costs4 = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))


@settings(max_examples=120, deadline=None)
@given(words, words, costs4)
def test_with_runs_equals_cyk(a, b, c):
    voc: dict = {}
    x, y = ids(a, voc), ids(b, voc)
    assert search(x, y, c)[0] == inv_distance_cyk(x, y, *c)


@pytest.mark.parametrize("seed", range(40))
def test_with_and_without_runs_agree_on_longer_pairs(seed):
    """20-40 words, 4-12 word types (many repeated words), random costs; every tenth pair
    with costs x40 (upper bound >= 120: the int16 table)."""
    rng = np.random.default_rng(seed)
    a, b = rand_pair(rng, 40, int(rng.integers(4, 13)), 20)
    costs = tuple(int(v) for v in rng.integers(0, 4, 4))
    if seed % 10 == 0:
        costs = tuple(40 * max(1, v) for v in costs)
    d_runs = search(a, b, costs, True)
    d_plain = search(a, b, costs, False)
    assert d_runs[0] == d_plain[0]
    if seed % 10 == 0:
        assert K.lev_costs(*K._local_ids(a, b)[:2], *costs[:3]) >= 120


@pytest.mark.parametrize("seed", range(6))
def test_tree_searches_go_without_the_run_bounds(seed, monkeypatch):
    """A tree search keeps the bag bounds alone (the same tree among equally cheap ones as
    before the run bounds); its tree is optimal and its distance that of the distance-only
    search with the run bounds."""
    calls = spy_astar(monkeypatch, lambda args: (args[8], args[-1]))   # (want_tree, runs)
    rng = np.random.default_rng(200 + seed)
    a, b = rand_pair(rng, 7, 3)
    costs = tuple(int(v) for v in rng.integers(0, 4, 4))
    d, ops, invs, _ = inv_search(a, b, *costs, want_tree=True)
    assert d == inv_search(a, b, *costs)[0] == inv_distance_py(a.tolist(), b.tolist(), *costs)
    assert calls == [(True, False), (False, True)]
    c_sub, c_del, c_ins, c_inv = costs
    total = c_inv * len(invs)
    for code, _i, _l in ops.tolist():
        total += {K.OP_MATCH: 0, K.OP_SUB: c_sub, K.OP_CAND: c_del, K.OP_REF: c_ins}[code]
    assert total == d


def test_budget_without_room_for_the_run_tables_is_still_exact(monkeypatch):
    """A budget that holds the table but not the run tables: searched without them."""
    calls = spy_astar(monkeypatch)
    rng = np.random.default_rng(5)
    a, b = rand_pair(rng, 12, 4, 8)
    ub = int(K.lev_costs(*K._local_ids(a, b)[:2], 1, 1, 1))
    fixed = K.table_bytes(len(a), len(b), ub)
    res = inv_bounded(a, b, max_bytes=fixed + K.runs_bytes(len(a), len(b)) - 1)
    assert res.exact and res.distance == inv_distance_cyk(a, b, 1, 1, 1, 1)
    assert calls == [False]
    res = inv_bounded(a, b, max_bytes=fixed + K.runs_bytes(len(a), len(b)))
    assert res.exact and calls == [False, True]


def test_search_over_budget_with_runs_is_repeated_without(monkeypatch):
    """The retry: a search that runs out of memory with the run bounds is run again
    without them (so no pair is less exact than before)."""
    calls = []
    real = K._astar

    def fake(*args):
        calls.append(args[-1])
        if args[-1]:
            return K._OVER_BUDGET, np.empty((0, 3), np.int32), np.empty((0, 8), np.int32), 0
        return real(*args)

    monkeypatch.setattr(K, "_astar", fake)
    monkeypatch.setattr(K, "RUNS_MIN_CELLS", 0)
    monkeypatch.setattr(K, "RUNS_MIN_GAP", 0)
    rng = np.random.default_rng(9)
    a, b = rand_pair(rng, 12, 4, 8)
    assert inv_search(a, b, max_bytes=1 << 30)[0] == inv_distance_cyk(a, b, 1, 1, 1, 1)
    assert calls == [True, False]


def test_pieces_of_the_approximation_go_without_the_run_bounds(monkeypatch):
    """Searches with a pop budget (the approximation's pieces) keep the bag bounds alone,
    so the pieces are cut where they were before the run bounds."""
    calls = spy_astar(monkeypatch, lambda args: (args[-2], args[-1]))  # (max_pops, runs)
    rng = np.random.default_rng(13)
    a, b = rand_pair(rng, 45, 10, 45)
    res = inv_bounded(a, b, max_bytes=3 << 20)
    assert not res.exact and calls
    assert any(pops > 0 for pops, _ in calls)
    assert all(not runs for pops, runs in calls if pops > 0)


def test_nearly_monotone_pairs_go_without_the_run_bounds(monkeypatch):
    """Upper bound within RUNS_MIN_GAP of the bag bound: the tables would cost more than
    they save; a pair with a swapped phrase far from it uses them."""
    calls = spy_astar(monkeypatch, runs_everywhere=False)
    a = np.arange(40, dtype=np.int32)
    b = a.copy()
    b[5], b[6] = a[6], a[5]                          # Levenshtein 2, bag 0: gap 2
    assert inv_search(a, b)[0] == 1 and calls == [False]
    b = np.concatenate([a[20:], a[:20]])             # Levenshtein 40, bag 0
    assert inv_search(a, b)[0] == 1 and calls == [False, True]


def test_tiny_budget_still_gives_a_valid_upper_bound():
    rng = np.random.default_rng(11)
    a, b = rand_pair(rng, 45, 10, 45)
    res = inv_bounded(a, b, want_tree=True, max_bytes=3 << 20)
    assert not res.exact and res.distance >= inv_distance(a, b)
