"""``evaltrans errorclasses``: automatic error classification of a candidate file with
Hjerson's inputs and outputs (Popović & Ney 2011 §3; Popović 2011, Hjerson).

::

    evaltrans errorclasses -R ref.txt -H hyp.txt -B ref.base -b hyp.base -s -c classes.txt
    evaltrans errorclasses -R refA.txt -R refB.txt -H hyp.txt --language german -A ref.pos -a hyp.pos

Inputs are tokenised text, one sentence per line (words split on whitespace), as Hjerson
takes them; several references are several ``-R`` files (Hjerson: ``#+`` inside a line),
base-form and POS files one per reference (``-B``/``-A``, in the order of ``-R``) and one
for the candidate (``-b``/``-a``). Without base-form files the base forms come from NLTK's
Snowball stemmer of ``--language`` or, with ``--prefix4``, Hjerson's own fallback (the first
four letters). The output after the first line (which names the base forms) is Hjerson's:
the document-level counts and rates (per cent) under its names, with ``-s`` the sentence
level first (rates from each sentence's own counts and its best reference's length), with
``-c`` a file of every word with its class (``word~~class``, ``word#POS~~class`` with POS
files), and with POS files the POS-wise rates (each tag's words in each class over the
side's length). ``--json`` prints all of it as one object.

Two of Hjerson's sentence-level rates (``-s``) are slips we do not copy (the counts agree):
its ``refINFer`` rate divides the sentence's RPER count, and its ``Rper`` rate divides by the
length of the sentence's last reference; ours divide the inflection count and the best
reference's length. The document-level lines are Hjerson's exactly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evaltrans_qt.errors import InputFormatError, OptionError

DESCRIPTION = """\
Automatic error classification (Popovic & Ney 2011, as the tool Hjerson): every word of the
candidate and of its best reference gets a class -- inflectional error, reordering error,
missing word, extra word, lexical error -- and the document gets Hjerson's error rates.

examples:
  evaltrans errorclasses -R ref.txt -H hyp.txt -B ref.base -b hyp.base -s -c classes.txt
  evaltrans errorclasses -R refA.txt -R refB.txt -H hyp.txt --language german

