"""Benchmark: block-movement measures on WMT21 en-de (20 systems x 1002 segments x 3 references).

Compares, in one process and on the same 13a-tokenised data:

* our TER (compiled) with sacreBLEU's ``TER(case_sensitive=True)`` -- target >= 10x faster;
  sacreBLEU takes ~50 s per system, so by default it runs on the first
  ``--sacrebleu-systems 2`` systems and the ratio is per system on those;
* our CDER with our WER (both as batched measures over all systems) -- target <= 1.5x
  (issue 4). The CDER measure computes both CD directions (forward and backward);
  with unit costs it uses the bit-parallel kernel, and the table also times the
  measure with the float DP of Algorithm 4.2 instead (the kernel before the
  bit-parallel one), and the forward direction alone against WER's distances
  (both: packing + compiled kernel over all pairs), checking bit kernel == DP.

The machine may be shared: the load average is printed before and after.

Run: ``python benchmarks/bench_blocks.py [--data DIR] [--sacrebleu-systems N]``.
Results are also checked for equality with sacreBLEU on the systems it ran on.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import evaltrans_qt.engine.measures.cder as cder_measure
from evaltrans_qt.engine.kernels.cder import cder_distance_batch, cder_dp_batch
from evaltrans_qt.engine.kernels.packing import pack
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def read(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sacrebleu-systems", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    vocab = Vocabulary()
    tok_refs = [[" ".join(tokenize(t, "mteval")) for t in read(args.data / f"newstest2021.en-de.ref.{x}.de")]
                for x in "ACD"]
    systems = sorted(p.name for p in args.data.glob("newstest2021.en-de.hyp.*.de"))
    tok_hyps = {s: [" ".join(tokenize(t, "mteval")) for t in read(args.data / s)] for s in systems}
    ref_ids = [[vocab.encode(t.split()) for t in r] for r in tok_refs]
    segs = {s: [Segment(vocab.encode(h.split()), tuple(r[k] for r in ref_ids))
                for k, h in enumerate(hs)] for s, hs in tok_hyps.items()}
    all_segs = [x for s in systems for x in segs[s]]
    n_pairs = sum(len(x.refs) for x in all_segs)

    opts = EvalOptions()
    measures = {name: get(name)(opts) for name in ("ter", "cder", "wer")}
    for m in measures.values():
        m.fit([], vocab)
        m.corpus_stats(all_segs[:5])                      # compile / load the numba cache

    load_before = os.getloadavg()
    rows = []
    ours = {}
    for name, m in measures.items():
        stats = {}

        def run(m=m, stats=stats):
            for s in systems:
                stats[s] = m.corpus_stats(segs[s])
        t = best_of(run, 1 if name == "ter" else args.repeat)
        ours[name] = (t, stats)
        rows.append((f"ours {name.upper()} (measure)", len(systems), t))

    # the CDER measure with the float DP (Algorithm 4.2) in place of the bit-parallel kernel
    def dp_kernel(*a):
        return cder_dp_batch(*a)
    cder_m = measures["cder"]
    dp_stats = {}

    def run_dp():
        for s in systems:
            dp_stats[s] = cder_m.corpus_stats(segs[s])
    cder_measure.cder_distance_batch = dp_kernel
    try:
        t_dp_measure = best_of(run_dp, args.repeat)
    finally:
        cder_measure.cder_distance_batch = cder_distance_batch
    for s in systems:
        np.testing.assert_array_equal(dp_stats[s], ours["cder"][1][s], err_msg=s)
    rows.append(("ours CDER (measure, float DP)", len(systems), t_dp_measure))

    # distances alone: CDER forward vs Levenshtein over the same pairs
    hyps = [x.hyp for x in all_segs]
    refs = [r for x in all_segs for r in x.refs]
    pair_hyp = np.repeat(np.arange(len(all_segs)), [len(x.refs) for x in all_segs]).astype(np.int64)
    pair_ref = np.arange(len(refs), dtype=np.int64)
    dummy, so = np.zeros(1), np.zeros(len(refs) + 1, np.int64)
    wer = measures["wer"]

    def cder_forward(kernel=cder_distance_batch):
        a, ao = pack(hyps)
        b, bo = pack(refs)
        return kernel(a, ao.astype(np.int64), b, bo.astype(np.int64), pair_hyp,
                      pair_ref, False, True, True, 1.0, False, dummy, so)
    t_lev = best_of(lambda: wer.pair_distances(hyps, refs, pair_hyp), args.repeat)
    t_cd = best_of(cder_forward, args.repeat)
    t_cd_dp = best_of(lambda: cder_forward(cder_dp_batch), args.repeat)
    np.testing.assert_array_equal(cder_forward(), cder_forward(cder_dp_batch))
    rows.append(("ours WER pair distances", len(systems), t_lev))
    rows.append(("ours CDER pair distances (forward)", len(systems), t_cd))
    rows.append(("ours CDER pair dist. (fwd, float DP)", len(systems), t_cd_dp))
    load_after = os.getloadavg()

    # sacreBLEU TER on the first N systems, each timed right after ours on the same system
    # (the machine may be shared: back-to-back timing keeps the ratio fair)
    from sacrebleu.metrics import TER
    sb = TER(case_sensitive=True)
    n_sb = min(args.sacrebleu_systems, len(systems))
    t_sb = t_ours = 0.0
    ter_m = measures["ter"]
    for s in systems[:n_sb]:
        t = time.perf_counter()
        mine_stats = ter_m.corpus_stats(segs[s])
        t_ours += time.perf_counter() - t
        t = time.perf_counter()
        score = sb.corpus_score(tok_hyps[s], tok_refs).score
        t_sb += time.perf_counter() - t
        mine = 100 * ter_m.score(mine_stats.sum(axis=0)).value
        assert abs(mine - score) < 1e-9, (s, mine, score)
    if n_sb:
        rows.append((f"ours TER (same {n_sb} systems)", n_sb, t_ours))
        rows.append((f"sacreBLEU TER (first {n_sb} systems)", n_sb, t_sb))

    print(f"WMT21 en-de: {len(systems)} systems, {len(all_segs)} segments, {n_pairs} "
          f"candidate-reference pairs\n")
    print(f"{'what':<36} {'systems':>7} {'seconds':>9} {'s/system':>9}")
    for label, n, t in rows:
        print(f"{label:<36} {n:>7} {t:>9.3f} {t / n:>9.4f}")
    print()
    ter_ratio = t_sb / t_ours if n_sb else float("nan")
    cder_ratio = ours["cder"][0] / ours["wer"][0]
    kern_ratio = t_cd / t_lev
    print(f"TER speed-up over sacreBLEU (same systems):      {ter_ratio:8.1f}x   (target >= 10x)")
    print(f"CDER measure (both CD directions) / WER measure:{cder_ratio:8.2f}x   (target <= 1.5x)")
    print(f"  same with the float DP kernel:                 {t_dp_measure / ours['wer'][0]:8.2f}x")
    print(f"CDER forward / WER, pair distances:              {kern_ratio:8.2f}x")
    print(f"  same with the float DP kernel:                 {t_cd_dp / t_lev:8.2f}x")
    print("CDER bit-parallel kernel == float DP on all pairs and systems: yes")
    print("load average (1, 5, 15 min) before / after timing: "
          f"{' '.join(f'{x:.2f}' for x in load_before)} / "
          f"{' '.join(f'{x:.2f}' for x in load_after)}")
    print(f"sacreBLEU TER values reproduced on {n_sb} systems: yes")


if __name__ == "__main__":
    main()
