"""Sizes our readers can handle, and the one strict number parser for scores.

* :data:`MAX_TEXT_CHARS`: the longest sentence (or attribute value) we import or
  save. libxml2 refuses a text node longer than 10 000 000 bytes unless
  ``huge_tree`` is set (``XML_MAX_TEXT_LENGTH``, libxml2 ``include/libxml/
  parserInternals.h``); a character takes at most 4 bytes in UTF-8, so one
  million characters always reads back. Imports refuse longer lines naming file
  and line; saves refuse them before writing (nothing is written).
* :func:`parse_number`: scores and level definitions are ASCII decimal numbers
  (``3``, ``-2.5``, ``1e-3``): no ``1_0``, no non-ASCII digits (``٣``), no
  surrounding spaces, no ``inf``/``nan`` -- Python's ``float()`` accepts all of
  these, so it is never used on score text directly.
"""

from __future__ import annotations

import math
import re

#: Longest sentence / attribute value in characters (see module doc).
MAX_TEXT_CHARS = 1_000_000

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_number(text: object, what: str = "score") -> float:
    """``text`` as a finite float, or :class:`ValueError` saying why (see module doc)."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a number, not {text!r}")
    if not _NUMBER.fullmatch(text):
        hint = " (no spaces around it)" if text.strip() != text and text.strip() else ""
        raise ValueError(f"{what} must be a number in plain decimal digits, not {text!r}{hint}")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{what} {text!r} is too large (not a finite number)")
    return value


def too_long_message(length: int, what: str = "line") -> str:
    return (f"{what} has {length} characters; at most {MAX_TEXT_CHARS} are supported "
            f"(an XML text node is limited to 10 000 000 bytes, so a longer one could not be "
            f"read back)")
