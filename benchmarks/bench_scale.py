"""Scaling you can plan with (issue 18): exact INVWER plus the default measures on WMT21
en-de (20 systems x 1002 segments x 3 references) -- measured here, simulated on 8 to 512
Dask workers.

1. **Task times, measured once.** INVWER per unit of the driver's pair phase -- a
   candidate with its references (:func:`collect_groups`: the likely nearest searched in
   full, the others up to its distance; ``compute_pairs``, in ``--jobs`` forked
   processes): by default every unit (the 20 systems' ~15k units take about 3 minutes on
   2 cores); with ``--per-bin N`` only the units of the measured slice (2), the ``--top``
   most expensive units of the whole corpus by the cost model, and a stratified random
   sample of the rest (N units from each factor-4 band of the model cost). A unit not
   timed gets model cost x the mean measured/model ratio of its band (the model,
   ``INVWER.group_cost`` of ``INVWER.pair_cost``, a fixed cost plus ``(I L)^2`` times a
   constant, ranks units by length; units of one length differ up to 50x, so the timed
   units keep their own times and the others the band's mean, which keeps sums right).
   The row
   phase (every default measure; INVWER there only reads the pair phase's values) is
   timed in-process per 64-row chunk over all 20 systems; a chunk of another size costs
   the sum of its rows. The Dask per-task overhead is measured on a LocalCluster of one
   worker process (``--overhead-tasks`` empty tasks through :class:`DaskExecutor`), the
   scatter of the fitted measures (with a pair cache as large as the corpus') on two.
2. **Measured wall time** of ``evaluate()`` (INVWER + defaults) on a slice
   (``--slice-systems`` systems x ``--slice-segments`` segments): the local pool of 2
   processes, a LocalCluster of 1 and of 2 worker processes (cluster start-up not
   counted, printed apart), each next to the simulation of that slice.
3. **Simulated wall time** of the driver's schedule (:func:`schedule_pairs` for that many
   workers, longest first; then the row chunks of :func:`chunk_size`; list scheduling: a
   free worker takes the next task; the row phase starts when the pair phase is done) on
   8, 32, 128 and 512 workers, each task + the measured Dask overhead, each phase + one
   scatter, for one system (``--system``), the 20 systems, and a campaign of 12 language
   pairs of that size (12 copies of the 20 systems' tasks in one schedule -- assumes the
   other pairs' sentence lengths are like en-de's).
4. **The progress estimate** (:class:`~evaltrans_qt.engine.run.schedule.TimeLeft`, what the
   command line shows) replayed on the simulated 2-worker run of the 20 systems:
   estimate / true time left after 10, 25 and 50 % of the wall time.

    python benchmarks/bench_scale.py [WMT_DIR] [--jobs 2] [--top 2] [--per-bin 0]
        [--slice-systems 3] [--slice-segments 60] [--no-measured]

Run it on a quiet machine (load < 2); it takes several minutes.
"""

from __future__ import annotations

import argparse
import heapq
import math
import multiprocessing as mp
import os
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.measures.base import pair_key
from evaltrans_qt.engine.measures.invwer import INVWER
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.corpus import build_corpus
from evaltrans_qt.engine.run.driver import default_measures, evaluate
from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor
from evaltrans_qt.engine.run.schedule import TimeLeft, chunk_size, collect_groups, schedule_pairs
from evaltrans_qt.engine.run.work import Chunk, PairBatch, compute, compute_pairs
from evaltrans_qt.io.plaintext import database_from_files

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"
REFS = ("A", "C", "D")
OPTIONS = EvalOptions(allow_transpositions=True)
WORKERS = (8, 32, 128, 512)
CAMPAIGN = 12
ROW_CHUNK = 64

_M: INVWER | None = None        # the fitted INVWER of the timing processes (fork)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _commit() -> str:
    try:
        return subprocess.run(["git", "log", "-1", "--format=%h"], capture_output=True,
                              text=True, cwd=Path(__file__).parents[1],
                              check=False).stdout.strip() or "?"
    except OSError:
        return "?"


def _systems(wmt: Path) -> list[str]:
    pre = "newstest2021.en-de.hyp."
    return sorted(p.name[len(pre):-3] for p in wmt.glob(pre + "*.de"))


