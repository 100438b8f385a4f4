"""Import scaling: rankings must import in linear time, and the in-memory database's cost
per segment is measured.

``rankings`` (default): a WMT judgement CSV of N rows (``--rows``, default 10k, 20k,
40k) over a database of 100 sources x 5 systems (each row ranks the 5 candidates of one
source, so every candidate collects N/100 rank scores: the case that was quadratic), and
a SegRanks JSON export of N screens (annotations) of one sentence's segments. Prints the
seconds per size and the ratio to the smallest size: linear growth doubles with N
(10k -> 20k -> 40k: x2, x4), quadratic quadruples.

``memory``: bytes per segment of the in-memory database after an import, measured with
``tracemalloc`` (Python allocations held by the database, peak and retained), then the
peak resident size of the save's read-back check (``etdb.checked_bytes``), for WMT21
en-de (``../shared/data/wmt21-ende``, when present: source, 3 references, all system
outputs) and for a synthetic WMT folder of ``--segments`` segments (default 1M: a source,
a reference and a system file of ``--segments / 3`` lines each, 8-word sentences). "Bytes per segment" = retained bytes / number of targets and
sources (each one a segment's text with its object).

    python benchmarks/bench_import_scaling.py [rankings] [--rows 10000 20000 40000]
    python benchmarks/bench_import_scaling.py memory [--segments 1000000] [WMT_DIR]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"
SYSTEMS = [f"sys{i}" for i in range(5)]
N_SOURCES = 100


def _database():
    from evaltrans_qt.engine.data.database import Database
    db = Database()
    for i in range(N_SOURCES):
        src = db.add_source(f"source sentence {i}", None, str(i + 1))
        for s in SYSTEMS:
            db.add_target(src, f"candidate {i} of {s}", s)
    return db


def _csv(path: Path, rows: int) -> None:
    rng = random.Random(1)
    head = ["srclang", "trglang", "srcIndex", "documentId", "segmentId", "judgeId"]
    for n in range(1, 6):
        head += [f"system{n}Id", f"system{n}rank"]
    lines = [",".join(head)]
    for r in range(rows):
        ranks = [rng.randint(1, 5) for _ in SYSTEMS]
        cells = ["en", "de", str(r % N_SOURCES + 1), "", "", f"judge{r % 7}"]
        for s, k in zip(SYSTEMS, ranks):
            cells += [s, str(k)]
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _segranks_db():
    from evaltrans_qt.engine.data.database import Database
    from evaltrans_qt.engine.human.segranks.model import (
        CandidateSegment,
        SentenceSegments,
        SourceSegment,
        set_sentence_segments,
    )
    db = Database()
    src = db.add_source("a b c d e f", None, "1")
    seg = SourceSegment((0, 1, 2), "a b c", [CandidateSegment("x y"), CandidateSegment("x z")])
    set_sentence_segments(src, SentenceSegments([seg]))
    return db


def time_rankings(rows: list[int]) -> None:
    from evaltrans_qt.io.segranks.formats import read_ranks_json
    from evaltrans_qt.io.segranks.wmt_csv import read_judgements
    with tempfile.TemporaryDirectory() as tmp:
        base_csv = base_json = None
        print(f"{'rows':>8} {'CSV s':>8} {'ratio':>6} {'JSON s':>8} {'ratio':>6}")
        for n in rows:
            f = Path(tmp) / f"r{n}.csv"
            _csv(f, n)
            db = _database()
            t = time.perf_counter()
            read_judgements(db, f)
            t_csv = time.perf_counter() - t
            j = Path(tmp) / f"r{n}.json"
            j.write_text(json.dumps({"1,a b c": [{"x y": 1 + k % 2, "x z": 2 - k % 2}
                                                for k in range(n)]}), encoding="utf-8")
            db = _segranks_db()
            t = time.perf_counter()
            read_ranks_json(db, j, judge="j")
            t_json = time.perf_counter() - t
            base_csv, base_json = base_csv or t_csv, base_json or t_json
            print(f"{n:>8} {t_csv:>8.2f} {t_csv / base_csv:>6.1f} {t_json:>8.2f} "
                  f"{t_json / base_json:>6.1f}", flush=True)


def _synthetic(folder: Path, n: int) -> None:
    rng = random.Random(2)
    words = [f"w{i}" for i in range(5000)]
    for name in ("t.src.en", "t.ref.A.de", "t.hyp.S.de"):
        with open(folder / name, "w", encoding="utf-8") as fh:
            for _ in range(n):
                fh.write(" ".join(rng.choices(words, k=8)) + "\n")


def _rss_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _measure(label: str, load) -> None:
    """Import (tracemalloc: Python objects), then the save's bytes with their read-back
    check (``etdb.checked_bytes``, what every ``evaltrans import`` does before writing;
    its lxml tree is C memory, so the process's peak resident size is printed too)."""
    from evaltrans_qt.io import etdb
    gc.collect()
    tracemalloc.start()
    t = time.perf_counter()
    db = load()
    seconds = time.perf_counter() - t
    gc.collect()
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    segments = len(db.sources) + sum(len(s.targets) for s in db.sources)
    print(f"{label:<24} {len(db.sources):>8} sources {segments:>8} segments: import "
          f"{retained / segments:>5.0f} B/segment retained, {peak / segments:>5.0f} B/segment "
          f"peak, {seconds:.1f} s", flush=True)
    rss0 = _rss_mb()
    t = time.perf_counter()
    data = etdb.checked_bytes(db)
    seconds = time.perf_counter() - t
    print(f"{'':<24} save check: {len(data) / segments:>5.0f} B/segment on disk, peak RSS "
          f"{_rss_mb():.0f} MB (+{_rss_mb() - rss0:.0f} MB for the check), {seconds:.1f} s",
          flush=True)
    del db, data


def memory(segments: int, wmt: Path) -> None:
    import os

    from evaltrans_qt.io.limits import SEGMENT_LIMIT_ENV
    from evaltrans_qt.io.wmt import import_wmt
    os.environ[SEGMENT_LIMIT_ENV] = str(max(segments, 1))    # measured, not refused
    if wmt.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            for f in wmt.iterdir():          # the folder import wants one test set per folder
                if f.name.startswith("newstest2021.en-de.") and f.is_file():
                    (d / f.name).symlink_to(f)
            _measure("WMT21 en-de", lambda: import_wmt(d))
    else:
        print(f"(no WMT21 data at {wmt})")
    with tempfile.TemporaryDirectory() as tmp:
        _synthetic(Path(tmp), segments // 3)
        _measure(f"synthetic {segments // 3} lines", lambda: import_wmt(tmp))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", nargs="?", default="rankings", choices=["rankings", "memory"])
    ap.add_argument("wmt", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    ap.add_argument("--segments", type=int, default=1_000_000)
    a = ap.parse_args()
    if a.what == "rankings":
        time_rankings(a.rows)
    else:
        memory(a.segments, a.wmt)


if __name__ == "__main__":
    main()
