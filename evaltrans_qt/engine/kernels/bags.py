"""Count-vector kernels for PER, MSDER, m-PER and skip-bigram PER (thesis section 4.2).

Sentences are packed (``flat``, ``offsets``); a bag is the multiset of ids in
``ids[start:end]``. m-grams and skip bigrams are first *interned* to dense
int64 ids (exactly: a hash table that compares the keys themselves), so every count-vector distance is
the same compiled kernel :func:`bag_l1_batch` over id ranges.
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


# ------------------------------------------------------------------ interning
@njit(cache=True, nogil=True)
def _table_insert(slot_key, slot_val, bits, key, val):
    mask = (1 << bits) - 1
    h = np.int64((np.uint64(key) * np.uint64(11400714819323198485)) >> np.uint64(64 - bits))
    while slot_val[h] >= 0:
        h = (h + 1) & mask
    slot_key[h] = key
    slot_val[h] = val


@njit(cache=True, nogil=True)
def intern_keys(keys):
    """Dense ids 0..k-1 for int64 keys in order of first occurrence.

    Exact: an open-addressing hash table (Fibonacci hashing, linear probing)
    that stores and compares the keys themselves; it doubles at load 1/2.
    """
    n = len(keys)
    bits = 10
    slot_key = np.empty(1 << bits, dtype=np.int64)
    slot_val = np.full(1 << bits, -1, dtype=np.int64)
    uniq = np.empty(max(n, 1), dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    k = 0
    mult = np.uint64(11400714819323198485)
    for i in range(n):
        key = keys[i]
        mask = (1 << bits) - 1
        h = np.int64((np.uint64(key) * mult) >> np.uint64(64 - bits))
        while True:
            v = slot_val[h]
            if v < 0:
                slot_key[h] = key
                slot_val[h] = k
                uniq[k] = key
                out[i] = k
                k += 1
                break
            if slot_key[h] == key:
                out[i] = v
                break
            h = (h + 1) & mask
        if 2 * k > (1 << bits):
            bits += 1
            slot_key = np.empty(1 << bits, dtype=np.int64)
            slot_val = np.full(1 << bits, -1, dtype=np.int64)
            for j in range(k):
                _table_insert(slot_key, slot_val, bits, uniq[j], j)
    return out, k


def _intern(keys: np.ndarray) -> tuple[np.ndarray, int]:
    ids, k = intern_keys(np.ascontiguousarray(keys, dtype=np.int64))
    return ids, int(k)


def ngram_ids(flat: np.ndarray, offsets: np.ndarray, max_n: int) -> list[tuple[np.ndarray, int]]:
    """Dense ids of all m-grams, m = 1..max_n, of packed sentences.

    Returns ``[(ids_m, n_ids_m) for m in 1..max_n]``; ``ids_m[p]`` is the id of
    the m-gram starting at flat position ``p`` (-1 where it would cross the end
    of its sentence). Equal m-grams get equal ids (exact interning).
    """
    flat = np.asarray(flat, dtype=np.int64)
    n = len(flat)
    lengths = np.diff(offsets)
    ends = np.repeat(np.asarray(offsets[1:], dtype=np.int64), lengths)
    pos = np.arange(n, dtype=np.int64)
    base = int(flat.max()) + 1 if n else 1
    out = [(flat, base)]  # unigram ids are already dense vocabulary ids
    prev = flat
    for m in range(2, max_n + 1):
        cur = np.full(n, -1, dtype=np.int64)
        valid = (prev >= 0) & (pos + m - 1 < ends)
        vpos = pos[valid]
        keys = prev[valid] * base + flat[vpos + m - 1]
        ids, k = _intern(keys)
        cur[vpos] = ids
        out.append((cur, k))
        prev = cur
    return out


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
def _sort_runs(keys, off):
    for s in range(len(off) - 1):
        keys[off[s]:off[s + 1]].sort()


@njit(cache=True, nogil=True)
def sorted_l1_batch(keys, a_start, a_end, b_start, b_end) -> np.ndarray:
    """Like :func:`bag_l1_batch` for exact int64 keys whose runs are sorted: merge two runs."""
    n_pairs = len(a_start)
    out = np.empty(n_pairs, dtype=np.int64)
    for p in range(n_pairs):
        i = a_start[p]
        j = b_start[p]
        ie = a_end[p]
        je = b_end[p]
        common = 0
        while i < ie and j < je:
            if keys[i] == keys[j]:
                common += 1
                i += 1
                j += 1
            elif keys[i] < keys[j]:
                i += 1
            else:
                j += 1
        out[p] = (a_end[p] - a_start[p]) + (b_end[p] - b_start[p]) - 2 * common
    return out


def skip_bigram_keys(flat: np.ndarray, offsets: np.ndarray, max_skip: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Exact int64 keys ``a * V + b`` of the skip bigrams of each sentence, sorted within the
    sentence (for :func:`sorted_l1_batch`). Returns ``(keys, offsets)``."""
    flat = np.asarray(flat, dtype=np.int64)
    base = int(flat.max()) + 1 if len(flat) else 1
    keys, off = _skip_bigram_keys(flat, np.asarray(offsets, dtype=np.int64), int(max_skip), base)
    _sort_runs(keys, off)
    return keys, off


def skip_bigram_ids(flat: np.ndarray, offsets: np.ndarray, max_skip: int
                    ) -> tuple[np.ndarray, np.ndarray, int]:
    """Dense ids of the skip bigrams (skip <= ``max_skip`` words between, thesis Figure 4.2).

    Returns ``(ids, offsets, n_ids)`` with sentence s's skip bigrams in
    ``ids[offsets[s]:offsets[s+1]]``.
    """
    flat = np.asarray(flat, dtype=np.int64)
    base = int(flat.max()) + 1 if len(flat) else 1
    keys, off = _skip_bigram_keys(flat, np.asarray(offsets, dtype=np.int64), int(max_skip), base)
    ids, k = _intern(keys)
    return ids, off, k


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
