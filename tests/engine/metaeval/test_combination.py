"""Correlation-optimal linear combination (thesis eq. 6.6-6.15)."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.metaeval import combination as cb


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[:, 1] += 0.6 * X[:, 0]                  # correlated measures
    w = np.array([0.5, 0.3, 0.2])
    y = X @ w + 0.4 * rng.normal(size=n)
    return X, y, w


def test_optimal_weights_recover_known_weights():
    X, y, w = _data()
    assert cb.optimal_weights(X, y) == pytest.approx(w, abs=0.02)


def test_eq_6_15_equals_direct_correlation_and_is_maximal():
    X, y, _ = _data(seed=1)
    sigma, sy, vy = cb.covariances(X, y)
    w_opt = cb.optimal_weights(X, y)
    direct = np.corrcoef(X @ w_opt, y)[0, 1]
    assert cb.combined_r(w_opt, sigma, sy, vy) == pytest.approx(direct)
    rng = np.random.default_rng(2)
    for _ in range(50):
        w = rng.normal(size=3)
        assert cb.combined_r(w, sigma, sy, vy) <= cb.combined_r(w_opt, sigma, sy, vy) + 1e-12


def test_weight_curve_endpoints_and_maximum():
    X, y, _ = _data(seed=3)
    ws, rs = cb.weight_curve(X[:, 0], X[:, 2], y, steps=201)
    assert rs[-1] == pytest.approx(np.corrcoef(X[:, 0], y)[0, 1])
    assert rs[0] == pytest.approx(np.corrcoef(X[:, 2], y)[0, 1])
    w2 = cb.optimal_weights(X[:, [0, 2]], y)
    assert ws[np.argmax(rs)] == pytest.approx(w2[0], abs=0.01)


def test_cross_validation_folds_by_group_and_held_out_r():
    X, y, w = _data(seed=4)
    groups = np.arange(len(y)) // 6
    cv = cb.cross_validate(X, y, k=5, groups=groups, seed=0)
    assert cv.weights.shape == (5, 3)
    assert np.allclose(cv.weights.sum(axis=1), 1)
    full_r = np.corrcoef(X @ cb.optimal_weights(X, y), y)[0, 1]
    # held-out r is close to, and not above, the in-sample optimum (no training on test data)
    assert cv.pooled_r <= full_r + 1e-9 and cv.pooled_r > full_r - 0.02
    assert cv.mean_r == pytest.approx(np.mean(cv.held_out_r))
