"""Exact BTG inversion distance d_inv (thesis section 4.4.4, eq. 4.20-4.25, Table 4.1).

Cost model (Table 4.1, with ``transposition-costs`` = denominator, c_SUB, c_DEL,
c_INS, c_INV): identity 0, substitution ``c_sub``, a candidate word without
counterpart (thesis "deletion" e/eps) ``c_del``, a reference word without
counterpart (thesis "insertion" eps/e~) ``c_ins``, each inverted concatenation
``c_inv``. The distance is the cheapest parse tree (eq. 4.20), computed exactly.
Note the naming: the alignment module (tercom convention) calls the thesis'
deletion an *insertion* (OpKind.INS = candidate word not in the reference).

Definition, not the thesis' misprints: Algorithm 4.3's
split loops must allow empty left parts (d("a", "x a") = 1), and the 1x1 case
may also be parsed as deletion + insertion (cost min(c_sub, c_del + c_ins)).

Algorithm (:func:`inv_distance`) -- exact best-first (A*) agenda parsing over
bispans, using the bounds of Algorithms 4.4-4.6:

* items are bispans (cand span, ref span), both non-empty; seeds are the 1x1
  bispans; an item grows by one unaligned word at the right end of either side
  (c_del / c_ins), and two adjacent items combine straight ([AB]) or inverted
  (<AB>, + c_inv). Every BTG tree with at least one aligned pair has a
  derivation of the same or lower cost (see "normal form" below; an inverted
  eps-part is never cheaper than a straight one); the tree without any aligned
  pair (cost I c_del + L c_ins) is compared separately.
* priority f = g + h, g = exact inside cost, h = a lower bound of the cost of
  the *outside* (the thesis' lb_outer, eq. 4.26/4.29), strengthened by the
  number of inverted ancestors k (each costs c_inv). With A, B the candidate
  words left/right of the bispan and C, D the reference words left/right:
  k = 0 -> A pairs only with C and B only with D: bag(A,C) + bag(B,D);
  k = 1 -> pairs cross one way only (no A-D pair, or no B-C pair): bag with
  that restriction + c_inv;  k >= 2 -> bag(A+B, C+D) + 2 c_inv;  h = the
  minimum. Bags (PER, the cost of the best order-free matching) are
  subadditive and <= d_inv of each part, and a child's configuration is its
  parent's plus the sibling, so h is consistent: f never decreases along a
  derivation and every item is final when popped (Knuth's generalisation of
  Dijkstra; Klein & Manning's A* parsing). Only items with f <= d_inv are
  expanded.
* run bounds (order-aware; h = the maximum of the bound above and
  these two): contract a tree to its identical pairs M outside the bispan and
  the bispan itself as one leaf X. Each internal node of a binary tree is the
  lowest common ancestor of exactly one pair of neighbouring leaves, and it is
  inverted iff that pair's reference order falls (a descent), so the outside
  has at least des(M + X) inverted nodes, read in candidate order -- and as
  many read in reference order. Its leaves cost at least bag(A+B, C+D) with
  |M| identical pairs, = bag(.., 0) - s |M| (s = min(c_sub, c_del + c_ins)).
  So  h_run = bag(A+B, C+D, 0) + min over M of (-s |M| + c_inv des(M + X)),
  relaxed by letting a reference word be paired again after a descent: then
  the words left and right of X are independent, h_run = bag + R_A(i0; l0, l1)
  + R_B(i1; l0, l1) (:func:`_runs`: pairs only with reference words outside
  the bispan; X counts as a descent after a last left pair in D and before a
  first right pair in C), and the same with the sentences' roles swapped.
  Consistent: for a parent of x with sibling y, M(parent) plus the identical
  pairs of y's tree is a solution for x; bag(.., 0) is subadditive, descents
  inside y are inversions of y's tree, and the sequences only meet at X, where
  a new descent appears only under an inverted parent (paid by its c_inv) --
  the other descents at the seams were descents at the parent's X (the pairs
  avoid the parent's reference span); growth and the leading runs are the
  empty sibling M(y) = {}. The tables cost O(I L^2 + L I^2) entries and are
  dropped before the search; on long WMT pairs they halve to quarter the items.
  Distance-only searches use them (from I L >= ``RUNS_MIN_CELLS``); a tree search
  does not, so that among equally cheap trees it completes the same one as before.
* ub_total = Levenshtein distance (eq. 4.26); items with f > ub_total are never
  queued (the thesis' pruning "ub' <= lb_inner").
* normal form: a word without counterpart is attached to the nearest aligned
  word on its left (same cost), so only *phrases* (a 1x1 seed and the words
  grown onto it, popped as a seed or growth item) grow, at their right ends;
  the leading runs are added once at the end. Growing a straight or inverted
  item is never needed: [A B]+w = [A B+w] and <A B>+w = <A B+w> (a candidate
  word) or <A+w B> (a reference word) at the same cost;
* no spurious bracketings (Wu 1997's normal form, applied to the derivation
  each bispan was popped with): a straight node's left child is never a
  straight item ([[A B] C] = [A [B C]]) and an inverted node's left child
  never an inverted item (<<A B> C> = <A <B C>>, same permutation and
  cost). When a bispan's best derivation is straight, the same parent is
  built as [A [B C]] from its children at the same cost, and every item of
  that derivation has f <= the parent's f (consistency), so it is expanded
  too; this roughly halves the combinations tried (1.23e9 -> 0.67e9 offers on a
  90 x 78-word WMT pair);
* integer costs -> bucket queue (LIFO inside a bucket); final items are kept in
  chunked lists per corner, so combining with all adjacent final items reads
  memory sequentially; stop when the whole sentence pair is popped.

Pruning never changes the result: every item of an optimal tree has
f <= d_inv <= ub_total and is therefore expanded. The tests compare with
:func:`inv_distance_py` (plain recursion eq. 4.24 over all splits, corrected)
and :func:`inv_distance_cyk` (Algorithm 4.3 bottom-up, no pruning).

Cost: the number of expanded items grows quickly with the length and with
d_inv - d_PER (see ``benchmarks/bench_invwer.py``); memory: two values (best
queued g, h) per bispan, I(I+1)/2 x L(L+1)/2 bispans -- int8 when the upper
bound is below 120 cost units (h is capped at ub + 1, which prunes the same),
else int16: ~0.2 GB for 135 x 151 words, the longest WMT21 en-de pair -- plus
the agenda and the final items, which grow with the work done; while h is
computed, the run tables (:func:`runs_bytes`, ~70 MB for 135 x 151 words). ``max_bytes``
caps all of it (the table is checked before it is allocated, the growing arrays at
each doubling; the run bounds are left out when their tables do not fit, and a search
that exceeds the budget with them is repeated without them); :func:`inv_bounded`
falls back to a bounded approximation beyond it.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
from numba import njit

from evaltrans_qt.engine.kernels.arrays import grow

# operation codes of the backtrace (thesis terms): identity, substitution,
# candidate word alone (thesis deletion e/eps), reference word alone (eps/e~)
OP_MATCH, OP_SUB, OP_CAND, OP_REF = 0, 1, 2, 3

_T_SEED, _T_EXT, _T_STRAIGHT, _T_INV, _T_LEAD = 0, 1, 2, 3, 4
_MAX_COST = 32000
_CH = 16  # entries per chunk of a corner list
_OVER_BUDGET = -2   # _astar's result when it stopped at its memory budget
_OVER_POPS = -3     # ... at its pop budget
# bytes per element of the growing arrays: agenda entry (ekey, eg, enext, etype, ea, eb),
# final item (xi0, xi1, xl0, xl1, xtype, xa, xb), chunk of a corner list (pool, cnext, cfill)
_E_BYTES, _X_BYTES, _C_BYTES = 33, 33, 8 * _CH + 8


@njit(cache=True, nogil=True)
def _bag(a, b, m, c_sub, c_del, c_ins):
    """Bag (PER) lower bound: a cand words, b ref words, m identical pairs (eq. 4.26)."""
    s = c_sub if c_sub < c_del + c_ins else c_del + c_ins
    k = a if a < b else b
    return (k - m) * s + (a - k) * c_del + (b - k) * c_ins


@njit(cache=True, nogil=True)
def _flows(a, b, c, d):
    """Most identical pairs of one word among outside parts A, B (candidate) and C, D
    (reference): any pairing, none A-D (crossing B-C only), none B-C (crossing A-D only)."""
    m = a + b if a + b < c + d else c + d
    bc = m if m < b + c else b + c
    ad = m if m < a + d else a + d
    return m, bc, ad


@njit(cache=True, nogil=True)
def lev_costs(c, r, c_sub, c_del, c_ins):
    """Levenshtein distance with constant costs (upper bound ub_total, eq. 4.26)."""
    I = c.size
    L = r.size
    row = np.empty(L + 1, np.int64)
    for l in range(L + 1):
        row[l] = l * c_ins
    for i in range(I):
        diag = row[0]
        row[0] = (i + 1) * c_del
        for l in range(L):
            up = row[l + 1]
            best = diag + (0 if c[i] == r[l] else c_sub)
            if up + c_del < best:
                best = up + c_del
            if row[l] + c_ins < best:
                best = row[l] + c_ins
            row[l + 1] = best
            diag = up
    return row[L]


@njit(cache=True, nogil=True)
def _offer(bh, head, ekey, eg, enext, etype, ea, eb, ne, key, g, t, a, b, ub, f):
    """Queue bispan ``key`` with inside cost g unless it is final, no better than queued,
    or f = g + h > ub. Returns the new entry count (capacity is ensured by the caller)."""
    bk = bh[2 * key]
    if bk < 0 or bk <= g:
        return ne
    fv = g + np.int64(bh[2 * key + 1])
    if fv > ub:
        return ne
    if fv < f:  # cannot happen with a consistent h; keeps the queue monotone anyway
        fv = f
    bh[2 * key] = g
    ekey[ne] = key
    eg[ne] = g
    etype[ne] = t
    ea[ne] = a
    eb[ne] = b
    enext[ne] = head[fv]
    head[fv] = ne
    return ne + 1


#: Combinations of a popped item ("this") with a final partner s of a corner list:
#: [this s] s = (i1, px, l1, py); [s this] s = (px, i0, py, l0);
#: <this s> s = (i1, px, py, l0); <s this> s = (px, i0, l1, py).
_C_STR_LEFT, _C_STR_RIGHT, _C_INV_LEFT, _C_INV_RIGHT = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def _keys(kind, px, py, i0, i1, l0, l1, NR):
    """(parent key, partner key) of combination ``kind`` with partner corner (px, py)."""
    if kind == _C_STR_LEFT:
        return (((px * (px - 1)) // 2 + i0) * NR + (py * (py - 1)) // 2 + l0,
                ((px * (px - 1)) // 2 + i1) * NR + (py * (py - 1)) // 2 + l1)
    if kind == _C_STR_RIGHT:
        return (((i1 * (i1 - 1)) // 2 + px) * NR + (l1 * (l1 - 1)) // 2 + py,
                ((i0 * (i0 - 1)) // 2 + px) * NR + (l0 * (l0 - 1)) // 2 + py)
    if kind == _C_INV_LEFT:
        return (((px * (px - 1)) // 2 + i0) * NR + (l1 * (l1 - 1)) // 2 + py,
                ((px * (px - 1)) // 2 + i1) * NR + (l0 * (l0 - 1)) // 2 + py)
    return (((i1 * (i1 - 1)) // 2 + px) * NR + (py * (py - 1)) // 2 + l0,
            ((i0 * (i0 - 1)) // 2 + px) * NR + (py * (py - 1)) // 2 + l1)


@njit(cache=True, nogil=True)
def _combine(kind, ch, pool, cnext, cfill, tk, tg, tb, bh, head, ekey, eg, enext, etype, ea, eb,
             ne, key, g, i0, i1, l0, l1, NR, c_inv, ub, f):
    """Offer the parents of the popped item ``key`` = (i0, i1, l0, l1) with inside cost g
    and each final partner in the corner list from chunk ``ch`` (combination ``kind``).

    Each chunk of partners is read in three passes -- the parents' keys and costs,
    their table entries (queued g and h, -1 = final), then offers only where the parent is
    neither final nor queued as cheaply and f <= ub -- so the table reads overlap and the
    one branch per partner is rarely taken (well predicted).
    Returns the new entry count.
    """
    inv = kind == _C_INV_LEFT or kind == _C_INV_RIGHT
    extra = c_inv if inv else 0
    t = _T_INV if inv else _T_STRAIGHT
    first = kind == _C_STR_LEFT or kind == _C_INV_LEFT   # this item is the left child
    while ch >= 0:
        q0 = ch * _CH
        nq = cfill[ch]
        for j in range(nq):
            v = pool[q0 + j]
            tk[j] = _keys(kind, v >> 40, (v >> 20) & 0xFFFFF, i0, i1, l0, l1, NR)[0]
            tg[j] = g + (v & 0xFFFFF) + extra
        for j in range(nq):    # gate: an offer g is made iff g < min(queued g, ub + 1 - h)
            bk = np.int64(bh[2 * tk[j]])
            gt = ub + 1 - np.int64(bh[2 * tk[j] + 1])
            tb[j] = bk if bk < gt else gt
        for j in range(nq):
            if tg[j] < tb[j]:
                v = pool[q0 + j]
                sk = _keys(kind, v >> 40, (v >> 20) & 0xFFFFF, i0, i1, l0, l1, NR)[1]
                if first:
                    ne = _offer(bh, head, ekey, eg, enext, etype, ea, eb, ne, tk[j], tg[j], t,
                                key, sk, ub, f)
                else:
                    ne = _offer(bh, head, ekey, eg, enext, etype, ea, eb, ne, tk[j], tg[j], t,
                                sk, key, ub, f)
        ch = cnext[ch]
    return ne


@njit(cache=True, nogil=True)
def _spans(n):
    """(lo, hi) of every non-empty span [lo, hi) of n words, at index hi(hi-1)/2 + lo."""
    lo = np.empty(n * (n + 1) // 2, np.int32)
    hi = np.empty(n * (n + 1) // 2, np.int32)
    for h in range(1, n + 1):
        for a in range(h):
            k = h * (h - 1) // 2 + a
            lo[k] = a
            hi[k] = h
    return lo, hi


@njit(cache=True, nogil=True)
def _prefix_bags(c, r, V, c_sub, c_del, c_ins):
    """Bag bound of every prefix pair: out[i, l] = bag(c[:i], r[:l]) (eq. 4.26)."""
    I = c.size
    L = r.size
    out = np.empty((I + 1, L + 1), np.int64)
    pc = np.zeros(V, np.int32)
    pr = np.zeros(V, np.int32)
    for i in range(I + 1):
        if i > 0:
            pc[c[i - 1]] += 1
        for w in range(V):
            pr[w] = 0
        m = 0
        out[i, 0] = _bag(i, 0, 0, c_sub, c_del, c_ins)
        for l in range(1, L + 1):
            w = r[l - 1]
            if pr[w] < pc[w]:
                m += 1
            pr[w] += 1
            out[i, l] = _bag(i, l, m, c_sub, c_del, c_ins)
    return out


@njit(cache=True, nogil=True)
def _runs(c, r, V, s, c_inv):
    """Run bound of one outside side: R[i, l0, l1] (0 <= i <= I, 0 <= l0 < l1 <= L) is the
    least  -s |M| + c_inv (des(M) + [last pair of M at a reference word >= l1])  over sets M
    of identical pairs (i', l') with i' < i and l' outside [l0, l1), listed in candidate
    order, where des counts the consecutive pairs whose reference position does not grow
    (a reference word may be paired again after such a descent: the relaxation).

    A dynamic programme over the candidate words per span (l0, l1); the state is the
    reference position of the last pair (or none), the prefix minima over the states live
    in a Fenwick tree, and only the positions of the word's occurrences are visited."""
    I = c.size
    L = r.size
    start = np.zeros(V + 1, np.int64)          # occurrences of each word in r, ascending
    for j in range(L):
        start[r[j] + 1] += 1
    for w in range(V):
        start[w + 1] += start[w]
    pos = np.empty(L, np.int64)
    fill = start[:V].copy()
    for j in range(L):
        pos[fill[r[j]]] = j
        fill[r[j]] += 1
    out = np.zeros((I + 1, L + 1, L + 1), np.int32)
    n = L + 1                                  # Fenwick slots: 1 = none, j + 2 = pair at j
    fw = np.empty(n + 1, np.int64)
    tv = np.empty(L + 1, np.int64)
    for l0 in range(L):
        for l1 in range(l0 + 1, L + 1):
            for k in range(n + 1):
                fw[k] = 1 << 60
            k = 1
            while k <= n:                      # the state "none" (value 0) is in every prefix
                fw[k] = 0
                k += k & -k
            m = 0           # least value of any state
            lo = 0          # ... of the states left of the span (and none)
            hi = 1 << 60    # ... of the states right of the span
            for i in range(I + 1):
                v = hi + c_inv
                out[i, l0, l1] = lo if lo < v else v
                if i == I:
                    break
                w = c[i]
                q0 = start[w]
                q1 = start[w + 1]
                for q in range(q0, q1):        # values from the states before word i
                    jp = pos[q]
                    if l0 <= jp < l1:
                        continue
                    best = 1 << 60
                    k = jp + 1                 # prefix minimum over slots 1 .. jp + 1
                    while k > 0:
                        if fw[k] < best:
                            best = fw[k]
                        k -= k & -k
                    x = m + c_inv
                    tv[q - q0] = (best if best < x else x) - s
                for q in range(q0, q1):
                    jp = pos[q]
                    if l0 <= jp < l1:
                        continue
                    x = tv[q - q0]
                    k = jp + 2
                    while k <= n:
                        if x < fw[k]:
                            fw[k] = x
                        k += k & -k
                    if x < m:
                        m = x
                    if jp < l0:
                        if x < lo:
                            lo = x
                    elif x < hi:
                        hi = x
    return out


