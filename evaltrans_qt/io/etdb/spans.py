"""Error-span annotations (MQM, ESA) in an ``.etdb.xml`` file: our documented extension
(``docs/spans.md``), children of ``<tgt>`` the original EvalTrans ignores::

    <tgt sys="SysA">
      <t_sent>Der Zug hat Verspätung.</t_sent>
      <errors judge="rater1" seconds="31.5">          one judge's annotation
        <error start="4" end="7" severity="Major" category="Accuracy/Mistranslation"
               comment="…" seconds="4">Zug</error>  [start, end) in characters of t_sent
        <error side="source" start="0" end="0" severity="Minor"
               category="Accuracy/Omission"/>        an empty span: an omission there
        <error severity="Minor" category="Style/Awkward"/>   no span (not located)
      </errors>
      <errors judge="rater2"/>                         rater2 found no error
      <errors judge="eva" protocol="esa" seconds="20">   an ESA judge's spans
        <error start="0" end="3" severity="Minor" category="Other">Der</error>
        <rejected machine="xcomet" start="12" end="22" severity="Major"
                  category="Other">Verspätung</rejected>   a suggestion rejected
      </errors>
      <errors judge="xcomet" origin="machine">         a machine's suggested spans
        <error start="12" end="22" severity="Major" category="Other">Verspätung</error>
      </errors>
    </tgt>

``protocol`` is ``mqm`` when absent (so files written before it are read, and written
again, unchanged), else ``esa``. ``origin`` is ``human`` when absent (a judgement; files
written before it stay unchanged), else ``machine``: spans a program proposed (imported
xCOMET or GEMBA-MQM output, TER's edits), shown to the judges as suggestions and left out
of every human score (engine/human/spans/model.py). There is one ``<errors>`` per judge,
protocol and origin.
``<rejected>`` records a suggested span (of judge ``machine``'s annotation, e.g. imported
machine spans) that the judge rejected explicitly; its attributes are those of
``<error>`` plus ``machine``. ``metadata`` of ``<error>`` keeps the metadata of an imported row as written (Google's
Marot-format TSVs, io/mqm_tsv.py). ``side`` is ``target`` when absent; the element text is the marked characters (empty for
omissions and unlocated errors) and is checked on load against the sentence; a severity
must be one of Neutral, Minor, Major, Critical (any case, kept as written).
``judge`` may be absent (an anonymous judge). Unknown attributes
of ``<errors>`` are kept; an unknown attribute of ``<error>`` is refused (naming the line),
so nothing in an annotation is silently dropped. The writer emits exactly what the reader
accepts: load → save → load is equal, and a file without ``<errors>`` is written as
before, byte for byte.

A database may also hold its **typology** (engine/human/spans/model.py), a top-level
element that the reader keeps as it keeps every unknown element::

    <typology name="my campaign" closed="1">
      <category path="Accuracy/Mistranslation" key="m"/>
      <category path="Fluency"/>
    </typology>

:func:`database_typology` reads it (None without one), :func:`set_database_typology`
stores one; a closed typology restricts the categories annotation may use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lxml import etree

from evaltrans_qt.engine.data.database import Database, Source, Target
from evaltrans_qt.engine.human.spans.model import (
    ORIGINS,
    PROTOCOLS,
    SEVERITIES,
    SIDES,
    ErrorSpan,
    Rejection,
    SpanAnnotation,
    Typology,
    check_error,
)
from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.io.xmlsafe import (
    attr_items,
    attr_value,
    attrs,
    escape_text,
    format_number,
    parse_xml_number,
    safe_parser,
)

TAG = "errors"
_ERROR_ATTRS = ("side", "start", "end", "severity", "category", "comment", "seconds",
                "metadata")
_ERROR_ATTR_SET = frozenset(_ERROR_ATTRS)


def _int(text: str | None, what: str, path, el) -> int | None:
    if text is None:
        return None
    if not text.strip().isdigit():
        raise InputFormatError(f"{what} of <error> must be a whole number >= 0, not {text!r}",
                               path, el.sourceline)
    return int(text)


def read_target_child(tgt: Target, el, path, pending: list[Pending],
                      items_of: Callable[[Any], list[tuple[str, str]]] = attr_items) -> None:
    """Read one ``<errors>`` child of ``<tgt>`` into ``tgt.span_annotations``; each span
    read is added to ``pending``, for :func:`check_pending` to check it against the texts
    once the ``<source>`` is read (its sentences may follow). ``items_of`` reads the
    attributes of an element (:func:`attr_items` or an equivalent)."""
    a = dict(items_of(el))
    judge = a.pop("judge", None)
    protocol = a.pop("protocol", "mqm")
    if protocol not in PROTOCOLS:
        raise InputFormatError(f"protocol {protocol!r} of <errors> is not one of "
                               f"{', '.join(PROTOCOLS)}", path, el.sourceline)
    origin = a.pop("origin", "human")
    if origin not in ORIGINS:
        raise InputFormatError(f"origin {origin!r} of <errors> is not one of "
                               f"{', '.join(ORIGINS)}", path, el.sourceline)
    for x in tgt.span_annotations:
        if x.judge == judge and x.protocol == protocol and x.origin == origin:
            raise InputFormatError(f"two <errors> of judge {judge!r}, protocol {protocol} and "
                                   f"origin {origin} in one <tgt>", path, el.sourceline)
    sec = a.pop("seconds", None)
    seconds = None if sec is None else parse_xml_number(sec, "seconds of <errors>", path, el)
    ann = SpanAnnotation(judge, [], seconds, a, protocol, origin=origin)
    errors = ann.errors
    add = pending.append
    for child in el:
        tag = child.tag
        if tag == "error":
            e = _error(child, tag, path, dict(items_of(child)))
            errors.append(e)
        elif tag == "rejected":
            ea = dict(items_of(child))
            machine = ea.pop("machine", None)
            e = _error(child, tag, path, ea)
            ann.rejected.append(Rejection(machine, e))
        else:
            if isinstance(tag, str):
                raise InputFormatError(f"<{tag}> inside <errors> (only <error> and "
                                       "<rejected>)", path, child.sourceline)
            continue
        add((tgt, e, child))
    tgt.span_annotations.append(ann)


#: A span read and not yet checked against the texts: its target, the span and its element.
Pending = tuple[Target, ErrorSpan, Any]


def _error(child, tag: str, path, ea: dict[str, str]) -> ErrorSpan:
    """The span of an ``<error>`` or ``<rejected>`` (``ea``: its attributes, the latter's
    without ``machine``)."""
    if not _ERROR_ATTR_SET.issuperset(ea):
        unknown = [k for k in ea if k not in _ERROR_ATTRS]
        raise InputFormatError(f"unknown attribute {unknown[0]!r} of <{tag}>", path,
                               child.sourceline)
    get = ea.get
    severity, category = get("severity"), get("category")
    if severity is None or category is None:
        raise InputFormatError(f"<{tag}> needs severity and category attributes", path,
                               child.sourceline)
    start, end, es = get("start"), get("end"), get("seconds")
    e = ErrorSpan(severity, category,
                  None if start is None else _INTS.get(start) or _int(start, "start", path, child),
                  None if end is None else _INTS.get(end) or _int(end, "end", path, child),
                  get("side", "target"), get("comment"),
                  None if es is None else parse_xml_number(es, f"seconds of <{tag}>",
                                                           path, child),
                  get("metadata"))
    if start is None and child.text:
        raise InputFormatError(f"<{tag}> without start/end has text", path,
                               child.sourceline)
    return e


#: ``str(n) -> n`` for small n: most span offsets are read without :func:`_int` (0 is
#: falsy and goes through it).
_INTS = {str(n): n for n in range(1, 4096)}


def check_pending(pending: list[Pending], source_text: str, path) -> None:
    """Check every span of ``pending`` (read from one ``<source>`` whose sentence is
    ``source_text``) against the texts: valid severity, span inside the text and the
    element's text equal to the marked characters. The first problem in the order of
    the targets, their annotations and each one's errors before its rejected spans is
    reported, naming the element's line."""
    for t, e, child in pending:
        start, end = e.start, e.end
        if start is None or end is None:
            if start is not None or end is not None:
                break
            marked = ""
        else:
            text = t.text if e.side == "target" else source_text
            if not 0 <= start <= end <= len(text):
                break
            marked = text[start:end]
        if (e.severity not in _SEVERITY_SET or e.side not in SIDES
                or (child.text or "") != marked or not e.category.strip()
                or (e.seconds is not None and not e.seconds >= 0)):
            break
    else:
        return
    _check_in_order(pending, source_text, path)     # something failed: find and report it


