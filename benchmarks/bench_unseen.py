"""Benchmark leave-one-system-out on a segment database of WMT21 en-de size (issue 17):
1002 sources x 20 systems.

Imports the WMT folder with ``evaltrans import wmt DIR -o TMP/db.etdb.xml`` into a
temporary folder (not timed), extracts segments with trivial right-branching trees and
monotone alignments as benchmarks/bench_segranks.py does, and gives every sentence one
synthetic annotation (random ranks 1..N+1 per segment, seeded). Then times
``leave_one_system_out`` with exact and with closest matching over all 20 systems, and
the three SegRanks measures through the driver. Goal: each leave-one-system-out under
30 s. Nothing is written into the repository.

    python benchmarks/bench_unseen.py [WMT_DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_segranks import monotone, right_branching

from evaltrans_qt.engine.human.segranks.extract import candidate_tokens, extract_database
from evaltrans_qt.engine.human.segranks.model import (
    SegmentRanking,
    sentence_segments,
    source_tokens,
)
from evaltrans_qt.engine.human.unseen.annotated import annotated_segments
from evaltrans_qt.engine.human.unseen.matching import leave_one_system_out, total_outcomes
from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.io.segranks import alignments, trees

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt", nargs="?", default=str(DEFAULT))
    ap.add_argument("--measures", action="store_true", help="also time the three measures")
    args = ap.parse_args()
    if not Path(args.wmt).is_dir():
        print(f"no WMT folder at {args.wmt}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-unseen-") as tmp:
        d = Path(tmp)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "evaltrans_qt", "import", "wmt", args.wmt,
                        "-o", str(d / "db.etdb.xml")], check=True)
        db = load_database(d / "db.etdb.xml")
        systems = db.systems()
        src_tok = [source_tokens(s) for s in db.sources]
        (d / "src.ptb").write_text("\n".join(right_branching(x) for x in src_tok) + "\n",
                                   encoding="utf-8")
        for s in systems:
            cand = candidate_tokens(db, s, "none")
            (d / f"{s}.pharaoh").write_text(
                "".join(monotone(len(a), len(b or [])) + "\n" for a, b in zip(src_tok, cand)),
                encoding="ascii")
        tr = trees.read_ptb(d / "src.ptb", src_tok)
        al = {s: (alignments.read_pharaoh(d / f"{s}.pharaoh"), s) for s in systems}
        summ = extract_database(db, tr, al)
    rng = np.random.default_rng(17)
    for k, src in enumerate(db.sources):
        data = sentence_segments(src)
        if data is None or not data.segments:
            continue
        ranks = {i: tuple(int(x) for x in rng.integers(1, len(seg.candidates) + 2,
                                                         len(seg.candidates)))
                 for i, seg in enumerate(data.segments)}
        data.rankings.append(SegmentRanking("synthetic", ranks, f"task{k}"))
    segs = annotated_segments(db)
    n_cand = sum(len(s.candidates) for s in segs)
    print(f"set-up (import, extraction, rankings): {time.perf_counter() - t:.1f} s -- "
          f"{len(db.sources)} sources, {len(systems)} systems, {summ.segments} segments, "
          f"{len(segs)} ranked, {n_cand} candidate segments ({summ.projected} projected)")
    for method in ("exact", "closest"):
        t0 = time.perf_counter()
        res = leave_one_system_out(db, method)
        dt = time.perf_counter() - t0
        hr = np.mean([r.hit_rate for r in res])
        extra = ""
        if method == "closest":
            aed = np.mean([r.aed for r in res])
            oc = total_outcomes(res)
            n = sum(oc.values())
            extra = f", mean AED {aed:.2f}, " + ", ".join(f"{k} {v / n:.1%}" for k, v in oc.items())
        print(f"leave-one-system-out {method:<7}: {dt:6.2f} s for {len(res)} systems "
              f"({'OK' if dt < 30 else 'SLOW'}: goal 30 s); mean hit rate {hr:.3f}{extra}")
    if args.measures:
        from evaltrans_qt.engine.options import EvalOptions
        from evaltrans_qt.engine.run.driver import evaluate
        from evaltrans_qt.engine.run.executors.local import SerialExecutor
        for m in ("exactmatch", "penalizeunknown", "segranksbleu"):
            t0 = time.perf_counter()
            run = evaluate(db, EvalOptions(), [m], executor=SerialExecutor())
            print(f"{m:<16}: {time.perf_counter() - t0:6.2f} s for {len(run.systems)} systems")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
