"""The README's command-line-and-application walkthrough on one file, with kills.

The README sends a researcher between the command line and the application on the same
database (``segranks extract --output-database``, ``segranks import``, ``classes``; the
application scores meanwhile). Here the application is a child process that drives the
Qt-free :class:`~evaltrans_qt.workspace.Workspace` exactly as the window does (open with the
journal replayed, commit judgements, autosave; on a file changed on disk it takes the
dialog's default answer: reload theirs and re-apply the journal), while the real
``evaltrans`` commands of the walkthrough run against the same file. Both sides are killed
with SIGKILL at random moments, several times over. Afterwards nothing acknowledged is lost:

* every judgement the application acknowledged (its commit returned) is in the database
  as read by any reader (file plus journal), with its last acknowledged value -- or the
  value of the one commit in flight when the application was killed;
* every command that exited 0 left its change (classes, extracted segments, imported
  rankings); a command that refused said why on one line and changed nothing;
* the file always loads.
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaltrans_qt.engine.human.ranking import segment_rankings
from evaltrans_qt.engine.human.segranks.model import sentence_segments
from evaltrans_qt.io import store

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "resources" / "segranks_example"

APP = textwrap.dedent("""
    import os, random, sys, time
    from evaltrans_qt.io.journal import change_for
    from evaltrans_qt.io.store import DatabaseChangedError
    from evaltrans_qt.workspace import Workspace

    path, log, seed, judge = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def note(line):
        os.write(fd, (line + "\\n").encode())
        os.fsync(fd)

    def open_ws():
        while True:
            ws = Workspace.open(path, autosave=False)
            if not ws.read_only:
                return ws
            ws.close()
            time.sleep(0.05)

    ws = open_ws()
    note("OPEN")
    n = 0
    while True:
        db = ws.database
        if not db.has_class("fluency"):
            time.sleep(0.05)
            ws.close()
            ws = open_ws()
            continue
        si = rng.randrange(len(db.sources))
        cands = [j for j, t in enumerate(db.sources[si].targets) if not db.is_reference(t)]
        ti = rng.choice(cands)
        key = f"{db.sources[si].seg}|{db.sources[si].targets[ti].system}|{judge}"
        value = float(rng.randint(1, 5))
        note(f"I {key} {value}")
        ws.commit(change_for(db, si, ti, "fluency", value, judge))
        note(f"A {key} {value}")
        n += 1
        if n % 4 == 0:                      # the autosave
            try:
                ws.save()
            except DatabaseChangedError:    # the dialog's default: reload theirs, re-apply mine
                ws.close()
                ws = open_ws()
                note("RELOAD")
        time.sleep(rng.uniform(0.0, 0.03))
