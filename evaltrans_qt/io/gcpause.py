"""The cyclic garbage collector paused while a large database is built or read.

Reading a database creates hundreds of thousands of objects (sources, targets, scores,
spans) and frees almost none of them, and none in cycles. CPython starts a collection
every 700 net allocations and, now and then, a full one that traverses every tracked
object alive: while a WMT-sized campaign is collected (ten bundles read, a result of
40 000 judgements written and read back) that was about half of the time, for nothing
collected. Inside :func:`paused_gc` no automatic collection runs; reference counting
still frees everything that is not in a cycle, and the collector resumes (as it was) when
the outermost pause ends, so cyclic garbage made meanwhile is collected then. Nested and
concurrent pauses (worker threads) count: the collector is re-enabled by the last one
to end, and only if it was enabled when the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """No automatic cyclic garbage collection inside the block (module doc)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


__all__ = ["paused_gc"]
