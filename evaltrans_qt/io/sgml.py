"""NIST mteval SGML and XML import: ``srcset``/``refset``/``tstset``,
``doc`` (``docid``, ``sysid``), ``seg`` (``id``); ``<p>`` wrappers are allowed.

* SGML (``.sgm``) is read the way mteval does, tolerantly: tags found by
  pattern, attribute values quoted or not, entities like ``&amp;`` decoded,
  segment text stripped. XML files (anything starting with ``<?xml``, or
  ``.xml``) are parsed with the same safe lxml parser as databases (no network,
  no DTD, ``<!ENTITY`` refused).
* Segments are matched by (docid, seg id); the source set decides the order.
  Each becomes a source with those ``doc``/``seg`` ids (positional identity),
  so a sentence repeated in the source set keeps each segment's references.
  A reference/test set that lacks a source segment or has one the source does
  not, is an error naming file and line.
* Reference ids: the ``sysid`` of the ``refset`` (on ``<doc>`` or on the set);
  without one, ``ref-<n>`` by file order. Several sysids in one file are
  several references. Test-set system ids: ``sysid``, else the file stem.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from evaltrans_qt.engine.data.database import Database, check_id
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.limits import MAX_TEXT_CHARS, too_long_message
from evaltrans_qt.io.plaintext import (
    PathLike,
    check_segments,
    existing_target,
    read_input_bytes,
    read_text,
)
from evaltrans_qt.io.xmlsafe import refuse_entities, safe_parser

_TAG = re.compile(r"<(/?)([A-Za-z]+)\b([^>]*)>", re.S)
_ATTR = re.compile(r"""([A-Za-z_:][-\w:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_SETS = ("srcset", "refset", "tstset")
_WS = re.compile(r"[ \t\r\n]+")
_OTHER_REF = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);)")
_BASIC_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"), ("&amp;", "&"))
#: A whole ``<seg ...>text</seg>`` whose text holds no tag (the common case), else any tag.
_SEG_OR_TAG = re.compile(r"<(?i:seg)\b([^>]*)>([^<]*(?:<(?!/?[A-Za-z]+\b[^>]*>)[^<]*)*)"
                         r"</(?i:seg)\b[^>]*>|" + _TAG.pattern, re.S)
_ID_ONLY = re.compile(r"""\s*id\s*=\s*"([^"&]*)"\s*""", re.I)


def _squeeze(text: str) -> str:
    """Collapse ASCII whitespace runs, strip ends (no-break spaces are kept)."""
    if ("\n" in text or "\t" in text or "\r" in text or "  " in text or text[:1] == " "
            or text[-1:] == " "):
        return _WS.sub(" ", text).strip()
    return text


def _unescape(text: str) -> str:
    """``html.unescape``, with a fast path for text whose only references are the five
    XML entities (replaced in one pass each, ``&amp;`` last, so ``&amp;lt;`` -> ``&lt;``)."""
    if "&" not in text:
        return text
    if _OTHER_REF.search(text):
        return html.unescape(text)
    for e, c in _BASIC_ENTITIES:
        if e in text:
            text = text.replace(e, c)
    return text


def _seg_id(attr_text: str) -> str | None:
    m = _ID_ONLY.fullmatch(attr_text)
    return m[1] if m else _attrs(attr_text).get("id")


def _seg_body(raw: str) -> str:
    return _squeeze(_unescape(raw))


@dataclass
class SegSet:
    """One set of a file: kind, and per sysid the ordered (docid, segid) → (text, line)."""

    kind: str
    path: Path
    systems: dict[str, dict[tuple[str, str], tuple[str, int]]] = field(default_factory=dict)


def _attrs(text: str) -> dict[str, str]:
    return {m[1].lower(): html.unescape(m[2] if m[2] is not None else m[3] if m[3] is not None else m[4])
            for m in _ATTR.finditer(text)}


