"""The score an analysis compares systems by: compare-mt's BLEU by default, or any measure of
the registry.

* ``comparemt-bleu`` (the default) -- compare-mt 0.2.10's defaults (``scorers.py``): the
  corpus score is ``BleuScorer`` (score_type ``bleu``: clipped n-gram counts of one
  reference, n = 1..4 with weights 1/4; a sentence's n-gram total is ``max(1, total)``;
  0 when no unigram matches; an order with precision 0 adds log 1 = 0; brevity penalty
  ``min(1, exp(1 - r/c))``; times 100), the sentence score ``SentBleuScorer`` (score_type
  ``sentbleu``: NLTK ``sentence_bleu`` with Chen & Cherry's method 2 -- Lin & Och 2004's
  add-one on the orders n >= 2 -- times 100; computed here from the same clipped counts,
  vectorised, equal to NLTK's to rounding). Both work on the analysis' tokens.
* any registry measure (``bleu``, ``chrf``, ``ter``, ``wer``, ...) -- the measure with the
  run's options against the analysis' one reference (``engine.run.scoring.Scorer``), in
  sacreBLEU's display unit (percent for BLEU, chrF and error rates).

Every measure gives per-sentence sufficient statistics that add up, a batch score of summed
rows (for the paired bootstrap of ``engine/metaeval/significance.py``) and sentence scores.
compare-mt's ``length`` score (``LengthScorer``: output words over reference words) is
:func:`length_ratio_stats`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from evaltrans_qt.engine.analysis.corpus import AnalysisCorpus, Tokens
from evaltrans_qt.engine.analysis.ngram_diff import CorpusNgrams, corpus_ngrams
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import OptionError

#: The default analysis measure (compare-mt's BLEU and sentence BLEU).
COMPAREMT_BLEU = "comparemt-bleu"
#: compare-mt's BLEU order and weights (``BleuScorer(weights=(0.25,) * 4)``).
BLEU_ORDER = 4
#: compare-mt's ``global_scorer_scale``.
COMPAREMT_SCALE = 100.0
COMPAREMT_VERSION = "0.2.10"


@dataclass(frozen=True)
class AnalysisMeasure:
    """A measure as the analysis uses it.

    ``stats(corpus, system)`` gives (n x k) sufficient statistics; ``batch_score`` maps
    (B x k) summed rows to B scores; ``sentence_scores(corpus, system)`` one score per
    sentence; ``empty_score`` is the score of a bucket without sentences. Scores are in
    ``unit`` (``"percent"`` or ``"value"``); ``signature`` names everything behind them.
    """

    name: str
    long_name: str
    higher_is_better: bool
    signature: str
    stats: Callable[[AnalysisCorpus, str], np.ndarray]
    batch_score: Callable[[np.ndarray], np.ndarray]
    sentence_scores: Callable[[AnalysisCorpus, str], np.ndarray]
    empty_score: float = math.nan
    scale: float = COMPAREMT_SCALE

    def corpus_score(self, rows: np.ndarray) -> float:
        """The score of the sentences ``rows`` (summed statistics), ``empty_score`` if none."""
        rows = np.asarray(rows, float)
        if rows.shape[0] == 0:
            return self.empty_score
        return float(self.batch_score(rows.sum(axis=0)[None, :])[0])


# ------------------------------------------------------------------ compare-mt's BLEU
def bleu_rows(ngrams: CorpusNgrams, system: str, ref: Sequence[Tokens],
              out: Sequence[Tokens]) -> np.ndarray:
    """compare-mt ``BleuScorer.cache_stats`` of every sentence as flat rows
    ``[ref_len, out_len, num_1..4, denom_1..4]``: ``num_n`` the clipped n-gram matches,
    ``denom_n = max(1, total_n)`` (``BleuScorer._precision``; NLTK's ``modified_precision``
    has the same numerator and denominator), from ``ngrams`` (lengths 1..4)."""
    num, tot = ngrams.order_sums(system)
    lengths = np.column_stack([np.fromiter(map(len, ref), float, len(ref)),
                               np.fromiter(map(len, out), float, len(out))])
    return np.column_stack([lengths, num[:, :BLEU_ORDER], np.maximum(tot[:, :BLEU_ORDER], 1.0)])


def comparemt_bleu_stats(ref: Sequence[Tokens], out: Sequence[Tokens]) -> np.ndarray:
    """(n x 10) :func:`bleu_rows` of token lists."""
    return bleu_rows(CorpusNgrams(ref, {"out": out}, BLEU_ORDER), "out", ref, out)


def comparemt_bleu_score(sums: np.ndarray) -> np.ndarray:
    """compare-mt ``BleuScorer.score_cached_corpus`` of each row of summed statistics
    (B x 10), times :data:`COMPAREMT_SCALE`."""
    s = np.atleast_2d(np.asarray(sums, float))
    ref_len, out_len = s[:, 0], s[:, 1]
    num, den = s[:, 2:2 + BLEU_ORDER], s[:, 2 + BLEU_ORDER:2 + 2 * BLEU_ORDER]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(den != 0, num / np.where(den != 0, den, 1), 0.0)
        logp = np.where(p > 0, np.log(np.where(p > 0, p, 1)), 0.0)
        prec = np.zeros(len(s))
        for i in range(BLEU_ORDER):            # in compare-mt's order: prec += p * w
            prec = prec + logp[:, i] * (1.0 / BLEU_ORDER)
        bp = np.where(out_len != 0,
                      np.minimum(1.0, np.exp(1 - ref_len / np.where(out_len != 0, out_len, 1))),
                      0.0)
    score = COMPAREMT_SCALE * bp * np.exp(prec)
    return np.where(num[:, 0] == 0, 0.0, score)


def sentbleu_scores(rows: np.ndarray) -> np.ndarray:
    """compare-mt ``SentBleuScorer.score_sentence`` of each :func:`bleu_rows` row: NLTK
    ``sentence_bleu([ref], out)`` smoothed by Chen & Cherry's method 2 (``method2``: p_1 =
    num_1 / denom_1, p_n = (num_n + 1) / (denom_n + 1) for n >= 2), 0 without a unigram match;
    ``exp(sum 1/4 log p_n)`` times NLTK's ``brevity_penalty`` (1 if c > r, 0 if c = 0,
    else exp(1 - r/c)); times :data:`COMPAREMT_SCALE`."""
    r = np.atleast_2d(np.asarray(rows, float))
    ref_len, out_len = r[:, 0], r[:, 1]
    num = r[:, 2:2 + BLEU_ORDER].copy()
    den = r[:, 2 + BLEU_ORDER:2 + 2 * BLEU_ORDER].copy()
    num[:, 1:] += 1
    den[:, 1:] += 1
    ok = num[:, 0] > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.where(ok[:, None], num / den, 1.0)) * (1.0 / BLEU_ORDER)
        bp = np.where(out_len > ref_len, 1.0,
                      np.where(out_len == 0, 0.0,
                               np.exp(1 - ref_len / np.where(out_len == 0, 1, out_len))))
    total = np.array([math.fsum(row) for row in logs.tolist()])
    return np.where(ok, COMPAREMT_SCALE * bp * np.exp(total), 0.0)


def sentbleu(ref: Tokens, out: Tokens) -> float:
    """:func:`sentbleu_scores` of one sentence."""
    return float(sentbleu_scores(comparemt_bleu_stats([ref], [out]))[0])


def _cmt_stats(corpus: AnalysisCorpus, system: str) -> np.ndarray:
    key = ("comparemt-bleu", system)
    got = corpus.cache.get(key)
    if got is None:
        got = corpus.cache[key] = bleu_rows(corpus_ngrams(corpus, BLEU_ORDER), system,
                                            corpus.ref, corpus.outs[system])
    assert isinstance(got, np.ndarray)
    return got


def _cmt_sentences(corpus: AnalysisCorpus, system: str) -> np.ndarray:
    return sentbleu_scores(_cmt_stats(corpus, system))


# ------------------------------------------------------------------ length ratio
def length_ratio_stats(ref: Sequence[Tokens], out: Sequence[Tokens]) -> np.ndarray:
    """Rows ``[out_len, ref_len]``: compare-mt ``LengthScorer`` is their summed ratio."""
    return np.array([[len(o), len(r)] for r, o in zip(ref, out)], float).reshape(len(ref), 2)


def length_ratio(sums: np.ndarray) -> np.ndarray:
    """compare-mt ``LengthScorer.score_corpus``: output words / reference words (0 without
    reference words)."""
    s = np.atleast_2d(np.asarray(sums, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s[:, 1] != 0, s[:, 0] / np.where(s[:, 1] != 0, s[:, 1], 1), 0.0)


# ------------------------------------------------------------------ measures
def _signature(corpus: AnalysisCorpus, name: str) -> str:
    from evaltrans_qt.engine.run.signature import tokenizer_signature
    return (f"{name}|nrefs:1|ref:{corpus.reference}|"
            f"tok:{tokenizer_signature(corpus.tokenization)}|"
            f"case:{'lc' if corpus.case == 'ignore' else 'mixed'}|"
            f"compare-mt:{COMPAREMT_VERSION}")


def comparemt_bleu(corpus: AnalysisCorpus) -> AnalysisMeasure:
    """compare-mt's BLEU (corpus) and sentence BLEU (sentences) on ``corpus``' tokens."""
    return AnalysisMeasure(COMPAREMT_BLEU, "BLEU (compare-mt; sentences: NLTK sentence BLEU, "
                           "Chen & Cherry method 2)", True, _signature(corpus, COMPAREMT_BLEU),
                           _cmt_stats, comparemt_bleu_score, _cmt_sentences, 0.0)


def registry_measure(name: str, corpus: AnalysisCorpus,
                     options: EvalOptions | None = None) -> AnalysisMeasure:
    """A registry measure with ``options`` against the corpus' one reference (display units:
    sacreBLEU's ``Score.score``)."""
    from evaltrans_qt.engine.run.scoring import UNBOUNDED, Scorer
    opts = options or EvalOptions()
    scorer = Scorer([corpus.ref_texts], [name], opts)
    key = next(iter(scorer.measures))
    m = scorer.measures[key]
    percent = 1.0 if key in UNBOUNDED else 100.0
    cache: dict[str, np.ndarray] = {}

    def stats(c: AnalysisCorpus, system: str) -> np.ndarray:
        got = cache.get(system)
        if got is None:
            segs = scorer.segments(key, c.out_texts[system])
            if any(c.source_texts):              # GLEU reads the source
                segs = [replace(sg, src_text=src) for sg, src in zip(segs, c.source_texts)]
            got = cache[system] = np.asarray(m.corpus_stats(segs), np.float64)
        return got

    def batch(sums: np.ndarray) -> np.ndarray:
        return percent * np.asarray(m.score_values(np.atleast_2d(sums)), float)

    def sentences(c: AnalysisCorpus, system: str) -> np.ndarray:
        return batch(stats(c, system))

    sig = f"{key}|" + scorer.signature(key).format() + f"|ref:{corpus.reference}"
    return AnalysisMeasure(key, m.long_name, bool(m.higher_is_better), sig, stats, batch,
                           sentences, math.nan, percent)


def analysis_measure(name: str, corpus: AnalysisCorpus,
                     options: EvalOptions | None = None) -> AnalysisMeasure:
    """``comparemt-bleu`` or a registry measure (:class:`OptionError` for an unknown name)."""
    if not isinstance(name, str) or not name.strip():
        raise OptionError("analysis: the measure must be a name")
    if name.strip().lower() == COMPAREMT_BLEU:
        return comparemt_bleu(corpus)
    from evaltrans_qt.engine.measures import resolve
    if resolve(name) is None:
        from evaltrans_qt.engine.measures import load_all
        raise OptionError(f"unknown measure '{name}' (known: {COMPAREMT_BLEU}, "
                          f"{', '.join(sorted(load_all()))})")
    return registry_measure(name, corpus, options)
