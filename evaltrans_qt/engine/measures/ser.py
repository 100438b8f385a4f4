"""SER: sentence error rate (survey §4.4.7; Tomás et al. 2003).

"The percentage of sentences whose translations have not matched in an exact manner
those of reference": a candidate is an error unless its words equal the words of one
of its references *after the run's preprocessing* (``--tokenization``, ``--case``), so
``Hello, world`` matches ``Hello , world`` under 13a tokenisation and ``hello, world``
with ``--case ignore``.

Statistics ``[errors, sentences]`` (0/1 and 1 per candidate) add up; the system SER is
``Σ errors / Σ sentences``, lower is better. A segment without references has
statistics ``[0, 0]`` and does not count (SER is undefined there). No alignment (the
test is all or nothing); ``<reference-distance>`` is 0 for an identical reference, else 1.

Opt-in (``--measures ser``): not part of the default run.
"""

from __future__ import annotations

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment

STATS = ["errors", "sentences"]


def ser_values(stats: np.ndarray) -> np.ndarray:
    """errors / sentences of each row (0 without sentences)."""
    st = np.atleast_2d(np.asarray(stats, dtype=float))
    return np.where(st[:, 1] > 0, st[:, 0] / np.where(st[:, 1] > 0, st[:, 1], 1.0), 0.0)


def matches(hyp: np.ndarray, ref: np.ndarray) -> bool:
    """Whether the candidate's words equal the reference's."""
    return len(hyp) == len(ref) and bool(np.array_equal(hyp, ref))


@register
class SER(Measure):
    """Sentence error rate: share of candidates equal to none of their references."""

    name = "ser"
    long_name = "Sentence error rate"
    report_element = "ser"
    higher_is_better = False
    source = "survey §4.4.7 (SER); Tomás et al. 2003"
    column = "SER"
    default_enabled = False

    @property
    def stat_names(self) -> list[str]:
        return list(STATS)

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        if not seg.refs:
            return np.zeros(2)
        hit = any(matches(seg.hyp, r) for r in seg.refs)
        return np.array([0.0 if hit else 1.0, 1.0])

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        return ser_values(stats)

    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=float)
        value = float(ser_values(st[None, :])[0])
        details = {"error-rate": value, "error-rate-percent": 100.0 * value,
                   "sentences": float(st[1]), "sum": float(st[0])}
        return MeasureScore(self.name, value, {self.column: value}, details)

    def reference_distances(self, seg: Segment) -> list[float] | None:
        return [0.0 if matches(seg.hyp, r) else 1.0 for r in seg.refs]
