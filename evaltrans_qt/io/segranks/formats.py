"""SegRanks files (Macháček appendix B): the extracted-segments TSV and the JSON export.

**Extracted segments** (``.segments``, appendix B.2): one row per candidate segment,
six tab-separated fields -- sentence ID, tokenised source sentence, tokenised
reference, tokenised source segment, tokenised candidate segment, zero-based indices of
the source segment's words separated by spaces. Candidate segments are merged
(identical ones once per source segment), so the systems behind a row are not in the
file; they are kept in the database (``<segranks>``, io/etdb/segranks.py). As our
extension the reader accepts a seventh field, the systems separated by spaces
(:func:`write_segments` writes it with ``systems=True``).

**JSON export** (appendix B.5): ``{"<sentence ID>,<source segment>": [{"<candidate
segment>": rank, ...}, ...]}`` -- per source segment one rank dictionary per annotation
(an empty list when nobody ranked it). Judges and times are not in this format.

The sentence ID is the 1-based position of the source in the database (the line of the
test set; ``id_base=0`` for files that count from 0). Readers check everything against
the database and raise :class:`InputFormatError` naming file, line and problem before
anything is changed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from evaltrans_qt.engine.data.database import Database, Source
from evaltrans_qt.engine.human.segranks.model import (
    CandidateSegment,
    SegmentRanking,
    SentenceSegments,
    SourceSegment,
    sentence_segments,
    set_sentence_segments,
    source_tokens,
)
from evaltrans_qt.errors import InputFormatError, SaveError
from evaltrans_qt.io.limits import load_json, parse_int


def _reference_tokens(db: Database, src: Source, tokenization: str) -> str:
    from evaltrans_qt.engine.text.preprocess import tokenize
    refs = db.references(src)
    return " ".join(tokenize(refs[0].text, tokenization, "use")) if refs else ""


# --------------------------------------------------------------------------- TSV
def segments_tsv(db: Database, *, systems: bool = False, id_base: int = 1) -> str:
    """The extracted-segments TSV of every sentence with segments (module doc)."""
    rows: list[str] = []
    for k, src in enumerate(db.sources):
        data = sentence_segments(src)
        if data is None:
            continue
        tokens = " ".join(source_tokens(src, data.tokenization))
        ref = _reference_tokens(db, src, data.tokenization)
        for seg in data.segments:
            idx = " ".join(map(str, seg.words))
            for c in seg.candidates:
                fields = [str(k + id_base), tokens, ref, seg.text, c.text, idx]
                if systems:
                    bad = next((s for s in c.systems if not s or s != "".join(s.split())), None)
                    if bad is not None:
                        raise SaveError(f"system name {bad!r} contains white space and cannot "
                                        "be listed in the systems column")
                    fields.append(" ".join(c.systems))
                rows.append("\t".join(fields) + "\n")
    return "".join(rows)


def write_segments(db: Database, path: str | os.PathLike[str], *, systems: bool = False,
                   id_base: int = 1) -> int:
    """Write :func:`segments_tsv` atomically; returns the number of rows."""
    from evaltrans_qt.io.atomic import atomic_write_bytes
    text = segments_tsv(db, systems=systems, id_base=id_base)
    atomic_write_bytes(path, text.encode("utf-8"))
    return text.count("\n")


@dataclass
class _Pending:
    """Segments read for one sentence: words -> (text, {candidate: systems}, line)."""

    segments: dict[tuple[int, ...], tuple[str, dict[str, list[str]], int]] = field(default_factory=dict)


def _source_of(db: Database, sid: str, id_base: int, path, line: int | None
               ) -> tuple[int, Source]:
    try:
        k = parse_int(sid.strip(), "sentence ID") - id_base
    except ValueError as exc:
        raise InputFormatError(str(exc), path, line) from None
    if not 0 <= k < len(db.sources):
        raise InputFormatError(f"sentence ID {sid} is not a source of the database (IDs "
                               f"{id_base}..{len(db.sources) - 1 + id_base})", path, line)
    return k, db.sources[k]


def read_segments(db: Database, path: str | os.PathLike[str], *, tokenization: str = "none",
                  id_base: int = 1) -> int:
    """Add the segments of an extracted-segments file to ``db`` (module doc); returns
    the number of rows. Segments are matched by their word indices and candidates by
    their text, so importing a file twice changes nothing; a candidate new to a
    segment that already has rankings is refused (the rankings would not rank it)."""
    from evaltrans_qt.io.plaintext import read_input_bytes
    data = read_input_bytes(path, "an extracted-segments file", allow_empty=True)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFormatError("not valid UTF-8", path, data.count(b"\n", 0, exc.start) + 1) from None
    pending: dict[int, _Pending] = {}
    tokens_of: dict[int, list[str]] = {}
    n = 0
    for no, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) not in (6, 7):
            raise InputFormatError(f"{len(f)} tab-separated field(s); a row has 6 (sentence "
                                   "ID, source, reference, source segment, candidate segment, "
                                   "word indices) or 7 (+ systems)", path, no)
        k, src = _source_of(db, f[0], id_base, path, no)
        if k not in tokens_of:
            tokens_of[k] = source_tokens(src, tokenization)
        toks = tokens_of[k]
        if " ".join(f[1].split()) != " ".join(toks):
            raise InputFormatError(f"field 2 is not source {k + id_base} of the database "
                                   f"tokenised with '{tokenization}': {f[1][:60]!r} vs "
                                   f"{' '.join(toks)[:60]!r}", path, no)
        try:
            words = tuple(parse_int(x, "word index") for x in f[5].split())
        except ValueError:
            raise InputFormatError(f"field 6 ({f[5][:40]!r}) is not a list of word indices",
                                   path, no) from None
        if not words or list(words) != sorted(set(words)) or words[0] < 0 or words[-1] >= len(toks):
            raise InputFormatError(f"word indices {f[5][:40]!r} must be increasing, distinct "
                                   f"and below {len(toks)} (the source's token count)", path, no)
        seg_text = " ".join(toks[i] for i in words)
        if " ".join(f[3].split()) != seg_text:
            raise InputFormatError(f"source segment {f[3][:40]!r} is not the words {f[5]} of "
                                   f"the source ({seg_text[:40]!r})", path, no)
        cand = " ".join(f[4].split())
        systems = f[6].split() if len(f) == 7 else []
        p = pending.setdefault(k, _Pending())
        entry = p.segments.setdefault(words, (seg_text, {}, no))
        entry[1].setdefault(cand, [])
        for s in systems:
            if s not in entry[1][cand]:
                entry[1][cand].append(s)
        n += 1
    # check against existing rankings before changing anything
    plans = []
    for k, p in pending.items():
        old = sentence_segments(db.sources[k])
        new = SentenceSegments(tokenization=tokenization) if old is None else _copy(old)
        if old is not None and old.tokenization != tokenization:
            raise InputFormatError(f"source {k + id_base} has segments over '{old.tokenization}' "
                                   f"tokens; import with that tokenization", path)
        for words, (seg_text, cands, no) in p.segments.items():
            seg = next((s for s in new.segments if s.words == words), None)
            if seg is None:
                seg = SourceSegment(words, seg_text)
                new.segments.append(seg)
            ranked = any(new.segments.index(seg) in r.ranks for r in new.rankings)
            for ctext, systems in cands.items():
                c = next((c for c in seg.candidates if c.text == ctext), None)
                if c is None:
                    if ranked:
                        raise InputFormatError(f"candidate {ctext[:40]!r} is new to segment "
                                               f"{seg_text[:40]!r}, which is already ranked",
                                               path, no)
                    c = CandidateSegment(ctext)
                    seg.candidates.append(c)
                c.systems.extend(s for s in systems if s not in c.systems)
        plans.append((db.sources[k], new))
    for src, new in plans:
        set_sentence_segments(src, new)
    return n


def _copy(d: SentenceSegments) -> SentenceSegments:
    return SentenceSegments([SourceSegment(s.words, s.text, [CandidateSegment(c.text, list(c.systems))
                                                             for c in s.candidates])
                             for s in d.segments], list(d.rankings), d.min_length,
                            d.max_length, d.tokenization)


# --------------------------------------------------------------------------- JSON
def ranks_json(db: Database, *, id_base: int = 1) -> dict[str, list[dict[str, int]]]:
    """The SegRanks JSON export as a dict (module doc)."""
    out: dict[str, list[dict[str, int]]] = {}
    for k, src in enumerate(db.sources):
        data = sentence_segments(src)
        if data is None:
            continue
        for i, seg in enumerate(data.segments):
            lst = out.setdefault(f"{k + id_base},{seg.text}", [])
            for rk in data.rankings:
                if i in rk.ranks:
                    lst.append({c.text: r for c, r in zip(seg.candidates, rk.ranks[i])})
    return out


def write_ranks_json(db: Database, path: str | os.PathLike[str], *, id_base: int = 1) -> int:
    """Write :func:`ranks_json` atomically; returns the number of annotations."""
    from evaltrans_qt.io.atomic import atomic_write_bytes
    d = ranks_json(db, id_base=id_base)
    atomic_write_bytes(path, (json.dumps(d, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    return sum(len(v) for v in d.values())


_KEY = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"\s*:')


def _key_lines(raw: str) -> dict[str, int]:
    """Line of the first occurrence of every object key of JSON ``raw``, in one pass (a
    search per key would make an import quadratic in its keys)."""
    out: dict[str, int] = {}
    line, last = 1, 0
    for m in _KEY.finditer(raw):
        line += raw.count("\n", last, m.start())
        last = m.start()
        try:
            key = json.loads(m.group().rstrip()[:-1].rstrip())
        except ValueError:
            continue
        out.setdefault(key, line)
    return out


def _find_words(tokens: Sequence[str], seg: Sequence[str]) -> tuple[int, ...] | None:
    n = len(seg)
    for a in range(len(tokens) - n + 1):
        if list(tokens[a:a + n]) == list(seg):
            return tuple(range(a, a + n))
    return None


def read_ranks_json(db: Database, path: str | os.PathLike[str], *, judge: str | None = None,
                    tokenization: str = "none", id_base: int = 1) -> int:
    """Add the annotations of a SegRanks JSON export to ``db``; returns their number.

    A key's source segment is the stored segment with that text, else the first place
    its words occur in the source (a new segment). A candidate not stored yet is added
    (without systems) unless the segment already holds rankings. The i-th annotation of
    every segment of a sentence is taken as one screen: a ranking of ``judge`` with task
    ``json-<i>`` (replacing an earlier import of the same file). Every annotation must
    rank every candidate of its segment, 1..N+1.
    """
    from evaltrans_qt.io.plaintext import read_input_bytes
    raw_bytes = read_input_bytes(path, "a SegRanks JSON export", allow_empty=True)
    try:
        raw = raw_bytes.decode("utf-8-sig")
        obj = load_json(raw)
    except UnicodeDecodeError:
        raise InputFormatError("not valid UTF-8", path) from None
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"not valid JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    except ValueError as exc:
        raise InputFormatError(f"not readable JSON: {exc}", path) from None
    if not isinstance(obj, dict):
        raise InputFormatError("a SegRanks export is a JSON object {\"ID,segment\": [...]}", path, 1)
    work: dict[int, SentenceSegments] = {}
    annotations: dict[tuple[int, int], dict[int, dict[str, int]]] = {}
    lines: dict[tuple[int, int], int | None] = {}
    key_lines = _key_lines(raw)
    for key, value in obj.items():
        line = key_lines.get(key)
        sid, comma, seg_text = key.partition(",")
        if not comma:
            raise InputFormatError(f"key {key[:50]!r} is not 'sentence ID,source segment'", path, line)
        k, src = _source_of(db, sid, id_base, path, line)
        if k not in work:
            old = sentence_segments(src)
            work[k] = _copy(old) if old is not None else SentenceSegments(tokenization=tokenization)
        data = work[k]
        toks = source_tokens(src, data.tokenization)
        seg_text = " ".join(seg_text.split())
        if not seg_text:
            raise InputFormatError(f"key {key[:50]!r} names no source segment (its words "
                                   "after the comma are empty)", path, line)
        si = next((i for i, s in enumerate(data.segments) if s.text == seg_text), None)
        if si is None:
            words = _find_words(toks, seg_text.split())
            if words is None:
                raise InputFormatError(f"source segment {seg_text[:50]!r} is not in source "
                                       f"{k + id_base} ({' '.join(toks)[:60]!r})", path, line)
            data.segments.append(SourceSegment(words, seg_text))
            si = len(data.segments) - 1
        seg = data.segments[si]
        if not isinstance(value, list):
            raise InputFormatError(f"the value of {key[:50]!r} is not a list of rank "
                                   "dictionaries", path, line)
        ranked = any(si in r.ranks for r in data.rankings)
        for a, ann in enumerate(value):
            if not isinstance(ann, dict) or not ann:
                raise InputFormatError(f"annotation {a + 1} of {key[:50]!r} is not a non-empty "
                                       "{candidate: rank} object", path, line)
            for ctext in ann:
                ctext = " ".join(ctext.split())
                if seg.candidate_index(ctext) is None:
                    if ranked:
                        raise InputFormatError(f"candidate {ctext[:40]!r} is not a candidate of "
                                               f"the already ranked segment {seg_text[:40]!r}",
                                               path, line)
                    seg.candidates.append(CandidateSegment(ctext))
            annotations.setdefault((k, a), {})[si] = {" ".join(c.split()): r for c, r in ann.items()}
            lines[(k, a)] = line
    from evaltrans_qt.engine.human.segranks.model import check_ranks
    from evaltrans_qt.errors import ScoreError
    present: dict[int, set[tuple[str | None, str]]] = {}
    for (k, a), by_seg in sorted(annotations.items()):
        data = work[k]
        ranks = {}
        for si, ann in by_seg.items():
            seg = data.segments[si]
            missing = [c.text for c in seg.candidates if c.text not in ann]
            if missing:
                raise InputFormatError(f"annotation {a + 1} of sentence {k + id_base} does not "
                                       f"rank candidate {missing[0][:40]!r} of segment "
                                       f"{seg.text[:40]!r}", path, lines[(k, a)])
            try:
                ranks[si] = check_ranks(seg, [ann[c.text] for c in seg.candidates])
            except ScoreError as exc:
                raise InputFormatError(exc.problem, path, lines[(k, a)]) from None
        task = f"json-{a + 1}"
        held = present.get(k)
        if held is None:                 # each sentence's rankings scanned once: linear
            held = present[k] = {(r.judge, r.task) for r in data.rankings}
        if (judge, task) in held:
            data.rankings = [r for r in data.rankings
                             if not (r.judge == judge and r.task == task)]
        held.add((judge, task))
        data.rankings.append(SegmentRanking(judge, dict(sorted(ranks.items())), task))
    for k, data in work.items():
        set_sentence_segments(db.sources[k], data)
    return len(annotations)
