"""Distance measures whose value may be an upper bound (LJWER beyond its exact limit,
INVWER beyond its memory budget): a ``flag:approximated`` statistics column.

The column is 1 for a segment when any of the distances it read was approximated
(in a run's pair phase a candidate's references are searched together and a farther
one is only *proven* farther -- exactly -- so there only the nearest references'
distances can be approximations; a run that reports every reference's distance
computes each in full, and may flag a segment for a farther reference); it adds up
like any column (its system sum counts the flagged segments), the driver copies it to
``SystemResult.flags[measure]["approximated"]`` and the report marks the sentence
(``flags="approximated"``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.measures._distance import DistanceMeasure, select
from evaltrans_qt.engine.measures.base import MeasureScore, Segment, error_rate_details

FLAG = "flag:approximated"


class ApproximatedDistance(DistanceMeasure):
    """A :class:`DistanceMeasure` with stats ``[distance, reference_length, flag]``;
    subclasses implement :meth:`pair_results`."""

    @property
    def stat_names(self) -> list[str]:
        return ["distance", "reference_length", FLAG]

    def pair_results(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                     pair_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distances, reference lengths and exactness of pairs (hyps[pair_hyp[p]], refs[p])."""
        raise NotImplementedError

    def pair_distances(self, hyps, refs, pair_hyp):
        d, rlen, _ = self.pair_results(hyps, refs, pair_hyp)
        return d, rlen

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        hyps, refs, pair_hyp, slots = self._pairs(segments)
        dist, rlen, exact = self.pair_results(hyps, refs, pair_hyp)
        (d, L, ap), valid = self._grid(len(segments), slots, [dist, rlen, (~exact).astype(float)])
        best, w = select(d, L, valid, self.rule)
        out = np.zeros((len(segments), 3), dtype=np.float64)
        ok = best >= 0
        out[ok, 0] = d[np.nonzero(ok)[0], best[ok]]
        out[:, 1] = (w * L).sum(axis=1)
        if ap.shape[1]:
            out[:, 2] = ap.max(axis=1)
        return out

    def sentence_flags(self, seg: Segment) -> dict[str, bool]:
        """{"approximated": True} if the segment's value is an upper bound, not exact."""
        return {"approximated": bool(self.sentence_stats(seg)[2] != 0)}

    def score(self, stats: np.ndarray) -> MeasureScore:
        det = dict(error_rate_details(float(stats[0]), float(stats[1])))
        det["approximated-sentences"] = float(stats[2]) if len(stats) > 2 else 0.0
        return MeasureScore(self.name, det["error-rate"], {self.column: det["error-rate"]}, det)


def approximation_warnings(result, limit: int = 10) -> list[str]:
    """Warnings naming a :class:`~evaltrans_qt.engine.run.results.SystemResult`'s approximated
    sentences per measure (for the run's warnings), at most ``limit`` positions each."""
    out = []
    for measure, flags in sorted(result.flags.items()):
        ap = np.asarray(flags.get("approximated", ()), dtype=bool)
        if not ap.any():
            continue
        rows = np.nonzero(ap)[0]
        where = ", ".join(str(int(result.segments[k]) + 1) for k in rows[:limit])
        more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
        out.append(f"{measure}: {len(rows)} sentence(s) of system '{result.system or '(no id)'}' "
                   f"approximated (an upper bound, flagged in the report): sources {where}{more}")
    return out
