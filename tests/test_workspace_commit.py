"""``Workspace.commit``: the one commit path of every judgement (issue 25, item 3).

Journal first (written and fsynced), then the database (with the very apply the journal's
replay uses), then one ``committed`` signal; undo and redo commit changes too. A process
killed with SIGKILL at a random moment while committing each kind of judgement (scores,
post-edits, items, item marks, references, sentence rankings, SegRanks segment rankings)
loses none that was committed and leaves no half change; nor after Save As (the journal
moved with the new name). Qt-free: the child drives the workspace directly.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io import journal as journal_mod
from evaltrans_qt.io import protocol_changes as pc
from evaltrans_qt.io import store
from evaltrans_qt.io.etdb import demo_database_path, load_database
from evaltrans_qt.io.etdb.writer import dumps
from evaltrans_qt.io.journal import Journal, apply_entry, change_for, entry_from_dict, journal_path
from evaltrans_qt.io.segranks import changes as rc
from evaltrans_qt.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def demo(tmp_path) -> Path:
    p = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), p)
    return p


def _judged(target, cls: str, judge: str = "kim") -> float | None:
    return next((s.value for s in target.scores if s.cls == cls and s.judge == judge), None)


def _candidate(db, si: int = 0) -> int:
    return next(j for j, t in enumerate(db.sources[si].targets) if not db.is_reference(t))


# ------------------------------------------------------------------ order, signal, undo
def test_journal_is_written_and_fsynced_before_the_database_changes(demo, monkeypatch):
    ws = Workspace.open(demo)
    db = ws.database
    ti = _candidate(db)
    ch = change_for(db, 0, ti, "fluency", 3.0, "kim")
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])

    def crash(db_, change):
        assert synced, "the journal was not fsynced before the database changed"
        assert [e.value for e in Journal(journal_path(demo)).entries()] == [3.0]
        raise RuntimeError("died between journal and apply")

    monkeypatch.setattr("evaltrans_qt.workspace.apply_entry", crash)
    seen: list[object] = []
    ws.committed.connect(seen.append)
    with pytest.raises(RuntimeError):
        ws.commit(ch)
    assert _judged(db.sources[0].targets[ti], "fluency") is None   # never applied here
    assert seen == []
    # ... yet the journal has it, and the replay (the next opening) applies it
    ws.close()
    opened = store.open_database(demo)
    assert _judged(opened.database.sources[0].targets[ti], "fluency") == 3.0
    assert len(opened.recovered.applied) == 1


def test_one_signal_per_commit_of_each_kind(demo):
    ws = Workspace.open(demo)
    db = ws.database
    ti = _candidate(db)
    signals: dict[str, list[object]] = {}
    for name in ("committed", "database_modified", "database_changed"):
        getattr(ws, name).connect(lambda *a, n=name: signals.setdefault(n, []).append(a))
    changes = [
        change_for(db, 0, ti, "fluency", 4.0, "kim"),
        pc.postedit_change(db, 0, ti, "kim", "Ein Text ."),
        pc.items_change(db, 0, [(0, 2), (2, 4)]),
        pc.reference_change(db, 1, None, "add", "Eine Referenz .", judge="kim"),
        rc.sentence_ranking_change(db, 2, "kim", {1: 1, 2: 2}, task="t1"),
    ]
    for k, ch in enumerate(changes, 1):
        done = ws.commit(ch)
        assert done.change.seq == k                              # journalled, numbered
        assert signals["committed"][-1] == (done.change,)
        assert len(signals["committed"]) == k                   # exactly one each
    assert set(signals) == {"committed"}
    marks = pc.marks_change(db, 0, ti, "kim", ("OK", "error"))
    ws.commit(marks)
    assert len(signals["committed"]) == len(changes) + 1
    assert ws.is_dirty and len(ws.journal.entries()) == len(changes) + 1


def test_refused_change_leaves_neither_journal_nor_database(demo):
    ws = Workspace.open(demo)
    db = ws.database
    before = dumps(db)
    with pytest.raises(ScoreError):
        ws.commit(change_for(db, 0, _candidate(db), "no-such-class", 1.0, "kim"))
    with pytest.raises(ScoreError):                 # outside the class' levels
        ws.commit(change_for(db, 0, _candidate(db), "fluency", 99.0, "kim"))
    assert ws.journal.entries() == [] and dumps(db) == before and not ws.is_dirty


def test_undo_redo_round_trip_of_each_kind(demo):
    ws = Workspace.open(demo)
    db = ws.database
    ti = _candidate(db)
    db.sources[0].targets[ti].set_score("fluency", 2.0, "kim", "2020-01-01T00:00:00")
    # the first ranking declares the ``rank`` class, which its undo leaves declared
    ws.commit(rc.sentence_ranking_change(db, 5, "ann", {1: 1, 2: 2}, task="t0"))
    original = dumps(db)
    changes = [
        change_for(db, 0, ti, "fluency", 4.0, "kim"),
        change_for(db, 0, ti, "adequacy", 3.0, "kim"),
        pc.postedit_change(db, 0, ti, "kim", "Ein Text ."),
        pc.items_change(db, 0, [(0, 2), (2, 4)]),
        rc.sentence_ranking_change(db, 2, "kim", {1: 1, 2: 2}, task="t1"),
        pc.reference_change(db, 3, _candidate(db, 3), "mark", judge="kim"),
        pc.reference_change(db, 1, None, "add", "Eine Referenz .", judge="kim"),
    ]
    undos = []
    for ch in changes:
        undos.append(ws.commit(ch).inverse)
    after = dumps(db)
    assert after != original
    for inverse in reversed(undos):               # undo: commit the inverse changes
        for u in inverse:
            ws.commit(u)
    assert dumps(db) == original
    for ch in changes:                            # redo: commit the changes again
        ws.commit(ch)
    assert dumps(db) == after
    # the journal of all of it replays to the same database
    n = len(ws.journal.entries())
    ws.close()
    opened = store.open_database(demo)
    assert len(opened.recovered.applied) == n
    assert dumps(opened.database) == after


# ------------------------------------------------------------------ SIGKILL
CHILD = textwrap.dedent(r"""
    import json, sys
    from evaltrans_qt.io import protocol_changes as pc
    from evaltrans_qt.io.journal import change_for
    from evaltrans_qt.io.segranks import changes as rc
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    from evaltrans_qt.workspace import Workspace

    path, kind, save_as = sys.argv[1], sys.argv[2], sys.argv[3]
    ws = Workspace.open(path)
    db = ws.database

    def candidates(si):
        return [j for j, t in enumerate(db.sources[si].targets) if not db.is_reference(t)]

    def plan(k):
        si = k % len(db.sources)
        cands = candidates(si)
        ti = cands[k % len(cands)]
        if kind == "scores":
            return change_for(db, si, ti, ("fluency", "adequacy")[k % 2], float(1 + k % 4),
                              "kim", time="2026-01-01T00:00:00")
        if kind == "protocol":                   # items, marks, post-edit, reference: a cycle
            step, si = k % 4, (k // 4) % len(db.sources)
            ti = candidates(si)[0]
            if step == 0:
                return pc.items_change(db, si, [(0, 1 + k % 2), (1 + k % 2, 4)])
            if step == 1:
                return pc.marks_change(db, si, ti, "kim", ("OK", ("error", "meaning")[k % 2]))
            if step == 2:
                return pc.postedit_change(db, si, ti, "kim", f"Nachbearbeitet {k} .", 1.5)
            return pc.reference_change(db, si, None, "add", f"Referenz {k} .", judge="kim")
        if kind == "ranking":
            picked = cands[:3]
            return rc.sentence_ranking_change(db, si, "kim",
                                              {t: 1 + (t + k) % 3 for t in picked},
                                              task=f"t{k % 7}", time="2026-01-01T00:00:00",
                                              seconds=2.0)
        segged = [i for i, s in enumerate(db.sources) if sentence_segments(s) is not None]
        si = segged[k % len(segged)]
        data = sentence_segments(db.sources[si])
        ranks = {n: [1 + (c + k) % 3 for c in range(len(seg.candidates))]
                 for n, seg in enumerate(data.segments)}
        return rc.segment_ranking_change(db, si, "kim", ranks, task=f"t{k % 5}",
                                         time="2026-01-01T00:00:00", seconds=3.0)

    print("READY", flush=True)
    for k in range(100_000):
        if save_as != "-" and k == 5:
            ws.save(save_as)
            print("SAVED", flush=True)
        ch = plan(k)
        print("WILL " + ch.to_json(), flush=True)
        ws.commit(ch)
        print("DONE", flush=True)
""")


def _killed_child(db_path: Path, kind: str, *, save_as: Path | None = None,
                  kill_after: int) -> tuple[list[str], list[str], str]:
    """Run the child committing ``kind`` changes; SIGKILL it once ``kill_after`` commits
    are done. Returns (changes reported committed, the one being committed, stdout)."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db_path), kind,
                             str(save_as) if save_as else "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    done: list[str] = []
    pending: list[str] = []
    lines: list[str] = []
    deadline = time.monotonic() + 120
    try:
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("WILL "):
                pending = [line[5:].strip()]
            elif line.strip() == "DONE":
                done += pending
                pending = []
                if len(done) >= kill_after:
                    break
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
        err = proc.stderr.read() if proc.stderr is not None else ""
    assert proc.returncode == -signal.SIGKILL, err[-3000:]
    assert len(done) >= kill_after, (err[-3000:], lines[-5:])
    # whatever the child wrote after the last line read: the change it was committing
    rest = proc.stdout.read() if proc.stdout is not None else ""
    for line in rest.splitlines():
        if line.startswith("WILL "):
            pending = [line[5:].strip()]
        elif line.strip() == "DONE":
            done += pending
            pending = []
    return done, pending, "".join(lines) + rest


def _expected(original: Path, entries: list[str]) -> bytes:
    db = load_database(original)
    for raw in entries:
        apply_entry(db, entry_from_dict(json.loads(raw)))
    return dumps(db)


def _check_recovered(path: Path, original: Path, done: list[str], pending: list[str]) -> None:
    """Every change reported committed is in the database as opened, and the one being
    committed when the process died is either wholly there or not at all."""
    opened = store.open_database(path)
    rec = opened.recovered
    assert rec is None or (not rec.missing and not rec.rejected), rec.summary()
    got = dumps(opened.database)
    options = [_expected(original, done)]
    if pending:
        options.append(_expected(original, done + pending))
    assert got in options, f"{len(done)} committed: recovered database differs"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.parametrize("kind", ["scores", "protocol", "ranking", "segranks"])
def test_sigkill_while_committing_loses_nothing(kind, demo, tmp_path):
    if kind == "segranks":
        from tests.ui.conftest import extract_campaign
        path = extract_campaign(tmp_path / "seg")
    else:
        path = demo
    original = tmp_path / "original.etdb.xml"
    shutil.copyfile(path, original)
    seed = random.randrange(1 << 30)
    kill_after = random.Random(seed).randrange(3, 40)
    done, pending, _out = _killed_child(path, kind, kill_after=kill_after)
    assert load_database(path) is not None                     # the file itself untouched
    _check_recovered(path, original, done, pending)
    assert len(Journal(journal_path(path)).entries()) in (len(done), len(done) + len(pending))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_save_as_then_sigkill_recovers_everything_under_the_new_name(demo, tmp_path):
    new = tmp_path / "renamed.etdb.xml"
    kill_after = random.randrange(8, 30)
    done, pending, out = _killed_child(demo, "protocol", save_as=new, kill_after=kill_after)
    assert "SAVED" in out
    before_save, after_save = done[:5], done[5:]
    original = tmp_path / "original.etdb.xml"
    shutil.copyfile(demo_database_path(), original)
    # the new file holds what came before Save As; its journal, what came after
    assert dumps(load_database(new)) == _expected(original, before_save)
    assert not journal_path(demo).exists()                     # moved, not left behind
    _check_recovered(new, original, done, pending)
    assert len(Journal(journal_path(new)).entries()) in (len(after_save),
                                                         len(after_save) + len(pending))


def test_replay_and_live_apply_are_one_function():
    """The journal's replay applies entries with ``apply_entry``, the apply of commit."""
    import inspect

    import evaltrans_qt.workspace as workspace_mod
    assert "apply_entry(db, ch)" in inspect.getsource(journal_mod.replay)
    assert workspace_mod.apply_entry is journal_mod.apply_entry


#: What only the workspace's commit path may call: writing the journal, applying a change.
_COMMIT_ONLY = {"append", "apply_change", "apply_entry", "apply_protocol_change",
                "apply_ranking_change", "replay"}


def test_no_ui_module_journals_or_applies_a_change_itself():
    """Every judgement of the application reaches the database through Workspace.commit:
    no ``ui`` module appends to a journal or calls an apply function itself."""
    import ast
    found = []
    for path in sorted((ROOT / "evaltrans_qt" / "ui").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) \
                else None
            if name not in _COMMIT_ONLY:
                continue
            owner = ast.unparse(f.value) if isinstance(f, ast.Attribute) else ""
            if name == "append" and "journal" not in owner.lower():
                continue                                    # list.append
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(f)}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in (
                    "evaltrans_qt.io.journal", "evaltrans_qt.io.protocol_changes",
                    "evaltrans_qt.io.segranks.changes"):
                bad = {a.name for a in node.names} & _COMMIT_ONLY
                if bad:
                    found.append(f"{path.name}:{node.lineno}: imports {sorted(bad)}")
    assert found == [], "commit through Workspace.commit instead:\n" + "\n".join(found)
