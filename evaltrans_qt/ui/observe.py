"""Connect a Qt view to the workspace's psygnal signals for as long as the view lives.

psygnal holds bound methods weakly, but a Qt widget's Python wrapper can outlive its C++
object (a deleted panel would then be called); :func:`observe` disconnects when the
owner is destroyed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from PySide6.QtCore import QObject


def observe(owner: QObject, signal, slot: Callable) -> None:
    """``signal.connect(slot)`` until ``owner`` is destroyed."""
    signal.connect(slot)

    def _drop(*_args) -> None:
        with contextlib.suppress(Exception):
            signal.disconnect(slot)

    owner.destroyed.connect(_drop)