@njit(cache=True, nogil=True)
def _run_tables(c, r, V, s, c_inv):
    """The four run bounds, each laid out for the h loop of :func:`_init_h` (i0, i1, l1, l0
    from the outside in): A[i0, l1, l0] (candidate words left of the bispan, in candidate
    order), B[i1, l1, l0] (right of it), and the same in reference order, RA[i0, i1, l0]
    (reference words left of the bispan) and RB[i0, i1, l1] (right of it). The right
    sides are the left sides of the reversed sentences."""
    I = c.size
    L = r.size
    t = _runs(c, r, V, s, c_inv)
    A = np.zeros((I + 1, L + 1, L + 1), np.int32)
    for i0 in range(I + 1):
        for l0 in range(L):
            for l1 in range(l0 + 1, L + 1):
                A[i0, l1, l0] = t[i0, l0, l1]
    t = _runs(c[::-1].copy(), r[::-1].copy(), V, s, c_inv)
    B = np.zeros((I + 1, L + 1, L + 1), np.int32)
    for i1 in range(I + 1):
        for l0 in range(L):
            for l1 in range(l0 + 1, L + 1):
                B[i1, l1, l0] = t[I - i1, L - l1, L - l0]
    t = _runs(r, c, V, s, c_inv)
    RA = np.zeros((I + 1, I + 1, L + 1), np.int32)
    for l0 in range(L + 1):
        for i0 in range(I):
            for i1 in range(i0 + 1, I + 1):
                RA[i0, i1, l0] = t[l0, i0, i1]
    t = _runs(r[::-1].copy(), c[::-1].copy(), V, s, c_inv)
    RB = np.zeros((I + 1, I + 1, L + 1), np.int32)
    for l1 in range(L + 1):
        for i0 in range(I):
            for i1 in range(i0 + 1, I + 1):
                RB[i0, i1, l1] = t[L - l1, I - i1, I - i0]
    return A, B, RA, RB