""")


def _expected_scores(log: Path) -> tuple[dict[str, float], dict[str, set[float]]]:
    """The last acknowledged value per judgement, and the in-flight values allowed."""
    acked: dict[str, float] = {}
    allowed: dict[str, set[float]] = {}
    pending: tuple[str, float] | None = None
    for line in log.read_text().splitlines():
        parts = line.split()
        if parts[0] == "I":
            pending = (parts[1], float(parts[2]))
        elif parts[0] == "A":
            acked[parts[1]] = float(parts[2])
            allowed[parts[1]] = {float(parts[2])}
            pending = None
        elif parts[0] == "OPEN":               # a new application process: the last one's
            if pending is not None:            # commit in flight is whole or absent
                allowed.setdefault(pending[0], set()).add(pending[1])
            pending = None
    if pending is not None:
        allowed.setdefault(pending[0], set()).add(pending[1])
    return acked, allowed


RANKS = {"3,Writing books saved me .": [{"Das Schreiben von Büchern hat mich gerettet .": 1,
                                         "Bücher schreiben rettete mich .": 2,
                                         "Schreiben Bücher gespeichert mich .": 4}]}


def _wait_for_open(log: Path, count: int, app: subprocess.Popen, errors: Path,
                   timeout: float = 90.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and app.poll() is None:
        if log.exists() and log.read_text().count("OPEN") >= count:
            return
        time.sleep(0.02)
    app.kill()
    raise AssertionError(f"the application did not open the database: {errors.read_text()}")


@pytest.mark.parametrize("seed", [1] + [pytest.param(k, marks=pytest.mark.slow) for k in (2, 3, 4, 5)])
def test_walkthrough_with_random_kills_loses_nothing(tmp_path, seed):
    rng = random.Random(seed)
    db_path = tmp_path / "campaign.etdb.xml"
    shutil.copyfile(EXAMPLE / "campaign.etdb.xml", db_path)
    app_script = tmp_path / "app.py"
    app_script.write_text(APP)
    log = tmp_path / "app.log"
    ranks = tmp_path / "ranks.json"
    ranks.write_text(json.dumps(RANKS, ensure_ascii=False))

    # the walkthrough's first steps, before the application opens the file
    for cmd in (["classes", str(db_path), "--add-template", "fluency5"],
                ["segranks", "extract", "--database", str(db_path), "--trees",
                 str(EXAMPLE / "sources.ptb"), "--alignments-dir", str(EXAMPLE), "-o",
                 str(tmp_path / "extracted.segments"), "--output-database", str(db_path)]):
        done = subprocess.run([sys.executable, "-m", "evaltrans_qt", *cmd], cwd=tmp_path,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    def command(name: str, rnd: int) -> list[str]:
        if name == "import":
            return ["segranks", "import", str(ranks), "--database", str(db_path),
                    "--judge", f"judge{rnd}"]
        return ["classes", str(db_path), "--add-continuous", name, "--min", "0", "--max", "1"]

    succeeded: list[list[str]] = []
    refused: list[str] = []
    kills = 0
    for rnd in range(6):
        errors = tmp_path / f"app{rnd}.err"
        with errors.open("w") as err_file:
            app = subprocess.Popen([sys.executable, str(app_script), str(db_path), str(log),
                                    str(seed * 100 + rnd), f"kim{rnd}"], cwd=ROOT,
                                   stdout=subprocess.DEVNULL, stderr=err_file)
        _wait_for_open(log, rnd + 1, app, errors)
        time.sleep(rng.uniform(0.2, 0.8))
        # while the application has the file, a writing command refuses
        cmd = command(f"during{rnd}", rnd)
        done = subprocess.run([sys.executable, "-m", "evaltrans_qt", *cmd], cwd=tmp_path,
                              capture_output=True, text=True)
        if done.returncode == 0:
            succeeded.append(cmd)
        else:
            refused.append(done.stderr.strip().splitlines()[-1])
        time.sleep(rng.uniform(0.0, 0.5))
        app.send_signal(signal.SIGKILL)          # the application dies at a random moment
        app.wait()
        kills += 1
        # with nobody holding the file the command runs (the stale lock is taken over and
        # the dead application's journal folded in); sometimes it is killed too
        cmd = command("import" if rnd % 2 else f"after{rnd}", rnd)
        proc = subprocess.Popen([sys.executable, "-m", "evaltrans_qt", *cmd], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if rng.random() < 0.35:
            time.sleep(rng.uniform(0.3, 1.5))
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            kills += 1
            continue
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, (cmd, err)
        succeeded.append(cmd)

    assert refused, "no command ran while the application held the file"
    for line in refused:          # the lock's one-line message, never a traceback
        assert line.startswith("evaltrans: error:") and "open in" in line, line
    opened = store.open_database(db_path)            # file and journal load
    db = opened.database
    acked, allowed = _expected_scores(log)
    assert len(acked) >= 10, "the application committed too little to test anything"
    assert len({k.split("|")[2] for k in acked}) == 6      # every round's judge
    for key, value in acked.items():
        seg, system, judge = key.split("|")
        src = next(s for s in db.sources if str(s.seg) == seg)
        got = [sc.value for t in src.targets if t.system == system for sc in t.scores
               if sc.cls == "fluency" and sc.judge == judge]
        assert len(got) == 1 and got[0] in allowed[key], (key, got, value, allowed[key])
    judges = {r.judge for r in segment_rankings(db)}
    for cmd in succeeded:          # what every command that exited 0 wrote is there
        if cmd[0] == "classes":
            assert db.has_class(cmd[3]), cmd
        else:
            assert cmd[-1] in judges, (cmd, judges)
    assert sum(1 for s in db.sources if sentence_segments(s) is not None) == 5
    assert kills >= 6
