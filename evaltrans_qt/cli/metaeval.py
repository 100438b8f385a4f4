"""Meta-evaluation of the measures: ``correlate``, ``significance``, ``combine``,
``orange``.

* ``correlate`` -- Pearson r, Spearman rho, Kendall tau, tau-bar and the WMT tau variants
  of every measure with every human class, with bootstrap intervals (thesis ch. 6), or
  mt-metrics-eval's statistics (``--stats``, ``--group``);
* ``significance`` -- paired bootstrap / approximate randomisation between systems, as
  sacreBLEU computes them, or between the measures' correlations (``--between-metrics``);
* ``combine`` -- correlation-optimal weights of measures (thesis eq. 6.15) with k-fold
  cross-validation;
* ``orange`` -- ORANGE (Lin & Och 2004): the rank of held-out references among the
  candidates, no human scores needed.

Every one takes ``--preset`` and the evaluation options of ``evaltrans batch``
(``cli/_common.py``), so every option that changes a number is available here too, spelled
the same way; the human-score arguments are ``cli/human.py``'s.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
import time
from typing import TYPE_CHECKING

import numpy as np

from evaltrans_qt.cli._common import (
    add_json_argument,
    add_option_arguments,
    comma_list,
    number,
    open_database,
    options_from_args,
)
from evaltrans_qt.cli.human import add_human_arguments, human_classes, human_scores_of
from evaltrans_qt.cli.progress import add_progress_argument, progress_for
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import ScoreError

#: ``--kendall-variant`` choices (engine/metaeval/statistics/kendall.py VARIANTS).
KENDALL_VARIANTS = ("a", "b", "c", "23", "acc23")

if TYPE_CHECKING:
    from evaltrans_qt.engine.data.database import Database
    from evaltrans_qt.engine.run.results import RunResult


def _cores() -> int:
    """Workers of the default executor (the progress line's time left)."""
    import os
    return os.cpu_count() or 1


def _run(db: Database, args: argparse.Namespace, measures: list[str] | None) -> RunResult:
    from evaltrans_qt.engine.run.driver import evaluate
    opts = options_from_args(args)
    systems = comma_list(getattr(args, "systems", None))
    return evaluate(db, opts, measures, systems, progress=progress_for(args, _cores()))


# ------------------------------------------------------------ correlate
def run_correlate(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    from evaltrans_qt.engine.metaeval.correlation_format import format_table
    from evaltrans_qt.engine.run.driver import evaluate
    t0 = time.perf_counter()
    _check_correlate_options(args)
    db = open_database(args.database)
    classes = human_classes(db, comma_list(args.human))
    opts = options_from_args(args)
    scores = {c: human_scores_of(db, c, args, opts.extrapolate) for c in classes}
    systems = comma_list(args.systems)
    if systems is None:
        # only systems with human scores can be correlated: evaluate just those
        scored = {s for hs in scores.values() for s in hs.systems()}
        systems = [s for s in db.systems() if s in scored]
        if not systems:
            raise ScoreError(f"no candidate has a score of {', '.join(classes)}")
    computed, external, filler = _split_measures(db, comma_list(args.measures))
    _refuse_unused(args, None if computed is None else [] if filler else computed,
                   "correlate", uses=("extrapolate",))
    run = _with_external(evaluate(db, opts, computed, systems,
                                      progress=progress_for(args, _cores())), db, external)
    shown = _shown(run, filler)
    t_eval = time.perf_counter() - t0
    if args.task:
        return _correlate_task(db, run, classes, scores, args, t0, shown)
    if args.stats:
        return _correlate_mtme(db, run, classes, scores, args, t0, shown)
    levels = ("sentence", "system") if args.level == "both" else (
        {"seg": "sentence", "sys": "system"}.get(args.level, args.level),)
    rows = []
    for cls in classes:
        for level in levels:
            rows.extend(correlate_run(db, run, cls, level=level, weighted=not args.unweighted,
                                      n_boot=args.bootstrap, seed=args.seed, scores=scores[cls],
                                      measures=shown, convention=args.convention,
                                      subset=args.subset))
    elapsed = time.perf_counter() - t0
    if args.json:
        json.dump([r.to_dict() for r in rows], sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.csv:
        from evaltrans_qt.io.export import formula_safe
        buf = io.StringIO()
        w = csv.writer(buf)
        keys = ["measure", "human", "level", "convention", "n", "negated", "pearson",
                "pearson_lo", "pearson_hi",
                "pearson_fisher_lo", "pearson_fisher_hi", "spearman", "spearman_lo",
                "spearman_hi", "kendall", "kendall_lo", "kendall_hi", "kendall_b", "tau_bar",
                "tau_bar_lo", "tau_bar_hi", "wmt12", "wmt13", "wmt14", "hties"]
        w.writerow(keys)
        for r in rows:
            # names come from data: the CSV exports' formula rule (io/export.py)
            w.writerow([formula_safe(r.measure), formula_safe(r.human), r.level, r.convention,
                        r.n, r.negated, r.pearson,
                        *r.pearson_ci,
                        *r.pearson_fisher_ci, r.spearman, *r.spearman_ci, r.kendall,
                        *r.kendall_ci, r.kendall_b, r.tau_bar, *r.tau_bar_ci,
                        *(r.wmt.get(k, math.nan) for k in ("wmt12", "wmt13", "wmt14", "hties"))])
        sys.stdout.write(buf.getvalue())
    else:
        sys.stdout.write(format_table(rows))
        norm = "(0,1)-normalised per judge" if args.normalize_evaluators else "not normalised"
        print(f"human scores: {args.aggregate} over judges, {norm}; "
              f"{args.bootstrap} bootstrap samples, seed {args.seed}")
        if "system" in levels:
            print(_convention_line(args))
    print(f"evaluation {t_eval:.1f} s, total {elapsed:.1f} s", file=sys.stderr)
    return 0


def _check_correlate_options(args: argparse.Namespace) -> None:
    """Refuse what ``correlate`` would ignore with the other options given, and fill in the
    defaults of the options whose use is checked (given as None by the parser)."""
    from evaltrans_qt.errors import OptionError
    stats = comma_list(args.stats) or []
    if args.unweighted and args.convention != "thesis":
        raise OptionError("--unweighted applies to --convention thesis (mt-metrics-eval's "
                          "convention always takes the plain mean of the human scores)")
    if args.group and not args.stats:
        raise OptionError("--group is the grouping of --stats (mt-metrics-eval's statistics): "
                          "add --stats")
    if args.kendall_variant is not None and "kendall" not in stats:
        raise OptionError("--kendall-variant applies to --stats kendall")
    _check_mtme_options(args, stats, "--stats")
    if args.resamples is not None and not args.task:
        raise OptionError("--resamples draws the significance clusters of --task")
    if args.resamples is not None and args.resamples < 0:
        raise OptionError(f"--resamples: {args.resamples} is not a count >= 0")
    if args.where and not (args.stats or args.task):
        raise OptionError("--where filters the cells of --stats or --task (mt-metrics-eval's "
                          "statistics): add one of them")
    if args.seed is not None and not (args.bootstrap or args.stats or args.task):
        raise OptionError("--seed draws the bootstrap samples (--bootstrap 0 draws none) or "
                          "the samples of --stats/--task: it changes nothing here")
    if args.subset != "all" and args.convention == "thesis":
        raise OptionError("--subset applies to --convention mtme (the thesis convention always "
                          "uses the human-scored sentences)")
    args.kendall_variant = args.kendall_variant or "b"
    args.seed = 0 if args.seed is None else args.seed


def _check_mtme_options(args: argparse.Namespace, stats: list[str], flag: str) -> None:
    """Refuse mt-metrics-eval's further options where the statistics chosen with ``flag``
    do not use them (``--epsilon``, ``--gold-threshold``, ``--micro``, ``--nan-as-zero``,
    ``--p-values``)."""
    from evaltrans_qt.engine.metaeval.metrics_task import P_VALUE_STATISTICS
    from evaltrans_qt.errors import OptionError
    # acc-eq, spa and pdp average their own way; kendall-like is always weighted by its
    # pairs and never undefined in a group (mt-metrics-eval's KendallLike)
    averaged = [s for s in stats if s not in ("acc-eq", "spa", "pdp", "kendall-like")]
    if args.epsilon is not None and not {"kendall", "acc-eq"} & set(stats):
        raise OptionError(f"--epsilon is the metric tie threshold of {flag} kendall or acc-eq")
    if args.epsilon is not None and args.epsilon < 0:
        raise OptionError(f"--epsilon: {args.epsilon:g} is not a tie threshold >= 0")
    if args.gold_threshold is not None and "kendall-like" not in stats:
        raise OptionError(f"--gold-threshold applies to {flag} kendall-like")
    if args.micro and not averaged:
        raise OptionError(f"--micro weights the groups' {flag} values (not acc-eq, spa, "
                          "pdp or kendall-like, which average their own way)")
    if args.nan_as_zero and not averaged:
        raise OptionError(f"--nan-as-zero counts undefined group values of {flag} as 0 "
                          "(not acc-eq, spa, pdp or kendall-like)")
    if getattr(args, "p_values", False) and not set(P_VALUE_STATISTICS) & set(stats):
        raise OptionError("--p-values gives the p-values of --stats "
                          + ", ".join(P_VALUE_STATISTICS))
    args.gold_threshold = 25.0 if args.gold_threshold is None else args.gold_threshold


def _mtme_kwargs(args: argparse.Namespace) -> dict:
    """The mt-metrics-eval options of ``metrics_table``/``metric_significance``."""
    return {"epsilon": args.epsilon, "gold_threshold": args.gold_threshold,
            "micro": args.micro, "nan_as_zero": args.nan_as_zero}


def _refuse_unused(args: argparse.Namespace, names: list[str] | None, command: str,
                   uses: tuple[str, ...] = ()) -> None:
    """Refuse an evaluation option none of the measures computed here uses
    (``cli/_common.py`` ``refuse_unused_options``); ``names`` None = the default measures."""
    from evaltrans_qt.cli._common import refuse_unused_options
    from evaltrans_qt.engine.measures import get as get_measure
    from evaltrans_qt.engine.run.driver import default_measures
    measures = ([get_measure(m).name for m in names] if names is not None
                else default_measures(options_from_args(args)))
    refuse_unused_options(args, measures, f"{command} computes "
                          f"{', '.join(measures) or 'none of our measures'}",
                          command_uses=uses, explicit=names is not None)


def _split_measures(db: Database, names: list[str] | None
                    ) -> tuple[list[str] | None, list[str] | None, str | None]:
    """(measures to compute, external metrics of the database, the computed measure added
    only because a run needs one) named in ``--measures``; without ``--measures``: the
    default measures and every external metric."""
    from evaltrans_qt.engine.measures.external import external_metrics
    ext = external_metrics(db)
    if names is None:
        return None, list(ext), None
    computed = [n for n in names if n not in ext]
    external = [n for n in names if n in ext]
    filler = None
    if not computed:
        from evaltrans_qt.engine.run.driver import default_measures
        computed = default_measures(EvalOptions())[:1]   # a run needs one computed measure
        filler = computed[0]
    return computed, external, filler


def _shown(run, filler: str | None) -> list[str] | None:
    """The measures of ``run`` to report: all but the one only computed to make a run
    (``--measures`` restricts the output to exactly the named measures)."""
    if filler is None:
        return None
    from evaltrans_qt.engine.measures import resolve
    name = resolve(filler) or filler
    return [m for m in run.measures if m not in (filler, name)]


def _convention_line(args: argparse.Namespace) -> str:
    from evaltrans_qt.engine.metaeval import conventions
    return "convention: " + conventions.describe(args.convention, args.subset,
                                                 not args.unweighted)


def _with_external(run, db: Database, names: list[str] | None):
    """The run with the database's external metrics ``names`` as measures."""
    from evaltrans_qt.engine.measures.external import with_external
    return with_external(run, db, names) if names else run


def _correlate_mtme(db: Database, run, classes: list[str], scores, args, t0: float,
                    shown: list[str] | None = None) -> int:
    """``correlate --stats/--group``: mt-metrics-eval statistics (engine/metaeval/metrics_task.py)."""
    from evaltrans_qt.engine.metaeval import metrics_task as mt
    from evaltrans_qt.engine.metaeval.metadata import Where
    stats = comma_list(args.stats) or ["pearson", "kendall"]
    level = {"sentence": "seg", "system": "sys"}.get(args.level, args.level)
    levels = ("seg", "sys") if level == "both" else (level,)
    group = args.group or "none"
    out = []
    where = Where.parse(args.where)
    for cls in classes:
        data = mt.gather(db, run, cls, weighted=not args.unweighted, scores=scores[cls],
                         measures=shown, convention=args.convention, subset=args.subset,
                         where=where)
        for lv in levels:
            out.append(mt.metrics_table(data, [s for s in stats if lv == "sys" or s != "spa"],
                                        level=lv, grouping=group if lv == "seg" else "none",
                                        variant=args.kendall_variant, seed=args.seed,
                                        spa_samples=args.bootstrap or 1000,
                                        p_values=args.p_values, **_mtme_kwargs(args)))
    if args.json:
        json.dump([r.to_dict() for rows in out for r in rows], sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for rows in out:
            sys.stdout.write(mt.format_metrics_table(rows) + "\n")
        eps = ("the tie threshold epsilon that maximises it" if args.epsilon is None
               else f"metric differences <= {args.epsilon:g} counted as ties")
        print(f"pdp = one Pearson over the score differences of the pairs the grouping "
              f"forms; kendall = tau-{args.kendall_variant}"
              + (f" (metric ties within {args.epsilon:g})" if args.epsilon else "")
              + "; pairwise-accuracy = ties count as agreement only when both sides tie "
              f"(Kocmi et al. 2021); acc-eq = acc*_eq with {eps} (Deutsch et al. 2023); "
              "spa = soft pairwise accuracy (Thompson et al. 2024); kendall-like = WMT20's, "
              f"pairs with human difference >= {args.gold_threshold:g}")
        print("averaging over groups: "
              + ("micro (weighted by each group's cells)" if args.micro else "macro (plain mean)")
              + ("; undefined group values count as 0" if args.nan_as_zero
                 else "; undefined group values left out")
              + ("; STAT-p = the averaged p-value of r (scipy's, per group)" if args.p_values
                 else ""))
        if "sys" in levels:
            print(_convention_line(args))
    print(f"total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


def _correlate_task(db: Database, run, classes: list[str], scores, args, t0: float,
                    shown: list[str] | None) -> int:
    """``correlate --task``: a WMT metrics task's statistics and average
    (engine/metaeval/task_presets.py)."""
    from evaltrans_qt.engine.metaeval import metrics_task as mt
    from evaltrans_qt.engine.metaeval import task_presets as tp
    from evaltrans_qt.engine.metaeval.metadata import Where
    out = []
    where = Where.parse(args.where)
    for cls in classes:
        data = mt.gather(db, run, cls, weighted=not args.unweighted, scores=scores[cls],
                         measures=shown, convention=args.convention, subset=args.subset,
                         where=where)
        conv = data.convention + (f"; only translations with {data.where}" if data.where
                                  else "")
        out.append((cls, conv, tp.task_table(data, args.task, seed=args.seed,
                                             samples=args.resamples or 0)))
    if args.json:
        json.dump([r.to_dict(args.task, cls, conv) for cls, conv, rows in out for r in rows],
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for cls, conv, rows in out:
            sys.stdout.write(tp.format_task_table(rows, args.task, cls, conv) + "\n")
        print(_convention_line(args))
    print(f"total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


def _significance_between_metrics(args: argparse.Namespace) -> int:
    """``significance --between-metrics``: p-values between measures, clusters."""
    from evaltrans_qt.engine.metaeval import metrics_task as mt
    from evaltrans_qt.engine.metaeval.statistics.metric_significance import EarlyStop
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.errors import OptionError
    if args.unweighted and args.convention != "thesis":
        raise OptionError("--unweighted applies to --convention thesis (mt-metrics-eval's "
                          "convention always takes the plain mean of the human scores)")
    if args.kendall_variant is not None and args.statistic != "kendall":
        raise OptionError("--kendall-variant applies to --statistic kendall")
    for name, default in _BETWEEN_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    _check_mtme_options(args, [args.statistic], "--statistic")
    if args.agreement is not None:
        raise OptionError("--agreement applies between systems (a measure's difference of two "
                          "systems), not --between-metrics")
    if args.early_stop and args.method == "williams":
        raise OptionError("--early-stop stops a permutation test: not --method williams")
    db = open_database(args.database)
    cls = human_classes(db, comma_list(args.human))[0]
    opts = options_from_args(args)
    hs = human_scores_of(db, cls, args, opts.extrapolate)
    names = comma_list(args.measures) or ([args.measure] if args.measure else None)
    computed, external, filler = _split_measures(db, names)
    _refuse_unused(args, None if computed is None else [] if filler else computed,
                   "significance --between-metrics", uses=("extrapolate",))
    systems = comma_list(args.systems) or [s for s in db.systems() if s in set(hs.systems())]
    run = _with_external(evaluate(db, opts, computed, systems,
                                      progress=progress_for(args, _cores())), db, external)
    from evaltrans_qt.engine.metaeval.metadata import Where
    data = mt.gather(db, run, cls, weighted=not args.unweighted, scores=hs,
                     measures=_shown(run, filler), convention=args.convention,
                     subset=args.subset, where=Where.parse(args.where))
    method = args.method if args.method in mt.METHODS else "perm-both"
    seed = 12345 if args.seed in (None, "none") else int(args.seed)
    res = mt.metric_significance(data, args.statistic, level=args.level, grouping=args.group,
                                 method=method, samples=args.samples or 1000, seed=seed,
                                 alpha=args.alpha, variant=args.kendall_variant,
                                 early_stop=EarlyStop() if args.early_stop else None,
                                 **_mtme_kwargs(args))
    if args.json:
        json.dump(res.to_dict(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(mt.format_significance(res))
    return 0


# ------------------------------------------------------------ orange
def run_orange(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.metaeval.orange import format_orange, orange
    _refuse_unused(args, comma_list(args.measures), "orange")
    db = open_database(args.database)
    rows = orange(db, options_from_args(args), comma_list(args.measures))
    if args.json:
        json.dump([r.to_dict() for r in rows], sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_orange(rows))
    return 0


# ------------------------------------------------------------ significance
_SIG_TITLES = {"bootstrap": "Paired bootstrap resampling (sacreBLEU paired_bs)",
               "randomization": "Approximate randomization (sacreBLEU paired_ar)",
               "bootstrap-centred": "Centred paired bootstrap (|d_b - mean d| >= |d|)"}


def _seed_text(res) -> str:
    return str(res.seed) if res.seed is not None else f"none (drawn: {res.meta.get('entropy')})"


def _significance_signature(res, run, human: str | None, weighted: bool) -> str:
    """The tested numbers' signature with sacreBLEU's ``bs``/``ar`` and ``seed`` fields
    (``engine/run/signature.py``); human scores get an extended one of the same style."""
    from evaltrans_qt.engine.run.signature import Signature, evaltrans_version
    kind = "ar" if res.method == "randomization" else "bs"
    seed = res.seed if res.seed is not None else "none"
    if run is not None:
        sig = run.signature(run.measures[0], **{kind: res.samples, "seed": seed})
    else:
        sig = Signature("human", {"human": human, "weighted": "yes" if weighted else "no",
                                  kind: res.samples, "seed": seed,
                                  "evaltrans": evaltrans_version()}).format()
    if res.method == "bootstrap-centred":
        sig += "|statistic:centred"
    return sig


#: ``significance --between-metrics`` options (None from the parser = not given) and defaults.
_BETWEEN_DEFAULTS = {"statistic": "pearson", "level": "sys", "group": "none",
                     "kendall_variant": "b", "alpha": 0.05, "aggregate": "mean"}


def run_significance(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.metaeval import significance as sig
    from evaltrans_qt.errors import OptionError
    if args.between_metrics:
        return _significance_between_metrics(args)
    if args.method in ("perm-both", "williams", "perm-pairs"):
        raise ScoreError(f"--method {args.method} compares metrics: add --between-metrics")
    for flag, value in (("--measures", args.measures), ("--statistic", args.statistic),
                        ("--level", args.level), ("--group", args.group),
                        ("--kendall-variant", args.kendall_variant), ("--alpha", args.alpha),
                        ("--epsilon", args.epsilon), ("--gold-threshold", args.gold_threshold),
                        ("--micro", args.micro or None), ("--nan-as-zero", args.nan_as_zero or None),
                        ("--early-stop", args.early_stop or None), ("--where", args.where),
                        ("--convention", args.convention if args.convention != "mtme" else None),
                        ("--subset", args.subset if args.subset != "all" else None)):
        if value is not None:
            raise OptionError(f"{flag} applies to --between-metrics (between systems there "
                              "is one measure, --measure)")
    if not args.human:
        for flag, value in (("--normalize-evaluators", args.normalize_evaluators),
                            ("--aggregate", args.aggregate), ("--unweighted", args.unweighted)):
            if value:
                raise OptionError(f"{flag} combines human scores: it applies to --human")
    if args.human and args.agreement is not None:
        raise OptionError("--agreement is about a measure's difference: not with --human")
    args.aggregate = args.aggregate or "mean"
    if not args.human:
        _refuse_unused(args, [args.measure or "bleu"], "significance")
    else:
        _refuse_unused(args, [], "significance --human", uses=("extrapolate",))
    db = open_database(args.database)
    seed = "env" if args.seed is None else args.seed
    systems = comma_list(args.systems)
    baseline = None if args.baseline is None else (args.baseline or None)
    weighted = not args.unweighted
    run: RunResult | None = None
    if args.human:
        hs = human_scores_of(db, args.human, args, options_from_args(args).extrapolate)
        what, label = f"human '{args.human}'", args.human
    else:
        if args.baseline is None:
            # refuse an all-pairs matrix too large before evaluating (engine check again later)
            sig.check_pairs(len(systems if systems is not None else db.systems()),
                            sig.sample_count(args.method, args.samples))
        run = _run(db, args, [args.measure or "bleu"])
        what, label = f"measure '{run.measures[0]}'", run.measures[0]
    res: sig.SignificanceResult | sig.BaselineComparison
    if args.baseline is not None:
        res = (sig.human_vs_baseline(hs, systems, baseline=baseline, weighted=weighted,
                                     method=args.method, samples=args.samples, seed=seed)
               if run is None else
               sig.run_vs_baseline(run, label, baseline=baseline, method=args.method,
                                   samples=args.samples, seed=seed,
                                   agreement=args.agreement or "auto",
                                   **_agreement_human(db, run, args)))
    else:
        res = (sig.human_significance(hs, systems, weighted=weighted, method=args.method,
                                      samples=args.samples, seed=seed)
               if run is None else
               sig.run_significance(run, label, method=args.method, samples=args.samples,
                                    seed=seed, agreement=args.agreement or "auto",
                                    **_agreement_human(db, run, args)))
    if args.agreement in ("published", "fit") and res.agreement_model is None:
        raise ScoreError(f"--agreement {args.agreement}: "
                         + (f"Kocmi et al. 2024 published no fit for '{label}'"
                            if args.agreement == "published" else
                            "no human system scores to fit on (the database's first human "
                            "class, at least 3 pairs of systems with different scores)"))
    signature = _significance_signature(res, run, args.human, weighted)
    if args.json:
        json.dump({**res.to_dict(), **res.meta, "signature": signature}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"{_SIG_TITLES[res.method]} on {what}: {res.n_sentences} common sentences, "
          f"{res.samples} {'trials' if res.method == 'randomization' else 'resamples'}, "
          f"seed {_seed_text(res)}")
    print(f"signature: {signature}")
    if isinstance(res, sig.BaselineComparison):
        print(sig.baseline_table({label: res}, width=4))
        print()
        print(sig.baseline_notes(res.method, res.samples, res.baseline))
        if res.agreement is not None and res.agreement_model is not None:
            print(f"\nP(humans agree with {label}'s order against {res.baseline}): "
                  + ", ".join(f"{s} {p:.3f}" for s, p in res.agreement.items()))
            print(res.agreement_model.describe())
        return 0
    names = res.systems
    width = max(8, max(len(s) for s in names))
    order = np.argsort(-res.scores if res.higher_is_better else res.scores, kind="stable")
    means, ci = res.means, res.ci
    print(f"{'system':<{width}}  {'score':>9}"
          + ("  mean ± 95% CI" if means is not None and ci is not None else ""))
    for i in order:
        line = f"{names[i]:<{width}}  {number(res.scores[i], '9.4f', missing='nan')}"
        if means is not None and ci is not None:
            line += (f"  {number(means[i], '.4f', missing='nan')} ± "
                     f"{number(ci[i], '.4f', missing='nan')}")
        print(line)
    print("\np-values (row vs column; * p < 0.05):")
    print(f"{'':<{width + 4}}" + "".join(f"{k + 1:>8}" for k in range(len(order))))
    for a, i in enumerate(order):
        cells = []
        for j in order:
            p = res.p_values[i, j]
            cells.append(f"{'-':>7} " if i == j
                         else f"{number(p, '7.4f', missing='nan')}{'*' if p < 0.05 else ' '}")
        print(f"{a + 1:>2}. {names[i]:<{width}}" + "".join(cells))
    if res.agreement is not None and res.agreement_model is not None:
        print(f"\nP(humans agree with the measure's order of row and column), "
              f"{res.agreement_model.describe()}:")
        print(f"{'':<{width + 4}}" + "".join(f"{k + 1:>8}" for k in range(len(order))))
        for a, i in enumerate(order):
            cells = [f"{'-':>7} " if i == j else
                     f"{number(res.agreement[i, j], '7.3f', missing='nan')} " for j in order]
            print(f"{a + 1:>2}. {names[i]:<{width}}" + "".join(cells))
    return 0


def _agreement_human(db: Database, run, args: argparse.Namespace) -> dict:
    """``human``/``human_name`` arguments to fit the agreement model on (``--agreement
    auto|fit``): the plain mean of the database's first human class over each system's
    scored sentences; none when the database has none or the model is not fitted."""
    if args.agreement in ("published", "none"):
        return {}
    from evaltrans_qt.engine.human.resolve import human_scores
    classes = [c for c in db.human_classes if c != "rank"
               and (db.reference_levels is None or c != db.reference_levels.name)]
    if not classes:
        return {}
    hs = human_scores(db, classes[0])
    out = {}
    for s, sr in run.systems.items():
        v = hs.system_score(s, False, sr.segments)
        if math.isfinite(v):
            out[s] = v
    return {"human": out, "human_name": classes[0]} if out else {}


# ------------------------------------------------------------ combine
def run_combine(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.resolve import human_scores
    from evaltrans_qt.engine.metaeval.combination import cross_validate, optimal_weights
    if args.unweighted:
        from evaltrans_qt.errors import OptionError
        raise OptionError("--unweighted weights system scores; combine works on sentences")
    _refuse_unused(args, comma_list(args.measures), "combine")
    db = open_database(args.database)
    cls = human_classes(db, comma_list(args.human))[0]
    run = _run(db, args, comma_list(args.measures))
    hs = human_scores(db, cls, how=args.aggregate, normalize=args.normalize_evaluators)
    cols, ys, groups = [], [], []
    for s, sr in run.systems.items():
        y = hs.column(s, sr.segments)
        ok = np.isfinite(y)
        if not ok.any():
            continue
        X = np.column_stack([run.sentence_column(s, m) * (1 if run.measure(m).higher_is_better else -1)
                             for m in run.measures])
        cols.append(X[ok])
        ys.append(y[ok])
        groups.append(np.asarray(sr.segments)[ok])
    if not cols:
        raise ScoreError(f"no evaluated candidate has a '{cls}' score")
    X, y, g = np.vstack(cols), np.concatenate(ys), np.concatenate(groups)
    ok = np.all(np.isfinite(X), axis=1)
    X, y, g = X[ok], y[ok], g[ok]
    w = optimal_weights(X, y)
    cv = cross_validate(X, y, k=args.folds, groups=g, seed=args.seed)
    single = {m: float(np.corrcoef(X[:, i], y)[0, 1]) for i, m in enumerate(run.measures)}
    if args.json:
        json.dump({"human": cls, "measures": list(run.measures), "weights": w.tolist(),
                   "single_r": single, "cv_mean_r": cv.mean_r, "cv_pooled_r": cv.pooled_r,
                   "cv_weights": cv.weights.tolist()}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"Correlation-optimal combination (thesis eq. 6.15) with '{cls}', sentence level, "
          f"{len(y)} candidates (error measures negated)")
    for m, wi in zip(run.measures, w):
        print(f"  {m:<10} weight {number(wi, '+.4f', missing='nan')}   "
              f"r alone {number(single[m], '.4f', missing='nan')}")
    print(f"{args.folds}-fold cross-validated r (held-out folds of source sentences): "
          f"mean {number(cv.mean_r, '.4f', missing='nan')}, "
          f"pooled {number(cv.pooled_r, '.4f', missing='nan')}")
    return 0


# ------------------------------------------------------------ register
def _add_convention_arguments(p: argparse.ArgumentParser) -> None:
    from evaltrans_qt.engine.metaeval.conventions import (
        CONVENTIONS,
        DEFAULT_CONVENTION,
        DEFAULT_SUBSET,
        SUBSETS,
    )
    p.add_argument("--convention", choices=CONVENTIONS, default=DEFAULT_CONVENTION,
                   help="system level: mtme = mt-metrics-eval's (each measure's own system "
                        "score, external metrics' sys scores when given, against the plain "
                        "mean of the human segment scores); thesis = section 5.5 (scores "
                        "recomputed from the human-scored sentences, length-weighted human "
                        f"means unless --unweighted). Default {DEFAULT_CONVENTION}")
    p.add_argument("--subset", choices=SUBSETS, default=DEFAULT_SUBSET,
                   help="--convention mtme: our measures' system score over all segments of "
                        "the test set or only over those with human scores (default "
                        f"{DEFAULT_SUBSET})")


def _add_mtme_option_arguments(p: argparse.ArgumentParser, flag: str) -> None:
    """mt-metrics-eval's further options of its statistics (``stats.py``)."""
    p.add_argument("--epsilon", type=float, default=None, metavar="E",
                   help=f"{flag} kendall / acc-eq: metric differences <= E count as ties "
                        "(KendallVariants epsilon); acc-eq then uses E instead of the "
                        "calibrated threshold")
    p.add_argument("--gold-threshold", type=float, default=None, metavar="T",
                   help=f"{flag} kendall-like: only pairs whose human scores differ by >= T "
                        "(WMT20's Kendall-like tau; default 25)")
    p.add_argument("--micro", action="store_true",
                   help="average the groups' values weighted by their cells (mt-metrics-eval "
                        "macro=False) instead of the plain mean")
    p.add_argument("--nan-as-zero", action="store_true",
                   help="an undefined group value (a constant side) counts as 0 in the average "
                        "(mt-metrics-eval replace_nans_with_zeros) instead of being left out")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("correlate", help="correlation of measures with human scores",
                              description="Pearson r, Spearman rho, Kendall tau (thesis tau_a "
                              "and tau_b), tau-bar and WMT tau variants of every measure with "
                              "every human class, with 95%% confidence intervals.")
    p.add_argument("database", metavar="DB")
    p.add_argument("--measures", metavar="M[,M]", help="measures to correlate (default: all "
                   "default measures)")
    p.add_argument("--systems", metavar="S[,S]", help="systems to use (default: all candidates)")
    p.add_argument("--level", choices=("sentence", "system", "both", "seg", "sys"),
                   default="both", help="seg = sentence, sys = system (default both)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap samples for the intervals (0 = none; default 1000; with "
                        "--stats: the permutations of spa)")
    p.add_argument("--stats", metavar="S[,S]",
                   help="mt-metrics-eval statistics instead of the thesis table: pearson, "
                        "spearman, pdp (pairwise difference Pearson), kendall, kendall-like "
                        "(WMT20), pairwise-accuracy, acc-eq, spa (system level: 1 - pairwise "
                        "confidence error)")
    p.add_argument("--group", choices=("none", "item", "system"),
                   help="segment-level grouping as mt-metrics-eval's Correlation: none "
                        "(flatten), item (per segment across systems, averaged), system (per "
                        "system across segments, averaged); with --stats")
    p.add_argument("--kendall-variant", choices=KENDALL_VARIANTS, default=None,
                   help="Kendall's tau of --stats kendall: a, b, c, 23 (tau_23) or acc23 "
                        "(acc_23; Deutsch et al. 2023) (default b, as mt-metrics-eval)")
    _add_mtme_option_arguments(p, "--stats")
    p.add_argument("--p-values", action="store_true",
                   help="--stats pearson/spearman/kendall: add the averaged p-value of r")
    p.add_argument("--where", action="append", metavar="KEY=VALUE",
                   help="--stats/--task: only translations whose mt-metrics-eval metadata "
                        "(metadata/LP/SYSTEM.jsonl) or source attribute (domain, doc, ...) "
                        "KEY equals VALUE, e.g. domain=news; repeat to require several")
    p.add_argument("--task", choices=("wmt23", "wmt24", "wmt25"),
                   help="a WMT metrics task's statistics for this language pair and their "
                        "average, as mt-metrics-eval's task sets (wmt23: sys accuracy and "
                        "Pearson, seg Pearson, seg acc-eq by item; wmt24/wmt25: sys spa, seg "
                        "acc-eq by item; WMT25's ESA pairs are judged against its first "
                        "human score version, --human esa-human1)")
    p.add_argument("--resamples", type=int, default=None, metavar="K",
                   help="--task: resamples of the permutation tests behind the significance "
                        "clusters of each component and of the average (default 0 = none, "
                        "as mt-metrics-eval's task sets)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the bootstrap samples (and of --stats' sampling; default 0)")
    _add_convention_arguments(p)
    add_human_arguments(p)
    add_json_argument(p, csv=True)
    add_option_arguments(p)
    add_progress_argument(p)
    p.set_defaults(func=run_correlate, csv=False)

    p = subparsers.add_parser("significance", help="paired bootstrap / approximate "
                              "randomisation between systems, as sacreBLEU computes them",
                              description="p-values between every pair of systems (or, with "
                              "--baseline, of every system against one, printed as sacreBLEU's "
                              "--paired-bs / --paired-ar table). bootstrap and randomization "
                              "are sacreBLEU's paired_bs and paired_ar (same statistic, same "
                              "draws for the same seed); bootstrap-centred is the earlier "
                              "centred statistic.")
    p.add_argument("database", metavar="DB")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--measure", metavar="M", help="automatic measure (default bleu)")
    what.add_argument("--human", metavar="CLASS", help="human score class instead of a measure")
    p.add_argument("--systems", metavar="S[,S]")
    p.add_argument("--method", choices=("bootstrap", "randomization", "bootstrap-centred",
                                        "perm-both", "williams", "perm-pairs"),
                   default="bootstrap", help="between systems: bootstrap, randomization, "
                   "bootstrap-centred; between metrics (--between-metrics): perm-both "
                   "(default), williams, or perm-pairs (acc-eq, as the WMT23-WMT25 tasks, "
                   "or kendall a/b/23/acc23 at --epsilon: pairwise comparisons swapped)")
    p.add_argument("--between-metrics", action="store_true",
                   help="compare the measures' correlations with --human (default: the first "
                        "class) instead of the systems: p-values and significance clusters")
    p.add_argument("--measures", metavar="M[,M]", help="--between-metrics: measures and "
                   "external metrics to compare (default: all)")
    p.add_argument("--statistic", choices=("pearson", "spearman", "pdp", "kendall",
                                           "kendall-like", "pairwise-accuracy", "acc-eq"),
                   default=None, help="--between-metrics: the statistic compared")
    p.add_argument("--level", choices=("seg", "sys"), default=None,
                   help="--between-metrics: segment or system level (default sys)")
    p.add_argument("--group", choices=("none", "item", "system"), default=None,
                   help="--between-metrics at segment level: grouping (as correlate)")
    p.add_argument("--kendall-variant", choices=KENDALL_VARIANTS, default=None,
                   help="--between-metrics --statistic kendall: the variant (default b)")
    _add_mtme_option_arguments(p, "--between-metrics --statistic")
    p.add_argument("--early-stop", action="store_true",
                   help="--between-metrics perm-both / perm-pairs: stop after a block of 1000 "
                        "resamples when p < 0.02 or p > 0.5 (mt-metrics-eval "
                        "PermutationSigDiffParams)")
    p.add_argument("--where", action="append", metavar="KEY=VALUE",
                   help="--between-metrics: only translations whose mt-metrics-eval metadata "
                        "or source attribute (domain, doc, ...) KEY equals VALUE (as "
                        "correlate --where)")
    _add_convention_arguments(p)
    p.add_argument("--alpha", type=float, default=None,
                   help="--between-metrics: significance level of the clusters")
    p.add_argument("--samples", type=int, default=None, metavar="N",
                   help="resamples / trials (default as sacreBLEU: 1000 bootstrap, "
                        "10000 randomization)")
    p.add_argument("--seed", default=None, metavar="SEED",
                   help="random seed: an integer or 'none' (random); default as sacreBLEU: "
                        "$SACREBLEU_SEED, else 12345")
    p.add_argument("--baseline", nargs="?", const="", default=None, metavar="SYSTEM",
                   help="compare every system with SYSTEM (no value: the first system) and "
                        "print sacreBLEU's table: score (mean ± 95%% CI), p-value")
    p.add_argument("--agreement", choices=("auto", "published", "fit", "none"), default=None,
                   help="the probability that humans agree with the measure's order of two "
                        "systems given its difference (Kocmi et al. 2024): published = their "
                        "fit (bleu, chrf, COMET-22, ...), fit = the same model fitted on the "
                        "database's first human class, none; auto (default) = published when "
                        "there is one, else fit when possible")
    p.add_argument("--normalize-evaluators", action="store_true")
    p.add_argument("--aggregate", choices=("mean", "median"), default=None,
                   help="--human: how the judges' scores of a candidate combine (default mean)")
    p.add_argument("--unweighted", action="store_true",
                   help="human system score = plain mean (default: length-weighted)")
    add_json_argument(p)
    add_option_arguments(p)
    add_progress_argument(p)
    p.set_defaults(func=run_significance)

    p = subparsers.add_parser("orange", help="ORANGE: rank of held-out references among the "
                              "candidates (no human scores needed)",
                              description="ORANGE (Lin & Och 2004; thesis ch. 6): for each "
                              "source with two or more references, each reference is held out, "
                              "scored against the others together with the candidates, and "
                              "ranked; the mean rank (lower is better) of every measure.")
    p.add_argument("database", metavar="DB")
    p.add_argument("--measures", metavar="M[,M]", help="measures (default: the default ones)")
    add_json_argument(p)
    add_option_arguments(p)
    p.set_defaults(func=run_orange)

    p = subparsers.add_parser("combine", help="correlation-optimal weights of measures "
                              "(thesis eq. 6.15) with k-fold cross-validation")
    p.add_argument("database", metavar="DB")
    p.add_argument("--measures", metavar="M[,M]")
    p.add_argument("--systems", metavar="S[,S]")
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    add_human_arguments(p, many=False)
    add_json_argument(p)
    add_option_arguments(p)
    add_progress_argument(p)
    p.set_defaults(func=run_combine)
