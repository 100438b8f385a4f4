"""Benchmark the error-span annotation screen (ui/span_screen.py) on the imported WMT21
en-de database: 20 systems x 1002 segments x 3 references.

Rows (offscreen Qt, one process, the database journalled as in the application):

* open: a :class:`SpanSessionModel` over one system's candidates in document order and
  the :class:`SpanScreen` built, shown and painted on it -- budget 100 ms (median of
  ``--opens``, the first, cold one reported apart);
* mark: select a word by keyboard, severity 2, category a/3 (one journalled commit,
  the screen redrawn) -- budget 50 ms median;
* next: N, the next candidate shown with its document context -- budget 50 ms median.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_span_screen.py [WMT_DIR] [--steps N]

Measured once (2 cores shared with other work, load average about 5; ``--steps 60
--opens 10``; system BUPT_rush, 1002 candidates): open cold 74.6 ms, median 47.6 ms;
mark 12.5 ms median (max 25.3); next 14.0 ms median (max 17.5). Again with the inline
labels (the texts QTextEdits with a 175 % line height; load average about 6): open cold
60.5 ms, median 32.4 ms; mark 13.6 ms median (max 25.0); next 13.0 ms median (max 25.8).
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


def _ms(xs: list[float]) -> float:
    return 1000 * statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("wmt_dir", nargs="?", default=str(DEFAULT))
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--opens", type=int, default=20)
    args = ap.parse_args()

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from evaltrans_qt.io.etdb import save_database
    from evaltrans_qt.io.wmt import import_wmt
    from evaltrans_qt.span_session import SpanSessionModel, document_order
    from evaltrans_qt.ui.span_screen import SpanScreen
    from evaltrans_qt.workspace import Workspace

    app = QApplication([])
    tmp = Path(tempfile.mkdtemp(prefix="bench_spans_"))
    db = import_wmt(Path(args.wmt_dir))
    path = tmp / "wmt21-ende.etdb.xml"
    save_database(db, path)
    n_targets = sum(len(s.targets) for s in db.sources)
    del db
    ws = Workspace.open(path, autosave=False)
    wdb = ws.database
    assert wdb is not None
    system = wdb.systems()[0]

    opens: list[float] = []
    screen = None
    for _ in range(args.opens + 1):
        if screen is not None:
            screen.close()
            screen.deleteLater()
            app.processEvents()
        t = time.perf_counter()
        model = SpanSessionModel(ws, "bench", items=document_order(wdb, system))
        screen = SpanScreen(model)
        screen.resize(1366, 740)
        screen.show()
        screen.repaint()
        app.processEvents()
        opens.append(time.perf_counter() - t)
    assert screen is not None
    marks, nexts = [], []
    tx = screen.target
    for _ in range(args.steps):
        t = time.perf_counter()
        tx.select(0, 0)
        QTest.keyClick(tx, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
        for k in (Qt.Key.Key_2, Qt.Key.Key_A, Qt.Key.Key_3):
            QTest.keyClick(tx, k)
        app.processEvents()
        marks.append(time.perf_counter() - t)
        assert screen.model.errors(), screen.status.text()
        t = time.perf_counter()
        QTest.keyClick(tx, Qt.Key.Key_N)
        app.processEvents()
        nexts.append(time.perf_counter() - t)
    ws.close()

    rows = [("open the screen, cold (ms)", 1000 * opens[0], 100.0, f"{n_targets} targets"),
            ("open the screen, median (ms)", _ms(opens[1:]), 100.0, f"{args.opens} opens"),
            ("mark a span (keys, journalled), median (ms)", _ms(marks), 50.0,
             f"max {1000 * max(marks):.1f} ms"),
            ("next candidate, median (ms)", _ms(nexts), 50.0, f"max {1000 * max(nexts):.1f} ms")]
    print(f"WMT21 en-de, system {system}: {len(screen.model.items)} candidates in document order")
    for name, value, budget, note in rows:
        ok = "ok" if value <= budget else "OVER"
        print(f"{name:48s} {value:9.1f}  budget {budget:6.1f}  {ok}  {note}")


if __name__ == "__main__":
    main()
