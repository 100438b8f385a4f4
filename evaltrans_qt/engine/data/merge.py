"""Merge another evaluation database into this one (File → Merge database…, ``evaltrans merge``).

* Sources are matched by their identity (:mod:`.database`): a source with ``seg`` by
  (doc, seg) -- so two positional databases keep a repeated sentence's lines
  apart, and the same (doc, seg) with different texts is an
  :class:`InputFormatError`, not a silent merge -- or, when ours at that position
  is missing, by a source of ours identified by the same text; a source without
  ``seg`` (old EvalTrans files, Aachen text) by its text (thesis Appendix A.2): each of its
  targets goes to the first of our sources with that text that has it, else to
  the first with that text. Targets are matched by (text, system id).
  New sources and targets are added (copies; ``other`` is not changed).
* Scores are keyed by (class, judge); a key may hold several scores (anonymous
  judges of an original EvalTrans file), so the two sides' scores of a key are
  matched as multisets: equal ones (value and extrapolated flag) pair up and
  change nothing, theirs left over are added when we have none left over, and the
  remaining pairs (in file order) are **conflicts**, resolved by ``policy``:
  ``"old"`` keeps ours, ``"new"`` takes theirs, or a callback
  ``f(conflict) -> "old" | "new" | Choice`` is asked per conflict;
  ``Choice(keep, apply_to_all=True)`` answers all later conflicts the same way.
  Merging a database with an identical copy changes nothing and reports nothing.
* Nothing either side has is dropped: for the database, the sources and targets
  (and scores) both have, unknown attributes and unknown child elements
  (``<comment>``, notes, top-level elements) of ``other`` are added; an attribute
  both have with different values keeps ours (``"new"``: theirs) and is listed in
  :attr:`MergeReport.attribute_conflicts`.
* Score classes ``other`` declares and we do not are added before our
  reference-deciding last class. A class both declare with a different
  definition keeps ours (noted in the report); their scores must be valid under
  ours. References stay references: if ``other``'s reference-deciding class is
  not ours, its references are marked with ours instead (thesis Appendix A.2).
* Post-edits, item marks, information items and added references (:mod:`.protocols`): both
  sides kept, differing ones resolved like score conflicts and listed in
  :attr:`MergeReport.protocol_conflicts` -- :mod:`evaltrans_qt.engine.data.merge_protocols`.
* All of ``other``'s sources and scores are checked first, so a merge that fails
  (:class:`InputFormatError`, :class:`ScoreError`) leaves ``db`` unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from evaltrans_qt.engine.data import merge_protocols
from evaltrans_qt.engine.data.database import Database, Levels, Score, Source, Target, describe_key
from evaltrans_qt.engine.human.segranks.merge import merge_segranks
from evaltrans_qt.engine.measures.external import merge_external
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


Policy = Keep | Callable[[Conflict], Keep | Choice]


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
    #: Unknown attributes / child elements taken from ``other`` into things both have.
    added_extras: int = 0
    #: "where: attribute 'x' differs (kept ours|took theirs)", one per differing attribute.
    attribute_conflicts: list[str] = field(default_factory=list)
    #: Differing post-edits, item marks or information items (engine/data/merge_protocols.py).
    protocol_conflicts: list[str] = field(default_factory=list)

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
        if self.added_extras:
            parts.append(f"{self.added_extras} unknown attributes/elements added")
        if self.attribute_conflicts:
            parts.append(f"{len(self.attribute_conflicts)} attributes differ (first: "
                         f"{self.attribute_conflicts[0]})")
        if self.protocol_conflicts:
            parts.append(f"{len(self.protocol_conflicts)} conflicting post-edits/marks/items "
                         f"(first: {self.protocol_conflicts[0]})")
        return "; ".join(parts + self.notes)


def _same_definition(a: Levels, b: Levels) -> bool:
    return (a.count, a.perfect, a.firstvalid, a.continuous, a.minimum, a.maximum) == \
        (b.count, b.perfect, b.firstvalid, b.continuous, b.minimum, b.maximum)


def _plan_classes(db: Database, other: Database, report: MergeReport) -> tuple[list[Levels], str | None, bool]:
    """(classes to add, other's reference class name to translate or None, whether to translate)."""
    theirs_ref = other.reference_levels
    other_has_refs = theirs_ref is not None and any(other.is_reference(t) for _, t in other.iter_targets())
    ours_ref = db.reference_levels
    translate = bool(other_has_refs and ours_ref is not None and theirs_ref is not None
                     and theirs_ref.name != ours_ref.name)
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
    return add, (theirs_ref.name if translate and theirs_ref is not None else None), translate


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


def _where(src: Source) -> str:
    return describe_key(src.key) if src.key is not None else f"source {src.text[:40]!r}"


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


class _Resolver:
    """Answers conflicts by ``policy`` (module doc), remembering "apply to all"."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.for_all: Keep | None = None

    def decide(self, conflict: Conflict) -> tuple[Keep, str]:
        if self.for_all is not None:
            return self.for_all, "apply-to-all"
        if callable(self.policy):
            ans = self.policy(conflict)
            choice = ans if isinstance(ans, Choice) else Choice(ans)
            if choice.keep not in ("old", "new"):
                raise ValueError(f"merge callback answered {choice.keep!r}, not 'old'/'new'")
            if choice.apply_to_all:
                self.for_all = choice.keep
            return choice.keep, "callback"
        return self.policy, "policy"


def _merge_extras(mine, theirs, where: str, prefer_new: bool, report: MergeReport) -> None:
    """Add ``theirs``' unknown attributes and child elements to ``mine`` (module doc)."""
    for k, v in theirs.extra_attrs.items():
        have = mine.extra_attrs.get(k)
        if have is None:
            mine.extra_attrs[k] = v
            report.added_extras += 1
        elif have != v:
            if prefer_new:
                mine.extra_attrs[k] = v
            report.attribute_conflicts.append(
                f"{where}: attribute '{k}' is {have!r} here, {v!r} there "
                f"({'took theirs' if prefer_new else 'kept ours'})")
    children = getattr(theirs, "extra_children", None)
    if children:
        present = set(mine.extra_children)
        for x in children:
            if x not in present:
                mine.extra_children.append(x)
                present.add(x)
                report.added_extras += 1


def _same_score(a: Score, b: Score) -> bool:
    return a.value == b.value and a.extrapolated == b.extrapolated


def _merge_scores(src: Source, tgt: Target, scores: list[Score], resolver: _Resolver,
                  prefer_new: bool, report: MergeReport) -> None:
    """Merge ``scores`` (theirs) into ``tgt``'s as multisets per (class, judge) (module doc)."""
    theirs_by_key: dict[tuple[str, str | None], list[Score]] = {}
    for s in scores:
        theirs_by_key.setdefault((s.cls, s.judge), []).append(s)
    for (cls, judge), theirs in theirs_by_key.items():
        mine = [x for x in tgt.scores if x.cls == cls and x.judge == judge]
        left_mine = list(mine)
        left_theirs: list[Score] = []
        for s in theirs:
            twin = next((x for x in left_mine if _same_score(x, s)), None)
            if twin is None:
                left_theirs.append(s)
                continue
            left_mine.remove(twin)
            for k, v in s.extra_attrs.items():
                if k not in twin.extra_attrs:
                    twin.extra_attrs[k] = v
                    report.added_extras += 1
        for i, s in enumerate(left_theirs):
            if i >= len(left_mine):
                tgt.scores.append(copy.deepcopy(s))
                report.added_scores += 1
                continue
            old = left_mine[i]
            keep, by = resolver.decide(Conflict(src, tgt, cls, judge, old, s))
            if keep == "new":
                tgt.scores[next(j for j, x in enumerate(tgt.scores) if x is old)] = copy.deepcopy(s)
            report.conflicts.append(Resolved(Conflict(src, tgt, cls, judge, old, s), keep, by))


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
    resolver = _Resolver(policy)
    prefer_new = policy == "new"
    _merge_extras(db, other, "database", prefer_new, report)
    for olv in other.levels:
        if db.has_class(olv.name) and olv.name not in report.added_classes:
            _merge_extras(db.level(olv.name), olv, f"class '{olv.name}'", prefer_new, report)

    index_map: dict[int, int] = {}          # other's source index -> ours
    ours = {id(s): i for i, s in enumerate(db.sources)}
    for oi, osrc in enumerate(other.sources):
        matches = _matching_sources(db, osrc)
        if matches:
            src = matches[0]
            _merge_extras(src, osrc, _where(osrc), prefer_new, report)
        else:
            src = db.add_source(osrc.text, osrc.doc, osrc.seg)
            src.extra_attrs = dict(osrc.extra_attrs)
            src.extra_children = list(osrc.extra_children)
            report.added_sources += 1
        if id(src) not in ours:
            i = len(db.sources) - 1 if db.sources[-1] is src else db.source_index(src)
            assert i is not None                # src is one of ours: matched or just added
            ours[id(src)] = i
        index_map[oi] = ours[id(src)]
        outcome = merge_protocols.merge_items(src, osrc, prefer_new, report)
        merge_segranks(src, osrc, prefer_new, report)
        for ot in osrc.targets:
            is_ref = other.is_reference(ot)
            scores = [s for s in ot.scores if s.cls != their_ref_name]
            tgt = next((t for m in matches if (t := db.find_target(m, ot.text, ot.system))
                        is not None), None)
            if tgt is None:
                tgt = copy.deepcopy(ot)
                tgt.scores = [copy.deepcopy(s) for s in scores]
                merge_protocols.new_target(tgt, outcome)
                src.targets.append(tgt)
                if is_ref and mark_lv is not None:
                    db.mark_reference(tgt, mark_lv)
                report.added_targets += 1
                continue
            _merge_extras(tgt, ot, f"{_where(osrc)} target {ot.system or ''!s}".rstrip(),
                          prefer_new, report)
            _merge_scores(src, tgt, scores, resolver, prefer_new, report)
            merge_protocols.merge_target(tgt, ot, outcome, report)
            if is_ref and mark_lv is not None:
                db.mark_reference(tgt, mark_lv)
    merge_external(db, other, index_map, prefer_new, report)
    return report
