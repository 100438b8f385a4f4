"""The error-span model of MQM and ESA (Freitag et al. 2021, "Experts, Errors, and Context",
section 3 and the guidelines of its appendix; Kocmi et al. 2024, "Error Span Annotation",
section 2).

An **error** (:class:`ErrorSpan`) is a character span ``[start, end)`` of the untokenised
candidate (``side="target"``) or of its source (``side="source"``); ``start == end`` is an
empty span at a position (an omission); ``start is end is None`` an error the judge did
not locate (Google's released files have such rows). It has a category path such as
``Accuracy/Mistranslation`` (``/`` separates the levels), a severity (``Neutral``,
``Minor``, ``Major``, ``Critical``; kept as written, compared without case), an
optional comment, the seconds spent on it and, for an error imported from a file whose
rows carry them (Google's Marot-format TSVs, io/mqm_tsv.py), the row's metadata as
written (kept so that an export gives the row back unchanged).

A judge's work on one candidate is a :class:`SpanAnnotation`: all their errors, in the
order they were marked, the time spent and its **protocol** (:data:`PROTOCOLS`): ``mqm``
(errors weighted into the MQM score) or ``esa`` (the spans an ESA judge marks before the
0-100 score, which do not count towards MQM). An annotation without errors is a judgement
too ("no error", Google's ``no-error`` rows): it counts as a score of 0 for MQM.
Its **origin** (:data:`ORIGINS`) says who made it: ``human`` (a judgement; the default)
or ``machine`` (spans a program proposed -- xCOMET's or GEMBA-MQM's output imported as
JSON Lines, or the edits of an alignment such as TER's -- kept as suggestions for the
judges, ESA-AI's pre-filled spans, Kocmi et al. 2024 §5). Only human annotations are
judgements: the MQM and ESA columns, the category counts and the agreement between
judges use those alone (:func:`is_judgement`); machine annotations are compared with the
human ones by engine/human/spans/prefill.py and scored as a column of their own.
A candidate holds at most one annotation per judge, protocol and origin
(``Target.span_annotations``; :func:`find_annotation`).

When a judge was shown another judge's spans as suggestions (pre-filled spans, e.g. a
machine's; engine/human/spans/prefill.py), the suggestions they turned down explicitly
are recorded in their annotation as :class:`Rejection` (the span as suggested and whose
it was), so that an explicit "no" is told apart from a suggestion left alone.

A :class:`Typology` is data: category paths (nesting by ``/``), an optional key for each
and whether it is *closed* (annotation may use only its categories) or open (any
category is accepted -- imports use the categories found in the file).
:data:`MQM_CORE` is the core typology of the MQM guidelines (Freitag et al. 2021,
Table 10).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from evaltrans_qt.errors import ScoreError

#: Severities of the MQM guidelines (Freitag et al. 2021, Table 11) plus ``Critical``
#: of the MQM framework; ESA uses ``Minor`` and ``Major`` only (Kocmi et al. 2024, §2).
SEVERITIES = ("Neutral", "Minor", "Major", "Critical")
ESA_SEVERITIES = ("Minor", "Major")
SIDES = ("target", "source")
#: The error-span protocols: MQM (Freitag et al. 2021) and ESA (Kocmi et al. 2024).
PROTOCOLS = ("mqm", "esa")
#: Who made an annotation: a human judge (a judgement) or a machine (suggestions).
ORIGINS = ("human", "machine")


def check_protocol(protocol: str) -> str:
    """``protocol`` if it is one of :data:`PROTOCOLS`; ScoreError naming it otherwise."""
    if protocol not in PROTOCOLS:
        raise ScoreError(f"protocol {protocol!r} is not one of {', '.join(PROTOCOLS)}")
    return protocol


def check_origin(origin: str) -> str:
    """``origin`` if it is one of :data:`ORIGINS`; ScoreError naming it otherwise."""
    if origin not in ORIGINS:
        raise ScoreError(f"origin {origin!r} is not one of {', '.join(ORIGINS)}")
    return origin


def canonical_severity(text: str) -> str:
    """The severity of :data:`SEVERITIES` that ``text`` names (any case); ScoreError if none."""
    for s in SEVERITIES:
        if s.lower() == text.strip().lower():
            return s
    raise ScoreError(f"unknown severity {text!r} (use {', '.join(SEVERITIES)})")


#: How a frozen dataclass sets its fields (:class:`ErrorSpan`'s ``__init__``).
_set = object.__setattr__


@dataclass(frozen=True)
class ErrorSpan:
    """One error of a candidate (module doc)."""

    severity: str
    category: str
    start: int | None = None
    end: int | None = None
    side: str = "target"
    comment: str | None = None
    seconds: float | None = None
    metadata: str | None = None

    def __init__(self, severity: str, category: str, start: int | None = None,
                 end: int | None = None, side: str = "target", comment: str | None = None,
                 seconds: float | None = None, metadata: str | None = None) -> None:
        # The generated frozen __init__ looks object.__setattr__ up again for each field,
        # twice as slow; a file of 40 000 spans makes as many (the fields above, in order).
        _set(self, "severity", severity)
        _set(self, "category", category)
        _set(self, "start", start)
        _set(self, "end", end)
        _set(self, "side", side)
        _set(self, "comment", comment)
        _set(self, "seconds", seconds)
        _set(self, "metadata", metadata)

    @property
    def located(self) -> bool:
        return self.start is not None

    @property
    def omission(self) -> bool:
        return self.start is not None and self.start == self.end

    def text_of(self, text: str) -> str:
        """The marked characters of ``text`` ("" for an omission or an unlocated error)."""
        return "" if self.start is None or self.end is None else text[self.start:self.end]


@dataclass(frozen=True)
class Rejection:
    """A suggested span the judge rejected explicitly: ``error`` as ``machine`` (the judge
    whose annotation was shown as suggestions) marked it (module doc)."""

    machine: str | None
    error: ErrorSpan


@dataclass
class SpanAnnotation:
    """One judge's error annotation of one candidate under one protocol (module doc)."""

    judge: str | None
    errors: list[ErrorSpan] = field(default_factory=list)
    seconds: float | None = None
    extra_attrs: dict[str, str] = field(default_factory=dict)
    protocol: str = "mqm"
    rejected: list[Rejection] = field(default_factory=list)
    origin: str = "human"


