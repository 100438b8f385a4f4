"""Benchmark the compare-mt-style analysis (``evaltrans analyze``) of two WMT21 en-de systems:
1002 sentences, three references (the analysis uses the first), goal < 5 s for the whole
analysis, and compare-mt 0.2.10 run in-process on the same tokens with its default reports
as the competitor.

Imports the WMT folder (not timed), warms up on 20 other sentences (imports, compiled
kernels), then times the corpus (tokenisation, once: sacreBLEU's tokeniser caches) and, each
``--repeat`` times (the median shown), the analysis without error classes, the error
classes, the HTML report, and their sum; compare-mt's default reports (``compare_mt_main.main``'s defaults:
BLEU and length ratio, word accuracy by frequency, sentence buckets by length with BLEU, by
length difference and by sentence BLEU, n-grams, examples; no bootstrap) and its BLEU with
1000 bootstrap samples (ours always resamples 1000 times). Nothing is written into the
repository.

    python benchmarks/bench_analysis.py [WMT_DIR] [--systems A,B] [--repeat N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from evaltrans_qt.engine.analysis.corpus import (
    AnalysisCorpus,
    corpus_from_database,
    corpus_from_lists,
)
from evaltrans_qt.engine.analysis.pairwise import (
    AnalysisResult,
    AnalysisSettings,
    analyze_systems,
)
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.io.html_report import write_html_report
from evaltrans_qt.io.wmt import import_wmt

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """Median wall-clock and CPU seconds of ``repeat`` calls, and the last result (the CPU
    time of this process: on a shared machine the wall clock also counts other programs)."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), out


def comparemt_defaults(ref, outs, bootstrap: int = 0) -> None:
    """compare-mt's default reports (``compare_mt_main.main`` without an output folder)."""
    import compare_mt.compare_mt_main as cmt
    from compare_mt import reporters
    reporters.sys_names = ["sys1", "sys2"]
    with contextlib.redirect_stdout(io.StringIO()):
        cmt.generate_score_report(ref, outs, score_type="bleu", bootstrap=bootstrap)
        cmt.generate_score_report(ref, outs, score_type="length")
        cmt.generate_word_accuracy_report(ref, outs)
        cmt.generate_sentence_bucketed_report(ref, outs, bucket_type="length",
                                              statistic_type="score", score_measure="bleu")
        cmt.generate_sentence_bucketed_report(ref, outs, bucket_type="lengthdiff")
        cmt.generate_sentence_bucketed_report(ref, outs, bucket_type="score",
                                              score_measure="sentbleu")
        cmt.generate_ngram_report(ref, outs)
        cmt.generate_sentence_examples(ref, outs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt", nargs="?", default=str(DEFAULT))
    ap.add_argument("--systems", default="Facebook-AI,Online-W")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    if not Path(args.wmt).is_dir():
        print(f"no WMT folder at {args.wmt}", file=sys.stderr)
        return 2
    db = import_wmt(args.wmt)
    systems = args.systems.split(",")
    opts = EvalOptions()
    r = args.repeat
    # warm-up on 20 other sentences (imports, compiled kernels), not timed; the tokeniser's
    # cache stays cold for the 1002 timed ones
    first = {s: dict((id(src), t.text) for src, t in db.candidates_by_system(s)) for s in systems}
    last = [(db.references(src)[0].text, [first[s][id(src)] for s in systems])
            for src in db.sources[-20:]]
    warm = corpus_from_lists([ref_text for ref_text, _ in last],
                             {s: [o[k] for _, o in last] for k, s in enumerate(systems)},
                             tokenization=opts.tokenization, case=opts.case)
    write_html_report(analyze_systems(warm, options=opts), Path(tempfile.gettempdir())
                      / "bench-analysis-warm.html")

    def fresh():                                 # a new corpus: nothing cached in it
        return corpus_from_database(db, systems, opts)

    w_corpus, c_corpus, corpus = timed(fresh, 1)           # cold: the tokeniser's first pass
    corpora = iter([fresh() for _ in range(2 * r)])
    w_an, c_an, _ = timed(lambda: analyze_systems(next(corpora), options=opts,
                                                  settings=AnalysisSettings(error_classes=False)),
                          r)
    w_full, c_full, res = timed(lambda: analyze_systems(next(corpora), options=opts), r)
    assert isinstance(res, AnalysisResult) and isinstance(corpus, AnalysisCorpus)
    with tempfile.TemporaryDirectory(prefix="bench-analysis-") as tmp:
        w_html, c_html, _ = timed(lambda: write_html_report(res, Path(tmp) / "r.html"), r)
        size = (Path(tmp) / "r.html").stat().st_size
    ref, outs = corpus.ref, [corpus.outs[s] for s in systems]
    w_cmt, c_cmt, _ = timed(lambda: comparemt_defaults(ref, outs), r)
    w_bs, c_bs, _ = timed(lambda: comparemt_defaults(ref, outs, bootstrap=1000), r)
    print(f"analysis of {', '.join(systems)}: {len(corpus)} sentences "
          f"(median of {r}; wall clock and CPU time of this process)")
    rows = [("corpus (tokenise, one reference)", w_corpus, c_corpus),
            ("analysis without error classes (bootstrap 1000)", w_an, c_an),
            ("error classes (2 systems)", w_full - w_an, c_full - c_an),
            (f"HTML report ({size / 1024:.0f} KiB)", w_html, c_html),
            ("total (goal < 5 s)", w_corpus + w_full + w_html, c_corpus + c_full + c_html),
            ("compare-mt defaults, same tokens (no bootstrap)", w_cmt, c_cmt),
            ("compare-mt defaults + BLEU bootstrap 1000", w_bs, c_bs)]
    print(f"  {'':<50}{'wall':>8}{'cpu':>8}")
    for name, wall, cpu in rows:
        print(f"  {name:<50}{wall:7.2f}s{cpu:7.2f}s")
    print(f"  compare-mt (bootstrap 1000) / our analysis without error classes (CPU): "
          f"{c_bs / c_an:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
