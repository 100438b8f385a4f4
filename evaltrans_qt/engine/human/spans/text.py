"""Character spans over untokenised text, for marking errors by mouse or keyboard.

A *word* is a maximal run of word characters (``\\w``: letters, digits, underscore) or a
single other non-space character (a punctuation mark is a word of its own), so a span
snapped to words never splits ``trian`` nor swallows the space after it.

* :func:`words` -- the ``[start, end)`` of every word;
* :func:`snap` -- a selection widened to the words it touches (the annotation screen
  snaps unless Alt is held); an empty selection stays an empty span (an omission);
* :func:`next_boundary` / :func:`previous_boundary` -- where Ctrl/Alt+arrow moves the cursor
  (the next word's end / the previous word's start), as text editors move by word.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def words(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every word of ``text`` (module doc), in order."""
    return [m.span() for m in _WORD.finditer(text)]


def snap(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened to whole words: every word the selection overlaps is
    included; whitespace at its ends is dropped. An empty selection is returned as it is
    (an omission at ``start``), and a selection of whitespace only too."""
    if start > end:
        start, end = end, start
    start, end = max(0, start), min(len(text), end)
    if start == end:
        return start, end
    hit = [(a, b) for a, b in words(text) if a < end and b > start]
    if not hit:
        return start, end
    return hit[0][0], hit[-1][1]


def next_boundary(text: str, pos: int) -> int:
    """The end of the word at or after ``pos`` (``len(text)`` at the end)."""
    ends = [b for _, b in words(text)]
    i = bisect_right(ends, pos)
    return ends[i] if i < len(ends) else len(text)


def previous_boundary(text: str, pos: int) -> int:
    """The start of the word before ``pos`` (0 at the start)."""
    starts = [a for a, _ in words(text)]
    i = bisect_left(starts, pos)
    return starts[i - 1] if i > 0 else 0
