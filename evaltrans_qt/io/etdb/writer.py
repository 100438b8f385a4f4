"""EvalTrans database files (``.etdb.xml``): the writer (format: see :mod:`.reader`).

Every write goes through :func:`save_database`: validate the scores, serialise,
parse the bytes back (a file that would not load is never written), then replace
the file atomically (``io/atomic.py``). The writer is deterministic: load -> save ->
load is equal and saving twice gives identical bytes.
"""

from __future__ import annotations

import os

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.io import scores as external_scores
from evaltrans_qt.io.atomic import atomic_write_bytes
from evaltrans_qt.io.etdb import protocols as _protocols
from evaltrans_qt.io.etdb import segranks as _segranks
from evaltrans_qt.io.etdb import spans as _spans
from evaltrans_qt.io.etdb.reader import DOCTYPE, loads
from evaltrans_qt.io.limits import MAX_TEXT_CHARS, too_long_message
from evaltrans_qt.io.xmlsafe import (
    INVALID_XML_CHARS,
    attr_value,
    attrs,
    checked_attr,
    escape_text,
    format_number,
)


def _check_length(text: str, what: str) -> str:
    if len(text) > MAX_TEXT_CHARS:
        raise SaveError(too_long_message(len(text), what))
    return text


def _levels_xml(lv: Levels) -> str:
    pairs: list[tuple[str, str | None]] = [
        ("class", lv.name), ("count", str(lv.count)), ("gray", format_number(lv.gray)),
        ("green", format_number(lv.green)), ("perfect", format_number(lv.perfect)),
        ("firstvalid", format_number(lv.firstvalid))]
    if lv.continuous:
        pairs.append(("continuous", "1"))
    if lv.minimum is not None:
        pairs.append(("minimum", format_number(lv.minimum)))
    if lv.maximum is not None:
        pairs.append(("maximum", format_number(lv.maximum)))
    return f"  <levels{attrs(pairs)}{attrs(lv.extra_attrs.items())}/>\n"


def dumps(db: Database) -> bytes:
    """Serialise ``db`` deterministically (encoding ``db.encoding``, utf-8 by default)."""
    latin1 = db.encoding == "iso8859-1"
    out: list[str] = [
        f'<?xml version="1.0" encoding="{"iso8859-1" if latin1 else "utf-8"}" ?>\n',
        DOCTYPE, "\n", f"<database{attrs(db.extra_attrs.items())}>\n",
        f"  <version_id>{escape_text(db.version_id)}</version_id>\n"]
    out.extend(_levels_xml(lv) for lv in db.levels)
    out.extend(f"  {x}\n" for x in db.extra_children)
    out.extend(f"  {x}\n" for x in external_scores.elements(db))   # io/scores.py
    add = out.append
    for src in db.sources:
        if len(src.text) > MAX_TEXT_CHARS:
            _check_length(src.text, f"source sentence {src.text[:30]!r}...")
        head = ""
        if src.doc is not None:
            head = f' doc="{attr_value(src.doc)}"'
        if src.seg is not None:
            head += f' seg="{attr_value(src.seg)}"'
        if src.extra_attrs:
            head += attrs(src.extra_attrs.items())
        add(f"  <source{head}>\n    <s_sent>{escape_text(src.text)}</s_sent>\n")
        if src.items:
            out.extend(_protocols.source_xml(src))
        out.extend(_segranks.source_xml(src))
        for x in src.extra_children:
            add(f"    {x}\n")
        add("    <targets>\n")
        for t in src.targets:
            if len(t.text) > MAX_TEXT_CHARS:
                _check_length(t.text, f"target {t.text[:30]!r}... of source {src.text[:30]!r}")
            head = "" if t.system is None else f' sys="{attr_value(t.system)}"'
            if t.doc is not None:
                head += f' doc="{attr_value(t.doc)}"'
            if t.seg is not None:
                head += f' seg="{attr_value(t.seg)}"'
            if t.extra_attrs:
                head += attrs(t.extra_attrs.items())
            added = _protocols.target_attrs(t)
            if added:
                head += attrs(added)
            add(f"      <tgt{head}>\n        <t_sent>{escape_text(t.text)}</t_sent>\n")
            for s in t.scores:
                a = f' class="{checked_attr(s.cls)}" val="{format_number(s.value)}"'
                if s.judge is not None:
                    a += f' evaluator="{checked_attr(s.judge)}"'
                if s.time is not None:
                    a += f' time="{checked_attr(s.time)}"'
                if s.extrapolated:
                    a += ' extrapolated="1"'
                if s.extra_attrs:
                    a += attrs(s.extra_attrs.items())
                add(f"        <eval{a}/>\n")
            if t.postedits or t.item_marks:
                out.extend(_protocols.target_xml(t))
            if t.span_annotations:
                out.extend(_spans.target_xml(t, src))
            for x in t.extra_children:
                add(f"        {x}\n")
            add("      </tgt>\n")
        add("    </targets>\n  </source>\n")
    add("</database>\n")
    text = "".join(out)
    data = _encoded_if_valid(text, latin1)
    if data is not None:
        return data
    bad = INVALID_XML_CHARS.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise SaveError(f"character U+{ord(bad.group()):04X} cannot be stored in XML "
                        f"(output line {line}); remove it from the sentence")
    return text.encode("iso-8859-1" if latin1 else "utf-8", "xmlcharrefreplace")


