"""Data commands: ``import text|wmt|sgml|aachen``, ``export aachen``, ``merge``, ``info``.

Every command reads and checks all input before writing; output files are
written atomically, so a failure never leaves a partial or overwritten file.
Bad input raises :class:`EvalTransError` (exit code 2, message on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io import aachen, etdb, plaintext, sgml, wmt


def _score_bound(text: str) -> float:
    """``--score-min``/``--score-max``: a finite plain decimal number (``io/limits.py``)."""
    from evaltrans_qt.io.limits import parse_number
    try:
        return parse_number(text, "the score bound")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _start_db(args: argparse.Namespace) -> Database | None:
    """The database to extend (``--append``) or None for a new one."""
    out = Path(args.output)
    if getattr(args, "append", False) and out.exists():
        return etdb.load_database(out)
    return None


def _write(db: Database, args: argparse.Namespace, imported: Database | None = None) -> None:
    """Save ``db``; warn about sentences merged by text (thesis Appendix A.2) in
    ``imported`` (default ``db``) -- positional imports never merge, so only Aachen text
    and old files can."""
    etdb.save_database(db, args.output)
    c = db.counts()
    print(f"{args.output}: {c['sources']} sources, {c['references']} references, "
          f"{c['candidates']} candidates of {len(c['systems'])} systems", file=sys.stderr)
    for line in plaintext.repeated_source_warnings(imported if imported is not None else db):
        print(f"warning: {line}", file=sys.stderr)


def _cmd_import_text(args: argparse.Namespace) -> int:
    refs = [plaintext.parse_named(r) if "=" in r and not Path(r).exists() else r
            for r in args.reference]
    systems = [plaintext.parse_named(s) for s in args.system]
    db = plaintext.import_text(args.source, refs, systems, _start_db(args), encoding=args.encoding)
    _write(db, args)
    return 0


def _cmd_import_wmt(args: argparse.Namespace) -> int:
    if args.score_class and not args.scores:
        raise InputFormatError("--score-class needs --scores TSV")
    db = wmt.import_wmt(args.folder, args.scores, args.score_class or "mqm", _start_db(args),
                        judge=args.judge, minimum=args.score_min, maximum=args.score_max,
                        encoding=args.encoding)
    _write(db, args)
    return 0


def _cmd_import_sgml(args: argparse.Namespace) -> int:
    db = sgml.import_sgml(args.source, args.reference, args.target, _start_db(args),
                          encoding=args.encoding)
    _write(db, args)
    return 0


def _cmd_import_aachen(args: argparse.Namespace) -> int:
    new = aachen.import_aachen(args.file, encoding=args.encoding)
    start = _start_db(args)
    if start is not None:
        merge(start, new, "old")
    _write(start if start is not None else new, args, new)
    return 0


def _cmd_export_aachen(args: argparse.Namespace) -> int:
    db = etdb.load_database(args.database)
    aachen.export_aachen(db, args.output, args.score_class)
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    a = etdb.load_database(args.first)
    b = etdb.load_database(args.second)
    report = merge(a, b, args.prefer)
    etdb.save_database(a, args.output)
    print(f"{args.output}: {report.summary()}", file=sys.stderr)
    return 0


def _is_report(path: str) -> bool:
    """True if the XML file's root element is an EvalTrans ``<report>`` (Figure A.2)."""
    import re
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    head = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", b"", head, flags=re.S)
    m = re.search(rb"<([A-Za-z_][\w.-]*)", head)
    return bool(m) and m.group(1) == b"report"


def _report_info(args: argparse.Namespace) -> int:
    """``evaltrans info REPORT.xml``: the report's system, date, software, and each
    measure's value with the signature it was computed under."""
    from evaltrans_qt.io.report import read_report
    run = read_report(args.database)
    (system, sr), = run.systems.items()
    sigs = run.signatures()
    meta = run.meta
    info = {"report": str(args.database), "system": system, "date": meta.get("date", ""),
            "software": meta.get("software", ""),
            "candidates": int((meta.get("candidate-statistics") or {}).get("candidates")
                              or len(sr.segments)),
            "measures": {m: {"value": sc.value if math.isfinite(sc.value) else None,
                             "signature": sigs.get(m)} for m, sc in sr.scores.items()}}
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
        return 0
    print(f"report      {args.database}")
    print(f"system      {system or '(no id)'}")
    print(f"date        {info['date']}")
    print(f"software    {info['software']}")
    print(f"candidates  {info['candidates'] or '-'}")
    for m, d in info["measures"].items():
        value = "nan" if d["value"] is None else f"{d['value']:.6f}"
        print(f"{m:<11} {value}  {d['signature'] or '(no signature: written by another tool)'}")
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    if _is_report(args.database):
        return _report_info(args)
    db = etdb.load_database(args.database)
    c = db.counts()
    if args.json:
        print(json.dumps(c, ensure_ascii=False))
        return 0
    print(f"database    {args.database}")
    print(f"sources     {c['sources']}")
    print(f"targets     {c['targets']}")
    print(f"references  {c['references']}  ({', '.join(c['reference_ids']) or '-'})")
    print(f"candidates  {c['candidates']}")
    print(f"systems     {len(c['systems'])}: {', '.join(c['systems']) or '-'}")
    if c["judges"]:
        print(f"judges      {', '.join(c['judges'])}")
    for lv in db.levels:
        if lv.name not in c["scored"]:
            continue
        scale = (f"continuous {lv.minimum:g}..{lv.maximum:g}" if lv.continuous
                 and lv.minimum is not None and lv.maximum is not None
                 else "continuous" if lv.continuous else f"levels {lv.firstvalid:g}..{lv.count - 1}")
        print(f"class {lv.name}: {scale}; scored targets {c['scored'][lv.name]}, "
              f"unscored candidates {c['unscored'][lv.name]}")
    return 0


