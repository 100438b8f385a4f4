"""EvalTrans database files (``.etdb.xml``): the reader (the writer is :mod:`.writer`).

Format: thesis Appendix A.2, Figure A.1, with our extensions::

    <database> <version_id/> <levels class count gray green perfect firstvalid/>*
      <source doc seg> <s_sent/> <targets> <tgt sys> <t_sent/> <eval class val/>* ...

Safety: the ``<!DOCTYPE … SYSTEM "etdb.dtd">`` line is accepted and never
fetched (``no_network``, no DTD loading, no entity resolution); any
``<!ENTITY`` declaration (external entities, entity-expansion bombs) is refused.

Our extensions (all optional, ignored by nothing we read):

* ``<eval evaluator="judge" time="…" extrapolated="1">`` and non-integer ``val``;
* ``<levels continuous="1" minimum="…" maximum="…">`` for real-valued scales;
* ``<tgt doc="…" seg="…">`` target ids;
* the human-evaluation protocols (EuroMatrix survey §4.4): ``<items>`` of a source,
  ``<postedit>`` and ``<marks>`` of a target, ``<tgt added="1" judge="…">`` for a reference a judge
  added -- documented and read/written by :mod:`evaltrans_qt.io.etdb.protocols`;
* error spans (MQM, ESA): ``<errors>`` of a target -- documented in ``docs/spans.md`` and
  read/written by :mod:`evaltrans_qt.io.etdb.spans`;
* SegRanks (Macháček ch. 2): ``<segranks>`` of a source -- short segments, merged candidate
  segments, rankings -- documented and read/written by :mod:`evaltrans_qt.io.etdb.segranks`;
* campaigns with several annotators: the top-level ``<campaign-bundle>`` of an annotator's
  bundle and ``<campaign-result>`` of a collected result, kept as unknown elements --
  documented in ``docs/campaigns.md`` and read/written by :mod:`evaltrans_qt.io.campaign_bundle`
  and :mod:`evaltrans_qt.io.campaign_qc`;
* unknown elements/attributes are kept (``extra_attrs``/``extra_children``) and
  written back; unknown children of ``<targets>`` are written back under
  ``<source>``. Comments and processing instructions are not kept. A namespaced
  attribute (``xml:lang``, ``a:b``) is kept under its prefixed name, with the
  ``xmlns:a`` declaration it needs in the same element's ``extra_attrs``, so it is
  written back as valid XML.

Every write goes through :func:`save_database`: validate the scores, serialise,
parse the bytes back (a file that would not load is never written), then replace
the file atomically (``io/atomic.py``). Sizes (``io/limits.py``): a sentence or
attribute value longer than ``MAX_TEXT_CHARS`` is refused before writing;
numbers are read with the strict ``limits.parse_number``.

Sentences are kept verbatim (no whitespace normalisation). Identity (a deliberate
deviation from thesis Appendix A.2): a ``<source>`` with a ``seg`` attribute (and optional
``doc``) is identified by them, so a repeated sentence keeps one source per position; two
with the same doc/seg but different ``<s_sent>`` are an error naming the line. Sources
without ``seg`` (old EvalTrans files) with the same ``<s_sent>`` text are one source
(thesis Appendix A.2): their targets are merged. The original tool accepts the
attributes (Figure A.1) and identifies sources by text.
The writer is deterministic: load → save → load is equal and saving twice gives
identical bytes.
"""

from __future__ import annotations

import copy
import importlib.resources
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, overload

from lxml import etree

from evaltrans_qt.engine.data.database import (
    Database,
    Levels,
    Score,
    Target,
    check_id,
    source_key,
)
from evaltrans_qt.errors import InputFormatError, ScoreError
from evaltrans_qt.io import scores as external_scores
from evaltrans_qt.io.etdb import protocols as _protocols
from evaltrans_qt.io.etdb import segranks as _segranks
from evaltrans_qt.io.etdb import spans as _spans
from evaltrans_qt.io.gcpause import paused_gc
from evaltrans_qt.io.limits import MAX_TEXT_CHARS
from evaltrans_qt.io.plaintext import read_input_bytes
from evaltrans_qt.io.xmlsafe import (
    attr_items,
    parse_xml_number,
    plain_attr_items,
    plain_number,
    refuse_entities,
    safe_parser,
    without_namespaces,
)

