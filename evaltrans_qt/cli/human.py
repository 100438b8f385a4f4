"""Meta-evaluation commands: ``correlate``, ``significance``, ``agreement``,
``extrapolate``, ``ratio-of-wins``, ``combine``.

Measure and preprocessing options come from ``evaltrans batch``'s generator
(:func:`evaltrans_qt.cli.batch.add_option_arguments`, driven by
:func:`evaltrans_qt.engine.options.option_fields`), so every option that
changes a number is available here too, spelled the same way.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
import time

import numpy as np

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.errors import ScoreError


# ------------------------------------------------------------ shared bits
def add_option_arguments(p: argparse.ArgumentParser) -> None:
    """``--preset`` plus one argument per evaluation option, exactly as ``evaltrans batch``."""
    from evaltrans_qt.cli import batch
    p.add_argument("--preset", choices=sorted(PRESETS),
                   help="start from these option settings (thesis Table 8.3); explicit "
                        "options override")
    batch.add_option_arguments(p)


def options_from_args(args: argparse.Namespace) -> EvalOptions:
    from evaltrans_qt.cli import batch
    return batch.options_from_args(args)


def load_db(path: str) -> Database:
    """The database as the application sees it (``Workspace.open``): the scores an
    unfinished scoring session left in its journal are replayed in memory (the file is not
    changed), with a note on stderr."""
    from evaltrans_qt.workspace import Workspace
    ws = Workspace.open(path)
    ws.close()
    rec = ws.recovered
    if rec is not None and rec.applied:
        sys.stderr.write(f"note: {len(rec.applied)} score change(s) from the journal of an "
                         f"unfinished scoring session are included (not yet saved in {path})\n")
    return ws.database


def _list(v: str | None) -> list[str] | None:
    return [x.strip() for x in v.split(",") if x.strip()] if v else None


def _human_classes(db: Database, requested: list[str] | None) -> list[str]:
    from evaltrans_qt.engine.human.resolve import check_class
    if requested:
        for c in requested:
            check_class(db, c)
        return requested
    classes = [c for c in db.human_classes if c != "rank"]
    if not classes:
        raise ScoreError("the database declares no human score class")
    return classes


def _run(db: Database, args: argparse.Namespace, measures: list[str] | None):
    from evaltrans_qt.engine.run.driver import evaluate
    opts = options_from_args(args)
    systems = _list(getattr(args, "systems", None))
    return evaluate(db, opts, measures, systems)


def _num(v: float | None, fmt: str = ".4f") -> str:
    """Format a number; NaN/None as '-' padded to the same width."""
    if v is None or not math.isfinite(v):
        return "-".rjust(len(format(0.0, fmt)))
    return format(v, fmt)


def _scores(db: Database, cls: str, args: argparse.Namespace, extrapolate: bool):
    """Human scores of ``cls``; with ``--extrapolate`` (Table A.2) unscored candidates are
    first estimated from the database (in memory only) and those estimates included."""
    from evaltrans_qt.engine.human.resolve import check_class, human_scores
    from evaltrans_qt.engine.human.scores import split_class
    check_class(db, cls)
    if extrapolate:
        from evaltrans_qt.engine.human import similar
        n = sum(similar.extrapolate(db, part) for part in split_class(cls))
        print(f"evaltrans: --extrapolate: {n} '{cls}' score(s) estimated from the database. "
              f"WARNING: {similar.OVERESTIMATE_WARNING}", file=sys.stderr)
    return human_scores(db, cls, how=args.aggregate, normalize=args.normalize_evaluators,
                        include_extrapolated=extrapolate)


# ------------------------------------------------------------ correlate
def _cmd_correlate(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    from evaltrans_qt.engine.metaeval.correlation_format import format_table
    from evaltrans_qt.engine.run.driver import evaluate
    t0 = time.perf_counter()
    db = load_db(args.database)
    classes = _human_classes(db, _list(args.human))
    opts = options_from_args(args)
    scores = {c: _scores(db, c, args, opts.extrapolate) for c in classes}
    systems = _list(args.systems)
    if systems is None:
        # only systems with human scores can be correlated: evaluate just those
        scored = {s for hs in scores.values() for s in hs.systems()}
        systems = [s for s in db.systems() if s in scored]
        if not systems:
            raise ScoreError(f"no candidate has a score of {', '.join(classes)}")
    computed, external = _split_measures(db, _list(args.measures))
    run = _with_external(evaluate(db, opts, computed, systems), db, external)
    t_eval = time.perf_counter() - t0
    if args.stats or args.group:
        return _correlate_mtme(db, run, classes, scores, args, t0)
    levels = ("sentence", "system") if args.level == "both" else (
        {"seg": "sentence", "sys": "system"}.get(args.level, args.level),)
    rows = []
    for cls in classes:
        for level in levels:
            rows.extend(correlate_run(db, run, cls, level=level, weighted=not args.unweighted,
                                      n_boot=args.bootstrap, seed=args.seed, scores=scores[cls]))
    elapsed = time.perf_counter() - t0
    if args.json:
        json.dump([r.to_dict() for r in rows], sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.csv:
        buf = io.StringIO()
        w = csv.writer(buf)
        keys = ["measure", "human", "level", "n", "negated", "pearson", "pearson_lo", "pearson_hi",
                "pearson_fisher_lo", "pearson_fisher_hi", "spearman", "spearman_lo",
                "spearman_hi", "kendall", "kendall_lo", "kendall_hi", "kendall_b", "tau_bar",
                "tau_bar_lo", "tau_bar_hi", "wmt12", "wmt13", "wmt14", "hties"]
        w.writerow(keys)
        for r in rows:
            w.writerow([r.measure, r.human, r.level, r.n, r.negated, r.pearson, *r.pearson_ci,
                        *r.pearson_fisher_ci, r.spearman, *r.spearman_ci, r.kendall,
                        *r.kendall_ci, r.kendall_b, r.tau_bar, *r.tau_bar_ci,
                        *(r.wmt.get(k, math.nan) for k in ("wmt12", "wmt13", "wmt14", "hties"))])
        sys.stdout.write(buf.getvalue())
    else:
        sys.stdout.write(format_table(rows))
        norm = "(0,1)-normalised per judge" if args.normalize_evaluators else "not normalised"
        print(f"human scores: {args.aggregate} over judges, {norm}; system level "
              f"{'plain' if args.unweighted else 'length-weighted'} means; "
              f"{args.bootstrap} bootstrap samples, seed {args.seed}")
    print(f"evaluation {t_eval:.1f} s, total {elapsed:.1f} s", file=sys.stderr)
    return 0


def _split_measures(db: Database, names: list[str] | None
                    ) -> tuple[list[str] | None, list[str] | None]:
    """(measures to compute, external metrics of the database) named in ``--measures``;
    without ``--measures``: the default measures and every external metric."""
    from evaltrans_qt.engine.measures.external import external_metrics
    ext = external_metrics(db)
    if names is None:
        return None, list(ext)
    computed = [n for n in names if n not in ext]
    external = [n for n in names if n in ext]
    if not computed:
        from evaltrans_qt.engine.run.driver import default_measures
        computed = default_measures(EvalOptions())[:1]   # a run needs one computed measure
    return computed, external


def _with_external(run, db: Database, names: list[str] | None):
    """The run with the database's external metrics ``names`` as measures."""
    from evaltrans_qt.engine.measures.external import with_external
    return with_external(run, db, names) if names else run


