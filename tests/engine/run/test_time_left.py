"""The run's time-left estimate (engine.schedule.TimeLeft): a run whose
true pair times scatter around the cost model (as INVWER's do), scheduled longest first on
2 workers as the driver does, is estimated within 2x of its true time left from 10 % of the
wall time on; the row phase is linear; nothing to go by gives None. On a busy machine (a
fake load average) the estimate counts the cores actually available and never grows past
MODEL_SLACK times the cost model's seconds left on them, however long nothing finishes."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from evaltrans_qt.engine.run.schedule import (
    MODEL_SLACK,
    TimeLeft,
    available_cores,
    schedule_pairs,
)


def _idle(workers: int) -> TimeLeft:
    """An estimate on an idle machine with a CPU per worker (no real load average)."""
    return TimeLeft(workers, load=lambda: 0.0, cpus=workers)


def _run(costs: np.ndarray, times: np.ndarray, workers: int):
    """(finish time, model cost) of each task of the driver's schedule, in finish order."""
    tasks = schedule_pairs(list(costs), workers)
    free = [0.0] * workers
    done = []
    for g in tasks:
        s = heapq.heappop(free)
        end = s + float(times[g].sum())
        heapq.heappush(free, end)
        done.append((end, float(costs[g].sum())))
    return sorted(done)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0])     # a machine 2x faster / slower
def test_pair_phase_within_2x_after_10_percent(seed, scale):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, 120, 3000)
    costs = 2e-8 * (lengths * (lengths + rng.integers(-5, 6, 3000))) ** 2.0
    # same-length pairs differ widely: lognormal noise, sigma 0.8 (x0.2 .. x5 at 2 sigma)
    times = scale * costs * rng.lognormal(0.0, 0.8, len(costs)) + 5e-5
    done = _run(costs, times, 2)
    end = done[-1][0]
    est = _idle(2)
    c_total = float(costs.sum())
    assert est.update(0.0, 0, 4000, 0.0, c_total) == pytest.approx(c_total / 2)
    c_done = 0.0
    checked = 0
    for t, c in done[:-1]:
        c_done += c
        left = est.update(t, 0, 4000, c_done, c_total)
        if t >= 0.1 * end and end - t > 0.02 * end:
            assert 0.5 <= left / (end - t) <= 2.0, (t / end, left, end - t)
            checked += 1
    assert checked > 10


def test_rows_linear_from_the_end_of_the_pairs_and_none_without_data():
    est = _idle(4)
    assert est.update(5.0, 0, 0) is None                     # tokenising: no total yet
    assert est.update(6.0, 0, 1100) is None                  # fitting: nothing done
    assert est.update(7.0, 0, 1100, 0.0, 50.0) == pytest.approx(50 / 4 * 1.0)
    assert est.update(60.0, 100, 1100, 50.0, 50.0) is None   # pairs over; rows begin now
    assert est.update(70.0, 600, 1100) == pytest.approx(10.0)
    assert est.update(71.0, 1100, 1100) == 0.0


def test_rows_only_run():
    est = _idle(2)
    est.update(1.0, 0, 1000)                                  # the "fitting" event
    assert est.update(3.0, 250, 1000) == pytest.approx(6.0)


def test_available_cores_from_load_and_cpus():
    assert available_cores(2, 0.0, 2) == 2.0                 # idle: a CPU per worker
    assert available_cores(2, 1.5, 2) == 2.0                 # load lags: never below own workers
    assert available_cores(8, 0.0, 2) == 2.0                 # no more than the CPUs
    assert available_cores(2, 8.0, 2) == pytest.approx(0.5)  # 8 runnable on 2 CPUs: 1/4 each
    assert available_cores(1, 4.0, 2) == pytest.approx(0.5)
    assert available_cores(0, 0.0, 4) == 1.0                 # a serial run is one worker


def test_busy_machine_model_estimate_counts_available_cores():
    idle = TimeLeft(2, load=lambda: 0.0, cpus=2)
    busy = TimeLeft(2, load=lambda: 8.0, cpus=2)
    assert idle.update(0.0, 0, 100, 0.0, 600.0) == pytest.approx(300.0)
    assert busy.update(0.0, 0, 100, 0.0, 600.0) == pytest.approx(1200.0)   # 0.5 cores


def test_never_grows_past_the_model_when_nothing_finishes():
    # the INVWER case: a busy machine, long pairs first, nothing finishing for hours; the
    # measured pace alone would call it 5 s left more per second waited (thousands of minutes)
    load = [8.0]
    est = TimeLeft(2, load=lambda: load[0], cpus=2)
    cost_total = 600.0
    cap = MODEL_SLACK * cost_total / 0.5
    seen = []
    for t in range(0, 4 * 3600, 10):                          # a fake clock, every 10 s
        left = est.update(float(t), 0, 300, 0.0, cost_total)
        assert left is not None and 0 < left <= cap + 1e-9
        seen.append(left)
    assert seen[0] == pytest.approx(cost_total / 0.5)
    assert seen[-1] == pytest.approx(cap)                     # held at the cap, not 5x elapsed
    # the uncapped pace at the end would have been far past it
    prior = 0.2 * cost_total
    assert cost_total * (4 * 3600 - 10 + prior / 0.5) / prior > 10 * cap
    # the machine frees up: the cap follows the cores available now
    load[0] = 0.0
    assert est.update(4 * 3600.0, 0, 300, 0.0, cost_total) == pytest.approx(
        MODEL_SLACK * cost_total / 2)


def test_slow_progress_capped_but_fast_progress_kept():
    est = TimeLeft(2, load=lambda: 2.0, cpus=2)
    est.update(0.0, 0, 300, 0.0, 1000.0)                      # the pair phase begins
    # 10 of 1000 model-seconds in 500 s: the pace says far more than twice the model
    left = est.update(500.0, 0, 300, 10.0, 1000.0)
    assert left == pytest.approx(MODEL_SLACK * 990.0 / 2)
    # a fast machine: 500 of 1000 model-seconds in 100 s; the pace (below the cap) is kept
    fast = TimeLeft(2, load=lambda: 2.0, cpus=2)
    fast.update(0.0, 0, 300, 0.0, 1000.0)
    left = fast.update(100.0, 0, 300, 500.0, 1000.0)
    assert left == pytest.approx(500.0 * (100.0 + 100.0) / (500.0 + 200.0))
    assert left < 990.0 / 2


def test_reads_the_machine_by_default():
    est = TimeLeft(3)
    assert est.cpus >= 1
    assert 0 < est.cores() <= min(3, est.cpus)
