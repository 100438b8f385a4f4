"""Bucketed comparisons as compare-mt 0.2.10 computes them (``bucketers.py``).

Buckets are given by cutoffs ``c_0 < c_1 < ...``: a value v falls into bucket i, the first
with ``v < c_i``, or the last (``>= c_last``) (``Bucketer.cutoff_into_bucket``); bucket names
are compare-mt's (``Bucketer.set_bucket_cutoffs``: ``<c_0``, ``c-1`` for a one-integer
bucket, ``[c_{i-1},c_i)``, ``>=c_last``). Defaults are compare-mt's:

* word accuracy by frequency (``FreqWordBucketer``): cutoffs 1, 2, 3, 4, 5, 10, 100, 1000
  of a word's count in a training corpus or, without one, in the test references;
* sentence length (``LengthSentenceBucketer``): reference length, cutoffs 10, 20, ..., 60;
* length difference (``LengthDiffSentenceBucketer``): output minus reference length,
  cutoffs -20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21;
* sentence score (``ScoreSentenceBucketer``): cutoffs 0.1 s, 0.2 s, ..., 0.9 s for a score
  of scale s (100).

Word accuracy (``WordBucketer._calc_trg_buckets_and_matches`` and ``calc_statistics``):
in each sentence, output words are matched left to right with unused reference positions of
the same word; a reference word counts in its bucket, a matched output word in the bucket of
its reference word, an unmatched one in its own. Per bucket, with m matches, r reference
words and o output words: recall m / r, precision m / o, F = 2 P R / (P + R), all 0 when
m = 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.analysis.corpus import Tokens
from evaltrans_qt.engine.metaeval.significance import estimate_ci
from evaltrans_qt.engine.metaeval.statistics.bootstrap import bootstrap_counts
from evaltrans_qt.errors import OptionError

FREQ_EDGES: tuple[int, ...] = (1, 2, 3, 4, 5, 10, 100, 1000)
LENGTH_EDGES: tuple[int, ...] = (10, 20, 30, 40, 50, 60)
LENGTHDIFF_EDGES: tuple[int, ...] = (-20, -10, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 21)


def score_edges(scale: float = 100.0) -> tuple[float, ...]:
    """``ScoreSentenceBucketer``'s default cutoffs ``x * scale / 10`` for x = 1..9."""
    return tuple(x * scale / 10.0 for x in range(1, 10))


def check_edges(edges: Sequence[float], what: str) -> tuple[float, ...]:
    """``edges`` as a tuple, refused unless non-empty, finite and strictly increasing."""
    out = tuple(edges)
    if not out:
        raise OptionError(f"{what}: give at least one bucket cutoff")
    if not all(np.isfinite(out)) or any(b <= a for a, b in zip(out, out[1:])):
        raise OptionError(f"{what}: bucket cutoffs must be finite and increasing, got "
                          f"{', '.join(map(str, out))}")
    return out


def bucket_names(edges: Sequence[float], num_type: str = "int") -> list[str]:
    """compare-mt ``Bucketer.set_bucket_cutoffs``' bucket strings."""
    names = []
    for i, x in enumerate(edges):
        if i == 0:
            names.append(f"<{x}")
        elif num_type == "int" and x - 1 == edges[i - 1]:
            names.append(f"{x - 1}")
        else:
            names.append(f"[{edges[i - 1]},{x})")
    names.append(f">={edges[-1]}")
    return names


def bucket_index(values: np.ndarray | Sequence[float], edges: Sequence[float]) -> np.ndarray:
    """``cutoff_into_bucket`` of each value: the number of cutoffs <= value."""
    return np.searchsorted(np.asarray(edges, float), np.asarray(values, float), side="right")


# ------------------------------------------------------------------ word accuracy
@dataclass(frozen=True)
class WordCounts:
    """Per-sentence word statistics: ``ref_total`` (n x B) reference words per bucket;
    ``out_totals`` and ``out_matches`` (S x n x B) output words and matched output words
    per system (compare-mt's ``my_ref_total_list``, ``my_out_totals_list``,
    ``my_out_matches_list``)."""

    buckets: list[str]
    ref_total: np.ndarray
    out_totals: np.ndarray
    out_matches: np.ndarray


#: bucket of a word given its label (None without labels)
WordBucket = Callable[[str, "str | None"], int]


def frequency_bucketer(counts: Mapping[str, int], edges: Sequence[float] = FREQ_EDGES
                       ) -> WordBucket:
    """``FreqWordBucketer.calc_bucket``: the bucket of a word's count (0 if unseen)."""
    e = list(edges)

    def bucket(word: str, label: str | None = None) -> int:
        c = counts.get(word, 0)
        for i, v in enumerate(e):
            if c < v:
                return i
        return len(e)
    return bucket


