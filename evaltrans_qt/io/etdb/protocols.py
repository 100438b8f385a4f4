"""The human-evaluation protocols in an ``.etdb.xml`` file: our documented
extensions, elements and attributes the original EvalTrans ignores::

    <source doc seg>
      <s_sent>Der Zug nach München hat Verspätung .</s_sent>
      <items tokenization="mteval">              information items (survey §4.4.16):
        <item words="1-4">Der Zug nach München</item>   1-based inclusive word spans of
        <item words="5-6">hat Verspätung</item>         the tokenised source; the text is
      </items>                                          the span's words (checked on load)
      <targets>
        <tgt sys="added-1" added="1" judge="anna">  a reference a judge added (aWER,
          <t_sent>…</t_sent>                         survey §4.4.4), marked as every
          <eval class="isReference" val="1"/>        reference by the last class (Appendix A.2)
        </tgt>
        <tgt sys="RuleMT">
          <t_sent>…</t_sent> <eval …/>*
          <postedit judge="anna" seconds="41.5">…</postedit>   targeted reference (HTER,
          <marks judge="anna">OK syntax</marks>               survey §4.4.17); one item
        </tgt>                                                mark per item (IER)

Each element appears at most once per judge; ``judge`` may be absent (an anonymous
judge), ``seconds`` too. On load every value is checked (:class:`InputFormatError`
naming file and line): spans inside the sentence, in order, the stored words equal
to the span's words, marks from ``OK error syntax meaning other`` and as many as the
source has items. The writer emits exactly what the reader accepts, so load → save →
load is equal. Called from :mod:`evaltrans_qt.io.etdb` (reader and writer).
"""

from __future__ import annotations

from evaltrans_qt.engine.data.database import ITEM_MARKS, ItemMarks, PostEdit, Source, Target
from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.io.xmlsafe import attr_items, attrs, escape_text, format_number, parse_xml_number

#: Children of ``<tgt>`` read here.
TARGET_TAGS = ("postedit", "marks")
#: Children of ``<source>`` read here.
SOURCE_TAGS = ("items",)
_POSTEDIT_KNOWN = ("judge", "seconds")


def _attr_dict(el) -> dict[str, str]:
    return dict(attr_items(el))


# --------------------------------------------------------------------------- reading
def read_target_child(tgt: Target, el, path) -> None:
    """Read a ``<postedit>`` or ``<marks>`` child of ``<tgt>`` into ``tgt``."""
    a = _attr_dict(el)
    judge = a.pop("judge", None)
    if el.tag == "postedit":
        if tgt.postedit_by(judge) is not None:
            raise InputFormatError(f"two <postedit> of judge {judge!r} in one <tgt>", path,
                                   el.sourceline)
        sec = a.pop("seconds", None)
        seconds = None if sec is None else parse_xml_number(sec, "seconds of <postedit>", path, el)
        if seconds is not None and seconds < 0:
            raise InputFormatError("seconds of <postedit> must be >= 0", path, el.sourceline)
        tgt.postedits.append(PostEdit(el.text or "", judge, seconds, a))
        return
    if tgt.marks_by(judge) is not None:
        raise InputFormatError(f"two <marks> of judge {judge!r} in one <tgt>", path,
                               el.sourceline)
    marks = tuple((el.text or "").split())
    bad = [m for m in marks if m not in ITEM_MARKS]
    if bad:
        raise InputFormatError(f"<marks> holds {bad[0]!r}; item marks are "
                               f"{', '.join(ITEM_MARKS)}", path, el.sourceline)
    im = ItemMarks(marks, judge, a)
    tgt.item_marks.append(im)
    _LINES[id(im)] = el.sourceline


def read_target_attrs(tgt: Target) -> None:
    """Move ``added``/``judge`` from the attributes of ``<tgt>`` into ``tgt``."""
    added = tgt.extra_attrs.pop("added", None)
    if added is not None:
        tgt.added = added in ("1", "true", "yes")
    if "judge" in tgt.extra_attrs:
        tgt.added_by = tgt.extra_attrs.pop("judge")


