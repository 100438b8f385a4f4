"""Count-vector kernels for PER, MSDER and skip-bigram PER (thesis section 4.2).

Sentences are packed (``flat``, ``offsets``); a bag is the multiset of ids in
``ids[start:end]``. Word bags (PER, MSDER) are dense vocabulary ids: :func:`bag_l1_batch`
counts them in one dense array. Skip bigrams are exact int64 keys
(:func:`skip_bigram_bags`); :func:`bag_common_batch` counts a candidate's keys once in a
small hash table that compares the keys themselves and looks each reference's keys up in
it. (m-PER counts its m-grams with the n-gram kernel,
:func:`evaltrans_qt.engine.kernels.ngrams.pair_common`.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def bag_l1_batch(ids, a_start, a_end, b_start, b_end, n_ids) -> np.ndarray:
    """Sum_e |n_e - n~_e| of the count vectors of ``ids[a_start[p]:a_end[p]]`` and
    ``ids[b_start[p]:b_end[p]]`` for every pair p (thesis eq. 4.11/4.12). int64[P]."""
    n_pairs = len(a_start)
    out = np.empty(n_pairs, dtype=np.int64)
    cnt = np.zeros(n_ids, dtype=np.int64)
    for p in range(n_pairs):
        for k in range(a_start[p], a_end[p]):
            cnt[ids[k]] += 1
        for k in range(b_start[p], b_end[p]):
            cnt[ids[k]] -= 1
        s = 0
        for k in range(a_start[p], a_end[p]):
            v = cnt[ids[k]]
            s += v if v >= 0 else -v
            cnt[ids[k]] = 0
        for k in range(b_start[p], b_end[p]):
            v = cnt[ids[k]]
            s += v if v >= 0 else -v
            cnt[ids[k]] = 0
        out[p] = s
    return out


def per_from_l1(l1: np.ndarray, hyp_len: np.ndarray, ref_len: np.ndarray, c_sub: float = 1.0,
                c_ins: float = 1.0, c_del: float = 1.0) -> np.ndarray:
    """Thesis eq. 4.11 (fixed costs) from the L1 count difference.

    The thesis' ``c_DEL`` (candidate longer, I >= L) is our ``c_ins`` naming-wise
    (alignment convention: a candidate word without reference is an insertion);
    with the default unit costs both agree. MSDER = ``c_sub = 2`` (thesis section 4.2.1).
    """
    diff = np.abs(np.asarray(hyp_len, dtype=np.float64) - np.asarray(ref_len, dtype=np.float64))
    excess = np.where(np.asarray(hyp_len) >= np.asarray(ref_len), c_ins, c_del) * diff
    return 0.5 * (np.asarray(l1, dtype=np.float64) - diff) * c_sub + excess


# ------------------------------------------------------------------ skip bigrams
@njit(cache=True, nogil=True)
def _skip_bigram_keys(flat, offsets, max_skip, base):
    n_sent = len(offsets) - 1
    out_off = np.zeros(n_sent + 1, dtype=np.int64)
    for s in range(n_sent):
        n = offsets[s + 1] - offsets[s]
        c = 0
        for i in range(n):
            r = n - 1 - i
            c += r if r < max_skip + 1 else max_skip + 1
        out_off[s + 1] = out_off[s] + c
    keys = np.empty(out_off[n_sent], dtype=np.int64)
    t = 0
    for s in range(n_sent):
        a0 = offsets[s]
        a1 = offsets[s + 1]
        for i in range(a0, a1):
            j1 = i + max_skip + 2
            if j1 > a1:
                j1 = a1
            for j in range(i + 1, j1):
                keys[t] = np.int64(flat[i]) * base + flat[j]
                t += 1
    return keys, out_off


@njit(cache=True, nogil=True)
def bag_common_batch(keys, key_off, pair_a, pair_b) -> np.ndarray:
    """Σ_e min(n_e, n~_e) for the bags of exact int64 keys of sentences ``pair_a[p]`` and
    ``pair_b[p]`` (sentence s: ``keys[key_off[s]:key_off[s+1]]``), every pair p. int64[P].

    The first bag is counted in a small hash table (Fibonacci hashing, linear probing,
    keys compared exactly), once for each run of pairs that share it; the second is looked
    up in it. The L1 count difference is then |a| + |b| - 2 Σ min (thesis eq. 4.11/4.12).
    """
    n_pairs = len(pair_a)
    out = np.zeros(n_pairs, dtype=np.int64)
    most = 1
    for s in range(len(key_off) - 1):
        most = max(most, key_off[s + 1] - key_off[s])
    bits = 1
    while (1 << bits) < 2 * most:
        bits += 1
    # slot i: table[2i] = key, table[2i+1] = local id (-1: empty)
    table = np.full(2 << bits, -1, dtype=np.int64)
    cnt = np.zeros(most, dtype=np.int64)
    tmp = np.zeros(most, dtype=np.int64)
    seen = np.empty(most, dtype=np.int64)
    mult = np.uint64(11400714819323198485)
    cur = -1
    mask = 0
    shift = np.uint64(63)
    for p in range(n_pairs):
        a = pair_a[p]
        if a != cur:
            cur = a
            n = key_off[a + 1] - key_off[a]
            lbits = 1
            while (1 << lbits) < 2 * max(n, 1):
                lbits += 1
            table[:2 << lbits] = -1
            mask = (1 << lbits) - 1
            shift = np.uint64(64 - lbits)
            k = 0
            for i in range(key_off[a], key_off[a + 1]):
                key = keys[i]
                h = np.int64((np.uint64(key) * mult) >> shift)
                while table[2 * h + 1] >= 0 and table[2 * h] != key:
                    h = (h + 1) & mask
                x = table[2 * h + 1]
                if x < 0:
                    table[2 * h] = key
                    table[2 * h + 1] = k
                    cnt[k] = 1
                    tmp[k] = 0
                    k += 1
                else:
                    cnt[x] += 1
        b = pair_b[p]
        ns = 0
        for i in range(key_off[b], key_off[b + 1]):
            key = keys[i]
            h = np.int64((np.uint64(key) * mult) >> shift)
            while table[2 * h + 1] >= 0 and table[2 * h] != key:
                h = (h + 1) & mask
            x = table[2 * h + 1]
            if x >= 0:
                if tmp[x] == 0:
                    seen[ns] = x
                    ns += 1
                tmp[x] += 1
        c = 0
        for j in range(ns):
            x = seen[j]
            c += min(tmp[x], cnt[x])
            tmp[x] = 0
        out[p] = c
    return out


def skip_bigram_bags(flat: np.ndarray, offsets: np.ndarray, max_skip: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Exact int64 keys ``a * V + b`` of the skip bigrams of each sentence, in position order
    (for :func:`bag_common_batch`). Returns ``(keys, offsets)``."""
    flat = np.asarray(flat, dtype=np.int64)
    base = int(flat.max()) + 1 if len(flat) else 1
    return _skip_bigram_keys(flat, np.asarray(offsets, dtype=np.int64), int(max_skip), base)


# --------------------------------------------------- plain-Python references
def bag_l1_py(a: Sequence, b: Sequence) -> int:
    ca, cb = Counter(a), Counter(b)
    return sum(abs(ca[k] - cb[k]) for k in set(ca) | set(cb))


def per_py(hyp: Sequence, ref: Sequence) -> float:
    """Thesis eq. 4.12: d_PER = 1/2 (sum |n_e - n~_e| + |I - L|)."""
    return 0.5 * (bag_l1_py(hyp, ref) + abs(len(hyp) - len(ref)))


def ngrams_py(tokens: Sequence, m: int) -> list[tuple]:
    return [tuple(tokens[i:i + m]) for i in range(len(tokens) - m + 1)]


def skip_bigrams_py(tokens: Sequence, max_skip: int) -> list[tuple]:
    return [(tokens[i], tokens[j]) for i in range(len(tokens))
            for j in range(i + 1, min(len(tokens), i + max_skip + 2))]
