"""Guard against Qt binding releases that corrupt reference counts.

PySide6-Essentials 6.12.0's ``Signal.emit`` released ``True`` once too often on
every call; the application died after ~2000 progress signals with "Fatal
Python error: bool_dealloc". pyproject.toml pins an unaffected release; this
test fails (instead of crashing the test run) if an installed binding leaks.
"""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QCoreApplication, QObject, Signal
    app = QCoreApplication([])
    class S(QObject):
        obj = Signal(object)
        num = Signal(float, str)
        empty = Signal()
    s = S()
    s.obj.connect(lambda v: None); s.num.connect(lambda a, b: None); s.empty.connect(lambda: None)
    for emit in (lambda: s.obj.emit(None), lambda: s.obj.emit(True), lambda: s.num.emit(0.5, "x"),
                 lambda: s.empty.emit()):
        t, n = sys.getrefcount(True), sys.getrefcount(None)
        for _ in range(500):
            emit()
        assert abs(sys.getrefcount(True) - t) < 50 and abs(sys.getrefcount(None) - n) < 50, \\
            (sys.getrefcount(True) - t, sys.getrefcount(None) - n)
    print("ok")
""")


def test_signal_emit_keeps_reference_counts():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
