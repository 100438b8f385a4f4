"""Escaping text for the XML files we write (EvalTrans database and report): the one escaper.

Escapes follow XML 1.0 §2.4 (``&``, ``<``, ``>`` in character data) and §3.3.3
(attribute-value normalisation turns a literal tab, line feed or carriage
return into a space, so they are written as character references to survive a
round trip); a literal carriage return in element text would be read back as a
line feed (§2.11), so it is written as ``&#13;``.

Characters XML 1.0 cannot hold at all (most C0 controls, lone surrogates,
U+FFFE/U+FFFF) are found by :data:`INVALID_XML_CHARS`; each writer decides
what to do with them (the database refuses them, the report replaces them by
U+FFFD with :func:`replace_invalid`).
"""

from __future__ import annotations

import re

#: Characters XML 1.0 cannot represent, not even as character references (XML 1.0 §2.2).
INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape_text(s: str) -> str:
    """Element text: ``&``, ``<``, ``>`` and carriage return as references."""
    if "&" in s:
        s = s.replace("&", "&amp;")
    if "<" in s:
        s = s.replace("<", "&lt;")
    if ">" in s:
        s = s.replace(">", "&gt;")
    if "\r" in s:
        s = s.replace("\r", "&#13;")
    return s


def escape_attr(s: str) -> str:
    """A double-quoted attribute value: :func:`escape_text` plus ``"``, line feed and tab."""
    s = escape_text(s)
    if '"' in s:
        s = s.replace('"', "&quot;")
    if "\n" in s:
        s = s.replace("\n", "&#10;")
    if "\t" in s:
        s = s.replace("\t", "&#9;")
    return s


def replace_invalid(s: str) -> str:
    """``s`` with every character XML cannot hold replaced by U+FFFD."""
    return INVALID_XML_CHARS.sub("\ufffd", s) if INVALID_XML_CHARS.search(s) else s
