"""RIBES (Isozaki et al. 2010, "Automatic Evaluation of Translation Quality for Distant
Language Pairs", §3), as compare-mt computes it (``compare_mt/scorers.py`` RibesScorer,
``align_utils.ngram_context_align``).

Word alignment (Isozaki et al. §3.1): each candidate word found in the reference is
aligned where it is unique in both sentences, else by the shortest n-gram around it
(extended to the left first, then to the right, for n = 2, 3, ...) that is unique in both;
words without such an n-gram stay unaligned. The score of a sentence is
NKT · P^α · BP^β with NKT the normalised Kendall's τ of the aligned reference positions
(the share of increasing pairs; 0 for fewer than two aligned words), P the share of
candidate words aligned and BP = min(1, exp(1 - |ref| / |hyp|)); α = 0.25, β = 0.1,
n-grams up to the reference length (compare-mt's defaults). An empty candidate or
reference scores 0 (compare-mt fails on an empty reference).

compare-mt scores one reference; with several, the best sentence score counts (as
Isozaki's RIBES.py). The system score is the mean of the sentence scores (compare-mt's
``SentenceFactoredScorer``). Statistics: the sentence score and 1 (they add up).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.alignment import Alignment, EditOp, OpKind
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment

ALPHA, BETA = 0.25, 0.1


def _grams(sent: Sequence[int], order: int) -> tuple[Counter, dict]:
    """Count and first start position of every n-gram (n <= order) of ``sent``."""
    count: Counter = Counter()
    start: dict = {}
    for i in range(len(sent)):
        for n in range(1, min(i + 1, order) + 1):
            g = tuple(sent[i - n + 1:i + 1])
            count[g] += 1
            start.setdefault(g, i - n + 1)
    return count, start


def context_align(ref: Sequence[int], out: Sequence[int], order: int = -1
                  ) -> list[tuple[int, int]]:
    """compare-mt's ``ngram_context_align`` as (candidate position, reference position)
    pairs in candidate order (compare-mt keeps the reference positions only)."""
    ref, out = list(ref), list(out)
    order = len(ref) if order == -1 else order
    if order < 1 or not out:
        return []
    r_count, r_start = _grams(ref, order)
    o_count, _ = _grams(out, order)

    def unique(g: tuple) -> bool:
        return r_count[g] == 1 and o_count[g] == 1

    pairs = []
    for i, w in enumerate(out):
        if r_count[(w,)] == 0:
            continue
        if unique((w,)):
            pairs.append((i, r_start[(w,)]))
            continue
        for j in range(1, order):
            if i - j >= 0:
                g = tuple(out[i - j:i + 1])
                if unique(g):
                    pairs.append((i, r_start[g] + j))
                    break
            if i + j < len(out):
                g = tuple(out[i:i + j + 1])
                if unique(g):
                    pairs.append((i, r_start[g]))
                    break
    return pairs


def kendall_tau_distance(positions: Sequence[int]) -> float:
    """compare-mt's ``_kendall_tau_distance``: the share of increasing pairs (NKT)."""
    n = len(positions)
    if n <= 1:
        return 0.0
    dis = sum(1 for i in range(n) for j in range(i + 1, n) if positions[j] > positions[i])
    return 2 * dis / (n * n - n)


def ribes_sentence(ref: Sequence[int], out: Sequence[int], alpha: float = ALPHA,
                   beta: float = BETA) -> tuple[float, list[tuple[int, int]]]:
    """(score in [0, 1], alignment) of one candidate against one reference."""
    pairs = context_align(ref, out) if len(ref) else []
    kt = kendall_tau_distance([r for _, r in pairs])
    if not out:
        return 0.0, pairs
    prec = len(pairs) / len(out)
    bp = min(1, math.exp(1 - len(ref) / len(out)))
    return kt * (prec ** alpha) * (bp ** beta), pairs


@register
class RIBES(Measure):
    """RIBES as compare-mt computes it; higher is better."""

    name = "ribes"
    long_name = "RIBES (rank-based intuitive bilingual evaluation score)"
    report_element = "ribes"
    higher_is_better = True
    default_enabled = False
    source = "Isozaki et al. 2010 §3; compare-mt RibesScorer"

    @property
    def stat_names(self) -> list[str]:
        return ["score", "sentences"]

    def _best(self, seg: Segment) -> tuple[int, float, list[tuple[int, int]]]:
        best: tuple[int, float, list[tuple[int, int]]] = (-1, -1.0, [])
        for k, ref in enumerate(seg.refs):
            v, pairs = ribes_sentence(ref.tolist(), seg.hyp.tolist())
            if v > best[1]:
                best = (k, v, pairs)
        return best

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        if not seg.refs:
            return np.zeros(2)
        return np.array([self._best(seg)[1], 1.0])

    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=float)
        value = float(st[0] / st[1]) if st[1] > 0 else 0.0
        return MeasureScore(self.name, value, {"RIBES": value},
                            {"score": value, "score-percent": 100.0 * value,
                             "sentences": float(st[1])})

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        return np.where(st[:, 1] > 0, st[:, 0] / np.where(st[:, 1] > 0, st[:, 1], 1.0), 0.0)

    def align(self, seg: Segment) -> Alignment | None:
        if not seg.refs:
            return None
        k, value, pairs = self._best(seg)
        ref = seg.refs[k]
        by_ref = {r: h for h, r in pairs}
        ops = [EditOp(OpKind.MATCH, by_ref[r], r, 0.0) if r in by_ref
               else EditOp(OpKind.DEL, None, r, 1.0) for r in range(len(ref))]
        aligned = set(by_ref.values())
        ops += [EditOp(OpKind.INS, h, None, 1.0) for h in range(len(seg.hyp)) if h not in aligned]

        def words(ids: np.ndarray) -> tuple[str, ...]:
            if self.vocab is not None:
                return tuple(self.vocab.decode(ids))
            return tuple(str(int(i)) for i in ids)

        return Alignment(self.name, words(seg.hyp), words(ref),
                         float(sum(o.cost for o in ops)), tuple(ops), (), k,
                         {"score": value,
                          "kendall_tau": kendall_tau_distance([r for _, r in pairs])})
