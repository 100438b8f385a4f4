"""``evaltrans wmt14-tables``: the WMT14 metrics-task tables (Macháček ch. 4, Tables
4.2-4.7) of several language pairs, each its own database (engine/metaeval/wmt14_tables.py),
every measure computed with ``--preset`` and the evaluation options."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from evaltrans_qt.cli._common import (
    add_option_arguments,
    check_output_file,
    comma_list,
    number,
    open_database,
    options_from_args,
    refuse_unused_options,
)
from evaltrans_qt.cli.progress import add_progress_argument, progress_for
from evaltrans_qt.errors import OptionError

#: Table title per frame (Macháček Tables 4.2/4.3, 4.4/4.5, 4.6/4.7).
TITLES = {"system": "System-level Pearson correlation (± half the 95% bootstrap interval)",
          "segment": "Segment-level Kendall's tau (WMT14 variant)",
          "variants": "Segment-level tau variants, averaged over language pairs"}


def _pairs(specs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for spec in specs:
        lp, sep, path = spec.partition("=")
        if not sep or not lp or not path:
            raise OptionError(f"expected LANGPAIR=DATABASE (e.g. de-en=deen.etdb.xml), got {spec!r}")
        if lp in out:
            raise OptionError(f"language pair '{lp}' is given twice")
        out[lp] = path
    return out


def run(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.metaeval.wmt14_tables import wmt14_tables
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.io.export import to_latex
    check_output_file(args.output, "-o")
    opts = options_from_args(args)
    measures = comma_list(args.measures)
    from evaltrans_qt.engine.measures import get as get_measure
    from evaltrans_qt.engine.run.driver import default_measures
    names = [get_measure(m).name for m in measures] if measures else default_measures(opts)
    refuse_unused_options(args, names, f"the tables compare {', '.join(names)}",
                          explicit=bool(measures))
    pairs = {}
    for lp, path in _pairs(args.pairs).items():
        db = open_database(path)
        if not db.has_class(args.human) and args.human != "rank":
            raise OptionError(f"{path}: no human score class '{args.human}'")
        pairs[lp] = (db, evaluate(db, opts, measures,
                                  progress=progress_for(args, os.cpu_count() or 1)))
    from evaltrans_qt.engine.metaeval import conventions
    from evaltrans_qt.engine.metaeval.wmt14_tables import CONVENTION
    tables = wmt14_tables(pairs, args.human, n_boot=args.bootstrap, seed=args.seed)
    said = "convention: " + conventions.describe(CONVENTION)
    if args.json:
        def clean(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        json.dump({**{k: [{c: clean(v) for c, v in row.items()} for row in f.to_dict("records")]
                      for k, f in tables.items()}, "convention": conventions.label(CONVENTION)},
                  sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for key, frame in tables.items():
            table = frame.to_string(index=False, float_format=lambda v: number(v, ".3f"))
            print(f"{TITLES[key]}\n{table}\n")
        print(said)
    if args.output:
        from evaltrans_qt.io.atomic import atomic_write_text
        tex = f"% {said}\n" + "\n".join(to_latex(frame, 3, caption=TITLES[key])
                                         for key, frame in tables.items())
        atomic_write_text(Path(args.output), tex)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("wmt14-tables", help="the WMT14 metrics-task tables (Machacek "
                              "ch. 4, Tables 4.2-4.7) over several language pairs",
                              description="System-level Pearson with bootstrap intervals, "
                              "segment-level WMT14 tau and the tau variants of every measure, "
                              "one database per language pair.")
    p.add_argument("pairs", nargs="+", metavar="LP=DB", help="language pair and its database")
    p.add_argument("--human", default="rank", help="human class (default: rank, the relative-"
                   "ranking judgements)")
    p.add_argument("--measures", metavar="M[,M]", help="measures (default: the default ones)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap samples of the system-level intervals (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="the three tables as JSON")
    p.add_argument("-o", "--output", metavar="FILE.tex", help="also write the tables as "
                   "LaTeX (booktabs)")
    add_option_arguments(p)
    add_progress_argument(p)
    p.set_defaults(func=run)
