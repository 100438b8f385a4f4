"""The ranked short segments of a database as read-only views (Macháček §3.1-3.2).

:func:`annotated_segments` copies every *ranked* source segment of a database into an
:class:`AnnotatedSegment` (candidate texts, the systems behind each, one rank tuple per
annotation); nothing here changes the database. :meth:`AnnotatedSegment.without` is
the leave-one-out trick of Macháček §3.2: the candidate segments only the left-out
system produced are removed (with their ranks), candidates it shared with other
systems stay, credited to those systems only.

Sentences are pooled by source *text* (:func:`pooled_by_text`): since sources are positional, a
repeated source sentence at two positions is two sources, but a segment ranked for
one occurrence is as good a judgement of the same words at the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evaltrans_qt.engine.data.database import Database


@dataclass(frozen=True)
class AnnotatedSegment:
    """One ranked source segment of one sentence.

    ``rankings[j][k]`` is the rank (1 best, N+1 unusable; Macháček §3.1) that annotation
    ``j`` (by ``judges[j]``) gave candidate ``k``; ``systems[k]`` produced candidate
    ``k``. ``source_index`` is the sentence's position in the database."""

    source_index: int
    segment_index: int
    text: str
    candidates: tuple[str, ...]
    systems: tuple[tuple[str, ...], ...]
    rankings: tuple[tuple[int, ...], ...]
    judges: tuple[str | None, ...] = ()
    #: How the candidate texts were split into words (``SentenceSegments.tokenization``).
    tokenization: str = "none"

    def candidate_of(self, system: str) -> int | None:
        """Index of the candidate segment ``system`` produced, None if it has none."""
        return next((k for k, ss in enumerate(self.systems) if system in ss), None)

    def all_systems(self) -> list[str]:
        return [s for ss in self.systems for s in ss]

    def without(self, system: str) -> AnnotatedSegment:
        """This segment as if ``system`` had never been annotated (Macháček §3.2
        leave-one-out): candidates only ``system`` produced are dropped with their
        ranks; ``system`` is removed from the systems of shared candidates."""
        keep = [k for k, ss in enumerate(self.systems) if any(s != system for s in ss)]
        if len(keep) == len(self.candidates) and system not in self.all_systems():
            return self
        return AnnotatedSegment(
            self.source_index, self.segment_index, self.text,
            tuple(self.candidates[k] for k in keep),
            tuple(tuple(s for s in self.systems[k] if s != system) for k in keep),
            tuple(tuple(r[k] for k in keep) for r in self.rankings), self.judges,
            self.tokenization)


def annotated_segments(db: Database) -> list[AnnotatedSegment]:
    """Every source segment of ``db`` that at least one annotation ranked, in database
    order (copies: the database is never changed through them)."""
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    out = []
    for i, src in enumerate(db.sources):
        data = sentence_segments(src)
        if data is None:
            continue
        per: dict[int, tuple[list[tuple[int, ...]], list[str | None]]] = {}
        for rk in data.rankings:
            for k, ranks in rk.ranks.items():
                ranks_k, judges_k = per.setdefault(k, ([], []))
                ranks_k.append(tuple(int(r) for r in ranks))
                judges_k.append(rk.judge)
        for k, (ranks_k, judges_k) in sorted(per.items()):
            seg = data.segments[k]
            out.append(AnnotatedSegment(i, k, seg.text, tuple(c.text for c in seg.candidates),
                                        tuple(tuple(c.systems) for c in seg.candidates),
                                        tuple(ranks_k), tuple(judges_k), data.tokenization))
    return out


def annotated_systems(segments: Iterable[AnnotatedSegment]) -> list[str]:
    """The systems behind the candidate segments, in first-seen order."""
    return list(dict.fromkeys(s for seg in segments for s in seg.all_systems()))


def pooled_by_text(db: Database, segments: Iterable[AnnotatedSegment]
                   ) -> dict[str, list[AnnotatedSegment]]:
    """{source text: the annotated segments of every source with that text} (module doc)."""
    out: dict[str, list[AnnotatedSegment]] = {}
    for seg in segments:
        out.setdefault(db.sources[seg.source_index].text, []).append(seg)
    return out
