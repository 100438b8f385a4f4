"""Translation edit rate with shifts (Snover et al. 2006), compiled, result-identical to
sacreBLEU's ``TER`` (``sacrebleu/metrics/lib_ter.py``, which follows tercom).

The greedy search is the same step by step, so every number agrees:

* edit distance with a beam of 25 cells around the pseudo-diagonal
  ``floor(i * L / I)`` (wider for very unequal lengths), the last row
  complete; ties in a cell go to match/substitution, then the hypothesis
  word, then the reference word; the trace is read back from the end;
* shift candidates: hypothesis/reference spans that match (at most 10 words,
  start positions at most 50 apart), skipped unless some hypothesis word and
  some reference word in them is misaligned and the reference start is not
  aligned inside the span; targets after the aligned position of reference
  words ``start_r - 1 .. start_r + length - 2``; the same three-case shift
  operation as sacreBLEU;
* best shift = largest gain, then longest, then earliest hypothesis start,
  then earliest target; shifts are applied while the gain is positive; after
  1000 evaluated candidates (over the whole sentence) the search stops and
  the pending best shift is discarded;
* edits = shifts + remaining edit distance; an empty reference gives
  ``len(hyp)`` edits.

Speed comes from compiling and from re-using the rows of the current
hypothesis' edit-distance matrix for the unchanged prefix of each candidate
(a row depends only on the words before it). ``ter_reference`` is the
plain-Python statement of the same algorithm for the tests.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000
INF = 10 ** 16

#: Trace codes (seen from the hypothesis): word matched / substituted, hypothesis word
#: without reference word (INS), reference word without hypothesis word (DEL).
T_NOP, T_SUB, T_INS, T_DEL = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _beam(n_h, n_r):
    ratio = n_r / n_h if n_h > 0 else 1.0
    bw = BEAM_WIDTH
    if BEAM_WIDTH < ratio / 2:
        bw = int(math.ceil(ratio / 2 + BEAM_WIDTH))
    return ratio, bw


@njit(cache=True, nogil=True)
def _fill_rows(words, ref, n_h, n_r, ratio, bw, prev, start, dist, op, with_ops, bound):
    """Rows ``start+1..n_h`` of the beam edit-distance matrix into ``dist`` (and ``op``).

    ``prev`` is the (already valid) row ``start``. Returns the final distance,
    or ``INF`` as soon as it is certain to exceed ``bound``: every path to the
    end passes row i at some cell j and still needs at least
    |(n_h - i) - (n_r - j)| edits, so min_j dist[i][j] + that is a lower bound.
    """
    last = prev
    for i in range(start + 1, n_h + 1):
        if bound < INF and i > start + 1:
            lb = INF
            rest = n_h - i + 1
            for j in range(n_r + 1):
                v = last[j]
                if v < INF:
                    gap = rest - (n_r - j)
                    if gap < 0:
                        gap = -gap
                    if v + gap < lb:
                        lb = v + gap
            if lb > bound:
                return INF
        cur = dist[i]
        for j in range(n_r + 1):
            cur[j] = INF
        pd = int(math.floor(i * ratio))
        min_j = pd - bw
        if min_j < 0:
            min_j = 0
        max_j = pd + bw
        if max_j > n_r + 1:
            max_j = n_r + 1
        if i == n_h:
            max_j = n_r + 1
        w = words[i - 1]
        for j in range(min_j, max_j):
            if j == 0:
                cur[0] = last[0] + 1
                if with_ops:
                    op[i, 0] = T_INS
            else:
                if w == ref[j - 1]:
                    c = last[j - 1]
                    k = T_NOP
                else:
                    c = last[j - 1] + 1
                    k = T_SUB
                best = INF
                kb = -1
                if best > c:
                    best = c
                    kb = k
                c = last[j] + 1
                if best > c:
                    best = c
                    kb = T_INS
                c = cur[j - 1] + 1
                if best > c:
                    best = c
                    kb = T_DEL
                cur[j] = best
                if with_ops:
                    op[i, j] = kb
        last = cur
    return last[n_r]


@njit(cache=True, nogil=True)
def _trace(op, n_h, n_r, align, hyp_err, ref_err):
    """Read the trace back; fill ref->hyp alignment and the error flags (sacreBLEU's
    ``trace_to_alignment`` of the flipped trace). Returns the trace (reference order)."""
    tr = np.empty(n_h + n_r, dtype=np.int8)
    t = 0
    i = n_h
    j = n_r
    while i > 0 or j > 0:
        k = op[i, j]
        tr[t] = k
        t += 1
        if k == T_NOP or k == T_SUB:
            i -= 1
            j -= 1
        elif k == T_DEL:
            j -= 1
        else:
            i -= 1
    tr = tr[:t][::-1].copy()
    ph = -1
    pr = -1
    for k in tr:
        if k == T_NOP or k == T_SUB:
            ph += 1
            pr += 1
            align[pr] = ph
            e = 0 if k == T_NOP else 1
            hyp_err[ph] = e
            ref_err[pr] = e
        elif k == T_INS:
            ph += 1
            hyp_err[ph] = 1
        else:
            pr += 1
            align[pr] = ph
            ref_err[pr] = 1
    return tr


@njit(cache=True, nogil=True)
def _shifted(words, start, length, target, out):
    """sacreBLEU's ``_perform_shift`` into ``out``."""
    n = len(words)
    t = 0
    if target < start:
        for k in range(target):
            out[t] = words[k]; t += 1
        for k in range(start, start + length):
            out[t] = words[k]; t += 1
        for k in range(target, start):
            out[t] = words[k]; t += 1
        for k in range(start + length, n):
            out[t] = words[k]; t += 1
    elif target > start + length:
        for k in range(start):
            out[t] = words[k]; t += 1
        for k in range(start + length, target):
            out[t] = words[k]; t += 1
        for k in range(start, start + length):
            out[t] = words[k]; t += 1
        for k in range(target, n):
            out[t] = words[k]; t += 1
    else:
        for k in range(start):
            out[t] = words[k]; t += 1
        for k in range(start + length, min(length + target, n)):
            out[t] = words[k]; t += 1
        for k in range(start, start + length):
            out[t] = words[k]; t += 1
        for k in range(length + target, n):
            out[t] = words[k]; t += 1