def load_db(wmt: Path, systems: list[str], segments: int | None = None):
    """The WMT21 en-de database of ``systems`` (the first ``segments`` lines, if given)."""
    names = {"src": wmt / "newstest2021.en-de.src.en",
             **{f"ref{r}": wmt / f"newstest2021.en-de.ref.{r}.de" for r in REFS},
             **{s: wmt / f"newstest2021.en-de.hyp.{s}.de" for s in systems}}
    if segments is None:
        return database_from_files(names["src"], [names[f"ref{r}"] for r in REFS],
                                   {s: names[s] for s in systems})
    with tempfile.TemporaryDirectory() as tmp:
        cut = {}
        for k, p in names.items():
            lines = p.read_text(encoding="utf-8").splitlines()[:segments]
            cut[k] = Path(tmp) / p.name
            cut[k].write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        return database_from_files(cut["src"], [cut[f"ref{r}"] for r in REFS],
                                   {s: cut[s] for s in systems})


def fitted_measures(db, names: list[str]):
    """(rows, fitted measures) as the driver builds them."""
    vocab, rows, fit, _ = build_corpus(db, OPTIONS)
    fitted = {}
    for n in names:
        m = get_measure(n)(OPTIONS)
        m.fit(fit, vocab)
        fitted[n] = m
    return rows, fitted


# ----------------------------------------------------------------- 1. task times
def collect_units(inv: INVWER, rows) -> dict:
    """The pair phase's units as the driver makes them: ``{first pair key: (pairs, model
    cost)}`` (:func:`collect_groups`, :meth:`INVWER.group_cost`)."""
    out = {}
    for g in collect_groups(inv, "invwer", rows, frozenset()):
        costs = [c for _, (_, _, c) in g]
        out[g[0][0]] = (tuple((h, r) for _, (h, r, _) in g),
                        inv.group_cost(costs) if len(g) > 1 else costs[0])
    return out


def _batch(pairs) -> PairBatch:
    return PairBatch("invwer", pairs, 0.0, (len(pairs),) if len(pairs) > 1 else ())


def _time_unit(job):
    key, pairs = job
    t = time.perf_counter()
    compute_pairs({"invwer": _M}, _batch(pairs))
    return key, time.perf_counter() - t


def time_units(inv: INVWER, jobs: list, costs: dict, workers: int) -> dict:
    """Seconds per unit key (longest first over ``workers`` forked processes)."""
    global _M
    _M = inv
    x = np.asarray([1, 2, 3, 4], np.int32)
    compute_pairs({"invwer": inv}, _batch(((x, x[::-1].copy()), (x, x))))   # compiled first
    jobs = sorted(jobs, key=lambda j: -costs[j[0]])
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
        return dict(pool.map(_time_unit, jobs, chunksize=1))


def pick_sample(pairs: dict, fixed: set, top: int, per_bin: int, seed: int = 0) -> set:
    """``fixed`` + the ``top`` most expensive units + ``per_bin`` random units per band
    (every unit if ``per_bin`` is 0)."""
    if per_bin <= 0:
        return set(pairs)
    keys = sorted(pairs, key=lambda k: -pairs[k][-1])
    chosen = set(fixed) | set(keys[:top])
    rng = np.random.default_rng(seed)
    for band in _bands(pairs).values():
        rest = [k for k in band if k not in chosen]
        for i in rng.permutation(len(rest))[:per_bin]:
            chosen.add(rest[i])
    return chosen


def _bands(pairs: dict) -> dict[int, list]:
    out: dict[int, list] = {}
    for k, v in pairs.items():
        c = v[-1]
        out.setdefault(int(math.floor(math.log(max(c, 1e-12), 4))), []).append(k)
    return out


def predicted_times(pairs: dict, measured: dict) -> tuple[dict, dict]:
    """Measured seconds where timed, else model cost x the mean measured/model ratio of
    its band (the nearest band with a timed pair when a band has none). Returns (times,
    ratio per band)."""
    bands = _bands(pairs)
    ratio = {}
    for b, keys in bands.items():
        r = [measured[k] / pairs[k][-1] for k in keys if k in measured]
        if r:
            ratio[b] = statistics.fmean(r)
    known = sorted(ratio)
    times = {}
    for b, keys in bands.items():
        rb = ratio.get(b) or ratio[min(known, key=lambda x: abs(x - b))]
        for k in keys:
            times[k] = measured.get(k, pairs[k][-1] * rb)
    return times, ratio


