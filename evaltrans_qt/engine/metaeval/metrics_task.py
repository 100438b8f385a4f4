"""Meta-evaluation as the WMT metrics task does it (mt-metrics-eval): every measure of a
run -- ours and external ones -- against one human class, with the statistics of
:mod:`~evaltrans_qt.engine.metaeval.statistics.grouped` and significance clusters.

:func:`gather` turns a database and a run into (systems x items) matrices: gold = the
human class (aggregated over judges, NaN = not scored), one matrix per measure (its
sentence values, negated for error measures so higher = better), and system-level
vectors as a system-level convention defines them
(:mod:`~evaltrans_qt.engine.metaeval.conventions`; default mt-metrics-eval's: a measure's
own system score -- for external metrics the sys file's score when given -- and the
plain mean of the human segment scores). References are never items (they are not
candidates).

:func:`metrics_table` gives each measure's statistics at one level
(``seg``: the matrices under a grouping; ``sys``: the system vectors):

* ``pearson``, ``spearman`` (``Correlation.Spearman``), ``pdp`` (Pairwise Difference Pearson, ``Correlation.Pearson(pdp=True)``:
  one r over the within-group pairs' differences),
  ``kendall`` (variant a/b/c, mt-metrics-eval ``Correlation.Pearson`` /
  ``KendallVariants``), ``pairwise-accuracy`` (Kocmi et al. 2021; ``stats.Agreement``),
  ``acc-eq`` (acc*_eq with tie calibration, Deutsch et al. 2023; the epsilon is
  reported; or acc_23 at a given epsilon, ``KendallVariants(variant='acc23', epsilon)``),
  ``kendall-like`` (WMT20's Kendall-like tau over the pairs whose human scores differ
  by at least a threshold, ``Correlation.KendallLike``) and, at system level, ``spa`` (soft pairwise accuracy = 1 - pairwise
  confidence error, Thompson et al. 2024; mt-metrics-eval
  ``Correlation.PairwiseConfidenceError``: p-values from the segment scores of the items
  every system has, whatever the grouping).

:func:`metric_significance` compares all measures on one statistic: p-values between
every two metrics (PERM-BOTH, Williams, or for acc-eq the pairwise permutation test of
the WMT23-WMT25 tasks, ``perm-pairs``) and the clusters of
:func:`~evaltrans_qt.engine.metaeval.statistics.metric_significance.assign_ranks`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evaltrans_qt.engine.metaeval import conventions
from evaltrans_qt.engine.metaeval.conventions import DEFAULT_CONVENTION, DEFAULT_SUBSET
from evaltrans_qt.engine.metaeval.metadata import Where
from evaltrans_qt.engine.metaeval.statistics.grouped import (
    GROUPINGS,
    Grouped,
    complete_items,
    soft_pairwise_accuracy,
)
from evaltrans_qt.engine.metaeval.statistics.metric_significance import (
    EarlyStop,
    assign_ranks,
    significance_matrix,
    williams_test,
)
from evaltrans_qt.errors import OptionError, ScoreError

STATISTICS = ("pearson", "spearman", "pdp", "kendall", "kendall-like", "pairwise-accuracy",
              "acc-eq", "spa")
#: Statistics whose p-value of r ``metrics_table(p_values=True)`` gives (scipy's, per group).
P_VALUE_STATISTICS = ("pearson", "spearman", "kendall")
LEVELS = ("seg", "sys")
METHODS = ("perm-both", "williams", "perm-pairs")


@dataclass
class MetaEvalData:
    """Matrices of one human class and a run's measures (see module doc)."""

    human: str
    systems: list[str]
    items: list[tuple[int, int]]
    gold: np.ndarray
    metrics: dict[str, np.ndarray]
    sys_gold: np.ndarray
    sys_metrics: dict[str, np.ndarray]
    negated: dict[str, bool]
    #: the system-level convention of ``sys_gold``/``sys_metrics`` (``conventions.label``)
    convention: str = ""
    #: the metadata filter the cells passed (``metadata.Where.label``; empty: all cells)
    where: str = ""


