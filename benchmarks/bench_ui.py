"""Benchmark the application on the imported WMT21 en-de database (issue 6).

Measures, in one process with the offscreen Qt platform:

* open: from ``MainWindow.open_database`` until the window is usable (database
  loaded on a worker, source list and first source's translations shown,
  compare view filled) — budget 3 s;
* next: one step of a scoring session (``ScoringSession.next``: select the
  source and candidate, similar translations, score panel) — budget 50 ms;
* the protocol modes of issue 11 (budget 50 ms each): next with the post-edit editor
  open (its live TER edits of the new candidate), one keystroke in the post-edit editor
  (TER edits highlighted again), next in the item-marking mode, one item mark;
* the all-translations table (≈24 000 rows): fill and sort by a score column,
  against a ``QStandardItemModel`` + ``QSortFilterProxyModel`` doing the same
  (the competitor: Qt's stock models, same process).

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_ui.py [WMT_DIR] [--steps N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt21-ende"


def protocol_modes(w, s, app, steps: int) -> list[tuple]:
    """Session latency in the post-edit and item-marking modes (issue 11)."""
    from PySide6.QtTest import QTest

    from evaltrans_qt.engine.data.protocols import source_words
    pm = w.protocol_modes
    rows = []
    times, keys = [], []
    for k in range(min(steps, 100)):
        t = time.perf_counter()
        s.next()
        pm.enter_mode("postedit")
        app.processEvents()
        times.append(time.perf_counter() - t)
        ed = pm.postedit_panel.editor
        t = time.perf_counter()
        QTest.keyClick(ed, "xyz"[k % 3])
        app.processEvents()
        keys.append(time.perf_counter() - t)
    pm.leave_mode()
    rows.append(("next + post-edit mode, median (ms)", 1000 * statistics.median(times), 50.0,
                 f"95th pct {1000 * sorted(times)[int(0.95 * len(times)) - 1]:.1f} ms"))
    rows.append(("post-edit keystroke (live TER), median (ms)", 1000 * statistics.median(keys), 50.0,
                 f"max {1000 * max(keys):.1f} ms"))
    # items on the next sources' (first three words, next three), then mark them
    db = w.database
    start = s.pos
    for si in sorted({s.items[k][0] for k in range(start, min(start + 120, len(s.items)))}):
        if len(source_words(db.sources[si])) >= 6:
            pm.define_items(si, [(0, 3), (3, 6)])
    times, marks = [], []
    for _ in range(min(steps, 100)):
        t = time.perf_counter()
        s.next()
        if pm.mode != "items":
            pm.enter_mode("items")
        app.processEvents()
        times.append(time.perf_counter() - t)
        for m in ("OK", "syntax"):
            t = time.perf_counter()
            pm.items_panel.mark(m)
            app.processEvents()
            marks.append(time.perf_counter() - t)
    pm.leave_mode()
    rows.append(("next in item-marking mode, median (ms)", 1000 * statistics.median(times), 50.0,
                 f"95th pct {1000 * sorted(times)[int(0.95 * len(times)) - 1]:.1f} ms"))
    rows.append(("item mark (journal fsync), median (ms)", 1000 * statistics.median(marks), 50.0,
                 f"{len(marks)} marks"))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()

    from PySide6.QtCore import QSettings, QSortFilterProxyModel, Qt
    from PySide6.QtGui import QStandardItem, QStandardItemModel
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    tmp = Path(tempfile.mkdtemp(prefix="bench_ui_"))
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(tmp))
    os.environ["EVALTRANS_QT_DATA_DIR"] = str(tmp / "data")

    from evaltrans_qt.io.etdb import save_database
    from evaltrans_qt.io.wmt import import_wmt
    from evaltrans_qt.ui.main_window import MainWindow
    from evaltrans_qt.ui.workers import wait_for_all

    wmt = Path(args.wmt_dir)
    mqm = wmt / "mqm.tsv"
    db = import_wmt(wmt, mqm if mqm.exists() else None, "mqm")
    path = tmp / "wmt21-ende.etdb.xml"
    save_database(db, path)
    n_targets = sum(len(s.targets) for s in db.sources)
    del db

    w = MainWindow(QSettings(str(tmp / "bench.ini"), QSettings.IniFormat), autosave_ms=3_600_000)
    w.resize(1400, 860)
    w.show()
    app.processEvents()
    wait_for_all(600_000)  # let start-up work (kernel warm-up) finish first: we time the open alone
    app.processEvents()

    rows = []
    # ---- open
    opened = []
    w.databaseChanged.connect(lambda: opened.append(time.perf_counter()))
    t0 = time.perf_counter()
    w.open_database(path)
    while not opened:
        app.processEvents()
    while w.compare_view.runner.pending or w.compare_view.comparison is None:
        app.processEvents()
    t_open = time.perf_counter() - t0
    rows.append(("open WMT db, usable (s)", t_open, 3.0, f"{n_targets} targets, {len(w.database.sources)} sources"))

    # ---- scoring session: next
    s = w.start_session("bench", ["mqm"], start_unscored=False)
    app.processEvents()
    times = []
    for _ in range(args.steps):
        t = time.perf_counter()
        s.next()
        app.processEvents()
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    p95 = sorted(times)[int(0.95 * len(times)) - 1]
    rows.append(("session next, median (ms)", 1000 * med, 50.0, f"{args.steps} steps"))
    rows.append(("session next, 95th pct (ms)", 1000 * p95, 50.0, f"max {1000 * max(times):.1f} ms"))
    # score + next (journal fsync included)
    times = []
    for k in range(50):
        t = time.perf_counter()
        s.score(-float(k % 5), "mqm")
        app.processEvents()
        times.append(time.perf_counter() - t)
    rows.append(("score (journal fsync) + next, median (ms)", 1000 * statistics.median(times), 50.0,
                 "50 scores"))
    rows += protocol_modes(w, s, app, args.steps)
    w.end_session()

    # ---- all translations: ours vs QStandardItemModel
    t = time.perf_counter()
    w.browse.all_targets.setChecked(True)
    app.processEvents()
    t_fill = time.perf_counter() - t
    col = w.browse.targets.headers.index("mqm")
    t = time.perf_counter()
    w.browse.target_proxy.sort(col, Qt.DescendingOrder)
    app.processEvents()
    t_sort = time.perf_counter() - t

    std = QStandardItemModel()
    t = time.perf_counter()
    db = w.database
    for i, src in enumerate(db.sources):
        for _j, tg in enumerate(src.targets):
            v = tg.value("mqm")
            it = QStandardItem("" if v is None else f"{v:g}")
            it.setData(v if v is not None else float("nan"), Qt.UserRole)
            std.appendRow([QStandardItem(str(i + 1)), QStandardItem(tg.system or ""), QStandardItem(tg.text), it])
    t_std_fill = time.perf_counter() - t
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(std)
    proxy.setSortRole(Qt.UserRole)
    t = time.perf_counter()
    proxy.sort(3, Qt.DescendingOrder)
    t_std_sort = time.perf_counter() - t
    rows.append(("all translations: fill (s)", t_fill, None, f"QStandardItemModel {t_std_fill:.3f} s, "
                 f"ratio {t_std_fill / t_fill:.1f}x"))
    rows.append(("all translations: sort by score (s)", t_sort, None, f"QStandardItemModel+proxy {t_std_sort:.3f} s, "
                 f"ratio {t_std_sort / t_sort:.1f}x"))

    print(f"\nbench_ui on {wmt.name}: {n_targets} targets\n")
    print(f"{'what':44} {'measured':>10} {'budget':>8}  note")
    for what, val, budget, note in rows:
        b = "" if budget is None else f"{budget:g}"
        ok = "" if budget is None else ("ok" if val <= budget else "OVER")
        print(f"{what:44} {val:10.3f} {b:>8}  {ok:4} {note}")
    w.workspace.discard_changes()        # the benchmark's scores: journal cleared, not saved
    w.close()


if __name__ == "__main__":
    main()
