"""``evaltrans align``: show why a sentence scored as it did.

::

    evaltrans align --measure cder "we met at seven o'clock on the airport ." \\
                                   "we met at the airport at seven o'clock ."
    evaltrans align --measure ter --json CANDIDATE REFERENCE [REFERENCE ...]

Tokenises the candidate and the reference(s) with the run options (``--preset`` and
every evaluation option, e.g. ``--cder-pad-rule``,
``--substitution-cost-rule``, ``--tokenization``, ``--case``), asks the
measure for its alignment to the reference that counts
(``engine.alignment.explain_segment``, the compare view's path too, so every
measure with an ``align`` works) and prints a tercom-``.pra``-like view: aligned REF/HYP rows, the
operation row (blank = match, S, I = candidate word without reference word,
D = reference word missing) and the block row (block numbers), followed by
the blocks. ``--json`` prints :meth:`Alignment.to_dict` (``distance``,
``operations``, ``blocks``, ...) as one object.
"""

from __future__ import annotations

import argparse
import json
import sys

from evaltrans_qt.cli._common import (
    add_option_arguments,
    number,
    options_from_args,
    refuse_unused_options,
)
from evaltrans_qt.cli.progress import ProgressBar
from evaltrans_qt.engine.measures.alignment import Alignment, OpKind, explain_segment
from evaltrans_qt.errors import OptionError

#: What ``evaltrans align --help`` says (plain text for users).
DESCRIPTION = """\
Show why a sentence scored as it did: the alignment of a candidate to the reference that
counts, under the same options as a run.

examples:
  evaltrans align --measure cder "we met at seven o'clock on the airport ." \\
                                 "we met at the airport at seven o'clock ."
  evaltrans align --measure ter --json CANDIDATE REFERENCE [REFERENCE ...]

The text view has rows REF, HYP, EVAL (blank: match, S: substitution, I: candidate word
without a reference word, D: reference word missing) and BLOCK (block numbers), then the
distance and the blocks. --json prints the alignment as one JSON object."""

GAP = "***"
WIDTH = 100
#: What an approximated alignment means (LJWER beyond its exact limit, INVWER beyond its
#: memory budget).
APPROXIMATED = ("the distance is an upper bound from a real alignment, not the exact "
                "minimum (LJWER: longer than --ljwer-exact-limit; INVWER: the exact search "
                "exceeds --invwer-memory-budget)")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "align", help="show the alignment behind a measure (WER, CDER, TER, PER, INVWER, LJWER)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--measure", required=True, metavar="NAME",
                   help="cder, wcder, wer, wwer, ter, per, invwer, ljwer (any measure with an "
                        "alignment)")
    p.add_argument("--json", action="store_true", help="print the alignment as one JSON object")
    p.add_argument("candidate", help="candidate sentence (text)")
    p.add_argument("references", nargs="+", metavar="reference",
                   help="reference sentence(s) (text); the measure picks the one that counts")
    add_option_arguments(p)
    p.set_defaults(func=run)


def compute(measure: str, candidate: str, references: list[str], options) -> Alignment:
    """The measure's alignment under ``options`` (:func:`engine.alignment.explain_segment`,
    the same path as the application's compare view)."""
    a = explain_segment(measure, candidate, references, options).alignment
    if a is None:
        raise OptionError(f"measure '{measure}' has no alignment to show")
    return a


def block_of_ops(a: Alignment) -> list[int | None]:
    """Block number of each operation (None outside blocks), for the text view.

    An operation with a reference word belongs to the block whose reference
    span holds it (CDER, INVWER) or whose candidate span holds its candidate
    word (TER shifts); one without belongs to the previous operation's block
    if that block's candidate span holds its word, else to the first such block.
    """
    out: list[int | None] = []
    prev = None
    for op in a.operations:
        b = None
        for blk in a.blocks:
            if op.hyp_pos is not None and blk.kind.value == "shift":
                if blk.hyp_span[0] <= op.hyp_pos < blk.hyp_span[1]:
                    b = blk.number
                    break
            elif op.ref_pos is not None:
                if blk.ref_span[0] <= op.ref_pos < blk.ref_span[1]:
                    b = blk.number
                    break
        if b is None and op.ref_pos is None and op.hyp_pos is not None:
            cands = [blk for blk in a.blocks if blk.hyp_span[0] <= op.hyp_pos < blk.hyp_span[1]]
            if any(blk.number == prev for blk in cands):
                b = prev
            elif cands:
                b = cands[0].number
        out.append(b)
        prev = b
    return out


