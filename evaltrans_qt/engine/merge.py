"""Merge another evaluation database into this one (issue 2, item 5; SPEC §7 File menu).

* Sources are matched by their identity (SPEC §3.1): a source with ``seg`` by
  (doc, seg) -- so two positional databases keep a repeated sentence's lines
  apart, and the same (doc, seg) with different texts is an
  :class:`InputFormatError`, not a silent merge -- or, when ours at that position
  is missing, by a source of ours identified by the same text; a source without
  ``seg`` (old EvalTrans files, Aachen text) by its text (T:1971): each of its
  targets goes to the first of our sources with that text that has it, else to
  the first with that text. Targets are matched by (text, system id).
  New sources and targets are added (copies; ``other`` is not changed).
* Scores are keyed by (class, judge). A key only ``other`` has is added. A key
  both have with different values (or extrapolated flags) is a **conflict**,
  resolved by ``policy``: ``"old"`` keeps ours, ``"new"`` takes theirs, or a
  callback ``f(conflict) -> "old" | "new" | Choice`` is asked per conflict;
  ``Choice(keep, apply_to_all=True)`` answers all later conflicts the same way.
* Score classes ``other`` declares and we do not are added before our
  reference-deciding last class. A class both declare with a different
  definition keeps ours (noted in the report); their scores must be valid under
  ours. References stay references: if ``other``'s reference-deciding class is
  not ours, its references are marked with ours instead (T:1971).
* All of ``other``'s sources and scores are checked first, so a merge that fails
  (:class:`InputFormatError`, :class:`ScoreError`) leaves ``db`` unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, Union

from evaltrans_qt.engine.database import Database, Levels, Score, Source, Target, describe_key
from evaltrans_qt.errors import InputFormatError, ScoreError

Keep = Literal["old", "new"]


class Choice(NamedTuple):
    """A callback's answer: which score to keep, and whether for all further conflicts."""

    keep: Keep
    apply_to_all: bool = False


@dataclass(frozen=True)
class Conflict:
    """The same target has different scores of one (class, judge) in both databases."""

    source: Source
    target: Target
    cls: str
    judge: str | None
    old: Score
    new: Score


Policy = Union[Keep, Callable[[Conflict], Union[Keep, Choice]]]


@dataclass
class Resolved:
    conflict: Conflict
    kept: Keep
    by: str  # "policy", "callback", or "apply-to-all"


@dataclass
class MergeReport:
    """What a merge did."""

    added_sources: int = 0
    added_targets: int = 0
    added_scores: int = 0
    added_classes: list[str] = field(default_factory=list)
    conflicts: list[Resolved] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def kept_old(self) -> int:
        return sum(r.kept == "old" for r in self.conflicts)

    @property
    def took_new(self) -> int:
        return sum(r.kept == "new" for r in self.conflicts)

    def summary(self) -> str:
        parts = [f"{self.added_sources} sources, {self.added_targets} targets and "
                 f"{self.added_scores} scores added",
                 f"{len(self.conflicts)} conflicting scores ({self.kept_old} kept old, "
                 f"{self.took_new} took new)"]
        if self.added_classes:
            parts.append("new score classes: " + ", ".join(self.added_classes))
        return "; ".join(parts + self.notes)


def _same_definition(a: Levels, b: Levels) -> bool:
    return (a.count, a.perfect, a.firstvalid, a.continuous, a.minimum, a.maximum) == \
        (b.count, b.perfect, b.firstvalid, b.continuous, b.minimum, b.maximum)


def _plan_classes(db: Database, other: Database, report: MergeReport) -> tuple[list[Levels], str | None, bool]:
    """(classes to add, other's reference class name to translate or None, whether to translate)."""
    theirs_ref = other.reference_levels
    other_has_refs = theirs_ref is not None and any(other.is_reference(t) for _, t in other.iter_targets())
    ours_ref = db.reference_levels
    translate = bool(other_has_refs and ours_ref is not None and theirs_ref.name != ours_ref.name)
    add: list[Levels] = []
    for lv in other.levels:
        if translate and lv is theirs_ref:
            report.notes.append(f"their reference class '{lv.name}' is mapped to ours")
            continue
        if db.has_class(lv.name):
            if not _same_definition(db.level(lv.name), lv):
                report.notes.append(f"class '{lv.name}' is defined differently there; ours is kept")
            continue
        add.append(lv)
    return add, (theirs_ref.name if translate else None), translate