Inputs are tokenised, one sentence per line. Base forms come from the -B/-b files, else
from the Snowball stemmer of --language, or with --prefix4 from the first four letters
(Hjerson's fallback). The first output line names the base forms; the lines after it are
Hjerson's counts and per-cent rates (Wer, Rper, Hper, SUMerr, ..., bhypLEXer)."""

#: Hjerson's labels and order of the document-level lines (its stdout), by statistic;
#: None: an empty line.
_LINES = [("Wer:  ", "wer"), ("Rper: ", "rper"), ("Hper: ", "hper"), None,
          ("SUMerr: ", "sum"), ("bSUMerr: ", "b_sum"), ("rbSUMerr: ", "rb_sum"), None,
          ("refINFer: ", "ref_infl"), ("hypINFer: ", "hyp_infl"), ("refRer:   ", "ref_reord"),
          ("hypRer:   ", "hyp_reord"), ("MISer:  ", "miss"), ("EXTer:  ", "ext"),
          ("refLEXer: ", "ref_lex"), ("hypLEXer: ", "hyp_lex"), None,
          ("brefINFer: ", "b_ref_infl"), ("bhypINFer: ", "b_hyp_infl"),
          ("brefRer:   ", "b_ref_reord"), ("bhypRer:   ", "b_hyp_reord"),
          ("bMISer:  ", "b_miss"), ("bEXTer:  ", "b_ext"), ("brefLEXer: ", "b_ref_lex"),
          ("bhypLEXer: ", "b_hyp_lex"), None]
#: The five candidate-side terms of Hjerson's sums, in its order of addition.
_SUMS = {"sum": ("hyp_infl", "hyp_reord", "miss", "ext", "hyp_lex"),
         "b_sum": ("b_hyp_infl", "b_hyp_reord", "b_miss", "b_ext", "b_hyp_lex"),
         "rb_sum": ("hyp_infl", "b_hyp_reord", "miss", "ext", "hyp_lex")}
#: Hjerson's count of each sum (its order differs from the rates').
_SUM_COUNTS = {"sum": ("hyp_infl", "miss", "hyp_lex", "ext", "hyp_reord"),
               "b_sum": ("b_hyp_infl", "b_miss", "b_hyp_lex", "b_ext", "b_hyp_reord"),
               "rb_sum": ("hyp_infl", "miss", "hyp_lex", "ext", "b_hyp_reord")}


def register(subparsers) -> None:
    from evaltrans_qt.engine.options import SNOWBALL_LANGUAGES
    p = subparsers.add_parser(
        "errorclasses", help="automatic error classes (inflection, reordering, missing, extra, "
                             "lexical) of a candidate file, as Hjerson",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-R", "--reference", action="append", required=True, metavar="FILE",
                   help="reference file (repeat for several references)")
    p.add_argument("-H", "--hypothesis", required=True, metavar="FILE",
                   help="candidate (hypothesis) file")
    p.add_argument("-B", "--reference-base", action="append", metavar="FILE",
                   help="base forms of each reference (one file per -R, in order)")
    p.add_argument("-b", "--hypothesis-base", metavar="FILE", help="base forms of the candidate")
    p.add_argument("-A", "--reference-pos", action="append", metavar="FILE",
                   help="POS tags of each reference (one file per -R, in order)")
    p.add_argument("-a", "--hypothesis-pos", metavar="FILE", help="POS tags of the candidate")
    p.add_argument("--language", choices=SNOWBALL_LANGUAGES, default=None,
                   help="Snowball stemmer for the base forms without -B/-b (default english)")
    p.add_argument("--prefix4", action="store_true",
                   help="base forms without -B/-b: the first four letters (Hjerson's fallback)")
    p.add_argument("-s", "--sentences", action="store_true",
                   help="also the counts and rates of every sentence")
    p.add_argument("-c", "--classes", metavar="FILE",
                   help="write every word with its class (Hjerson's categories file)")
    p.add_argument("--json", action="store_true", help="print everything as one JSON object")
    p.set_defaults(func=run)


def _lines(path: str) -> list[list[str]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(f"cannot read: {exc}", path) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.split() for line in lines]


def _percent(count: float, length: float) -> float:
    """Hjerson's rate: 100 * count / length (a zero length gives the count, as our rates)."""
    return 100 * count / length if length > 0 else 100 * count


def hjerson_lines(counts: dict[str, float], prefix: str = "") -> list[str]:
    """Hjerson's output lines of summed counts (``prefix``: ``"3::"`` for sentence 3)."""
    rl, hl = counts["ref_len"], counts["hyp_len"]
    from evaltrans_qt.engine.text.error_classes import REF_SIDE
    rate = {k: _percent(counts[k], rl if k in REF_SIDE else hl)
            for k in counts if k not in ("ref_len", "hyp_len")}
    for name, terms in _SUMS.items():
        total = 0.0
        for t in terms:
            total += rate[t]
        rate[name] = total
        counts = {**counts, name: sum(counts[t] for t in _SUM_COUNTS[name])}
    out = []
    for item in _LINES:
        if item is None:
            out.append("")
            continue
        label, key = item
        if prefix and key == "wer":
            label = "Wer: "                     # Hjerson's sentence lines: one space
        out.append(f"{prefix}{label}\t{counts[key]:.0f}\t{rate[key]:.2f}")
    return out


def run(args: argparse.Namespace) -> int:
    from evaltrans_qt.cli._common import check_output_file
    from evaltrans_qt.engine.analysis.error_classes import classify_system, read_word_file
    from evaltrans_qt.engine.analysis.error_classes_corpus import pos_rates
    from evaltrans_qt.engine.text.error_classes import STAT_NAMES, sentence_counts
    refs_files = list(args.reference)
    if bool(args.reference_base) != bool(args.hypothesis_base):
        raise OptionError("-B/--reference-base and -b/--hypothesis-base go together")
    if bool(args.reference_pos) != bool(args.hypothesis_pos):
        raise OptionError("-A/--reference-pos and -a/--hypothesis-pos go together")
    for flag, files in (("-B/--reference-base", args.reference_base),
                        ("-A/--reference-pos", args.reference_pos)):
        if files and len(files) != len(refs_files):
            raise OptionError(f"{flag}: {len(files)} file(s) for {len(refs_files)} reference "
                              "file(s); give one per -R, in the same order")
    if args.reference_base and (args.language or args.prefix4):
        raise OptionError(f"{'--language' if args.language else '--prefix4'} is not used: the "
                          "base forms come from the -B/-b files")
    if args.language and args.prefix4:
        raise OptionError("--language is not used with --prefix4 (the first four letters)")
    if args.classes:
        check_output_file(args.classes, "-c/--classes")
    hyps = _lines(args.hypothesis)
    refs_by_file = [_lines(f) for f in refs_files]
    for f, rs in zip(refs_files, refs_by_file):
        if len(rs) != len(hyps):
            raise InputFormatError(f"{len(rs)} lines, but the candidate file has {len(hyps)}", f)
    refs = [[rs[i] for rs in refs_by_file] for i in range(len(hyps))]
    hyp_bases = ref_bases = None
    if args.reference_base:
        hyp_bases = read_word_file(args.hypothesis_base, hyps, "base forms")
        by_file = [read_word_file(f, rs, "base forms")
                   for f, rs in zip(args.reference_base, refs_by_file)]
        ref_bases = [[b[i] for b in by_file] for i in range(len(hyps))]
        what = "files " + ", ".join([*args.reference_base, args.hypothesis_base])
    elif args.prefix4:
        what = "the first four letters of each word (Hjerson's fallback)"
    else:
        what = f"Snowball stemmer ({args.language or 'english'})"
    sents = classify_system(hyps, refs, hyp_bases, ref_bases,
                            base="prefix4" if args.prefix4 else "snowball",
                            language=args.language or "english")
    hyp_pos = ref_pos = None
    if args.reference_pos:
        hyp_pos = read_word_file(args.hypothesis_pos, hyps, "POS tags")
        pos_files = [read_word_file(f, rs, "POS tags")
                     for f, rs in zip(args.reference_pos, refs_by_file)]
        ref_pos = [pos_files[s.ref_index][i] for i, s in enumerate(sents)]
    total = dict(zip(STAT_NAMES, sentence_counts(sents).sum(axis=0).tolist())) if sents \
        else dict.fromkeys(STAT_NAMES, 0.0)
    tags = pos_rates(sents, hyp_pos, ref_pos) if hyp_pos is not None and ref_pos is not None \
        else None
    if args.classes:
        with open(args.classes, "w", encoding="utf-8") as fh:
            for n, s in enumerate(sents, start=1):
                for side, words, classes, pos in (
                        ("ref", s.ref, s.ref_classes, ref_pos[n - 1] if ref_pos else None),
                        ("hyp", s.hyp, s.hyp_classes, hyp_pos[n - 1] if hyp_pos else None)):
                    items = [w + (f"#{pos[k]}" if pos else "") + f"~~{c}"
                             for k, (w, c) in enumerate(zip(words, classes))]
                    fh.write(f"{n}::{side}-err-cats: " + "".join(x + " " for x in items) + "\n")
                fh.write("\n")
    if args.json:
        doc = {"base_forms": what, "total": total,
               "sentences": [{"ref_index": s.ref_index, "hyp_classes": list(s.hyp_classes),
                              "ref_classes": list(s.ref_classes),
                              "counts": dict(zip(STAT_NAMES, s.counts.tolist()))}
                             for s in sents]}
        if tags is not None:
            doc["pos_rates"] = [{"side": side, "tag": tag, **row}
                                for (side, tag), row in tags.to_dict(orient="index").items()]
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
        return 0
    out = [f"base forms: {what}"]
    if args.sentences:
        for n, s in enumerate(sents, start=1):
            out += hjerson_lines(dict(zip(STAT_NAMES, s.counts.tolist())), f"{n}::")
    out.append("")
    out += hjerson_lines(total)
    if tags is not None:
        out.append("POS-wise rates (per cent of the side's words):")
        out.append(tags.mul(100).round(2).to_string())
    sys.stdout.write("\n".join(out) + "\n")
    return 0