def _add(sets: list[SegSet], path: Path, kind: str | None, sysid: str, doc: str | None,
         seg_id: str | None, text: str, line: int) -> None:
    if kind is None:
        raise InputFormatError("<seg> outside a srcset/refset/tstset", path, line)
    if doc is None:
        raise InputFormatError("<seg> outside a <doc>", path, line)
    if not seg_id:
        raise InputFormatError("<seg> without an id attribute", path, line)
    segs = sets[-1].systems.setdefault(sysid, {})
    key = (doc, seg_id)
    if key in segs:
        raise InputFormatError(f"segment id {seg_id} appears twice in document {doc}", path, line)
    if len(text) > MAX_TEXT_CHARS:
        raise InputFormatError(too_long_message(len(text), "segment"), path, line)
    segs[key] = (text, line)


class _TagView:
    """Groups 1-3 of a ``_TAG`` match inside a ``_SEG_OR_TAG`` match (groups 3-5)."""

    __slots__ = ("_m",)

    def __init__(self, m: re.Match) -> None:
        self._m = m

    def __getitem__(self, i: int) -> str:
        return self._m[i + 2]

    def start(self) -> int:
        return self._m.start()

    def end(self) -> int:
        return self._m.end()


def parse_sgml(path: PathLike, encoding: str = "utf-8") -> list[SegSet]:
    """Parse an mteval SGML file the tolerant way mteval does (one pass, linear time:
    line numbers are counted between consecutive tags, not from the file start)."""
    p = Path(path)
    text = read_text(p, encoding)
    check_segments(text.count("<seg") + text.count("<SEG"), p)      # a bound, before parsing
    sets: list[SegSet] = []
    kind: str | None = None
    set_sys = doc = doc_sys = None
    seg_open: tuple[int, str | None, int] | None = None  # (text start, id, line)
    line, counted = 1, 0
    for m in _SEG_OR_TAG.finditer(text):
        line += text.count("\n", counted, m.start())
        counted = m.start()
        if m[2] is not None:                         # a whole segment without inner tags
            if seg_open is not None:
                raise InputFormatError("<seg> opened before the previous one was closed", p, line)
            _add(sets, p, kind, doc_sys or set_sys or "", doc, _seg_id(m[1]), _seg_body(m[2]),
                 line)
            continue
        closing, name = m[3] == "/", m[4].lower()
        tag = _TagView(m)
        if name == "seg":
            if not closing:
                if seg_open is not None:
                    raise InputFormatError("<seg> opened before the previous one was closed", p, line)
                seg_open = (tag.end(), _seg_id(tag[3]), line)
            else:
                if seg_open is None:
                    raise InputFormatError("</seg> without <seg>", p, line)
                start, sid, sline = seg_open
                body = _seg_body(text[start:tag.start()])
                _add(sets, p, kind, doc_sys or set_sys or "", doc, sid, body, sline)
                seg_open = None
        elif seg_open is not None:
            raise InputFormatError(f"<{tag[1]}{tag[2]}> inside a <seg> (missing </seg>?)", p, line)
        elif name in _SETS:
            if closing:
                kind = set_sys = None
            else:
                kind = name
                set_sys = _attrs(tag[3]).get("sysid")
                sets.append(SegSet(kind, p))
        elif name == "doc":
            if closing:
                doc = doc_sys = None
            else:
                a = _attrs(tag[3])
                doc = a.get("docid", "")
                doc_sys = a.get("sysid")
    if seg_open is not None:
        raise InputFormatError("<seg> is never closed", p, seg_open[2])
    if not sets:
        raise InputFormatError("no srcset, refset or tstset found (not an mteval SGML file?)", p)
    return sets


def parse_xml(path: PathLike) -> list[SegSet]:
    """Parse an mteval XML file (``<mteval>`` wrapper optional) with the safe parser."""

    p = Path(path)
    data = read_input_bytes(p, "an mteval XML file")
    refuse_entities(data, p)
    check_segments(data.count(b"<seg"), p)             # a bound, before the tree is built
    try:
        root = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as exc:
        msg = re.sub(r", line \d+, column \d+$", "", exc.msg or str(exc))
        raise InputFormatError(f"malformed XML: {msg}", p, exc.lineno or None, exc.offset or None) from None
    sets: list[SegSet] = []
    for s in root.iter(*_SETS):
        sets.append(SegSet(s.tag, p))
        for d in s.iter("doc"):
            for seg in d.iter("seg"):
                body = _squeeze("".join(seg.itertext()))
                _add(sets, p, s.tag, d.get("sysid") or s.get("sysid") or "", d.get("docid", ""),
                     seg.get("id"), body, seg.sourceline)
    if not sets:
        raise InputFormatError("no srcset, refset or tstset found (not an mteval XML file?)", p)
    return sets


