"""The WMT metrics tasks' statistics for one language pair, as mt-metrics-eval's task
sets define them (``tasks.WMT23``, ``tasks.WMT24``, ``tasks.WMT25``), and their average.

A database holds one language pair; each preset lists the (level, grouping, statistic)
components that mt-metrics-eval's task set computes for one pair:

* ``wmt23``: system-level pairwise accuracy (for one pair, ``CompareMetricsWithGlobal
  Accuracy``) and Pearson, segment-level Pearson (no grouping) and acc*_eq grouped by
  item -- equal weights (the accuracy's weight is the number of pairs, here 1);
* ``wmt24``, ``wmt25``: system-level soft pairwise accuracy (1 - pairwise confidence
  error, ``'pce'``) and segment-level acc*_eq grouped by item -- equal weights.

Across language pairs only WMT23 defines a statistic, the system-level pairwise accuracy
over all pairs' systems together (``CompareMetricsWithGlobalAccuracy``); a database holds
one pair, so it is taken over this pair's systems. WMT24 and WMT25 define none (their
system-level statistic is per pair).

The overall score of a measure is ``TaskSetResults.AverageCorrs``: each component mapped
to [0, 1] by its range ((0, 1) for accuracies and acc*_eq, (-1, 1) for correlations),
then the weighted sum. The system level follows the metrics-task data's convention
(:mod:`~evaltrans_qt.engine.metaeval.conventions`, ``mtme``).

Significance clusters (``samples`` > 0; mt-metrics-eval's task sets run with ``k``
resamples, 0 by default, and then compute none): per component as ``data.ComputeSig
Matrix`` does -- metrics sorted by decreasing value (ties by name), for every pair the
p-value that the better one is better, by the pairwise permutation test for acc*_eq
(``perm_test='pairs'``) and PERM-BOTH otherwise (for ``spa`` over the segment scores it
is computed from, as ``CompareMetricsWithPairwiseConfidenceError``), with early stopping
(``PermutationSigDiffParams``), clusters by ``AssignRanks``; for the average as
``TaskSetResults.AverageCorrMatrix``: each component's resampled pair of values mapped
by its range and weight, the differences summed over components (a component with
fewer draws -- early stopping -- repeats its draws), p = share of summed differences >=
the observed difference of the averages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evaltrans_qt.engine.metaeval.metrics_task import MetaEvalData, metrics_table
from evaltrans_qt.engine.metaeval.statistics.grouped import (
    Grouped,
    complete_items,
    soft_pairwise_accuracy,
)
from evaltrans_qt.engine.metaeval.statistics.metric_significance import (
    EarlyStop,
    assign_ranks,
    perm_both,
)
from evaltrans_qt.engine.metaeval.statistics.pair_permutation import perm_pairs
from evaltrans_qt.errors import OptionError

#: (level, grouping, statistic) of each preset's components, equal weights.
TASKS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "wmt23": (("sys", "none", "pairwise-accuracy"), ("sys", "none", "pearson"),
              ("seg", "none", "pearson"), ("seg", "item", "acc-eq")),
    "wmt24": (("sys", "none", "spa"), ("seg", "item", "acc-eq")),
    "wmt25": (("sys", "none", "spa"), ("seg", "item", "acc-eq")),
}
#: The range of each statistic, for the average (mt-metrics-eval ``TaskResults.range``).
RANGES = {"pairwise-accuracy": (0.0, 1.0), "spa": (0.0, 1.0), "acc-eq": (0.0, 1.0),
          "pearson": (-1.0, 1.0), "spearman": (-1.0, 1.0), "pdp": (-1.0, 1.0), "kendall": (-1.0, 1.0)}


def component_name(level: str, grouping: str, statistic: str) -> str:
    return f"{level} {statistic}" + (f" by {grouping}" if grouping != "none" else "")


@dataclass
class TaskRow:
    """One measure's component values (by :func:`component_name`) and their average."""

    measure: str
    negated: bool
    values: dict[str, float] = field(default_factory=dict)
    average: float = math.nan
    #: significance cluster of each component and of the average (empty: not computed)
    clusters: dict[str, int] = field(default_factory=dict)

    def to_dict(self, task: str, human: str, convention: str) -> dict:
        def clean(v: float) -> float | None:
            return v if math.isfinite(v) else None
        return {"task": task, "measure": self.measure, "human": human, "negated": self.negated,
                "convention": convention, **{k: clean(v) for k, v in self.values.items()},
                "average": clean(self.average),
                **({"clusters": dict(self.clusters)} if self.clusters else {})}


