"""Benchmark the copy the Campaign menu's Agreement makes on the UI thread before computing
on a worker (engine/data/judgement_copy.py; ui/controllers/campaign.py).

The copy is made as the window makes it: the database's objects frozen after it was
opened (``gc.freeze``, ui/controllers/results.py ``freeze_long_lived``), the collector
paused around the copy (io/gcpause.py) and the copy frozen before the pause ends. Rows:

* ``first`` -- the first copy after the database was read;
* ``copy`` -- best and median of the next ``--repeat`` copies (target: < 100 ms for a
  WMT-sized campaign result, e.g. the ``collect`` result of benchmarks/bench_campaign.py:
  21,042 targets, 40,080 judgements);
* ``copy, gc on`` -- the same without the pause and the freeze, for comparison;
* ``qc copy`` -- ``sources=False`` (what the QC report reads).

Wall time and the thread's CPU time (the better measure on a shared machine) and the load
average before the run.

    python benchmarks/bench_judgement_copy.py RESULT.etdb.xml [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from collections.abc import Callable

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.judgement_copy import judgement_copy
from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.io.gcpause import paused_gc


def as_the_window(db: Database) -> Database:
    with paused_gc():
        out = judgement_copy(db)
        gc.freeze()
    return out


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of ``fn()``, a collection it leaves pending included (it runs
    at the next tracked allocation)."""
    w, c = time.perf_counter(), time.thread_time()
    out = fn()
    [[]]        # noqa: B018 -- a tracked allocation: a pending collection runs here
    w, c = time.perf_counter() - w, time.thread_time() - c
    del out
    return w, c


def row(name: str, times: list[tuple[float, float]]) -> None:
    walls, cpus = [t[0] * 1e3 for t in times], [t[1] * 1e3 for t in times]
    print(f"{name:14s} wall best {min(walls):6.1f} ms  median {statistics.median(walls):6.1f} ms"
          f"   cpu best {min(cpus):6.1f} ms  median {statistics.median(cpus):6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("--repeat", type=int, default=11)
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    db = load_database(args.result)
    n = sum(len(s.targets) for s in db.sources)
    print(f"{len(db.sources)} sources, {n} targets, "
          f"{sum(len(t.scores) for s in db.sources for t in s.targets)} scores")
    gc.collect()
    gc.freeze()
    row("first", [timed(lambda: as_the_window(db))])
    row("copy", [timed(lambda: as_the_window(db)) for _ in range(args.repeat)])
    row("copy, gc on", [timed(lambda: judgement_copy(db)) for _ in range(args.repeat)])
    row("qc copy", [timed(lambda: judgement_copy(db, sources=False))
                    for _ in range(args.repeat)])


if __name__ == "__main__":
    main()
