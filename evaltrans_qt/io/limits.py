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
  these, so it is never used on score text directly. At most
  :data:`MAX_NUMBER_CHARS` characters (a 5000-digit number is refused before any
  conversion: Python refuses to convert integers of more than 4300 digits).
* :func:`parse_int`: ids, indices, counts and links are ASCII digits only (``str.isdigit``
  also accepts ``²`` and ``٣``, which ``int()`` refuses), at most
  :data:`MAX_INT_DIGITS` of them, and within the range the caller gives -- checked
  before ``int()`` is called.
* :func:`load_json`: JSON nested at most :data:`MAX_JSON_DEPTH` deep (checked by a
  non-recursive scan before parsing; Python's parser recurses and would raise
  ``RecursionError``), integers and numbers bounded as above.
* :func:`max_input_bytes`: the largest input file read (default
  :data:`MAX_INPUT_BYTES`, 512 MiB: a file is held as bytes and as text, so reading it
  stays well below 2 GB; the environment variable ``EVALTRANS_MAX_INPUT_MB`` raises or
  lowers it). Only regular files are read: a device (``/dev/zero``), a pipe or a socket
  never ends, so it is refused before reading.
* :func:`max_segments`: the most segments (sources plus targets) one import may add,
  checked before the lines are split or the database grows (default
  :data:`MAX_SEGMENTS`; ``EVALTRANS_MAX_SEGMENTS`` raises it). An import and the check of
  the save that follows it peak at about 2.5-3 KB a segment (measured:
  ``benchmarks/bench_import_scaling.py memory``), so the default keeps a command below
  2 GB whatever the input (a 512 MiB file of one-character lines would otherwise
  be 268 million sources).
* :data:`MAX_CSV_FIELD`: the longest CSV field (Python's default, 131 072
  characters, raised to :data:`MAX_TEXT_CHARS`); :func:`csv_field_limit` sets it.
"""

from __future__ import annotations

import math
import re

#: Longest sentence / attribute value in characters (see module doc).
MAX_TEXT_CHARS = 1_000_000

#: Most characters of a number's text (a double has 17 significant digits; exponents
#: are short): 400-digit integers that overflow a float never reach ``float()``.
MAX_NUMBER_CHARS = 64
#: Most digits of an integer id, index or count (below 2**63).
MAX_INT_DIGITS = 18
#: Deepest JSON nesting read (our formats need 4).
MAX_JSON_DEPTH = 64
#: Highest rank read from a ranking file: a rank class has ranks 1..count-1, and a
#: database's class has at most 1000 levels (``io/etdb/reader.py``), so it reads back.
MAX_RANK = 999
#: Largest input file in bytes unless ``EVALTRANS_MAX_INPUT_MB`` says otherwise.
MAX_INPUT_BYTES = 512 * 2**20
#: Environment variable that sets the input size limit in MiB (module doc).
INPUT_LIMIT_ENV = "EVALTRANS_MAX_INPUT_MB"
#: Most segments one import adds unless ``EVALTRANS_MAX_SEGMENTS`` says otherwise.
MAX_SEGMENTS = 500_000
#: Environment variable that sets the segment limit (module doc).
SEGMENT_LIMIT_ENV = "EVALTRANS_MAX_SEGMENTS"
#: Longest CSV field in characters (see module doc).
MAX_CSV_FIELD = MAX_TEXT_CHARS

_INT = re.compile(r"[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_number(text: object, what: str = "score") -> float:
    """``text`` as a finite float, or :class:`ValueError` saying why (see module doc)."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a number, not {text!r}")
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"{what} has {len(text)} characters; a number has at most "
                         f"{MAX_NUMBER_CHARS}")
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


def parse_int(text: object, what: str = "number", lo: int = 0, hi: int = 10**MAX_INT_DIGITS - 1,
              *, signed: bool = False) -> int:
    """``text`` as an int in ``lo..hi``, or :class:`ValueError` saying why (module doc):
    ASCII digits only (a leading ``-`` when ``signed``), at most :data:`MAX_INT_DIGITS`."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        if not isinstance(text, str):
            raise ValueError(f"{what} must be a whole number, not {text!r}")
        digits = text[1:] if signed and text.startswith("-") else text
        if not _INT.fullmatch(digits):
            raise ValueError(f"{what} must be a whole number in plain digits, not "
                             f"{_clip(text)}")
        if len(digits) > MAX_INT_DIGITS:
            raise ValueError(f"{what} has {len(digits)} digits; at most {MAX_INT_DIGITS} "
                             f"are supported")
        value = int(text)
    if not lo <= value <= hi:
        raise ValueError(f"{what} {value} is outside {lo}..{hi}")
    return value


def _clip(text: str, width: int = 40) -> str:
    return repr(text if len(text) <= width else text[:width] + "...")


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits; at most "
                         f"{MAX_INT_DIGITS} are supported")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text)} characters; at most {MAX_NUMBER_CHARS}")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {_clip(text)} is too large (not finite)")
    return value


def _bad_constant(text: str) -> float:
    raise ValueError(f"{text} is not a number JSON allows")


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` in JSON ``text`` (strings skipped), without recursion."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_JSON_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def load_json(text: str, max_depth: int = MAX_JSON_DEPTH):
    """``json.loads`` with the module doc's bounds; :class:`ValueError` (``json``'s
    ``JSONDecodeError`` is one) saying why."""
    import json
    if json_depth(text) > max_depth:
        raise ValueError(f"JSON nested more than {max_depth} deep")
    return json.loads(text, parse_int=_bounded_int, parse_float=_bounded_float,
                      parse_constant=_bad_constant)


def csv_field_limit() -> None:
    """Set the csv module's field size limit to :data:`MAX_CSV_FIELD` (module doc): a
    longer field then raises ``csv.Error`` ("field larger than field limit"), which
    readers turn into a clear error naming file and line."""
    import csv
    csv.field_size_limit(MAX_CSV_FIELD)


def max_input_bytes() -> int:
    """The input size limit (module doc): ``EVALTRANS_MAX_INPUT_MB`` MiB if set to a whole
    number, else :data:`MAX_INPUT_BYTES`."""
    import os
    raw = os.environ.get(INPUT_LIMIT_ENV, "")
    try:
        return parse_int(raw.strip(), INPUT_LIMIT_ENV, 1, 10**7) * 2**20
    except ValueError:
        return MAX_INPUT_BYTES


def too_big_message(size: int | None, limit: int) -> str:
    got = f"has {size / 2**20:.0f} MiB" if size is not None else "is larger than that"
    return (f"{got}; inputs of at most {limit // 2**20} MiB are read (set {INPUT_LIMIT_ENV} to "
            f"raise the limit)")


def max_segments() -> int:
    """The segment limit of one import (module doc)."""
    import os
    raw = os.environ.get(SEGMENT_LIMIT_ENV, "")
    try:
        return parse_int(raw.strip(), SEGMENT_LIMIT_ENV, 1)
    except ValueError:
        return MAX_SEGMENTS


def segments_message(count: int, what: str = "the import") -> str | None:
    """Why ``count`` segments are too many (module doc), or None."""
    limit = max_segments()
    if count <= limit:
        return None
    return (f"{what} has {count} segments; at most {limit} are imported at once (about "
            f"3 KB of memory each; set {SEGMENT_LIMIT_ENV} to raise the limit)")
