"""Aachen evaluation database text format, import and export::

    SOURCE <sentence>
    TARGET <score> <sentence>
    TARGET <score> <sentence>
    SOURCE …

Mapping (our decision; the format has one score per target and no separate
reference marker):

* The score is the old EvalTrans/Aachen scale 0..10 where 10 is a perfect
  translation, and perfect translations are the references (the rule of
  thesis Appendix A.2 with one class). Import creates one class ``score`` (count 11,
  firstvalid 0, gray 5, green 10, perfect 10) as the *last* class, so targets
  scored 10 are references. Non-integer scores make the class continuous on
  [0, 10]. ``-`` means "not scored".
* Export writes one class (default: the first class of the database): a
  reference is written as ``10``, a candidate as its mean score over judges
  (``-`` if unscored). Candidate values must be below 10, otherwise they would
  read back as references. Importing an exported file gives back the same file.
* The format has no segment positions, so imported sources are identified by
  their text (thesis Appendix A.2): a SOURCE sentence that occurs twice is one source with
  the targets of both (``plaintext.repeated_source_warnings`` reports it when
  their references differ). Export writes one SOURCE block per source.
* Lines end with ``\\n``, ``\\r\\n`` or ``\\r`` alone (old Mac files); keyword and score
  are followed by one space or tab; blank lines are ignored. Scores are plain decimal
  numbers (``io/limits.py``). System ids are not part of the format.
"""

from __future__ import annotations

import os

from evaltrans_qt.engine.data.database import Database, Levels, Score, Source
from evaltrans_qt.errors import InputFormatError, ScoreError
from evaltrans_qt.io.atomic import atomic_write_bytes
from evaltrans_qt.io.limits import parse_number
from evaltrans_qt.io.plaintext import PathLike, read_import_lines
from evaltrans_qt.io.xmlsafe import format_number

SCORE_CLASS = "score"
PERFECT = 10.0
UNSCORED = "-"


def aachen_levels(continuous: bool = False) -> Levels:
    """The single class of an Aachen file (see module doc)."""
    return Levels(SCORE_CLASS, count=11, gray=5, green=10, perfect=PERFECT, firstvalid=0,
                  continuous=continuous, minimum=0.0 if continuous else None,
                  maximum=PERFECT if continuous else None)


def _split(line: str) -> tuple[str, str]:
    for i, ch in enumerate(line):
        if ch in " \t":
            return line[:i], line[i + 1:]
    return line, ""


def import_aachen(path: PathLike, encoding: str = "utf-8") -> Database:
    """Read an Aachen text file into a new database (one class ``score``, see module doc)."""
    lines = read_import_lines(path, encoding)
    rows: list[tuple[str, list[tuple[float | None, str]]]] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        key, rest = _split(line)
        if key == "SOURCE":
            rows.append((rest, []))
        elif key == "TARGET":
            if not rows:
                raise InputFormatError("TARGET line before any SOURCE line", path, no)
            score_text, sentence = _split(rest)
            if score_text == UNSCORED:
                value = None
            else:
                try:
                    value = parse_number(score_text)
                except ValueError:
                    raise InputFormatError(f"expected 'TARGET <score> <sentence>'; {score_text!r} is "
                                           f"not a score (a number 0..10 or '-')", path, no) from None
                if not 0 <= value <= PERFECT:
                    raise ScoreError(f"score {score_text} is outside 0..10", path, no)
            rows[-1][1].append((value, sentence))
        else:
            raise InputFormatError(f"line must start with SOURCE or TARGET, not {key[:20]!r}", path, no)
    if not rows:
        raise InputFormatError("no SOURCE lines", path)
    continuous = any(v is not None and v != int(v) for _, ts in rows for v, _ in ts)
    lv = aachen_levels(continuous)
    db = Database([lv])
    for src_text, targets in rows:
        src = db.add_source(src_text)
        for value, sentence in targets:
            t = db.add_target(src, sentence)
            if value is not None:
                t.scores.append(Score(SCORE_CLASS, value))
    return db


def dumps_aachen(db: Database, score_class: str | None = None) -> str:
    """Aachen text of ``db`` (see module doc for the mapping)."""
    if score_class is None:
        if not db.levels:
            score_class = None
        else:
            score_class = db.levels[0].name
    elif not db.has_class(score_class):
        raise ScoreError(f"no score class '{score_class}' in this database")
    out: list[str] = []
    for src in db.sources:
        _check_line(src.text, "source")
        out.append(f"SOURCE {src.text}\n")
        out.extend(_target_lines(db, src, score_class))
    return "".join(out)


def _check_line(text: str, what: str) -> None:
    if "\n" in text or "\r" in text:
        raise InputFormatError(f"a {what} sentence contains a line break and cannot be written "
                               f"in the Aachen format: {text[:60]!r}")


def _target_lines(db: Database, src: Source, cls: str | None) -> list[str]:
    lines = []
    for t in src.targets:
        _check_line(t.text, "target")
        if db.is_reference(t):
            score = format_number(PERFECT)
        else:
            v = t.value(cls) if cls is not None else None
            if v is not None and v >= PERFECT:
                raise ScoreError(f"candidate score {v:g} of class '{cls}' would read back as a "
                                 f"reference (Aachen scale 0..10, 10 = reference); "
                                 f"export another class")
            if v is not None and v < 0:
                raise ScoreError(f"candidate score {v:g} of class '{cls}' is below 0 "
                                 f"(Aachen scale 0..10); export another class")
            score = UNSCORED if v is None else format_number(v)
        lines.append(f"TARGET {score} {t.text}\n")
    return lines


def export_aachen(db: Database, path: str | os.PathLike[str], score_class: str | None = None) -> None:
    """Write ``db`` as an Aachen text file atomically (nothing written on error)."""
    atomic_write_bytes(path, dumps_aachen(db, score_class).encode("utf-8"))
