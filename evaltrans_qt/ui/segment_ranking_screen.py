"""The SegRanks screen (Macháček §2.2): every extracted short segment of
one sentence on one screen, each with the source sentence repeated and the segment
highlighted, its merged candidate segments (§2.1) to drag into rank rows 1..N or the
"unusable" row (rank N+1, §3.1), or to place with the keyboard
(:mod:`evaltrans_qt.ui.ranking_screen` has the keys, submitting, journal and undo).

Judges see candidate segments only, never the systems that produced them; a merged
candidate's rank goes to all its systems when ranks become system scores
(``engine.ranking.expand``).
"""

from __future__ import annotations

import html

from evaltrans_qt.engine.human.segranks.model import (
    SentenceSegments,
    sentence_segments,
    source_tokens,
)
from evaltrans_qt.io.segranks.changes import RankingChange, segment_ranking_change
from evaltrans_qt.ui.rank_board import RankBinsModel
from evaltrans_qt.ui.ranking_screen import SEGMENTS, RankingScreen, Task

HIGHLIGHT = "#ffe08a"


def highlighted_source(tokens: list[str], words: tuple[int, ...]) -> str:
    """The sentence as rich text with the segment's words marked (bold on yellow)."""
    marked = set(words)
    out = []
    for i, tok in enumerate(tokens):
        t = html.escape(tok)
        out.append(f'<span style="background:{HIGHLIGHT}"><b>{t}</b></span>' if i in marked else t)
    return " ".join(out)


class SegmentRankingScreen(RankingScreen):
    """One sentence's segments on one screen (module doc)."""

    kind = SEGMENTS

    def _data(self, si: int) -> SentenceSegments:
        data = sentence_segments(self.db.sources[si])
        assert data is not None
        return data

    def sentence_order(self) -> list[int]:
        return [si for si, s in enumerate(self.db.sources)
                if (d := sentence_segments(s)) is not None and d.segments]

    def is_done(self, si: int) -> bool:
        data = self._data(si)
        done: set[int] = set()
        for r in data.rankings:
            if r.judge == self.judge:
                done.update(r.ranks)
        return len(done) >= len(data.segments)

    def make_tasks(self, si: int, placed) -> list[Task]:
        data = self._data(si)
        mine = [r for r in data.rankings if r.judge == self.judge]
        if si not in self.task_ids and mine:          # ranked before: open that ranking
            self.task_ids[si] = mine[-1].task
        stored = data.ranking(self.judge, self.task_ids.get(si, ""))
        tokens = source_tokens(self.db.sources[si], data.tokenization)
        tasks = []
        for k, seg in enumerate(data.segments):
            if placed is not None and k < len(placed):
                ranks = placed[k]
            elif stored is not None and k in stored.ranks:
                ranks = list(stored.ranks[k])
            else:
                ranks = None
            model = RankBinsModel([c.text for c in seg.candidates], unusable=True, ranks=ranks)
            heading = (f"<b>Segment {k + 1} of {len(data.segments)}</b> "
                       f"({len(seg.candidates)} candidate(s); unusable = rank "
                       f"{seg.unusable_rank}):<br>{highlighted_source(tokens, seg.words)}")
            tasks.append(Task(heading, model))
        return tasks

    def make_change(self, si: int, placed, task: str, seconds: float) -> RankingChange:
        ranks = {k: [int(r) for r in row] for k, row in enumerate(placed)}
        return segment_ranking_change(self.db, si, self.judge, ranks, task, seconds=seconds)
