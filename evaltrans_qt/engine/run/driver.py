"""The evaluation driver: database -> tokenised corpus -> fitted measures -> statistics.

Flow:

1. :func:`~evaltrans_qt.engine.run.corpus.build_corpus` tokenises every distinct
   sentence once and builds one row per candidate and system;
2. each measure is fitted once on the test set (one segment per source with
   references; NIST information weights, thesis eq. 3.8);
3. *pair phase*, for measures with a non-zero :meth:`Measure.pair_cost`
   (INVWER): the pairs they need are computed first, most expensive first
   (:mod:`evaltrans_qt.engine.run.schedule`), into the measure's ``pair_cache``; unless the
   run reports every reference's distance, a candidate's references are one unit and the
   farther ones are only proven farther (:meth:`Measure.group_values`);
4. statistics are computed in independent row chunks
   (:class:`~evaltrans_qt.engine.run.work.Chunk`) by an executor
   (:mod:`evaltrans_qt.engine.run.executors.local`, chosen automatically unless given);
5. per system, the rows are assembled and scored: ``score(stats.sum(0))``.

``leaving-one-out`` (thesis Table A.1): for the listed measures a reference
whose tokens equal the candidate's is dropped (:func:`~evaltrans_qt.engine.run.work.drop_identical`).
Names are matched case-insensitively to measure names, their aliases (the
thesis' ``mWER`` is ``wer``) or report elements.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.measures import load_all
from evaltrans_qt.engine.measures import resolve as resolve_measure
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, stat_flags
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.corpus import SystemRows, build_corpus
from evaltrans_qt.engine.run.executors.base import CancelFlag, Executor
from evaltrans_qt.engine.run.executors.local import choose_executor
from evaltrans_qt.engine.run.results import RunResult, SystemResult
from evaltrans_qt.engine.run.schedule import chunk_size as default_chunk_size
from evaltrans_qt.engine.run.schedule import has_expensive_pairs, pair_batches
from evaltrans_qt.engine.run.work import Chunk, PairBatch
from evaltrans_qt.errors import Cancelled, OptionError


@dataclass(frozen=True)
class Progress:
    """A progress event of :func:`iter_evaluate`: ``done`` of ``total`` units of work
    (the sentence pairs of the pair phase, then the candidate rows)."""

    done: int
    total: int
    message: str = ""
    warnings: tuple[str, ...] = ()
    #: Pair phase: the cost model's estimated seconds done / in all (:meth:`Measure.pair_cost`,
    #: summed over finished pair batches); 0 elsewhere. For
    #: :func:`~evaltrans_qt.engine.run.schedule.estimate_seconds_left`.
    cost_done: float = 0.0
    cost_total: float = 0.0


def default_measures(options: EvalOptions) -> list[str]:
    """Registered measures whose ``enabled(options)`` is true, in registry order."""
    return [name for name, cls in load_all().items() if cls.enabled(options)]


def _resolve_measures(measures: Iterable[str] | None, options: EvalOptions) -> list[str]:
    if measures is None:
        names = default_measures(options)
    else:
        names = []
        for m in measures:
            name = get_measure(m).name
            if name not in names:
                names.append(name)
    if not names:
        raise OptionError("no measure to compute (none registered or enabled)")
    return names


def leave_one_out_measures(options: EvalOptions, names: Sequence[str]) -> frozenset[str]:
    """Map the ``leaving-one-out`` list (e.g. ``BLEU, mWER``, thesis Table A.1) to measure
    names of this run: what :func:`~evaltrans_qt.engine.measures.resolve` accepts, or a
    report element."""
    reg = load_all()
    elements = {str(getattr(cls, "report_element", n)).lower(): n for n, cls in reg.items()}
    out = set()
    for raw in options.leaving_one_out:
        name = resolve_measure(raw) or elements.get(raw.strip().lower())
        if name is None:
            raise OptionError(f"--leaving-one-out: unknown measure '{raw}' "
                              f"(known: {', '.join(sorted(reg))})")
        if name in names:
            out.add(name)
    return frozenset(out)


def iter_evaluate(db: Database, options: EvalOptions, measures: Iterable[str] | None = None,
                  systems: Sequence[str] | None = None, executor: Executor | None = None,
                  cancel: CancelFlag | None = None, *, reference_distances: bool = False,
                  chunk_size: int | None = None) -> Iterator[Progress | SystemResult]:
    """Evaluate ``systems`` (default: all candidate systems) of ``db``.

    Yields :class:`Progress` events and each finished :class:`SystemResult`
    (in completion order). Raises :class:`Cancelled` promptly when
    ``cancel.is_set()``. ``reference_distances`` also fills
    ``SystemResult.ref_distances`` (for ``--sentences-in-detail`` reports).
    """
    def check() -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled()

    check()
    names = _resolve_measures(measures, options)
    loo = leave_one_out_measures(options, names)
    yield Progress(0, 0, "tokenising")
    own_executor = executor is None
    if executor is None:
        want = None if systems is None else {x or None for x in systems}
        n_rows = sum(1 for src in db.sources for t in src.targets
                     if (t.system or None) in want) if want is not None else \
            sum(1 for _ in db.iter_candidates())
        executor = choose_executor(n_rows, len(names), has_expensive_pairs(names))
    try:
        yield from _run(db, options, names, loo, systems, executor, cancel, reference_distances,
                        chunk_size, check)
    finally:
        if own_executor:
            executor.close()


def _shared_rows(rows: Sequence[SystemRows]) -> tuple[dict[str, list[int]],
                                                      dict[str, list[tuple[int, str, int]]]]:
    """Rows whose statistics another system's row already gives: ``(rows each system
    computes, {system: [(row, system it copies from, that system's row)]})``.

    A row's statistics are a function of its segment alone -- candidate and references,
    tokens and texts (a :class:`Segment` knows nothing else; measures that need more get
    it from the database by content, e.g. ``measures/_segranks.py``) -- and equal texts
    have equal tokens in a run. So a candidate text that an earlier system already has
    for the same reference texts is computed once (WMT21 en-de: 26 % of the rows of 20
    systems).
    """
    first: dict[tuple[str, tuple[str, ...]], tuple[str, int]] = {}
    own: dict[str, list[int]] = {}
    copied: dict[str, list[tuple[int, str, int]]] = {}
    for r in rows:
        mine = own[r.system] = []
        theirs = copied[r.system] = []
        for k, seg in enumerate(r.segments):
            key = (seg.hyp_text, seg.ref_texts)
            at = first.get(key)
            if at is None:
                first[key] = (r.system, k)
                mine.append(k)
            else:
                theirs.append((k, *at))
    return own, copied


def _run(db, options, names, loo, systems, executor, cancel, reference_distances, chunk_size,
         check) -> Iterator[Progress | SystemResult]:
    vocab, rows, fit_segments, warnings = build_corpus(db, options, systems, cancel, executor)
    own, copied = _shared_rows(rows)
    total = sum(len(v) for v in own.values())
    check()
    yield Progress(0, total, f"fitting {len(names)} measure(s)", tuple(warnings))
    fitted: dict[str, Measure] = {}
    for name in names:
        m = get_measure(name)(options)
        bind = getattr(m, "bind_database", None)  # SegRanks measures (measures/_segranks.py)
        if bind is not None:
            bind(db)
        m.fit(fit_segments, vocab)
        fitted[name] = m
        check()
    workers = getattr(executor, "max_workers", 1)
    batches, keys, counts = pair_batches(fitted, rows, loo, workers,
                                         together=not reference_distances)
    n_pairs = sum(counts.values())
    if batches:
        yield from _pair_phase(fitted, batches, keys, counts, executor, cancel, total, check)
    size = chunk_size or default_chunk_size(total, workers)
    chunks: list[Chunk] = []
    for r in rows:
        mine = own[r.system]
        for a in range(0, len(mine), size):
            b = min(len(mine), a + size)
            chunks.append(Chunk(r.system, a, b, tuple(r.segments[k] for k in mine[a:b]), loo,
                                reference_distances))
    by_system = {r.system: r for r in rows}
    stats = {r.system: {m: np.zeros((len(r.segments), len(fitted[m].stat_names)))
                        for m in names} for r in rows}
    rdist: dict[str, dict[str, np.ndarray]] = {r.system: {} for r in rows}
    remaining = {r.system: 0 for r in rows}
    for c in chunks:
        remaining[c.system] += 1
    # a system is finished when its own chunks and those of every system it copies from are
    sources = {r.system: {src for _, src, _ in copied[r.system]} - {r.system} for r in rows}
    dependants: dict[str, list[str]] = {r.system: [] for r in rows}
    for sysname, srcs in sources.items():
        for src in srcs:
            dependants[src].append(sysname)
    finished: set[str] = set()

    def rdist_of(sysname: str, m: str, width: int) -> np.ndarray:
        full = rdist[sysname].get(m)
        if full is None:
            width = max(width, max(len(x.refs) for x in by_system[sysname].segments))
            full = rdist[sysname][m] = np.full((len(by_system[sysname].segments), width), np.nan)
        return full

    def ready(sysname: str) -> bool:
        return (sysname not in finished and remaining[sysname] == 0
                and all(remaining[src] == 0 for src in sources[sysname]))

    def finish(sysname: str, done_now: int) -> Iterator[Progress | SystemResult]:
        finished.add(sysname)
        for k, src, j in copied[sysname]:
            for m in names:
                stats[sysname][m][k] = stats[src][m][j]
            for m, arr in rdist[src].items():
                rdist_of(sysname, m, arr.shape[1])[k, :arr.shape[1]] = arr[j]
        yield from _finished(_system_result(by_system[sysname], fitted, stats[sysname],
                                            rdist[sysname]), n_pairs + done_now, n_pairs + total)

    done = 0
    # Systems without rows to compute finish at once (or as soon as those they copy from).
    for r in rows:
        if ready(r.system):
            yield from finish(r.system, 0)
    for idx, res in executor.run(fitted, chunks, cancel):
        c = chunks[idx]
        at = np.asarray(own[c.system][c.start:c.stop], dtype=np.int64)
        for m, arr in res.stats.items():
            stats[c.system][m][at] = arr
        for m, arr in res.ref_distances.items():
            rdist_of(c.system, m, arr.shape[1])[at, :arr.shape[1]] = arr
        done += c.stop - c.start
        remaining[c.system] -= 1
        yield Progress(n_pairs + done, n_pairs + total,
                       f"{c.system or '(no id)'}: rows {c.start + 1}-{c.stop}")
        for sysname in (c.system, *dependants[c.system]):
            if ready(sysname):
                yield from finish(sysname, done)
        check()


def _pair_phase(fitted: dict[str, Measure], batches: Sequence[PairBatch],
                keys: Sequence[Sequence[tuple[bytes, bytes]]], counts: Mapping[str, int],
                executor: Executor, cancel, rows_total: int, check
                ) -> Iterator[Progress]:
    """Compute the expensive pairs (most expensive first) into each measure's ``pair_cache``."""
    n_pairs = sum(counts.values())
    total = n_pairs + rows_total
    caches: dict[str, dict] = {name: {} for name in counts}
    got = dict.fromkeys(counts, 0)
    done = 0
    cost_total = float(sum(b.cost for b in batches))
    cost_done = 0.0
    yield Progress(0, total, " + ".join(f"{n.upper()}: {c} sentence pairs" for n, c in
                                        counts.items()), cost_total=cost_total)
    for idx, values in executor.run({n: fitted[n] for n in counts}, batches, cancel):
        assert isinstance(values, list)            # a pair batch computes a list of values
        name = batches[idx].measure
        caches[name].update(zip(keys[idx], values))
        got[name] += len(values)
        done += len(values)
        cost_done += batches[idx].cost
        yield Progress(done, total, f"{name.upper()}: {got[name]} of {counts[name]} sentence pairs",
                       cost_done=cost_done, cost_total=cost_total)
        check()
    for name, cache in caches.items():
        fitted[name].pair_cache = cache


def _finished(result: SystemResult, done: int, total: int
              ) -> Iterator[Progress | SystemResult]:
    """A finished system: first a :class:`Progress` whose warnings name its approximated
    sentences (INVWER beyond its memory budget, LJWER beyond its exact limit; flagged
    per sentence as well), then the result."""
    from evaltrans_qt.engine.measures.approximation import approximation_warnings
    found = approximation_warnings(result)
    if found:
        yield Progress(done, total, f"{result.system or '(no id)'}: done", tuple(found))
    yield result


def _system_result(rows: SystemRows, measures: Mapping[str, Measure],
                   stats: Mapping[str, np.ndarray], rdist: Mapping[str, np.ndarray]) -> SystemResult:
    scores = {}
    flags: dict[str, dict[str, np.ndarray]] = {}
    for name, m in measures.items():
        arr = stats[name]
        # a system whose candidates were all skipped has no rows: NaN, not a 0/0 error
        scores[name] = m.score(arr.sum(axis=0)) if len(arr) else MeasureScore(name, math.nan)
        if found := stat_flags(m.stat_names, arr):
            flags[name] = found
    return SystemResult(
        system=rows.system, segments=tuple(rows.source_index), scores=scores, stats=dict(stats),
        target_texts=tuple(s.hyp_text for s in rows.segments), flags=flags,
        target_indices=tuple(rows.target_index), source_texts=tuple(rows.source_texts),
        reference_texts=tuple(s.ref_texts for s in rows.segments), ref_distances=dict(rdist))


def evaluate(db: Database, options: EvalOptions, measures: Iterable[str] | None = None,
             systems: Sequence[str] | None = None, executor: Executor | None = None,
             cancel: CancelFlag | None = None,
             progress: Callable[[Progress], None] | None = None, *,
             reference_distances: bool = False, chunk_size: int | None = None,
             on_system: Callable[[SystemResult], None] | None = None) -> RunResult:
    """Run :func:`iter_evaluate` to the end and collect a :class:`RunResult`.

    ``systems`` keep the requested order (default: ``db.systems()``); ``progress`` sees
    every :class:`Progress` event, ``on_system`` each system as soon as it is finished.
    """
    t0 = time.perf_counter()
    names = _resolve_measures(measures, options)
    got: dict[str, SystemResult] = {}
    warnings: list[str] = []
    for ev in iter_evaluate(db, options, names, systems, executor, cancel,
                            reference_distances=reference_distances, chunk_size=chunk_size):
        if isinstance(ev, Progress):
            warnings.extend(ev.warnings)
            if progress is not None:
                progress(ev)
        else:
            got[ev.system] = ev
            if on_system is not None:
                on_system(ev)
    order = list(systems) if systems is not None else db.systems()
    return RunResult(options=options, measures=tuple(names),
                     systems={s: got[s] for s in order if s in got},
                     database_path=getattr(db, "path", None),
                     meta={"warnings": tuple(warnings),
                           "seconds": round(time.perf_counter() - t0, 3)})