@njit(cache=True, nogil=True)
def _init_h(c, r, V, c_sub, c_del, c_ins, c_inv, ub, bh, NONE, runs):
    """Fill the table ``bh``: every bispan not queued (``NONE``) with h = its outside bound
    (lb_outer, eq. 4.29, see the module doc), capped at ub + 1; with ``runs`` also the run
    bounds of :func:`_run_tables` (whose tables live only here)."""
    I = c.size
    L = r.size
    NR = L * (L + 1) // 2
    s = c_sub if c_sub < c_del + c_ins else c_del + c_ins
    if runs:
        RUNA, RUNB, RUNRA, RUNRB = _run_tables(c, r, V, s, c_inv)
    else:
        RUNA = np.zeros((1, 1, 1), np.int32)
        RUNB = RUNA
        RUNRA = RUNA
        RUNRB = RUNA
    Cc = np.zeros(V, np.int32)
    Cr = np.zeros(V, np.int32)
    for i in range(I):
        Cc[c[i]] += 1
    for l in range(L):
        Cr[r[l]] += 1
    # prefix/suffix bags for the "no inverted ancestor" case of h (see module doc); the
    # suffixes of the sentences are the prefixes of the reversed sentences
    P = _prefix_bags(c, r, V, c_sub, c_del, c_ins)
    S = _prefix_bags(c[::-1].copy(), r[::-1].copy(), V, c_sub, c_del, c_ins)[::-1, ::-1]
    # bh[2k] = best queued g of bispan k (NONE: not queued, -1: final); bh[2k+1] = min(h(k), ub + 1)
    hcap = ub + 1
    # rank[l] = occurrences of the word r[l] in r[:l]
    rank = np.empty(L, np.int64)
    seen = np.zeros(V, np.int64)
    for l in range(L):
        rank[l] = seen[r[l]]
        seen[r[l]] += 1
    # outside counts per word: A = cand[:i0], B = cand[i1:], C = ref[:l0], D = ref[l1:];
    # the loops run i0, i1, l1, l0 (l0 innermost: the bispans of one (i0, i1, l1) are
    # consecutive in the table). C's counts are the ranks, D's are kept per l1.
    ca = np.zeros(V, np.int64)
    cb = np.zeros(V, np.int64)
    cd = np.zeros(V, np.int64)
    M1 = np.empty(L + 1, np.int64)
    M2 = np.empty(L + 1, np.int64)
    for i0 in range(I):
        if i0 > 0:
            ca[c[i0 - 1]] += 1
        for w in range(V):
            cb[w] = Cc[w] - ca[w]
        for i1 in range(i0 + 1, I + 1):
            cb[c[i1 - 1]] -= 1
            base = (i1 * (i1 - 1) // 2 + i0) * NR
            a = I - (i1 - i0)
            # state l0 = l1 = 0: C empty, D = whole reference
            mA = 0
            mBC = 0
            mAD = 0
            for w in range(V):
                cd[w] = Cr[w]
                x, y, z = _flows(ca[w], cb[w], 0, Cr[w])
                mA += x
                mBC += y
                mAD += z
            for l1 in range(1, L + 1):
                w = r[l1 - 1]          # leaves D (C is empty at l0 = 0)
                x, y, z = _flows(ca[w], cb[w], 0, cd[w])
                cd[w] -= 1
                x2, y2, z2 = _flows(ca[w], cb[w], 0, cd[w])
                mA += x2 - x
                mBC += y2 - y
                mAD += z2 - z
                m1 = mA
                m2 = mBC
                m3 = mAD
                # the matchings of every l0 (a scan over the words moving to C), then h
                for l0 in range(l1):
                    if l0 > 0:         # ref word l0-1 moves from the bispan to C
                        w = r[l0 - 1]
                        k = rank[l0 - 1]
                        x, y, z = _flows(ca[w], cb[w], k, cd[w])
                        x2, y2, z2 = _flows(ca[w], cb[w], k + 1, cd[w])
                        m1 += x2 - x
                        m2 += y2 - y
                        m3 += z2 - z
                    M1[l0] = m1
                    M2[l0] = m2 if m2 > m3 else m3   # the larger matching: the weaker bound
                s1 = S[i1, l1]
                row = 2 * (base + l1 * (l1 - 1) // 2)
                rb = RUNRB[i0, i1, l1] if runs else 0
                for l0 in range(l1):
                    bt = L - (l1 - l0)
                    k = a if a < bt else bt
                    b0 = k * s + (a - k) * c_del + (bt - k) * c_ins  # bag(.., m) = b0 - s m
                    hv = P[i0, l0] + s1                              # no inverted ancestor
                    x = b0 - s * M2[l0] + c_inv                      # crossing one way only
                    if x < hv:
                        hv = x
                    x = b0 - s * M1[l0] + 2 * c_inv                  # two or more inversions
                    if x < hv:
                        hv = x
                    if runs:                                         # run bounds, any ancestors
                        x = b0 + RUNA[i0, l1, l0] + RUNB[i1, l1, l0]
                        if x > hv:
                            hv = x
                        x = b0 + RUNRA[i0, i1, l0] + rb
                        if x > hv:
                            hv = x
                    bh[row + 2 * l0] = NONE
                    bh[row + 2 * l0 + 1] = hv if hv < hcap else hcap

@njit(cache=True, nogil=True)
def _astar(c, r, V, c_sub, c_del, c_ins, c_inv, ub, want_tree, bh, NONE, max_dyn, max_pops,
           runs):
    """Core of :func:`inv_distance` on local ids (0..V-1). Returns (d, ops, invs, expanded).

    ``bh``: uninitialised table of 2 entries per bispan (int8 or int16), ``NONE``
    its largest value (= not queued). ``max_dyn`` > 0 caps the bytes of the growing
    arrays (agenda, final items, corner lists) and ``max_pops`` > 0 the items popped:
    beyond either the search stops and returns d = ``_OVER_BUDGET``."""
    I = c.size
    L = r.size
    NC = I * (I + 1) // 2
    NR = L * (L + 1) // 2
    clo, chi = _spans(I)
    rlo, rhi = _spans(L)

    _init_h(c, r, V, c_sub, c_del, c_ins, c_inv, ub, bh, NONE, runs)

    # ---- agenda: bucket queue of entries (lazy deletion via bh)
    cap = 1 << 14
    ekey = np.empty(cap, np.int64)
    eg = np.empty(cap, np.int32)
    enext = np.empty(cap, np.int32)
    etype = np.empty(cap, np.int8)
    ea = np.empty(cap, np.int64)
    eb = np.empty(cap, np.int64)
    ne = 0
    head = np.full(ub + 1, -1, np.int32)
    # ---- final items: arrays for the backtrace, and four corner lists in chunks of
    # _CH packed entries (other corner, g) for cache-friendly combination
    xcap = 1 << 12
    xi0 = np.empty(xcap, np.int32)
    xi1 = np.empty(xcap, np.int32)
    xl0 = np.empty(xcap, np.int32)
    xl1 = np.empty(xcap, np.int32)
    xtype = np.empty(xcap, np.int8)
    xa = np.empty(xcap, np.int64)
    xb = np.empty(xcap, np.int64)
    nx = 0
    NCR = (I + 1) * (L + 1)
    lhead = np.full(4 * NCR, -1, np.int32)   # newest chunk of list (type, corner)
    lcount = np.zeros(4 * NCR, np.int32)
    ccap = 1 << 10
    pool = np.empty(ccap * _CH, np.int64)
    cnext = np.empty(ccap, np.int32)
    cfill = np.empty(ccap, np.int32)
    nch = 0
    closed_at = np.full(NC * NR if want_tree else 1, -1, np.int32)

    root = (I * (I - 1) // 2 + 0) * NR + (L * (L - 1) // 2 + 0)
    tk = np.empty(_CH, np.int64)
    tg = np.empty(_CH, np.int64)
    tb = np.empty(_CH, np.int64)
    dpair = c_del + c_ins
    f = 0
    if I * L + 8 > cap:
        cap = 2 * (I * L + 8)
        if max_dyn > 0 and _E_BYTES * cap + _X_BYTES * xcap + _C_BYTES * ccap > max_dyn:
            return _OVER_BUDGET, np.empty((0, 3), np.int32), np.empty((0, 8), np.int32), 0
        ekey = grow(ekey, cap)
        eg = grow(eg, cap)
        enext = grow(enext, cap)
        etype = grow(etype, cap)
        ea = grow(ea, cap)
        eb = grow(eb, cap)
    for i in range(I):  # seeds: the 1x1 bispans
        for l in range(L):
            g = 0 if c[i] == r[l] else (c_sub if c_sub < dpair else dpair)
            key = ((i + 1) * i // 2 + i) * NR + (l + 1) * l // 2 + l
            ne = _offer(bh, head, ekey, eg, enext, etype, ea, eb, ne, key, g, _T_SEED, -1, -1,
                        ub, f)
    result = -1
    expanded = 0
    while True:
        # ---- pop
        e = -1
        while f <= ub:
            e = head[f]
            if e < 0:
                f += 1
                continue
            head[f] = enext[e]
            if bh[2 * ekey[e]] == eg[e]:
                break
            e = -1
        if e < 0:
            break  # exhausted: only possible when no tree with an aligned pair is <= ub
        key = ekey[e]
        g = eg[e]
        bh[2 * key] = -1
        expanded += 1
        ci = key // NR
        ri = key - ci * NR
        i0 = clo[ci]
        i1 = chi[ci]
        l0 = rlo[ri]
        l1 = rhi[ri]
        if max_pops > 0 and expanded > max_pops:
            result = _OVER_POPS
            break
        if nx == xi0.size:
            n2 = 2 * xi0.size
            if max_dyn > 0 and (_E_BYTES * ekey.size + _X_BYTES * (n2 + xi0.size)
                                + _C_BYTES * cnext.size > max_dyn):
                result = _OVER_BUDGET
                break
            xi0 = grow(xi0, n2)
            xi1 = grow(xi1, n2)
            xl0 = grow(xl0, n2)
            xl1 = grow(xl1, n2)
            xtype = grow(xtype, n2)
            xa = grow(xa, n2)
            xb = grow(xb, n2)
        x = nx
        nx += 1
        xi0[x] = i0
        xi1[x] = i1
        xl0[x] = l0
        xl1[x] = l1
        xtype[x] = etype[e]
        xa[x] = ea[e]
        xb[x] = eb[e]
        if want_tree:
            closed_at[key] = x
        if key == root:
            result = g
            break
        kSS = 0 * NCR + i1 * (L + 1) + l1   # items starting at (i1, l1): this one is left
        kEE = 1 * NCR + i0 * (L + 1) + l0   # items ending at (i0, l0): this one is right
        kSE = 2 * NCR + i1 * (L + 1) + l0   # items with cand start i1, ref end l0
        kES = 3 * NCR + i0 * (L + 1) + l1   # items with cand end i0, ref start l1
        need = 6 + lcount[kEE] + lcount[kSE] + lcount[kES]
        if i1 < I and l1 < L:
            need += lcount[kSS]
        if ne + need > ekey.size:
            n2 = 2 * (ne + need)
            if max_dyn > 0 and (_E_BYTES * (n2 + ekey.size) + _X_BYTES * xi0.size
                                + _C_BYTES * cnext.size > max_dyn):
                result = _OVER_BUDGET
                break
            ekey = grow(ekey, n2)
            eg = grow(eg, n2)
            enext = grow(enext, n2)
            etype = grow(etype, n2)
            ea = grow(ea, n2)
            eb = grow(eb, n2)
        tx = etype[e]
        phrase = tx == _T_SEED or tx == _T_EXT
        # ---- growth by one unaligned word at the right ends (trailing runs)
        if phrase and i1 < I:
            ne = _offer(bh, head, ekey, eg, enext, etype, ea, eb, ne,
                        (((i1 + 1) * i1) // 2 + i0) * NR + ri, g + c_del, _T_EXT, key, -1, ub, f)
        if phrase and l1 < L:
            ne = _offer(bh, head, ekey, eg, enext, etype, ea, eb, ne,
                        ci * NR + ((l1 + 1) * l1) // 2 + l0, g + c_ins, _T_EXT, key, -1, ub, f)
        if i1 == I and l1 == L and (i0 > 0 or l0 > 0):  # leading runs close the whole pair
            ne = _offer(bh, head, ekey, eg, enext, etype, ea, eb, ne, root,
                        g + i0 * c_del + l0 * c_ins, _T_LEAD, key, -1, ub, f)
        tx = etype[e]
        # ---- combine with every adjacent final item (partners from the corner lists)
        if tx != _T_STRAIGHT and i1 < I and l1 < L:   # straight [this s]
            ne = _combine(_C_STR_LEFT, lhead[kSS], pool, cnext, cfill, tk, tg, tb, bh, head, ekey,
                          eg, enext, etype, ea, eb, ne, key, g, i0, i1, l0, l1, NR, c_inv, ub, f)
        ne = _combine(_C_STR_RIGHT, lhead[kEE], pool, cnext, cfill, tk, tg, tb, bh, head, ekey,
                      eg, enext, etype, ea, eb, ne, key, g, i0, i1, l0, l1, NR, c_inv, ub, f)
        if tx != _T_INV:                                # inverted <this s>
            ne = _combine(_C_INV_LEFT, lhead[kSE], pool, cnext, cfill, tk, tg, tb, bh, head, ekey,
                          eg, enext, etype, ea, eb, ne, key, g, i0, i1, l0, l1, NR, c_inv, ub, f)
        ne = _combine(_C_INV_RIGHT, lhead[kES], pool, cnext, cfill, tk, tg, tb, bh, head, ekey,
                      eg, enext, etype, ea, eb, ne, key, g, i0, i1, l0, l1, NR, c_inv, ub, f)
        # ---- file this item in the four corner lists (other corner, g)
        if nch + 4 > cnext.size:
            n2 = 2 * (nch + 4)
            if max_dyn > 0 and (_E_BYTES * ekey.size + _X_BYTES * xi0.size
                                + _C_BYTES * (n2 + cnext.size) > max_dyn):
                result = _OVER_BUDGET
                break
            cnext = grow(cnext, n2)
            cfill = grow(cfill, n2)
            pool = grow(pool, n2 * _CH)
        for t in range(4):
            if (t == 1 and tx == _T_STRAIGHT) or (t == 3 and tx == _T_INV):
                continue
            if t == 0:
                k = 0 * NCR + i0 * (L + 1) + l0
                v = (np.int64(i1) << 40) | (np.int64(l1) << 20) | g
            elif t == 1:
                k = 1 * NCR + i1 * (L + 1) + l1
                v = (np.int64(i0) << 40) | (np.int64(l0) << 20) | g
            elif t == 2:
                k = 2 * NCR + i0 * (L + 1) + l1
                v = (np.int64(i1) << 40) | (np.int64(l0) << 20) | g
            else:
                k = 3 * NCR + i1 * (L + 1) + l0
                v = (np.int64(i0) << 40) | (np.int64(l1) << 20) | g
            ch = lhead[k]
            if ch < 0 or cfill[ch] == _CH:
                ch2 = nch
                nch += 1
                cnext[ch2] = ch
                cfill[ch2] = 0
                lhead[k] = ch2
                ch = ch2
            pool[ch * _CH + cfill[ch]] = v
            cfill[ch] += 1
            lcount[k] += 1

    ops = np.empty((0, 3), np.int32)
    invs = np.empty((0, 8), np.int32)
    if want_tree and result >= 0:
        ops = np.empty((I + L, 3), np.int32)
        invs = np.empty((I + L, 8), np.int32)
        no = 0
        nv = 0
        # stack: value >= 0 -> node key to expand; value < 0 -> emit op -(value+1)
        stack = np.empty(4 * (I + L) + 8, np.int64)
        sp = 0
        stack[sp] = root
        sp += 1
        while sp > 0:
            sp -= 1
            v = stack[sp]
            if v < 0:
                code = -(v + 1)
                ops[no, 0] = code % 4
                ops[no, 1] = (code // 4) % 65536 - 1
                ops[no, 2] = code // (4 * 65536) - 1
                no += 1
                continue
            x = closed_at[v]
            t = xtype[x]
            i0 = xi0[x]
            i1 = xi1[x]
            l0 = xl0[x]
            l1 = xl1[x]
            if t == _T_SEED:
                if c[i0] == r[l0]:
                    stack[sp] = -(OP_MATCH + 4 * (i0 + 1) + 4 * 65536 * (l0 + 1)) - 1
                    sp += 1
                elif c_sub <= dpair:
                    stack[sp] = -(OP_SUB + 4 * (i0 + 1) + 4 * 65536 * (l0 + 1)) - 1
                    sp += 1
                else:  # pushed in reverse: reference word first, then the candidate word
                    stack[sp] = -(OP_CAND + 4 * (i0 + 1)) - 1
                    stack[sp + 1] = -(OP_REF + 4 * 65536 * (l0 + 1)) - 1
                    sp += 2
            elif t == _T_EXT:
                y = closed_at[xa[x]]
                if xi1[y] == i1 - 1:      # candidate word i1-1 after the child
                    stack[sp] = -(OP_CAND + 4 * i1) - 1
                    stack[sp + 1] = xa[x]
                else:                     # reference word l1-1 after the child
                    stack[sp] = -(OP_REF + 4 * 65536 * l1) - 1
                    stack[sp + 1] = xa[x]
                sp += 2
            elif t == _T_LEAD:  # leading runs: candidate words, reference words, then the child
                y = closed_at[xa[x]]
                stack[sp] = xa[x]
                sp += 1
                for l in range(xl0[y] - 1, -1, -1):
                    stack[sp] = -(OP_REF + 4 * 65536 * (l + 1)) - 1
                    sp += 1
                for i in range(xi0[y] - 1, -1, -1):
                    stack[sp] = -(OP_CAND + 4 * (i + 1)) - 1
                    sp += 1
                continue
            elif t == _T_STRAIGHT:
                stack[sp] = xb[x]
                stack[sp + 1] = xa[x]
                sp += 2
            else:  # inverted: reference order is b (ref-left) then a
                y = closed_at[xa[x]]
                z = closed_at[xb[x]]
                invs[nv, 0] = i0
                invs[nv, 1] = i1
                invs[nv, 2] = l0
                invs[nv, 3] = l1
                invs[nv, 4] = xi1[y]   # candidate split
                invs[nv, 5] = xl1[z]   # reference split
                invs[nv, 6] = nv
                invs[nv, 7] = 0
                nv += 1
                stack[sp] = xa[x]
                stack[sp + 1] = xb[x]
                sp += 2
        ops = ops[:no].copy()
        invs = invs[:nv].copy()
    return result, ops, invs, expanded


def _local_ids(cand: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    both = np.concatenate([np.asarray(cand, np.int64), np.asarray(ref, np.int64)])
    if both.size == 0:
        return np.zeros(0, np.int32), np.zeros(0, np.int32), 0
    uniq, inv = np.unique(both, return_inverse=True)
    inv = inv.astype(np.int32)
    return inv[:len(cand)].copy(), inv[len(cand):].copy(), int(uniq.size)


def _check_costs(c_sub: int, c_del: int, c_ins: int, c_inv: int) -> None:
    for v in (c_sub, c_del, c_ins, c_inv):
        if int(v) != v or v < 0:
            raise ValueError("d_inv costs must be non-negative integers")


class OverBudget(Exception):
    """The exact search of a pair needs more than its memory (or pop) budget."""

    def __init__(self, needed: int, budget: int) -> None:
        super().__init__(f"d_inv: the exact search needs more than {needed} bytes "
                         f"(budget {budget})")
        self.needed = needed
        self.budget = budget


@dataclass(frozen=True)
class InvResult:
    """d_inv of one pair (cost units) with the tree's leaves and inversions (see
    :func:`inv_search`); ``exact`` is False when it is the bounded approximation.
    ``farther`` (:func:`inv_nearest` only): the search stopped once d_inv was proven larger
    than another reference's distance; ``distance`` is then that proof's lower bound."""

    distance: int
    ops: np.ndarray
    invs: np.ndarray
    expanded: int
    exact: bool = True
    farther: bool = False


def table_bytes(I: int, L: int, ub: int, want_tree: bool = False) -> int:
    """Bytes the exact search allocates before its first pop: the g/h table (int8 below
    120 cost units, else int16), the tree's item index (with ``want_tree``), the per-corner
    lists, the prefix/suffix bags and the first agenda and item blocks."""
    nb = I * (I + 1) * L * (L + 1) // 2                  # two entries per bispan
    per = 1 if ub < 120 else 2
    tree = 2 * nb if want_tree else 0                     # int32 per bispan
    cells = (I + 1) * (L + 1)
    first = _E_BYTES * max(1 << 14, 2 * (I * L + 8)) + _X_BYTES * (1 << 12) + _C_BYTES * (1 << 10)
    return nb * per + tree + 48 * cells + first


#: Largest g/h table (bytes) kept for the next search of the same thread: a fresh table's
#: first touch costs page faults (~0.5 ms per MB, more with huge pages), as much as the
#: whole search of a short pair; larger tables belong to long searches and are freed.
TABLE_CACHE_BYTES = 64 << 20
_cache = threading.local()


def _table(n: int, dtype) -> np.ndarray:
    """An uninitialised table of ``n`` entries of ``dtype`` (int8 or int16), reusing this
    thread's buffer when it is large enough (the search initialises every entry)."""
    size = n * np.dtype(dtype).itemsize
    if size > TABLE_CACHE_BYTES:
        return np.empty(n, dtype)
    buf = getattr(_cache, "buf", None)
    if buf is None or buf.size < size:
        buf = np.empty(max(size, 1 << 20), np.int8)
        _cache.buf = buf
    return buf[:size].view(dtype)


#: The search adds the run bounds to h from I x L >= RUNS_MIN_CELLS and a gap between the
#: upper bound and the pair's bag bound of RUNS_MIN_GAP x max(1, c_inv) (smaller or nearly
#: monotone pairs are searched faster than the bounds' tables are built: WMT21 en-de).
RUNS_MIN_CELLS = 700
RUNS_MIN_GAP = 4


def _root_bag(c: np.ndarray, r: np.ndarray, V: int, s: int, c_del: int, c_ins: int) -> int:
    """Bag (PER) bound of the whole pair on local ids (eq. 4.26)."""
    m = int(np.minimum(np.bincount(c, minlength=V), np.bincount(r, minlength=V)).sum())
    k = min(len(c), len(r))
    return (k - m) * s + (len(c) - k) * c_del + (len(r) - k) * c_ins


def runs_bytes(I: int, L: int) -> int:
    """Bytes of the run bounds' tables (:func:`_run_tables`; four int32 tables and one being
    built), held only while h is computed."""
    return 4 * (3 * (I + 1) * (L + 1) ** 2 + 3 * (L + 1) * (I + 1) ** 2)


def _unaligned(I: int, L: int, c_del: int, c_ins: int) -> tuple[int, np.ndarray]:
    ops = [(OP_CAND, i, -1) for i in range(I)] + [(OP_REF, -1, l) for l in range(L)]
    return I * c_del + L * c_ins, np.asarray(ops, np.int32).reshape(-1, 3)


def inv_distance(cand: np.ndarray, ref: np.ndarray, c_sub: int = 1, c_del: int = 1,
                 c_ins: int = 1, c_inv: int = 1) -> int:
    """Exact d_inv(cand, ref) (eq. 4.20) in cost units (not divided by the denominator)."""
    return inv_search(cand, ref, c_sub, c_del, c_ins, c_inv, False)[0]


def inv_search(cand: np.ndarray, ref: np.ndarray, c_sub: int = 1, c_del: int = 1, c_ins: int = 1,
               c_inv: int = 1, want_tree: bool = False, max_bytes: int | None = None,
               max_pops: int = 0, bound: int | None = None):
    """Exact d_inv with the optimal tree's leaves and inversions.

    Returns ``(distance, ops, invs, expanded)``: ``ops`` rows ``(code, i, l)`` in
    reference order of the tree (OP_* codes; -1 = no word on that side);
    ``invs`` rows ``(i0, i1, l0, l1, i_split, l_split, n, 0)`` for every inverted
    node ``<A B>`` with A = cand [i0, i_split) / ref [l_split, l1) and
    B = cand [i_split, i1) / ref [l0, l_split); ``expanded`` = items popped.
    ``max_bytes`` (default: no limit) caps the search's memory and ``max_pops`` > 0 the
    items popped; :class:`OverBudget` is raised beyond them, before the table is
    allocated when the table alone does not fit. Without a tree and a pop budget the
    search adds the run bounds to h (module doc): same distance, fewer items popped.
    ``bound``: only trees of cost <= ``bound`` are looked for (the upper bound of the search
    is min(Levenshtein, bound)); if d_inv > ``bound`` the distance returned is -1 (no ops):
    an exact answer to "is d_inv <= bound, and if so what is it" at a fraction of the work
    when the bound is tight (the other references of a candidate, :func:`inv_nearest`).
    """
    _check_costs(c_sub, c_del, c_ins, c_inv)
    I, L = len(cand), len(ref)
    if I == 0 or L == 0:
        d, ops = _unaligned(I, L, c_del, c_ins)
        if bound is not None and d > bound:
            return -1, np.zeros((0, 3), np.int32), np.zeros((0, 8), np.int32), 0
        return d, ops, np.zeros((0, 8), np.int32), 0
    c, r, V = _local_ids(cand, ref)
    ub = int(lev_costs(c, r, int(c_sub), int(c_del), int(c_ins)))
    s = min(int(c_sub), int(c_del) + int(c_ins))
    if bound is not None and bound < ub:
        # every tree costs >= the bag bound; the tree without an aligned pair costs
        # I c_del + L c_ins >= the Levenshtein distance > bound, so it never counts here
        if bound < 0 or _root_bag(c, r, V, s, int(c_del), int(c_ins)) > bound:
            return -1, np.zeros((0, 3), np.int32), np.zeros((0, 8), np.int32), 0
        ub = int(bound)
    if ub > _MAX_COST:
        raise ValueError(f"d_inv: costs too large for the int16 tables (upper bound {ub})")
    fixed = table_bytes(I, L, ub, want_tree)
    dyn = 0
    if max_bytes is not None:
        if fixed > max_bytes:
            raise OverBudget(fixed, max_bytes)
        dyn = max(1, max_bytes - fixed)
    nb = I * (I + 1) * L * (L + 1) // 2   # two entries per bispan
    dt: type[np.signedinteger[Any]]
    if ub < 120:  # g and h fit in int8 (values > ub are never queued): half the memory traffic
        dt, none = np.int8, 127
    else:
        dt, none = np.int16, 32767
    runs = (not want_tree and not max_pops and I * L >= RUNS_MIN_CELLS
            and (s + int(c_inv)) * (I + L + 2) < 1 << 30
            and ub - _root_bag(c, r, V, s, int(c_del), int(c_ins)) >= RUNS_MIN_GAP * max(1, c_inv)
            and (max_bytes is None or fixed + runs_bytes(I, L) <= max_bytes))
    # the run bounds change which items are popped, never the distance; a search that
    # exceeds its budget with them is run again without them, so a pair is never less
    # exact than without the run bounds. A tree search goes without them (among equally
    # cheap trees it returns the one the bag bounds find first, as before the run bounds),
    # and so does a search with a pop budget (the pieces of inv_bounded: cut as before).
    for use_runs in ((True, False) if runs else (False,)):
        bh = _table(nb, dt)
        d, ops, invs, expanded = _astar(c, r, V, int(c_sub), int(c_del), int(c_ins), int(c_inv),
                                        ub, bool(want_tree), bh, none, dyn, int(max_pops),
                                        use_runs)
        del bh
        if d != _OVER_BUDGET and d != _OVER_POPS:
            break
    if d == _OVER_BUDGET or d == _OVER_POPS:
        raise OverBudget(fixed + dyn if max_bytes is not None else fixed, max_bytes or 0)
    unaligned, uops = _unaligned(I, L, c_del, c_ins)  # the only tree without an aligned pair
    if unaligned > ub and d < 0:    # nothing <= bound (< Levenshtein <= unaligned)
        return -1, np.zeros((0, 3), np.int32), np.zeros((0, 8), np.int32), int(expanded)
    if d < 0 or unaligned < d:
        return unaligned, uops, np.zeros((0, 8), np.int32), int(expanded)
    return int(d), ops, invs, int(expanded)


# ---------------------------------------------------------------- bounded approximation
#: Longest side (words) of a piece of the approximation, and the most items one piece may
#: pop (about a second) before it is split again.
PIECE_WORDS = 40
PIECE_POPS = 1_000_000


@njit(cache=True, nogil=True)
def _lev_cuts(c, r, c_sub, c_del, c_ins, width):
    """Cut points (i, l) on one Levenshtein path (eq. 4.26's ub_total) such that no piece
    between two cuts has more than ``width`` words on either side; a cut is put right after
    the last identical pair of the piece when there is one in its second half."""
    I = c.size
    L = r.size
    row = np.empty(L + 1, np.int64)
    mv = np.empty((I + 1) * (L + 1), np.int8)   # 0 diagonal, 1 candidate word, 2 ref word
    for l in range(L + 1):
        row[l] = l * c_ins
        mv[l] = 2
    for i in range(1, I + 1):
        diag = row[0]
        row[0] = i * c_del
        mv[i * (L + 1)] = 1
        for l in range(1, L + 1):
            up = row[l]
            best = diag + (0 if c[i - 1] == r[l - 1] else c_sub)
            m = 0
            if up + c_del < best:
                best = up + c_del
                m = 1
            if row[l - 1] + c_ins < best:
                best = row[l - 1] + c_ins
                m = 2
            row[l] = best
            mv[i * (L + 1) + l] = m
            diag = up
    # the path backwards, then forwards with the cuts
    n = I + L + 1
    pi = np.empty(n, np.int64)
    pl = np.empty(n, np.int64)
    pm = np.zeros(n, np.bool_)           # node reached by an identical pair
    k = n - 1
    i = I
    l = L
    while True:
        pi[k] = i
        pl[k] = l
        if i == 0 and l == 0:
            break
        m = mv[i * (L + 1) + l] if (i > 0 and l > 0) else (1 if l == 0 else 2)
        if m == 0:
            pm[k] = c[i - 1] == r[l - 1]
            i -= 1
            l -= 1
        elif m == 1:
            i -= 1
        else:
            l -= 1
        k -= 1
    cuts_i = np.empty(n, np.int64)
    cuts_l = np.empty(n, np.int64)
    nc = 0
    si = 0
    sl = 0
    last = -1
    for q in range(k + 1, n):
        if pi[q] - si > width or pl[q] - sl > width:
            p = q - 1
            if last > 0 and 2 * max(pi[last] - si, pl[last] - sl) >= width:
                p = last
            cuts_i[nc] = pi[p]
            cuts_l[nc] = pl[p]
            nc += 1
            si = pi[p]
            sl = pl[p]
            last = -1
        if pm[q]:
            last = q
    cuts_i[nc] = I
    cuts_l[nc] = L
    return cuts_i[:nc + 1].copy(), cuts_l[:nc + 1].copy()


def _pieces(c: np.ndarray, r: np.ndarray, costs: tuple[int, int, int, int], max_bytes: int,
            width: int) -> list[tuple[int, int, int, int]]:
    """(i0, i1, l0, l1) of the pieces of at most ``width`` words a side, in order (see
    :func:`inv_bounded`): cut on a Levenshtein path, or proportionally when the path's move
    table does not fit the budget."""
    I, L = len(c), len(r)
    c_sub, c_del, c_ins, _ = costs
    if (I + 1) * (L + 1) + 32 * (I + L + 1) <= max_bytes:
        ci, cl = _lev_cuts(c, r, c_sub, c_del, c_ins, width)
    else:
        k = max(1, -(-max(I, L) // width))
        ci = np.asarray([I * j // k for j in range(1, k + 1)])
        cl = np.asarray([L * j // k for j in range(1, k + 1)])
    out = []
    i0 = l0 = 0
    for i1, l1 in zip(ci.tolist(), cl.tolist()):
        if i1 > i0 or l1 > l0:
            out.append((i0, i1, l0, l1))
        i0, l0 = i1, l1
    return out


def _piece(c: np.ndarray, r: np.ndarray, costs: tuple[int, int, int, int], want_tree: bool,
           max_bytes: int) -> tuple[int, np.ndarray, np.ndarray, int, bool]:
    """Exact d_inv of one piece within the budget and ``PIECE_POPS``, else the sum over
    pieces of half its size (a single word pair is always searched: its table is tiny)."""
    I, L = len(c), len(r)
    single = max(I, L) <= 1
    try:
        d, ops, invs, ex = inv_search(c, r, *costs, want_tree=want_tree,
                                      max_bytes=None if single else max_bytes,
                                      max_pops=0 if single else PIECE_POPS)
        return d, ops, invs, ex, True
    except OverBudget:
        pass
    parts = _pieces(c, r, costs, max_bytes, -(-max(I, L) // 2))
    d, ops, invs, ex = _concat([(p, _piece(c[p[0]:p[1]], r[p[2]:p[3]], costs, want_tree,
                                           max_bytes)) for p in parts], want_tree)
    return d, ops, invs, ex, False


def _concat(results, want_tree: bool) -> tuple[int, np.ndarray, np.ndarray, int]:
    """Straight concatenation of pieces' trees: distances add, positions shift."""
    d = sum(int(x[0]) for _, x in results)
    expanded = sum(int(x[3]) for _, x in results)
    if not want_tree:
        return d, np.zeros((0, 3), np.int32), np.zeros((0, 8), np.int32), expanded
    ops, invs = [], []
    nv = 0
    for (i0, _, l0, _), (_, o, v, _, *_) in results:
        o = np.array(o, np.int32).reshape(-1, 3)
        o[:, 1] = np.where(o[:, 1] >= 0, o[:, 1] + i0, -1)
        o[:, 2] = np.where(o[:, 2] >= 0, o[:, 2] + l0, -1)
        ops.append(o)
        v = np.array(v, np.int32).reshape(-1, 8)
        v[:, [0, 1, 4]] += i0
        v[:, [2, 3, 5]] += l0
        v[:, 6] = np.arange(nv, nv + len(v))
        nv += len(v)
        invs.append(v)
    return (d, np.concatenate(ops) if ops else np.zeros((0, 3), np.int32),
            np.concatenate(invs) if invs else np.zeros((0, 8), np.int32), expanded)


def inv_bounded(cand: np.ndarray, ref: np.ndarray, c_sub: int = 1, c_del: int = 1,
                c_ins: int = 1, c_inv: int = 1, want_tree: bool = False,
                max_bytes: int | None = None) -> InvResult:
    """d_inv within a memory budget: exact when the search fits ``max_bytes`` (default: the
    automatic budget of :mod:`~evaltrans_qt.engine.kernels.budget`), else an upper bound.

    The bound: the pair is cut into pieces at points of one Levenshtein path (ub_total,
    eq. 4.26), each at most ``PIECE_WORDS`` words a side and ended right after an
    identical pair where possible; each piece gets its exact d_inv (a piece that exceeds
    the budget or ``PIECE_POPS`` pops is halved again). The straight concatenation of the
    pieces' optimal trees is a BTG tree of the whole pair (eq. 4.20), so the sum is >= d_inv;
    each piece's d_inv is <= its part of the path, so the sum is <= the Levenshtein
    distance (halved pieces are cut on their own Levenshtein path, which costs no more).
    Inversions across cuts are lost. ``exact`` is False then; memory stays within
    ``max_bytes`` (a single word pair's search, ~1 MB, excepted).
    """
    from evaltrans_qt.engine.kernels.budget import auto_budget
    budget = auto_budget() if max_bytes is None else int(max_bytes)
    try:
        d, ops, invs, ex = inv_search(cand, ref, c_sub, c_del, c_ins, c_inv, want_tree, budget)
        return InvResult(d, ops, invs, ex, True)
    except OverBudget:
        pass
    costs = (int(c_sub), int(c_del), int(c_ins), int(c_inv))
    c, r, _ = _local_ids(cand, ref)
    parts = _pieces(c, r, costs, budget, PIECE_WORDS)
    done = [(p, _piece(c[p[0]:p[1]], r[p[2]:p[3]], costs, want_tree, budget)) for p in parts]
    d, ops, invs, ex = _concat(done, want_tree)
    return InvResult(d, ops, invs, ex, False)


def _relative(d: int, length: int) -> Fraction | float:
    """d / length as Table A.3's ``lowestError`` reads it: 0 for 0/0, infinite for d/0."""
    if length:
        return Fraction(d, length)
    return Fraction(0) if d == 0 else math.inf


def nearest_order(cand: np.ndarray, refs: Sequence[np.ndarray], c_sub: int = 1, c_del: int = 1,
                  c_ins: int = 1, relative: bool = False) -> list[int]:
    """The order :func:`inv_nearest` searches references in: by the sum of the two bounds
    of d_inv (bag <= d_inv <= Levenshtein, eq. 4.26) -- over the reference length if
    ``relative`` -- so the likely nearest comes first (on WMT21 en-de the first is a nearest
    reference for 96 % of the candidates); ties keep the given order."""
    s = min(int(c_sub), int(c_del) + int(c_ins))
    keys = []
    for ref in refs:
        if len(cand) == 0 or len(ref) == 0:
            k = 2 * _unaligned(len(cand), len(ref), c_del, c_ins)[0]
        else:
            c, r, V = _local_ids(cand, ref)
            k = (int(lev_costs(c, r, int(c_sub), int(c_del), int(c_ins)))
                 + _root_bag(c, r, V, s, int(c_del), int(c_ins)))
        keys.append(_relative(k, len(ref)) if relative else k)
    return sorted(range(len(refs)), key=lambda j: (keys[j], j))


def inv_nearest(cand: np.ndarray, refs: Sequence[np.ndarray], c_sub: int = 1, c_del: int = 1,
                c_ins: int = 1, c_inv: int = 1, max_bytes: int | None = None,
                relative: bool = False) -> list[InvResult]:
    """d_inv of one candidate to each of its references when only the nearest counts
    (multiple references, eq. 4.1: the least distance, and which references have it;
    with ``relative`` the least distance / reference length, Table A.3 ``lowestError``).

    The references are searched in :func:`nearest_order`: the first with
    :func:`inv_bounded`, each other only up to the least distance found so far
    (:func:`inv_search` with ``bound``: only items of f <= that distance are expanded,
    which on WMT21 en-de costs a fifth of the full search of a farther reference; with
    ``relative`` the bound is the largest distance whose ratio to this reference's length
    does not exceed the least ratio). A reference beyond its bound gets ``farther=True``
    and the lower bound bound + 1; every other result -- the nearest references, ties
    included -- is what :func:`inv_bounded` returns for the pair. When an earlier result is
    an approximation (an upper bound), a reference beyond it is beyond the true least
    distance too, and would not have been the least of :func:`inv_bounded`'s values either.
    A bounded search over the budget falls back to :func:`inv_bounded` (the result without
    this function).
    """
    from evaltrans_qt.engine.kernels.budget import auto_budget
    budget = auto_budget() if max_bytes is None else int(max_bytes)
    out: list[InvResult | None] = [None] * len(refs)
    best: Fraction | float | None = None      # least distance (or ratio) so far
    no_ops, no_invs = np.zeros((0, 3), np.int32), np.zeros((0, 8), np.int32)
    for j in nearest_order(cand, refs, c_sub, c_del, c_ins, relative):
        res = None
        bound = None
        if best is not None and best != math.inf:
            bound = math.floor(best * len(refs[j])) if relative else int(best)
        if bound is not None:
            try:
                d, ops, invs, ex = inv_search(cand, refs[j], c_sub, c_del, c_ins, c_inv, False,
                                              budget, bound=bound)
                res = (InvResult(d, ops, invs, ex) if d >= 0
                       else InvResult(bound + 1, no_ops, no_invs, ex, True, True))
            except OverBudget:
                res = None
        if res is None:
            res = inv_bounded(cand, refs[j], c_sub, c_del, c_ins, c_inv, False, budget)
        out[j] = res
        if not res.farther:
            v = _relative(res.distance, len(refs[j])) if relative else res.distance
            if best is None or v < best:
                best = v
    return out  # type: ignore[return-value]


@njit(cache=True, nogil=True)
def inv_distance_cyk(c, r, c_sub, c_del, c_ins, c_inv):
    """Algorithm 4.3 (bottom-up, no pruning), with the corrected split loops. O(I^3 L^3)."""
    I = c.size
    L = r.size
    Q = np.zeros((I + 1, I + 1, L + 1, L + 1), np.int64)
    for di in range(I + 1):
        for dl in range(L + 1):
            for i0 in range(I - di + 1):
                i1 = i0 + di
                for l0 in range(L - dl + 1):
                    l1 = l0 + dl
                    if di == 0:
                        Q[i0, i1, l0, l1] = dl * c_ins
                        continue
                    if dl == 0:
                        Q[i0, i1, l0, l1] = di * c_del
                        continue
                    q = 1 << 60
                    if di == 1 and dl == 1:
                        q = 0 if c[i0] == r[l0] else c_sub
                    for ip in range(i0, i1 + 1):
                        for lp in range(l0, l1 + 1):
                            if not ((ip == i0 and lp == l0) or (ip == i1 and lp == l1)):
                                v = Q[i0, ip, l0, lp] + Q[ip, i1, lp, l1]
                                if v < q:
                                    q = v
                            if not ((ip == i0 and lp == l1) or (ip == i1 and lp == l0)):
                                v = Q[i0, ip, lp, l1] + Q[ip, i1, l0, lp] + c_inv
                                if v < q:
                                    q = v
                    Q[i0, i1, l0, l1] = q
    return Q[0, I, 0, L]


def inv_inside_py(cand: Sequence, ref: Sequence, c_sub: int = 1, c_del: int = 1,
                  c_ins: int = 1, c_inv: int = 1):
    """Plain-Python reference: the inside cost Q(i0, i1, l0, l1) of every bispan (half-open
    spans, empty sides included) by recursion eq. 4.24 over *all* splits (empty parts
    allowed; a split whose part equals the whole bispan, the other part eps/eps, is
    skipped). Memoised, O(I^3 L^3): for tests on short sentences only."""
    cand = tuple(cand)
    ref = tuple(ref)

    @cache
    def q(i0: int, i1: int, l0: int, l1: int) -> int:
        if i1 == i0:
            return (l1 - l0) * c_ins
        if l1 == l0:
            return (i1 - i0) * c_del
        best: int | None = None
        if i1 - i0 == 1 and l1 - l0 == 1:
            best = 0 if cand[i0] == ref[l0] else c_sub
        for ip in range(i0, i1 + 1):
            for lp in range(l0, l1 + 1):
                if not ((ip, lp) == (i0, l0) or (ip, lp) == (i1, l1)):
                    v = q(i0, ip, l0, lp) + q(ip, i1, lp, l1)
                    best = v if best is None or v < best else best
                if not ((ip, lp) == (i0, l1) or (ip, lp) == (i1, l0)):
                    v = q(i0, ip, lp, l1) + q(ip, i1, l0, lp) + c_inv
                    best = v if best is None or v < best else best
        assert best is not None                 # a bispan with two non-empty sides has splits
        return best

    return q


def inv_distance_py(cand: Sequence, ref: Sequence, c_sub: int = 1, c_del: int = 1,
                    c_ins: int = 1, c_inv: int = 1) -> int:
    """d_inv by the plain recursion (:func:`inv_inside_py` of the whole pair)."""
    return inv_inside_py(cand, ref, c_sub, c_del, c_ins, c_inv)(0, len(cand), 0, len(ref))
