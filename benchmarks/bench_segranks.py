"""Benchmark SegRanks extraction on the WMT21 en-de database (issue 13): 1002 sources x
20 systems.

Builds the database from the WMT folder (not timed), writes into a temporary folder a
right-branching Penn Treebank tree per source over its space-separated tokens and, per
system, trivially monotone Pharaoh alignments (source token i -> candidate token
round(i (J-1) / (I-1))), then times: reading the trees (matched to the sources),
reading the 20 alignment files, and Algorithm 1 + projection + merging
(``extract_database``). Goal: the three together under 10 s. With eflomal installed
(``evaltrans_qt[align]``) it also times eflomal over all 20 x 1002 sentence pairs.
Nothing is written into the repository.

    python benchmarks/bench_segranks.py [WMT_DIR] [--no-eflomal]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from evaltrans_qt.engine.human.segranks.extract import candidate_tokens, extract_database
from evaltrans_qt.engine.human.segranks.model import source_tokens
from evaltrans_qt.io.segranks import alignments, trees
from evaltrans_qt.io.wmt import import_wmt

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def _leaf(token: str) -> str:
    return token.replace("(", "-LRB-").replace(")", "-RRB-")


def right_branching(tokens: list[str]) -> str:
    """``(ROOT (X (W t0) (X (W t1) ... (W tn))))``."""
    inner = f"(W {_leaf(tokens[-1])})"
    for t in reversed(tokens[:-1]):
        inner = f"(X (W {_leaf(t)}) {inner})"
    return f"(ROOT {inner})"


def monotone(n_src: int, n_tgt: int) -> str:
    if not n_src or not n_tgt:
        return ""
    if n_src == 1:
        return "0-0"
    return " ".join(f"{i}-{round(i * (n_tgt - 1) / (n_src - 1))}" for i in range(n_src))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt", nargs="?", default=str(DEFAULT))
    ap.add_argument("--no-eflomal", action="store_true")
    args = ap.parse_args()
    if not Path(args.wmt).is_dir():
        print(f"no WMT folder at {args.wmt}", file=sys.stderr)
        return 2
    t = time.perf_counter()
    db = import_wmt(args.wmt)
    print(f"import WMT folder: {time.perf_counter() - t:.2f} s "
          f"({len(db.sources)} sources, {len(db.systems())} systems)")
    systems = db.systems()
    with tempfile.TemporaryDirectory(prefix="bench-segranks-") as tmp:
        d = Path(tmp)
        src_tok = [source_tokens(s) for s in db.sources]
        (d / "src.ptb").write_text("\n".join(right_branching(t) for t in src_tok) + "\n",
                                   encoding="utf-8")
        cand = {s: candidate_tokens(db, s, "none") for s in systems}
        for s in systems:
            (d / f"{s}.pharaoh").write_text(
                "".join(monotone(len(a), len(b or [])) + "\n" for a, b in zip(src_tok, cand[s])),
                encoding="ascii")
        t0 = time.perf_counter()
        tr = trees.read_ptb(d / "src.ptb", src_tok)
        t1 = time.perf_counter()
        al = {s: (alignments.read_pharaoh(d / f"{s}.pharaoh"), s) for s in systems}
        t2 = time.perf_counter()
        summ = extract_database(db, tr, al)
        t3 = time.perf_counter()
        print(f"read trees: {t1 - t0:.2f} s; read alignments: {t2 - t1:.2f} s; "
              f"Algorithm 1 + projection + merging: {t3 - t2:.2f} s; total {t3 - t0:.2f} s "
              f"(goal < 10 s)")
        print(f"  {summ.segments} segments, {summ.projected} candidate segments, "
              f"{summ.merged} after merging ({100 * summ.merged_ratio:.1f} %)")
        if not args.no_eflomal:
            if not alignments.eflomal_available():
                print("eflomal: not installed (pip install 'evaltrans_qt[align]')")
            else:
                src_all = [src_tok[k] for s in systems for k in range(len(src_tok))]
                tgt_all = [cand[s][k] or [] for s in systems for k in range(len(src_tok))]
                t = time.perf_counter()
                alignments.eflomal_align(src_all, tgt_all)
                print(f"eflomal over {len(src_all)} sentence pairs (forward + reverse + "
                      f"grow-diag-final-and): {time.perf_counter() - t:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
