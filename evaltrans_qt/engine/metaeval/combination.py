"""Correlation-optimal linear combination of measures (thesis section 6.1.4).

Pearson's r of ``X_w = w^T X`` with ``Y`` depends on covariances only
(eq. 6.13-6.15): ``r = w^T s_Y / sqrt(w^T S w * var_Y)``. It is maximal for
``w* ~ S^-1 s_Y`` (Cauchy-Schwarz in the metric S), which we normalise to
``sum(w) = 1`` (eq. 6.6 has ``w, 1 - w``). The two-measure curve is eq. 6.9
(Figure 8.1) -- as printed, its numerator lacks a square on the last term and
the root hides the sign; we use the equivalent ``(w s_1Y + (1-w) s_2Y) /
sqrt(var(X_w) var(Y))``. Weights must never be judged on the data they were
fit on (thesis section 6.1.4): :func:`cross_validate` fits on k-1 folds of source sentences
and reports r on the held-out fold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


def covariances(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(Sigma, sigma_Y, var_Y) of eq. 6.10/6.11 (population covariances)."""
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    n = len(y)
    return Xc.T @ Xc / n, Xc.T @ yc / n, float(yc @ yc / n)


def combined_r(w: npt.ArrayLike, sigma: np.ndarray, sigma_y: np.ndarray, var_y: float) -> float:
    """Pearson r of the combination ``w`` from covariances only (eq. 6.15)."""
    w = np.asarray(w, float)
    den = float(w @ sigma @ w) * var_y
    return float(w @ sigma_y / math.sqrt(den)) if den > 0 else math.nan


def optimal_weights(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Correlation-optimal weights ``w* ~ Sigma^-1 sigma_Y``, normalised to sum 1.

    Columns of ``X`` should already point the same way as ``y`` (error
    measures negated). A singular Sigma (duplicated measures) uses the
    pseudo-inverse. If the weights sum to ~0 they are scaled to unit L1 norm.
    """
    sigma, sigma_y, _ = covariances(X, y)
    w = np.linalg.pinv(sigma) @ sigma_y
    s = w.sum()
    if abs(s) > 1e-12 * np.abs(w).sum():
        return w / abs(s)   # keeps the maximising direction (sum -1 if it points down)
    n1 = np.abs(w).sum()
    return w / n1 if n1 > 0 else w


def weight_curve(x1: Sequence[float], x2: Sequence[float], y: Sequence[float],
                 steps: int = 101) -> tuple[np.ndarray, np.ndarray]:
    """r of ``w X1 + (1-w) X2`` with Y for w in [0, 1] (eq. 6.6-6.9, Figure 8.1)."""
    sigma, sigma_y, var_y = covariances(np.column_stack([x1, x2]), np.asarray(y, float))
    ws = np.linspace(0.0, 1.0, steps)
    rs = np.array([combined_r((w, 1.0 - w), sigma, sigma_y, var_y) for w in ws])
    return ws, rs


@dataclass
class CrossValidation:
    """Per fold: weights fit on the other folds and r on this (held-out) fold."""

    weights: np.ndarray          # folds x measures
    held_out_r: np.ndarray       # folds
    pooled_r: float              # r of all held-out predictions pooled

    @property
    def mean_r(self) -> float:
        return float(np.nanmean(self.held_out_r))


def cross_validate(X: np.ndarray, y: np.ndarray, k: int = 10, groups: Sequence | None = None,
                   seed: int = 0) -> CrossValidation:
    """k-fold cross-validation of :func:`optimal_weights`.

    Folds are drawn over ``groups`` (e.g. source sentences) so that the
    candidates of one sentence never sit in both training and test data.
    """
    X = np.asarray(X, float)
    y = np.asarray(y, float)
    g = np.arange(len(y)) if groups is None else np.asarray(groups)
    ids, inv = np.unique(g, return_inverse=True)
    k = max(2, min(k, len(ids)))
    rng = np.random.default_rng(seed)
    fold_of_id = rng.permutation(len(ids)) % k
    fold = fold_of_id[inv]
    W = np.zeros((k, X.shape[1]))
    rs = np.full(k, math.nan)
    pred = np.full(len(y), math.nan)
    for f in range(k):
        test = fold == f
        w = optimal_weights(X[~test], y[~test])
        W[f] = w
        p = X[test] @ w
        pred[test] = p
        if test.sum() > 2 and np.std(p) > 0 and np.std(y[test]) > 0:
            rs[f] = float(np.corrcoef(p, y[test])[0, 1])
    # pooled held-out r: predictions from different folds are on comparable
    # scales because every weight vector sums to 1
    ok = np.isfinite(pred)
    pooled = float(np.corrcoef(pred[ok], y[ok])[0, 1]) if ok.sum() > 2 else math.nan
    return CrossValidation(W, rs, pooled)
