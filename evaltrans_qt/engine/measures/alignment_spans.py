"""Suggested error spans from a measure's word alignment (pre-filling an MQM/ESA
annotation from our own measures, as ESA-AI pre-fills from a quality-estimation model:
Kocmi et al. 2024, section 5).

:func:`suggested_spans` aligns the candidate to its references with an edit-distance
measure (TER by default: its shifts are word-order suggestions) through
:func:`~evaltrans_qt.engine.measures.alignment.explain_segment` -- the alignment
``evaltrans align`` shows -- and turns the edits into character spans of the untokenised
candidate: runs of substituted words into ``Accuracy/Mistranslation``, runs of inserted
words into ``Accuracy/Addition``, a reference word the candidate lacks into an omission
(``Accuracy/Omission``, an empty span after the preceding candidate word), shifted
blocks into ``Style/Awkward``. All are ``Minor``: they are suggestions for the judge to
accept, change or reject, not judgements. Words are found in the candidate in order
(case-insensitively); a token the text does not contain (a tokeniser's escape) is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.engine.measures.alignment import OpKind, explain_segment

SEVERITY = "Minor"
CATEGORIES = {OpKind.SUB: "Accuracy/Mistranslation", OpKind.INS: "Accuracy/Addition"}
OMISSION, SHIFT = "Accuracy/Omission", "Style/Awkward"


def token_offsets(text: str, tokens: Sequence[str]) -> list[tuple[int, int] | None]:
    """``[start, end)`` of each token in ``text``, found in order (None if not found)."""
    low = text.lower()
    out: list[tuple[int, int] | None] = []
    pos = 0
    for tok in tokens:
        i = low.find(tok.lower(), pos)
        if i < 0:
            out.append(None)
            continue
        out.append((i, i + len(tok)))
        pos = i + len(tok)
    return out


def suggested_spans(candidate: str, references: Sequence[str], measure: str = "ter",
                    options=None) -> list[ErrorSpan]:
    """Error-span suggestions for ``candidate`` from ``measure``'s alignment (module doc),
    in text order. No references, or a measure without an alignment: none."""
    if not references:
        return []
    ex = explain_segment(measure, candidate, list(references), options)
    al = ex.alignment
    if al is None:
        return []
    offs = token_offsets(candidate, al.hyp)
    marked: dict[int, str] = {}
    omissions: list[int] = []
    last_end = 0
    for op in al.operations:
        if op.hyp_pos is not None:
            span = offs[op.hyp_pos] if op.hyp_pos < len(offs) else None
            if op.kind in CATEGORIES:
                marked[op.hyp_pos] = CATEGORIES[op.kind]
            if span is not None:
                last_end = span[1]
        elif op.kind == OpKind.DEL:
            omissions.append(last_end)
    out: list[ErrorSpan] = []
    run: list[int] = []

    def flush() -> None:
        spans = [sp for p in run if (sp := offs[p]) is not None]
        if spans:
            out.append(ErrorSpan(SEVERITY, marked[run[0]], spans[0][0], spans[-1][1],
                                 comment=f"{measure.upper()} suggestion"))
        run.clear()

    for p in sorted(marked):
        if run and (p != run[-1] + 1 or marked[p] != marked[run[0]]):
            flush()
        run.append(p)
    flush()
    for b in al.blocks:
        spans = [s for s in offs[b.hyp_span[0]:b.hyp_span[1]] if s is not None]
        if spans:
            out.append(ErrorSpan(SEVERITY, SHIFT, spans[0][0], spans[-1][1],
                                 comment=f"{measure.upper()} suggestion: word order"))
    out += [ErrorSpan(SEVERITY, OMISSION, p, p, comment=f"{measure.upper()} suggestion")
            for p in dict.fromkeys(omissions)]
    return sorted(out, key=lambda e: (e.start or 0, e.end or 0))
