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

Speed (the numbers never change; each piece is tested against a plain statement in
``tests/engine/test_ter_kernel.py``):

* a shift changes the words in ``[p, e)`` only: the rows of the current hypothesis'
  matrix before ``p`` are re-used, and after an accepted shift only the rows from ``p``
  are filled again (a row depends only on the words before it);
* a candidate is scored by the *plain* edit distance, bit-parallel (Myers 1999, blocks
  of 64 reference words), from the stored state of row ``p``: one machine-word step per
  hypothesis word instead of a row of cells. The beam distance is at least the plain one,
  and equal when the plain one is below :func:`_outside_bound`, the least any path
  through a cell outside the beam can cost (then some optimal path stays in the beam);
* otherwise only the rows ``p+1..e`` are filled, and the distance is
  ``min_j row_e[j] + back[e, j]``, with ``back`` the beam matrix read backwards
  (:func:`_fill_back`, filled lazily; rows after ``e`` depend only on the unchanged
  words after ``e``);
* shift starts are enumerated over the reference positions holding the same word
  (:func:`_occurrences`), in the same order as the full scan, so the 1000-candidate limit
  stops at the same candidate.

``ter_reference`` is the plain-Python statement of the same algorithm for the tests.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from evaltrans_qt.engine.kernels.levenshtein import myers_step

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
def _row_span(i, n_h, n_r, ratio, bw):
    """Columns ``[lo, hi)`` of row ``i >= 1`` inside the beam (the last row reaches ``n_r``)."""
    pd = int(math.floor(i * ratio))
    lo = pd - bw
    if lo < 0:
        lo = 0
    hi = pd + bw
    if hi > n_r + 1 or i == n_h:
        hi = n_r + 1
    return lo, hi


@njit(cache=True, nogil=True)
def _fill_rows(words, ref, n_h, n_r, ratio, bw, start, stop, dist):
    """Rows ``start+1..stop`` of the beam edit-distance matrix into ``dist``; row
    ``start`` must be valid. Cells outside the beam are ``INF``."""
    for i in range(start + 1, stop + 1):
        last = dist[i - 1]
        cur = dist[i]
        lo, hi = _row_span(i, n_h, n_r, ratio, bw)
        for j in range(lo):
            cur[j] = INF
        for j in range(hi, n_r + 1):
            cur[j] = INF
        w = words[i - 1]
        j = lo
        if j == 0:
            cur[0] = last[0] + 1
            j = 1
        left = cur[j - 1]
        for j in range(j, hi):  # noqa: B020 - resumes at the column found above
            # ties: match/substitution, then the hypothesis word (INS), then the reference
            # word (DEL) -- sacreBLEU's order
            best = last[j - 1] if w == ref[j - 1] else last[j - 1] + 1
            c = last[j] + 1
            if c < best:
                best = c
            c = left + 1
            if c < best:
                best = c
            cur[j] = best
            left = best
    return dist[stop, n_r]


@njit(cache=True, nogil=True)
def _fill_back(words, ref, n_h, n_r, ratio, bw, back, top, stop):
    """Rows ``top..stop`` (downwards) of ``back``: ``back[i, j]`` = the cheapest beam path
    from cell ``(i, j)`` to ``(n_h, n_r)`` (``INF`` outside the beam), the forward matrix
    read backwards; rows after ``top`` must be valid (``top = n_h`` starts afresh). For
    any row ``e`` the distance is ``min_j dist[e, j] + back[e, j]`` (every path crosses
    row ``e``), and ``back[e]`` depends only on the words after position ``e``."""
    if top == n_h:
        last = back[n_h]
        lo, hi = _row_span(n_h, n_h, n_r, ratio, bw) if n_h > 0 else (0, n_r + 1)
        for j in range(n_r + 1):
            last[j] = INF if j < lo else n_r - j
        top -= 1
    for i in range(top, stop - 1, -1):
        last = back[i + 1]
        cur = back[i]
        if i == 0:
            lo, hi = 0, n_r + 1
        else:
            lo, hi = _row_span(i, n_h, n_r, ratio, bw)
        for j in range(lo):
            cur[j] = INF
        for j in range(hi, n_r + 1):
            cur[j] = INF
        w = words[i]
        j = hi - 1
        right = INF
        if j == n_r:
            # no reference word left: only the hypothesis word (INS) down
            right = last[n_r] + 1
            cur[n_r] = right
            j -= 1
        for j in range(j, lo - 1, -1):  # noqa: B020 - resumes at the column found above
            best = last[j + 1] if w == ref[j] else last[j + 1] + 1
            c = last[j] + 1
            if c < best:
                best = c
            c = right + 1
            if c < best:
                best = c
            cur[j] = best
            right = best


