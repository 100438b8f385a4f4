"""METEOR's word matching and chunk count (Banerjee & Lavie 2005 §2; NLTK's
``nltk.translate.meteor_score``: ``_match_enums``, ``_enum_stem_match``, ``_count_chunks``)
over word ids, for many (candidate, reference) pairs at once.

Stage 1 (exact module) then stage 2 (stem module) on the words stage 1 left: the candidate
words are visited from the last to the first, and each takes the last still unmatched
reference word with the same id (NLTK pops the last position of the word's position
list). Chunks are counted over the matches in candidate order: a new chunk starts unless
the next match is the next candidate word *and* the next reference word (NLTK
``_count_chunks``, which counts 1 for no match).

:func:`match_pairs_py` is the plain reference implementation the tests compare with.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _match_pair(h_lo, h_st, r_lo, r_st, match_ref, head_lo, head_st, prev):
    """Fill ``match_ref[i]`` with the reference position of candidate word ``i`` (-1 if
    none); returns (matches, chunks). ``head_*`` (one slot per id, all -1) and ``prev`` (one
    slot per reference word) are scratch: per id, a chain of its reference positions from
    the last to the first, so taking the last unmatched one is popping the chain's head."""
    n = len(h_lo)
    m = len(r_lo)
    for i in range(n):
        match_ref[i] = -1
    for stage in range(2):
        h = h_lo if stage == 0 else h_st
        r = r_lo if stage == 0 else r_st
        head = head_lo if stage == 0 else head_st
        for j in range(m):                      # chains of the still unmatched positions
            if stage == 1 and prev[j] == -2:
                continue
            prev[j] = head[r[j]]
            head[r[j]] = j
        for i in range(n - 1, -1, -1):
            if match_ref[i] >= 0:
                continue
            j = head[h[i]]
            if j >= 0:
                head[h[i]] = prev[j]
                prev[j] = -2                    # used
                match_ref[i] = j
        for j in range(m):                      # reset the scratch heads
            head[r[j]] = -1
    matches = 0
    chunks = 1
    prev_i = -2
    prev_j = -2
    for i in range(n):
        j = match_ref[i]
        if j < 0:
            continue
        if matches > 0 and not (i == prev_i + 1 and j == prev_j + 1):
            chunks += 1
        matches += 1
        prev_i = i
        prev_j = j
    return matches, chunks


@njit(cache=True, nogil=True)
def match_pairs(h_lo, h_st, h_off, r_lo, r_st, r_off, pair_hyp, pair_ref):
    """(matches, chunks) of every pair p = (candidate ``pair_hyp[p]``, reference
    ``pair_ref[p]``); sentences are packed: lower-cased word ids ``*_lo`` and stem ids
    ``*_st`` of sentence k in ``[*_off[k], *_off[k+1])``. int64[P] each."""
    n_pairs = len(pair_hyp)
    matches = np.zeros(n_pairs, dtype=np.int64)
    chunks = np.zeros(n_pairs, dtype=np.int64)
    longest_h = 0
    for k in range(len(h_off) - 1):
        longest_h = max(longest_h, h_off[k + 1] - h_off[k])
    longest_r = 0
    for k in range(len(r_off) - 1):
        longest_r = max(longest_r, r_off[k + 1] - r_off[k])
    n_lo = 1 + max(h_lo.max() if len(h_lo) else 0, r_lo.max() if len(r_lo) else 0)
    n_st = 1 + max(h_st.max() if len(h_st) else 0, r_st.max() if len(r_st) else 0)
    head_lo = np.full(n_lo, -1, dtype=np.int64)
    head_st = np.full(n_st, -1, dtype=np.int64)
    prev = np.empty(longest_r, dtype=np.int64)
    buf = np.empty(longest_h, dtype=np.int64)
    for p in range(n_pairs):
        a0, a1 = h_off[pair_hyp[p]], h_off[pair_hyp[p] + 1]
        b0, b1 = r_off[pair_ref[p]], r_off[pair_ref[p] + 1]
        mt, ch = _match_pair(h_lo[a0:a1], h_st[a0:a1], r_lo[b0:b1], r_st[b0:b1],
                             buf[:a1 - a0], head_lo, head_st, prev[:b1 - b0])
        matches[p] = mt
        chunks[p] = ch
    return matches, chunks


def match_pair(h_lo, h_st, r_lo, r_st) -> tuple[int, int, np.ndarray]:
    """(matches, chunks, reference position of each candidate word or -1) of one pair."""
    h_lo, h_st = np.asarray(h_lo, np.int64), np.asarray(h_st, np.int64)
    r_lo, r_st = np.asarray(r_lo, np.int64), np.asarray(r_st, np.int64)
    out = np.empty(len(h_lo), dtype=np.int64)
    n_lo = 1 + max(int(h_lo.max(initial=0)), int(r_lo.max(initial=0)))
    n_st = 1 + max(int(h_st.max(initial=0)), int(r_st.max(initial=0)))
    mt, ch = _match_pair(h_lo, h_st, r_lo, r_st, out, np.full(n_lo, -1, np.int64),
                         np.full(n_st, -1, np.int64), np.empty(len(r_lo), np.int64))
    return int(mt), int(ch), out


def match_pairs_py(h_lo, h_st, r_lo, r_st) -> tuple[int, int]:
    """Plain-Python (matches, chunks) of one pair, written as NLTK's functions are."""
    hyp = list(enumerate(h_lo))
    ref = list(enumerate(r_lo))
    found = []
    for stage in range(2):
        if stage == 1:
            hyp = [(i, h_st[i]) for i, _ in hyp]
            ref = [(j, r_st[j]) for j, _ in ref]
        pos: dict[int, list[int]] = {}
        for k, (_, w) in enumerate(ref):
            pos.setdefault(w, []).append(k)
        done_h, done_r = set(), set()
        for k in range(len(hyp) - 1, -1, -1):
            ps = pos.get(hyp[k][1])
            if ps:
                q = ps.pop()
                done_h.add(k)
                done_r.add(q)
                found.append((hyp[k][0], ref[q][0]))
        hyp = [x for k, x in enumerate(hyp) if k not in done_h]
        ref = [x for k, x in enumerate(ref) if k not in done_r]
    found.sort()
    chunks = 1
    for a, b in zip(found, found[1:]):
        if not (b[0] == a[0] + 1 and b[1] == a[1] + 1):
            chunks += 1
    return len(found), chunks
