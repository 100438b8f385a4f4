"""Journal entries of the human-evaluation protocols: post-edits, item marks, information
items, references and error-span annotations (MQM, ESA), crash-proof and undoable like
score changes.

Each change is a frozen dataclass that names its source and target the way a
:class:`~evaltrans_qt.io.journal.ScoreChange` does (text, system, (doc, seg), target
index hint), so a replay after a crash does not depend on list positions. The journal
(:mod:`evaltrans_qt.io.journal`) writes them as JSON lines with a ``type`` field and
replays them in order; applying one is idempotent.

How a session uses them (the application's post-edit, item and reference modes)::

    ch = postedit_change(db, source_index, target_index, judge, text, seconds)
    ch = journal.append(ch)                 # fsync first
    undo = apply_protocol_change(db, ch)    # then change the database
    ...
    for u in undo:                          # Ctrl+Z: the inverse changes, journaled too
        apply_protocol_change(db, journal.append(u))

:func:`apply_protocol_change` checks the change (engine/data/protocols.py) and returns the
changes that undo it; it raises :class:`LookupError` when the source or target is not
in the database and :class:`ScoreError` when the change is invalid for it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, TypedDict

from evaltrans_qt.engine.data import protocols
from evaltrans_qt.engine.data.database import Database, Source, Target
from evaltrans_qt.engine.human.spans.model import (
    ErrorSpan,
    Rejection,
    SpanAnnotation,
    check_error,
    check_origin,
    check_protocol,
    find_annotation,
)


@dataclass(frozen=True)
class SourceChange:
    """Fields shared by the journal's typed changes (these and the ranking screens',
    ``io/segranks/changes.py``): which source, by (doc, seg) or text (thesis Appendix A.2);
    written as one JSON object with the class's ``kind`` as ``type``."""

    kind: ClassVar[str]                    # set by each subclass
    source: str
    doc: str | None
    seg: str | None

    def to_json(self) -> str:
        d = {"type": self.kind, **asdict(self)}
        return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class PostEditChange(SourceChange):
    """Set (``text``) or remove (``text is None``) ``judge``'s post-edit of a candidate."""

    kind: ClassVar[str] = "postedit"
    target: str
    system: str | None
    judge: str | None
    text: str | None
    seconds: float | None = None
    target_index: int | None = None
    seq: int = 0


@dataclass(frozen=True)
class MarksChange(SourceChange):
    """Set (``marks``) or remove (``marks is None``) ``judge``'s item marks of a candidate."""

    kind: ClassVar[str] = "marks"
    target: str
    system: str | None
    judge: str | None
    marks: tuple[str, ...] | None
    target_index: int | None = None
    seq: int = 0


@dataclass(frozen=True)
class ItemsChange(SourceChange):
    """Define the information items of a source (0-based half-open spans; empty: none).
    Marks made against other items are deleted (their undo restores them)."""

    kind: ClassVar[str] = "items"
    items: tuple[tuple[int, int], ...]
    tokenization: str = protocols.ITEM_TOKENIZATION
    seq: int = 0


@dataclass(frozen=True)
class ReferenceChange(SourceChange):
    """``mark`` (promote) / ``unmark`` a target as reference, ``add`` a judge's reference
    text ``target`` named ``system``, or ``remove`` such an added reference."""

    kind: ClassVar[str] = "reference"
    target: str
    system: str | None
    action: str
    judge: str | None = None
    target_index: int | None = None
    seq: int = 0


@dataclass(frozen=True)
class SpansChange(SourceChange):
    """Set (``errors``, possibly empty: "no error") or remove (``errors is None``)
    ``judge``'s error-span annotation of a candidate under ``protocol`` (``mqm`` or
    ``esa``; engine/human/spans/model.py), with the suggestions the judge rejected
    (``rejected``); the whole annotation at once, so applying it is idempotent and its
    inverse is the old one. ``origin`` says whose annotation it is: ``human`` (a
    judgement) or ``machine`` (suggested spans; a judge and protocol may have one of each).
    Entries written before ``protocol``, ``rejected`` and ``origin`` existed read as a
    human ``mqm`` annotation without rejections."""

    kind: ClassVar[str] = "spans"
    target: str
    system: str | None
    judge: str | None
    errors: tuple[ErrorSpan, ...] | None
    seconds: float | None = None
    target_index: int | None = None
    seq: int = 0
    protocol: str = "mqm"
    rejected: tuple[Rejection, ...] = ()
    origin: str = "human"


ProtocolChange = PostEditChange | MarksChange | ItemsChange | ReferenceChange | SpansChange
TYPES: dict[str, type] = {c.kind: c for c in (PostEditChange, MarksChange, ItemsChange,
                                               ReferenceChange, SpansChange)}
