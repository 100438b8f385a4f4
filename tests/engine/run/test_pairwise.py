"""The driver's pair phase (expensive distance measures, INVWER): the same numbers as the
plain row chunks, pairs computed once, most expensive first, cancel, cheap measures untouched."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaltrans_qt.engine.measures import invwer
from evaltrans_qt.engine.measures.base import Measure, MeasureScore
from evaltrans_qt.engine.measures.invwer import INVWER
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.corpus import build_corpus
from evaltrans_qt.engine.run.driver import Progress, _shared_rows, evaluate, iter_evaluate
from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
from evaltrans_qt.engine.run.results import SystemResult
from evaltrans_qt.engine.run.schedule import (
    BATCH_MAX_SECONDS,
    BATCH_MIN_SECONDS,
    pair_batches,
    schedule_pairs,
)
from evaltrans_qt.engine.run.work import PairBatch
from evaltrans_qt.errors import Cancelled
from evaltrans_qt.io.etdb import demo_database_path, load_database

OPTS = EvalOptions(allow_transpositions=True)


def _db():
    """The demo database plus a system copying ref-A (leaving-one-out has work to do) and a
    system repeating another one's sentences (shared pairs)."""
    db = load_database(demo_database_path())
    systems = db.systems()
    for src in db.sources:
        refs = db.references(src)
        db.add_target(src, refs[0].text, "Copy")
        other = next(t for t in src.targets if t.system == systems[0])
        db.add_target(src, other.text, "Twin")
    return db


def _plain(monkeypatch, db, options, executor, systems=None):
    """The plain row-chunk path (INVWER without a pair cost)."""
    with monkeypatch.context() as mp:
        mp.setattr(INVWER, "pair_cost", lambda self, i, l: 0.0)
        return evaluate(db, options, ["invwer", "wer"], systems, executor=executor,
                        reference_distances=True, chunk_size=7)


def _same(a, b):
    assert list(a.systems) == list(b.systems)
    for s in a.systems:
        for m in ("invwer", "wer"):
            np.testing.assert_array_equal(a.systems[s].stats[m], b.systems[s].stats[m])
            np.testing.assert_array_equal(a.systems[s].ref_distances[m],
                                          b.systems[s].ref_distances[m])
            assert a.systems[s].scores[m] == b.systems[s].scores[m]


@pytest.mark.parametrize("loo", [(), ("invwer", "wer")])
@pytest.mark.parametrize("make", [SerialExecutor, lambda: LocalProcessExecutor(2)])
def test_pairwise_equals_plain_chunks(monkeypatch, loo, make):
    db = _db()
    options = EvalOptions(allow_transpositions=True, leaving_one_out=loo)
    systems = db.systems() + ["ref-B"]          # a reference evaluated against the others
    with make() as ex:
        events: list = []
        pairwise = evaluate(db, options, ["invwer", "wer"], systems, executor=ex,
                            reference_distances=True, chunk_size=7, progress=events.append)
        plain = _plain(monkeypatch, db, options, ex, systems)
    assert any("sentence pairs" in e.message for e in events)
    _same(pairwise, plain)
    # leaving-one-out really changed something for the copying system
    copy = pairwise.systems["Copy"].stats["invwer"][:, 0]
    assert (copy.sum() > 0) == bool(loo)


def test_each_distinct_pair_computed_once_in_the_pair_phase(monkeypatch):
    db = _db()
    calls: list[tuple[int, int]] = []
    original = INVWER.pair_value

    def counting(self, hyp, ref):
        calls.append((len(hyp), len(ref)))
        return original(self, hyp, ref)

    monkeypatch.setattr(INVWER, "pair_value", counting)
    # every pair "expensive" (a task of its own), so the call order is the cost order
    monkeypatch.setattr(invwer, "PAIR_SECONDS", 1.0)
    events: list = []
    evaluate(db, OPTS, ["invwer"], executor=SerialExecutor(), reference_distances=True,
             progress=events.append)
    # 6 systems x 20 segments x 3 references; Twin repeats a system: its pairs are not new
    # (and its rows are copied, not computed: the progress counts the rows computed)
    _, rows, _, _ = build_corpus(db, OPTS)
    n_rows = sum(len(v) for v in _shared_rows(rows)[0].values())
    assert n_rows < 6 * 20
    n_pairs = int(events[-1].total) - n_rows
    assert len(calls) == n_pairs <= 5 * 20 * 3
    cost = [(i * l) ** 2 for i, l in calls]
    assert cost == sorted(cost, reverse=True) and cost[0] > cost[-1]


