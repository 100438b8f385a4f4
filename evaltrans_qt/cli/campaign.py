"""``evaltrans campaign``: human evaluation with several annotators (``docs/campaigns.md``).

    evaltrans campaign create DB --protocol P --annotators a,b,c [--redundancy 2]
        [--batch 50] [--systems S1,S2] [--classes C1,C2] [--documents] [--seed N]
        [--qc bad-refs=0.1,repeats=0.05,injected=0.1] [--instructions FILE.md]
        [--tutorial FILE.json] [--rank-size K] -o CAMPAIGN.etcampaign.json
    evaltrans campaign bundle CAMPAIGN.etcampaign.json -o DIR
    evaltrans campaign collect CAMPAIGN.etcampaign.json DIR/*.etdb.xml -o RESULT.etdb.xml
    evaltrans campaign qc RESULT.etdb.xml [--json]

``agreement`` and ``plan`` come from :mod:`evaltrans_qt.cli.campaign_stats`.
"""

from __future__ import annotations

import argparse
import json
import sys

from evaltrans_qt.cli._common import (
    add_json_argument,
    check_output_file,
    check_output_folder,
    comma_list,
)


def run_create(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.campaign.assignment import assign
    from evaltrans_qt.engine.campaign.definition import QCPlan, parse_qc
    from evaltrans_qt.errors import OptionError
    from evaltrans_qt.io.campaign_file import create_campaign
    check_output_file(args.output)
    annotators = comma_list(args.annotators)
    if not annotators:
        raise OptionError("--annotators: give the annotators' names, separated by commas")
    d = create_campaign(args.database, args.output, protocol=args.protocol,
                        annotators=annotators, redundancy=args.redundancy, batch=args.batch,
                        systems=comma_list(args.systems), classes=comma_list(args.classes),
                        documents=args.documents, seed=args.seed,
                        qc=parse_qc(args.qc) if args.qc else QCPlan(),
                        instructions=args.instructions, tutorial=args.tutorial,
                        rank_size=args.rank_size)
    plans = assign(d)
    print(f"campaign {d.campaign_id}: {len(d.items)} items ({len(d.systems)} systems), "
          f"protocol {d.protocol}, redundancy {d.redundancy}, {len(d.annotators)} annotators "
          f"-> {args.output}")
    for a in d.annotators:
        p = plans[a]
        print(f"  {a}: {len(p.real_items)} items + {len(p.slots) - len(p.real_items)} "
              f"quality-control, {p.batches} batch{'' if p.batches == 1 else 'es'}")
    return 0


def run_bundle(args: argparse.Namespace) -> int:
    from evaltrans_qt.io.campaign_bundle import write_bundles
    check_output_folder(args.output)
    for p in write_bundles(args.campaign, args.output):
        print(p)
    return 0


def run_collect(args: argparse.Namespace) -> int:
    from evaltrans_qt.io.campaign_collect import collect
    check_output_file(args.output)
    report = collect(args.campaign, args.bundles, args.output,
                     warn=lambda text: print(f"evaltrans: warning: {text}", file=sys.stderr))
    for r in report.merged:
        n = sum(j.kind == "real" for j in r.judged)
        print(f"{r.path}: {r.annotator}, {n} item{'' if n == 1 else 's'} judged")
    missing = report.missing
    print(f"{report.judgements} judgement(s) stored in {args.output}"
          + (f"; no bundle yet from {', '.join(missing)}" if missing else ""))
    return 0


def _print_qc(report) -> None:
    print(f"campaign {report.campaign}")
    for a in report.annotators:
        med = "-" if a.median_seconds is None else f"{a.median_seconds:.1f} s"
        print(f"{a.annotator}: {'PASS' if a.passed else 'FAIL'}  {a.done} of {a.assigned} "
              f"items done, median {med} per item")
        for c in a.checks:
            mark = {True: "ok  ", False: "FAIL", None: "n/a "}[c.passed]
            print(f"  {mark} {c.name}: {c.detail}")
    if report.missing:
        print(f"no bundle collected from: {', '.join(report.missing)}")


def run_qc(args: argparse.Namespace) -> int:
    from evaltrans_qt.io.campaign_qc import qc_report, read_result_file
    report = qc_report(read_result_file(args.result), args.result)
    if args.json:
        print(json.dumps(report.to_dict(), indent=1, ensure_ascii=False))
    else:
        _print_qc(report)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    from evaltrans_qt.engine.campaign.definition import NOT_CAMPAIGN_PROTOCOLS, PROTOCOLS
    cp = subparsers.add_parser(
        "campaign", help="human evaluation with several annotators: create, bundle, collect, "
                         "quality control, agreement, plan",
        description="An offline campaign: one bundle (.etdb.xml) per annotator, collected "
                    "back, checked and analysed (docs/campaigns.md).")
    sub = cp.add_subparsers(dest="campaign_command", metavar="ACTION", required=True)

    p = sub.add_parser("create", help="define a campaign over a database (.etcampaign.json)")
    p.add_argument("database", metavar="DB")
    p.add_argument("--protocol", required=True,
                   choices=sorted([*PROTOCOLS, *NOT_CAMPAIGN_PROTOCOLS]),
                   help="how items are judged: " + "; ".join(
                       f"{k}: {v.description}" for k, v in PROTOCOLS.items())
                   + " (segranks cannot be a campaign)")
    p.add_argument("--annotators", required=True, metavar="A,B,…",
                   help="the annotators' names, separated by commas")
    p.add_argument("--redundancy", type=int, default=1, metavar="R",
                   help="distinct annotators per item (default 1)")
    p.add_argument("--batch", type=int, default=50, metavar="N",
                   help="items per batch (default 50)")
    p.add_argument("--systems", metavar="S1,S2", help="only these systems (default: all)")
    p.add_argument("--classes", metavar="C1,C2",
                   help="with --protocol classes: the database classes to judge (default: "
                        "all human classes but esa)")
    p.add_argument("--documents", action="store_true",
                   help="keep each document of a system together and in order")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice")
    p.add_argument("--qc", metavar="NAME=V,…",
                   help="quality control: bad-refs, injected, repeats (shares of each "
                        "annotator's items), straight-line, time-floor, max-fast-share, "
                        "min-detected, repeat-tolerance, alpha")
    p.add_argument("--instructions", metavar="FILE.md",
                   help="Markdown instructions shown to the annotators")
    p.add_argument("--tutorial", metavar="FILE.json",
                   help="tutorial items with known answers (docs/campaigns.md)")
    p.add_argument("--rank-size", type=int, metavar="K",
                   help="with --protocol ranking: systems ranked on one screen (default 5, "
                        "as WMT's relative ranking)")
    p.add_argument("-o", "--output", required=True, metavar="CAMPAIGN.etcampaign.json")
    p.set_defaults(func=run_create)

    p = sub.add_parser("bundle", help="write one .etdb.xml bundle per annotator")
    p.add_argument("campaign", metavar="CAMPAIGN.etcampaign.json")
    p.add_argument("-o", "--output", required=True, metavar="DIR")
    p.set_defaults(func=run_bundle)

    p = sub.add_parser("collect", help="check the returned bundles and merge them into the "
                                       "result database")
    p.add_argument("campaign", metavar="CAMPAIGN.etcampaign.json")
    p.add_argument("bundles", nargs="+", metavar="BUNDLE.etdb.xml")
    p.add_argument("-o", "--output", required=True, metavar="RESULT.etdb.xml")
    p.set_defaults(func=run_collect)

    p = sub.add_parser("qc", help="quality control per annotator of a collected campaign")
    p.add_argument("result", metavar="RESULT.etdb.xml")
    add_json_argument(p)
    p.set_defaults(func=run_qc)

    from evaltrans_qt.cli.campaign_stats import add_subcommands
    add_subcommands(sub)
