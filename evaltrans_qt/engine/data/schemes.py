"""Score schemes: templates and checked edits of score classes (``<levels>``), Qt-free.

A score class is ``<levels class count gray green perfect firstvalid/>`` (thesis
Appendix A.2, Figure A.1): ``count`` levels 0..count-1 including 0, ``firstvalid``
the lowest real judgement, ``gray``/``green`` display thresholds, ``perfect`` the
reference level. Our extension: continuous classes with ``minimum``/``maximum``.

The *last* class decides which targets are references (thesis Appendix A.2), so every edit
here keeps the reference-deciding class last: new classes go before it
(:meth:`Database.add_class`), it cannot be removed while other classes follow
from it, and an edit that would move targets between reference and candidate is
refused unless forced. Nothing ever leaves a score invalid silently: an edit or
removal that affects existing scores raises :class:`ClassInUseError` naming how
many, unless ``force`` is given -- then exactly those scores are deleted.

Templates (:data:`TEMPLATES`): ``fluency5`` and ``adequacy5`` (1-5, 0 = not
judged, as the thesis' example class of Figure A.1), ``sser`` (0-10, survey
Table 4.2 with K = 10, §4.4.8), ``mqm`` (continuous, 0 best, -25 worst), ``esa``
(continuous 0-100, the score of Error Span Annotation, Kocmi et al. 2024 §2), and
``reference`` (``isReference``, marks references; always the last class).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from evaltrans_qt.engine.data.database import REFERENCE_CLASS, Database, Levels, Score, Target
from evaltrans_qt.errors import ScoreError

#: Most levels a discrete class may have (one button each in a scoring session;
#: the same limit as the database reader, ``io/etdb/reader.py``).
MAX_LEVELS = 1000


@dataclass
class ClassInUseError(ScoreError):
    """An edit or removal would delete or change existing scores; retry with ``force``."""

    affected: int = 0


@dataclass(frozen=True)
class Template:
    """A ready-made score class: its default class name, a description, the definition."""

    name: str
    class_name: str
    description: str
    make: Callable[[str], Levels]


def _fluency_like(name: str) -> Levels:
    # thesis Figure A.1's example class "fluency-min": count 6 (0 = not judged), 1..5
    return Levels(name, count=6, gray=2, green=5, perfect=5, firstvalid=1)


TEMPLATES: dict[str, Template] = {t.name: t for t in (
    Template("fluency5", "fluency", "fluency 1 (incomprehensible) .. 5 (flawless); 0 = not judged "
             "(thesis Figure A.1)", _fluency_like),
    Template("adequacy5", "adequacy", "adequacy 1 (none of the meaning) .. 5 (all of it); 0 = not "
             "judged (thesis Figure A.1)", _fluency_like),
    Template("sser", "sser", "SSER scale 0 (nonsense) .. 10 (perfect), survey Table 4.2, K = 10 "
             "(§4.4.8)", lambda n: Levels(n, count=11, gray=5, green=9, perfect=10, firstvalid=0)),
    Template("mqm", "mqm", "MQM penalty, continuous: 0 best, -25 worst",
             lambda n: continuous(n, -25.0, 0.0, perfect=0, gray=-5, green=0)),
    Template("esa", "esa", "ESA score, continuous: 0 (no meaning preserved) .. 100 (perfect), "
             "Kocmi et al. 2024 §2", lambda n: continuous(n, 0.0, 100.0, perfect=100, gray=33,
                                                           green=66)),
    Template("reference", REFERENCE_CLASS,
             "marks references (the last class decides them, thesis Appendix A.2)",
             lambda n: Levels(n, count=2, gray=0, green=1, perfect=1, firstvalid=0)),
)}


# ------------------------------------------------------------------ definitions
def check_name(name: str) -> None:
    """Raise :class:`ScoreError` unless ``name`` can name a class (in XML and on the command line)."""
    if not name or not name.strip():
        raise ScoreError("a score class needs a name")
    if name != name.strip():
        raise ScoreError(f"class name {name!r} starts or ends with spaces")
    if any(not ch.isprintable() for ch in name):
        raise ScoreError(f"class name {name!r} contains a control character")
    if "," in name:
        raise ScoreError(f"class name {name!r} contains a comma (commas separate class lists, "
                         "e.g. --human fluency,adequacy)")


def check_levels(lv: Levels, *, allow_point: bool = False) -> None:
    """Raise :class:`ScoreError` naming the problem unless ``lv`` is a usable definition
    (``allow_point``: a continuous class may be a single point, see :func:`continuous`)."""
    check_name(lv.name)
    numbers = {"gray": lv.gray, "green": lv.green, "perfect": lv.perfect, "firstvalid": lv.firstvalid}
    for what, v in numbers.items():
        if not math.isfinite(v):
            raise ScoreError(f"{what} of class '{lv.name}' must be a finite number, not {v!r}")
    if lv.continuous:
        lo, hi = lv.minimum, lv.maximum
        if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
            raise ScoreError(f"continuous class '{lv.name}' needs a finite minimum and maximum")
        if not (lo < hi or (allow_point and lo == hi)):
            raise ScoreError(f"class '{lv.name}': minimum {lo:g} must be below maximum {hi:g}")
        for what, v in numbers.items():
            if not lo <= v <= hi:
                raise ScoreError(f"{what} {v:g} of class '{lv.name}' is outside its range "
                                 f"[{lo:g}, {hi:g}]")
        return
    if lv.count != int(lv.count) or not 2 <= lv.count <= MAX_LEVELS:
        raise ScoreError(f"count of class '{lv.name}' must be a whole number from 2 to {MAX_LEVELS} "
                         f"(levels 0..count-1), not {lv.count!r}")
    if lv.firstvalid != int(lv.firstvalid) or not 0 <= lv.firstvalid < lv.count:
        raise ScoreError(f"firstvalid {lv.firstvalid:g} of class '{lv.name}' must be one of its "
                         f"levels 0..{lv.count - 1}")
    for what in ("perfect", "gray", "green"):
        v = numbers[what]
        if not 0 <= v <= lv.count - 1:
            raise ScoreError(f"{what} {v:g} of class '{lv.name}' is outside its levels "
                             f"0..{lv.count - 1}")


def discrete(name: str, count: int, perfect: float, firstvalid: float,
             gray: float | None = None, green: float | None = None) -> Levels:
    """A checked class of ``count`` levels; gray defaults to ``firstvalid``, green to ``perfect``."""
    lv = Levels(name, count=count, gray=firstvalid if gray is None else gray,
                green=perfect if green is None else green, perfect=perfect, firstvalid=firstvalid)
    check_levels(lv)
    return lv


def continuous(name: str, minimum: float | None = None, maximum: float | None = None,
               perfect: float | None = None, gray: float | None = None,
               green: float | None = None, *, values: Iterable[float] = (),
               allow_point: bool = False, extra_attrs: Mapping[str, str] | None = None
               ) -> Levels:
    """The one constructor of a continuous class: any real score on [minimum, maximum]
    (our extension of thesis Appendix A.2's ``<levels>``), checked (:func:`check_levels`).

    A bound not given comes from ``values`` (the scores the class is made for): the floor of
    the least finite value, the ceiling of the greatest (0 without values), as imports of
    segment scores and :meth:`evaltrans_qt.api.Database.from_lists` make their classes.
    ``perfect`` and ``green`` default to the maximum, ``gray`` to the minimum; ``firstvalid``
    is the minimum (every value of the range is a judgement). ``allow_point``: the range may
    be a single point (minimum = maximum, e.g. imported scores that are all equal);
    otherwise the minimum must be below the maximum. ``extra_attrs``: unknown XML attributes
    to keep (a class read from a file and edited).
    """
    finite = [float(v) for v in values if math.isfinite(v)]
    lo = float(minimum) if minimum is not None else (
        float(math.floor(min(finite))) if finite else 0.0)
    hi = float(maximum) if maximum is not None else (
        float(math.ceil(max(finite))) if finite else 0.0)
    if allow_point and math.isfinite(lo) and math.isfinite(hi) and lo > hi:
        raise ScoreError(f"class '{name}': minimum {lo:g} must not be above maximum {hi:g}")
    lv = Levels(name, count=0, gray=lo if gray is None else gray,
                green=hi if green is None else green,
                perfect=hi if perfect is None else perfect, firstvalid=lo,
                continuous=True, minimum=lo, maximum=hi, extra_attrs=dict(extra_attrs or {}))
    check_levels(lv, allow_point=allow_point)
    return lv


def template(name: str, class_name: str | None = None) -> Levels:
    """The class of template ``name`` (see :data:`TEMPLATES`), optionally renamed."""
    t = TEMPLATES.get(name)
    if t is None:
        raise ScoreError(f"unknown template '{name}' (known: {', '.join(TEMPLATES)})")
    lv = t.make(class_name or t.class_name)
    check_levels(lv)
    return lv


# ------------------------------------------------------------------ usage and impact
def _scores_of(db: Database, name: str) -> Iterable[tuple[Target, Score]]:
    for _, t in db.iter_targets():
        for s in t.scores:
            if s.cls == name:
                yield t, s


def score_count(db: Database, name: str) -> int:
    """Number of stored scores of class ``name`` (all judges, extrapolated ones included)."""
    return sum(1 for _ in _scores_of(db, name))


def decides_references(db: Database, name: str) -> bool:
    """True if ``name`` is the last class, the one that decides references (thesis Appendix A.2)."""
    lv = db.reference_levels
    return lv is not None and lv.name == name


def _judges(scores: Iterable[Score]) -> str:
    names = sorted({s.judge or "(no judge)" for s in scores})
    return ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")


@dataclass(frozen=True)
class EditImpact:
    """What an edit of one class does to its existing scores."""

    #: scores outside the new levels/range
    invalid: int = 0
    #: judgements that would fall below the new ``firstvalid`` ("not judged")
    unjudged: int = 0
    #: targets that would change between reference and candidate (last class only)
    to_candidate: int = 0
    to_reference: int = 0

    @property
    def affected(self) -> int:
        return self.invalid + self.unjudged + self.to_candidate + self.to_reference


def _lost(old: Levels, new: Levels, value: float) -> str | None:
    """Why ``value`` (a score of ``old``) would not survive as a score of ``new``, if it would not."""
    try:
        new.validate(value)
    except ScoreError:
        return "invalid"
    was_judged = old.continuous or value >= old.firstvalid
    if was_judged and not new.continuous and value < new.firstvalid:
        return "unjudged"
    return None


def edit_impact(db: Database, name: str, new: Levels) -> EditImpact:
    """How many existing scores of ``name`` the definition ``new`` would invalidate (see
    :class:`EditImpact`); for the last class also the targets that would change role."""
    old = db.level(name)
    invalid = unjudged = to_cand = to_ref = 0
    last = decides_references(db, name)
    for _, t in db.iter_targets():
        was_ref = now_ref = False
        for s in t.scores:
            if s.cls != name:
                continue
            why = _lost(old, new, s.value)
            invalid += why == "invalid"
            unjudged += why == "unjudged"
            was_ref = was_ref or s.value >= old.perfect
            now_ref = now_ref or (why is None and s.value >= new.perfect)
        if last:
            to_cand += was_ref and not now_ref
            to_ref += now_ref and not was_ref
    return EditImpact(invalid, unjudged, to_cand, to_ref)


# ------------------------------------------------------------------ changes
def add_class(db: Database, lv: Levels) -> Levels:
    """Declare ``lv`` (checked). A human class goes before the reference-deciding class
    (which is added first if missing); ``isReference`` is appended as the new last class,
    unless the current last class already marks references."""
    check_levels(lv)
    if db.has_class(lv.name):
        raise ScoreError(f"score class '{lv.name}' is already declared")
    if lv.name == REFERENCE_CLASS:
        last = db.reference_levels
        if last is not None and any(db.is_reference(t) for _, t in db.iter_targets()):
            raise ScoreError(f"the last class '{last.name}' already marks references "
                             f"(thesis Appendix A.2); "
                             f"a second marking class would turn them into candidates")
        db.levels.append(lv)
        return lv
    db.add_class(lv)
    return lv


def add_template(db: Database, name: str, class_name: str | None = None) -> Levels:
    """Declare the class of template ``name`` (see :data:`TEMPLATES`)."""
    return add_class(db, template(name, class_name))


def remove_class(db: Database, name: str, force: bool = False) -> int:
    """Remove class ``name`` and return how many scores were deleted with it.

    Refused while the class decides references and other classes remain (the one before
    it would decide instead, thesis Appendix A.2); with scores, refused unless ``force``.
    """
    db.level(name)
    if decides_references(db, name) and len(db.levels) > 1:
        raise ScoreError(f"'{name}' is the last class and decides which targets are references "
                         f"(thesis Appendix A.2); removing it would let "
                         f"'{db.levels[-2].name}' decide instead -- "
                         f"remove the other classes first")
    scores = [s for _, s in _scores_of(db, name)]
    if scores and not force:
        raise ClassInUseError(f"class '{name}' has {len(scores)} score(s) (by {_judges(scores)}); "
                              f"removing it deletes them", affected=len(scores))
    for _, t in db.iter_targets():
        if any(s.cls == name for s in t.scores):
            t.scores = [s for s in t.scores if s.cls != name]
    db.levels = [x for x in db.levels if x.name != name]
    return len(scores)


def edit_class(db: Database, name: str, new: Levels, force: bool = False) -> int:
    """Replace the definition of ``name`` by ``new`` (which may rename it); returns how many
    scores were deleted (only with ``force``: those ``new`` would invalidate).

    Raises :class:`ClassInUseError` naming the affected scores (or, for the last class,
    the targets that would change between reference and candidate) unless ``force``.
    """
    old = db.level(name)
    check_levels(new)
    if new.name != name and db.has_class(new.name):
        raise ScoreError(f"score class '{new.name}' is already declared")
    if name == REFERENCE_CLASS and new.name != name:
        raise ScoreError(f"'{REFERENCE_CLASS}' marks references; it keeps its name")
    impact = edit_impact(db, name, new)
    if impact.affected and not force:
        parts = []
        if impact.invalid:
            parts.append(f"{impact.invalid} score(s) outside the new levels")
        if impact.unjudged:
            parts.append(f"{impact.unjudged} judgement(s) below the new firstvalid "
                         f"{new.firstvalid:g} (they would count as not judged)")
        if impact.to_candidate:
            parts.append(f"{impact.to_candidate} reference(s) would become candidates")
        if impact.to_reference:
            parts.append(f"{impact.to_reference} candidate(s) would become references")
        n = impact.invalid + impact.unjudged
        tail = f"; forcing the edit deletes those {n} score(s)" if n else "; force the edit to accept this"
        raise ClassInUseError(f"editing class '{name}' affects existing scores: "
                              f"{'; '.join(parts)}{tail}", affected=impact.affected)
    removed = 0
    for _, t in db.iter_targets():
        if not any(s.cls == name for s in t.scores):
            continue
        kept = []
        for s in t.scores:
            if s.cls == name:
                if _lost(old, new, s.value) is not None:
                    removed += 1
                    continue
                if new.name != name:
                    s = dataclasses.replace(s, cls=new.name)
            kept.append(s)
        t.scores = kept
    db.levels = [new if x is old else x for x in db.levels]
    return removed


# ------------------------------------------------------------------ undo support
@dataclass
class Snapshot:
    """The classes and the score lists of some targets, to undo/redo a class change.

    Changes here never mutate a :class:`Levels` or :class:`Score` in place, so shallow
    copies of the lists are enough.
    """

    levels: list[Levels]
    scores: list[tuple[Target, list[Score]]]


def touched_targets(db: Database, names: Iterable[str]) -> list[Target]:
    """Targets holding a score of any class in ``names``."""
    want = set(names)
    return [t for _, t in db.iter_targets() if any(s.cls in want for s in t.scores)]


def snapshot(db: Database, targets: Iterable[Target]) -> Snapshot:
    return Snapshot(list(db.levels), [(t, list(t.scores)) for t in targets])


def restore(db: Database, snap: Snapshot) -> None:
    db.levels = list(snap.levels)
    for t, scores in snap.scores:
        t.scores = list(scores)


# ------------------------------------------------------------------ listing
def describe(db: Database) -> list[dict]:
    """One dict per class, in file order, for ``evaltrans classes --json`` and the dialog."""
    counts: dict[str, int] = {lv.name: 0 for lv in db.levels}
    for _, t in db.iter_targets():
        for s in t.scores:
            if s.cls in counts:
                counts[s.cls] += 1
    last = db.reference_levels
    return [{"name": lv.name, "continuous": lv.continuous, "count": lv.count,
             "firstvalid": lv.firstvalid, "perfect": lv.perfect, "gray": lv.gray, "green": lv.green,
             "minimum": lv.minimum, "maximum": lv.maximum, "scores": counts[lv.name],
             "decides_references": lv is last}
            for lv in db.levels]


def scale_text(lv: Levels) -> str:
    """``levels 1..5`` / ``continuous -25..0`` for listings."""
    if lv.continuous:
        lo = "-inf" if lv.minimum is None else f"{lv.minimum:g}"
        hi = "inf" if lv.maximum is None else f"{lv.maximum:g}"
        return f"continuous {lo}..{hi}"
    return f"levels {lv.firstvalid:g}..{lv.count - 1}"
