"""PER with fixed costs (thesis eq. 4.11/4.12) and with word-dependent costs as an
assignment problem (thesis section 4.2.1, Figure 4.1): distances by the compiled solver of
:mod:`evaltrans_qt.engine.kernels.assignment`, alignments for display by
``scipy.optimize.linear_sum_assignment`` (same optimum; tests compare them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from evaltrans_qt.engine.kernels.assignment import wper_batch
from evaltrans_qt.engine.kernels.bags import bag_l1_batch, per_from_l1
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import (
    DistanceMeasure,
    WordCostsMixin,
    bag_alignment_ops,
    packed,
    word_cost_distances,
)
from evaltrans_qt.engine.measures.alignment import Alignment, EditOp, OpKind
from evaltrans_qt.engine.measures.base import Segment


def bag_pairs(hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray], pair_hyp: np.ndarray,
              pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L1 count-vector difference, hyp lengths, ref lengths) of pairs
    (hyps[pair_hyp[p]], refs[pair_ref[p]])."""
    hf, ho = packed(hyps)
    rf, ro = packed(refs)
    ids = np.concatenate([hf, rf])
    n_ids = int(ids.max()) + 1 if len(ids) else 1
    a0 = ho[:-1][pair_hyp]
    a1 = ho[1:][pair_hyp]
    b0 = ro[:-1][pair_ref] + len(hf)
    b1 = ro[1:][pair_ref] + len(hf)
    l1 = bag_l1_batch(ids, a0, a1, b0, b1, n_ids)
    return l1, (a1 - a0).astype(np.float64), (b1 - b0).astype(np.float64)


@register
class PER(DistanceMeasure):
    """Position-independent word error rate, fixed unit costs (eq. 4.12)."""

    name = "per"
    long_name = "Position-independent word error rate"
    report_element = "per"
    source = "thesis section 4.2.1, eq. 4.11/4.12"
    column = "PER"
    #: Substitution cost of eq. 4.11 (MSDER: 2).
    c_sub: float = 1.0

    def indexed_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                          pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        l1, hl, rl = bag_pairs(hyps, refs, np.asarray(pair_hyp, dtype=np.int64),
                               np.asarray(pair_ref, dtype=np.int64))
        return per_from_l1(l1, hl, rl, c_sub=self.c_sub), rl

    def align(self, seg: Segment) -> Alignment | None:
        r = self.best_reference(seg)
        if r < 0:
            return None
        ops = bag_alignment_ops(seg.hyp, seg.refs[r], substitutions=self.c_sub < 2)
        return self.make_alignment(seg, r, sum(op.cost for op in ops), ops)


@register
class MSDER(PER):
    """Multiset distance error rate: PER without substitutions (c_SUB = 2; thesis section 4.2.1)."""

    name = "msder"
    long_name = "Multiset distance error rate"
    report_element = "msder"
    source = "thesis section 4.2.1 (MSDER)"
    column = "MSDER"
    c_sub = 2.0


def assignment(cost: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """PER with word-dependent costs for an (I, L) substitution matrix (0 on identical words).

    Empty words pad the shorter side; edges to/from them cost 1 (c_INS = c_DEL = 1).
    Returns ``(distance, rows, cols)`` of the optimal assignment over the
    padded (N x N) matrix, N = max(I, L); rows >= I / cols >= L are empty words.
    """
    i_len, l_len = cost.shape
    n = max(i_len, l_len)
    if n == 0:
        return 0.0, np.zeros(0, np.int64), np.zeros(0, np.int64)
    full = np.ones((n, n), dtype=np.float64)
    full[:i_len, :l_len] = cost
    rows, cols = linear_sum_assignment(full)
    return float(full[rows, cols].sum()), rows, cols


@register
class WPER(WordCostsMixin, PER):
    """PER with word-dependent substitution costs (assignment problem, thesis section 4.2.1)."""

    name = "wper"
    long_name = "Position-independent error rate with word-dependent substitution costs"
    report_element = "wper"
    source = "thesis section 4.2.1 and 4.5, Table A.8"
    column = "WPER"

    def indexed_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                          pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return word_cost_distances(self, wper_batch, hyps, refs, pair_hyp, pair_ref)

    def align(self, seg: Segment) -> Alignment | None:
        r = self.best_reference(seg)
        if r < 0:
            return None
        hyp, ref = seg.hyp, seg.refs[r]
        cost = self.costs().matrix(hyp, ref)
        d, rows, cols = assignment(cost)
        by_ref: dict[int, EditOp] = {}
        ins: list[tuple[int, EditOp]] = []       # (candidate position, insertion)
        for i, l in zip(rows.tolist(), cols.tolist()):
            if i < len(hyp) and l < len(ref):
                same = hyp[i] == ref[l]
                by_ref[l] = EditOp(OpKind.MATCH if same else OpKind.SUB, i, l,
                                   0.0 if same else float(cost[i, l]))
            elif l < len(ref):
                by_ref[l] = EditOp(OpKind.DEL, None, l, 1.0)
            elif i < len(hyp):
                ins.append((i, EditOp(OpKind.INS, i, None, 1.0)))
        ops = [by_ref[l] for l in range(len(ref))] + [o for _, o in sorted(ins,
                                                                            key=lambda p: p[0])]
        return self.make_alignment(seg, r, d, ops)