#: How the attributes of an element are read (:func:`attr_items` or a faster equivalent).
ItemsOf = Callable[[Any], list[tuple[str, str]]]

DOCTYPE = '<!DOCTYPE etdb SYSTEM "etdb.dtd">'


def demo_database_path() -> Path:
    """Path of the built-in demo database (``resources/demo.etdb.xml``)."""
    return Path(str(importlib.resources.files("evaltrans_qt.resources") / "demo.etdb.xml"))




#: Most levels a discrete score class may have (one button each in a scoring session).
MAX_LEVEL_COUNT = 1000




# --------------------------------------------------------------------------- reading




def _serialize(el) -> str:
    """An unknown element as text; namespace declarations of its ancestors that it does not
    use are dropped (lxml repeats every one in scope), so load -> save -> load is stable."""
    if el.nsmap:
        el = copy.deepcopy(el)
        etree.cleanup_namespaces(el)
    return etree.tostring(el, encoding="unicode", with_tail=False)


def _text(el) -> str:
    if len(el):  # markup inside a sentence: keep its text
        return "".join(el.itertext())
    return el.text or ""


@overload
def _level_number(a: dict[str, str], key: str, name: str, path, el,
                  default: float) -> float: ...


@overload
def _level_number(a: dict[str, str], key: str, name: str, path, el,
                  default: None) -> float | None: ...


def _level_number(a: dict[str, str], key: str, name: str, path, el,
                  default: float | None) -> float | None:
    text = a.pop(key, None)
    if text is None:
        return default
    v = plain_number(text)
    if v is not None:
        return v
    return parse_xml_number(text, f"{key} of class '{name}'" if key not in ("minimum", "maximum")
                   else key, path, el)


def _read_levels(el, path) -> Levels:
    a = dict(attr_items(el))
    name = a.pop("class", None)
    if not name:
        raise InputFormatError("<levels> needs a class attribute", path, el.sourceline)
    continuous = a.pop("continuous", "0") in ("1", "true", "yes")
    if "count" not in a and not continuous:
        raise InputFormatError(f"<levels class=\"{name}\"> needs a count attribute", path, el.sourceline)
    count = _level_number(a, "count", name, path, el, 0.0)
    if count != int(count) or count < 0:
        raise InputFormatError(f"count of class '{name}' must be a whole number >= 0", path, el.sourceline)
    if count > MAX_LEVEL_COUNT:
        raise InputFormatError(f"count of class '{name}' is {int(count)}: more than {MAX_LEVEL_COUNT} "
                               "levels cannot be scored (use continuous=\"1\" for a real-valued "
                               "scale)", path, el.sourceline)
    gray, green, perfect, firstvalid = (_level_number(a, k, name, path, el, 0.0)
                                        for k in ("gray", "green", "perfect", "firstvalid"))
    mn = _level_number(a, "minimum", name, path, el, None)
    mx = _level_number(a, "maximum", name, path, el, None)
    return Levels(name, int(count), gray, green, perfect, firstvalid, continuous, mn, mx, a)


def _read_eval(el, levels: dict[str, Levels], path, valid: set[tuple[str, float]],
               items_of: ItemsOf) -> Score:
    """One ``<eval>`` (``valid``: the (class, value) pairs already validated in this file)."""
    a = dict(items_of(el))
    cls = a.pop("class", None)
    if not cls:
        raise InputFormatError("<eval> needs a class attribute", path, el.sourceline)
    text = a.pop("val", None)
    value = plain_number(text) if isinstance(text, str) else None
    if value is None or (cls, value) not in valid:
        lv = levels.get(cls)
        if lv is None:
            raise ScoreError(f"score of undeclared class '{cls}' (declare it with <levels>)",
                             path, el.sourceline)
        if value is None:
            value = parse_xml_number(text, f"val of class '{cls}'", path, el)  # raises
        try:
            lv.validate(value)
        except ScoreError as exc:
            raise ScoreError(exc.problem, path, el.sourceline) from None
        valid.add((cls, value))
    if a:
        return Score(cls, value, a.pop("evaluator", None), a.pop("time", None),
                     a.pop("extrapolated", "0") in ("1", "true", "yes"), a)
    return Score(cls, value, None, None, False, a)


