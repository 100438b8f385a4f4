"""LJWER: long jump distance d_LJ over the reference length (thesis section 4.4.1;
``--allow-long-jumps``, Table A.2: "approximatively for sentences > 25 words").

Exact for candidates of at most ``ljwer-exact-limit`` words (default 25): the
search is exponential in the candidate length (covered-word masks, see
:mod:`evaltrans_qt.engine.kernels.ljwer`). Longer candidates -- and the rare
shorter one whose search exceeds its state budget (200 000 states in a layer, or
the automatic memory budget of :mod:`~evaltrans_qt.engine.kernels.budget` over
all layers) -- get an upper bound from a
real path (beam search or Levenshtein, whichever is cheaper) and are flagged:
the statistics carry a ``flag:approximated`` column (1 if any reference's
distance of that segment was approximated), :meth:`LJWER.sentence_flags`
returns it, and the alignment's ``notes["approximated"]`` says so.

Unit costs (c_SUB = c_DEL = c_INS = c_LJ = 1). Multiple references by eq. 4.1 /
5.7 with ``wer-ref-length-rule`` (Table A.3).

Alignment: the path's operations in reference order and, if the path jumps,
one LONG_JUMP block per run between jumps (block cost = the jump entering it,
the final jump to the sentence end is added to the last block).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.budget import auto_budget
from evaltrans_qt.engine.kernels.ljwer import MV_DIAG, MV_HOR, MV_VER, lj_search
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.alignment import Alignment, Block, BlockKind, EditOp, OpKind
from evaltrans_qt.engine.measures.approximation import FLAG, ApproximatedDistance
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions

__all__ = ["FLAG", "LJWER", "path_to_alignment"]


@register
class LJWER(ApproximatedDistance):
    """Long jump word error rate (block movements with complete, disjoint coverage)."""

    name = "ljwer"
    long_name = "Long jump word error rate"
    report_element = "ljwer"
    source = "thesis section 4.4.1, Figure 4.4"
    column = "LJWER"
    default_enabled = False

    @classmethod
    def enabled(cls, options: EvalOptions) -> bool:
        return bool(options.allow_long_jumps)

    @property
    def exact_limit(self) -> int:
        return int(self.options.ljwer_exact_limit)

    def pair_results(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                     pair_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distances, reference lengths and exactness of pairs (hyps[pair_hyp[p]], refs[p])."""
        d = np.empty(len(refs), dtype=np.float64)
        exact = np.ones(len(refs), dtype=bool)
        budget = auto_budget()
        for p, ref in enumerate(refs):
            dist, ex, *_ = lj_search(np.asarray(hyps[int(pair_hyp[p])], np.int32),
                                     np.asarray(ref, np.int32), self.exact_limit,
                                     max_bytes=budget, want_path=False)
            d[p] = dist
            exact[p] = ex
        return d, np.asarray([len(r) for r in refs], dtype=np.float64), exact

    def align(self, seg: Segment) -> Alignment | None:
        r = self.best_reference(seg)
        if r < 0:
            return None
        hyp = np.asarray(seg.hyp, np.int32)
        ref = np.asarray(seg.refs[r], np.int32)
        d, exact, moves, pos, jumps = lj_search(hyp, ref, self.exact_limit,
                                                max_bytes=auto_budget())
        ops, blocks = path_to_alignment(hyp, ref, moves, pos, jumps)
        return Alignment(self.name, self.words(seg.hyp), self.words(seg.refs[r]), float(d),
                         tuple(ops), tuple(blocks), r, {"approximated": not exact})


def path_to_alignment(hyp: np.ndarray, ref: np.ndarray, moves, pos, jumps, c_lj: float = 1.0
                      ) -> tuple[list[EditOp], list[Block]]:
    """EditOps (reference order) and LONG_JUMP blocks of an LJ path (see the module doc)."""
    ops: list[EditOp] = []
    runs: list[list] = []  # [hyp_lo, hyp_hi, ref_lo, ref_hi, cost]
    l = 0
    i = 0
    cur = [None, None, None, None, 0.0]
    for mv, p, j in zip(np.asarray(moves).tolist(), np.asarray(pos).tolist(),
                        np.asarray(jumps).tolist()):
        if mv != MV_VER and j:
            runs.append(cur)
            cur = [None, None, None, None, c_lj]
        if mv == MV_VER:
            ops.append(EditOp(OpKind.DEL, None, l, 1.0))
            _extend(cur, None, l)
            l += 1
            continue
        if mv == MV_DIAG:
            same = hyp[p] == ref[l]
            ops.append(EditOp(OpKind.MATCH if same else OpKind.SUB, p, l, 0.0 if same else 1.0))
            _extend(cur, p, l)
            l += 1
        elif mv == MV_HOR:
            ops.append(EditOp(OpKind.INS, p, None, 1.0))
            _extend(cur, p, None)
        i = p + 1
    runs.append(cur)
    final_jump = len(hyp) > 0 and i != len(hyp)
    if final_jump:
        runs[-1][4] += c_lj
    runs = [x for x in runs if x[0] is not None or x[2] is not None or x[4]]
    if not any(x[4] for x in runs):
        return ops, []
    blocks = []
    for n, (h0, h1, r0, r1, cost) in enumerate(runs, start=1):
        hs = (h0, h1) if h0 is not None else (0, 0)
        rs = (r0, r1) if r0 is not None else (0, 0)
        blocks.append(Block(n, BlockKind.LONG_JUMP, hs, rs, float(cost)))
    return ops, blocks


def _extend(run: list, p: int | None, l: int | None) -> None:
    if p is not None:
        run[0] = p if run[0] is None else min(run[0], p)
        run[1] = p + 1 if run[1] is None else max(run[1], p + 1)
    if l is not None:
        run[2] = l if run[2] is None else min(run[2], l)
        run[3] = l + 1 if run[3] is None else max(run[3], l + 1)
