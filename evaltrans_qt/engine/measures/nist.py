"""NIST score (thesis section 3.2, eq. 3.8-3.11; eq. 5.8).

Information weights Info(e^m) = log2(N(e^{m-1}) / N(e^m)) (eq. 3.8) are counted
over *all* references of the whole test set in :meth:`NIST.fit` (as mteval
does); the unigram prefix count is the total number of reference words. With
initial sentence boundaries the prefix ``<s> … <s>`` of a sentence-initial
m-gram counts once per reference sentence (eq. 5.8).

Sufficient statistics per segment (they add up):
``[hyp_len, ref_len, info_1..M, correct_1..M, total_1..M]`` with
info_m = Σ n∩ · Info over the clipped co-occurring m-grams, correct_m = n∩_m,
total_m = N_m. NIST = lp · Σ_m info_m / N_m (eq. 3.9, a term with N_m = 0
counts 0), lp = exp(β · log²(min(1, I/L*))) with β chosen so that lp = ½ at
I = ⅔ L* (eq. 3.10; the β printed as eq. 3.11 does not satisfy this, a
misprint; this is mteval's β). L* per ``nist-ref-length-rule``
(default average, eq. 5.1, as mteval).

Report elements ("analogously to BLEU", Figure A.3): ``score-unpenalized``,
``score``, ``length-penalty``, ``candidate-length``, ``reference-length``;
one ``<n-gram n="m">`` per order with ``part`` (info_m / N_m, the m-gram part
of the sum), ``information`` (info_m), ``correct``, ``total``; with
``all-ngrams`` also ``score-unpenalized``/``score`` of NIST with M = m.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.ngrams import NgramTable, build_table, clipped_counts, pad_flags
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.measures.bleu import reference_lengths
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.errors import ScoreError

#: lp(2/3) = 1/2 (eq. 3.10 with β from its definition; mteval-v13a nist_length_penalty).
_BETA = -math.log(0.5) / math.log(1.5) / math.log(1.5)


def length_penalty(hyp_len: float, ref_len: float) -> float:
    """lp_NIST (eq. 3.10): 1 if I >= L*, 0 for an empty candidate, ½ at I = ⅔ L*."""
    if hyp_len <= 0:
        return 0.0
    if hyp_len >= ref_len:
        return 1.0
    ratio = hyp_len / ref_len
    return math.exp(-_BETA * math.log(ratio) * math.log(ratio))


def unpenalized(info: Sequence[float], total: Sequence[float], max_order: int | None = None) -> float:
    """Σ_m info_m / N_m (eq. 3.9 without lp)."""
    M = len(info) if max_order is None else max_order
    return sum(info[m] / total[m] for m in range(M) if total[m] > 0)


@register
class NIST(Measure):
    """NIST score with information weights over the test set's references (higher is better)."""

    name = "nist"
    long_name = "NIST score"
    report_element = "nist"
    higher_is_better = True
    source = "thesis section 3.2, eq. 3.8-3.10; eq. 5.8; Tables A.4, A.5"

    def __init__(self, options: EvalOptions | None = None) -> None:
        super().__init__(options)
        self.max_order = self.options.nist_max_ngram
        self.pad_rule = self.options.nist_pad_rule
        self.ref_rule = self.options.nist_ref_length_rule
        self.all_ngrams = self.options.all_ngrams
        pad_flags(self.pad_rule)
        self._table: NgramTable | None = None
        self._weights: np.ndarray | None = None

    @property
    def stat_names(self) -> list[str]:
        r = range(1, self.max_order + 1)
        return (["hyp_len", "ref_len"] + [f"info_{m}" for m in r] + [f"correct_{m}" for m in r]
                + [f"total_{m}" for m in r])

    def fit(self, segments: Sequence[Segment], vocab: Vocabulary) -> None:
        """Count the m-grams of all references of the test set; info weights by eq. 3.8/5.8."""
        super().fit(segments, vocab)
        refs = [r for s in segments for r in s.refs]
        self._table = build_table(refs, self.max_order, self.pad_rule)
        self._weights = self._table.info_weights()

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        M = self.max_order
        out = np.zeros((len(segments), 2 + 3 * M), dtype=np.float64)
        if not segments:
            return out
        if self._table is None:
            raise ScoreError("NIST needs the whole test set first (fit()) for its information weights")
        hyps = [s.hyp for s in segments]
        refs = [s.refs for s in segments]
        correct, total, info, missing = clipped_counts(hyps, refs, M, self.pad_rule, self._table,
                                                      self._weights)
        if missing:
            raise ScoreError("NIST: some references were not part of the test set given to fit()")
        out[:, 0], out[:, 1] = reference_lengths(hyps, refs, self.ref_rule)
        out[:, 2:2 + M] = info
        out[:, 2 + M:2 + 2 * M] = correct
        out[:, 2 + 2 * M:] = total
        return out

    def score(self, stats: np.ndarray) -> MeasureScore:
        M = self.max_order
        st = np.asarray(stats, dtype=np.float64)
        hyp_len, ref_len = float(st[0]), float(st[1])
        info = [float(x) for x in st[2:2 + M]]
        correct = [float(x) for x in st[2 + M:2 + 2 * M]]
        total = [float(x) for x in st[2 + 2 * M:2 + 3 * M]]
        lp = length_penalty(hyp_len, ref_len)
        u = unpenalized(info, total)
        details: dict = {"score-unpenalized": u, "score": lp * u, "length-penalty": lp,
                         "candidate-length": hyp_len, "reference-length": ref_len}
        parts = []
        for m in range(1, M + 1):
            part: dict = {"part": info[m - 1] / total[m - 1] if total[m - 1] > 0 else 0.0,
                          "information": info[m - 1], "correct": correct[m - 1],
                          "total": total[m - 1]}
            if self.all_ngrams:
                um = unpenalized(info, total, m)
                part["score-unpenalized"] = um
                part["score"] = lp * um
            parts.append(({"n": m}, part))
        details["n-gram"] = parts
        return MeasureScore(self.name, details["score"], {"NIST": details["score"]}, details)
