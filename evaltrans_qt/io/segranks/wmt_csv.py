"""WMT relative-ranking judgements (WMT13-WMT16 ``wmt-judgements`` CSV files) into a
database with the matching test set.

Columns (header row required, any order, extra columns ignored): ``srclang, trglang,
srcIndex, documentId, segmentId, judgeId, system1Number, system1Id, ... system5Number,
system5Id, system1rank, ... system5rank``. A row is one screen: one judge ranked up to
five candidates of one source sentence (1 best, ties allowed; a rank of -1 or empty
means the slot was not ranked and is skipped).

Matching the database:

* the source: the positional source with ``doc = documentId`` and ``seg = segmentId``;
  else the one with ``seg = srcIndex`` (no doc); else the ``srcIndex``-th source
  (1-based), as the test set's line;
* the system: a candidate system of the database named exactly ``systemNId``, or the
  ``NAME`` of a WMT file id ``testset.lang-pair.NAME[.number]``
  (``newstest2013.cs-en.cu-zeman.2724``);
* rows of other language pairs are refused unless ``language_pair`` selects the rows
  to import (e.g. ``("English", "German")``; the strings as the file writes them).

Each row becomes a whole-sentence ranking (``rank`` scores, engine/human/ranking.py) of
judge ``judgeId``, task ``wmt-<line>``. An unknown system or source is an
:class:`InputFormatError` naming file, line and value; nothing is changed then.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence

from evaltrans_qt.engine.data.database import Database, Source, Target
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.limits import MAX_CSV_FIELD, MAX_RANK, csv_field_limit, parse_int

REQUIRED = ("srclang", "trglang", "srcIndex", "judgeId")


def _system_name(wmt_id: str, known: set[str]) -> str | None:
    if wmt_id in known:
        return wmt_id
    parts = wmt_id.split(".")
    for cut in (len(parts) - 1, len(parts)):
        name = ".".join(parts[2:cut])
        if name in known:
            return name
    return None


def _find_source(db: Database, row: dict, path, line: int) -> Source:
    doc, seg, idx = (row.get("documentId") or "").strip(), (row.get("segmentId") or "").strip(), \
        (row.get("srcIndex") or "").strip()
    if seg and doc:
        src = db.source_by_key(doc, seg)
        if src is not None:
            return src
    if idx:
        src = db.source_by_key(None, idx)
        if src is not None:
            return src
        try:
            return db.sources[parse_int(idx, "srcIndex", 1, len(db.sources)) - 1]
        except ValueError:
            pass
    raise InputFormatError(f"no source of the database matches srcIndex {idx[:40]!r} "
                           f"(documentId {doc[:40]!r}, segmentId {seg[:40]!r}); the database has "
                           f"{len(db.sources)} source(s)", path, line)


def read_judgements(db: Database, path: str | os.PathLike[str],
                    language_pair: Sequence[str] | None = None) -> int:
    """Import every (selected) row of a WMT judgement CSV into ``db`` (module doc);
    returns the number of rankings added."""
    from evaltrans_qt.engine.human.ranking import RankIndex, add_ranking
    from evaltrans_qt.io.plaintext import read_input_bytes
    data = read_input_bytes(path, "a WMT judgement CSV file", allow_empty=True)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFormatError("not valid UTF-8", path, data.count(b"\n", 0, exc.start) + 1) from None
    csv_field_limit()
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = reader.fieldnames or []
        rows = [(row, reader.line_num) for row in reader]
    except csv.Error as exc:
        raise InputFormatError(f"not a readable CSV file: {exc} (at most {MAX_CSV_FIELD} "
                               f"characters a field)", path, reader.line_num + 1) from None
    missing = [c for c in REQUIRED if c not in header]
    slots = [n for n in range(1, 100) if f"system{n}Id" in header]
    if missing or not slots:
        raise InputFormatError(f"not a WMT judgement CSV: missing column(s) "
                               f"{', '.join(missing or ['system1Id'])}", path, 1)
    for n in slots:
        if f"system{n}rank" not in header:
            raise InputFormatError(f"column system{n}Id has no system{n}rank", path, 1)
    known = set(db.systems())
    is_ref = db.reference_test()
    pairs: set[tuple[str, str]] = set()
    plans: list[tuple[Source, list[tuple[Target, int]], str | None, str]] = []
    for row, line in rows:
        pair = ((row.get("srclang") or "").strip(), (row.get("trglang") or "").strip())
        if language_pair is not None and pair != tuple(language_pair):
            continue
        pairs.add(pair)
        if language_pair is None and len(pairs) > 1:
            raise InputFormatError(f"rows of several language pairs ({', '.join('-'.join(p) for p in sorted(pairs))}); "
                                   "choose one with --language-pair SRC-TRG", path, line)
        src = _find_source(db, row, path, line)
        ranks: list[tuple[Target, int]] = []
        for n in slots:
            sid = (row.get(f"system{n}Id") or "").strip()
            rank_text = (row.get(f"system{n}rank") or "").strip()
            if not sid or rank_text in ("", "-1"):
                continue
            try:
                rank = parse_int(rank_text, f"system{n}rank", 1, MAX_RANK)
            except ValueError:
                raise InputFormatError(f"system{n}rank {rank_text[:40]!r} is not a rank (1 "
                                       f"best, -1 not ranked; at most {MAX_RANK})", path,
                                       line) from None
            name = _system_name(sid, known)
            if name is None:
                raise InputFormatError(f"system{n}Id {sid!r} is not a system of the database "
                                       f"({', '.join(sorted(known)) or 'it has none'})", path, line)
            tgt = next((t for t in src.targets if (t.system or "") == name and not is_ref(t)), None)
            if tgt is None:
                raise InputFormatError(f"system {name!r} has no candidate for source "
                                       f"{src.text[:40]!r}", path, line)
            ranks.append((tgt, rank))
        if ranks:
            plans.append((src, ranks, (row.get("judgeId") or "").strip() or None, f"wmt-{line}"))
    index = RankIndex()                     # linear in the rows (engine.human.ranking)
    for src, ranks, judge, task in plans:
        add_ranking(db, src, ranks, judge, task, index=index)
    return len(plans)
