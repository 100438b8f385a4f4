"""A hand-made SegRanks database for the unseen-system tests (Macháček ch. 3).

One sentence, four systems A-D, a reference, two ranked source segments:

* segment 0 "x y": candidates "p q" (A, B), "p r" (C), "s t" (D); judge j1 ranks 1, 2, 3;
* segment 1 "z w": candidates "u" (A), "u v" (B, C), "w" (D); j1 ranks 2, 1, 3, j2 2, 1, 2.

Whole-sentence ranking (class ``rank``): A 1, B 2, C 3, D 4.
"""

from __future__ import annotations

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.engine.human.ranking import add_ranking
from evaltrans_qt.engine.human.segranks.model import (
    CandidateSegment,
    SegmentRanking,
    SentenceSegments,
    SourceSegment,
    set_sentence_segments,
)

TEXTS = {"A": "k p q u m", "B": "k p q u v m", "C": "k p r u v", "D": "s t w m"}


def make_db(sentence_ranks: bool = True) -> Database:
    db = Database([Levels("adequacy", 6, firstvalid=1)])
    src = db.add_source("x y z w")
    db.add_target(src, "p q u v m", "ref", reference=True)
    for s, text in TEXTS.items():
        db.add_target(src, text, s)
    segs = [SourceSegment((0, 1), "x y", [CandidateSegment("p q", ["A", "B"]),
                                          CandidateSegment("p r", ["C"]),
                                          CandidateSegment("s t", ["D"])]),
            SourceSegment((2, 3), "z w", [CandidateSegment("u", ["A"]),
                                          CandidateSegment("u v", ["B", "C"]),
                                          CandidateSegment("w", ["D"])])]
    rks = [SegmentRanking("j1", {0: (1, 2, 3), 1: (2, 1, 3)}, "t1"),
           SegmentRanking("j2", {1: (2, 1, 2)}, "t2")]
    set_sentence_segments(src, SentenceSegments(segs, rks))
    if sentence_ranks:
        idx = {t.system: k for k, t in enumerate(src.targets)}
        add_ranking(db, src, {idx["A"]: 1, idx["B"]: 2, idx["C"]: 3, idx["D"]: 4}, "j3", "s1")
    return db
