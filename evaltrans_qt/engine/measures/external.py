"""External measures: scores of metrics we do not compute (COMET, MetricX, ...) read from files.

An :class:`ExternalMetric` holds one metric's segment scores (per system, per source
index of the database) and optionally system scores (a ``*.sys.score`` file). It lives
on the database (:func:`external_metrics`; the io layer stores it as the
``<external-metrics>`` extension element, ``io/scores.py``) and becomes a measure of
a run through :func:`with_external`, which adds an :class:`ExternalMeasure` and its
statistics to every system of a :class:`~evaltrans_qt.engine.run.results.RunResult`:

* statistics per segment ``[score, 1]`` (``[0, 0]`` where the file has no score), so
  they add up like every measure's (``measures/base.py``): a sentence score is the
  file's score, a bootstrap sample's score the mean of its segments;
* the system score is the file's system-level score when a sys file gave one, else the
  mean of the system's segment scores (what WMT's sys files hold for most metrics);
* the measure is not in the registry (the driver never computes it); the run keeps its
  instance (``RunResult.measure``) and its signature (``meta["signatures"]``:
  name, level, file, direction; :func:`external_signature`).

Direction: declared on import, or :func:`guess_direction` from the name.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePath

import numpy as np

from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import OptionError

#: Name parts that make a metric lower-is-better when no direction is declared: the
#: edit-distance family (TER, WER, PER, CER, CDER, HTER, chrF is *not* one of them),
#: and names that say error/distance. Matched on word boundaries (``-``, ``_``, ``.``,
#: digits or the ends), case-insensitively; everything else is higher-is-better
#: (BLEU, chrF, COMET, BLEURT...). MetricX scores are error predictions (0 best,
#: 25 worst), so ``metricx`` is listed too.
LOWER_IS_BETTER_NAMES = ("ter", "hter", "wer", "per", "cer", "cder", "invwer", "ljwer",
                         "mer", "wil", "error", "err", "distance", "dist", "metricx")
_TOKEN = re.compile(r"[a-z]+")


def guess_direction(name: str) -> bool:
    """True (higher is better) unless a word of ``name`` is in :data:`LOWER_IS_BETTER_NAMES`
    (e.g. ``TER``, ``sacreBLEU-TER``, ``MetricX-23``; not ``COMET``, ``chrF``, ``BLEU``)."""
    words = _TOKEN.findall(name.lower())
    return not any(w in LOWER_IS_BETTER_NAMES for w in words)


@dataclass
class ExternalMetric:
    """One external metric's scores.

    ``segments[system][source_index]`` is a segment score; ``systems[system]`` a
    system-level score from a sys file. ``file``/``fmt``/``reference`` say where the
    numbers came from (signature, report).
    """

    name: str
    higher_is_better: bool
    segments: dict[str, dict[int, float]] = field(default_factory=dict)
    systems: dict[str, float] = field(default_factory=dict)
    file: str = ""
    fmt: str = ""
    reference: str = ""

    @property
    def key(self) -> str:
        """The measure name of this metric in runs (case kept, as the file names it)."""
        return self.name

    @property
    def level(self) -> str:
        """``seg``, ``sys`` or ``seg+sys``: what the files gave."""
        parts = [p for p, have in (("seg", self.segments), ("sys", self.systems)) if have]
        return "+".join(parts) or "none"

    def merge(self, other: ExternalMetric) -> None:
        """Add ``other``'s scores (a sys file after a seg file of the same metric)."""
        for s, vals in other.segments.items():
            self.segments.setdefault(s, {}).update(vals)
        self.systems.update(other.systems)
        self.file = ", ".join(x for x in dict.fromkeys([*self.file.split(", "), other.file]) if x)
        self.fmt = ", ".join(x for x in dict.fromkeys([*self.fmt.split(", "), other.fmt]) if x)

    def column(self, system: str, rows: Iterable[int]) -> np.ndarray:
        """Segment scores of ``system`` at the given source indices (NaN where missing)."""
        vals = self.segments.get(system, {})
        return np.array([vals.get(int(i), math.nan) for i in rows], float)


