"""PENALIZEUNKNOWN (Macháček §3.3.2): EXACTMATCH with every missed segment counted as
the worst translation.

As EXACTMATCH (``measures/exactmatch.py``), but a ranked source segment none of whose
candidate segments occurs in the candidate is not skipped: in each of its annotations
the candidate loses against every candidate segment (N losses for N candidate
segments -- also against those ranked "unusable", our reading of "the worst
translations"). Score = wins / (wins + losses) over hits and misses; a sentence
without ranked segments is NaN. Statistics and columns as EXACTMATCH's.
"""

from __future__ import annotations

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.exactmatch import ExactMatch


@register
class PenalizeUnknown(ExactMatch):
    """PENALIZEUNKNOWN: missed segments lose against every candidate (higher is better)."""

    name = "penalizeunknown"
    long_name = "PENALIZEUNKNOWN (EXACTMATCH, missed segments ranked worst)"
    report_element = "penalizeunknown"
    source = "Macháček 2014 §3.3.2 (PENALIZEUNKNOWN)"
    column = "PENALIZEUNKNOWN"
    penalize_misses = True
