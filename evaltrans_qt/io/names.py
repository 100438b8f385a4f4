"""Names from data (systems, language pairs, metrics, score classes) as file names.

Every writer that builds a path from database content goes through
:func:`file_name_part` / :func:`file_name_parts`, so no name can leave the output
folder, hide a file or clash with another:

* percent-encoding as in URLs (RFC 3986 §2.1): ASCII letters, digits, ``-``, ``.``
  and ``_`` stay, every other character becomes ``%HH`` per UTF-8 byte -- path
  separators (``/``, ``\\``), control characters, ``%`` and ``~`` included; a leading
  ``.`` is encoded too (``%2E``), so ``.`` and ``..`` never name a folder and no name
  gives a hidden file. Decoding (``urllib.parse.unquote``) gives the name back, so
  different names never give the same part;
* ``%`` for the empty name;
* longer than :data:`MAX_PART` characters: cut, with ``~`` and 12 hex digits of the
  name's SHA-1 (a file name stays far below the 255 bytes of common file systems);
* :func:`file_name_parts`: parts equal but for case (``A``, ``a``: one file on macOS
  and Windows) get ``~`` and 8 hex digits of the name's SHA-1 as well.

Names made only of the kept characters are unchanged, so ordinary system and metric
names (``Online-W``, ``COMET-22``, ``en-de``) keep their file names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from urllib.parse import quote

#: Longest file-name part in characters (module doc).
MAX_PART = 100


def _sha1(name: str, digits: int) -> str:
    return hashlib.sha1(name.encode("utf-8")).hexdigest()[:digits]


def file_name_part(name: str) -> str:
    """``name`` as one safe file-name part (module doc)."""
    enc = quote(name, safe="").replace("~", "%7E") or "%"
    if enc.startswith("."):
        enc = "%2E" + enc[1:]
    if len(enc) > MAX_PART:
        enc = enc[:MAX_PART - 13] + "~" + _sha1(name, 12)
    return enc


def file_name_parts(names: Iterable[str]) -> dict[str, str]:
    """{name: safe part} for names written side by side: :func:`file_name_part`, plus a
    hash for parts that differ only in case (module doc)."""
    parts = {n: file_name_part(n) for n in names}
    folded: dict[str, int] = {}
    for part in parts.values():
        folded[part.casefold()] = folded.get(part.casefold(), 0) + 1
    return {n: f"{p}~{_sha1(n, 8)}" if folded[p.casefold()] > 1 else p for n, p in parts.items()}
