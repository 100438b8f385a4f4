"""``evaltrans analyze``: compare-mt-style analysis of two or more systems of a database
(engine/analysis/pairwise.py; docs/analysis.md) as text, JSON or a self-contained HTML
report."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from evaltrans_qt.cli._common import (
    add_option_arguments,
    check_output_file,
    comma_list,
    number,
    open_database,
    options_from_args,
    refuse_unused_options,
)

if TYPE_CHECKING:
    import pandas as pd

    from evaltrans_qt.engine.analysis.pairwise import AnalysisResult

#: Evaluation options the analysis itself reads (its tokens; the error classes' base forms),
#: whatever the measure.
_USES = ("tokenization", "case", "error_classes_base", "stem_language")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "analyze", help="compare systems as compare-mt does: word accuracy by frequency, "
        "sentence buckets, characteristic n-grams, examples; --html writes a report",
        description="System-against-system analysis with compare-mt 0.2.10's buckets, "
        "formulas and defaults, against one reference (the first of each source, or "
        "--reference): aggregate scores with paired bootstrap significance, word accuracy "
        "(F-measure) by frequency bucket, label-wise accuracy (--labels), sentence buckets by "
        "reference length, length difference and sentence score, characteristic n-grams and "
        "the sentences with the largest differences, with their edits.")
    p.add_argument("database", metavar="DB")
    p.add_argument("--systems", metavar="A,B[,C]", required=True,
                   help="the systems to compare (two or more; every pair is compared)")
    p.add_argument("--measure", metavar="M", default="comparemt-bleu",
                   help="score of the aggregate table, the length buckets, the score buckets "
                        "and the examples: comparemt-bleu (default; compare-mt's BLEU and "
                        "sentence BLEU) or a measure (bleu, chrf, ter, wer...)")
    p.add_argument("--reference", metavar="NAME",
                   help="the reference id to compare with (default: the first reference of "
                        "each source)")
    p.add_argument("--train", metavar="FILE",
                   help="training corpus (one sentence a line) whose word counts make the "
                        "frequency buckets (default: counts in the test references)")
    p.add_argument("--labels", metavar="FILE", nargs="+",
                   help="label files (e.g. POS tags), one line per source: the reference's, "
                        "then optionally one per system in --systems order")
    p.add_argument("--top", metavar="N", type=int, default=50,
                   help="characteristic n-grams per direction (default 50, compare-mt's)")
    p.add_argument("--examples", metavar="N", type=int, default=10,
                   help="example sentences per direction (default 10, compare-mt's)")
    p.add_argument("--samples", metavar="N", type=int, default=1000,
                   help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", metavar="N",
                   help="bootstrap seed (default SACREBLEU_SEED or 12345; 'none': random)")
    p.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    p.add_argument("--html", metavar="OUT.html",
                   help="also write a self-contained HTML report (no network, inline SVG)")
    add_option_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from evaltrans_qt.errors import OptionError
    from evaltrans_qt.io.analysis_inputs import analyze_database
    systems = comma_list(args.systems) or []
    if len(systems) < 2:
        raise OptionError("--systems: name at least two systems, separated by commas")
    for flag, value in (("--top", args.top), ("--examples", args.examples),
                        ("--samples", args.samples)):
        if value < 1:
            raise OptionError(f"{flag}: must be at least 1, got {value}")
    measure = args.measure.strip()
    registry = [] if measure.lower() == "comparemt-bleu" else [measure]
    if registry:
        from evaltrans_qt.engine.measures import resolve
        if resolve(measure) is None:
            raise OptionError(f"--measure: unknown measure '{measure}'")
    for name, flag in (("leaving_one_out", "--leaving-one-out"), ("extrapolate", "--extrapolate")):
        if getattr(args, name, None):
            raise OptionError(f"{flag} is not used here: the analysis compares each output with "
                              "one reference and reads no human scores")
    refuse_unused_options(args, registry, f"the analysis uses --tokenization, --case, "
                          f"--error-classes-base, --stem-language and the measure {measure}",
                          command_uses=_USES)
    check_output_file(args.html, "--html")
    db = open_database(args.database)
    result = analyze_database(db, systems, measure=measure, options=options_from_args(args),
                              reference=args.reference, train=args.train, labels=args.labels,
                              top=args.top, examples=args.examples, samples=args.samples,
                              seed="env" if args.seed is None else args.seed)
    if args.html:
        from evaltrans_qt.io.html_report import write_html_report
        write_html_report(result, args.html, title=f"{', '.join(systems)} on {args.database}")
        print(f"{args.html}: analysis report written", file=sys.stderr)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        print_text(result)
    return 0


# ------------------------------------------------------------------ text output
def error_class_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Hjerson's rates, one row per rate and one column per system."""
    from evaltrans_qt.engine.analysis.error_classes_corpus import hjerson_table
    return hjerson_table(frame.set_index("system")).T

