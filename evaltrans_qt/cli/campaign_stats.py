"""``evaltrans campaign agreement`` and ``evaltrans campaign plan``: the statistics of a
campaign with several annotators (engine/campaign/agreement.py, engine/campaign/plan.py).

    evaltrans campaign agreement RESULT.etdb.xml [--gold JUDGE] [--json]
    evaltrans campaign plan DB --budget N|P% [--measures M,M] [--human CLASS]
                            [--random N] [--seed N] [--json]
    evaltrans campaign adjudicate RESULT.etdb.xml [--threshold T] [--severity] [--json]

``adjudicate`` lists where the annotators disagree beyond the threshold
(engine/campaign/adjudication.py), the work list of the application's adjudication
screen; a final judgement is recorded there, or with ``evaltrans judge ... --judge
adjudicated``.

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

from evaltrans_qt.cli._common import comma_list, number, open_database


# ------------------------------------------------------------------ agreement
def _print_agreement(report: Any) -> None:
    d = report.to_dict()
    print(f"judges: {', '.join(d['judge_names']) or 'none'}"
          + (f"; gold: {d['gold']}" if d["gold"] else ""))
    for c in d["classes"]:
        print(f"{c['name']} ({c['level']}): alpha {number(c['alpha'], '.4f')} over "
              f"{c['units']} units with >= 2 judgements"
              + (f", Fleiss' kappa {number(c['fleiss'], '.4f')}" if "fleiss" in c else "")
              + (f", Cohen's kappa {number(c['cohen'], '.4f')}" if "cohen" in c else ""))
        nominal = c["level"] == "nominal"
        if c["pairs"]:
            width = max(len(p["a"]) + len(p["b"]) + 3 for p in c["pairs"])
            print(f"  {'pair':<{width}} {'n':>6} " + (f"{'kappa':>8}" if nominal else
                                                     f"{'pearson':>8} {'kendall':>8}"))
            for p in c["pairs"]:
                pair = f"{p['a']} ~ {p['b']}"
                print(f"  {pair:<{width}} {p['n']:>6} " + (
                    number(p["kappa"], "8.4f") if nominal else
                    f"{number(p['pearson'], '8.4f')} {number(p['kendall'], '8.4f')}"))
        for g in c.get("gold", []):
            print(f"  {g['a']} vs gold {g['b']}: n {g['n']}, " + (
                f"kappa {number(g['kappa'], '.4f')}" if nominal else
                f"pearson {number(g['pearson'], '.4f')}, kendall {number(g['kendall'], '.4f')}"))
    for sp in d["spans"]:
        print(f"{sp['protocol']} spans: {sp['candidates']} candidates annotated by >= 2 "
              "judges (average over the pairs)")
        for key, row in (sp["average"].items() if sp["pairs"] else ()):
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


# ------------------------------------------------------------------ plan
def _print_plan(p: Any, db: Any) -> None:
    from evaltrans_qt.engine.campaign.plan import CRITERION
    print(f"budget {p.budget} of {p.candidates} candidates ({p.judged} judged already); "
          f"criterion: {CRITERION}; measures {', '.join(p.measures)}")
    todo: dict[int, list[str]] = {}
    for si, ti in p.items:
        todo.setdefault(si, []).append(db.sources[si].targets[ti].system or "")
    print(f"to annotate: {len(p.items)} candidates of {len(todo)} sources; reused: "
          f"{p.reused_judged} identical to a judged translation, {p.reused_planned} identical "
          "to one planned here")
    for si in p.sources:
        if si in todo:
            print(f"  source {si + 1} (variance {number(p.variance.get(si, 0.0), '.4f')}): "
                  + ", ".join(sorted(todo[si])))
    free = sum(1 for si in p.sources if si not in todo)
    if free:
        print(f"  and {free} sources whose candidates are all reused (see --json)")
    if p.reproduction:
        print(f"ranking by {p.human} from the MetricVar subset vs {p.reproduction[0].n_random} "
              "random subsets of as many sources (Kendall tau_b, pairwise accuracy):")
        print(f"  {'budget':>6} {'sources':>7} {'tau':>7} {'acc':>7} {'rand tau':>9} "
              f"{'rand acc':>9} {'rand < acc':>10}")
        for r in p.reproduction:
            print(f"  {r.fraction * 100:>5.0f}% {r.sources:>7} {number(r.tau, '7.3f')} "
                  f"{number(r.accuracy, '7.3f')} {number(r.random_tau, '9.3f')} "
                  f"{number(r.random_accuracy, '9.3f')} {number(r.random_share_below, '10.2f')}")
    elif p.reproduction_note:
        print(f"no ranking comparison: {p.reproduction_note}")


def run_plan(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.campaign.plan import DEFAULT_MEASURES, plan
    from evaltrans_qt.errors import OptionError
    if args.random < 0:
        raise OptionError(f"--random {args.random}: give 0 or more random subsets")
    db = open_database(args.database)
    p = plan(db, args.budget, measures=comma_list(args.measures) or DEFAULT_MEASURES,
             human=args.human, n_random=args.random, seed=args.seed)
    if args.json:
        print(json.dumps(p.to_dict(db), ensure_ascii=False))
    else:
        _print_plan(p, db)
    return 0


# ------------------------------------------------------------------ adjudicate
def run_adjudicate(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.campaign.adjudication import find_disagreements
    db = open_database(args.database)
    found = find_disagreements(db, args.threshold, severity=args.severity)
    rows = []
    for d in found:
        si, ti = d.item
        t = db.sources[si].targets[ti]
        row: dict[str, Any] = {"source": si + 1, "system": t.system, "kind": d.kind,
                               "name": d.name, "spread": d.spread,
                               "adjudicated": d.adjudicated}
        if d.kind == "score":
            row["scores"] = d.scores
        else:
            row["lone"] = [{"judge": x.judge, "error": x.index + 1, "start": x.error.start,
                            "end": x.error.end, "severity": x.error.severity,
                            "text": x.error.text_of(t.text if x.error.side == "target"
                                                    else db.sources[si].text)}
                           for x in d.lone]
        rows.append(row)
    if args.json:
        print(json.dumps({"threshold": args.threshold, "disagreements": rows},
                         ensure_ascii=False))
        return 0
    done = sum(1 for r in rows if r["adjudicated"])
    print(f"{len(rows)} disagreements ({done} adjudicated)")
    for r in rows:
        mark = "*" if r["adjudicated"] else " "
        what = (", ".join(f"{j} {v:g}" for j, v in sorted(r["scores"].items()))
                if r["kind"] == "score" else
                "; ".join(f"{x['judge']} alone: {x['text']!r} ({x['severity']})"
                          for x in r["lone"]))
        print(f"{mark} source {r['source']} {r['system']} {r['name']}: {what}")
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

    p = sub.add_parser("plan", help="which candidates to annotate within a budget: identical "
                       "translations reused, sources chosen by metric variance",
                       description="Suggest the candidates to send for annotation within a "
                                   "budget: identical translations of a judged (or planned) "
                                   "one are reused (the database method), and sources are "
                                   "chosen by the variance of the measures' sentence scores "
                                   "across systems (MetricVar, Zouhar et al. 2025). With "
                                   "complete human scores, reports how well the subset's "
                                   "system ranking reproduces the full one against random "
                                   "subsets.")
    p.add_argument("database", metavar="DB")
    p.add_argument("--budget", required=True, metavar="N|P%",
                   help="items (candidates) to annotate: a number, or a percentage of all")
    p.add_argument("--measures", metavar="M[,M]",
                   help="measures whose sentence scores rank the sources (default: chrf,wer; "
                        "computed with the default evaluation options)")
    p.add_argument("--human", metavar="CLASS",
                   help="the class being collected: a candidate with a score of it is judged; "
                        "the ranking comparison uses it (default: any judgement; the first "
                        "human class with scores)")
    p.add_argument("--random", type=int, default=100, metavar="N",
                   help="random subsets the chosen one is compared with (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of the random subsets (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=run_plan)

    p = sub.add_parser("adjudicate", help="list where the annotators disagree (score spread, "
                       "spans found by only some) for adjudication",
                       description="List the candidates where the annotators disagree beyond "
                                   "a threshold: a score spread above a share of the class' "
                                   "scale, or error spans found by only some annotators. The "
                                   "final judgements are the judge 'adjudicated' (the "
                                   "application's adjudication screen, or evaltrans judge "
                                   "--judge adjudicated).")
    p.add_argument("database", metavar="RESULT")
    p.add_argument("--threshold", type=float, default=0.25, metavar="T",
                   help="a score disagreement is a spread above T times the class' scale "
                        "(default 0.25)")
    p.add_argument("--severity", action="store_true",
                   help="a span overlapped only by spans of another severity is found alone")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=run_adjudicate)
