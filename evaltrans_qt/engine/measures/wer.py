"""WER and WWER: Levenshtein distance over words (thesis section 4.3, eq. 4.13/4.14),
multiple references by eq. 4.1 / 5.7 and the reference-length rule (Table A.3);
WWER with word-dependent substitution costs (section 4.5, Table A.8).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.levenshtein import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    lev_backtrace,
    lev_distance_batch,
    lev_distance_rule_batch,
    unit_sub_matrix,
)
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import (
    DistanceMeasure,
    WordCostsMixin,
    packed,
    word_cost_distances,
)
from evaltrans_qt.engine.measures.alignment import (
    Alignment,
    EditOp,
    OpKind,
    check_alignment_budget,
)
from evaltrans_qt.engine.measures.base import Segment

#: Bytes per cell of :func:`lev_backtrace`'s tables (float64 costs, int8 moves).
LEV_BACKTRACE_CELL_BYTES = 9

_KIND = {OP_MATCH: OpKind.MATCH, 1: OpKind.SUB, OP_INS: OpKind.INS, OP_DEL: OpKind.DEL}


def backtrace_ops(hyp: np.ndarray, ref: np.ndarray, sub: np.ndarray) -> tuple[float, list[EditOp]]:
    """Levenshtein alignment as EditOps in reference order (ties: diagonal, deletion, insertion)."""
    from evaltrans_qt.engine.kernels.budget import check_table
    check_table("WER alignment", (len(hyp) + 1) * (len(ref) + 1), LEV_BACKTRACE_CELL_BYTES,
                f"a {len(hyp)} x {len(ref)}-word sentence pair")
    d, ops, hp, rp, cs = lev_backtrace(np.asarray(hyp, np.int32), np.asarray(ref, np.int32),
                                       np.ascontiguousarray(sub, dtype=np.float64))
    out = [EditOp(_KIND[int(o)], None if h < 0 else int(h), None if r < 0 else int(r), float(c))
           for o, h, r, c in zip(ops, hp, rp, cs)]
    return float(d), out


@register
class WER(DistanceMeasure):
    """Word error rate: Levenshtein distance / reference length."""

    name = "wer"
    long_name = "Word error rate"
    report_element = "wer"
    source = "thesis section 4.3, eq. 4.14; eq. 4.1/5.7"
    column = "WER"

    def indexed_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                          pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hf, ho = packed(hyps)
        rf, ro = packed(refs)
        pair_hyp = np.asarray(pair_hyp, dtype=np.int64)
        pair_ref = np.asarray(pair_ref, dtype=np.int64)
        d = lev_distance_batch(hf, ho, rf, ro, pair_hyp, pair_ref).astype(np.float64)
        return d, np.diff(ro)[pair_ref].astype(np.float64)

    def sub_matrix(self, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
        return unit_sub_matrix(hyp, ref)

    def align(self, seg: Segment) -> Alignment | None:
        r = self.best_reference(seg)
        if r < 0:
            return None
        ref = seg.refs[r]
        check_alignment_budget(f"{self.name.upper()} alignment", len(seg.hyp), len(ref))
        d, ops = backtrace_ops(seg.hyp, ref, self.sub_matrix(seg.hyp, ref))
        return self.make_alignment(seg, r, d, ops)


@register
class WWER(WordCostsMixin, WER):
    """WER with word-dependent substitution costs (``--substitution-cost-rule``)."""

    name = "wwer"
    long_name = "Word error rate with word-dependent substitution costs"
    report_element = "wwer"
    source = "thesis section 4.5, Table A.8"
    column = "WWER"

    def indexed_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                          pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return word_cost_distances(self, lev_distance_rule_batch, hyps, refs, pair_hyp, pair_ref)

    def sub_matrix(self, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
        return self.costs().matrix(hyp, ref)
