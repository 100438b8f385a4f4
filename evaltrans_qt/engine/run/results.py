"""Results of an evaluation run: frozen, self-describing, options included.

A run evaluates some systems of a database with some measures under one
:class:`EvalOptions`. Per system it keeps, for every measure, the per-sentence
sufficient statistics (rows add up, see ``measures/base.py``) and the system
score computed from their sum, so sentence scores, system scores, bootstrap
resampling and correlation all start from the same numbers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaltrans_qt.engine.measures.base import MeasureScore
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import EvalTransError


@dataclass(frozen=True)
class SystemResult:
    """One system's results.

    ``segments[i]`` is the index (into ``Database.sources``) of row ``i`` of
    every ``stats[measure]`` matrix; ``target_texts[i]`` the candidate text.
    ``flags`` holds per-measure boolean arrays of noteworthy sentences (e.g.
    ``flags["ljwer"]["approximated"]``; from ``flag:<name>`` stat columns).

    Filled when known (the report writer uses them): ``target_indices[i]`` is
    the candidate's index in its source's targets (-1 if it came from a file,
    not the database); ``source_texts``/``reference_texts`` the texts of row
    ``i``; ``ref_distances[measure]`` an (n, R) array of absolute distances to
    each reference (NaN where a row has fewer references), computed on request
    for the report's ``<reference-distance>`` elements.
    """

    system: str
    segments: tuple[int, ...]
    scores: Mapping[str, MeasureScore]
    stats: Mapping[str, np.ndarray]
    target_texts: tuple[str, ...] = ()
    flags: Mapping[str, Mapping[str, np.ndarray]] = field(default_factory=dict)
    target_indices: tuple[int, ...] = ()
    source_texts: tuple[str, ...] = ()
    reference_texts: tuple[tuple[str, ...], ...] = ()
    ref_distances: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.segments)

    def reordered(self, order: Sequence[int]) -> SystemResult:
        """The same result with rows in ``order`` (a permutation); system scores unchanged."""
        idx = np.asarray(order, dtype=np.int64)

        def pick(t: tuple) -> tuple:
            return tuple(t[i] for i in idx) if t else t
        return dataclasses.replace(
            self, segments=pick(self.segments), target_texts=pick(self.target_texts),
            target_indices=pick(self.target_indices), source_texts=pick(self.source_texts),
            reference_texts=pick(self.reference_texts),
            stats={m: a[idx] for m, a in self.stats.items()},
            flags={m: {k: v[idx] for k, v in f.items()} for m, f in self.flags.items()},
            ref_distances={m: a[idx] for m, a in self.ref_distances.items()})


@dataclass(frozen=True)
class RunResult:
    """All systems of one run, with the options and measures that produced them."""

    options: EvalOptions
    measures: tuple[str, ...]
    systems: Mapping[str, SystemResult]
    database_path: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def system_score(self, system: str, measure: str) -> MeasureScore:
        """The system-level score of ``measure`` for ``system``."""
        sr = self.systems[system]
        if measure not in sr.scores:
            raise_if_missing({}, measure)
        return sr.scores[measure]

    def measure(self, name: str):
        """The measure object of this run (built with the run's options), cached."""
        cache = self.__dict__.setdefault("_measures", {})
        m = cache.get(name)
        if m is None:
            from evaltrans_qt.engine.measures import get
            m = get(name)(self.options)
            cache[name] = m
        return m

    def sentence_score(self, system: str, measure: str, row: int) -> MeasureScore:
        """Score of one sentence (row of the system's statistics)."""
        sr = self.systems[system]
        raise_if_missing(sr.stats, measure)
        return self.measure(measure).score(sr.stats[measure][row])

    def sentence_column(self, system: str, measure: str, column: str | None = None) -> np.ndarray:
        """Per-sentence values of one column (default: the headline value) of ``measure``."""
        sr = self.systems[system]
        raise_if_missing(sr.stats, measure)
        m = self.measure(measure)
        out = np.empty(len(sr.segments), dtype=np.float64)
        for i, row in enumerate(sr.stats[measure]):
            sc = m.score(row)
            out[i] = sc.value if column is None else sc.columns[column]
        return out

    def nrefs(self) -> int | str:
        """References per candidate over the run (sacreBLEU's ``nrefs``): the common count,
        or ``"var"`` when candidates have different numbers of references."""
        cached = self.__dict__.get("_nrefs")
        if cached is not None:
            return cached
        counts = {len(refs) for sr in self.systems.values() for refs in sr.reference_texts}
        n = self.meta.get("nrefs", 1) if not counts else (
            counts.pop() if len(counts) == 1 else "var")
        self.__dict__["_nrefs"] = n          # a frozen result: computed once (as measure())
        return n

    def signature(self, measure: str, short: bool = False, **extra) -> str:
        """The signature of ``measure``'s numbers in this run (``engine/run/signature.py``):
        sacreBLEU's own for BLEU/chrF/TER, an extended one for our measures. A run read
        from a report keeps the signature the report recorded."""
        saved = (self.meta.get("signatures") or {}).get(measure)
        if saved and not short and not extra:
            return saved
        from evaltrans_qt.engine.run.signature import signature_for
        return signature_for(measure, self.options, self.nrefs(), **extra).format(short)

    def signatures(self, short: bool = False) -> dict[str, str]:
        """{measure: signature} for every measure of the run."""
        out = {}
        for m in self.measures:
            try:
                out[m] = self.signature(m, short)
            except EvalTransError:      # a measure unknown here (a foreign report)
                continue
        return out

    def column_signatures(self, short: bool = False) -> dict[str, str]:
        """{table column: signature of the measure it comes from} (tooltips, exports)."""
        sigs = self.signatures(short)
        out: dict[str, str] = {}
        for sr in self.systems.values():
            for m, sc in sr.scores.items():
                if m in sigs:
                    for col in sc.columns:
                        out.setdefault(col, sigs[m])
        return out

    def system_table(self) -> dict[str, dict[str, float]]:
        """{system: {column: value}} over all measures' columns (for tables/CSV)."""
        out: dict[str, dict[str, float]] = {}
        for name, sr in self.systems.items():
            row: dict[str, float] = {}
            for mname in self.measures:
                if mname in sr.scores:
                    row.update(sr.scores[mname].columns)
            out[name] = row
        return out


def raise_if_missing(stats: Mapping[str, np.ndarray], measure: str) -> None:
    if measure not in stats:
        from evaltrans_qt.errors import OptionError
        raise OptionError(f"measure '{measure}' was not part of this run")
