"""METEOR (Banerjee & Lavie 2005; METEOR 1.0 as NLTK's ``nltk.translate.meteor_score``
computes it), equal to NLTK's ``meteor_score`` on the run's tokens.

Per (candidate, reference) pair: the words are lower-cased (NLTK's ``preprocess=str.lower``)
and matched by the exact module, then the stem module (Porter, NLTK's default, or the
Snowball stemmer of ``stem-language``), then -- only with ``meteor-synonyms wordnet`` and a
WordNet installed locally, never downloaded -- the WordNet synonym module; ``m`` matches in
``ch`` chunks give P = m / |hyp|, R = m / |ref|, Fmean = P R / (α P + (1 - α) R), the
penalty γ (ch / m)^β and the score (1 - penalty) Fmean (0 without a match or with an empty
side). With several references the best score counts (NLTK: ``max``, the first on ties).
The matching runs in a compiled kernel (:mod:`evaltrans_qt.engine.kernels.meteor`) over
word ids, each word lower-cased and stemmed once per vocabulary.

NLTK scores sentences only; the system score is the mean of the sentence scores (as
compare-mt averages its sentence-level scorers). Statistics (they add up): the sentence
score, 1 (the sentence), and the matches, chunks and lengths of the reference that
counts. The signature names the modules that ran (``stemmer``, ``synonyms``) and α, β, γ
when set (empty: NLTK's 0.9, 3, 0.5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from evaltrans_qt.engine.kernels.meteor import match_pair, match_pairs
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import packed
from evaltrans_qt.engine.measures.alignment import Alignment, EditOp, OpKind
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import OptionError

#: NLTK ``meteor_score`` defaults.
ALPHA, BETA, GAMMA = 0.9, 3.0, 0.5
#: Stems already computed in this process, per stemmer ("porter", "snowball:<language>"):
#: stemming is the slow part of a first run (pure Python), and words recur across runs.
_STEMS: dict[str, dict[str, str]] = {}
_STEMS_LIMIT = 1 << 20


def local_wordnet() -> Any:
    """NLTK's WordNet reader if a WordNet corpus is installed locally (never downloaded);
    :class:`OptionError` otherwise."""
    import nltk.data
    for name in ("corpora/wordnet", "corpora/wordnet.zip", "corpora/wordnet31",
                 "corpora/wordnet31.zip"):
        try:
            nltk.data.find(name)
            break
        except LookupError:
            continue
    else:
        raise OptionError("--meteor-synonyms wordnet: no WordNet corpus is installed for NLTK "
                          "(it is never downloaded at run time; install it with "
                          "nltk.download('wordnet') yourself, or use --meteor-synonyms off)")
    from nltk.corpus import wordnet
    return wordnet


def meteor_values(matches: np.ndarray, chunks: np.ndarray, hyp_len: np.ndarray,
                  ref_len: np.ndarray, alpha: float = ALPHA, beta: float = BETA,
                  gamma: float = GAMMA) -> np.ndarray:
    """NLTK ``single_meteor_score`` from the counts, vectorised (the same operations)."""
    m = np.asarray(matches, dtype=np.float64)
    hl = np.asarray(hyp_len, dtype=np.float64)
    rl = np.asarray(ref_len, dtype=np.float64)
    ok = (m > 0) & (hl > 0) & (rl > 0)
    one = np.where(ok, 1.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = m / np.where(ok, hl, one)
        r = m / np.where(ok, rl, one)
        fmean = (p * r) / (alpha * p + (1 - alpha) * r)
        frag = np.asarray(chunks, dtype=np.float64) / np.where(ok, m, one)
        penalty = gamma * frag ** beta
        score = (1 - penalty) * fmean
    return np.where(ok, score, 0.0)


@register
class METEOR(Measure):
    """METEOR 1.0 as NLTK's ``meteor_score`` (exact + stem modules; synonyms optional)."""

    name = "meteor"
    long_name = "METEOR (exact and stem matching, fragmentation penalty)"
    report_element = "meteor"
    higher_is_better = True
    default_enabled = False
    source = "Banerjee & Lavie 2005 §2; NLTK nltk.translate.meteor_score"
    option_groups: ClassVar[tuple[str, ...]] = ("meteor", "stemming")
    stat_names_: ClassVar[tuple[str, ...]] = ("score", "sentences", "matches", "chunks",
                                              "hyp_len", "ref_len")

    def __init__(self, options: EvalOptions | None = None) -> None:
        super().__init__(options)
        o = self.options
        self.alpha = ALPHA if o.meteor_alpha is None else float(o.meteor_alpha)
        self.beta = BETA if o.meteor_beta is None else float(o.meteor_beta)
        self.gamma = GAMMA if o.meteor_gamma is None else float(o.meteor_gamma)
        self.wordnet = local_wordnet() if o.meteor_synonyms == "wordnet" else None
        self._clear_caches()

    def _clear_caches(self) -> None:
        self._stemmer: Any = None
        self._lo_ids: dict[str, int] = {}
        self._st_ids: dict[str, int] = {}
        self._lo_of = np.zeros(0, dtype=np.int64)
        self._st_of = np.zeros(0, dtype=np.int64)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        for k in ("_stemmer", "_lo_ids", "_st_ids", "_lo_of", "_st_of", "wordnet"):
            state.pop(k, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._clear_caches()
        self.wordnet = local_wordnet() if self.options.meteor_synonyms == "wordnet" else None

    @property
    def stat_names(self) -> list[str]:
        return list(self.stat_names_)

    def stemmer(self) -> Any:
        """The stem module's stemmer: NLTK's ``PorterStemmer()`` (``meteor_score``'s
        default) or ``SnowballStemmer(stem-language)``."""
        if self._stemmer is None:
            if self.options.meteor_stemmer == "snowball":
                from nltk.stem.snowball import SnowballStemmer
                self._stemmer = SnowballStemmer(self.options.stem_language)
            else:
                from nltk.stem.porter import PorterStemmer
                self._stemmer = PorterStemmer()
        return self._stemmer

    def _word_list(self) -> Sequence[str]:
        return self.vocab.words if self.vocab is not None else ()

    def _word(self, k: int) -> str:
        words = self._word_list()
        return words[k] if k < len(words) and words[k] is not None else str(k)

    def _words(self, ids: np.ndarray) -> tuple[str, ...]:
        return tuple(self._word(int(x)) for x in ids)

    def _maps(self, top: int) -> tuple[np.ndarray, np.ndarray]:
        """Lower-cased-word ids and stem ids of every token id below ``top`` (each word
        lower-cased and stemmed once)."""
        have = len(self._lo_of)
        if top > have:
            o = self.options
            key = "porter" if o.meteor_stemmer == "porter" else f"snowball:{o.stem_language}"
            cache = _STEMS.setdefault(key, {})
            if len(cache) > _STEMS_LIMIT:
                cache.clear()
            stemmer = self.stemmer().stem

            def stem(w: str) -> str:
                got = cache.get(w)
                if got is None:
                    got = cache[w] = stemmer(w)
                return got
            lo = np.empty(top - have, dtype=np.int64)
            st = np.empty(top - have, dtype=np.int64)
            for k in range(have, top):
                w = self._word(k).lower()
                lo[k - have] = self._lo_ids.setdefault(w, len(self._lo_ids))
                s = stem(w)
                st[k - have] = self._st_ids.setdefault(s, len(self._st_ids))
            self._lo_of = np.concatenate([self._lo_of, lo])
            self._st_of = np.concatenate([self._st_of, st])
        return self._lo_of, self._st_of

    def _pair_counts(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                     pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.wordnet is not None:
            return self._pair_counts_wordnet(hyps, refs, pair_hyp, pair_ref)
        hf, ho = packed(hyps)
        rf, ro = packed(refs)
        top = int(max(hf.max(initial=-1), rf.max(initial=-1))) + 1
        lo, st = self._maps(top)
        return match_pairs(lo[hf], st[hf], ho, lo[rf], st[rf], ro,
                           np.asarray(pair_hyp, np.int64), np.asarray(pair_ref, np.int64))

    def _pair_counts_wordnet(self, hyps, refs, pair_hyp, pair_ref) -> tuple[np.ndarray, np.ndarray]:
        """With the synonym module: NLTK's own ``align_words`` (exact, stem, WordNet)."""
        from nltk.translate.meteor_score import _count_chunks, align_words
        mt = np.zeros(len(pair_hyp), dtype=np.int64)
        ch = np.zeros(len(pair_hyp), dtype=np.int64)
        for p, (a, b) in enumerate(zip(pair_hyp, pair_ref)):
            h = [self._word(int(k)) for k in hyps[a]]
            r = [self._word(int(k)) for k in refs[b]]
            matches, _, _ = align_words(h, r, stemmer=self.stemmer(), wordnet=self.wordnet)
            mt[p] = len(matches)
            ch[p] = _count_chunks(matches)
        return mt, ch

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        hyps = [s.hyp for s in segments]
        refs: list[np.ndarray] = []
        pair_hyp: list[int] = []
        for i, s in enumerate(segments):
            refs.extend(s.refs)
            pair_hyp.extend([i] * len(s.refs))
        out = np.zeros((len(segments), len(self.stat_names_)), dtype=np.float64)
        if not refs:
            return out
        ph = np.asarray(pair_hyp, dtype=np.int64)
        mt, ch = self._pair_counts(hyps, refs, ph, np.arange(len(refs), dtype=np.int64))
        hl = np.array([len(hyps[i]) for i in pair_hyp], dtype=np.float64)
        rl = np.array([len(r) for r in refs], dtype=np.float64)
        vals = meteor_values(mt, ch, hl, rl, self.alpha, self.beta, self.gamma)
        counts = np.fromiter((len(s.refs) for s in segments), dtype=np.int64,
                             count=len(segments))
        rows = np.flatnonzero(counts)
        if counts[rows].min() == counts.max():            # as many references everywhere
            k = int(counts.max())
            best = np.arange(len(rows)) * k + np.argmax(vals.reshape(-1, k), axis=1)
        else:
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[rows]
            best = np.array([a + int(np.argmax(vals[a:a + counts[i]]))
                             for a, i in zip(starts, rows)], dtype=np.int64)
        # the first maximum of each segment's references (NLTK: max())
        out[rows] = np.column_stack([vals[best], np.ones(len(rows)), mt[best], ch[best],
                                     hl[best], rl[best]])
        return out

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=float)
        value = float(st[0] / st[1]) if st[1] > 0 else 0.0
        details = {"score": value, "score-percent": 100.0 * value, "sentences": float(st[1]),
                   "matches": float(st[2]), "chunks": float(st[3]),
                   "hypothesis-length": float(st[4]), "reference-length": float(st[5])}
        return MeasureScore(self.name, value, {"METEOR": value}, details)

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        return np.where(st[:, 1] > 0, st[:, 0] / np.where(st[:, 1] > 0, st[:, 1], 1.0), 0.0)

    def align(self, seg: Segment) -> Alignment | None:
        if not seg.refs:
            return None
        row = self.corpus_stats([seg])[0]
        vals = [self.corpus_stats([Segment(seg.hyp, (r,))])[0][0] for r in seg.refs]
        k = int(np.argmax(vals))
        hyp, ref = seg.hyp, seg.refs[k]
        top = int(max(hyp.max(initial=-1), ref.max(initial=-1))) + 1
        lo, st = self._maps(top)
        _m, chunks, to_ref = match_pair(lo[hyp], st[hyp], lo[ref], st[ref])
        by_ref = {int(j): i for i, j in enumerate(to_ref.tolist()) if j >= 0}
        ops = [EditOp(OpKind.MATCH, by_ref[j], j, 0.0) if j in by_ref
               else EditOp(OpKind.DEL, None, j, 1.0) for j in range(len(ref))]
        ops += [EditOp(OpKind.INS, i, None, 1.0) for i, j in enumerate(to_ref.tolist()) if j < 0]
        stem_only = [(int(i), int(j)) for i, j in enumerate(to_ref.tolist())
                     if j >= 0 and lo[hyp[i]] != lo[ref[j]]]
        return Alignment(self.name, self._words(hyp), self._words(ref), float(sum(o.cost for o in ops)),
                         tuple(ops), (), k, {"score": float(row[0]), "chunks": int(chunks),
                                             "stem_matches": stem_only})
