"""Error-span annotation (MQM, ESA) without the application, and Google's MQM TSV.

* ``evaltrans spans DB --source K --system S --judge J --add START:END --severity major
  --category Accuracy/Mistranslation [--side source] [--comment C] [--seconds T]`` adds an
  error to judge J's annotation of system S's translation of source K (1-based, as the
  application lists it); ``START:END`` are character offsets into the candidate (or the
  source), ``5:5`` an omission at 5. ``--remove N`` removes J's N-th error (as ``--list``
  numbers them), ``--no-error`` records that J found no error, ``--list [--json]`` shows
  the annotations of the candidate (of every judge unless ``--judge``). ``--protocol esa``
  edits (or lists) J's ESA annotation instead of the MQM one (default ``mqm``; ESA marks
  Minor and Major errors only).
* ``evaltrans spans DB --import-json FILE [--judge J]``: spans from JSON Lines
  (io/spans_jsonl.py; J for objects without ``judge``), e.g. machine spans to pre-fill:
  an object without ``origin`` is a machine's suggested spans (no human score counts
  them), ``"origin": "human"`` a judge's annotation; ``--export-json FILE`` writes every
  annotation in the same shape, ``origin`` included.
* ``evaltrans spans DB --compare MACHINE [--judge J] [--json]``: what the judges (or J)
  kept, changed, rejected (explicitly), removed and added of judge MACHINE's pre-filled
  spans, with character precision and recall (engine/human/spans/prefill.py).
* ``evaltrans spans DB --suggest ter [--system S] [--judge NAME]`` pre-fills spans from
  TER's (or WER's...) alignment of each candidate to its references
  (engine/measures/alignment_spans.py), as suggestions for the judges (machine
  annotations of judge NAME, default the measure's name).
* ``evaltrans spans DB --typology FILE.json`` stores the campaign's typology (categories,
  keys, closed or open; io/etdb/spans.py); a closed one refuses other categories.
* ``evaltrans import mqm FILE.tsv [--weights SPEC] [--lp SRC-TGT] [--reference NAME]
  [--lenient] -o DB`` and ``evaltrans export mqm DB -o FILE.tsv`` (io/mqm_tsv.py).

Every change goes through the journal under the database's lock
(io/span_store.py), as ``evaltrans judge`` does; bad input exits 2 naming file, line and
problem and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evaltrans_qt.cli.judge import note_on_stderr
from evaltrans_qt.errors import OptionError, ScoreError


def _span(text: str) -> tuple[int, int]:
    a, colon, b = text.partition(":")
    if not colon or not a.strip().isdigit() or not b.strip().isdigit():
        raise argparse.ArgumentTypeError(f"not START:END (character offsets): {text!r}")
    return int(a), int(b)


def _seconds(text: str) -> float:
    import math
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(v) and v >= 0):
        raise argparse.ArgumentTypeError(f"not a number >= 0: {text!r}")
    return v


def _error_record(n: int, e, t_text: str, s_text: str) -> dict:
    return {"n": n, "side": e.side, "start": e.start, "end": e.end, "severity": e.severity,
            "category": e.category, "comment": e.comment, "seconds": e.seconds,
            "text": e.text_of(t_text if e.side == "target" else s_text)}


def _action(args: argparse.Namespace) -> str:
    chosen = [name for name, on in (("--add", args.add is not None),
                                    ("--remove", args.remove is not None),
                                    ("--no-error", args.no_error), ("--list", args.list),
                                    ("--import-json", args.import_json is not None),
                                    ("--export-json", args.export_json is not None),
                                    ("--compare", args.compare is not None),
                                    ("--typology", args.typology is not None),
                                    ("--suggest", args.suggest is not None)) if on]
    if len(chosen) != 1:
        raise OptionError("give exactly one of --add, --remove, --no-error, --list, "
                          "--import-json, --export-json, --compare, --typology, --suggest" +
                          (f" (got {', '.join(chosen)})" if chosen else ""))
    action = chosen[0]
    if args.json and action not in ("--list", "--compare"):
        raise OptionError("--json is only used with --list and --compare")
    needs_candidate = action in ("--add", "--remove", "--no-error", "--list")
    if needs_candidate and (args.source is None or args.system is None):
        raise OptionError(f"{action} needs --source K and --system S")
    if not needs_candidate and args.source is not None:
        raise OptionError(f"--source is not used with {action}")
    if not needs_candidate and action != "--suggest" and args.system is not None:
        raise OptionError(f"--system is not used with {action}")
    if args.protocol is not None and not needs_candidate:
        raise OptionError(f"--protocol is not used with {action}")
    if action != "--add":
        for opt, v in (("--severity", args.severity), ("--category", args.category),
                       ("--side", args.side), ("--comment", args.comment),
                       ("--seconds", args.seconds)):
            if v is not None:
                raise OptionError(f"{opt} is only used with --add")
    elif args.severity is None:
        raise OptionError("--add needs --severity (neutral, minor, major, critical)")
    elif args.protocol == "esa" and args.severity.strip().lower() not in ("minor", "major"):
        raise OptionError(f"--protocol esa marks minor or major errors, not --severity "
                          f"{args.severity}")
    return action


def run_spans(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.data.protocols import source_at, target_of
    from evaltrans_qt.engine.human.spans.model import ErrorSpan, canonical_severity, check_error
    from evaltrans_qt.engine.human.spans.scores import annotation_by
    from evaltrans_qt.io.protocol_changes import spans_change
    from evaltrans_qt.io.span_store import commit_span_changes
    action = _action(args)
    if action == "--export-json":
        from evaltrans_qt.cli._common import check_output_file, open_database
        from evaltrans_qt.io.spans_jsonl import write_spans_jsonl
        check_output_file(args.export_json, "--export-json")
        n = write_spans_jsonl(open_database(args.database), args.export_json)
        print(f"{args.export_json}: {n} annotation(s) written", file=sys.stderr)
        return 0
    if action == "--compare":
        return _compare(args)
    if action == "--typology":
        return _typology(args)
    if action == "--suggest":
        return _suggest(args)
    if action == "--list":
        from evaltrans_qt.cli._common import open_database
        db = open_database(args.database)
        src = source_at(db, args.source)
        t = target_of(db, src, args.system, candidate=True)
        anns = [a for a in t.span_annotations if (args.judge is None or a.judge == args.judge)
                and (args.protocol is None or a.protocol == args.protocol)]
        recs: list[dict[str, Any]] = [{"judge": a.judge, "protocol": a.protocol,
                 "origin": a.origin, "seconds": a.seconds,
                 "errors": [_error_record(n, e, t.text, src.text)
                            for n, e in enumerate(a.errors, 1)],
                 "rejected": [{"machine": r.machine, **_error_record(n, r.error, t.text,
                                                                     src.text)}
                              for n, r in enumerate(a.rejected, 1)]} for a in anns]
        if args.json:
            print(json.dumps({"source": args.source, "system": args.system, "target": t.text,
                              "annotations": recs}, ensure_ascii=False))
        else:
            print(f"source {args.source}, {args.system}: {t.text}")
            for r in recs:
                errs = r["errors"]
                what = (f"{r['protocol'].upper()}, machine suggestions"
                        if r["origin"] == "machine" else r["protocol"].upper())
                print(f"  judge {r['judge'] or '(none)'} ({what}): "
                      f"{len(errs) if errs else 'no'} error{'' if len(errs) == 1 else 's'}"
                      + (f", {len(r['rejected'])} suggestion(s) rejected"
                         if r["rejected"] else ""))
                for e in errs:
                    where = "-" if e["start"] is None else f"{e['start']}:{e['end']}"
                    print(f"    {e['n']}. {e['side']} {where} {e['severity']} {e['category']}"
                          f" {e['text']!r}" + (f" ({e['comment']})" if e["comment"] else ""))
        return 0
    if action == "--import-json":
        from evaltrans_qt.io.etdb.spans import database_typology
        from evaltrans_qt.io.spans_jsonl import read_spans_jsonl
        got = commit_span_changes(args.database, lambda db: read_spans_jsonl(
            args.import_json, db, args.judge, database_typology(db, args.database)),
            note=note_on_stderr)
        machine = sum(1 for c in got if c.origin == "machine")
        print(f"{args.database}: {len(got)} annotation(s) imported from {args.import_json} "
              f"({machine} machine suggestion(s), {len(got) - machine} human)",
              file=sys.stderr)
        return 0
    said: list[str] = []

    def build(db):
        si = args.source
        src = source_at(db, si)
        t = target_of(db, src, args.system, candidate=True)
        ti = next(i for i, x in enumerate(src.targets) if x is t)
        protocol = args.protocol or "mqm"
        old = annotation_by(t, args.judge, protocol, "human")
        errors = list(old.errors) if old is not None else []
        seconds = old.seconds if old is not None else None
        rejected = list(old.rejected) if old is not None else []
        if action == "--add":
            start, end = args.add
            e = ErrorSpan(canonical_severity(args.severity), args.category or "Other", start,
                          end, args.side or "target", args.comment, args.seconds)
            from evaltrans_qt.io.etdb.spans import database_typology
            try:
                check_error(e, t.text, src.text, database_typology(db, args.database))
            except ScoreError as exc:
                raise ScoreError(exc.problem, args.database) from None
            errors.append(e)
            said.append(f"error {len(errors)} added: {e.severity} {e.category} "
                        f"{e.text_of(t.text if e.side == 'target' else src.text)!r}")
        elif action == "--remove":
            if not 1 <= args.remove <= len(errors):
                raise ScoreError(f"judge {args.judge!r} has {len(errors)} error(s) on this "
                                 f"candidate; there is no error {args.remove}", args.database)
            errors.pop(args.remove - 1)
            said.append(f"error {args.remove} removed")
        else:
            if errors:
                raise ScoreError(f"judge {args.judge!r} has marked {len(errors)} error(s) on "
                                 "this candidate; remove them first", args.database)
            said.append("no error")
        return [spans_change(db, si - 1, ti, args.judge, errors, seconds, protocol, rejected)]

    commit_span_changes(args.database, build, note=note_on_stderr)
    who = f" by {args.judge}" if args.judge else ""
    print(f"{args.database}: source {args.source}, {args.system}{who}: {said[0]}",
          file=sys.stderr)
    return 0


def _compare(args: argparse.Namespace) -> int:
    """``--compare MACHINE``: what the judges did with MACHINE's pre-filled spans."""
    import math

    from evaltrans_qt.cli._common import open_database
    from evaltrans_qt.engine.human.spans.prefill import prefill_statistics
    db = open_database(args.database)
    if not any(a.judge == args.compare for _, t in db.iter_candidates()
               for a in t.span_annotations):
        raise ScoreError(f"judge {args.compare!r} has no error spans in this database",
                         args.database)
    st = prefill_statistics(db, args.compare, None if args.judge is None else [args.judge])
    d = st.to_dict()
    if args.json:
        print(json.dumps({k: None if isinstance(v, float) and math.isnan(v) else v
                          for k, v in d.items()}, ensure_ascii=False))
        return 0
    print(f"spans of {args.compare} on {st.candidates} annotated translation(s): "
          f"{st.machine_spans} -- kept {st.kept}, changed {st.changed}, rejected "
          f"{st.rejected}, removed (left alone) {st.removed}; {st.added} added by the judges")
    print("kept share {:.3f}, rejected share {:.3f}, character precision {:.3f}, recall "
          "{:.3f}".format(d["kept_share"], d["rejected_share"], d["precision"], d["recall"]))
    return 0


