"""chrF and chrF++: character (and word) n-gram F-score (Popović 2015, 2017), result-identical
to sacreBLEU's ``CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)``.

Options (``EvalOptions.chrf_*``): character order (6), word order (0; 2 = chrF++), β (2),
eps smoothing (off: sacreBLEU's effective-order averaging), whitespace (off: removed
before the character n-grams), case (``run`` follows ``--case``). It works on the raw
texts ``seg.hyp_text`` / ``seg.ref_texts``, not on the run's word tokens; word n-grams
use sacreBLEU's own word splitting (``CHRF._remove_punctuation``: whitespace split, then
one punctuation mark split off the end, else off the start, of each word longer than
one character).

Sufficient statistics (sacreBLEU's, they add up): ``[hyp_n, ref_n, match_n]`` for the
character orders n = 1..C, then for the word orders n = 1..W, of the reference with the
best sentence score (the first one with the strictly highest, as sacreBLEU's
``CHRF._compute_segment_statistics``). A candidate's n-grams count only for orders that
have reference n-grams (sacreBLEU ``_get_match_statistics``). The score from
statistics is sacreBLEU's ``CHRF._compute_f_score`` (:func:`f_scores`, same operations,
same floats, vectorised). The counting runs in our compiled n-gram kernel
(:func:`~evaltrans_qt.engine.kernels.ngrams.pair_common`) over Unicode code points and
over word ids, for a whole chunk of segments at once (each distinct reference once).

Degenerate input: an empty candidate or reference scores 0 as in sacreBLEU (an empty
pair too: sacreBLEU's chrF of "" against "" is 0, not 100). A segment without any
reference (sacreBLEU raises an IndexError for it) has all-zero statistics and so does
not count in the corpus score; its own sentence score is 0. No value is ever NaN or inf.

Report elements: ``score`` (fraction), ``score-percent``, per character order
``<n-gram n="n">`` and per word order ``<word-n-gram n="n">`` with ``precision``,
``recall``, ``hypothesis``, ``reference``, ``match``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import CHRF as SacreCHRF

from evaltrans_qt.engine.kernels.ngrams import pair_common
from evaltrans_qt.engine.kernels.packing import pack
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import OptionError, ScoreError

CHAR_ORDER = 6
BETA = 2
EPS = 1e-16      # sacreBLEU CHRF._compute_f_score's eps
_CACHE_LIMIT = 200_000


def char_ids(text: str, lowercase: bool = False, whitespace: bool = False) -> np.ndarray:
    """Code points of ``text`` as sacreBLEU's ``extract_all_char_ngrams`` sees them: all
    whitespace removed unless ``whitespace`` (then the text is used as it is)."""
    if lowercase:
        text = text.lower()
    if not whitespace:
        text = "".join(text.split())
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.int32)


def char_ids_packed(texts: Sequence[str], lowercase: bool = False, whitespace: bool = False
                    ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`char_ids` of many texts at once, packed: ``(flat, offsets)`` with text i's
    code points in ``flat[offsets[i]:offsets[i+1]]`` (one encode for all of them)."""
    if lowercase:
        texts = [t.lower() for t in texts]
    if not whitespace:
        texts = ["".join(t.split()) for t in texts]
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)), out=offsets[1:])
    flat = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.int32)
    return flat, offsets


