"""``Measure.score_values`` (many statistics rows at once, used by significance tests and
bootstrap intervals) equals ``score(row).value`` for every measure, on real statistics:
sentence rows, system sums, resampled sums and degenerate rows."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.measures import get, load_all
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.io.etdb import demo_database_path, load_database

OPTIONS = EvalOptions(allow_transpositions=True, allow_long_jumps=True)
#: Off by default, on request.
OPT_IN = {"meteor", "ribes", "gleu", "errorclasses"}
NAMES = sorted(n for n, cls in load_all().items() if cls.enabled(OPTIONS) or n in OPT_IN)


@pytest.fixture(scope="module")
def demo_run():
    return evaluate(load_database(demo_database_path()), OPTIONS, NAMES, executor=SerialExecutor())


def test_every_measure_is_checked():
    assert {"bleu", "wer", "per", "cder", "ter", "chrf", "nist", "invwer", "ljwer"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_score_values_equal_score(demo_run, name):
    m = demo_run.measure(name)
    rng = np.random.default_rng(0)
    rows = []
    for s in demo_run.systems.values():
        st = np.asarray(s.stats[name], dtype=float)
        rows.append(st)                                      # sentences
        rows.append(st.sum(axis=0)[None, :])                 # the system
        counts = rng.multinomial(len(st), np.full(len(st), 1.0 / len(st)), size=20)
        rows.append(counts @ st)                             # bootstrap samples
    rows = np.vstack(rows)
    degenerate = np.zeros((2, rows.shape[1]))                # nothing at all; a first
    degenerate[1, 0] = 3.0                                   # statistic without the rest
    rows = np.vstack([rows, degenerate])                     # (e.g. edits, no reference)
    expected = np.array([m.score(r).value for r in rows], dtype=float)
    got = np.asarray(m.score_values(rows), dtype=float)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, equal_nan=True)
    assert np.array_equal(np.isinf(got), np.isinf(expected))


@pytest.mark.parametrize("name", ["wer", "cder", "ter", "bleu"])
def test_vectorised_where_it_matters(name):
    """These override the row-by-row default (the measures significance tests use most)."""
    from evaltrans_qt.engine.measures.base import Measure
    assert get(name).score_values is not Measure.score_values


@pytest.mark.parametrize("eff", [False, True], ids=["", "eff"])
@pytest.mark.parametrize("method, value", [("none", None), ("floor", None), ("floor", 0.0),
                                           ("add-k", None), ("add-k", 0.0), ("exp", None),
                                           ("moses", None), ("moses", 0.0), ("nrc", None),
                                           ("nrc", 0.5)])
def test_bleu_score_values_equal_score_for_every_smoothing(method, value, eff):
    """BLEU's vectorised headline = score(row).value for every smoothing method and value,
    on the demo database's sentence rows, system sums, resampled sums and degenerate rows."""
    options = EvalOptions(bleu_smooth_method=method, bleu_smooth_value=value,
                          bleu_effective_order=eff, bleu_pad_rule="none")
    run = evaluate(load_database(demo_database_path()), options, ["bleu"],
                   executor=SerialExecutor())
    m = run.measure("bleu")
    rng = np.random.default_rng(1)
    rows = []
    for s in run.systems.values():
        st = np.asarray(s.stats["bleu"], dtype=float)
        rows += [st, st.sum(axis=0)[None, :], rng.multinomial(
            len(st), np.full(len(st), 1.0 / len(st)), size=10) @ st]
    width = rows[0].shape[1]
    degenerate = np.zeros((4, width))
    degenerate[1, :2] = (3.0, 5.0)                       # candidate words, no m-gram counted
    degenerate[2, :2] = (0.0, 4.0)                       # empty candidate
    degenerate[3, 2:] = 1.0                              # matches, zero lengths
    rows = np.vstack(rows + [degenerate])
    expected = np.array([m.score(r).value for r in rows])
    got = m.score_values(rows)
    assert np.isfinite(expected).all()
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)