#: Every byte but the C0 controls XML 1.0 cannot hold (§2.2: tab, line feed and carriage
#: return are allowed).
_NOT_C0 = bytes(b for b in range(256) if b >= 32 or b in (9, 10, 13))


def _encoded_if_valid(text: str, latin1: bool) -> bytes | None:
    """The bytes of ``text`` when they are quick to prove free of :data:`INVALID_XML_CHARS`
    (faster than searching the text: ASCII, or UTF-8 without the lead byte of a surrogate
    and without U+FFFE/U+FFFF), else None (then the text is searched)."""
    if text.isascii():
        data = text.encode("ascii")         # the same bytes in utf-8 and iso8859-1
    elif latin1:
        return None
    else:
        data = text.encode("utf-8", "surrogatepass")
        if b"\xed" in data or b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data:
            return None
    return None if data.translate(None, _NOT_C0) else data


def checked_bytes(db: Database, path: str | os.PathLike[str] | None = None) -> bytes:
    """The bytes :func:`save_database` writes: scores validated, serialised, parsed back.

    :class:`SaveError` (naming ``path``) if the scores are invalid, something exceeds a
    limit (``io/limits.py``) or the bytes would not load again.
    """
    data = serialised(db, path)
    parse_back(data, path)
    return data


def serialised(db: Database, path: str | os.PathLike[str] | None = None) -> bytes:
    """The first half of :func:`checked_bytes`: the scores validated, then serialised."""
    try:
        db.validate_scores()
        return dumps(db)
    except EvalTransError as exc:
        raise SaveError(f"not saved: {exc.problem}", path) from None


def parse_back(data: bytes, path: str | os.PathLike[str] | None = None) -> None:
    """The second half of :func:`checked_bytes`: :class:`SaveError` (:func:`not_loadable`)
    unless ``data`` loads again."""
    try:
        loads(data, path)
    except EvalTransError as exc:
        raise not_loadable(exc.problem, exc.line, path) from None


def not_loadable(problem: str, line: int | None,
                 path: str | os.PathLike[str] | None) -> SaveError:
    """The error of bytes that would not load again (``problem`` at output ``line``)."""
    where = f"output line {line}: " if line is not None else ""
    return SaveError(f"not saved: the written file would not load again ({where}"
                     f"{problem}); nothing was written", path)


def save_database(db: Database, path: str | os.PathLike[str]) -> None:
    """The one write path of a database, used by the command line and the application:
    :func:`checked_bytes` (validate, serialise, parse back), then an atomic replace that
    also removes temp files of interrupted earlier saves. On any failure the old file is
    left intact (:class:`SaveError`)."""
    atomic_write_bytes(path, checked_bytes(db, path))
