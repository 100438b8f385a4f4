"""--task clusters: per component and for the average, as mt-metrics-eval's task sets
compute them (data.ComputeSigMatrix with perm_test 'pairs' for acc*_eq and PERM-BOTH
over PairwiseConfidenceError for spa, AssignRanks, TaskSetResults.AverageCorrMatrix) --
rebuilt here from the vendored stats.py with the same seeds, pair by pair."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

from evaltrans_qt.engine.metaeval.metrics_task import MetaEvalData
from evaltrans_qt.engine.metaeval.statistics.metric_significance import assign_ranks
from evaltrans_qt.engine.metaeval.task_presets import format_task_table, task_table

VENDOR = Path(__file__).resolve().parents[2] / "vendor"
if str(VENDOR) not in sys.path:
    sys.path.insert(0, str(VENDOR))
from mt_metrics_eval import stats as mstats  # noqa: E402  (vendored)

S, N, K = 5, 12, 25


@pytest.fixture(scope="module")
def data() -> MetaEvalData:
    rng = np.random.default_rng(12)
    gold = rng.integers(0, 6, (S, N)).astype(float) + np.arange(S)[:, None] * 0.7
    mats = {"good": gold + rng.normal(0, 0.8, (S, N)),
            "fair": gold + rng.normal(0, 2.5, (S, N)),
            "noise": rng.normal(0, 1, (S, N)).round(1),
            "worse": -gold + rng.normal(0, 0.5, (S, N))}
    return MetaEvalData("h", [f"s{k}" for k in range(S)], [(j, 0) for j in range(N)], gold,
                        mats, gold.mean(axis=1), {m: v.mean(axis=1) for m, v in mats.items()},
                        {m: False for m in mats}, "mtme")


def _corr(gold, metric):
    return mstats.Correlation(S, [float(x) for x in gold.ravel()],
                              [float(x) for x in metric.ravel()])


def test_clusters_equal_mt_metrics_evals_task_pipeline(data):
    rows = {r.measure: r for r in task_table(data, "wmt24", seed=3, samples=K)}
    corrs = {m: _corr(data.gold, v) for m, v in data.metrics.items()}
    pce = functools.partial(mstats.PairwiseConfidenceError, num_sys=S, filter_nones=False)
    comps = {"sys spa": [], "seg acc-eq by item": []}
    results = {}
    for comp in comps:
        values = {m: r.values[comp] for m, r in rows.items()}
        names = sorted(values, key=lambda m: (-values[m], m))
        k = len(names)
        p, draws = np.zeros((k, k)), {}
        for i in range(k):
            for j in range(i + 1, k):
                np.random.seed(3 + i * k + j)
                if comp == "sys spa":
                    p[i, j], _, _, d = mstats.PermutationSigDiff(
                        corrs[names[j]], corrs[names[i]], pce, "none", K)
                else:
                    p[i, j], _, _, d = mstats.PairwisePermutationSigDiff(
                        corrs[names[j]], corrs[names[i]], "acc23", "item", K, sample_rate=1.0)
                draws[(names[i], names[j])] = np.asarray(d)
        for m, rank in zip(names, assign_ranks(p, 0.05)):
            assert rows[m].clusters[comp] == rank, (comp, m)
        results[comp] = draws
    # TaskSetResults.AverageCorrMatrix over the two components' draws (ranges (0, 1))
    avg = sorted(rows, key=lambda m: (-rows[m].average, m))
    k = len(avg)
    p = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            per = []
            for draws in results.values():
                d = draws.get((avg[i], avg[j]))
                d = d if d is not None else draws[(avg[j], avg[i])][:, [1, 0]]
                per.append(0.5 * (d[:, 0] - d[:, 1]))
            longest = max(len(x) for x in per)
            null = sum(np.tile(x, int(np.ceil(longest / len(x))))[:longest] for x in per)
            p[i, j] = np.mean(null >= rows[avg[i]].average - rows[avg[j]].average)
    assert [rows[m].clusters["average"] for m in avg] == assign_ranks(p, 0.05)
    assert rows["good"].clusters["average"] == 1 and rows["worse"].clusters["average"] > 1


def test_table_shows_clusters_only_when_computed(data):
    plain = format_task_table(task_table(data, "wmt24"), "wmt24", "h", "mtme")
    assert "no significance clusters" in plain and "(1)" not in plain
    ranked = task_table(data, "wmt24", samples=10)
    text = format_task_table(ranked, "wmt24", "h", "mtme")
    assert "(1)" in text and "AssignRanks" in text
    assert ranked[0].to_dict("wmt24", "h", "mtme")["clusters"]["average"] == 1