def test_progress_moves_through_pairs_then_rows():
    events = [e for e in iter_evaluate(_db(), OPTS, ["invwer"], executor=SerialExecutor())
              if isinstance(e, Progress) and e.total]
    pairs = [e for e in events if "sentence pairs" in e.message]
    assert pairs and pairs[-1].message.startswith("INVWER: ")
    assert pairs[-1].message.split(": ")[1] == f"{pairs[-1].done} of {pairs[-1].done} sentence pairs"
    done = [e.done for e in events if e.total == events[-1].total]
    assert done == sorted(done) and done[-1] == events[-1].total


@pytest.mark.parametrize("make", [SerialExecutor, lambda: LocalProcessExecutor(2)])
def test_cancel_during_pair_phase(make):
    ev = threading.Event()
    seen = []
    with make() as ex:
        with pytest.raises(Cancelled):
            for e in iter_evaluate(_db(), OPTS, ["invwer"], executor=ex, cancel=ev):
                seen.append(e)
                if isinstance(e, Progress) and e.done > 0:
                    assert "sentence pairs" in e.message
                    ev.set()
    assert not any(isinstance(e, SystemResult) for e in seen)


def test_cheap_measures_have_no_pair_phase():
    db = _db()
    events: list = []
    run = evaluate(db, OPTS, ["wer", "per", "ljwer"], executor=SerialExecutor(),
                   progress=events.append)
    assert not any("sentence pairs" in e.message for e in events)
    # the rows computed: a row another system already has is copied (driver._shared_rows)
    _, rows, _, _ = build_corpus(db, OPTS)
    assert events[-1].total == sum(len(v) for v in _shared_rows(rows)[0].values())
    assert events[-1].total < sum(len(s.segments) for s in run.systems.values())


# --------------------------------------------------------------------------- scheduling
def test_schedule_pairs_example():
    # total 8.02 s, 2 workers -> bound 0.25 s: 5 and 3 alone, the two small ones together
    assert schedule_pairs([5.0, 0.01, 3.0, 0.01], 2) == [[0], [2], [1, 3]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 30.0, allow_nan=False), max_size=60), st.integers(1, 8))
def test_schedule_pairs_properties(costs, workers):
    tasks = schedule_pairs(costs, workers)
    assert sorted(k for t in tasks for k in t) == list(range(len(costs)))
    task_cost = [sum(costs[k] for k in t) for t in tasks]
    assert task_cost == sorted(task_cost, reverse=True)
    bound = min(BATCH_MAX_SECONDS, max(BATCH_MIN_SECONDS, sum(costs) / (16 * workers)))
    for t, c in zip(tasks, task_cost):
        if len(t) > 1:
            assert c <= bound + 1e-9 and all(costs[k] < bound for k in t)
    assert all(len(t) == 1 for t in tasks if costs[t[0]] >= bound)


def test_pair_batches_only_for_costly_measures():
    from evaltrans_qt.engine.measures import get
    from evaltrans_qt.engine.run.corpus import build_corpus
    db = _db()
    vocab, rows, fit, _ = build_corpus(db, OPTS)
    fitted = {}
    for name in ("wer", "ljwer", "invwer"):
        fitted[name] = get(name)(OPTS)
        fitted[name].fit(fit, vocab)
    batches, keys, counts = pair_batches(fitted, rows, frozenset(), 2)
    assert set(counts) == {"invwer"} and {b.measure for b in batches} == {"invwer"}
    assert [len(k) for k in keys] == [len(b.pairs) for b in batches]
    assert sum(len(b.pairs) for b in batches) == counts["invwer"]
    costs = [b.cost for b in batches]
    assert costs == sorted(costs, reverse=True)