def label_bucketer(label_set: Sequence[str]) -> WordBucket:
    """``LabelWordBucketer.calc_bucket``: the label's position in ``label_set``, else the
    last bucket ("other")."""
    index = {lab: i for i, lab in enumerate(label_set)}
    other = len(label_set)

    def bucket(word: str, label: str | None = None) -> int:
        if not label:
            raise OptionError(f"word '{word}' has no label")
        return index.get(label, other)
    return bucket


def count_frequencies(sentences: Sequence[Tokens]) -> Counter[str]:
    """Word counts of a tokenised corpus (``FreqWordBucketer`` with ``freq_data``)."""
    c: Counter[str] = Counter()
    for s in sentences:
        c.update(s)
    return c


def word_counts(ref: Sequence[Tokens], outs: Sequence[Sequence[Tokens]], bucket: WordBucket,
                buckets: Sequence[str], ref_labels: Sequence[Sequence[str]] | None = None,
                out_labels: Sequence[Sequence[Sequence[str]]] | None = None) -> WordCounts:
    """compare-mt ``WordBucketer.calc_statistics`` (target side) per sentence (module doc).
    Without ``out_labels`` an unmatched output word is bucketed by ``bucket(word, None)``."""
    n, S, B = len(ref), len(outs), len(buckets)
    ref_total = np.zeros((n, B), dtype=np.int64)
    out_totals = np.zeros((S, n, B), dtype=np.int64)
    out_matches = np.zeros((S, n, B), dtype=np.int64)
    memo: dict[str, int] = {}

    def unlabelled(w: str) -> int:          # a word's bucket without labels, once per word
        b = memo.get(w)
        if b is None:
            b = memo[w] = bucket(w, None)
        return b

    for i, r in enumerate(ref):
        rl = ref_labels[i] if ref_labels is not None else None
        ref_b = [bucket(w, rl[k]) for k, w in enumerate(r)] if rl is not None \
            else [unlabelled(w) for w in r]
        rt = ref_total[i]
        for b in ref_b:
            rt[b] += 1
        pos: dict[str, list[int]] = {}
        for k, w in enumerate(r):
            pos.setdefault(w, []).append(k)
        for s in range(S):
            o = outs[s][i]
            ol = out_labels[s][i] if out_labels is not None else None
            used: dict[str, int] = {}
            tot = [0] * B
            mat = [0] * B
            for k, w in enumerate(o):
                ps = pos.get(w)
                if ps:
                    c = used.get(w, 0)
                    used[w] = c + 1
                    if c < len(ps):
                        b = ref_b[ps[c]]
                        tot[b] += 1
                        mat[b] += 1
                        continue
                tot[bucket(w, ol[k]) if ol is not None else unlabelled(w)] += 1
            out_totals[s, i] = tot
            out_matches[s, i] = mat
    return WordCounts(list(buckets), ref_total, out_totals, out_matches)


def prf(matches: np.ndarray, ref_count: np.ndarray, out_count: np.ndarray
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Recall, precision and F-measure of the counts (0 where there is no match;
    ``WordBucketer.calc_statistics``)."""
    m = np.asarray(matches, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rec = np.where(m > 0, m / np.asarray(ref_count, float), 0.0)
        prec = np.where(m > 0, m / np.asarray(out_count, float), 0.0)
        f = np.where(m > 0, 2 * prec * rec / (prec + rec), 0.0)
    return rec, prec, f


def word_accuracy_intervals(counts: WordCounts, samples: int = 1000, seed: int = 12345
                            ) -> np.ndarray:
    """95% intervals of the F-measure per system and bucket (S x B x 2): the sentences
    resampled with the paired bootstrap's draws
    (:func:`~evaltrans_qt.engine.metaeval.statistics.bootstrap.bootstrap_counts`) and the
    bounds of :func:`~evaltrans_qt.engine.metaeval.significance.estimate_ci`. (compare-mt's
    ``calc_bucket_details`` draws half-size resamples from numpy's global generator; its
    intervals are random and not reproduced.)"""
    n = counts.ref_total.shape[0]
    S, B = counts.out_totals.shape[0], counts.ref_total.shape[1]
    out = np.full((S, B, 2), np.nan)
    if n == 0 or samples < 1:
        return out
    w = bootstrap_counts(n, samples, seed)
    r = w @ counts.ref_total
    for s in range(S):
        _, _, f = prf(w @ counts.out_matches[s], r, w @ counts.out_totals[s])
        for b in range(B):
            out[s, b] = estimate_ci(f[:, b])[2:]
    return out


# ------------------------------------------------------------------ sentence buckets
def sentence_buckets(values: Sequence[float] | np.ndarray, edges: Sequence[float]
                     ) -> np.ndarray:
    """The bucket of every sentence by ``values`` (length, length difference, score)."""
    return bucket_index(values, edges)
