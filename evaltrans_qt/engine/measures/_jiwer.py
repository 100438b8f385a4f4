"""Shared machinery of jiwer's measures MER, WIL, WIP and CER (jiwer 3/4 ``process_words``,
``process_characters``; Morris et al. 2004 for MER/WIL/WIP).

Sufficient statistics ``[hits, substitutions, deletions, insertions]`` (H, S, D, I) of one
Levenshtein alignment of the candidate with the chosen reference; they add up, and the
corpus value is jiwer's formula on the summed counts (N_ref = H + S + D reference words,
N_hyp = H + S + I candidate words):

* MER = (S + D + I) / (H + S + D + I);
* WIP = (H / N_ref) · (H / N_hyp) (0 when the candidate side is empty), WIL = 1 − WIP;
* CER = (S + D + I) / N_ref over characters.

Empty references (jiwer's special case, applied to the summed counts): when N_ref = 0,
CER (and WER) is the insertion count I, MER is 1 (0 if the candidate is empty too), WIP is
0 (1 if the candidate is empty too). So no value is NaN or inf; CER can exceed 1.

Ties between alignments of equal cost are broken as in jiwer: the counts come from
rapidfuzz's Levenshtein alignment (:func:`~evaltrans_qt.engine.kernels.levenshtein.hsdi_counts`).

Several references (jiwer has one): per segment the reference with the best sentence value
of the measure itself (lowest MER/WIL/CER, highest WIP; WIL and WIP choose alike), ties to
fewer edits (S + D + I), then to the earlier reference -- as sacreBLEU's chrF keeps the
reference with the best sentence score. A segment without references has zero counts and
does not count.

Report elements: the headline (``error-rate``/``error-rate-percent``, for WIP ``score``/
``score-percent``), ``hits``, ``substitutions``, ``deletions``, ``insertions``,
``reference-length`` (N_ref) and ``hypothesis-length`` (N_hyp).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from evaltrans_qt.engine.kernels.levenshtein import hsdi_counts, jiwer_opcodes
from evaltrans_qt.engine.measures.alignment import Alignment, EditOp, OpKind
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment

STATS = ["hits", "substitutions", "deletions", "insertions"]


def counts_of(stats: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(H, S, D, I, N_ref, N_hyp)`` columns of 2-D statistics."""
    st = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    h, s, d, i = st[:, 0], st[:, 1], st[:, 2], st[:, 3]
    return h, s, d, i, h + s + d, h + s + i


def error_rate_values(stats: np.ndarray) -> np.ndarray:
    """jiwer's WER/CER of each row: (S + D + I) / N_ref, and I when N_ref = 0."""
    h, s, d, i, n_ref, _ = counts_of(stats)
    return np.where(n_ref > 0, (s + d + i) / np.where(n_ref > 0, n_ref, 1.0), i)


def mer_values(stats: np.ndarray) -> np.ndarray:
    """jiwer's MER of each row: (S + D + I) / (H + S + D + I); 1 (0) for an empty reference
    with a non-empty (empty) candidate."""
    h, s, d, i, n_ref, n_hyp = counts_of(stats)
    total = h + s + d + i
    return np.where(n_ref > 0, (s + d + i) / np.where(total > 0, total, 1.0),
                    np.where(n_hyp > 0, 1.0, 0.0))


def wip_values(stats: np.ndarray) -> np.ndarray:
    """jiwer's WIP of each row: (H / N_ref) · (H / N_hyp); 0 for an empty candidate; for an
    empty reference 1 if the candidate is empty too, else 0."""
    h, s, d, i, n_ref, n_hyp = counts_of(stats)
    with np.errstate(divide="ignore", invalid="ignore"):
        wip = (h / np.where(n_ref > 0, n_ref, 1.0)) * (h / np.where(n_hyp > 0, n_hyp, 1.0))
    return np.where(n_ref > 0, np.where(n_hyp >= 1, wip, 0.0), np.where(n_hyp > 0, 0.0, 1.0))


