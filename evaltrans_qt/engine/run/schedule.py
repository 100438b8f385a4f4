"""Scheduling a run's work: the pair phase's tasks and the size of row chunks.

Measures with a non-zero :meth:`Measure.pair_cost` (INVWER: microseconds to a
minute per sentence pair) have every distinct (candidate, reference) pair they
need computed first, as :class:`~evaltrans_qt.engine.run.work.PairBatch` tasks,
most expensive first (:func:`schedule_pairs`: each expensive pair alone, cheap
ones batched), so that the cores stay busy until the end. Row chunks then only
read the measure's ``pair_cache``. :class:`TimeLeft` estimates a run's time left
from the same cost model.

For a measure whose statistics need only the nearest references' values
(:attr:`Measure.nearest_only`; INVWER) and a run that does not report every
reference's distance, the unit is a candidate with its references
(:func:`collect_groups`): :meth:`Measure.group_values` searches the likely nearest
first and the others only up to its distance.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.measures.base import Measure, pair_key
from evaltrans_qt.engine.run.work import PairBatch, drop_identical

if TYPE_CHECKING:
    from evaltrans_qt.engine.run.corpus import SystemRows

#: Pair batches hold at least this many (and at most :data:`BATCH_MAX_SECONDS`) estimated
#: seconds; a pair costing more than a batch's bound is a task of its own.
BATCH_MIN_SECONDS = 0.05
BATCH_MAX_SECONDS = 1.0


def _has_pair_cost(cls: type[Measure]) -> bool:
    return cls.pair_cost is not Measure.pair_cost


def costly_measures(measures: Mapping[str, Measure]) -> list[str]:
    """Measures that override :meth:`Measure.pair_cost` (candidates for the pair phase)."""
    return [n for n, m in measures.items() if _has_pair_cost(type(m))]


def has_expensive_pairs(names: Iterable[str]) -> bool:
    """True if one of the measures ``names`` has a pair cost (a pair phase, e.g. INVWER)."""
    return any(_has_pair_cost(get_measure(n)) for n in names)


def collect_pairs(measure: Measure, name: str, rows: Sequence[SystemRows],
                  leave_one_out: frozenset[str]) -> dict[tuple[bytes, bytes], tuple]:
    """The distinct pairs with a non-zero cost that ``measure`` needs for ``rows``:
    ``{pair_key: (hyp, ref, cost)}`` -- the references
    :func:`~evaltrans_qt.engine.run.work.compute_chunk` gives it (leaving-one-out applied the
    same way, :func:`~evaltrans_qt.engine.run.work.drop_identical`)."""
    out: dict[tuple[bytes, bytes], tuple] = {}
    loo = name in leave_one_out
    for r in rows:
        for seg in r.segments:
            if loo:
                seg = drop_identical(seg)[0]
            for ref in seg.refs:
                key = pair_key(seg.hyp, ref)
                if key in out:
                    continue
                cost = float(measure.pair_cost(len(seg.hyp), len(ref)))
                if cost > 0:
                    out[key] = (seg.hyp, ref, cost)
    return out


def collect_groups(measure: Measure, name: str, rows: Sequence[SystemRows],
                   leave_one_out: frozenset[str]) -> list[list[tuple[tuple[bytes, bytes], tuple]]]:
    """:func:`collect_pairs` cut into groups of one candidate with its references: one group
    per distinct (candidate, reference set) of the segments, in the segments' reference
    order, ``[(pair_key, (hyp, ref, cost)), ...]``. A pair that two different sets share
    (the same candidate and reference in two segments with other references) is a group of
    its own, so a "farther" value always comes from the very references it is read with."""
    pairs = collect_pairs(measure, name, rows, leave_one_out)
    loo = name in leave_one_out
    sets: dict[tuple, list[tuple[bytes, bytes]]] = {}
    owners: dict[tuple[bytes, bytes], int] = {}
    for r in rows:
        for seg in r.segments:
            if loo:
                seg = drop_identical(seg)[0]
            keys = [k for k in dict.fromkeys(pair_key(seg.hyp, ref) for ref in seg.refs)
                    if k in pairs]
            sig = tuple(keys)
            if sig in sets or not keys:
                continue
            sets[sig] = keys
            for k in keys:
                owners[k] = owners.get(k, 0) + 1
    groups: list[list[tuple[tuple[bytes, bytes], tuple]]] = []
    alone: set[tuple[bytes, bytes]] = set()
    for keys in sets.values():
        mine = [k for k in keys if owners[k] == 1]
        if mine:
            groups.append([(k, pairs[k]) for k in mine])
        for k in keys:
            if owners[k] > 1 and k not in alone:
                alone.add(k)
                groups.append([(k, pairs[k])])
    return groups


def schedule_pairs(costs: Sequence[float], workers: int) -> list[list[int]]:
    """Group pair indices into tasks, most expensive task first (longest-processing-time
    list scheduling: a free worker takes the next task).

    The bound is ``total / (16 workers)`` within [:data:`BATCH_MIN_SECONDS`,
    :data:`BATCH_MAX_SECONDS`]: a pair at or above it is a task alone, cheaper
    pairs are packed (in decreasing cost) into tasks of at most the bound, so
    that the task overhead stays small and the last tasks are short.
    """
    order = sorted(range(len(costs)), key=lambda k: (-costs[k], k))
    total = float(sum(costs))
    bound = min(BATCH_MAX_SECONDS, max(BATCH_MIN_SECONDS, total / (16 * max(1, workers))))
    tasks: list[tuple[float, list[int]]] = []
    cur: list[int] = []
    cur_cost = 0.0
    for k in order:
        c = float(costs[k])
        if c >= bound:
            tasks.append((c, [k]))
            continue
        if cur and cur_cost + c > bound:
            tasks.append((cur_cost, cur))
            cur, cur_cost = [], 0.0
        cur.append(k)
        cur_cost += c
    if cur:
        tasks.append((cur_cost, cur))
    tasks.sort(key=lambda t: -t[0])      # stable: ties keep the order built above
    return [t[1] for t in tasks]


def pair_batches(fitted: Mapping[str, Measure], rows: Sequence[SystemRows],
                 leave_one_out: frozenset[str], workers: int, together: bool = True
                 ) -> tuple[list[PairBatch], list[list[tuple[bytes, bytes]]], dict[str, int]]:
    """The pair phase's tasks, in the order to run them: ``(batches, the pair keys of each
    batch, pairs per measure)``; no tasks if no measure has a non-zero pair cost.
    ``together``: a candidate's references form one unit (:func:`collect_groups`) for the
    measures with :attr:`Measure.nearest_only`; False when every reference's exact value is
    wanted (the report's per-reference distances)."""
    tasks: list[tuple[PairBatch, list[tuple[bytes, bytes]]]] = []
    counts: dict[str, int] = {}
    for name in costly_measures(fitted):
        m = fitted[name]
        if together and m.nearest_only:
            units = collect_groups(m, name, rows, leave_one_out)
        else:
            units = [[kv] for kv in collect_pairs(m, name, rows, leave_one_out).items()]
        if not units:
            continue
        counts[name] = sum(len(u) for u in units)
        costs = [m.group_cost([c for _, (_, _, c) in u]) if len(u) > 1 else u[0][1][2]
                 for u in units]
        for task in schedule_pairs(costs, workers):
            chosen = [units[t] for t in task]
            sizes = tuple(len(u) for u in chosen)
            tasks.append((PairBatch(name, tuple((h, r) for u in chosen for _, (h, r, _) in u),
                                    float(sum(costs[t] for t in task)),
                                    sizes if max(sizes) > 1 else ()),
                          [key for u in chosen for key, _ in u]))
    tasks.sort(key=lambda t: -t[0].cost)   # several measures: merged by cost (stable)
    return [t[0] for t in tasks], [t[1] for t in tasks], counts


def chunk_size(total: int, workers: int) -> int:
    """Rows per chunk: about four chunks per worker, within [64, 1024]."""
    return int(max(64, min(1024, -(-total // max(1, 4 * workers)))))


#: :class:`TimeLeft`: weight of the cost model's own pace, as a share of the pair phase's work.
PRIOR_SHARE = 0.2
#: :class:`TimeLeft`: the pair phase's estimate is at most this many times the cost model's
#: seconds left on the cores available -- the model's own error across machines (a machine 2x
#: slower than the model is still estimated within 2x, ``tests/engine/run/test_time_left.py``).
MODEL_SLACK = 2.0


def _load_average() -> float:
    """The machine's one-minute load average (runnable processes), 0 where unknown."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):        # not on Windows
        return 0.0


def _cpu_count() -> int:
    """CPUs this process may run on (its affinity where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def available_cores(workers: int, load: float, cpus: int) -> float:
    """Cores a run of ``workers`` busy workers gets on ``cpus`` CPUs with a load average of
    ``load`` (runnable processes, the run's own included): at most one CPU per worker and
    ``cpus`` in all, and on a machine loaded beyond its CPUs each runnable process's fair
    share ``cpus / load`` of one (the kernel's fair scheduling; ``load`` lags by about a
    minute, hence never below the run's own workers)."""
    own = float(max(1, min(workers, cpus)))
    runnable = max(float(load), own)
    return own * min(1.0, cpus / runnable)


def format_seconds(seconds: float) -> str:
    """``42 s``, ``17 min``, ``2.5 h``: a time left or spent as a progress line shows it (the
    command line's and the application's)."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class TimeLeft:
    """Seconds left of a run, from its :class:`~evaltrans_qt.engine.run.driver.Progress` events
    (the one estimate of the command line's progress bar and the application).

    * Pair phase (``cost_total > 0``): the cost model's seconds left
      (:meth:`Measure.pair_cost`) at the pace seen so far -- model-seconds of the finished
      batches per second since the phase began, with a prior of :data:`PRIOR_SHARE` of
      the work done at the model's own pace on the cores available
      (:func:`available_cores`: the workers, fewer on a busy machine). Pairs
      run most expensive first, so a count of pairs would call a run almost over after
      its longest pairs; the cost does not. The prior damps the first minutes, when a few
      long pairs set the pace: pairs of one length differ up to 50x in time (INVWER on
      WMT21 en-de, ``benchmarks/bench_scale.py``). Before any batch finishes, it is the
      model's own ``cost_total / cores``. The measured pace alone grows without bound
      while nothing finishes (long pairs, a busy machine), so the estimate is capped at
      :data:`MODEL_SLACK` times the model's seconds left on the cores available now.
    * Row phase: linear in the rows done since the phase began.

    ``None`` while there is nothing to go by. ``load`` (the one-minute load average) and
    ``cpus`` (CPUs this process may use) are read from the machine unless given.
    """

    def __init__(self, workers: int = 1, *, load: Callable[[], float] = _load_average,
                 cpus: int | None = None) -> None:
        self.workers = max(1, int(workers))
        self.load = load
        self.cpus = max(1, int(cpus)) if cpus is not None else _cpu_count()
        self._pairs_from: float | None = None            # when the pair phase began
        self._rows_from: tuple[float, int] | None = None  # (time, rows done) the row phase began

    def cores(self) -> float:
        """Cores the run gets now (:func:`available_cores` at the current load)."""
        return available_cores(self.workers, self.load(), self.cpus)

    def update(self, elapsed: float, done: int, total: int, cost_done: float = 0.0,
               cost_total: float = 0.0) -> float | None:
        """The estimate after an event seen ``elapsed`` seconds into the run."""
        if total <= 0:
            return None
        if cost_total > 0:                                   # the pair phase
            if self._pairs_from is None:
                self._pairs_from = elapsed
            if cost_done >= cost_total:                      # its last event: rows follow
                self._rows_from = (elapsed, done)
                return None
            cores = self.cores()
            model_left = (cost_total - cost_done) / cores
            # throughput in model-seconds per second: what was done, plus a prior of
            # PRIOR_SHARE of the work at the model's own pace (`cores` model-seconds a second)
            prior = PRIOR_SHARE * cost_total
            spent = elapsed - self._pairs_from + prior / cores
            if cost_done + prior <= 0 or spent <= 0:
                return model_left
            paced = (cost_total - cost_done) * spent / (cost_done + prior)
            return min(paced, MODEL_SLACK * model_left)
        if self._rows_from is None:
            self._rows_from = (elapsed, done)
        t0, d0 = self._rows_from
        if done >= total:
            return 0.0
        if done <= d0 or elapsed <= t0:
            return None
        return (elapsed - t0) * (total - done) / (done - d0)

    def see(self, elapsed: float, progress) -> float | None:
        """:meth:`update` with a :class:`~evaltrans_qt.engine.run.driver.Progress` event."""
        return self.update(elapsed, progress.done, progress.total,
                           getattr(progress, "cost_done", 0.0), getattr(progress, "cost_total", 0.0))
