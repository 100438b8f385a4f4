"""Dice coefficient of candidate and reference words (survey §4.4.6; Jianmin et al. 2002).

``Dice(s1, s2) = 2 |s1 ∩ s2| / (|s1| + |s2|)``: a position-independent similarity,
higher is better, in [0, 1].

Choices where the survey is silent (documented, tested):

* **Multisets.** The "element sets" are the words of each sentence counted with their
  multiplicity (the run's tokenisation and case); ``|s1 ∩ s2|`` = Σ_w min(c1(w), c2(w)).
  For sentences without repeated words this is the set formula; with repetitions it
  does not reward a word more often than the reference has it (as BLEU's clipping).
* **Several references:** the reference with the highest Dice counts (ties: the earlier).
* **Statistics** ``[common, hypothesis_length, reference_length]`` add up; the system
  Dice is ``2 Σ common / (Σ |hyp| + Σ |ref|)`` (a micro average, as the other measures).
  Both sides empty: Dice = 1 (identical); a segment without references has zero
  statistics and does not count.
* **Alignment shown:** the bag matching of PER (each candidate word matched to the
  earliest unmatched identical reference word; the rest as insertions/deletions).

Opt-in (``--measures dice``): not part of the default run.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import bag_alignment_ops
from evaltrans_qt.engine.measures.alignment import Alignment
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment

STATS = ["common", "hypothesis_length", "reference_length"]


def dice_counts(hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``[|hyp ∩ ref|, |hyp|, |ref|]`` with multiset intersection."""
    ch = Counter(np.asarray(hyp).tolist())
    cr = Counter(np.asarray(ref).tolist())
    common = sum(min(n, cr[w]) for w, n in ch.items())
    return np.array([common, len(hyp), len(ref)], dtype=np.float64)


def dice_values(stats: np.ndarray) -> np.ndarray:
    """Dice of each row: 2 common / (|hyp| + |ref|); 1 where both are empty."""
    st = np.atleast_2d(np.asarray(stats, dtype=float))
    total = st[:, 1] + st[:, 2]
    return np.where(total > 0, 2.0 * st[:, 0] / np.where(total > 0, total, 1.0), 1.0)


@register
class Dice(Measure):
    """Dice coefficient of the candidate's and the best reference's words."""

    name = "dice"
    long_name = "Dice coefficient"
    report_element = "dice"
    higher_is_better = True
    source = "survey §4.4.6 (Dice = 2|s1 ∩ s2| / (|s1| + |s2|)); Jianmin et al. 2002"
    column = "Dice"
    default_enabled = False

    @property
    def stat_names(self) -> list[str]:
        return list(STATS)

    def _best(self, seg: Segment) -> tuple[int, np.ndarray | None]:
        if not seg.refs:
            return -1, None
        counts = np.array([dice_counts(seg.hyp, r) for r in seg.refs])
        b = int(np.argmax(dice_values(counts)))
        return b, counts[b]

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        _, counts = self._best(seg)
        return np.zeros(len(STATS)) if counts is None else counts

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        return dice_values(stats)

    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=float)
        value = float(dice_values(st[None, :])[0])
        details = {"score": value, "score-percent": 100.0 * value, "common": float(st[0]),
                   "hypothesis-length": float(st[1]), "reference-length": float(st[2])}
        return MeasureScore(self.name, value, {self.column: value}, details)

    def reference_distances(self, seg: Segment) -> list[float] | None:
        """Words of each reference not matched by the candidate (|ref| − common)."""
        return [float(c[2] - c[0]) for c in (dice_counts(seg.hyp, r) for r in seg.refs)]

    def align(self, seg: Segment) -> Alignment | None:
        b, counts = self._best(seg)
        if counts is None:
            return None
        ops = bag_alignment_ops(seg.hyp, seg.refs[b], substitutions=False)
        vocab = self.vocab
        words = (lambda ids: tuple(vocab.decode(ids))) if vocab is not None else \
            (lambda ids: tuple(str(int(x)) for x in ids))
        return Alignment(self.name, words(seg.hyp), words(seg.refs[b]),
                         float(sum(o.cost for o in ops)), tuple(ops), (), b)
