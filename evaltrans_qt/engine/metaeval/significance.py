"""Significance between systems as sacreBLEU computes it: paired bootstrap resampling and
approximate randomisation on sufficient statistics.

Both tests resample *sufficient statistics* (rows of ``SystemResult.stats``)
and score ``score(sum of rows)``, so corpus measures (BLEU, chrF, TER, WER as
summed distances over summed reference lengths) are recomputed exactly as the
system score is (one code path, ``engine/measures/base.py``). Human scores use rows
``[value * weight, weight]`` (:func:`mean_stats`).

Methods (sacreBLEU 2.x ``sacrebleu/significance.py``; the default is sacreBLEU's):

* ``bootstrap`` -- sacreBLEU ``_paired_bs_test`` (Koehn 2004; Moses
  ``bootstrap-hypothesis-difference-significance.pl``): resample indices
  ``rng.choice(n, size=(B, n), replace=True)``; with ``a_b = |s_b(X) - s_b(Y)|``
  over the B resamples and the observed ``d = |s(X) - s(Y)|``,
  ``p = (1 + #{a_b - mean(a) > d}) / (B + 1)`` (``_compute_p_value``).
* ``randomization`` -- sacreBLEU ``_paired_ar_test`` (Riezler & Maxwell 2005):
  swap masks ``rng.integers(2, size=(R, n), dtype=bool)``; pseudo-systems
  ``A = pos @ X + neg @ Y``, ``B = neg @ X + pos @ Y``;
  ``p = (1 + #{|s(A) - s(B)| > d}) / (R + 1)``.
* ``bootstrap-centred`` -- this tool's earlier statistic, kept as an option:
  the same resamples, ``p = (1 + #{|δ_b - mean(δ)| >= |d|}) / (B + 1)`` with the
  signed differences ``δ_b = s_b(X) - s_b(Y)`` (a centred bootstrap, Bisani &
  Ney 2004, cited in thesis section 6.3.2 and ch. 9). It is larger than sacreBLEU's on the same data
  (e.g. 0.094 against Moses' 0.044 on a WMT17 system).

Each system's mean and 95% interval are sacreBLEU's ``estimate_ci``: the mean
of the B resampled scores and half the distance between the sorted scores at
``B // 40`` and ``B - B // 40 - 1`` (:func:`estimate_ci`).

Seeds (sacreBLEU ``PairedTest`` / ``_bootstrap_resample``): by default
(``seed="env"``) the environment variable ``SACREBLEU_SEED``, else 12345;
``"none"`` (any case) or ``None`` draws a random seed. Every comparison
re-seeds ``numpy.random.default_rng(seed)`` as sacreBLEU does, so the same
sentences (bootstrap) and the same swaps (randomisation) are drawn for every
pair: with the same seed, every p-value of the all-pairs matrix is the one
sacreBLEU prints when the pair's first system is its baseline, and means and
intervals are the same numbers (sacreBLEU sums the resampled statistics in
float32 and scores them partly in float32, we in float64: means and intervals
agree to ~1e-6 relative, p-values are identical unless a resample lies within
that of the threshold). Where a matrix cannot reproduce sacreBLEU's draws:

* a random seed: sacreBLEU draws afresh for every system it compares with the
  baseline; we draw one seed (``meta["entropy"]``) and share its draws;
* ``SACREBLEU_SEED=0``: sacreBLEU's ``PairedTest`` passes ``seed or None``, so
  its comparisons are random while the baseline's interval uses seed 0; we use
  seed 0 throughout;
* randomisation with confidence intervals (``confidence > 0``, sacreBLEU's
  ``n_ar_confidence``): each system's resamples are drawn after its swap masks
  from the same generator; sacreBLEU's baseline interval is drawn from a fresh
  generator, which :func:`paired_ar_vs_baseline` reproduces and the matrix
  (one interval per system) does not.

Two deliberate differences, both where sacreBLEU's float comparison decides:

* Ties. sacreBLEU counts ``stat > d`` on floats. Under randomisation a trial's
  difference often equals the observed one in exact arithmetic: for TER and
  the WER family both pseudo-systems keep the same summed reference length,
  so differences are multiples of 1 / length (on 200 WMT21 segments 79 of 2000
  trials tie); with discrete human scores likewise. Whether sacreBLEU counts
  such a trial depends on rounding in its sums (its p-value for one TER pair
  can lie anywhere between 0.904 and 0.944 depending on the last bit of the
  average reference lengths). We count ties never -- the strict ``>`` in exact
  arithmetic -- treating values within a relative :data:`TIE_TOLERANCE` as
  equal. Where no trial ties (BLEU, chrF) the p-values are sacreBLEU's.
* Two systems with identical statistics in every sentence get p = 1
  (sacreBLEU's strict ``>`` counts no resample and reports ``1 / (B + 1)``,
  i.e. "significant", for a system compared with itself).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from evaltrans_qt.engine.metaeval.statistics.bootstrap import bootstrap_counts
from evaltrans_qt.errors import EvalTransError, OptionError

if TYPE_CHECKING:
    from evaltrans_qt.engine.metaeval.thresholds import AgreementModel

#: score(B x k sums) -> B values
BatchScore = Callable[[np.ndarray], np.ndarray]
#: ``"env"`` (SACREBLEU_SEED or 12345), an int, ``None`` / ``"none"`` (random), or digits.
Seed = int | str | None
METHODS = ("bootstrap", "randomization", "bootstrap-centred")
_ALIASES = {"bs": "bootstrap", "ar": "randomization", "paired-bs": "bootstrap",
            "paired-ar": "randomization", "bootstrap-centered": "bootstrap-centred"}
#: sacreBLEU ``PairedTest._DEFAULT_SAMPLES``.
DEFAULT_SAMPLES = {"bootstrap": 1000, "bootstrap-centred": 1000, "randomization": 10000}
#: sacreBLEU's default seed and the environment variable that overrides it.
DEFAULT_SEED = 12345
SEED_ENV = "SACREBLEU_SEED"


# ------------------------------------------------------------------ statistics rows
def mean_stats(values: Sequence[float], weights: Sequence[float] | None = None) -> np.ndarray:
    """Statistics ``[value * weight, weight]`` whose summed ratio is the (weighted) mean."""
    v = np.asarray(values, float)
    w = np.ones_like(v) if weights is None else np.asarray(weights, float)
    return np.column_stack([v * w, w])


def ratio_score(sums: np.ndarray) -> np.ndarray:
    """Batch score for :func:`mean_stats` rows: sum(v w) / sum(w)."""
    sums = np.atleast_2d(sums)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums[:, 0] / sums[:, 1]


def measure_batch_score(measure) -> BatchScore:
    """Batch score from a :class:`Measure`: :meth:`Measure.score_values` (vectorised where
    the measure overrides it, else ``score(row).value`` row by row)."""
    return lambda sums: np.asarray(measure.score_values(np.atleast_2d(sums)), float)


# ------------------------------------------------------------------ seeds and draws
def method_name(method: str) -> str:
    """Canonical method name (``bs``/``ar`` accepted as sacreBLEU's short names)."""
    m = _ALIASES.get(method, method)
    if m not in METHODS:
        raise OptionError(f"unknown significance method '{method}' (use {', '.join(METHODS)})")
    return m


def resolve_seed(seed: Seed = "env") -> int | None:
    """sacreBLEU's seed handling (``_bootstrap_resample``, ``PairedTest.__init__``):
    ``"env"`` reads ``SACREBLEU_SEED`` (default ``"12345"``); ``"none"`` in any case, or
    ``None``, means a random seed (returns None); other strings must be integers."""
    if seed is None or isinstance(seed, (int, np.integer)):
        return None if seed is None else int(seed)
    text = os.environ.get(SEED_ENV, str(DEFAULT_SEED)) if seed == "env" else str(seed)
    if text.strip().lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        where = f"{SEED_ENV}={text!r}" if seed == "env" else repr(text)
        raise OptionError(f"significance seed {where} is neither an integer nor 'none'") from None


def _entropy(seed: int | None) -> int:
    """The integer seed to use: ``seed``, or one fresh random seed for a whole test."""
    if seed is not None:
        return seed
    entropy = np.random.SeedSequence().entropy      # drawn from the OS: one int
    assert isinstance(entropy, int)
    return entropy


def _samples(method: str, samples: int | None) -> int:
    n = DEFAULT_SAMPLES[method] if samples is None or samples == 0 else int(samples)
    if n < 1:
        raise OptionError(f"the number of significance samples must be positive, not {samples}")
    return n


def sample_count(method: str, samples: int | None) -> int:
    """The samples ``method`` (:data:`METHODS`; ``bs``/``ar`` accepted) draws for an option
    value ``samples`` (None or 0: the method's default)."""
    return _samples(method_name(method), samples)


def swap_masks(rng: np.random.Generator, n: int, samples: int) -> np.ndarray:
    """(samples x n) bool: True keeps the first system's sentence in pseudo-system A
    (sacreBLEU ``_paired_ar_test``: ``rng.integers(2, size=(samples, n), dtype=bool)``)."""
    return rng.integers(2, size=(samples, n), dtype=bool)


def estimate_ci(scores: np.ndarray) -> tuple[float, float, float, float]:
    """sacreBLEU ``significance.estimate_ci``: (mean, 95% half-width, lower, upper) of the
    resampled scores; bounds are the sorted scores at ``n // 40`` and ``n - n // 40 - 1``.
    Non-finite scores are left out (sacreBLEU's metrics never give any)."""
    s = np.sort(np.asarray(scores, float))
    s = s[np.isfinite(s)]
    if not len(s):
        return (math.nan,) * 4
    lo_i = len(s) // 40
    lo, hi = s[lo_i], s[len(s) - lo_i - 1]
    return float(s.mean()), float(0.5 * (hi - lo)), float(lo), float(hi)


#: Relative tolerance under which a resampled statistic equals the observed one.
TIE_TOLERANCE = 1e-9


def _p_value(stat: np.ndarray, observed: float, *, strict: bool = True) -> float:
    """sacreBLEU ``_compute_p_value``: ``(1 + #{stat > observed}) / (len + 1)`` over the
    finite statistics, exact ties not counted (see the module docstring); ``>=`` with a
    relative 1e-12 tolerance for the centred variant."""
    stat = stat[np.isfinite(stat)]
    if strict:
        scale = max(abs(observed), float(np.max(np.abs(stat))) if len(stat) else 0.0)
        c = np.sum(stat > observed + TIE_TOLERANCE * scale)
    else:
        c = np.sum(stat >= observed - 1e-12 * max(1.0, abs(observed)))
    return (1.0 + float(c)) / (len(stat) + 1.0)


def _bs_p(bx: np.ndarray, by: np.ndarray, d: float, centred: bool) -> float:
    """p of one pair from its paired resampled scores (sacreBLEU or centred statistic)."""
    if centred:
        delta = bx - by
        delta = delta[np.isfinite(delta)]
        return _p_value(np.abs(delta - delta.mean()), abs(d), strict=False)
    a = np.abs(by - bx)
    if not np.any(a) and d == 0:
        return 1.0                       # identical systems (see module docstring)
    return _p_value(a - a[np.isfinite(a)].mean(), abs(d))


def _ar_p(sa: np.ndarray, sb: np.ndarray, d: float) -> float:
    """p of one pair from its pseudo-systems' scores (sacreBLEU ``_paired_ar_test``)."""
    t = np.abs(sa - sb)
    if not np.any(t) and d == 0:
        return 1.0                       # identical systems (see module docstring)
    return _p_value(t, abs(d))


# ------------------------------------------------------------------ results
@dataclass
class SignificanceResult:
    """p-values for every pair of systems (symmetric, diagonal 1).

    ``scores[i]`` is system i's score on the common sentences; ``means[i]`` and
    ``ci[i]`` the mean and 95% half-width of its resampled scores (sacreBLEU's
    ``estimate_ci``), ``intervals[i]`` the interval's bounds (bootstrap, or
    randomisation with ``confidence``); ``better[i, j]`` is True when i's score
    is better than j's (by ``higher_is_better``). ``seed`` is the seed used
    (None: random, its value in ``meta["entropy"]``).
    """

    systems: list[str]
    method: str
    samples: int
    seed: int | None
    scores: np.ndarray
    p_values: np.ndarray
    higher_is_better: bool = True
    n_sentences: int = 0
    intervals: np.ndarray | None = None
    meta: dict = field(default_factory=dict)
    means: np.ndarray | None = None
    ci: np.ndarray | None = None
    #: P(humans agree with the measure's order of systems i and j), :mod:`.thresholds`
    agreement: np.ndarray | None = None
    agreement_model: AgreementModel | None = None

    @property
    def better(self) -> np.ndarray:
        d = self.scores[:, None] - self.scores[None, :]
        return d > 0 if self.higher_is_better else d < 0

    def vs_baseline(self, baseline: str | None = None) -> BaselineComparison:
        """The baseline view of this matrix: each system against ``baseline`` (default the
        first system), baseline first, as sacreBLEU lists them."""
        b = _baseline_index(self.systems, baseline)
        order = [b] + [i for i in range(len(self.systems)) if i != b]
        rows = [SystemTest(self.systems[i], float(self.scores[i]),
                           None if i == b else float(self.p_values[b, i]),
                           None if self.means is None else float(self.means[i]),
                           None if self.ci is None else float(self.ci[i])) for i in order]
        agree = None if self.agreement is None else {
            self.systems[i]: float(self.agreement[b, i]) for i in order if i != b}
        return BaselineComparison(self.systems[b], self.method, self.samples, self.seed,
                                  self.n_sentences, self.higher_is_better, rows, dict(self.meta),
                                  agree, self.agreement_model)

    def to_dict(self) -> dict:
        def clean(a):
            return [[None if not math.isfinite(v) else float(v) for v in row] for row in a]

        def flat(a):
            return None if a is None else [None if not math.isfinite(v) else float(v) for v in a]
        return {"systems": self.systems, "method": self.method, "samples": self.samples,
                "seed": self.seed, "n_sentences": self.n_sentences,
                "higher_is_better": self.higher_is_better,
                "scores": [float(v) for v in self.scores],
                "p_values": clean(self.p_values),
                "means": flat(self.means), "ci": flat(self.ci),
                "intervals": clean(self.intervals) if self.intervals is not None else None,
                "agreement": None if self.agreement is None or self.agreement_model is None
                else {**self.agreement_model.to_dict(), "description":
                      self.agreement_model.describe(), "matrix": clean(self.agreement)}}


@dataclass(frozen=True)
class SystemTest:
    """One system of a baseline comparison; the fields of sacreBLEU's ``Result``:
    ``score``, ``p_value`` (None for the baseline), ``mean`` and ``ci`` (95% half-width;
    None without resampling)."""

    system: str
    score: float
    p_value: float | None = None
    mean: float | None = None
    ci: float | None = None

    def result_dict(self) -> dict:
        """sacreBLEU's JSON object of a system's metric (``Result.__dict__``)."""
        return {"score": self.score, "p_value": self.p_value, "mean": self.mean, "ci": self.ci}


@dataclass
class BaselineComparison:
    """Every system against one baseline, as sacreBLEU's ``--paired-bs`` / ``--paired-ar``
    report it: ``rows[0]`` is the baseline, then the other systems in input order."""

    baseline: str
    method: str
    samples: int
    seed: int | None
    n_sentences: int
    higher_is_better: bool
    rows: list[SystemTest]
    meta: dict = field(default_factory=dict)
    #: system -> P(humans agree with the measure's order of it and the baseline)
    agreement: dict[str, float] | None = None
    agreement_model: AgreementModel | None = None

    def to_dict(self) -> dict:
        agree = self.agreement or {}
        return {"baseline": self.baseline, "method": self.method, "samples": self.samples,
                "seed": self.seed, "n_sentences": self.n_sentences,
                "higher_is_better": self.higher_is_better,
                "systems": [{"system": r.system, **r.result_dict(),
                             **({"p_humans_agree": agree.get(r.system)} if self.agreement
                                else {})} for r in self.rows],
                **({"agreement": {**self.agreement_model.to_dict(),
                                  "description": self.agreement_model.describe()}}
                   if self.agreement_model is not None else {})}


def _fmt_cell(r: SystemTest, width: int, scale: float, multiline: bool) -> str:
    """sacreBLEU ``utils._format_score_lines`` for one cell (without colours)."""
    s = f"{r.score * scale:.{width}f}"
    if r.mean is not None and r.ci is not None:
        s += f" ({r.mean * scale:.{width}f} ± {r.ci * scale:.{width}f})"
    if r.p_value is not None:
        p = f"(p = {r.p_value:.4f})"
        s += ("\n" if multiline else " ") + (p if r.p_value > 0.05 else p + "*")
    return s


def baseline_table(results: Mapping[str, BaselineComparison], *, width: int = 2,
                   scale: float = 1.0, tablefmt: str = "fancy_grid") -> str:
    """sacreBLEU's multi-system table (``utils.print_results_table``, no colours): one column
    per metric name in ``results`` (all on the same systems and baseline), the first row
    named ``Baseline: NAME``; ``scale=100`` prints fractions as sacreBLEU's percentages."""
    from tabulate import tabulate
    first = next(iter(results.values()))
    names = [r.system for r in first.rows]
    table: dict[str, list[str]] = {"System": [f"Baseline: {names[0]}"] + names[1:]}
    multiline = tablefmt == "fancy_grid"
    for metric, res in results.items():
        if [r.system for r in res.rows] != names:
            raise EvalTransError(f"'{metric}' compares other systems or another baseline")
        title = metric + (" (μ ± 95% CI)" if any(r.mean is not None for r in res.rows) else "")
        table[title] = [_fmt_cell(r, width, scale, multiline) for r in res.rows]
    return tabulate(table, headers="keys", tablefmt=tablefmt, colalign=("right",),
                    stralign="center", numalign="center", floatfmt=f".{width}f")


def baseline_notes(method: str, samples: int, baseline: str) -> str:
    """sacreBLEU's explanation printed under a paired-test table (``print_results_table``)."""
    bs = method_name(method) != "randomization"
    kind = "bootstrap resampling" if bs else "approximate randomization"
    msg = f"Paired {kind} test with {samples} {'resampling trials' if bs else 'trials'}"
    lines = ["-" * len(msg), msg, "-" * len(msg),
             f" - Each system is pairwise compared to Baseline: {baseline}.",
             "   Actual system score / bootstrap estimated true mean / 95% CI are provided "
             "for each metric." if bs else "   Actual system score is provided for each metric.",
             "",
             " - Null hypothesis: the system and the baseline translations are essentially",
             "   generated by the same underlying process. For a given system and the baseline,",
             "   the p-value is roughly the probability of the absolute score difference (delta)",
             "   or higher occurring due to chance, under the assumption that the null "
             "hypothesis is correct.",
             "",
             " - Assuming a significance threshold of 0.05, the null hypothesis can be rejected",
             '   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely '
             "to be attributed",
             '   to chance, hence the system is significantly "different" than the baseline.',
             "   Otherwise, the p-values are highlighted in red.",
             "",
             ' - NOTE: Significance does not tell whether a system is "better" than the '
             "baseline but rather",
             '   emphasizes the "difference" of the systems in terms of the replicability of '
             "the delta."]
    return "\n".join(lines)


# ------------------------------------------------------------------ the tests
def _check(stats: Mapping[str, np.ndarray]) -> tuple[list[str], list[np.ndarray], int]:
    names = list(stats)
    if len(names) < 2:
        raise EvalTransError("significance needs at least two systems")
    arrs = [np.atleast_2d(np.asarray(stats[s], float)) for s in names]
    n = arrs[0].shape[0]
    for s, a in zip(names, arrs):
        if a.shape[0] != n:
            raise EvalTransError(f"system '{s}' has {a.shape[0]} sentences, "
                                 f"'{names[0]}' has {n}: systems must share the same sentences")
        if a.shape[1] != arrs[0].shape[1]:
            raise EvalTransError(f"system '{s}' has {a.shape[1]} statistics per sentence, "
                                 f"'{names[0]}' has {arrs[0].shape[1]}")
    if n == 0:
        raise EvalTransError("significance needs at least one sentence")
    return names, arrs, n


#: Environment variable that raises (or lowers) :data:`MAX_PAIR_SAMPLES`.
PAIR_LIMIT_ENV = "EVALTRANS_MAX_PAIR_SAMPLES"
#: Largest pairs x samples of an all-pairs matrix (about a minute of p-values on one core:
#: 600 systems at 1000 resamples, 200 systems at 10000 trials); the baseline view is linear
#: in the systems and has no such limit.
MAX_PAIR_SAMPLES = 200_000_000


def max_pair_samples() -> int:
    """:data:`MAX_PAIR_SAMPLES`, or ``EVALTRANS_MAX_PAIR_SAMPLES`` if set to a whole number."""
    raw = os.environ.get(PAIR_LIMIT_ENV, "").strip()
    # plain ASCII digits, bounded before int() (the engine does not import io's parsers)
    if raw.isascii() and raw.isdigit() and len(raw) <= 18 and int(raw) >= 1:
        return int(raw)
    return MAX_PAIR_SAMPLES


def check_pairs(systems: int, samples: int) -> None:
    """Refuse an all-pairs matrix of ``systems`` systems whose pairs x ``samples`` exceed
    :func:`max_pair_samples`, before anything is resampled, saying how to go on."""
    pairs = systems * (systems - 1) // 2
    limit = max_pair_samples()
    if pairs * samples > limit:
        raise EvalTransError(
            f"significance: the all-pairs matrix of {systems} systems has {pairs} pairs x "
            f"{samples} samples = {pairs * samples}, above the limit of {limit} (set "
            f"{PAIR_LIMIT_ENV} to raise it); compare every system with one baseline "
            "(--baseline, linear in the systems) or choose fewer with --systems")


def _baseline_index(names: Sequence[str], baseline: str | None) -> int:
    if baseline is None:
        return 0
    if baseline not in names:
        raise EvalTransError(f"baseline '{baseline}' is not among the systems compared "
                             f"({', '.join(names)})")
    return list(names).index(baseline)


def _observed(arrs: Sequence[np.ndarray], score: BatchScore) -> np.ndarray:
    return np.array([score(a.sum(axis=0)[None, :])[0] for a in arrs], float)


def _boot_scores(arrs: Sequence[np.ndarray], score: BatchScore, counts: np.ndarray) -> np.ndarray:
    """(B x N) resampled scores: score(counts @ stats) of each system."""
    return np.column_stack([score(counts @ a) for a in arrs])


def _cis(boot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means, half-widths and (N x 2) bounds of each column of ``boot``."""
    est = np.array([estimate_ci(boot[:, i]) for i in range(boot.shape[1])]).reshape(-1, 4)
    return est[:, 0], est[:, 1], est[:, 2:4]


def paired_bootstrap(stats: Mapping[str, np.ndarray], score: BatchScore, *,
                     samples: int | None = None, seed: Seed = "env",
                     higher_is_better: bool = True, centred: bool = False) -> SignificanceResult:
    """Paired bootstrap resampling for every pair of systems (N x N p-values), sacreBLEU's
    ``_paired_bs_test`` statistic (``centred=True``: the earlier centred statistic).

    ``stats[system]`` is an (n x k) matrix of sufficient statistics, row i =
    sentence i for every system; ``samples`` defaults to 1000 (sacreBLEU).
    """
    names, arrs, n = _check(stats)
    method = "bootstrap-centred" if centred else "bootstrap"
    B = _samples(method, samples)
    check_pairs(len(names), B)
    used, ent, obs, boot = _bootstrap_parts(arrs, score, n, B, seed)
    k = len(names)
    p = np.ones((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p[i, j] = p[j, i] = _bs_p(boot[:, i], boot[:, j], obs[i] - obs[j], centred)
    means, ci, bounds = _cis(boot)
    meta = {} if used is not None else {"entropy": ent}
    return SignificanceResult(names, method, B, used, obs, p, higher_is_better, n, bounds, meta,
                              means, ci)


def _bootstrap_parts(arrs: Sequence[np.ndarray], score: BatchScore, n: int, samples: int,
                     seed: Seed) -> tuple:
    """(seed used, entropy, observed scores, B x N resampled scores) of the paired bootstrap."""
    used = resolve_seed(seed)
    ent = _entropy(used)
    counts = bootstrap_counts(n, samples, ent)
    return used, ent, _observed(arrs, score), _boot_scores(arrs, score, counts)


def _ar_parts(arrs: Sequence[np.ndarray], pos: np.ndarray) -> tuple[list, list]:
    """``pos @ X`` and ``neg @ X`` of every system, exactly the products sacreBLEU forms
    (bool masks times float64 statistics)."""
    neg = ~pos
    return [pos @ a for a in arrs], [neg @ a for a in arrs]


def _ar_setup(arrs: Sequence[np.ndarray], score: BatchScore, n: int, samples: int,
              seed: Seed) -> tuple:
    """The draws of sacreBLEU's ``_paired_ar_test`` in its order: (seed used, entropy,
    the generator after the swap masks, observed scores, :func:`_ar_parts`)."""
    used, ent, rng, obs, pos = _ar_draws(arrs, score, n, samples, seed)
    return used, ent, rng, obs, *_ar_parts(arrs, pos)


def _ar_draws(arrs: Sequence[np.ndarray], score: BatchScore, n: int, samples: int,
              seed: Seed) -> tuple:
    """(seed used, entropy, the generator after the swap masks, observed scores, the
    swap masks) of sacreBLEU's ``_paired_ar_test``."""
    used = resolve_seed(seed)
    ent = _entropy(used)
    rng = np.random.default_rng(ent)
    pos = swap_masks(rng, n, samples)
    return used, ent, rng, _observed(arrs, score), pos


def approximate_randomization(stats: Mapping[str, np.ndarray], score: BatchScore, *,
                              samples: int | None = None, seed: Seed = "env",
                              higher_is_better: bool = True,
                              confidence: int = 0) -> SignificanceResult:
    """Approximate randomisation for every pair of systems (N x N p-values), sacreBLEU's
    ``_paired_ar_test``: one swap-mask matrix from ``default_rng(seed)`` shared by all
    pairs, as sacreBLEU re-seeds it for each comparison. ``samples`` defaults to 10000
    (sacreBLEU). ``confidence > 0`` also resamples each system ``confidence`` times
    (sacreBLEU ``n_ar_confidence``) for means and intervals.
    """
    names, arrs, n = _check(stats)
    R = _samples("randomization", samples)
    check_pairs(len(names), R)
    used, ent, rng, obs, P, N = _ar_setup(arrs, score, n, R, seed)
    k = len(names)
    p = np.ones((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            # i in sacreBLEU's baseline role: A = pos @ X_i + neg @ X_j, B = neg @ X_i + pos @ X_j
            p[i, j] = p[j, i] = _ar_p(score(P[i] + N[j]), score(N[i] + P[j]), obs[i] - obs[j])
    res = SignificanceResult(names, "randomization", R, used, obs, p, higher_is_better, n,
                             meta={} if used is not None else {"entropy": ent})
    if confidence > 0:
        counts = bootstrap_counts(n, int(confidence), rng)
        res.means, res.ci, res.intervals = _cis(_boot_scores(arrs, score, counts))
        res.meta["confidence"] = int(confidence)
    return res


def _ordered(stats: Mapping[str, np.ndarray], baseline: str | None
             ) -> tuple[list[str], list[np.ndarray], int]:
    names, arrs, n = _check(stats)
    b = _baseline_index(names, baseline)
    order = [b] + [i for i in range(len(names)) if i != b]
    return [names[i] for i in order], [arrs[i] for i in order], n


def paired_bs_vs_baseline(stats_by_system: Mapping[str, np.ndarray], score: BatchScore, *,
                          baseline: str | None = None, n_samples: int = 1000,
                          seed: Seed = "env", higher_is_better: bool = True
                          ) -> BaselineComparison:
    """sacreBLEU ``PairedTest(test_type="bs")``: every system against ``baseline`` (default
    the first), with each system's score, bootstrap mean, 95% half-width and (except the
    baseline) p-value. ``score`` maps (B x k) sums to B values in the units to report
    (e.g. ``100 * measure.score_values``, or :func:`measure_batch_score`).
    """
    return _bs_vs_baseline(stats_by_system, score, baseline, n_samples, seed,
                           higher_is_better, centred=False)


def _bs_vs_baseline(stats: Mapping[str, np.ndarray], score: BatchScore, baseline: str | None,
                    samples: int | None, seed: Seed, higher_is_better: bool, *,
                    centred: bool) -> BaselineComparison:
    """The baseline row of :func:`paired_bootstrap`'s matrix (the same draws and p-values)
    without the other pairs: time and memory linear in the systems."""
    names, arrs, n = _ordered(stats, baseline)
    method = "bootstrap-centred" if centred else "bootstrap"
    B = _samples(method, samples)
    used, ent, obs, boot = _bootstrap_parts(arrs, score, n, B, seed)
    means, ci, _ = _cis(boot)
    rows = [SystemTest(name, float(obs[i]),
                       None if i == 0 else _bs_p(boot[:, 0], boot[:, i], obs[0] - obs[i],
                                                 centred),
                       float(means[i]), float(ci[i])) for i, name in enumerate(names)]
    return BaselineComparison(names[0], method, B, used, n, higher_is_better, rows,
                              {} if used is not None else {"entropy": ent})


def paired_ar_vs_baseline(stats_by_system: Mapping[str, np.ndarray], score: BatchScore, *,
                          baseline: str | None = None, n_samples: int = 10000,
                          n_confidence: int = -1, seed: Seed = "env",
                          higher_is_better: bool = True) -> BaselineComparison:
    """sacreBLEU ``PairedTest(test_type="ar")``: every system against ``baseline`` (default
    the first) with its score and p-value; ``n_confidence`` is sacreBLEU's
    ``n_ar_confidence`` (-1: no intervals, as its command line; 0: 1000 resamples): the
    baseline's resamples come from a fresh ``default_rng(seed)``, every other system's
    from its comparison's generator after the swap masks, exactly as sacreBLEU draws them.
    """
    names, arrs, n = _ordered(stats_by_system, baseline)
    R = _samples("randomization", n_samples)
    conf = 1000 if n_confidence == 0 else n_confidence
    used, ent, rng, obs, pos = _ar_draws(arrs, score, n, R, seed)
    P0, N0 = pos @ arrs[0], ~pos @ arrs[0]
    rows = []
    sys_counts = bootstrap_counts(n, conf, rng) if conf > 0 else None
    for i, name in enumerate(names):
        mean = ci = None
        if sys_counts is not None:
            counts = (bootstrap_counts(n, conf, ent) if i == 0
                      else sys_counts)
            mean, ci = estimate_ci(score(counts @ arrs[i]))[:2]
        # system i's pseudo-system products formed when needed: memory O(R) a system
        p = None if i == 0 else _ar_p(score(P0 + ~pos @ arrs[i]), score(N0 + pos @ arrs[i]),
                                      obs[0] - obs[i])
        rows.append(SystemTest(name, float(obs[i]), p, mean, ci))
    meta = {} if used is not None else {"entropy": ent}
    if conf > 0:
        meta["confidence"] = conf
    return BaselineComparison(names[0], "randomization", R, used, n, higher_is_better, rows, meta)


def compare(stats: Mapping[str, np.ndarray], score: BatchScore, method: str = "bootstrap",
            **kw) -> SignificanceResult:
    """All-pairs matrix by ``method`` (:data:`METHODS`; ``bs``/``ar`` accepted)."""
    m = method_name(method)
    if m == "randomization":
        return approximate_randomization(stats, score, **kw)
    return paired_bootstrap(stats, score, centred=m == "bootstrap-centred", **kw)


def compare_vs_baseline(stats: Mapping[str, np.ndarray], score: BatchScore,
                        method: str = "bootstrap", *, baseline: str | None = None,
                        samples: int | None = None, seed: Seed = "env",
                        higher_is_better: bool = True) -> BaselineComparison:
    """Baseline view by ``method``: sacreBLEU's paired_bs / paired_ar, or the centred
    bootstrap's matrix row."""
    m = method_name(method)
    n = _samples(m, samples)
    if m == "bootstrap":
        return paired_bs_vs_baseline(stats, score, baseline=baseline, n_samples=n, seed=seed,
                                     higher_is_better=higher_is_better)
    if m == "randomization":
        return paired_ar_vs_baseline(stats, score, baseline=baseline, n_samples=n, seed=seed,
                                     higher_is_better=higher_is_better)
    return _bs_vs_baseline(stats, score, baseline, n, seed, higher_is_better, centred=True)


def common_rows(run, systems: Sequence[str] | None = None,
                keep: Callable[[str, int], bool] | None = None) -> dict[str, np.ndarray]:
    """Row indices per system restricted to the source sentences all systems share
    (and ``keep(system, source_index)``, e.g. "has a human score"), in source order."""
    names = list(systems) if systems is not None else list(run.systems)
    shared = None
    from evaltrans_qt.engine.human.scores import occurrence_keys
    keys = {s: occurrence_keys(run.systems[s].segments) for s in names}
    for s in names:
        segs = set(keys[s])
        if keep is not None:
            segs = {key for key in segs if keep(s, key[0])}
        shared = segs if shared is None else shared & segs
    order = sorted(shared or ())
    out = {}
    for s in names:
        pos = {key: r for r, key in enumerate(keys[s])}     # (source, k): repeated sources too
        out[s] = np.array([pos[key] for key in order], dtype=int)
    return out


def run_stats(run, measure: str, systems: Sequence[str] | None = None
              ) -> tuple[dict[str, np.ndarray], BatchScore, bool]:
    """(statistics per system on their common sentences, batch score, higher_is_better) of
    automatic ``measure`` in ``run``."""
    rows = common_rows(run, systems)
    m = run.measure(measure)
    stats = {s: np.asarray(run.systems[s].stats[measure])[r] for s, r in rows.items()}
    return stats, measure_batch_score(m), m.higher_is_better


def add_agreement(res: SignificanceResult, run, measure: str, *, source: str = "auto",
                  human: Mapping[str, float] | None = None,
                  human_name: str = "") -> SignificanceResult:
    """Attach to ``res`` the probability that humans agree with ``measure``'s order of each
    pair of systems (:mod:`~evaltrans_qt.engine.metaeval.thresholds`: Kocmi et al. 2024's
    published fit, or the same model fitted on ``human`` system scores); unchanged when
    ``source`` finds no model."""
    from evaltrans_qt.engine.metaeval.thresholds import agreement_matrix, choose_model
    ours = getattr(run.measure(measure), "metric", None) is None
    scores = dict(zip(res.systems, (float(v) for v in res.scores)))
    model = choose_model(measure, scores, human, ours=ours,
                         higher_is_better=res.higher_is_better, source=source,
                         human_name=human_name)
    if model is not None:
        res.agreement_model = model
        res.agreement = agreement_matrix(res.scores, model)
    return res


def run_significance(run, measure: str, *, systems: Sequence[str] | None = None,
                     method: str = "bootstrap", samples: int | None = None, seed: Seed = "env",
                     agreement: str = "auto", human: Mapping[str, float] | None = None,
                     human_name: str = "") -> SignificanceResult:
    """Significance of automatic ``measure`` between the systems of ``run`` (all pairs),
    with the probability that humans agree with each pair's order (:func:`add_agreement`:
    ``agreement`` auto, published, fit or none; ``human`` system scores for a fit, of the
    human class ``human_name``)."""
    stats, score, hib = run_stats(run, measure, systems)
    res = compare(stats, score, method, samples=samples, seed=seed, higher_is_better=hib)
    res.meta["measure"] = measure
    return add_agreement(res, run, measure, source=agreement, human=human,
                         human_name=human_name)


def run_vs_baseline(run, measure: str, *, baseline: str | None = None,
                    systems: Sequence[str] | None = None, method: str = "bootstrap",
                    samples: int | None = None, seed: Seed = "env", agreement: str = "auto",
                    human: Mapping[str, float] | None = None,
                    human_name: str = "") -> BaselineComparison:
    """Every system of ``run`` against ``baseline`` (default the first) on ``measure``, with
    the probability that humans agree with the order of each system and the baseline."""
    stats, score, hib = run_stats(run, measure, systems)
    res = compare_vs_baseline(stats, score, method, baseline=baseline, samples=samples,
                              seed=seed, higher_is_better=hib)
    res.meta["measure"] = measure
    from evaltrans_qt.engine.metaeval.thresholds import choose_model
    ours = getattr(run.measure(measure), "metric", None) is None
    scores = {r.system: r.score for r in res.rows}
    model = choose_model(measure, scores, human, ours=ours, higher_is_better=hib,
                         source=agreement, human_name=human_name)
    if model is not None:
        base = scores[res.baseline]
        res.agreement_model = model
        res.agreement = {r.system: float(model.probability(r.score - base))
                         for r in res.rows[1:]}
    return res


def human_stats(hs, systems: Sequence[str] | None = None, *, weighted: bool = True
                ) -> dict[str, np.ndarray]:
    """:func:`mean_stats` rows of human scores (:class:`~evaltrans_qt.engine.human.scores.HumanScores`)
    per system, on the sentences every system has scored (length-weighted by default)."""
    names = list(systems) if systems is not None else hs.systems()
    scored: dict[str, set[tuple]] = {s: set() for s in names}
    for (i, sy, k) in hs.values:          # one pass over the scores (not one per system)
        if sy in scored:
            scored[sy].add((i, k))
    shared = None
    for s in names:
        segs = scored[s]
        shared = segs if shared is None else shared & segs
    order = sorted(shared or ())
    stats = {}
    for s in names:
        v = [hs.values[(i, s, k)] for i, k in order]
        w = [max(hs.lengths.get((i, s, k), 0), 0) if weighted else 1 for i, k in order]
        if weighted and sum(w) == 0:
            w = [1] * len(order)
        stats[s] = mean_stats(v, w)
    return stats


def human_significance(hs, systems: Sequence[str] | None = None, *, weighted: bool = True,
                       method: str = "bootstrap", samples: int | None = None,
                       seed: Seed = "env") -> SignificanceResult:
    """Significance of human scores between systems (all pairs) on the sentences every
    system has scored."""
    res = compare(human_stats(hs, systems, weighted=weighted), ratio_score, method,
                  samples=samples, seed=seed, higher_is_better=True)
    res.meta["human"] = hs.cls
    return res


def human_vs_baseline(hs, systems: Sequence[str] | None = None, *, baseline: str | None = None,
                      weighted: bool = True, method: str = "bootstrap",
                      samples: int | None = None, seed: Seed = "env") -> BaselineComparison:
    """Every system's human score against ``baseline`` (default the first system)."""
    res = compare_vs_baseline(human_stats(hs, systems, weighted=weighted), ratio_score, method,
                              baseline=baseline, samples=samples, seed=seed,
                              higher_is_better=True)
    res.meta["human"] = hs.cls
    return res
