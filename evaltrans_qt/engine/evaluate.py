"""The evaluation driver: database -> tokenised corpus -> fitted measures -> chunked statistics.

Flow (SPEC §4.5, issue 3 item 4):

1. every distinct sentence is tokenised *once* with ``options.tokenization`` /
   ``options.case`` and mapped to int32 ids by one :class:`Vocabulary`;
2. per system, one :class:`Segment` per candidate (its source's references;
   a reference evaluated as a system is compared with the *other* references);
3. each measure is fitted once on the test set (one segment per source with
   references, ``hyp`` empty; NIST info weights, T:437-458);
4. *pair phase*, for measures with a non-zero :meth:`Measure.pair_cost` (INVWER:
   microseconds to a minute per sentence pair): every distinct (candidate,
   reference) pair they need -- after leaving-one-out, identical token arrays
   once -- is computed as separate :class:`PairBatch` tasks, most expensive
   first (:func:`schedule_pairs`: each expensive pair alone, cheap ones batched),
   so that the cores stay busy until the end; the values go to the measure's
   ``pair_cache``, and the row chunks below only read them;
5. statistics are computed in independent :class:`Chunk` s (system x row
   range) by an :class:`Executor` -- :class:`SerialExecutor` in-process,
   :class:`LocalProcessExecutor` on all cores (chosen automatically:
   serial below :data:`SERIAL_THRESHOLD` rows x measures). A distributed
   executor (Dask) implements :meth:`Executor.run` (and optionally
   :meth:`Executor.map`, used to tokenise large corpora in parallel) and
   nothing else changes; :func:`compute` is the pure unit of work;
6. per system, the rows are assembled and scored: ``score(stats.sum(0))``.

``leaving-one-out`` (T:1909): for the listed measures a reference whose tokens
equal the candidate's is dropped -- unless it is the only reference left, in
which case the segment keeps its references (nothing else to compare with).
Names are matched case-insensitively to measure names or report elements;
the thesis' ``mWER``/``mPER`` mean ``wer``/``per``.

Candidates whose source has no reference are skipped with a warning
(``Progress.warnings``, ``RunResult.meta["warnings"]``).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import pickle
import tempfile
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from evaltrans_qt.engine.database import Database, Source, Target
from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.measures import load_all
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment, pair_key
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.preprocess import Vocabulary, tokenize
from evaltrans_qt.engine.results import RunResult, SystemResult
from evaltrans_qt.errors import Cancelled, EvalTransError, OptionError

FLAG_PREFIX = "flag:"
#: Below this many (rows x measures) the driver runs in-process (no pool start-up).
SERIAL_THRESHOLD = 4000
_EMPTY = np.zeros(0, dtype=np.int32)


class CancelFlag(Protocol):
    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class Progress:
    """A progress event of :func:`iter_evaluate`: ``done`` of ``total`` units of work
    (the sentence pairs of the pair phase, then the candidate rows)."""

    done: int
    total: int
    message: str = ""
    warnings: tuple[str, ...] = ()


# --------------------------------------------------------------------------- chunks
@dataclass(frozen=True)
class Chunk:
    """Independent unit of work: rows ``[start, stop)`` of one system."""

    system: str
    start: int
    stop: int
    segments: tuple[Segment, ...]
    #: Measures for which a reference identical to the candidate is dropped.
    leave_one_out: frozenset[str] = frozenset()
    #: Also compute each reference's absolute distance (report detail).
    reference_distances: bool = False


@dataclass
class ChunkResult:
    stats: dict[str, np.ndarray]
    ref_distances: dict[str, np.ndarray] = field(default_factory=dict)


def _drop_identical(seg: Segment) -> tuple[Segment, list[int]]:
    """Leaving-one-out: drop references equal to the candidate (keep all if none would remain)."""
    keep = [r for r, ref in enumerate(seg.refs)
            if not (len(ref) == len(seg.hyp) and np.array_equal(ref, seg.hyp))]
    if not keep or len(keep) == len(seg.refs):
        return seg, list(range(len(seg.refs)))
    texts = tuple(seg.ref_texts[r] for r in keep) if seg.ref_texts else ()
    return Segment(seg.hyp, tuple(seg.refs[r] for r in keep), seg.hyp_text, texts), keep


def compute_chunk(measures: Mapping[str, Measure], chunk: Chunk) -> ChunkResult:
    """Statistics of one chunk for every measure (a pure function: runs anywhere)."""
    out = ChunkResult({})
    base = chunk.segments
    dropped: list[tuple[Segment, list[int]]] | None = None
    if chunk.leave_one_out:
        dropped = [_drop_identical(s) for s in base]
    n = len(base)
    max_refs = max((len(s.refs) for s in base), default=0)
    for name, m in measures.items():
        if dropped is not None and name in chunk.leave_one_out:
            segs = [d[0] for d in dropped]
            keeps = [d[1] for d in dropped]
        else:
            segs, keeps = list(base), None
        stats = np.asarray(m.corpus_stats(segs), dtype=np.float64)
        if stats.shape != (n, len(m.stat_names)):
            raise ValueError(f"measure {name}: corpus_stats returned shape {stats.shape}, "
                             f"expected {(n, len(m.stat_names))}")
        out.stats[name] = stats
        if chunk.reference_distances:
            rd = np.full((n, max_refs), np.nan)
            for i, seg in enumerate(segs):
                d = m.reference_distances(seg)
                if d is None:
                    continue
                cols = keeps[i] if keeps is not None else range(len(d))
                for c, v in zip(cols, d):
                    rd[i, c] = v
            if not np.all(np.isnan(rd)):
                out.ref_distances[name] = rd
    return out


# --------------------------------------------------------------------------- pairs
@dataclass(frozen=True)
class PairBatch:
    """Unit of work of the pair phase: ``pair_value`` of (candidate, reference) pairs of one
    measure; ``cost`` is their summed :meth:`Measure.pair_cost` (rough seconds)."""

    measure: str
    pairs: tuple[tuple[np.ndarray, np.ndarray], ...]
    cost: float = 0.0


def compute_pairs(measures: Mapping[str, Measure], batch: PairBatch) -> list:
    """The values of one pair batch (a pure function: runs anywhere)."""
    m = measures[batch.measure]
    return [m.pair_value(hyp, ref) for hyp, ref in batch.pairs]


def compute(measures: Mapping[str, Measure], work: Chunk | PairBatch) -> ChunkResult | list:
    """The pure unit of work of every executor: a row chunk or a pair batch."""
    if isinstance(work, PairBatch):
        return compute_pairs(measures, work)
    return compute_chunk(measures, work)


def _has_pair_cost(cls: type[Measure]) -> bool:
    return cls.pair_cost is not Measure.pair_cost


def costly_measures(measures: Mapping[str, Measure]) -> list[str]:
    """Measures that override :meth:`Measure.pair_cost` (candidates for the pair phase)."""
    return [n for n, m in measures.items() if _has_pair_cost(type(m))]


def collect_pairs(measure: Measure, name: str, rows: Sequence[SystemRows],
                  leave_one_out: frozenset[str]) -> dict[tuple[bytes, bytes], tuple]:
    """The distinct pairs with a non-zero cost that ``measure`` needs for ``rows``:
    ``{pair_key: (hyp, ref, cost)}`` -- the references :func:`compute_chunk` gives it
    (leaving-one-out applied the same way, :func:`_drop_identical`)."""
    out: dict[tuple[bytes, bytes], tuple] = {}
    loo = name in leave_one_out
    for r in rows:
        for seg in r.segments:
            if loo:
                seg = _drop_identical(seg)[0]
            for ref in seg.refs:
                key = pair_key(seg.hyp, ref)
                if key in out:
                    continue
                cost = float(measure.pair_cost(len(seg.hyp), len(ref)))
                if cost > 0:
                    out[key] = (seg.hyp, ref, cost)
    return out


#: Pair batches hold at least this many (and at most :data:`BATCH_MAX_SECONDS`) estimated
#: seconds; a pair costing more than a batch's bound is a task of its own.
BATCH_MIN_SECONDS = 0.05
BATCH_MAX_SECONDS = 1.0


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
                 leave_one_out: frozenset[str], workers: int
                 ) -> tuple[list[PairBatch], list[list[tuple[bytes, bytes]]], dict[str, int]]:
    """The pair phase's tasks, in the order to run them: ``(batches, the pair keys of each
    batch, pairs per measure)``; no tasks if no measure has a non-zero pair cost."""
    tasks: list[tuple[PairBatch, list[tuple[bytes, bytes]]]] = []
    counts: dict[str, int] = {}
    for name in costly_measures(fitted):
        pairs = list(collect_pairs(fitted[name], name, rows, leave_one_out).items())
        if not pairs:
            continue
        counts[name] = len(pairs)
        for group in schedule_pairs([c for _, (_, _, c) in pairs], workers):
            chosen = [pairs[g] for g in group]
            tasks.append((PairBatch(name, tuple((h, r) for _, (h, r, _) in chosen),
                                    sum(c for _, (_, _, c) in chosen)),
                          [key for key, _ in chosen]))
    tasks.sort(key=lambda t: -t[0].cost)   # several measures: merged by cost (stable)
    return [t[0] for t in tasks], [t[1] for t in tasks], counts


# --------------------------------------------------------------------------- executors
class Executor(ABC):
    """Runs units of work (:class:`Chunk`, :class:`PairBatch`) through :func:`compute`.
    Implement :meth:`run` to add a backend (e.g. Dask: scatter the measures once,
    ``client.submit(compute, measures, work)`` per item, at most one per worker in
    flight so that the items start in the given order)."""

    @abstractmethod
    def run(self, measures: Mapping[str, Measure], chunks: Sequence[Chunk | PairBatch],
            cancel: CancelFlag | None = None) -> Iterator[tuple[int, ChunkResult | list]]:
        """Yield ``(index, compute(measures, chunks[index]))`` as items finish, in any order.

        Items start in the given order (the pair phase lists the most expensive first),
        none starts once ``cancel.is_set()``, and :class:`Cancelled` is raised promptly.
        """

    def map(self, fn: Callable, items: Sequence, cancel: CancelFlag | None = None) -> Iterator:
        """``fn(item)`` for each item, results in order (used to tokenise in parallel).

        ``fn`` is a module-level function; items and results are picklable.
        """
        for item in items:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            yield fn(item)

    def close(self) -> None:
        """Release resources (pools, connections)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SerialExecutor(Executor):
    """In-process, one chunk after another (tests, small jobs, debugging)."""

    def run(self, measures, chunks, cancel=None):
        for i, chunk in enumerate(chunks):
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            yield i, compute(measures, chunk)


