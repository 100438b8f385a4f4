"""Merging the human-evaluation protocols of two databases (called by
:func:`evaltrans_qt.engine.data.merge.merge`).

* **Post-edits and item marks** are keyed by judge, like scores by (class, judge): a
  judge only ``other`` has is added (both sides kept); the same judge with a different
  post-edit (text or seconds) or different marks is a conflict, resolved like a score
  conflict by the policy -- ``"new"`` takes theirs, ``"old"`` and a callback policy keep
  ours (the callback answers score conflicts; a protocol conflict is reported in
  ``MergeReport.protocol_conflicts`` either way).
* **Information items** of a source: taken from ``other`` when we have none; different
  items on both sides are a conflict -- the winner's items stay, and the marks made
  against the loser's items are dropped (counted in the report), because marks only
  mean something against the items they were made for.
* **Added references** travel with their target (``added``/``added_by`` are copied with
  it; a target both have keeps ours).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from evaltrans_qt.engine.data.database import Source, Target


@dataclass(frozen=True)
class ItemsOutcome:
    """Whether ``other``'s marks of one source fit the items that stayed."""

    theirs_fit: bool
    where: str
    prefer_new: bool


def _describe(src: Source) -> str:
    if src.seg:
        return f"source {src.doc + ' ' if src.doc else ''}{src.seg}"
    return f"source {src.text[:30]!r}"


def merge_items(src: Source, osrc: Source, prefer_new: bool, report) -> ItemsOutcome:
    """Merge the information items of ``osrc`` into ``src`` (module doc)."""
    where = _describe(src)
    mine = (tuple(src.items), src.items_tokenization)
    theirs = (tuple(osrc.items), osrc.items_tokenization)
    if not osrc.items or mine == theirs:
        return ItemsOutcome(not osrc.items or mine == theirs, where, prefer_new)
    if not src.items:
        src.items, src.items_tokenization = list(osrc.items), osrc.items_tokenization
        return ItemsOutcome(True, where, prefer_new)
    if prefer_new:
        dropped = sum(len(t.item_marks) for t in src.targets)
        for t in src.targets:
            t.item_marks = []
        src.items, src.items_tokenization = list(osrc.items), osrc.items_tokenization
        report.protocol_conflicts.append(f"{where}: information items differ (took theirs; "
                                         f"{dropped} marking(s) of ours dropped)")
        return ItemsOutcome(True, where, prefer_new)
    dropped = sum(len(t.item_marks) for t in osrc.targets)
    report.protocol_conflicts.append(f"{where}: information items differ (kept ours; "
                                     f"{dropped} marking(s) of theirs not taken)")
    return ItemsOutcome(False, where, prefer_new)


def new_target(tgt: Target, outcome: ItemsOutcome) -> None:
    """A target copied from ``other``: drop its marks if they were made for other items."""
    if not outcome.theirs_fit:
        tgt.item_marks = []


def merge_target(tgt: Target, ot: Target, outcome: ItemsOutcome, report) -> None:
    """Merge ``ot``'s post-edits and marks into our ``tgt`` (module doc)."""
    name = f"{outcome.where} target {tgt.system or ''}".rstrip()
    for pe in ot.postedits:
        mine = tgt.postedit_by(pe.judge)
        if mine is None:
            tgt.postedits.append(copy.deepcopy(pe))
        elif (mine.text, mine.seconds) != (pe.text, pe.seconds):
            if outcome.prefer_new:
                tgt.postedits[tgt.postedits.index(mine)] = copy.deepcopy(pe)
            report.protocol_conflicts.append(
                f"{name}: post-edit of judge {pe.judge or '-'} differs "
                f"({'took theirs' if outcome.prefer_new else 'kept ours'})")
    _merge_spans(tgt, ot, name, outcome.prefer_new, report)
    if not outcome.theirs_fit:
        return
    for m in ot.item_marks:
        mine_m = tgt.marks_by(m.judge)
        if mine_m is None:
            tgt.item_marks.append(copy.deepcopy(m))
        elif mine_m.marks != m.marks:
            if outcome.prefer_new:
                tgt.item_marks[tgt.item_marks.index(mine_m)] = copy.deepcopy(m)
            report.protocol_conflicts.append(
                f"{name}: item marks of judge {m.judge or '-'} differ "
                f"({'took theirs' if outcome.prefer_new else 'kept ours'})")


def _merge_spans(tgt: Target, ot: Target, name: str, prefer_new: bool, report) -> None:
    """Error-span annotations per judge, protocol (MQM, ESA) and origin (a judge's or a
    machine's suggested spans): theirs added where we have none; where both differ, a
    conflict is reported and ours kept (or theirs taken with ``prefer_new``)."""
    for a in ot.span_annotations:
        mine = next((x for x in tgt.span_annotations
                     if (x.judge, x.protocol, x.origin) == (a.judge, a.protocol, a.origin)),
                    None)
        if mine is None:
            tgt.span_annotations.append(copy.deepcopy(a))
        elif (mine.errors, mine.seconds, mine.rejected) != (a.errors, a.seconds, a.rejected):
            if prefer_new:
                tgt.span_annotations[tgt.span_annotations.index(mine)] = copy.deepcopy(a)
            report.protocol_conflicts.append(
                f"{name}: {a.protocol.upper()} error spans of "
                f"{'machine' if a.origin == 'machine' else 'judge'} {a.judge or '-'} differ "
                f"({'took theirs' if prefer_new else 'kept ours'})")
