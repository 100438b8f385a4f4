"""GSA: generation string accuracy (survey §4.4.1; Bangalore, Rambow & Whittaker 2000).

``GSA = 1 − (M + I' + D' + S) / |R|``: SSA with a misplaced word counted once. From
the Levenshtein alignment of candidate and reference (I insertions, D deletions,
S substitutions), a word deleted at one place and inserted at another is one
*move*: ``M = Σ_w min(D_w, I_w)`` over word types w, and the remaining insertions
and deletions are ``I' = I − M``, ``D' = D − M``. So the errors are
``S + I + D − M`` and GSA ≥ SSA for the same reference.

Choices where the survey is silent (documented, tested):

* **Which alignment.** Among the alignments of minimal Levenshtein cost, the one with
  the fewest substitutions (substitutions cost ``1 + ε``, ε = 1 / (2 (I + L + 1)), which
  never changes the minimal number of edits), so a misplaced word shows as a deletion
  plus an insertion -- which GSA counts once -- rather than as two substitutions
  (``a b c`` against ``b a c``: one move, GSA = 2/3, where the unweighted alignment
  would give two substitutions). Remaining ties: the backtrace of
  :func:`~evaltrans_qt.engine.kernels.levenshtein.lev_backtrace`.
* **Several references:** the reference with the fewest GSA errors counts, its length by
  ``--wer-ref-length-rule`` (thesis eq. 4.1 / 5.7, Table A.3), as SSA and WER.
* **Statistics** ``[substitutions, deletions, insertions, moves, reference_length]`` add up;
  the system GSA is ``1 − Σ(S + D + I − M) / Σ |R|``. An empty reference: the error
  count itself is the rate (as WER), GSA = 1 − errors.
* **Alignment shown:** the chosen Levenshtein alignment; each move is a SHIFT block
  linking the inserted candidate word and the deleted reference word; the block costs 1
  and that deletion and insertion 0, so the operation costs add up to the error count.

Opt-in (``--measures gsa``): not part of the default run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import select
from evaltrans_qt.engine.measures.alignment import (
    Alignment,
    Block,
    BlockKind,
    EditOp,
    OpKind,
    check_alignment_budget,
)
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment, error_rates
from evaltrans_qt.engine.measures.wer import backtrace_ops

STATS = ["substitutions", "deletions", "insertions", "moves", "reference_length"]


def gsa_alignment(hyp: np.ndarray, ref: np.ndarray) -> tuple[list[EditOp], list[tuple[int, int]]]:
    """The alignment GSA counts (module doc) and its moves as (candidate position,
    reference position) pairs of equal words, in reference order."""
    hyp = np.asarray(hyp, np.int32)
    ref = np.asarray(ref, np.int32)
    check_alignment_budget("GSA alignment", len(hyp), len(ref))
    eps = 1.0 / (2.0 * (len(hyp) + len(ref) + 1))
    sub = np.where(hyp[:, None] == ref[None, :], 0.0, 1.0 + eps)
    _, ops = backtrace_ops(hyp, ref, sub)
    ops = [EditOp(o.kind, o.hyp_pos, o.ref_pos, 1.0 if o.kind == OpKind.SUB else o.cost)
           for o in ops]
    inserted: dict[int, list[int]] = {}
    for o in ops:
        if o.kind == OpKind.INS and o.hyp_pos is not None:     # an insertion has hyp_pos
            inserted.setdefault(int(hyp[o.hyp_pos]), []).append(o.hyp_pos)
    moves: list[tuple[int, int]] = []
    for o in ops:
        if o.kind == OpKind.DEL and o.ref_pos is not None:     # a deletion has ref_pos
            free = inserted.get(int(ref[o.ref_pos]))
            if free:
                moves.append((free.pop(0), o.ref_pos))
    return ops, moves


def gsa_counts(hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``[S, D, I, M, |R|]`` of one candidate against one reference."""
    ops, moves = gsa_alignment(hyp, ref)
    c = Counter(o.kind for o in ops)
    return np.array([c[OpKind.SUB], c[OpKind.DEL], c[OpKind.INS], len(moves), len(ref)],
                    dtype=np.float64)


