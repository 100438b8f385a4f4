"""Safe XML for every reader and writer: the one parser configuration, entity refusal,
escaping, attribute lists and the number format of the files we write.

Reading: :func:`safe_parser` (no network, no DTD, no entity resolution) after
:func:`refuse_entities` (``<!ENTITY`` declarations -- XXE, entity-expansion bombs --
are refused before the document is parsed); every XML reader (database, report, NIST
SGML/XML, WMT XML) uses both.

Writing:

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

import functools
import io
import re

from lxml import etree

from evaltrans_qt.errors import InputFormatError, SaveError
from evaltrans_qt.io.limits import MAX_TEXT_CHARS, parse_number, too_long_message

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


# --------------------------------------------------------------------------- numbers
@functools.lru_cache(maxsize=4096)
def format_number(value: float) -> str:
    """Shortest text for a score/level value: ``3`` not ``3.0``; ``-2.5``; round-trips exactly
    (cached: files repeat values; equal numbers have one text)."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


@functools.lru_cache(maxsize=4096)
def plain_number(text: str) -> float | None:
    """``limits.parse_number(text)``, None when invalid (cached: files repeat values)."""
    try:
        return parse_number(text)
    except ValueError:
        return None


def parse_xml_number(text: str | None, what: str, path, el) -> float:
    if isinstance(text, str):
        v = plain_number(text)
        if v is not None:
            return v
    try:
        return parse_number(text, what)
    except ValueError as exc:
        raise InputFormatError(str(exc), path, el.sourceline) from None


# --------------------------------------------------------------------------- reading
def safe_parser(huge_tree: bool = False) -> etree.XMLParser:
    """The one parser configuration of every XML reader: no network, no DTD, no entity
    resolution, comments and processing instructions dropped; ``huge_tree`` only for
    files we write ourselves that may be large (reports)."""
    return etree.XMLParser(no_network=True, load_dtd=False, resolve_entities=False,
                           dtd_validation=False, huge_tree=huge_tree, remove_comments=True,
                           remove_pis=True)


def line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def refuse_entities(data: bytes, path, what: str = "an EvalTrans database") -> None:
    """Refuse ``<!ENTITY`` declarations (XXE, billion laughs) before the document is parsed.

    libxml2 itself reads the prolog up to the root element's start tag (so comments,
    processing instructions and any encoding, UTF-16 too, are handled as XML) with
    entity substitution, DTD loading and network access off; then the internal DTD
    subset's general and parameter entities are looked at. Malformed prologs are left
    to the real parse, which reports them.
    """
    it = etree.iterparse(io.BytesIO(data), events=("start",), resolve_entities=False,
                         load_dtd=False, no_network=True, huge_tree=False)
    try:
        _, root = next(it)
    except (StopIteration, etree.XMLSyntaxError):
        return
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        pos = data.find(b"<!ENTITY")
        line, col = line_col(data, pos) if pos >= 0 else (None, None)
        raise InputFormatError(f"entity declarations (<!ENTITY) are not allowed in {what} "
                               "(external entities / entity expansion are refused)",
                               path, line, col)


XML_NS = "http://www.w3.org/XML/1998/namespace"


def attr_items(el) -> list[tuple[str, str]]:
    """The attributes of ``el`` in document order, namespaced ones under their prefixed
    name preceded by the ``xmlns:p`` declaration they need (module doc).

    Linear in the number of attributes: lxml's ``attrib``/``items()`` look every
    value up by name (quadratic: 60 000 attributes took 14 s), ``@*`` does not.
    """
    raw = plain_attr_items(el)
    for k, _ in raw:
        if k[0] == "{":
            break
    else:
        return raw
    prefixes = {uri: p for p, uri in el.nsmap.items() if p is not None}
    out: list[tuple[str, str]] = []
    declared: set[str] = set()
    for k, v in raw:
        if k[0] == "{":
            uri, local = k[1:].split("}", 1)
            prefix = "xml" if uri == XML_NS else prefixes.get(uri)
            if prefix is None:               # cannot happen for parsed XML
                prefix = f"ns{len(declared)}"
            if prefix != "xml" and prefix not in declared:
                out.append((f"xmlns:{prefix}", uri))
                declared.add(prefix)
            k = f"{prefix}:{local}"
        out.append((k, v))
    return out


