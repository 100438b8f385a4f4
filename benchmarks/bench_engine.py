"""Benchmark: our full metric run vs sacreBLEU BLEU and jiwer WER, in one process.

Data: ../shared/data/wmt21-ende (20 systems x 1002 segments x refs A, C, D).

* ours: every registered measure enabled by default (issue 3: WER, PER, MSDER,
  m-PER, skip-bigram PER, BLEU, NIST, chrF ... whatever is registered), all 20
  systems, 3 references, from raw text (tokenisation included), local process
  pool (all cores) -- and WER alone (reference A) for the jiwer comparison;
* sacreBLEU: ``corpus_bleu`` for the same 20 systems with 3 references;
* jiwer: corpus WER against reference A on 13a-tokenised text (as in
  reference_values.json), against our WER on the same pre-tokenised text
  (``tokenization=none``); tokenisation not timed for either.

Usage: ``python benchmarks/bench_engine.py [--data DIR] [--jobs N] [--systems K]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "wmt21-ende"
#: The measures of issue 3 (the block-movement measures CDER/TER/... are issue 4).
ISSUE3 = ("wer", "per", "msder", "nper", "sbper", "bleu", "nist", "chrf")


def build_db(data: Path, n_systems: int | None, refs: str = "ACD"):
    """A database from the WMT files (io.wmt if present, else plain files)."""
    from evaltrans_qt.io.plaintext import database_from_files
    hyps = sorted(data.glob("newstest2021.en-de.hyp.*.de"))[:n_systems]
    names = {h.name.split(".")[-2]: h for h in hyps}
    return database_from_files(data / "newstest2021.en-de.src.en",
                               [data / f"newstest2021.en-de.ref.{r}.de" for r in refs],
                               names), names


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: cores)")
    ap.add_argument("--systems", type=int, default=None, help="only the first K systems")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"data not found: {args.data}", file=sys.stderr)
        return 1

    import jiwer
    import sacrebleu
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import default_measures, evaluate
    from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor

    opts = EvalOptions()
    measures = default_measures(opts)
    issue3 = [m for m in ISSUE3 if m in measures]
    db, hyp_files = build_db(args.data, args.systems)
    n_sys = len(hyp_files)
    read = lambda p: p.read_text(encoding="utf-8").rstrip("\n").split("\n")
    refs = [read(args.data / f"newstest2021.en-de.ref.{r}.de") for r in "ACD"]
    hyps = {n: read(p) for n, p in hyp_files.items()}
    jobs = args.jobs or os.cpu_count() or 1
    def ours(database, options, names, serial=False):
        """One run as the CLI does it: a fresh executor (pool start-up included)."""
        with (SerialExecutor() if serial or jobs == 1 else LocalProcessExecutor(jobs)) as ex:
            return evaluate(database, options, names, executor=ex)

    # warm-up: modules imported, numba kernels loaded -- on *other* sentences, so that no
    # tokenisation is cached for the timed runs (not timed)
    from evaltrans_qt.engine.data.database import Database
    warm = Database()
    for _i, src in enumerate(db.sources[:30]):
        s = warm.add_source(src.text + " #warm")
        for t in src.targets:
            warm.add_target(s, t.text + " #warm", t.system, reference=db.is_reference(t))
    evaluate(warm, opts, measures, executor=SerialExecutor())

    t_i3, run = timed(lambda: ours(db, opts, issue3))
    t_all, _ = timed(lambda: ours(db, opts, measures))
    t_sb, sb = timed(lambda: {n: sacrebleu.corpus_bleu(h, refs) for n, h in hyps.items()})

    # WER vs ref A: both tools start from the same 13a-tokenised text (split on spaces)
    tok = Tokenizer13a()
    ref_a = [tok(x) for x in refs[0]]
    hyp_tok = {n: [tok(x) for x in h] for n, h in hyps.items()}
    db_a = Database()
    db_a.ensure_reference_class()
    for i, r in enumerate(ref_a):
        src = db_a.add_source(f"segment {i + 1}")
        db_a.add_target(src, r, "ref-A", reference=True)
        for n, h in hyp_tok.items():
            db_a.add_target(src, h[i], n)
    pre = EvalOptions(tokenization="none")
    t_wer, run_wer = timed(lambda: ours(db_a, pre, ["wer"]))
    t_wer1, _ = timed(lambda: ours(db_a, pre, ["wer"], serial=True))
    t_jw, jw = timed(lambda: {n: jiwer.wer(ref_a, h) for n, h in hyp_tok.items()})

    worst_bleu = max(abs(100 * run.systems[n].scores["bleu"].value - sb[n].score)
                     for n in hyps) if "bleu" in run.measures else float("nan")
    worst_wer = max(abs(run_wer.systems[n].scores["wer"].value - jw[n]) for n in hyps)

    print(f"WMT21 en-de: {n_sys} systems x 1002 segments, 3 references; {jobs} worker(s); "
          f"all default measures: {', '.join(measures)}")
    print(f"{'task':<52}{'seconds':>10}{'ratio':>10}")
    print(f"{'ours: issue-3 measures, 3 refs (tokenising incl.)':<52}{t_i3:>10.2f}"
          f"{t_i3 / t_sb:>10.2f}  (vs sacreBLEU BLEU; target < 1)")
    print(f"  ({', '.join(issue3)})")
    print(f"{'ours: all default measures, 3 refs':<52}{t_all:>10.2f}{t_all / t_sb:>10.2f}"
          "  (target <= 0.25, issue 18)")
    print(f"{'sacreBLEU corpus_bleu, 3 refs':<52}{t_sb:>10.2f}{1.0:>10.2f}")
    print(f"{'ours: WER vs ref A (pool, pre-tokenised)':<52}{t_wer:>10.2f}"
          f"{t_wer / t_jw:>10.2f}  (vs jiwer; target <= 2)")
    print(f"{'ours: WER vs ref A (in-process, pre-tokenised)':<52}{t_wer1:>10.2f}"
          f"{t_wer1 / t_jw:>10.2f}")
    print(f"{'jiwer WER vs ref A (pre-tokenised)':<52}{t_jw:>10.2f}{1.0:>10.2f}")
    print(f"max |BLEU ours - sacreBLEU| = {worst_bleu:.2e} (BLEU points); "
          f"max |WER ours - jiwer| = {worst_wer:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
