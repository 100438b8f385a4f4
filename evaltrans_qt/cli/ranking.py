"""``evaltrans ranking``: relative ranking of whole sentences (WMT) and of short segments
(SegRanks), Macháček ch. 2-3.

* ``import-wmt CSV --database DB -o OUT``: WMT13-16 judgement CSV as whole-sentence
  rankings;
* ``wins DB [--segments | --sentences]``: per system ratio of wins (ignoring ties),
  expected wins, counts (engine/human/ranking.py); ``-o table.csv|.tex`` exports the table;
  ``--json`` prints one object::

      {"level": "segments" | "sentences", "rankings": <number of rankings>,
       "systems": [{"system", "ratio_of_wins", "expected_wins", "expected_wins_ties",
                    "geq_others", "wins", "losses", "ties"}, ...]}

  systems by descending ratio of wins, a score without comparisons ``null``;
* ``agreement DB [--segments | --sentences]``: kappa inter/intra with P(E) (Macháček
  §2.2.1) and the annotator statistics of Table 2.3.

Without ``--segments``/``--sentences`` the level is ``segments`` when the database has
ranked segments (or no whole-sentence rankings), else ``sentences``. Bad input exits 2
naming file, line and problem, and nothing is written. The unsaved judgements of a journal
beside the database are included (and removed from the journal when it is written in
place); ``import-wmt`` refuses to write while evaltrans-qt holds the file open, unless
``--force`` (unsafe).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from evaltrans_qt.cli._common import (
    add_force_argument,
    check_output_file,
    number,
    open_database,
    write_database,
)
from evaltrans_qt.errors import OptionError

if TYPE_CHECKING:
    from evaltrans_qt.engine.data.database import Database


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    d, s = divmod(s, 86400)
    text = f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
    return f"{d} day{'s' if d > 1 else ''}, {text}" if d else text


def _level(args: argparse.Namespace, db: Database) -> str:
    """The ranking level (``--segments``/``--sentences``, else segments when the database has
    SegRanks rankings); sets ``args.rank_class`` (default ``rank``), refused at the segment
    level, which has no class, and when the database has no such class."""
    from evaltrans_qt.engine.human.ranking import segment_rankings
    given, args.rank_class = args.rank_class, args.rank_class or "rank"
    level = args.level or ("segments" if segment_rankings(db) or not db.has_class(args.rank_class)
                           else "sentences")
    if given is not None and level == "segments":
        raise OptionError("--rank-class is used with whole-sentence rankings (--sentences); "
                          "the segment rankings of SegRanks have no class")
    if given is not None and not db.has_class(given):
        raise OptionError(f"--rank-class {given}: the database has no score class '{given}'")
    return level


# ------------------------------------------------------------------ import-wmt
def run_import_wmt(args: argparse.Namespace) -> int:
    from evaltrans_qt.io.segranks.wmt_csv import read_judgements
    check_output_file(args.output, "-o")
    db = open_database(args.database)
    pair = None
    if args.language_pair:
        a, dash, b = args.language_pair.partition("-")
        if not dash or not a or not b:
            raise OptionError(f"--language-pair {args.language_pair!r}: give SRC-TRG as the CSV "
                              "writes them (e.g. English-German or en-de)")
        pair = (a, b)
    n = read_judgements(db, args.csv, pair)
    write_database(db, args.output, f"{n} ranking(s) imported from {args.csv}",
                   force=args.force)
    return 0


# ------------------------------------------------------------------ wins
def run_wins(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.ranking import database_rank_scores
    check_output_file(args.output, "-o")
    db = open_database(args.database)
    level = _level(args, db)
    res = database_rank_scores(db, level, args.rank_class)
    if args.output:
        from evaltrans_qt.io.export import write_table
        if Path(args.output).suffix.lower() in (".tex", ".latex"):
            write_table(res.frame(), args.output,
                        caption=f"Ratio of wins ({level}), Macháček §3.1")
        else:
            write_table(res.frame(), args.output)
    if args.json:
        print(json.dumps(res.to_dict(), ensure_ascii=False))
        return 0
    print(f"Ratio of wins ignoring ties (Machacek 3.1), {level}: {res.rankings} ranking(s)")
    width = max([len(r.system) for r in res.rows] + [6])
    print(f"{'system':<{width}} {'ratio':>7} {'exp.w':>7} {'exp.w+t':>7} {'>=oth':>7} "
          f"{'wins':>6} {'losses':>6} {'ties':>6}")
    for r in res.rows:
        print(f"{r.system:<{width}} {number(r.ratio, '7.4f')} {number(r.expected_wins, '7.4f')} "
              f"{number(r.expected_wins_ties, '7.4f')} {number(r.geq_others, '7.4f')} "
              f"{r.wins:>6} {r.losses:>6} {r.ties:>6}")
    return 0


# ------------------------------------------------------------------ agreement
def run_agreement(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human import agreement as ag
    check_output_file(args.output, "-o")
    db = open_database(args.database)
    level = _level(args, db)
    kap = ag.segment_kappa(db) if level == "segments" else ag.ranking_kappa(db, args.rank_class)
    rows = ag.annotator_statistics(db, level, args.rank_class)
    if args.output:
        from evaltrans_qt.io.export import write_table
        write_table(ag.annotator_frame(rows), args.output)
    if args.json:
        def c(v: float | None) -> float | None:
            return v if isinstance(v, (int, str)) or (v is not None and math.isfinite(v)) else None
        print(json.dumps({"level": level, "kappa": kap.to_dict(),
                          "annotators": [{"judge": r.judge, "n_sent": r.sentences,
                                          "n_seg": r.segments, "seconds": r.seconds,
                                          "seconds_per_segment": c(r.seconds_per_segment),
                                          "kappa_intra": c(r.kappa_intra),
                                          "kappa_inter": c(r.kappa_inter)} for r in rows]},
                         ensure_ascii=False))
        return 0
    print(f"Annotator agreement on pairwise comparisons (Machacek 2.2.1), {level}: "
          f"P(E) {number(kap.p_e, '.3f')}, inter kappa {number(kap.inter, '.3f')} "
          f"({kap.inter_n} comparisons), intra kappa {number(kap.intra, '.3f')} "
          f"({kap.intra_n} comparisons)")
    width = max([len(r.judge) for r in rows] + [5])
    print(f"{'judge':<{width}} {'n_sent':>7} {'n_seg':>7} {'t':>22} {'t/n_seg':>8} "
          f"{'k_intra':>8} {'k_inter':>8}")
    for r in rows:
        print(f"{r.judge or '(anonymous)':<{width}} {r.sentences:>7} {r.segments:>7} "
              f"{_hms(r.seconds):>22} {number(r.seconds_per_segment, '8.0f')} "
              f"{number(r.kappa_intra, '8.3f')} {number(r.kappa_inter, '8.3f')}")
    return 0


# ------------------------------------------------------------------ register
def _level_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--segments", dest="level", action="store_const", const="segments",
                   help="SegRanks rankings of short segments, expanded to systems (default "
                        "when the database has any)")
    g.add_argument("--sentences", dest="level", action="store_const", const="sentences",
                   help="whole-sentence (WMT) rankings, the 'rank' scores")
    p.add_argument("--rank-class", default=None, metavar="CLASS",
                   help="score class of whole-sentence rankings (default rank; with "
                        "--sentences)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("-o", "--output", metavar="TABLE",
                   help="also write the table as .csv, .tsv, .json or .tex (booktabs)")
    p.set_defaults(level=None)


def register(subparsers: argparse._SubParsersAction) -> None:
    rk = subparsers.add_parser("ranking", help="relative ranking: import WMT judgements, "
                               "ratio of wins, agreement",
                               description="Relative ranking of whole sentences (WMT) and of "
                               "short segments (SegRanks): system scores and agreement.")
    sub = rk.add_subparsers(dest="ranking_command", metavar="ACTION", required=True)
    p = sub.add_parser("import-wmt", help="WMT13-16 relative-ranking judgement CSV into a "
                       "database")
    p.add_argument("csv", metavar="CSV")
    p.add_argument("--database", required=True, metavar="DB")
    p.add_argument("-o", "--output", required=True, metavar="OUT")
    add_force_argument(p)
    p.add_argument("--language-pair", metavar="SRC-TRG",
                   help="import only rows of this pair (srclang-trglang as in the CSV)")
    p.set_defaults(func=run_import_wmt)

    p = sub.add_parser("wins", help="ratio of wins, expected wins and counts per system")
    p.add_argument("database", metavar="DB")
    _level_arguments(p)
    p.set_defaults(func=run_wins)

    p = sub.add_parser("agreement", help="kappa on pairwise comparisons and annotator "
                       "statistics (Machacek 2.2.1, Table 2.3)")
    p.add_argument("database", metavar="DB")
    _level_arguments(p)
    p.set_defaults(func=run_agreement)
