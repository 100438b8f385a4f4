"""Human judgements on the command line: ``human``, ``judge-agreement``, ``extrapolate``,
and the human-score arguments the meta-evaluation commands share (``cli/metaeval.py``).

* ``evaltrans human FILE [--judge J] [--json]``: per system SSER (each class on the SSER
  scale), IER, HTER, aWER and SER with the number of sentences each is based on (EuroMatrix
  survey §4.4); ``--preset`` and the evaluation options choose TER's/WER's preprocessing
  as for ``evaltrans batch``.
* ``evaltrans judge-agreement FILE [--human CLASS,...]``: how far the judges agree on the
  scores of each class -- inter-/intra-annotator correlation, raw and (0,1)-normalised per
  judge, and Cohen's/Fleiss' kappa (thesis Table 8.1; kappa with pooled P(E), Macháček
  §2.2.1). The agreement of relative rankings is ``evaltrans ranking agreement``.
* ``evaltrans extrapolate FILE [--human CLASS] [-o OUT]``: the leave-one-out accuracy of
  the database method (thesis section 5.5: the nearest judged translation of the same
  source); with ``-o``, the unscored candidates filled and marked extrapolated.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, Any

from evaltrans_qt.cli._common import (
    add_force_argument,
    add_json_argument,
    add_option_arguments,
    check_output_file,
    comma_list,
    number,
    open_database,
    options_from_args,
    refuse_unused_options,
    write_database,
)
from evaltrans_qt.cli.progress import add_progress_argument, progress_for
from evaltrans_qt.errors import OptionError, ScoreError

#: The measures behind the human protocols (HTER, aWER, SER): the evaluation options they use.
HUMAN_MEASURES = ("ter", "wer", "ser")

if TYPE_CHECKING:
    from evaltrans_qt.engine.data.database import Database
    from evaltrans_qt.engine.human.scores import HumanScores


# ------------------------------------------------------------------ human-score arguments
def add_human_arguments(p: argparse.ArgumentParser, many: bool = True) -> None:
    """``--human`` (one class, or with ``many`` several), ``--normalize-evaluators``,
    ``--aggregate`` and ``--unweighted``: which human scores and how they are combined."""
    p.add_argument("--human", metavar="CLASS" + ("[,CLASS]" if many else ""),
                   help="human score class(es); 'a+b' sums classes (default: all)")
    p.add_argument("--normalize-evaluators", action="store_true",
                   help="(0,1) evaluator normalisation per judge (thesis 5.5)")
    p.add_argument("--aggregate", choices=("mean", "median"), default="mean",
                   help="combine several judges' scores by mean or median (default mean)")
    p.add_argument("--unweighted", action="store_true",
                   help="system human score = plain mean (default: length-weighted, "
                        "thesis section 5.5)")


def human_classes(db: Database, requested: list[str] | None) -> list[str]:
    """The classes named (each checked), else every human class but ``rank``."""
    from evaltrans_qt.engine.human.resolve import check_class
    if requested:
        for c in requested:
            check_class(db, c)
        return requested
    classes = [c for c in db.human_classes if c != "rank"]
    if not classes:
        raise ScoreError("the database declares no human score class")
    return classes


def human_scores_of(db: Database, cls: str, args: argparse.Namespace,
                    extrapolate: bool) -> HumanScores:
    """Human scores of ``cls`` as ``args`` combine them (:func:`add_human_arguments`); with
    ``extrapolate`` (``--extrapolate``, thesis Table A.2) unscored candidates are first
    estimated from the database (in memory only) and those estimates included."""
    from evaltrans_qt.engine.human.resolve import check_class, human_scores
    from evaltrans_qt.engine.human.scores import split_class
    check_class(db, cls)
    if extrapolate:
        from evaltrans_qt.engine.human import similar
        n = sum(similar.extrapolate(db, part) for part in split_class(cls))
        print(f"evaltrans: --extrapolate: {n} '{cls}' score(s) estimated from the database. "
              f"WARNING: {similar.OVERESTIMATE_WARNING}", file=sys.stderr)
    return human_scores(db, cls, how=args.aggregate, normalize=args.normalize_evaluators,
                        include_extrapolated=extrapolate)


# ------------------------------------------------------------------ human
def _protocol_cell(v: float, n: int) -> str:
    """A protocol's value in percent with the number of sentences behind it."""
    return f"{number(100 * v, '7.2f')} ({n})"


