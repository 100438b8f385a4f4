"""``evaltrans batch``: the EvalTransBatchEval command line (thesis Appendix A.1).

::

    evaltrans batch --database DB --source SRC --target HYP [options] --xml-mode --output-file R.xml
    evaltrans batch --source SRC --reference REF [--reference REF2 ...] --target HYP [options]
    evaltrans batch --database DB --all-systems --xml-mode --output-file R.xml   # R.<system>.xml

Every evaluation option (Tables A.1-A.8) is generated from
:func:`~evaltrans_qt.engine.options.option_fields` with the thesis' flag names
(``--wer-ref-length-rule lowestError``, ``--bleu-pad-rule both``...). With
``--database``, line ``i`` of ``--target`` is the translation of line ``i``
of ``--source``, matched to the database's source by position when the database's
sources have segment ids and are the source file line by line, else by text.

Output: with ``--xml-mode`` the EvalTrans XML report (``io/report.py``); without
it, as the original, a plain text summary, and by default only WER and BLEU
(Table A.2: XML mode is needed for anything beyond them) unless ``--measures``
says otherwise. ``--json`` prints a machine-readable summary on stdout and, with
``--output-file R.xml``, also writes it beside the reports as ``R.summary.json``.
Several systems (``--all-systems``) get one report each, ``R.<system>.xml`` (see
``output_paths``: characters other than ASCII letters, digits, ``-._`` as ``%HH``),
and a summary table on stdout.
Nothing is written unless the whole run succeeded; files are written atomically.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaltrans_qt.cli._common import (
    add_option_arguments,
    add_preset_argument,
    check_output_file,
    number,
    open_database,
    option_used,
    options_from_args,
    refuse_unused_options,
    sentences_path,
)
from evaltrans_qt.cli.progress import (  # ProgressBar, format_seconds: importable here too
    ProgressBar,
    add_progress_argument,
    format_seconds,
    progress_for,
)
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.options import EvalOptions, option_fields
from evaltrans_qt.engine.run.driver import default_measures, evaluate
from evaltrans_qt.engine.run.executors.choice import EXECUTOR_KINDS, make_executor
from evaltrans_qt.engine.run.results import RunResult
from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io.names import file_name_parts
from evaltrans_qt.io.plaintext import database_from_files

#: What ``evaltrans batch --help`` says (plain text for users).
DESCRIPTION = """\
Evaluate candidate translations: files against references, or systems of a database
(the EvalTransBatchEval command line, thesis Appendix A.1).

examples:
  evaltrans batch --source SRC --reference REF [--reference REF2 ...] --target HYP
  evaltrans batch --database DB --source SRC --target HYP --xml-mode --output-file R.xml
  evaltrans batch --database DB --all-systems --xml-mode --output-file R.xml

