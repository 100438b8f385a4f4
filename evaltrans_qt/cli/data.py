"""The database's files: ``import``, ``export``, ``merge``, ``info``.

* ``evaltrans import text|wmt|sgml|aachen ... -o DB`` -- sentences (and scores) from
  one-sentence-per-line text, a WMT folder, NIST SGML/XML or the Aachen text format;
* ``evaltrans import scores FILE... --database DB [--name NAME]
  [--higher-is-better | --lower-is-better] [--format wmt|mtme|tsv|jsonl]`` -- external
  metric scores (``io/scores.py``) stored in DB (or ``-o`` another file);
* ``evaltrans import mtme DIR --lp SRC-TGT -o DB`` -- an mt-metrics-eval EvalSet;
* ``evaltrans import wmtxml FILE -o DB`` -- a WMT21+ XML test set;
* ``evaltrans export aachen DB -o FILE`` -- the Aachen text format;
* ``evaltrans export mtme DB -o DIR [--lp] [--measures M,M | --no-measures]`` -- the
  database and our measures' scores (``--preset`` and the evaluation options) as an
  mt-metrics-eval directory;
* ``evaltrans merge A B -o C`` and ``evaltrans info DB|REPORT``.

Every command reads and checks all input before writing; output files are
written atomically, so a failure never leaves a partial or overwritten file.
Bad input raises :class:`EvalTransError` (exit code 2, message on stderr).
Databases are read and written the one way (``cli/_common.py``, ``io/store.py``): a
journal of unsaved judgements is included, and a database is not written while
evaltrans-qt holds it open (unless ``--force``) nor over a journal it would orphan.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

from evaltrans_qt.cli._common import (
    add_force_argument,
    add_option_arguments,
    check_output_file,
    check_output_folder,
    comma_list,
    number,
    open_database,
    option_values,
    options_from_args,
    refuse_unused_options,
    write_database,
)
from evaltrans_qt.cli.progress import add_progress_argument, progress_for
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io import aachen, plaintext, sgml, wmt


def _score_bound(text: str) -> float:
    """``--score-min``/``--score-max``: a finite plain decimal number (``io/limits.py``)."""
    from evaltrans_qt.io.limits import parse_number
    try:
        return parse_number(text, "the score bound")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_LP = re.compile(r"^[A-Za-z]{2,3}-[A-Za-z]{2,3}$")
_LANG_SUFFIX = re.compile(r"\.([a-z]{2})$")


def _language_pair(text: str) -> str:
    """argparse type of ``--lp``: ``SRC-TGT`` language codes (``de-en``)."""
    if not _LP.match(text):
        raise argparse.ArgumentTypeError(f"expected SRC-TGT language codes such as de-en, "
                                         f"got {text!r}")
    return text


def _pair_of(source_lang: str | None, target_langs: set[str]) -> str | None:
    """``SRC-TGT`` when the source language and the one target language are known and
    differ."""
    if source_lang and len(target_langs) == 1 and source_lang not in target_langs:
        return f"{source_lang}-{next(iter(target_langs))}"
    return None


def wmt_language_pair(folder: str | Path) -> str | None:
    """The language pair a WMT folder's file names give: ``X.src.de`` with ``X.ref.A.en``
    and ``X.hyp.SYSTEM.en`` -> ``de-en`` (None if they do not say one pair)."""
    src_lang, tgt = None, set()
    for f in sorted(Path(folder).iterdir()) if Path(folder).is_dir() else ():
        if m := re.match(r"^.+?\.src\.([^.]+)$", f.name):
            src_lang = m.group(1)
        elif m := re.match(r"^.+?\.(?:ref|hyp)\..+\.([^.]+)$", f.name):
            tgt.add(m.group(1))
    return _pair_of(src_lang, tgt)


def wmtxml_language_pair(path: str | Path) -> str | None:
    """The language pair a WMT XML test set declares: ``<src lang="de">`` with
    ``<ref lang="en">``/``<hyp lang="en">`` (the first 1 MB is read; None if it does not say
    one pair)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return None
    src = set(re.findall(r"<src\b[^>]*\blang=\"([^\"]+)\"", head))
    tgt = set(re.findall(r"<(?:ref|hyp)\b[^>]*\blang=\"([^\"]+)\"", head))
    return _pair_of(next(iter(src)), tgt) if len(src) == 1 else None


