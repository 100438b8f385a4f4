"""``evaltrans unseen``: evaluate a system from the database's ranked short segments
(Macháček §3.2; engine/human/unseen/matching.py).

    evaltrans unseen DB --system NAME [--method exact|closest] [--json]
    evaltrans unseen DB --leave-one-out [--system NAME ...] [--method closest] [--json]

A system whose candidate segments are in the database is left out first (its own
annotations never count); one without them is matched by the annotated segments that
occur in its translation (exact only). ``--leave-one-out`` runs Tables 3.3 / 3.4 / 3.5
over every annotated system (or the ``--system`` ones). Every output ends with the
overestimation warning of §3.2.
"""

from __future__ import annotations

import argparse
import json
import sys

from evaltrans_qt.cli._common import number, open_database
from evaltrans_qt.cli.progress import add_progress_argument, progress_for


def _print_result(r, examples: int) -> None:
    how = "left out" if r.projected else "not in the segment database"
    line = (f"{r.system} ({how}), {r.method} matching: {r.segments} ranked segments, "
            f"{r.hits} hits, hit rate {number(r.hit_rate, '5.3f')}")
    if r.method == "closest":
        line += f", AED {number(r.aed, '4.2f')} (misses {number(r.aed_misses, '4.2f')})"
    print(line)
    width = max([len(s) for s in r.scores.stats] + [6])
    print(f"  {'system':<{width}} {'ratio':>6} {'wins':>6} {'losses':>6} {'ties':>6}")
    for s, v in r.scores.ranking():
        w = r.scores.stats[s]
        mark = " *" if s == r.system else ""
        print(f"  {s:<{width}} {number(v, '6.3f')} {w.wins:>6} {w.losses:>6} {w.ties:>6}{mark}")
    oc = r.outcome_counts()
    n = sum(oc.values())
    if n:
        print("  closest segment vs the unseen one (Table 3.5): " + ", ".join(
            f"{k} {oc[k]} ({number(100 * oc[k] / n, '.1f')} %)" for k in oc))
        for d, row in r.by_distance().items():
            m = sum(row.values())
            print(f"    distance {d:>3}: " + "  ".join(f"{k} {number(row[k] / m, '.2f')}"
                                                for k in row)
                  + f"  (n={m})")
        ex = r.examples(examples)
        if ex:
            print("  examples (Table 3.6): unseen | closest | D | C")
            for e in ex:
                print(f"    {e.unseen} | {' / '.join(e.closest)} | {e.distance} | {e.comparison}")


def run(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.unseen import matching
    from evaltrans_qt.errors import OptionError
    db = open_database(args.database)
    systems = [s for v in args.system or [] for s in v.split(",") if s]
    bar = progress_for(args, kernels=False)        # edit distances by rapidfuzz, no kernels
    if args.leave_one_out:
        results = matching.leave_one_system_out(db, args.method, systems or None,
                                                progress=bar.counter("systems left out"))
    else:
        if len(systems) != 1:
            raise OptionError("give one --system NAME (or --leave-one-out for every annotated "
                              "system)")
        bar.step(0, 1, f"{systems[0]} as unseen")
        results = [matching.evaluate_unseen(db, systems[0], args.method)]
        bar.step(1, 1, f"{systems[0]} as unseen")
    if args.json:
        out = {"method": args.method, "results": [r.to_dict(args.examples) for r in results],
               "warning": matching.OVERESTIMATE_WARNING}
        if args.leave_one_out:
            out["outcomes_all"] = matching.total_outcomes(results)
        print(json.dumps(out, ensure_ascii=False))
        return 0
    for r in results:
        _print_result(r, args.examples)
    if args.leave_one_out and args.method == "closest":
        oc = matching.total_outcomes(results)
        n = sum(oc.values())
        if n:
            print("All: " + ", ".join(f"{k} {number(100 * v / n, '.1f')} %" for k, v in oc.items()))
    print(f"WARNING: {matching.OVERESTIMATE_WARNING}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("unseen", help="score a system from the ranked short segments of "
                              "the database (Machacek 3.2)",
                              description="Evaluate a system from the database's ranked "
                                          "short segments (Machacek 3.2): the segments that "
                                          "occur in its translation score it.")
    p.add_argument("database", metavar="DB")
    p.add_argument("--system", action="append", metavar="NAME",
                   help="the system to evaluate as unseen (with --leave-one-out: restrict to "
                        "these; repeat or separate by commas)")
    p.add_argument("--method", choices=("exact", "closest"), default="exact",
                   help="exact: only segments whose candidate is already ranked (3.2.1); "
                        "closest: every segment takes the rank of the closest ranked one by "
                        "character edit distance (3.2.2)")
    p.add_argument("--leave-one-out", action="store_true",
                   help="leave out every annotated system in turn (Tables 3.3-3.5)")
    p.add_argument("--examples", type=int, default=10, metavar="N",
                   help="example misses with their closest segment (Table 3.6; default 10)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    add_progress_argument(p)
    p.set_defaults(func=run)