def is_judgement(a: SpanAnnotation, protocol: str | None = None) -> bool:
    """Whether ``a`` is a human judgement (under ``protocol``; None: any): what scores,
    summaries and agreement count (module doc)."""
    return a.origin == "human" and (protocol is None or a.protocol == protocol)


def find_annotation(annotations: Iterable[SpanAnnotation], judge: str | None,
                    protocol: str | None = None, origin: str | None = None
                    ) -> SpanAnnotation | None:
    """``judge``'s annotation among ``annotations`` under ``protocol`` and of ``origin``
    (None: the first of any protocol, of any origin)."""
    return next((a for a in annotations if a.judge == judge
                 and (protocol is None or a.protocol == protocol)
                 and (origin is None or a.origin == origin)), None)


def check_error(e: ErrorSpan, target_text: str, source_text: str,
                typology: Typology | None = None) -> ErrorSpan:
    """``e`` if it fits the candidate and its source: a known severity, a side of
    :data:`SIDES`, a span inside the text with ``0 <= start <= end``, a non-empty category
    (one of a closed ``typology``'s), seconds >= 0. :class:`ScoreError` naming the
    problem otherwise."""
    canonical_severity(e.severity)
    if e.side not in SIDES:
        raise ScoreError(f"side {e.side!r} is not one of {', '.join(SIDES)}")
    if (e.start is None) != (e.end is None):
        raise ScoreError("an error span needs both start and end (or neither)")
    if e.start is not None and e.end is not None:
        n = len(target_text if e.side == "target" else source_text)
        if not 0 <= e.start <= e.end <= n:
            raise ScoreError(f"span {e.start}:{e.end} is outside the {e.side} text "
                             f"(0:{n}; start <= end)")
    if not e.category.strip():
        raise ScoreError("an error needs a category")
    if typology is not None:
        typology.check(e.category)
    if e.seconds is not None and not e.seconds >= 0:
        raise ScoreError(f"seconds of an error must be >= 0, not {e.seconds!r}")
    return e


@dataclass(frozen=True)
class Typology:
    """Error categories as data (module doc): ``categories`` are ``/``-separated paths
    (parents are implied), ``keys`` an optional key per path for the annotation screen."""

    name: str
    categories: tuple[str, ...]
    keys: tuple[tuple[str, str], ...] = ()
    closed: bool = False

    def __post_init__(self) -> None:
        keys = [k for _, k in self.keys]
        if len(set(keys)) != len(keys):
            raise ScoreError(f"typology {self.name!r}: a key is given to two categories")
        for path, _ in self.keys:
            if path not in self.all_paths():
                raise ScoreError(f"typology {self.name!r}: key for unknown category {path!r}")

    def all_paths(self) -> list[str]:
        """Every category and every parent of one, in order of first appearance."""
        out: dict[str, None] = {}
        for c in self.categories:
            parts = c.split("/")
            for i in range(1, len(parts) + 1):
                out.setdefault("/".join(parts[:i]), None)
        return list(out)

    def children(self, parent: str = "") -> list[str]:
        """Direct sub-categories of ``parent`` ("" = the top level), as full paths."""
        depth = 0 if not parent else parent.count("/") + 1
        pre = f"{parent}/" if parent else ""
        return [p for p in self.all_paths() if p.startswith(pre) and p.count("/") == depth]

    def key_of(self, path: str) -> str | None:
        return dict(self.keys).get(path)

    def check(self, category: str) -> None:
        """ScoreError if the typology is closed and ``category`` is not one of its paths."""
        if self.closed and category not in self.all_paths():
            raise ScoreError(f"category {category!r} is not in the closed typology "
                             f"{self.name!r}")

    def with_categories(self, categories: Iterable[str]) -> Typology:
        """This typology opened to ``categories`` too (an import's categories)."""
        have = list(self.categories)
        have += [c for c in dict.fromkeys(categories) if c not in self.all_paths()]
        return Typology(self.name, tuple(have), self.keys, self.closed)


def _core() -> Typology:
    cats: list[str] = []

    def add(parent: str, subs: Sequence[str]) -> None:
        cats.extend(f"{parent}/{s}" for s in subs) if subs else cats.append(parent)

    add("Accuracy", ("Addition", "Omission", "Mistranslation", "Untranslated text"))
    add("Fluency", ("Punctuation", "Spelling", "Grammar", "Register", "Inconsistency",
                    "Character encoding"))
    add("Terminology", ("Inappropriate for context", "Inconsistent use"))
    add("Style", ("Awkward",))
    add("Locale convention", ("Address format", "Date format", "Currency format",
                              "Telephone format", "Time format"))
    add("Other", ())
    add("Source error", ())
    add("Non-translation!", ())
    keys = (("Accuracy", "a"), ("Fluency", "f"), ("Terminology", "t"), ("Style", "s"),
            ("Locale convention", "l"), ("Other", "o"), ("Source error", "e"),
            ("Non-translation!", "n"))
    return Typology("MQM core", tuple(cats), keys, closed=False)


#: The core typology of the MQM guidelines (Freitag et al. 2021, Table 10); open, so
#: categories such as ``Fluency/Display`` of released data are accepted.
MQM_CORE = _core()
