"""Benchmark ``evaltrans score -m bleu chrf ter`` against ``sacrebleu -m bleu chrf ter`` on
WMT21 en-de (issue 19): 20 systems x 1002 segments x 3 references (A, C, D).

Both in this process, both from the files:

* ours: ``evaltrans score REF... -i HYP... -m bleu chrf ter -f text`` through
  :func:`evaltrans_qt.cli.main.main` (reading, tokenising, statistics, scores,
  the table), output discarded; compiled kernels are loaded by a warm-up run on
  a 20-line slice first (reported separately);
* sacreBLEU: what its ``main()`` does in multi-system mode -- read the files,
  ``BLEU/CHRF/TER(references=refs)`` (references cached), ``corpus_score`` per
  system -- with the 13a and tercom tokenisers' ``lru_cache`` cleared first.

sacreBLEU's TER takes about 45 s per system, so sacreBLEU runs on the first
``--systems N`` systems only (default 2) and its time for 20 systems is
*extrapolated* linearly (N -> 20, per metric), clearly labelled as such; ours
always runs on all 20 systems (and on the same N for a like-for-like ratio).
The issue's target: ours <= 0.2 x sacreBLEU for all three metrics together.

    python benchmarks/bench_score.py [WMT_DIR] [--systems N] [--repeat R]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"
REFS = ("A", "C", "D")


def _files(d: Path) -> tuple[list[str], list[str]]:
    refs = [str(d / f"newstest2021.en-de.ref.{r}.de") for r in REFS]
    hyps = sorted(str(p) for p in d.glob("newstest2021.en-de.hyp.*.de"))
    return refs, hyps


def _read(path: str) -> list[str]:
    with open(path, encoding="utf-8", newline="\n") as fh:
        return [line.rstrip() for line in fh]


def _clear_sacrebleu_caches() -> None:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer
    for fn in (Tokenizer13a.__call__, TercomTokenizer.__call__):
        clear = getattr(fn, "cache_clear", None)
        if clear:
            clear()


def run_ours(refs: list[str], hyps: list[str]) -> float:
    from evaltrans_qt.cli.main import main
    _clear_sacrebleu_caches()          # our TER uses sacreBLEU's tercom tokenizer too
    gc.collect()
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["score", *refs, "-i", *hyps, "-m", "bleu", "chrf", "ter", "-f", "text",
                   "-q"])
    dt = time.perf_counter() - t
    assert rc == 0
    return dt


def run_sacrebleu(refs: list[str], hyps: list[str]) -> dict[str, float]:
    """Seconds per metric (reading the files and caching references counted in each)."""
    from sacrebleu.metrics import BLEU, CHRF, TER
    out = {}
    for name, cls in (("bleu", BLEU), ("chrf", CHRF), ("ter", TER)):
        _clear_sacrebleu_caches()
        gc.collect()
        t = time.perf_counter()
        ref_lines = [_read(r) for r in refs]
        metric = cls(references=ref_lines)
        for h in hyps:
            metric.corpus_score(_read(h), None)
        out[name] = time.perf_counter() - t
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wmt_dir", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--systems", type=int, default=2,
                    help="systems sacreBLEU scores (its time is extrapolated to all)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of ours (best is kept)")
    args = ap.parse_args()
    refs, hyps = _files(args.wmt_dir)
    if not hyps:
        raise SystemExit(f"no WMT hypotheses in {args.wmt_dir}")
    n_all, n = len(hyps), max(1, min(args.systems, len(hyps)))
    print(f"WMT21 en-de: {n_all} systems x {len(_read(refs[0]))} segments x {len(refs)} refs; "
          f"load {os.getloadavg()[0]:.2f}")

    # warm-up: load the compiled kernels (numba cache) on a 20-line slice
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / "bench_score_warmup"
    tmp.mkdir(exist_ok=True)
    small = []
    for k, p in enumerate(refs + hyps[:2]):
        q = tmp / f"{k}.txt"
        q.write_text("\n".join(_read(p)[:20]) + "\n", encoding="utf-8")
        small.append(str(q))
    t = time.perf_counter()
    run_ours(small[:3], small[3:])
    print(f"ours warm-up (kernel loading, 20 lines):      {time.perf_counter() - t:8.2f} s")

    ours_all = min(run_ours(refs, hyps) for _ in range(args.repeat))
    ours_n = min(run_ours(refs, hyps[:n]) for _ in range(args.repeat))
    theirs = run_sacrebleu(refs, hyps[:n])
    total_n = sum(theirs.values())
    extrap = {k: v * n_all / n for k, v in theirs.items()}
    total_all = sum(extrap.values())
    print(f"ours, evaltrans score, {n_all} systems (measured):    {ours_all:8.2f} s")
    print(f"ours, evaltrans score, {n} system(s) (measured):     {ours_n:8.2f} s")
    print(f"sacreBLEU, {n} system(s) (measured): " + ", ".join(
        f"{k} {v:.2f} s" for k, v in theirs.items()) + f"; total {total_n:.2f} s")
    print(f"sacreBLEU, {n_all} systems (EXTRAPOLATED x{n_all / n:g} from {n}): " + ", ".join(
        f"{k} {v:.1f} s" for k, v in extrap.items()) + f"; total {total_all:.1f} s")
    print(f"ratio ours / sacreBLEU, {n} system(s), measured:          {ours_n / total_n:.4f}")
    print(f"ratio ours / sacreBLEU, {n_all} systems (sacreBLEU extrapolated): "
          f"{ours_all / total_all:.4f}  (target <= 0.2)")


if __name__ == "__main__":
    main()
