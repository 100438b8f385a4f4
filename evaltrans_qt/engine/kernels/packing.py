"""Packing many sentences' token ids into one flat array for one compiled call (no numba
import here: the small-input paths use it without compiling anything)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def intern_by_identity(arrays: Iterable[np.ndarray]) -> tuple[list[np.ndarray], list[int]]:
    """The distinct array *objects* of ``arrays`` (first-seen order) and each item's index
    among them: an array shared by many segments (all systems' references of a run) is
    prepared, packed or shipped once."""
    unique: list[np.ndarray] = []
    seen: dict[int, int] = {}
    index: list[int] = []
    for arr in arrays:
        u = seen.get(id(arr))
        if u is None:
            u = seen[id(arr)] = len(unique)
            unique.append(arr)
        index.append(u)
    return unique, index


def pack(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate int32 arrays into (flat, offsets) for one compiled call over many sentences.

    ``arrays[i] == flat[offsets[i]:offsets[i+1]]``.
    """
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    if arrays:
        np.cumsum(np.fromiter(map(len, arrays), np.int64, len(arrays)), out=offsets[1:])
        flat = (np.concatenate(arrays, dtype=np.int32, casting="same_kind") if offsets[-1]
                else np.zeros(0, np.int32))
    else:
        flat = np.zeros(0, np.int32)
    return flat, offsets
