"""Benchmark exact INVWER (and LJWER) on one WMT21 en-de system: 1002 segments x 3 references.

Per pair (candidate, reference) the exact d_inv is computed by the A* kernel
(:mod:`evaltrans_qt.engine.kernels.invwer`); pairs are spread over ``--workers``
processes (longest first). The table gives, per length bucket (max(I, L)
words): pairs, mean/max time of our exact d_inv, and -- for buckets where it is
feasible -- the time of the unpruned Algorithm 4.3 (the competitor, in the same
process, on up to ``--cyk-sample`` pairs of the bucket) with the speed-up.
With ``--ljwer`` it also times LJWER and reports the share of approximated
sentences (candidates longer than ``ljwer-exact-limit`` words or over the state
budget). ``--runs N`` times the N most expensive pairs (by the cost model) and every
20th of the others in this process with and without the kernel's run bounds (the
search before issue 18 item 3: the bag bounds alone), interleaved, and reports the
ratios -- same distances asserted.

Then the product path: ``evaluate()`` of the same system with only ``invwer``
(what ``evaltrans batch --allow-transpositions`` runs) on a
:class:`LocalProcessExecutor` with ``--workers`` processes; its wall time is
printed next to the kernel-level wall time and the summed pair time / workers
(the best any schedule can do), together with the wall time the old schedule
(consecutive row chunks, no pair phase) would take with the measured pair
times. ``--chunked`` also *runs* that old path (INVWER without a pair cost).

    python benchmarks/bench_invwer.py [WMT_DIR] [--system Facebook-AI] [--workers 2]
        [--max-len N] [--ljwer] [--cyk-sample 5] [--no-kernel] [--no-product] [--chunked]
        [--runs N]

``--max-len`` skips pairs longer than N words (listed as skipped), so a run
stays bounded while the longest pairs are investigated separately; the
product path then evaluates only the segments whose pairs are all kept.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from evaltrans_qt.engine.kernels import invwer as kernel
from evaltrans_qt.engine.kernels.invwer import inv_distance, inv_distance_cyk, inv_search
from evaltrans_qt.engine.kernels.ljwer import lj_search
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"
REFS = ("A", "C", "D")
BUCKETS = (10, 20, 30, 40, 50, 60, 80, 100, 1000)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _time_inv(job):
    k, x, y = job
    t = time.perf_counter()
    d = inv_distance(x, y)
    return k, d, time.perf_counter() - t


def _time_lj(job):
    k, x, y = job
    t = time.perf_counter()
    d, exact, *_ = lj_search(x, y, 25)
    return k, d, exact, time.perf_counter() - t


def _bucket(n: int) -> str:
    lo = 0
    for b in BUCKETS:
        if n < b:
            return f"{lo}-{b - 1}" if b < 1000 else f">={lo}"
        lo = b
    return f">={lo}"


def _warm() -> None:
    x = np.asarray([1, 2, 3, 4], np.int32)
    inv_distance(x, x[::-1].copy())
    inv_distance_cyk(x, x[::-1].copy(), 1, 1, 1, 1)
    lj_search(x, x[::-1].copy())


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _old_schedule(seg_times: list[float], workers: int) -> float:
    """Makespan of the old driver: rows in consecutive chunks (``_chunk_size``), chunks
    started in order on the first free worker."""
    from evaltrans_qt.engine.run.schedule import chunk_size as _chunk_size
    size = _chunk_size(len(seg_times), workers)
    free = [0.0] * workers
    for a in range(0, len(seg_times), size):
        k = free.index(min(free))
        free[k] += sum(seg_times[a:a + size])
    return max(free)


def _pair_schedule(jobs, times: dict, workers: int) -> float:
    """Makespan of the driver's pair phase (:func:`schedule_pairs` on INVWER's estimated
    costs) with the measured pair times."""
    from evaltrans_qt.engine.measures.invwer import INVWER
    from evaltrans_qt.engine.run.schedule import schedule_pairs
    m = INVWER()
    tasks = schedule_pairs([m.pair_cost(len(x), len(y)) for _, x, y in jobs], workers)
    free = [0.0] * workers
    for t in tasks:
        k = free.index(min(free))
        free[k] += sum(times[jobs[j][0]] for j in t)
    return max(free)


def product_path(wmt: Path, system: str, keep: list[int], workers: int, chunked: bool
                 ) -> tuple[float, float, int]:
    """evaluate() of ``system`` (segments ``keep``) with only INVWER: (wall s, pair phase s,
    pairs). ``chunked``: INVWER without a pair cost (the old row-chunk schedule)."""
    from evaltrans_qt.engine.measures import load_all
    from evaltrans_qt.engine.measures.invwer import INVWER
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor
    from evaltrans_qt.io.plaintext import database_from_files
    load_all()  # measure modules imported before the clock starts (as for the old path)
    names = ["src.en"] + [f"ref.{r}.de" for r in REFS] + [f"hyp.{system}.de"]
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for n in names:
            lines = _lines(wmt / f"newstest2021.en-de.{n}")
            files.append(Path(tmp) / n)
            files[-1].write_text("".join(lines[k] + "\n" for k in keep), encoding="utf-8")
        db = database_from_files(files[0], files[1:1 + len(REFS)], {system: files[-1]})
    marks: dict[str, float] = {}

    def progress(p) -> None:
        if "sentence pairs" in p.message:
            marks["pairs"] = time.perf_counter()
            marks.setdefault("n", p.total)
    saved = INVWER.pair_cost
    if chunked:
        INVWER.pair_cost = lambda self, i, l: 0.0
    try:
        t0 = time.perf_counter()
        # fork, as the command line (one run per process; after a first pool a helper
        # thread is still alive and the default would be forkserver)
        method = "fork" if "fork" in mp.get_all_start_methods() else None
        with LocalProcessExecutor(workers, start_method=method) as ex:
            evaluate(db, EvalOptions(allow_transpositions=True), ["invwer"], [system],
                     executor=ex, progress=progress)
        wall = time.perf_counter() - t0
    finally:
        INVWER.pair_cost = saved
    n_pairs = int(marks.get("n", 0)) - len(keep)
    return wall, marks.get("pairs", t0) - t0, max(0, n_pairs)


def _commit() -> str:
    try:
        return subprocess.run(["git", "log", "-1", "--format=%h", "--",
                               "evaltrans_qt/engine/kernels/invwer.py"],
                              capture_output=True, text=True, cwd=Path(__file__).parents[1],
                              check=False).stdout.strip() or "?"
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--system", default="Facebook-AI")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--max-len", type=int, default=0, help="skip pairs with max(I, L) above this")
    ap.add_argument("--ljwer", action="store_true")
    ap.add_argument("--cyk-sample", type=int, default=5)
    ap.add_argument("--no-kernel", action="store_true", help="skip the kernel-level table")
    ap.add_argument("--no-product", action="store_true", help="skip the product path")
    ap.add_argument("--chunked", action="store_true",
                    help="also run the product path with the old row-chunk schedule")
    ap.add_argument("--runs", type=int, default=0, metavar="N",
                    help="same-process timing with and without the run bounds: the N most "
                         "expensive pairs and every 20th other pair")
    a = ap.parse_args()
    wmt = Path(a.wmt_dir)
    vocab = Vocabulary()
    hyp = [vocab.encode(tokenize(s)) for s in _lines(wmt / f"newstest2021.en-de.hyp.{a.system}.de")]
    refs = [[vocab.encode(tokenize(s)) for s in _lines(wmt / f"newstest2021.en-de.ref.{r}.de")]
            for r in REFS]
    jobs, skipped = [], []
    for k in range(len(hyp)):
        for r in range(len(REFS)):
            x, y = hyp[k], refs[r][k]
            n = max(len(x), len(y))
            if a.max_len and n > a.max_len:
                skipped.append((k, r, len(x), len(y)))
            else:
                jobs.append(((k, r), x, y))
    jobs.sort(key=lambda j: -max(len(j[1]), len(j[2])) ** 2 * min(len(j[1]), len(j[2])) ** 2)
    keep = sorted({k for k in range(len(hyp))} - {k for k, *_ in skipped})
    print(f"system {a.system}: {len(hyp)} segments x {len(REFS)} references = "
          f"{len(hyp) * len(REFS)} pairs; {len(jobs)} timed, {len(skipped)} skipped "
          f"(max-len {a.max_len or 'none'}); {a.workers} worker processes; kernel commit "
          f"{_commit()}; load average {_load()}")
    if a.runs:
        runs_table(jobs, a.runs)
    kernel = kernel_table(a, hyp, refs, jobs, skipped, keep) if not a.no_kernel else None
    wall = None
    if not a.no_product:
        wall, pairs_s, n = product_path(Path(a.wmt_dir), a.system, keep, a.workers, False)
        print(f"\nproduct path evaluate(invwer), {len(keep)} segments, {n} distinct pairs, "
              f"{a.workers} workers: wall {wall:.1f} s (pair phase {pairs_s:.1f} s)")
        if kernel is not None:
            k_wall, k_sum, k_old = kernel
            print(f"{'':>8}kernel level: wall {k_wall:.1f} s, summed pair time {k_sum:.1f} s / "
                  f"{a.workers} = {k_sum / a.workers:.1f} s; old schedule (estimated) "
                  f"{k_old:.1f} s; product path / ideal = {wall / (k_sum / a.workers):.2f}")
    if a.chunked:
        wall_c, _, _ = product_path(Path(a.wmt_dir), a.system, keep, a.workers, True)
        print(f"old schedule (row chunks, no pair phase), measured: wall {wall_c:.1f} s"
              + (f" (old / new = {wall_c / wall:.2f})" if wall else ""))
    print(f"load average at the end {_load()}")


def _timed_search(x, y, runs: bool) -> tuple[int, int, float]:
    """(d_inv, items popped, CPU seconds) with or without the run bounds."""
    saved = kernel.RUNS_MIN_CELLS
    kernel.RUNS_MIN_CELLS = kernel.RUNS_MIN_CELLS if runs else 1 << 60
    try:
        t = time.process_time()
        d, _, _, popped = inv_search(x, y)
        return d, popped, time.process_time() - t
    finally:
        kernel.RUNS_MIN_CELLS = saved


def runs_table(jobs, n: int) -> None:
    """Same-process CPU time with and without the run bounds (``--runs``); ``jobs`` are
    sorted most expensive first."""
    _warm()
    chosen = jobs[:n] + jobs[n::20]
    rows = []
    for key, x, y in chosen:
        d0, p0, t0 = _timed_search(x, y, False)
        d1, p1, t1 = _timed_search(x, y, True)
        assert d0 == d1, key
        rows.append((key, len(x), len(y), d0, p0, p1, t0, t1))
    print(f"\nrun bounds, same process (CPU s): {len(rows)} pairs ({min(n, len(jobs))} most "
          f"expensive, every 20th other)")
    print(f"{'pair':>12} {'I x L':>9} {'d':>4} {'popped':>10} {'w/ runs':>10} {'s':>8} "
          f"{'w/ runs':>8} {'ratio':>6}")
    for (k, r), i, l, d, p0, p1, t0, t1 in rows[:n]:
        print(f"{k + 1:>8}/{REFS[r]:<3} {i:>4}x{l:<4} {d:4d} {p0:10d} {p1:10d} {t0:8.3f} "
              f"{t1:8.3f} {t0 / max(t1, 1e-9):6.2f}")
    for name, part in (("most expensive", rows[:n]), ("the others' sample", rows[n:])):
        s0 = sum(r[6] for r in part)
        s1 = sum(r[7] for r in part)
        if part:
            print(f"{name}: {len(part)} pairs, {s0:.2f} s -> {s1:.2f} s, "
                  f"ratio {s0 / max(s1, 1e-9):.2f}")


def kernel_table(a, hyp, refs, jobs, skipped, keep) -> tuple[float, float, float]:
    """Time every pair with the kernel on a plain process pool (longest first); returns
    (wall s, summed pair time s, estimated wall s of the old row-chunk schedule)."""
    _warm()
    times: dict = {}
    t0 = time.perf_counter()
    with ProcessPoolExecutor(a.workers, initializer=_warm) as ex:
        futs = [ex.submit(_time_inv, j) for j in jobs]
        for f in as_completed(futs):
            key, d, dt = f.result()
            times[key] = dt
    wall = time.perf_counter() - t0
    by: dict[str, list] = {}
    for (key, x, y) in jobs:
        by.setdefault(_bucket(max(len(x), len(y))), []).append((times[key], x, y))
    total = sum(times.values())
    seg = [sum(times.get((k, r), 0.0) for r in range(len(REFS))) for k in keep]
    old = _old_schedule(seg, a.workers)
    print(f"\nINVWER exact, kernel level: wall time {wall:.1f} s, summed pair time "
          f"{total:.1f} s (/ {a.workers} workers = {total / a.workers:.1f} s, longest pair "
          f"{max(times.values(), default=0):.1f} s); with these times the old row-chunk "
          f"schedule takes {old:.1f} s, the pair phase's schedule "
          f"{_pair_schedule(jobs, times, a.workers):.1f} s")
    print(f"{'max(I,L)':>10} {'pairs':>6} {'mean s':>9} {'max s':>8} {'sum s':>8} "
          f"{'Alg.4.3 s':>10} {'speed-up':>9}")
    order = [_bucket(b - 1) for b in BUCKETS]
    for name in order:
        rows = by.get(name)
        if not rows:
            continue
        ts = np.asarray([t for t, _, _ in rows])
        cyk = ""
        ratio = ""
        if a.cyk_sample and name in ("0-9", "10-19"):
            sample = rows[:a.cyk_sample]
            tc = 0.0
            ta = 0.0
            for _, x, y in sample:
                t = time.perf_counter()
                c = inv_distance_cyk(x, y, 1, 1, 1, 1)
                tc += time.perf_counter() - t
                t = time.perf_counter()
                assert inv_distance(x, y) == c
                ta += time.perf_counter() - t
            cyk = f"{tc / len(sample):10.4f}"
            ratio = f"{tc / max(ta, 1e-9):8.1f}x"
        print(f"{name:>10} {len(rows):6d} {ts.mean():9.4f} {ts.max():8.3f} {ts.sum():8.1f} "
              f"{cyk:>10} {ratio:>9}")
    if skipped:
        print(f"skipped {len(skipped)} pairs, e.g.", ", ".join(
            f"seg {k + 1}/ref {REFS[r]} ({i}x{l})" for k, r, i, l in skipped[:8]))
    if a.ljwer:
        t0 = time.perf_counter()
        approx = 0
        lj_times = []
        with ProcessPoolExecutor(a.workers, initializer=_warm) as ex:
            for f in as_completed([ex.submit(_time_lj, ((k, r), hyp[k], refs[r][k]))
                                   for k in range(len(hyp)) for r in range(len(REFS))]):
                _, _, exact, dt = f.result()
                approx += not exact
                lj_times.append(dt)
        lj_wall = time.perf_counter() - t0
        n = len(lj_times)
        print(f"\nLJWER: {n} pairs, wall {lj_wall:.1f} s, mean {np.mean(lj_times):.4f} s, max "
              f"{np.max(lj_times):.3f} s; approximated {approx} ({100.0 * approx / n:.1f} %)")
    return wall, total, old


if __name__ == "__main__":
    main()
