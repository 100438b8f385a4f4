"""Benchmark: import a Google MQM ratings TSV of ~100,000 rows and compute every MQM segment
score (io/mqm_tsv.py, engine/human/spans/scores.py).

The file is synthetic, in the released format (google/wmt-mqm-human-evaluation: ``system
doc doc_id seg_id rater source target category severity``): ``--systems`` systems x
``--segments`` segments (documents of 10), three raters per candidate, each marking 0-4
errors (``<v>…</v>`` in the target, some in the source, some omissions ``<v></v>``) or one
``no-error`` row. Rows (wall time, best of ``--repeat``):

* import: parse the TSV and build the database (sources, candidates, annotations);
* scores: every candidate's MQM score (mt-metrics-eval's default weights);
* export: write the TSV again (and check it equals the input byte for byte).

    python benchmarks/bench_mqm.py [--systems 12] [--segments 1400] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from evaltrans_qt.engine.human.spans.scores import mqm_scores
from evaltrans_qt.io.mqm_tsv import read_mqm_tsv, write_mqm_tsv

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
CATEGORIES = ("Accuracy/Mistranslation", "Accuracy/Omission", "Fluency/Grammar",
              "Fluency/Punctuation", "Style/Awkward", "Terminology/Inappropriate for context",
              "Non-translation!", "Fluency/Display")
SEVERITIES = ("Minor", "Minor", "Major", "Neutral")
WORDS = "the a house train city river goes comes quickly slowly old new we they see".split()


def synthetic(path: Path, systems: int, segments: int, seed: int = 0) -> int:
    """Write the file; returns its number of rows (header excluded)."""
    rng = random.Random(seed)
    sources = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
               for _ in range(segments)]
    out = [HEADER]
    rows = 0
    for s in range(systems):
        for i, src in enumerate(sources):
            doc, doc_id = f"doc{i // 10}", str(i % 10 + 1)
            tgt = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
            for r in range(3):
                n = rng.choice((0, 1, 1, 2, 2, 2, 3, 4))
                if n == 0:
                    out.append(f"sys{s}\t{doc}\t{doc_id}\t{i + 1}\trater{r}\t{src}\t{tgt}\t"
                               "No-error\tno-error\n")
                    rows += 1
                for _ in range(n):
                    cat, sev = rng.choice(CATEGORIES), rng.choice(SEVERITIES)
                    on_source = rng.random() < 0.05
                    text = src if on_source else tgt
                    a = rng.randrange(len(text))
                    b = a if rng.random() < 0.05 else rng.randint(a, len(text))
                    marked = f"{text[:a]}<v>{text[a:b]}</v>{text[b:]}"
                    s_col, t_col = (marked, tgt) if on_source else (src, marked)
                    out.append(f"sys{s}\t{doc}\t{doc_id}\t{i + 1}\trater{r}\t{s_col}\t{t_col}\t"
                               f"{cat}\t{sev}\n")
                    rows += 1
    path.write_text("".join(out), encoding="utf-8")
    return rows


def best(fn, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--systems", type=int, default=12)
    ap.add_argument("--segments", type=int, default=1400)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "mqm.tsv"
        rows = synthetic(src, args.systems, args.segments)
        t_import, (db, report) = best(lambda: read_mqm_tsv(src), args.repeat)
        t_scores, scores = best(lambda: mqm_scores(db), args.repeat)
        out = Path(tmp) / "out.tsv"
        t_export, _ = best(lambda: write_mqm_tsv(db, out), args.repeat)
        same = out.read_bytes() == src.read_bytes()
    print(f"{rows} rows ({report.errors} errors), {len(db.sources)} sources, "
          f"{len(scores)} scored candidates, {args.systems} systems")
    print(f"import       {t_import:7.3f} s")
    print(f"scores       {t_scores:7.3f} s")
    print(f"import+score {t_import + t_scores:7.3f} s   (target: well under 10 s)")
    print(f"export       {t_export:7.3f} s   byte-identical: {same}")


if __name__ == "__main__":
    main()