def task_table(data: MetaEvalData, task: str, *, seed: int = 0, samples: int = 0,
               alpha: float = 0.05, early_stop: EarlyStop | None = None) -> list[TaskRow]:
    """Every measure of ``data`` under ``task``'s components, best average first; with
    ``samples`` > 0 the significance clusters of every component and of the average
    (module doc; ``early_stop`` default mt-metrics-eval's ``PermutationSigDiffParams``)."""
    if task not in TASKS:
        raise OptionError(f"--task: '{task}' is not one of {', '.join(TASKS)}")
    comps = TASKS[task]
    rows = {m: TaskRow(m, data.negated[m]) for m in data.metrics}
    for level, grouping, statistic in comps:
        for r in metrics_table(data, [statistic], level=level, grouping=grouping, seed=seed):
            rows[r.measure].values[component_name(level, grouping, statistic)] = \
                r.values[statistic]
    weight = 1.0 / len(comps)
    for row in rows.values():
        total = 0.0
        for level, grouping, statistic in comps:
            lo, hi = RANGES[statistic]
            total += weight * (row.values[component_name(level, grouping, statistic)] - lo) \
                / (hi - lo)
        row.average = total
    if samples > 0:
        _clusters(data, rows, comps, seed, samples, alpha, early_stop or EarlyStop())
    return sorted(rows.values(), key=lambda r: (-r.average if math.isfinite(r.average)
                                                else math.inf, r.measure))


def _ordered(values: dict[str, float]) -> list[str]:
    """Metrics by decreasing value, ties (and NaN, last) by name, as mt-metrics-eval."""
    return sorted(values, key=lambda m: (-values[m] if math.isfinite(values[m]) else math.inf, m))


def _component_draws(data: MetaEvalData, names: list[str], level: str, grouping: str,
                     statistic: str, seed: int, samples: int, early_stop: EarlyStop
                     ) -> tuple[np.ndarray, dict[tuple[int, int], np.ndarray]]:
    """p[i, j] (i before j in ``names``) and the resampled (value i, value j) pairs."""
    k = len(names)
    p = np.full((k, k), np.nan)
    draws: dict[tuple[int, int], np.ndarray] = {}
    if statistic == "spa":
        items = complete_items(data.gold, *(data.metrics[m] for m in names))
        gold = data.gold[:, items]
        vecs = [data.metrics[m][:, items].ravel() for m in names]

        def stat(v: np.ndarray) -> float:
            return soft_pairwise_accuracy(gold, v.reshape(gold.shape))
        g = None
    else:
        if level == "sys":
            g = Grouped(data.sys_gold)
            vecs = [g.cells(data.sys_metrics[m]) for m in names]
        else:
            g = Grouped(data.gold, grouping)
            vecs = [g.cells(data.metrics[m]) for m in names]
        gg = g

        def stat(v: np.ndarray) -> float:
            if statistic == "pearson":
                return gg.pearson(v, cells=True)
            if statistic == "pairwise-accuracy":
                return gg.pairwise_accuracy(v, cells=True)
            return gg.acc_eq(v, cells=True, seed=seed).value
    eps = ([g.acc_eq(v, cells=True, seed=seed).epsilon for v in vecs]
           if statistic == "acc-eq" and g is not None else [])
    for i in range(k):
        for j in range(i + 1, k):
            got: list[tuple[float, float]] = []
            if statistic == "acc-eq" and g is not None:
                p[i, j], _, _ = perm_pairs(vecs[i], vecs[j], g.human, g.gid, eps[i], eps[j],
                                           samples=samples, seed=seed + i * k + j,
                                           early_stop=early_stop, draws=got)
            else:
                p[i, j], _, _ = perm_both(stat, vecs[i], vecs[j], samples, seed + i * k + j,
                                          early_stop=early_stop, draws=got)
            draws[(i, j)] = np.asarray(got, float).reshape(-1, 2)
    return p, draws


