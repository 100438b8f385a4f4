"""Start-up of the command line (issue 16): wall time of whole processes, as a shell loop
over many small files sees it.

* ``evaltrans --help`` (target: under 0.3 s);
* ``evaltrans score REF -i HYP -m bleu`` on a one-line file, and ``sacrebleu REF -i HYP
  -m bleu`` on the same (target: ours within 2x of sacreBLEU's).

Each command runs once to warm the file-system and numba caches, then ``--runs``
times (default 7), interleaved so load changes hit all commands alike; the median
is printed, with the ratio. The scripts of this interpreter's environment are used
(``evaltrans`` and ``sacrebleu`` beside ``sys.executable``), else ``python -m``.
Measure on an idle machine (``uptime`` load below the core count).

    python benchmarks/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REF = "The cat sat on the mat in the warm afternoon sun .\n"
HYP = "The cat is sitting on the mat in the warm sun .\n"


def _script(name: str, module: str) -> list[str]:
    path = Path(sys.executable).with_name(name)
    return [str(path)] if path.is_file() else [sys.executable, "-m", module]


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True)
    elapsed = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stderr.decode()}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command (default 7)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        ref, hyp = Path(tmp, "ref.txt"), Path(tmp, "hyp.txt")
        ref.write_text(REF, encoding="utf-8")
        hyp.write_text(HYP, encoding="utf-8")
        evaltrans = _script("evaltrans", "evaltrans_qt")
        commands = {
            "evaltrans --help": evaltrans + ["--help"],
            "evaltrans score -m bleu": evaltrans + ["score", str(ref), "-i", str(hyp), "-m", "bleu"],
            "sacrebleu -m bleu": _script("sacrebleu", "sacrebleu") + [str(ref), "-i", str(hyp),
                                                                     "-m", "bleu"],
        }
        for cmd in commands.values():                 # warm-up: caches, .pyc, numba
            _time(cmd)
        times: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(_time(cmd))
    med = {k: statistics.median(v) for k, v in times.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"median of {args.runs} runs after one warm-up; {os.cpu_count()} cores, "
          f"load {load:.2f}")
    for name, value in med.items():
        print(f"  {name:26} {value:6.3f} s   (min {min(times[name]):.3f}, "
              f"max {max(times[name]):.3f})")
    ratio = med["evaltrans score -m bleu"] / med["sacrebleu -m bleu"]
    print(f"  evaltrans score / sacrebleu: {ratio:.2f}x   (target <= 2x)")
    print(f"  evaltrans --help: {med['evaltrans --help']:.3f} s   (target < 0.3 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