def _print_spans(db: Database) -> None:
    """MQM and ESA system scores, when the database has error spans or ESA scores."""
    from evaltrans_qt.engine.human.spans.scores import ESA_CLASS, has_spans, summary
    if not has_spans(db) and not db.has_class(ESA_CLASS):
        return
    rows = summary(db)
    width = max([6, *(len(s) for s in rows)])
    print(f"{'system':<{width}}  {'MQM':>9}  {'MQM/1000w':>10}  {'segments':>8}  {'ESA':>7}")
    for s, r in rows.items():
        v: dict[str, float | None] = {
            k: x if isinstance(x := r[k], float) else None
            for k in ("mqm", "mqm_per_1000_words", "esa")}
        print(f"{s:<{width}}  {number(v['mqm'], '9.3f')}  "
              f"{number(v['mqm_per_1000_words'], '10.2f')}  {r['mqm_segments']!s:>8}  "
              f"{number(v['esa'], '7.2f')}")
    print("MQM: mean over segments of minus the summed error weights (mean over judges)")


def run_human(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human import protocol_scores as S
    db = open_database(args.database)
    if args.judge is not None and args.judge not in db.judges() and not any(
            p.judge == args.judge for _, t in db.iter_targets() for p in t.postedits) and not any(
            m.judge == args.judge for _, t in db.iter_targets() for m in t.item_marks) and not any(
            a.judge == args.judge for _, t in db.iter_targets() for a in t.span_annotations):
        raise ScoreError(f"judge '{args.judge}' has no scores, post-edits or marks in this "
                         "database")
    refuse_unused_options(args, HUMAN_MEASURES, "human computes HTER (ter), aWER (wer) and "
                                                "SER (ser) only")
    if args.aggregate is not None and not S.sser_classes(db):
        raise OptionError("--aggregate combines the judges' SSER scores, and this database has "
                          "no SSER class")
    args.aggregate = args.aggregate or "mean"
    opts = options_from_args(args)
    table = S.summary(db, opts, judge=args.judge, how=args.aggregate)
    names = S.protocol_names(db)
    if args.json:
        out = {"database": args.database, "protocols": names,
               "added_references": S.added_references(db), "judge": args.judge,
               "systems": {s: {n: {"value": None if not math.isfinite(v.value) else v.value,
                                   "sentences": v.sentences, "numerator": v.numerator,
                                   "denominator": v.denominator}
                               for n, v in row.items()} for s, row in table.items()}}
        from evaltrans_qt.engine.human.spans.scores import summary as span_summary
        out["spans"] = span_summary(db)      # mqm, esa, per-category counts per system
        print(json.dumps(out, ensure_ascii=False))
        return 0
    names = [n for n in names if n != "mqm"]      # not a percentage: _print_spans shows it
    width = max([6, *(len(s) for s in table)])
    heads = [n.upper() if ":" not in n else f"SSER({n.split(':', 1)[1]})" for n in names]
    colw = max(15, *(len(h) for h in heads)) if heads else 15
    print(f"{'system':<{width}}  " + "  ".join(f"{h:>{colw}}" for h in heads))
    for s, row in table.items():
        print(f"{s:<{width}}  " + "  ".join(
            f"{_protocol_cell(row[n].value, row[n].sentences):>{colw}}" for n in names))
    print(f"values in percent (sentences they are based on); {S.added_references(db)} "
          "reference(s) added by judges")
    _print_spans(db)
    return 0


# ------------------------------------------------------------------ judge-agreement
def run_judge_agreement(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human import agreement as ag
    db = open_database(args.database)
    out: list[dict[str, Any]] = []
    for cls in human_classes(db, comma_list(args.human)):
        raw = ag.annotator_correlation(db, cls, normalize=False)
        nrm = ag.annotator_correlation(db, cls, normalize=True)
        kap = ag.score_kappa(db, cls)
        out.append({"class": cls, "correlation": raw.to_dict(),
                    "correlation_normalized": nrm.to_dict(), "kappa": kap.to_dict()})
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print("Inter-/intra-annotator agreement (thesis Table 8.1; kappa with pooled P(E), "
          "Machacek 2.2.1)")
    print(f"{'class':<12} {'IAC r':>7} {'(0,1) r':>8} {'pairs':>6} {'intra r':>8} {'pairs':>6} "
          f"{'kappa':>7} {'intra k':>8} {'P(E)':>6} {'Fleiss':>7}")
    for o in out:
        k, c, n = o["kappa"], o["correlation"], o["correlation_normalized"]
        print(f"{o['class']:<12} {number(c['inter'], '7.3f')} {number(n['inter'], '8.3f')} "
              f"{c['inter_pairs']:>6} {number(c['intra'], '8.3f')} {c['intra_pairs']:>6} "
              f"{number(k['inter'], '7.3f')} {number(k['intra'], '8.3f')} "
              f"{number(k['p_e'], '6.3f')} {number(k['fleiss'], '7.3f')}")
    for o in out:
        per = o["kappa"]["per_judge"]
        if per:
            print(f"\nkappa per judge, class '{o['class']}':")
            for j, d in per.items():
                print(f"  {j or '(anonymous)':<20} inter {number(d['inter'], '6.3f')} "
                      f"(n={d['inter_n']})  intra {number(d['intra'], '6.3f')} "
                      f"(n={d['intra_n']})")
    return 0


# ------------------------------------------------------------------ extrapolate
def run_extrapolate(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human import similar
    if not args.output:
        for flag, given in (("--identical-only", args.identical_only),
                            ("--max-distance", args.max_distance is not None),
                            ("--judge", args.judge is not None), ("--force", args.force)):
            if given:
                raise OptionError(f"{flag} is used only when filling unscored candidates: "
                                  "add -o DB (without it, extrapolate reports the "
                                  "leave-one-out accuracy only)")
    elif args.identical_only and args.max_distance is not None:
        raise OptionError("--max-distance is not used with --identical-only (only identical "
                          "candidates are reused)")
    check_output_file(args.output, "-o")
    db = open_database(args.database)
    classes = human_classes(db, comma_list(args.human))
    scope = "system" if args.leave_one_system_out else "candidate"
    bar = progress_for(args, kernels=False)      # edit distances by rapidfuzz, no kernels
    reports = [similar.leave_one_out(db, c, distance=args.distance, scope=scope,
                                     progress=bar.counter(f"'{c}' leave-one-out: sources"))
               for c in classes]
    changed = {}
    if args.output:
        for c in classes:
            if args.identical_only:
                changed[c] = similar.reuse_identical(db, c, judge=args.judge)
            else:
                changed[c] = similar.extrapolate(db, c, judge=args.judge,
                                                 max_distance=args.max_distance,
                                                 distance=args.distance,
                                                 progress=bar.counter(f"'{c}' extrapolated: "
                                                                      "sources"))
        write_database(db, args.output, force=args.force)
    if args.json:
        json.dump({"leave_one_out": [r.to_dict() for r in reports], "extrapolated": changed},
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for r in reports:
        sys.stdout.write(r.format())
    for c, n in changed.items():
        print(f"{args.output}: {n} '{c}' score(s) extrapolated (marked extrapolated)")
    return 0


# ------------------------------------------------------------------ register
def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("human", help="SSER, IER, HTER, aWER and SER per system")
    p.add_argument("database", metavar="FILE", help="an EvalTrans database (.etdb.xml)")
    p.add_argument("--judge", metavar="J", help="only this judge's scores, marks and post-edits")
    p.add_argument("--aggregate", choices=("mean", "median"), default=None,
                   help="SSER: a candidate's value over its judges (default mean)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_option_arguments(p)
    p.set_defaults(func=run_human)

    p = subparsers.add_parser("judge-agreement", help="inter-/intra-annotator correlation and "
                              "kappa of the judges' scores (rankings: ranking agreement)")
    p.add_argument("database", metavar="DB")
    p.add_argument("--human", metavar="CLASS[,CLASS]", help="classes (default: all)")
    add_json_argument(p)
    p.set_defaults(func=run_judge_agreement)

    p = subparsers.add_parser("extrapolate", help="leave-one-out accuracy of the database "
                              "method; with -o, fill unscored candidates")
    p.add_argument("database", metavar="DB")
    p.add_argument("--human", metavar="CLASS[,CLASS]", help="classes (default: all)")
    p.add_argument("-o", "--output", metavar="DB", help="write the database with extrapolated "
                   "scores (marked extrapolated) here")
    add_force_argument(p)
    p.add_argument("--identical-only", action="store_true",
                   help="only reuse scores of identical translations")
    p.add_argument("--max-distance", type=int, metavar="N",
                   help="do not extrapolate from neighbours farther than N edits (--distance)")
    p.add_argument("--distance", choices=("words", "chars"), default="words",
                   help="edit distance between translations in words (default) or characters "
                        "(Machacek 3.2.2)")
    p.add_argument("--leave-one-system-out", action="store_true",
                   help="accuracy report hiding each candidate's whole system (estimates from "
                        "other systems only, as for a new system)")
    p.add_argument("--judge", help="judge name stored with extrapolated scores")
    add_json_argument(p)
    add_progress_argument(p)
    p.set_defaults(func=run_extrapolate)
