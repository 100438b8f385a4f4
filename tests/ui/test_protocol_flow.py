"""The human-evaluation protocols end to end in the application.

A text import -> classes added from templates -> a scoring session scores, post-edits,
marks items, adds a reference -> save and reopen: all of it is there; then a second
session in a child process is killed with SIGKILL after journalling and the
application recovers every change from the journal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from evaltrans_qt.engine.data import schemes
from evaltrans_qt.io.etdb import load_database
from tests.ui.conftest import open_db
from tests.ui.test_protocol_modes import SYS_B, make_study

CHILD = textwrap.dedent(r"""
    import sys
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    app = QApplication(sys.argv[:1])
    from evaltrans_qt.ui.main_window import MainWindow
    db_path, ini = sys.argv[1], sys.argv[2]
    w = MainWindow(QSettings(ini, QSettings.IniFormat), autosave_ms=3_600_000)  # the journal alone
    w.show()
    opened = []
    w.databaseChanged.connect(lambda: opened.append(1))
    w.open_database(db_path)
    while not opened:
        app.processEvents()
    s = w.start_session("lee", None, start_unscored=False)
    pm = w.protocol_modes
    s.go_to(s.index_of[(1, 1)])
    for k in "34":
        QTest.keyClick(w, k)                       # fluency 3, adequacy 4
    s.go_to(s.index_of[(1, 1)])
    pm.enter_mode("postedit")
    pm.postedit_panel.editor.setPlainText("Er ging gestern zum Markt .")
    QTest.keyClick(pm.postedit_panel.editor, Qt.Key_Return)
    pm.define_items(1, [(0, 2), (2, 5)])
    pm.enter_mode("items")
    for k in "MX":
        QTest.keyClick(w, k)
    pm.add_reference(2, "Es schüttet .", "lee-ref")
    s.go_to(s.index_of[(2, 2)])
    pm.toggle_reference()                          # sysB of source 3 becomes a reference
    print("READY", flush=True)
    app.exec()                                     # until killed
""")


def _state(db, judge):
    """Everything a judge did: scores, post-edits, marks, items, added and promoted references."""
    out = {"scores": {}, "postedits": {}, "marks": {}, "items": {}, "refs": set()}
    for i, src in enumerate(db.sources):
        if src.items:
            out["items"][i] = list(src.items)
        for t in src.targets:
            for sc in t.scores:
                if sc.judge == judge and sc.cls in ("fluency", "adequacy"):
                    out["scores"][(i, t.system, sc.cls)] = sc.value
            pe = t.postedit_by(judge)
            if pe is not None:
                out["postedits"][(i, t.system)] = pe.text
            m = t.marks_by(judge)
            if m is not None:
                out["marks"][(i, t.system)] = m.marks
            if db.is_reference(t):
                out["refs"].add((i, t.system, t.text))
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_done_when_flow(qtbot, main_window, tmp_path):
    w = main_window
    path = make_study(tmp_path, templates=())
    open_db(qtbot, w, path)
    assert w.database.human_classes == []
    # classes from templates, through the window's undoable class edit
    for t in ("fluency5", "adequacy5"):
        w.change_classes(f"add {t}", lambda db, t=t: schemes.add_template(db, t), [])
    assert w.database.human_classes[:2] == ["fluency", "adequacy"]
    s = w.start_session("kim", ["fluency", "adequacy"], start_unscored=False)
    pm = w.protocol_modes
    for k in "45":                                  # scores from the keyboard
        QTest.keyClick(w, k)
    first = s.items[0]
    s.go_to(0)
    assert pm.enter_mode("postedit")
    pm.postedit_panel.editor.setPlainText("Die Katze sitzt auf der Matte .")
    QTest.keyClick(pm.postedit_panel.editor, Qt.Key_Return)
    assert pm.define_items(0, [(0, 2), (2, 4), (4, 6)])
    assert pm.enter_mode("items")
    for k in "OSE":
        QTest.keyClick(w, k)
    assert pm.add_reference(0, "Die Katze lag auf der Matte .")
    expected = _state(w.database, "kim")
    assert expected["scores"] == {(0, "sysA", "fluency"): 4.0, (0, "sysA", "adequacy"): 5.0}
    assert expected["postedits"] == {(0, "sysA"): "Die Katze sitzt auf der Matte ."}
    assert expected["marks"] == {(0, "sysA"): ("OK", "syntax", "error")}
    assert (0, "added-1", "Die Katze lag auf der Matte .") in expected["refs"]
    assert first == (0, 1)
    # save, reopen: all of it comes back
    w.save(wait=True)
    w.end_session()
    assert _state(load_database(path), "kim") == expected
    w.workspace.close()          # its lock released: the second process may judge (not read-only)

    # a second judge in another process, killed with SIGKILL after journalling
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(tmp_path / "child.ini")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=str(Path(__file__).resolve().parents[2]))
    deadline = time.monotonic() + 180
    ready = False
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if line.strip() == "READY":
                ready = True
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert ready, proc.stderr.read()[-3000:]
    assert _state(load_database(path), "lee")["postedits"] == {}   # the file does not have it yet
    # recovery: the window opens the file and replays the journal
    open_db(qtbot, w, path)
    assert w.workspace.recovered is not None and w.workspace.recovered.applied
    got = _state(w.database, "lee")
    assert got["scores"] == {(1, "sysA", "fluency"): 3.0, (1, "sysA", "adequacy"): 4.0}
    assert got["postedits"] == {(1, "sysA"): "Er ging gestern zum Markt ."}
    assert got["items"][1] == [(0, 2), (2, 5)]
    assert got["marks"] == {(1, "sysA"): ("meaning", "other")}
    assert (2, "lee-ref", "Es schüttet .") in got["refs"]
    assert (2, "sysB", SYS_B[2]) in got["refs"]
    # the first judge's work is still all there
    assert _state(w.database, "kim") == {**expected, "items": got["items"],
                                         "refs": expected["refs"] | got["refs"]}
