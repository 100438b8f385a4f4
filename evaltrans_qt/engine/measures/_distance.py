"""Shared machinery of the distance measures (WER/PER family, also used by CDER/TER/...):
batching and the vectorised reference-length rules of thesis section 5.3 / Table A.3.

A distance measure computes, in one batched call, the distance of every
candidate to every one of its references (``indexed_distances`` over the
distinct references, or ``pair_distances`` with one reference per pair) and then applies
the reference-length rule to all segments at once (:func:`select`), which
agrees with :func:`evaltrans_qt.engine.text.reflength.choose` (tests check it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from evaltrans_qt.engine.kernels.packing import intern_by_identity, pack
from evaltrans_qt.engine.measures.alignment import Alignment, EditOp, OpKind
from evaltrans_qt.engine.measures.base import (
    Measure,
    MeasureScore,
    Segment,
    error_rate_details,
    error_rates,
)
from evaltrans_qt.engine.options import REF_LENGTH_RULES
from evaltrans_qt.errors import OptionError

#: The last (segments, :meth:`DistanceMeasure._pair_layout`) -- one tuple, replaced whole, so a
#: reader in another thread sees a matching pair. It holds the segments, so their ``id``
#: cannot be reused while cached. The results are shared read-only.
_last_pairs: tuple = (None, None)


def _remember_pairs(segments, result) -> None:
    global _last_pairs
    _last_pairs = (segments, result)


def select(dist: np.ndarray, length: np.ndarray, valid: np.ndarray, rule: str
           ) -> tuple[np.ndarray, np.ndarray]:
    """Table A.3 rules for many segments at once.

    ``dist``, ``length``, ``valid``: shape (n, R) (R = most references of a
    segment; ``valid`` marks real references). Returns ``(best, weights)``:
    the distance that counts is ``dist[k, best[k]]`` and the reference length
    is ``(weights * length).sum(1)`` -- also for any other per-reference length
    that is monotone in the word count (m-gram counts of m-PER). Rows without
    a valid reference get ``best = -1`` and zero weights.
    Semantics as :func:`evaltrans_qt.engine.text.reflength.choose` (eq. 4.1, 5.1-5.7).
    """
    if rule not in REF_LENGTH_RULES:
        raise OptionError(f"unknown reference length rule '{rule}'")
    dist = np.asarray(dist, dtype=np.float64)
    length = np.asarray(length, dtype=np.float64)
    valid = np.asarray(valid, dtype=bool)
    n, r = dist.shape
    rows = np.arange(n)
    w = np.zeros((n, r), dtype=np.float64)

    def first(mask: np.ndarray) -> np.ndarray:
        return np.where(mask.any(axis=1), mask.argmax(axis=1), -1)

    def onehot(idx: np.ndarray) -> None:
        ok = idx >= 0
        w[rows[ok], idx[ok]] = 1.0

    if r == 0:
        return np.full(n, -1, dtype=np.int64), w
    if rule == "lowestError":
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(length > 0, dist / np.where(length > 0, length, 1.0),
                           np.where(dist == 0, 0.0, np.inf))
        rel = np.where(valid, rel, np.inf)
        cand = valid & (rel == rel.min(axis=1)[:, None])
        dmin = np.min(np.where(cand, dist, np.inf), axis=1)
        best = first(cand & (dist == dmin[:, None]))
        onehot(best)
        return best, w

    d = np.where(valid, dist, np.inf)
    dmin = d.min(axis=1)
    nearest = valid & (d == dmin[:, None])
    best = first(nearest)
    group = nearest if rule.endswith("Nearest") else valid
    kind = rule.replace("Nearest", "")
    if kind == "average":
        cnt = group.sum(axis=1)
        w = np.where(group, 1.0 / np.maximum(cnt, 1)[:, None], 0.0)
    elif kind == "minimum":
        onehot(first(group & (np.where(group, length, np.inf)
                              == np.min(np.where(group, length, np.inf), axis=1)[:, None])))
    else:  # maximum
        onehot(first(group & (np.where(group, length, -np.inf)
                              == np.max(np.where(group, length, -np.inf), axis=1)[:, None])))
    return best, w


class DistanceMeasure(Measure):
    """An error rate from a distance to each reference (stats ``[distance, ref_len]``)."""

    #: Option field holding the Table A.3 rule.
    ref_length_option: ClassVar[str] = "wer_ref_length_rule"
    #: Headline column name, e.g. "WER".
    column: ClassVar[str] = ""

    @property
    def stat_names(self) -> list[str]:
        return ["distance", "reference_length"]

    @property
    def rule(self) -> str:
        return getattr(self.options, self.ref_length_option)

    # -- hooks (override one of the two) --------------------------------------
    def pair_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                       pair_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distances and reference lengths of pairs p = (hyps[pair_hyp[p]], refs[p])."""
        return self.indexed_distances(hyps, refs, pair_hyp, np.arange(len(refs), dtype=np.int64))

    def indexed_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                          pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Like :meth:`pair_distances` for pairs p = (hyps[pair_hyp[p]], refs[pair_ref[p]]),
        so references shared by many pairs are prepared once."""
        if type(self).pair_distances is DistanceMeasure.pair_distances:
            raise NotImplementedError(f"{type(self).__name__} must override pair_distances "
                                      "or indexed_distances")
        return self.pair_distances(hyps, [refs[i] for i in pair_ref], pair_hyp)

    # -- shared flow ----------------------------------------------------------
    def effective_refs(self, seg: Segment) -> list[int]:
        """Indices of the references compared with the candidate: all of them.

        ``leaving-one-out`` is applied once, by the driver
        (:func:`evaltrans_qt.engine.run.work.compute_chunk`), before segments reach a measure.
        """
        return list(range(len(seg.refs)))

    def _pairs(self, segments: Sequence[Segment]):
        """``(hyps, refs, pair_hyp, slots)``: one reference entry per pair (see :meth:`_unique_pairs`)."""
        hyps, refs, pair_hyp, pair_ref, slots = self._unique_pairs(segments)
        return hyps, [refs[i] for i in pair_ref], pair_hyp, slots

    def _unique_pairs(self, segments: Sequence[Segment]):
        """Candidates, distinct reference arrays (an array object shared by several segments,
        e.g. by all systems of a run, is prepared once), pair index arrays, and each pair's
        (segment, slot) place as two index arrays (for :meth:`_grid`)."""
        if type(self).effective_refs is DistanceMeasure.effective_refs:
            cached = _last_pairs
            if cached[0] is segments:      # the chunk's other distance measures
                return cached[1]
            result = self._pair_layout(segments)
            _remember_pairs(segments, result)
            return result
        return self._pair_layout(segments, [[seg.refs[r] for r in self.effective_refs(seg)]
                                            for seg in segments])

    @staticmethod
    def _pair_layout(segments: Sequence[Segment],
                     chosen: Sequence[Sequence[np.ndarray]] | None = None):
        """:meth:`_unique_pairs` of the references ``chosen`` for each segment (default: all)."""
        if chosen is None:
            chosen = [seg.refs for seg in segments]
        refs, pair_ref = intern_by_identity(arr for c in chosen for arr in c)
        counts = np.fromiter((len(c) for c in chosen), np.int64, len(segments))
        ks = np.repeat(np.arange(len(segments), dtype=np.int64), counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        js = np.arange(len(ks), dtype=np.int64) - starts
        return [s.hyp for s in segments], refs, ks, np.asarray(pair_ref, dtype=np.int64), (ks, js)

    def _grid(self, n: int, slots: tuple[np.ndarray, np.ndarray], values: Sequence[np.ndarray]
              ) -> tuple[list[np.ndarray], np.ndarray]:
        """Per-pair ``values`` laid out as (segment, slot) grids, and which cells are real."""
        ks, js = slots
        rmax = int(js.max()) + 1 if len(js) else 0
        valid = np.zeros((n, rmax), dtype=bool)
        valid[ks, js] = True
        grids = []
        for v in values:
            g = np.zeros((n, rmax), dtype=np.float64)
            g[ks, js] = v
            grids.append(g)
        return grids, valid

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        hyps, refs, pair_hyp, pair_ref, slots = self._unique_pairs(segments)
        dist, rlen = self.indexed_distances(hyps, refs, pair_hyp, pair_ref)
        (d, L), valid = self._grid(len(segments), slots, [dist, rlen])
        best, w = select(d, L, valid, self.rule)
        out = np.zeros((len(segments), 2), dtype=np.float64)
        ok = best >= 0
        out[ok, 0] = d[np.nonzero(ok)[0], best[ok]]
        out[:, 1] = (w * L).sum(axis=1)
        return out

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def score(self, stats: np.ndarray) -> MeasureScore:
        det = error_rate_details(float(stats[0]), float(stats[1]))
        return MeasureScore(self.name, det["error-rate"], {self.column: det["error-rate"]}, det)

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        """Headline error rates of many rows: distance / reference length, the first two
        statistics (also the headline of CDER (forward), m-PER and LJWER)."""
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        return error_rates(st[:, 0], st[:, 1])

    def reference_distances(self, seg: Segment) -> list[float] | None:
        if not seg.refs:
            return []
        dist, _ = self.pair_distances([seg.hyp], list(seg.refs),
                                      np.zeros(len(seg.refs), dtype=np.int64))
        return [float(x) for x in dist]

    def best_reference(self, seg: Segment) -> int:
        """Index (into ``seg.refs``) of the reference whose distance counts, -1 if none."""
        idx = self.effective_refs(seg)
        if not idx:
            return -1
        dist, rlen = self.pair_distances([seg.hyp], [seg.refs[r] for r in idx],
                                         np.zeros(len(idx), dtype=np.int64))
        best, _ = select(dist[None, :], rlen[None, :], np.ones((1, len(idx)), bool), self.rule)
        return idx[int(best[0])]

    def words(self, ids: np.ndarray) -> tuple[str, ...]:
        if self.vocab is not None:
            return tuple(self.vocab.decode(ids))
        return tuple(str(int(i)) for i in ids)

    def make_alignment(self, seg: Segment, ref_index: int, distance: float,
                       ops: Sequence[EditOp]) -> Alignment:
        return Alignment(self.name, self.words(seg.hyp), self.words(seg.refs[ref_index]),
                         float(distance), tuple(ops), (), ref_index)


class WordCostsMixin:
    """Word-dependent substitution costs (thesis section 4.5, Table A.8) for a measure.

    The measure exists only when ``--substitution-cost-rule`` is not ``none``;
    :meth:`costs` builds the :class:`~evaltrans_qt.engine.text.subcosts.SubstitutionCosts`
    of the fitted vocabulary once (WWER, WPER, WCDER).
    """

    _costs = None   # SubstitutionCosts of the current vocabulary, built on first use

    @classmethod
    def enabled(cls, options) -> bool:
        return options.substitution_cost_rule != "none"

    def costs(self):
        from evaltrans_qt.engine.text.subcosts import SubstitutionCosts
        from evaltrans_qt.errors import ScoreError
        if self.vocab is None:
            raise ScoreError(f"{self.name}: word-dependent costs need the vocabulary; call fit() first")
        if self._costs is None or self._costs.vocab is not self.vocab:
            self._costs = SubstitutionCosts(self.options.substitution_cost_rule, self.vocab)
        return self._costs


def word_cost_distances(measure: WordCostsMixin, kernel, hyps: Sequence[np.ndarray],
                        refs: Sequence[np.ndarray], pair_hyp: np.ndarray, pair_ref: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(distance, reference length) per pair from a batched word-cost ``kernel`` (WWER, WPER)."""
    hf, ho = packed(hyps)
    rf, ro = packed(refs)
    pair_hyp = np.asarray(pair_hyp, dtype=np.int64)
    pair_ref = np.asarray(pair_ref, dtype=np.int64)
    code, chars, choff, maxchars = measure.costs().kernel_args()
    d = kernel(hf, ho, rf, ro, pair_hyp, pair_ref, code, chars, choff, maxchars)
    return d, np.diff(ro)[pair_ref].astype(np.float64)


