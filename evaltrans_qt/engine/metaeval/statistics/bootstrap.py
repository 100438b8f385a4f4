"""Bootstrap resampling for correlation intervals: weight matrices and percentile intervals.

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


def bootstrap_counts(n: int, n_boot: int, seed: int = 0) -> np.ndarray:
    """How often each of ``n`` units is drawn in each of ``n_boot`` samples (float64)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n)) + (np.arange(n_boot) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=n_boot * n).reshape(n_boot, n).astype(np.float64)


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the finite bootstrap samples."""
    s = np.asarray(samples, float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return (math.nan, math.nan)
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(s, [a, 1.0 - a])
    return (float(lo), float(hi))
