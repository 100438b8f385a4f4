"""The run's time-left estimate (engine.schedule.TimeLeft): a run whose
true pair times scatter around the cost model (as INVWER's do), scheduled longest first on
2 workers as the driver does, is estimated within 2x of its true time left from 10 % of the
wall time on; the row phase is linear; nothing to go by gives None."""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from evaltrans_qt.engine.run.schedule import TimeLeft, schedule_pairs


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
    est = TimeLeft(2)
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
    est = TimeLeft(4)
    assert est.update(5.0, 0, 0) is None                     # tokenising: no total yet
    assert est.update(6.0, 0, 1100) is None                  # fitting: nothing done
    assert est.update(7.0, 0, 1100, 0.0, 50.0) == pytest.approx(50 / 4 * 1.0)
    assert est.update(60.0, 100, 1100, 50.0, 50.0) is None   # pairs over; rows begin now
    assert est.update(70.0, 600, 1100) == pytest.approx(10.0)
    assert est.update(71.0, 1100, 1100) == 0.0


def test_rows_only_run():
    est = TimeLeft(2)
    est.update(1.0, 0, 1000)                                  # the "fitting" event
    assert est.update(3.0, 250, 1000) == pytest.approx(6.0)
