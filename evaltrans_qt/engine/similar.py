"""The database method: similar scored translations and extrapolation (thesis section 1.2.1,
SPEC §5).

For a candidate, the already-scored translations of the same source are listed
identical ones first, then by word edit distance (Levenshtein on token lists,
rapidfuzz). An identical translation's score can be reused automatically, and
an unscored candidate's score estimated from its nearest scored translations
(ties averaged); such scores are marked ``Score.extrapolated``.

Warning (Macháček §3.2): systems agree more often on *good*
translations, so identical or nearby matches are biased towards better
scores -- extrapolation **overestimates** unscored candidates, and a
leave-one-out accuracy report is optimistic in the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import Levenshtein

from evaltrans_qt.engine.database import Database, Source, Target
from evaltrans_qt.engine.human import check_class, split_class

OVERESTIMATE_WARNING = (
    "Extrapolated scores are optimistic: MT systems agree more often on good translations, "
    "so identical and nearest matches tend to be better than the candidate (Machacek 2014, "
    "section 3.2: left-out systems were heavily overestimated). Use extrapolation to fill "
    "gaps, not to rank systems.")


@dataclass(frozen=True)
class Neighbour:
    """A scored translation of the same source with its word edit distance."""

    index: int          # index into source.targets
    target: Target
    distance: int       # word-level Levenshtein distance
    identical: bool
    value: float        # aggregated (mean over judges) human value of the class


def words(text: str) -> list[str]:
    return text.split()


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
            limit: int | None = None, include_references: bool = False) -> list[Neighbour]:
    """Scored translations of ``source`` other than ``target``: identical first,
    then by ascending word edit distance (stable in database order)."""
    tw = words(target.text)
    out = []
    for i, t in enumerate(source.targets):
        if t is target or (not include_references and db.is_reference(t)):
            continue
        v = scored_value(t, cls)
        if not math.isfinite(v):
            continue
        ident = t.text == target.text
        d = 0 if ident else Levenshtein.distance(tw, words(t.text))
        out.append(Neighbour(i, t, d, ident, v))
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
                max_distance: int | None = None) -> int:
    """Estimate every unscored candidate from its nearest scored translations of the same
    source (ties averaged), marked extrapolated; returns the number set. Earlier
    extrapolated scores are refreshed; person-given scores are never touched."""
    check_class(db, cls)
    if len(split_class(cls)) != 1:
        from evaltrans_qt.errors import ScoreError
        raise ScoreError("extrapolate one score class at a time, not a combination")
    n = 0
    for src in db.sources:
        for t in db.candidates(src):
            if not _is_unscored(t, cls):
                continue
            est = estimate(similar(db, src, t, cls))
            if est is not None and (max_distance is None or est[1] <= max_distance):
                _set_extrapolated(t, cls, storable(db, cls, est[0]), judge)
                n += 1
    return n


@dataclass
class ExtrapolationReport:
    """Leave-one-out accuracy of extrapolation (every scored candidate hidden once).

    ``per_system[system] = (n, mean estimate - true)``: a positive bias means
    the system would be overestimated if its scores were extrapolated.
    """

    cls: str
    n: int                 # candidates that could be estimated
    not_estimable: int     # scored candidates with no other scored translation
    mean_abs_diff: float
    share_exact: float
    bias: float            # mean(estimate - true); > 0 = overestimate
    mean_distance: float
    share_identical: float
    per_system: dict[str, tuple[int, float]] = field(default_factory=dict)
    warning: str = OVERESTIMATE_WARNING

    def to_dict(self) -> dict:
        def c(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        d = {k: c(v) for k, v in self.__dict__.items() if k != "per_system"}
        d["per_system"] = {s: {"n": n, "bias": c(b)} for s, (n, b) in self.per_system.items()}
        return d

    def format(self) -> str:
        lines = [f"Leave-one-out extrapolation of '{self.cls}': {self.n} candidates estimated, "
                 f"{self.not_estimable} without a scored neighbour",
                 f"  mean absolute difference {self.mean_abs_diff:.4f}",
                 f"  share exact              {self.share_exact:.4f}",
                 f"  bias (estimate - true)   {self.bias:+.4f}",
                 f"  mean word edit distance  {self.mean_distance:.2f}"
                 f" (identical: {self.share_identical:.1%})"]
        if self.per_system:
            lines.append("  bias per system:")
            for s, (n, b) in sorted(self.per_system.items(), key=lambda x: -x[1][1]):
                lines.append(f"    {s or '(no id)':<24} {b:+.4f}  (n={n})")
        lines.append(f"WARNING: {self.warning}")
        return "\n".join(lines) + "\n"


def leave_one_out(db: Database, cls: str) -> ExtrapolationReport:
    """Hide each scored candidate's own score and estimate it from the other scored
    translations of its source (nearest by word edit distance, ties averaged, rounded
    to a level as :func:`extrapolate` would store it)."""
    check_class(db, cls)
    single = len(split_class(cls)) == 1
    diffs, dists, ident, systems = [], [], [], []
    missing = 0
    for src in db.sources:
        for t in db.candidates(src):
            true = scored_value(t, cls)
            if not math.isfinite(true):
                continue
            ns = similar(db, src, t, cls)
            est = estimate(ns)
            if est is None:
                missing += 1
                continue
            diffs.append((storable(db, cls, est[0]) if single else est[0]) - true)
            dists.append(est[1])
            ident.append(ns[0].identical)
            systems.append(t.system or "")
    d = np.asarray(diffs, float)
    if d.size == 0:
        return ExtrapolationReport(cls, 0, missing, math.nan, math.nan, math.nan,
                                   math.nan, math.nan)
    per: dict[str, list[float]] = {}
    for s, x in zip(systems, diffs):
        per.setdefault(s, []).append(x)
    return ExtrapolationReport(cls, int(d.size), missing, float(np.abs(d).mean()),
                               float(np.mean(np.abs(d) < 1e-9)), float(d.mean()),
                               float(np.mean(dists)), float(np.mean(ident)),
                               {s: (len(v), float(np.mean(v))) for s, v in per.items()})