def text_language_pair(source: str, others: list[str]) -> str | None:
    """The language pair the file names of ``import text`` give: two-letter suffixes,
    ``test.de`` with ``test.en`` (every reference and system the same) -> ``de-en``."""
    src = _LANG_SUFFIX.search(Path(source).name)
    tgt = {m.group(1) for m in (_LANG_SUFFIX.search(Path(o).name) for o in others) if m}
    if src is None or not others or len(tgt) != 1 or any(
            not _LANG_SUFFIX.search(Path(o).name) for o in others):
        return None
    return _pair_of(src.group(1), tgt)


def _record_language_pair(db: Database, given: str | None, inferred: str | None) -> None:
    """Store the language pair (``--lp``, else the one the file names give) in ``db``, where
    ``export mtme`` finds it; a pair that contradicts the database's is an error."""
    from evaltrans_qt.errors import OptionError
    from evaltrans_qt.io.mtme import LP_ATTR
    lp = given or inferred
    if lp is None:
        return
    old = db.extra_attrs.get(LP_ATTR)
    if old and old != lp:
        raise OptionError(f"language pair {lp} but the database holds {old}")
    db.extra_attrs[LP_ATTR] = lp


def _start_db(args: argparse.Namespace) -> Database | None:
    """The database to extend (``--append``: the output file, its journal included) or None
    for a new one. Checks first that the output can be written."""
    check_output_file(args.output, "-o")
    out = Path(args.output)
    if getattr(args, "append", False) and out.exists():
        return open_database(out)
    return None


def _write(db: Database, args: argparse.Namespace, start: Database | None,
           imported: Database | None = None) -> None:
    """Save ``db`` (which includes ``start``, the output file read by ``--append``: so it is
    written in place, its journal folded); warn about sentences merged by text (thesis
    Appendix A.2) in ``imported`` (default ``db``) -- positional imports never merge, so
    only Aachen text and old files can."""
    c = db.counts()
    write_database(db, args.output, f"{c['sources']} sources, {c['references']} references, "
                                    f"{c['candidates']} candidates of {len(c['systems'])} systems",
                   force=args.force, includes=[start] if start is not None else [])
    for line in plaintext.repeated_source_warnings(imported if imported is not None else db):
        print(f"warning: {line}", file=sys.stderr)


def run_import_text(args: argparse.Namespace) -> int:
    refs = [plaintext.parse_named(r) if "=" in r and not Path(r).exists() else r
            for r in args.reference]
    systems = [plaintext.parse_named(s) for s in args.system]
    start = _start_db(args)
    db = plaintext.import_text(args.source, refs, systems, start, encoding=args.encoding)
    files = [r[1] if isinstance(r, tuple) else r for r in refs] + [f for _, f in systems]
    _record_language_pair(db, args.lp, text_language_pair(args.source, [str(f) for f in files]))
    _write(db, args, start)
    return 0


def run_import_wmt(args: argparse.Namespace) -> int:
    if args.score_class and not args.scores:
        raise InputFormatError("--score-class needs --scores TSV")
    start = _start_db(args)
    if (args.judge is not None or args.score_min is not None or args.score_max is not None) \
            and not args.scores:
        raise InputFormatError("--judge, --score-min and --score-max describe the --scores "
                               "TSV: give --scores")
    db = wmt.import_wmt(args.folder, args.scores, args.score_class or "mqm", start,
                        judge=args.judge, minimum=args.score_min, maximum=args.score_max,
                        encoding=args.encoding)
    _record_language_pair(db, args.lp, wmt_language_pair(args.folder))
    _write(db, args, start)
    return 0


def run_import_sgml(args: argparse.Namespace) -> int:
    start = _start_db(args)
    db = sgml.import_sgml(args.source, args.reference, args.target, start,
                          encoding=args.encoding)
    _write(db, args, start)
    return 0


def run_import_aachen(args: argparse.Namespace) -> int:
    new = aachen.import_aachen(args.file, encoding=args.encoding)
    start = _start_db(args)
    if start is not None:
        merge(start, new, "old")
    _write(start if start is not None else new, args, start, new)
    return 0


def run_export_aachen(args: argparse.Namespace) -> int:
    check_output_file(args.output, "-o")
    db = open_database(args.database)
    aachen.export_aachen(db, args.output, args.score_class)
    return 0


def run_merge(args: argparse.Namespace) -> int:
    check_output_file(args.output, "-o")
    a = open_database(args.first)
    b = open_database(args.second)
    report = merge(a, b, args.prefer)
    # merge A B -o B writes B in place: B's file and journal are checked and folded too
    write_database(a, args.output, report.summary(), force=args.force, includes=[b])
    return 0