def _read_target(el, r: _Reading, pending: list[_spans.Pending]) -> Target:
    levels, path, valid, items_of = r.levels, r.path, r.valid, r.items_of
    items = items_of(el)
    if len(items) == 1 and items[0][0] == "sys":        # the usual <tgt sys="...">
        a: dict[str, str] = {}
        tgt = Target("", items[0][1], extra_attrs=a)
    else:
        a = dict(items)
        system, doc, seg = a.pop("sys", None), a.pop("doc", None), a.pop("seg", None)
        tgt = Target("", system, doc=doc, seg=seg, extra_attrs=a)
    scores = tgt.scores
    seen_text = False
    for child in el:
        tag = child.tag
        if tag == "eval":
            scores.append(_read_eval(child, levels, path, valid, items_of))
        elif tag == "t_sent" and not seen_text:
            tgt.text = child.text or "" if not len(child) else _text(child)
            seen_text = True
        elif tag == _spans.TAG:
            _spans.read_target_child(tgt, child, path, pending, items_of)
        elif tag in _protocols.TARGET_TAGS:
            _protocols.read_target_child(tgt, child, path)
        elif isinstance(tag, str):
            tgt.extra_children.append(_serialize(child))
    if not seen_text:
        raise InputFormatError("<tgt> has no <t_sent>", path, el.sourceline)
    if a:                                   # ``added``/``judge`` among them (tgt.extra_attrs)
        _protocols.read_target_attrs(tgt)
    return tgt


class _Reading:
    """What the reading of one file keeps between ``<source>`` elements."""

    __slots__ = ("db", "items_of", "levels", "path", "valid")

    def __init__(self, db: Database, levels: dict[str, Levels], path: str,
                 items_of: ItemsOf) -> None:
        self.db, self.levels, self.path = db, levels, path
        #: :func:`attr_items`, or :func:`plain_attr_items` for a file without namespaces.
        self.items_of = items_of
        #: (class, value) of the scores already validated (files repeat them).
        self.valid: set[tuple[str, float]] = set()


def _read_source(el, r: _Reading) -> None:
    """Add one ``<source>``."""
    path = r.path
    text = None
    targets: list[Target] = []
    extra: list[str] = []
    protocol_children: list = []
    segranks_children: list = []
    pending: list[_spans.Pending] = []
    marks = False
    for child in el:
        tag = child.tag
        if tag == "targets":
            for t in child:
                if t.tag == "tgt":
                    tgt = _read_target(t, r, pending)
                    targets.append(tgt)
                    if tgt.item_marks:
                        marks = True
                elif isinstance(t.tag, str):
                    extra.append(_serialize(t))
        elif tag == "s_sent" and text is None:
            text = child.text or "" if not len(child) else _text(child)
        elif tag in _protocols.SOURCE_TAGS:
            protocol_children.append(child)
        elif tag == _segranks.TAG:
            segranks_children.append(child)
        elif isinstance(tag, str):
            extra.append(_serialize(child))
    if text is None:
        raise InputFormatError("<source> has no <s_sent>", path, el.sourceline)
    items = r.items_of(el)
    attrs: dict[str, str] | None = None
    doc: str | None = None
    seg: str | None
    if len(items) == 1 and items[0][0] == "seg":
        seg = items[0][1]
    else:
        attrs = dict(items)
        doc, seg = attrs.pop("doc", None), attrs.pop("seg", None)
    if doc is not None:
        check_id(doc, "<source doc>", path, el.sourceline)
    if seg is not None:
        check_id(seg, "<source seg>", path, el.sourceline)
    db = r.db
    src = db.find_source(text, doc, seg)
    if src is None or not seg:
        src = db.add_source(text, doc, seg)
    elif src.text != text:
        where = f'doc="{doc}" seg="{seg}"' if doc else f'seg="{seg}"'
        raise InputFormatError(
            f"<source {where}> has the sentence {text[:50]!r}, but the <source> with the same "
            f"doc and seg at line {_first_line(el, doc, seg)} has {src.text[:50]!r}; a source "
            f"with a seg attribute is identified by doc and seg, so each position needs its "
            f"own ids", path, el.sourceline)
    if src.targets:
        src.targets.extend(targets)
    else:
        src.targets = targets
    if extra:
        src.extra_children.extend(extra)
    if attrs:
        for k, v in attrs.items():
            src.extra_attrs.setdefault(k, v)
    if protocol_children or marks:
        _protocols.read_source_children(src, protocol_children, path)
    if pending:
        _spans.check_pending(pending, text, path)
    for c in segranks_children:
        _segranks.read_source_child(src, c, path)


