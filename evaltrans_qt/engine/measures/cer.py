"""CER: character error rate, as jiwer's ``cer`` with its default transform ``cer_default``
(``Strip`` then ``ReduceToListOfListOfChars``): the Levenshtein alignment of the characters
of each raw text with leading and trailing whitespace removed -- inner spaces, tabs and
no-break spaces count as characters -- over the reference's characters.

It works on the raw texts ``seg.hyp_text`` / ``seg.ref_texts``, not on the run's tokens
(``--tokenization`` does not apply, as for chrF); ``--case ignore`` lower-cases the texts
first (jiwer's ``cer_default`` keeps case, as ``--case use`` does). An empty reference
gives the number of inserted characters (jiwer), so CER can exceed 1 but is never inf.
Counts and the choice among several references in :mod:`evaltrans_qt.engine.measures._jiwer`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._jiwer import JiwerMeasure, error_rate_values
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.errors import ScoreError


@register
class CER(JiwerMeasure):
    """Character error rate: character edits over reference characters."""

    name = "cer"
    long_name = "Character error rate (jiwer)"
    report_element = "cer"
    source = "jiwer measures.py cer, transformations.py cer_default"
    column = "CER"

    def text(self, raw: str) -> str:
        """The characters CER aligns: ``raw`` stripped (jiwer ``Strip``), lower-cased with
        ``--case ignore``."""
        raw = raw.strip()
        return raw.lower() if self.options.case == "ignore" else raw

    def sequences(self, seg: Segment) -> tuple[Sequence, list[Sequence]]:
        if len(seg.ref_texts) != len(seg.refs):
            raise ScoreError("CER needs the raw reference texts of every segment")
        return self.text(seg.hyp_text), [self.text(t) for t in seg.ref_texts]

    def units(self, seq: Sequence) -> tuple[str, ...]:
        return tuple(seq)

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        return error_rate_values(stats)