def _check_scores(db: Database, other: Database, add: list[Levels], skip: str | None) -> None:
    levels = {lv.name: lv for lv in db.levels} | {lv.name: lv for lv in add}
    for src, t in other.iter_targets():
        for s in t.scores:
            if s.cls == skip:
                continue
            lv = levels.get(s.cls)
            if lv is None:
                raise ScoreError(f"score of undeclared class '{s.cls}' in the other database")
            try:
                lv.validate(s.value)
            except ScoreError as exc:
                raise ScoreError(f"cannot merge: {exc.problem} (source {src.text[:40]!r})") from None


def _matching_sources(db: Database, osrc: Source) -> list[Source]:
    """Our sources that ``osrc`` merges into, the one new targets go to first (module doc)."""
    if osrc.key is not None:
        src = db.source_by_key(osrc.doc, osrc.seg)
        if src is None:
            src = db.find_source(osrc.text)     # ours follows the text rule for this sentence
        return [] if src is None else [src]
    first = db.source_by_text(osrc.text)
    if first is None:
        return []
    return [first] + [s for s in db.sources_by_text(osrc.text) if s is not first]


def _check_sources(db: Database, other: Database) -> None:
    """Refuse a merge where one (doc, seg) holds different sentences in the two databases."""
    for osrc in other.sources:
        if osrc.key is None:
            continue
        mine = db.source_by_key(osrc.doc, osrc.seg)
        if mine is not None and mine.text != osrc.text:
            raise InputFormatError(
                f"cannot merge: {describe_key(osrc.key)} is {mine.text[:50]!r} here but "
                f"{osrc.text[:50]!r} in the other database (segments are identified by doc and "
                f"seg; the databases number different test sets alike)")


def merge(db: Database, other: Database, policy: Policy = "old") -> MergeReport:
    """Merge ``other`` into ``db`` in place; returns a :class:`MergeReport` (see module doc)."""
    if not callable(policy) and policy not in ("old", "new"):
        raise ValueError(f"policy must be 'old', 'new' or a callable, not {policy!r}")
    report = MergeReport()
    add, their_ref_name, translate = _plan_classes(db, other, report)
    _check_sources(db, other)
    _check_scores(db, other, add, their_ref_name)

    if not db.levels:
        db.levels = [copy.deepcopy(lv) for lv in add]
    else:
        for lv in add:
            db.add_class(copy.deepcopy(lv))
    report.added_classes = [lv.name for lv in add]
    mark_lv = db.marking_class() if translate else None
    for_all: Keep | None = None

    for osrc in other.sources:
        matches = _matching_sources(db, osrc)
        if matches:
            src = matches[0]
        else:
            src = db.add_source(osrc.text, osrc.doc, osrc.seg)
            src.extra_attrs = dict(osrc.extra_attrs)
            src.extra_children = list(osrc.extra_children)
            report.added_sources += 1
        for ot in osrc.targets:
            is_ref = other.is_reference(ot)
            scores = [s for s in ot.scores if s.cls != their_ref_name]
            tgt = next((t for m in matches if (t := db.find_target(m, ot.text, ot.system))
                        is not None), None)
            if tgt is None:
                tgt = copy.deepcopy(ot)
                tgt.scores = [copy.deepcopy(s) for s in scores]
                src.targets.append(tgt)
                if is_ref and mark_lv is not None:
                    db.mark_reference(tgt, mark_lv)
                report.added_targets += 1
                continue
            for s in scores:
                mine = next((x for x in tgt.scores if x.cls == s.cls and x.judge == s.judge), None)
                if mine is None:
                    tgt.scores.append(copy.deepcopy(s))
                    report.added_scores += 1
                    continue
                if mine.value == s.value and mine.extrapolated == s.extrapolated:
                    continue
                conflict = Conflict(src, tgt, s.cls, s.judge, mine, s)
                if for_all is not None:
                    keep, by = for_all, "apply-to-all"
                elif callable(policy):
                    ans = policy(conflict)
                    choice = ans if isinstance(ans, Choice) else Choice(ans)
                    if choice.keep not in ("old", "new"):
                        raise ValueError(f"merge callback answered {choice.keep!r}, not 'old'/'new'")
                    keep, by = choice.keep, "callback"
                    if choice.apply_to_all:
                        for_all = choice.keep
                else:
                    keep, by = policy, "policy"
                if keep == "new":
                    tgt.scores[tgt.scores.index(mine)] = copy.deepcopy(s)
                report.conflicts.append(Resolved(conflict, keep, by))
            if is_ref and mark_lv is not None:
                db.mark_reference(tgt, mark_lv)
    return report
