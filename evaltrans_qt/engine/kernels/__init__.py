"""Compiled kernels (numba ``njit(cache=True)``) over int32 token ids.

Each kernel has a plain-Python reference implementation used by the tests.
"""