ACTIONS = ("mark", "unmark", "add", "remove")


def from_dict(d: dict[str, Any]) -> ProtocolChange:
    """A change from its JSON object (``ValueError``/``KeyError``/``TypeError`` if garbled)."""
    cls = TYPES[d["type"]]
    kw = {k: v for k, v in d.items() if k != "type"}
    if cls is MarksChange and kw.get("marks") is not None:
        kw["marks"] = tuple(str(m) for m in kw["marks"])
    if cls is ItemsChange:
        kw["items"] = tuple((int(a), int(b)) for a, b in kw.get("items", ()))
    if cls is PostEditChange and kw.get("seconds") is not None:
        kw["seconds"] = float(kw["seconds"])
    if cls is SpansChange:
        if kw.get("errors") is not None:
            kw["errors"] = tuple(_error_from_json(e) for e in kw["errors"])
        kw["rejected"] = tuple(_rejection_from_json(r) for r in kw.get("rejected") or ())
        if "protocol" in kw:
            kw["protocol"] = check_protocol(str(kw["protocol"]))
        if "origin" in kw:
            kw["origin"] = check_origin(str(kw["origin"]))
        if kw.get("seconds") is not None:
            kw["seconds"] = float(kw["seconds"])
    if cls is ReferenceChange and kw.get("action") not in ACTIONS:
        raise ValueError(f"unknown reference action {kw.get('action')!r}")
    if "seq" in kw:
        kw["seq"] = int(kw["seq"])
    return cls(**kw)


def _error_from_json(e: Any) -> ErrorSpan:
    """An :class:`ErrorSpan` from its journal object; ValueError naming a wrong field."""
    if not isinstance(e, dict):
        raise ValueError(f"an error of a 'spans' entry must be an object, not {e!r}"[:200])
    for k in ("start", "end"):
        v = e.get(k)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise ValueError(f"'{k}' of an error must be a whole number >= 0 or null"[:200])
    for k in ("severity", "category", "side"):
        if not isinstance(e.get(k, "target"), str):
            raise ValueError(f"'{k}' of an error must be a string")
    for k in ("comment", "metadata"):
        if e.get(k) is not None and not isinstance(e[k], str):
            raise ValueError(f"'{k}' of an error must be a string or null")
    sec = e.get("seconds")
    return ErrorSpan(**{**e, "seconds": None if sec is None else float(sec)})


def _rejection_from_json(r: Any) -> Rejection:
    """A :class:`Rejection` from its journal object ``{"machine": …, "error": {…}}``."""
    if not isinstance(r, dict) or not isinstance(r.get("machine", ""), (str, type(None))):
        raise ValueError(f"a rejection of a 'spans' entry must be an object with 'machine' "
                         f"and 'error', not {r!r}"[:200])
    return Rejection(r.get("machine"), _error_from_json(r.get("error")))


def with_seq(change: ProtocolChange, seq: int) -> ProtocolChange:
    return replace(change, seq=seq)


# ------------------------------------------------------------------ building changes
class SourceFields(TypedDict):
    """The fields naming a change's source (:func:`source_fields`)."""

    source: str
    doc: str | None
    seg: str | None


class TargetFields(TypedDict):
    """The fields naming a change's target: text, system and position hint."""

    target: str
    system: str | None
    target_index: int


class _Where(SourceFields, TargetFields):
    """Source and target of a change, as the inverse changes name them."""


def source_fields(db: Database, source_index: int) -> SourceFields:
    """``source``, ``doc``, ``seg`` naming the source at ``source_index`` (0-based) in a
    change: (doc, seg) only for a positional source, else its text alone."""
    src = db.sources[source_index]
    positional = src.key is not None
    return {"source": src.text, "doc": src.doc if positional else None,
            "seg": src.seg if positional else None}


def _tgt(db: Database, source_index: int, target_index: int) -> TargetFields:
    t = db.sources[source_index].targets[target_index]
    return {"target": t.text, "system": t.system, "target_index": target_index}


def postedit_change(db: Database, source_index: int, target_index: int, judge: str | None,
                    text: str | None, seconds: float | None = None) -> PostEditChange:
    """A change setting (or, ``text=None``, removing) a post-edit of the target at
    (source_index, target_index) -- 0-based positions in ``db``."""
    return PostEditChange(**source_fields(db, source_index), **_tgt(db, source_index, target_index),
                          judge=judge, text=text, seconds=seconds)


def marks_change(db: Database, source_index: int, target_index: int, judge: str | None,
                 marks: tuple[str, ...] | None) -> MarksChange:
    return MarksChange(**source_fields(db, source_index), **_tgt(db, source_index, target_index),
                       judge=judge, marks=None if marks is None else protocols.parse_marks(marks))


