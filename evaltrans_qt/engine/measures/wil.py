"""WIL: word information lost (Morris et al. 2004), as jiwer's ``wil`` (``process_words``):
1 − WIP over the run's tokens. It keeps the same reference as WIP. Counts, empty
references and the choice among several references in
:mod:`evaltrans_qt.engine.measures._jiwer`.
"""

from __future__ import annotations

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._jiwer import JiwerMeasure, wip_values


@register
class WIL(JiwerMeasure):
    """Word information lost: 1 − WIP."""

    name = "wil"
    long_name = "Word information lost (jiwer)"
    report_element = "wil"
    source = "Morris et al. 2004, eq. (WIL); jiwer process.py process_words"
    column = "WIL"

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        return 1 - wip_values(stats)

    def selection_values(self, stats: np.ndarray) -> np.ndarray:
        """The reference of highest WIP (1 − WIP can round two different WIPs together)."""
        return -wip_values(stats)