#: Line of each <marks> element while a file is read (for messages), by object id.
_LINES: dict[int, int] = {}


def read_source_children(src: Source, children: list, path) -> None:
    """Read the ``<items>`` child of ``<source>`` (the first one wins) and check the marks of
    ``src``'s targets against the items."""
    from evaltrans_qt.engine.data import protocols
    from evaltrans_qt.engine.options import TOKENIZATIONS
    try:
        for el in children:
            if src.items:
                raise InputFormatError("a <source> has two <items> elements", path,
                                       el.sourceline)
            a = _attr_dict(el)
            tok = a.get("tokenization", protocols.ITEM_TOKENIZATION)
            if tok not in TOKENIZATIONS:
                raise InputFormatError(f"<items tokenization=\"{tok}\"> is not one of "
                                       f"{', '.join(TOKENIZATIONS)}", path, el.sourceline)
            src.items_tokenization = tok
            words = protocols.source_words(src)
            spans = []
            for item in el:
                if item.tag != "item":
                    continue
                try:
                    (span,) = protocols.parse_spans(item.get("words", ""))
                except (ValueError, EvalTransError):
                    raise InputFormatError(f"<item words=\"{item.get('words', '')}\"> is not a "
                                           "word span like 1-3", path, item.sourceline) from None
                spans.append(span)
                shown = " ".join((item.text or "").split())
                if shown and span[1] <= len(words) and shown != " ".join(words[span[0]:span[1]]):
                    raise InputFormatError(
                        f"<item words=\"{item.get('words')}\"> says {shown!r}, but those words "
                        f"of the source are {' '.join(words[span[0]:span[1]])!r} (the source "
                        f"or its tokenisation changed)", path, item.sourceline)
            try:
                src.items = protocols.check_items(spans, len(words))
            except EvalTransError as exc:
                raise InputFormatError(f"<items>: {exc.problem}", path, el.sourceline) from None
        n = len(src.items)
        for t in src.targets:
            for m in t.item_marks:
                if len(m.marks) != n:
                    raise InputFormatError(f"<marks> has {len(m.marks)} mark(s), but its source "
                                           f"has {n} information item(s)", path,
                                           _LINES.get(id(m)))
    finally:
        for t in src.targets:
            for m in t.item_marks:
                _LINES.pop(id(m), None)


# --------------------------------------------------------------------------- writing
def target_attrs(tgt: Target) -> list[tuple[str, str]]:
    """Attributes of ``<tgt>`` for a reference a judge added."""
    out = []
    if tgt.added:
        out.append(("added", "1"))
    if tgt.added_by is not None:
        out.append(("judge", tgt.added_by))
    return out


def target_xml(tgt: Target) -> list[str]:
    """``<postedit>`` and ``<marks>`` lines of ``tgt`` (indented for ``<tgt>``'s children)."""
    out = []
    for p in tgt.postedits:
        pairs = [("judge", p.judge),
                 ("seconds", None if p.seconds is None else format_number(p.seconds))]
        out.append(f"        <postedit{attrs(pairs)}{attrs(p.extra_attrs.items())}>"
                   f"{escape_text(p.text)}</postedit>\n")
    for m in tgt.item_marks:
        out.append(f"        <marks{attrs([('judge', m.judge)])}{attrs(m.extra_attrs.items())}>"
                   f"{' '.join(m.marks)}</marks>\n")
    return out


def source_xml(src: Source) -> list[str]:
    """The ``<items>`` element of ``src`` (none without items)."""
    if not src.items:
        return []
    from evaltrans_qt.engine.data import protocols
    words = protocols.source_words(src)
    out = [f"    <items{attrs([('tokenization', src.items_tokenization)])}>\n"]
    for a, b in src.items:
        out.append(f"      <item{attrs([('words', protocols.format_spans([(a, b)]))])}>"
                   f"{escape_text(' '.join(words[a:b]))}</item>\n")
    out.append("    </items>\n")
    return out