def _suggest(args: argparse.Namespace) -> int:
    """``--suggest MEASURE``: pre-fill spans from MEASURE's alignment to the references."""
    from evaltrans_qt.engine.measures.alignment_spans import suggested_spans
    from evaltrans_qt.io.protocol_changes import spans_change
    from evaltrans_qt.io.span_store import commit_span_changes
    judge = args.judge if args.judge is not None else args.suggest

    def build(db):
        if args.system is not None and args.system not in db.systems():
            raise ScoreError(f"no system {args.system!r} in this database", args.database)
        changes = []
        for si, src in enumerate(db.sources):
            refs = [r.text for r in db.references(src)]
            if not refs:
                continue
            for ti, t in enumerate(src.targets):
                if db.is_reference(t) or (args.system is not None
                                          and (t.system or "") != args.system):
                    continue
                spans = suggested_spans(t.text, refs, args.suggest)
                changes.append(spans_change(db, si, ti, judge, spans, origin="machine"))
        if not changes:
            raise ScoreError("no candidate has a reference to align to", args.database)
        return changes

    got = commit_span_changes(args.database, build, note=note_on_stderr)
    n = sum(len(c.errors or ()) for c in got)
    print(f"{args.database}: {n} suggested span(s) on {len(got)} translation(s) as machine "
          f"{judge!r} ({args.suggest.upper()} alignment to the references)", file=sys.stderr)
    return 0