def f_scores(stats: np.ndarray, beta: int = BETA, eps_smoothing: bool = False) -> np.ndarray:
    """sacreBLEU ``CHRF._compute_f_score`` (0..100) for many rows at once: the same
    operations in the same order, so the same floats. Rows hold ``[hyp, ref, match]``
    per order."""
    stats = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    rows, order = stats.shape[0], stats.shape[1] // 3
    factor = beta ** 2
    avg_prec = np.zeros(rows)
    avg_rec = np.zeros(rows)
    score = np.zeros(rows)
    eff = np.zeros(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(order):
            n_hyp, n_ref, n_match = stats[:, 3 * i], stats[:, 3 * i + 1], stats[:, 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / n_hyp, EPS)
            rec = np.where(n_ref > 0, n_match / n_ref, EPS)
            if eps_smoothing:
                denom = factor * prec + rec
                score += np.where(denom > 0, (1 + factor) * prec * rec / denom, EPS)
                continue
            ok = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(ok, avg_prec + prec, avg_prec)
            avg_rec = np.where(ok, avg_rec + rec, avg_rec)
            eff += ok
        if eps_smoothing:
            return 100 * score / order if order else np.zeros(rows)
        avg_prec = np.where(eff > 0, avg_prec / eff, 0.0)
        avg_rec = np.where(eff > 0, avg_rec / eff, 0.0)
        num = (1 + factor) * avg_prec * avg_rec
        score = num / ((factor * avg_prec) + avg_rec)
    return np.where(avg_prec + avg_rec != 0, 100 * score, 0.0)


def effective_lowercase(options: EvalOptions) -> bool:
    """chrF's case: ``chrf_case`` (``run`` = the run's ``case`` option)."""
    case = options.chrf_case if options.chrf_case != "run" else options.case
    return case == "ignore"


@register
class CHRF(Measure):
    """sacreBLEU's chrF / chrF++ with every option of its ``CHRF``; higher is better."""

    name = "chrf"
    long_name = "chrF (character n-gram F-score)"
    report_element = "chrf"
    higher_is_better = True
    source = ("Popović 2015 (chrF), 2017 (chrF++); sacreBLEU metrics/chrf.py "
              "(_compute_f_score, _compute_segment_statistics)")

    def __init__(self, options: EvalOptions | None = None) -> None:
        super().__init__(options)
        o = self.options
        self.char_order = int(o.chrf_char_order)
        self.word_order = int(o.chrf_word_order)
        self.beta = int(o.chrf_beta)
        self.eps_smoothing = bool(o.chrf_eps_smoothing)
        self.whitespace = bool(o.chrf_whitespace)
        self.lowercase = effective_lowercase(o)
        if self.char_order + self.word_order < 1:
            raise OptionError("--chrf-char-order plus --chrf-word-order must be at least 1")
        self._sacre = SacreCHRF(char_order=self.char_order, word_order=self.word_order,
                                beta=self.beta, lowercase=self.lowercase,
                                whitespace=self.whitespace, eps_smoothing=self.eps_smoothing)
        self._clear_caches()

    def _clear_caches(self) -> None:
        self._ref_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._word_ids: dict[str, int] = {}

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_ref_cache"] = {}          # not shipped to worker processes
        state["_word_ids"] = {}
        return state

    @property
    def order(self) -> int:
        return self.char_order + self.word_order

    @property
    def stat_names(self) -> list[str]:
        kinds = ("hyp", "ref", "match")
        return ([f"{k}_{n}" for n in range(1, self.char_order + 1) for k in kinds]
                + [f"{k}_w{n}" for n in range(1, self.word_order + 1) for k in kinds])

    # -- preprocessing -------------------------------------------------------
    def words(self, text: str) -> np.ndarray:
        """Word ids of ``text`` split as sacreBLEU's chrF++ does (after lower-casing)."""
        if self.lowercase:
            text = text.lower()
        ids = self._word_ids
        return np.fromiter((ids.setdefault(w, len(ids)) for w in self._sacre._remove_punctuation(text)),
                           dtype=np.int32)

    def _prepare(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        chars = char_ids(text, self.lowercase, self.whitespace)
        words = self.words(text) if self.word_order else np.zeros(0, np.int32)
        return chars, words

    # -- statistics ----------------------------------------------------------
    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        C, W = self.char_order, self.word_order
        n = len(segments)
        out = np.zeros((n, 3 * (C + W)), dtype=np.float64)
        if len(self._ref_cache) > _CACHE_LIMIT or len(self._word_ids) > 10 * _CACHE_LIMIT:
            self._clear_caches()
        # the distinct references of these segments, each prepared once per process
        cache = self._ref_cache
        position: dict[str, int] = {}
        ref_texts: list[str] = []
        pair_ref: list[int] = []
        n_ref = np.zeros(n, dtype=np.int64)
        for k, seg in enumerate(segments):
            if len(seg.ref_texts) != len(seg.refs):
                raise ScoreError("chrF needs the raw reference texts of every segment")
            n_ref[k] = len(seg.ref_texts)
            for text in seg.ref_texts:
                j = position.get(text)
                if j is None:
                    j = position[text] = len(ref_texts)
                    ref_texts.append(text)
                pair_ref.append(j)
        if not pair_ref:
            return out
        refs = []
        for text in ref_texts:       # the same references recur for every system
            got = cache.get(text)
            if got is None:
                got = cache[text] = self._prepare(text)
            refs.append(got)
        pair_hyp = np.repeat(np.arange(n, dtype=np.int64), n_ref)
        pair_ref_ = np.asarray(pair_ref, dtype=np.int64)
        hyp_texts = [seg.hyp_text for seg in segments]
        pair = np.zeros((len(pair_ref), 3 * (C + W)), dtype=np.float64)
        for kind, order, first in ((0, C, 0), (1, W, C)):
            if not order:
                continue
            if kind == 0:
                h = char_ids_packed(hyp_texts, self.lowercase, self.whitespace)
            else:
                h = pack([self.words(t) for t in hyp_texts])
            r = pack([x[kind] for x in refs])
            nn = np.arange(1, order + 1)
            hyp_len = np.diff(h[1])[pair_hyp]
            ref_len = np.diff(r[1])[pair_ref_]
            hyp_n = np.maximum(0, hyp_len[:, None] - nn[None, :] + 1)
            ref_n = np.maximum(0, ref_len[:, None] - nn[None, :] + 1)
            cols = slice(3 * first, 3 * (first + order))
            block = pair[:, cols]                            # a view: fills ``pair``
            block[:, 0::3] = np.where(ref_n > 0, hyp_n, 0)  # no hyp count without ref n-grams
            block[:, 1::3] = ref_n
            block[:, 2::3] = pair_common(h, r, pair_hyp, pair_ref_, order)
        f = f_scores(pair, self.beta, self.eps_smoothing)
        # per segment, the first reference with the strictly best f (sacreBLEU's loop)
        owner = pair_hyp
        order_ = np.lexsort((np.arange(len(f)), -f, owner))
        first_ = np.ones(len(order_), dtype=bool)
        first_[1:] = owner[order_[1:]] != owner[order_[:-1]]
        best = order_[first_]
        out[owner[best]] = pair[best]
        return out

    # -- scores --------------------------------------------------------------
    def score_values(self, stats: np.ndarray) -> np.ndarray:
        """chrF (fraction) of each row, vectorised (significance tests, bootstrap)."""
        return f_scores(stats, self.beta, self.eps_smoothing) / 100.0

    def score(self, stats: np.ndarray) -> MeasureScore:
        st = np.asarray(stats, dtype=np.float64)
        # sacreBLEU annotates the statistics List[int]; it computes with any numbers, and
        # the summed statistics are passed as the floats they are
        row = [float(x) for x in st]
        value = float(self._sacre._compute_f_score(row)) / 100.0  # type: ignore[arg-type]
        parts: list[tuple[dict[str, int], dict[str, float]]] = []
        word_parts: list[tuple[dict[str, int], dict[str, float]]] = []
        for i in range(self.order):
            hyp, ref, match = (float(x) for x in st[3 * i:3 * i + 3])
            n = i + 1 if i < self.char_order else i + 1 - self.char_order
            (parts if i < self.char_order else word_parts).append(
                ({"n": n}, {"precision": match / hyp if hyp > 0 else 0.0,
                            "recall": match / ref if ref > 0 else 0.0,
                            "hypothesis": hyp, "reference": ref, "match": match}))
        details = {"score": value, "score-percent": 100.0 * value, "n-gram": parts}
        if word_parts:
            details["word-n-gram"] = word_parts
        return MeasureScore(self.name, value, {"chrF": value}, details)
