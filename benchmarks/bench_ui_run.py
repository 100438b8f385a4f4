"""Event-loop latency of the application while the metric engine runs on the WMT21 en-de data.

Imports ``../shared/data/wmt21-ende`` (20 systems x 1002 segments x 3 references,
MQM scores), opens it in the main window (offscreen), starts a background run of
every default measure from the results view, and measures how late a 10 ms
``QTimer`` fires meanwhile (the UI's event-loop latency). For comparison the
same run is timed without a UI in the same process (``engine.evaluate``).

    python benchmarks/bench_ui_run.py [--data ../shared/data/wmt21-ende] [--measures wer,bleu,...]

Prints a table; the issue's target is a worst-case latency under 100 ms.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np


def main() -> int:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(here.parents[1] / "shared" / "data" / "wmt21-ende"))
    ap.add_argument("--measures", default=None, help="comma separated (default: all default measures)")
    ap.add_argument("--trace-stalls", metavar="FILE", default=None,
                    help="dump every thread's stack to FILE whenever the event loop stalls")
    ap.add_argument("--stall-seconds", type=float, default=0.4, help="stall length for --trace-stalls")
    args = ap.parse_args()
    data = Path(args.data)
    if not data.is_dir():
        print(f"no data at {data}", file=sys.stderr)
        return 2

    from PySide6.QtCore import QElapsedTimer, QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import default_measures, evaluate
    from evaltrans_qt.io.etdb import save_database
    from evaltrans_qt.io.wmt import import_wmt

    tmp = Path(tempfile.mkdtemp(prefix="bench_ui_run_"))
    db = import_wmt(data, scores=data / "mqm.tsv", score_class="mqm")
    path = tmp / "wmt21.etdb.xml"
    save_database(db, path)
    opts = EvalOptions()
    measures = args.measures.split(",") if args.measures else default_measures(opts)

    t0 = time.perf_counter()
    evaluate(db, opts, measures)
    headless = time.perf_counter() - t0

    app = QApplication.instance() or QApplication([])
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(tmp / "settings"))
    from evaltrans_qt.ui.main_window import MainWindow
    win = MainWindow(settings=QSettings(str(tmp / "s.ini"), QSettings.IniFormat), autosave_ms=600_000)
    win.show()

    def spin(pred, timeout=600.0):
        end = time.perf_counter() + timeout
        while not pred() and time.perf_counter() < end:
            app.processEvents(QEventLoop.AllEvents, 20)
        return pred()

    t_open = time.perf_counter()
    win.open_database(path)
    spin(lambda: win.database is not None and win.results.results_view.human_box.count() > 0)
    open_s = time.perf_counter() - t_open
    spin(lambda: False, 3.0)    # let start-up jobs (warm-up, first alignment) finish

    view = win.results.results_view
    gaps: list[float] = []
    clock = QElapsedTimer()
    last = [0]

    phase = ["run"]
    where: list[tuple[float, float, str]] = []     # (gap ms, at s, what was happening)

    trace = open(args.trace_stalls, "w") if args.trace_stalls else None

    def tick():
        if trace is not None:
            import faulthandler
            faulthandler.dump_traceback_later(args.stall_seconds, file=trace)   # re-armed every tick
        now = clock.elapsed()
        gaps.append(now - last[0])
        if now - last[0] > 60:
            where.append((now - last[0], now / 1000.0, f"{phase[0]}: {view.progress.format()}"))
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    clock.start()
    timer.start()
    t1 = time.perf_counter()
    view.start_run(opts, measures)
    spin(lambda: view.run is not None)
    run_s = time.perf_counter() - t1
    phase[0] = "analysis"
    spin(lambda: view.analysis is not None and view.analysis.tables is not None, 300)
    analysis_s = time.perf_counter() - t1 - run_s
    timer.stop()
    if trace is not None:
        import faulthandler
        faulthandler.cancel_dump_traceback_later()
        trace.close()
    g = np.asarray(gaps, float)
    late = g - 10.0

    rows = [
        ("measures", ", ".join(measures)),
        ("systems x segments", f"{len(view.run.systems)} x {len(db.sources)}"),
        ("open database in the window (s)", f"{open_s:.2f}"),
        ("run without UI, engine.evaluate (s)", f"{headless:.2f}"),
        ("run in the background from the UI (s)", f"{run_s:.2f}"),
        ("then tables + correlations with 1000 bootstrap samples (s)", f"{analysis_s:.2f}"),
        ("timer ticks during run + analysis", f"{len(g)}"),
        ("event-loop latency median / p99 / max (ms)",
         f"{np.median(late):.1f} / {np.percentile(late, 99):.1f} / {late.max():.1f}"),
        ("target: max latency < 100 ms", "met" if late.max() < 100 else "NOT met"),
    ]
    w = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{w}}  {v}")
    if where:
        print("\nlongest stalls (ms, seconds after start, what was happening):")
        for gap, at, what in sorted(where, reverse=True)[:8]:
            print(f"  {gap:7.0f}  {at:7.1f}  {what}")
    win.files.ask_unsaved = lambda: None
    return 0


if __name__ == "__main__":
    sys.exit(main())