def _typology(args: argparse.Namespace) -> int:
    """``--typology FILE.json``: store the campaign's typology in the database."""
    from evaltrans_qt.cli._common import open_database, write_database
    from evaltrans_qt.io.etdb.spans import read_typology_json, set_database_typology
    typ = read_typology_json(args.typology)
    db = open_database(args.database)
    if typ.closed:
        bad = sorted({e.category for _, t in db.iter_candidates() for a in t.span_annotations
                      for e in a.errors if e.category not in typ.all_paths()})
        if bad:
            raise ScoreError(f"the closed typology {typ.name!r} lacks categories the "
                             f"database's errors use: {', '.join(bad[:5])}", args.typology)
    set_database_typology(db, typ)
    write_database(db, args.database, f"typology {typ.name!r} ({len(typ.all_paths())} "
                                      f"categories, {'closed' if typ.closed else 'open'})")
    return 0


def run_import_mqm(args: argparse.Namespace) -> int:
    from evaltrans_qt.cli._common import check_output_file, write_database
    from evaltrans_qt.io.mqm_tsv import read_mqm_tsv
    check_output_file(args.output, "-o")
    db, report = read_mqm_tsv(args.file, weights=args.weights, lp=args.lp,
                              reference=args.reference, lenient=args.lenient)
    for line, problem in report.skipped:
        print(f"{args.file}:{line}: skipped: {problem}", file=sys.stderr)
    c = db.counts()
    write_database(db, args.output, f"{report.rows} rows ({report.errors} errors), "
                                     f"{c['sources']} sources, {c['candidates']} candidates of "
                                     f"{len(c['systems'])} systems"
                                     + (f"; {len(report.skipped)} malformed rows skipped"
                                        if args.lenient else ""), force=args.force)
    return 0