def packed(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pack` with int32 flat array and int64 offsets."""
    flat, off = pack(arrays)
    return np.ascontiguousarray(flat, dtype=np.int32), np.ascontiguousarray(off, dtype=np.int64)


def bag_alignment_ops(hyp: np.ndarray, ref: np.ndarray, substitutions: bool = True) -> list[EditOp]:
    """Readable PER matching (fixed costs): each candidate word, in position order, is matched
    to the earliest unmatched identical reference word; the remaining candidate and reference
    words are paired in position order as substitutions (if allowed), the rest are
    insertions/deletions. Reference-ordered ops first, then unmatched candidate words.
    Cost = max(I, L) - matches (eq. 4.12), or I + L - 2 matches without substitutions (MSDER).
    """
    free: dict[int, list[int]] = {}
    for l, w in enumerate(ref.tolist()):
        free.setdefault(w, []).append(l)
    ref_to_hyp: dict[int, int] = {}
    hyp_matched = [False] * len(hyp)
    heads = {w: 0 for w in free}
    for i, w in enumerate(hyp.tolist()):
        lst = free.get(w)
        if lst is not None and heads[w] < len(lst):
            ref_to_hyp[lst[heads[w]]] = i
            heads[w] += 1
            hyp_matched[i] = True
    un_hyp = [i for i in range(len(hyp)) if not hyp_matched[i]]
    un_ref = [l for l in range(len(ref)) if l not in ref_to_hyp]
    subs: dict[int, int] = {}
    if substitutions:
        for l, i in zip(un_ref, un_hyp):
            subs[l] = i
    ops: list[EditOp] = []
    for l in range(len(ref)):
        if l in ref_to_hyp:
            ops.append(EditOp(OpKind.MATCH, ref_to_hyp[l], l, 0.0))
        elif l in subs:
            ops.append(EditOp(OpKind.SUB, subs[l], l, 1.0))
        else:
            ops.append(EditOp(OpKind.DEL, None, l, 1.0))
    used = set(subs.values())
    ops.extend(EditOp(OpKind.INS, i, None, 1.0) for i in un_hyp if i not in used)
    return ops
