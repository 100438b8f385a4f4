"""chrF: character n-gram F-score (Popović 2015) exactly as sacreBLEU's ``CHRF``.

Defaults of sacreBLEU: character orders 1..6, no word n-grams, β = 2,
whitespace removed, case kept (``--case ignore`` lower-cases as sacreBLEU's
``lowercase=True``). It works on the raw texts ``seg.hyp_text`` /
``seg.ref_texts``, not on the word tokens.

Sufficient statistics (sacreBLEU's, they add up): for each order n
``[hyp_n, ref_n, match_n]`` of the reference with the best sentence chrF
(sacreBLEU ``CHRF._compute_segment_statistics``). The score from statistics
is sacreBLEU's own ``CHRF._compute_f_score``; only the counting runs in our
compiled m-gram kernel over Unicode code points (sacreBLEU's pure-Python
counting would take longer than everything else of the batch run together).
The tests compare the statistics with sacreBLEU's segment by segment.

Report elements: ``score`` (fraction), ``score-percent``, and per order
``<n-gram n="n">`` with ``precision``, ``recall``, ``hypothesis``,
``reference``, ``match``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import CHRF as SacreCHRF

from evaltrans_qt.engine.kernels.ngrams import clipped_counts
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import ScoreError

CHAR_ORDER = 6
BETA = 2


def char_ids(text: str, lowercase: bool = False) -> np.ndarray:
    """Code points of ``text`` without whitespace (sacreBLEU ``extract_all_char_ngrams``)."""
    if lowercase:
        text = text.lower()
    return np.frombuffer("".join(text.split()).encode("utf-32-le"), dtype=np.int32)


def f_scores(stats: np.ndarray, beta: int = BETA) -> np.ndarray:
    """sacreBLEU ``CHRF._compute_f_score`` for many rows at once (same operations, same floats)."""
    stats = np.asarray(stats, dtype=np.float64)
    rows, order = stats.shape[0], stats.shape[1] // 3
    factor = beta ** 2
    avg_prec = np.zeros(rows)
    avg_rec = np.zeros(rows)
    eff = np.zeros(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(order):
            n_hyp, n_ref, n_match = stats[:, 3 * i], stats[:, 3 * i + 1], stats[:, 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / n_hyp, 1e-16)
            rec = np.where(n_ref > 0, n_match / n_ref, 1e-16)
            ok = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(ok, avg_prec + prec, avg_prec)
            avg_rec = np.where(ok, avg_rec + rec, avg_rec)
            eff += ok
        avg_prec = np.where(eff > 0, avg_prec / eff, 0.0)
        avg_rec = np.where(eff > 0, avg_rec / eff, 0.0)
        num = (1 + factor) * avg_prec * avg_rec
        score = num / ((factor * avg_prec) + avg_rec)
    return np.where(avg_prec + avg_rec != 0, 100 * score, 0.0)


@register
class CHRF(Measure):
    """sacreBLEU's chrF (character 6-grams, β = 2); higher is better."""

    name = "chrf"
    long_name = "chrF (character n-gram F-score)"
    report_element = "chrf"
    higher_is_better = True
    source = "Popović 2015; sacreBLEU CHRF (char order 6, word order 0, beta 2)"

    def __init__(self, options: EvalOptions | None = None) -> None:
        super().__init__(options)
        self.lowercase = self.options.case == "ignore"
        self._sacre = SacreCHRF(char_order=CHAR_ORDER, word_order=0, beta=BETA,
                                lowercase=self.lowercase)

    @property
    def stat_names(self) -> list[str]:
        return [f"{kind}_{n}" for n in range(1, CHAR_ORDER + 1) for kind in ("hyp", "ref", "match")]

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        K = CHAR_ORDER
        out = np.zeros((len(segments), 3 * K), dtype=np.float64)
        hyps, refs, owner = [], [], []
        for k, seg in enumerate(segments):
            if len(seg.ref_texts) != len(seg.refs):
                raise ScoreError("chrF needs the raw reference texts of every segment")
            h = char_ids(seg.hyp_text, self.lowercase)
            for text in seg.ref_texts:
                hyps.append(h)
                refs.append(char_ids(text, self.lowercase))
                owner.append(k)
        if not refs:
            return out
        correct, total, _, _ = clipped_counts(hyps, [(r,) for r in refs], K, "none")
        n = np.arange(1, K + 1)
        ref_n = np.maximum(0, np.array([len(r) for r in refs])[:, None] - n[None, :] + 1)
        pair = np.zeros((len(refs), 3 * K), dtype=np.float64)
        pair[:, 0::3] = np.where(ref_n > 0, total, 0)  # sacreBLEU: no hyp count without ref n-grams
        pair[:, 1::3] = ref_n
        pair[:, 2::3] = correct
        f = f_scores(pair)
        owner_a = np.asarray(owner)
        best = np.full(len(segments), -1.0)
        for p in range(len(refs)):  # first reference with the strictly best f, as sacreBLEU
            k = owner_a[p]
            if f[p] > best[k]:
                best[k] = f[p]
                out[k] = pair[p]
        return out

    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=np.float64)
        value = self._sacre._compute_f_score(list(st)) / 100.0
        parts = []
        for i in range(CHAR_ORDER):
            hyp, ref, match = (float(x) for x in st[3 * i:3 * i + 3])
            parts.append(({"n": i + 1}, {"precision": match / hyp if hyp > 0 else 0.0,
                                         "recall": match / ref if ref > 0 else 0.0,
                                         "hypothesis": hyp, "reference": ref, "match": match}))
        details = {"score": value, "score-percent": 100.0 * value, "n-gram": parts}
        return MeasureScore(self.name, value, {"chrF": value}, details)
