"""Where the annotators of a campaign disagree, and the final judgements that settle it.

After the r annotators of an item have judged it (a collected campaign, or any database
with several judges), a coordinator *adjudicates* the items where they disagree beyond a
threshold: looks at their judgements side by side and records a final one. The final
judgement is kept as the judgement of a judge of its own, :data:`ADJUDICATED`, beside the
annotators' ones, so nothing the annotators said is lost and every analysis can choose
either (agreement with the final judgements: ``campaign_agreement(db,
gold="adjudicated")``).

Two kinds of disagreement (:class:`Disagreement`):

* **score** (a score class: scales, DA, the ESA score): the *spread* of the annotators'
  values (largest minus smallest) exceeds ``threshold`` times the range of the class
  (``count - 1 - firstvalid`` levels, or ``maximum - minimum`` of a continuous class;
  the spread itself for an unbounded class);
* **spans** (error spans under one protocol, MQM or ESA): some span is *found by only
  some* of the annotators -- no span of another annotator overlaps it (overlap as
  engine/human/spans/prefill.py defines it; ``severity=True``: an overlapping span of
  another severity does not count either). Spans of the ``adjudicated`` judge take no
  part.

Only candidates judged by at least two annotators are looked at. The functions here
read; the session that records final judgements (journaled, undoable) is
:mod:`evaltrans_qt.adjudication_session`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from evaltrans_qt.engine.campaign.agreement import ADJUDICATED, judge_name, severity_key
from evaltrans_qt.engine.data.database import Database, Levels, Target
from evaltrans_qt.engine.human.ranking import RANK_CLASS
from evaltrans_qt.engine.human.spans.model import PROTOCOLS as SPAN_PROTOCOLS
from evaltrans_qt.engine.human.spans.model import ErrorSpan
from evaltrans_qt.engine.human.spans.prefill import overlaps
from evaltrans_qt.errors import ScoreError

Item = tuple[int, int]          # (source index, target index)
Kind = Literal["score", "spans"]
#: Default threshold of a score disagreement: a quarter of the scale.
DEFAULT_THRESHOLD = 0.25


@dataclass(frozen=True)
class LoneSpan:
    """A span annotator ``judge`` marked (their error number ``index``) that no other
    annotator's span overlaps."""

    judge: str
    index: int
    error: ErrorSpan


@dataclass(frozen=True)
class Disagreement:
    """One item and kind of judgement where the annotators disagree (module doc).

    ``name``: the score class, or the span protocol. ``scores``: each annotator's value
    (score kind); ``spans``: each annotator's errors (spans kind); ``spread``: largest
    minus smallest value (score) or the number of lone spans (spans); ``lone``: the
    spans found by only some annotators; ``final``: the :data:`ADJUDICATED` judgement if
    one was recorded (a value, or a tuple of errors)."""

    item: Item
    kind: Kind
    name: str
    spread: float
    scores: dict[str, float] = field(default_factory=dict)
    spans: dict[str, tuple[ErrorSpan, ...]] = field(default_factory=dict)
    lone: tuple[LoneSpan, ...] = ()
    final: float | tuple[ErrorSpan, ...] | None = None

    @property
    def judges(self) -> list[str]:
        return sorted(self.scores if self.kind == "score" else self.spans)

    @property
    def adjudicated(self) -> bool:
        return self.final is not None


def class_range(lv: Levels) -> float:
    """The width of a class' scale (module doc); NaN for an unbounded continuous class."""
    if lv.continuous:
        if lv.minimum is None or lv.maximum is None:
            return math.nan
        return float(lv.maximum - lv.minimum)
    return float(lv.count - 1 - lv.firstvalid)


def check_threshold(threshold: float) -> float:
    """``threshold`` if it is a number >= 0; ScoreError naming it otherwise."""
    if not (isinstance(threshold, (int, float)) and math.isfinite(threshold)
            and threshold >= 0):
        raise ScoreError(f"the disagreement threshold must be a number >= 0, not {threshold!r}")
    return float(threshold)


