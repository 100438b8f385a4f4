"""Time and peak memory of INVWER on long sentence pairs under the default memory budget
(issue 14: a 400-word pair must finish, exact or flagged, within 60 s and 2 GB).

Each pair runs in a fresh process (``INVWER.pair_value``, what ``evaltrans batch
--allow-transpositions`` computes per pair, plus ``align`` with its tree); the
table gives wall time, peak resident memory (``ru_maxrss``, including Python and
numba, ~150 MB), whether the value is exact, d_inv against the Levenshtein
distance, and the bytes the exact search's table alone would need. Pairs: random
words (vocabulary 50) and, when the WMT21 en-de data is present, real text -- the
first N words of consecutive Facebook-AI segments against reference A.

    python benchmarks/bench_memory.py [--words 100 200 400] [--budget MB] [WMT_DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"

CHILD = r"""
import json, resource, sys, time
import numpy as np
from evaltrans_qt.engine.kernels.invwer import lev_costs, table_bytes
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.invwer import INVWER
from evaltrans_qt.engine.options import EvalOptions
a = np.asarray(json.loads(sys.argv[1]), np.int32)
b = np.asarray(json.loads(sys.argv[2]), np.int32)
m = INVWER(EvalOptions(allow_transpositions=True, invwer_memory_budget=int(sys.argv[3])))
t = time.perf_counter()
d, exact = m.pair_value(a, b)
t_value = time.perf_counter() - t
t = time.perf_counter()
al = m.align(Segment(a, (b,)))
t_align = time.perf_counter() - t
lev = int(lev_costs(a, b, 1, 1, 1))
print(json.dumps({"d": d, "exact": bool(exact), "lev": lev, "value_s": t_value,
                  "align_s": t_align, "tree_ok": al.operation_cost() == d,
                  "table": table_bytes(len(a), len(b), lev),
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def random_pair(n: int, seed: int = 7) -> tuple[list[int], list[int]]:
    import numpy as np
    rng = np.random.default_rng(seed)
    return rng.integers(0, 50, n).tolist(), rng.integers(0, 50, n).tolist()


def wmt_pair(wmt: Path, n: int) -> tuple[list[int], list[int]] | None:
    from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
    hyp = wmt / "newstest2021.en-de.hyp.Facebook-AI.de"
    ref = wmt / "newstest2021.en-de.ref.A.de"
    if not hyp.exists() or not ref.exists():
        return None
    vocab = Vocabulary()
    h: list[int] = []
    r: list[int] = []
    for x, y in zip(hyp.read_text(encoding="utf-8").splitlines(),
                    ref.read_text(encoding="utf-8").splitlines()):
        h += vocab.encode(tokenize(x)).tolist()
        r += vocab.encode(tokenize(y)).tolist()
        if len(h) >= n and len(r) >= n:
            break
    return h[:n], r[:n]


def run(name: str, a: list[int], b: list[int], budget: int) -> None:
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(a), json.dumps(b), str(budget)],
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        print(f"{name:<16} FAILED: {out.stderr.strip().splitlines()[-1]}")
        return
    g = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{name:<16} {len(a):>4} x {len(b):<4} {g['value_s']:>8.2f} {g['align_s']:>8.2f} "
          f"{g['maxrss_mb']:>8.0f} {'exact' if g['exact'] else 'flagged':>8} {g['d']:>6.0f} "
          f"{g['lev']:>6} {g['table'] / (1 << 30):>10.2f} {'ok' if g['tree_ok'] else 'BAD'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--words", type=int, nargs="+", default=[100, 200, 400])
    ap.add_argument("--budget", type=int, default=0, help="invwer-memory-budget in MiB (0 = auto)")
    args = ap.parse_args()
    from evaltrans_qt.engine.kernels.budget import budget_bytes, describe
    print(f"budget: {describe(budget_bytes(args.budget))} per search")
    print(f"{'pair':<16} {'words':>11} {'value s':>8} {'align s':>8} {'peak MB':>8} {'result':>8} "
          f"{'d_inv':>6} {'lev':>6} {'table GiB':>10} tree")
    for n in args.words:
        run("random (V=50)", *random_pair(n), args.budget)
        p = wmt_pair(Path(args.wmt_dir), n)
        if p is not None:
            run("WMT21 FB-AI/A", *p, args.budget)


if __name__ == "__main__":
    main()
