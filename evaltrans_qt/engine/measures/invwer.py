"""INVWER: the BTG inversion distance d_inv over the reference length (thesis section 4.4.4,
eq. 4.20-4.25; ``--allow-transpositions``, ``--transposition-costs``, Table A.1).

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
first tree completed by the best-first search with the bag bounds (deterministic; the
distance-only searches of a run also use the kernel's run bounds, which find the same
distance sooner but may complete another tree first).

Multiple references in a run (:attr:`INVWER.nearest_only`): the pair phase searches
a candidate's likely nearest reference in full and the others only up to the least
distance found (or, under ``lowestError``, the distance of the least ratio to length)
(:func:`~evaltrans_qt.engine.kernels.invwer.inv_nearest`); a farther one is proven
farther and its value is never read -- the statistics are those of searching every
pair (tests); the 20-system WMT21 en-de campaign ran 3.5x faster. Runs that report
every reference's distance (``--sentences-in-detail``) search every pair in full.

Memory: each pair's exact search must fit ``invwer-memory-budget`` (MiB; 0 =
min(2 GiB, 25 % of the physical memory), per search, i.e. per worker process).
A pair above it gets the kernel's bounded approximation -- exact pieces of at
most 40 words a side cut on a Levenshtein path, straight-concatenated, an upper
bound of d_inv and at most the Levenshtein distance
(:func:`~evaltrans_qt.engine.kernels.invwer.inv_bounded`) -- and its segment is
flagged like LJWER's: a ``flag:approximated`` statistics column, the report's
``flags="approximated"``, ``notes["approximated"]`` in the alignment.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.budget import budget_bytes
from evaltrans_qt.engine.kernels.invwer import (
    OP_CAND,
    OP_MATCH,
    OP_REF,
    OP_SUB,
    inv_bounded,
    inv_nearest,
)
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import DistanceMeasure, select
from evaltrans_qt.engine.measures.alignment import Alignment, Block, BlockKind, EditOp, OpKind
from evaltrans_qt.engine.measures.approximation import ApproximatedDistance
from evaltrans_qt.engine.measures.base import Segment, pair_key
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import OptionError

#: :meth:`INVWER.pair_cost`: seconds per (I L)^2, and the fixed seconds of every pair (the
#: call, local ids, upper bound and allocations: ~50 us even for one word).
PAIR_SECONDS = 8e-9
PAIR_FIXED_SECONDS = 5e-5
#: :meth:`INVWER.group_cost` (a candidate with its references), fitted on 2560 such units of
#: WMT21 en-de (the 60 dearest and a random 2500; rank correlation 0.95, the sum right, mean
#: ratio measured / model 0.8-1.6 per factor-4 band): seconds per pair, the share of
#: :data:`PAIR_SECONDS`' estimate the nearest's search costs, and the share of that a
#: farther reference's bounded search costs.
GROUP_PAIR_SECONDS = 1e-4
GROUP_SCALE = 0.41
FARTHER_SHARE = 0.4


def transposition_costs(options: EvalOptions) -> tuple[int, int, int, int, int]:
    """(denominator, c_SUB, c_DEL, c_INS, c_INV), checked (Table A.1 ``transposition-costs``)."""
    costs = tuple(int(x) for x in options.transposition_costs)
    if len(costs) != 5 or costs[0] <= 0 or min(costs[1:]) < 0:
        raise OptionError("--transposition-costs: expected 5 integers denominator,c_SUB,c_DEL,"
                          f"c_INS,c_INV with denominator > 0 and costs >= 0, got {costs}")
    return costs


@register
class INVWER(ApproximatedDistance):
    """Inversion word error rate (block inversions within a BTG, exact)."""

    name = "invwer"
    long_name = "Inversion word error rate"
    report_element = "invwer"
    source = "thesis section 4.4.4, eq. 4.20-4.25, Table 4.1"
    column = "INVWER"
    default_enabled = False

    @classmethod
    def enabled(cls, options: EvalOptions) -> bool:
        return bool(options.allow_transpositions)

    def pair_cost(self, hyp_len: int, ref_len: int) -> float:
        """Rough seconds of one exact d_inv: a fixed cost + ~ (I L)^2, fitted on the 5851
        distinct pairs of two WMT21 en-de systems (Facebook-AI, Online-W; rank correlation
        0.99; the coefficient makes the sum right, so pairs of 15-55 words are
        overestimated ~1.8x and the hardest of 100+ words underestimated ~3x; each of those
        is a task of its own)."""
        return PAIR_FIXED_SECONDS + PAIR_SECONDS * float(hyp_len * ref_len) ** 2

    @property
    def max_bytes(self) -> int:
        """The memory budget of one search in bytes (``invwer-memory-budget``)."""
        return budget_bytes(int(self.options.invwer_memory_budget))

    def search(self, hyp: np.ndarray, ref: np.ndarray, want_tree: bool = False):
        """:func:`inv_bounded` of one pair with the run's costs and budget."""
        _, cs, cd, ci, cv = transposition_costs(self.options)
        return inv_bounded(np.asarray(hyp, np.int32), np.asarray(ref, np.int32), cs, cd, ci, cv,
                           want_tree, self.max_bytes)

    def pair_value(self, hyp: np.ndarray, ref: np.ndarray) -> tuple[float, bool]:
        """(d_inv(hyp, ref) / denominator (eq. 4.20), exact)."""
        res = self.search(hyp, ref)
        return res.distance / transposition_costs(self.options)[0], res.exact

    @property
    def nearest_only(self) -> bool:
        """Every rule of Table A.3 counts the distance of the nearest references and the
        lengths of all references or of the nearest: nearest by distance, or by distance /
        length under ``lowestError`` (:meth:`group_values` proves the others farther)."""
        return True

    def group_values(self, hyp: np.ndarray, refs: Sequence[np.ndarray]) -> list:
        """:meth:`pair_value` of the candidate's nearest references (ties included) and
        ``(lower bound, True, True)`` -- "farther than another reference" -- for the others
        (:func:`~evaltrans_qt.engine.kernels.invwer.inv_nearest`; by distance / length
        under ``lowestError``)."""
        den, cs, cd, ci, cv = transposition_costs(self.options)
        found = inv_nearest(np.asarray(hyp, np.int32), [np.asarray(r, np.int32) for r in refs],
                            cs, cd, ci, cv, self.max_bytes, self.rule == "lowestError")
        return [(r.distance / den, True, True) if r.farther else (r.distance / den, r.exact)
                for r in found]

    def group_cost(self, costs: Sequence[float]) -> float:
        """A fixed cost per pair, the dearest pair's (I L)^2 part as the nearest's search and
        the others' at :data:`FARTHER_SHARE` of that (most are farther ones, searched only up
        to the nearest's distance); constants fitted as :data:`GROUP_SCALE` says."""
        var = sorted((max(0.0, c - PAIR_FIXED_SECONDS) for c in costs), reverse=True)
        if not var:
            return 0.0
        return float(GROUP_PAIR_SECONDS * len(var)
                     + GROUP_SCALE * (var[0] + FARTHER_SHARE * sum(var[1:])))

    def _value(self, hyp: np.ndarray, ref: np.ndarray, farther_ok: bool) -> tuple[float, bool]:
        """(distance, exact) of a pair from the pair cache; a "farther" entry's lower bound
        only if ``farther_ok``, else the pair is searched in full."""
        v = self.cached_pair_value(hyp, ref)
        if not isinstance(v, tuple):
            return float(v), True
        if len(v) > 2 and v[2] and not farther_ok:
            return self.pair_value(hyp, ref)
        return v[0], v[1]

    def pair_results(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                     pair_hyp: np.ndarray, farther_ok: bool = True
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distances, reference lengths and exactness; with ``farther_ok`` a reference the
        pair phase proved farther than the candidate's nearest has that proof's lower bound
        as its distance (the statistics never read it: :attr:`nearest_only`)."""
        d = np.empty(len(refs), dtype=np.float64)
        exact = np.ones(len(refs), dtype=bool)
        for p, ref in enumerate(refs):
            d[p], exact[p] = self._value(hyps[int(pair_hyp[p])], ref, farther_ok)
        return d, np.asarray([len(r) for r in refs], dtype=np.float64), exact

    def reference_distances(self, seg: Segment) -> list[float] | None:
        """Every reference's exact distance (a "farther" cache entry is searched in full)."""
        if not seg.refs:
            return []
        d, _, _ = self.pair_results([seg.hyp], list(seg.refs),
                                    np.zeros(len(seg.refs), dtype=np.int64), farther_ok=False)
        return [float(x) for x in d]

    def align(self, seg: Segment) -> Alignment | None:
        """The optimal tree to the reference the reference-length rule chooses. Without
        cached distances (the compare view) every reference's tree search also gives its
        distance, so no pair is searched twice (a long pair can take a minute)."""
        idx = self.effective_refs(seg)
        if not idx:
            return None
        costs = transposition_costs(self.options)
        den = costs[0]
        hyp = np.asarray(seg.hyp, np.int32)
        refs = [np.asarray(seg.refs[r], np.int32) for r in idx]
        cache = self.pair_cache or {}
        if all(pair_key(hyp, ref) in cache for ref in refs):
            r = self.best_reference(seg)
            res = self.search(hyp, seg.refs[r], want_tree=True)
            return build_alignment(self, seg, r, res.distance, res.ops, res.invs, costs,
                                   not res.exact)
        trees = [self.search(hyp, ref, want_tree=True) for ref in refs]
        dist = np.array([t.distance / den for t in trees], dtype=np.float64)
        rlen = np.array([len(ref) for ref in refs], dtype=np.float64)
        best, _ = select(dist[None, :], rlen[None, :], np.ones((1, len(idx)), bool), self.rule)
        k = int(best[0])
        t = trees[k]
        return build_alignment(self, seg, idx[k], t.distance, t.ops, t.invs, costs, not t.exact)


def build_alignment(measure: DistanceMeasure, seg: Segment, ref_index: int, d: int,
                    ops: np.ndarray, invs: np.ndarray, costs: tuple[int, int, int, int, int],
                    approximated: bool = False) -> Alignment:
    """Alignment from the kernel's tree (:func:`inv_bounded` with ``want_tree``);
    ``notes["approximated"]`` says whether the tree is the bounded approximation."""
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
                     d / den, tuple(out), tuple(blocks), ref_index,
                     {"inversions": notes, "approximated": bool(approximated)})
