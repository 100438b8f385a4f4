"""WIP: word information preserved (Morris et al. 2004), as jiwer's ``wip``
(``process_words``): (H / N_ref) · (H / N_hyp) over the run's tokens; higher is better.
Counts, empty references and the choice among several references in
:mod:`evaltrans_qt.engine.measures._jiwer`.
"""

from __future__ import annotations

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._jiwer import JiwerMeasure, wip_values


@register
class WIP(JiwerMeasure):
    """Word information preserved: hits over reference words times hits over candidate words."""

    name = "wip"
    long_name = "Word information preserved (jiwer)"
    report_element = "wip"
    higher_is_better = True
    source = "Morris et al. 2004, eq. (WIP); jiwer process.py process_words"
    column = "WIP"

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        return wip_values(stats)
