"""WMT21+ XML test sets, as sacreBLEU reads them (``sacrebleu/dataset/wmt_xml.py``):

``<dataset id><collection id><doc id origlang><src lang><p><seg id>…</seg></p></src>``
followed, inside the same ``<doc>``, by ``<ref lang translator="A">`` and
``<hyp lang system="NAME">`` blocks with the same ``<seg id>`` numbering.

Every source ``<seg>`` (in document order, over all collections) is one positional
source: ``doc`` = the document id, ``seg`` = its 1-based number in the whole test set
(what WMT score files count). References get the system id ``ref-X`` for
``translator="X"`` (``ref`` for a reference without translator), as the WMT folder
import names them; hypotheses the id of their ``system`` attribute. A document without
some reference or hypothesis simply lacks those targets. Bad XML, a ``<seg>`` of a
reference or hypothesis whose id is not one of the document's source segments, or
two blocks of one system in a document: :class:`InputFormatError` with file and line.

A segment's text is its full text content -- the XPath string-value of the ``<seg>``
element (XPath 1.0 §5.2: the concatenation of all descendant text nodes), so inline
markup such as ``The <i>Guardian</i> reported it.`` is read as ``The Guardian reported
it.``: the tags are dropped, never the words after them (sacreBLEU's ``seg.text`` would
stop at the first child element). Surrounding white space is stripped.

``--append`` merges by identity: a segment is (doc, seg) and a target its system, so
importing one test set twice changes nothing; a system with another text at a segment
is refused naming the file and line.
"""

from __future__ import annotations

from lxml import etree

from evaltrans_qt.engine.data.database import Database, check_id
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.limits import MAX_TEXT_CHARS, too_long_message
from evaltrans_qt.io.plaintext import PathLike, check_segments, existing_target, read_input_bytes
from evaltrans_qt.io.xmlsafe import refuse_entities, safe_parser


def _segs(block) -> list:
    return list(block.iter("seg"))


def _text(seg, path: PathLike) -> str:
    """The string-value of ``seg`` (module doc): all its text, inline markup dropped; at
    most ``MAX_TEXT_CHARS`` characters (``io/limits.py``), else an error naming the line."""
    text = "".join(seg.itertext()).strip()
    if len(text) > MAX_TEXT_CHARS:
        raise InputFormatError(too_long_message(len(text), "segment"), path, seg.sourceline)
    return text


def import_wmtxml(path: PathLike, db: Database | None = None) -> Database:
    """Import one WMT XML test set (module doc); everything is checked first."""
    data = read_input_bytes(path, "a WMT XML test set")
    refuse_entities(data, path, what="a WMT XML test set")
    check_segments(data.count(b"<seg"), path)        # a bound, before the tree is built
    plan = _plan(data, path)              # the XML tree is freed before the database grows
    del data
    return _build(plan, path, db)


def _plan(data: bytes, path: PathLike) -> list:
    """(doc id, [source texts], {system: {seg index: (text, line)}}, ref ids) per document."""
    try:
        root = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as exc:
        raise InputFormatError(f"malformed XML: {exc.msg}", path, exc.lineno or None) from None
    if root.tag != "dataset":
        raise InputFormatError(f"root element is <{root.tag}>, expected <dataset>", path,
                               root.sourceline)
    plan = []
    for doc in root.iter("doc"):
        did = doc.get("id")
        if not did:
            raise InputFormatError("<doc> without id", path, doc.sourceline)
        check_id(did, "document id", path, doc.sourceline)
        srcs = doc.findall("src")
        if len(srcs) != 1:
            raise InputFormatError(f"document {did} has {len(srcs)} <src> blocks, expected 1",
                                   path, doc.sourceline)
        ids: dict[str, int] = {}
        texts: list[str] = []
        at: list[int] = []                 # the <seg> lines, for errors about them
        for seg in _segs(srcs[0]):
            sid = seg.get("id") or str(len(texts) + 1)
            if sid in ids:
                raise InputFormatError(f"document {did}: segment id {sid} twice", path,
                                       seg.sourceline)
            ids[sid] = len(texts)
            texts.append(_text(seg, path))
            at.append(seg.sourceline)
        targets: dict[str, dict[int, tuple[str, int]]] = {}
        refs = set()
        for tag, attr, prefix in (("ref", "translator", "ref-"), ("hyp", "system", "")):
            for block in doc.findall(tag):
                who = block.get(attr)
                if tag == "hyp" and not who:
                    raise InputFormatError(f"document {did}: <hyp> without system", path,
                                           block.sourceline)
                name = f"{prefix}{who}" if who else "ref"
                if name in targets:
                    raise InputFormatError(f"document {did}: two <{tag}> blocks of {name}", path,
                                           block.sourceline)
                got = targets[name] = {}
                for seg in _segs(block):
                    sid = seg.get("id") or str(len(got) + 1)
                    if sid not in ids:
                        raise InputFormatError(f"document {did}: <{tag}> {name} has segment "
                                               f"{sid}, the source has no such segment", path,
                                               seg.sourceline)
                    got[ids[sid]] = (_text(seg, path), seg.sourceline)
                if tag == "ref":
                    refs.add(name)
        plan.append((did, texts, targets, refs, at))
    if not plan:
        raise InputFormatError("no <doc> in the test set", path)
    return plan


def _build(plan: list, path: PathLike, db: Database | None) -> Database:
    """The database of a checked plan (:func:`_plan`): everything checked first."""
    db = db if db is not None else Database()
    line = 0
    for did, texts, targets, refs, src_lines in plan:   # check everything before db changes
        for k, text in enumerate(texts, line + 1):
            old = db.source_by_key(did, str(k))
            if old is None:
                continue
            if old.text != text:
                raise InputFormatError(f"document {did} segment {k} is {old.text[:50]!r} in "
                                       f"the database, not {text[:50]!r}", path,
                                       src_lines[k - line - 1])
            for name, segs in targets.items():
                if k - line - 1 in segs:
                    text_k, at = segs[k - line - 1]
                    existing_target(db, old, text_k, name, name in refs, path, at)
        line += len(texts)
    mark = None
    line = 0
    for did, texts, targets, refs, _ in plan:
        sources = []
        for text in texts:
            line += 1
            sources.append(db.add_source(text, did, str(line)))
        for name in sorted(targets, key=lambda n: (n not in refs, n)):
            for k, (text, at) in sorted(targets[name].items()):
                if existing_target(db, sources[k], text, name, name in refs, path, at):
                    continue
                t = db.add_target(sources[k], text, name)
                if name in refs:
                    mark = mark or db.marking_class()
                    db.mark_reference(t, mark)
    return db
