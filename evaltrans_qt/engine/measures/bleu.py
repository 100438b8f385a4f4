"""BLEU, BLEU-S and BLEU-S' (thesis section 3.1, eq. 3.1-3.7, T:382-435).

Sufficient statistics per segment, which add up over segments (as sacreBLEU's):
``[hyp_len, ref_len, correct_1..M, total_1..M]`` with the clipped m-gram
co-occurrence counts n∩_m (eq. 3.2, references pooled by eq. 3.1) and the
candidate m-gram counts N_m. The smoothed variants need nothing more: their
smoothing terms depend only on these counts, so a system score smooths the
summed counts and a sentence score smooths one row.

* genuine BLEU: s_m = 0 (eq. 3.4); if some N_m or n∩_m is 0 the score is 0
  (sacreBLEU ``corpus_bleu`` without effective order);
* BLEU-S: s_1 = 0, s_m>1 = 1 (eq. 3.6; = sacreBLEU ``add-k`` with k = 1);
* BLEU-S': s'_1 = 0, s'_m>1 = 0.5 if n∩_m = 0 else 0 (eq. 3.7);
* length penalty lp = min(1, exp(1 - L*/I)) (eq. 3.5), 0 for an empty candidate.

Lengths are unpadded word counts; sentence boundaries (``bleu-pad-rule``)
only add boundary m-grams. ``hyp_len``/``ref_len`` of a row: I_k and L*_k of
Table A.4 (``bleu-ref-length-rule``).

Report elements (Figure A.3, T:2060-2075): ``score-unpenalized``, ``score``,
``s-score-unpenalized``, ``s-score``, ``r-score-unpenalized``, ``r-score``,
``length-penalty``, plus ``candidate-length`` and ``reference-length``; one
``<n-gram n="m">`` per order with ``precision``, ``s-precision``,
``r-precision`` (the m-gram parts of BLEU, BLEU-S, BLEU-S'), ``correct``
(n∩_m) and ``total`` (N_m). With ``all-ngrams`` each ``<n-gram n="m">`` also
holds the six ``score…`` elements of the same measure with maximum order M = m.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.ngrams import clipped_counts, pad_flags
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.reflength import ngram_reference_length

#: Smoothing variants: genuine (eq. 3.4), BLEU-S (eq. 3.6), BLEU-S' (eq. 3.7).
VARIANTS = ("genuine", "s", "r")
_PREFIX = {"genuine": "", "s": "s-", "r": "r-"}


def precision(correct: float, total: float, m: int, variant: str) -> float:
    """Smoothed modified m-gram precision (n∩_m + s_m) / (N_m + s_m), 0 when undefined."""
    s = 0.0
    if m > 1:
        if variant == "s":
            s = 1.0
        elif variant == "r" and correct == 0:
            s = 0.5
    den = total + s
    return (correct + s) / den if den > 0 else 0.0


def unpenalized(correct: Sequence[float], total: Sequence[float], variant: str,
                max_order: int | None = None) -> float:
    """exp(Σ_m w_m log p_m) with w_m = 1/M (eq. 3.4); 0 if some p_m is 0."""
    M = len(correct) if max_order is None else max_order
    logs = 0.0
    for m in range(1, M + 1):
        p = precision(correct[m - 1], total[m - 1], m, variant)
        if p <= 0.0:
            return 0.0
        logs += math.log(p)
    return math.exp(logs / M)


def length_penalty(hyp_len: float, ref_len: float) -> float:
    """lp_BLEU = min(1, exp(1 - L*/I)) (eq. 3.5); 0 for an empty candidate."""
    if hyp_len <= 0:
        return 0.0
    if hyp_len >= ref_len:
        return 1.0
    return math.exp(1.0 - ref_len / hyp_len)


def reference_lengths(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]],
                      rule: str) -> tuple[np.ndarray, np.ndarray]:
    """Candidate lengths I_k and reference lengths L*_k (Table A.4), vectorised.

    Same values as :func:`evaltrans_qt.engine.reflength.ngram_reference_length`.
    """
    hyp_len = np.fromiter(map(len, hyps), dtype=np.int64, count=len(hyps))
    nref = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
    if len(hyps) == 0 or (nref == 0).any() or rule not in ("average", "minimum", "minimumNearest"):
        ref_len = [ngram_reference_length(int(h), [len(r) for r in rs], rule)
                   for h, rs in zip(hyp_len, refs)]
        return hyp_len.astype(np.float64), np.asarray(ref_len, dtype=np.float64)
    lens = np.fromiter((len(r) for rs in refs for r in rs), dtype=np.int64, count=int(nref.sum()))
    starts = np.zeros(len(refs), dtype=np.int64)
    np.cumsum(nref[:-1], out=starts[1:])
    if rule == "average":
        ref_len = np.add.reduceat(lens, starts) / nref
    elif rule == "minimum":
        ref_len = np.minimum.reduceat(lens, starts)
    else:  # minimumNearest: closest length, ties to the shorter (eq. 5.2)
        big = int(lens.max()) + 1
        key = np.abs(np.repeat(hyp_len, nref) - lens) * big + lens
        ref_len = np.minimum.reduceat(key, starts) % big
    return hyp_len.astype(np.float64), np.asarray(ref_len, dtype=np.float64)


def ngram_stats(segments: Sequence[Segment], max_order: int, pad_rule: str, ref_rule: str
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(hyp_len, ref_len, correct, total) of BLEU for each segment."""
    hyps = [s.hyp for s in segments]
    refs = [s.refs for s in segments]
    correct, total, _, _ = clipped_counts(hyps, refs, max_order, pad_rule)
    hyp_len, ref_len = reference_lengths(hyps, refs, ref_rule)
    return hyp_len, ref_len, correct, total


