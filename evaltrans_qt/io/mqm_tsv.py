"""Google's MQM ratings TSV (google/wmt-mqm-human-evaluation; read by mt-metrics-eval's
``converters/score_mqm.py``): import into a database and export from one.

The file is tab-separated without quoting, one header line, then one row per error::

    system  doc  doc_id  seg_id  rater  source  target  category  severity  [comment]

``doc_id`` is the 1-based position of the segment in its document, ``seg_id`` the
segment's number in the test set. The error's span is marked ``<v>…</v>`` in
``target`` (or in ``source`` for a source-side error); ``<v></v>`` marks an omission's
position; a row without markers is an error the rater did not locate. A rater who found
no error writes one ``no-error`` row (severity ``no-error``, category ``No-error``).
With the markers removed, every row of a candidate has the same ``source`` and
``target`` text.

**Times.** The classic files (newstest2020/2021, TED, generalMT2022/2023; the 9 columns,
the TED en-de file with ``comment``) carry no time. Google's side-by-side release of
WMT23 MQM ratings (``generalMT2023/*/sxs_mqm_generalMT2023_*.3ratingsPerSegment.tsv``,
2025) is written by the Marot/Anthea tools instead: the header ``system doc docSegId
globalSegId rater source target category severity metadata`` followed by a note cell
(``# Documentation: …``) that the rows do not fill, ``docSegId``/``globalSegId`` being
``doc_id``/``seg_id``, and a ``metadata`` column holding a JSON object per row whose
``timing`` maps each annotation event (``started-new-error``, ``chose-severity-minor``,
``next-arrow``…) to ``{"count", "timeMS", "log"}``. Those rows are read too: an error's
seconds are the sum of its row's ``timeMS`` / 1000, and the rater's seconds on the
candidate (the annotation's) the sum over the rater's rows of the candidate, ``no-error``
row included. The metadata is kept as written (``ErrorSpan.metadata``; the ``no-error``
row's in the annotation) and exported back unchanged, so such a file round-trips like a
classic one. That release also has ``HOTW-test`` rows (the "hands on the wheel" checks
of the raters, not errors): an unknown severity here, refused, or skipped with
``lenient``.

**Import** (:func:`read_mqm_tsv`): one source per (``doc``, ``doc_id``), in order of first
appearance (so source K is the K-th segment the application lists), ``<source doc
seg=doc_id seg_id=…>``; one candidate per system and source (human translations such as
``ref``/``refB`` too: they were judged like systems); one error annotation
(:class:`~evaltrans_qt.engine.human.spans.model.SpanAnnotation`) per rater and candidate,
its errors in file order; the raters are human judges (origin ``human``). Severities and categories are kept as written (the typology
is open). A malformed row (wrong number of fields, a ``<v>`` without ``</v>``, marks in
both texts, an unknown severity, a text differing from the candidate's) stops the
import naming the file and row; ``lenient=True`` skips such rows and lists them.

**Export** (:func:`write_mqm_tsv`) writes the human MQM annotations (protocol ``mqm``;
an ESA judge's spans are not MQM ratings, nor are a machine's suggested spans) in the same columns (the imported header, with
``comment`` if it had one); rows are grouped by candidate and, within a candidate, by
rater in order of first appearance, errors in annotation order. Candidates come in the
order the import found (by system, or by segment: ``<database mqm-order>``). An imported
annotation remembers the file lines of its rows (``mqm-rows``); when every annotation
written still has as many rows as it was imported with (and no two rows claim one line,
as after merging two imports), the rows come in the file's order, so an imported file exported again is byte-identical -- rows of candidates and
raters interleaved as the side-by-side release has them included -- except for lines
ending in CR LF (written with LF), rows a lenient import skipped, and a rater's
``no-error`` row beside error rows of the same candidate (the annotation has errors, so
the row is not written again, and the file's order is not kept).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from evaltrans_qt.engine.data.database import Database, Source, Target
from evaltrans_qt.engine.human.spans.model import (
    ErrorSpan,
    SpanAnnotation,
    Typology,
    canonical_severity,
    is_judgement,
)
from evaltrans_qt.engine.human.spans.scores import WEIGHTS_ATTR
from evaltrans_qt.engine.human.spans.weights import parse_weights
from evaltrans_qt.errors import EvalTransError, InputFormatError, SaveError
from evaltrans_qt.io.atomic import atomic_write_bytes
from evaltrans_qt.io.plaintext import read_input_bytes

COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category",
           "severity")
OPTIONAL = ("comment", "metadata")
#: Marot's names for ``doc_id`` and ``seg_id`` (module doc).
ALIASES = {"docSegId": "doc_id", "globalSegId": "seg_id"}
#: A header cell starting so, after the columns, is a note the rows do not fill.
NOTE = "#"
NO_ERROR = "no-error"
NO_ERROR_CATEGORY = "No-error"
#: ``<source seg_id=…>``: the test-set segment number of an imported source.
SEG_ID_ATTR = "seg_id"
#: ``<database mqm-columns=…>``: the imported header when it is not the 9 columns (its
#: cells joined by spaces, or by tabs when a cell holds a space).
COLUMNS_ATTR = "mqm-columns"
#: ``<database mqm-order=…>``: ``segment`` if the imported rows came segment by segment.
ORDER_ATTR = "mqm-order"
#: ``extra_attrs`` of a clean annotation whose ``no-error`` row was spelled differently.
_CLEAN_CATEGORY, _CLEAN_SEVERITY, _CLEAN_COMMENT = "mqm-category", "mqm-severity", "mqm-comment"
_CLEAN_METADATA = "mqm-metadata"
#: ``extra_attrs`` of an imported annotation: the file lines of its rows, in order.
ROWS_ATTR = "mqm-rows"
OPEN, CLOSE = "<v>", "</v>"


@dataclass
class ImportReport:
    """What :func:`read_mqm_tsv` read: rows, and the rows skipped (``lenient``)."""

    rows: int = 0
    errors: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)


def unmark(text: str) -> tuple[str, int | None, int | None]:
    """``text`` without its ``<v>…</v>`` and the marked span ``[start, end)`` (None, None
    without markers); ValueError naming the problem for unbalanced or repeated markers."""
    n_open, n_close = text.count(OPEN), text.count(CLOSE)
    if n_open == 0 and n_close == 0:
        return text, None, None
    if n_open != 1 or n_close != 1:
        if n_open > n_close:
            raise ValueError(f"a {OPEN} without {CLOSE}")
        if n_close > n_open:
            raise ValueError(f"a {CLOSE} without {OPEN}")
        raise ValueError(f"{n_open} spans marked {OPEN}…{CLOSE} in one text (one per row)")
    i, j = text.index(OPEN), text.index(CLOSE)
    if j < i:
        raise ValueError(f"{CLOSE} before {OPEN}")
    plain = text[:i] + text[i + len(OPEN):j] + text[j + len(CLOSE):]
    return plain, i, j - len(OPEN)


def mark(text: str, start: int | None, end: int | None) -> str:
    """``text`` with ``[start, end)`` marked ``<v>…</v>`` (unchanged without a span)."""
    if start is None or end is None:
        return text
    return f"{text[:start]}{OPEN}{text[start:end]}{CLOSE}{text[end:]}"


class _Builder:
    """The database an import builds, with the indexes it needs to stay linear."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.sources: dict[tuple[str, str], Source] = {}
        self.candidates: dict[tuple[str, str, str], Target] = {}
        self.blocks: list[tuple[str, int]] = []        # (system, source index) in file order
        self.source_index: dict[int, int] = {}

    def row(self, f: dict[str, str], line: int) -> int:
        """Add row ``line`` of the file; returns the number of errors it added (0 or 1)."""
        doc, doc_id = f["doc"], f["doc_id"].strip()
        if not doc_id.isdigit() or int(doc_id) < 1:
            raise ValueError(f"doc_id {f['doc_id']!r} is not a whole number >= 1")
        src_plain, s0, s1 = _unmarked(f["source"], "source")
        tgt_plain, t0, t1 = _unmarked(f["target"], "target")
        if s0 is not None and t0 is not None:
            raise ValueError("spans marked in both source and target (one per row)")
        sev = f["severity"]
        clean = sev.strip().lower() == NO_ERROR
        if not clean:
            canonical_severity(sev)                      # ScoreError: unknown severity
            if not f["category"].strip():
                raise ValueError("empty category")
        src = self.sources.get((doc, doc_id))
        if src is None:
            try:
                src = self.db.add_source(src_plain, doc, doc_id)
            except InputFormatError as exc:
                raise ValueError(exc.problem) from None
            src.extra_attrs[SEG_ID_ATTR] = f["seg_id"]
            self.sources[(doc, doc_id)] = src
            self.source_index[id(src)] = len(self.db.sources) - 1
        elif src.text != src_plain:
            raise ValueError(f"the source without <v> marks, {src_plain[:60]!r}, differs from "
                             f"the source of doc {doc!r} doc_id {doc_id}, {src.text[:60]!r}")
        elif src.extra_attrs.get(SEG_ID_ATTR) != f["seg_id"]:
            raise ValueError(f"seg_id {f['seg_id']!r}, but doc {doc!r} doc_id {doc_id} had "
                             f"seg_id {src.extra_attrs.get(SEG_ID_ATTR)!r}")
        system = f["system"]
        t = self.candidates.get((doc, doc_id, system))
        if t is None:
            t = Target(tgt_plain, system)
            src.targets.append(t)
            self.candidates[(doc, doc_id, system)] = t
            self.blocks.append((system, self.source_index[id(src)]))
        elif t.text != tgt_plain:
            raise ValueError(f"the target without <v> marks, {tgt_plain[:60]!r}, differs from "
                             f"system {system!r}'s candidate {t.text[:60]!r}")
        rater = f["rater"]
        meta = f.get("metadata") or None
        seconds = None if meta is None else row_seconds(meta)
        ann = next((a for a in t.span_annotations if a.judge == rater), None)
        if ann is None:
            ann = SpanAnnotation(rater)
            t.span_annotations.append(ann)
        if seconds is not None:
            ann.seconds = round((ann.seconds or 0.0) + seconds, 3)
        rows = ann.extra_attrs.get(ROWS_ATTR)
        ann.extra_attrs[ROWS_ATTR] = f"{rows} {line}" if rows else str(line)
        if clean:
            if f["category"] != NO_ERROR_CATEGORY or sev != NO_ERROR:
                ann.extra_attrs[_CLEAN_CATEGORY] = f["category"]
                ann.extra_attrs[_CLEAN_SEVERITY] = sev
            if f.get("comment"):
                ann.extra_attrs[_CLEAN_COMMENT] = f["comment"]
            if meta is not None:
                ann.extra_attrs[_CLEAN_METADATA] = meta
            return 0
        side = "source" if s0 is not None else "target"
        start, end = (s0, s1) if s0 is not None else (t0, t1)
        comment = f.get("comment") or None
        ann.errors.append(ErrorSpan(sev, f["category"], start, end, side, comment, seconds,
                                    meta))
        return 1


