"""Regression lines for correlation plots: least squares and least orthogonal squares
(thesis sections 6.1.2 and 6.1.3)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt


def least_squares_line(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[float, float]:
    """(intercept, slope) of the least-squares regression of y on x (thesis section 6.1.2,
    eq. 6.3)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    vx = np.var(x)
    if vx == 0:
        return (float(np.mean(y)), 0.0)
    slope = float(np.mean((x - x.mean()) * (y - y.mean())) / vx)
    return (float(y.mean() - slope * x.mean()), slope)


def orthogonal_line(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[float, float, float]:
    """Least orthogonal squares line (thesis section 6.1.3, eq. 6.5): through the mean along
    the principal axis. Returns (intercept, slope, mean squared orthogonal distance);
    slope is inf for a vertical line."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    mx, my = x.mean(), y.mean()
    cov = np.cov(np.vstack([x - mx, y - my]), bias=True)
    vals, vecs = np.linalg.eigh(cov)
    dx, dy = vecs[:, 1]
    resid = float(vals[0])
    if abs(dx) < 1e-15:
        return (math.nan, math.inf, resid)
    slope = float(dy / dx)
    return (float(my - slope * mx), slope, resid)
