"""Characteristic n-grams of two systems as compare-mt 0.2.10 finds them
(``ngram_utils.compare_ngrams``, ``stat_utils.extract_salient_features``,
``compare_mt_main.generate_ngram_report``).

Per sentence, every output n-gram (n = 1..4 by default) that is still unused among the
reference's n-grams is a *match* (counted once per reference occurrence), otherwise
*over*-produced; reference n-grams left unused are *under*-produced. So per sentence and
n-gram, matches = min(output count, reference count). For two systems A and B and counts
c_A, c_B of one kind (matches by default), each n-gram g gets compare-mt's smoothed ratio

    s(g) = (c_A(g) + alpha) / (c_A(g) + c_B(g) + 2 alpha)        (alpha = 1)

over the n-grams either system has; the ``top`` highest (A > B) and lowest (B > A) are
reported (50 by default). compare-mt orders equal ratios by Python's set order, which
changes from run to run; we break ties by the n-gram's text, so the lists are reproducible
and agree with compare-mt's up to the order among equal ratios.

The counts are computed on integer n-gram ids with numpy (:class:`CorpusNgrams`): one id
per distinct n-gram of the corpus, per-sentence counts by ``np.unique`` of (sentence, id)
keys, matches by intersecting the output's keys with the reference's. compare-mt's BLEU
statistics (clipped matches and totals per order) come from the same arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.analysis.corpus import AnalysisCorpus, Tokens
from evaltrans_qt.errors import OptionError

NGram = tuple[str, ...]
COMPARE_TYPES = ("match", "over", "under")


@dataclass(frozen=True)
class NgramCounts:
    """compare-mt ``compare_ngrams``' four counters of one system, as arrays over the
    n-gram ids of ``grams``."""

    grams: list[NGram]
    total: np.ndarray
    match: np.ndarray
    over: np.ndarray
    under: np.ndarray

    def of(self, kind: str) -> np.ndarray:
        """The counts of ``kind``: ``match``, ``over``, ``under`` (or ``total``)."""
        if kind not in (*COMPARE_TYPES, "total"):
            raise OptionError(f"n-gram comparison: '{kind}' is not one of "
                              f"{', '.join(COMPARE_TYPES)}")
        counts: np.ndarray = getattr(self, kind)
        return counts

    def as_dict(self, kind: str = "match") -> dict[NGram, int]:
        """The non-zero counts of ``kind`` by n-gram (compare-mt's dictionaries)."""
        c = self.of(kind)
        return {self.grams[i]: int(c[i]) for i in np.flatnonzero(c)}


def check_lengths(min_length: int, max_length: int) -> None:
    """Refuse n-gram lengths unless 1 <= min <= max."""
    if min_length < 1 or max_length < min_length:
        raise OptionError(f"n-gram lengths {min_length}..{max_length}: need 1 <= min <= max")


class CorpusNgrams:
    """Integer ids of every n-gram (lengths 1..``max_length``) of a reference and the
    outputs of several systems, with per-sentence counts (module doc)."""

    def __init__(self, ref: Sequence[Tokens], outs: Mapping[str, Sequence[Tokens]],
                 max_length: int) -> None:
        check_lengths(1, max_length)
        self.max_length = max_length
        self.n_sentences = len(ref)
        self.ids: dict[NGram, int] = {}
        self.grams: list[NGram] = []
        raw: dict[str | None, tuple[np.ndarray, np.ndarray]] = {None: self._encode(ref)}
        raw.update({s: self._encode(o) for s, o in outs.items()})
        self.order = np.fromiter(map(len, self.grams), dtype=np.int64, count=len(self.grams))
        V = max(len(self.grams), 1)
        self._keys: dict[str | None, tuple[np.ndarray, np.ndarray]] = {}
        self._raw = raw
        for side, (sent, gid) in raw.items():
            self._keys[side] = np.unique(sent * V + gid, return_counts=True)
        self._matches: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _encode(self, sentences: Sequence[Tokens]) -> tuple[np.ndarray, np.ndarray]:
        ids, grams = self.ids, self.grams
        sent: list[int] = []
        gid: list[int] = []
        for i, w in enumerate(sentences):
            before = len(gid)
            for n in range(1, self.max_length + 1):
                for g in zip(*(w[k:] for k in range(n))):
                    j = ids.get(g)
                    if j is None:
                        j = ids[g] = len(grams)
                        grams.append(g)
                    gid.append(j)
            sent.extend([i] * (len(gid) - before))
        return np.asarray(sent, dtype=np.int64), np.asarray(gid, dtype=np.int64)

    def _common(self, system: str) -> tuple[np.ndarray, np.ndarray]:
        """(sentence * V + id, min(output count, reference count)) of the n-grams a
        sentence's output shares with its reference."""
        got = self._matches.get(system)
        if got is None:
            ko, co = self._keys[system]
            kr, cr = self._keys[None]
            common, io, ir = np.intersect1d(ko, kr, assume_unique=True, return_indices=True)
            got = self._matches[system] = (common, np.minimum(co[io], cr[ir]))
        return got

    def counts(self, system: str, min_length: int = 1) -> NgramCounts:
        """compare-mt ``compare_ngrams`` of ``system`` (n-grams shorter than
        ``min_length`` count 0)."""
        check_lengths(min_length, self.max_length)
        V = max(len(self.grams), 1)
        common, m = self._common(system)
        match = np.bincount(common % V, weights=m, minlength=V).astype(np.int64)
        total = np.bincount(self._raw[system][1], minlength=V)
        ref = np.bincount(self._raw[None][1], minlength=V)
        out = NgramCounts(self.grams, total, match, total - match, ref - match)
        if min_length > 1:
            short = self.order < min_length
            for a in (out.total, out.match, out.over, out.under):
                a[np.flatnonzero(short)] = 0
        return out

    def order_sums(self, system: str) -> tuple[np.ndarray, np.ndarray]:
        """Per sentence and order n = 1..max: clipped matches and output n-gram totals
        (two n x max arrays; BLEU's statistics)."""
        V = max(len(self.grams), 1)
        L = self.max_length
        n = self.n_sentences
        common, m = self._common(system)
        num = np.bincount((common // V) * L + self.order[common % V] - 1, weights=m,
                          minlength=n * L).reshape(n, L)
        sent, gid = self._raw[system]
        tot = np.bincount(sent * L + self.order[gid] - 1, minlength=n * L).reshape(n, L)
        return num, tot.astype(np.float64)


def corpus_ngrams(corpus: AnalysisCorpus, max_length: int) -> CorpusNgrams:
    """The :class:`CorpusNgrams` of ``corpus``, computed once per corpus and length (BLEU's
    statistics and the n-gram comparison share it)."""
    key = ("ngrams", max_length)
    got = corpus.cache.get(key)
    if not isinstance(got, CorpusNgrams):
        got = corpus.cache[key] = CorpusNgrams(corpus.ref, corpus.outs, max_length)
    return got


def compare_ngrams(ref: Sequence[Tokens], out: Sequence[Tokens], min_length: int = 1,
                   max_length: int = 4) -> NgramCounts:
    """Total, matched, over- and under-produced n-gram counts of ``out`` (module doc)."""
    check_lengths(min_length, max_length)
    return CorpusNgrams(ref, {"out": out}, max_length).counts("out", min_length)


def salient_ngrams(a: np.ndarray, b: np.ndarray, alpha: float = 1.0
                   ) -> tuple[np.ndarray, np.ndarray]:
    """compare-mt ``extract_salient_features`` over ids: (ids either system has,
    (a + alpha) / (a + b + 2 alpha) of each)."""
    if not alpha > 0:
        raise OptionError(f"n-gram smoothing alpha must be positive, got {alpha}")
    ids = np.flatnonzero((a > 0) | (b > 0))
    av, bv = a[ids].astype(float), b[ids].astype(float)
    return ids, (av + alpha) / (av + bv + 2 * alpha)


def _best(ids: np.ndarray, ratio: np.ndarray, grams: list[NGram], top: int, sign: float
          ) -> list[tuple[NGram, float]]:
    key = sign * ratio                      # smallest first
    if len(key) > top:
        cut = np.partition(key, top - 1)[top - 1]
        keep = np.flatnonzero(key <= cut)
    else:
        keep = np.arange(len(key))
    cand = sorted((float(key[k]), grams[ids[k]], float(ratio[k])) for k in keep)[:top]
    return [(g, r) for _, g, r in cand]


def top_ngrams(ids: np.ndarray, ratio: np.ndarray, grams: list[NGram], top: int
               ) -> tuple[list[tuple[NGram, float]], list[tuple[NGram, float]]]:
    """The ``top`` n-grams with the highest ratio (first system better) and with the lowest
    (second better), each best first; ties by the n-gram's text."""
    if top < 1:
        raise OptionError(f"the number of n-grams to report must be positive, got {top}")
    return _best(ids, ratio, grams, top, -1.0), _best(ids, ratio, grams, top, 1.0)
