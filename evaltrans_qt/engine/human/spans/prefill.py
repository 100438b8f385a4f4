"""Pre-filled spans (ESA-AI, post-editing machine spans; Kocmi et al. 2024, section 5):
what the judges did with the spans a machine proposed.

The machine's spans are stored as a machine annotation (origin ``machine``,
engine/human/spans/model.py) of a judge of their own (e.g. ``xcomet``, imported with
``evaltrans spans --import-json``; ``ter`` from ``--suggest ter``), which no human score
counts; a human judge's annotation of the same candidate is the final one, and it records the suggestions the judge rejected explicitly
(:class:`~evaltrans_qt.engine.human.spans.model.Rejection`, the R key of the annotation
screen). :func:`compare` sorts each of the machine's spans into exactly one of

* **kept** -- a final span with the same side, start, end, severity and category;
* **rejected** -- not kept, and the judge rejected it explicitly;
* **changed** -- neither, but a final span overlaps it (same side; an empty span
  overlaps a span that contains its position, or an empty span at the same position):
  accepted and then relabelled or moved, or marked anew over it;
* **removed** -- none of these: no final span overlaps it and the judge did not reject
  it (left alone, or accepted and deleted again);

and counts as **added** the final spans that are neither the same as nor overlap a kept
or changed machine span. Character precision and recall of the machine spans against
the final ones (per side, the characters covered; omissions cover none) measure the
pre-filling: ``overlap / machine`` and ``overlap / final``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.spans.model import ErrorSpan


@dataclass(frozen=True)
class PrefillComparison:
    """Counts of :func:`compare` (module doc), summed over candidates."""

    kept: int = 0
    changed: int = 0
    removed: int = 0
    added: int = 0
    machine_chars: int = 0
    final_chars: int = 0
    overlap_chars: int = 0
    candidates: int = 0
    rejected: int = 0

    def __add__(self, o: PrefillComparison) -> PrefillComparison:
        return PrefillComparison(*(a + b for a, b in zip(_fields(self), _fields(o),
                                                         strict=True)))

    @property
    def machine_spans(self) -> int:
        return self.kept + self.changed + self.rejected + self.removed

    @property
    def kept_share(self) -> float:
        """Share of the machine's spans kept unchanged (NaN without any)."""
        return self.kept / self.machine_spans if self.machine_spans else float("nan")

    @property
    def rejected_share(self) -> float:
        """Share of the machine's spans the judges rejected explicitly (NaN without any)."""
        return self.rejected / self.machine_spans if self.machine_spans else float("nan")

    @property
    def precision(self) -> float:
        return self.overlap_chars / self.machine_chars if self.machine_chars else float("nan")

    @property
    def recall(self) -> float:
        return self.overlap_chars / self.final_chars if self.final_chars else float("nan")

    def to_dict(self) -> dict[str, float | int]:
        return {"candidates": self.candidates, "machine_spans": self.machine_spans,
                "kept": self.kept, "changed": self.changed, "rejected": self.rejected,
                "removed": self.removed, "added": self.added, "kept_share": self.kept_share,
                "rejected_share": self.rejected_share,
                "precision": self.precision, "recall": self.recall}


def _fields(c: PrefillComparison) -> tuple[int, ...]:
    return (c.kept, c.changed, c.removed, c.added, c.machine_chars, c.final_chars,
            c.overlap_chars, c.candidates, c.rejected)


def _located(e: ErrorSpan) -> tuple[int, int] | None:
    return None if e.start is None or e.end is None else (e.start, e.end)


def overlaps(a: ErrorSpan, b: ErrorSpan) -> bool:
    """Same side and overlapping characters (module doc for empty spans)."""
    sa, sb = _located(a), _located(b)
    if a.side != b.side or sa is None or sb is None:
        return False
    if sa[0] == sa[1] or sb[0] == sb[1]:
        return sa[0] <= sb[1] and sb[0] <= sa[1]
    return sa[0] < sb[1] and sb[0] < sa[1]


def same_span(a: ErrorSpan, b: ErrorSpan) -> bool:
    """The same side, span, severity (any case) and category (what "kept" compares)."""
    return (a.side, a.start, a.end, a.severity.lower(), a.category) == \
        (b.side, b.start, b.end, b.severity.lower(), b.category)


def _chars(errors: Iterable[ErrorSpan]) -> set[tuple[str, int]]:
    out: set[tuple[str, int]] = set()
    for e in errors:
        if e.start is not None and e.end is not None:
            out.update((e.side, i) for i in range(e.start, e.end))
    return out


def compare(machine: Sequence[ErrorSpan], final: Sequence[ErrorSpan],
            rejected: Sequence[ErrorSpan] = ()) -> PrefillComparison:
    """What happened to the ``machine`` spans in ``final`` (module doc), one candidate;
    ``rejected``: the machine spans the judge rejected explicitly."""
    kept = changed = removed = n_rejected = 0
    taken: list[ErrorSpan] = []                     # kept or changed machine spans
    for m in machine:
        if any(same_span(m, f) for f in final):
            kept += 1
            taken.append(m)
        elif any(same_span(m, r) for r in rejected):
            n_rejected += 1
        elif any(overlaps(m, f) for f in final):
            changed += 1
            taken.append(m)
        else:
            removed += 1
    added = sum(1 for f in final if not any(overlaps(m, f) or same_span(m, f) for m in taken))
    mc, fc = _chars(machine), _chars(final)
    return PrefillComparison(kept, changed, removed, added, len(mc), len(fc), len(mc & fc), 1,
                             n_rejected)


def prefill_statistics(db: Database, machine_judge: str | None,
                       judges: Iterable[str | None] | None = None) -> PrefillComparison:
    """:func:`compare` summed over every candidate that has the machine's annotation and a
    final one of a human judge (a human annotation of any judge but ``machine_judge``, or
    of those of ``judges``); a candidate two judges annotated counts once per judge.
    The machine's annotation is ``machine_judge``'s of origin ``machine``; in a database
    without any (written before annotations had an origin, when imported machine spans
    were stored as a judge's) ``machine_judge``'s annotation of any origin."""
    want = None if judges is None else set(judges)
    legacy = not any(a.origin == "machine" and a.judge == machine_judge
                     for _, t in db.iter_candidates() for a in t.span_annotations)
    total = PrefillComparison()
    for _, t in db.iter_candidates():
        m = next((a for a in t.span_annotations if a.judge == machine_judge
                  and (legacy or a.origin == "machine")), None)
        if m is None:
            continue
        for a in t.span_annotations:
            if a is m or a.origin != "human" or a.judge == machine_judge \
                    or (want is not None and a.judge not in want):
                continue
            total = total + compare(m.errors, a.errors, [r.error for r in a.rejected
                                                         if r.machine == machine_judge])
    return total
