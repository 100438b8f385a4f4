"""The parse-back of a large database in a forked copy of the process (io/parse_back.py):
the same verdict and message as reading it back in-process, nothing written when the
bytes would not load, and the bytes read back in-process when the copy dies. Run in a
fresh single-threaded interpreter (the only kind that forks; pytest's may have threads)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import os, sys, threading
    from pathlib import Path
    import evaltrans_qt.io.parse_back as pb
    import evaltrans_qt.io.etdb.writer as writer
    from evaltrans_qt.engine.data.database import Database
    from evaltrans_qt.engine.data.schemes import template
    from evaltrans_qt.errors import SaveError
    from evaltrans_qt.io.store import save_with_identity
    from evaltrans_qt.io.etdb import load_database

    assert threading.active_count() == 1
    pb.FORK_BYTES = 1                      # every save here reads back in a fork
    forks = []
    real_init = pb.ParseBack.__init__
    def counting(self, data, path):
        real_init(self, data, path)
        forks.append(self._proc is not None)
    pb.ParseBack.__init__ = counting

    out = Path(sys.argv[1])
    db = Database([template("esa")])
    src = db.add_source("Der Zug kommt.", doc="d1", seg="1")
    db.add_target(src, "The train comes.", "A").set_score("esa", 70.0, "ann")
    save_with_identity(db, out)
    assert load_database(out).sources[0].targets[0].scores[0].value == 70.0
    good = out.read_bytes()

    # bytes that would not load: refused with the in-process message, nothing replaced
    real_dumps = writer.dumps
    writer.dumps = lambda d: real_dumps(d).replace(b'val="70"', b'val="700"')
    messages = []
    try:
        save_with_identity(db, out)
    except SaveError as exc:
        messages.append(str(exc))
    try:
        writer.parse_back(writer.dumps(db), out)
    except SaveError as exc:
        messages.append(str(exc))
    assert len(messages) == 2 and messages[0] == messages[1], messages
    assert "would not load again" in messages[0] and "output line" in messages[0]
    assert out.read_bytes() == good
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".") and "tmp" in p.name]

    # the forked reader dies: the bytes are read back here (and refused here)
    import evaltrans_qt.io.etdb.reader as reader
    real_loads = reader.loads
    pid = os.getpid()
    def dying(data, path=None):
        if os.getpid() != pid:
            os._exit(3)
        return real_loads(data, path)
    reader.loads = dying
    writer.loads = dying
    try:
        save_with_identity(db, out)
        raise SystemExit("not refused")
    except SaveError as exc:
        assert str(exc) == messages[0], str(exc)
    writer.dumps = real_dumps
    db.sources[0].targets[0].set_score("esa", 80.0, "ann")
    save_with_identity(db, out)
    assert load_database(out).sources[0].targets[0].scores[0].value == 80.0
    print("forks", sum(forks), "of", len(forks))
''')


def test_forked_parse_back_same_verdict_as_in_process(tmp_path):
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "db.etdb.xml")],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr + run.stdout
    assert run.stdout.split() == ["forks", "4", "of", "4"]
