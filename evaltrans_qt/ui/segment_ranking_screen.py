"""The SegRanks screen (Macháček §2.2): every extracted short segment of
one sentence on one screen, each with the source sentence repeated and the segment
highlighted, its merged candidate segments (§2.1) to drag into rank rows 1..N or the
"unusable" row (rank N+1, §3.1), or to place with the keyboard
(:mod:`evaltrans_qt.ui.ranking_screen` has the keys, submitting, journal and undo; the
sentences and their boards are :class:`~evaltrans_qt.ranking_session.SegmentRanking`'s).

Judges see candidate segments only, never the systems that produced them; a merged
candidate's rank goes to all its systems when ranks become system scores
(``engine.ranking.expand``).
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from evaltrans_qt.ranking_session import SEGMENTS, SegmentRanking
from evaltrans_qt.ui.ranking_screen import RankingScreen


class SegmentRankingScreen(RankingScreen):
    """One sentence's segments on one screen (module doc)."""

    kind = SEGMENTS

    def __init__(self, workspace, judge: str, parent: QWidget | None = None) -> None:
        super().__init__(workspace, judge, SegmentRanking(workspace, judge), parent)