def row_seconds(rows, fitted) -> dict[str, np.ndarray]:
    """Seconds per row of the row phase (measures without a pair cost), per system."""
    cheap = {n: m for n, m in fitted.items() if n != "invwer"}
    compute(cheap, Chunk(rows[0].system, 0, 8, tuple(rows[0].segments[:8])))   # warm
    out = {}
    for r in rows:
        per = np.zeros(len(r.segments))
        for a in range(0, len(r.segments), ROW_CHUNK):
            b = min(len(r.segments), a + ROW_CHUNK)
            t = time.perf_counter()
            compute(cheap, Chunk(r.system, a, b, tuple(r.segments[a:b])))
            per[a:b] = (time.perf_counter() - t) / (b - a)
        out[r.system] = per
    return out


def dask_costs(fitted_small, n_tasks: int, cache_size: int) -> tuple[float, float, float]:
    """(per-task overhead s on one worker process, scatter s of the measures with a pair cache
    of ``cache_size`` entries to 2 workers, its pickled MB)."""
    import pickle

    from evaltrans_qt.engine.run.executors.dask import DaskExecutor
    with DaskExecutor(workers=1) as ex:
        _ = ex.max_workers                                   # cluster up before the clock
        empty = [PairBatch("invwer", (), 0.0)] * n_tasks
        list(ex.run(fitted_small, empty[:20]))               # warm (imports on the worker)
        t = time.perf_counter()
        list(ex.run(fitted_small, empty))
        per_task = (time.perf_counter() - t) / n_tasks
    big = dict(fitted_small)
    inv = big["invwer"]
    inv.pair_cache = {(os.urandom(16), os.urandom(16)): (float(i), 10.0)
                      for i in range(cache_size)}
    mb = len(pickle.dumps(big, protocol=pickle.HIGHEST_PROTOCOL)) / 1e6
    with DaskExecutor(workers=2) as ex:
        client = ex.client
        client.wait_for_workers(2)
        t = time.perf_counter()
        [f] = client.scatter([big], broadcast=True, hash=False)
        scatter = time.perf_counter() - t
        f.release()
    inv.pair_cache = {}
    return per_task, scatter, mb


# ----------------------------------------------------------------- 3. simulation
def _list_schedule(tasks: list[float], workers: int, start: float, overhead: float
                   ) -> tuple[float, list[tuple[float, int]]]:
    """Makespan of ``tasks`` in order on ``workers`` (a free worker takes the next) and the
    (finish time, index) of each."""
    free = [start] * workers
    heapq.heapify(free)
    done = []
    for i, t in enumerate(tasks):
        s = heapq.heappop(free)
        heapq.heappush(free, s + t + overhead)
        done.append((s + t + overhead, i))
    return max(free) if tasks else start, done


def plan(pairs: list[tuple[float, float]], row_secs: list[np.ndarray], workers: int,
         copies: int = 1) -> tuple[list[float], list[float], list[float]]:
    """The driver's tasks for ``workers``: (pair task seconds, their model costs, row task
    seconds), ``copies`` times the corpus."""
    costs = [c for c, _ in pairs] * copies
    secs = [s for _, s in pairs] * copies
    groups = schedule_pairs(costs, workers)
    pair_tasks = [sum(secs[k] for k in g) for g in groups]
    pair_costs = [sum(costs[k] for k in g) for g in groups]
    total_rows = sum(len(r) for r in row_secs) * copies
    size = chunk_size(total_rows, workers)
    row_tasks = [float(r[a:a + size].sum()) for _ in range(copies) for r in row_secs
                 for a in range(0, len(r), size)]
    return pair_tasks, pair_costs, row_tasks


def simulate(pairs, row_secs, workers: int, overhead: float, scatter: float,
             copies: int = 1) -> tuple[float, float]:
    """(wall s, of which the pair phase) of the schedule on ``workers``."""
    pair_tasks, _, row_tasks = plan(pairs, row_secs, workers, copies)
    t_pairs, _ = _list_schedule(pair_tasks, workers, scatter if pair_tasks else 0.0, overhead)
    t_end, _ = _list_schedule(row_tasks, workers, t_pairs + scatter, overhead)
    return t_end, t_pairs


