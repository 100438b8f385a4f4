"""Meta-evaluation: correlating a run's measures with the human scores of a database.

:func:`correlate_run` correlates every measure of a
:class:`~evaltrans_qt.engine.run.results.RunResult` with a human class of the
database (candidates only, never references with themselves; error measures
negated so that positive = agreement) at sentence or system level;
:func:`correlate_sentences` and :func:`correlate_systems` do it for plain
arrays. Each gives a :class:`Correlation`: Pearson, Spearman, Kendall (thesis
ch. 6), tau-bar and the WMT tau variants (Macháček §4.4), with 95% bootstrap
intervals (sentence level: source sentences are resampled; system level: the
system scores are recomputed from the resampled sentences' statistics) and
Fisher's z interval for r. With relative-ranking judgements (class ``rank``)
the WMT taus use the judges' own pairwise comparisons
(:func:`ranking_comparisons`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from evaltrans_qt.engine.metaeval import conventions
from evaltrans_qt.engine.metaeval.conventions import DEFAULT_CONVENTION, DEFAULT_SUBSET
from evaltrans_qt.engine.metaeval.statistics.bootstrap import (
    bootstrap_counts,
    cluster_weights,
    percentile_interval,
)
from evaltrans_qt.engine.metaeval.statistics.coefficients import (
    fisher_interval,
    rowwise_correlations,
    spearman_with_ties,
    tau_per_group,
    weighted_kendall,
    weighted_pearson,
    weighted_spearman,
)
from evaltrans_qt.engine.metaeval.statistics.wmt import (
    WMT_VARIANTS,
    relation_counts,
    wmt_tau,
    wmt_tau_of_counts,
)

LEVELS = ("sentence", "system")
#: Bytes per (bootstrap sample, item) cell alive at once: sentence level the weight matrix
#: and one working copy; system level the replicates of both sides, their signed copies and
#: mid-ranks (``statistics/coefficients.py`` ``rowwise_correlations``).
SENTENCE_CELL_BYTES = 16
SYSTEM_CELL_BYTES = 48


def check_bootstrap_budget(what: str, n_boot: int, items: int, unit: str,
                           cell_bytes: int) -> None:
    """Refuse ``n_boot`` bootstrap samples of ``items`` items whose matrices exceed the
    memory budget (``engine/kernels/budget.py``) before any is allocated, saying how to
    need less."""
    from evaltrans_qt.engine.kernels.budget import check_table
    check_table(what, n_boot * items, cell_bytes,
                f"{n_boot} bootstrap samples x {items} {unit} (fewer --bootstrap samples, or 0, "
                "need less)")


@dataclass
class Correlation:
    """All coefficients of one (measure, human class, level) with 95% intervals.

    ``kendall`` is the thesis' tau (tau_a, eq. 6.23); ``kendall_b`` is tau_b.
    Sentence level also has ``tau_bar`` (eq. 6.24) and WMT tau variants.
    """

    measure: str
    human: str
    level: str
    n: int
    pearson: float
    spearman: float
    kendall: float
    kendall_b: float
    pearson_ci: tuple[float, float] = (math.nan, math.nan)
    pearson_fisher_ci: tuple[float, float] = (math.nan, math.nan)
    spearman_ci: tuple[float, float] = (math.nan, math.nan)
    kendall_ci: tuple[float, float] = (math.nan, math.nan)
    kendall_b_ci: tuple[float, float] = (math.nan, math.nan)
    tau_bar: float = math.nan
    tau_bar_ci: tuple[float, float] = (math.nan, math.nan)
    wmt: dict[str, float] = field(default_factory=dict)
    negated: bool = False
    #: system level: {system: (automatic score as correlated, human score)}
    system_scores: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: the system-level convention (``conventions.label``; sentence level: the same)
    convention: str = ""

    def to_dict(self) -> dict:
        d = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}
        return {k: _json_float(v) for k, v in d.items()}


def _json_float(v):
    if isinstance(v, float):
        return None if not math.isfinite(v) else v
    if isinstance(v, list):
        return [_json_float(x) for x in v]
    if isinstance(v, dict):
        return {k: _json_float(x) for k, x in v.items()}
    return v


def correlate_sentences(x: npt.ArrayLike, y: npt.ArrayLike, groups: npt.ArrayLike, *,
                        measure: str = "", human: str = "", n_boot: int = 1000,
                        seed: int = 0, negate: bool = False,
                        wmt: bool = True) -> Correlation:
    """Sentence-level correlation of automatic ``x`` with human ``y``.

    ``groups[i]`` is the source sentence of item i (tau-bar groups, bootstrap
    clusters). ``negate`` flips an error measure so positive = agreement.
    """
    x = np.asarray(x, float) * (-1.0 if negate else 1.0)
    y = np.asarray(y, float)
    groups = np.asarray(groups)
    ok: npt.NDArray[np.bool_] = np.isfinite(x) & np.isfinite(y)
    x, y, groups = x[ok], y[ok], groups[ok]
    ones = np.ones((1, len(x)))
    r = weighted_pearson(x, y, ones)[0]
    rho_, tx_, ty_ = spearman_with_ties(x, y, ones)
    rho = rho_[0]
    ta, tb = weighted_kendall(x, y, ones, (tx_, ty_))
    gids, taus = tau_per_group(x, y, groups)
    c = Correlation(measure, human, "sentence", int(len(x)), float(r), float(rho),
                    float(ta[0]), float(tb[0]), negated=negate,
                    tau_bar=float(taus.mean()) if taus.size else math.nan)
    c.pearson_fisher_ci = fisher_interval(c.pearson, c.n)
    if wmt:
        table = relation_counts(y, x, groups)
        c.wmt = {v: wmt_tau_of_counts(table, v) for v in WMT_VARIANTS}
    if n_boot and len(x) > 2:
        check_bootstrap_budget("sentence-level correlation", n_boot, len(x), "scored candidates",
                               SENTENCE_CELL_BYTES)
        w = cluster_weights(groups, n_boot, seed)
        c.pearson_ci = percentile_interval(weighted_pearson(x, y, w))
        brho, btx, bty = spearman_with_ties(x, y, w)
        c.spearman_ci = percentile_interval(brho)
        ba, bb = weighted_kendall(x, y, w, (btx, bty))
        c.kendall_ci = percentile_interval(ba)
        c.kendall_b_ci = percentile_interval(bb)
        if taus.size:
            # tau-bar is a mean over sentences: resample the same sentences
            ids_all = np.unique(groups)
            pos = np.searchsorted(ids_all, gids)
            first = np.unique(groups, return_index=True)[1]
            wg = w[:, first][:, pos]
            with np.errstate(invalid="ignore", divide="ignore"):
                c.tau_bar_ci = percentile_interval((wg @ taus) / wg.sum(axis=1))
    return c


def correlate_systems(x: npt.ArrayLike, y: npt.ArrayLike, *, measure: str = "",
                      human: str = "", boot_x: np.ndarray | None = None,
                      boot_y: np.ndarray | None = None, negate: bool = False) -> Correlation:
    """System-level correlation over systems; intervals from bootstrap replicates
    ``boot_x``/``boot_y`` (B x systems: the system scores recomputed on resampled
    sentences, see :func:`correlate_run`)."""
    sgn = -1.0 if negate else 1.0
    x = np.asarray(x, float) * sgn
    y = np.asarray(y, float)
    ones = np.ones((1, len(x)))
    ta, tb = weighted_kendall(x, y, ones)
    c = Correlation(measure, human, "system", int(len(x)), float(weighted_pearson(x, y, ones)[0]),
                    float(weighted_spearman(x, y, ones)[0]), float(ta[0]), float(tb[0]),
                    negated=negate)
    c.pearson_fisher_ci = fisher_interval(c.pearson, c.n)
    if boot_x is not None and boot_y is not None and len(x) > 2:
        r, rho, ta_s, tb_s = rowwise_correlations(np.asarray(boot_x, float) * sgn,
                                                  np.asarray(boot_y, float))
        c.pearson_ci = percentile_interval(r)
        c.spearman_ci = percentile_interval(rho)
        c.kendall_ci = percentile_interval(ta_s)
        c.kendall_b_ci = percentile_interval(tb_s)
    return c


def ranking_comparisons(db, run, measure: str, cls: str = "rank") -> tuple[np.ndarray, np.ndarray]:
    """Human pairwise comparisons from stored ranking tasks (one per task and pair of
    ranked systems, Macháček §4.4) with the metric's comparison of the same two
    candidates, both coded for :func:`wmt_tau` (-1 = first better)."""
    from itertools import combinations

    from evaltrans_qt.engine.human.ranking import rankings
    sign = 1.0 if run.measure(measure).higher_is_better else -1.0
    vals = {s: dict(zip(sr.segments, run.sentence_column(s, measure) * sign))
            for s, sr in run.systems.items()}
    hs, ms = [], []
    for r in rankings(db, cls):
        for a, b in combinations(sorted(r.ranks), 2):
            va = vals.get(a, {}).get(r.source)
            vb = vals.get(b, {}).get(r.source)
            if va is None or vb is None or not (np.isfinite(va) and np.isfinite(vb)):
                continue
            hs.append(int(np.sign(r.ranks[a] - r.ranks[b])))   # lower rank = better
            ms.append(int(-np.sign(va - vb)))                   # higher value = better
    return np.array(hs, int), np.array(ms, int)


def run_inputs(db, run, human: str, measures: Sequence[str] | None, how: str,
               normalize: bool, scores=None) -> tuple:
    """What a meta-evaluation of ``run`` reads: (human scores of class ``human``, or
    ``scores`` if given; the measures, default all of the run's, each checked to be in it;
    the reference ids that are not also systems, whose rows are no candidates)."""
    from evaltrans_qt.engine.human.resolve import human_scores
    from evaltrans_qt.errors import OptionError
    hs = scores if scores is not None else human_scores(db, human, how=how, normalize=normalize)
    names = list(measures) if measures is not None else list(run.measures)
    for m in names:
        if m not in run.measures:
            raise OptionError(f"measure '{m}' was not part of this run")
    return hs, names, set(db.reference_ids()) - set(db.systems())


def correlate_run(db, run, human: str, *, measures: Sequence[str] | None = None,
                  level: str = "sentence", normalize: bool = False, how: str = "mean",
                  weighted: bool = True, n_boot: int = 1000, seed: int = 0,
                  scores=None, convention: str = DEFAULT_CONVENTION,
                  subset: str = DEFAULT_SUBSET) -> list[Correlation]:
    """Correlate every measure of ``run`` with human class ``human`` of ``db``.

    Only candidates enter (references are never correlated with themselves);
    a candidate without a human score is left out. Sentence level: one item
    per candidate, bootstrap over source sentences. System level: the system scores
    of ``convention`` (:mod:`~evaltrans_qt.engine.metaeval.conventions`): ``thesis``
    recomputes the automatic score from the *sufficient statistics of the human-scored
    sentences only* and takes the length-weighted (thesis section 5.5; plain if not
    ``weighted``) human mean; ``mtme`` takes the measure's own system score (``subset``)
    and the plain human mean. The bootstrap resamples source sentences and recomputes
    both sides (an external metric's score read from a sys file cannot be resampled:
    its intervals are NaN). ``scores`` may pass precomputed
    :class:`~evaltrans_qt.engine.human.scores.HumanScores` of ``human``.
    """
    from evaltrans_qt.engine.human.scores import RANK_CLASS
    from evaltrans_qt.errors import OptionError

    if level not in LEVELS:
        raise OptionError(f"--level: '{level}' is not one of {', '.join(LEVELS)}")
    conventions.check(convention, subset)
    if convention == "mtme":
        weighted = False
    tag = conventions.label(convention, subset, weighted)
    hs, names, refs = run_inputs(db, run, human, measures, how, normalize, scores)
    rows: list[tuple[str, np.ndarray, np.ndarray]] = []   # system, row index, source index
    yvals: list[np.ndarray] = []
    for sysname, sr in run.systems.items():
        if sysname in refs:
            continue
        y = hs.column(sysname, sr.segments)
        ok = np.flatnonzero(np.isfinite(y))
        if ok.size:
            rows.append((sysname, ok, np.asarray(sr.segments)[ok]))
            yvals.append(y[ok])
    if not rows:
        from evaltrans_qt.errors import ScoreError
        raise ScoreError(f"no candidate of the evaluated systems has a '{human}' score")
    out: list[Correlation] = []
    if level == "sentence":
        y = np.concatenate(yvals)
        groups = np.concatenate([src for _, _, src in rows])
        for m in names:
            meas = run.measure(m)
            x = np.concatenate([run.sentence_column(s, m)[ok] for s, ok, _ in rows])
            c = correlate_sentences(x, y, groups, measure=m, human=human, n_boot=n_boot,
                                    seed=seed, negate=not meas.higher_is_better)
            if human == RANK_CLASS:
                # WMT taus on the judges' own pairwise comparisons, not on mean ranks
                h, mm = ranking_comparisons(db, run, m, human)
                c.wmt = {v: wmt_tau(h, mm, v) for v in WMT_VARIANTS}
            c.convention = tag
            out.append(c)
        return out
    # system level
    from evaltrans_qt.engine.metaeval.significance import measure_batch_score
    # the sources a bootstrap sample draws from: those the system scores are computed on
    every = convention == "mtme" and subset == "all"
    all_src = np.unique(np.concatenate([np.asarray(run.systems[s].segments) if every else src
                                        for s, _, src in rows]))
    if n_boot:
        check_bootstrap_budget("system-level correlation", n_boot, len(rows), "systems",
                               SYSTEM_CELL_BYTES)
    counts = bootstrap_counts(len(all_src), n_boot, seed) if n_boot else None
    y_sys = np.zeros(len(rows))
    boot_y = np.zeros((n_boot, len(rows)))
    for j, ((sysname, ok, src), yv) in enumerate(zip(rows, yvals)):
        keys = hs.keys(sysname, run.systems[sysname].segments)
        lens = np.array([hs.lengths.get(keys[r], 0) for r in ok], float)
        lw = lens if weighted and lens.sum() > 0 else np.ones(len(src))
        y_sys[j] = float(lw @ yv / lw.sum())
        if counts is not None:
            W = counts[:, np.searchsorted(all_src, src)] * lw[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                boot_y[:, j] = (W @ yv) / W.sum(axis=1)
    for m in names:
        meas = run.measure(m)
        batch = measure_batch_score(meas)
        x_sys = np.zeros(len(rows))
        boot_x: np.ndarray | None = np.zeros((n_boot, len(rows))) if counts is not None else None
        for j, (sysname, ok, _src) in enumerate(rows):
            x_sys[j] = conventions.measure_system_score(run, sysname, m, ok, convention, subset)
            take = conventions.resampled_rows(run, sysname, m, ok, convention, subset)
            if counts is None or boot_x is None:
                continue
            if take is None:
                boot_x = None          # a score read from a file: no intervals
                continue
            sr = run.systems[sysname]
            st = np.asarray(sr.stats[m])[take]
            seg = np.asarray(sr.segments)[take]
            boot_x[:, j] = batch(counts[:, np.searchsorted(all_src, seg)] @ st)
        c = correlate_systems(x_sys, y_sys, measure=m, human=human, boot_x=boot_x,
                              boot_y=boot_y if boot_x is not None else None,
                              negate=not meas.higher_is_better)
        c.system_scores = {s: (float(x), float(yv)) for (s, _, _), x, yv in
                           zip(rows, x_sys, y_sys)}
        c.convention = tag
        out.append(c)
    return out