def items_change(db: Database, source_index: int, items) -> ItemsChange:
    src = db.sources[source_index]
    return ItemsChange(**source_fields(db, source_index),
                       items=tuple((int(a), int(b)) for a, b in items),
                       tokenization=src.items_tokenization)


def spans_change(db: Database, source_index: int, target_index: int, judge: str | None,
                 errors: tuple[ErrorSpan, ...] | list[ErrorSpan] | None,
                 seconds: float | None = None, protocol: str = "mqm",
                 rejected: tuple[Rejection, ...] | list[Rejection] = (),
                 origin: str = "human") -> SpansChange:
    """A change setting (``errors=None``: removing) ``judge``'s error annotation under
    ``protocol`` and of ``origin`` (``human``; ``machine``: suggested spans) of the target
    at (source_index, target_index)."""
    return SpansChange(**source_fields(db, source_index), **_tgt(db, source_index, target_index),
                       judge=judge, errors=None if errors is None else tuple(errors),
                       seconds=seconds, protocol=check_protocol(protocol),
                       rejected=tuple(rejected), origin=check_origin(origin))


def reference_change(db: Database, source_index: int, target_index: int | None, action: str,
                     text: str | None = None, name: str | None = None,
                     judge: str | None = None) -> ReferenceChange:
    """``mark``/``unmark`` the target at ``target_index``, or ``add`` ``text`` as a new
    reference named ``name`` (default ``added-N``) by ``judge``."""
    if action not in ACTIONS:
        raise ValueError(f"action must be one of {ACTIONS}, not {action!r}")
    if action == "add":
        src = db.sources[source_index]
        return ReferenceChange(**source_fields(db, source_index), target=text or "",
                               system=name if name is not None else protocols.next_added_name(src),
                               action="add", judge=judge)
    assert target_index is not None
    return ReferenceChange(**source_fields(db, source_index), **_tgt(db, source_index, target_index),
                           action=action, judge=judge)


# ------------------------------------------------------------------ applying
def source_of(db: Database, ch: Any) -> Source | None:
    """The source a change (anything with ``source``, ``doc``, ``seg``) names: by (doc, seg)
    when it has a ``seg`` (None if that position now holds another sentence), else the
    source with its text (thesis Appendix A.2)."""
    if ch.seg:
        src = db.source_by_key(ch.doc, ch.seg)
        return src if src is not None and src.text == ch.source else None
    return db.source_by_text(ch.source)


def find_source(db: Database, ch: Any) -> Source:
    """The source a change names (:func:`source_of`); LookupError if it is not in ``db``."""
    src = source_of(db, ch)
    if src is None:
        raise LookupError(f"source {ch.source[:50]!r} is not in the database")
    return src


def find_target(src: Source, text: str, system: str | None, index: int | None) -> Target:
    """The target of ``src`` with this text and system (``index`` tried first)."""
    if index is not None and 0 <= index < len(src.targets):
        t = src.targets[index]
        if t.text == text and t.system == system:
            return t
    for t in src.targets:
        if t.text == text and t.system == system:
            return t
    raise LookupError(f"target {text[:50]!r} of system {system!r} is not in the database")


def _index(src: Source, t: Target) -> int:
    return next(i for i, x in enumerate(src.targets) if x is t)


