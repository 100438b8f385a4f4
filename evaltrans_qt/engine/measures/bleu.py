"""BLEU, BLEU-S and BLEU-S' (thesis section 3.1, eq. 3.1-3.7), with sacreBLEU's, Moses' and
NRC's smoothing of the headline score.

Sufficient statistics per segment, which add up over segments (as sacreBLEU's):
``[hyp_len, ref_len, correct_1..M, total_1..M]`` with the clipped m-gram
co-occurrence counts n∩_m (eq. 3.2, references pooled by eq. 3.1) and the
candidate m-gram counts N_m; with ``bleu-smooth-method nrc`` one more column,
``correct_{M+1}`` (the order M+1 that Chen & Cherry's averaging needs). Every
smoothing depends only on these counts, so a system score smooths the summed
counts and a sentence score smooths one row: one code path (:func:`headline`).

Headline score (column "BLEU", report ``score``/``score-unpenalized``), by
``bleu-smooth-method`` (value v = ``bleu-smooth-value``, default in brackets):

* ``none`` -- genuine BLEU (eq. 3.4): 0 if some order has no match;
* ``floor`` [0.1], ``add-k`` [1], ``exp`` -- sacreBLEU 2.x ``BLEU.compute_bleu``
  (metrics/bleu.py; Chen & Cherry 2014 methods 1, 2, 3), the same float
  operations in the same order (precisions in percent, ``utils.my_log``'s floor
  -9999999999 for log 0, the score divided by 100 at the end); like sacreBLEU,
  a row without any match scores 0 and orders from the first one without
  candidate m-grams on have precision 0 (so the score is 0) unless
  ``bleu-effective-order`` averages over the orders before it only;
* ``moses`` [1] -- Moses' sentence-level BLEU (``mert/sentence-bleu``, ``BleuScorer``
  ``smoothedSentenceBleu``; Macháček's thesis §4.2.3): p_m = (n∩_m + v) / (N_m + v)
  on *every* order including unigrams, exp(mean log p_m) times the brevity
  penalty; no early stop (a candidate without matches scores > 0; an empty
  candidate with an empty reference scores 1, as Moses). Computed in double
  precision (Moses uses float);
* ``nrc`` [K = 5] -- BLEU-NRC (Chen & Cherry 2014 method 4 followed by method 5,
  i.e. their method 7; Macháček §4.2.3): with invcnt = 1, for m = 1..M+1 an
  order without match gets m'_m = 1/invcnt after invcnt *= K / ln(I) (I = candidate
  length; for I <= 1 the factor is +inf, so m'_m = 0), other orders m'_m = n∩_m;
  then m''_0 = m'_1 + 1, m''_m = (m''_{m-1} + m'_m + m'_{m+1}) / 3 for m = 1..M,
  and p_m = m''_m / N_m. Orders without candidate m-grams and the effective order
  as for sacreBLEU's methods; no early stop.

BLEU-S (s_1 = 0, s_m>1 = 1, eq. 3.6) and BLEU-S' (s'_m>1 = 0.5 if n∩_m = 0, eq. 3.7)
are always reported beside it, unsmoothed otherwise. Length penalty
lp = min(1, exp(1 - L*/I)) (eq. 3.5), as sacreBLEU: 1 when I >= L* (also 0 = 0),
0 for an empty candidate with a non-empty reference.

Lengths are unpadded word counts; sentence boundaries (``bleu-pad-rule``)
only add boundary m-grams. ``hyp_len``/``ref_len`` of a row: I_k and L*_k of
Table A.4 (``bleu-ref-length-rule``).

Report elements (thesis Figure A.3): ``score-unpenalized``, ``score``,
``s-score-unpenalized``, ``s-score``, ``r-score-unpenalized``, ``r-score``,
``length-penalty``, plus ``candidate-length`` and ``reference-length``; one
``<n-gram n="m">`` per order with ``precision``, ``s-precision``,
``r-precision`` (the m-gram parts of BLEU, BLEU-S, BLEU-S'),
``smoothed-precision`` (the headline method's p_m; sacreBLEU's ``precisions``
divided by 100), ``correct`` (n∩_m) and ``total`` (N_m). With ``all-ngrams``
each ``<n-gram n="m">`` also holds the six ``score…`` elements of the same
measure with maximum order M = m.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.ngrams import clipped_counts, pad_flags
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.options import BLEU_SMOOTH_METHODS, EvalOptions
from evaltrans_qt.engine.text.reflength import ngram_reference_length
from evaltrans_qt.errors import OptionError

#: Smoothing variants: genuine (eq. 3.4), BLEU-S (eq. 3.6), BLEU-S' (eq. 3.7).
VARIANTS = ("genuine", "s", "r")
_PREFIX = {"genuine": "", "s": "s-", "r": "r-"}
#: Default ``bleu-smooth-value`` per method (sacreBLEU ``BLEU.SMOOTH_DEFAULTS``; Moses'
#: +1; Chen & Cherry's K = 5).
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None,
                                            "moses": 1.0, "nrc": 5.0}
#: sacreBLEU's methods: a row without any match scores 0 (its issue #141 early stop).
_SACREBLEU_METHODS = ("none", "floor", "add-k", "exp")
#: sacreBLEU ``utils.my_log``: log 0 is floored to this.
LOG_ZERO = -9999999999


def precision(correct: float, total: float, m: int, variant: str) -> float:
    """Smoothed modified m-gram precision (n∩_m + s_m) / (N_m + s_m), 0 when undefined."""
    s = 0.0
    if m > 1:
        if variant == "s":
            s = 1.0
        elif variant == "r" and correct == 0:
            s = 0.5
    den = total + s
    return (correct + s) / den if den > 0 else 0.0


def unpenalized(correct: Sequence[float], total: Sequence[float], variant: str,
                max_order: int | None = None) -> float:
    """exp(Σ_m w_m log p_m) with w_m = 1/M (eq. 3.4); 0 if some p_m is 0."""
    M = len(correct) if max_order is None else max_order
    logs = 0.0
    for m in range(1, M + 1):
        p = precision(correct[m - 1], total[m - 1], m, variant)
        if p <= 0.0:
            return 0.0
        logs += math.log(p)
    return math.exp(logs / M)


def length_penalty(hyp_len: float, ref_len: float) -> float:
    """lp_BLEU = min(1, exp(1 - L*/I)) (eq. 3.5) as sacreBLEU's brevity penalty: 1 when
    I >= L* (also for I = L* = 0), 0 for an empty candidate with a non-empty reference."""
    if hyp_len >= ref_len:
        return 1.0
    return math.exp(1 - ref_len / hyp_len) if hyp_len > 0 else 0.0


def smooth_value(method: str, value: float | None) -> float | None:
    """``bleu-smooth-value`` or the method's default (:data:`SMOOTH_DEFAULTS`)."""
    if method not in SMOOTH_DEFAULTS:
        raise OptionError(f"unknown BLEU smoothing method '{method}' "
                          f"(known: {', '.join(BLEU_SMOOTH_METHODS)})")
    return SMOOTH_DEFAULTS[method] if value is None else value