def external_metrics(db) -> dict[str, ExternalMetric]:
    """The external metrics of a database (a dict kept on the database object; the io
    layer fills it on load and writes it on save)."""
    d = db.__dict__.get("external_metrics")
    if d is None:
        d = db.__dict__["external_metrics"] = {}
    return d


def check_name(name: str, db=None) -> None:
    """An external metric may not take the name of one of our measures (or an alias):
    it would hide the measure in tables and runs. :class:`OptionError` says to rename."""
    from evaltrans_qt.engine.measures import resolve
    if not name or not name.strip() or any(c.isspace() for c in name):
        raise OptionError(f"external metric name {name!r} must be one word without spaces")
    if resolve(name) is not None:
        raise OptionError(f"external metric '{name}' has the name of our measure "
                          f"'{resolve(name)}'; import it under another name (--name)")


def add_external(db, metric: ExternalMetric, replace: bool = True) -> None:
    """Store ``metric`` on ``db`` (same name: replaced, or merged with ``replace=False``)."""
    check_name(metric.name)
    ext = external_metrics(db)
    if metric.name in ext and not replace:
        ext[metric.name].merge(metric)
    else:
        ext[metric.name] = metric


class ExternalMeasure(Measure):
    """A :class:`Measure` whose numbers come from an :class:`ExternalMetric` (see module doc)."""

    name = "external"
    long_name = "External metric scores"
    report_element = "external"
    source = "scores read from a file"
    default_enabled = False

    def __init__(self, metric: ExternalMetric, options: EvalOptions | None = None) -> None:
        super().__init__(options)
        self.metric = metric
        self.name = metric.name                      # type: ignore[misc]
        self.long_name = f"{metric.name} (external scores)"   # type: ignore[misc]
        self.higher_is_better = metric.higher_is_better      # type: ignore[misc]

    @classmethod
    def enabled(cls, options: EvalOptions) -> bool:
        return False

    @property
    def stat_names(self) -> list[str]:
        return ["score", "count"]

    def report_attrs(self) -> dict[str, str]:
        """Attributes of the report's ``<external>`` element (``io/report.py``)."""
        return {"name": self.name, "direction": "higher" if self.higher_is_better else "lower"}

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        raise OptionError(f"'{self.name}' is an external metric: its scores come from the "
                          "imported file, it cannot score new sentences")

    def score(self, stats: np.ndarray) -> MeasureScore:
        s = np.asarray(stats, float)
        value = float(s[0] / s[1]) if s[1] > 0 else math.nan
        return MeasureScore(self.name, value, {self.name: value},
                            {"score": value, "segments": float(s[1])})

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        s = np.atleast_2d(np.asarray(stats, float))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(s[:, 1] > 0, s[:, 0] / np.where(s[:, 1] > 0, s[:, 1], 1), np.nan)

    def stats_for(self, system: str, rows: Iterable[int]) -> np.ndarray:
        """``[score, 1]`` per row (``[0, 0]`` where the file has no score)."""
        v = self.metric.column(system, rows)
        ok = np.isfinite(v)
        return np.column_stack([np.where(ok, v, 0.0), ok.astype(float)])

    def system_score(self, system: str, stats: np.ndarray) -> MeasureScore:
        """The sys file's score of ``system`` if given, else the mean of its segments."""
        given = self.metric.systems.get(system)
        sc = self.score(np.asarray(stats, float).sum(axis=0) if len(stats) else np.zeros(2))
        if given is None:
            return sc
        return MeasureScore(self.name, float(given), {self.name: float(given)},
                            {**sc.details, "score": float(given), "segment-mean": sc.value})


def external_signature(metric: ExternalMetric) -> str:
    """``name|level:…|file:…|direction:…|ref:…|evaltrans:VERSION`` (engine/run/signature.py
    style) -- what the numbers are and where they came from."""
    from evaltrans_qt.engine.run.signature import Signature, evaltrans_version
    files = ",".join(PurePath(f).name for f in metric.file.split(", ") if f) or "-"
    info = {"external": metric.name, "level": metric.level, "file": files,
            "direction": "higher" if metric.higher_is_better else "lower",
            "ref": metric.reference or None, "evaltrans": evaltrans_version()}
    return Signature(metric.name, info, {"external": "x", "level": "lv", "file": "f",
                                         "direction": "d", "ref": "r"}).format()