Without --xml-mode: a plain-text summary of WER and BLEU (or of --measures). With
--xml-mode: the EvalTrans XML report with every measure; several systems get one report
each, R.<system>.xml, and a summary table on stdout. An option that the chosen mode does
not use is an error. Nothing is written unless the whole run succeeded."""

#: Measures of the original tool's text (non-XML) mode (Table A.2, "xml-mode").
TEXT_MODE_MEASURES = ("wer", "bleu")
#: Bootstrap samples of the XML report's correlation section unless --correlation-samples.
CORRELATION_SAMPLES = 1000
#: Options that only the XML report (--xml-mode) shows.
XML_ONLY = ("sentences_in_detail", "include_sentences", "correlation_samples", "all_ngrams")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "batch", help="evaluate candidate files or database systems (EvalTransBatchEval)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    io = p.add_argument_group("input and output (Table A.1)")
    io.add_argument("--database", metavar="DB", help="reference database (.etdb.xml)")
    io.add_argument("--source", metavar="SRC", help="source sentences, one per line")
    io.add_argument("--target", metavar="[NAME=]HYP", action="append", default=[],
                    help="candidate sentences, one per line (repeatable)")
    io.add_argument("--reference", metavar="REF", action="append", default=[],
                    help="reference file, one sentence per line (repeatable; instead of "
                         "--database)")
    io.add_argument("--all-systems", action="store_true",
                    help="evaluate every system of the database (one report each + summary)")
    io.add_argument("--system", action="append", default=[], metavar="NAME",
                    help="evaluate this system of the database (repeatable)")
    io.add_argument("--measures", metavar="LIST",
                    help="comma separated measures (default: all enabled; text mode: wer,bleu)")
    io.add_argument("--output-file", metavar="FILE",
                    help="output report file (with several systems: FILE's stem + "
                         ".<system> + suffix); default stdout")
    io.add_argument("--encoding", default="utf-8", help="input/output encoding (utf-8, "
                                                        "iso8859-1, ...)")
    io.add_argument("--comment", default="", help="comment for the report")
    add_preset_argument(io)
    io.add_argument("--json", action="store_true", help="print a JSON summary on stdout")
    io.add_argument("--sentences", metavar="FILE.tsv|.jsonl", type=sentences_path,
                    help="also write every sentence's value of every measure column (system, "
                         "segment id, columns) with the signatures, as TSV or JSON Lines")
    io.add_argument("--jobs", type=int, default=None, metavar="N",
                    help="worker processes (default: all cores for large runs; 1 = in-process)")
    io.add_argument("--executor", choices=EXECUTOR_KINDS, default="auto",
                    help="where to compute (never changes a number): auto (in-process for "
                         "small runs, else all cores), local, serial, dask (a Dask scheduler, "
                         "--scheduler), dask-local (a Dask LocalCluster of --workers "
                         "processes); the dask ones need the [cluster] extra")
    io.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                    help="address of the Dask scheduler for --executor dask (what 'dask "
                         "scheduler' prints)")
    io.add_argument("--workers", type=int, default=None, metavar="N",
                    help="workers of --executor dask-local (default 2) or local (as --jobs)")
    add_progress_argument(io)
    io.add_argument("--correlation-samples", type=int, default=None, metavar="N",
                    help=f"bootstrap samples for the XML report's correlation section, written "
                         f"when the database has human scores (default {CORRELATION_SAMPLES}; "
                         f"0: no correlation section)")
    fl = p.add_argument_group("report flags (Table A.2)")
    fl.add_argument("--sentences-in-detail", action="store_true",
                    help="scores and distances for each single candidate sentence")
    fl.add_argument("--include-sentences", action="store_true",
                    help="include the candidate and reference sentences in the report")
    fl.add_argument("--xml-mode", action="store_true",
                    help="write the EvalTrans XML report (needed for anything beyond WER/BLEU)")
    add_option_arguments(p, preset=False)
    p.set_defaults(func=run)


def command_line(args: argparse.Namespace, options: EvalOptions,
                 measures: Sequence[str] | None = None) -> str:
    """A command line that reproduces the run: every option that matters to ``measures``
    (:func:`~evaltrans_qt.cli._common.option_used`; all if None) spelled out if not
    default -- the others would be refused as unused."""
    parts = ["evaltrans", "batch"]
    for name in ("database", "source"):
        if getattr(args, name):
            parts += [f"--{name}", getattr(args, name)]
    for r in args.reference:
        parts += ["--reference", r]
    for t in args.target:
        parts += ["--target", t]
    for s in args.system:
        parts += ["--system", s]
    if args.all_systems:
        parts.append("--all-systems")
    if args.measures:
        parts += ["--measures", args.measures]
    for flag in ("sentences_in_detail", "include_sentences", "xml_mode"):
        if getattr(args, flag):
            parts.append("--" + flag.replace("_", "-"))
    if args.encoding.lower() not in ("utf-8", "utf8"):
        parts += ["--encoding", args.encoding]
    default = EvalOptions()
    for f in option_fields():
        v = getattr(options, f.name)
        if v == getattr(default, f.name):
            continue
        if measures is not None and f.name != "extrapolate" \
                and not any(option_used(f.name, m, options, enabling=not args.measures)
                            for m in measures):
            continue
        if f.metadata.get("kind") == "flag":
            parts.append(f"--{f.metadata['flag']}")
        else:
            parts += [f"--{f.metadata['flag']}",
                      ",".join(map(str, v)) if isinstance(v, tuple) else str(v)]
    if args.output_file:
        parts += ["--output-file", args.output_file]
    return shlex.join(parts)


# --------------------------------------------------------------------------- inputs
def _named(spec: str) -> tuple[str, str]:
    name, sep, path = spec.partition("=")
    if sep and name and path and not Path(spec).exists():
        return name, path
    return Path(spec).name, spec


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def _sources_by_line(db: Database, src_lines: Sequence[str]) -> list | None:
    """The database's sources line by line, when they are positional (``seg`` ids) and are
    exactly the lines of the source file (same count, same texts up to whitespace)."""
    if len(db.sources) != len(src_lines) or any(s.key is None for s in db.sources):
        return None
    if all(s.text == t or _squeezed(s.text) == _squeezed(t) for s, t in zip(db.sources, src_lines)):
        return list(db.sources)
    return None


def match_targets(db: Database, source: str, targets: Sequence[str], encoding: str
                  ) -> dict[str, list[tuple[int, int]]]:
    """Add each target file's lines to the sources of ``db``: line ``i`` to the ``i``-th
    source when the database's sources are positional and are the source file line by
    line (a repeated sentence keeps its own line's references), else to the source with
    the same text (thesis Appendix A.2; the first of a repeated sentence).

    Returns {system name: [(source index, target index) per line]}; names are
    the file names (or NAME=FILE), made unique against the database.
    """
    from evaltrans_qt.io.plaintext import check_same_length, read_lines
    src_lines = read_lines(source, encoding)
    position = {id(s): i for i, s in enumerate(db.sources)}
    sources = _sources_by_line(db, src_lines)
    if sources is None:
        by_stripped: dict[str, object] = {}
        for s in db.sources:
            by_stripped.setdefault(_squeezed(s.text), s)
        sources = []
        for i, text in enumerate(src_lines):
            src = db.source_by_text(text) or by_stripped.get(_squeezed(text))
            if src is None:
                raise InputFormatError("source sentence is not in the database "
                                       f"({text[:60]!r}); sources are matched by text", source, i + 1)
            sources.append(src)
    for i, src in enumerate(sources):
        if not db.references(src):
            raise InputFormatError("the database has no reference for this source sentence",
                                   source, i + 1)
    taken = set(db.systems()) | set(db.reference_ids())
    names: dict[str, list[tuple[int, int]]] = {}
    for spec in targets:
        name, path = _named(spec)
        lines = read_lines(path, encoding)
        check_same_length(path, lines, len(src_lines), f"source file {Path(source).name}")
        base, k = name, 2
        while name in taken:
            name, k = f"{base} ({k})", k + 1
        taken.add(name)
        rows = []
        for src, line in zip(sources, lines):
            db.add_target(src, line, name)
            rows.append((position[id(src)], len(src.targets) - 1))
        names[name] = rows
    return names


def _load_inputs(args) -> tuple[Database, list[str], dict[str, list[tuple[int, int]]]]:
    """(database, systems to evaluate, {file system: [(source, target index) per line]})."""
    if args.database and args.reference:
        raise OptionError("give either --database or --reference, not both")
    if args.database:
        from evaltrans_qt.io.plaintext import repeated_source_warnings
        db = open_database(args.database)
        # sentences merged by text (thesis Appendix A.2)
        for line in repeated_source_warnings(db):
            print(f"warning: {line}", file=sys.stderr)
        file_systems: dict[str, list[tuple[int, int]]] = {}
        if args.target:
            if not args.source:
                raise OptionError("--target with --database needs --source (targets are "
                                  "matched to the database by source text)")
            file_systems = match_targets(db, args.source, args.target, args.encoding)
        systems = list(file_systems) + list(args.system)
        if args.all_systems:
            systems += [s for s in db.systems() if s not in systems]
        if not systems:
            raise OptionError("nothing to evaluate: give --target, --system or --all-systems")
        return db, systems, file_systems
    if not args.reference:
        raise OptionError("give --database or at least one --reference")
    if not args.source:
        raise OptionError("--reference needs --source (one sentence per line)")
    if not args.target:
        raise OptionError("--reference needs at least one --target")
    if args.all_systems or args.system:
        raise OptionError("--all-systems/--system need --database")
    cands = dict(_named(t) for t in args.target)
    if len(cands) != len(args.target):
        raise OptionError("two --target files have the same name; use NAME=FILE")
    # the positional import: source i is line i (seg = i + 1), so a repeated source line
    # keeps its own references, as sacreBLEU, jiwer and Moses pair them
    db = database_from_files(args.source, args.reference, cands, args.encoding)
    lines = {name: [(si, next(ti for ti, t in enumerate(src.targets) if t.system == name))
                    for si, src in enumerate(db.sources)] for name in cands}
    return db, list(cands), lines


def _measures(args) -> list[str]:
    if args.measures:
        names = [get_measure(m.strip()).name for m in args.measures.split(",") if m.strip()]
        if not names:
            raise OptionError("--measures: empty list")
        return names
    return None  # type: ignore[return-value]


# --------------------------------------------------------------------------- output
def report_extras(db: Database | None, systems: Sequence[str], options: EvalOptions | None = None
                  ) -> dict[str, dict]:
    """``{system: {"protocols": ..., "ranking": ...}}`` for ``build_report``: the
    human-evaluation protocols of the database (``engine.protocol_scores.system_values``,
    computed once for all systems) and its rankings (``engine.ranking.system_rank_values``);
    only what the database holds. Used by ``evaltrans batch`` and the application's report."""
    if db is None:
        return {}
    from evaltrans_qt.engine.human import protocol_scores
    out: dict[str, dict] = {s: {} for s in systems}
    names = protocol_scores.protocol_names(db)
    results = [protocol_scores.protocol_result(db, n, options) for n in names]
    for s in systems:       # = system_values(db, s, options), each protocol computed once
        out[s]["protocols"] = {n: r.system(s) for n, r in zip(names, results)}
    try:
        from evaltrans_qt.engine.human.ranking import system_rank_values
    except ImportError:     # pragma: no cover - rankings are optional
        return out
    for s in systems:
        rank = system_rank_values(db, s)
        if rank:
            out[s]["ranking"] = rank
    return out


def output_paths(output: str | None, systems: Sequence[str]) -> dict[str, Path | None]:
    """Report file of each system: ``R.xml`` for one system, else ``R.<name>.xml`` with
    the system id as a safe, collision-free file-name part (``io/names.py``)."""
    if output is None:
        return {s: None for s in systems}
    p = Path(output)
    if len(systems) == 1:
        return {systems[0]: p}
    parts = file_name_parts(s or "" for s in systems)
    return {s: p.with_name(f"{p.stem}.{parts[s or '']}{p.suffix}") for s in systems}


def text_summary(run: RunResult, system: str) -> str:
    sr = run.systems[system]
    lines = [f"system: {system or '(no id)'}", f"candidates: {len(sr.segments)}"]
    for name in run.measures:
        sc = sr.scores.get(name)
        if sc is None:
            continue
        cols = ", ".join(f"{k} {number(v, missing='nan')}" for k, v in sc.columns.items())
        lines.append(f"{name}: {number(sc.value, missing='nan')}"
                     + (f"  ({cols})" if cols else ""))
    lines += _signature_lines(run, [m for m in run.measures if m in sr.scores])
    return "\n".join(lines) + "\n"


def _signature_lines(run: RunResult, measures: Sequence[str]) -> list[str]:
    """``signature NAME: ...`` for each measure (every option that changes its numbers)."""
    sigs = run.signatures()
    return [f"signature {m}: {sigs[m]}" for m in measures if m in sigs]


def summary_table(run: RunResult) -> str:
    """One row per system, one right-aligned column per measure; every column is at least
    as wide as its name plus one space (``exactmatch`` and ``penalizeunknown`` side by side
    stay apart) and as its widest value."""
    heads = [n for n in run.measures]
    width = max([len(s or "(no id)") for s in run.systems] + [6])
    cells = {s: [number(sr.scores[h].value, missing="nan") if h in sr.scores else "-"
                 for h in heads]
             for s, sr in run.systems.items()}
    widths = [max([10, len(h) + 1] + [len(c[j]) + 1 for c in cells.values()])
              for j, h in enumerate(heads)]
    out = ["system".ljust(width) + "".join(f"{h:>{w}}" for h, w in zip(heads, widths))]
    for s in run.systems:
        out.append((s or "(no id)").ljust(width) + "".join(
            f"{c:>{w}}" for c, w in zip(cells[s], widths)))
    out += _signature_lines(run, heads)
    return "\n".join(out) + "\n"


def json_summary(run: RunResult, paths: dict[str, Path | None]) -> dict[str, Any]:
    def num(v):
        return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v
    signatures = run.signatures()
    return {
        "options": run.options.to_dict(),
        "measures": list(run.measures),
        "signatures": signatures,
        "warnings": list(run.meta.get("warnings", ())),
        "seconds": run.meta.get("seconds"),
        "systems": {
            s: {"candidates": len(sr.segments),
                "report": str(paths[s]) if paths.get(s) else None,
                "scores": {m: {"value": num(sc.value),
                               "columns": {k: num(v) for k, v in sc.columns.items()},
                               "signature": signatures.get(m)}
                           for m, sc in sr.scores.items()}}
            for s, sr in run.systems.items()},
    }


# --------------------------------------------------------------------------- run
def run_correlations(db: Database, run: RunResult, samples: int) -> list:
    """The report's ``<correlation>`` rows: every measure against every human class of the
    database that has scores, at sentence level and (with at least 3 systems) system level."""
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    from evaltrans_qt.errors import ScoreError
    rows = []
    levels = ["sentence"] + (["system"] if len(run.systems) >= 3 else [])
    for cls in db.human_classes:
        for level in levels:
            try:
                rows.extend(correlate_run(db, run, cls, level=level, n_boot=samples,
                                          convention="thesis"))   # the report's convention
            except ScoreError:     # this class has no scores for these systems
                break
    return rows


def extrapolated_human_scores(db: Database, run: RunResult
                              ) -> dict[str, dict[str, tuple[float, int, int]]]:
    """``--extrapolate`` (Table A.2): estimate unscored candidates from the database's scored
    translations (in memory only; ``engine.similar.extrapolate``), then per system and human
    class: (length-weighted system score of thesis section 5.5, #person-given, #extrapolated)."""
    from evaltrans_qt.engine.human.resolve import human_scores
    from evaltrans_qt.engine.human.similar import extrapolate
    out: dict[str, dict[str, tuple[float, int, int]]] = {s: {} for s in run.systems}
    for cls in db.human_classes:
        extrapolate(db, cls)
        hs = human_scores(db, cls, include_extrapolated=True)
        for s, sr in run.systems.items():
            given = extra = 0
            for src_i in sr.segments:
                for t in db.sources[src_i].targets:
                    if (t.system or "") == s and not db.is_reference(t):
                        mine = t.scores_of(cls)
                        given += any(not x.extrapolated for x in mine)
                        extra += bool(mine) and all(x.extrapolated for x in mine)
            out[s][cls] = (hs.system_score(s, segments=sr.segments), given, extra)
    return out


def _file_order(sr, lines: Sequence[tuple[int, int]]):
    """Rows of a target-file system in the file's line order, target index -1."""
    row_of = {(si, ti): k for k, (si, ti) in enumerate(zip(sr.segments, sr.target_indices))}
    order = [row_of[key] for key in lines if key in row_of]
    if len(order) == len(sr.segments):
        sr = sr.reordered(order)
    return replace(sr, target_indices=(-1,) * len(sr.segments))


def check_modes(args: argparse.Namespace, measures: Sequence[str]) -> None:
    """Refuse every option this run would not use (nothing is ignored silently): report
    flags without ``--xml-mode``, ``--source`` without ``--target``, an executor setting
    the chosen executor has no use for, and an evaluation option none of ``measures`` uses
    (:func:`~evaltrans_qt.cli._common.refuse_unused_options`)."""
    if not args.xml_mode:
        for name in XML_ONLY:
            if getattr(args, name) not in (None, False):
                raise OptionError(f"--{name.replace('_', '-')} is used only in the XML report: "
                                  "add --xml-mode (the text mode prints a WER/BLEU summary)")
        if args.output_file and Path(args.output_file).suffix.lower() == ".xml":
            raise OptionError(f"--output-file {args.output_file}: the text mode writes plain "
                              "text; add --xml-mode for EvalTrans XML reports, or name the "
                              "file .txt")
        if args.extrapolate and not args.json:
            raise OptionError("--extrapolate: the extrapolated human scores are shown only in "
                              "the XML report (--xml-mode) or the --json summary")
    if args.all_systems and args.system:
        raise OptionError("--all-systems evaluates every system: --system is not used (give "
                          "one or the other)")
    if args.source and args.database and not args.target:
        raise OptionError("--source with --database is used only to match --target files "
                          "to the database; give --target or leave --source out")
    if args.jobs is not None and args.workers is not None:
        raise OptionError("--jobs and --workers say the same (worker processes): give one")
    if args.executor == "serial" and (args.jobs or args.workers or 1) != 1:
        raise OptionError("--executor serial computes in this process: --jobs/--workers "
                          "other than 1 are not used")
    if args.executor in ("dask", "dask-local") and args.jobs is not None:
        raise OptionError(f"--jobs is for the local pool, not --executor {args.executor} "
                          "(dask-local: --workers)")
    if args.xml_mode or args.measures:
        mode = f"this run computes {', '.join(measures)}"
    else:
        mode = (f"the text mode computes {', '.join(measures)} only: add --xml-mode (every "
                "measure) or --measures")
    refuse_unused_options(args, measures, mode,
                          command_uses=("extrapolate",) if args.database else (),
                          explicit=bool(args.measures) or not args.xml_mode)


def check_outputs(args: argparse.Namespace, systems: Sequence[str]) -> None:
    """Every file this run will write can be written (before any computation)."""
    for path in output_paths(args.output_file, systems).values():
        check_output_file(path, "--output-file")
    if args.sentences:
        check_output_file(args.sentences, "--sentences")


def run(args: argparse.Namespace) -> int:
    options = options_from_args(args)
    try:
        "".encode(args.encoding)
    except LookupError:
        raise OptionError(f"--encoding: unknown encoding '{args.encoding}'") from None
    measures = _measures(args)
    if measures is None and not args.xml_mode:
        from evaltrans_qt.engine.measures import load_all
        measures = [m for m in TEXT_MODE_MEASURES if m in load_all()]
    if measures is None:
        measures = default_measures(options)
    if options.extrapolate and not args.database:
        raise OptionError("--extrapolate needs --database (human scores are estimated from "
                          "the database's scored translations)")
    measures = [get_measure(m).name for m in measures]
    check_modes(args, measures)
    db, systems, from_files = _load_inputs(args)
    check_outputs(args, systems)
    if args.all_systems and args.output_file is None and args.xml_mode and len(systems) > 1 \
            and not args.json:
        raise OptionError("--all-systems with --xml-mode needs --output-file (one report per "
                          "system is written beside it)")
    if args.jobs is not None and args.jobs < 1:
        raise OptionError("--jobs must be at least 1")
    executor = make_executor(args.executor, scheduler=args.scheduler,
                             workers=args.workers if args.workers is not None else args.jobs)
    try:
        bar = progress_for(args, (os.cpu_count() or 1) if executor is None
                           else getattr(executor, "max_workers", 1))
        result = evaluate(db, options, measures, systems, executor=executor, progress=bar,
                          reference_distances=args.sentences_in_detail)
    finally:
        if executor is not None:
            executor.close()
    # candidates read from --target files: rows in file line order, <target nr="-1">
    fixed = {s: _file_order(sr, from_files[s]) if s in from_files else sr
             for s, sr in result.systems.items()}
    result = replace(result, systems=fixed,
                     database_path=str(args.database) if args.database else None)
    human = extrapolated_human_scores(db, result) if options.extrapolate else {}
    samples = CORRELATION_SAMPLES if args.correlation_samples is None else args.correlation_samples
    correlation = (run_correlations(db, result, samples)
                   if args.xml_mode and db is not None and samples > 0 else [])
    paths = output_paths(args.output_file, list(result.systems))
    cmd = command_line(args, options, list(result.measures))
    outputs: list[tuple[Path | None, bytes]] = []
    # the database's human protocols (and rankings) go into each system's report
    extras = report_extras(db, list(result.systems), options) \
        if args.xml_mode and args.database else {}
    for s in result.systems:
        if args.xml_mode:
            from evaltrans_qt.io.report import build_report
            target_file = next((_named(t)[1] for t in args.target if _named(t)[0] == s), None)
            data = build_report(result, s, comment=args.comment, database_file=args.database,
                                source_file=args.source, target_file=target_file,
                                reference_files=args.reference, command_line=cmd,
                                sentences_in_detail=args.sentences_in_detail,
                                include_sentences=args.include_sentences,
                                encoding=args.encoding, human=human.get(s),
                                correlation=correlation, **extras.get(s, {}))
        else:
            head = f"# {cmd}\n" + (f"# {args.comment}\n" if args.comment else "")
            data = (head + text_summary(result, s)).encode(args.encoding, "xmlcharrefreplace")
        outputs.append((paths[s], data))
    summary_text = None
    if args.json:
        summary = json_summary(result, paths)
        for s, per_class in human.items():
            summary["systems"][s]["human"] = {
                c: {"value": None if math.isnan(v) else v, "scored": n, "extrapolated": k}
                for c, (v, n, k) in per_class.items()}
        summary_text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
        if args.output_file:
            out = Path(args.output_file)
            outputs.append((out.with_name(f"{out.stem}.summary.json"),
                            summary_text.encode("utf-8")))
    if args.sentences:                   # per-sentence values (--sentences), written with the rest
        from evaltrans_qt.io.sentences import run_sentences_output
        outputs.append(run_sentences_output(args.sentences, result, db))
    from evaltrans_qt.io.atomic import atomic_write_files
    # all reports (and summary, sentences) or none: an old set is never mixed with a new one
    atomic_write_files((path, data) for path, data in outputs if path is not None)
    if summary_text is not None:
        sys.stdout.write(summary_text)
        return 0
    stdout = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
    for path, data in outputs:
        if path is None:
            if stdout is not None:
                sys.stdout.flush()
                stdout.write(data)
                stdout.flush()
            else:
                sys.stdout.write(data.decode(args.encoding))
    if len(result.systems) > 1 and all(p is not None for p, _ in outputs):
        sys.stdout.write(summary_table(result))
    return 0


__all__ = ["register", "run", "match_targets", "output_paths", "report_extras", "ProgressBar",
           "format_seconds"]
