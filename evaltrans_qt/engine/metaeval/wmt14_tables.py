"""The WMT14 metrics-task tables (Macháček ch. 4, Tables 4.2-4.7), per language pair.

* System level (§4.3, Tables 4.2/4.3): Pearson's r (eq. 4.1) of each measure with the
  human system scores per language pair, ``r ± half the 95% bootstrap interval``
  (1000 resamples, §4.3), the average over language pairs, and the average Spearman's
  rho; measures sorted by average Pearson.
* Segment level (§4.4.3, Tables 4.4/4.5): the WMT14 Kendall's tau variant (§4.4.2) per
  language pair and its average; with relative-ranking judgements (class ``rank``) the
  judges' own pairwise comparisons are used (``metaeval.ranking_comparisons``).
* Variants (Tables 4.6/4.7): the average over language pairs of the WMT12, WMT13,
  WMT14 and HTIES taus.

A language pair is a (database, run) -- each test set is its own database. The human
system score is :func:`~evaltrans_qt.engine.metaeval.correlation.correlate_run`'s under the
thesis convention: the length-weighted mean of the sentence scores (for ``rank``: of the
negated ranks), not WMT14's TrueSkill.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from evaltrans_qt.engine.metaeval.correlation import correlate_run
from evaltrans_qt.engine.metaeval.statistics.wmt import WMT_VARIANTS


def _pm(v: float, ci: tuple[float, float]) -> str:
    if not math.isfinite(v):
        return "n/a"
    half = (ci[1] - ci[0]) / 2 if all(math.isfinite(c) for c in ci) else math.nan
    return f"{v:.3f} ± {half:.3f}" if math.isfinite(half) else f"{v:.3f}"


#: The system-level convention of the tables (engine/metaeval/conventions.py).
CONVENTION = "thesis"


def wmt14_tables(pairs: Mapping[str, tuple], human: str = "rank", *, n_boot: int = 1000,
                 seed: int = 0) -> dict[str, pd.DataFrame]:
    """``{"system": …, "segment": …, "variants": …}`` frames for ``pairs`` =
    {language pair: (database, run)} (module doc). Frames are ready for
    :func:`evaltrans_qt.io.export.to_latex`."""
    sys_rows: dict[str, dict] = {}
    seg_rows: dict[str, dict] = {}
    var_rows: dict[str, dict[str, list[float]]] = {}
    heads = {}
    for lp, (db, run) in pairs.items():
        sys_c = correlate_run(db, run, human, level="system", n_boot=n_boot, seed=seed,
                              convention=CONVENTION)
        seg_c = correlate_run(db, run, human, level="sentence", n_boot=0, seed=seed)
        heads[lp] = f"{lp} {sys_c[0].n if sys_c else 0}"
        for c in sys_c:
            row = sys_rows.setdefault(c.measure, {"_r": [], "_rho": []})
            row[heads[lp]] = _pm(c.pearson, c.pearson_ci)
            row["_r"].append(c.pearson)
            row["_rho"].append(c.spearman)
        for c in seg_c:
            seg_rows.setdefault(c.measure, {})[lp] = c.wmt.get("wmt14", math.nan)
            vr = var_rows.setdefault(c.measure, {v: [] for v in WMT_VARIANTS})
            for v in WMT_VARIANTS:
                vr[v].append(c.wmt.get(v, math.nan))
    system = []
    for m, row in sys_rows.items():
        out = {"metric": m, **{h: row.get(h, "n/a") for h in heads.values()}}
        out["Average"] = float(np.nanmean(row["_r"])) if row["_r"] else math.nan
        out["Spearman average"] = float(np.nanmean(row["_rho"])) if row["_rho"] else math.nan
        system.append(out)
    sys_frame = pd.DataFrame(system).sort_values("Average", ascending=False, kind="stable")
    segment = [{"metric": m, **{lp: row.get(lp, math.nan) for lp in pairs},
                "Average": float(np.nanmean(list(row.values())))} for m, row in seg_rows.items()]
    seg_frame = pd.DataFrame(segment).sort_values("Average", ascending=False, kind="stable")
    variants = [{"metric": m, **{v.upper(): float(np.nanmean(vals)) for v, vals in vr.items()}}
                for m, vr in var_rows.items()]
    var_frame = pd.DataFrame(variants).sort_values("WMT14", ascending=False, kind="stable")
    return {"system": sys_frame.reset_index(drop=True), "segment": seg_frame.reset_index(drop=True),
            "variants": var_frame.reset_index(drop=True)}