@register
class BLEU(Measure):
    """BLEU with its smoothed variants BLEU-S and BLEU-S' (higher is better)."""

    name = "bleu"
    long_name = "BLEU (BiLingual Evaluation Understudy)"
    report_element = "bleu"
    higher_is_better = True
    source = "thesis section 3.1, eq. 3.1-3.7 (T:382-435); Tables A.4, A.5"

    def __init__(self, options: EvalOptions | None = None) -> None:
        super().__init__(options)
        self.max_order = self.options.max_ngram
        self.pad_rule = self.options.bleu_pad_rule
        self.ref_rule = self.options.bleu_ref_length_rule
        self.all_ngrams = self.options.all_ngrams
        pad_flags(self.pad_rule)

    @property
    def stat_names(self) -> list[str]:
        M = self.max_order
        return (["hyp_len", "ref_len"] + [f"correct_{m}" for m in range(1, M + 1)]
                + [f"total_{m}" for m in range(1, M + 1)])

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        M = self.max_order
        out = np.zeros((len(segments), 2 + 2 * M), dtype=np.float64)
        if not segments:
            return out
        hyp_len, ref_len, correct, total = ngram_stats(segments, M, self.pad_rule, self.ref_rule)
        out[:, 0] = hyp_len
        out[:, 1] = ref_len
        out[:, 2:2 + M] = correct
        out[:, 2 + M:] = total
        return out

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        """Genuine BLEU (the headline) of many rows at once: lp_BLEU * exp(mean log p_m),
        0 if some p_m is 0 (thesis eq. 3.4, 3.5; as :meth:`score`)."""
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        M = self.max_order
        hyp, ref = st[:, 0], st[:, 1]
        correct, total = st[:, 2:2 + M], st[:, 2 + M:2 + 2 * M]
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(total > 0, correct / np.where(total > 0, total, 1.0), 0.0)
            ok = (p > 0).all(axis=1)
            logs = np.log(np.where(p > 0, p, 1.0)).sum(axis=1)
            u = np.where(ok, np.exp(logs / M), 0.0)
            lp = np.where(hyp <= 0, 0.0,
                          np.where(hyp >= ref, 1.0, np.exp(1.0 - ref / np.where(hyp > 0, hyp, 1.0))))
        return lp * u

    def score(self, stats: np.ndarray) -> MeasureScore:
        M = self.max_order
        st = np.asarray(stats, dtype=np.float64)
        hyp_len, ref_len = float(st[0]), float(st[1])
        correct = [float(x) for x in st[2:2 + M]]
        total = [float(x) for x in st[2 + M:2 + 2 * M]]
        lp = length_penalty(hyp_len, ref_len)
        details: dict = {}
        for v in VARIANTS:
            u = unpenalized(correct, total, v)
            details[f"{_PREFIX[v]}score-unpenalized"] = u
            details[f"{_PREFIX[v]}score"] = lp * u
        details["length-penalty"] = lp
        details["candidate-length"] = hyp_len
        details["reference-length"] = ref_len
        parts = []
        for m in range(1, M + 1):
            part: dict = {f"{_PREFIX[v]}precision": precision(correct[m - 1], total[m - 1], m, v)
                          for v in VARIANTS}
            part["correct"] = correct[m - 1]
            part["total"] = total[m - 1]
            if self.all_ngrams:
                for v in VARIANTS:
                    u = unpenalized(correct, total, v, m)
                    part[f"{_PREFIX[v]}score-unpenalized"] = u
                    part[f"{_PREFIX[v]}score"] = lp * u
            parts.append(({"n": m}, part))
        details["n-gram"] = parts
        columns = {"BLEU": details["score"], "BLEU-S": details["s-score"],
                   "BLEU-S'": details["r-score"]}
        return MeasureScore(self.name, details["score"], columns, details)
