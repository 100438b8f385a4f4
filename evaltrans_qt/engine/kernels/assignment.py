"""PER with word-dependent costs as an assignment problem (thesis section 4.2.1, Figure 4.1),
compiled.

The minimum-cost perfect matching of a square cost matrix by shortest
augmenting paths with dual potentials (Jonker-Volgenant style, the algorithm
of ``scipy.optimize.linear_sum_assignment``, Crouse 2016), O(n^3). The batched
kernel builds each pair's padded matrix (empty words cost 1 = c_INS = c_DEL)
with the word-cost kernels and solves it, so a corpus is one compiled call.
``scipy.optimize.linear_sum_assignment`` is the reference in the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evaltrans_qt.engine.kernels.wordcosts import fill_block


@njit(cache=True, nogil=True)
def lsap_cost(cost, n, u, v, shortest, path, col4row, row4col, remaining, sr, sc):
    """Optimal assignment cost of the leading n x n block of ``cost`` (scratch arrays >= n)."""
    inf = np.inf
    for k in range(n):
        u[k] = 0.0
        v[k] = 0.0
        col4row[k] = -1
        row4col[k] = -1
    for cur_row in range(n):
        for k in range(n):
            shortest[k] = inf
            path[k] = -1
            sr[k] = False
            sc[k] = False
            remaining[k] = n - 1 - k
        num_remaining = n
        min_val = 0.0
        i = cur_row
        sink = -1
        while sink == -1:
            sr[i] = True
            index = -1
            lowest = inf
            for it in range(num_remaining):
                j = remaining[it]
                r = min_val + cost[i, j] - u[i] - v[j]
                if r < shortest[j]:
                    path[j] = i
                    shortest[j] = r
                if shortest[j] < lowest or (shortest[j] == lowest and row4col[j] == -1):
                    lowest = shortest[j]
                    index = it
            min_val = lowest
            j = remaining[index]
            if row4col[j] == -1:
                sink = j
            else:
                i = row4col[j]
            sc[j] = True
            num_remaining -= 1
            remaining[index] = remaining[num_remaining]
        u[cur_row] += min_val
        for k in range(n):
            if sr[k] and k != cur_row:
                u[k] += min_val - shortest[col4row[k]]
        for k in range(n):
            if sc[k]:
                v[k] -= min_val - shortest[k]
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            tmp = col4row[i]
            col4row[i] = j
            j = tmp
            if i == cur_row:
                break
    total = 0.0
    for k in range(n):
        total += cost[k, col4row[k]]
    return total


#: Bytes per cell of the n x n cost matrix and the word-cost block (two float64).
CELL_BYTES = 16


def wper_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, rule, chars, choff,
               maxchars) -> np.ndarray:
    """d_PER with word-dependent substitution costs for pairs (hyp ``pair_hyp[p]``, ref
    ``pair_ref[p]``). The n x n matrices of the longest sentence must fit the memory budget
    (:mod:`~evaltrans_qt.engine.kernels.budget`), else a clear error, before allocating."""
    from evaltrans_qt.engine.kernels.budget import auto_budget, describe
    n = int(max(np.max(np.diff(hyp_off), initial=0), np.max(np.diff(ref_off), initial=0), 1))
    need, budget = CELL_BYTES * n * n, auto_budget()
    if need > budget:
        from evaltrans_qt.errors import InputFormatError
        raise InputFormatError(f"PER with word-dependent costs: the assignment matrix of a "
                               f"{n}-word sentence needs {describe(need)}, above the memory "
                               f"budget of {describe(budget)}")
    return _wper_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, rule, chars,
                       choff, maxchars)


@njit(cache=True, nogil=True)
def _wper_batch(hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, pair_ref, rule, chars, choff,
                maxchars) -> np.ndarray:
    """Compiled body of :func:`wper_batch`."""
    n_pairs = len(pair_hyp)
    out = np.empty(n_pairs, dtype=np.float64)
    nmax = 1
    for h in range(len(hyp_off) - 1):
        nmax = max(nmax, hyp_off[h + 1] - hyp_off[h])
    for r in range(len(ref_off) - 1):
        nmax = max(nmax, ref_off[r + 1] - ref_off[r])
    block = np.empty(nmax * nmax, dtype=np.float64)
    cost = np.empty((nmax, nmax), dtype=np.float64)
    u = np.empty(nmax, dtype=np.float64)
    v = np.empty(nmax, dtype=np.float64)
    shortest = np.empty(nmax, dtype=np.float64)
    path = np.empty(nmax, dtype=np.int64)
    col4row = np.empty(nmax, dtype=np.int64)
    row4col = np.empty(nmax, dtype=np.int64)
    remaining = np.empty(nmax, dtype=np.int64)
    sr = np.empty(nmax, dtype=np.bool_)
    sc = np.empty(nmax, dtype=np.bool_)
    sd = np.empty(maxchars + 1, dtype=np.int64)
    sp = np.empty(maxchars + 1, dtype=np.int64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        r = pair_ref[p]
        ni = hyp_off[h + 1] - hyp_off[h]
        nl = ref_off[r + 1] - ref_off[r]
        n = max(ni, nl)
        if n == 0:
            out[p] = 0.0
            continue
        fill_block(rule, chars, choff, hyp_flat, hyp_off[h], hyp_off[h + 1], ref_flat,
                   ref_off[r], ref_off[r + 1], block, 0, sd, sp)
        for i in range(n):
            for l in range(n):
                cost[i, l] = block[i * nl + l] if (i < ni and l < nl) else 1.0
        out[p] = lsap_cost(cost, n, u, v, shortest, path, col4row, row4col, remaining, sr, sc)
    return out