def _first_line(el, doc: str | None, seg: str) -> int | str:
    """Line of the first ``<source>`` (before ``el``) at the position (doc, seg), for a
    message (looked up only then)."""
    key = source_key(doc, seg)
    lines = [s.sourceline for s in el.itersiblings(preceding=True)
             if s.tag == "source" and source_key(s.get("doc"), s.get("seg")) == key]
    return lines[-1] if lines else "?"


def loads(data: bytes, path: str | os.PathLike[str] | None = None) -> Database:
    """Parse an EvalTrans database from ``data`` (``path`` is only used in messages);
    the cyclic garbage collector paused meanwhile (``io/gcpause.py``)."""
    with paused_gc():
        return _loads(data, path)


def _loads(data: bytes, path: str | os.PathLike[str] | None) -> Database:
    where = str(path) if path is not None else "<data>"
    if not data or data.isspace():          # (strip() would copy the whole file)
        raise InputFormatError("empty file (expected an EvalTrans <database>)", where)
    refuse_entities(data, where)
    try:
        root = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as exc:
        msg = exc.msg or str(exc)
        msg = re.sub(r", line \d+, column \d+$", "", msg)
        if "huge" in msg.lower() or "too long" in msg.lower():
            raise InputFormatError(f"{msg}: a text or attribute longer than 10 000 000 bytes "
                                   f"cannot be read (we write at most {MAX_TEXT_CHARS} "
                                   f"characters per sentence)", where, exc.lineno or None,
                                   exc.offset or None) from None
        if "unsupported encoding" in msg.lower():
            raise InputFormatError(f"{msg}; an EvalTrans database is utf-8 or iso8859-1", where,
                                   exc.lineno or None, exc.offset or None) from None
        if "encoding" in msg.lower():
            decl = re.match(rb"""\s*<\?xml[^>]*encoding=["']([^"']+)""", data[:200])
            enc = decl.group(1).decode("ascii", "replace") if decl else "utf-8"
            msg = (f"{msg}: the bytes are not valid {enc} (the declared encoding); a latin-1 "
                   f"file must declare encoding=\"iso8859-1\"")
            raise InputFormatError(msg, where, exc.lineno or None, exc.offset or None) from None
        raise InputFormatError(f"malformed XML: {msg}", where, exc.lineno or None,
                               exc.offset or None) from None
    except (LookupError, ValueError) as exc:  # unknown encoding name etc.
        raise InputFormatError(f"cannot read the file: {exc}", where) from None
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise InputFormatError("entity declarations are not allowed in an EvalTrans database", where)
    if root.tag != "database":
        raise InputFormatError(f"root element is <{root.tag}>, expected <database>", where,
                               root.sourceline)
    enc = (root.getroottree().docinfo.encoding or "utf-8").lower()
    db = Database()
    db.encoding = "iso8859-1" if enc.replace("-", "").replace("_", "") in (
        "iso88591", "latin1") else "utf-8"
    db.extra_attrs = dict(attr_items(root))
    levels: dict[str, Levels] = {}
    for el in root:
        if el.tag == "levels":
            lv = _read_levels(el, where)
            if lv.name in levels:
                raise InputFormatError(f"score class '{lv.name}' is declared twice", where, el.sourceline)
            levels[lv.name] = lv
            db.levels.append(lv)
    have_version = False
    ext_lines: list[int] = []
    plain = without_namespaces(data, root.getroottree().docinfo.encoding or "")
    r = _Reading(db, levels, where, plain_attr_items if plain else attr_items)
    for el in root:
        tag = el.tag
        if tag == "source":
            _read_source(el, r)
        elif tag == "levels":
            continue
        elif tag == "version_id" and not have_version:
            db.version_id = el.text or ""
            have_version = True
        elif isinstance(tag, str):
            db.extra_children.append(_serialize(el))
            if tag == external_scores.ELEMENT:
                ext_lines.append(el.sourceline)
    # <external-metrics> extension (io/scores.py)
    external_scores.restore(db, where, ext_lines)
    return db


def load_database(path: str | os.PathLike[str]) -> Database:
    """Read an ``.etdb.xml`` file; :class:`InputFormatError`/:class:`ScoreError` name file and line."""
    data = read_input_bytes(path, "an EvalTrans database file", allow_empty=True)
    return loads(data, path)


