"""Benchmark the data layer on the WMT21 en-de folder (issue 2, item 9).

Times (best of N runs) and peak Python memory (tracemalloc, separate run) for:
import the WMT folder with MQM scores, save the database, load it again; the
load is compared with a plain ``lxml.etree.parse`` of the same file in the same
process (the competitor: parsing alone, without building our model).

Issue 14 (linear readers): ``--sgml`` times the NIST SGML import against the plain
text import of the same synthetic segments (5k / 20k / 50k; goal: within 2x), and
``--levels`` times ``evaltrans info`` (a fresh process, as a user runs it) on the WMT
database with 1k / 10k / 100k extra ``<levels>`` classes (goal: 100k under 2 s).

    python benchmarks/bench_io.py [WMT_DIR] [--repeat N] [--sgml] [--levels] [--no-wmt]
"""

from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
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


def _write_sgml_and_text(d: Path, n: int) -> None:
    """Source, reference and test set of ``n`` segments as mteval SGML and as plain text."""
    sents = [f"sentence number {i} with some words & a few more" for i in range(1, n + 1)]
    for kind, name, sysid in (("srcset", "src", ""), ("refset", "ref", "ref-A"),
                              ("tstset", "tst", "sys")):
        attr = f' sysid="{sysid}"' if sysid else ""
        segs = "".join(f'<seg id="{i}">{s.replace("&", "&amp;")}</seg>\n'
                       for i, s in enumerate(sents, 1))
        (d / f"{name}.sgm").write_text(f'<{kind} setid="b" srclang="en" trglang="de"{attr}>\n'
                                       f'<doc docid="d1" genre="news">\n{segs}</doc>\n</{kind}>\n')
        (d / f"{name}.txt").write_text("".join(s + "\n" for s in sents))


def bench_sgml(sizes=(5_000, 20_000, 50_000), repeat: int = 1) -> None:
    """SGML import vs text import of the same segments (issue 14 item 6)."""
    from evaltrans_qt.io.plaintext import import_text
    from evaltrans_qt.io.sgml import import_sgml
    print(f"{'segments':>9}{'SGML [s]':>10}{'text [s]':>10}{'ratio':>8}")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            _write_sgml_and_text(d, n)
            t_sgml, db1 = _best(lambda: import_sgml(d / "src.sgm", [d / "ref.sgm"], [d / "tst.sgm"]),
                                repeat)
            t_text, db2 = _best(lambda: import_text(d / "src.txt", [("ref-A", d / "ref.txt")],
                                                    [("sys", d / "tst.txt")]), repeat)
            assert len(db1.sources) == len(db2.sources) == n
        print(f"{n:>9}{t_sgml:>10.3f}{t_text:>10.3f}{t_sgml / t_text:>7.2f}x")


def bench_levels(folder: Path, sizes=(1_000, 10_000, 100_000)) -> None:
    """``evaltrans info`` on the WMT database with extra score classes (issue 14 item 6)."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "wmt.etdb.xml"
        save_database(import_wmt(folder), base)
        text = base.read_text(encoding="utf-8")
        print(f"{'classes':>9}{'info [s]':>10}  (fresh process: start-up, load, counts, print)")
        for n in sizes:
            extra = "".join(f'  <levels class="c{i}" count="6" gray="2" green="5" perfect="5" '
                            f'firstvalid="1"/>\n' for i in range(n))
            f = Path(tmp) / f"lv{n}.etdb.xml"
            f.write_text(text.replace('  <levels class="isReference"',
                                      extra + '  <levels class="isReference"', 1), encoding="utf-8")
            best = float("inf")
            for _ in range(2):
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "evaltrans_qt.cli.main", "info", str(f)],
                               check=True, stdout=subprocess.DEVNULL)
                best = min(best, time.perf_counter() - t)
            print(f"{n:>9}{best:>10.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sgml", action="store_true", help="SGML vs text import table")
    ap.add_argument("--levels", action="store_true", help="info on many <levels>")
    ap.add_argument("--no-wmt", action="store_true", help="skip the WMT import/save/load table")
    args = ap.parse_args()
    if args.sgml:
        bench_sgml()
    if args.levels:
        bench_levels(Path(args.wmt_dir))
    if args.no_wmt:
        return
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