def _cost(x: float) -> str:
    """A distance or cost: ``3`` if whole, else 4 significant digits."""
    return number(x, ".4g", missing="nan", whole=True)


def text_view(a: Alignment, width: int = WIDTH) -> str:
    """tercom ``.pra``-like rendering of an alignment."""
    symbol = {OpKind.MATCH: "", OpKind.SUB: "S", OpKind.INS: "I", OpKind.DEL: "D"}
    blocks = block_of_ops(a)
    # error classes (the errorclasses measure): the reference word's class, and the
    # candidate word's after a slash where it differs; correct words stay blank
    ref_cls = a.notes.get("ref_classes") or ()
    hyp_cls = a.notes.get("hyp_classes") or ()
    show_classes = "ref_classes" in a.notes and "hyp_classes" in a.notes
    cols = []
    for op, b in zip(a.operations, blocks):
        ref = a.ref[op.ref_pos] if op.ref_pos is not None else GAP
        hyp = a.hyp[op.hyp_pos] if op.hyp_pos is not None else GAP
        sym = symbol[op.kind]
        if op.kind is OpKind.SUB and op.cost != 1.0:
            sym += f"({number(op.cost, '.2f', missing='nan')})"
        label = "" if b is None else str(b)
        cls = ""
        if show_classes:
            rc = ref_cls[op.ref_pos] if op.ref_pos is not None else "x"
            hc = hyp_cls[op.hyp_pos] if op.hyp_pos is not None else "x"
            cls = "/".join(dict.fromkeys(c for c in (rc, hc) if c != "x"))
        w = max(len(ref), len(hyp), len(sym), len(label), len(cls))
        cols.append((ref.ljust(w), hyp.ljust(w), sym.ljust(w), label.ljust(w), cls.ljust(w)))
    lines = [f"Measure: {a.measure}   reference: {a.ref_index + 1}",
             "Candidate: " + " ".join(a.hyp), "Reference: " + " ".join(a.ref), ""]
    labels = ("REF:  ", "HYP:  ", "EVAL: ", "BLOCK:", "CLASS:")
    rows = [0, 1, 2] + ([3] if a.blocks else []) + ([4] if show_classes else [])
    start = 0
    while start < len(cols) or start == 0:
        used, end = 0, start
        while end < len(cols) and (end == start or used + len(cols[end][0]) + 1 <= width):
            used += len(cols[end][0]) + 1
            end += 1
        for row in rows:
            lines.append(labels[row] + " " + " ".join(c[row] for c in cols[start:end]).rstrip())
        lines.append("")
        if end >= len(cols):
            break
        start = end
    c = a.counts()
    op_cost = sum(op.cost for op in a.operations)
    lines.append(f"Distance: {_cost(a.distance)} = operations {_cost(op_cost)} "
                 f"({c['sub']} S, {c['ins']} I, {c['del']} D; {c['match']} matches) + "
                 f"blocks {_cost(sum(b.cost for b in a.blocks))} ({c['blocks']} blocks)")
    covered = {op.hyp_pos for op in a.operations if op.hyp_pos is not None}
    uncovered = [i for i in range(len(a.hyp)) if i not in covered]
    if uncovered:
        # CDER (CD for the reference) may leave candidate words unused: they cost nothing
        # unless a coverage penalty is on, but a reader must see them
        lines.append("Candidate words aligned to no reference word: "
                     + ", ".join(f"{a.hyp[i]} [{i}]" for i in uncovered))
    for blk in a.blocks:
        lines.append(f"  block {blk.number:>2} {blk.kind.value:<10} candidate [{blk.hyp_span[0]}, "
                     f"{blk.hyp_span[1]})  reference [{blk.ref_span[0]}, {blk.ref_span[1]})  "
                     f"cost {_cost(blk.cost)}")
    for k, v in a.notes.items():
        if isinstance(v, (int, float, bool, str)):
            lines.append(f"  {k}: {v}")
    if a.notes.get("approximated"):
        lines.append(f"Approximated: {APPROXIMATED}.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.measures import get as get_measure
    measure = get_measure(args.measure).name
    refuse_unused_options(args, [measure], f"align shows {measure} only")
    options = options_from_args(args)
    # the alignments run compiled kernels: the first run after an installation compiles them
    # (about a minute), said on stderr; no --progress, one sentence pair takes no time
    ProgressBar().announce_compilation()
    a = compute(args.measure, args.candidate, list(args.references), options)
    if a.notes.get("approximated"):
        print(f"evaltrans: warning: {a.measure}: the pair is approximated ({APPROXIMATED})",
              file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps(a.to_dict(), ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(text_view(a) + "\n")
    return 0
