"""WMT folder import: ``*.src.*``, ``*.ref.X.*``, ``*.hyp.SYSTEM.*``, plus
segment scores from a TSV ``system<TAB>seg_id<TAB>score``.

* References get system ids ``ref-X`` (e.g. ``ref-A``), as WMT score files
  name them; they are marked with the ``isReference`` class (thesis Appendix A.2).
* Every line is its own source, ``seg`` = its 1-based line number (positional
  identity): a repeated source sentence keeps each line's references.
* Systems are taken in sorted file-name order, references before systems.
* Scores: ``seg_id`` is the 1-based line number; an empty score means
  "not rated" (no score stored); ``system`` may be a system or a reference id.
  They become human scores of one named class. Such scores are real-valued
  (MQM penalties, DA 0-100), so the class is **continuous** with
  ``minimum``/``maximum`` = the given range or else the observed range widened
  to whole numbers (MQM on WMT21: [-25, 0]); ``perfect``/``green`` = maximum,
  ``gray``/``firstvalid`` = minimum. The class is inserted before ``isReference``,
  which stays last. A header line (non-numeric ``seg_id``) is skipped. Scores are
  plain decimal numbers (``io/limits.py``: no ``1_0``, ``٣``, spaces or ``inf``);
  a given range must be finite.
* A hypothesis file whose system id is a reference id (``*.hyp.ref-A.*`` beside
  ``*.ref.A.*``) or two files with one id are refused: TSV scores name systems and
  references alike and could not be told apart.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from evaltrans_qt.engine.data.database import Database, Levels, Score, Target, check_id
from evaltrans_qt.engine.data.schemes import continuous
from evaltrans_qt.errors import InputFormatError, ScoreError
from evaltrans_qt.io.limits import parse_int, parse_number
from evaltrans_qt.io.plaintext import (
    PathLike,
    add_aligned,
    add_line_targets,
    check_class_name,
    check_line_targets,
    check_same_length,
    check_segments,
    read_import_lines,
    read_text,
    split_lines,
)

_SRC = re.compile(r"^(?P<prefix>.+?)\.src\.(?P<lang>[^.]+)$")
_REF = re.compile(r"^(?P<prefix>.+?)\.ref\.(?P<id>.+)\.(?P<lang>[^.]+)$")
_DIGITS = re.compile("[0-9]+")
_HYP = re.compile(r"^(?P<prefix>.+?)\.hyp\.(?P<sys>.+)\.(?P<lang>[^.]+)$")


def scan_folder(folder: PathLike) -> tuple[Path, list[tuple[str, Path]], list[tuple[str, Path]]]:
    """(source file, [(ref id, file)], [(system, file)]) of a WMT folder."""
    d = Path(folder)
    if not d.is_dir():
        raise InputFormatError("not a folder (expected a WMT folder with *.src.*, *.ref.*, *.hyp.*)", d)
    srcs, refs, hyps = [], [], []
    for f in sorted(d.iterdir(), key=lambda p: p.name):
        if not f.is_file():
            continue
        if m := _SRC.match(f.name):
            srcs.append(f)
        elif m := _REF.match(f.name):
            refs.append((f"ref-{m['id']}", f))
        elif m := _HYP.match(f.name):
            hyps.append((m["sys"], f))
    if not srcs:
        raise InputFormatError("no source file (*.src.<lang>) in this folder", d)
    if len(srcs) > 1:
        raise InputFormatError("several source files: " + ", ".join(f.name for f in srcs)
                               + "; put one test set per folder", d)
    if not refs and not hyps:
        raise InputFormatError("no *.ref.X.* or *.hyp.SYSTEM.* files in this folder", d)
    first: dict[str, Path] = {}
    for name, f in refs + hyps:
        check_id(name, "system id (from the file name)", f)
        if name in first:
            raise InputFormatError(
                f"{f.name} and {first[name].name} both give the id '{name}'; scores name "
                f"systems and references by id, so each id must be one file (rename the "
                f"hypothesis file)", d)
        first[name] = f
    return srcs[0], refs, hyps


def read_scores(path: PathLike, n_lines: int, known: set[str]) -> dict[tuple[str, int], tuple[float, int]]:
    """Parse ``system<TAB>seg_id<TAB>score`` → {(system, seg): (score, file line)}.

    An empty score means "not rated" and is left out.
    """
    text = read_text(path)
    out: dict[tuple[str, int], tuple[float, int]] = {}
    lines = split_lines(text)
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            raise InputFormatError(f"expected 3 tab-separated columns (system, seg_id, score), "
                                   f"found {len(cols)}", path, no)
        system, seg_text, score_text = cols[0].strip(), cols[1].strip(), cols[2]
        if not _DIGITS.fullmatch(seg_text):
            if no == 1 or all(not x.strip() for x in lines[:no - 1]):
                continue  # header line
            raise InputFormatError(f"seg_id must be a line number, not {seg_text!r}", path, no, None)
        if system not in known:
            raise InputFormatError(f"unknown system '{system}' (not a *.hyp.* system or ref-X)", path, no)
        try:
            seg = parse_int(seg_text, "seg_id", 1, n_lines)
        except ValueError as exc:
            raise InputFormatError(str(exc), path, no) from None
        if not score_text.strip():
            continue
        try:
            value = parse_number(score_text, "score (a number, or empty for 'not rated')")
        except ValueError as exc:
            raise InputFormatError(str(exc), path, no) from None
        key = (system, seg)
        if key in out:
            raise InputFormatError(f"second score for {system} segment {seg} "
                                   f"(first at line {out[key][1]})", path, no)
        out[key] = (value, no)
    return out


def score_levels(name: str, values, minimum: float | None = None,
                 maximum: float | None = None) -> Levels:
    """A continuous class for real-valued segment scores (see module doc): the given range
    (which must be finite) or the observed one, a single point allowed."""
    for what, v in (("minimum", minimum), ("maximum", maximum)):
        if v is not None and not math.isfinite(v):
            raise InputFormatError(f"the {what} score of class '{name}' must be a finite "
                                   f"number, not {v!r}")
    return continuous(name, minimum, maximum, values=values, allow_point=True)


def import_wmt(folder: PathLike, scores: PathLike | None = None, score_class: str = "mqm",
               db: Database | None = None, *, judge: str | None = None,
               minimum: float | None = None, maximum: float | None = None,
               encoding: str = "utf-8") -> Database:
    """Import a WMT folder (and optionally a segment-score TSV) into ``db``.

    Everything is read and checked before ``db`` is changed.
    """
    src_file, ref_files, hyp_files = scan_folder(folder)
    src_lines = read_import_lines(src_file, encoding)
    refs = []
    for rid, f in ref_files:
        lines = read_import_lines(f, encoding)
        check_same_length(f, lines, len(src_lines), f"source file {src_file.name}")
        refs.append((rid, f, lines))
    hyps = []
    for name, f in hyp_files:
        lines = read_import_lines(f, encoding)
        check_same_length(f, lines, len(src_lines), f"source file {src_file.name}")
        hyps.append((name, f, lines))
    check_segments(len(src_lines) * (1 + len(refs) + len(hyps)), folder)
    if scores is not None:
        check_class_name(db, score_class, scores)
    if db is not None:
        keys = [(None, str(i + 1)) for i in range(len(src_lines))]
        for rid, f, lines in refs:
            check_line_targets(db, keys, lines, rid, True, f)
        for name, f, lines in hyps:
            check_line_targets(db, keys, lines, name, False, f)
    values: dict[tuple[str, int], tuple[float, int]] = {}
    lv: Levels | None = None
    if scores is not None:
        known = {r for r, _, _ in refs} | {h for h, _, _ in hyps}
        values = read_scores(scores, len(src_lines), known)
        lv = db.level(score_class) if db is not None and db.has_class(score_class) \
            else score_levels(score_class, (v for v, _ in values.values()), minimum, maximum)
        for (system, seg), (v, line) in values.items():
            try:
                lv.validate(v)
            except ScoreError as exc:
                raise ScoreError(f"{system} segment {seg}: {exc.problem}", scores, line) from None

    db = db if db is not None else Database()
    rows = add_aligned(db, src_lines, path=src_file)
    targets: dict[str, list[Target]] = {}
    for rid, f, lines in refs:
        targets[rid] = add_line_targets(db, rows, lines, rid, reference=True, path=f)
    for name, f, lines in hyps:
        targets[name] = add_line_targets(db, rows, lines, name, path=f)
    if lv is not None:
        if not db.has_class(lv.name):
            db.add_class(lv)
        for (system, seg), (v, _) in values.items():
            t = targets[system][seg - 1]
            t.scores = [s for s in t.scores if not (s.cls == lv.name and s.judge == judge)]
            t.scores.append(Score(lv.name, v, judge))
    return db