def nrc_counts(correct: np.ndarray, next_correct: np.ndarray, hyp_len: np.ndarray, k: float
               ) -> np.ndarray:
    """Chen & Cherry 2014 method 4 then method 5 (Macháček §4.2.3): the smoothed counts
    m''_1..M of each row from n∩_1..M, n∩_{M+1} and the candidate length I (see module doc)."""
    rows, M = correct.shape
    counts = np.concatenate([correct, np.reshape(next_correct, (rows, 1))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(hyp_len > 1, k / np.log(np.where(hyp_len > 1, hyp_len, 2.0)), np.inf)
        invcnt = np.ones(rows)
        first = np.empty((rows, M + 1))
        for j in range(M + 1):                                  # method 4
            zero = counts[:, j] == 0
            invcnt = np.where(zero, invcnt * factor, invcnt)
            first[:, j] = np.where(zero, 1.0 / invcnt, counts[:, j])
    out = np.empty((rows, M))
    prev = first[:, 0] + 1                                      # method 5: m''_0 = m'_1 + 1
    for j in range(M):
        prev = (prev + first[:, j] + first[:, j + 1]) / 3
        out[:, j] = prev
    return out


def _my_log(x: float) -> float:
    """sacreBLEU ``utils.my_log``: log, with log 0 floored to :data:`LOG_ZERO`."""
    return LOG_ZERO if x == 0.0 else math.log(x)


def headline_row(hyp_len: float, ref_len: float, correct: Sequence[float],
                 total: Sequence[float], method: str = "none", value: float | None = None,
                 effective_order: bool = False, next_correct: float = 0.0
                 ) -> tuple[float, float, list[float], float]:
    """The headline BLEU of one row: ``(score %, unpenalized %, precisions %, bp)``.

    sacreBLEU ``BLEU.compute_bleu`` (metrics/bleu.py) statement by statement (so the
    same value bit for bit), plus ``moses`` and ``nrc`` (module doc). :func:`headline`
    is the same computation vectorised over rows.
    """
    v = smooth_value(method, value)
    if v is None:           # 'none' and 'exp' have no value, and nothing below reads it
        v = 0.0
    M = len(correct)
    bp = 1.0
    if hyp_len < ref_len:
        bp = math.exp(1 - ref_len / hyp_len) if hyp_len > 0 else 0.0
    precisions = [0.0] * M
    if method in _SACREBLEU_METHODS and not any(correct):
        return 0.0, 0.0, precisions, bp
    cor, tot = [float(c) for c in correct], [float(t) for t in total]
    if method == "moses":
        cor, tot = [c + v for c in cor], [t + v for t in tot]
    elif method == "nrc":
        factor = v / math.log(hyp_len) if hyp_len > 1 else math.inf
        invcnt, first = 1.0, []
        for c in cor + [float(next_correct)]:               # method 4
            if c == 0:
                invcnt *= factor
                first.append(1.0 / invcnt)
            else:
                first.append(c)
        prev = first[0] + 1                                 # method 5
        for j in range(M):
            prev = (prev + first[j] + first[j + 1]) / 3
            cor[j] = prev
    smooth_mteval = 1.
    eff_order = M
    for n in range(1, M + 1):
        if method == "add-k" and n > 1:
            cor[n - 1] += v
            tot[n - 1] += v
        if tot[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if cor[n - 1] == 0:
            if method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100. / (smooth_mteval * tot[n - 1])
            elif method == "floor":
                precisions[n - 1] = 100. * v / tot[n - 1]
        else:
            precisions[n - 1] = 100. * cor[n - 1] / tot[n - 1]
    unpen = math.exp(sum([_my_log(p) for p in precisions[:eff_order]]) / eff_order)
    return bp * unpen, unpen, precisions, bp


def headline(hyp_len: np.ndarray, ref_len: np.ndarray, correct: np.ndarray, total: np.ndarray,
             method: str = "none", value: float | None = None, effective_order: bool = False,
             next_correct: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`headline_row` of many rows at once, order by order with the same operations
    (numpy's log and exp may differ from Python's in the last bit)."""
    v = smooth_value(method, value)
    if v is None:           # 'none' and 'exp' have no value, and nothing below reads it
        v = 0.0
    hyp = np.asarray(hyp_len, dtype=np.float64)
    ref = np.asarray(ref_len, dtype=np.float64)
    cor = np.array(correct, dtype=np.float64, ndmin=2)
    tot = np.array(total, dtype=np.float64, ndmin=2)
    rows, M = cor.shape
    any_match = (cor != 0).any(axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        short = (hyp < ref) & (hyp > 0)
        bp = np.where(hyp < ref, 0.0, 1.0)
        if short.any():
            bp[short] = np.exp(1 - ref[short] / hyp[short])
        if method == "add-k":
            cor[:, 1:] += v
            tot[:, 1:] += v
        elif method == "moses":
            cor += v
            tot += v
        elif method == "nrc":
            if next_correct is None:
                raise ValueError("nrc smoothing needs the counts of order M+1")
            cor = nrc_counts(cor, np.asarray(next_correct, dtype=np.float64), hyp, v)
        prec = np.zeros((rows, M))
        alive = np.ones(rows, dtype=bool)
        eff = np.full(rows, M, dtype=np.int64)
        mteval = np.ones(rows)
        for j in range(M):
            alive &= tot[:, j] != 0                    # sacreBLEU: stop at an order without m-grams
            if effective_order:
                eff = np.where(alive, j + 1, eff)
            t = np.where(alive, tot[:, j], 1.0)
            zero = cor[:, j] == 0
            if method == "exp":
                mteval = np.where(alive & zero, mteval * 2, mteval)
                p_zero = 100. / (mteval * t)
            elif method == "floor":
                p_zero = 100. * v / t
            else:
                p_zero = np.zeros(rows)
            prec[:, j] = np.where(alive, np.where(zero, p_zero, 100. * cor[:, j] / t), 0.0)
        if method in _SACREBLEU_METHODS:
            prec[~any_match] = 0.0
        logs = np.zeros(rows)
        for j in range(M):
            p = prec[:, j]
            lp = np.where(p == 0.0, float(LOG_ZERO), np.log(np.where(p == 0.0, 1.0, p)))
            logs = np.where(j < eff, logs + lp, logs)
        unpen = np.exp(logs / eff)
        score = bp * unpen
    if method in _SACREBLEU_METHODS:
        score = np.where(any_match, score, 0.0)
        unpen = np.where(any_match, unpen, 0.0)
    return score, unpen, prec, bp


def reference_lengths(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]],
                      rule: str) -> tuple[np.ndarray, np.ndarray]:
    """Candidate lengths I_k and reference lengths L*_k (Table A.4), vectorised.

    Same values as :func:`evaltrans_qt.engine.text.reflength.ngram_reference_length`.
    """
    hyp_len = np.fromiter(map(len, hyps), dtype=np.int64, count=len(hyps))
    nref = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
    if len(hyps) == 0 or (nref == 0).any() or rule not in ("average", "minimum", "minimumNearest"):
        ref_lens = [ngram_reference_length(int(h), [len(r) for r in rs], rule)
                    for h, rs in zip(hyp_len, refs)]
        return hyp_len.astype(np.float64), np.asarray(ref_lens, dtype=np.float64)
    lens = np.fromiter((len(r) for rs in refs for r in rs), dtype=np.int64, count=int(nref.sum()))
    starts = np.zeros(len(refs), dtype=np.int64)
    np.cumsum(nref[:-1], out=starts[1:])
    if rule == "average":
        ref_len = np.add.reduceat(lens, starts) / nref
    elif rule == "minimum":
        ref_len = np.minimum.reduceat(lens, starts)
    else:  # minimumNearest: closest length, ties to the shorter (eq. 5.2)
        big = int(lens.max()) + 1
        key = np.abs(np.repeat(hyp_len, nref) - lens) * big + lens
        ref_len = np.minimum.reduceat(key, starts) % big
    return hyp_len.astype(np.float64), np.asarray(ref_len, dtype=np.float64)


def ngram_stats(segments: Sequence[Segment], max_order: int, pad_rule: str, ref_rule: str
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(hyp_len, ref_len, correct, total) of BLEU for each segment."""
    hyps = [s.hyp for s in segments]
    refs = [s.refs for s in segments]
    correct, total, _, _ = clipped_counts(hyps, refs, max_order, pad_rule)
    hyp_len, ref_len = reference_lengths(hyps, refs, ref_rule)
    return hyp_len, ref_len, correct, total


@register
class BLEU(Measure):
    """BLEU with its smoothed variants BLEU-S and BLEU-S' (higher is better)."""

    name = "bleu"
    long_name = "BLEU (BiLingual Evaluation Understudy)"
    report_element = "bleu"
    higher_is_better = True
    source = ("thesis section 3.1, eq. 3.1-3.7; Tables A.4, A.5; sacreBLEU "
              "metrics/bleu.py; Chen & Cherry 2014; Macháček §4.2.3")

    def __init__(self, options: EvalOptions | None = None) -> None:
        super().__init__(options)
        o = self.options
        self.max_order = o.max_ngram
        self.pad_rule = o.bleu_pad_rule
        self.ref_rule = o.bleu_ref_length_rule
        self.all_ngrams = o.all_ngrams
        self.smooth_method = o.bleu_smooth_method
        self.smooth_value = smooth_value(o.bleu_smooth_method, o.bleu_smooth_value)
        self.effective_order = o.bleu_effective_order
        if self.smooth_method == "nrc" and not (self.smooth_value is not None
                                                and self.smooth_value > 0):
            raise OptionError(f"--bleu-smooth-value: nrc smoothing needs K > 0, "
                              f"got {self.smooth_value!r}")
        pad_flags(self.pad_rule)

    @property
    def _extra(self) -> int:
        """1 if the statistics carry ``correct_{M+1}`` (nrc smoothing), else 0."""
        return 1 if self.smooth_method == "nrc" else 0

    @property
    def stat_names(self) -> list[str]:
        M = self.max_order
        names = (["hyp_len", "ref_len"] + [f"correct_{m}" for m in range(1, M + 1)]
                 + [f"total_{m}" for m in range(1, M + 1)])
        return names + [f"correct_{M + 1}"] * self._extra

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        return self.corpus_stats([seg])[0]

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        M = self.max_order
        out = np.zeros((len(segments), 2 + 2 * M + self._extra), dtype=np.float64)
        if not segments:
            return out
        hyp_len, ref_len, correct, total = self._ngram_stats(segments, M + self._extra)
        out[:, 0] = hyp_len
        out[:, 1] = ref_len
        out[:, 2:2 + M] = correct[:, :M]
        out[:, 2 + M:2 + 2 * M] = total[:, :M]
        if self._extra:
            out[:, 2 + 2 * M] = correct[:, M]
        return out

    def _ngram_stats(self, segments: Sequence[Segment], max_order: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(hyp_len, ref_len, correct, total) per segment (:func:`ngram_stats`); the hook
        a variant with other references overrides (SEGRANKSBLEU)."""
        return ngram_stats(segments, max_order, self.pad_rule, self.ref_rule)

    def _next_correct(self, st: np.ndarray, order: int) -> np.ndarray | None:
        """n∩_{order+1} of rows ``st`` for nrc smoothing (None otherwise)."""
        if self.smooth_method != "nrc":
            return None
        M = self.max_order
        return st[..., 2 + order] if order < M else st[..., 2 + 2 * M]

    def _row(self, st: np.ndarray, order: int) -> tuple[float, float, list[float], float]:
        """:func:`headline_row` of one row with maximum order ``order`` <= M."""
        M = self.max_order
        nxt = self._next_correct(st, order)
        return headline_row(float(st[0]), float(st[1]), st[2:2 + order].tolist(),
                            st[2 + M:2 + M + order].tolist(), self.smooth_method,
                            self.smooth_value, self.effective_order,
                            0.0 if nxt is None else float(nxt))

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        """The headline BLEU of many rows at once (:func:`headline`, as :meth:`score`)."""
        st = np.array(stats, dtype=np.float64, ndmin=2)
        M = self.max_order
        return headline(st[:, 0], st[:, 1], st[:, 2:2 + M], st[:, 2 + M:2 + 2 * M],
                        self.smooth_method, self.smooth_value, self.effective_order,
                        self._next_correct(st, M))[0] / 100

    def score(self, stats: np.ndarray) -> MeasureScore:
        M = self.max_order
        st = np.asarray(stats, dtype=np.float64)
        hyp_len, ref_len = float(st[0]), float(st[1])
        correct = st[2:2 + M].tolist()
        total = st[2 + M:2 + 2 * M].tolist()
        lp = length_penalty(hyp_len, ref_len)
        score, unpen, prec, _ = self._row(st, M)
        details: dict = {"score-unpenalized": unpen / 100, "score": score / 100}
        for v in VARIANTS[1:]:
            u = unpenalized(correct, total, v)
            details[f"{_PREFIX[v]}score-unpenalized"] = u
            details[f"{_PREFIX[v]}score"] = lp * u
        details["length-penalty"] = lp
        details["candidate-length"] = hyp_len
        details["reference-length"] = ref_len
        parts = []
        for m in range(1, M + 1):
            part: dict = {f"{_PREFIX[v]}precision": precision(correct[m - 1], total[m - 1], m, v)
                          for v in VARIANTS}
            part["smoothed-precision"] = prec[m - 1] / 100
            part["correct"] = correct[m - 1]
            part["total"] = total[m - 1]
            if self.all_ngrams:
                s_m, u_m, _, _ = self._row(st, m)
                part["score-unpenalized"] = u_m / 100
                part["score"] = s_m / 100
                for v in VARIANTS[1:]:
                    u = unpenalized(correct, total, v, m)
                    part[f"{_PREFIX[v]}score-unpenalized"] = u
                    part[f"{_PREFIX[v]}score"] = lp * u
            parts.append(({"n": m}, part))
        details["n-gram"] = parts
        columns = {"BLEU": details["score"], "BLEU-S": details["s-score"],
                   "BLEU-S'": details["r-score"]}
        return MeasureScore(self.name, details["score"], columns, details)