class JiwerMeasure(Measure):
    """A jiwer measure over H/S/D/I counts; subclasses set :meth:`score_values`."""

    #: Headline column, e.g. "MER".
    column: ClassVar[str] = ""
    #: Opt-in (``--measures mer,wil,wip,cer``, the options dialog's Measures tab): speech
    #: recognition measures, kept out of the default run so the result tables stay readable.
    default_enabled: ClassVar[bool] = False

    @property
    def stat_names(self) -> list[str]:
        return list(STATS)

    # -- hooks ------------------------------------------------------------------
    def sequences(self, seg: Segment) -> tuple[Sequence, list[Sequence]]:
        """Candidate and references as the sequences aligned (word ids by default)."""
        return seg.hyp.tolist(), [r.tolist() for r in seg.refs]

    def selection_values(self, stats: np.ndarray) -> np.ndarray:
        """Per-pair values whose minimum picks the reference (default: the headline value,
        negated when higher is better)."""
        v = self.score_values(stats)
        return -v if self.higher_is_better else v

    def units(self, seq: Sequence) -> tuple[str, ...]:
        """Display strings of a sequence (words of the vocabulary by default)."""
        if self.vocab is not None:
            return tuple(self.vocab.decode(seq))
        return tuple(str(x) for x in seq)

    # -- statistics ---------------------------------------------------------------
    def _pairs(self, segments: Sequence[Segment]) -> tuple[np.ndarray, np.ndarray]:
        """H/S/D/I counts of every (candidate, reference) pair and the segment of each pair."""
        hyps, refs, owners = [], [], []
        for k, seg in enumerate(segments):
            h, rs = self.sequences(seg)
            hyps.append(h)
            owners.extend([k] * len(rs))
            refs.extend(rs)
        owner = np.asarray(owners, dtype=np.int64)
        counts = hsdi_counts(hyps, refs, owner, np.arange(len(refs), dtype=np.int64))
        return counts.astype(np.float64), owner

    def _best(self, counts: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """The kept pair of each segment that has one (module doc: best value, then fewer
        edits, then the earlier reference), in segment order."""
        edits = counts[:, 1:].sum(axis=1)
        order = np.lexsort((np.arange(len(owner)), edits, self.selection_values(counts), owner))
        first = np.ones(len(order), dtype=bool)
        first[1:] = owner[order[1:]] != owner[order[:-1]]
        return order[first]

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        out = np.zeros((len(segments), 4), dtype=np.float64)
        counts, owner = self._pairs(segments)
        if not len(counts):
            return out
        best = self._best(counts, owner)
        out[owner[best]] = counts[best]
        return out

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def best_reference(self, seg: Segment) -> int:
        """Index of the reference whose counts are kept, -1 without references."""
        counts, owner = self._pairs([seg])
        return int(self._best(counts, owner)[0]) if len(counts) else -1

    def reference_distances(self, seg: Segment) -> list[float] | None:
        """Edit count S + D + I to each reference."""
        counts, _ = self._pairs([seg])
        return [float(x) for x in counts[:, 1:].sum(axis=1)]

    # -- scores -------------------------------------------------------------------
    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=np.float64)
        value = float(self.score_values(st[None, :])[0])
        h, s, d, i = (float(x) for x in st[:4])
        head = ("score", "score-percent") if self.higher_is_better else ("error-rate",
                                                                          "error-rate-percent")
        details = {head[0]: value, head[1]: 100.0 * value, "hits": h, "substitutions": s,
                   "deletions": d, "insertions": i, "reference-length": h + s + d,
                   "hypothesis-length": h + s + i}
        return MeasureScore(self.name, value, {self.column: value}, details)

    def align(self, seg: Segment) -> Alignment | None:
        """jiwer's alignment (rapidfuzz opcodes) with the chosen reference."""
        r = self.best_reference(seg)
        if r < 0:
            return None
        hyp, refs = self.sequences(seg)
        ref = refs[r]
        ops: list[EditOp] = []
        for tag, r0, r1, h0, h1 in jiwer_opcodes(hyp, ref):
            if tag in ("equal", "replace"):
                kind, cost = (OpKind.MATCH, 0.0) if tag == "equal" else (OpKind.SUB, 1.0)
                ops.extend(EditOp(kind, h0 + k, r0 + k, cost) for k in range(r1 - r0))
            elif tag == "delete":
                ops.extend(EditOp(OpKind.DEL, None, l, 1.0) for l in range(r0, r1))
            else:
                ops.extend(EditOp(OpKind.INS, i, None, 1.0) for i in range(h0, h1))
        dist = sum(op.cost for op in ops)
        return Alignment(self.name, self.units(hyp), self.units(ref), dist, tuple(ops), (), r)