def _correlate_mtme(db: Database, run, classes: list[str], scores, args, t0: float) -> int:
    """``correlate --stats/--group``: mt-metrics-eval statistics (engine/metaeval/metrics_task.py)."""
    from evaltrans_qt.engine.metaeval import metrics_task as mt
    stats = _list(args.stats) or ["pearson", "kendall"]
    level = {"sentence": "seg", "system": "sys"}.get(args.level, args.level)
    levels = ("seg", "sys") if level == "both" else (level,)
    group = args.group or "none"
    out = []
    for cls in classes:
        data = mt.gather(db, run, cls, weighted=not args.unweighted, scores=scores[cls])
        for lv in levels:
            out.append(mt.metrics_table(data, [s for s in stats if lv == "sys" or s != "spa"],
                                        level=lv, grouping=group if lv == "seg" else "none",
                                        variant=args.kendall_variant, seed=args.seed,
                                        spa_samples=args.bootstrap or 1000))
    if args.json:
        json.dump([r.to_dict() for rows in out for r in rows], sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for rows in out:
            sys.stdout.write(mt.format_metrics_table(rows) + "\n")
        print(f"kendall = tau-{args.kendall_variant}; pairwise-accuracy = ties count as agreement "
              "only when both sides tie (Kocmi et al. 2021); acc-eq = acc*_eq with the tie "
              "threshold epsilon that maximises it (Deutsch et al. 2023); spa = soft pairwise "
              "accuracy (Thompson et al. 2024)")
    print(f"total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


def _cmd_significance_metrics(args: argparse.Namespace) -> int:
    """``significance --between-metrics``: p-values between measures, clusters."""
    from evaltrans_qt.engine.metaeval import metrics_task as mt
    from evaltrans_qt.engine.run.driver import evaluate
    db = load_db(args.database)
    cls = _human_classes(db, _list(args.human))[0]
    opts = options_from_args(args)
    hs = _scores(db, cls, args, opts.extrapolate)
    names = _list(args.measures) or ([args.measure] if args.measure else None)
    computed, external = _split_measures(db, names)
    systems = _list(args.systems) or [s for s in db.systems() if s in set(hs.systems())]
    run = _with_external(evaluate(db, opts, computed, systems), db, external)
    data = mt.gather(db, run, cls, weighted=not args.unweighted, scores=hs)
    method = args.method if args.method in mt.METHODS else "perm-both"
    seed = 12345 if args.seed in (None, "none") else int(args.seed)
    res = mt.metric_significance(data, args.statistic, level=args.level, grouping=args.group,
                                 method=method, samples=args.samples or 1000, seed=seed,
                                 alpha=args.alpha, variant=args.kendall_variant)
    if args.json:
        json.dump(res.to_dict(), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(mt.format_significance(res))
    return 0


# ------------------------------------------------------------ orange
def _cmd_orange(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.metaeval.orange import format_orange, orange
    db = load_db(args.database)
    rows = orange(db, options_from_args(args), _list(args.measures))
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


def _cmd_significance(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.metaeval import significance as sig
    if args.between_metrics:
        return _cmd_significance_metrics(args)
    if args.method in ("perm-both", "williams"):
        raise ScoreError(f"--method {args.method} compares metrics: add --between-metrics")
    db = load_db(args.database)
    seed = "env" if args.seed is None else args.seed
    common = dict(method=args.method, samples=args.samples, seed=seed)
    systems = _list(args.systems)
    baseline = None if args.baseline is None else (args.baseline or None)
    if args.human:
        hs = _scores(db, args.human, args, options_from_args(args).extrapolate)
        what = f"human '{args.human}'"
        if args.baseline is not None:
            res = sig.human_vs_baseline(hs, systems, baseline=baseline,
                                        weighted=not args.unweighted, **common)
        else:
            res = sig.human_significance(hs, systems, weighted=not args.unweighted, **common)
    else:
        measure = args.measure or "bleu"
        run = _run(db, args, [measure])
        what = f"measure '{run.measures[0]}'"
        if args.baseline is not None:
            res = sig.run_vs_baseline(run, run.measures[0], baseline=baseline, **common)
        else:
            res = sig.run_significance(run, run.measures[0], **common)
    signature = _significance_signature(res, None if args.human else run,
                                        args.human, not args.unweighted)
    if args.json:
        json.dump({**res.to_dict(), **res.meta, "signature": signature}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"{_SIG_TITLES[res.method]} on {what}: {res.n_sentences} common sentences, "
          f"{res.samples} {'trials' if res.method == 'randomization' else 'resamples'}, "
          f"seed {_seed_text(res)}")
    print(f"signature: {signature}")
    if args.baseline is not None:
        label = args.human or run.measures[0]
        print(sig.baseline_table({label: res}, width=4))
        print()
        print(sig.baseline_notes(res.method, res.samples, res.baseline))
        return 0
    names = res.systems
    width = max(8, max(len(s) for s in names))
    order = np.argsort(-res.scores if res.higher_is_better else res.scores, kind="stable")
    has_ci = res.means is not None and res.ci is not None
    print(f"{'system':<{width}}  {'score':>9}" + ("  mean ± 95% CI" if has_ci else ""))
    for i in order:
        line = f"{names[i]:<{width}}  {res.scores[i]:9.4f}"
        if has_ci:
            line += f"  {res.means[i]:.4f} ± {res.ci[i]:.4f}"
        print(line)
    print("\np-values (row vs column; * p < 0.05):")
    print(f"{'':<{width + 4}}" + "".join(f"{k + 1:>8}" for k in range(len(order))))
    for a, i in enumerate(order):
        cells = []
        for j in order:
            p = res.p_values[i, j]
            cells.append(f"{'-':>7} " if i == j else f"{p:7.4f}{'*' if p < 0.05 else ' '}")
        print(f"{a + 1:>2}. {names[i]:<{width}}" + "".join(cells))
    return 0


# ------------------------------------------------------------ agreement
def _cmd_agreement(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human import agreement as ag
    db = load_db(args.database)
    out = []
    for cls in _human_classes(db, _list(args.human)):
        raw = ag.annotator_correlation(db, cls, normalize=False)
        nrm = ag.annotator_correlation(db, cls, normalize=True)
        kap = ag.score_kappa(db, cls)
        out.append({"class": cls, "correlation": raw.to_dict(),
                    "correlation_normalized": nrm.to_dict(), "kappa": kap.to_dict()})
    if db.has_class("rank"):
        out.append({"class": "rank", "kappa": ag.ranking_kappa(db).to_dict()})
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print("Inter-/intra-annotator agreement (thesis Table 8.1; kappa with pooled P(E), "
          "Machacek 2.2.1)")
    print(f"{'class':<12} {'IAC r':>7} {'(0,1) r':>8} {'pairs':>6} {'intra r':>8} {'pairs':>6} "
          f"{'kappa':>7} {'intra k':>8} {'P(E)':>6} {'Fleiss':>7}")
    for o in out:
        k = o["kappa"]
        if "correlation" in o:
            c, n = o["correlation"], o["correlation_normalized"]
            print(f"{o['class']:<12} {_num(c['inter'], '7.3f')} {_num(n['inter'], '8.3f')} "
                  f"{c['inter_pairs']:>6} {_num(c['intra'], '8.3f')} {c['intra_pairs']:>6} "
                  f"{_num(k['inter'], '7.3f')} {_num(k['intra'], '8.3f')} "
                  f"{_num(k['p_e'], '6.3f')} {_num(k['fleiss'], '7.3f')}")
        else:
            print(f"{o['class']:<12} {'':>7} {'':>8} {'':>6} {'':>8} {'':>6} "
                  f"{_num(k['inter'], '7.3f')} {_num(k['intra'], '8.3f')} {_num(k['p_e'], '6.3f')}")
    for o in out:
        per = o["kappa"]["per_judge"]
        if per:
            print(f"\nkappa per judge, class '{o['class']}':")
            for j, d in per.items():
                print(f"  {j or '(anonymous)':<20} inter {_num(d['inter'], '6.3f')} "
                      f"(n={d['inter_n']})  intra {_num(d['intra'], '6.3f')} (n={d['intra_n']})")
    return 0


# ------------------------------------------------------------ extrapolate
def _cmd_extrapolate(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human import similar
    db = load_db(args.database)
    classes = _human_classes(db, _list(args.human))
    scope = "system" if args.leave_one_system_out else "candidate"
    reports = [similar.leave_one_out(db, c, distance=args.distance, scope=scope) for c in classes]
    changed = {}
    if args.output:
        for c in classes:
            if args.identical_only:
                changed[c] = similar.reuse_identical(db, c, judge=args.judge)
            else:
                changed[c] = similar.extrapolate(db, c, judge=args.judge,
                                                 max_distance=args.max_distance,
                                                 distance=args.distance)
        from evaltrans_qt.io.etdb import save_database
        save_database(db, args.output)
    if args.json:
        json.dump({"leave_one_out": [r.to_dict() for r in reports], "extrapolated": changed},
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for r in reports:
        sys.stdout.write(r.format())
    for c, n in changed.items():
        print(f"{args.output}: {n} '{c}' score(s) extrapolated (marked extrapolated)")
    return 0


# ------------------------------------------------------------ ratio of wins
def _cmd_wins(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.ranking import database_ratio_of_wins
    db = load_db(args.database)
    if not db.has_class(args.rank_class):
        raise ScoreError(f"the database has no '{args.rank_class}' ranking judgements")
    res = database_ratio_of_wins(db, args.rank_class)
    if args.json:
        json.dump({s: {"wins": w.wins, "losses": w.losses, "ties": w.ties,
                       "ratio": None if math.isnan(w.ratio) else w.ratio}
                   for s, w in res.stats.items()}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print("Ratio of wins (ignoring ties), Machacek 3.1")
    for s, r in res.ranking():
        w = res.stats[s]
        print(f"{s or '(no id)':<24} {_num(r)}  wins {w.wins}  losses {w.losses}  ties {w.ties}")
    return 0


# ------------------------------------------------------------ combine
def _cmd_combine(args: argparse.Namespace) -> int:
    from evaltrans_qt.engine.human.resolve import human_scores
    from evaltrans_qt.engine.metaeval.combination import cross_validate, optimal_weights
    db = load_db(args.database)
    cls = _human_classes(db, _list(args.human))[0]
    run = _run(db, args, _list(args.measures))
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
        print(f"  {m:<10} weight {wi:+.4f}   r alone {single[m]:.4f}")
    print(f"{args.folds}-fold cross-validated r (held-out folds of source sentences): "
          f"mean {cv.mean_r:.4f}, pooled {cv.pooled_r:.4f}")
    return 0


# ------------------------------------------------------------ register
def _human_opts(p: argparse.ArgumentParser, many: bool = True) -> None:
    p.add_argument("--human", metavar="CLASS" + ("[,CLASS]" if many else ""),
                   help="human score class(es); 'a+b' sums classes (default: all)")
    p.add_argument("--normalize-evaluators", action="store_true",
                   help="(0,1) evaluator normalisation per judge (thesis 5.5)")
    p.add_argument("--aggregate", choices=("mean", "median"), default="mean",
                   help="combine several judges' scores by mean or median (default mean)")
    p.add_argument("--unweighted", action="store_true",
                   help="system human score = plain mean (default: length-weighted, "
                        "thesis section 5.5)")


def _out_opts(p: argparse.ArgumentParser, csv_too: bool = False) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    if csv_too:
        g.add_argument("--csv", action="store_true", help="CSV on stdout")


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
                        "kendall, pairwise-accuracy, acc-eq, spa (system level)")
    p.add_argument("--group", choices=("none", "item", "system"),
                   help="segment-level grouping as mt-metrics-eval's Correlation: none "
                        "(flatten), item (per segment across systems, averaged), system (per "
                        "system across segments, averaged); implies --stats")
    p.add_argument("--kendall-variant", choices=("a", "b", "c"), default="b",
                   help="Kendall's tau of --stats kendall (default b, as mt-metrics-eval)")
    p.add_argument("--seed", type=int, default=0)
    _human_opts(p)
    _out_opts(p, csv_too=True)
    add_option_arguments(p)
    p.set_defaults(func=_cmd_correlate, csv=False)

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
                                        "perm-both", "williams"),
                   default="bootstrap", help="between systems: bootstrap, randomization, "
                   "bootstrap-centred; between metrics (--between-metrics): perm-both "
                   "(default) or williams")
    p.add_argument("--between-metrics", action="store_true",
                   help="compare the measures' correlations with --human (default: the first "
                        "class) instead of the systems: p-values and significance clusters")
    p.add_argument("--measures", metavar="M[,M]", help="--between-metrics: measures and "
                   "external metrics to compare (default: all)")
    p.add_argument("--statistic", choices=("pearson", "kendall", "pairwise-accuracy", "acc-eq"),
                   default="pearson", help="--between-metrics: the statistic compared")
    p.add_argument("--level", choices=("seg", "sys"), default="sys",
                   help="--between-metrics: segment or system level (default sys)")
    p.add_argument("--group", choices=("none", "item", "system"), default="none",
                   help="--between-metrics at segment level: grouping (as correlate)")
    p.add_argument("--kendall-variant", choices=("a", "b", "c"), default="b")
    p.add_argument("--alpha", type=float, default=0.05,
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
    p.add_argument("--normalize-evaluators", action="store_true")
    p.add_argument("--aggregate", choices=("mean", "median"), default="mean")
    p.add_argument("--unweighted", action="store_true",
                   help="human system score = plain mean (default: length-weighted)")
    _out_opts(p)
    add_option_arguments(p)
    p.set_defaults(func=_cmd_significance)

    p = subparsers.add_parser("orange", help="ORANGE: rank of held-out references among the "
                              "candidates (no human scores needed)",
                              description="ORANGE (Lin & Och 2004; thesis ch. 6): for each "
                              "source with two or more references, each reference is held out, "
                              "scored against the others together with the candidates, and "
                              "ranked; the mean rank (lower is better) of every measure.")
    p.add_argument("database", metavar="DB")
    p.add_argument("--measures", metavar="M[,M]", help="measures (default: the default ones)")
    _out_opts(p)
    add_option_arguments(p)
    p.set_defaults(func=_cmd_orange)

    p = subparsers.add_parser("agreement", help="inter-/intra-annotator correlation and kappa")
    p.add_argument("database", metavar="DB")
    p.add_argument("--human", metavar="CLASS[,CLASS]", help="classes (default: all)")
    _out_opts(p)
    p.set_defaults(func=_cmd_agreement)

    p = subparsers.add_parser("extrapolate", help="leave-one-out accuracy of the database "
                              "method; with -o, fill unscored candidates")
    p.add_argument("database", metavar="DB")
    p.add_argument("--human", metavar="CLASS[,CLASS]", help="classes (default: all)")
    p.add_argument("-o", "--output", metavar="DB", help="write the database with extrapolated "
                   "scores (marked extrapolated) here")
    p.add_argument("--identical-only", action="store_true",
                   help="only reuse scores of identical translations")
    p.add_argument("--max-distance", type=int, metavar="N",
                   help="do not extrapolate from neighbours farther than N edits (--distance)")
    p.add_argument("--distance", choices=("words", "chars"), default="words",
                   help="edit distance between translations in words (default) or characters "
                        "(Machacek 3.2.2)")
    p.add_argument("--leave-one-system-out", action="store_true",
                   help="accuracy report hiding each candidate's whole system (estimates from "
                        "other systems only, as for a new system)")
    p.add_argument("--judge", help="judge name stored with extrapolated scores")
    _out_opts(p)
    p.set_defaults(func=_cmd_extrapolate)

    p = subparsers.add_parser("ratio-of-wins", help="ratio of wins from relative ranking "
                              "judgements (Machacek 3.1)")
    p.add_argument("database", metavar="DB")
    p.add_argument("--rank-class", default="rank", metavar="CLASS")
    _out_opts(p)
    p.set_defaults(func=_cmd_wins)

    p = subparsers.add_parser("combine", help="correlation-optimal weights of measures "
                              "(thesis eq. 6.15) with k-fold cross-validation")
    p.add_argument("database", metavar="DB")
    p.add_argument("--measures", metavar="M[,M]")
    p.add_argument("--systems", metavar="S[,S]")
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    _human_opts(p, many=False)
    _out_opts(p)
    add_option_arguments(p)
    p.set_defaults(func=_cmd_combine)
