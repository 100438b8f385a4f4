"""Reusing a judged database for unseen systems (Macháček ch. 3), Qt-free.

* ``annotated``: the ranked short segments as read-only :class:`AnnotatedSegment`
  views, the leave-one-out view without a system, pooling by source text;
* ``matching``: exact and closest-segment matching of an unseen (or left-out) system,
  hit rate, AED, ratio of wins on the scored segments, worse/equal/better of Table 3.5,
  Figure 3.3 data, Table 3.6 examples, :func:`leave_one_system_out` (Tables 3.3-3.5);
* ``levels``: segment-level vs sentence-level judgements, Kendall τ of Table 3.2 and
  the disagreement quotient (§3.1.2).

The database-based metrics (§3.2.3, §3.3.2) are registry measures:
``engine/measures/exactmatch.py``, ``penalizeunknown.py``, ``segranksbleu.py``.
The sentence-level database method (EvalTrans) is ``engine/human/similar.py``.
"""

from __future__ import annotations

from evaltrans_qt.engine import lazy_exports

_EXPORTS = {
    "AnnotatedSegment": "annotated", "annotated_segments": "annotated",
    "annotated_systems": "annotated", "pooled_by_text": "annotated",
    "METHODS": "matching", "SegmentMatch": "matching", "UnseenResult": "matching",
    "match_system": "matching", "evaluate_unseen": "matching",
    "leave_one_system_out": "matching", "total_outcomes": "matching",
    "OVERESTIMATE_WARNING": "matching",
    "LevelAgreement": "levels", "level_agreement": "levels",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
