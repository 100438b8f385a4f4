"""Re-exports of the meta-evaluation's public names (no code of its own).

Correlation was split into modules named for what they hold; import from them
in new code:

* :mod:`evaltrans_qt.engine.statistics.coefficients` -- Pearson, Spearman,
  Kendall tau_a/tau_b, tau-bar over weighted samples (thesis ch. 6);
* :mod:`evaltrans_qt.engine.statistics.wmt` -- WMT tau variants (Macháček §4.4);
* :mod:`evaltrans_qt.engine.statistics.regression` -- least squares and least
  orthogonal squares lines (thesis sections 6.1.2, 6.1.3);
* :mod:`evaltrans_qt.engine.statistics.bootstrap` -- bootstrap weights and intervals;
* :mod:`evaltrans_qt.engine.kernels.ranks` -- the numba rank kernels;
* :mod:`evaltrans_qt.engine.metaeval` -- ``Correlation``, ``correlate_run`` and friends;
* :mod:`evaltrans_qt.engine.correlation_format` -- the text table and report elements.
"""

from __future__ import annotations

from evaltrans_qt.engine.correlation_format import correlation_report_elements, format_table
from evaltrans_qt.engine.metaeval import (LEVELS, Correlation, correlate_run,
                                         correlate_sentences, correlate_systems,
                                         ranking_comparisons)
from evaltrans_qt.engine.statistics.bootstrap import (bootstrap_counts, cluster_weights,
                                                      percentile_interval)
from evaltrans_qt.engine.statistics.coefficients import (
    Z95, concordance_reference, fisher_interval, kendall_tau_a, kendall_tau_b, midranks, pearson,
    rowwise_correlations, spearman, spearman_with_ties, tau_bar, tau_per_group, weighted_kendall,
    weighted_midranks, weighted_pearson, weighted_spearman)
from evaltrans_qt.engine.statistics.regression import least_squares_line, orthogonal_line
from evaltrans_qt.engine.statistics.wmt import WMT_VARIANTS, pairwise_relations, wmt_tau

__all__ = [
    "LEVELS", "WMT_VARIANTS", "Z95", "Correlation", "bootstrap_counts", "cluster_weights",
    "concordance_reference", "correlate_run", "correlate_sentences", "correlate_systems",
    "correlation_report_elements", "fisher_interval", "format_table", "kendall_tau_a",
    "kendall_tau_b", "least_squares_line", "midranks", "orthogonal_line", "pairwise_relations",
    "pearson", "percentile_interval", "ranking_comparisons", "rowwise_correlations", "spearman",
    "spearman_with_ties", "tau_bar", "tau_per_group", "weighted_kendall", "weighted_midranks",
    "weighted_pearson", "weighted_spearman", "wmt_tau",
]