def gather(db, run, human: str, *, measures: Sequence[str] | None = None, how: str = "mean",
           normalize: bool = False, weighted: bool = True, scores=None,
           convention: str = DEFAULT_CONVENTION, subset: str = DEFAULT_SUBSET,
           where: Where | None = None) -> MetaEvalData:
    """The matrices of ``run``'s measures (default all) against ``human`` of ``db``; the
    system-level vectors as ``convention`` defines them
    (:mod:`~evaltrans_qt.engine.metaeval.conventions`; ``weighted`` only applies to
    ``thesis``, ``subset`` only to ``mtme``).

    ``where`` (:class:`~evaltrans_qt.engine.metaeval.metadata.Where`) keeps only the
    translations whose metadata or source attributes match: the other cells lose their
    human score, and at system level each side is taken over the kept human-scored
    segments (a file's own system score, which covers all segments, is not used)."""
    conventions.check(convention, subset)
    where = where or Where()
    if where and convention == "mtme":
        subset = "human"
    if convention == "mtme":
        weighted = False
    from evaltrans_qt.engine.human.scores import occurrence_keys
    from evaltrans_qt.engine.metaeval.correlation import run_inputs
    hs, names, refs = run_inputs(db, run, human, measures, how, normalize, scores)
    systems, keys = [], {}
    for s, sr in run.systems.items():
        if s in refs:
            continue
        k = occurrence_keys(sr.segments)
        if np.isfinite(hs.column(s, sr.segments)).any():
            systems.append(s)
            keys[s] = k
    if len(systems) < 2:
        raise ScoreError(f"meta-evaluation needs at least two systems with '{human}' scores "
                         f"(found {len(systems)})")
    items = sorted({k for s in systems for k in keys[s]})
    col = {k: j for j, k in enumerate(items)}
    S, N = len(systems), len(items)
    gold = np.full((S, N), np.nan)
    mats = {m: np.full((S, N), np.nan) for m in names}
    sys_gold = np.zeros(S)
    sys_m = {m: np.zeros(S) for m in names}
    negated = {m: not run.measure(m).higher_is_better for m in names}
    for a, s in enumerate(systems):
        sr = run.systems[s]
        cols = np.array([col[k] for k in keys[s]], np.int64)
        y = hs.column(s, sr.segments)
        if where:
            y = np.where(_kept_rows(db, s, sr.segments, where), y, np.nan)
        gold[a, cols] = y
        sys_gold[a] = hs.system_score(s, weighted, sr.segments) if not where else \
            _plain_or_weighted(hs, s, sr.segments, y, weighted)
        scored = np.flatnonzero(np.isfinite(y))
        for m in names:
            meas = run.measure(m)
            sign = -1.0 if negated[m] else 1.0
            st = sr.stats.get(m)
            if st is not None and len(st) == len(cols):
                mats[m][a, cols] = sign * np.asarray(meas.score_values(np.asarray(st)), float)
            sys_m[m][a] = sign * conventions.measure_system_score(run, s, m, scored, convention,
                                                                  subset, use_given=not where)
    return MetaEvalData(human, systems, items, gold, mats, sys_gold, sys_m, negated,
                        conventions.label(convention, subset, weighted), where.label())


def _kept_rows(db, system: str, segments: Sequence[int], where: Where) -> np.ndarray:
    """Which rows (source indices ``segments``) of ``system`` ``where`` keeps."""
    out = np.zeros(len(segments), bool)
    seen: dict[int, int] = {}
    for r, i in enumerate(segments):
        src = db.sources[i]
        k = seen.get(i, 0)
        seen[i] = k + 1
        mine = [t for t in src.targets if t.system == system]
        out[r] = where.keeps(src, mine[k] if k < len(mine) else None)
    return out


