"""Benchmark our WER against jiwer on WMT21 en-de, reference A, 20 systems (issue 3).

Both start from the same 13a-tokenised sentences (tokenisation is not timed):
jiwer gets the space-joined tokens (its default transform splits on spaces),
we encode the tokens to ids and run :class:`WER` (best of N runs). Rows:

* jiwer ``wer()`` per system (rapidfuzz inside) -- the competitor;
* rapidfuzz ``Levenshtein.distance`` on token-id lists, one call per sentence;
* ours per system: encode + ``WER.corpus_stats`` + score (one compiled call each);
* ours, whole corpus: the 20 systems as one ``corpus_stats`` call;
* kernel only: ``lev_distance_batch`` on pre-packed ids.

``--all-measures`` also times the WER/PER family with references A, C, D,
one ``corpus_stats`` call per system (the granularity of the driver's chunks).

    python benchmarks/bench_wer.py [WMT_DIR] [--repeat N] [--all-measures]
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

import jiwer
import numpy as np
from rapidfuzz.distance import Levenshtein as RFLevenshtein

from evaltrans_qt.engine.kernels.levenshtein import lev_distance_batch
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures._distance import packed
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def _best(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--all-measures", action="store_true")
    args = ap.parse_args()
    folder = Path(args.wmt_dir)

    def tok(name: str) -> list[list[str]]:
        return [tokenize(line, "mteval") for line in _lines(folder / name)]

    ref_tok = tok("newstest2021.en-de.ref.A.de")
    hyp_files = sorted(p.name for p in folder.glob("newstest2021.en-de.hyp.*.de"))
    hyp_tok = {name: tok(name) for name in hyp_files}
    ref_str = [" ".join(t) for t in ref_tok]
    hyp_str = {n: [" ".join(t) for t in ts] for n, ts in hyp_tok.items()}
    n_sys, n_seg = len(hyp_files), len(ref_tok)

    # --- jiwer (competitor)
    def run_jiwer():
        return {n: jiwer.process_words(ref_str, hs) for n, hs in hyp_str.items()}

    # --- ours
    wer = get("wer")(EvalOptions())

    def run_ours():
        vocab = Vocabulary()
        wer.fit([], vocab)
        refs = [vocab.encode(t) for t in ref_tok]
        out = {}
        for n, ts in hyp_tok.items():
            segs = [Segment(vocab.encode(t), (r,)) for t, r in zip(ts, refs)]
            out[n] = wer.corpus_stats(segs).sum(axis=0)
        return out

    def run_ours_one_call():
        vocab = Vocabulary()
        refs = [vocab.encode(t) for t in ref_tok]
        segs = [Segment(vocab.encode(t), (r,)) for ts in hyp_tok.values() for t, r in zip(ts, refs)]
        stats = wer.corpus_stats(segs)
        return stats.reshape(n_sys, n_seg, 2).sum(axis=1)

    vocab = Vocabulary()
    refs_ids = [vocab.encode(t) for t in ref_tok]
    hyps_ids = [vocab.encode(t) for ts in hyp_tok.values() for t in ts]
    hf, ho = packed(hyps_ids)
    rf, ro = packed(refs_ids)
    pair_hyp = np.arange(len(hyps_ids), dtype=np.int64)
    pair_ref = np.tile(np.arange(n_seg, dtype=np.int64), n_sys)

    def run_kernel():
        return lev_distance_batch(hf, ho, rf, ro, pair_hyp, pair_ref)

    hyp_lists = [h.tolist() for h in hyps_ids]
    ref_lists = [r.tolist() for r in refs_ids] * n_sys

    def run_rapidfuzz():
        dist = RFLevenshtein.distance
        return [dist(h, r) for h, r in zip(hyp_lists, ref_lists)]

    run_ours_one_call()  # compile / load the numba cache outside the timings
    t_j, res_j = _best(run_jiwer, args.repeat)
    t_o, res_o = _best(run_ours, args.repeat)
    t_1, res_1 = _best(run_ours_one_call, args.repeat)
    t_k, res_k = _best(run_kernel, args.repeat)
    t_r, res_r = _best(run_rapidfuzz, args.repeat)

    # exactness: same edit counts everywhere
    for k, n in enumerate(hyp_str):
        edits = res_j[n].substitutions + res_j[n].deletions + res_j[n].insertions
        assert res_o[n][0] == edits == res_1[k][0], n
        assert res_o[n][1] == sum(len(t) for t in ref_tok)
    assert res_k.tolist() == res_r

    print(f"WER, reference A, {n_sys} systems x {n_seg} segments (13a tokens, best of {args.repeat})")
    print(f"{'method':<48}{'seconds':>10}{'vs jiwer':>10}")
    rows = [("jiwer.process_words per system", t_j),
            ("rapidfuzz Levenshtein.distance per sentence", t_r),
            ("ours: encode + WER.corpus_stats per system", t_o),
            ("ours: encode + one corpus_stats (20 systems)", t_1),
            ("ours: lev_distance_batch kernel only", t_k)]
    for name, t in rows:
        print(f"{name:<48}{t:>10.4f}{t / t_j:>10.3f}")
    print(f"jiwer / ours (per system) = {t_j / t_o:.1f}x")

    if args.all_measures:
        refs3 = [[vocab.encode(tokenize(x, "mteval")) for x in _lines(folder / f"newstest2021.en-de.ref.{r}.de")]
                 for r in "ACD"]
        per_system = [[Segment(vocab.encode(t), tuple(r[i] for r in refs3)) for i, t in enumerate(ts)]
                      for ts in hyp_tok.values()]
        print(f"\nWER/PER family, references A, C, D, {n_sys} systems, one call per system "
              "(as the driver's chunks)")
        print(f"{'measure':<48}{'seconds':>10}")
        for name, rule in (("wer", "none"), ("per", "none"), ("msder", "none"), ("nper", "none"),
                           ("sbper", "none"), ("wwer", "prefix"), ("wwer", "levenshtein"),
                           ("wper", "prefix"), ("wper", "levenshtein")):
            m = get(name)(EvalOptions(substitution_cost_rule=rule))
            m.fit([], vocab)
            m.corpus_stats(per_system[0][:10])
            t, _ = _best(lambda: [m.corpus_stats(segs) for segs in per_system],
                         max(1, args.repeat // 2))
            label = name if rule == "none" else f"{name} ({rule})"
            print(f"{label:<48}{t:>10.4f}")


if __name__ == "__main__":
    main()
