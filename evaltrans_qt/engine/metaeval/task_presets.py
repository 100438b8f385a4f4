"""The WMT metrics tasks' statistics for one language pair, as mt-metrics-eval's task
sets define them (``tasks.WMT23``, ``tasks.WMT24``, ``tasks.WMT25``), and their average.

A database holds one language pair; each preset lists the (level, grouping, statistic)
components that mt-metrics-eval's task set computes for one pair:

* ``wmt23``: system-level pairwise accuracy (for one pair, ``CompareMetricsWithGlobal
  Accuracy``) and Pearson, segment-level Pearson (no grouping) and acc*_eq grouped by
  item -- equal weights (the accuracy's weight is the number of pairs, here 1);
* ``wmt24``, ``wmt25``: system-level soft pairwise accuracy (1 - pairwise confidence
  error, ``'pce'``) and segment-level acc*_eq grouped by item -- equal weights.

The overall score of a measure is ``TaskSetResults.AverageCorrs``: each component mapped
to [0, 1] by its range ((0, 1) for accuracies and acc*_eq, (-1, 1) for correlations),
then the weighted sum. Significance clusters are not part of this table (mt-metrics-eval
computes them per component with permutation tests: ``evaltrans significance
--between-metrics``). The system level follows the metrics-task data's convention
(:mod:`~evaltrans_qt.engine.metaeval.conventions`, ``mtme``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from evaltrans_qt.engine.metaeval.metrics_task import MetaEvalData, metrics_table
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

    def to_dict(self, task: str, human: str, convention: str) -> dict:
        def clean(v: float) -> float | None:
            return v if math.isfinite(v) else None
        return {"task": task, "measure": self.measure, "human": human, "negated": self.negated,
                "convention": convention, **{k: clean(v) for k, v in self.values.items()},
                "average": clean(self.average)}


def task_table(data: MetaEvalData, task: str, *, seed: int = 0) -> list[TaskRow]:
    """Every measure of ``data`` under ``task``'s components, best average first."""
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
    return sorted(rows.values(), key=lambda r: (-r.average if math.isfinite(r.average)
                                                else math.inf, r.measure))


def format_task_table(rows: Sequence[TaskRow], task: str, human: str, convention: str) -> str:
    """A text table: measures best first, one column per component and the average."""
    if not rows:
        return ""
    comps = list(rows[0].values)
    width = max(10, *(len(r.measure) + 2 for r in rows))
    lines = [f"{task.upper()} metrics task (mt-metrics-eval tasks.{task.upper()}, one language "
             f"pair) against human '{human}'; system level: {convention} convention; "
             "error measures negated (*)"]
    head = f"{'measure':<{width}}" + "".join(f"{c:>22}" for c in comps) + f"{'average':>10}"
    lines += [head, "-" * len(head)]
    for r in rows:
        cells = "".join(f"{r.values[c]:>22.4f}" if math.isfinite(r.values[c]) else f"{'-':>22}"
                        for c in comps)
        avg = f"{r.average:>10.4f}" if math.isfinite(r.average) else f"{'-':>10}"
        lines.append(f"{r.measure + ('*' if r.negated else ''):<{width}}{cells}{avg}")
    lines.append("average: each value mapped to [0, 1] by its range, equal weights "
                 "(mt-metrics-eval TaskSetResults.AverageCorrs)")
    return "\n".join(lines) + "\n"


__all__ = ["TASKS", "RANGES", "TaskRow", "task_table", "format_task_table", "component_name"]