@njit(cache=True, nogil=True)
def _ter(hyp, ref, dist, op, scratch, record):
    """TER of one pair. Returns (edits, shifts (k, 3) [start, length, target], final words,
    permutation final->original positions, final trace)."""
    n_h = len(hyp)
    n_r = len(ref)
    cur = hyp.copy()
    perm = np.arange(n_h)
    shifts = np.zeros((0, 3), dtype=np.int64)
    if n_r == 0:
        return n_h, shifts, cur, perm, np.full(n_h, T_INS, dtype=np.int8)
    ratio, bw = _beam(n_h, n_r)
    for j in range(n_r + 1):
        dist[0, j] = j
        op[0, j] = T_DEL
    nxt = np.empty(n_h, dtype=hyp.dtype)
    align = np.empty(n_r, dtype=np.int64)
    hyp_err = np.zeros(n_h, dtype=np.int64)
    ref_err = np.zeros(n_r, dtype=np.int64)
    hcum = np.zeros(n_h + 1, dtype=np.int64)
    rcum = np.zeros(n_r + 1, dtype=np.int64)
    checked = 0
    n_shifts = 0
    rec = np.zeros((max(n_h, 1) * 2 + 4, 3), dtype=np.int64)
    while True:
        pre = _fill_rows(cur, ref, n_h, n_r, ratio, bw, dist[0], 0, dist, op, True, INF)
        tr = _trace(op, n_h, n_r, align, hyp_err, ref_err)
        for k in range(n_h):
            hcum[k + 1] = hcum[k] + hyp_err[k]
        for k in range(n_r):
            rcum[k + 1] = rcum[k] + ref_err[k]
        found = False
        b_score = 0
        b_len = 0
        b_sh = 0
        b_idx = 0
        stop = False
        for sh in range(n_h):
            for sr in range(n_r):
                if abs(sr - sh) > MAX_SHIFT_DIST:
                    continue
                length = 0
                while cur[sh + length] == ref[sr + length] and length < MAX_SHIFT_SIZE:
                    length += 1
                    ok = True
                    if hcum[sh + length] - hcum[sh] == 0:
                        ok = False
                    elif rcum[sr + length] - rcum[sr] == 0:
                        ok = False
                    elif sh <= align[sr] and align[sr] < sh + length:
                        ok = False
                    if ok:
                        prev_idx = -1
                        for off in range(-1, length):
                            if sr + off == -1:
                                idx = 0
                            else:
                                idx = align[sr + off] + 1
                            if idx == prev_idx:
                                continue
                            prev_idx = idx
                            _shifted(cur, sh, length, idx, nxt)
                            p = 0
                            while p < n_h and nxt[p] == cur[p]:
                                p += 1
                            if p == n_h:
                                ed = pre
                            else:
                                # a candidate scoring below the best so far can never
                                # win: stop its rows early (the count is unaffected)
                                bound = pre - b_score if found else INF
                                ed = _fill_rows(nxt, ref, n_h, n_r, ratio, bw, dist[p], p,
                                                scratch, op, False, bound)
                            score = pre - ed
                            checked += 1
                            better = False
                            if not found:
                                better = True
                            elif score != b_score:
                                better = score > b_score
                            elif length != b_len:
                                better = length > b_len
                            elif sh != b_sh:
                                better = sh < b_sh
                            else:
                                better = idx < b_idx
                            if better:
                                found = True
                                b_score = score
                                b_len = length
                                b_sh = sh
                                b_idx = idx
                        if checked >= MAX_SHIFT_CANDIDATES:
                            stop = True
                            break
                    if n_h == sh + length or n_r == sr + length:
                        break
                if stop:
                    break
            if stop:
                break
        if checked >= MAX_SHIFT_CANDIDATES:
            break
        if not found or b_score <= 0:
            break
        _shifted(cur, b_sh, b_len, b_idx, nxt)
        cur[:] = nxt
        permn = np.empty(n_h, dtype=np.int64)
        _shifted(perm, b_sh, b_len, b_idx, permn)
        perm = permn
        if record:
            if n_shifts >= len(rec):
                rec2 = np.zeros((len(rec) * 2, 3), dtype=np.int64)
                rec2[:len(rec)] = rec
                rec = rec2
            rec[n_shifts, 0] = b_sh
            rec[n_shifts, 1] = b_len
            rec[n_shifts, 2] = b_idx
        n_shifts += 1
    if record:
        shifts = rec[:n_shifts].copy()
    return n_shifts + pre, shifts, cur, perm, tr