def gsa_errors(stats: np.ndarray) -> np.ndarray:
    """``S + D + I − M`` of each row of 2-D statistics."""
    st = np.atleast_2d(np.asarray(stats, dtype=float))
    return st[:, 0] + st[:, 1] + st[:, 2] - st[:, 3]


@register
class GSA(Measure):
    """Generation string accuracy: SSA with each misplaced word counted once."""

    name = "gsa"
    long_name = "Generation string accuracy"
    report_element = "gsa"
    higher_is_better = True
    source = "survey §4.4.1 (GSA = 1 − (M + I + D + S)/|R|); Bangalore et al. 2000"
    column = "GSA"
    default_enabled = False
    #: Option field holding the Table A.3 rule (shared with WER and SSA).
    ref_length_option: ClassVar[str] = "wer_ref_length_rule"

    @property
    def stat_names(self) -> list[str]:
        return list(STATS)

    def _choose(self, seg: Segment) -> tuple[int, np.ndarray | None, float]:
        """(chosen reference, its counts, reference length by the rule); -1 without refs."""
        if not seg.refs:
            return -1, None, 0.0
        counts = [gsa_counts(seg.hyp, r) for r in seg.refs]
        err = gsa_errors(np.array(counts))
        length = np.array([c[4] for c in counts])
        best, w = select(err[None, :], length[None, :], np.ones((1, len(counts)), bool),
                         getattr(self.options, self.ref_length_option))
        b = int(best[0])
        return b, counts[b], float((w[0] * length).sum())

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        b, counts, length = self._choose(seg)
        if counts is None:
            return np.zeros(len(STATS), dtype=np.float64)
        out = counts.copy()
        out[4] = length
        return out

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        out = np.zeros((len(segments), len(STATS)), dtype=np.float64)
        for i, seg in enumerate(segments):
            out[i] = self.sentence_stats(seg)
        return out

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        return 1.0 - error_rates(gsa_errors(st), st[:, 4])

    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=float)
        value = float(self.score_values(st[None, :])[0])
        s, d, i, m, n = (float(x) for x in st[:5])
        details = {"score": value, "score-percent": 100.0 * value, "substitutions": s,
                   "deletions": d, "insertions": i, "moves": m,
                   "errors": s + d + i - m, "reference-length": n}
        return MeasureScore(self.name, value, {self.column: value}, details)

    def reference_distances(self, seg: Segment) -> list[float] | None:
        """GSA error count ``S + D + I − M`` to each reference."""
        return [float(gsa_errors(gsa_counts(seg.hyp, r)[None, :])[0]) for r in seg.refs]

    def align(self, seg: Segment) -> Alignment | None:
        b, counts, _ = self._choose(seg)
        if counts is None:
            return None
        ops, moves = gsa_alignment(seg.hyp, seg.refs[b])
        moved_h = {h for h, _ in moves}
        moved_r = {r for _, r in moves}
        # a move costs 1 (its block), its deletion and insertion nothing: the costs add up
        # to GSA's error count S + D + I - M
        ops = [EditOp(o.kind, o.hyp_pos, o.ref_pos, 0.0)
               if (o.kind == OpKind.INS and o.hyp_pos in moved_h)
               or (o.kind == OpKind.DEL and o.ref_pos in moved_r) else o for o in ops]
        blocks = tuple(Block(k, BlockKind.SHIFT, (h, h + 1), (r, r + 1), 1.0)
                       for k, (h, r) in enumerate(moves, 1))
        vocab = self.vocab
        words = (lambda ids: tuple(vocab.decode(ids))) if vocab is not None else \
            (lambda ids: tuple(str(int(x)) for x in ids))
        errors = float(gsa_errors(counts[None, :])[0])
        return Alignment(self.name, words(seg.hyp), words(seg.refs[b]), errors, tuple(ops),
                         blocks, b, {"moves": len(moves)})