def _plain_or_weighted(hs, system: str, segments: Sequence[int], y: np.ndarray,
                       weighted: bool) -> float:
    """The human system score over the kept rows (``y`` finite): the plain mean, or the
    length-weighted one (thesis section 5.5)."""
    ok = np.isfinite(y)
    if not ok.any():
        return math.nan
    if not weighted:
        return float(y[ok].mean())
    keys = hs.keys(system, segments)
    w = np.array([hs.lengths.get(k, 0) for k in keys], float)[ok]
    return float((w * y[ok]).sum() / w.sum()) if w.sum() > 0 else float(y[ok].mean())


@dataclass
class MetricStats:
    """One measure's statistics at one level and grouping (``values``: statistic -> value;
    ``epsilon``: the acc-eq tie threshold; ``n``: items with a human score)."""

    measure: str
    human: str
    level: str
    grouping: str
    n: int
    values: dict[str, float] = field(default_factory=dict)
    epsilon: float = math.nan
    negated: bool = False
    rank: int | None = None
    convention: str = ""
    where: str = ""

    def to_dict(self) -> dict:
        def clean(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        return {"measure": self.measure, "human": self.human, "level": self.level,
                "grouping": self.grouping, "n": self.n, "negated": self.negated,
                "convention": self.convention, **({"where": self.where} if self.where else {}),
                **{k: clean(float(v)) for k, v in self.values.items()},
                "acc-eq-epsilon": clean(self.epsilon), "cluster": self.rank}


def _check(level: str, grouping: str, stats: Sequence[str]) -> None:
    if level not in LEVELS:
        raise OptionError(f"--level: '{level}' is not one of {', '.join(LEVELS)}")
    if grouping not in GROUPINGS:
        raise OptionError(f"--group: '{grouping}' is not one of {', '.join(GROUPINGS)}")
    bad = [s for s in stats if s not in STATISTICS]
    if bad:
        raise OptionError(f"--stats: unknown {', '.join(bad)} (known: {', '.join(STATISTICS)})")
    if level == "sys" and grouping != "none":
        raise OptionError("system level has one score per system: --group must be none")


def metrics_table(data: MetaEvalData, stats: Sequence[str] = ("pearson", "kendall"), *,
                  level: str = "seg", grouping: str = "none", variant: str = "b",
                  spa_samples: int = 1000, seed: int = 0, spa_seed: int = 4,
                  epsilon: float | None = None, gold_threshold: float = 25.0,
                  micro: bool = False, nan_as_zero: bool = False,
                  p_values: bool = False) -> list[MetricStats]:
    """Each measure's ``stats`` (module doc), in the order of ``data.metrics``; ``spa``
    draws its permutations with ``spa_seed`` (mt-metrics-eval's fixed seed 4 by default).

    mt-metrics-eval's further options: ``epsilon`` -- a metric tie threshold for
    ``kendall`` and, instead of the calibrated one, for ``acc-eq``
    (``KendallVariants(epsilon=...)``); ``gold_threshold`` -- ``kendall-like``'s human
    difference (``KendallLike(thresh=...)``, WMT20: 25); ``micro``/``nan_as_zero`` --
    ``AverageCorrelation(macro=False)`` / ``replace_nans_with_zeros=True`` (see
    :class:`Grouped`); ``p_values`` -- adds ``STAT-p``, the averaged p-value of r, for
    the statistics of :data:`P_VALUE_STATISTICS`."""
    _check(level, grouping, stats)
    if epsilon is not None and not epsilon >= 0:
        raise OptionError(f"--epsilon: {epsilon} is not a tie threshold >= 0")
    if epsilon and "kendall" in stats and variant == "c":
        raise OptionError("--epsilon > 0 is not defined for tau_c (--kendall-variant c)")
    if p_values and "kendall" in stats and variant not in ("b", "c"):
        raise OptionError("--p-values of Kendall's tau are scipy's: --kendall-variant b or c")
    if level == "sys":
        g = Grouped(data.sys_gold, micro=micro, nan_as_zero=nan_as_zero)
        n = int(np.isfinite(data.sys_gold).sum())
    else:
        g = Grouped(data.gold, grouping, micro=micro, nan_as_zero=nan_as_zero)
        n = int(np.isfinite(data.gold).sum())
    out = []
    for m, mat in data.metrics.items():
        vec = data.sys_metrics[m] if level == "sys" else mat
        row = MetricStats(m, data.human, level, grouping, n, negated=data.negated[m],
                          convention=data.convention, where=data.where)
        for s in stats:
            if s == "pearson":
                row.values[s] = g.pearson(vec)
            elif s == "pdp":
                row.values[s] = g.pdp(vec)
            elif s == "spearman":
                row.values[s] = g.spearman(vec)
            elif s == "kendall":
                row.values[s] = g.kendall(vec, variant, epsilon=epsilon or 0.0)
            elif s == "kendall-like":
                row.values[s] = g.kendall_like(vec, gold_threshold)
            elif s == "pairwise-accuracy":
                row.values[s] = g.pairwise_accuracy(vec)
            elif s == "acc-eq" and epsilon is not None:
                row.values[s], row.epsilon = g.kendall(vec, "acc23", epsilon=epsilon), epsilon
            elif s == "acc-eq":
                tc = g.acc_eq(vec, seed=seed)
                row.values[s], row.epsilon = tc.value, tc.epsilon
            elif s == "spa":
                # the items every system has a human and a metric score for (as
                # mt-metrics-eval, which drops unscored items per metric)
                spa_items = complete_items(data.gold, mat)
                if level != "sys" or spa_items.size == 0:
                    row.values[s] = math.nan
                else:
                    row.values[s] = soft_pairwise_accuracy(data.gold[:, spa_items],
                                                           mat[:, spa_items], spa_samples,
                                                           spa_seed)
        if p_values:
            for s in stats:
                if s in P_VALUE_STATISTICS:
                    row.values[f"{s}-p"] = g.p_value(vec, s, variant)
        out.append(row)
    return out


@dataclass
class MetricSignificance:
    """Metrics sorted by ``statistic`` (best first) with ``p[i, j]`` = p-value that metric i
    is better than metric j and the cluster rank of each (1 = top cluster)."""

    statistic: str
    human: str
    level: str
    grouping: str
    method: str
    samples: int
    alpha: float
    measures: list[str]
    values: np.ndarray
    p: np.ndarray
    ranks: list[int]
    n: int = 0
    convention: str = ""
    where: str = ""

    def to_dict(self) -> dict:
        def clean(a):
            return [[None if not math.isfinite(x) else float(x) for x in row] for row in a]
        return {"statistic": self.statistic, "human": self.human, "level": self.level,
                "grouping": self.grouping, "convention": self.convention,
                **({"where": self.where} if self.where else {}),
                "method": self.method, "samples": self.samples,
                "alpha": self.alpha, "n": self.n, "measures": self.measures,
                "values": [None if not math.isfinite(v) else float(v) for v in self.values],
                "clusters": self.ranks, "p_values": clean(self.p)}


def metric_significance(data: MetaEvalData, statistic: str = "pearson", *, level: str = "sys",
                        grouping: str = "none", method: str = "perm-both", samples: int = 1000,
                        seed: int = 0, alpha: float = 0.05, variant: str = "b",
                        measures: Sequence[str] | None = None, epsilon: float | None = None,
                        gold_threshold: float = 25.0, micro: bool = False,
                        nan_as_zero: bool = False,
                        early_stop: EarlyStop | None = None) -> MetricSignificance:
    """p-values between every two measures on ``statistic`` and the significance clusters.

    PERM-BOTH and Williams need every measure on the same cells: cells where some
    measure has no value are left out for all. Williams' test is defined for Pearson's r
    (Graham & Baldwin 2014). Under the thesis convention both measures' r with the
    humans, their r with each other and n are taken on the human-scored cells; under
    mt-metrics-eval's convention as its ``WilliamsSigDiff`` takes them: r(A, B) over all
    cells (its correlation function filters only the first vector's missing values, and
    a metric has none) and n = all cells, the unscored ones included.
    ``epsilon``, ``gold_threshold``, ``micro``, ``nan_as_zero``: as :func:`metrics_table`;
    ``early_stop``: PERM-BOTH / perm-pairs stop early as mt-metrics-eval's tests do.
    PERM-BOTH resamples the statistic as it is reported (``kendall-like`` weighted by its
    pairs, ``micro`` weighted by cells), where mt-metrics-eval's ``PermutationSigDiff``
    averages the groups' values unweighted.
    """
    _check(level, grouping, [statistic])
    if statistic == "spa":
        raise OptionError("significance between metrics is computed for pearson, kendall, "
                          "pairwise-accuracy or acc-eq, not spa")
    if method not in METHODS:
        raise OptionError(f"--method: '{method}' is not one of {', '.join(METHODS)}")
    if method == "williams" and statistic != "pearson":
        raise OptionError("Williams' test compares Pearson correlations; use --statistic "
                          "pearson or --method perm-both")
    if method == "perm-pairs" and statistic == "kendall" and variant == "c":
        raise OptionError("the pairwise permutation test (perm-pairs) swaps pairs: tau_c "
                          "depends on the scores themselves; use --kendall-variant a, b, 23 "
                          "or acc23")
    if method == "perm-pairs" and statistic not in ("acc-eq", "kendall"):
        raise OptionError("the pairwise permutation test (perm-pairs) compares acc-eq or "
                          "kendall; use "
                          "--statistic acc-eq or --method perm-both")
    names = list(measures) if measures is not None else list(data.metrics)
    if len(names) < 2:
        raise OptionError("significance between metrics needs at least two measures")
    if level == "sys":
        gold = data.sys_gold.copy()
        vecs = {m: data.sys_metrics[m] for m in names}
    else:
        gold = data.gold.copy()
        vecs = {m: data.metrics[m] for m in names}
    complete = np.ones(np.shape(gold), bool)
    for v in vecs.values():
        complete &= np.isfinite(v)
    gold[~complete] = np.nan
    g = Grouped(gold, grouping if level == "seg" else "none", micro=micro,
                nan_as_zero=nan_as_zero)
    cells = {m: g.cells(v) for m, v in vecs.items()}

    def stat(v: np.ndarray) -> float:
        if statistic == "pearson":
            return g.pearson(v, cells=True)
        if statistic == "pdp":
            return g.pdp(v, cells=True)
        if statistic == "spearman":
            return g.spearman(v, cells=True)
        if statistic == "kendall":
            return g.kendall(v, variant, cells=True, epsilon=epsilon or 0.0)
        if statistic == "kendall-like":
            return g.kendall_like(v, gold_threshold, cells=True)
        if statistic == "pairwise-accuracy":
            return g.pairwise_accuracy(v, cells=True)
        if epsilon is not None:
            return g.kendall(v, "acc23", cells=True, epsilon=epsilon)
        return g.acc_eq(v, cells=True, seed=seed).value

    values = np.array([stat(cells[m]) for m in names])
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")
    names = [names[i] for i in order]
    values = values[order]
    vs = [cells[m] for m in names]
    n = int(g.human.size)
    mtme_williams = method == "williams" and data.convention.startswith("mtme")
    if mtme_williams:
        # mt-metrics-eval's WilliamsSigDiff: r(A, B) over every cell both metrics have
        # (gold missing or not), n = all cells
        every = Grouped(np.where(complete, 0.0, np.nan), grouping if level == "seg" else "none",
                        micro=micro, nan_as_zero=nan_as_zero)
        all_cells = [every.cells(vecs[m]) for m in names]
        n = int(np.size(gold))

    def williams(i: int, j: int) -> float:
        if mtme_williams:
            r_ab = _pairwise_pearson(every, all_cells[i], all_cells[j])
        else:
            r_ab = _pairwise_pearson(g, vs[i], vs[j])
        return williams_test(values[i], values[j], r_ab, n)

    if method == "perm-pairs":
        p = _pairs_matrix(g, vs, samples, seed, early_stop,
                          variant="acc23" if statistic == "acc-eq" else variant,
                          epsilon=(epsilon or 0.0) if statistic == "kendall" else epsilon)
    elif statistic == "acc-eq" and epsilon is None and method == "perm-both":
        # PermutationSigDiff with KendallWithTiesOpt (acc-eq recalibrated in every
        # resample) z-scores and swaps *all* cells, system by system whatever the grouping,
        # the calibration then leaving out the cells without a human score
        grp = grouping if level == "seg" else "none"
        whole = Grouped(np.where(complete, 0.0, np.nan), grp)
        scored = np.isfinite(gold.reshape(-1)[whole.keep])
        whole_vs = [whole.cells(vecs[m]) for m in names]

        def recalibrated(v: np.ndarray) -> float:
            return g.acc_eq(v[scored], cells=True, seed=seed).value
        p = significance_matrix(recalibrated, whole_vs, method, samples, seed,
                                early_stop=early_stop)
    else:
        # the other statistics swap in PermutationSigDiff's group-by-group order
        p = significance_matrix(stat, vs, method, samples, seed, williams, mtme_order(g),
                                early_stop)
    return MetricSignificance(statistic, data.human, level, grouping, method, samples, alpha,
                              names, values, p, assign_ranks(p, alpha), n, data.convention,
                              data.where)


def _pairs_matrix(g: Grouped, vs: list[np.ndarray], samples: int, seed: int,
                  early_stop: EarlyStop | None = None, *, variant: str = "acc23",
                  epsilon: float | None = None) -> np.ndarray:
    """p[i, j] by :func:`~.statistics.pair_permutation.perm_pairs` between every two of
    ``vs`` (cells of ``g``) on Kendall ``variant``, each metric at its own calibrated
    acc*_eq epsilon (``epsilon`` None, as ``PairwisePermutationSigDiff``'s default) or all
    at ``epsilon``."""
    from evaltrans_qt.engine.metaeval.statistics.pair_permutation import perm_pairs
    eps = ([g.acc_eq(v, cells=True, seed=seed).epsilon for v in vs] if epsilon is None
           else [epsilon] * len(vs))
    k = len(vs)
    out = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i + 1, k):
            out[i, j], _, out[j, i] = perm_pairs(vs[i], vs[j], g.human, g.gid, eps[i], eps[j],
                                                 variant=variant, samples=samples,
                                                 seed=seed + i * k + j, early_stop=early_stop)
    return out


