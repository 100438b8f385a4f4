"""MER: match error rate (Morris et al. 2004), as jiwer's ``mer`` (``process_words``):
(S + D + I) / (H + S + D + I) over the run's tokens; counts, empty references and the
choice among several references in :mod:`evaltrans_qt.engine.measures._jiwer`.
"""

from __future__ import annotations

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._jiwer import JiwerMeasure, mer_values


@register
class MER(JiwerMeasure):
    """Match error rate: errors over errors plus hits."""

    name = "mer"
    long_name = "Match error rate (jiwer)"
    report_element = "mer"
    source = "Morris et al. 2004, eq. (MER); jiwer process.py process_words"
    column = "MER"

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        return mer_values(stats)