#: Severities :func:`check_error` accepts as written in most files (it accepts any case).
_SEVERITY_SET = frozenset((*SEVERITIES, *(s.lower() for s in SEVERITIES),
                           *(s.upper() for s in SEVERITIES)))


def _check_in_order(pending: list[Pending], source_text: str, path) -> None:
    """:func:`check_pending`'s full check with :func:`check_error`, in the reported order."""
    elements = {id(e): child for _, e, child in pending}
    targets = list({id(t): t for t, _, _ in pending}.values())
    for t in targets:
        for ann in t.span_annotations:
            for e in [*ann.errors, *(r.error for r in ann.rejected)]:
                child = elements.get(id(e))
                if child is None:
                    continue
                try:
                    check_error(e, t.text, source_text)
                except EvalTransError as exc:
                    raise InputFormatError(f"<error>: {exc.problem}", path,
                                           child.sourceline) from None
                if e.located:
                    marked = e.text_of(t.text if e.side == "target" else source_text)
                    shown = child.text or ""
                    if shown != marked:
                        raise InputFormatError(
                            f"<error start=\"{e.start}\" end=\"{e.end}\"> says {shown!r}, "
                            f"but those characters of the {e.side} are {marked!r}", path,
                            child.sourceline)


def target_xml(tgt: Target, src: Source) -> list[str]:
    """The ``<errors>`` lines of ``tgt`` (indented for ``<tgt>``'s children)."""
    out = []
    for ann in tgt.span_annotations:
        head = "        <errors"
        if ann.judge is not None:
            head += f' judge="{attr_value(ann.judge)}"'
        if ann.protocol != "mqm" and ann.protocol is not None:
            head += f' protocol="{attr_value(ann.protocol)}"'
        if ann.origin != "human" and ann.origin is not None:
            head += f' origin="{attr_value(ann.origin)}"'
        if ann.seconds is not None:
            head += f' seconds="{format_number(ann.seconds)}"'
        if ann.extra_attrs:
            head += attrs(ann.extra_attrs.items())
        if not ann.errors and not ann.rejected:
            out.append(head + "/>\n")
            continue
        out.append(head + ">\n")
        items: list[tuple[str, str | None, ErrorSpan]] = [("error", None, e)
                                                           for e in ann.errors]
        if ann.rejected:
            items += [("rejected", r.machine, r.error) for r in ann.rejected]
        for tag, machine, e in items:       # the attributes in _ERROR_ATTRS order
            a = f"          <{tag}"
            if machine is not None:
                a += f' machine="{attr_value(machine)}"'
            if e.side != "target":
                a += f' side="{attr_value(e.side)}"'
            if e.start is not None:
                a += f' start="{attr_value(str(e.start))}"'
            if e.end is not None:
                a += f' end="{attr_value(str(e.end))}"'
            if e.severity is not None:
                a += f' severity="{attr_value(e.severity)}"'
            if e.category is not None:
                a += f' category="{attr_value(e.category)}"'
            if e.comment is not None:
                a += f' comment="{attr_value(e.comment)}"'
            if e.seconds is not None:
                a += f' seconds="{format_number(e.seconds)}"'
            if e.metadata is not None:
                a += f' metadata="{attr_value(e.metadata)}"'
            text = e.text_of(tgt.text if e.side == "target" else src.text)
            out.append(f"{a}>{escape_text(text)}</{tag}>\n" if text else f"{a}/>\n")
        out.append("        </errors>\n")
    return out