def _table(frame: pd.DataFrame, value: str, systems: tuple[str, ...], spec: str = ".4f",
           extra: str | None = None) -> list[str]:
    """One line per bucket: the bucket, ``extra`` (from the first system's rows), then
    ``value`` of each system."""
    head = f"{'bucket':<14}" + (f"{extra:>10}" if extra else "") \
        + "".join(f"{s[:12]:>13}" for s in systems)
    lines = [head]
    first = frame[frame.system == systems[0]]
    for b in first.bucket:
        row = f"{b:<14}"
        if extra:
            row += f"{int(first[first.bucket == b][extra].iloc[0]):>10}"
        for s in systems:
            v = frame[(frame.system == s) & (frame.bucket == b)][value].iloc[0]
            row += f"{number(float(v), spec):>13}"
        lines.append(row)
    return lines


def print_text(result: AnalysisResult) -> None:
    """The analysis as plain-text tables (compare-mt's order of reports)."""
    out: list[str] = []
    r = result
    systems = r.systems
    out.append(f"Analysis of {', '.join(systems)} on {r.n_sentences} sentences "
               f"(reference: {r.meta['reference']}, tokenization: {r.meta['tokenization']}, "
               f"case: {r.meta['case']})")
    out.append(f"measure: {r.measure_name}")
    out.append(f"signature: {r.signatures['bootstrap']}")
    out.append("")
    out.append("== Aggregate scores (95% bootstrap interval; p against the first system)")
    out.append(f"{'system':<16}{'score':>10}{'low':>10}{'high':>10}{'p':>9}{'length':>9}")
    for _, row in r.scores.iterrows():
        out.append(f"{row.system[:15]:<16}{number(row.score, '.4f'):>10}"
                   f"{number(row['low'], '.4f'):>10}{number(row['high'], '.4f'):>10}"
                   f"{number(row.p_value, '.4f'):>9}{number(row.length_ratio, '.4f'):>9}")
    out.append("")
    out.append(f"== Word accuracy (F-measure) by frequency in the "
               f"{r.settings.frequency_source}")
    out.extend(_table(r.word_accuracy, "fmeas", systems, extra="ref_words"))
    if r.label_accuracy is not None:
        out.append("")
        known = r.label_accuracy.fmeas.notna().any()
        out.append("== Word accuracy by label (" + ("F-measure" if known else
                   "recall; no output labels given") + ")")
        out.extend(_table(r.label_accuracy, "fmeas" if known else "recall", systems,
                          extra="ref_words"))
    out.append("")
    out.append(f"== {r.measure} by reference length")
    out.extend(_table(r.length_buckets, "score", systems, extra="sentences"))
    out.append("")
    out.append("== Sentences by length difference (output - reference)")
    out.extend(_table(r.lengthdiff_buckets, "sentences", systems, spec=".0f"))
    out.append("")
    out.append(f"== Sentences by sentence-level {r.measure}")
    out.extend(_table(r.score_buckets, "sentences", systems, spec=".0f"))
    if r.error_classes is not None:
        out.append("")
        out.append("== Error class rates (Popović & Ney 2011; Hjerson's names)")
        out.append(error_class_table(r.error_classes).to_string(float_format="{:.4f}".format))
    for (a, b), frame in r.ngrams.groupby(["system_a", "system_b"], sort=False) \
            if len(r.ngrams) else []:
        for better in (a, b):
            rows = frame[frame.better == better]
            out.append("")
            out.append(f"== {len(rows)} n-grams where {better} is better ({a} vs {b}; "
                       f"matches, smoothed ratio)")
            for _, row in rows.iterrows():
                out.append(f"{row.ngram[:40]:<42}{row.ratio:>8.4f}{row.count_a:>7}"
                           f"{row.count_b:>7}")
    for (a, b), frame in r.examples.groupby(["system_a", "system_b"], sort=False) \
            if len(r.examples) else []:
        for better in (a, b):
            rows = frame[frame.better == better]
            out.append("")
            out.append(f"== {len(rows)} sentences where {better} is better ({a} vs {b}, "
                       f"sentence-level {r.measure})")
            for _, row in rows.iterrows():
                out.append(f"[{row.segment}] {a}-{b}={row['diff']:.4f} {a}={row.score_a:.4f} "
                           f"{b}={row.score_b:.4f}")
                out.append(f"  Ref: {' '.join(row.reference)}")
                out.append(f"  {a}: {' '.join(row.output_a)}")
                out.append(f"  {b}: {' '.join(row.output_b)}")
    print("\n".join(out))