def plain_attr_items(el) -> list[tuple[str, str]]:
    """:func:`attr_items` of an element of a document without namespaces
    (:func:`without_namespaces`): its attributes in document order, linear in their number."""
    if len(el.attrib) <= 32:
        return el.items()
    return [(a.attrname, str(a)) for a in el.xpath("@*")]


#: Encodings (as lxml's ``docinfo.encoding`` names them, lower case) in which every
#: ASCII character is its ASCII byte.
_ASCII_COMPATIBLE = frozenset(("utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1",
                               "iso8859-1", "latin1", "latin-1"))


def without_namespaces(data: bytes, encoding: str) -> bool:
    """True when the parsed document ``data`` (``encoding``: lxml's ``docinfo.encoding``)
    has no namespaced attribute: a namespace needs an ``xmlns`` declaration or the ``xml:``
    prefix (Namespaces in XML 1.0 §3, §4), and in an ASCII-compatible encoding neither
    occurs without its bytes (then :func:`plain_attr_items` may be used; False only costs
    speed). lxml names a UTF-16 file with a byte order mark and no declaration UTF-8, so
    byte order marks and NUL bytes in the first four bytes (UTF-16/32) count too."""
    head = data[:4]
    if (encoding.lower() not in _ASCII_COMPATIBLE or b"\x00" in head
            or head.startswith((b"\xfe\xff", b"\xff\xfe"))):
        return False
    # one scan for "xml" after the XML declaration's ``<?xml`` usually settles it
    start = 5 if data.startswith(b"<?xml") else 8 if data.startswith(b"\xef\xbb\xbf<?xml") else 0
    return data.find(b"xml", start) < 0 or (b"xmlns" not in data and b"xml:" not in data)


# --------------------------------------------------------------------------- writing
#: Escaped short attribute values already written (a file repeats its judges, classes,
#: categories, offsets; bounded): ``value -> escape_attr(value)``.
_ESCAPED: dict[str, str] = {}
_ESCAPED_MAX_LEN = 48
_ESCAPED_MAX_COUNT = 16384


def checked_attr(s: str) -> str:
    """``s`` escaped for a double-quoted attribute (:func:`escape_attr`); SaveError if it
    is longer than ``MAX_TEXT_CHARS``."""
    e = _ESCAPED.get(s)
    if e is not None:
        return e
    if len(s) > MAX_TEXT_CHARS:
        raise SaveError(too_long_message(len(s), f"attribute value {s[:30]!r}..."))
    e = escape_attr(s)
    if len(s) <= _ESCAPED_MAX_LEN and len(_ESCAPED) < _ESCAPED_MAX_COUNT:
        _ESCAPED[s] = e
    return e


def attr_value(v: object) -> str:
    """``v`` (``str(v)`` if not a string) as a double-quoted attribute value: checked for
    length and escaped (:func:`checked_attr`)."""
    if type(v) is str:
        e = _ESCAPED.get(v)
        return checked_attr(v) if e is None else e
    return checked_attr(str(v))


_ATTR_NAME = re.compile(r"(?:xmlns:)?[^\W\d][\w.-]*(?::[^\W\d][\w.-]*)?")


#: Attribute names already found valid by :func:`attrs` (a file repeats a few names; bounded).
_VALID_NAMES: set[str] = set()


def attrs(pairs) -> str:
    """`` k="v"`` for each pair whose value is not None: the name checked (XML 1.0 §2.3
    ``Name``, optionally prefixed), the value checked for length and escaped."""
    out = []
    for k, v in pairs:
        if v is None:
            continue
        if k not in _VALID_NAMES:
            if not _ATTR_NAME.fullmatch(k):
                raise SaveError(f"{k!r} is not a valid XML attribute name")
            if len(_VALID_NAMES) < 4096:
                _VALID_NAMES.add(k)
        out.append(f' {k}="{attr_value(v)}"')
    return "".join(out)