def run_import_scores(args: argparse.Namespace) -> int:
    from evaltrans_qt.io import scores
    check_output_file(args.output or args.database, "-o" if args.output else "--database")
    if args.lp is not None or args.testset is not None:
        from evaltrans_qt.errors import OptionError
        for f in args.files:
            fmt = args.format or scores.detect_format(f)
            if fmt != "wmt":
                flag = "--lp" if args.lp is not None else "--testset"
                raise OptionError(f"{flag} chooses lines of a WMT submission file; {f} is "
                                  f"{fmt}, which has none")
    db = open_database(args.database)
    hib = None if args.direction is None else args.direction == "higher"
    got = scores.import_scores(db, args.files, fmt=args.format, name=args.name,
                               higher_is_better=hib, lp=args.lp, testset=args.testset)
    out = args.output or args.database
    write_database(db, out, force=args.force)
    for m in got:
        n = sum(len(v) for v in m.segments.values())
        print(f"{out}: external metric '{m.name}' ({'higher' if m.higher_is_better else 'lower'}"
              f" is better): {n} segment scores, {len(m.systems)} system scores of "
              f"{len(set(m.segments) | set(m.systems))} systems", file=sys.stderr)
    return 0


def run_import_mtme(args: argparse.Namespace) -> int:
    from evaltrans_qt.io.mtme import import_mtme
    start = _start_db(args)
    db = import_mtme(args.directory, args.lp, start)
    _write(db, args, start)
    return 0


def run_import_wmtxml(args: argparse.Namespace) -> int:
    from evaltrans_qt.io.wmtxml import import_wmtxml
    start = _start_db(args)
    db = import_wmtxml(args.file, start)
    _record_language_pair(db, args.lp, wmtxml_language_pair(args.file))
    _write(db, args, start)
    return 0


def run_export_mtme(args: argparse.Namespace) -> int:
    from evaltrans_qt.errors import OptionError
    from evaltrans_qt.io.mtme import LP_ATTR, export_mtme
    check_output_folder(args.output, "-o")
    if args.no_measures and (args.measures or args.preset or option_values(args)):
        raise OptionError("--no-measures writes the data only: --measures, --preset and the "
                          "evaluation options are not used")
    db = open_database(args.database)
    lp = args.lp or db.extra_attrs.get(LP_ATTR)
    if not lp:
        raise OptionError("give the language pair (--lp SRC-TGT): the database does not "
                          "record one")
    run = None
    if not args.no_measures:
        from evaltrans_qt.engine.measures import get as get_measure
        from evaltrans_qt.engine.run.driver import default_measures, evaluate
        options = options_from_args(args)
        measures = [get_measure(m).name for m in comma_list(args.measures) or ()] \
            or default_measures(options)
        refuse_unused_options(args, measures, f"export mtme writes {', '.join(measures)}",
                              explicit=bool(args.measures))
        run = evaluate(db, options, measures, progress=progress_for(args, os.cpu_count() or 1))
    files = export_mtme(db, args.output, lp, run)
    print(f"{args.output}: {len(files)} files", file=sys.stderr)
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
    return m is not None and m.group(1) == b"report"


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
        value = number(d["value"], ".6f", missing="nan")
        print(f"{m:<11} {value}  {d['signature'] or '(no signature: written by another tool)'}")
    return 0


def run_info(args: argparse.Namespace) -> int:
    if _is_report(args.database):
        return _report_info(args)
    db = open_database(args.database)
    c = db.counts()
    extra = database_extras(db)
    if args.json:
        print(json.dumps({**c, **extra}, ensure_ascii=False))
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
        if lv.continuous and lv.minimum is not None and lv.maximum is not None:
            scale = f"continuous {number(lv.minimum, 'g')}..{number(lv.maximum, 'g')}"
        elif lv.continuous:
            scale = "continuous"
        else:
            scale = f"levels {number(lv.firstvalid, 'g')}..{lv.count - 1}"
        print(f"class {lv.name}: {scale}; scored targets {c['scored'][lv.name]}, "
              f"unscored candidates {c['unscored'][lv.name]}")
    print(f"language    {extra['language_pair'] or '-'}")
    p = extra["protocols"]
    done = [f"{n} {what}" for what, n in (("sources with items", p["sources_with_items"]),
                                         ("item marks", p["item_marks"]),
                                         ("post-edits", p["postedits"]),
                                         ("added references", p["added_references"])) if n]
    print(f"protocols   {', '.join(done) or '-'}")
    for name, m in extra["external_metrics"].items():
        print(f"external    {name} ({'higher' if m['higher_is_better'] else 'lower'} is better): "
              f"{m['segment_scores']} segment scores, {m['system_scores']} system scores")
    if not extra["external_metrics"]:
        print("external    -")
    return 0