#: In a worker process: (run token, fitted measures) of the latest run.
_WORKER_CACHE: tuple[str, Mapping[str, Measure]] | None = None


def _worker_compute(token: str, blob_path: str, work: Chunk | PairBatch) -> ChunkResult | list:
    """Worker side: load the run's fitted measures once (from a pickle file), compute an item."""
    global _WORKER_CACHE
    if _WORKER_CACHE is None or _WORKER_CACHE[0] != token:
        with open(blob_path, "rb") as fh:
            _WORKER_CACHE = (token, pickle.load(fh))
    return compute(_WORKER_CACHE[1], work)


def _lower_priority(increment: int) -> None:
    """Worker initializer: run at a lower scheduling priority (``os.nice``)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(increment)


def default_start_method() -> str:
    """``fork`` from a single-threaded process (the command line: workers start at once,
    with everything imported); otherwise ``forkserver`` (the Qt application runs the
    engine in a worker thread, and ``fork`` of a threaded process can deadlock); ``spawn``
    where neither exists."""
    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1 \
            and threading.current_thread() is threading.main_thread():
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


class LocalProcessExecutor(Executor):
    """A local process pool (all cores by default), kept for the executor's lifetime.

    Per run, the fitted measures are pickled once to a temporary file that each
    worker loads once; each chunk carries only its segments. At most one item per
    worker is submitted at a time, so items start in the given order and none
    starts after a cancel (a running item cannot be interrupted).
    """

    def __init__(self, max_workers: int | None = None, poll_seconds: float = 0.05,
                 start_method: str | None = None, nice: int = 0) -> None:
        self.max_workers = max_workers or os.cpu_count() or 1
        self.poll_seconds = poll_seconds
        #: Scheduling-priority increment of the workers (the application uses 10 so
        #: that its event loop wins the CPU over a run that occupies every core).
        self.nice = nice
        #: None = :func:`default_start_method`, decided when the pool starts (in that thread).
        self.start_method = start_method
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            method = self.start_method or default_start_method()
            ctx = mp.get_context(method)
            if method == "forkserver":
                ctx.set_forkserver_preload(["evaltrans_qt.engine.evaluate"])
            self._pool = ProcessPoolExecutor(max_workers=self.max_workers, mp_context=ctx,
                                             initializer=_lower_priority if self.nice else None,
                                             initargs=(self.nice,) if self.nice else ())
        return self._pool

    def _gather(self, futures: Sequence[Future], cancel):
        """Yield the futures' results in order; cancel the pending ones on exit."""
        finished = False
        try:
            for fut in futures:
                while not wait([fut], timeout=self.poll_seconds).done:
                    if cancel is not None and cancel.is_set():
                        raise Cancelled()
                yield fut.result()
            finished = True
        finally:
            if not finished:
                for fut in futures:
                    fut.cancel()

    def run(self, measures, chunks, cancel=None):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        fd, blob_path = tempfile.mkstemp(prefix="evaltrans-measures-", suffix=".pkl")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(dict(measures), fh, protocol=pickle.HIGHEST_PROTOCOL)
            token = uuid.uuid4().hex
            yield from self._windowed(self._get_pool(), token, blob_path, chunks, cancel)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(blob_path)

    def _windowed(self, pool: ProcessPoolExecutor, token: str, blob_path: str,
                  items: Sequence, cancel):
        """Submit ``items`` in order, one per worker in flight; yield (index, result).

        A run that stops early (cancelled, or an item failed) while items are still
        running stops the workers (:meth:`_abandon_pool`) instead of letting them finish
        work nobody waits for -- an INVWER pair can take a minute.
        """
        running: dict[Future, int] = {}
        nxt = 0
        complete = False
        try:
            while nxt < len(items) or running:
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                while nxt < len(items) and len(running) < self.max_workers:
                    running[pool.submit(_worker_compute, token, blob_path, items[nxt])] = nxt
                    nxt += 1
                done, _ = wait(running, timeout=self.poll_seconds, return_when=FIRST_COMPLETED)
                finished = [(running.pop(fut), fut) for fut in done]
                if cancel is not None and cancel.is_set():
                    raise Cancelled()
                # refill before handing results out, so no worker waits for the consumer
                while nxt < len(items) and len(running) < self.max_workers:
                    running[pool.submit(_worker_compute, token, blob_path, items[nxt])] = nxt
                    nxt += 1
                for i, fut in sorted(finished):
                    yield i, fut.result()
            complete = True
        finally:
            busy = [fut for fut in running if not fut.cancel()]
            if not complete and any(not fut.done() for fut in busy):
                self._abandon_pool()

    def _abandon_pool(self) -> None:
        """Terminate the workers now and forget the pool; the next run starts a new one."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        for proc in procs:
            with contextlib.suppress(Exception):
                proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            with contextlib.suppress(Exception):
                proc.join(timeout=2.0)

    def map(self, fn, items, cancel=None):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if len(items) <= 1:
            yield from super().map(fn, items, cancel)
            return
        pool = self._get_pool()
        yield from self._gather([pool.submit(fn, item) for item in items], cancel)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def has_expensive_pairs(names: Iterable[str]) -> bool:
    """True if one of the measures ``names`` has a pair cost (a pair phase, e.g. INVWER)."""
    return any(_has_pair_cost(get_measure(n)) for n in names)


def choose_executor(rows: int, n_measures: int, expensive: bool = False) -> Executor:
    """Serial for tiny inputs (pool start-up would dominate), else all cores; always all
    cores for ``expensive`` measures (a non-zero pair cost, e.g. INVWER)."""
    if (os.cpu_count() or 1) < 2 or (rows * max(1, n_measures) <= SERIAL_THRESHOLD
                                     and not expensive):
        return SerialExecutor()
    return LocalProcessExecutor()


# --------------------------------------------------------------------------- corpus
@dataclass
class SystemRows:
    """The candidate rows of one system, before statistics."""

    system: str
    source_index: list[int] = field(default_factory=list)
    target_index: list[int] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    source_texts: list[str] = field(default_factory=list)


#: Tokenise in parallel (through the executor) from this many distinct sentences on.
PARALLEL_TOKENIZE_MIN = 4000


def tokenize_batch(job: tuple[Sequence[str], str, str]) -> list[list[str]]:
    """Tokenise a batch of sentences (module level: runs in worker processes)."""
    texts, method, case = job
    return [tokenize(t, method, case) for t in texts]


class _Tokens:
    """Tokenise each distinct text once (thesis ch. 5), ids from one vocabulary.

    :meth:`prefetch` tokenises many texts at once through an executor; ids are
    then assigned in the parent, in first-seen order, so they never depend on
    the executor.
    """

    def __init__(self, options: EvalOptions) -> None:
        self.vocab = Vocabulary()
        self.method = options.tokenization
        self.case = options.case
        self._cache: dict[str, np.ndarray] = {}

    def prefetch(self, texts: Iterable[str], executor: Executor | None,
                 cancel: CancelFlag | None = None) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        workers = getattr(executor, "max_workers", 1) if executor is not None else 1
        if workers < 2 or len(todo) < PARALLEL_TOKENIZE_MIN or self.method == "none":
            # (splitting on spaces is cheaper than shipping the texts to workers)
            for t in todo:
                self(t)
            return
        size = -(-len(todo) // (2 * workers))
        jobs = [(todo[a:a + size], self.method, self.case) for a in range(0, len(todo), size)]
        k = 0
        for toks in executor.map(tokenize_batch, jobs, cancel):
            for tk in toks:
                self._cache[todo[k]] = self.vocab.encode(tk)
                k += 1

    def __call__(self, text: str) -> np.ndarray:
        ids = self._cache.get(text)
        if ids is None:
            ids = self.vocab.encode(tokenize(text, self.method, self.case))
            self._cache[text] = ids
        return ids


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
    """Map the ``leaving-one-out`` list (e.g. ``BLEU, mWER``) to measure names of this run."""
    reg = load_all()
    by_key: dict[str, str] = {}
    for n, cls in reg.items():
        by_key[n.lower()] = n
        by_key[str(getattr(cls, "report_element", n)).lower()] = n
    out = set()
    for raw in options.leaving_one_out:
        key = raw.strip().lower()
        if key not in by_key and key.startswith("m") and key[1:] in by_key:
            key = key[1:]              # thesis: mWER = multi-reference WER
        if key not in by_key:
            raise OptionError(f"--leaving-one-out: unknown measure '{raw}' "
                              f"(known: {', '.join(sorted(reg))})")
        if by_key[key] in names:
            out.add(by_key[key])
    return frozenset(out)


def _system_targets(db: Database, system: str, ref_ids: set[str],
                    cand_ids: set[str]) -> Iterator[tuple[int, Source, int, Target, list[Target]]]:
    """(source index, source, target index, candidate, references) for one system.

    A system that only exists as a reference id (e.g. 'ref-A') is evaluated
    against the *other* references of each source.
    """
    as_reference = system not in cand_ids and system in ref_ids
    want = system or None
    for si, src in enumerate(db.sources):
        refs = [t for t in src.targets if db.is_reference(t)]
        for ti, t in enumerate(src.targets):
            if (t.system or None) != want:
                continue
            is_ref = any(t is r for r in refs)
            if is_ref != as_reference:
                continue
            yield si, src, ti, t, [r for r in refs if r is not t]


def build_corpus(db: Database, options: EvalOptions, systems: Sequence[str] | None = None,
                 cancel: CancelFlag | None = None, executor: Executor | None = None
                 ) -> tuple[Vocabulary, list[SystemRows], list[Segment], list[str]]:
    """Tokenise once and build per-system rows plus the fit segments (one per source).

    Returns ``(vocab, rows per system, fit segments, warnings)``. With a
    multi-worker ``executor`` large corpora are tokenised in parallel.
    """
    tok = _Tokens(options)
    cand_ids = set(db.systems())
    ref_ids = set(db.reference_ids())
    if systems is None:
        systems = db.systems()
    else:
        for s in systems:
            if s not in cand_ids and s not in ref_ids:
                raise OptionError(f"unknown system '{s}' (known: "
                                  f"{', '.join(sorted(cand_ids | ref_ids))})")
    if executor is not None:
        want = {s or None for s in systems}
        tok.prefetch((t.text for src in db.sources for t in src.targets
                      if db.is_reference(t) or (t.system or None) in want), executor, cancel)
    warnings: list[str] = []
    fit_segments: list[Segment] = []
    for src in db.sources:
        refs = db.references(src)
        if refs:
            fit_segments.append(Segment(_EMPTY, tuple(tok(r.text) for r in refs), "",
                                        tuple(r.text for r in refs)))
    out = []
    for system in systems:
        rows = SystemRows(system)
        skipped = 0
        for k, (si, src, ti, t, refs) in enumerate(_system_targets(db, system, ref_ids, cand_ids)):
            if cancel is not None and k % 256 == 0 and cancel.is_set():
                raise Cancelled()
            if not refs:
                skipped += 1
                continue
            rows.source_index.append(si)
            rows.target_index.append(ti)
            rows.source_texts.append(src.text)
            rows.segments.append(Segment(tok(t.text), tuple(tok(r.text) for r in refs), t.text,
                                         tuple(r.text for r in refs)))
        if skipped:
            warnings.append(f"system '{system or '(no id)'}': {skipped} candidate(s) skipped, "
                            "their source has no reference")
        out.append(rows)
    if not any(r.segments for r in out):
        raise EvalTransError("nothing to evaluate: no candidate of the selected systems has a "
                             "reference")
    return tok.vocab, out, fit_segments, warnings


def _chunk_size(total: int, workers: int) -> int:
    return int(max(64, min(1024, -(-total // max(1, 4 * workers)))))


# --------------------------------------------------------------------------- driver
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


def _run(db, options, names, loo, systems, executor, cancel, reference_distances, chunk_size,
         check) -> Iterator[Progress | SystemResult]:
    vocab, rows, fit_segments, warnings = build_corpus(db, options, systems, cancel, executor)
    total = sum(len(r.segments) for r in rows)
    check()
    yield Progress(0, total, f"fitting {len(names)} measure(s)", tuple(warnings))
    fitted: dict[str, Measure] = {}
    for name in names:
        m = get_measure(name)(options)
        m.fit(fit_segments, vocab)
        fitted[name] = m
        check()
    workers = getattr(executor, "max_workers", 1)
    batches, keys, counts = pair_batches(fitted, rows, loo, workers)
    n_pairs = sum(counts.values())
    if batches:
        yield from _pair_phase(fitted, batches, keys, counts, executor, cancel, total, check)
    size = chunk_size or _chunk_size(total, workers)
    chunks: list[Chunk] = []
    for r in rows:
        n = len(r.segments)
        for a in range(0, n, size):
            b = min(n, a + size)
            chunks.append(Chunk(r.system, a, b, tuple(r.segments[a:b]), loo, reference_distances))
    by_system = {r.system: r for r in rows}
    stats = {r.system: {m: np.zeros((len(r.segments), len(fitted[m].stat_names)))
                        for m in names} for r in rows}
    rdist: dict[str, dict[str, np.ndarray]] = {r.system: {} for r in rows}
    remaining = {r.system: 0 for r in rows}
    for c in chunks:
        remaining[c.system] += 1
    done = 0
    # Systems without rows finish immediately.
    for r in rows:
        if not r.segments:
            yield _system_result(r, fitted, stats[r.system], {})
    for idx, res in executor.run(fitted, chunks, cancel):
        c = chunks[idx]
        for m, arr in res.stats.items():
            stats[c.system][m][c.start:c.stop] = arr
        for m, arr in res.ref_distances.items():
            full = rdist[c.system].get(m)
            if full is None:
                width = max(len(s.refs) for s in by_system[c.system].segments)
                full = rdist[c.system][m] = np.full((len(by_system[c.system].segments),
                                                     width), np.nan)
            full[c.start:c.stop, :arr.shape[1]] = arr
        done += c.stop - c.start
        remaining[c.system] -= 1
        yield Progress(n_pairs + done, n_pairs + total,
                       f"{c.system or '(no id)'}: rows {c.start + 1}-{c.stop}")
        if remaining[c.system] == 0:
            yield _system_result(by_system[c.system], fitted, stats[c.system],
                                 rdist[c.system])
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
    yield Progress(0, total, " + ".join(f"{n.upper()}: {c} sentence pairs" for n, c in
                                        counts.items()))
    for idx, values in executor.run({n: fitted[n] for n in counts}, batches, cancel):
        name = batches[idx].measure
        caches[name].update(zip(keys[idx], values))
        got[name] += len(values)
        done += len(values)
        yield Progress(done, total, f"{name.upper()}: {got[name]} of {counts[name]} sentence pairs")
        check()
    for name, cache in caches.items():
        fitted[name].pair_cache = cache


def _system_result(rows: SystemRows, measures: Mapping[str, Measure],
                   stats: Mapping[str, np.ndarray], rdist: Mapping[str, np.ndarray]) -> SystemResult:
    scores = {}
    flags: dict[str, dict[str, np.ndarray]] = {}
    for name, m in measures.items():
        arr = stats[name]
        # a system whose candidates were all skipped has no rows: NaN, not a 0/0 error
        scores[name] = m.score(arr.sum(axis=0)) if len(arr) else MeasureScore(name, math.nan)
        for j, col in enumerate(m.stat_names):
            if col.startswith(FLAG_PREFIX):
                flags.setdefault(name, {})[col[len(FLAG_PREFIX):]] = arr[:, j] != 0
    return SystemResult(
        system=rows.system, segments=tuple(rows.source_index), scores=scores, stats=dict(stats),
        target_texts=tuple(s.hyp_text for s in rows.segments), flags=flags,
        target_indices=tuple(rows.target_index), source_texts=tuple(rows.source_texts),
        reference_texts=tuple(s.ref_texts for s in rows.segments), ref_distances=dict(rdist))


def evaluate(db: Database, options: EvalOptions, measures: Iterable[str] | None = None,
             systems: Sequence[str] | None = None, executor: Executor | None = None,
             cancel: CancelFlag | None = None,
             progress: Callable[[Progress], None] | None = None, *,
             reference_distances: bool = False, chunk_size: int | None = None) -> RunResult:
    """Run :func:`iter_evaluate` to the end and collect a :class:`RunResult`.

    ``systems`` keep the requested order (default: ``db.systems()``).
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
    order = list(systems) if systems is not None else db.systems()
    return RunResult(options=options, measures=tuple(names),
                     systems={s: got[s] for s in order if s in got},
                     database_path=getattr(db, "path", None),
                     meta={"warnings": tuple(warnings),
                           "seconds": round(time.perf_counter() - t0, 3)})


# --------------------------------------------------------------------------- plain files
def database_from_files(source: str | Path, references: Sequence[str | Path],
                        candidates: Mapping[str, str | Path], encoding: str = "utf-8") -> Database:
    """A database from line-aligned plain text files (SPEC §3.4), via ``io.plaintext``.

    References are named ``ref-1``, ``ref-2``...; candidates by the mapping's keys.
    Sources are identified by their line (``seg``, SPEC §3.1): a repeated source
    line keeps its own references, as in sacreBLEU, jiwer and Moses. Raises :class:`InputFormatError` naming the
    file and line for unreadable or misaligned files.
    """
    if not references:
        raise OptionError("at least one reference file is needed")
    from evaltrans_qt.io.plaintext import import_text  # io builds on engine; import lazily
    return import_text(source, list(references), list(candidates.items()), encoding=encoding)
