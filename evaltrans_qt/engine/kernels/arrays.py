"""Small array helpers shared by the search kernels (numba ``njit``)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def grow(a, n):
    """A copy of 1-D ``a`` with capacity ``n`` >= a.size (same dtype; the tail uninitialised)."""
    b = np.empty(n, a.dtype)
    b[:a.size] = a
    return b
