"""The ``<segranks>`` element of an ``.etdb.xml`` source: our documented
extension holding the short segments of a sentence, their merged candidate segments
with the systems that produced them, and the judges' rankings (Macháček ch. 2)::

    <source doc seg>
      <s_sent>Mr Brown said : ...</s_sent>
      <segranks min="3" max="6" tokenization="none">
        <segment words="0 1 2" text="Mr Brown said">     0-based token indices of the
          <candidate text="Herr Brown sagte">            source (split by `tokenization`)
            <sys>sysA</sys><sys>sysB</sys>               the systems merged into it
          </candidate>
          <candidate text="Herr Braun sagte"><sys>sysC</sys></candidate>
        </segment>
        <ranking judge="anna" task="3f9c…" time="2025-01-02T10:00:00+00:00" seconds="74.5">
          <ranks segment="1">1 2</ranks>                 1-based segment number: one rank
        </ranking>                                       per candidate, 1..N+1 (N+1 unusable)
      </segranks>
      <targets>…

The original EvalTrans ignores it. On load everything is checked
(:class:`InputFormatError` naming file and line): the indices exist in the source, the
segment text is those words, every ``<ranks>`` names an existing segment and holds one
whole-number rank 1..N+1 per candidate. Load → save → load is equal. Called from
:mod:`evaltrans_qt.io.etdb` (reader and writer).
"""

from __future__ import annotations

from evaltrans_qt.engine.data.database import Source
from evaltrans_qt.engine.human.segranks.model import (
    CandidateSegment,
    SegmentRanking,
    SentenceSegments,
    SourceSegment,
    check_ranks,
    sentence_segments,
    set_sentence_segments,
    source_tokens,
)
from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.io.limits import MAX_TEXT_CHARS, parse_int
from evaltrans_qt.io.xmlsafe import attrs, escape_text, format_number, parse_xml_number

TAG = "segranks"


def _int(text: str | None, what: str, path, el, hi: int = MAX_TEXT_CHARS) -> int:
    """A whole number in ``0..hi`` (``io/limits.py`` :func:`parse_int`: digits bounded
    before conversion)."""
    try:
        return parse_int((text or "").strip(), what, 0, hi)
    except ValueError as exc:
        raise InputFormatError(str(exc), path, el.sourceline) from None


def _rank_value(text: str) -> int | str:
    """A rank as an int, or the text itself for :func:`check_ranks` to refuse."""
    try:
        return parse_int(text, "rank")
    except ValueError:
        return text