def with_external(run, db, names: Iterable[str] | None = None):
    """``run`` with the database's external metrics (or only ``names``) added as measures:
    statistics and system scores for every system of the run (module doc). Metrics the
    run already has are kept; returns ``run`` itself when nothing is added."""
    if db is None:
        return run
    ext = external_metrics(db)
    wanted = list(ext) if names is None else list(names)
    for n in wanted:
        if n not in ext:
            raise OptionError(f"no external metric '{n}' in the database "
                              f"(have: {', '.join(ext) or 'none'})")
    new = [n for n in wanted if n not in run.measures]
    if not new:
        return run
    measures = {n: ExternalMeasure(ext[n], run.options) for n in new}
    systems = {}
    for sysname, sr in run.systems.items():
        stats = dict(sr.stats)
        scores = dict(sr.scores)
        for n, m in measures.items():
            st = m.stats_for(sysname, sr.segments)
            stats[n] = st
            scores[n] = m.system_score(sysname, st)
        systems[sysname] = dataclasses.replace(sr, stats=stats, scores=scores)
    meta = dict(run.meta)
    meta["signatures"] = {**dict(meta.get("signatures") or {}),
                          **{n: external_signature(ext[n]) for n in new}}
    meta["external"] = tuple([*meta.get("external", ()), *new])
    out = dataclasses.replace(run, measures=(*run.measures, *new), systems=systems, meta=meta)
    cache = out.__dict__.setdefault("_measures", {})
    cache.update(run.__dict__.get("_measures", {}))
    cache.update(measures)
    return out


def external_names(run) -> tuple[str, ...]:
    """The external measures of a run (added by :func:`with_external`)."""
    return tuple((run.meta or {}).get("external", ()))


def is_external(run, name: str) -> bool:
    return name in external_names(run)


__all__ = ["ExternalMetric", "ExternalMeasure", "external_metrics", "add_external",
           "with_external", "guess_direction", "external_signature", "check_name",
           "LOWER_IS_BETTER_NAMES", "external_names", "is_external"]



def merge_external(db, other, index_map: dict[int, int], prefer_new: bool, report) -> None:
    """Merge ``other``'s external metrics into ``db`` (called by engine.merge.merge).

    ``index_map`` maps ``other``'s source indices to ours (segment scores are keyed by
    source index). A metric only ``other`` has is added; for one both have, every segment
    and system score only ``other`` has is added, and the same score with another value is
    a conflict: ``prefer_new`` takes theirs, otherwise ours stays; each conflict is listed
    in ``report.protocol_conflicts``. A different direction (higher/lower is better) is a
    conflict of the whole metric, resolved the same way."""
    mine_all = external_metrics(db)
    for name, theirs in external_metrics(other).items():
        moved = ExternalMetric(theirs.name, theirs.higher_is_better,
                               {s: {index_map[i]: v for i, v in vals.items() if i in index_map}
                                for s, vals in theirs.segments.items()},
                               dict(theirs.systems), theirs.file, theirs.fmt, theirs.reference)
        mine = mine_all.get(name)
        if mine is None:
            mine_all[name] = moved
            continue
        if mine.higher_is_better != moved.higher_is_better:
            report.protocol_conflicts.append(
                f"external metric '{name}': direction differs; kept "
                f"{'theirs' if prefer_new else 'ours'}")
            if prefer_new:
                mine_all[name] = moved
            continue
        clashes = 0
        for system, vals in moved.segments.items():
            have = mine.segments.setdefault(system, {})
            for i, v in vals.items():
                if i not in have:
                    have[i] = v
                elif have[i] != v and not (math.isnan(have[i]) and math.isnan(v)):
                    clashes += 1
                    if prefer_new:
                        have[i] = v
        for system, v in moved.systems.items():
            if system not in mine.systems:
                mine.systems[system] = v
            elif mine.systems[system] != v:
                clashes += 1
                if prefer_new:
                    mine.systems[system] = v
        if clashes:
            report.protocol_conflicts.append(
                f"external metric '{name}': {clashes} score(s) differ; kept "
                f"{'theirs' if prefer_new else 'ours'}")
        mine.file = ", ".join(x for x in dict.fromkeys([*mine.file.split(", "),
                                                        *moved.file.split(", ")]) if x)