def row_seconds(metadata: str) -> float | None:
    """The seconds of a row's Marot metadata (module doc): Σ ``timeMS`` of its ``timing``
    events / 1000; None without ``timing``. ValueError if it is not a JSON object or a
    ``timeMS`` is not a number >= 0."""
    try:
        d = json.loads(metadata)
    except ValueError:
        raise ValueError(f"metadata {metadata[:40]!r} is not JSON") from None
    if not isinstance(d, dict):
        raise ValueError(f"metadata {metadata[:40]!r} is not a JSON object")
    timing = d.get("timing")
    if not isinstance(timing, dict):
        return None
    total = 0.0
    for event, v in timing.items():
        ms = v.get("timeMS", 0) if isinstance(v, dict) else None
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not ms >= 0:
            raise ValueError(f"metadata: timeMS of {event!r} is not a number >= 0")
        total += ms
    return round(total / 1000.0, 3)


def _unmarked(text: str, column: str) -> tuple[str, int | None, int | None]:
    try:
        return unmark(text)
    except ValueError as exc:
        raise ValueError(f"{column}: {exc}") from None


def _lines(data: bytes, path: str | os.PathLike[str]) -> Iterator[tuple[int, str]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise InputFormatError("the file is not valid UTF-8", path, line) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, row in enumerate(lines, 1):
        yield i, row[:-1] if row.endswith("\r") else row


def read_mqm_tsv(path: str | os.PathLike[str], db: Database | None = None, *,
                 weights: str | None = None, lp: str | None = None,
                 reference: str | None = None, lenient: bool = False,
                 typology: Typology | None = None) -> tuple[Database, ImportReport]:
    """Import an MQM ratings TSV (module doc) into ``db`` (default: a new database).

    ``weights`` (a spec, engine/human/spans/weights.py) and ``lp`` are recorded in the
    database; ``reference`` names a system whose candidates are also added as the
    reference of their segment (for the automatic measures); a closed ``typology``
    refuses other categories. :class:`InputFormatError` naming file and row for a
    malformed row unless ``lenient``, which skips it (``ImportReport.skipped``)."""
    from evaltrans_qt.io.mtme import LP_ATTR, REFS_AS_SYSTEMS
    db = db if db is not None else Database()
    if weights is not None:
        parse_weights(weights)                       # OptionError for a bad spec
    data = read_input_bytes(path, "an MQM ratings TSV file")
    rows = _lines(data, path)
    try:
        _, header_line = next(rows)
    except StopIteration:
        raise InputFormatError("empty file (expected an MQM TSV header)", path, 1) from None
    cells = header_line.split("\t")
    header = _columns(cells)
    missing = [c for c in COLUMNS if c not in header]
    unknown = [c for c in header if c not in COLUMNS + OPTIONAL]
    if missing or unknown or len(set(header)) != len(header):
        raise InputFormatError(
            f"header {header_line[:120]!r}: expected the columns {' '.join(COLUMNS)} "
            f"[comment] [metadata] (Marot's docSegId and globalSegId for doc_id and seg_id)"
            + (f"; missing {', '.join(missing)}" if missing else "")
            + (f"; unknown {', '.join(unknown)}" if unknown else ""), path, 1)
    report = ImportReport()
    build = _Builder(db)
    for line_no, line in rows:
        parts = line.split("\t")
        try:
            if len(parts) != len(header):
                raise ValueError(f"{len(parts)} fields, the header has {len(header)}")
            f = dict(zip(header, parts, strict=True))
            if typology is not None and f["severity"].strip().lower() != NO_ERROR:
                typology.check(f["category"])
            report.errors += build.row(f, line_no)
            report.rows += 1
        except (ValueError, EvalTransError) as exc:
            problem = exc.problem if isinstance(exc, EvalTransError) else str(exc)
            if not lenient:
                raise InputFormatError(f"row {line_no}: {problem}", path, line_no) from None
            report.skipped.append((line_no, problem))
    if tuple(cells) != COLUMNS:
        db.extra_attrs[COLUMNS_ATTR] = ("\t" if any(" " in c for c in cells) else " ").join(cells)
    if _segment_major(build.blocks) and not _system_major(build.blocks):
        db.extra_attrs[ORDER_ATTR] = "segment"
    if weights is not None:
        db.extra_attrs[WEIGHTS_ATTR] = weights
    if lp is not None:
        db.extra_attrs[LP_ATTR] = lp
    if reference is not None:
        found = [t for (_, _, s), t in build.candidates.items() if s == reference]
        if not found:
            raise InputFormatError(f"--reference {reference}: no system of that name in the "
                                   "file", path)
        lv = db.ensure_reference_class()
        # judged like the systems: export mtme writes it as a system output too
        db.extra_attrs[REFS_AS_SYSTEMS] = " ".join(dict.fromkeys(
            [*db.extra_attrs.get(REFS_AS_SYSTEMS, "").split(), reference]))
        for (doc, doc_id, s), t in build.candidates.items():
            if s == reference:
                ref = Target(t.text, reference)
                ref.scores.append(_reference_score(lv))
                build.sources[(doc, doc_id)].targets.append(ref)
    return db, report


def _reference_score(lv):
    from evaltrans_qt.engine.data.database import Score
    return Score(lv.name, float(lv.perfect))


def _system_major(blocks: list[tuple[str, int]]) -> bool:
    """Whether the candidates came system by system, segments in database order."""
    firsts: dict[str, int] = {}
    for n, (s, _) in enumerate(blocks):
        firsts.setdefault(s, n)
    return blocks == sorted(blocks, key=lambda b: (firsts[b[0]], b[1]))


def _segment_major(blocks: list[tuple[str, int]]) -> bool:
    return all(a[1] <= b[1] for a, b in zip(blocks, blocks[1:], strict=False))


def _clean(text: str, what: str) -> str:
    if "\t" in text or "\n" in text or "\r" in text:
        raise SaveError(f"{what} {text[:40]!r} holds a tab or line break, which an MQM TSV "
                        "cannot hold")
    return text


def _columns(cells: list[str]) -> list[str]:
    """The column names of header ``cells``: Marot's names as ours, the notes dropped."""
    n = len(cells)
    while n > 0 and cells[n - 1].startswith(NOTE):
        n -= 1
    return [ALIASES.get(c, c) for c in cells[:n]]


def mqm_rows(db: Database) -> Iterator[list[str]]:
    """The rows of the export (module doc), header first."""
    stored = db.extra_attrs.get(COLUMNS_ATTR, " ".join(COLUMNS))
    cells = stored.split("\t") if "\t" in stored else stored.split(" ")
    header = _columns(cells)
    notes = cells[len(header):]
    cells = cells[:len(header)]
    if "comment" not in header and any(e.comment for _, t in db.iter_candidates()
                                       for a in t.span_annotations for e in a.errors
                                       if is_judgement(a, "mqm")):
        header.append("comment")
        cells.append("comment")
    yield cells + notes
    blocks: list[tuple[int, Source, Target]] = []
    for i, src in enumerate(db.sources):
        for t in db.candidates(src):
            if any(is_judgement(a, "mqm") for a in t.span_annotations):
                blocks.append((i, src, t))
    if db.extra_attrs.get(ORDER_ATTR) != "segment":
        order = {s: n for n, s in enumerate(db.systems())}
        blocks.sort(key=lambda b: (order[b[2].system or ""], b[0]))
    out: list[tuple[int | None, list[str]]] = []     # (file line of the import, row)
    for i, src, t in blocks:
        base = {"system": _clean(t.system or "", "system"),
                "doc": _clean(src.doc or "", "doc"), "doc_id": src.seg or str(i + 1),
                "seg_id": src.extra_attrs.get(SEG_ID_ATTR, str(i + 1))}
        stext, ttext = _clean(src.text, "source"), _clean(t.text, "candidate")
        for a in t.span_annotations:
            if not is_judgement(a, "mqm"):
                continue
            rater = _clean(a.judge or "", "rater")
            rows: list[list[str]] = []
            if not a.errors:
                rows.append([{**base, "rater": rater, "source": stext, "target": ttext,
                        "category": a.extra_attrs.get(_CLEAN_CATEGORY, NO_ERROR_CATEGORY),
                        "severity": a.extra_attrs.get(_CLEAN_SEVERITY, NO_ERROR),
                        "comment": _clean(a.extra_attrs.get(_CLEAN_COMMENT, ""), "comment"),
                        "metadata": _clean(a.extra_attrs.get(_CLEAN_METADATA, ""), "metadata")
                        }[c] for c in header])
            for e in a.errors:
                src_side = e.side == "source"
                row = {**base, "rater": rater,
                       "source": mark(stext, e.start, e.end) if src_side else stext,
                       "target": ttext if src_side else mark(ttext, e.start, e.end),
                       "category": _clean(e.category, "category"),
                       "severity": _clean(e.severity, "severity"),
                       "comment": _clean(e.comment or "", "comment"),
                       "metadata": _clean(e.metadata or "", "metadata")}
                rows.append([row[c] for c in header])
            lines = a.extra_attrs.get(ROWS_ATTR, "").split()
            if len(lines) == len(rows) and all(x.isdigit() for x in lines):
                out += [(int(x), r) for x, r in zip(lines, rows, strict=True)]
            else:
                out += [(None, r) for r in rows]
    at = [line for line, _ in out]
    if out and None not in at and len(set(at)) == len(at):
        out.sort(key=lambda o: o[0] or 0)            # an unedited import: the file's order
    for _, r in out:
        yield r


def write_mqm_tsv(db: Database, path: str | os.PathLike[str]) -> int:
    """Write the error annotations of ``db`` as an MQM TSV (atomically); returns the rows
    written (header excluded). :class:`SaveError` if a text holds a tab or line break."""
    lines = ["\t".join(r) for r in mqm_rows(db)]
    atomic_write_bytes(Path(path), ("\n".join(lines) + "\n").encode("utf-8"))
    return len(lines) - 1
