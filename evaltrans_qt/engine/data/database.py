"""The evaluation database: sources, their targets, and human scores (Qt-free).

Follows the EvalTrans database (thesis Appendix A.2,
Figure A.1). Identity (a deliberate deviation from thesis Appendix A.2): a source
with a ``seg`` attribute (and optional ``doc``) is identified by (doc, seg), so a
test set that repeats a sentence keeps one source per line; only sources without
``seg`` (old EvalTrans files, Aachen text) are identified by their *text* and
merged when it repeats, as the thesis says (Appendix A.2). Each source has targets
(reference or candidate translations) carrying scores of declared score
classes (``<levels>``). References are not marked separately: a target whose
value in the *last-defined* class is >= that class' ``perfect`` value is a
reference of its source (thesis Appendix A.2). Everything else is a candidate.

Our extensions: several scores of one class from different
judges (``judge``, ``time``), non-integer values, system ids, and preservation
of unknown XML attributes/elements (kept as opaque ``extra_*`` data).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from statistics import median
from typing import TYPE_CHECKING, Any

from evaltrans_qt.errors import InputFormatError, ScoreError

if TYPE_CHECKING:
    from evaltrans_qt.engine.human.spans.model import SpanAnnotation

#: Name of the score class that imports add to mark references.
REFERENCE_CLASS = "isReference"


@dataclass
class Levels:
    """A score class definition, ``<levels class count gray green perfect firstvalid/>``.

    ``count`` includes level 0; valid integer levels are ``firstvalid..count-1``.
    ``gray``/``green`` are display thresholds; ``perfect`` is the reference level.
    ``continuous`` (our extension) allows any real value in
    ``[minimum, maximum]`` (e.g. DA 0-100, MQM penalties) instead of levels.
    """

    name: str
    count: int
    gray: float = 0
    green: float = 0
    perfect: float = 0
    firstvalid: float = 0
    continuous: bool = False
    minimum: float | None = None
    maximum: float | None = None
    extra_attrs: dict[str, str] = field(default_factory=dict)

    def validate(self, value: float) -> None:
        """Raise :class:`ScoreError` if ``value`` is not a valid score of this class."""
        if not math.isfinite(value):
            raise ScoreError(f"score {value!r} of class '{self.name}' is not a finite number")
        if self.continuous:
            lo = self.minimum if self.minimum is not None else -math.inf
            hi = self.maximum if self.maximum is not None else math.inf
            if not lo <= value <= hi:
                raise ScoreError(
                    f"score {value:g} of class '{self.name}' is outside [{lo:g}, {hi:g}]"
                )
            return
        if value != int(value) or not (0 <= value < self.count):
            raise ScoreError(
                f"score {value:g} of class '{self.name}' is not one of its levels "
                f"0..{self.count - 1}"
            )

    def is_valid_level(self, value: float) -> bool:
        """True if ``value`` is a real judgement (>= ``firstvalid``), not 'unset'."""
        return value >= self.firstvalid


@dataclass
class Score:
    """One human judgement of one class for one target.

    ``judge`` and ``time`` (ISO 8601 or seconds spent, as stored) are our
    extensions; ``extrapolated`` marks a score estimated from the database
    rather than given by a person.
    """

    cls: str
    value: float
    judge: str | None = None
    time: str | None = None
    extrapolated: bool = False
    extra_attrs: dict[str, str] = field(default_factory=dict)


#: Marks of one information item (survey §4.4.16): OK, or the kind of error.
ITEM_MARKS = ("OK", "error", "syntax", "meaning", "other")


@dataclass
class PostEdit:
    """A judge's post-edited candidate: its targeted reference for HTER (survey §4.4.17).

    Our extension, ``<postedit judge seconds>text</postedit>`` inside ``<tgt>``;
    ``seconds`` is the editing time, None when not measured.
    """

    text: str
    judge: str | None = None
    seconds: float | None = None
    extra_attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class ItemMarks:
    """One judge's marks of a candidate's information items (survey §4.4.16): one of
    :data:`ITEM_MARKS` per item of the source, in item order (``<marks judge>``)."""

    marks: tuple[str, ...]
    judge: str | None = None
    extra_attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class Target:
    """A translation of a source: a reference or a candidate (see module doc)."""

    text: str
    system: str | None = None
    scores: list[Score] = field(default_factory=list)
    extra_attrs: dict[str, str] = field(default_factory=dict)
    #: Unknown child elements, kept verbatim (serialized XML) for round-trips.
    extra_children: list[str] = field(default_factory=list)
    #: Optional document / segment ids of this target (e.g. from an SGML tstset,
    #: or the line of a duplicate source line); ``<tgt doc seg>`` on disk.
    doc: str | None = None
    seg: str | None = None
    #: Human-evaluation protocols (engine/data/protocols.py): post-edits (HTER) and
    #: information-item marks (IER) per judge; ``added_by`` names the judge who added this
    #: reference (aWER, survey §4.4.4), ``<tgt added="1" judge="…">`` on disk.
    postedits: list[PostEdit] = field(default_factory=list)
    item_marks: list[ItemMarks] = field(default_factory=list)
    added: bool = False
    added_by: str | None = None
    #: Error-span annotations (MQM, ESA), one per judge (engine/human/spans/model.py),
    #: ``<errors judge="…">`` inside ``<tgt>`` on disk (io/etdb/spans.py).
    span_annotations: list[SpanAnnotation] = field(default_factory=list)

    def scores_of(self, cls: str) -> list[Score]:
        """All scores of class ``cls`` (several judges possible)."""
        return [s for s in self.scores if s.cls == cls]

    def value(self, cls: str, how: str = "mean", *, include_extrapolated: bool = True) -> float | None:
        """Aggregate of the scores of ``cls`` over judges (``mean`` or ``median``), None if unscored."""
        vals = [s.value for s in self.scores if s.cls == cls and (include_extrapolated or not s.extrapolated)]
        if not vals:
            return None
        if how == "median":
            return float(median(vals))
        return float(sum(vals) / len(vals))

    def set_score(self, cls: str, value: float, judge: str | None = None, time: str | None = None,
                  extrapolated: bool = False) -> Score:
        """Set (replace) the score of ``cls`` by ``judge``; returns the new score."""
        self.scores = [s for s in self.scores if not (s.cls == cls and s.judge == judge)]
        score = Score(cls, float(value), judge, time, extrapolated)
        self.scores.append(score)
        return score

    def postedit_by(self, judge: str | None) -> PostEdit | None:
        """The post-edit of this candidate by ``judge``, if any (survey §4.4.17)."""
        return next((p for p in self.postedits if p.judge == judge), None)

    def marks_by(self, judge: str | None) -> ItemMarks | None:
        """The information-item marks of this candidate by ``judge``, if any (survey §4.4.16)."""
        return next((m for m in self.item_marks if m.judge == judge), None)

    def remove_score(self, cls: str, judge: str | None = None) -> bool:
        """Remove the score of ``cls`` by ``judge``; True if one was removed."""
        before = len(self.scores)
        self.scores = [s for s in self.scores if not (s.cls == cls and s.judge == judge)]
        return len(self.scores) != before


#: Positional identity of a source: (doc, seg), doc ``""`` when the source has none.
SourceKey = tuple[str, str]


def source_key(doc: str | None, seg: str | None) -> SourceKey | None:
    """The positional key of a source with these attributes; None without ``seg``
    (then the source is identified by its text, thesis Appendix A.2)."""
    return None if not seg else (doc or "", seg)


_BAD_ID = re.compile("[\x00-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def id_problem(value: str | None, what: str = "id") -> str | None:
    """Why ``value`` cannot be an id (document, segment, system), or None: ids hold no
    tab, line break or other control character (the database keeps ids in tab-separated
    lines, e.g. external metric scores ``DOC<TAB>SEG<TAB>VALUE``, and files in one-line
    fields), and nothing XML cannot store (U+FFFE, U+FFFF, the lone surrogates a file
    name with bytes that are not UTF-8 decodes to)."""
    if value is None:
        return None
    bad = _BAD_ID.search(value)
    if bad is None:
        return None
    return (f"{what} {value[:40]!r} contains the character U+{ord(bad.group()):04X} "
            "(ids are one line without tabs or control characters, storable in XML)")


def check_id(value: str | None, what: str = "id", path: object = None,
             line: int | None = None) -> None:
    """:class:`InputFormatError` naming ``path`` and ``line`` when :func:`id_problem`."""
    if value is None or _BAD_ID.search(value) is None:
        return
    problem = id_problem(value, what)
    if problem is not None:
        raise InputFormatError(problem, path, line)  # type: ignore[arg-type]


def describe_key(key: SourceKey) -> str:
    """``document d1 segment 3`` / ``segment 3`` for messages."""
    return f"document {key[0]} segment {key[1]}" if key[0] else f"segment {key[1]}"


@dataclass
class Source:
    """A source sentence with its targets.

    Identified by :attr:`key` = (doc, seg) when it has a ``seg`` attribute, else by
    ``text`` (thesis Appendix A.2; see module doc). ``occurrences`` (not stored) counts the
    ``<source>`` elements or import lines merged into it by the text rule (1 for a
    positional source: a repeated (doc, seg) is the same segment, not a repeat).
    """

    text: str
    doc: str | None = None
    seg: str | None = None
    targets: list[Target] = field(default_factory=list)
    extra_attrs: dict[str, str] = field(default_factory=dict)
    extra_children: list[str] = field(default_factory=list)
    occurrences: int = field(default=1, compare=False, repr=False)
    #: Information items (survey §4.4.16): word spans ``(start, end)``, 0-based, end
    #: exclusive, over the source's words tokenised by ``items_tokenization``
    #: (engine/data/protocols.py); ``<items>`` on disk.
    items: list[tuple[int, int]] = field(default_factory=list)
    items_tokenization: str = "mteval"
    #: SegRanks data (Macháček ch. 2): extracted segments, merged candidate segments and
    #: rankings (:class:`evaltrans_qt.engine.human.segranks.model.SentenceSegments`), None when
    #: nothing was extracted; ``<segranks>`` on disk (io/etdb/segranks.py).
    segranks: Any = None

    @property
    def key(self) -> SourceKey | None:
        """(doc, seg) of a positional source; None for one identified by its text."""
        return source_key(self.doc, self.seg)

    @property
    def positional(self) -> bool:
        return bool(self.seg)


class Database:
    """An EvalTrans evaluation database.

    Sources keep their file order. :meth:`add_source` finds or creates a source
    by its identity (module doc): (doc, seg) for positional sources, the text for
    sources without ``seg`` (thesis Appendix A.2). References/candidates are derived from the
    last ``Levels`` (see :meth:`is_reference`).
    """

    def __init__(self, levels: Iterable[Levels] = (), version_id: str = "") -> None:
        self.version_id = version_id
        self.levels: list[Levels] = list(levels)
        self.sources: list[Source] = []
        #: text -> every source with that text (positional or not), in order
        self._by_text: dict[str, list[Source]] = {}
        #: text -> the source identified by that text (no seg; thesis Appendix A.2)
        self._text_ids: dict[str, Source] = {}
        self._by_key: dict[SourceKey, Source] = {}
        #: Unknown top-level children / root attributes, kept for round-trips.
        self.extra_children: list[str] = []
        self.extra_attrs: dict[str, str] = {}
        #: External metric scores by name (engine/measures/external.py ``ExternalMetric``;
        #: ``<external-metrics>`` on disk).
        self.external_metrics: dict = {}
        #: Encoding of the file this came from; saving keeps it (utf-8 or iso8859-1).
        self.encoding: str = "utf-8"

    # ----- score classes -------------------------------------------------
    def level(self, name: str) -> Levels:
        for lv in self.levels:
            if lv.name == name:
                return lv
        raise ScoreError(f"unknown score class '{name}'")

    def has_class(self, name: str) -> bool:
        return any(lv.name == name for lv in self.levels)

    @property
    def reference_levels(self) -> Levels | None:
        """The last-defined class, which decides references (thesis Appendix A.2)."""
        return self.levels[-1] if self.levels else None

    @property
    def human_classes(self) -> list[str]:
        """Score classes that hold human judgements (all but a trailing reference class)."""
        names = [lv.name for lv in self.levels]
        if names and names[-1] == REFERENCE_CLASS:
            names = names[:-1]
        return names

    def ensure_reference_class(self) -> Levels:
        """Make sure the last class marks references; append ``isReference`` if needed.

        Imports that have references call this so the file stays valid for the
        original tool, which takes the last class as the reference rule (thesis Appendix A.2).
        """
        ref = self.reference_levels
        if ref is not None and ref.name == REFERENCE_CLASS:
            return ref
        lv = Levels(REFERENCE_CLASS, count=2, gray=0, green=1, perfect=1, firstvalid=0)
        self.levels = [x for x in self.levels if x.name != REFERENCE_CLASS] + [lv]
        return lv

    def add_class(self, lv: Levels) -> None:
        """Declare a new human score class, keeping the reference-deciding class last.

        If the last class does not mark references yet, ``isReference`` is
        appended first, so the new class can never turn candidates into
        references (thesis Appendix A.2).
        """
        if self.has_class(lv.name):
            raise ScoreError(f"score class '{lv.name}' is already declared")
        self.marking_class()
        self.levels.insert(len(self.levels) - 1, lv)

    # ----- sources and targets -------------------------------------------
    def add_source(self, text: str, doc: str | None = None, seg: str | None = None) -> Source:
        """The source with this identity, created if new (see module doc).

        With ``seg``: the source at (doc, seg); :class:`InputFormatError` if that
        position already holds another sentence. Without: the source identified
        by ``text``, merged as the thesis does (Appendix A.2).
        """
        check_id(doc, "document id")
        check_id(seg, "segment id")
        key = source_key(doc, seg)
        if key is None:
            src = self._text_ids.get(text)
            if src is not None:
                src.occurrences += 1
                return src
        else:
            src = self._by_key.get(key)
            if src is not None:
                if src.text != text:
                    raise InputFormatError(
                        f"{describe_key(key)} holds two different sentences: "
                        f"{_short(src.text)} and {_short(text)} (a segment is identified "
                        f"by its doc and seg ids)")
                return src      # the same segment again (e.g. another system's file)
        src = Source(text, doc, seg)
        self.sources.append(src)
        self._index(src)
        return src

    def _index(self, src: Source) -> None:
        self._by_text.setdefault(src.text, []).append(src)
        key = src.key
        if key is None:
            self._text_ids.setdefault(src.text, src)
        else:
            self._by_key.setdefault(key, src)

    def source_by_text(self, text: str) -> Source | None:
        """The first source with this text: the one identified by it if any (thesis Appendix
        A.2), else the first positional one (a repeated sentence has several; see
        ``sources_by_text``)."""
        return self._text_ids.get(text) or next(iter(self._by_text.get(text, ())), None)

    def sources_by_text(self, text: str) -> list[Source]:
        """Every source with this text, in database order."""
        return list(self._by_text.get(text, ()))

    def source_by_key(self, doc: str | None, seg: str | None) -> Source | None:
        """The positional source at (doc, seg) (doc None and ``""`` are the same), if any."""
        key = source_key(doc, seg)
        return None if key is None else self._by_key.get(key)

    def find_source(self, text: str, doc: str | None = None, seg: str | None = None) -> Source | None:
        """The source :meth:`add_source` would return for these attributes, without adding
        one: by (doc, seg) when ``seg`` is given (its text may differ), else by ``text``."""
        key = source_key(doc, seg)
        return self._text_ids.get(text) if key is None else self._by_key.get(key)

    def source_index(self, source: Source) -> int | None:
        """Position of ``source`` (this very object) in :attr:`sources`, None if absent."""
        return next((i for i, s in enumerate(self.sources) if s is source), None)

    def add_target(self, source: Source, text: str, system: str | None = None,
                   reference: bool = False) -> Target:
        """Add a target to ``source``; ``reference=True`` marks it with the reference class."""
        tgt = Target(text, system)
        if reference:
            lv = self.ensure_reference_class()
            tgt.scores.append(Score(lv.name, float(lv.perfect)))
        source.targets.append(tgt)
        return tgt

    def marking_class(self) -> Levels:
        """The class that marks references when more are added (thesis Appendix A.2).

        The current last class if it already marks references here (e.g. an
        original file's ``isPerfect``) or is ``isReference``; otherwise the
        ``isReference`` class is appended (``ensure_reference_class``).
        """
        lv = self.reference_levels
        if lv is not None and (lv.name == REFERENCE_CLASS or any(
                self.is_reference(t) for _, t in self.iter_targets())):
            return lv
        return self.ensure_reference_class()

    def mark_reference(self, target: Target, lv: Levels | None = None) -> None:
        """Make ``target`` a reference: a score of the marking class at its ``perfect`` level.

        Pass ``lv`` (from :meth:`marking_class`) when marking many targets.
        """
        if lv is None:
            if self.is_reference(target):
                return
            lv = self.marking_class()
        target.scores = [s for s in target.scores if s.cls != lv.name]
        target.scores.append(Score(lv.name, float(lv.perfect)))

    def find_target(self, source: Source, text: str, system: str | None) -> Target | None:
        """The target of ``source`` with this text and system id, if any."""
        for t in source.targets:
            if t.text == text and t.system == system:
                return t
        return None

    def reindex(self) -> None:
        """Rebuild the indexes after sources were edited in place: sources with the same
        identity are merged (targets appended to the first); two positional sources at
        one (doc, seg) with different texts raise :class:`InputFormatError` (nothing
        changed then)."""
        firsts: dict[object, Source] = {}
        for src in self.sources:
            ident = ("key", src.key) if src.key is not None else ("text", src.text)
            first = firsts.setdefault(ident, src)
            if first.text != src.text:
                assert src.key is not None      # sources identified by text share their text
                raise InputFormatError(f"{describe_key(src.key)} holds two different "
                                       f"sentences: {_short(first.text)} and {_short(src.text)}")
        sources, self.sources = self.sources, []
        self._by_text, self._text_ids, self._by_key = {}, {}, {}
        for src in sources:
            found = self.find_source(src.text, src.doc, src.seg)
            if found is None:
                self.sources.append(src)
                self._index(src)
            else:
                found.targets.extend(src.targets)
                if found.key is None:
                    found.occurrences += src.occurrences

    # ----- references vs candidates (thesis Appendix A.2) ---------------
    def reference_test(self) -> Callable[[Target], bool]:
        """A fast ``is_reference`` for loops (binds the current last class once)."""
        lv = self.reference_levels
        if lv is None:
            return lambda target: False
        name, perfect = lv.name, lv.perfect

        def test(target: Target) -> bool:
            for s in target.scores:
                if s.cls == name and s.value >= perfect:
                    return True
            return False
        return test

    def is_reference(self, target: Target) -> bool:
        return self.reference_test()(target)

    def references(self, source: Source) -> list[Target]:
        is_ref = self.reference_test()
        return [t for t in source.targets if is_ref(t)]

    def candidates(self, source: Source) -> list[Target]:
        is_ref = self.reference_test()
        return [t for t in source.targets if not is_ref(t)]

    def iter_targets(self) -> Iterator[tuple[Source, Target]]:
        for src in self.sources:
            for t in src.targets:
                yield src, t

    def iter_candidates(self) -> Iterator[tuple[Source, Target]]:
        is_ref = self.reference_test()
        for src in self.sources:
            for t in src.targets:
                if not is_ref(t):
                    yield src, t

    def systems(self) -> list[str]:
        """System ids of candidates, in first-seen order (None is listed as '')."""
        seen: dict[str, None] = {}
        for _, t in self.iter_candidates():
            seen.setdefault(t.system or "", None)
        return list(seen)

    def reference_ids(self) -> list[str]:
        """System ids of references (e.g. 'ref-A'), first-seen order."""
        seen: dict[str, None] = {}
        is_ref = self.reference_test()
        for src in self.sources:
            for t in src.targets:
                if is_ref(t):
                    seen.setdefault(t.system or "", None)
        return list(seen)

    def keyed_candidates(self) -> Iterator[tuple[tuple[int, str, int], Source, Target]]:
        """``(key, source, candidate)`` in database order; ``key`` = (source index, system or
        ``""``, occurrence of that system in the source): the key of every human score."""
        for i, src in enumerate(self.sources):
            seen: dict[str, int] = {}
            for t in self.candidates(src):
                sysname = t.system or ""
                k = seen.get(sysname, 0)
                seen[sysname] = k + 1
                yield (i, sysname, k), src, t

    def candidates_by_system(self, system: str) -> list[tuple[Source, Target]]:
        """(source, candidate) pairs of one system, in source order."""
        want = system or None
        is_ref = self.reference_test()
        return [(s, t) for s in self.sources for t in s.targets
                if (t.system or None) == want and not is_ref(t)]

    def unscored(self, cls: str, judge: str | None = None) -> list[tuple[Source, Target]]:
        """Candidates with no score of ``cls`` (by ``judge`` if given; extrapolations and
        values below the class' ``firstvalid`` level, "not judged", don't count)."""
        lv = next((x for x in self.levels if x.name == cls), None)
        floor = float(lv.firstvalid) if lv is not None and not lv.continuous else -math.inf
        out = []
        for s, t in self.iter_candidates():
            for x in t.scores:
                if x.cls == cls and not x.extrapolated and x.value >= floor \
                        and (judge is None or x.judge == judge):
                    break
            else:
                out.append((s, t))
        return out

    def judges(self) -> list[str]:
        seen: dict[str, None] = {}
        for _, t in self.iter_targets():
            for s in t.scores:
                if s.judge is not None:
                    seen.setdefault(s.judge, None)
        return list(seen)

    # ----- summary ----------------------------------------------------------
    def counts(self) -> dict:
        """Counts for ``evaltrans info``.

        ``scored[c]``: targets (candidates and references) with a human
        (non-extrapolated) score of class ``c``; ``unscored[c]``: candidates
        without one (the judges' to-do list, = ``len(unscored(c))``).
        """
        n_t = n_r = 0
        scored: dict[str, int] = {c: 0 for c in self.human_classes}
        scored_candidates: dict[str, int] = dict.fromkeys(scored, 0)
        test = self.reference_test()
        for src in self.sources:          # linear in targets + scores, not targets x classes
            for t in src.targets:
                n_t += 1
                is_ref = test(t)
                if is_ref:
                    n_r += 1
                for c in {s.cls for s in t.scores if c_ok(s)}:
                    if c in scored:
                        scored[c] += 1
                        if not is_ref:
                            scored_candidates[c] += 1
        unscored = {c: (n_t - n_r) - k for c, k in scored_candidates.items()}
        return {
            "sources": len(self.sources),
            "targets": n_t,
            "references": n_r,
            "candidates": n_t - n_r,
            "systems": self.systems(),
            "reference_ids": self.reference_ids(),
            "judges": self.judges(),
            "scored": scored,
            "unscored": unscored,
        }

    def validate_scores(self) -> None:
        """Raise :class:`ScoreError` for a score of an undeclared class or outside its levels."""
        by_name = {lv.name: lv for lv in self.levels}
        for i, src in enumerate(self.sources):
            for t in src.targets:
                for s in t.scores:
                    lv = by_name.get(s.cls)
                    if lv is None:
                        raise ScoreError(f"source {i + 1}: score of undeclared class '{s.cls}'")
                    lv.validate(s.value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Database):
            return NotImplemented
        return (self.version_id == other.version_id and self.levels == other.levels
                and self.sources == other.sources and self.extra_children == other.extra_children
                and self.extra_attrs == other.extra_attrs
                and self.external_metrics == other.external_metrics)

    def __repr__(self) -> str:
        return f"<Database {len(self.sources)} sources, {len(self.levels)} score classes>"


def _short(text: str, width: int = 50) -> str:
    return repr(text if len(text) <= width else text[:width - 3] + "...")


def c_ok(score: Score) -> bool:
    """A score counts as 'scored' when it was given by a person (not extrapolated)."""
    return not score.extrapolated