@njit(cache=True, nogil=True)
def _trace(dist, words, ref, n_h, n_r, align, hyp_err, ref_err):
    """Read the trace back from the filled matrix, each cell's operation chosen again as
    :func:`_fill_rows` chose it (match/substitution, then INS, then DEL); fill the
    ref->hyp alignment and the error flags (sacreBLEU's ``trace_to_alignment`` of the
    flipped trace). Returns the trace (reference order)."""
    tr = np.empty(n_h + n_r, dtype=np.int8)
    t = n_h + n_r
    i = n_h
    j = n_r
    while i > 0 or j > 0:
        if i == 0:
            k = T_DEL
        elif j == 0:
            k = T_INS
        else:
            if words[i - 1] == ref[j - 1]:
                best = dist[i - 1, j - 1]
                k = T_NOP
            else:
                best = dist[i - 1, j - 1] + 1
                k = T_SUB
            c = dist[i - 1, j] + 1
            if c < best:
                best = c
                k = T_INS
            if dist[i, j - 1] + 1 < best:
                k = T_DEL
        t -= 1
        tr[t] = k
        if k == T_NOP or k == T_SUB:
            i -= 1
            j -= 1
        elif k == T_DEL:
            j -= 1
        else:
            i -= 1
    tr = tr[t:]
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


_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
#: The bit-parallel distance takes references of up to this many words (blocks of 64;
#: longer ones fill the changed beam rows instead).
BITS = 256


@njit(cache=True, nogil=True)
def _outside_bound(n_h, n_r, ratio, bw):
    """The least edits of any path through a cell outside the beam (``INF`` if the beam
    holds every cell): a path through ``(i, j)`` costs at least ``|i - j| + |(n_h - i) -
    (n_r - j)|``, convex in ``j``, so per row the cells next to the beam are the nearest.
    A plain edit distance below this bound is the beam distance too: no cell of an
    optimal path can lie outside the beam."""
    best = INF
    for i in range(1, n_h + 1):
        lo, hi = _row_span(i, n_h, n_r, ratio, bw)
        for j in (lo - 1, hi):
            if 0 <= j <= n_r:
                a = i - j if i >= j else j - i
                b = (n_h - i) - (n_r - j)
                if b < 0:
                    b = -b
                if a + b < best:
                    best = a + b
    return best


@njit(cache=True, nogil=True)
def _match_masks(words, ref, out):
    """``out[k, j // 64]`` has bit ``j % 64`` set where ``ref[j] == words[k]``."""
    out[:] = 0
    for k in range(len(words)):
        w = words[k]
        for j in range(len(ref)):
            if ref[j] == w:
                out[k, j >> 6] |= _ONE << np.uint64(j & 63)


@njit(cache=True, nogil=True)
def _bit_rows1(masks, start, stop, top, vp, vn, sc, store):
    """Plain (beam-free) edit distance, bit-parallel (:func:`~evaltrans_qt.engine.kernels.
    levenshtein.myers_step`) for references of at most 64 words: the reference along
    the bits, one hypothesis word per step (``masks[i]``), from the state of row
    ``start`` (``vp/vn[start]`` vertical +1/-1 deltas, ``sc[start]`` the last cell) to
    row ``stop``; states are written back when ``store``. Returns the distance."""
    pv = vp[start]
    mv = vn[start]
    score = sc[start]
    for i in range(start, stop):
        pv, mv, score = myers_step(masks[i], pv, mv, score, top)
        if store:
            vp[i + 1] = pv
            vn[i + 1] = mv
            sc[i + 1] = score
    return score