@njit(cache=True, nogil=True)
def ter_edits(hyp: np.ndarray, ref: np.ndarray) -> int:
    """TER edits (shifts + edit distance) of hypothesis ``hyp`` against reference ``ref``."""
    n_h = len(hyp)
    n_r = len(ref)
    dist = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    scratch = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    op = np.zeros((n_h + 1, n_r + 1), dtype=np.int8)
    e, _s, _c, _p, _t = _ter(hyp, ref, dist, op, scratch, False)
    return e


@njit(cache=True, nogil=True)
def ter_edits_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp) -> np.ndarray:
    """TER edits of many pairs: pair p = (hyp ``pair_hyp[p]``, ref ``p``). Returns int64[P]."""
    n_pairs = len(ref_off) - 1
    out = np.empty(n_pairs, dtype=np.int64)
    mh = 1
    mr = 1
    for p in range(n_pairs):
        h = pair_hyp[p]
        if hyp_off[h + 1] - hyp_off[h] > mh:
            mh = hyp_off[h + 1] - hyp_off[h]
        if ref_off[p + 1] - ref_off[p] > mr:
            mr = ref_off[p + 1] - ref_off[p]
    dist = np.empty((mh + 1, mr + 1), dtype=np.int64)
    scratch = np.empty((mh + 1, mr + 1), dtype=np.int64)
    op = np.zeros((mh + 1, mr + 1), dtype=np.int8)
    for p in range(n_pairs):
        h = pair_hyp[p]
        e, _s, _c, _pm, _t = _ter(hyp_flat[hyp_off[h]:hyp_off[h + 1]],
                                  ref_flat[ref_off[p]:ref_off[p + 1]], dist, op, scratch, False)
        out[p] = e
    return out


