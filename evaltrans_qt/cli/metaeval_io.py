"""Import and export formats of the WMT metrics task, added to the ``import``
and ``export`` groups of ``cli/data.py``:

* ``evaltrans import scores FILE... --database DB [--name NAME]
  [--higher-is-better | --lower-is-better] [--format wmt|mtme|tsv|jsonl]`` -- external
  metric scores (``io/scores.py``) stored in DB (or ``-o`` another file);
* ``evaltrans import mtme DIR --lp SRC-TGT -o DB`` -- an mt-metrics-eval EvalSet;
* ``evaltrans import wmtxml FILE -o DB`` -- a WMT21+ XML test set;
* ``evaltrans export mtme DB -o DIR [--lp] [--measures M,M | --no-measures]`` -- the
  database and our measures' scores as an mt-metrics-eval directory.
"""

from __future__ import annotations

import argparse
import sys


def _cmd_import_scores(args: argparse.Namespace) -> int:
    from evaltrans_qt.io import etdb, scores
    db = etdb.load_database(args.database)
    hib = None if args.direction is None else args.direction == "higher"
    got = scores.import_scores(db, args.files, fmt=args.format, name=args.name,
                               higher_is_better=hib, lp=args.lp, testset=args.testset)
    out = args.output or args.database
    etdb.save_database(db, out)
    for m in got:
        n = sum(len(v) for v in m.segments.values())
        print(f"{out}: external metric '{m.name}' ({'higher' if m.higher_is_better else 'lower'}"
              f" is better): {n} segment scores, {len(m.systems)} system scores of "
              f"{len(set(m.segments) | set(m.systems))} systems", file=sys.stderr)
    return 0


def _cmd_import_mtme(args: argparse.Namespace) -> int:
    from evaltrans_qt.cli.data import _start_db, _write
    from evaltrans_qt.io.mtme import import_mtme
    db = import_mtme(args.directory, args.lp, _start_db(args))
    _write(db, args)
    return 0


def _cmd_import_wmtxml(args: argparse.Namespace) -> int:
    from evaltrans_qt.cli.data import _start_db, _write
    from evaltrans_qt.io.wmtxml import import_wmtxml
    db = import_wmtxml(args.file, _start_db(args))
    _write(db, args)
    return 0


def _cmd_export_mtme(args: argparse.Namespace) -> int:
    from evaltrans_qt.io import etdb
    from evaltrans_qt.io.mtme import export_mtme
    db = etdb.load_database(args.database)
    run = None
    if not args.no_measures:
        from evaltrans_qt.cli.human import _list, options_from_args
        from evaltrans_qt.engine.run.driver import evaluate
        run = evaluate(db, options_from_args(args), _list(args.measures))
    files = export_mtme(db, args.output, args.lp, run)
    print(f"{args.output}: {len(files)} files", file=sys.stderr)
    return 0


def register_formats(isub: argparse._SubParsersAction, esub: argparse._SubParsersAction) -> None:
    """Add ``scores``, ``mtme`` and ``wmtxml`` to ``import`` and ``mtme`` to ``export``."""
    from evaltrans_qt.cli.data import _import_common, _output
    p = isub.add_parser("scores", help="external metric scores (WMT *.seg/sys.score, "
                        "mt-metrics-eval NAME-REF.LEVEL.score, TSV, JSONL) into a database")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--database", required=True, metavar="DB", help="database to add them to")
    p.add_argument("-o", "--output", metavar="DB", help="write here (default: DB itself)")
    p.add_argument("--name", help="name of the metric (default: from the file)")
    d = p.add_mutually_exclusive_group()
    d.add_argument("--higher-is-better", dest="direction", action="store_const", const="higher")
    d.add_argument("--lower-is-better", dest="direction", action="store_const", const="lower",
                   help="direction of the scores (default: from the name; TER/WER/... lower)")
    p.add_argument("--format", choices=("wmt", "mtme", "tsv", "jsonl"),
                   help="file format (default: detected)")
    p.add_argument("--lp", help="language pair to take from a WMT submission file")
    p.add_argument("--testset", help="test set to take from a WMT submission file")
    p.set_defaults(func=_cmd_import_scores, direction=None)

    p = isub.add_parser("mtme", help="mt-metrics-eval test-set directory, one language pair")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--lp", required=True, metavar="SRC-TGT")
    _import_common(p)
    p.set_defaults(func=_cmd_import_mtme)

    p = isub.add_parser("wmtxml", help="WMT21+ XML test set (<dataset><collection><doc>...)")
    p.add_argument("file", metavar="FILE")
    _import_common(p)
    p.set_defaults(func=_cmd_import_wmtxml)

    p = esub.add_parser("mtme", help="mt-metrics-eval directory with our measures as metric "
                                     "scores")
    p.add_argument("database", metavar="DB")
    p.add_argument("--lp", metavar="SRC-TGT", help="language pair (default: the imported one)")
    p.add_argument("--measures", metavar="M[,M]", help="measures to write (default: all "
                   "default measures)")
    p.add_argument("--no-measures", action="store_true", help="write the data only")
    _output(p, "test-set directory to write")
    from evaltrans_qt.cli.human import add_option_arguments
    add_option_arguments(p)
    p.set_defaults(func=_cmd_export_mtme)
