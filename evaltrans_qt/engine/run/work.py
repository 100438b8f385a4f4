"""Units of work of an evaluation run and the pure function that computes them.

A :class:`Chunk` is a row range of one system (statistics of every measure);
a :class:`PairBatch` is a group of (candidate, reference) pairs of one costly
measure (INVWER). :func:`compute` turns either into its result and runs
anywhere -- in-process or in a worker process (everything here pickles).

``leaving-one-out`` (thesis Table A.1): for the listed measures a reference
whose tokens equal the candidate's is dropped, unless it is the only
reference left (:func:`drop_identical`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from evaltrans_qt.engine.kernels.packing import intern_by_identity
from evaltrans_qt.engine.measures.base import Measure, Segment


@dataclass(frozen=True)
class Chunk:
    """Independent unit of work: rows ``[start, stop)`` of one system."""

    system: str
    start: int
    stop: int
    segments: tuple[Segment, ...]
    #: Measures for which a reference identical to the candidate is dropped.
    leave_one_out: frozenset[str] = frozenset()
    #: Also compute each reference's absolute distance (report detail).
    reference_distances: bool = False

    def __reduce__(self):
        """Pickle the segments' token ids as two flat arrays (a chunk of a thousand segments
        holds about four thousand small arrays, whose one-by-one pickling cost more than
        some measures); texts stay strings."""
        return _unpack_chunk, (self.system, self.start, self.stop, _pack_segments(self.segments),
                               self.leave_one_out, self.reference_distances)


def _pack_segments(segments: tuple[Segment, ...]) -> tuple:
    """Distinct id arrays (by identity: a reference array shared by several segments stays
    shared, as pickle's memo would keep it) concatenated, and each slot's array index."""
    unique, index = intern_by_identity(arr for seg in segments for arr in (seg.hyp, *seg.refs))
    if not unique or any(a.dtype != np.int32 or a.ndim != 1 for a in unique):
        return ("plain", segments)
    lengths = np.fromiter((len(a) for a in unique), dtype=np.int64, count=len(unique))
    flat = np.concatenate(unique) if lengths.sum() else np.zeros(0, dtype=np.int32)
    n_refs = np.fromiter((len(s.refs) for s in segments), dtype=np.int64, count=len(segments))
    return ("packed", flat, lengths, np.asarray(index, dtype=np.int32), n_refs,
            [s.hyp_text for s in segments], [s.ref_texts for s in segments],
            [s.src_text for s in segments])


def _unpack_segments(packed: tuple) -> tuple[Segment, ...]:
    if packed[0] == "plain":
        return packed[1]
    _, flat, lengths, index, n_refs, hyp_texts, ref_texts, src_texts = packed
    bounds = [0, *np.cumsum(lengths).tolist()]
    arrays = [flat[bounds[u]:bounds[u + 1]] for u in range(len(lengths))]
    idx = index.tolist()
    out = []
    a = 0
    for k, nr in enumerate(n_refs.tolist()):
        out.append(Segment(arrays[idx[a]], tuple(arrays[u] for u in idx[a + 1:a + 1 + nr]),
                           hyp_texts[k], ref_texts[k], src_texts[k]))
        a += 1 + nr
    return tuple(out)


def _unpack_chunk(system, start, stop, packed, leave_one_out, reference_distances) -> Chunk:
    return Chunk(system, start, stop, _unpack_segments(packed), leave_one_out,
                 reference_distances)


@dataclass
class ChunkResult:
    """Statistics (rows x ``stat_names``) and optional per-reference distances per measure."""

    stats: dict[str, np.ndarray]
    ref_distances: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class PairBatch:
    """Unit of work of the pair phase: ``pair_value`` of (candidate, reference) pairs of one
    measure; ``cost`` is their estimated seconds (:meth:`Measure.pair_cost`,
    :meth:`Measure.group_cost`). ``groups``, if given, cuts ``pairs`` into runs of one
    candidate with its references (the sizes), computed by :meth:`Measure.group_values`."""

    measure: str
    pairs: tuple[tuple[np.ndarray, np.ndarray], ...]
    cost: float = 0.0
    groups: tuple[int, ...] = ()


def drop_identical(seg: Segment) -> tuple[Segment, list[int]]:
    """Leaving-one-out: drop references equal to the candidate (keep all if none would remain).

    Returns the segment and the indices of the references it kept.
    """
    keep = [r for r, ref in enumerate(seg.refs)
            if not (len(ref) == len(seg.hyp) and np.array_equal(ref, seg.hyp))]
    if not keep or len(keep) == len(seg.refs):
        return seg, list(range(len(seg.refs)))
    texts = tuple(seg.ref_texts[r] for r in keep) if seg.ref_texts else ()
    return Segment(seg.hyp, tuple(seg.refs[r] for r in keep), seg.hyp_text, texts,
                   seg.src_text), keep


def compute_chunk(measures: Mapping[str, Measure], chunk: Chunk) -> ChunkResult:
    """Statistics of one chunk for every measure (a pure function: runs anywhere)."""
    out = ChunkResult({})
    base = chunk.segments
    loo_segs: tuple[Segment, ...] = ()
    loo_keeps: list[list[int]] = []
    if chunk.leave_one_out:
        dropped = [drop_identical(s) for s in base]
        loo_segs = tuple(d[0] for d in dropped)
        loo_keeps = [d[1] for d in dropped]
    n = len(base)
    max_refs = max((len(s.refs) for s in base), default=0)
    # every measure gets the same sequence object, so that work on its pairs is shared
    # (measures/_distance.py)
    for name, m in measures.items():
        if name in chunk.leave_one_out:
            segs, keeps = loo_segs, loo_keeps
        else:
            segs, keeps = base, None
        stats = np.asarray(m.corpus_stats(segs), dtype=np.float64)
        if stats.shape != (n, len(m.stat_names)):
            raise ValueError(f"measure {name}: corpus_stats returned shape {stats.shape}, "
                             f"expected {(n, len(m.stat_names))}")
        out.stats[name] = stats
        if chunk.reference_distances:
            rd = np.full((n, max_refs), np.nan)
            for i, seg in enumerate(segs):
                d = m.reference_distances(seg)
                if d is None:
                    continue
                cols = keeps[i] if keeps is not None else range(len(d))
                for c, v in zip(cols, d):
                    rd[i, c] = v
            if not np.all(np.isnan(rd)):
                out.ref_distances[name] = rd
    return out


def compute_pairs(measures: Mapping[str, Measure], batch: PairBatch) -> list:
    """The values of one pair batch (a pure function: runs anywhere)."""
    m = measures[batch.measure]
    if not batch.groups:
        return [m.pair_value(hyp, ref) for hyp, ref in batch.pairs]
    out: list = []
    start = 0
    for n in batch.groups:
        part = batch.pairs[start:start + n]
        out.extend(m.group_values(part[0][0], [ref for _, ref in part]) if n > 1
                   else [m.pair_value(*part[0])])
        start += n
    return out


def compute(measures: Mapping[str, Measure], work: Chunk | PairBatch) -> ChunkResult | list:
    """The pure unit of work of every executor: a row chunk or a pair batch."""
    if isinstance(work, PairBatch):
        return compute_pairs(measures, work)
    return compute_chunk(measures, work)