# --------------------------------------------------------------------------- typology
TYPOLOGY_TAG = "typology"


def _is_typology(x: str) -> bool:
    return x.startswith(f"<{TYPOLOGY_TAG}") and x[len(TYPOLOGY_TAG) + 1:][:1] in (" ", ">", "/")


def database_typology(db: Database, path=None) -> Typology | None:
    """The ``<typology>`` of ``db`` (module doc), None without one; InputFormatError (naming
    ``path``) if it is malformed."""
    from evaltrans_qt.errors import EvalTransError
    for x in db.extra_children:
        if not _is_typology(x):
            continue
        el = etree.fromstring(x.encode("utf-8"), safe_parser())
        cats, keys = [], []
        for c in el:
            if c.tag != "category":
                continue
            p = c.get("path")
            if not p:
                raise InputFormatError("<category> of <typology> needs a path", path)
            cats.append(p)
            if c.get("key"):
                keys.append((p, c.get("key")))
        try:
            return Typology(el.get("name", ""), tuple(cats), tuple(keys),
                            el.get("closed", "0") in ("1", "true", "yes"))
        except EvalTransError as exc:
            raise InputFormatError(f"<typology>: {exc.problem}", path) from None
    return None


def set_database_typology(db: Database, typology: Typology | None) -> None:
    """Store ``typology`` as the database's ``<typology>`` (None: remove it)."""
    db.extra_children = [x for x in db.extra_children if not _is_typology(x)]
    if typology is None:
        return
    keys = dict(typology.keys)
    lines = [f"<{TYPOLOGY_TAG}{attrs([('name', typology.name)])}"
             f"{attrs([('closed', '1' if typology.closed else None)])}>"]
    lines += [f"    <category{attrs([('path', c), ('key', keys.get(c))])}/>"
              for c in typology.categories]
    lines.append(f"  </{TYPOLOGY_TAG}>")
    db.extra_children.append("\n".join(lines))


def read_typology_json(path) -> Typology:
    """A typology from a JSON file: ``{"name": …, "closed": true, "categories": [paths],
    "keys": {path: key}}``; InputFormatError naming the file and problem."""
    import json

    from evaltrans_qt.errors import EvalTransError
    from evaltrans_qt.io.plaintext import read_input_bytes
    try:
        d = json.loads(read_input_bytes(path, "a typology JSON file").decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputFormatError(f"not JSON: {exc}", path) from None
    if not isinstance(d, dict) or not isinstance(d.get("categories"), list) or not all(
            isinstance(c, str) and c.strip() for c in d["categories"]):
        raise InputFormatError("expected an object with \"categories\": a list of category "
                               "paths (strings)", path)
    keys = d.get("keys", {})
    if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
        raise InputFormatError("\"keys\" must map category paths to keys (strings)", path)
    try:
        return Typology(str(d.get("name", "")), tuple(d["categories"]),
                        tuple(keys.items()), bool(d.get("closed", False)))
    except EvalTransError as exc:
        raise InputFormatError(exc.problem, path) from None
