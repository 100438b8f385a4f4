"""``evaltrans segranks``: short-segment ranking (SegRanks, Macháček ch. 2-3).

* ``extract --database DB (--trees F.ptb | --conllu F.conllu) [--alignment SYS=F ...]
  [--min 3 --max 6] -o extracted.segments``: Algorithm 1 on every source tree,
  projection onto every system's candidate, merging (engine/segranks); writes the
  6-field TSV (Macháček appendix B.2) and stores the segments in the database. Without
  ``--alignment`` the alignments are computed with eflomal (extra ``[align]``).
* ``import FILE (.segments | .json) --database DB``: segments (TSV) or annotations
  (SegRanks JSON export, appendix B.5) into the database.
* ``export DB -o ranks.json | extracted.segments``: the JSON export or the TSV.
* ``agreement DB``: segment-level vs sentence-level pairwise comparisons of the same
  sentences, Kendall τ per system and the disagreement quotient (Macháček §3.1.2,
  Table 3.2; engine/human/unseen/levels.py).

Relative rankings (ratio of wins, agreement, WMT judgements) are ``evaltrans ranking``
(``cli/ranking.py``). Bad input exits 2 naming file, line and problem, and
nothing is written. The unsaved judgements of a journal beside the database are included
(and removed from the journal when it is written in place); a database change is refused
while evaltrans-qt holds the file open, unless ``--force`` (unsafe).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from evaltrans_qt.cli._common import (
    add_force_argument,
    check_output_file,
    check_output_folder,
    number,
    open_database,
    write_database,
)
from evaltrans_qt.cli.progress import add_progress_argument, progress_for
from evaltrans_qt.errors import InputFormatError, OptionError


def _alignment_args(values: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values or []:
        system, eq, path = v.partition("=")
        if not eq or not system or not path:
            raise OptionError(f"--alignment {v!r}: give SYSTEM=FILE.pharaoh")
        if system in out:
            raise OptionError(f"--alignment names system {system!r} twice")
        out[system] = path
    return out


# ------------------------------------------------------------------ segranks extract
def run_extract(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.segranks.extract import extract_database
    from evaltrans_qt.io.segranks import formats
    from evaltrans_qt.io.segranks.inputs import gather_inputs
    out_db = args.output_database or args.database
    check_output_file(args.output, "-o")
    check_output_file(out_db, "--output-database" if args.output_database else "--database")
    if args.save_alignments:
        check_output_folder(args.save_alignments, "--save-alignments")
    db = open_database(args.database)
    bar = progress_for(args, kernels=False)    # trees, eflomal and projection: no kernels
    inputs = gather_inputs(db, trees=args.trees, conllu=args.conllu,
                           alignment=_alignment_args(args.alignment),
                           alignments_dir=args.alignments_dir,
                           systems=[s.strip() for s in args.systems.split(",")]
                           if args.systems else None,
                           tokenize=args.tokenize, symmetrize=args.symmetrize,
                           save_alignments=args.save_alignments,
                           progress=lambda text: bar.step(0, 1, text))
    tree_list, tree_path, alignments = inputs.trees, inputs.trees_path, inputs.alignments
    summary = extract_database(db, tree_list, alignments, min_length=args.min,
                               max_length=args.max, tokenization=args.tokenize,
                               trees_path=tree_path,
                               progress=bar.counter("segments extracted: sources"))
    tsv = formats.segments_tsv(db, systems=args.systems_column)
    # the database checked first: nothing is written unless both files can be
    write_database(db, out_db, also=[(args.output, tsv.encode("utf-8"))], force=args.force)
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(f"{summary.sentences} sentences, {summary.segments} segments "
              f"({number(summary.segments / max(summary.sentences, 1), '.2f')} per sentence), "
              f"{summary.projected} candidate segments from {len(summary.systems)} systems, "
              f"{summary.merged} after merging "
              f"({number(100 * summary.merged_ratio, '.1f', missing='nan')} %)")
        print(f"{args.output}: {tsv.count(chr(10))} rows; {out_db}: segments stored",
              file=sys.stderr)
    return 0


# ------------------------------------------------------------------ segranks import/export
def run_import(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    from evaltrans_qt.io.segranks import formats
    out = args.output or args.database
    check_output_file(out, "-o" if args.output else "--database")
    db = open_database(args.database)
    suffix = Path(args.file).suffix.lower()
    if args.tokenize is not None and suffix == ".json" and db.sources and all(
            sentence_segments(s) is not None for s in db.sources):
        raise OptionError("--tokenize applies to sources without segments, and every source "
                          "of the database has segments (with their own tokenisation)")
    args.tokenize = args.tokenize or "none"
    if suffix == ".json":
        n = formats.read_ranks_json(db, args.file, judge=args.judge, tokenization=args.tokenize,
                                    id_base=args.id_base)
        what = f"{n} annotation screen(s)"
    elif suffix in (".segments", ".tsv"):
        if args.judge:
            raise OptionError("--judge is used with a .json export, not with segments")
        n = formats.read_segments(db, args.file, tokenization=args.tokenize,
                                  id_base=args.id_base)
        what = f"{n} candidate segment row(s)"
    else:
        raise InputFormatError("give an extracted-segments file (.segments, .tsv) or a SegRanks "
                               "JSON export (.json)", args.file)
    write_database(db, out, f"{what} imported from {args.file}", force=args.force)
    return 0


def run_export(args: argparse.Namespace) -> int:
    from evaltrans_qt.io.segranks import formats
    check_output_file(args.output, "-o")
    suffix = Path(args.output).suffix.lower()
    if suffix == ".json" and args.systems_column:
        raise OptionError("--systems-column is a column of .segments/.tsv files, not of the "
                          "SegRanks JSON")
    db = open_database(args.database)
    if suffix == ".json":
        n = formats.write_ranks_json(db, args.output, id_base=args.id_base)
        print(f"{args.output}: {n} annotation(s)", file=sys.stderr)
    elif suffix in (".segments", ".tsv"):
        n = formats.write_segments(db, args.output, systems=args.systems_column,
                                   id_base=args.id_base)
        print(f"{args.output}: {n} row(s)", file=sys.stderr)
    else:
        raise OptionError(f"-o {args.output}: write .json (SegRanks export) or .segments/.tsv "
                          "(extracted segments)")
    return 0


# ------------------------------------------------------------------ segranks agreement
def run_agreement(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.unseen.levels import level_agreement
    db = open_database(args.database)
    res = level_agreement(db, args.rank_class)
    if args.json:
        print(json.dumps(res.to_dict(args.top), ensure_ascii=False))
        return 0
    print(f"Segment-level vs sentence-level pairwise comparisons (Machacek 3.1.2), "
          f"{res.sentences} sentence(s) judged at both levels: Kendall tau "
          f"{number(res.tau, '.3f')} ({res.concordant} concordant, {res.discordant} discordant)")
    width = max([len(r.system) for r in res.rows] + [6])
    print(f"{'system':<{width}} {'better':>7} {'worse':>7} {'all':>7}   (Table 3.2 a, b, c)")
    for system, _ in res.table("all"):
        r = next(x for x in res.rows if x.system == system)
        print(f"{system:<{width}} {number(r.tau_better, '7.4f')} {number(r.tau_worse, '7.4f')} "
              f"{number(r.tau_all, '7.4f')}")
    if res.quotients and args.top:
        print("highest disagreement quotient q_d (ranked higher on segments than as sentences):")
        for q in res.quotients[:args.top]:
            print(f"  sentence {q.source_index + 1:>5} {q.system:<{width}} q_d "
                  f"{'inf' if q.quotient == math.inf else number(q.quotient, '.3f', 'nan')}  "
                  f"(segments {q.seg[0]}:{q.seg[1]}, sentence {q.sent[0]}:{q.sent[1]})")
    return 0


# ------------------------------------------------------------------ register
def register(subparsers: argparse._SubParsersAction) -> None:
    from evaltrans_qt.engine.human.segranks.projection import SYMMETRIZATIONS
    from evaltrans_qt.engine.options import TOKENIZATIONS
    seg = subparsers.add_parser("segranks", help="short-segment ranking (SegRanks, Machacek "
                                "ch. 2): extract, import, export",
                                description="SegRanks: extract short segments from source "
                                "parse trees, project them onto the candidates, merge "
                                "identical ones (Machacek ch. 2); import and export the "
                                "SegRanks files (appendix B).")
    sub = seg.add_subparsers(dest="segranks_command", metavar="ACTION", required=True)

    p = sub.add_parser("extract", help="Algorithm 1 + projection + merging -> .segments TSV "
                       "and the database")
    p.add_argument("--database", required=True, metavar="DB")
    t = p.add_mutually_exclusive_group(required=True)
    t.add_argument("--trees", metavar="F.ptb", help="Penn Treebank trees, one per source")
    t.add_argument("--conllu", metavar="F.conllu", help="CoNLL-U dependency trees, one per "
                   "source")
    p.add_argument("--alignment", action="append", metavar="SYS=F.pharaoh",
                   help="Pharaoh word alignment of a system (i-j, 0-based); repeat per system. "
                        "None: computed with eflomal (pip install 'evaltrans_qt[align]')")
    p.add_argument("--alignments-dir", metavar="DIR", help="every DIR/SYSTEM.pharaoh is the "
                   "alignment of SYSTEM (as --alignment SYSTEM=DIR/SYSTEM.pharaoh)")
    p.add_argument("--systems", metavar="S[,S]", help="systems to project onto (default: "
                   "those with --alignment, else all)")
    p.add_argument("--min", type=int, default=3, help="minLength of Algorithm 1 (default 3)")
    p.add_argument("--max", type=int, default=6, help="maxLength of Algorithm 1 (default 6)")
    p.add_argument("--tokenize", choices=TOKENIZATIONS, default="none",
                   help="how sentences are split into the tokens trees and alignments count "
                        "(default none: on spaces, for pre-tokenised text)")
    p.add_argument("--symmetrize", choices=SYMMETRIZATIONS, default=None,
                   help="how eflomal's two directions are combined")
    p.add_argument("--save-alignments", metavar="DIR", help="write computed alignments as "
                   "DIR/SYSTEM.pharaoh")
    p.add_argument("--systems-column", action="store_true",
                   help="add a 7th TSV field with the systems of each candidate segment")
    p.add_argument("-o", "--output", required=True, metavar="FILE.segments")
    p.add_argument("--output-database", metavar="DB", help="store the segments here "
                   "(default: --database, in place)")
    add_force_argument(p)
    p.add_argument("--json", action="store_true")
    add_progress_argument(p)
    p.set_defaults(func=run_extract)

    p = sub.add_parser("import", help="import a .segments TSV or a SegRanks .json export")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--database", required=True, metavar="DB")
    p.add_argument("-o", "--output", metavar="DB", help="write here (default: --database)")
    add_force_argument(p)
    p.add_argument("--judge", help="judge of the imported JSON annotations (the format has none)")
    p.add_argument("--tokenize", choices=TOKENIZATIONS, default=None,
                   help="how the source sentences are split into tokens (default none: on "
                        "spaces); sources that have segments already keep theirs")
    p.add_argument("--id-base", type=int, choices=(0, 1), default=1,
                   help="the first sentence ID (default 1: IDs are database positions)")
    p.set_defaults(func=run_import)

    p = sub.add_parser("export", help="write the SegRanks JSON export or the .segments TSV")
    p.add_argument("database", metavar="DB")
    p.add_argument("-o", "--output", required=True, metavar="ranks.json|FILE.segments")
    p.add_argument("--systems-column", action="store_true")
    p.add_argument("--id-base", type=int, choices=(0, 1), default=1)
    p.set_defaults(func=run_export)

    p = sub.add_parser("agreement", help="segment-level vs sentence-level judgements: Kendall "
                       "tau per system and disagreement quotients (Machacek 3.1.2, Table 3.2)")
    p.add_argument("database", metavar="DB")
    p.add_argument("--rank-class", default="rank", metavar="CLASS",
                   help="score class of the whole-sentence rankings (default rank)")
    p.add_argument("--top", type=int, default=10, metavar="N",
                   help="list the N candidates with the highest disagreement quotient")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=run_agreement)
