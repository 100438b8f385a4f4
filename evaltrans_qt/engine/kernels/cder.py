"""CDCD distance d_CDCD (CDER) over int32 token ids: thesis section 4.4.2, Algorithm 4.2, eq. 4.16;
CDER paper (Leusch, Ueffing, Ney 2006, eq. 1).

Notation of the thesis: the candidate e_1^I (index i) and the reference
ẽ_1^L (index l). The reference must be covered completely and disjointly,
candidate words any number of times. Rows of the grid are reference
positions l; a *long jump* (cost c_LJ) moves the path within a row from the
row's cheapest node to any node, including column 0 (eq. 4.16 and the CDER
paper's recursion allow i = 0; Algorithm 4.2's printed loop starts at 1, but
Moses ``CderScorer`` -- our oracle -- and eq. 4.16 include it).

Edge names follow :mod:`evaltrans_qt.engine.measures.alignment` (tercom), not the
thesis: a horizontal edge passes a candidate word without a reference word
(thesis "deletion", here an *insertion*, ``OpKind.INS``); a vertical edge
passes a reference word (thesis "insertion", here a *deletion*, ``OpKind.DEL``).
Both cost 1; c_LJ = 1 unless given (``inf`` gives plain Levenshtein).

Boundaries (Table A.6): ``start_fixed`` -- the path starts at (0, 0)
and reaching column i in row 0 costs min(c_LJ, i) (Algorithm 4.2's first
loop); otherwise the path may start at any (i, 0) for free. ``end_fixed`` --
the distance is Q(I, L); otherwise min_i Q(i, L).

Substitution costs: 1 for different ids, or word-dependent costs (thesis 4.5)
read from a flat block ``sub[s0 + i*cs + l*rs]`` (0 for identical words), so
the backward direction can use the forward pair's I x L block transposed.

Unit costs and c_LJ = 1 (the CDER measure's case) use a bit-parallel
kernel (:func:`cder_bits_batch`, same values as the float DP of Algorithm 4.2):
after the jump relaxation each row l holds only two values, its minimum m_l
and m_l + 1, so a row is (m, Z) with Z the bitmask of columns i = 0..I at
value m. With Myers' match masks M_w (bit i set iff cand[i-1] = w) and
S = Z << 1 (diagonal predecessors at value m), row l (reference word w):
if A = S & M_w != 0, m stays and Z' = A (value m only by a diagonal match
from m; anything else is <= m + 1 by the jump); otherwise m' = m + 1 and
Z' = S | Z | M_w (diagonal mismatch from m, diagonal match from m + 1,
vertical edge from m). Row 0: m = 0 and Z = {0} (fixed start: min(1, i)) or
all columns (free start). End: Q(I, L) = m + [bit I not in Z] (fixed end),
else m. O(L * ceil((I + 1) / 64)) word operations per pair.

Tie-breaking of the best path (documented, deterministic): within a row,
diagonal, then horizontal, then vertical edge, each only on strict
improvement in that order; a long jump only where it is strictly cheaper,
always from the first cheapest node of the row (before jumps); an arbitrary
end is the first cheapest node of the last row. ``cder_reference`` is an
independent plain-Python shortest-path implementation used by the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Edge codes of :func:`cder_path` (edge entering a grid node).
E_START, E_DIAG, E_HOR, E_VER, E_JUMP = 0, 1, 2, 3, 4


# ------------------------------------------------------------------ score only
@njit(cache=True, nogil=True)
def _max_length(hyp_off, ref_off) -> int:
    """Longest sentence (at least 1) of two packed batches given by their offsets."""
    maxlen = 1
    for h in range(len(hyp_off) - 1):
        if hyp_off[h + 1] - hyp_off[h] > maxlen:
            maxlen = hyp_off[h + 1] - hyp_off[h]
    for r in range(len(ref_off) - 1):
        if ref_off[r + 1] - ref_off[r] > maxlen:
            maxlen = ref_off[r + 1] - ref_off[r]
    return maxlen


@njit(cache=True, nogil=True)
def _cder(cand, c0, c1, ref, r0, r1, use_sub, sub, s0, cs, rs, c_lj, start_fixed, end_fixed,
          row, nxt):
    """d_CDCD of cand[c0:c1] (candidate) and ref[r0:r1] (reference); ``row``/``nxt`` scratch >= I+1.

    Rows are kept *before* their long jumps, with ``jm`` = row minimum + c_LJ;
    a value is read as min(row[i], jm) (the jump relaxation of Algorithm 4.2,
    applied lazily). Row 0 with a fixed start is 0, 1, 2, ... with jm = c_LJ,
    i.e. min(c_LJ, i) as in Algorithm 4.2's first loop.
    """
    n_c = c1 - c0
    n_r = r1 - r0
    for i in range(n_c + 1):
        row[i] = float(i) if start_fixed else 0.0
    jm = c_lj
    for l in range(1, n_r + 1):
        w = ref[r0 + l - 1]
        up = row[0] if row[0] < jm else jm
        v = up + 1.0
        nxt[0] = v
        m = v
        diag = up
        for i in range(1, n_c + 1):
            up = row[i]
            if jm < up:
                up = jm
            d = diag
            if cand[c0 + i - 1] != w:
                if use_sub:
                    d += sub[s0 + (i - 1) * cs + (l - 1) * rs]
                else:
                    d += 1.0
            h = v + 1.0
            if h < d:
                d = h
            u = up + 1.0
            if u < d:
                d = u
            nxt[i] = d
            v = d
            diag = up
            if d < m:
                m = d
        jm = m + c_lj
        row, nxt = nxt, row
    if end_fixed:
        return row[n_c] if row[n_c] < jm else jm
    m = jm
    for i in range(n_c + 1):
        if row[i] < m:
            m = row[i]
    return m


# --------------------------------------------------- bit-parallel, unit costs
#: Largest id range the bit kernel indexes directly; wider ids are renumbered first (also
#: ranges over 4x the batch's word count + 4096, so a short batch never clears a huge table).
_DENSE_IDS = 1 << 22


@njit(cache=True, nogil=True)
def _cder_bits_core(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                    start_fixed, end_fixed, lo, n_ids, out):
    """Body of :func:`cder_bits_batch` for ids in ``lo .. lo + n_ids - 1``.

    Per candidate, Myers' match masks Peq: row ``s`` (``nw`` words) of the
    candidate's s-th distinct word has bit i set iff cand[i-1] is that word
    (columns 1..I; column 0 is the empty prefix); row 0 stays zero (words
    absent from the candidate). ``table[id - lo] = gen * K + s`` maps ids to
    rows of the current candidate (generation ``gen``; older entries are
    < gen * K, so no clearing). Everything is inlined here: separate compiled
    calls per row would cost more than the row update itself (array refcounts).
    Bits above column I carry junk that only ever moves to higher bits, so it
    never reaches columns 0..I.
    """
    one = np.uint64(1)
    zero = np.uint64(0)
    maxlen = _max_length(hyp_off, ref_off)
    nwmax = (maxlen >> 6) + 1
    big_k = maxlen + 2
    table = np.zeros(n_ids, dtype=np.int64)
    peq = np.zeros(big_k * nwmax, dtype=np.uint64)
    z = np.empty(nwmax, dtype=np.uint64)
    s = np.empty(nwmax, dtype=np.uint64)
    a = np.empty(nwmax, dtype=np.uint64)
    base = 0
    prev = -1
    for p in range(len(pair_hyp)):
        h = pair_hyp[p]
        r = pair_ref[p]
        if backward:                                    # CD for the candidate: roles swapped
            cand, c0, c1, key = ref_flat, ref_off[r], ref_off[r + 1], r
            rw, w0, w1 = hyp_flat, hyp_off[h], hyp_off[h + 1]
        else:
            cand, c0, c1, key = hyp_flat, hyp_off[h], hyp_off[h + 1], h
            rw, w0, w1 = ref_flat, ref_off[r], ref_off[r + 1]
        n_c = c1 - c0
        nw = (n_c >> 6) + 1
        if key != prev:                                 # Peq of a new candidate
            prev = key
            base += big_k
            for k in range(nw):
                peq[k] = zero
            n_rows = 1
            for i in range(1, n_c + 1):
                x = cand[c0 + i - 1] - lo
                e = table[x] - base
                if e <= 0:
                    e = n_rows
                    table[x] = base + e
                    for k in range(nw):
                        peq[e * nw + k] = zero
                    n_rows += 1
                peq[e * nw + (i >> 6)] |= one << np.uint64(i & 63)
        m = 0
        if nw == 1:                                     # columns 0..I fit one word
            zz = one if start_fixed else ~zero
            for l in range(w0, w1):
                e = table[rw[l] - lo] - base
                mw = peq[e] if e > 0 else zero
                sh = zz << one
                aa = sh & mw
                if aa != zero:                          # case A: diagonal match from m
                    zz = aa
                else:                                   # case B: everything m + 1
                    m += 1
                    zz = sh | zz | mw
            if end_fixed and ((zz >> np.uint64(n_c)) & one) == zero:
                m += 1
            out[p] = m
            continue
        for k in range(nw):
            z[k] = zero if start_fixed else ~zero
        if start_fixed:
            z[0] = one
        for l in range(w0, w1):
            e = table[rw[l] - lo] - base
            b = e * nw if e > 0 else 0
            carry = zero
            hit = zero
            for k in range(nw):
                zk = z[k]
                sk = (zk << one) | carry
                carry = zk >> np.uint64(63)
                s[k] = sk
                ak = sk & peq[b + k]
                a[k] = ak
                hit |= ak
            if hit != zero:
                for k in range(nw):
                    z[k] = a[k]
            else:
                m += 1
                for k in range(nw):
                    z[k] |= s[k] | peq[b + k]
        if end_fixed and ((z[n_c >> 6] >> np.uint64(n_c & 63)) & one) == zero:
            m += 1
        out[p] = m
    return out


@njit(cache=True, nogil=True)
def cder_bits_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                    start_fixed, end_fixed) -> np.ndarray:
    """Bit-parallel :func:`cder_dp_batch` for unit costs and c_LJ = 1 (same arguments).

    O(L * ceil((I + 1) / 64)) word operations per pair plus O(I) for the
    candidate's match masks (shared by consecutive pairs with the same
    candidate). Sparse ids (see ``_DENSE_IDS``) are renumbered first.
    """
    out = np.empty(len(pair_hyp), dtype=np.float64)
    lo = np.int64(0)
    hi = np.int64(0)
    if len(hyp_flat):
        lo = np.int64(hyp_flat.min())
        hi = np.int64(hyp_flat.max())
    if len(ref_flat):
        lo = min(lo, np.int64(ref_flat.min())) if len(hyp_flat) else np.int64(ref_flat.min())
        hi = max(hi, np.int64(ref_flat.max())) if len(hyp_flat) else np.int64(ref_flat.max())
    if hi - lo < min(_DENSE_IDS, 4 * (len(hyp_flat) + len(ref_flat)) + 4096):
        return _cder_bits_core(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref,
                               backward, start_fixed, end_fixed, lo, hi - lo + 1, out)
    ids = np.empty(len(hyp_flat) + len(ref_flat), dtype=np.int64)
    ids[:len(hyp_flat)] = hyp_flat
    ids[len(hyp_flat):] = ref_flat
    u = np.unique(ids)
    return _cder_bits_core(np.searchsorted(u, hyp_flat), hyp_off, np.searchsorted(u, ref_flat),
                           ref_off, pair_hyp, pair_ref, backward, start_fixed, end_fixed, 0,
                           len(u), out)


@njit(cache=True, nogil=True)
def cder_dp_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                  start_fixed, end_fixed, c_lj, use_sub, sub_flat, sub_off) -> np.ndarray:
    """:func:`cder_distance_batch` always by the float DP :func:`_cder` (any costs)."""
    n_pairs = len(pair_hyp)
    out = np.empty(n_pairs, dtype=np.float64)
    maxlen = _max_length(hyp_off, ref_off)
    row = np.empty(maxlen + 1, dtype=np.float64)
    nxt = np.empty(maxlen + 1, dtype=np.float64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        h0 = hyp_off[h]
        h1 = hyp_off[h + 1]
        r0 = ref_off[pair_ref[p]]
        r1 = ref_off[pair_ref[p] + 1]
        s0 = sub_off[p] if use_sub else 0
        n_r = r1 - r0
        if backward:
            out[p] = _cder(ref_flat, r0, r1, hyp_flat, h0, h1, use_sub, sub_flat, s0, 1, n_r,
                           c_lj, start_fixed, end_fixed, row, nxt)
        else:
            out[p] = _cder(hyp_flat, h0, h1, ref_flat, r0, r1, use_sub, sub_flat, s0, n_r, 1,
                           c_lj, start_fixed, end_fixed, row, nxt)
    return out


@njit(cache=True, nogil=True)
def cder_distance_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                        start_fixed, end_fixed, c_lj, use_sub, sub_flat, sub_off) -> np.ndarray:
    """d_CDCD of many pairs in one call: pair p = (hyp ``pair_hyp[p]``, ref ``pair_ref[p]``).

    ``backward``: CD for the candidate instead (the roles of the two
    sentences swapped). ``use_sub``: word-dependent costs from row-major
    I x L blocks ``sub_flat[sub_off[p]:]`` per pair (layout of
    :meth:`evaltrans_qt.engine.text.subcosts.SubstitutionCosts.matrices`; the
    backward direction reads them transposed, costs being symmetric).
    Unit costs with c_LJ = 1 go to the bit-parallel :func:`cder_bits_batch`,
    everything else to the float DP :func:`cder_dp_batch`.
    """
    if not use_sub and c_lj == 1.0:
        return cder_bits_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref,
                               backward, start_fixed, end_fixed)
    return cder_dp_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                         start_fixed, end_fixed, c_lj, use_sub, sub_flat, sub_off)


@njit(cache=True, nogil=True)
def cder_distance(hyp: np.ndarray, ref: np.ndarray, start_fixed: bool = True,
                  end_fixed: bool = True, c_lj: float = 1.0) -> float:
    """d_CDCD(candidate ``hyp``, reference ``ref``) with unit costs (CD for the reference);
    bit-parallel for c_LJ = 1, else Algorithm 4.2."""
    off_h = np.array([0, len(hyp)], dtype=np.int64)
    off_r = np.array([0, len(ref)], dtype=np.int64)
    pair = np.zeros(1, dtype=np.int64)
    if c_lj == 1.0:
        return cder_bits_batch(hyp, off_h, ref, off_r, pair, pair, False, start_fixed,
                               end_fixed)[0]
    row = np.empty(len(hyp) + 1, dtype=np.float64)
    nxt = np.empty(len(hyp) + 1, dtype=np.float64)
    dummy = np.zeros(1, dtype=np.float64)
    return _cder(hyp, 0, len(hyp), ref, 0, len(ref), False, dummy, 0, 0, 0, c_lj, start_fixed,
                 end_fixed, row, nxt)


# ------------------------------------------------------------------ best path
@njit(cache=True, nogil=True)
def _cder_path(cand, c0, c1, ref, r0, r1, use_sub, sub, s0, cs, rs, c_lj, start_fixed,
               end_fixed):
    """Best path: returns (distance, edges (k, 4) int64 [kind, i, l, jump_source], coverage)."""
    n_c = c1 - c0
    n_r = r1 - r0
    q = np.empty((n_r + 1, n_c + 1), dtype=np.float64)
    op = np.zeros((n_r + 1, n_c + 1), dtype=np.int8)
    src = np.zeros(n_r + 1, dtype=np.int64)
    q[0, 0] = 0.0
    op[0, 0] = E_START
    for i in range(1, n_c + 1):
        if start_fixed:
            if c_lj < i:
                q[0, i] = c_lj
                op[0, i] = E_JUMP
            else:
                q[0, i] = float(i)
                op[0, i] = E_HOR
        else:
            q[0, i] = 0.0
            op[0, i] = E_START
    for l in range(1, n_r + 1):
        w = ref[r0 + l - 1]
        q[l, 0] = q[l - 1, 0] + 1.0
        op[l, 0] = E_VER
        m = q[l, 0]
        arg = 0
        for i in range(1, n_c + 1):
            d = q[l - 1, i - 1]
            if cand[c0 + i - 1] != w:
                if use_sub:
                    d += sub[s0 + (i - 1) * cs + (l - 1) * rs]
                else:
                    d += 1.0
            k = E_DIAG
            h = q[l, i - 1] + 1.0
            if h < d:
                d = h
                k = E_HOR
            u = q[l - 1, i] + 1.0
            if u < d:
                d = u
                k = E_VER
            q[l, i] = d
            op[l, i] = k
            if d < m:
                m = d
                arg = i
        src[l] = arg
        m += c_lj
        for i in range(n_c + 1):
            if m < q[l, i]:
                q[l, i] = m
                op[l, i] = E_JUMP
    i = n_c
    if not end_fixed:
        for j in range(n_c + 1):
            if q[n_r, j] < q[n_r, i] or (q[n_r, j] == q[n_r, i] and j < i):
                i = j
    dist = q[n_r, i]
    # count the path's edges first, so the edge list is as long as the path, not the table
    i_end = i
    l = n_r
    t = 0
    while True:
        k = op[l, i]
        if k == E_START:
            break
        t += 1
        if k == E_DIAG:
            i -= 1
            l -= 1
        elif k == E_HOR:
            i -= 1
        elif k == E_VER:
            l -= 1
        else:
            i = src[l] if l > 0 else 0
    edges = np.empty((t, 4), dtype=np.int64)
    cov = np.zeros(n_c, dtype=np.int64)
    i = i_end
    l = n_r
    t = 0
    while True:
        k = op[l, i]
        if k == E_START:
            break
        edges[t, 0] = k
        edges[t, 1] = i
        edges[t, 2] = l
        edges[t, 3] = -1
        t += 1
        if k == E_DIAG:
            cov[i - 1] += 1
            i -= 1
            l -= 1
        elif k == E_HOR:
            cov[i - 1] += 1
            i -= 1
        elif k == E_VER:
            l -= 1
        else:
            j = src[l] if l > 0 else 0
            edges[t - 1, 3] = j
            i = j
    return dist, edges[:t][::-1].copy(), cov


#: Bytes per cell of the path kernel's tables (float64 costs and int8 moves).
PATH_CELL_BYTES = 9


def check_path_memory(n_c: int, n_r: int, max_bytes: int | None = None) -> None:
    """Refuse a coverage path whose tables exceed the memory budget (default: automatic,
    :mod:`~evaltrans_qt.engine.kernels.budget`) with a clear error before allocating."""
    from evaltrans_qt.engine.kernels.budget import auto_budget, describe
    budget = auto_budget() if max_bytes is None else max_bytes
    need = PATH_CELL_BYTES * (n_c + 1) * (n_r + 1)
    if need > budget:
        from evaltrans_qt.errors import InputFormatError
        raise InputFormatError(f"CDER: the path of a {n_c} x {n_r}-word sentence pair needs "
                               f"{describe(need)}, above the memory budget of {describe(budget)} "
                               "(the coverage rules and alignments need the whole table)")


def cder_path(hyp, ref, sub, use_sub, start_fixed=True, end_fixed=True, c_lj=1.0):
    """:func:`_cder_path_one` after :func:`check_path_memory`."""
    check_path_memory(len(hyp), len(ref))
    return _cder_path_one(hyp, ref, sub, use_sub, start_fixed, end_fixed, c_lj)


@njit(cache=True, nogil=True)
def _cder_path_one(hyp, ref, sub, use_sub, start_fixed=True, end_fixed=True, c_lj=1.0):
    """Best d_CDCD path of candidate ``hyp`` and reference ``ref`` (CD for the reference).

    ``sub``: (I, L) float64 substitution costs if ``use_sub`` (else ignored).
    Returns ``(distance, edges, coverage)``: edges in path order as rows
    ``[kind, i, l, jump_source]`` (kind ``E_DIAG``/``E_HOR``/``E_VER``/``E_JUMP``
    entering node (i, l); a jump comes from (jump_source, l)); coverage[i] =
    how often candidate word i is passed by a diagonal or horizontal edge.
    """
    flat = sub.ravel() if use_sub else np.zeros(1, dtype=np.float64)
    return _cder_path(hyp, 0, len(hyp), ref, 0, len(ref), use_sub, flat, 0, len(ref), 1, c_lj,
                      start_fixed, end_fixed)


@njit(cache=True, nogil=True)
def misc_penalty(cov) -> float:
    """Absolute miscoverage lp_misc (eq. 4.18) from the coverage counts (c_DEL = c_INS = 1)."""
    s = 0.0
    for c in cov:
        if c == 0:
            s += 1.0
        elif c >= 2:
            s += c - 1.0
    return s


def cder_misc_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                    start_fixed, end_fixed, c_lj, use_sub, sub_flat, sub_off):
    """Like :func:`cder_distance_batch`, also returning lp_misc (eq. 4.18) of each best path
    (:func:`check_path_memory` first, on the longest pair)."""
    if len(pair_hyp):
        hl = np.diff(np.asarray(hyp_off))[np.asarray(pair_hyp)]
        rl = np.diff(np.asarray(ref_off))[np.asarray(pair_ref)]
        k = int(np.argmax((hl + 1) * (rl + 1)))
        check_path_memory(int(hl[k]), int(rl[k]))
    return _cder_misc_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                            start_fixed, end_fixed, c_lj, use_sub, sub_flat, sub_off)


@njit(cache=True, nogil=True)
def _cder_misc_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, backward,
                     start_fixed, end_fixed, c_lj, use_sub, sub_flat, sub_off):
    """Compiled body of :func:`cder_misc_batch`."""
    n_pairs = len(pair_hyp)
    out = np.empty(n_pairs, dtype=np.float64)
    pen = np.empty(n_pairs, dtype=np.float64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        h0 = hyp_off[h]
        h1 = hyp_off[h + 1]
        r0 = ref_off[pair_ref[p]]
        r1 = ref_off[pair_ref[p] + 1]
        s0 = sub_off[p] if use_sub else 0
        n_r = r1 - r0
        if backward:
            d, e, cov = _cder_path(ref_flat, r0, r1, hyp_flat, h0, h1, use_sub, sub_flat, s0, 1,
                                   n_r, c_lj, start_fixed, end_fixed)
        else:
            d, e, cov = _cder_path(hyp_flat, h0, h1, ref_flat, r0, r1, use_sub, sub_flat, s0,
                                   n_r, 1, c_lj, start_fixed, end_fixed)
        out[p] = d
        pen[p] = misc_penalty(cov)
    return out, pen


# ------------------------------------------------------- plain-Python reference
def cder_reference(hyp, ref, start_fixed: bool = True, end_fixed: bool = True,
                   c_lj: float = 1.0, sub=None) -> float:
    """Reference d_CDCD: Bellman-Ford style relaxation over the explicit grid graph (eq. 4.16).

    Nodes (i, l); edges: diagonal (cost 0 / c_SUB), horizontal and vertical
    (cost 1), and a long jump between *every* pair of nodes of a row (cost
    c_LJ) -- O(I^2 L), no row-minimum trick. ``sub``: optional function
    (i, l) -> substitution cost for different words.
    """
    n_c, n_r = len(hyp), len(ref)
    inf = float("inf")
    q = [[inf] * (n_c + 1) for _ in range(n_r + 1)]
    if start_fixed:
        q[0][0] = 0.0
    else:
        q[0] = [0.0] * (n_c + 1)
    for l in range(n_r + 1):
        # repeat relaxations within the row until nothing changes
        if l > 0:
            for i in range(n_c + 1):
                best = q[l - 1][i] + 1.0
                if i > 0:
                    c = 0.0 if hyp[i - 1] == ref[l - 1] else (1.0 if sub is None else sub(i - 1, l - 1))
                    best = min(best, q[l - 1][i - 1] + c)
                q[l][i] = min(q[l][i], best)
        changed = True
        while changed:
            changed = False
            for i in range(n_c + 1):
                for j in range(n_c + 1):
                    cand = q[l][j] + c_lj if j != i else inf
                    if i > 0 and j == i - 1:
                        cand = min(cand, q[l][j] + 1.0)
                    if cand < q[l][i] - 1e-12:
                        q[l][i] = cand
                        changed = True
    return q[n_r][n_c] if end_fixed else min(q[n_r])