def _clusters(data: MetaEvalData, rows: dict[str, TaskRow],
              comps: tuple[tuple[str, str, str], ...], seed: int, samples: int, alpha: float,
              early_stop: EarlyStop) -> None:
    """Fill each row's clusters (module doc): per component, then of the average."""
    weight = 1.0 / len(comps)
    per_comp = []
    for level, grouping, statistic in comps:
        name = component_name(level, grouping, statistic)
        names = _ordered({m: r.values[name] for m, r in rows.items()})
        p, draws = _component_draws(data, names, level, grouping, statistic, seed, samples,
                                    early_stop)
        for m, rank in zip(names, assign_ranks(p, alpha)):
            rows[m].clusters[name] = rank
        per_comp.append((names, draws, RANGES[statistic]))
    avg = _ordered({m: r.average for m, r in rows.items()})
    k = len(avg)
    p = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i + 1, k):
            parts = []
            for names, draws, (lo, hi) in per_comp:
                a, b = names.index(avg[i]), names.index(avg[j])
                d = draws[(min(a, b), max(a, b))]
                if a > b:
                    d = d[:, ::-1]
                parts.append(weight * ((d[:, 0] - lo) - (d[:, 1] - lo)) / (hi - lo))
            longest = max(len(x) for x in parts)
            if longest == 0:
                continue
            total = np.zeros(longest)
            for x in parts:
                total += np.tile(x, int(np.ceil(longest / len(x))))[:longest]
            p[i, j] = float(np.mean(total >= rows[avg[i]].average - rows[avg[j]].average))
    for m, rank in zip(avg, assign_ranks(p, alpha)):
        rows[m].clusters["average"] = rank


def format_task_table(rows: Sequence[TaskRow], task: str, human: str, convention: str) -> str:
    """A text table: measures best first, one column per component and the average."""
    if not rows:
        return ""
    comps = list(rows[0].values)
    ranked = bool(rows[0].clusters)
    width = max(10, *(len(r.measure) + 2 for r in rows))
    lines = [f"{task.upper()} metrics task (mt-metrics-eval tasks.{task.upper()}, one language "
             f"pair) against human '{human}'; system level: {convention} convention; "
             "error measures negated (*)"]
    w = 27 if ranked else 22

    def cell(v: float, rank: int | None) -> str:
        text = f"{v:.4f}" if math.isfinite(v) else "-"
        return f"{text + (f' ({rank})' if rank is not None else ''):>{w}}"

    head = f"{'measure':<{width}}" + "".join(f"{c:>{w}}" for c in comps) \
        + f"{'average':>{15 if ranked else 10}}"
    lines += [head, "-" * len(head)]
    for r in rows:
        cells = "".join(cell(r.values[c], r.clusters.get(c)) for c in comps)
        avg = cell(r.average, r.clusters.get("average"))[w - (15 if ranked else 10):]
        lines.append(f"{r.measure + ('*' if r.negated else ''):<{width}}{cells}{avg}")
    lines.append("average: each value mapped to [0, 1] by its range, equal weights "
                 "(mt-metrics-eval TaskSetResults.AverageCorrs)")
    if ranked:
        lines.append("(n) = significance cluster (mt-metrics-eval AssignRanks): a metric starts "
                     "a new cluster when one of the current cluster is significantly better; "
                     "acc-eq by the pairwise permutation test, others by PERM-BOTH, the "
                     "average from the components' resamples (TaskSetResults.AverageCorrMatrix)")
    else:
        lines.append("no significance clusters (0 resamples, as mt-metrics-eval's task sets "
                     "by default; --resamples K computes them)")
    return "\n".join(lines) + "\n"


__all__ = ["TASKS", "RANGES", "TaskRow", "task_table", "format_task_table", "component_name"]
