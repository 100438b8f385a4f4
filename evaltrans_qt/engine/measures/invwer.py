"""INVWER: the BTG inversion distance d_inv over the reference length (thesis section 4.4.4,
eq. 4.20-4.25, T:702-895; ``--allow-transpositions``, ``--transposition-costs``, Table A.1).

``transposition-costs`` = denominator, c_SUB, c_DEL, c_INS, c_INV (integers):
the distance is the cheapest BTG parse in integer cost units divided by the
denominator. c_DEL is paid for a candidate word without counterpart (thesis
e/eps), c_INS for a reference word without counterpart (eps/e~); in the
alignment (tercom naming) these are OpKind.INS and OpKind.DEL respectively.
Multiple references by eq. 4.1 / 5.7 and ``wer-ref-length-rule`` (Table A.3).

Alignment: the leaves of one optimal parse tree in reference order (a
candidate word without counterpart is listed where the tree puts it), and one
INVERSION block per inverted node <A B>: the block's spans are those of A (the
part that comes first in the candidate and last in the reference), cost c_INV;
``notes["inversions"]`` also gives B. Ties between equally cheap trees: the
first tree completed by the best-first search (deterministic; see the kernel).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.alignment import Alignment, Block, BlockKind, EditOp, OpKind
from evaltrans_qt.engine.kernels.invwer import (OP_CAND, OP_MATCH, OP_REF, OP_SUB, inv_distance,
                                                inv_search)
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import DistanceMeasure, select
from evaltrans_qt.engine.measures.base import Segment, pair_key
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import OptionError


#: Seconds per (I L)^2 of :meth:`INVWER.pair_cost` (a relative order is what matters).
PAIR_SECONDS = 2e-8


def transposition_costs(options: EvalOptions) -> tuple[int, int, int, int, int]:
    """(denominator, c_SUB, c_DEL, c_INS, c_INV), checked (Table A.1 ``transposition-costs``)."""
    costs = tuple(int(x) for x in options.transposition_costs)
    if len(costs) != 5 or costs[0] <= 0 or min(costs[1:]) < 0:
        raise OptionError("--transposition-costs: expected 5 integers denominator,c_SUB,c_DEL,"
                          f"c_INS,c_INV with denominator > 0 and costs >= 0, got {costs}")
    return costs  # type: ignore[return-value]


@register
class INVWER(DistanceMeasure):
    """Inversion word error rate (block inversions within a BTG, exact)."""

    name = "invwer"
    long_name = "Inversion word error rate"
    report_element = "invwer"
    source = "thesis section 4.4.4, eq. 4.20-4.25, Table 4.1 (T:702-895)"
    column = "INVWER"
    default_enabled = False
    aliases = ("minvwer",)

    @classmethod
    def enabled(cls, options: EvalOptions) -> bool:
        return bool(options.allow_transpositions)

    def pair_cost(self, hyp_len: int, ref_len: int) -> float:
        """Rough seconds of one exact d_inv: ~ (I L)^2 (fitted on WMT21 en-de pairs of 10-75
        words, rank correlation 0.98; the longest pairs cost more, each is its own task)."""
        return PAIR_SECONDS * float(hyp_len * ref_len) ** 2

    def pair_value(self, hyp: np.ndarray, ref: np.ndarray) -> float:
        """d_inv(hyp, ref) / denominator (eq. 4.20)."""
        den, cs, cd, ci, cv = transposition_costs(self.options)
        return inv_distance(np.asarray(hyp, np.int32), np.asarray(ref, np.int32),
                            cs, cd, ci, cv) / den

    def pair_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                       pair_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = np.empty(len(refs), dtype=np.float64)
        for p, ref in enumerate(refs):
            d[p] = self.cached_pair_value(hyps[int(pair_hyp[p])], ref)
        return d, np.asarray([len(r) for r in refs], dtype=np.float64)

    def align(self, seg: Segment) -> Alignment | None:
        """The optimal tree to the reference the reference-length rule chooses. Without
        cached distances (the compare view) every reference's tree search also gives its
        distance, so no pair is searched twice (a long pair can take a minute)."""
        idx = self.effective_refs(seg)
        if not idx:
            return None
        costs = transposition_costs(self.options)
        den, cs, cd, ci, cv = costs
        hyp = np.asarray(seg.hyp, np.int32)
        refs = [np.asarray(seg.refs[r], np.int32) for r in idx]
        cache = self.pair_cache or {}
        if all(pair_key(hyp, ref) in cache for ref in refs):
            r = self.best_reference(seg)
            d, ops, invs, _ = inv_search(hyp, np.asarray(seg.refs[r], np.int32), cs, cd, ci, cv,
                                         want_tree=True)
            return build_alignment(self, seg, r, d, ops, invs, costs)
        trees = [inv_search(hyp, ref, cs, cd, ci, cv, want_tree=True) for ref in refs]
        dist = np.array([t[0] / den for t in trees], dtype=np.float64)
        rlen = np.array([len(ref) for ref in refs], dtype=np.float64)
        best, _ = select(dist[None, :], rlen[None, :], np.ones((1, len(idx)), bool), self.rule)
        k = int(best[0])
        d, ops, invs, _ = trees[k]
        return build_alignment(self, seg, idx[k], d, ops, invs, costs)


def build_alignment(measure: DistanceMeasure, seg: Segment, ref_index: int, d: int,
                    ops: np.ndarray, invs: np.ndarray,
                    costs: tuple[int, int, int, int, int]) -> Alignment:
    """Alignment from the kernel's tree (:func:`inv_search` with ``want_tree``)."""
    den, cs, cd, ci, cv = costs
    out: list[EditOp] = []
    for code, i, l in np.asarray(ops).tolist():
        if code == OP_MATCH:
            out.append(EditOp(OpKind.MATCH, i, l, 0.0))
        elif code == OP_SUB:
            out.append(EditOp(OpKind.SUB, i, l, cs / den))
        elif code == OP_CAND:
            out.append(EditOp(OpKind.INS, i, None, cd / den))
        elif code == OP_REF:
            out.append(EditOp(OpKind.DEL, None, l, ci / den))
    blocks = []
    notes = []
    for n, (i0, i1, l0, l1, isp, lsp, _, _) in enumerate(np.asarray(invs).tolist(), start=1):
        blocks.append(Block(n, BlockKind.INVERSION, (i0, isp), (lsp, l1), cv / den))
        notes.append({"number": n, "first": {"hyp_span": [i0, isp], "ref_span": [lsp, l1]},
                      "second": {"hyp_span": [isp, i1], "ref_span": [l0, lsp]}})
    return Alignment(measure.name, measure.words(seg.hyp), measure.words(seg.refs[ref_index]),
                     d / den, tuple(out), tuple(blocks), ref_index, {"inversions": notes})