def mtme_order(g: Grouped) -> np.ndarray | None:
    """Where each kept cell of ``g`` stands in mt-metrics-eval's order of the cells
    (``stats._ReshapeAndFilter``: group by group -- by item, the systems of each item),
    for :func:`perm_both`'s swaps; None when it is ours (system by system)."""
    if g.grouping != "item":
        return None
    s, n = g.shape
    key = (g.keep % n) * s + g.keep // n
    return np.argsort(np.argsort(key, kind="stable"), kind="stable")


def _pairwise_pearson(g: Grouped, a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's r between two metrics on the kept cells, averaged like ``g``'s groups."""
    return g._clone(g.keep, np.asarray(a, float), g.gid).pearson(b, cells=True)


def format_metrics_table(rows: Sequence[MetricStats], sig: MetricSignificance | None = None) -> str:
    """A text table: measures (best first when ``sig`` ranks them) x statistics."""
    if not rows:
        return ""
    stats = list(rows[0].values)
    by = {r.measure: r for r in rows}
    names = sig.measures if sig is not None else [r.measure for r in rows]
    width = max(10, *(len(n) + 1 for n in names))
    r0 = rows[0]
    head = (f"Meta-evaluation against human '{r0.human}', {r0.level} level, grouping "
            f"{r0.grouping} ({r0.n} scored {'systems' if r0.level == 'sys' else 'cells'}); "
            f"convention {r0.convention or '-'}"
            + (f"; only translations with {r0.where}" if r0.where else "")
            + "; error measures negated (*)")
    lines = [head]
    cols = (["cluster"] if sig is not None else []) + stats + (
        ["epsilon"] if "acc-eq" in stats else [])
    def w(c: str) -> int:
        return max(10, len(c) + 2)

    lines.append(f"{'measure':<{width}}" + "".join(f"{c:>{w(c)}}" for c in cols))
    lines.append("-" * len(lines[-1]))
    for k, name in enumerate(names):
        r = by[name]
        cells = [f"{sig.ranks[k]:>10}"] if sig is not None else []
        for s in stats:
            v = r.values[s]
            cells.append(f"{v:>{w(s)}.4f}" if math.isfinite(v) else f"{'-':>{w(s)}}")
        if "acc-eq" in stats:
            cells.append(f"{r.epsilon:>10.4g}" if math.isfinite(r.epsilon) else f"{'-':>10}")
        lines.append(f"{name + ('*' if r.negated else ''):<{width}}" + "".join(cells))
    return "\n".join(lines) + "\n"


def format_significance(sig: MetricSignificance) -> str:
    """The ranked metrics with clusters and the p-value matrix (row better than column)."""
    width = max(10, *(len(n) + 1 for n in sig.measures))
    lines = [f"Significance between metrics: {sig.method} on {sig.statistic} ({sig.level} level,"
             f" grouping {sig.grouping}, convention {sig.convention or '-'}, {sig.n} cells"
             + (f", {sig.samples} resamples" if sig.method != "williams" else "")
             + (f", only translations with {sig.where}" if sig.where else "")
             + f"); clusters at p <= {sig.alpha:g}",
             f"{'':4}{'measure':<{width}}{'cluster':>8}{sig.statistic:>14}"]
    for k, (m, v, r) in enumerate(zip(sig.measures, sig.values, sig.ranks)):
        lines.append(f"{k + 1:>2}. {m:<{width}}{r:>8}{v:>14.4f}")
    lines.append("")
    lines.append("p-values (row better than column; * p <= alpha):")
    lines.append(f"{'':<{width + 4}}" + "".join(f"{k + 1:>8}" for k in range(len(sig.measures))))
    for i, m in enumerate(sig.measures):
        cells = []
        for j in range(len(sig.measures)):
            p = sig.p[i, j]
            cells.append(f"{'-':>7} " if i == j or not math.isfinite(p)
                         else f"{p:7.4f}{'*' if p <= sig.alpha else ' '}")
        lines.append(f"{i + 1:>2}. {m:<{width}}" + "".join(cells))
    return "\n".join(lines) + "\n"


@dataclass
class Overview:
    """What the results view's Metrics tab shows: the statistics of every measure and the
    significance clusters of one of them (``table`` rows follow ``significance.measures``)."""

    table: list[MetricStats]
    significance: MetricSignificance


def overview(db, run, human: str, *, level: str = "sys", statistic: str = "pearson",
             grouping: str = "none", method: str = "perm-both", samples: int = 200,
             seed: int = 0, normalize: bool = False, convention: str = DEFAULT_CONVENTION,
             subset: str = DEFAULT_SUBSET) -> Overview:
    """The run's measures and the database's external metrics against ``human``: pearson,
    kendall, pairwise accuracy and acc*_eq at ``level`` (system level as ``convention``
    defines it), and the clusters of ``statistic`` (Qt-free; the results view runs it on
    a worker thread)."""
    from evaltrans_qt.engine.measures.external import with_external
    run = with_external(run, db)
    data = gather(db, run, human, normalize=normalize, convention=convention, subset=subset)
    grouping = grouping if level == "seg" else "none"
    rows = metrics_table(data, ["pearson", "kendall", "pairwise-accuracy", "acc-eq"],
                         level=level, grouping=grouping, seed=seed)
    sig = metric_significance(data, statistic, level=level, grouping=grouping, method=method,
                              samples=samples, seed=seed)
    rank = dict(zip(sig.measures, sig.ranks))
    by = {r.measure: r for r in rows}
    for r in rows:
        r.rank = rank.get(r.measure)
    return Overview([by[m] for m in sig.measures], sig)
