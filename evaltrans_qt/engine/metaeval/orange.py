"""ORANGE: meta-evaluation of measures without human scores (Lin & Och 2004; thesis ch. 6,
introduction).

A good measure should tell the "perfect" references from the machine translations.
For every source with at least two references and every reference r_k of it
(leave-one-out: r_k is held out and scored against the *other* references, so it is
never compared with itself), r_k and all candidates of the source are scored against
the remaining references; r_k's rank among them (1 = best, ties share the mean rank)
is recorded. ORANGE averages these ranks; lower is better. ``normalized`` divides
rank - 1 by the number of candidates: 0 = the reference always ranked first,
1 = always last.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import ScoreError

#: System id of the held-out reference in the leave-one-out databases.
HELD_OUT = "\x00held-out-reference"


@dataclass
class OrangeResult:
    """ORANGE of one measure: mean rank of the held-out references and its normalised form."""

    measure: str
    mean_rank: float
    normalized: float
    n: int
    candidates: float

    def to_dict(self) -> dict:
        def c(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        return {"measure": self.measure, "mean_rank": c(self.mean_rank),
                "normalized": c(self.normalized), "n": self.n,
                "mean_candidates": c(self.candidates)}


def rank_of_first(values: Sequence[float], higher_is_better: bool) -> float:
    """Rank of ``values[0]`` among all ``values`` (1 = best; ties: the mean rank)."""
    v = np.asarray(values, float)
    x = v if higher_is_better else -v
    better = int((x[1:] > x[0]).sum())
    tied = int((x[1:] == x[0]).sum())
    return 1.0 + better + tied / 2.0


def held_out_database(db: Database, k: int) -> tuple[Database, list[int]]:
    """A copy of ``db`` in which the k-th reference of every source with more than k
    references (and at least two) is a candidate of system :data:`HELD_OUT`; the other
    references stay references. Returns it and the original source index of each source."""
    is_ref = db.reference_test()
    out = Database()
    mark = out.marking_class()          # the class that marks references (Appendix A.2)
    origin = []
    for i, src in enumerate(db.sources):
        refs = [t for t in src.targets if is_ref(t)]
        cands = [t for t in src.targets if not is_ref(t)]
        if len(refs) < 2 or k >= len(refs) or not cands:
            continue
        new = out.add_source(src.text, src.doc, src.seg if src.seg else str(i + 1))
        for j, r in enumerate(refs):
            if j != k:
                out.mark_reference(out.add_target(new, r.text, r.system), mark)
        out.add_target(new, refs[k].text, HELD_OUT)
        for t in cands:
            out.add_target(new, t.text, t.system)
        origin.append(i)
    return out, origin


def orange(db: Database, options: EvalOptions | None = None,
           measures: Iterable[str] | None = None, cancel=None) -> list[OrangeResult]:
    """ORANGE of every measure (default: the default measures) on ``db`` (module doc)."""
    from evaltrans_qt.engine.run.driver import evaluate
    options = options or EvalOptions()
    is_ref = db.reference_test()
    most = max((sum(1 for t in s.targets if is_ref(t)) for s in db.sources), default=0)
    if most < 2:
        raise ScoreError("ORANGE needs sources with at least two references (one is held out "
                         "and scored against the others)")
    ranks: dict[str, list[float]] = {}
    ncand: list[float] = []
    names: list[str] = []
    for k in range(most):
        sub, _ = held_out_database(db, k)
        if not sub.sources:
            continue
        run = evaluate(sub, options, measures, cancel=cancel)
        names = list(run.measures)
        # source -> measure -> ([the held-out reference's value], [the candidates' values])
        by_source: dict[int, dict[str, tuple[list[float], list[float]]]] = {}
        for sysname, sr in run.systems.items():
            for m in names:
                vals = run.measure(m).score_values(np.asarray(sr.stats[m]))
                for src, v in zip(sr.segments, vals):
                    ref_v, cand = by_source.setdefault(int(src), {}).setdefault(
                        m, ([math.nan], []))
                    if sysname == HELD_OUT:
                        ref_v[0] = float(v)
                    else:
                        cand.append(float(v))
        for entry in by_source.values():
            for m, (ref_v, cand) in entry.items():
                hib = run.measure(m).higher_is_better
                ranks.setdefault(m, []).append(rank_of_first([ref_v[0], *cand], hib))
            ncand.append(len(next(iter(entry.values()))[1]))
    out = []
    nc = np.asarray(ncand, float)
    for m in names:
        r = np.asarray(ranks.get(m, []), float)
        norm = float(np.mean((r - 1) / np.where(nc > 0, nc, 1))) if r.size else math.nan
        out.append(OrangeResult(m, float(r.mean()) if r.size else math.nan, norm, int(r.size),
                                float(nc.mean()) if nc.size else math.nan))
    return out


def format_orange(rows: Sequence[OrangeResult]) -> str:
    """Measures by ORANGE (best first)."""
    lines = ["ORANGE (Lin & Och 2004; thesis ch. 6): mean rank of each held-out reference among "
             "the candidates of its source, scored against the other references "
             "(1 = best; lower is better)",
             f"{'measure':<12}{'mean rank':>10}{'normalized':>12}{'pairs':>8}"]
    for r in sorted(rows, key=lambda r: (not math.isfinite(r.mean_rank), r.mean_rank)):
        lines.append(f"{r.measure:<12}{r.mean_rank:>10.3f}{r.normalized:>12.4f}{r.n:>8}")
    if rows:
        lines.append(f"(mean {rows[0].candidates:.1f} candidates per source)")
    return "\n".join(lines) + "\n"
