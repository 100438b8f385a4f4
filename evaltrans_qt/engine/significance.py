"""Significance between systems: paired bootstrap resampling and approximate randomisation.

Both tests resample *sufficient statistics* (rows of ``SystemResult.stats``)
and score ``score(sum of rows)``, so corpus measures (BLEU, NIST, WER as
summed distances over summed reference lengths) are recomputed exactly as the
system score is (STYLE: one code path). Human scores use rows
``[value * weight, weight]`` (:func:`mean_stats`).

* Paired bootstrap (Koehn 2004; Bisani & Ney 2004, cited at T:1284): the same
  sentences are drawn for every system; p for a pair is the share of samples
  whose score difference, centred on the mean difference, is at least as large
  as the observed one: ``(1 + #{|d_b - mean d| >= |d|}) / (B + 1)``.
* Approximate randomisation (Riezler & Maxwell 2005): the two systems'
  statistics of each sentence are swapped with probability 1/2;
  ``p = (1 + #{|d_r| >= |d|}) / (R + 1)``.

Seeded (``numpy.random.default_rng(seed)``), reproducible, vectorised: one
count matrix for all bootstrap samples and systems.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from evaltrans_qt.errors import EvalTransError

#: score(B x k sums) -> B values
BatchScore = Callable[[np.ndarray], np.ndarray]
METHODS = ("bootstrap", "randomization")


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


@dataclass
class SignificanceResult:
    """p-values for every pair of systems (symmetric, diagonal 1).

    ``scores[i]`` is system i's score on the common sentences; ``intervals[i]``
    its 95% bootstrap interval (bootstrap only); ``better[i, j]`` is True when
    i's score is better than j's (by ``higher_is_better``).
    """

    systems: list[str]
    method: str
    samples: int
    seed: int
    scores: np.ndarray
    p_values: np.ndarray
    higher_is_better: bool = True
    n_sentences: int = 0
    intervals: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    @property
    def better(self) -> np.ndarray:
        d = self.scores[:, None] - self.scores[None, :]
        return d > 0 if self.higher_is_better else d < 0

    def to_dict(self) -> dict:
        def clean(a):
            return [[None if not math.isfinite(v) else float(v) for v in row] for row in a]
        return {"systems": self.systems, "method": self.method, "samples": self.samples,
                "seed": self.seed, "n_sentences": self.n_sentences,
                "higher_is_better": self.higher_is_better,
                "scores": [float(v) for v in self.scores],
                "p_values": clean(self.p_values),
                "intervals": clean(self.intervals) if self.intervals is not None else None}


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
    if n == 0:
        raise EvalTransError("significance needs at least one sentence")
    return names, arrs, n


def paired_bootstrap(stats: Mapping[str, np.ndarray], score: BatchScore, *,
                     samples: int = 1000, seed: int = 0,
                     higher_is_better: bool = True) -> SignificanceResult:
    """Paired bootstrap over sentences for all systems at once (N x N p-values).

    ``stats[system]`` is an (n x k) matrix of sufficient statistics, row i =
    sentence i for every system.
    """
    names, arrs, n = _check(stats)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=samples).astype(float)
    obs = np.array([score(a.sum(axis=0)[None, :])[0] for a in arrs])
    boot = np.column_stack([score(counts @ a) for a in arrs])       # B x N
    k = len(names)
    p = np.ones((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            d = obs[i] - obs[j]
            db = boot[:, i] - boot[:, j]
            db = db[np.isfinite(db)]
            extreme = np.sum(np.abs(db - db.mean()) >= abs(d) - 1e-12 * max(1.0, abs(d)))
            p[i, j] = p[j, i] = (1.0 + extreme) / (len(db) + 1.0)
    lo, hi = np.nanquantile(boot, [0.025, 0.975], axis=0)
    return SignificanceResult(names, "bootstrap", samples, seed, obs, p, higher_is_better, n,
                              np.column_stack([lo, hi]))


def approximate_randomization(stats: Mapping[str, np.ndarray], score: BatchScore, *,
                              samples: int = 1000, seed: int = 0,
                              higher_is_better: bool = True) -> SignificanceResult:
    """Approximate randomisation for every pair of systems (N x N p-values).

    Each pair gets its own swap masks from a generator seeded by (seed, i, j),
    so a pair's p-value does not depend on which other systems are compared.
    """
    names, arrs, n = _check(stats)
    obs = np.array([score(a.sum(axis=0)[None, :])[0] for a in arrs])
    k = len(names)
    p = np.ones((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            rng = np.random.default_rng([seed, i, j])
            swap = rng.random((samples, n)) < 0.5
            a, b = arrs[i], arrs[j]
            diff = b - a                                   # swapping adds (b - a) to A
            sa = a.sum(axis=0)[None, :] + swap.astype(float) @ diff
            sb = a.sum(axis=0)[None, :] + b.sum(axis=0)[None, :] - sa
            dr = score(sa) - score(sb)
            d = obs[i] - obs[j]
            extreme = np.sum(np.abs(dr) >= abs(d) - 1e-12 * max(1.0, abs(d)))
            p[i, j] = p[j, i] = (1.0 + extreme) / (samples + 1.0)
    return SignificanceResult(names, "randomization", samples, seed, obs, p, higher_is_better, n)


def compare(stats: Mapping[str, np.ndarray], score: BatchScore, method: str = "bootstrap",
            **kw) -> SignificanceResult:
    """Dispatch to :func:`paired_bootstrap` or :func:`approximate_randomization`."""
    if method == "bootstrap":
        return paired_bootstrap(stats, score, **kw)
    if method in ("randomization", "ar"):
        return approximate_randomization(stats, score, **kw)
    from evaltrans_qt.errors import OptionError
    raise OptionError(f"unknown significance method '{method}' (use {', '.join(METHODS)})")


def common_rows(run, systems: Sequence[str] | None = None,
                keep: Callable[[str, int], bool] | None = None) -> dict[str, np.ndarray]:
    """Row indices per system restricted to the source sentences all systems share
    (and ``keep(system, source_index)``, e.g. "has a human score"), in source order."""
    names = list(systems) if systems is not None else list(run.systems)
    shared = None
    from evaltrans_qt.engine.human import occurrence_keys
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


def run_significance(run, measure: str, *, systems: Sequence[str] | None = None,
                     method: str = "bootstrap", samples: int = 1000, seed: int = 0
                     ) -> SignificanceResult:
    """Significance of automatic ``measure`` between the systems of ``run``."""
    rows = common_rows(run, systems)
    m = run.measure(measure)
    stats = {s: np.asarray(run.systems[s].stats[measure])[r] for s, r in rows.items()}
    res = compare(stats, measure_batch_score(m), method, samples=samples, seed=seed,
                  higher_is_better=m.higher_is_better)
    res.meta["measure"] = measure
    return res


def human_significance(hs, systems: Sequence[str] | None = None, *, weighted: bool = True,
                       method: str = "bootstrap", samples: int = 1000,
                       seed: int = 0) -> SignificanceResult:
    """Significance of human scores (:class:`~evaltrans_qt.engine.human.HumanScores`)
    between systems on the sentences every system has scored."""
    names = list(systems) if systems is not None else hs.systems()
    shared = None
    for s in names:
        segs = {(i, k) for (i, sy, k) in hs.values if sy == s}
        shared = segs if shared is None else shared & segs
    order = sorted(shared or ())
    stats = {}
    for s in names:
        v = [hs.values[(i, s, k)] for i, k in order]
        w = [max(hs.lengths.get((i, s, k), 0), 0) if weighted else 1 for i, k in order]
        if weighted and sum(w) == 0:
            w = [1] * len(order)
        stats[s] = mean_stats(v, w)
    res = compare(stats, ratio_score, method, samples=samples, seed=seed, higher_is_better=True)
    res.meta["human"] = hs.cls
    return res