def apply_protocol_change(db: Database, ch: ProtocolChange, *,
                          undo: bool = True) -> list[ProtocolChange]:
    """Apply ``ch`` to ``db``; returns the changes that undo it (module doc). ``undo=False``
    (a caller keeping no undo history: the command line's commit) spares building them for
    the per-target changes -- error spans, post-edits, marks -- and returns none for them."""
    src = find_source(db, ch)
    base: SourceFields = {"source": ch.source, "doc": ch.doc, "seg": ch.seg}
    if isinstance(ch, ItemsChange):
        old_items = tuple(src.items)
        old_tok = src.items_tokenization
        dropped = [(t, m) for t in src.targets for m in t.item_marks]
        src.items_tokenization = ch.tokenization
        try:
            protocols.define_items(src, ch.items, force=True)
        except Exception:
            src.items_tokenization = old_tok
            raise
        back: list[ProtocolChange] = [ItemsChange(**base, items=old_items, tokenization=old_tok)]
        back += [MarksChange(**base, target=t.text, system=t.system, judge=m.judge,
                             marks=m.marks, target_index=_index(src, t))
                 for t, m in dropped if not any(x is m for x in t.item_marks)]
        return back
    if isinstance(ch, ReferenceChange) and ch.action == "add":
        existing = next((t for t in src.targets if t.text == ch.target and t.system == ch.system
                         and t.added), None)
        if existing is None:                       # idempotent on replay
            existing = protocols.add_reference(db, src, ch.target, ch.system, ch.judge)
        return [replace(ch, action="remove", seq=0, target_index=_index(src, existing))]
    t = find_target(src, ch.target, ch.system, ch.target_index)
    if not undo and isinstance(ch, SpansChange):
        _set_spans(src, t, ch, find_annotation(t.span_annotations, ch.judge, ch.protocol,
                                               ch.origin))
        return []
    if not undo and isinstance(ch, PostEditChange):
        if ch.text is None:
            protocols.remove_postedit(t, ch.judge)
        else:
            protocols.set_postedit(db, t, ch.text, ch.judge, ch.seconds)
        return []
    if not undo and isinstance(ch, MarksChange):
        if ch.marks is None:
            protocols.remove_marks(t, ch.judge)
        else:
            protocols.set_marks(db, src, t, ch.marks, ch.judge)
        return []
    where: _Where = {**base, "target": t.text, "system": t.system,
                     "target_index": _index(src, t)}
    if isinstance(ch, PostEditChange):
        old = t.postedit_by(ch.judge)
        inverse = PostEditChange(**where, judge=ch.judge, text=old.text if old else None,
                                 seconds=old.seconds if old else None)
        if ch.text is None:
            protocols.remove_postedit(t, ch.judge)
        else:
            protocols.set_postedit(db, t, ch.text, ch.judge, ch.seconds)
        return [inverse]
    if isinstance(ch, SpansChange):
        return [_apply_spans(src, t, ch, where)]
    if isinstance(ch, MarksChange):
        old_marks = t.marks_by(ch.judge)
        marks_inverse = MarksChange(**where, judge=ch.judge,
                                    marks=old_marks.marks if old_marks else None)
        if ch.marks is None:
            protocols.remove_marks(t, ch.judge)
        else:
            protocols.set_marks(db, src, t, ch.marks, ch.judge)
        return [marks_inverse]
    # ReferenceChange: mark / unmark / remove
    if ch.action == "mark":
        if db.is_reference(t):
            return [ReferenceChange(**where, action="unmark", judge=ch.judge)]
        protocols.promote(db, t)
        return [ReferenceChange(**where, action="unmark", judge=ch.judge)]
    if ch.action == "remove" or (ch.action == "unmark" and t.added):
        if not t.added:
            from evaltrans_qt.errors import ScoreError
            raise ScoreError(f"'{t.system or ''}' was not added by a judge; it is not removed")
        protocols.remove_target(src, t)
        return [ReferenceChange(**base, target=t.text, system=t.system, action="add",
                                judge=t.added_by)]
    if not db.is_reference(t):                     # unmark, already a candidate
        return [ReferenceChange(**where, action="mark", judge=ch.judge)]
    protocols.unmark(db, src, t)
    return [ReferenceChange(**where, action="mark", judge=ch.judge)]


def _apply_spans(src: Source, t: Target, ch: SpansChange, where: _Where) -> SpansChange:
    """Set or remove the judge's annotation of ``t`` under the change's protocol and of its
    origin (checked first); the inverse change."""
    old = find_annotation(t.span_annotations, ch.judge, ch.protocol, ch.origin)
    inverse = SpansChange(**where, judge=ch.judge,
                          errors=None if old is None else tuple(old.errors),
                          seconds=None if old is None else old.seconds,
                          protocol=ch.protocol,
                          rejected=() if old is None else tuple(old.rejected),
                          origin=ch.origin)
    _set_spans(src, t, ch, old)
    return inverse


def _set_spans(src: Source, t: Target, ch: SpansChange, old: SpanAnnotation | None) -> None:
    """Check the change's spans against the texts, then put them in place of ``old`` (the
    judge's annotation under its protocol and origin, or None)."""
    for e in ch.errors or ():
        check_error(e, t.text, src.text)
    for r in ch.rejected:
        check_error(r.error, t.text, src.text)
    if ch.errors is None:
        t.span_annotations = [a for a in t.span_annotations if a is not old]
    elif old is not None:          # replaced, not changed in place (judgement_copy shares it)
        new = replace(old, errors=list(ch.errors), seconds=ch.seconds,
                      rejected=list(ch.rejected))
        t.span_annotations = [new if a is old else a for a in t.span_annotations]
    else:
        t.span_annotations.append(SpanAnnotation(ch.judge, list(ch.errors), ch.seconds,
                                                 protocol=ch.protocol,
                                                 rejected=list(ch.rejected),
                                                 origin=ch.origin))
