"""GLEU for grammatical error correction (Napoles et al. 2015, "Ground Truth for
Grammatical Error Correction Metrics", §4; "GLEU Without Tuning", 2016), as compare-mt
computes it (``compare_mt/scorers.py`` GleuScorer), which uses the *source*.

For n = 1..4 the candidate's n-grams are credited when they are in the reference and
penalised when they are in the source but not in the reference:
p_n = max(0, |h ∩ r| - |(h ∩ s) \\ (h ∩ r)|) / |h| (multiset counts). The score is
BP · exp(Σ_n ¼ log p_n) with BP = min(1, exp(1 - |r| / |h|)) (0 for an empty candidate);
over a corpus the numerators, denominators and lengths are summed first, and any zero
among the summed numerators or denominators gives 0 (compare-mt, after Napoles' gleu.py).
A single sentence is scored as compare-mt's ``score_sentence``: each numerator and
denominator raised to at least 1 -- here every statistics row of one sentence (so a
"corpus" of one sentence gets the sentence smoothing too).

Statistics (they add up): reference length, candidate length, (numerator, denominator)
for n = 1..4, and the number of sentences. compare-mt scores one reference; with several,
the reference whose smoothed sentence GLEU is highest counts (the first on ties). Words are
the run's tokens; the source is tokenised the same way. Without the source (a caller that
has none) GLEU is refused rather than computed as something else.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.text.preprocess import tokenize
from evaltrans_qt.errors import ScoreError

ORDER = 4
WEIGHTS = (0.25, 0.25, 0.25, 0.25)


def _ngrams(words: Sequence[str], n: int) -> Counter:
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def gleu_stats(hyp: Sequence[str], ref: Sequence[str], src: Sequence[str]) -> np.ndarray:
    """compare-mt's ``cache_stats`` of one sentence, flat: ``[|r|, |h|, num_1, den_1, ...,
    num_4, den_4, 1]``."""
    out = [float(len(ref)), float(len(hyp))]
    for n in range(1, ORDER + 1):
        h, r, s = _ngrams(hyp, n), _ngrams(ref, n), _ngrams(src, n)
        h_r = h & r
        h_s = h & s
        num = sum(h_r.values()) - sum((h_s - h_r).values())
        out += [float(max(num, 0)), float(sum(h.values()))]
    out.append(1.0)
    return np.array(out)


def gleu_value(stats: np.ndarray) -> float:
    """GLEU (fraction) of a statistics row: compare-mt's ``score_cached_corpus``, after
    ``score_sentence``'s smoothing when the row is one sentence."""
    st = np.asarray(stats, dtype=float)
    ref_len, out_len, sentences = float(st[0]), float(st[1]), float(st[-1])
    pairs = [(float(st[2 + 2 * k]), float(st[3 + 2 * k])) for k in range(ORDER)]
    if sentences == 1:
        pairs = [(max(a, 1.0), max(b, 1.0)) for a, b in pairs]
    if sentences == 0 or any(a == 0 or b == 0 for a, b in pairs):
        return 0.0
    prec = 0.0
    for (num, den), w in zip(pairs, WEIGHTS):
        prec += math.log(num / den) * w
    bp = min(1, math.exp(1 - ref_len / out_len)) if out_len != 0 else 0
    return bp * math.exp(prec)


@register
class GLEU(Measure):
    """GLEU (uses the source) as compare-mt computes it; higher is better."""

    name = "gleu"
    long_name = "GLEU (n-gram precision crediting the reference, penalising the source)"
    report_element = "gleu"
    higher_is_better = True
    default_enabled = False
    source = "Napoles et al. 2015 §4; compare-mt GleuScorer"

    @property
    def stat_names(self) -> list[str]:
        names = ["ref_len", "hyp_len"]
        for n in range(1, ORDER + 1):
            names += [f"num_{n}", f"den_{n}"]
        return [*names, "sentences"]

    def _tokens(self, ids: np.ndarray) -> list[str]:
        if self.vocab is not None:
            return self.vocab.decode(ids)
        return [str(int(i)) for i in ids]

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        if not seg.refs:
            return np.zeros(len(self.stat_names))
        if seg.src_text is None:
            raise ScoreError("GLEU needs the source sentence of every candidate, and this "
                             "caller gave none (GLEU is computed in runs on a database or "
                             "with a source given)")
        o = self.options
        src = tokenize(seg.src_text, o.tokenization, o.case)
        hyp = self._tokens(seg.hyp)
        best, best_value = np.zeros(0), -1.0
        for ref in seg.refs:
            st = gleu_stats(hyp, self._tokens(ref), src)
            v = gleu_value(st)
            if v > best_value:
                best, best_value = st, v
        return best

    def score(self, stats: np.ndarray) -> MeasureScore:
        value = gleu_value(stats)
        st = np.asarray(stats, dtype=float)
        details = {"score": value, "score-percent": 100.0 * value,
                   "reference-length": float(st[0]), "hypothesis-length": float(st[1]),
                   "sentences": float(st[-1])}
        return MeasureScore(self.name, value, {"GLEU": value}, details)