def run_export_mqm(args: argparse.Namespace) -> int:
    from evaltrans_qt.cli._common import check_output_file, open_database
    from evaltrans_qt.io.mqm_tsv import write_mqm_tsv
    check_output_file(args.output, "-o")
    n = write_mqm_tsv(open_database(args.database), args.output)
    print(f"{args.output}: {n} rows", file=sys.stderr)
    return 0


def add_import_mqm(isub: argparse._SubParsersAction) -> None:
    """``import mqm`` (registered by ``cli/data.py`` beside the other imports)."""
    from evaltrans_qt.cli._common import add_force_argument
    p = isub.add_parser("mqm", help="Google's MQM ratings TSV (system doc doc_id seg_id rater "
                                    "source target category severity)")
    p.add_argument("file", metavar="FILE.tsv")
    p.add_argument("--weights", metavar="WEIGHTS",
                   help="MQM weights as mt-metrics-eval writes them (default 'Major:5 Minor:1 "
                        "Neutral:0 Major/Non-translation!:25 Minor/Fluency/Punctuation:0.1')")
    p.add_argument("--lp", metavar="SRC-TGT", help="language pair to record in the database")
    p.add_argument("--reference", metavar="NAME",
                   help="also make system NAME's translation the reference of each segment")
    p.add_argument("--lenient", action="store_true",
                   help="skip malformed rows (listed on stderr) instead of stopping")
    p.add_argument("-o", "--output", required=True, metavar="DB", help="database to write")
    add_force_argument(p)
    p.set_defaults(func=run_import_mqm)