# --------------------------------------------------------------------------- executor
class _Sleepy(Measure):
    """Test-only: each pair value sleeps ``seconds``; its start (the pair's first token, or
    with ``pid`` the worker's process id) is appended to a file."""

    name = "sleepy"
    long_name = report_element = "sleepy"

    def __init__(self, log: str, seconds: float = 0.2, pid: bool = False) -> None:
        super().__init__()
        self.log = log
        self.seconds = seconds
        self.pid = pid

    @property
    def stat_names(self):
        return ["x"]

    def sentence_stats(self, seg):
        return np.zeros(1)

    def score(self, stats):
        return MeasureScore(self.name, 0.0)

    def pair_value(self, hyp, ref):
        with open(self.log, "a") as fh:
            fh.write(f"{os.getpid() if self.pid else int(hyp[0])}\n")
        time.sleep(self.seconds)
        return int(hyp[0])


def test_process_executor_starts_in_order_and_nothing_after_cancel(tmp_path):
    log = tmp_path / "starts.txt"
    m = _Sleepy(str(log))
    batches = [PairBatch("sleepy", ((np.array([k], np.int32), np.array([0], np.int32)),), 1.0)
               for k in range(12)]
    ev = threading.Event()
    got = []
    with LocalProcessExecutor(2) as ex:
        with pytest.raises(Cancelled):
            for idx, values in ex.run({"sleepy": m}, batches, ev):
                assert values == [idx]
                got.append(idx)
                if len(got) == 3:
                    ev.set()
        time.sleep(0.6)
    starts = [int(x) for x in log.read_text().split()]
    # items start in the given order; three finished, at most two more were running
    assert sorted(starts) == list(range(len(starts))) and 3 <= len(starts) <= 5


def test_expensive_measures_get_all_cores(monkeypatch):
    from evaltrans_qt.engine.run.executors import local as ev
    monkeypatch.setattr(ev.os, "cpu_count", lambda: 2)
    assert isinstance(ev.choose_executor(10, 1), SerialExecutor)
    ex = ev.choose_executor(10, 1, expensive=True)
    assert isinstance(ex, LocalProcessExecutor)
    ex.close()


def test_has_expensive_pairs_names_the_measures_with_a_pair_phase():
    from evaltrans_qt.engine.run.schedule import has_expensive_pairs
    assert has_expensive_pairs(["wer", "invwer"])
    assert not has_expensive_pairs(["wer", "bleu", "ljwer", "cder"])


def test_cancel_stops_running_items_and_the_executor_runs_again(tmp_path):
    """A cancelled run does not leave workers busy with long items (an INVWER pair can take
    a minute); the same executor then runs the next job on a fresh pool."""
    log = tmp_path / "pids.txt"
    stuck = _Sleepy(str(log), seconds=60, pid=True)   # a minute per pair
    batches = [PairBatch("sleepy", ((np.array([k], np.int32), np.array([0], np.int32)),), 1.0)
               for k in range(4)]
    ev = threading.Event()
    with LocalProcessExecutor(2) as ex:
        def cancel_when_both_started():
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if log.exists() and len(log.read_text().split()) >= 2:
                    break
                time.sleep(0.05)
            ev.set()
        threading.Thread(target=cancel_when_both_started, daemon=True).start()
        t0 = time.monotonic()
        with pytest.raises(Cancelled):
            list(ex.run({"sleepy": stuck}, batches, ev))
        assert time.monotonic() - t0 < 30
        pids = [int(x) for x in log.read_text().split()]
        assert len(pids) == 2
        for pid in pids:                        # the workers are gone, not sleeping on
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        quick = _Sleepy(str(tmp_path / "quick.txt"))
        out = dict(ex.run({"sleepy": quick}, batches[:2]))
        assert out == {0: [0], 1: [1]}
