"""Never lose a score: kill -9 the application in the middle of a session, restart, find every score."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaltrans_qt.io.etdb import load_database
from tests.ui.conftest import open_db

CHILD = textwrap.dedent(r"""
    import sys
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    app = QApplication(sys.argv[:1])
    from evaltrans_qt.ui.main_window import MainWindow
    db_path, ini, keys = sys.argv[1], sys.argv[2], sys.argv[3]
    w = MainWindow(QSettings(ini, QSettings.IniFormat), autosave_ms=3_600_000)  # no autosave: the journal alone
    w.show()
    opened = []
    w.databaseChanged.connect(lambda: opened.append(1))
    w.open_database(db_path)
    while not opened:
        app.processEvents()
    s = w.start_session("kim", ["fluency", "adequacy"], start_unscored=False)
    for k in keys:
        QTest.keyClick(w, k)   # the real shortcuts: digits score, then the session moves on
        print("KEY", k, flush=True)
    print("READY", flush=True)
    app.exec()               # stays alive until killed
""")


def _kim(db):
    return {(src.text, t.text, t.system, s.cls): s.value
            for src in db.sources for t in src.targets for s in t.scores if s.judge == "kim"}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_sigkill_in_session_loses_nothing(qtbot, main_window, demo_copy, tmp_path):
    before = demo_copy.read_bytes()
    keys = "4352" + "1" + "55" + "3"   # 8 scores over 4 candidates (2 classes each)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(demo_copy), str(tmp_path / "child.ini"), keys],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=str(Path(__file__).resolve().parents[2]))
    seen = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line.strip())
            if line.strip() == "READY":
                break
        assert seen and seen[-1] == "READY", (seen, proc.stderr.read() if proc.poll() is not None else "")
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    # the database file itself was never written: everything must come from the journal
    assert demo_copy.read_bytes() == before
    assert _kim(load_database(demo_copy)) == {}

    # restart: opening the database replays the journal and says so
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    got = _kim(db)
    assert len(got) == len(keys)
    # the first candidates of the database in order, fluency then adequacy, with the keyed values
    cands = [(src, t) for src in db.sources for t in src.targets if not db.is_reference(t)]
    expected = {}
    vals = [float(k) for k in keys]
    for n, (src, t) in enumerate(cands[:len(keys) // 2]):
        expected[(src.text, t.text, t.system, "fluency")] = vals[2 * n]
        expected[(src.text, t.text, t.system, "adequacy")] = vals[2 * n + 1]
    assert got == expected
    assert len(w.files.last_recovery.applied) == len(keys) and not w.files.last_recovery.missing
    assert w.is_dirty
    assert "recovered" in w.statusBar().currentMessage()
    # saving writes them into the file and clears the journal
    with qtbot.waitSignal(w.saved, timeout=120_000):
        w.save()
    assert _kim(load_database(demo_copy)) == expected
    assert w.journal.entries() == []
