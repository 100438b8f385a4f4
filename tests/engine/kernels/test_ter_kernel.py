"""The pieces of the TER kernel's candidate scoring (kernels/ter.py), each against a plain
statement: the bit-parallel plain edit distance (one and several 64-word blocks), the
backward beam matrix, the outside-the-beam bound, and the whole search on long and very
unequal sentences against sacreBLEU."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein
from sacrebleu.metrics.lib_ter import translation_edit_rate

from evaltrans_qt.engine.kernels import ter as T


def _plain(h, r) -> int:
    return Levenshtein.distance(list(h), list(r))


def _beam_matrix(h, r):
    """The beam edit-distance matrix of the kernel's forward fill (INF outside the beam)."""
    n_h, n_r = len(h), len(r)
    ratio, bw = T._beam(n_h, n_r)
    dist = np.empty((n_h + 1, n_r + 1), np.int64)
    dist[0] = np.arange(n_r + 1)
    T._fill_rows(h, r, n_h, n_r, ratio, bw, 0, n_h, dist)
    return dist, ratio, bw


def _bits(h, r):
    """Every row's plain distance to the whole reference, by the bit-parallel kernels."""
    n_h, n_r = len(h), len(r)
    n_b = (n_r + 63) >> 6
    masks = np.zeros((n_h, n_b), np.uint64)
    T._match_masks(h, r, masks)
    top = np.uint64(1) << np.uint64((n_r - 1) & 63)
    sc = np.zeros(n_h + 1, np.int64)
    sc[0] = n_r
    if n_r <= 64:
        vp = np.zeros(n_h + 1, np.uint64)
        vn = np.zeros(n_h + 1, np.uint64)
        vp[0] = T._ALL
        T._bit_rows1(masks[:, 0].copy(), 0, n_h, top, vp, vn, sc, True)
    else:
        vp = np.zeros((n_h + 1, n_b), np.uint64)
        vn = np.zeros((n_h + 1, n_b), np.uint64)
        vp[0] = T._ALL
        T._bit_rows(masks, np.arange(n_h), 0, n_h, top, vp, vn, sc, True,
                    np.zeros(n_b, np.uint64), np.zeros(n_b, np.uint64))
    return sc


@pytest.mark.parametrize("n_r", [1, 2, 63, 64, 65, 127, 128, 129, 200])
def test_bit_parallel_rows_equal_plain_levenshtein(n_r):
    rnd = random.Random(n_r)
    for _ in range(20):
        n_h = rnd.randrange(0, 160)
        a = rnd.choice([2, 4, 30])
        h = np.asarray([rnd.randrange(a) for _ in range(n_h)], np.int32)
        r = np.asarray([rnd.randrange(a) for _ in range(n_r)], np.int32)
        sc = _bits(h, r)
        assert list(sc) == [_plain(h[:i], r) for i in range(n_h + 1)]


def test_bit_parallel_restarts_from_a_stored_row():
    """A candidate starts from the state of the first row it changes (prefix re-use)."""
    rnd = random.Random(5)
    for n_r in (30, 100):
        r = np.asarray([rnd.randrange(5) for _ in range(n_r)], np.int32)
        h = np.asarray([rnd.randrange(5) for _ in range(90)], np.int32)
        g = h.copy()
        g[40:] = rnd.sample(list(h[40:]), 50)
        n_b = (n_r + 63) >> 6
        masks = np.zeros((180, n_b), np.uint64)
        T._match_masks(np.concatenate([h, g]), r, masks)
        top = np.uint64(1) << np.uint64((n_r - 1) & 63)
        vp = np.zeros((91, n_b), np.uint64)
        vn = np.zeros((91, n_b), np.uint64)
        vp[0] = T._ALL
        sc = np.zeros(91, np.int64)
        sc[0] = n_r
        tv, tn = np.zeros(n_b, np.uint64), np.zeros(n_b, np.uint64)
        T._bit_rows(masks, np.arange(90), 0, 90, top, vp, vn, sc, True, tv, tn)
        order = np.concatenate([np.arange(40), 90 + np.arange(40, 90)])
        got = T._bit_rows(masks, order, 40, 90, top, vp, vn, sc, False, tv, tn)
        assert got == _plain(g, r)
        assert sc[90] == _plain(h, r)     # the stored rows are left alone


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=70), st.lists(st.integers(0, 3), max_size=70))
def test_backward_matrix_meets_the_forward_one_on_every_row(h, r):
    """min_j dist[e, j] + back[e, j] is the beam distance for every row e (the candidate
    score of the rows a shift leaves alone); filling ``back`` in two steps gives the same."""
    h, r = np.asarray(h, np.int32), np.asarray(r, np.int32)
    if not len(r):
        return
    n_h, n_r = len(h), len(r)
    dist, ratio, bw = _beam_matrix(h, r)
    back = np.empty((n_h + 1, n_r + 1), np.int64)
    T._fill_back(h, r, n_h, n_r, ratio, bw, back, n_h, 0)
    for e in range(n_h + 1):
        assert min(dist[e] + back[e]) == dist[n_h, n_r]
    back2 = np.empty_like(back)
    mid = n_h // 2
    T._fill_back(h, r, n_h, n_r, ratio, bw, back2, n_h, mid)
    T._fill_back(h, r, n_h, n_r, ratio, bw, back2, mid - 1, 0)
    np.testing.assert_array_equal(back, back2)


