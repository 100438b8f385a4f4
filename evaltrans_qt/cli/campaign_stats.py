"""``evaltrans campaign agreement`` and ``evaltrans campaign plan``: the statistics of a
campaign with several annotators (engine/campaign/agreement.py, engine/campaign/plan.py).

    evaltrans campaign agreement RESULT.etdb.xml [--gold JUDGE] [--json]
    evaltrans campaign plan DB --budget N|P% [--json]

These are sub-commands of ``campaign`` (cli/campaign.py): that module calls
:func:`add_subcommands` with its sub-parsers object. The function is deliberately not
called ``register``: cli/main.py calls a module's ``register`` with the *top-level*
sub-parsers (and imports every module defining one at start-up), which would make
``agreement`` and ``plan`` top-level commands.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from evaltrans_qt.cli._common import number, open_database


# ------------------------------------------------------------------ agreement
def _print_agreement(report: Any) -> None:
    d = report.to_dict()
    print(f"{d['judges']} judges, {d['units']} judged units")
    for c in d["classes"]:
        print(f"{c['name']} ({c['level']}): alpha {number(c['alpha'], '.4f')} over "
              f"{c['units']} units with >= 2 judgements"
              + (f", Fleiss' kappa {number(c['fleiss'], '.4f')}" if "fleiss" in c else "")
              + (f", Cohen's kappa {number(c['cohen'], '.4f')}" if "cohen" in c else ""))
        if c["pairs"]:
            width = max(len(p["a"]) + len(p["b"]) + 3 for p in c["pairs"])
            print(f"  {'pair':<{width}} {'n':>6} {'pearson':>8} {'kendall':>8}")
            for p in c["pairs"]:
                pair = f"{p['a']} ~ {p['b']}"
                print(f"  {pair:<{width}} {p['n']:>6} {number(p['pearson'], '8.4f')} "
                      f"{number(p['kendall'], '8.4f')}")
        for g in c.get("gold", []):
            print(f"  {g['a']} vs gold {g['b']}: n {g['n']}, pearson {number(g['pearson'], '.4f')}, "
                  f"kendall {number(g['kendall'], '.4f')}")
    for sp in d["spans"]:
        print(f"{sp['protocol']} spans: {sp['candidates']} candidates annotated by >= 2 "
              "judges (average over the pairs)")
        for key, row in sp["average"].items():
            print(f"  {key:<28} P {number(row['precision'], '.4f')} "
                  f"R {number(row['recall'], '.4f')} F1 {number(row['f1'], '.4f')}")
        for p in sp["pairs"]:
            print(f"  {p['a']} ~ {p['b']} ({p['candidates']} candidates): " + ", ".join(
                f"{k} F1 {number(v['f1'], '.3f')}" for k, v in p["scores"].items()))
        for g in sp.get("gold", []):
            print(f"  {g['a']} vs gold {g['b']} ({g['candidates']} candidates): " + ", ".join(
                f"{k} P {number(v['precision'], '.3f')} R {number(v['recall'], '.3f')} "
                f"F1 {number(v['f1'], '.3f')}" for k, v in g["scores"].items()))


def run_agreement(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.campaign.agreement import campaign_agreement
    db = open_database(args.database)
    report = campaign_agreement(db, gold=args.gold)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        _print_agreement(report)
    return 0


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    """Add ``agreement`` (and ``plan``) to the ``campaign`` command's sub-parsers."""
    p = sub.add_parser("agreement", help="agreement of the annotators: Krippendorff's alpha, "
                       "kappa, pairwise correlation, span precision/recall/F1",
                       description="Agreement between the judges of a database (a collected "
                                   "campaign): Krippendorff's alpha per class (interval for "
                                   "scales and MQM penalties, ordinal for ranks, nominal for "
                                   "item marks), Cohen's and Fleiss' kappa, Pearson and "
                                   "Kendall per pair of judges, and character- and span-level "
                                   "precision/recall/F1 of error spans per pair.")
    p.add_argument("database", metavar="RESULT")
    p.add_argument("--gold", metavar="JUDGE",
                   help="also compare every other judge with this one (scores and spans)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=run_agreement)