def database_extras(db: Database) -> dict:
    """What ``info`` adds to :meth:`Database.counts`: the language pair recorded by an
    import, the human-evaluation protocols' data (items, marks, post-edits, references added
    by judges) and the external metrics with their number of scores."""
    from evaltrans_qt.io.mtme import LP_ATTR
    prot = {"sources_with_items": sum(1 for s in db.sources if s.items), "item_marks": 0,
            "postedits": 0, "added_references": 0}
    for s in db.sources:
        for t in s.targets:
            prot["item_marks"] += len(t.item_marks)
            prot["postedits"] += len(t.postedits)
            prot["added_references"] += bool(t.added)
    metrics = {name: {"higher_is_better": bool(m.higher_is_better),
                      "segment_scores": sum(len(v) for v in m.segments.values()),
                      "system_scores": len(m.systems)}
               for name, m in db.external_metrics.items()}
    return {"language_pair": db.extra_attrs.get(LP_ATTR), "protocols": prot,
            "external_metrics": metrics}


def _output(p: argparse.ArgumentParser, what: str = "database to write (.etdb.xml)",
            database: bool = True, metavar: str = "DB") -> None:
    """``-o METAVAR``; with ``database`` (a database is written there) also ``--force``."""
    p.add_argument("-o", "--output", required=True, metavar=metavar, help=what)
    if database:
        add_force_argument(p)


def _lp_argument(p: argparse.ArgumentParser, inferred_from: str) -> None:
    """``--lp SRC-TGT`` of an import that can also take the pair from its file names."""
    p.add_argument("--lp", type=_language_pair, metavar="SRC-TGT",
                   help="language pair to record in the database, for export mtme (default: "
                        f"from the file {inferred_from})")


def _import_common(p: argparse.ArgumentParser, encoding: bool = True) -> None:
    """``-o``, ``--force``, ``--append`` and (for formats without their own) ``--encoding``."""
    _output(p)
    p.add_argument("--append", action="store_true",
                   help="extend DB if it exists (default: replace it)")
    if encoding:
        p.add_argument("--encoding", default="utf-8",
                       help="encoding of the input files (default utf-8)")


def _formats(subparsers: argparse._SubParsersAction, name: str,
             help: str) -> argparse._SubParsersAction:
    """Command ``name`` with one sub-command per file FORMAT."""
    parser = subparsers.add_parser(name, help=help)
    return parser.add_subparsers(dest="format", metavar="FORMAT", required=True)


