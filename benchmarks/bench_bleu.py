"""Benchmark our BLEU and NIST (and optionally chrF) against sacreBLEU on WMT21 en-de (issue 3).

20 systems x 1002 segments x 3 references (A, C, D), all in this process.
Rows (wall time, best of ``--repeat`` runs; ratio = row / sacreBLEU corpus_bleu):

* sacreBLEU ``corpus_bleu(tokenize="13a")`` per system -- the competitor; the
  13a tokeniser's own lru_cache is cleared first, so it tokenises as in a fresh run;
* sacreBLEU ``BLEU(references=...)`` (references tokenised and counted once),
  then ``corpus_score`` per system;
* ours: 13a tokenisation + ids (once per distinct sentence, as the batch driver does);
* ours: BLEU ``corpus_stats`` + ``score`` per system (all three variants);
* ours: NIST ``fit`` once + ``corpus_stats`` + ``score`` per system;
* ours: tokenisation + BLEU + NIST (what a batch run spends on these two);
* with ``--chrf``: sacreBLEU ``corpus_chrf`` vs our chrF (same statistics).

    python benchmarks/bench_bleu.py [WMT_DIR] [--repeat N] [--chrf]
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.bleu import BLEU
from evaltrans_qt.engine.measures.chrf import CHRF
from evaltrans_qt.engine.measures.nist import NIST
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"
REFS = ("A", "C", "D")


def _best(fn, repeat: int, clear_tokenizer_cache: bool = False):
    best, out = float("inf"), None
    for _ in range(repeat):
        if clear_tokenizer_cache:
            Tokenizer13a.__call__.cache_clear()
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _encode(ref_texts, hyp_texts):
    vocab = Vocabulary()
    cache: dict[str, np.ndarray] = {}

    def enc(text: str) -> np.ndarray:
        ids = cache.get(text)
        if ids is None:
            ids = cache[text] = vocab.encode(tokenize(text, "mteval"))
        return ids

    refs = [[enc(t) for t in r] for r in ref_texts]
    hyps = {s: [enc(t) for t in lines] for s, lines in hyp_texts.items()}
    segs = {s: [Segment(h, tuple(r[i] for r in refs), hyp_texts[s][i],
                        tuple(r[i] for r in ref_texts)) for i, h in enumerate(hs)]
            for s, hs in hyps.items()}
    fit = [Segment(np.zeros(0, np.int32), tuple(r[i] for r in refs)) for i in range(len(refs[0]))]
    return vocab, segs, fit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--chrf", action="store_true", help="also time chrF (sacreBLEU's is slow)")
    args = ap.parse_args()
    d = Path(args.wmt_dir)
    ref_texts = [_lines(d / f"newstest2021.en-de.ref.{r}.de") for r in REFS]
    hyp_files = sorted(d.glob("newstest2021.en-de.hyp.*.de"))
    hyp_texts = {p.name: _lines(p) for p in hyp_files}
    n_seg = len(ref_texts[0])

    # warm-up: numba compilation / cache load is not part of the comparison
    v0, s0, f0 = _encode([r[:20] for r in ref_texts], {k: h[:20] for k, h in
                                                         list(hyp_texts.items())[:1]})
    nist0 = NIST()
    nist0.fit(f0, v0)
    for segs in s0.values():
        BLEU().corpus_stats(segs), nist0.corpus_stats(segs), CHRF().corpus_stats(segs)

    rows: list[tuple[str, float]] = []

    def sacre_corpus():
        return {s: sacrebleu.corpus_bleu(h, ref_texts, tokenize="13a").score
                for s, h in hyp_texts.items()}

    t_sacre, sacre_scores = _best(sacre_corpus, args.repeat, clear_tokenizer_cache=True)
    rows.append(("sacreBLEU corpus_bleu(13a), 20 systems", t_sacre))

    def sacre_cached():
        m = SacreBLEU(tokenize="13a", references=ref_texts)
        return {s: m.corpus_score(h, None).score for s, h in hyp_texts.items()}

    t, _ = _best(sacre_cached, args.repeat, clear_tokenizer_cache=True)
    rows.append(("sacreBLEU BLEU(references=...) cached refs", t))

    t_tok, (vocab, segs, fit) = _best(lambda: _encode(ref_texts, hyp_texts), args.repeat,
                                      clear_tokenizer_cache=True)
    rows.append(("ours: 13a tokenisation + ids (once)", t_tok))

    bleu = BLEU()

    def ours_bleu():
        return {s: bleu.score(bleu.corpus_stats(sg).sum(axis=0)) for s, sg in segs.items()}

    t_bleu, our_scores = _best(ours_bleu, args.repeat)
    rows.append(("ours: BLEU, BLEU-S, BLEU-S' (from ids)", t_bleu))

    def ours_nist():
        m = NIST()
        m.fit(fit, vocab)
        return {s: m.score(m.corpus_stats(sg).sum(axis=0)) for s, sg in segs.items()}

    t_nist, _ = _best(ours_nist, args.repeat)
    rows.append(("ours: NIST incl. fit (from ids)", t_nist))
    rows.append(("ours: tokenisation + BLEU + NIST", t_tok + t_bleu + t_nist))

    worst = max(abs(100 * our_scores[s].value - sacre_scores[s]) for s in segs)
    if args.chrf:
        t_sc, sc = _best(lambda: {s: sacrebleu.corpus_chrf(h, ref_texts).score
                                  for s, h in hyp_texts.items()}, 1)
        rows.append(("sacreBLEU corpus_chrf, 20 systems", t_sc))
        chrf = CHRF()
        t_c, oc = _best(lambda: {s: chrf.score(chrf.corpus_stats(sg).sum(axis=0)).value
                                 for s, sg in segs.items()}, args.repeat)
        rows.append(("ours: chrF (sacreBLEU statistics, compiled)", t_c))
        worst_c = max(abs(100 * oc[s] - sc[s]) for s in segs)

    print(f"WMT21 en-de: {len(hyp_texts)} systems x {n_seg} segments x {len(REFS)} references; "
          f"best of {args.repeat}")
    print(f"{'':46s} {'seconds':>9s} {'/ sacreBLEU':>12s}")
    for name, t in rows:
        print(f"{name:46s} {t:9.3f} {t / t_sacre:12.4f}")
    print(f"max |our BLEU - sacreBLEU| over systems: {worst:.2e} (BLEU points)")
    if args.chrf:
        print(f"max |our chrF - sacreBLEU chrF| over systems: {worst_c:.2e}")


if __name__ == "__main__":
    main()
