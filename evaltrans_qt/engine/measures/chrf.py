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

from evaltrans_qt.engine.kernels.ngrams import pair_matches
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
        self._ref_cache: dict[str, np.ndarray] = {}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_ref_cache"] = {}          # not shipped to worker processes
        return state

    @property
    def stat_names(self) -> list[str]:
        return [f"{kind}_{n}" for n in range(1, CHAR_ORDER + 1) for kind in ("hyp", "ref", "match")]

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        K = CHAR_ORDER
        out = np.zeros((len(segments), 3 * K), dtype=np.float64)
        hyps, refs = [], []
        cache = self._ref_cache
        if len(cache) > 200_000:
            cache.clear()
        for seg in segments:
            if len(seg.ref_texts) != len(seg.refs):
                raise ScoreError("chrF needs the raw reference texts of every segment")
            hyps.append(char_ids(seg.hyp_text, self.lowercase))
            rs = []
            for text in seg.ref_texts:       # the same references recur for every system
                ids = cache.get(text)
                if ids is None:
                    ids = cache[text] = char_ids(text, self.lowercase)
                rs.append(ids)
            refs.append(rs)
        n_ref = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
        if not n_ref.sum():
            return out
        match = pair_matches(hyps, refs, K)
        n = np.arange(1, K + 1)
        hyp_len = np.repeat(np.fromiter(map(len, hyps), dtype=np.int64, count=len(hyps)), n_ref)
        ref_len = np.fromiter((len(r) for rs in refs for r in rs), dtype=np.int64,
                              count=int(n_ref.sum()))
        hyp_n = np.maximum(0, hyp_len[:, None] - n[None, :] + 1)
        ref_n = np.maximum(0, ref_len[:, None] - n[None, :] + 1)
        pair = np.zeros((len(ref_len), 3 * K), dtype=np.float64)
        pair[:, 0::3] = np.where(ref_n > 0, hyp_n, 0)  # sacreBLEU: no hyp count without ref n-grams
        pair[:, 1::3] = ref_n
        pair[:, 2::3] = match
        f = f_scores(pair)
        # per segment, the first reference with the strictly best f (sacreBLEU's loop)
        owner = np.repeat(np.arange(len(segments)), n_ref)
        order = np.lexsort((np.arange(len(f)), -f, owner))
        first = np.ones(len(order), dtype=bool)
        first[1:] = owner[order[1:]] != owner[order[:-1]]
        best = order[first]
        out[owner[best]] = pair[best]
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
