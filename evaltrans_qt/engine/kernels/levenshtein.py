"""Levenshtein distance over int32 token ids (thesis section 4.3, eq. 4.13/4.14, Algorithm 4.1).

Conventions of :mod:`evaltrans_qt.engine.measures.alignment`: ``hyp`` is the candidate,
``ref`` the reference; an insertion is a candidate word without reference
counterpart, a deletion a reference word missing in the candidate. Insertion
and deletion cost 1; substitutions cost 1 (unit kernels) or a per-pair cost
matrix ``sub[i, l]`` (word-dependent costs, thesis section 4.5; the matrix
must be 0 where the words are identical).

Batched kernels take packed arrays (:func:`evaltrans_qt.engine.kernels.packing.pack`):
pair ``p`` compares hypothesis ``pair_hyp[p]`` with reference ``pair_ref[p]``,
so a whole corpus (all systems x segments x references) is one compiled call.

Backtrace tie-breaking (documented, deterministic): walking back from the end
of both sentences, a diagonal step (match/substitution) is preferred, then a
deletion (reference word skipped), then an insertion. Operations are returned
in reference order (start of the sentences first).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evaltrans_qt.engine.kernels.wordcosts import fill_block

#: Operation codes of :func:`lev_backtrace` (mapped to OpKind by the measures).
OP_MATCH, OP_SUB, OP_INS, OP_DEL = 0, 1, 2, 3


# ---------------------------------------------------------------- unit costs
@njit(cache=True, nogil=True, inline="always")
def myers_step(eq, pv, mv, score, top):
    """One text word of the bit-parallel unit-cost Levenshtein distance (Myers 1999, global
    form of Hyyro 2003: the top boundary adds +1 per word): ``eq`` the pattern positions
    equal to the word, ``pv/mv`` the column's vertical +1/-1 deltas, ``score`` its last
    cell, ``top`` the bit of the last pattern position. Returns the next (pv, mv, score)."""
    one = np.uint64(1)
    xv = eq | mv
    xh = (((eq & pv) + pv) ^ pv) | eq
    ph = mv | ~(xh | pv)
    mh = pv & xh
    if ph & top:
        score += 1
    elif mh & top:
        score -= 1
    ph = (ph << one) | one
    mh = mh << one
    return mh | ~(xv | ph), ph & xv, score


@njit(cache=True, nogil=True)
def _lev_bits(pat, p0, m, txt, t0, n):
    """Bit-parallel unit-cost Levenshtein distance (Myers 1999 / Hyyro 2003), pattern length
    1 <= m <= 64: one uint64 column per text word, O(n * m) cheap compares for the masks."""
    one = np.uint64(1)
    pv = ~np.uint64(0)
    mv = np.uint64(0)
    top = one << np.uint64(m - 1)
    score = m
    for j in range(n):
        w = txt[t0 + j]
        eq = np.uint64(0)
        for k in range(m):
            if pat[p0 + k] == w:
                eq |= one << np.uint64(k)
        pv, mv, score = myers_step(eq, pv, mv, score, top)
    return score


@njit(cache=True, nogil=True)
def _lev_unit(hyp, h0, h1, ref, r0, r1, row):
    """Unit-cost Levenshtein distance of hyp[h0:h1] and ref[r0:r1]; ``row`` is scratch (>= L+1).

    Uses the bit-parallel algorithm when the shorter side has at most 64 words
    (the distance is symmetric), else the row DP of Algorithm 4.1.
    """
    n = r1 - r0
    m = h1 - h0
    if n == 0:
        return m
    if m == 0:
        return n
    if n <= 64 and n <= m:
        return _lev_bits(ref, r0, n, hyp, h0, m)
    if m <= 64:
        return _lev_bits(hyp, h0, m, ref, r0, n)
    for l in range(n + 1):
        row[l] = l
    for i in range(m):
        w = hyp[h0 + i]
        diag = row[0]
        row[0] = i + 1
        left = i + 1
        for l in range(n):
            up = row[l + 1]
            best = diag if ref[r0 + l] == w else diag + 1
            if up + 1 < best:
                best = up + 1
            if left + 1 < best:
                best = left + 1
            row[l + 1] = best
            diag = up
            left = best
    return row[n]


@njit(cache=True, nogil=True)
def lev_distance(hyp: np.ndarray, ref: np.ndarray) -> int:
    """Unit-cost Levenshtein distance of two int32 id arrays (thesis eq. 4.14)."""
    row = np.empty(len(ref) + 1, dtype=np.int64)
    return _lev_unit(hyp, 0, len(hyp), ref, 0, len(ref), row)


@njit(cache=True, nogil=True)
def lev_distance_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref) -> np.ndarray:
    """Distances of pairs p = (hyp ``pair_hyp[p]``, ref ``pair_ref[p]``). Returns int64[P]."""
    n_pairs = len(pair_hyp)
    out = np.empty(n_pairs, dtype=np.int64)
    maxlen = 0
    for r in range(len(ref_off) - 1):
        if ref_off[r + 1] - ref_off[r] > maxlen:
            maxlen = ref_off[r + 1] - ref_off[r]
    row = np.empty(maxlen + 1, dtype=np.int64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        r = pair_ref[p]
        out[p] = _lev_unit(hyp_flat, hyp_off[h], hyp_off[h + 1], ref_flat, ref_off[r],
                           ref_off[r + 1], row)
    return out


# ------------------------------------------------------- word-dependent costs
@njit(cache=True, nogil=True)
def _lev_weighted(hyp, h0, h1, ref, r0, r1, sub, s0, row):
    """Levenshtein with substitution costs ``sub[s0 + i*L + l]`` (row-major I x L block)."""
    n = r1 - r0
    m = h1 - h0
    if n == 0:
        return float(m)
    if m == 0:
        return float(n)
    for l in range(n + 1):
        row[l] = l
    for i in range(m):
        w = hyp[h0 + i]
        diag = row[0]
        row[0] = i + 1.0
        left = i + 1.0
        base = s0 + i * n
        for l in range(n):
            up = row[l + 1]
            best = diag if ref[r0 + l] == w else diag + sub[base + l]
            if up + 1.0 < best:
                best = up + 1.0
            if left + 1.0 < best:
                best = left + 1.0
            row[l + 1] = best
            diag = up
            left = best
    return row[n]


@njit(cache=True, nogil=True)
def lev_distance_weighted(hyp: np.ndarray, ref: np.ndarray, sub: np.ndarray) -> float:
    """Levenshtein distance with a substitution cost matrix ``sub`` of shape (I, L)."""
    row = np.empty(len(ref) + 1, dtype=np.float64)
    return _lev_weighted(hyp, 0, len(hyp), ref, 0, len(ref), sub.ravel(), 0, row)


@njit(cache=True, nogil=True)
def lev_distance_weighted_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref,
                                sub_flat, sub_off) -> np.ndarray:
    """Batched :func:`lev_distance_weighted`; pair p's I x L cost block starts at ``sub_off[p]``."""
    n_pairs = len(pair_hyp)
    out = np.empty(n_pairs, dtype=np.float64)
    maxlen = 0
    for r in range(len(ref_off) - 1):
        if ref_off[r + 1] - ref_off[r] > maxlen:
            maxlen = ref_off[r + 1] - ref_off[r]
    row = np.empty(maxlen + 1, dtype=np.float64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        r = pair_ref[p]
        out[p] = _lev_weighted(hyp_flat, hyp_off[h], hyp_off[h + 1], ref_flat, ref_off[r],
                               ref_off[r + 1], sub_flat, sub_off[p], row)
    return out


@njit(cache=True, nogil=True)
def lev_distance_rule_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, rule,
                            chars, choff, maxchars) -> np.ndarray:
    """Batched Levenshtein with word-dependent substitution costs computed on the fly
    (:mod:`evaltrans_qt.engine.kernels.wordcosts`; no corpus-sized cost matrix)."""
    n_pairs = len(pair_hyp)
    out = np.empty(n_pairs, dtype=np.float64)
    maxlen = 0
    for r in range(len(ref_off) - 1):
        if ref_off[r + 1] - ref_off[r] > maxlen:
            maxlen = ref_off[r + 1] - ref_off[r]
    maxhyp = 0
    for h in range(len(hyp_off) - 1):
        if hyp_off[h + 1] - hyp_off[h] > maxhyp:
            maxhyp = hyp_off[h + 1] - hyp_off[h]
    row = np.empty(maxlen + 1, dtype=np.float64)
    block = np.empty(maxlen * maxhyp + 1, dtype=np.float64)
    sd = np.empty(maxchars + 1, dtype=np.int64)
    sp = np.empty(maxchars + 1, dtype=np.int64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        r = pair_ref[p]
        fill_block(rule, chars, choff, hyp_flat, hyp_off[h], hyp_off[h + 1], ref_flat,
                   ref_off[r], ref_off[r + 1], block, 0, sd, sp)
        out[p] = _lev_weighted(hyp_flat, hyp_off[h], hyp_off[h + 1], ref_flat, ref_off[r],
                               ref_off[r + 1], block, 0, row)
    return out


# ------------------------------------------------------------------ backtrace
@njit(cache=True, nogil=True)
def lev_backtrace(hyp: np.ndarray, ref: np.ndarray, sub: np.ndarray):
    """Optimal Levenshtein alignment with substitution costs ``sub`` (I x L).

    Returns ``(distance, ops, hyp_pos, ref_pos, costs)`` in reference order;
    positions are -1 where an operation has no word on that side. Ties are
    broken towards diagonal, then deletion, then insertion (seen from the end).
    """
    m = len(hyp)
    n = len(ref)
    q = np.empty((m + 1, n + 1), dtype=np.float64)
    for i in range(m + 1):
        q[i, 0] = i
    for l in range(1, n + 1):
        q[0, l] = l
        for i in range(1, m + 1):
            c = q[i - 1, l - 1] + (0.0 if hyp[i - 1] == ref[l - 1] else sub[i - 1, l - 1])
            if q[i - 1, l] + 1.0 < c:
                c = q[i - 1, l] + 1.0
            if q[i, l - 1] + 1.0 < c:
                c = q[i, l - 1] + 1.0
            q[i, l] = c
    k = m + n
    ops = np.empty(k, dtype=np.int8)
    hp = np.empty(k, dtype=np.int64)
    rp = np.empty(k, dtype=np.int64)
    cs = np.empty(k, dtype=np.float64)
    t = 0
    i = m
    l = n
    eps = 1e-9
    while i > 0 or l > 0:
        if i > 0 and l > 0:
            same = hyp[i - 1] == ref[l - 1]
            c = 0.0 if same else sub[i - 1, l - 1]
            if abs(q[i - 1, l - 1] + c - q[i, l]) <= eps:
                ops[t] = OP_MATCH if same else OP_SUB
                hp[t] = i - 1
                rp[t] = l - 1
                cs[t] = c
                t += 1
                i -= 1
                l -= 1
                continue
        if l > 0 and abs(q[i, l - 1] + 1.0 - q[i, l]) <= eps:
            ops[t] = OP_DEL
            hp[t] = -1
            rp[t] = l - 1
            cs[t] = 1.0
            t += 1
            l -= 1
            continue
        ops[t] = OP_INS
        hp[t] = i - 1
        rp[t] = -1
        cs[t] = 1.0
        t += 1
        i -= 1
    return q[m, n], ops[:t][::-1].copy(), hp[:t][::-1].copy(), rp[:t][::-1].copy(), cs[:t][::-1].copy()


# --------------------------------------------------- plain-Python references
def lev_distance_py(hyp, ref, sub=None) -> float:
    """Reference implementation of thesis Algorithm 4.1 (full table, no tricks)."""
    m, n = len(hyp), len(ref)
    q = [[0.0] * (n + 1) for _ in range(m + 1)]
    for i in range(m + 1):
        q[i][0] = float(i)
    for l in range(n + 1):
        q[0][l] = float(l)
    for i in range(1, m + 1):
        for l in range(1, n + 1):
            c = 0.0 if hyp[i - 1] == ref[l - 1] else (1.0 if sub is None else float(sub[i - 1][l - 1]))
            q[i][l] = min(q[i - 1][l - 1] + c, q[i - 1][l] + 1.0, q[i][l - 1] + 1.0)
    return q[m][n]


def unit_sub_matrix(hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Unit substitution costs (1 - delta) as an (I, L) float64 matrix."""
    return (np.asarray(hyp)[:, None] != np.asarray(ref)[None, :]).astype(np.float64)


# ---------------------------------------------------------------- jiwer's alignment
def hsdi_counts(hyps, refs, pair_hyp: np.ndarray, pair_ref: np.ndarray) -> np.ndarray:
    """``[hits, substitutions, deletions, insertions]`` of each pair (hyps[pair_hyp[p]],
    refs[pair_ref[p]]) from the alignment jiwer uses: rapidfuzz's
    ``Levenshtein.editops(reference, hypothesis)`` (jiwer 3/4 ``process_words`` counts
    rapidfuzz's ``opcodes`` of the same alignment). Among alignments of equal cost the
    counts depend on rapidfuzz's backtrace, so they are taken from it, not from our kernels.

    ``hyps``/``refs`` are sequences of hashables (lists of token ids, or strings for
    characters). Returns an int64 array of shape (pairs, 4).
    """
    from rapidfuzz.distance import Levenshtein
    out = np.zeros((len(pair_hyp), 4), dtype=np.int64)
    for p, (h, r) in enumerate(zip(np.asarray(pair_hyp).tolist(), np.asarray(pair_ref).tolist())):
        ref = refs[r]
        sub = dele = ins = 0
        for tag, _, _ in Levenshtein.editops(ref, hyps[h]).as_list():
            if tag == "replace":
                sub += 1
            elif tag == "delete":
                dele += 1
            else:
                ins += 1
        out[p] = (len(ref) - sub - dele, sub, dele, ins)
    return out


def jiwer_opcodes(hyp, ref) -> list[tuple[str, int, int, int, int]]:
    """rapidfuzz's ``Levenshtein.opcodes(reference, hypothesis)`` as jiwer's alignment chunks:
    ``(tag, ref_start, ref_end, hyp_start, hyp_end)``, tag equal/replace/delete/insert."""
    from rapidfuzz.distance import Levenshtein
    return [(op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end)
            for op in Levenshtein.opcodes(ref, hyp)]
