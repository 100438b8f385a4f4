"""Meta-evaluation as the WMT metrics task on WMT21 en-de with MQM (issue 15): the
correlation table of all our default measures plus one external score file, with
pairwise accuracy and acc*_eq, must take under 10 s once the measures are computed.

Steps (each timed): import the WMT folder with ``mqm.tsv`` as class ``mqm`` (as
``evaltrans import wmt DIR --scores DIR/mqm.tsv --score-class mqm``), write and import
a COMET-like segment score file (WMT submission format, seeded noise around the MQM
score; ``io/scores.py``), evaluate the default measures (``engine/run/driver.py``), then
the timed part: ``metrics_task.gather`` + ``metrics_table`` at segment level grouped by
item (pearson, kendall, pairwise-accuracy, acc-eq) and at system level (the same plus
soft pairwise accuracy), and a PERM-BOTH clustering at system level.

    python benchmarks/bench_metaeval.py [WMT_DIR] [--samples N]

``--task wmt24`` (or wmt23/wmt25) times instead a WMT metrics task's table
(``task_presets.task_table``: for WMT24 soft pairwise accuracy at system level and
acc*_eq grouped by item at segment level, and their average) over ``--systems`` (20)
systems x ``--metrics`` (20) metrics x ``--segments`` (1002, WMT21 en-de's count)
synthetic scores (seeded: human scores, metrics = human + noise of growing size);
target < 10 s. ``--resamples K`` adds the significance clusters (K resamples each).

    python benchmarks/bench_metaeval.py --task wmt24 [--systems 20] [--metrics 20]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--samples", type=int, default=1000, help="PERM-BOTH resamples")
    ap.add_argument("--task", choices=("wmt23", "wmt24", "wmt25"),
                    help="time a task table on synthetic scores instead (module doc)")
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--metrics", type=int, default=20)
    ap.add_argument("--segments", type=int, default=1002)
    ap.add_argument("--resamples", type=int, default=0, help="--task: cluster resamples")
    args = ap.parse_args()
    if args.task:
        return bench_task(args)
    d = Path(args.wmt_dir)
    if not (d / "mqm.tsv").is_file():
        print(f"no WMT21 data at {d}", file=sys.stderr)
        return 2
    from evaltrans_qt.engine.human.resolve import human_scores
    from evaltrans_qt.engine.measures.external import with_external
    from evaltrans_qt.engine.metaeval import metrics_task as mt
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.io import scores
    from evaltrans_qt.io.wmt import import_wmt

    t = time.perf_counter()
    db = import_wmt(d, d / "mqm.tsv", "mqm")
    print(f"import wmt + mqm          {time.perf_counter() - t:7.2f} s  "
          f"({len(db.sources)} sources, {len(db.systems())} systems)")
    hs = human_scores(db, "mqm")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "COMET-like.seg.score"
        with open(f, "w", encoding="utf-8") as out:
            for s in db.systems():
                for i in range(len(db.sources)):
                    v = hs.values.get((i, s, 0), -2.0) / 5 + rng.normal(0, 0.5)
                    out.write(f"COMET-like\ten-de\tnewstest2021\t{s}\t{i + 1}\t{v:.6f}\n")
        t = time.perf_counter()
        scores.import_scores(db, [f])
        print(f"import external scores    {time.perf_counter() - t:7.2f} s")
    t = time.perf_counter()
    run = evaluate(db, EvalOptions())
    print(f"evaluate default measures {time.perf_counter() - t:7.2f} s  ({', '.join(run.measures)})")

    t0 = time.perf_counter()
    run = with_external(run, db)
    data = mt.gather(db, run, "mqm")
    t_gather = time.perf_counter() - t0
    t = time.perf_counter()
    seg = mt.metrics_table(data, ["pearson", "kendall", "pairwise-accuracy", "acc-eq"],
                           level="seg", grouping="item")
    t_seg = time.perf_counter() - t
    t = time.perf_counter()
    sys_rows = mt.metrics_table(data, ["pearson", "kendall", "pairwise-accuracy", "acc-eq",
                                       "spa"], level="sys")
    t_sys = time.perf_counter() - t
    total = time.perf_counter() - t0
    t = time.perf_counter()
    sig = mt.metric_significance(data, "pearson", level="sys", samples=args.samples)
    t_sig = time.perf_counter() - t
    print(mt.format_metrics_table(seg, None))
    print(mt.format_metrics_table(sys_rows, None))
    print(mt.format_significance(sig))
    print(f"gather (run -> matrices)  {t_gather:7.2f} s")
    print(f"segment level, item       {t_seg:7.2f} s")
    print(f"system level incl. SPA    {t_sys:7.2f} s")
    print(f"correlation table total   {total:7.2f} s  ({len(data.metrics)} metrics; target < 10 s)")
    print(f"PERM-BOTH clusters        {t_sig:7.2f} s  ({args.samples} resamples)")
    return 0 if total < 10 else 1


def bench_task(args: argparse.Namespace) -> int:
    """``--task``: a task table over synthetic systems x metrics x segments (module doc)."""
    from evaltrans_qt.engine.metaeval.metrics_task import MetaEvalData
    from evaltrans_qt.engine.metaeval.task_presets import format_task_table, task_table
    rng = np.random.default_rng(0)
    S, M, N = args.systems, args.metrics, args.segments
    quality = rng.normal(0, 1, S)
    gold = np.round(quality[:, None] + rng.normal(0, 2, (S, N)), 1)   # MQM-like ties
    gold[rng.random((S, N)) < 0.05] = np.nan                          # unrated segments
    mats = {f"metric{k:02d}": gold + rng.normal(0, 0.3 + 0.2 * k, (S, N)) for k in range(M)}
    for v in mats.values():
        v[np.isnan(v)] = rng.normal(0, 1, int(np.isnan(v).sum()))
    data = MetaEvalData("mqm", [f"sys{k:02d}" for k in range(S)], [(j, 0) for j in range(N)],
                        gold, mats, np.nanmean(gold, axis=1),
                        {m: v.mean(axis=1) for m, v in mats.items()},
                        {m: False for m in mats}, "mtme")
    t = time.perf_counter()
    rows = task_table(data, args.task, samples=args.resamples)
    took = time.perf_counter() - t
    print(format_task_table(rows, args.task, "mqm", "mtme"))
    print(f"--task {args.task} table      {took:7.2f} s  ({S} systems x {M} metrics x {N} "
          f"segments{f', {args.resamples} resamples' if args.resamples else ''}; "
          "target < 10 s)")
    return 0 if took < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