@njit(cache=True, nogil=True)
def _bit_rows(masks, order, start, stop, top, vp, vn, sc, store, tv, tn):
    """:func:`_bit_rows1` for longer references, in blocks of 64 words (Myers 1999, the
    block-based form: a block's outgoing horizontal delta enters the next). Hypothesis
    word ``i`` is original word ``order[i]`` (``masks`` are the original words'); with
    ``store`` the states go to ``vp/vn/sc``, else ``tv/tn`` are the work rows."""
    n_b = vp.shape[1]
    score = sc[start]
    pv_row = tv
    mv_row = tn
    pv_row[:] = vp[start]
    mv_row[:] = vn[start]
    for i in range(start, stop):
        hp = _ONE    # incoming horizontal delta of the block: +1 at row 0
        hn = np.uint64(0)
        m_row = masks[order[i]]
        for b in range(n_b):
            eq = m_row[b]
            pv = pv_row[b]
            mv = mv_row[b]
            xv = eq | mv
            if hn:
                eq |= _ONE
            xh = (((eq & pv) + pv) ^ pv) | eq
            ph = mv | (~(xh | pv))
            mh = pv & xh
            if b == n_b - 1:
                if ph & top:
                    score += 1
                elif mh & top:
                    score -= 1
            hp2 = ph >> np.uint64(63)
            hn2 = mh >> np.uint64(63)
            ph = (ph << _ONE) | hp
            mh = (mh << _ONE) | hn
            hp = hp2
            hn = hn2
            pv_row[b] = mh | (~(xv | ph))
            mv_row[b] = ph & xv
        if store:
            vp[i + 1] = pv_row
            vn[i + 1] = mv_row
            sc[i + 1] = score
    return score


@njit(cache=True, nogil=True)
def _occurrences(words, ref):
    """``first[k]``: the first reference position holding ``words[k]`` (-1: none);
    ``later[j]``: the next reference position holding ``ref[j]`` (-1: none)."""
    n_r = len(ref)
    order = np.argsort(ref, kind="mergesort")
    later = np.full(n_r, -1, dtype=np.int64)
    for k in range(n_r - 1):
        if ref[order[k]] == ref[order[k + 1]]:
            later[order[k]] = order[k + 1]
    ordered = ref[order]
    first = np.full(len(words), -1, dtype=np.int64)
    for k in range(len(words)):
        at = np.searchsorted(ordered, words[k])
        if at < n_r and ordered[at] == words[k]:
            first[k] = order[at]
    return first, later


