"""EXACTMATCH (Macháček §3.3.2): ratio of wins of a candidate on the ranked short
segments whose annotated candidate segments occur in it.

For every ranked source segment of the sentence (pooled over sources with the same
text; ``measures/_segranks.py``), test whether one of its candidate segments occurs in
the candidate -- as whole words, the candidate split as the segments were
(``engine/human/unseen/matching.py`` :func:`occurring`); several: the longest (in words, then
characters, then the first). A hit takes that candidate segment's rank in every
annotation of the segment and is compared with each *other* candidate segment of the
annotation (merged candidates, not expanded to systems, so the number of systems
that produced a segment does not weigh it): a better rank is a win, a worse one a
loss, an equal one a tie. Score = wins / (wins + losses), ratio of wins ignoring ties
(§3.1); NaN for a sentence without a decisive comparison.

Statistics ``[wins, losses, ties, hits, segments]`` add up over sentences (segments =
ranked source segments, hits = those matched); columns: the score and the hit rate.
Our choices where the thesis is silent: the comparison partners (candidate segments),
the "unusable" rank N+1 being one more, worst rank, ties in length broken by database
order. Opt-in; Macháček interpolates it with BLEU for tuning, we report it alone.
"""

from __future__ import annotations

import math

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._segranks import DatabaseMeasure
from evaltrans_qt.engine.measures.base import MeasureScore, Segment


def compare(ranks: tuple[int, ...], k: int) -> tuple[int, int, int]:
    """(wins, losses, ties) of candidate ``k`` against the other candidates of one annotation."""
    r = ranks[k]
    wins = sum(1 for j, x in enumerate(ranks) if j != k and x > r)
    losses = sum(1 for j, x in enumerate(ranks) if j != k and x < r)
    return wins, losses, len(ranks) - 1 - wins - losses


def ratio(wins: float, losses: float) -> float:
    return wins / (wins + losses) if wins + losses else math.nan


@register
class ExactMatch(DatabaseMeasure):
    """EXACTMATCH: ratio of wins on the hit segments (higher is better)."""

    name = "exactmatch"
    long_name = "EXACTMATCH (ratio of wins on exactly matched ranked segments)"
    report_element = "exactmatch"
    higher_is_better = True
    source = "Macháček 2014 §3.3.2 (EXACTMATCH), §3.2.1 exact matching, §3.1 ratio of wins"
    #: Heading of the score column.
    column = "EXACTMATCH"
    #: PENALIZEUNKNOWN: a missed segment loses against every candidate segment.
    penalize_misses = False

    @property
    def stat_names(self) -> list[str]:
        return ["wins", "losses", "ties", "hits", "segments"]

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        from evaltrans_qt.engine.human.unseen.matching import occurring
        w = lo = t = hits = n = 0
        for a in self.segments_of(seg):
            n += 1
            k = occurring(a, seg.hyp_text)
            if k is None:
                if self.penalize_misses:
                    lo += len(a.candidates) * len(a.rankings)
                continue
            hits += 1
            for ranks in a.rankings:
                dw, dl, dt = compare(ranks, k)
                w += dw
                lo += dl
                t += dt
        return np.array([w, lo, t, hits, n], dtype=np.float64)

    def score(self, stats: np.ndarray) -> MeasureScore:
        w, lo, t, hits, n = (float(x) for x in np.asarray(stats, dtype=np.float64)[:5])
        v = ratio(w, lo)
        hit_rate = hits / n if n else math.nan
        details = {"score": v, "wins": w, "losses": lo, "ties": t, "hits": hits,
                   "segments": n, "hit-rate": hit_rate}
        return MeasureScore(self.name, v, {self.column: v, f"{self.column} hit rate": hit_rate},
                            details)