def _output(p: argparse.ArgumentParser, what: str = "database to write (.etdb.xml)") -> None:
    p.add_argument("-o", "--output", required=True, metavar="DB", help=what)


def _import_common(p: argparse.ArgumentParser) -> None:
    _output(p)
    p.add_argument("--append", action="store_true",
                   help="extend DB if it exists (default: replace it)")
    p.add_argument("--encoding", default="utf-8", help="encoding of the input files (default utf-8)")


def _group(subparsers: argparse._SubParsersAction, name: str, help: str) -> argparse._SubParsersAction:
    """The FORMAT sub-commands of ``name`` (shared with other modules that add formats)."""
    parser = subparsers.choices.get(name)
    if parser is None:
        parser = subparsers.add_parser(name, help=help)
        return parser.add_subparsers(dest="format", metavar="FORMAT", required=True)
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def register(subparsers: argparse._SubParsersAction) -> None:
    isub = _group(subparsers, "import", "build a database from text, WMT, SGML or Aachen files")

    p = isub.add_parser("text", help="line-aligned plain text files")
    p.add_argument("--source", required=True, metavar="S", help="source sentences, one per line")
    p.add_argument("--reference", action="append", default=[], metavar="R",
                   help="reference file (repeatable; NAME=FILE names it, default ref-1, ref-2 ...)")
    p.add_argument("--system", action="append", default=[], metavar="NAME=FILE",
                   help="candidate translations of system NAME (repeatable)")
    _import_common(p)
    p.set_defaults(func=_cmd_import_text)

    p = isub.add_parser("wmt", help="WMT folder: *.src.*, *.ref.X.*, *.hyp.SYSTEM.*")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--scores", metavar="TSV", help="segment scores: system<TAB>seg_id<TAB>score")
    p.add_argument("--score-class", metavar="NAME", help="score class of the TSV scores (default mqm)")
    p.add_argument("--judge", help="judge name stored with the TSV scores")
    p.add_argument("--score-min", type=_score_bound,
                   help="lowest possible score (default: from the data)")
    p.add_argument("--score-max", type=_score_bound,
                   help="highest possible score (default: from the data)")
    _import_common(p)
    p.set_defaults(func=_cmd_import_wmt)

    p = isub.add_parser("sgml", help="NIST mteval SGML or XML: srcset, refset, tstset")
    p.add_argument("--source", required=True, metavar="S.sgm")
    p.add_argument("--reference", action="append", default=[], metavar="R.sgm")
    p.add_argument("--target", action="append", default=[], metavar="T.sgm")
    _import_common(p)
    p.set_defaults(func=_cmd_import_sgml)

    p = isub.add_parser("aachen", help="Aachen text format: SOURCE / TARGET <score> lines")
    p.add_argument("file", metavar="FILE")
    _import_common(p)
    p.set_defaults(func=_cmd_import_aachen)

    esub = _group(subparsers, "export", "write a database in another format")
    p = esub.add_parser("aachen", help="Aachen text format (references get score 10)")
    p.add_argument("database", metavar="DB")
    p.add_argument("--score-class", metavar="NAME", help="class written as the score (default: first)")
    _output(p, "text file to write")
    p.set_defaults(func=_cmd_export_aachen)
    from evaltrans_qt.cli.metaeval_io import register_formats  # scores, mtme, wmtxml
    register_formats(isub, esub)

    p = subparsers.add_parser("merge", help="merge database B into A, write C")
    p.add_argument("first", metavar="A")
    p.add_argument("second", metavar="B")
    p.add_argument("--prefer", choices=("old", "new"), default="old",
                   help="conflicting scores: keep A's (old) or take B's (new)")
    _output(p, "merged database to write")
    p.set_defaults(func=_cmd_merge)

    p = subparsers.add_parser("info", help="counts of a database, or a report's values and "
                                           "signatures")
    p.add_argument("database", metavar="FILE", help="an EvalTrans database or report")
    p.add_argument("--json", action="store_true",
                   help="one JSON object: sources, targets, references, candidates, systems, scored, ...")
    p.set_defaults(func=_cmd_info)
