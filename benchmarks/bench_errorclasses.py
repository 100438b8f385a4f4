"""Benchmark the error classification (Popović & Ney 2011, as Hjerson) and METEOR against
our BLEU on WMT21 en-de: 20 systems x 1002 segments x 3 references (A, C, D).

Rows (wall seconds; ratio = row / our BLEU):

* our BLEU: ``corpus_stats`` + ``score`` of every system (a fresh measure, fitted once);
* METEOR, first: a fresh measure in a fresh process's first METEOR run (every word of the
  vocabulary lower-cased and Porter-stemmed once -- pure-Python NLTK stemming);
* METEOR: a fresh measure again (the process keeps the stems it computed);
* error classes: ``classify_system`` of every system (German Snowball base forms, the
  best of the three references per sentence), the analysis entry point;
* errorclasses measure: its ``corpus_stats`` of every system, as a run computes it.

Tokenisation (13a, once per distinct sentence) is outside every row. Goals: error
classification of the 20 systems < 20 s; METEOR within 2x our BLEU.

    python benchmarks/bench_errorclasses.py [WMT_DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaltrans_qt.engine.analysis.error_classes_corpus import classify_system
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.bleu import BLEU
from evaltrans_qt.engine.measures.errorclasses import ErrorClasses
from evaltrans_qt.engine.measures.meteor import METEOR
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"
REFS = ("A", "C", "D")


def _time(fn: Callable[[], Any], repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    d = Path(args.wmt_dir)
    ref_texts = [(d / f"newstest2021.en-de.ref.{r}.de").read_text(encoding="utf-8").splitlines()
                 for r in REFS]
    hyp_files = sorted(d.glob("newstest2021.en-de.hyp.*.de"))
    vocab = Vocabulary()
    tokens: dict[str, list[str]] = {}

    def tok(text: str) -> list[str]:
        got = tokens.get(text)
        if got is None:
            got = tokens[text] = tokenize(text, "mteval")
        return got

    ref_tok = [[tok(t) for t in r] for r in ref_texts]
    ref_ids = [[vocab.encode(t) for t in r] for r in ref_tok]
    systems: dict[str, tuple[list[list[str]], list[Segment]]] = {}
    for f in hyp_files:
        lines = f.read_text(encoding="utf-8").splitlines()
        words = [tok(x) for x in lines]
        segs = [Segment(vocab.encode(w), tuple(r[i] for r in ref_ids)) for i, w in enumerate(words)]
        systems[f.name.split(".")[-2]] = (words, segs)
    refs_per_sentence = [[r[i] for r in ref_tok] for i in range(len(ref_tok[0]))]
    print(f"{len(systems)} systems x {len(refs_per_sentence)} segments x {len(REFS)} references")

    def run_measure(m) -> None:
        for _words, segs in systems.values():
            m.score(m.corpus_stats(segs).sum(axis=0))

    def fresh(cls, options: EvalOptions | None = None):
        m = cls(options)
        m.fit([], vocab)
        return m

    # load every kernel once outside the timings, on words of their own (the vocabulary's
    # words stay unstemmed for the first METEOR row)
    small = Vocabulary()
    warm = [Segment(small.encode(["ein", "Haus"]), (small.encode(["das", "Haus"]),))]
    for cls in (BLEU, METEOR, ErrorClasses):
        m = cls(EvalOptions(stem_language="german"))
        m.fit([], small)
        m.corpus_stats(warm)
    rows: list[tuple[str, float]] = []
    rows.append(("our BLEU", _time(lambda: run_measure(fresh(BLEU)), args.repeat)))
    rows.append(("METEOR, first (stemming the vocabulary)",
                 _time(lambda: run_measure(fresh(METEOR)))))
    rows.append(("METEOR", _time(lambda: run_measure(fresh(METEOR)), args.repeat)))
    rows.append(("error classes (classify_system)", _time(lambda: [
        classify_system(words, refs_per_sentence, language="german")
        for words, _s in systems.values()])))
    rows.append(("errorclasses measure (corpus_stats)", _time(
        lambda: run_measure(fresh(ErrorClasses, EvalOptions(stem_language="german"))))))
    bleu = rows[0][1]
    width = max(len(r[0]) for r in rows)
    print(f"{'row':<{width}}  {'seconds':>8}  {'x BLEU':>7}")
    for name, sec in rows:
        print(f"{name:<{width}}  {sec:8.3f}  {sec / bleu:7.2f}")
    classes = rows[3][1]
    meteor = rows[2][1]
    print(f"goals: error classes {classes:.1f} s < 20 s: {'yes' if classes < 20 else 'NO'}; "
          f"METEOR {meteor / bleu:.2f}x BLEU <= 2: {'yes' if meteor <= 2 * bleu else 'NO'}")


if __name__ == "__main__":
    main()
