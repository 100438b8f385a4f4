"""The one bootstrap resampler (``statistics/bootstrap.bootstrap_counts``) draws the sentences
sacreBLEU draws (``sacrebleu/significance.py`` ``_bootstrap_resample``, the resampler of its
``--confidence`` and of the paired bootstrap test, Koehn 2004), for a seed and for a
generator whose draws continue."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.metaeval import significance
from evaltrans_qt.engine.metaeval.statistics.bootstrap import bootstrap_counts, cluster_weights


class _Sums:
    """A sacreBLEU metric stand-in whose score of a resample is its summed statistics."""

    def _compute_score_from_stats(self, stats):
        return np.asarray(stats, dtype=np.float64)


@pytest.mark.parametrize("n, samples, seed", [(1, 5, 12345), (7, 100, 12345), (300, 200, 7)])
def test_counts_are_sacrebleus_resamples(n, samples, seed, monkeypatch):
    from sacrebleu.significance import _bootstrap_resample
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    # one-hot statistics: the sum of a resample counts how often each sentence was drawn
    _, sums = _bootstrap_resample(np.eye(n).tolist(), _Sums(), samples)
    want = np.array(sums)
    assert np.array_equal(bootstrap_counts(n, samples, seed), want)
    assert np.array_equal(bootstrap_counts(n, samples, np.random.default_rng(seed)), want)
    assert significance.bootstrap_counts is bootstrap_counts       # one helper


def test_a_generator_continues_its_draws():
    rng = np.random.default_rng(3)
    first = bootstrap_counts(10, 4, rng)
    second = bootstrap_counts(10, 4, rng)
    both = bootstrap_counts(10, 8, 3)          # one draw of 8 x 10 from the same stream
    assert np.array_equal(np.vstack([first, second]), both)
    assert first.dtype == np.float64 and (first.sum(axis=1) == 10).all()


def test_cluster_weights_draw_groups():
    groups = np.array([0, 0, 1, 2, 2, 2])
    w = cluster_weights(groups, 50, seed=1)
    counts = bootstrap_counts(3, 50, 1)
    assert np.array_equal(w, counts[:, [0, 0, 1, 2, 2, 2]])