def register(subparsers: argparse._SubParsersAction) -> None:
    isub = _formats(subparsers, "import", "build a database from text, WMT, SGML or Aachen files")
    from evaltrans_qt.cli.judge import add_import_judgements
    add_import_judgements(isub)                # human judgements into a database (cli/judge.py)
    from evaltrans_qt.cli.spans import add_export_mqm, add_import_mqm
    add_import_mqm(isub)                       # Google's MQM TSV (cli/spans.py)

    p = isub.add_parser("text", help="line-aligned plain text files")
    p.add_argument("--source", required=True, metavar="S", help="source sentences, one per line")
    p.add_argument("--reference", action="append", default=[], metavar="R",
                   help="reference file (repeatable; NAME=FILE names it, default ref-1, ref-2 ...)")
    p.add_argument("--system", action="append", default=[], metavar="NAME=FILE",
                   help="candidate translations of system NAME (repeatable)")
    _lp_argument(p, "names ending in two-letter language codes, e.g. test.de and test.en")
    _import_common(p)
    p.set_defaults(func=run_import_text)

    p = isub.add_parser("wmt", help="WMT folder: *.src.*, *.ref.X.*, *.hyp.SYSTEM.*")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--scores", metavar="TSV", help="segment scores: system<TAB>seg_id<TAB>score")
    p.add_argument("--score-class", metavar="NAME", help="score class of the TSV scores (default mqm)")
    p.add_argument("--judge", help="judge name stored with the TSV scores")
    p.add_argument("--score-min", type=_score_bound,
                   help="lowest possible score (default: from the data)")
    p.add_argument("--score-max", type=_score_bound,
                   help="highest possible score (default: from the data)")
    _lp_argument(p, "names, e.g. X.src.de with X.ref.A.en")
    _import_common(p)
    p.set_defaults(func=run_import_wmt)

    p = isub.add_parser("sgml", help="NIST mteval SGML or XML: srcset, refset, tstset")
    p.add_argument("--source", required=True, metavar="S.sgm")
    p.add_argument("--reference", action="append", default=[], metavar="R.sgm")
    p.add_argument("--target", action="append", default=[], metavar="T.sgm")
    _import_common(p)
    p.set_defaults(func=run_import_sgml)

    p = isub.add_parser("aachen", help="Aachen text format: SOURCE / TARGET <score> lines")
    p.add_argument("file", metavar="FILE")
    _import_common(p)
    p.set_defaults(func=run_import_aachen)

    esub = _formats(subparsers, "export", "write a database in another format")
    p = esub.add_parser("aachen", help="Aachen text format (references get score 10)")
    p.add_argument("database", metavar="DB")
    p.add_argument("--score-class", metavar="NAME", help="class written as the score (default: first)")
    _output(p, "text file to write", database=False, metavar="FILE")
    p.set_defaults(func=run_export_aachen)
    _register_metrics_task_formats(isub, esub)
    add_export_mqm(esub)

    p = subparsers.add_parser("merge", help="merge database B into A, write C")
    p.add_argument("first", metavar="A")
    p.add_argument("second", metavar="B")
    p.add_argument("--prefer", choices=("old", "new"), default="old",
                   help="conflicting scores: keep A's (old) or take B's (new)")
    _output(p, "merged database to write")
    p.set_defaults(func=run_merge)

    p = subparsers.add_parser("info", help="counts of a database, or a report's values and "
                                           "signatures")
    p.add_argument("database", metavar="FILE", help="an EvalTrans database or report")
    p.add_argument("--json", action="store_true",
                   help="one JSON object: sources, targets, references, candidates, systems, scored, ...")
    p.set_defaults(func=run_info)


def _register_metrics_task_formats(isub: argparse._SubParsersAction,
                                   esub: argparse._SubParsersAction) -> None:
    """The WMT metrics task's formats: ``scores``, ``mtme`` and ``wmtxml`` in ``import``,
    ``mtme`` in ``export``."""
    p = isub.add_parser("scores", help="external metric scores (WMT *.seg/sys.score, "
                        "mt-metrics-eval NAME-REF.LEVEL.score, TSV, JSONL) into a database")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--database", required=True, metavar="DB", help="database to add them to")
    p.add_argument("-o", "--output", metavar="DB", help="write here (default: DB itself)")
    add_force_argument(p)
    p.add_argument("--name", help="name of the metric (default: from the file)")
    d = p.add_mutually_exclusive_group()
    d.add_argument("--higher-is-better", dest="direction", action="store_const", const="higher")
    d.add_argument("--lower-is-better", dest="direction", action="store_const", const="lower",
                   help="direction of the scores (default: from the name; TER/WER/... lower)")
    p.add_argument("--format", choices=("wmt", "mtme", "tsv", "jsonl"),
                   help="file format (default: detected)")
    p.add_argument("--lp", metavar="SRC-TGT",
                   help="language pair to take from a WMT submission file")
    p.add_argument("--testset", metavar="NAME",
                   help="test set to take from a WMT submission file")
    p.set_defaults(func=run_import_scores, direction=None)

    p = isub.add_parser("mtme", help="mt-metrics-eval test-set directory, one language pair")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--lp", required=True, metavar="SRC-TGT")
    _import_common(p, encoding=False)   # UTF-8 by its format
    p.set_defaults(func=run_import_mtme)

    p = isub.add_parser("wmtxml", help="WMT21+ XML test set (<dataset><collection><doc>...)")
    p.add_argument("file", metavar="FILE")
    _lp_argument(p, "<src lang> and <ref lang>")
    _import_common(p, encoding=False)   # XML declares it
    p.set_defaults(func=run_import_wmtxml)

    p = esub.add_parser("mtme", help="mt-metrics-eval directory with our measures as metric "
                                     "scores")
    p.add_argument("database", metavar="DB")
    p.add_argument("--lp", metavar="SRC-TGT", help="language pair (default: the imported one)")
    p.add_argument("--measures", metavar="M[,M]", help="measures to write (default: all "
                   "default measures)")
    p.add_argument("--no-measures", action="store_true", help="write the data only")
    _output(p, "mt-metrics-eval test-set folder to write (created if missing)",
            database=False, metavar="FOLDER")
    add_option_arguments(p)
    add_progress_argument(p)
    p.set_defaults(func=run_export_mtme)
