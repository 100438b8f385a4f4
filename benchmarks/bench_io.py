"""Benchmark the data layer on the WMT21 en-de folder (issue 2, item 9).

Times (best of N runs) and peak Python memory (tracemalloc, separate run) for:
import the WMT folder with MQM scores, save the database, load it again; the
load is compared with a plain ``lxml.etree.parse`` of the same file in the same
process (the competitor: parsing alone, without building our model).

    python benchmarks/bench_io.py [WMT_DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from lxml import etree

from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.io.wmt import import_wmt

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _peak(fn) -> float:
    gc.collect()
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    folder = Path(args.wmt_dir)
    tsv = folder / "mqm.tsv"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "wmt.etdb.xml"
        t_imp, db = _best(lambda: import_wmt(folder, tsv if tsv.exists() else None), args.repeat)
        t_save, _ = _best(lambda: save_database(db, out), args.repeat)
        t_load, db2 = _best(lambda: load_database(out), args.repeat)
        t_lxml, _ = _best(lambda: etree.parse(str(out)), args.repeat)
        assert db2 == db
        m_imp = _peak(lambda: import_wmt(folder, tsv if tsv.exists() else None))
        m_save = _peak(lambda: save_database(db, out))
        m_load = _peak(lambda: load_database(out))
        m_lxml = _peak(lambda: etree.parse(str(out)))
        size = out.stat().st_size / 2**20
    c = db.counts()
    print(f"WMT folder {folder}: {c['sources']} sources, {c['targets']} targets "
          f"({c['references']} references, {len(c['systems'])} systems); file {size:.1f} MiB")
    print(f"{'step':<28}{'time [s]':>10}{'peak [MiB]':>12}{'vs lxml.parse':>15}")
    rows = [("import WMT + mqm.tsv", t_imp, m_imp, None),
            ("save (dumps + atomic write)", t_save, m_save, None),
            ("load (parse + build model)", t_load, m_load, t_load / t_lxml),
            ("lxml.etree.parse only", t_lxml, m_lxml, 1.0)]
    for name, t, m, r in rows:
        ratio = f"{r:.2f}x" if r is not None else ""
        print(f"{name:<28}{t:>10.3f}{m:>12.1f}{ratio:>15}")
    print(f"load under 2 s: {'yes' if t_load < 2 else 'NO'}")
    print("peak = Python allocations (tracemalloc); libxml2's own C memory is not seen, "
          f"process max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
