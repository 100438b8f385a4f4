"""Correlations as text and as the report's ``<correlation>`` section.

:func:`format_table` prints the thesis-style table (measure x human class:
r, rho, tau / tau-bar with 95% intervals); :func:`correlation_report_elements`
gives the nested mapping :mod:`evaltrans_qt.io.report` writes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.metaeval.correlation import Correlation


def format_table(rows: Sequence[Correlation]) -> str:
    """Thesis-style text table (measure x human class: r, rho, tau / tau-bar, 95% CIs)."""
    def f(v: float) -> str:
        return "   nan" if not np.isfinite(v) else f"{v:6.3f}"

    def ci(c: tuple[float, float]) -> str:
        return f"[{f(c[0])},{f(c[1])}]"

    lines = []
    by: dict[tuple[str, str], list[Correlation]] = {}
    for c in rows:
        by.setdefault((c.human, c.level), []).append(c)
    for (human, level), cs in by.items():
        n = cs[0].n
        unit = "candidate sentences" if level == "sentence" else "systems"
        lines.append(f"Correlation with human '{human}', {level} level ({n} {unit}); "
                     "error measures negated (positive = agreement); 95% bootstrap CIs")
        head = f"{'measure':<10} {'r':>6} {'95% CI':>17} {'Fisher':>17} {'rho':>6} {'95% CI':>17} " \
               f"{'tau':>6} {'95% CI':>17} {'tau_b':>6}"
        if level == "sentence":
            head += f" {'tau-bar':>7} {'95% CI':>17} {'WMT14':>6}"
        lines.append(head)
        lines.append("-" * len(head))
        for c in cs:
            name = c.measure + ("*" if c.negated else "")
            line = (f"{name:<10} {f(c.pearson)} {ci(c.pearson_ci)} {ci(c.pearson_fisher_ci)} "
                    f"{f(c.spearman)} {ci(c.spearman_ci)} {f(c.kendall)} {ci(c.kendall_ci)} "
                    f"{f(c.kendall_b)}")
            if level == "sentence":
                line += f"  {f(c.tau_bar)} {ci(c.tau_bar_ci)} {f(c.wmt.get('wmt14', math.nan))}"
            lines.append(line)
        lines.append("(* error measure, negated; tau = thesis eq. 6.23 (tau_a); "
                     + ("tau-bar = eq. 6.24 over systems per source)" if level == "sentence"
                        else f"system scores: {cs[0].convention or 'thesis'} convention)"))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def correlation_report_elements(rows: Sequence[Correlation]) -> dict:
    """The report's ``<correlation>`` section as a nested mapping.

    ``{"correlation": [(attrs, children), ...]}``: one entry per (measure,
    human class, level); attrs ``measure``, ``human``, ``level``, ``n``,
    ``negated`` and at system level ``convention`` (which numbers stand for a system,
    ``conventions.label``); children ``pearson``/``spearman``/``kendall``/``kendall-b``
    (and at sentence level ``tau-bar`` and ``wmt-tau``), each a mapping
    ``value``, ``lower``, ``upper`` (95% bootstrap) -- ``pearson`` also
    ``fisher-lower``/``fisher-upper``. NaN means undefined.
    """
    def coef(v, c):
        return {"value": float(v), "lower": float(c[0]), "upper": float(c[1])}

    entries = []
    for c in rows:
        attrs = {"measure": c.measure, "human": c.human, "level": c.level, "n": str(c.n),
                 "negated": "true" if c.negated else "false"}
        if c.level == "system" and c.convention:
            attrs["convention"] = c.convention        # conventions.label
        kids: dict = {"pearson": {**coef(c.pearson, c.pearson_ci),
                                  "fisher-lower": float(c.pearson_fisher_ci[0]),
                                  "fisher-upper": float(c.pearson_fisher_ci[1])},
                      "spearman": coef(c.spearman, c.spearman_ci),
                      "kendall": coef(c.kendall, c.kendall_ci),
                      "kendall-b": coef(c.kendall_b, c.kendall_b_ci)}
        if c.level == "sentence":
            kids["tau-bar"] = coef(c.tau_bar, c.tau_bar_ci)
            kids["wmt-tau"] = {k: float(v) for k, v in c.wmt.items()}
        entries.append((attrs, kids))
    return {"correlation": entries}