@njit(cache=True, nogil=True)
def _ter(hyp, ref, dist, scratch, back, record):
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
    nxt = np.empty(n_h, dtype=hyp.dtype)
    # candidates are scored by the bit-parallel plain distance when it provably equals the
    # beam distance (below ``outside``), else by the beam rows they change
    bits = n_r <= BITS
    one = n_r <= 64
    outside = _outside_bound(n_h, n_r, ratio, bw)
    n_b = (n_r + 63) >> 6
    top = _ONE << np.uint64((n_r - 1) & 63)
    # one word: masks follow the current words; more: masks of the original words, read
    # through the permutation (``perm``, ``nperm``)
    masks = np.zeros((n_h, n_b) if bits else (0, 1), dtype=np.uint64)
    m1 = np.zeros(n_h if one else 0, dtype=np.uint64)
    n1 = np.zeros(n_h if one else 0, dtype=np.uint64)
    vp1 = np.zeros(n_h + 1 if one else 0, dtype=np.uint64)
    vn1 = np.zeros(n_h + 1 if one else 0, dtype=np.uint64)
    vp = np.zeros((n_h + 1, n_b) if bits and not one else (0, 1), dtype=np.uint64)
    vn = np.zeros((n_h + 1, n_b) if bits and not one else (0, 1), dtype=np.uint64)
    tv = np.zeros(n_b, dtype=np.uint64)
    tn = np.zeros(n_b, dtype=np.uint64)
    sc = np.zeros(n_h + 1, dtype=np.int64)
    nperm = np.empty(n_h, dtype=np.int64)
    if bits:
        _match_masks(cur, ref, masks)
        sc[0] = n_r
        if one:
            m1[:] = masks[:, 0]
            vp1[0] = _ALL
        else:
            vp[0] = _ALL
    first, later = _occurrences(cur, ref)
    nfirst = np.empty(n_h, dtype=np.int64)
    align = np.empty(n_r, dtype=np.int64)
    hyp_err = np.zeros(n_h, dtype=np.int64)
    ref_err = np.zeros(n_r, dtype=np.int64)
    hcum = np.zeros(n_h + 1, dtype=np.int64)
    rcum = np.zeros(n_r + 1, dtype=np.int64)
    checked = 0
    n_shifts = 0
    rec = np.zeros((max(n_h, 1) * 2 + 4, 3), dtype=np.int64)
    # rows of ``dist`` valid up to ``fwd_ok``, of ``back`` from ``back_ok`` on:
    # a shift changes the words in [p, e) only, so the rows before p and after e survive
    fwd_ok = 0
    back_ok = n_h + 1
    while True:
        pre = _fill_rows(cur, ref, n_h, n_r, ratio, bw, fwd_ok, n_h, dist)
        if one:
            _bit_rows1(m1, fwd_ok, n_h, top, vp1, vn1, sc, True)
        elif bits:
            _bit_rows(masks, perm, fwd_ok, n_h, top, vp, vn, sc, True, tv, tn)
        tr = _trace(dist, cur, ref, n_h, n_r, align, hyp_err, ref_err)
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
            # the reference positions of this word, ascending (no other start can match)
            sr = first[sh]
            while sr >= 0:
                if sr - sh > MAX_SHIFT_DIST:
                    break
                if sh - sr > MAX_SHIFT_DIST:
                    sr = later[sr]
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
                            ed = INF
                            if p == n_h:
                                ed = pre
                            elif one:
                                _shifted(m1, sh, length, idx, n1)
                                ed = _bit_rows1(n1, p, n_h, top, vp1, vn1, sc, False)
                            elif bits:
                                _shifted(perm, sh, length, idx, nperm)
                                ed = _bit_rows(masks, nperm, p, n_h, top, vp, vn, sc, False,
                                               tv, tn)
                            if p < n_h and ed >= outside:
                                ed = INF    # (also when not ``bits``: INF stays INF)
                            if ed == INF:
                                # rows up to p are the current hypothesis' and rows after
                                # the last changed word only need back[e]
                                e = n_h
                                while nxt[e - 1] == cur[e - 1]:
                                    e -= 1
                                if e < back_ok:
                                    _fill_back(cur, ref, n_h, n_r, ratio, bw, back,
                                               min(back_ok - 1, n_h), e)
                                    back_ok = e
                                scratch[p, :n_r + 1] = dist[p, :n_r + 1]
                                _fill_rows(nxt, ref, n_h, n_r, ratio, bw, p, e, scratch)
                                ed = INF
                                for j in range(n_r + 1):
                                    v = scratch[e, j] + back[e, j]
                                    if v < ed:
                                        ed = v
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
                sr = later[sr]
            if stop:
                break
        if checked >= MAX_SHIFT_CANDIDATES:
            break
        if not found or b_score <= 0:
            break
        _shifted(cur, b_sh, b_len, b_idx, nxt)
        p = 0
        while nxt[p] == cur[p]:
            p += 1
        e = n_h
        while nxt[e - 1] == cur[e - 1]:
            e -= 1
        fwd_ok = p
        if back_ok < e:
            back_ok = e
        cur[:] = nxt
        if one:
            _shifted(m1, b_sh, b_len, b_idx, n1)
            m1[:] = n1
        _shifted(first, b_sh, b_len, b_idx, nfirst)
        first[:] = nfirst
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
    back = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    e, _s, _c, _p, _t = _ter(hyp, ref, dist, scratch, back, False)
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
    back = np.empty((mh + 1, mr + 1), dtype=np.int64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        e, _s, _c, _pm, _t = _ter(hyp_flat[hyp_off[h]:hyp_off[h + 1]],
                                  ref_flat[ref_off[p]:ref_off[p + 1]], dist, scratch, back,
                                  False)
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
    back = np.empty((n_h + 1, n_r + 1), dtype=np.int64)
    return _ter(hyp, ref, dist, scratch, back, True)


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
