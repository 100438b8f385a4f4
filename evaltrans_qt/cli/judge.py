"""Human judgements without the application (``io/judgements.py``).

* ``evaltrans judge DB --source K --system S --class C --value V [--judge J] [--seconds T]``
  gives system S's translation of source K (1-based, as in the application's source list)
  judge J's score V of class C, timed now; ``--remove`` instead of ``--value`` removes J's
  score. Like a score given in the application it is journalled (forced to disk) before
  it is applied, then the file is written in place: a crash loses nothing.
* ``evaltrans import judgements FILE.tsv|.csv|.jsonl --database DB`` adds many at once:
  columns ``system``, ``seg`` (with ``doc``) or ``line``, ``class``, ``value``, ``judge``,
  ``time``, ``seconds``. Every row is checked first (errors name the file and line) and
  the database is written once, atomically: all of them or none.

Both refuse while evaltrans-qt holds the database open (its lock), and take the lock
while they write, so the application cannot open the file half-way.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime

from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io.judgements import (
    commit_judgements,
    judgement_change,
    judgement_record,
    read_judgements,
)


def note_on_stderr(text: str) -> None:
    """What a command says of the journal's judgements it included (``PATH: N unsaved
    judgements from the journal included``), as ``_common.open_database`` says it."""
    print(text, file=sys.stderr)


def _now() -> str:
    """When a judgement is given: ISO 8601 with the local offset, as the scoring screen."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def run_judge(args: argparse.Namespace) -> int:
    if args.remove and args.value is not None:
        raise ScoreError("give --value V or --remove, not both")
    if not args.remove and args.value is None:
        raise ScoreError("give --value V (or --remove to remove the judge's score)")
    if args.remove and args.seconds is not None:
        raise ScoreError("--seconds is not used with --remove")
    records = []

    def build(db):
        ch = judgement_change(db, system=args.system, cls=args.cls, line=args.source,
                              value=None if args.remove else args.value, judge=args.judge,
                              time=None if args.remove else _now(), seconds=args.seconds)
        records.append(judgement_record(ch, db))
        return [ch]

    commit_judgements(args.database, build, note=note_on_stderr)
    rec = records[0]
    who = f" by {args.judge}" if args.judge else ""
    what = "removed" if args.remove else f"= {args.value:g}"
    print(f"{args.database}: source {args.source}, {args.system}: {args.cls}{who} {what}",
          file=sys.stderr)
    if args.json:
        print(json.dumps(rec, ensure_ascii=False))
    return 0


def run_import_judgements(args: argparse.Namespace) -> int:
    records: list[dict] = []

    def build(db):
        changes = read_judgements(args.file, db)
        records.extend(judgement_record(ch, db) for ch in changes)
        return changes

    commit_judgements(args.database, build, journal=False, note=note_on_stderr)
    print(f"{args.database}: {len(records)} judgement{'' if len(records) == 1 else 's'} "
          f"imported from {args.file}", file=sys.stderr)
    if args.json:
        print(json.dumps({"database": str(args.database), "imported": len(records),
                          "judgements": records}, ensure_ascii=False))
    return 0


def _number(text: str) -> float:
    import math
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return v


def add_import_judgements(isub: argparse._SubParsersAction) -> None:
    """``import judgements`` (registered by ``cli/data.py`` beside the other imports)."""
    p = isub.add_parser("judgements", help="add human judgements from a TSV, CSV or JSON "
                                           "Lines file to a database")
    p.add_argument("file", metavar="FILE", help="judgements: .tsv, .csv (header row) or .jsonl; "
                                                "columns system, seg (and doc) or line, class, "
                                                "value, judge, time, seconds")
    p.add_argument("--database", required=True, metavar="DB",
                   help="the database to add them to (.etdb.xml; written in place)")
    p.add_argument("--json", action="store_true", help="print what was imported as JSON")
    p.set_defaults(func=run_import_judgements)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("judge", help="give (or remove) one human judgement without "
                                            "the application")
    p.add_argument("database", metavar="DB", help="the database (.etdb.xml; written in place)")
    p.add_argument("--source", type=int, required=True, metavar="K",
                   help="source number, 1-based as in the application's source list")
    p.add_argument("--system", required=True, metavar="SYSTEM", help="the system judged")
    p.add_argument("--class", dest="cls", required=True, metavar="CLASS",
                   help="score class (evaltrans classes DB lists them)")
    p.add_argument("--value", type=_number, metavar="V", help="the score")
    p.add_argument("--remove", action="store_true", help="remove the judge's score of CLASS")
    p.add_argument("--judge", metavar="NAME", help="who judges (default: no name)")
    p.add_argument("--seconds", type=_number, metavar="T", help="seconds spent judging")
    p.add_argument("--json", action="store_true", help="print the judgement as JSON")
    p.set_defaults(func=run_judge)
