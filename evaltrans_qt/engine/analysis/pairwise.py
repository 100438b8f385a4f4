"""System-against-system analysis in the manner of compare-mt (Neubig et al. 2019,
compare-mt 0.2.10): :func:`analyze_systems` returns an :class:`AnalysisResult` of pandas
DataFrames.

Parts, each with compare-mt's buckets, formulas and defaults (``compare_mt_main.main``):

* aggregate scores -- the measure's corpus score per system (compare-mt
  ``generate_score_report``) with compare-mt's length ratio; significance by the paired
  bootstrap of ``engine/metaeval/significance.py`` (sacreBLEU's statistic, Koehn 2004;
  compare-mt's own bootstrap draws half-size samples from numpy's global generator and
  reports win ratios -- random, so not reproduced);
* word accuracy by frequency bucket (``generate_word_accuracy_report``, bucket_type freq,
  acc_type fmeas) and by label when label files are given (bucket_type label);
* sentence buckets (``generate_sentence_bucketed_report``): by reference length with the
  corpus score per bucket (compare-mt's ``bucket_type=length,statistic_type=score``), by
  length difference and by sentence score (sentence counts);
* characteristic n-grams (``generate_ngram_report``) and sentence examples
  (``generate_sentence_examples``) for every pair of systems (compare-mt compares the first
  two by default).

:mod:`evaltrans_qt.engine.analysis.buckets`, :mod:`~evaltrans_qt.engine.analysis.ngram_diff`
and :mod:`~evaltrans_qt.engine.analysis.examples` give the formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from evaltrans_qt.engine.analysis.buckets import (
    FREQ_EDGES,
    LENGTH_EDGES,
    LENGTHDIFF_EDGES,
    WordCounts,
    bucket_names,
    check_edges,
    count_frequencies,
    frequency_bucketer,
    label_bucketer,
    prf,
    score_edges,
    sentence_buckets,
    word_accuracy_intervals,
    word_counts,
)
from evaltrans_qt.engine.analysis.corpus import AnalysisCorpus, Tokens
from evaltrans_qt.engine.analysis.examples import example_order, top_examples, word_edits
from evaltrans_qt.engine.analysis.ngram_diff import (
    COMPARE_TYPES,
    check_lengths,
    corpus_ngrams,
    salient_ngrams,
    top_ngrams,
)
from evaltrans_qt.engine.analysis.scoring import (
    COMPAREMT_BLEU,
    AnalysisMeasure,
    analysis_measure,
    length_ratio,
    length_ratio_stats,
)
from evaltrans_qt.engine.metaeval.significance import (
    Seed,
    SignificanceResult,
    paired_bootstrap,
    resolve_seed,
)
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.executors.base import CancelFlag
from evaltrans_qt.engine.run.signature import tokenizer_signature
from evaltrans_qt.errors import Cancelled, InputFormatError, OptionError


@dataclass(frozen=True)
class Labels:
    """Word labels (e.g. POS tags) for label-wise accuracy: ``ref[i]`` one label per
    reference word of sentence i; ``outs[system][i]`` one per output word (optional: without
    them an unmatched output word is counted in the bucket "other" -- recall is compare-mt's,
    precision and F-measure are not); ``label_set`` the labels with a bucket of their own
    (default: the reference's labels, most frequent first); ``name`` where they came from."""

    ref: list[list[str]]
    outs: dict[str, list[list[str]]] | None = None
    label_set: tuple[str, ...] | None = None
    name: str = "labels"
    out_names: dict[str, str] | None = None


@dataclass(frozen=True)
class AnalysisSettings:
    """Every choice behind the numbers (compare-mt's defaults)."""

    measure: str = COMPAREMT_BLEU
    freq_edges: tuple[float, ...] = FREQ_EDGES
    length_edges: tuple[float, ...] = LENGTH_EDGES
    lengthdiff_edges: tuple[float, ...] = LENGTHDIFF_EDGES
    score_edges: tuple[float, ...] | None = None      # None: 10%, 20%, ... of the scale
    ngram_min: int = 1
    ngram_max: int = 4
    ngram_alpha: float = 1.0
    ngram_compare: str = "match"
    top_ngrams: int = 50
    top_examples: int = 10
    samples: int = 1000
    seed: Seed = "env"
    frequency_source: str = "test references"
    error_classes: bool = True


@dataclass
class AnalysisResult:
    """The analysis of ``systems`` (DataFrames; every column documented in docs/analysis.md).

    ``scores``: one row per system (``score``, bootstrap ``mean``/``low``/``high``,
    ``p_value`` against the first system, ``length_ratio``); ``significance``: the square
    matrix of p-values; ``word_accuracy`` / ``label_accuracy``: one row per system and
    bucket (``matches``, ``ref_words``, ``out_words``, ``recall``, ``precision``,
    ``fmeas``, ``fmeas_low``, ``fmeas_high``); ``length_buckets`` (``sentences``,
    ``score``, ``low``, ``high``), ``lengthdiff_buckets`` and ``score_buckets``
    (``sentences``); ``ngrams``: per pair and direction the top n-grams (``ratio``,
    ``count_a``, ``count_b``); ``examples``: per pair and direction the sentences with
    their scores, texts and ``edits_a``/``edits_b``/``ref_edits_a``/``ref_edits_b``
    (:class:`~evaltrans_qt.engine.analysis.examples.Edits` marks). ``error_classes``
    (when computed): per-system error class rates. ``signatures``: the signature of every
    kind of number; ``settings``: the choices.
    """

    systems: tuple[str, ...]
    n_sentences: int
    measure: str
    measure_name: str
    higher_is_better: bool
    scores: pd.DataFrame
    significance: pd.DataFrame
    word_accuracy: pd.DataFrame
    length_buckets: pd.DataFrame
    lengthdiff_buckets: pd.DataFrame
    score_buckets: pd.DataFrame
    ngrams: pd.DataFrame
    examples: pd.DataFrame
    signatures: dict[str, str]
    settings: AnalysisSettings
    label_accuracy: pd.DataFrame | None = None
    error_classes: pd.DataFrame | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    TABLES = ("scores", "significance", "word_accuracy", "label_accuracy", "length_buckets",
              "lengthdiff_buckets", "score_buckets", "ngrams", "examples", "error_classes")

    def tables(self) -> dict[str, pd.DataFrame]:
        """The DataFrames by name (those computed)."""
        out = {}
        for name in self.TABLES:
            frame = getattr(self, name)
            if frame is not None:
                out[name] = frame
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: every table as a list of records (the significance
        matrix as ``{system: {system: p}}``), the signatures and settings."""
        def clean(v: Any) -> Any:
            if isinstance(v, (np.integer,)):
                return int(v)
            if isinstance(v, (float, np.floating)):
                return None if not math.isfinite(float(v)) else float(v)
            if isinstance(v, (list, tuple, np.ndarray)):
                return [clean(x) for x in v]
            if isinstance(v, dict):
                return {str(k): clean(x) for k, x in v.items()}
            return v
        out: dict[str, Any] = {"systems": list(self.systems), "sentences": self.n_sentences,
                               "measure": self.measure, "measure_name": self.measure_name,
                               "higher_is_better": self.higher_is_better}
        for name, frame in self.tables().items():
            if name == "significance":
                out[name] = clean(frame.to_dict(orient="index"))
            else:
                out[name] = [clean(r) for r in frame.to_dict(orient="records")]
        out["signatures"] = dict(self.signatures)
        out["settings"] = clean({k: getattr(self.settings, k)
                                 for k in self.settings.__dataclass_fields__})
        out["meta"] = clean(self.meta)
        return out


# ------------------------------------------------------------------ parts
def _bootstrap(stats: dict[str, np.ndarray], m: AnalysisMeasure, samples: int, seed: int
               ) -> SignificanceResult:
    """The paired bootstrap of ``engine/metaeval/significance.py`` over ``stats``; a single
    system is resampled beside a copy of itself (its interval is the one it would have in any
    pair: the draws do not depend on the other system), the copy dropped."""
    if len(stats) > 1:
        return paired_bootstrap(stats, m.batch_score, samples=samples, seed=seed,
                                higher_is_better=m.higher_is_better)
    (name, x), = stats.items()
    res = paired_bootstrap({name: x, name + "\u0000copy": x}, m.batch_score, samples=samples,
                           seed=seed, higher_is_better=m.higher_is_better)
    return SignificanceResult([name], res.method, res.samples, res.seed, res.scores[:1],
                              res.p_values[:1, :1], res.higher_is_better, res.n_sentences,
                              None if res.intervals is None else res.intervals[:1], res.meta,
                              None if res.means is None else res.means[:1],
                              None if res.ci is None else res.ci[:1])


def _score_tables(corpus: AnalysisCorpus, m: AnalysisMeasure, st: AnalysisSettings
                  ) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, np.ndarray], int]:
    stats = {s: m.stats(corpus, s) for s in corpus.systems}
    if isinstance(st.seed, bool) or not isinstance(st.seed, (int, str, type(None))):
        raise OptionError(f"seed: expected a whole number, 'env' or None, got {st.seed!r}")
    seed = resolve_seed(st.seed)
    if seed is not None and seed < 0:
        raise OptionError(f"seed: must not be negative, got {seed}")
    if seed is None:
        entropy = np.random.SeedSequence().entropy
        seed = int(entropy) % (2 ** 63) if isinstance(entropy, int) else 0
    res = _bootstrap(stats, m, st.samples, seed)
    rows = []
    for i, s in enumerate(corpus.systems):
        lr = float(length_ratio(length_ratio_stats(corpus.ref, corpus.outs[s]).sum(axis=0))[0])
        lo, hi = (res.intervals[i] if res.intervals is not None else (math.nan, math.nan))
        rows.append({"system": s, "score": m.corpus_score(stats[s]),
                     "mean": float(res.means[i]) if res.means is not None else math.nan,
                     "low": float(lo), "high": float(hi),
                     "p_value": math.nan if i == 0 else float(res.p_values[0, i]),
                     "length_ratio": lr})
    sig = pd.DataFrame(res.p_values, index=list(corpus.systems), columns=list(corpus.systems))
    return pd.DataFrame(rows), sig, stats, seed


def _accuracy_frame(counts: WordCounts, systems: Sequence[str], intervals: np.ndarray,
                    precision_known: bool = True) -> pd.DataFrame:
    ref = counts.ref_total.sum(axis=0)
    rows = []
    for s, name in enumerate(systems):
        tot = counts.out_totals[s].sum(axis=0)
        mat = counts.out_matches[s].sum(axis=0)
        rec, prec, f = prf(mat, ref, tot)
        for b, bucket in enumerate(counts.buckets):
            rows.append({"system": name, "bucket": bucket, "matches": int(mat[b]),
                         "ref_words": int(ref[b]), "out_words": int(tot[b]),
                         "recall": float(rec[b]),
                         "precision": float(prec[b]) if precision_known else math.nan,
                         "fmeas": float(f[b]) if precision_known else math.nan,
                         "fmeas_low": float(intervals[s, b, 0]) if precision_known else math.nan,
                         "fmeas_high": float(intervals[s, b, 1]) if precision_known else math.nan})
    return pd.DataFrame(rows)


def _word_accuracy(corpus: AnalysisCorpus, st: AnalysisSettings, seed: int,
                   train_counts: Mapping[str, int] | None) -> pd.DataFrame:
    counts_src = train_counts if train_counts is not None else count_frequencies(corpus.ref)
    names = bucket_names(st.freq_edges, "int")
    counts = word_counts(corpus.ref, [corpus.outs[s] for s in corpus.systems],
                         frequency_bucketer(counts_src, st.freq_edges), names)
    return _accuracy_frame(counts, corpus.systems,
                           word_accuracy_intervals(counts, st.samples, seed))


def _check_labels(corpus: AnalysisCorpus, labels: Labels) -> None:
    def check(rows: list[list[str]], sents: list[Tokens], what: str, name: str) -> None:
        if len(rows) != len(sents):
            raise InputFormatError(f"{what}: {len(rows)} label lines for {len(sents)} "
                                   "sentences", name)
        for i, (lab, sent) in enumerate(zip(rows, sents)):
            if len(lab) != len(sent):
                raise InputFormatError(f"{what}: {len(lab)} labels for the {len(sent)} words "
                                       f"of sentence {corpus.segments[i]}", name,
                                       corpus.source_index[i] + 1)
    check(labels.ref, corpus.ref, "reference labels", labels.name)
    if labels.outs is not None:
        for s in corpus.systems:
            if s not in labels.outs:
                raise OptionError(f"labels: no output labels for system '{s}'")
            check(labels.outs[s], corpus.outs[s], f"labels of system '{s}'",
                  (labels.out_names or {}).get(s, labels.name))


def _label_accuracy(corpus: AnalysisCorpus, st: AnalysisSettings, seed: int, labels: Labels
                    ) -> pd.DataFrame:
    _check_labels(corpus, labels)
    label_set = labels.label_set
    if label_set is None:
        freq = count_frequencies(labels.ref)
        label_set = tuple(sorted(freq, key=lambda k: (-freq[k], k)))
    names = list(label_set) + ["other"]
    bucket = label_bucketer(label_set)
    other = len(label_set)

    def bucket_or_other(word: str, label: str | None) -> int:
        return other if label is None else bucket(word, label)

    outs = None if labels.outs is None else [labels.outs[s] for s in corpus.systems]
    counts = word_counts(corpus.ref, [corpus.outs[s] for s in corpus.systems],
                         bucket_or_other, names, labels.ref, outs)
    return _accuracy_frame(counts, corpus.systems,
                           word_accuracy_intervals(counts, st.samples, seed),
                           precision_known=labels.outs is not None)


def _length_buckets(corpus: AnalysisCorpus, m: AnalysisMeasure, stats: dict[str, np.ndarray],
                    st: AnalysisSettings, seed: int) -> pd.DataFrame:
    names = bucket_names(st.length_edges, "int")
    idx = sentence_buckets([len(r) for r in corpus.ref], st.length_edges)
    rows = []
    per_bucket: dict[int, Any] = {}
    for b in range(len(names)):
        sel = np.flatnonzero(idx == b)
        if len(sel):
            per_bucket[b] = _bootstrap({s: stats[s][sel] for s in corpus.systems}, m,
                                       st.samples, seed)
    for i, s in enumerate(corpus.systems):
        for b, name in enumerate(names):
            sel = np.flatnonzero(idx == b)
            res = per_bucket.get(b)
            lo, hi = (math.nan, math.nan) if res is None or res.intervals is None \
                else res.intervals[i]
            rows.append({"system": s, "bucket": name, "sentences": int(len(sel)),
                         "score": m.corpus_score(stats[s][sel]), "low": float(lo),
                         "high": float(hi)})
    return pd.DataFrame(rows)


def _count_buckets(systems: Sequence[str], values: Mapping[str, Sequence[float] | np.ndarray],
                   edges: Sequence[float], num_type: str) -> pd.DataFrame:
    names = bucket_names(edges, num_type)
    rows: list[dict[str, Any]] = []
    for s in systems:
        counts = np.bincount(sentence_buckets(values[s], edges), minlength=len(names))
        rows.extend({"system": s, "bucket": name, "sentences": int(counts[b])}
                    for b, name in enumerate(names))
    return pd.DataFrame(rows)


def _ngram_table(corpus: AnalysisCorpus, st: AnalysisSettings) -> pd.DataFrame:
    if st.ngram_compare not in COMPARE_TYPES:
        raise OptionError(f"n-gram comparison: '{st.ngram_compare}' is not one of "
                          f"{', '.join(COMPARE_TYPES)}")
    check_lengths(st.ngram_min, st.ngram_max)
    grams = corpus_ngrams(corpus, st.ngram_max)
    counts = {s: grams.counts(s, st.ngram_min).of(st.ngram_compare) for s in corpus.systems}
    rows = []
    for a, b in combinations(corpus.systems, 2):
        ca, cb = counts[a], counts[b]
        ids, ratio = salient_ngrams(ca, cb, st.ngram_alpha)
        high, low = top_ngrams(ids, ratio, grams.grams, st.top_ngrams)
        for better, items in ((a, high), (b, low)):
            for rank, (g, r) in enumerate(items, 1):
                k = grams.ids[g]
                rows.append({"system_a": a, "system_b": b, "better": better, "rank": rank,
                             "ngram": " ".join(g), "n": len(g), "ratio": r,
                             "count_a": int(ca[k]), "count_b": int(cb[k])})
    cols = ["system_a", "system_b", "better", "rank", "ngram", "n", "ratio", "count_a",
            "count_b"]
    return pd.DataFrame(rows, columns=cols)


def _example_table(corpus: AnalysisCorpus, sent: Mapping[str, np.ndarray],
                   st: AnalysisSettings) -> pd.DataFrame:
    rows = []
    for a, b in combinations(corpus.systems, 2):
        order = example_order(corpus.ref, corpus.outs[a], corpus.outs[b], sent[a], sent[b])
        a_better, b_better = top_examples(order, st.top_examples)
        for better, idxs in ((a, a_better), (b, b_better)):
            for rank, i in enumerate(idxs, 1):
                ea = word_edits(corpus.outs[a][i], corpus.ref[i])
                eb = word_edits(corpus.outs[b][i], corpus.ref[i])
                rows.append({"system_a": a, "system_b": b, "better": better, "rank": rank,
                             "index": i, "segment": corpus.segments[i],
                             "source_index": corpus.source_index[i],
                             "score_a": float(sent[a][i]), "score_b": float(sent[b][i]),
                             "diff": float(sent[a][i] - sent[b][i]),
                             "source": corpus.source_texts[i], "reference": corpus.ref[i],
                             "output_a": corpus.outs[a][i], "output_b": corpus.outs[b][i],
                             "edits_a": list(ea.out), "edits_b": list(eb.out),
                             "ref_edits_a": list(ea.ref), "ref_edits_b": list(eb.ref)})
    cols = ["system_a", "system_b", "better", "rank", "index", "segment", "source_index",
            "score_a", "score_b", "diff", "source", "reference", "output_a", "output_b",
            "edits_a", "edits_b", "ref_edits_a", "ref_edits_b"]
    return pd.DataFrame(rows, columns=cols)


def _error_classes(corpus: AnalysisCorpus, options: EvalOptions | None
                   ) -> tuple[pd.DataFrame, str]:
    """Per-system error class counts and rates (Popović & Ney 2011; Hjerson's rates,
    ``error_classes_corpus.class_rates``) against the analysis' one reference, base forms by
    the options' ``error_classes_base`` and ``stem_language``; and their signature."""
    from evaltrans_qt.engine.analysis.error_classes_corpus import class_rates, classify_system
    from evaltrans_qt.engine.run.signature import signature_for
    opts = options or EvalOptions()
    refs = [[r] for r in corpus.ref]
    sents = {s: classify_system(corpus.outs[s], refs, base=opts.error_classes_base,
                                language=opts.stem_language) for s in corpus.systems}
    frame = class_rates(sents).reset_index()
    sig = "errorclasses|" + signature_for("errorclasses", opts, 1).format() \
        + f"|ref:{corpus.reference}"
    return frame, sig


# ------------------------------------------------------------------ entry point
#: The parts of :func:`analyze_systems` in the order they are computed (``progress``).
STEPS = ("scores", "word_accuracy", "label_accuracy", "sentence_buckets", "ngrams",
         "examples", "error_classes")


def analyze_systems(corpus: AnalysisCorpus, *, measure: str = COMPAREMT_BLEU,
                    options: EvalOptions | None = None,
                    train_counts: Mapping[str, int] | None = None,
                    labels: Labels | None = None, settings: AnalysisSettings | None = None,
                    progress: Callable[[str], None] | None = None,
                    cancel: CancelFlag | None = None) -> AnalysisResult:
    """The whole analysis of ``corpus``' systems (module doc).

    ``measure``: ``comparemt-bleu`` (compare-mt's BLEU and sentence BLEU) or a registry
    measure scored with ``options``; ``train_counts``: word counts of a training corpus for
    the frequency buckets (default: counts in the test references); ``labels``: word labels
    for label-wise accuracy; ``settings``: bucket cutoffs, n-gram and example sizes,
    bootstrap samples and seed (compare-mt's defaults). ``progress(step)`` is called before
    each part (:data:`STEPS`); a set ``cancel`` flag raises
    :class:`~evaltrans_qt.errors.Cancelled` between parts.
    """
    st = settings or AnalysisSettings(measure=measure)
    st = AnalysisSettings(**{**st.__dict__, "measure": measure,
                             "frequency_source": "training corpus" if train_counts is not None
                             else "test references"})
    if len(corpus) == 0:
        raise OptionError("analysis: the corpus has no sentences")
    for name in ("freq_edges", "length_edges", "lengthdiff_edges"):
        check_edges(getattr(st, name), name.replace("_", " "))
    if st.samples < 1:
        raise OptionError(f"bootstrap samples must be positive, got {st.samples}")
    if st.top_ngrams < 1 or st.top_examples < 1:
        raise OptionError("the numbers of n-grams and examples to report must be positive")
    if st.ngram_compare not in COMPARE_TYPES:
        raise OptionError(f"n-gram comparison: '{st.ngram_compare}' is not one of "
                          f"{', '.join(COMPARE_TYPES)}")
    check_lengths(st.ngram_min, st.ngram_max)
    if labels is not None:
        _check_labels(corpus, labels)

    def step(name: str) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if progress is not None:
            progress(name)

    # the measures tokenise as the corpus was tokenised
    options = (options or EvalOptions()).replace(tokenization=corpus.tokenization,
                                                 case=corpus.case)
    step("scores")
    m = analysis_measure(measure, corpus, options)
    scores, sig, stats, seed = _score_tables(corpus, m, st)
    sent = {s: m.sentence_scores(corpus, s) for s in corpus.systems}
    s_edges = check_edges(st.score_edges if st.score_edges is not None
                          else score_edges(m.scale), "score edges")
    step("word_accuracy")
    words = _word_accuracy(corpus, st, seed, train_counts)
    step("label_accuracy")
    by_label = None if labels is None else _label_accuracy(corpus, st, seed, labels)
    step("sentence_buckets")
    length = _length_buckets(corpus, m, stats, st, seed)
    lengthdiff = _count_buckets(
        corpus.systems, {s: [len(o) - len(r) for o, r in zip(corpus.outs[s], corpus.ref)]
                         for s in corpus.systems}, st.lengthdiff_edges, "int")
    by_score = _count_buckets(corpus.systems, sent, s_edges, "float")
    pairs = len(corpus.systems) > 1
    step("ngrams")
    ngrams = _ngram_table(corpus, st) if pairs else pd.DataFrame()
    step("examples")
    examples = _example_table(corpus, sent, st) if pairs else pd.DataFrame()
    signatures = {"measure": m.signature,
                  "bootstrap": f"{m.signature}|bs:{st.samples}|seed:{seed}",
                  "words": (f"words|ref:{corpus.reference}|"
                            f"tok:{tokenizer_signature(corpus.tokenization)}|"
                            f"case:{'lc' if corpus.case == 'ignore' else 'mixed'}|"
                            f"freq:{st.frequency_source}")}
    classes = None
    if st.error_classes:
        step("error_classes")
        classes, signatures["error_classes"] = _error_classes(corpus, options)
    return AnalysisResult(
        systems=corpus.systems, n_sentences=len(corpus), measure=m.name,
        measure_name=m.long_name, higher_is_better=m.higher_is_better, scores=scores,
        significance=sig, word_accuracy=words, length_buckets=length,
        lengthdiff_buckets=lengthdiff, score_buckets=by_score, ngrams=ngrams,
        examples=examples, signatures=signatures,
        settings=AnalysisSettings(**{**st.__dict__, "seed": seed, "score_edges": s_edges}),
        label_accuracy=by_label, error_classes=classes,
        meta={"reference": corpus.reference, "tokenization": corpus.tokenization,
              "case": corpus.case})