def score_disagreement(db: Database, item: Item, cls: str, threshold: float = DEFAULT_THRESHOLD,
                       *, always: bool = False) -> Disagreement | None:
    """The score disagreement of class ``cls`` on ``item`` (module doc), None when fewer
    than two annotators scored it or their spread is within the threshold (``always``:
    return it anyway, as long as two annotators scored it)."""
    t = _target(db, item)
    scores: dict[str, list[float]] = {}
    final = None
    for s in t.scores:
        if s.cls != cls or s.extrapolated:
            continue
        if s.judge == ADJUDICATED:
            final = s.value
        else:
            scores.setdefault(judge_name(s.judge), []).append(s.value)
    if len(scores) < 2:
        return None
    values = {j: sum(v) / len(v) for j, v in scores.items()}
    spread = max(values.values()) - min(values.values())
    width = class_range(db.level(cls))
    limit = threshold * width if math.isfinite(width) else threshold
    if spread <= limit and not always:
        return None
    return Disagreement(item, "score", cls, spread, scores=values, final=final)


def lone_spans(spans: Mapping[str, Sequence[ErrorSpan]], severity: bool = False
               ) -> list[LoneSpan]:
    """The located spans of each annotator that no other annotator's span overlaps
    (``severity``: overlaps with the same severity), in judge order."""
    out = []
    for j in sorted(spans):
        others = [e for k, errs in spans.items() if k != j for e in errs]
        for n, e in enumerate(spans[j]):
            if not e.located:
                continue
            if not any(overlaps(e, o) and (not severity or severity_key(e) == severity_key(o))
                       for o in others):
                out.append(LoneSpan(j, n, e))
    return out


def span_disagreement(db: Database, item: Item, protocol: str = "mqm", *,
                      severity: bool = False, always: bool = False) -> Disagreement | None:
    """The span disagreement under ``protocol`` on ``item`` (module doc), None when fewer
    than two annotators annotated it or no span is found by only some of them
    (``always``: return it anyway when two annotated it)."""
    t = _target(db, item)
    spans: dict[str, tuple[ErrorSpan, ...]] = {}
    final = None
    for a in t.span_annotations:
        if a.protocol != protocol or a.origin != "human":     # a machine's: suggestions
            continue
        if a.judge == ADJUDICATED:
            final = tuple(a.errors)
        else:
            spans[judge_name(a.judge)] = tuple(a.errors)
    if len(spans) < 2:
        return None
    lone = lone_spans(spans, severity)
    if not lone and not always:
        return None
    return Disagreement(item, "spans", protocol, float(len(lone)), spans=spans,
                        lone=tuple(lone), final=final)


def find_disagreements(db: Database, threshold: float = DEFAULT_THRESHOLD, *,
                       classes: Iterable[str] | None = None, spans: bool = True,
                       severity: bool = False) -> list[Disagreement]:
    """Every disagreement of ``db`` (module doc), candidate by candidate in database order:
    the score classes (``classes``, default every human class but the rank class, whose
    ranks are relative to a screen) and, with ``spans``, the span protocols."""
    check_threshold(threshold)
    names = [c for c in db.human_classes if c != RANK_CLASS] if classes is None else list(classes)
    for c in names:
        if not db.has_class(c):
            raise ScoreError(f"no score class {c!r} in the database "
                             f"(classes: {', '.join(db.human_classes) or 'none'})")
    out: list[Disagreement] = []
    is_ref = db.reference_test()
    for si, src in enumerate(db.sources):
        for ti, t in enumerate(src.targets):
            if is_ref(t):
                continue
            for c in names:
                d = score_disagreement(db, (si, ti), c, threshold)
                if d is not None:
                    out.append(d)
            if spans:
                for p in SPAN_PROTOCOLS:
                    d = span_disagreement(db, (si, ti), p, severity=severity)
                    if d is not None:
                        out.append(d)
    return out


def refresh(db: Database, d: Disagreement, threshold: float = DEFAULT_THRESHOLD, *,
            severity: bool = False) -> Disagreement:
    """``d`` as the database has it now (the annotators' and the final judgements), kept
    even when the disagreement has meanwhile gone (an annotator's judgement changed)."""
    if d.kind == "score":
        new = score_disagreement(db, d.item, d.name, threshold, always=True)
    else:
        new = span_disagreement(db, d.item, d.name, severity=severity, always=True)
    return new if new is not None else Disagreement(d.item, d.kind, d.name, 0.0)


def _target(db: Database, item: Item) -> Target:
    si, ti = item
    if not (0 <= si < len(db.sources) and 0 <= ti < len(db.sources[si].targets)):
        raise ScoreError(f"there is no target {ti} of source {si + 1}")
    return db.sources[si].targets[ti]