def estimate_check(pairs, row_secs, workers: int) -> list[tuple[float, float]]:
    """Replay :class:`TimeLeft` on the simulated run: (fraction of wall, estimate / truth)."""
    pair_tasks, pair_costs, row_tasks = plan(pairs, row_secs, workers)
    t_pairs, fin = _list_schedule(pair_tasks, workers, 0.0, 0.0)
    t_end, fin_rows = _list_schedule(row_tasks, workers, t_pairs, 0.0)
    total_rows = sum(len(r) for r in row_secs)
    est = TimeLeft(workers)
    c_total = sum(pair_costs)
    events = []
    est.update(0.0, 0, total_rows + len(pairs), 0.0, c_total)
    c_done = 0.0
    for t, i in sorted(fin):
        c_done += pair_costs[i]
        events.append((t, est.update(t, 0, total_rows + len(pairs), c_done, c_total)))
    rows_done = 0
    size = chunk_size(total_rows, workers)
    sizes = [min(size, len(r) - a) for r in row_secs for a in range(0, len(r), size)]
    for t, i in sorted(fin_rows):
        rows_done += sizes[i]
        events.append((t, est.update(t, len(pairs) + rows_done, total_rows + len(pairs))))
    out = []
    for frac in (0.10, 0.25, 0.50):
        at = [(t, e) for t, e in events if t >= frac * t_end and e is not None]
        if at:
            t, e = at[0]
            out.append((t / t_end, e / max(1e-9, t_end - t)))
    return out


# ----------------------------------------------------------------- 2. measured
def measured_slice(db, names: list[str], workers_list=(1, 2)) -> list[tuple[str, float, float]]:
    """(executor, wall s, start-up s) of evaluate() on ``db``."""
    from evaltrans_qt.engine.run.executors.dask import DaskExecutor
    out = []
    t = time.perf_counter()
    with LocalProcessExecutor(2, start_method="fork") as ex:
        evaluate(db, OPTIONS, names, executor=ex)
    out.append(("local pool, 2 processes", time.perf_counter() - t, 0.0))
    for w in workers_list:
        t0 = time.perf_counter()
        with DaskExecutor(workers=w) as ex:
            ex.client.wait_for_workers(w)
            up = time.perf_counter() - t0
            t = time.perf_counter()
            evaluate(db, OPTIONS, names, executor=ex)
            out.append((f"Dask LocalCluster, {w} worker(s)", time.perf_counter() - t, up))
    return out


