"""Characteristic n-grams of two systems as compare-mt 0.2.10 finds them
(``ngram_utils.compare_ngrams``, ``stat_utils.extract_salient_features``,
``compare_mt_main.generate_ngram_report``).

Per sentence, every output n-gram (n = 1..4 by default) that is still unused among the
reference's n-grams is a *match* (counted once per reference occurrence), otherwise
*over*-produced; reference n-grams left unused are *under*-produced. For two systems A and B
and counts c_A, c_B of one kind (matches by default), each n-gram g gets compare-mt's
smoothed ratio

    s(g) = (c_A(g) + alpha) / (c_A(g) + c_B(g) + 2 alpha)        (alpha = 1)

over the n-grams either system has; the ``top`` highest (A > B) and lowest (B > A) are
reported (50 by default). compare-mt orders equal ratios by Python's set order, which
changes from run to run; we break ties by the n-gram's text, so the lists are reproducible
and agree with compare-mt's up to the order among equal ratios.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from evaltrans_qt.engine.analysis.corpus import Tokens
from evaltrans_qt.errors import OptionError

NGram = tuple[str, ...]
COMPARE_TYPES = ("match", "over", "under")


@dataclass(frozen=True)
class NgramCounts:
    """compare-mt ``compare_ngrams``' four counters of one system."""

    total: Counter[NGram]
    match: Counter[NGram]
    over: Counter[NGram]
    under: Counter[NGram]

    def of(self, kind: str) -> Counter[NGram]:
        if kind not in COMPARE_TYPES:
            raise OptionError(f"n-gram comparison: '{kind}' is not one of "
                              f"{', '.join(COMPARE_TYPES)}")
        counts: Counter[NGram] = getattr(self, kind)
        return counts


def sentence_ngrams(words: Tokens, min_length: int, max_length: int) -> list[NGram]:
    """The n-grams of one sentence, n = ``min_length``..``max_length``, shortest first
    (``ngram_utils.iterate_sent_ngrams``)."""
    return [tuple(words[i:i + n]) for n in range(min_length, max_length + 1)
            for i in range(len(words) - n + 1)]


def compare_ngrams(ref: Sequence[Tokens], out: Sequence[Tokens], min_length: int = 1,
                   max_length: int = 4) -> NgramCounts:
    """Total, matched, over- and under-produced n-gram counts of ``out`` (module doc)."""
    if min_length < 1 or max_length < min_length:
        raise OptionError(f"n-gram lengths {min_length}..{max_length}: need 1 <= min <= max")
    total: Counter[NGram] = Counter()
    match: Counter[NGram] = Counter()
    over: Counter[NGram] = Counter()
    under: Counter[NGram] = Counter()
    for r, o in zip(ref, out):
        left = Counter(sentence_ngrams(r, min_length, max_length))
        for g in sentence_ngrams(o, min_length, max_length):
            total[g] += 1
            if left[g] > 0:
                match[g] += 1
                left[g] -= 1
            else:
                over[g] += 1
        for g, c in left.items():
            if c > 0:
                under[g] += c
    return NgramCounts(total, match, over, under)


def salient_ngrams(a: Counter[NGram], b: Counter[NGram], alpha: float = 1.0
                   ) -> dict[NGram, float]:
    """compare-mt ``extract_salient_features``: (a + alpha) / (a + b + 2 alpha) per n-gram."""
    if not alpha > 0:
        raise OptionError(f"n-gram smoothing alpha must be positive, got {alpha}")
    return {g: (a[g] + alpha) / (a[g] + b[g] + 2 * alpha) for g in set(a) | set(b)}


def top_ngrams(scores: dict[NGram, float], top: int) -> tuple[list[tuple[NGram, float]],
                                                              list[tuple[NGram, float]]]:
    """The ``top`` n-grams with the highest ratio (first system better) and with the lowest
    (second better), each best first; ties by the n-gram's text."""
    if top < 1:
        raise OptionError(f"the number of n-grams to report must be positive, got {top}")
    high = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    low = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))[:top]
    return high, low
