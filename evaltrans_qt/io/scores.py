"""External metric scores: file formats and the database extension element.

Readers (each gives :class:`~evaltrans_qt.engine.measures.external.ExternalMetric`\\ s
keyed by the database's sources; bad input raises :class:`InputFormatError` with file
and line, before anything is changed):

* WMT metrics-task submission files (Macháček appendix A; statmt.org/wmt14
  metrics-task): ``*.seg.score`` lines ``METRIC LP TESTSET SYSTEM SEGMENT SCORE`` and
  ``*.sys.score`` lines ``METRIC LP TESTSET SYSTEM SCORE``, tab- or space-separated;
  ``SEGMENT`` is the 1-based segment number of the test set.
* mt-metrics-eval metric scores ``metric-scores/LP/NAME-REF.LEVEL.score`` (its README,
  "Specification"): lines ``SYSNAME SCORE``; a ``seg`` file has one block per system,
  its k-th line for a system being segment k; a ``sys`` file one line per system. NAME
  is the part before the last ``-`` (reference names have no ``-``). ``None`` (not
  allowed there, but human files use it) is read as "no score".
* Plain TSV ``system<TAB>segment<TAB>score`` (a header line is skipped) and JSON Lines
  ``{"system": …, "segment": …, "score": …}``; ``segment`` 1-based.

Segment numbers name the database's sources by their ``seg`` attribute (positional
sources; documents must not repeat a number) or, for a database without
``seg`` ids, by 1-based position. Systems must be systems or reference ids of the
database.

Storage (our documented extension of the ``.etdb.xml`` format): one
top-level element, written after the ``<levels>`` and read back by
:func:`restore` (``io/etdb/reader.py`` calls :func:`restore` on load and :func:`elements`
on save)::

    <external-metrics>
      <metric name="COMET" direction="higher" file="comet.seg.score" format="wmt-seg"
              reference="refA">
        <segments system="Online-W">DOC&#9;SEG&#9;VALUE lines</segments>
        <system id="Online-W" score="0.53"/>
      </metric>
      <human-table name="mqm" level="sys">the mt-metrics-eval file's lines</human-table>
    </external-metrics>

``DOC``/``SEG`` are the source's ``doc``/``seg`` attributes (``SEG`` = ``#N``, the 1-based
position, for a source without ``seg``); ``<human-table>`` keeps human scores at levels
the database has no place for (mt-metrics-eval ``sys``/``doc``/``domain`` files) so an
mt-metrics-eval directory exports back as it was imported.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.measures.external import (
    ExternalMetric,
    add_external,
    check_name,
    external_metrics,
    guess_direction,
)
from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.io.limits import load_json, parse_number
from evaltrans_qt.io.plaintext import PathLike, read_text, split_lines
from evaltrans_qt.io.xmlsafe import escape_attr, escape_text

ELEMENT = "external-metrics"
FORMATS = ("wmt", "mtme", "tsv", "jsonl")
_MTME_NAME = re.compile(r"^(?P<name>.+)-(?P<ref>[^-.]+(?:\.[^-.]+)*)\.(?P<level>seg|sys|doc|domain)"
                        r"\.score$")


# ------------------------------------------------------------------ segments of a database
def segment_index(db: Database) -> dict[str, int]:
    """1-based segment number (as text) -> source index (module doc)."""
    if not any(s.seg for s in db.sources):
        return {str(i + 1): i for i in range(len(db.sources))}
    out: dict[str, int] = {}
    for i, s in enumerate(db.sources):
        key = s.seg if s.seg else f"#{i + 1}"
        if key in out:
            raise InputFormatError(
                f"segment number {key} occurs in several documents of the database; "
                "segment-level scores need test-set-wide segment numbers")
        out[key] = i
    return out


def _source_ids(db: Database) -> list[tuple[str, str]]:
    return [(s.doc or "", s.seg if s.seg else f"#{i + 1}") for i, s in enumerate(db.sources)]


def _known_systems(db: Database) -> set[str]:
    return {t.system for s in db.sources for t in s.targets if t.system}


def score_number(text: str, path, no: int) -> float:
    if text == "None":
        return math.nan
    try:
        return parse_number(text, "score")
    except ValueError as exc:
        raise InputFormatError(str(exc), path, no) from None


# ------------------------------------------------------------------ readers
def detect_format(path: PathLike) -> str:
    """``wmt``, ``mtme``, ``tsv`` or ``jsonl`` from the file name and first line."""
    p = Path(path)
    if p.suffix.lower() in (".jsonl", ".json"):
        return "jsonl"
    if p.name.endswith(".score"):
        first = next((ln for ln in split_lines(read_text(p)) if ln.strip()), "")
        return "wmt" if len(first.split()) >= 5 else "mtme"
    return "tsv"


def read_scores_file(path: PathLike, db: Database, *, fmt: str | None = None,
                     name: str | None = None, higher_is_better: bool | None = None,
                     lp: str | None = None, testset: str | None = None) -> list[ExternalMetric]:
    """Read one score file for ``db`` (format detected unless ``fmt``): one
    :class:`ExternalMetric` per metric named in it (``name`` renames a single one)."""
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise InputFormatError(f"unknown score format '{fmt}' (one of {', '.join(FORMATS)})", path)
    if fmt == "wmt":
        metrics = _read_wmt(path, db, lp, testset)
    elif fmt == "mtme":
        metrics = [_read_mtme(path, db)]
    else:
        metrics = [_read_plain(path, db, fmt, name or Path(path).name.split(".")[0])]
    if name:
        if len(metrics) != 1:
            raise InputFormatError(f"--name renames one metric, the file has {len(metrics)}: "
                                   + ", ".join(m.name for m in metrics), path)
        metrics[0].name = name
    for m in metrics:
        try:
            check_name(m.name)
        except EvalTransError as exc:
            raise InputFormatError(exc.problem, path) from None
        m.higher_is_better = guess_direction(m.name) if higher_is_better is None \
            else higher_is_better
    return metrics


def _read_wmt(path: PathLike, db: Database, lp: str | None, testset: str | None
              ) -> list[ExternalMetric]:
    rows = []
    for no, line in enumerate(split_lines(read_text(path)), 1):
        if not line.strip():
            continue
        cols = line.split("\t") if "\t" in line else line.split()
        cols = [c.strip() for c in cols]
        if len(cols) not in (5, 6):
            raise InputFormatError(
                f"expected METRIC LP TESTSET SYSTEM [SEGMENT] SCORE (5 or 6 columns), "
                f"found {len(cols)}", path, no)
        rows.append((no, cols))
    if not rows:
        raise InputFormatError("no scores in the file", path)
    lps = sorted({c[1] for _, c in rows})
    sets = sorted({c[2] for _, c in rows})
    if lp is None and len(lps) > 1:
        raise InputFormatError(f"the file has several language pairs ({', '.join(lps)}); "
                               "choose one with --lp", path)
    if testset is None and len(sets) > 1:
        raise InputFormatError(f"the file has several test sets ({', '.join(sets)}); "
                               "choose one with --testset", path)
    rows = [(no, c) for no, c in rows if (lp is None or c[1] == lp)
            and (testset is None or c[2] == testset)]
    if not rows:
        raise InputFormatError(f"no line for language pair {lp} / test set {testset}", path)
    seg_of = None
    known = _known_systems(db)
    out: dict[str, ExternalMetric] = {}
    for no, c in rows:
        metric = out.setdefault(c[0], ExternalMetric(c[0], True, file=str(path),
                                                     fmt="wmt-" + ("seg" if len(c) == 6 else "sys")))
        system = c[3]
        if system not in known:
            raise InputFormatError(f"unknown system {system[:40]!r} (not in the database)", path, no)
        value = score_number(c[-1], path, no)
        if len(c) == 5:
            if system in metric.systems:
                raise InputFormatError(f"second system score for {system}", path, no)
            if math.isfinite(value):
                metric.systems[system] = value
            continue
        seg_of = seg_of if seg_of is not None else segment_index(db)
        idx = seg_of.get(c[4])
        if idx is None:
            raise InputFormatError(f"segment {c[4][:40]} is not in the database (1..{len(seg_of)})",
                                   path, no)
        seg = metric.segments.setdefault(system, {})
        if idx in seg:
            raise InputFormatError(f"second score for {system} segment {c[4]}", path, no)
        if math.isfinite(value):
            seg[idx] = value
    return list(out.values())


def parse_mtme_name(path: PathLike) -> tuple[str, str, str]:
    """(NAME, REF, LEVEL) of an mt-metrics-eval metric file name ``NAME-REF.LEVEL.score``."""
    m = _MTME_NAME.match(Path(path).name)
    if not m:
        raise InputFormatError("an mt-metrics-eval metric file is named NAME-REF.LEVEL.score "
                               "(LEVEL seg or sys)", path)
    return m["name"], m["ref"], m["level"]


def read_mtme_lines(path: PathLike) -> list[tuple[int, str, str]]:
    """(line, system, score text) of an mt-metrics-eval seg/sys score file."""
    out = []
    for no, line in enumerate(split_lines(read_text(path)), 1):
        if not line.strip():
            continue
        cols = line.split()
        if len(cols) != 2:
            raise InputFormatError(f"expected SYSNAME SCORE, found {len(cols)} columns", path, no)
        out.append((no, cols[0], cols[1]))
    return out


def _read_mtme(path: PathLike, db: Database) -> ExternalMetric:
    name, ref, level = parse_mtme_name(path)
    if level not in ("seg", "sys"):
        raise InputFormatError(f"{level}-level metric scores are not supported (seg or sys)", path)
    metric = ExternalMetric(name, True, file=str(path), fmt=f"mtme-{level}", reference=ref)
    known = _known_systems(db)
    n = len(db.sources)
    counts: dict[str, int] = {}
    last: dict[str, int] = {}          # each system's last line, for a count that is short
    for no, system, text in read_mtme_lines(path):
        if system not in known:
            raise InputFormatError(f"unknown system {system[:40]!r} (not in the database)", path, no)
        value = score_number(text, path, no)
        if level == "sys":
            if system in metric.systems:
                raise InputFormatError(f"second system score for {system}", path, no)
            if math.isfinite(value):
                metric.systems[system] = value
            continue
        k = counts.get(system, 0)
        if k >= n:
            raise InputFormatError(f"more than {n} segment scores for {system}", path, no)
        counts[system] = k + 1
        last[system] = no
        if math.isfinite(value):
            metric.segments.setdefault(system, {})[k] = value
    for system, k in counts.items():
        if k != n:
            raise InputFormatError(f"{system} has {k} segment scores (the last on this line), "
                                   f"the test set {n} segments", path, last[system])
    return metric


def _read_plain(path: PathLike, db: Database, fmt: str, name: str) -> ExternalMetric:
    metric = ExternalMetric(name, True, file=str(path), fmt=fmt)
    seg_of = segment_index(db)
    known = _known_systems(db)
    lines = split_lines(read_text(path))
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if fmt == "jsonl":
            try:
                rec = load_json(line)
            except json.JSONDecodeError as exc:
                raise InputFormatError(f"not JSON: {exc.msg}", path, no) from None
            except ValueError as exc:               # bounds of io/limits.py
                raise InputFormatError(f"not readable JSON: {exc}", path, no) from None
            if not isinstance(rec, dict) or not {"system", "segment", "score"} <= set(rec):
                raise InputFormatError('expected {"system": ..., "segment": ..., "score": ...}',
                                       path, no)
            system, seg, score = str(rec["system"]), str(rec["segment"]), rec["score"]
            if score is None:
                continue
            if isinstance(score, bool) or not isinstance(score, (int, float)) \
                    or not math.isfinite(score):
                raise InputFormatError(f"score must be a finite number, not {score!r}", path, no)
            value = float(score)
        else:
            cols = line.split("\t")
            if len(cols) != 3:
                raise InputFormatError("expected 3 tab-separated columns (system, segment, "
                                       f"score), found {len(cols)}", path, no)
            system, seg, text = (c.strip() for c in cols)
            if not (seg.isascii() and seg.isdigit()):
                if all(not x.strip() for x in lines[:no - 1]):
                    continue                                   # header
                raise InputFormatError(f"segment must be a number, not {seg!r}", path, no)
            if not text or text == "None":
                continue
            value = score_number(text, path, no)
        if system not in known:
            raise InputFormatError(f"unknown system {system[:40]!r} (not in the database)", path, no)
        idx = seg_of.get(seg)
        if idx is None:
            raise InputFormatError(f"segment {seg[:40]} is not in the database", path, no)
        vals = metric.segments.setdefault(system, {})
        if idx in vals:
            raise InputFormatError(f"second score for {system} segment {seg}", path, no)
        vals[idx] = value
    if not metric.segments:
        raise InputFormatError("no scores in the file", path)
    return metric


def import_scores(db: Database, paths: Sequence[PathLike], **kw) -> list[ExternalMetric]:
    """Read every file (all checked first), then store the metrics on ``db``; a seg and a
    sys file of one metric are merged."""
    got: list[ExternalMetric] = []
    for p in paths:
        got.extend(read_scores_file(p, db, **kw))
    merged: dict[str, ExternalMetric] = {}
    for m in got:
        if m.name in merged:
            merged[m.name].merge(m)
        else:
            merged[m.name] = m
    for m in merged.values():
        add_external(db, m, replace=True)
    return list(merged.values())


# ------------------------------------------------------------------ storage in the database
def human_tables(db: Database) -> dict[tuple[str, str], list[str]]:
    """Human scores at levels the database has no place for: (name, level) -> lines."""
    d = db.__dict__.get("external_human")
    if d is None:
        d = db.__dict__["external_human"] = {}
    return d


def elements(db: Database) -> list[str]:
    """The ``<external-metrics>`` element of ``db`` as text (empty list when none)."""
    ext = external_metrics(db)
    tables = human_tables(db)
    if not ext and not tables:
        return []
    ids = _source_ids(db)
    out = [f"<{ELEMENT}>"]
    for m in ext.values():
        attrs = {"name": m.name, "direction": "higher" if m.higher_is_better else "lower",
                 "file": m.file, "format": m.fmt, "reference": m.reference}
        out.append("<metric" + "".join(f' {k}="{escape_attr(v)}"' for k, v in attrs.items() if v)
                   + ">")
        for system, vals in m.segments.items():
            body = "\n".join(f"{ids[i][0]}\t{ids[i][1]}\t{v!r}" for i, v in sorted(vals.items()))
            out.append(f'<segments system="{escape_attr(system)}">{escape_text(body)}</segments>')
        for system, v in m.systems.items():
            out.append(f'<system id="{escape_attr(system)}" score="{v!r}"/>')
        out.append("</metric>")
    for (name, level), lines in tables.items():
        out.append(f'<human-table name="{escape_attr(name)}" level="{escape_attr(level)}">'
                   f'{escape_text(chr(10).join(lines))}</human-table>')
    out.append(f"</{ELEMENT}>")
    return ["\n  ".join(out)]


def restore(db: Database, path: PathLike | None = None,
            first_lines: list[int] | None = None) -> None:
    """Move an ``<external-metrics>`` element of ``db.extra_children`` (as read by
    ``io/etdb/``) into the database's external metrics and human tables; ``first_lines``
    are the file lines the elements start on (errors name the file's lines)."""
    keep: list[str] = []
    found: list[str] = []
    for x in db.extra_children:
        (found if x.lstrip().startswith(f"<{ELEMENT}") else keep).append(x)
    if not found:
        return
    from lxml import etree
    db.extra_children[:] = keep
    by_id: dict[tuple[str, str], int] = {k: i for i, k in enumerate(_source_ids(db))}
    for k, text in enumerate(found):
        root = etree.fromstring(text)
        offset = first_lines[k] - 1 if first_lines and k < len(first_lines) else 0
        for el in root:
            if el.tag == "metric":
                _restore_metric(db, el, by_id, path, offset)
            elif el.tag == "human-table":
                human_tables(db)[(el.get("name", ""), el.get("level", ""))] = \
                    (el.text or "").split("\n") if el.text else []


def _restore_metric(db: Database, el, by_id, path, offset: int = 0) -> None:
    name = el.get("name") or ""
    m = ExternalMetric(name, el.get("direction", "higher") != "lower", file=el.get("file", ""),
                       fmt=el.get("format", ""), reference=el.get("reference", ""))
    for child in el:
        if child.tag == "segments":
            vals = m.segments.setdefault(child.get("system", ""), {})
            for line in (child.text or "").split("\n"):
                if not line.strip():
                    continue
                parts = line.split("\t")
                if len(parts) != 3:
                    raise InputFormatError(f"<external-metrics> metric '{name}': bad segment "
                                           f"line {line!r}", path, child.sourceline + offset)
                idx = by_id.get((parts[0], parts[1]))
                if idx is None:
                    raise InputFormatError(f"<external-metrics> metric '{name}': no source "
                                           f"doc={parts[0]!r} seg={parts[1]!r}", path,
                                           child.sourceline + offset)
                vals[idx] = _restored_number(parts[2], name, path)
        elif child.tag == "system":
            m.systems[child.get("id", "")] = _restored_number(child.get("score", ""), name, path)
    external_metrics(db)[name] = m


def _restored_number(text: str, name: str, path) -> float:
    try:
        return parse_number(text, "score")
    except ValueError as exc:
        raise InputFormatError(f"<external-metrics> metric '{name}': {exc}", path) from None