@njit(cache=True, nogil=True)
def ter_align(hyp: np.ndarray, ref: np.ndarray):
    """TER with its derivation: ``(edits, shifts, final_words, perm, trace)``.

    ``shifts[k] = (start, length, target)`` in the hypothesis as it was before
    shift k (sacreBLEU's ``_perform_shift`` arguments); ``perm[j]`` is the
    original position of word j of the final shifted hypothesis; ``trace`` the
    edit operations (``T_*``) of the final hypothesis against the reference.
    """
    n_h = len(hyp)
    n_r = len(ref)
    dist = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    scratch = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    op = np.zeros((n_h + 1, n_r + 1), dtype=np.int8)
    return _ter(hyp, ref, dist, op, scratch, True)


# ------------------------------------------------------- plain-Python reference
def _ref_beam_ed(h, r):
    """sacreBLEU's BeamEditDistance without cache: (distance, trace codes)."""
    n_h, n_r = len(h), len(r)
    ratio = n_r / n_h if n_h else 1.0
    bw = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
    dist = [[(j, T_DEL) for j in range(n_r + 1)]]
    for i in range(1, n_h + 1):
        row = [(INF, -1)] * (n_r + 1)
        pd = math.floor(i * ratio)
        lo, hi = max(0, pd - bw), min(n_r + 1, pd + bw)
        if i == n_h:
            hi = n_r + 1
        for j in range(lo, hi):
            if j == 0:
                row[0] = (dist[i - 1][0][0] + 1, T_INS)
                continue
            opts = ((dist[i - 1][j - 1][0] + (h[i - 1] != r[j - 1]),
                     T_NOP if h[i - 1] == r[j - 1] else T_SUB),
                    (dist[i - 1][j][0] + 1, T_INS), (row[j - 1][0] + 1, T_DEL))
            for c, k in opts:
                if row[j][0] > c:
                    row[j] = (c, k)
        dist.append(row)
    tr = []
    i, j = n_h, n_r
    while i > 0 or j > 0:
        k = dist[i][j][1]
        tr.append(k)
        if k in (T_NOP, T_SUB):
            i, j = i - 1, j - 1
        elif k == T_DEL:
            j -= 1
        else:
            i -= 1
    return dist[n_h][n_r][0], tr[::-1]


def _ref_shift(words, start, length, target):
    if target < start:
        return words[:target] + words[start:start + length] + words[target:start] + words[start + length:]
    if target > start + length:
        return words[:start] + words[start + length:target] + words[start:start + length] + words[target:]
    return words[:start] + words[start + length:length + target] + words[start:start + length] + words[length + target:]


def ter_reference(hyp, ref) -> int:
    """Plain-Python TER edits (the algorithm of sacreBLEU's ``translation_edit_rate``)."""
    hyp, ref = list(hyp), list(ref)
    if not ref:
        return len(hyp)
    checked = 0
    shifts = 0
    while True:
        pre, tr = _ref_beam_ed(hyp, ref)
        align, herr, rerr = {}, [], []
        ph = pr = -1
        for k in tr:
            if k in (T_NOP, T_SUB):
                ph += 1; pr += 1; align[pr] = ph
                herr.append(int(k == T_SUB)); rerr.append(int(k == T_SUB))
            elif k == T_INS:
                ph += 1; herr.append(1)
            else:
                pr += 1; align[pr] = ph; rerr.append(1)
        best = None
        stop = False
        for sh in range(len(hyp)):
            for sr in range(len(ref)):
                if abs(sr - sh) > MAX_SHIFT_DIST:
                    continue
                length = 0
                while hyp[sh + length] == ref[sr + length] and length < MAX_SHIFT_SIZE:
                    length += 1
                    if (sum(herr[sh:sh + length]) and sum(rerr[sr:sr + length])
                            and not sh <= align[sr] < sh + length):
                        prev = -1
                        for off in range(-1, length):
                            idx = 0 if sr + off == -1 else align[sr + off] + 1
                            if idx == prev:
                                continue
                            prev = idx
                            new = _ref_shift(hyp, sh, length, idx)
                            cand = (pre - _ref_beam_ed(new, ref)[0], length, -sh, -idx)
                            checked += 1
                            if best is None or cand > best[0]:
                                best = (cand, new)
                        if checked >= MAX_SHIFT_CANDIDATES:
                            stop = True
                            break
                    if len(hyp) == sh + length or len(ref) == sr + length:
                        break
                if stop:
                    break
            if stop:
                break
        if checked >= MAX_SHIFT_CANDIDATES or best is None or best[0][0] <= 0:
            return shifts + pre
        shifts += 1
        hyp = best[1]
