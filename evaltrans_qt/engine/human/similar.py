"""The database method: similar scored translations and extrapolation (thesis section 1.2.1,
Macháček §5.2).

For a candidate, the already-scored translations of the same source sentence are listed
identical ones first, then by edit distance: word-level (Levenshtein on whitespace token
lists, the default) or character-level (Levenshtein on the strings, as Macháček §3.2.2
matches segments), both rapidfuzz. An identical translation's score can be reused
automatically, and an unscored candidate's score estimated from its nearest scored
translations (ties averaged); such scores are marked ``Score.extrapolated``.

*Same source sentence* means same source **text**: since sources are
positional, a sentence repeated at two positions is two sources, and the translations
judged at either position are pooled (``Database.sources_by_text``) -- a judgement of
a translation of the sentence is as relevant at its other occurrence.

Accuracy (:func:`leave_one_out`): every scored candidate is hidden once and estimated
from the rest -- by default from every other scored translation; with
``scope="system"`` (leave one *system* out) from other systems' translations only, which
is what extrapolating a new system's scores would face. The report gives, overall and
per system, the mean absolute difference, the share estimated exactly and the bias
(mean estimate - true).

Warning (Macháček §3.2): systems agree more often on *good*
translations, so identical or nearby matches are biased towards better
scores -- extrapolation **overestimates** unscored candidates, and a
leave-one-out accuracy report is optimistic in the same way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import Levenshtein

from evaltrans_qt.engine.data.database import Database, Source, Target
from evaltrans_qt.engine.human.resolve import check_class
from evaltrans_qt.engine.human.scores import split_class

OVERESTIMATE_WARNING = (
    "Extrapolated scores are optimistic: MT systems agree more often on good translations, "
    "so identical and nearest matches tend to be better than the candidate (Machacek 2014, "
    "section 3.2: left-out systems were heavily overestimated). Use extrapolation to fill "
    "gaps, not to rank systems.")


#: Units of the edit distance between translations.
DISTANCES = ("words", "chars")
#: What a leave-one-out hides: one candidate's scores, or all of its system's.
SCOPES = ("candidate", "system")


@dataclass(frozen=True)
class Neighbour:
    """A scored translation of the same source sentence with its edit distance."""

    index: int          # index into source.targets of its source
    target: Target
    distance: int       # Levenshtein distance in words (default) or characters
    identical: bool
    value: float        # aggregated (mean over judges) human value of the class
    #: The source it belongs to: the candidate's own, or another with the same text.
    source: Source | None = None
    #: Judges of the person-given scores behind ``value``, in order of the scores.
    judges: tuple[str | None, ...] = ()


def words(text: str) -> list[str]:
    return text.split()


def check_distance(distance: str) -> None:
    if distance not in DISTANCES:
        from evaltrans_qt.errors import OptionError
        raise OptionError(f"distance must be one of {', '.join(DISTANCES)}, not {distance!r}")


def pooled_sources(db: Database, source: Source) -> list[Source]:
    """``source`` and every other source with the same text (module doc), ``source`` first."""
    others = [s for s in db.sources_by_text(source.text) if s is not source]
    return [source, *others]


def judges_of(t: Target, cls: str) -> tuple[str | None, ...]:
    """Judges of the person-given scores of ``cls`` (its parts for ``a+b``) on ``t``."""
    parts = split_class(cls)
    return tuple(dict.fromkeys(s.judge for s in t.scores if s.cls in parts and not s.extrapolated))


def scored_value(t: Target, cls: str) -> float:
    """Mean over judges of ``cls`` (``a+b``: sum of parts), person-given scores only; NaN if unscored."""
    total = 0.0
    for part in split_class(cls):
        v = t.value(part, include_extrapolated=False)
        if v is None:
            return math.nan
        total += v
    return total


def similar(db: Database, source: Source, target: Target, cls: str, *,
            limit: int | None = None, include_references: bool = False,
            distance: str = "words", exclude_system: str | None = None) -> list[Neighbour]:
    """Scored translations of ``source``'s sentence (pooled over sources with its text)
    other than ``target``: identical first, then by ascending edit distance in
    ``distance`` units (stable in database order, ``source``'s own first).
    ``exclude_system``: leave that system's translations out (leave-one-system-out)."""
    check_distance(distance)
    tw = words(target.text) if distance == "words" else target.text
    want = None if exclude_system is None else (exclude_system or None)
    out = []
    for src in pooled_sources(db, source):
        for i, t in enumerate(src.targets):
            if t is target or (not include_references and db.is_reference(t)):
                continue
            if exclude_system is not None and (t.system or None) == want:
                continue
            v = scored_value(t, cls)
            if not math.isfinite(v):
                continue
            ident = t.text == target.text
            other = words(t.text) if distance == "words" else t.text
            d = 0 if ident else Levenshtein.distance(tw, other)
            out.append(Neighbour(i, t, d, ident, v, src, judges_of(t, cls)))
    out.sort(key=lambda n: (not n.identical, n.distance))
    return out[:limit] if limit is not None else out


def estimate(neighbours: Iterable[Neighbour], identical_only: bool = False
             ) -> tuple[float, int, int] | None:
    """(value, distance, number averaged) from the nearest neighbours, ties averaged."""
    ns = list(neighbours)
    if identical_only:
        ns = [n for n in ns if n.identical]
    if not ns:
        return None
    best = min(n.distance for n in ns)
    near = [n.value for n in ns if n.distance == best]
    return float(np.mean(near)), best, len(near)


def storable(db: Database, cls: str, value: float) -> float:
    """The value as the database can store it: for a class with discrete levels the
    averaged estimate is rounded to the nearest level (half to even)."""
    lv = db.level(cls)
    return value if lv.continuous else float(np.round(value))


def _is_unscored(t: Target, cls: str) -> bool:
    return not any(s.cls in split_class(cls) and not s.extrapolated for s in t.scores)


def _set_extrapolated(t: Target, cls: str, value: float, judge: str | None) -> None:
    t.scores = [s for s in t.scores if not (s.cls == cls and s.extrapolated)]
    t.set_score(cls, value, judge=judge, extrapolated=True)


def reuse_identical(db: Database, cls: str, judge: str | None = None) -> int:
    """Give unscored candidates the (mean) score of identical scored translations of
    the same source, marked extrapolated. Returns the number of scores set."""
    check_class(db, cls)
    n = 0
    for src in db.sources:
        for t in db.candidates(src):
            if not _is_unscored(t, cls):
                continue
            est = estimate(similar(db, src, t, cls), identical_only=True)
            if est is not None:
                _set_extrapolated(t, cls, storable(db, cls, est[0]), judge)
                n += 1
    return n


def extrapolate(db: Database, cls: str, judge: str | None = None,
                max_distance: int | None = None, distance: str = "words",
                progress: Callable[[int, int], None] | None = None) -> int:
    """Estimate every unscored candidate from its nearest scored translations of the same
    source sentence (ties averaged; ``distance`` in words or characters, at most
    ``max_distance``), marked extrapolated; returns the number set. Earlier
    extrapolated scores are refreshed; person-given scores are never touched.
    ``progress(sources done, sources)`` after each source sentence."""
    check_class(db, cls)
    if len(split_class(cls)) != 1:
        from evaltrans_qt.errors import ScoreError
        raise ScoreError("extrapolate one score class at a time, not a combination")
    n = 0
    for k, src in enumerate(db.sources, 1):
        for t in db.candidates(src):
            if not _is_unscored(t, cls):
                continue
            est = estimate(similar(db, src, t, cls, distance=distance))
            if est is not None and (max_distance is None or est[1] <= max_distance):
                _set_extrapolated(t, cls, storable(db, cls, est[0]), judge)
                n += 1
        if progress is not None:
            progress(k, len(db.sources))
    return n


@dataclass(frozen=True)
class SystemAccuracy:
    """Leave-one-out accuracy for one system's candidates: how many were estimated,
    mean |estimate - true|, the share estimated exactly, the bias mean(estimate - true)."""

    n: int
    mean_abs_diff: float
    share_exact: float
    bias: float


def _accuracy(diffs: list[float]) -> SystemAccuracy:
    d = np.asarray(diffs, float)
    return SystemAccuracy(int(d.size), float(np.abs(d).mean()), float(np.mean(np.abs(d) < 1e-9)),
                          float(d.mean()))


@dataclass
class ExtrapolationReport:
    """Leave-one-out accuracy of extrapolation (every scored candidate hidden once; with
    ``scope == "system"`` its whole system hidden).

    ``per_system[system] = (n, mean estimate - true)``: a positive bias means
    the system would be overestimated if its scores were extrapolated;
    ``systems[system]`` the full :class:`SystemAccuracy`.
    """

    cls: str
    n: int                 # candidates that could be estimated
    not_estimable: int     # scored candidates with no other scored translation
    mean_abs_diff: float
    share_exact: float
    bias: float            # mean(estimate - true); > 0 = overestimate
    mean_distance: float
    share_identical: float
    warning: str = OVERESTIMATE_WARNING
    distance: str = "words"
    scope: str = "candidate"
    systems: dict[str, SystemAccuracy] = field(default_factory=dict)

    @property
    def per_system(self) -> dict[str, tuple[int, float]]:
        return {s: (a.n, a.bias) for s, a in self.systems.items()}

    def to_dict(self) -> dict:
        def c(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        d = {k: c(v) for k, v in self.__dict__.items() if k != "systems"}
        d["per_system"] = {s: {"n": a.n, "bias": c(a.bias), "mean_abs_diff": c(a.mean_abs_diff),
                               "share_exact": c(a.share_exact)}
                           for s, a in self.systems.items()}
        return d

    def format(self) -> str:
        unit = "word" if self.distance == "words" else "character"
        how = "Leave-one-system-out" if self.scope == "system" else "Leave-one-out"
        lines = [f"{how} extrapolation of '{self.cls}': {self.n} candidates estimated, "
                 f"{self.not_estimable} without a scored neighbour",
                 f"  mean absolute difference {self.mean_abs_diff:.4f}",
                 f"  share exact              {self.share_exact:.4f}",
                 f"  bias (estimate - true)   {self.bias:+.4f}",
                 f"  mean {unit} edit distance {self.mean_distance:.2f}"
                 f" (identical: {self.share_identical:.1%})"]
        if self.systems:
            width = max(len(s or "(no id)") for s in self.systems) + 2
            lines.append("  per system (by bias):")
            lines.append(f"    {'system':<{width}} {'n':>5} {'mean|d|':>8} {'exact':>6} "
                         f"{'bias':>8}")
            for s, a in sorted(self.systems.items(), key=lambda x: -x[1].bias):
                lines.append(f"    {s or '(no id)':<{width}} {a.n:>5} {a.mean_abs_diff:8.4f} "
                             f"{a.share_exact:6.3f} {a.bias:+8.4f}")
        lines.append(f"WARNING: {self.warning}")
        return "\n".join(lines) + "\n"


def leave_one_out(db: Database, cls: str, *, distance: str = "words",
                  scope: str = "candidate",
                  progress: Callable[[int, int], None] | None = None) -> ExtrapolationReport:
    """Hide each scored candidate's own score (``scope="system"``: every score of its
    system) and estimate it from the other scored translations of its source sentence
    (nearest in ``distance`` units, ties averaged, rounded to a level as
    :func:`extrapolate` would store it). Reads ``db`` only. ``progress(sources done,
    sources)`` after each source sentence."""
    check_class(db, cls)
    check_distance(distance)
    if scope not in SCOPES:
        from evaltrans_qt.errors import OptionError
        raise OptionError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    single = len(split_class(cls)) == 1
    diffs, dists, ident, systems = [], [], [], []
    missing = 0
    for k, src in enumerate(db.sources, 1):
        if progress is not None and k > 1:
            progress(k - 1, len(db.sources))
        for t in db.candidates(src):
            true = scored_value(t, cls)
            if not math.isfinite(true):
                continue
            ns = similar(db, src, t, cls, distance=distance,
                         exclude_system=(t.system or "") if scope == "system" else None)
            est = estimate(ns)
            if est is None:
                missing += 1
                continue
            diffs.append((storable(db, cls, est[0]) if single else est[0]) - true)
            dists.append(est[1])
            ident.append(ns[0].identical)
            systems.append(t.system or "")
    if progress is not None:
        progress(len(db.sources), len(db.sources))
    if not diffs:
        return ExtrapolationReport(cls, 0, missing, math.nan, math.nan, math.nan,
                                   math.nan, math.nan, distance=distance, scope=scope)
    per: dict[str, list[float]] = {}
    for s, x in zip(systems, diffs):
        per.setdefault(s, []).append(x)
    overall = _accuracy(diffs)
    return ExtrapolationReport(cls, overall.n, missing, overall.mean_abs_diff,
                               overall.share_exact, overall.bias,
                               float(np.mean(dists)), float(np.mean(ident)),
                               distance=distance, scope=scope,
                               systems={s: _accuracy(v) for s, v in per.items()})
