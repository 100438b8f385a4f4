"""The SegRanks data of one source sentence (Macháček §2, appendix B): its extracted
source segments, their merged candidate segments with the systems that produced them,
and the judges' rankings.

Held on the :class:`~evaltrans_qt.engine.data.database.Source` (read it with
:func:`sentence_segments`, replace it with :func:`set_sentence_segments`; stored in the
``.etdb.xml`` file as the ``<segranks>`` child of ``<source>``, io/etdb/segranks.py).

Ranks (Macháček §3.1): a ranking gives every candidate segment of a source segment a
rank 1..N+1 for N candidates, 1 best, ties allowed; N+1 is the "unusable" (garbage)
rank of the SegRanks screen, treated as one more, worst, rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evaltrans_qt.engine.data.database import Source
from evaltrans_qt.errors import ScoreError

#: Attribute of a Source holding its :class:`SentenceSegments` (see module doc).
_ATTR = "segranks"


@dataclass
class CandidateSegment:
    """One distinct candidate segment and the systems whose candidates gave it (merged,
    Macháček §2.1). ``systems`` may be empty for a segment imported without systems."""

    text: str
    systems: list[str] = field(default_factory=list)


@dataclass
class SourceSegment:
    """An extracted source segment: its token indices (0-based, sentence order), its
    words joined by spaces, and its merged candidate segments."""

    words: tuple[int, ...]
    text: str
    candidates: list[CandidateSegment] = field(default_factory=list)

    def candidate_index(self, text: str) -> int | None:
        return next((k for k, c in enumerate(self.candidates) if c.text == text), None)

    def system_candidate(self) -> dict[str, int]:
        """{system: index of the candidate segment it produced}."""
        return {s: k for k, c in enumerate(self.candidates) for s in c.systems}

    @property
    def unusable_rank(self) -> int:
        """N+1, the "unusable" rank (Macháček §3.1)."""
        return len(self.candidates) + 1


@dataclass
class SegmentRanking:
    """One annotation screen: a judge's ranks of (some or all) segments of a sentence.

    ``ranks`` maps a segment's index (in :attr:`SentenceSegments.segments`) to one rank
    per candidate segment, in candidate order. ``time`` is when it was submitted (ISO
    8601, as stored), ``seconds`` the time spent on the screen, ``task`` its id (unique
    per sentence and judge; a judge ranking a sentence twice gives two tasks)."""

    judge: str | None
    ranks: dict[int, tuple[int, ...]]
    task: str
    time: str | None = None
    seconds: float | None = None


@dataclass
class SentenceSegments:
    """Everything SegRanks knows about one source sentence: the extraction settings
    (``tokenization`` names how the source was split into the tokens ``words`` index,
    engine/text/preprocess.py), the segments and the rankings."""

    segments: list[SourceSegment] = field(default_factory=list)
    rankings: list[SegmentRanking] = field(default_factory=list)
    min_length: int = 3
    max_length: int = 6
    tokenization: str = "none"

    def ranking(self, judge: str | None, task: str) -> SegmentRanking | None:
        return next((r for r in self.rankings if r.judge == judge and r.task == task), None)


def sentence_segments(source: Source) -> SentenceSegments | None:
    """The SegRanks data of ``source``, None if no segments were extracted or imported."""
    return getattr(source, _ATTR, None)


def set_sentence_segments(source: Source, data: SentenceSegments | None) -> None:
    """Replace (None: remove) the SegRanks data of ``source``."""
    setattr(source, _ATTR, data)


def source_tokens(source: Source, tokenization: str = "none") -> list[str]:
    """The tokens segment word indices refer to (``none``: split on whitespace)."""
    from evaltrans_qt.engine.text.preprocess import tokenize
    return tokenize(source.text, tokenization, "use")


def merge_candidates(per_system: Mapping[str, str | None]) -> list[CandidateSegment]:
    """Merge identical candidate segments (Macháček §2.1), keeping the systems that
    produced each, in first-seen order; None (nothing aligned) gives no candidate."""
    out: dict[str, CandidateSegment] = {}
    for system, text in per_system.items():
        if text is None:
            continue
        c = out.get(text)
        if c is None:
            out[text] = c = CandidateSegment(text)
        c.systems.append(system)
    return list(out.values())


def check_ranks(segment: SourceSegment, ranks: Sequence[object], where: str = "") -> tuple[int, ...]:
    """``ranks`` as whole numbers 1..N+1, one per candidate; :class:`ScoreError` otherwise
    (anything else, a file's stray word included, is named in the error)."""
    n = len(segment.candidates)
    if len(ranks) != n:
        raise ScoreError(f"{where}segment {segment.text!r} has {n} candidate(s), "
                         f"but {len(ranks)} rank(s) were given")
    out = []
    for r in ranks:
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) \
                or r != int(r) or not 1 <= r <= n + 1:
            raise ScoreError(f"{where}rank {r!r} of segment {segment.text!r} is not a whole "
                             f"number from 1 to {n + 1} ({n + 1} = unusable)")
        out.append(int(r))
    return tuple(out)
