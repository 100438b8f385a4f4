"""CDER: CDCD distance with block movements (thesis sections 4.4.2-4.4.3, Algorithm 4.2,
eq. 4.16-4.18; CDER paper), and WCDER with word-dependent substitution costs (thesis 4.5).

Directions (report ``<cder>``, Figure A.3), per reference r:

* forward: d_CDCD with complete and disjoint coverage (CD) of the reference
  (the recommended one, the headline value);
* backward: CD for the candidate (the two sentences' roles swapped);
* bidirectional: (forward + backward) / 2;
* maximum: max(forward, backward).

Each direction's distances to the references then go through the
``--cder-ref-length-rule`` (Table A.3, :func:`..._distance.select`), so every
direction is an error rate over the same kind of reference length.
``--cder-coverage-rule`` (Table A.7) adds to each reference's distance:
``length`` lp_ΔL = max(I' - L', 0) (eq. 4.17; I' = the side that need not be
covered, L' = the CD side), ``miscoverage`` lp_misc of the best path (eq. 4.18;
coverage counts the edges passing a candidate word: matches, substitutions
and the thesis' "deletions" -- the printed "insertion" cannot pass a
candidate word), ``half`` the mean of both. ``--cder-pad-rule`` (Table A.6).

Statistics (add up): ``[d_fwd, L_fwd, d_bwd, L_bwd, d_bi, L_bi, d_max, L_max]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from evaltrans_qt.engine.kernels.cder import (
    E_DIAG,
    E_HOR,
    E_JUMP,
    E_VER,
    cder_distance_batch,
    cder_misc_batch,
    cder_path,
    misc_penalty,
)
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import DistanceMeasure, WordCostsMixin, packed, select
from evaltrans_qt.engine.measures.alignment import (
    Alignment,
    Block,
    BlockKind,
    EditOp,
    OpKind,
    check_alignment_budget,
)
from evaltrans_qt.engine.measures.base import MeasureScore, Segment, error_rate_details

DIRECTIONS = ("forward", "backward", "bidirectional", "maximum")
_SUFFIX = {"forward": "", "backward": "-bwd", "bidirectional": "-bi", "maximum": "-max"}
C_LJ = 1.0


def boundaries(pad_rule: str) -> tuple[bool, bool]:
    """Table A.6: (path start fixed, path end fixed) for ``--cder-pad-rule``."""
    return pad_rule in ("left", "both"), pad_rule in ("right", "both")


def path_alignment(hyp: np.ndarray, ref: np.ndarray, sub: np.ndarray | None, start_fixed: bool,
                   end_fixed: bool, hyp_words: Sequence[str], ref_words: Sequence[str],
                   measure: str = "cder", ref_index: int = 0) -> Alignment:
    """Best forward d_CDCD path as an :class:`Alignment` (operations in path order).

    Blocks: when the path has long jumps, each maximal jump-free part of the
    path is a LONG_JUMP block numbered in path (= reference) order; its cost
    is the long jump that enters it (the first part costs 0 unless the path
    jumps from (0, 0)); a jump to the fixed end (I, L) gives an empty last
    block. Operation costs plus block costs = distance. ``notes`` has the
    coverage of each candidate word and lp_misc (eq. 4.18).
    """
    hyp = np.asarray(hyp, np.int32)
    ref = np.asarray(ref, np.int32)
    use_sub = sub is not None
    s = np.ascontiguousarray(sub, dtype=np.float64) if use_sub else np.zeros((1, 1))
    dist, edges, cov = cder_path(hyp, ref, s, use_sub, start_fixed, end_fixed, C_LJ)
    ops: list[EditOp] = []
    parts: list[list] = []          # [i0, l0, i1, l1, cost, n_ops]
    if len(edges):
        k, i, l, j = (int(x) for x in edges[0])
        i0, l0 = {E_DIAG: (i - 1, l - 1), E_HOR: (i - 1, l), E_VER: (i, l - 1)}.get(k, (j, l))
    else:
        i0, l0 = (len(hyp), len(ref)) if end_fixed else (0, len(ref))
    cur = [i0, l0, i0, l0, 0.0, 0]
    for k, i, l, _j in edges.tolist():
        if k == E_JUMP:
            if cur[5] or cur[4]:
                parts.append(cur)
            cur = [i, l, i, l, C_LJ, 0]
            continue
        if k == E_DIAG:
            same = hyp[i - 1] == ref[l - 1]
            c = 0.0 if same else (float(s[i - 1, l - 1]) if use_sub else 1.0)
            ops.append(EditOp(OpKind.MATCH if same else OpKind.SUB, i - 1, l - 1, c))
        elif k == E_HOR:
            ops.append(EditOp(OpKind.INS, i - 1, None, 1.0))
        elif k == E_VER:
            ops.append(EditOp(OpKind.DEL, None, l - 1, 1.0))
        cur[2], cur[3] = i, l
        cur[5] += 1
    if cur[5] or cur[4]:
        parts.append(cur)
    blocks: tuple[Block, ...] = ()
    if any(p[4] for p in parts):
        blocks = tuple(Block(n, BlockKind.LONG_JUMP, (p[0], p[2]), (p[1], p[3]), p[4])
                       for n, p in enumerate(parts, 1))
    notes = {"coverage": [int(c) for c in cov], "miscoverage_penalty": float(misc_penalty(cov)),
             "long_jumps": int(sum(1 for e in edges if e[0] == E_JUMP))}
    return Alignment(measure, tuple(hyp_words), tuple(ref_words), float(dist), tuple(ops), blocks,
                     ref_index, notes)


@register
class CDER(DistanceMeasure):
    """CDER in four directions (thesis 4.4.2); unit substitution costs."""

    name = "cder"
    long_name = "CDER (CDCD distance with block movements)"
    report_element = "cder"
    source = "thesis 4.4.2-4.4.3, Algorithm 4.2, eq. 4.16-4.18; Leusch et al. 2006"
    column = "CDER"
    ref_length_option = "cder_ref_length_rule"
    use_word_costs: ClassVar[bool] = False

    @property
    def stat_names(self) -> list[str]:
        out = []
        for d in DIRECTIONS:
            out += [f"{d}_distance", f"{d}_reference_length"]
        return out

    # -- substitution costs ---------------------------------------------------
    def _sub(self, hf, ho, rf, ro, pair_hyp):
        return None, None

    def sub_matrix(self, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray | None:
        return None

    # -- distances ------------------------------------------------------------
    def direction_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                            pair_hyp: np.ndarray, pair_ref: np.ndarray | None = None
                            ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Penalised distances of pairs p = (hyps[pair_hyp[p]], refs[pair_ref[p]]) (default
        ref p) in each direction, and the pairs' reference lengths."""
        pair_hyp = np.asarray(pair_hyp, np.int64)
        pair_ref = (np.arange(len(pair_hyp), dtype=np.int64) if pair_ref is None
                    else np.asarray(pair_ref, np.int64))
        if self.use_word_costs:                       # cost blocks are laid out per pair
            refs, pair_ref = [refs[i] for i in pair_ref], np.arange(len(pair_hyp), dtype=np.int64)
        hf, ho = packed(hyps)
        rf, ro = packed(refs)
        sub, so = self._sub(hf, ho, rf, ro, pair_hyp)
        use_sub = sub is not None
        if not use_sub:
            sub, so = np.zeros(1), np.zeros(len(pair_hyp) + 1, np.int64)
        sf, ef = boundaries(self.options.cder_pad_rule)
        rule = self.options.cder_coverage_rule
        rl = np.diff(ro).astype(np.float64)[pair_ref]
        hl = np.diff(ho).astype(np.float64)[pair_hyp]
        out = {}
        for direction, backward in (("forward", False), ("backward", True)):
            args = (hf, ho, rf, ro, pair_hyp, pair_ref, backward, sf, ef, C_LJ, use_sub, sub, so)
            if rule in ("miscoverage", "half"):
                d, misc = cder_misc_batch(*args)
            else:
                d, misc = cder_distance_batch(*args), None
            free, covered = (rl, hl) if backward else (hl, rl)
            lp_len = np.maximum(free - covered, 0.0)
            if rule == "length":
                d = d + lp_len
            elif rule == "miscoverage":
                d = d + misc
            elif rule == "half":
                d = d + 0.5 * (lp_len + misc)
            out[direction] = d
        out["bidirectional"] = 0.5 * (out["forward"] + out["backward"])
        out["maximum"] = np.maximum(out["forward"], out["backward"])
        return out, rl

    def pair_distances(self, hyps, refs, pair_hyp):
        d, rl = self.direction_distances(hyps, refs, pair_hyp)
        return d["forward"], rl

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        if hasattr(self, "_unique_pairs"):            # references shared by pairs packed once
            hyps, refs, pair_hyp, pair_ref, slots = self._unique_pairs(segments)
        else:
            hyps, refs, pair_hyp, slots = self._pairs(segments)
            pair_ref = None
        dists, rlen = self.direction_distances(hyps, refs, pair_hyp, pair_ref)
        out = np.zeros((len(segments), 2 * len(DIRECTIONS)), dtype=np.float64)
        rows = np.arange(len(segments))
        grids, valid = self._grid(len(segments), slots, [rlen] + [dists[d] for d in DIRECTIONS])
        L = grids[0]
        for k, d in enumerate(grids[1:]):
            best, w = select(d, L, valid, self.rule)
            ok = best >= 0
            out[rows[ok], 2 * k] = d[rows[ok], best[ok]]
            out[:, 2 * k + 1] = (w * L).sum(axis=1)
        return out

    def score(self, stats: np.ndarray) -> MeasureScore:
        details = {}
        columns = {}
        for k, direction in enumerate(DIRECTIONS):
            det = error_rate_details(float(stats[2 * k]), float(stats[2 * k + 1]))
            details[direction] = det
            columns[self.column + _SUFFIX[direction]] = det["error-rate"]
        return MeasureScore(self.name, columns[self.column], columns, details)

    def align(self, seg: Segment) -> Alignment | None:
        """Best forward path to the reference chosen by the reference-length rule."""
        r = self.best_reference(seg)
        if r < 0:
            return None
        ref = seg.refs[r]
        sf, ef = boundaries(self.options.cder_pad_rule)
        check_alignment_budget(f"{self.name.upper()} alignment", len(seg.hyp), len(ref))
        a = path_alignment(seg.hyp, ref, self.sub_matrix(seg.hyp, ref), sf, ef,
                           self.words(seg.hyp), self.words(ref), self.name, r)
        rule = self.options.cder_coverage_rule
        lp_len = float(max(len(seg.hyp) - len(ref), 0))
        lp = {"none": 0.0, "length": lp_len, "miscoverage": a.notes["miscoverage_penalty"],
              "half": 0.5 * (lp_len + a.notes["miscoverage_penalty"])}[rule]
        a.notes["coverage_penalty"] = lp
        a.notes["penalised_distance"] = a.distance + lp
        return a


@register
class WCDER(WordCostsMixin, CDER):
    """CDER with word-dependent substitution costs (``--substitution-cost-rule``, thesis 4.5)."""

    name = "wcder"
    long_name = "CDER with word-dependent substitution costs"
    report_element = "wcder"
    source = "thesis 4.4.2 and 4.5; Leusch et al. 2006 section 4"
    column = "WCDER"
    use_word_costs = True

    def _sub(self, hf, ho, rf, ro, pair_hyp):
        return self.costs().matrices(hf, ho, rf, ro, pair_hyp)

    def sub_matrix(self, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray | None:
        return self.costs().matrix(hyp, ref)
