"""Plain-text import: one sentence per line (EvalTransBatchEval's
``--source``/``--target`` files, thesis Appendix A.1).

A source file, one or more reference files and one file per system, all
line-aligned. References get the ids ``ref-1``, ``ref-2`` … (or the names given)
and are marked with the ``isReference`` class (thesis Appendix A.2). Every line is its own
source, identified by its position: ``seg`` = the 1-based line number,
so a test set that repeats a sentence keeps one source per line, as sacreBLEU,
jiwer and Moses pair them.

Also holds the line-reading helpers shared by the WMT and Aachen readers.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping, Sequence, Sized
from pathlib import Path
from typing import BinaryIO

from evaltrans_qt.engine.data.database import (
    REFERENCE_CLASS,
    Database,
    Source,
    Target,
    describe_key,
)
from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io.limits import (
    MAX_TEXT_CHARS,
    max_input_bytes,
    max_segments,
    segments_message,
    too_big_message,
    too_long_message,
)

PathLike = str | os.PathLike[str]
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def read_bounded(fh: BinaryIO, path: PathLike, expected: str) -> bytes:
    """All bytes of the open file ``fh``: only a regular file, at most
    :func:`~evaltrans_qt.io.limits.max_input_bytes` of it (``io/limits.py``), else
    :class:`InputFormatError` -- a device such as ``/dev/zero`` or a pipe is refused
    before anything is read."""
    st = os.fstat(fh.fileno())
    if stat.S_ISDIR(st.st_mode):
        raise InputFormatError(f"is a directory, expected {expected}", path)
    if not stat.S_ISREG(st.st_mode):
        raise InputFormatError(f"is not a regular file (a device, pipe or socket), expected "
                               f"{expected}", path)
    limit = max_input_bytes()
    if st.st_size > limit:
        raise InputFormatError(too_big_message(st.st_size, limit), path)
    # read(n) allocates n bytes up front: ask for the file's size (+1 to see it grew)
    parts = [fh.read(st.st_size + 1)]
    total = len(parts[0])
    while total > st.st_size:                  # grew while we read: go on, bounded
        chunk = fh.read(2**20)
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        if total > limit:
            raise InputFormatError(too_big_message(None, limit), path)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_input_bytes(path: PathLike, expected: str = "a text file",
                     allow_empty: bool = False) -> bytes:
    """A whole input file; clear errors for a missing, unreadable, empty, endless (a
    device) or too large file (:func:`read_bounded`; ``expected`` names what a directory
    should have been)."""
    try:
        with open(path, "rb") as fh:
            data = read_bounded(fh, path, expected)
    except FileNotFoundError:
        raise InputFormatError("file not found", path) from None
    except IsADirectoryError:
        raise InputFormatError(f"is a directory, expected {expected}", path) from None
    except OSError as exc:
        raise InputFormatError(f"cannot read: {exc.strerror or exc}", path) from None
    if not allow_empty and not data.strip():
        raise InputFormatError("empty file", path)
    return data


def read_text(path: PathLike, encoding: str = "utf-8") -> str:
    """Whole file as text; clear errors for missing, empty or wrongly encoded files."""
    p = Path(path)
    data = read_input_bytes(p)
    if encoding.lower().replace("-", "") in ("utf8", "utf8sig") and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputFormatError(f"not valid {encoding} (byte 0x{data[exc.start]:02x}); "
                               f"give the right encoding", p, line, col) from None
    except LookupError:
        raise InputFormatError(f"unknown encoding '{encoding}'", p) from None
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        col = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise InputFormatError(f"control character U+{ord(bad.group()):04X} is not allowed "
                               f"in a sentence", p, line, col)
    return text


def read_lines(path: PathLike, encoding: str = "utf-8") -> list[str]:
    """Lines of a one-sentence-per-line file (``\\n`` or ``\\r\\n``; final newline optional)."""
    text = read_text(path, encoding)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` split at ``\\r\\n``, ``\\r`` or ``\\n`` (files from old Macs end
    lines with CR alone; Python's universal newlines); a final line end is optional."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def check_line_lengths(path: PathLike, lines: Sequence[str], first_line: int = 1) -> None:
    """:class:`InputFormatError` naming the first line longer than ``MAX_TEXT_CHARS``
    (``io/limits.py``: a database could not hold it)."""
    if not lines or max(map(len, lines)) <= MAX_TEXT_CHARS:
        return
    i = next(i for i, ln in enumerate(lines) if len(ln) > MAX_TEXT_CHARS)
    raise InputFormatError(too_long_message(len(lines[i])), path, first_line + i)


def read_import_lines(path: PathLike, encoding: str = "utf-8") -> list[str]:
    """Lines of a file imported into a database: any line end (:func:`split_lines`) and
    at most ``MAX_TEXT_CHARS`` characters a line (clear error naming the line)."""
    text = read_text(path, encoding)
    # counted before splitting (a list of every line is the memory the limit bounds)
    n = text.count("\n") + text.count("\r") - text.count("\r\n") \
        + (0 if text.endswith(("\n", "\r")) else 1)
    problem = segments_message(n, "the file") if n > max_segments() else None
    if problem is not None:
        raise InputFormatError(problem, path)
    lines = split_lines(text)
    check_line_lengths(path, lines)
    return lines


def check_segments(count: int, path: PathLike | None = None) -> None:
    """:class:`InputFormatError` when one import would add more than
    :func:`~evaltrans_qt.io.limits.max_segments` segments (``io/limits.py``)."""
    problem = segments_message(count)
    if problem is not None:
        raise InputFormatError(problem, path)


def check_class_name(db: Database | None, name: str, path: PathLike | None = None,
                     line: int | None = None) -> None:
    """Refuse importing human scores into a class that decides references: ``isReference``
    or the database's last class (thesis Appendix A.2: a target whose value in the last
    class reaches its ``perfect`` level is a reference), which would silently turn
    systems into references."""
    reserved = {REFERENCE_CLASS}
    if db is not None and db.reference_levels is not None:
        reserved.add(db.reference_levels.name)
    if name in reserved:
        raise InputFormatError(f"'{name}' is the class that marks references (thesis Appendix "
                               f"A.2); human scores cannot be imported under that name "
                               f"(rename the file or give another class)", path, line)


def check_same_length(path: PathLike, lines: Sized, expected: int, what: str) -> None:
    """Raise naming ``path`` and the first line that has no partner."""
    if len(lines) != expected:
        raise InputFormatError(
            f"has {len(lines)} lines but the {what} has {expected}; files must be line-aligned",
            path, min(len(lines), expected) + 1)


def merged_source(src: Source) -> bool:
    """True if ``src`` holds several lines merged by the text rule (thesis Appendix A.2): a source
    without ``seg`` that occurred more than once (old EvalTrans files, Aachen text), or
    one whose targets carry other ``seg`` ids than it (written by imports that merged
    repeated lines before sources were positional)."""
    if src.key is None:
        return src.occurrences > 1
    return any(t.seg is not None and (t.seg, t.doc or src.doc) != (src.seg, src.doc)
               for t in src.targets)


def repeated_source_warnings(db: Database, limit: int = 3) -> list[str]:
    """Warnings for sources merged by the text rule whose reference sets give them
    *different* references -- a source sentence that occurs on several lines with a
    different reference each time. Identical sources without position are one source
    (thesis Appendix A.2), so every candidate of that sentence is compared with all of its
    references, whereas tools that pair references with candidates by line (sacreBLEU)
    compare each with its own line's. Positional sources (every import with line or
    segment ids) are never merged and never warned about.
    Empty when nothing is affected; at most one summary line and ``limit`` examples."""
    is_ref = db.reference_test()
    hits: list[tuple[Source, str, int]] = []
    for src in db.sources:
        if not merged_source(src):
            continue
        texts: dict[str | None, set[str]] = {}
        for t in src.targets:
            if is_ref(t):
                texts.setdefault(t.system, set()).add(t.text)
        for system, seen in texts.items():
            if len(seen) > 1:
                hits.append((src, system or "(no id)", len(seen)))
                break
    if not hits:
        return []
    out = [f"{len(hits)} source sentence(s) without segment ids occur more than once with "
           "different references; identical sources are one source (thesis Appendix A.2), so their "
           "candidates are compared with the references of every occurrence (sacreBLEU pairs "
           "by line; a database with doc/seg ids keeps one source per line)"]
    for src, system, n in hits[:limit]:
        text = src.text if len(src.text) <= 60 else src.text[:57] + "..."
        where = f" (first line {src.seg})" if src.seg else ""
        out.append(f"'{text}'{where}: {n} different references in {system}")
    return out


def add_aligned(db: Database, source_lines: Sequence[str], doc: str | None = None,
                seg_ids: Sequence[str] | None = None, path: PathLike | None = None
                ) -> list[Source]:
    """Add one positional source per line (``seg`` = ``seg_ids[i]``, default the 1-based
    line number); returns the sources in line order. A line whose (doc, seg) already holds
    another sentence in ``db`` (e.g. ``--append`` of a different test set) raises
    :class:`InputFormatError` naming ``path`` and the line, before ``db`` is changed."""
    segs = list(seg_ids) if seg_ids is not None else [str(i + 1) for i in range(len(source_lines))]
    for i, (text, seg) in enumerate(zip(source_lines, segs)):
        old = db.source_by_key(doc, seg)
        if old is not None and old.text != text:
            where = f"document {doc} segment {seg}" if doc else f"segment {seg}"
            raise InputFormatError(
                f"{where} is {old.text[:50]!r} in the database, not {text[:50]!r}: the "
                f"database holds another test set at these positions", path,
                i + 1 if seg_ids is None else None)
    return [db.add_source(text, doc, seg) for text, seg in zip(source_lines, segs)]


def existing_target(db: Database, source: Source, text: str, system: str,
                    reference: bool, path: PathLike | None, line: int | None) -> Target | None:
    """The target of ``system`` that ``source`` already has (an ``--append`` of data the
    database holds: merged by identity, so importing twice changes nothing), None when it
    has none. :class:`InputFormatError` naming ``path`` and ``line`` when that target has
    another text, or is a reference where the file gives a candidate (or the reverse)."""
    for t in source.targets:
        if (t.system or "") != system:
            continue
        where = describe_key(source.key) if source.key is not None else repr(source.text[:50])
        if t.text != text:
            raise InputFormatError(
                f"{system} already has another translation of {where} in the database "
                f"({t.text[:50]!r}, not {text[:50]!r}); an append merges by segment and "
                f"system and never replaces a translation", path, line)
        if db.is_reference(t) != reference:
            kind = "a reference" if reference else "a candidate"
            raise InputFormatError(f"{system} is {kind} here but not in the database "
                                   f"({where})", path, line)
        return t
    return None


def check_line_targets(db: Database, keys: Sequence[tuple[str | None, str]],
                       lines: Sequence[str], system: str, reference: bool = False,
                       path: PathLike | None = None) -> None:
    """Check, before ``db`` changes, that the file's line ``i`` (of the source at
    ``keys[i]`` = (doc, seg)) can be merged: see :func:`existing_target`."""
    for i, (key, text) in enumerate(zip(keys, lines)):
        src = db.source_by_key(*key)
        if src is not None:
            existing_target(db, src, text, system, reference, path, i + 1)


def add_line_targets(db: Database, sources: Sequence[Source], lines: Sequence[str],
                     system: str, reference: bool = False,
                     path: PathLike | None = None) -> list[Target]:
    """Add ``lines[i]`` as a target of ``sources[i]``; returns the targets in line order.
    A source that already has this system's target with the same text keeps it (appends
    merge by identity: (doc, seg) and system, never by position); another text is an
    :class:`InputFormatError` naming ``path`` and the line, raised before any target is
    added."""
    found = [existing_target(db, src, text, system, reference, path, i + 1)
             for i, (src, text) in enumerate(zip(sources, lines))]
    out = []
    lv = db.marking_class() if reference else None
    for src, text, old in zip(sources, lines, found):
        if old is not None:
            out.append(old)
            continue
        t = db.add_target(src, text, system)
        if lv is not None:
            db.mark_reference(t, lv)
        out.append(t)
    return out


def parse_named(spec: str) -> tuple[str, str]:
    """``NAME=FILE`` → (name, file)."""
    name, sep, file = spec.partition("=")
    if not sep or not name or not file:
        raise InputFormatError(f"expected NAME=FILE, got {spec!r}")
    return name, file


def import_text(source: PathLike, references: Sequence[PathLike | tuple[str, PathLike]] = (),
                systems: Sequence[tuple[str, PathLike]] = (), db: Database | None = None,
                encoding: str = "utf-8") -> Database:
    """Import line-aligned plain text files into ``db`` (a new database if None).

    ``references``: paths (named ``ref-1``, ``ref-2`` …) or ``(name, path)``;
    ``systems``: ``(name, path)``. All files are read and checked before ``db``
    is changed, so a bad file leaves ``db`` untouched.
    """
    src_lines = read_import_lines(source, encoding)
    refs: list[tuple[str, PathLike, list[str]]] = []
    for i, r in enumerate(references):
        name, path = r if isinstance(r, tuple) else (f"ref-{i + 1}", r)
        lines = read_import_lines(path, encoding)
        check_same_length(path, lines, len(src_lines), "source file")
        refs.append((name, path, lines))
    hyps: list[tuple[str, PathLike, list[str]]] = []
    seen = {n for n, _, _ in refs}
    for name, path in systems:
        if name in seen:
            raise InputFormatError(f"system name '{name}' is used twice", path)
        seen.add(name)
        lines = read_import_lines(path, encoding)
        check_same_length(path, lines, len(src_lines), "source file")
        hyps.append((name, path, lines))
    check_segments(len(src_lines) * (1 + len(refs) + len(hyps)), source)
    db = db if db is not None else Database()
    keys = [(None, str(i + 1)) for i in range(len(src_lines))]
    for name, path, lines in refs:
        check_line_targets(db, keys, lines, name, True, path)
    for name, path, lines in hyps:
        check_line_targets(db, keys, lines, name, False, path)
    rows = add_aligned(db, src_lines, path=source)
    for name, path, lines in refs:
        add_line_targets(db, rows, lines, name, reference=True, path=path)
    for name, path, lines in hyps:
        add_line_targets(db, rows, lines, name, path=path)
    return db


def database_from_files(source: PathLike, references: Sequence[PathLike],
                        candidates: Mapping[str, PathLike], encoding: str = "utf-8") -> Database:
    """A new database from line-aligned plain text files, as EvalTransBatchEval's
    ``--source``/``--target`` (thesis Appendix A.1); :func:`import_text`
    with at least one reference.

    References are named ``ref-1``, ``ref-2``...; candidates by the mapping's keys.
    Sources are identified by their line (``seg``): a repeated source
    line keeps its own references, as in sacreBLEU, jiwer and Moses. Raises
    :class:`InputFormatError` naming the file and line for unreadable or misaligned
    files, :class:`OptionError` without references.
    """
    if not references:
        raise OptionError("at least one reference file is needed")
    return import_text(source, list(references), list(candidates.items()), encoding=encoding)
