"""Merging the SegRanks data of two databases (called by :func:`evaltrans_qt.engine.data.merge.merge`).

* A sentence only ``other`` has segments for takes them (with their rankings).
* Both have them and the segments (source spans and merged candidates) are the same:
  rankings are keyed by (judge, task) like scores by (class, judge); a key only
  ``other`` has is added; the same key with different ranks is a conflict -- ``"new"``
  takes theirs, otherwise ours stays; reported in ``MergeReport.protocol_conflicts``.
* Both have them but the segments differ (another extraction): the winner's segments and
  rankings stay and the loser's rankings are dropped, because ranks only mean something
  against the candidates they were given for; reported with the number dropped.
"""

from __future__ import annotations

import copy

from evaltrans_qt.engine.data.database import Source
from evaltrans_qt.engine.human.segranks.model import sentence_segments, set_sentence_segments


def _where(src: Source) -> str:
    if src.seg:
        return f"source {src.doc + ' ' if src.doc else ''}{src.seg}"
    return f"source {src.text[:30]!r}"


def merge_segranks(src: Source, osrc: Source, prefer_new: bool, report) -> None:
    """Merge ``osrc``'s SegRanks data into ``src`` (module doc); conflicts go to
    ``report.protocol_conflicts``."""
    theirs = sentence_segments(osrc)
    if theirs is None:
        return
    mine = sentence_segments(src)
    if mine is None:
        set_sentence_segments(src, copy.deepcopy(theirs))
        return
    if mine.segments != theirs.segments:
        loser = mine if prefer_new else theirs
        report.protocol_conflicts.append(
            f"{_where(src)}: SegRanks segments differ; kept {'theirs' if prefer_new else 'ours'}, "
            f"dropped {len(loser.rankings)} ranking(s) made for the other segments")
        if prefer_new:
            set_sentence_segments(src, copy.deepcopy(theirs))
        return
    index = {(r.judge, r.task): k for k, r in enumerate(mine.rankings)}
    for r in theirs.rankings:
        k = index.get((r.judge, r.task))
        if k is None:
            mine.rankings.append(copy.deepcopy(r))
            index[(r.judge, r.task)] = len(mine.rankings) - 1
        elif mine.rankings[k].ranks != r.ranks:
            report.protocol_conflicts.append(
                f"{_where(src)}: SegRanks ranking of judge {r.judge or '(anonymous)'} task "
                f"{r.task} differs; kept {'theirs' if prefer_new else 'ours'}")
            if prefer_new:
                mine.rankings[k] = copy.deepcopy(r)
