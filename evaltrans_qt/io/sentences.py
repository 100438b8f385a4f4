"""Per-sentence values as TSV or JSON Lines (``--sentences FILE.tsv|.jsonl``).

One row per (system, segment) with every measure column. The signatures of
the numbers (``engine/run/signature.py``) travel with them:

* TSV: ``# signature NAME: SIGNATURE`` lines, then a header line of column
  names, then tab-separated rows; numbers in Python's shortest round-trip form,
  ``nan`` for a missing value; tabs, newlines and backslashes inside text cells
  are escaped as ``\\t``, ``\\n``, ``\\\\``; a text cell a spreadsheet would run as a
  formula (``=HYPERLINK(...)``) gets a leading ``'``, the rule of the CSV exports
  (``io/export.py``, OWASP "CSV Injection").
* JSON Lines: a first record ``{"signatures": {...}, "columns": [...]}``, then
  one object per row (``null`` for a missing value).

:func:`run_sentence_rows` makes the rows of an evaluation run
(``evaltrans batch``, ``Run.write_sentences``); ``evaltrans score`` builds its
own from the scorer. :func:`read_sentences` reads either format back.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io.export import formula_safe
from evaltrans_qt.io.limits import parse_number

FORMATS = {".tsv": "tsv", ".jsonl": "jsonl"}
#: Columns that name a row rather than hold a value.
KEY_COLUMNS = ("system", "doc", "segment")


def sentences_format(path: str | os.PathLike[str]) -> str:
    """``tsv`` or ``jsonl`` from the file name; :class:`OptionError` for anything else."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise OptionError(f"--sentences {path}: the file name must end in .tsv or .jsonl")
    return fmt


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace(
        "\r", "\\r")


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(text[i + 1],
                                                                        text[i:i + 2]))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _cell(v: Any) -> str:
    if v is None:
        return "nan"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("nan" if math.isnan(v) else repr(v))
    if isinstance(v, (int, bool)):
        return str(int(v))
    if hasattr(v, "item"):                       # numpy scalar
        return _cell(v.item())
    return _escape(str(formula_safe(str(v))))    # the CSV exports' rule (io/export.py)


def _json_value(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def sentences_bytes(fmt: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
                    signatures: Mapping[str, str]) -> bytes:
    """The file's bytes (UTF-8) in format ``fmt`` (``tsv`` or ``jsonl``)."""
    for name in signatures:
        if "\n" in name or "\n" in signatures[name]:
            raise OptionError(f"signature of '{name}' contains a line break")
    if fmt == "tsv":
        lines = [f"# signature {name}: {sig}" for name, sig in signatures.items()]
        lines.append("\t".join(_escape(str(formula_safe(c))) for c in columns))
        lines.extend("\t".join(_cell(row.get(c)) for c in columns) for row in rows)
        return ("\n".join(lines) + "\n").encode("utf-8")
    if fmt == "jsonl":
        out = [json.dumps({"signatures": dict(signatures), "columns": list(columns)},
                          ensure_ascii=False)]
        out.extend(json.dumps({c: _json_value(row.get(c)) for c in columns}, ensure_ascii=False,
                              allow_nan=False) for row in rows)
        return ("\n".join(out) + "\n").encode("utf-8")
    raise OptionError(f"unknown per-sentence format '{fmt}' (known: tsv, jsonl)")


def write_sentences(path: str | os.PathLike[str], rows: Sequence[Mapping[str, Any]],
                    columns: Sequence[str], signatures: Mapping[str, str]) -> None:
    """Write rows atomically as TSV or JSON Lines (by the file name's suffix)."""
    from evaltrans_qt.io.atomic import atomic_write_bytes
    atomic_write_bytes(path, sentences_bytes(sentences_format(path), rows, columns, signatures))


def read_sentences(path: str | os.PathLike[str]
                   ) -> tuple[dict[str, str], list[str], list[dict[str, Any]]]:
    """(signatures, columns, rows) of a file written by :func:`write_sentences`; numbers
    come back as floats (TSV: every cell that parses as one, except key columns)."""
    from evaltrans_qt.io.limits import load_json
    from evaltrans_qt.io.plaintext import read_text
    fmt = sentences_format(path)
    lines = read_text(path).splitlines()
    if fmt == "jsonl":
        records = []
        for no, line in enumerate(lines, 1):
            if not line:
                continue
            try:
                records.append(load_json(line))
            except ValueError as exc:
                raise InputFormatError(f"not readable JSON: {exc}", path, no) from None
            if not isinstance(records[-1], dict):
                raise InputFormatError("a record is a JSON object", path, no)
        head = records[0] if records else {}
        if not isinstance(head.get("signatures"), dict) or not isinstance(head.get("columns"),
                                                                          list):
            raise InputFormatError("the first record holds no signatures and columns", path, 1)
        return dict(head["signatures"]), list(head["columns"]), records[1:]
    sigs: dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i].startswith("# signature "):
        name, _, sig = lines[i][len("# signature "):].partition(": ")
        sigs[name] = sig
        i += 1
    if i >= len(lines):
        raise InputFormatError("no header line of column names", path, i + 1)
    columns = [_unescape(c) for c in lines[i].split("\t")]
    rows = []
    for no, line in enumerate(lines[i + 1:], i + 2):
        cells = line.split("\t")
        if len(cells) != len(columns):
            raise InputFormatError(f"{len(cells)} cells, the header has {len(columns)}", path, no)
        row: dict[str, Any] = {}
        for c, v in zip(columns, cells):
            if c in KEY_COLUMNS:
                row[c] = _unescape(v)
                continue
            try:
                row[c] = parse_number(v) if v not in ("nan", "inf", "-inf") else float(v)
            except ValueError:
                row[c] = _unescape(v)
        rows.append(row)
    return sigs, columns, rows


