"""Benchmark the agreement of a WMT21-sized campaign result (engine/campaign/agreement.py).

A synthetic collected campaign: 20 systems x 1002 sources, every candidate judged by r = 2
of 10 annotators (20,040 candidates, 40,080 judgements): a 0-100 score (a DA/ESA-like
continuous class, integers) and an MQM error-span annotation with 0-3 spans each, the
second annotator a noisy copy of the first. Rows (wall time, best of ``--repeat``):

* ``campaign_agreement`` -- everything ``evaltrans campaign agreement`` computes: alpha of
  the score class and of the MQM penalties, kappas, the 45 pairs' Pearson/Kendall, span
  precision/recall/F1 per pair in six matching modes (target: < 5 s);
* of it: the reliability matrix and alpha of the score class alone; the span agreement
  alone;
* ``find_disagreements`` -- the adjudication work list (threshold 0.25).

    python benchmarks/bench_agreement.py [--repeat N] [--seed N]
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np

from evaltrans_qt.engine.campaign.adjudication import find_disagreements
from evaltrans_qt.engine.campaign.agreement import (
    alpha,
    campaign_agreement,
    class_reliability,
    span_agreement,
)
from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation

SYSTEMS, SOURCES, ANNOTATORS, R = 20, 1002, 10, 2
SEVERITIES = ("Minor", "Major")


def synthetic(seed: int = 0) -> Database:
    """The campaign result described in the module doc."""
    rng = np.random.default_rng(seed)
    db = Database([Levels("da", 0, continuous=True, minimum=0, maximum=100)])
    db.ensure_reference_class()
    judges = [f"annotator{k:02d}" for k in range(ANNOTATORS)]
    words = " ".join(f"w{k}" for k in range(20))                  # 20 words, 2-3 chars each
    for si in range(SOURCES):
        src = db.add_source(f"source sentence {si}", doc=f"d{si // 20}", seg=str(si + 1))
        for sy in range(SYSTEMS):
            t = db.add_target(src, f"{words} s{sy}", system=f"sys{sy:02d}")
            pair = rng.choice(ANNOTATORS, size=R, replace=False)
            truth = float(rng.integers(20, 95))
            base = []
            for _ in range(int(rng.integers(0, 4))):
                start = int(rng.integers(0, len(words) - 6))
                base.append(ErrorSpan(SEVERITIES[int(rng.integers(0, 2))], "Accuracy",
                                      start, start + int(rng.integers(2, 6))))
            for k, j in enumerate(pair):
                v = truth if k == 0 else float(np.clip(truth + rng.normal(0, 10), 0, 100))
                t.set_score("da", round(v), judges[j])
                errs = base if k == 0 else [e for e in base if rng.random() < 0.7]
                t.span_annotations.append(SpanAnnotation(judges[j], list(errs)))
    return db


def _best(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t = time.perf_counter()
    db = synthetic(args.seed)
    print(f"synthetic result: {SYSTEMS} systems x {SOURCES} sources, r={R} of {ANNOTATORS} "
          f"annotators, built in {time.perf_counter() - t:.1f} s")
    campaign_agreement(db)                       # warm-up: numba kernels, krippendorff import
    rows = [
        ("campaign_agreement (everything)", lambda: campaign_agreement(db)),
        ("  score class: matrix + alpha", lambda: alpha(class_reliability(db, "da"))),
        ("  MQM span agreement", lambda: span_agreement(db, "mqm")),
        ("find_disagreements (threshold 0.25)", lambda: find_disagreements(db, 0.25)),
    ]
    for name, fn in rows:
        sec, out = _best(fn, args.repeat)
        print(f"{name:<40} {sec:8.3f} s")
        if name.startswith("campaign_agreement"):
            rep = out
    da = next(c for c in rep.classes if c.name == "da")
    mqm = next(c for c in rep.classes if c.name == "mqm-penalty")
    print(f"alpha da {da.alpha:.3f} over {da.units} units, alpha mqm {mqm.alpha:.3f}, "
          f"{len(da.pairs)} pairs; span overlap F1 (mean over pairs) "
          f"{rep.spans[0].average()['overlap']['f1']:.3f}")


if __name__ == "__main__":
    main()