def parse_file(path: PathLike, encoding: str = "utf-8") -> list[SegSet]:
    """SGML or XML by content (``<?xml`` prolog) or ``.xml`` extension."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            head = f.read(64).lstrip()
    except OSError:
        head = b""
    if p.suffix.lower() == ".xml" or head.startswith(b"<?xml"):
        return parse_xml(p)
    return parse_sgml(p, encoding)


def _only(sets: list[SegSet], kind: str, path: PathLike) -> list[SegSet]:
    out = [s for s in sets if s.kind == kind]
    if not out:
        raise InputFormatError(f"no <{kind}> in this file", path)
    return out


def import_sgml(source: PathLike, references: Sequence[PathLike] = (),
                targets: Sequence[PathLike] = (), db: Database | None = None,
                encoding: str = "utf-8") -> Database:
    """Import mteval source/reference/test sets into ``db`` (new if None); all checked first."""
    src_sets = _only(parse_file(source, encoding), "srcset", source)
    order: dict[tuple[str, str], tuple[str, int]] = {}
    for s in src_sets:
        for segs in s.systems.values():
            order.update(segs)
    if not order:
        raise InputFormatError("the source set has no segments", source)
    keys = list(order)
    n_ref = 0
    collected: list[tuple[str, bool, dict[tuple[str, str], tuple[str, int]], Path]] = []
    names: set[str] = set()
    for kind, files in (("refset", references), ("tstset", targets)):
        for f in files:
            for s in _only(parse_file(f, encoding), kind, f):
                for sysid, segs in s.systems.items():
                    if kind == "refset":
                        n_ref += 1
                        name = sysid or f"ref-{n_ref}"
                    else:
                        name = sysid or Path(f).stem
                    if name in names:
                        raise InputFormatError(f"system id '{name}' appears in two sets", f)
                    names.add(name)
                    for key, (_, line) in segs.items():
                        if key not in order:
                            raise InputFormatError(f"document {key[0]} segment {key[1]} is not "
                                                   f"in the source set {Path(source).name}", f, line)
                    missing = [k for k in keys if k not in segs]
                    if missing:
                        raise InputFormatError(
                            f"{name}: {len(missing)} source segment(s) missing, first: document "
                            f"{missing[0][0]} segment {missing[0][1]}", f)
                    collected.append((name, kind == "refset", segs, Path(f)))
    db = db if db is not None else Database()
    for key in keys:                      # every position is checked before adding any
        old = db.source_by_key(*key)
        text, line = order[key]
        check_id(key[0], "document id", source, line)
        check_id(key[1], "segment id", source, line)
        if old is not None and old.text != text:
            raise InputFormatError(f"document {key[0]} segment {key[1]} is {old.text[:50]!r} in "
                                   f"the database, not {text[:50]!r}", source, line)
    for name, is_ref, segs, f in collected:     # an append merges by (doc, seg) and system
        for key in keys:
            old = db.source_by_key(*key)
            if old is not None:
                existing_target(db, old, segs[key][0], name, is_ref, f, segs[key][1])
    sources = {key: db.add_source(order[key][0], *key) for key in keys}
    lv = db.marking_class() if any(is_ref for _, is_ref, _, _ in collected) else None
    for name, is_ref, segs, f in collected:
        for key in keys:
            if existing_target(db, sources[key], segs[key][0], name, is_ref, f, segs[key][1]):
                continue
            t = db.add_target(sources[key], segs[key][0], name)
            if is_ref:
                db.mark_reference(t, lv)
    return db
