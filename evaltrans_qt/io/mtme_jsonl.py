"""mt-metrics-eval's JSON Lines inputs (its ``data.py``: ``_ReadSourceFile``,
``_ReadReferenceFile``, ``_ReadSystemOutputFile``, ``_ReadMetadataFile``):

* ``sources/LP.jsonl`` -- one object a line, the text in ``"source"`` (read only when
  there is no ``sources/LP.txt``);
* ``references/LP.NAME.jsonl`` -- the text in ``"target"``;
* ``system-outputs/LP/NAME.jsonl`` -- the text in ``"hypothesis"``;
* ``metadata/LP/NAME.jsonl`` -- per-translation metadata of system NAME, one object a
  line parallel to its output (any keys, e.g. a domain or a prompt).

A ``null`` text (no translation) reads as the empty text. Metadata is kept on each
translation as the target attribute ``METADATA_ATTR`` (the line's object as compact
JSON; engine/metaeval/metadata.py, which reads it and filters by it) and written back
by the export.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaltrans_qt.engine.metaeval.metadata import METADATA_ATTR, metadata_of
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.plaintext import PathLike, read_import_lines

#: The JSON field holding the text, by directory.
TEXT_FIELDS = {"sources": "source", "references": "target", "system-outputs": "hypothesis"}


def read_objects(path: PathLike) -> list[dict[str, Any]]:
    """The JSON objects of a JSON Lines file, one a line; a bad line is an
    :class:`InputFormatError` naming the file and the line."""
    out = []
    for no, line in enumerate(read_import_lines(path), 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFormatError(f"not JSON: {exc.msg}", path, no) from None
        if not isinstance(obj, dict):
            raise InputFormatError("expected a JSON object on each line", path, no)
        out.append(obj)
    return out


def read_texts(path: PathLike, field: str) -> list[str]:
    """The ``field`` of every line of a JSON Lines file (``null`` = empty text)."""
    out = []
    for no, obj in enumerate(read_objects(path), 1):
        if field not in obj:
            raise InputFormatError(f"no \"{field}\" field", path, no)
        v = obj[field]
        if v is not None and not isinstance(v, str):
            raise InputFormatError(f"\"{field}\" is not a string", path, no)
        out.append(v or "")
    return out


def read_lines(path: Path, field: str) -> list[str]:
    """A text file's lines or, for ``.jsonl``, the ``field`` of each line."""
    return read_texts(path, field) if path.suffix == ".jsonl" else read_import_lines(path)


def text_files(folder: Path, pattern: str) -> list[Path]:
    """``pattern`` + ``.txt`` and ``.jsonl`` files of ``folder``, sorted; a name with both
    keeps the text file (as mt-metrics-eval reads sources)."""
    found: dict[str, Path] = {}
    for ext in (".jsonl", ".txt"):
        for f in folder.glob(pattern + ext):
            found[f.name[:-len(ext)]] = f
    return [found[k] for k in sorted(found)]


def read_metadata(root: Path, lp: str, n: int, known: set[str]) -> dict[str, list[str]]:
    """{system: n compact JSON objects} of ``metadata/LP/*.jsonl``; each file must have one
    line per source segment and name a known system."""
    out: dict[str, list[str]] = {}
    for f in sorted((root / "metadata" / lp).glob("*.jsonl")):
        name = f.name[:-len(".jsonl")]
        if name not in known:
            raise InputFormatError(f"metadata of unknown system '{name}' (no system output "
                                   "or reference of that name)", f)
        objs = read_objects(f)
        if len(objs) != n:
            raise InputFormatError(f"{len(objs)} metadata lines, the source has {n} segments",
                                   f, len(objs) or None)
        out[name] = [json.dumps(o, ensure_ascii=False, separators=(",", ":")) for o in objs]
    return out


__all__ = ["METADATA_ATTR", "TEXT_FIELDS", "read_objects", "read_texts", "read_lines",
           "text_files", "read_metadata", "metadata_of"]
