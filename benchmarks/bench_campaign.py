"""Benchmark bundling and collecting a WMT21-sized campaign (io/campaign_bundle.py,
io/campaign_collect.py) and its quality control (io/campaign_qc.py).

A synthetic database of 20 systems x 1002 sources (20,040 candidates of 12-20 words, one
reference), an ESA campaign with r = 2 over 10 annotators (about 4,000 items each) and the
QC plan bad-refs=0.1, injected=0.1, repeats=0.05. Rows (wall time, best of ``--repeat``):

* ``bundle`` -- ``evaltrans campaign bundle``: assignment, QC copies, ten bundles
  serialised, parsed back and written (target: < 10 s);
* ``collect`` -- ``evaltrans campaign collect`` of the ten bundles, every position judged
  (an ESA score with seconds and a span): each bundle checked against the campaign (in
  forked processes, one per core: this script is single-threaded, as the command line
  is), 80,160 judgements stored in a new result through the one commit path, the result
  read back in a forked process before it replaces the file (target: < 10 s; wall time
  counts, the CPU column is this process's only);
* ``qc`` -- ``evaltrans campaign qc``: reading the result and the ten reports (target:
  < 5 s; the first run includes importing ``scipy.stats`` for the Wilcoxon test).

Each row gives the wall time and the process's CPU time (``time.process_time``, the
better measure on a shared machine: the targets are for an idle one) and the load
average before the run.

    python benchmarks/bench_campaign.py [--repeat N]      # N: 3 by default
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from evaltrans_qt.engine.campaign.definition import parse_qc
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.schemes import template
from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation
from evaltrans_qt.io.campaign_bundle import bundle_items, open_bundle, write_bundles
from evaltrans_qt.io.campaign_collect import collect
from evaltrans_qt.io.campaign_file import create_campaign
from evaltrans_qt.io.campaign_qc import qc_report, read_result_file
from evaltrans_qt.io.etdb import save_database

SYSTEMS, SOURCES, ANNOTATORS, R = 20, 1002, 10, 2
WORDS = [f"word{k}" for k in range(300)]


def synthetic(seed: int = 0) -> Database:
    rng = random.Random(seed)
    db = Database([template("esa")])
    for si in range(SOURCES):
        src = db.add_source(" ".join(rng.choices(WORDS, k=rng.randint(12, 20))),
                            doc=f"d{si // 20}", seg=str(si + 1))
        db.add_target(src, " ".join(rng.choices(WORDS, k=15)), "ref-A", reference=True)
        for sy in range(SYSTEMS):
            db.add_target(src, " ".join(rng.choices(WORDS, k=rng.randint(12, 20))),
                          f"sys{sy:02d}")
    return db


def judge_all(path: Path, seed: int) -> None:
    """Every position of the bundle judged (not timed)."""
    db, info = open_bundle(path)
    rng = random.Random(seed)
    for it in bundle_items(db):
        t = db.sources[it.source_index].targets[it.target_index]
        s = t.set_score("esa", float(rng.randint(0, 100)), info.annotator)
        s.extra_attrs["seconds"] = f"{rng.uniform(5, 60):.1f}"
        t.span_annotations.append(SpanAnnotation(info.annotator, protocol="esa", errors=[
            ErrorSpan("Minor", "Accuracy", 0, min(5, len(t.text)))]))
    save_database(db, path)


def best(fn, repeat: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, load average before) of the fastest of ``repeat`` runs."""
    runs = []
    for _ in range(repeat):
        load = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        runs.append((time.perf_counter() - t0, time.process_time() - c0, load))
    return min(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each step; the fastest is shown (default 3: the build "
                    "machine is shared, and its speed varies from run to run)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_campaign_"))
    try:
        save_database(synthetic(), work / "db.etdb.xml")
        create_campaign(work / "db.etdb.xml", work / "c.etcampaign.json", protocol="esa",
                        annotators=[f"annotator{k:02d}" for k in range(ANNOTATORS)],
                        redundancy=R, batch=100,
                        qc=parse_qc("bad-refs=0.1,injected=0.1,repeats=0.05"))

        def bundle() -> None:
            shutil.rmtree(work / "bundles", ignore_errors=True)
            write_bundles(work / "c.etcampaign.json", work / "bundles")

        t_bundle = best(bundle, args.repeat)
        files = sorted((work / "bundles").glob("*.etdb.xml"))
        for k, f in enumerate(files):
            judge_all(f, k)

        def do_collect() -> None:
            (work / "result.etdb.xml").unlink(missing_ok=True)
            collect(work / "c.etcampaign.json", files, work / "result.etdb.xml")

        t_collect = best(do_collect, args.repeat)
        result = work / "result.etdb.xml"
        t_qc = best(lambda: qc_report(read_result_file(result), result), args.repeat)
        rep = qc_report(read_result_file(result), result)
        positions = sum(len(open_bundle(f)[0].sources) for f in files)
        print(f"{SYSTEMS} systems x {SOURCES} sources, r = {R}, {ANNOTATORS} annotators: "
              f"{positions} bundle positions, {len(rep.annotators)} QC reports")
        for name, (wall, cpu, load), target in (
                ("bundle", t_bundle, 10), ("collect", t_collect, 10), ("qc", t_qc, 5)):
            print(f"{name:<8} {wall:7.2f} s wall  {cpu:7.2f} s CPU  (load {load:.1f}; "
                  f"target < {target} s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
