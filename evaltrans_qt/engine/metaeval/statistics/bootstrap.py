"""Bootstrap resampling: draw counts (correlation intervals and the paired significance
tests, Koehn 2004), cluster weight matrices and percentile intervals.

A sample is a row of counts (how often each unit was drawn); sentence-level
samples draw whole source sentences (every candidate of a drawn sentence
counts once per draw).
"""

from __future__ import annotations

import math

import numpy as np


def cluster_weights(groups: np.ndarray, n_boot: int, seed: int = 0) -> np.ndarray:
    """Bootstrap weight matrix (n_boot x n items): source sentences are drawn with
    replacement and every item of a drawn sentence counts once per draw."""
    groups = np.asarray(groups)
    ids, inv = np.unique(groups, return_inverse=True)
    # np.take keeps C order (w[:, idx] would come out column-major and be copied later)
    return np.take(bootstrap_counts(len(ids), n_boot, seed), inv, axis=1)


def bootstrap_counts(n: int, samples: int,
                     rng: np.random.Generator | int | None = 0) -> np.ndarray:
    """How often each of ``n`` units is drawn in each of ``samples`` resamples with
    replacement: a (samples x n) float64 matrix, so ``counts @ stats`` sums each resample's
    statistics. The one resampler of correlation intervals and significance tests.

    The draws are sacreBLEU's paired bootstrap (``significance.py`` ``_paired_bs_test``:
    ``rng.choice(n, size=(samples, n), replace=True)``), so with its seed the same sentences
    are drawn. ``rng`` is a generator, whose draws continue where they are (approximate
    randomisation draws its resamples after its swap masks), or a seed of
    ``numpy.random.default_rng`` (``None``: a random one).
    """
    gen = np.random.default_rng(rng)           # a Generator is returned as is
    idx = gen.choice(n, size=(samples, n), replace=True)
    flat = (idx + n * np.arange(samples)[:, None]).ravel()
    return np.bincount(flat, minlength=samples * n).reshape(samples, n).astype(np.float64)


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the finite bootstrap samples."""
    s = np.asarray(samples, float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return (math.nan, math.nan)
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(s, [a, 1.0 - a])
    return (float(lo), float(hi))