def segment_id(db, index: int) -> str:
    """The id of source ``index``: its ``seg`` attribute, else its 1-based position."""
    if db is not None and 0 <= index < len(db.sources):
        seg = db.sources[index].seg
        if seg:
            return str(seg)
    return str(index + 1)


def run_sentence_rows(run, db=None) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, rows) of a :class:`~evaltrans_qt.engine.run.results.RunResult`: ``system``,
    ``doc`` (only when a source has one), ``segment`` (:func:`segment_id`), then every
    column of every measure (``MeasureScore.columns`` of each sentence's statistics, the
    engine's units: error rates and BLEU as fractions)."""
    docs = db is not None and any(src.doc for src in db.sources)
    keys = ["system"] + (["doc"] if docs else []) + ["segment"]
    value_cols: list[str] = []
    rows: list[dict[str, Any]] = []
    for system, sr in run.systems.items():
        per_measure = {}
        for name in run.measures:
            stats = sr.stats.get(name)
            if stats is None or len(stats) != len(sr.segments):
                continue
            m = run.measure(name)
            per_measure[name] = [m.score(row).columns for row in stats]
            for c in (per_measure[name][0] if per_measure[name] else {}):
                if c not in value_cols:
                    value_cols.append(c)
        for r, src in enumerate(sr.segments):
            row: dict[str, Any] = {"system": system or "", "segment": segment_id(db, src)}
            if docs:
                row["doc"] = db.sources[src].doc or ""
            for cols in per_measure.values():
                row.update({k: float(v) for k, v in cols[r].items()})
            rows.append(row)
    return keys + value_cols, rows


def run_sentences_output(path: str | os.PathLike[str], run, db=None) -> tuple[Path, bytes]:
    """(path, bytes) of a run's per-sentence file, for a caller that writes all its outputs
    together once everything succeeded (``evaltrans batch``)."""
    columns, rows = run_sentence_rows(run, db)
    return Path(path), sentences_bytes(sentences_format(path), rows, columns, run.signatures())


__all__ = ["run_sentences_output", "sentences_format", "sentences_bytes", "write_sentences", "read_sentences",
           "run_sentence_rows", "segment_id", "FORMATS"]