def add_export_mqm(esub: argparse._SubParsersAction) -> None:
    """``export mqm`` (registered by ``cli/data.py`` beside the other exports)."""
    p = esub.add_parser("mqm", help="the error spans as Google's MQM ratings TSV")
    p.add_argument("database", metavar="DB")
    p.add_argument("-o", "--output", required=True, metavar="FILE.tsv", help="TSV to write")
    p.set_defaults(func=run_export_mqm)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("spans", help="mark, remove or list error spans (MQM, ESA); "
                                            "import or export them as JSON Lines")
    p.add_argument("database", metavar="DB", help="the database (.etdb.xml; written in place)")
    p.add_argument("--source", type=int, metavar="K",
                   help="source number, 1-based as in the application's source list")
    p.add_argument("--system", metavar="SYSTEM", help="the system whose translation is marked")
    p.add_argument("--judge", metavar="NAME", help="who annotates (default: no name)")
    p.add_argument("--add", type=_span, metavar="START:END",
                   help="mark characters [START, END) as an error (START:START: an omission)")
    p.add_argument("--severity", help="neutral, minor, major or critical")
    p.add_argument("--category", help="category path, e.g. Accuracy/Mistranslation "
                                      "(default Other)")
    p.add_argument("--protocol", choices=("mqm", "esa"),
                   help="the judge's annotation under this protocol (default mqm; with --list "
                        "every protocol unless given)")
    p.add_argument("--side", choices=("target", "source"),
                   help="mark the source instead of the translation (default target)")
    p.add_argument("--comment", help="a comment on the error")
    p.add_argument("--seconds", type=_seconds, metavar="T", help="seconds spent on the error")
    p.add_argument("--remove", type=int, metavar="N", help="remove the judge's N-th error")
    p.add_argument("--no-error", action="store_true",
                   help="record that the judge found no error in this translation")
    p.add_argument("--list", action="store_true", help="show the annotations of a translation")
    p.add_argument("--import-json", metavar="FILE",
                   help="set annotations from a JSON Lines file (one object per translation)")
    p.add_argument("--export-json", metavar="FILE", help="write every annotation as JSON Lines")
    p.add_argument("--compare", metavar="MACHINE",
                   help="what the judges (or --judge) kept, changed, rejected, removed and "
                        "added of the spans judge MACHINE proposed (pre-filled spans)")
    p.add_argument("--typology", metavar="FILE.json",
                   help="store the campaign's error typology in the database: "
                        '{"name": …, "closed": true, "categories": [paths], "keys": {path: key}}'
                        "; a closed one restricts the categories of --add and --import-json")
    p.add_argument("--suggest", metavar="MEASURE", choices=("ter", "wer", "cder", "per"),
                   help="pre-fill spans from the alignment of MEASURE (ter, wer, cder, per) "
                        "to the references, as judge --judge (default: the measure's name); "
                        "--system restricts it to one system")
    p.add_argument("--json", action="store_true",
                   help="--list or --compare as one JSON object")
    p.set_defaults(func=run_spans)