def test_outside_bound_is_a_bound_and_plain_distance_below_it_is_the_beam_distance():
    rnd = random.Random(11)
    seen_outside = seen_equal = 0
    for _ in range(300):
        n_h = rnd.randrange(1, 120)
        n_r = rnd.randrange(1, 120)
        a = rnd.choice([2, 3, 10])
        h = np.asarray([rnd.randrange(a) for _ in range(n_h)], np.int32)
        r = np.asarray([rnd.randrange(a) for _ in range(n_r)], np.int32)
        dist, ratio, bw = _beam_matrix(h, r)
        bound = T._outside_bound(n_h, n_r, ratio, bw)
        plain = _plain(h, r)
        assert dist[n_h, n_r] >= plain
        if plain < bound:
            seen_equal += 1
            assert dist[n_h, n_r] == plain
        if bound < T.INF:
            seen_outside += 1
            # every cell outside the beam really is that far: |i-j| + |(n_h-i)-(n_r-j)|
            for i in range(1, n_h + 1):
                lo, hi = T._row_span(i, n_h, n_r, ratio, bw)
                for j in list(range(lo)) + list(range(hi, n_r + 1)):
                    assert abs(i - j) + abs((n_h - i) - (n_r - j)) >= bound
    assert seen_outside > 50 and seen_equal > 50


@pytest.mark.parametrize("seed,n_h,n_r,alphabet", [
    (21, 70, 100, 8),   # reference over 64 words: two-block bit rows
    (22, 110, 60, 6),   # hypothesis much longer: candidates outside the beam's bound
    (23, 40, 140, 5),   # three blocks, beam widened
])
def test_long_and_unequal_sentences_equal_sacrebleu(seed, n_h, n_r, alphabet):
    rnd = random.Random(seed)
    h = [rnd.randrange(alphabet) for _ in range(n_h)]
    r = [rnd.randrange(alphabet) for _ in range(n_r)]
    want = translation_edit_rate([str(x) for x in h], [str(x) for x in r])[0]
    assert T.ter_edits(np.asarray(h, np.int32), np.asarray(r, np.int32)) == want


@pytest.mark.parametrize("seed", [18394, 10130, 6094, 1125])
def test_beam_bound_cases_equal_sacrebleu(seed):
    """Short candidates against much longer references, where some shift candidates' plain
    edit distance is below their beam distance: scoring them by the plain distance (without
    the outside-the-beam check) gives a different TER for each of these seeds."""
    rnd = random.Random(seed)
    n_h, n_r, a = rnd.randrange(10, 60), rnd.randrange(5, 140), rnd.choice([2, 3, 4, 6])
    h = [rnd.randrange(a) for _ in range(n_h)]
    r = [rnd.randrange(a) for _ in range(n_r)]
    want = translation_edit_rate([str(x) for x in h], [str(x) for x in r])[0]
    assert T.ter_edits(np.asarray(h, np.int32), np.asarray(r, np.int32)) == want