def read_source_child(src: Source, el, path) -> None:
    """Read the ``<segranks>`` child of ``<source>`` into ``src`` (checked, module doc)."""
    from evaltrans_qt.engine.options import TOKENIZATIONS
    if sentence_segments(src) is not None:
        raise InputFormatError("a <source> has two <segranks> elements", path, el.sourceline)
    tok = el.get("tokenization", "none")
    if tok not in TOKENIZATIONS:
        raise InputFormatError(f"<segranks tokenization=\"{tok}\"> is not one of "
                               f"{', '.join(TOKENIZATIONS)}", path, el.sourceline)
    lo = _int(el.get("min", "3"), "<segranks> min", path, el)
    hi = _int(el.get("max", "6"), "<segranks> max", path, el)
    if lo > hi:
        raise InputFormatError(f"<segranks min=\"{lo}\" max=\"{hi}\">: min is above max", path,
                               el.sourceline)
    data = SentenceSegments(min_length=lo, max_length=hi, tokenization=tok)
    tokens = source_tokens(src, tok)
    for child in el:
        if child.tag == "segment":
            try:
                words = tuple(parse_int(x, "word") for x in (child.get("words") or "").split())
            except ValueError:
                words = ()
            if not words or any(not 0 <= w < len(tokens) for w in words) \
                    or list(words) != sorted(set(words)):
                raise InputFormatError(f"<segment words=\"{child.get('words', '')}\"> must be "
                                       f"increasing token numbers below {len(tokens)} (the "
                                       "source's token count)", path, child.sourceline)
            text = " ".join(tokens[w] for w in words)
            if child.get("text") is not None and " ".join(child.get("text").split()) != text:
                raise InputFormatError(f"<segment text=\"{child.get('text')[:40]}\"> is not the "
                                       f"words {child.get('words')} of the source ({text[:40]!r}; "
                                       "the source or its tokenization changed)", path,
                                       child.sourceline)
            seg = SourceSegment(words, text)
            for c in child:
                if c.tag != "candidate":
                    continue
                ctext = c.get("text")
                if ctext is None:
                    raise InputFormatError("<candidate> needs a text attribute", path, c.sourceline)
                if seg.candidate_index(ctext) is not None:
                    raise InputFormatError(f"candidate {ctext[:40]!r} appears twice in one "
                                           "segment (identical candidates are merged)", path,
                                           c.sourceline)
                seg.candidates.append(CandidateSegment(ctext, [s.text or "" for s in c
                                                               if s.tag == "sys"]))
            data.segments.append(seg)
    for child in el:
        if child.tag != "ranking":
            continue
        judge, task = child.get("judge"), child.get("task") or ""
        if data.ranking(judge, task) is not None:
            raise InputFormatError(f"two rankings of judge {judge!r} with task {task!r}", path,
                                   child.sourceline)
        sec = child.get("seconds")
        seconds = None if sec is None else parse_xml_number(sec, "seconds of <ranking>", path, child)
        if seconds is not None and seconds < 0:
            raise InputFormatError("seconds of <ranking> must be >= 0", path, child.sourceline)
        ranks = {}
        for r in child:
            if r.tag != "ranks":
                continue
            k = _int(r.get("segment"), "segment", path, r) - 1
            if not 0 <= k < len(data.segments):
                raise InputFormatError(f"<ranks segment=\"{r.get('segment')}\">: the sentence "
                                       f"has {len(data.segments)} segment(s)", path, r.sourceline)
            if k in ranks:
                raise InputFormatError(f"segment {k + 1} is ranked twice in one <ranking>",
                                       path, r.sourceline)
            try:
                values = [_rank_value(x) for x in (r.text or "").split()]
                ranks[k] = check_ranks(data.segments[k], values)
            except EvalTransError as exc:
                raise InputFormatError(exc.problem, path, r.sourceline) from None
        data.rankings.append(SegmentRanking(judge, ranks, task, child.get("time"), seconds))
    set_sentence_segments(src, data)


def source_xml(src: Source) -> list[str]:
    """The ``<segranks>`` lines of ``src`` (none without segments)."""
    data = sentence_segments(src)
    if data is None:
        return []
    out = [f"    <segranks{attrs([('min', str(data.min_length)), ('max', str(data.max_length)), ('tokenization', data.tokenization)])}>\n"]
    for seg in data.segments:
        out.append(f"      <segment{attrs([('words', ' '.join(map(str, seg.words))), ('text', seg.text)])}>\n")
        for c in seg.candidates:
            systems = "".join(f"<sys>{escape_text(s)}</sys>" for s in c.systems)
            out.append(f"        <candidate{attrs([('text', c.text)])}>{systems}</candidate>\n")
        out.append("      </segment>\n")
    for rk in data.rankings:
        pairs = [("judge", rk.judge), ("task", rk.task), ("time", rk.time),
                 ("seconds", None if rk.seconds is None else format_number(rk.seconds))]
        out.append(f"      <ranking{attrs(pairs)}>\n")
        for k, ranks in sorted(rk.ranks.items()):
            out.append(f"        <ranks segment=\"{k + 1}\">{' '.join(map(str, ranks))}</ranks>\n")
        out.append("      </ranking>\n")
    out.append("    </segranks>\n")
    return out