def _fmt(s: float) -> str:
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.2f} h"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--system", default="Facebook-AI")
    ap.add_argument("--jobs", type=int, default=2, help="processes timing the pairs")
    ap.add_argument("--top", type=int, default=2)
    ap.add_argument("--per-bin", type=int, default=0,
                    help="time only N random units per cost band (0: time every unit)")
    ap.add_argument("--slice-systems", type=int, default=3)
    ap.add_argument("--slice-segments", type=int, default=60)
    ap.add_argument("--overhead-tasks", type=int, default=500)
    ap.add_argument("--no-measured", action="store_true", help="skip the measured slice runs")
    a = ap.parse_args()
    wmt = Path(a.wmt_dir)
    systems = _systems(wmt)
    print(f"WMT21 en-de: {len(systems)} systems; commit {_commit()}; {os.cpu_count()} cores; "
          f"load {_load()}")
    names = default_measures(OPTIONS)
    t = time.perf_counter()
    db = load_db(wmt, systems)
    rows, fitted = fitted_measures(db, names)
    inv = fitted["invwer"]
    pairs = collect_units(inv, rows)
    unit_of = {pair_key(h, r): k for k, (ps, _) in pairs.items() for h, r in ps}
    print(f"corpus: {sum(len(r.segments) for r in rows)} rows, {len(unit_of)} distinct INVWER "
          f"pairs in {len(pairs)} units (a candidate with its references), measures "
          f"{', '.join(names)} ({time.perf_counter() - t:.1f} s)")
    slice_systems = systems[:a.slice_systems]
    sdb = load_db(wmt, slice_systems, a.slice_segments)
    srows, sfitted = fitted_measures(sdb, names)
    spairs = collect_units(sfitted["invwer"], srows)
    # the slice's pairs under the full corpus' keys (the same token ids are not guaranteed)
    full_of = {}
    by_text = {}
    for r in rows:
        for seg in r.segments:
            for ref, rt in zip(seg.refs, seg.ref_texts):
                by_text[(seg.hyp_text, rt)] = (seg.hyp, ref)
    for r in srows:
        for seg in r.segments:
            for rt in seg.ref_texts:
                h, ref = by_text[(seg.hyp_text, rt)]
                full_of[unit_of[pair_key(h, ref)]] = True
    sample = pick_sample(pairs, set(full_of), a.top, a.per_bin)
    t = time.perf_counter()
    measured = time_units(inv, [(k, pairs[k][0]) for k in sample],
                          {k: pairs[k][1] for k in sample}, a.jobs)
    wall = time.perf_counter() - t
    times, ratio = predicted_times(pairs, measured)
    print(f"timed {len(measured)} units ({sum(measured.values()):.0f} s of pair time, "
          f"{wall:.0f} s wall on {a.jobs}); measured/model mean ratio per band: "
          + ", ".join(f"4^{b}: {r:.2f}" for b, r in sorted(ratio.items())))
    top = max(measured, key=measured.get)
    print(f"longest timed unit: a {len(pairs[top][0][0][0])}-word candidate, references of "
          + "/".join(str(len(r)) for _, r in pairs[top][0])
          + f" words, {measured[top]:.1f} s; predicted INVWER total for 20 systems "
          f"{sum(times.values()):.0f} s of pair time")
    t = time.perf_counter()
    row_secs = row_seconds(rows, fitted)
    print(f"row phase ({', '.join(n for n in names if n != 'invwer')}): "
          f"{sum(float(v.sum()) for v in row_secs.values()):.1f} s for all rows in one process "
          f"({time.perf_counter() - t:.1f} s wall)")
    small = {"invwer": inv}
    overhead, scatter, mb = dask_costs(small, a.overhead_tasks, len(unit_of))
    print(f"Dask: {1000 * overhead:.2f} ms per task (one worker process), scatter of the "
          f"measures with a {len(unit_of)}-pair cache ({mb:.1f} MB) to 2 workers {scatter:.2f} s")

    pair_list = [(pairs[k][1], times[k]) for k in pairs]
    # one system's units, as the full corpus' units holding its pairs
    one = {unit_of[k] for k in collect_units(inv, [r for r in rows if r.system == a.system])}
    one_list = [(pairs[k][1], times[k]) for k in one]
    one_rows = [row_secs[a.system]]
    all_rows = list(row_secs.values())

    if not a.no_measured:
        print(f"\n(a) measured, slice: {len(slice_systems)} systems x {a.slice_segments} "
              f"segments, {len(spairs)} INVWER units, measures {', '.join(names)}; load {_load()}")
        skeys = [k for k in pairs if k in full_of]
        s_list = [(pairs[k][1], measured[k]) for k in skeys]
        s_rows = [row_secs[s][:a.slice_segments] for s in slice_systems]
        print("| executor | measured wall | simulated | cluster start-up |\n|---|---|---|---|")
        for label, w, up in measured_slice(sdb, names):
            nw = 1 if "1 worker" in label else 2
            ov = 0.0 if label.startswith("local") else overhead
            sim, _ = simulate(s_list, s_rows, nw, ov, 0.0 if ov == 0 else scatter)
            print(f"| {label} | {w:.1f} s | {sim:.1f} s | {up:.1f} s |" if up else
                  f"| {label} | {w:.1f} s | {sim:.1f} s | - |")

    print(f"\n(b) simulated wall time (INVWER pair phase + row phase of {len(names)} measures; "
          f"+{1000 * overhead:.2f} ms per task, +{scatter:.2f} s per phase)")
    print(f"| workers | 1 system ({a.system}) | 20 systems | {CAMPAIGN} language pairs x 20 "
          f"systems |\n|---|---|---|---|")
    for w in (2, *WORKERS):
        ov, sc = (0.0, 0.0) if w == 2 else (overhead, scatter)
        cells = []
        for pl, rl, copies in ((one_list, one_rows, 1), (pair_list, all_rows, 1),
                               (pair_list, all_rows, CAMPAIGN)):
            wall_s, tp = simulate(pl, rl, w, ov, sc, copies)
            cells.append(f"{_fmt(wall_s)} (pairs {_fmt(tp)})")
        label = "2 (this machine, local pool)" if w == 2 else str(w)
        print(f"| {label} | " + " | ".join(cells) + " |")
    longest = max(times.values())
    print(f"lower bound at any size: the longest unit, {_fmt(longest)}; summed pair time "
          f"{_fmt(sum(times.values()))} (20 systems), row phase "
          f"{_fmt(sum(float(v.sum()) for v in all_rows))}")
    print("\n(c) progress estimate (TimeLeft) on the simulated 20-system run, 2 workers:")
    for frac, ratio_ in estimate_check(pair_list, all_rows, 2):
        print(f"after {100 * frac:.0f} % of the wall time: estimate / truth = {ratio_:.2f}")


if __name__ == "__main__":
    main()
