"""Evaluating unseen systems from a database of ranked short segments (Macháček §3.2).

For a system, every ranked source segment it has a candidate for is matched against
the *other* systems' annotated candidate segments:

* **exact** (§3.2.1): a *hit* when its candidate segment is one of them, a *miss*
  otherwise; hit rate = hits / (hits + misses) (Table 3.3). Only hit segments are
  scored: the unseen system takes the hit candidate's rank.
* **closest** (§3.2.2): every segment is scored; the unseen system takes the rank of
  the candidate segment closest by character Levenshtein distance (rapidfuzz), the
  ranks of equally close candidates averaged, per annotation. AED is the mean of that
  distance over all matched segments (hits count 0; Table 3.4); ``aed_misses`` over the
  misses only. For misses of a left-out system the taken rank is compared with its true
  rank: the closest segment is *worse*, *equal* or *better* (Table 3.5; per edit
  distance, Figure 3.3; example listing, Table 3.6).

The ratio of wins (ignoring ties, §3.1) of *all* systems is computed on the scored
segments' annotations, expanded to systems (§3.1) with the unseen system added.

Two kinds of system:

* a system whose candidate segments are in the database (projected by ``segranks
  extract``) is evaluated with the leave-one-out trick (§3.2): the candidates only it
  produced are removed (:meth:`AnnotatedSegment.without`, a copy -- the database is
  never changed), its own segment is the "unseen" one and its true ranks are known;
* a system without candidate segments (really unseen): the annotated candidate
  segments of its sentence (pooled over sources with the same text) that *occur* in
  its translation, on word boundaries, are its hits -- the longest (in words, then
  characters; first in database order on a tie) when several do, as EXACTMATCH
  (§3.3.2). Closest matching needs the system's own candidate segments (an
  alignment), as §3.3.2 says: :class:`OptionError` otherwise.

Warning (§3.2.1-3.2.2): systems agree more often on good translations and their
translations lie closer to good ones, so the left-out system is heavily
**overestimated** by both methods -- use these numbers to study the database, not to
rank a new system.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from rapidfuzz.distance import Levenshtein

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import RatioOfWins, WinStats
from evaltrans_qt.engine.human.unseen.annotated import (
    AnnotatedSegment,
    annotated_segments,
    annotated_systems,
)
from evaltrans_qt.errors import OptionError

METHODS = ("exact", "closest")
#: Outcomes of Table 3.5: the closest segment's rank compared with the unseen one's.
OUTCOMES = ("worse", "equal", "better")

OVERESTIMATE_WARNING = (
    "Unseen systems are overestimated: MT systems agree more often on good translations and "
    "their segments lie closer to good ones (Machacek 2014, section 3.2), so the left-out "
    "system ranks too high under both exact and closest matching.")


@dataclass(frozen=True)
class SegmentMatch:
    """One ranked source segment matched for the unseen system.

    ``segment`` is the database's view *without* the unseen system; ``unseen`` its
    candidate segment; ``closest`` the indices (into ``segment.candidates``) of the
    candidates at the smallest character distance ``distance`` (None: not computed, or
    no candidate left); ``taken`` the rank taken over per annotation (empty: the segment
    is not scored); ``true_ranks`` the unseen segment's own ranks (leave-one-out only)."""

    segment: AnnotatedSegment
    unseen: str
    hit: bool
    closest: tuple[int, ...] = ()
    distance: int | None = None
    taken: tuple[float, ...] = ()
    true_ranks: tuple[int, ...] | None = None

    def outcomes(self) -> list[str]:
        """Per annotation: the closest segment ``worse`` / ``equal`` / ``better`` than the
        unseen one (Table 3.5); empty for hits and without true ranks."""
        if self.hit or self.true_ranks is None or not self.taken:
            return []
        return [outcome(t, r) for t, r in zip(self.taken, self.true_ranks)]


def outcome(taken: float, true: float) -> str:
    """Rank 1 is best: a smaller taken rank means the closest segment is *better*."""
    return "better" if taken < true else "worse" if taken > true else "equal"


def words_in(text: str, segment: str, tokenization: str = "none") -> bool:
    """``segment`` (words joined by spaces) occurs in ``text`` as whole words, ``text``
    split as the segments were (``tokenization``, engine/text/preprocess.py)."""
    if not segment.strip():
        return False
    if tokenization == "none":
        words = text.split()
    else:
        from evaltrans_qt.engine.text.preprocess import tokenize
        words = tokenize(text, tokenization, "use")
    return f" {' '.join(segment.split())} " in f" {' '.join(words)} "


def occurring(seg: AnnotatedSegment, translation: str) -> int | None:
    """The candidate of ``seg`` that occurs in ``translation`` (:func:`words_in`); the
    longest in words, then characters, the first on a tie (Macháček §3.3.2); None."""
    found = [k for k, c in enumerate(seg.candidates) if words_in(translation, c, seg.tokenization)]
    if not found:
        return None
    return min(found, key=lambda j: (-len(seg.candidates[j].split()), -len(seg.candidates[j]), j))


def _taken(seg: AnnotatedSegment, idx: Sequence[int]) -> tuple[float, ...]:
    return tuple(sum(r[k] for k in idx) / len(idx) for r in seg.rankings)


def _closest(seg: AnnotatedSegment, unseen: str) -> tuple[tuple[int, ...], int]:
    d = [Levenshtein.distance(unseen, c) for c in seg.candidates]
    best = min(d)
    return tuple(k for k, x in enumerate(d) if x == best), best


def _projected(seg: AnnotatedSegment, system: str, method: str) -> SegmentMatch | None:
    k = seg.candidate_of(system)
    if k is None:
        return None
    view = seg.without(system)
    unseen = seg.candidates[k]
    true = tuple(r[k] for r in seg.rankings)
    if not view.candidates:
        return SegmentMatch(view, unseen, False, true_ranks=true)
    if unseen in view.candidates:
        j = view.candidates.index(unseen)
        return SegmentMatch(view, unseen, True, (j,), 0, _taken(view, (j,)), true)
    if method == "exact":
        return SegmentMatch(view, unseen, False, true_ranks=true)
    idx, d = _closest(view, unseen)
    return SegmentMatch(view, unseen, False, idx, d, _taken(view, idx), true)


def _occurring(seg: AnnotatedSegment, translation: str) -> SegmentMatch:
    k = occurring(seg, translation)
    if k is None:
        return SegmentMatch(seg, "", False)
    return SegmentMatch(seg, seg.candidates[k], True, (k,), 0, _taken(seg, (k,)))


def match_system(db: Database, system: str, method: str = "exact",
                 segments: Sequence[AnnotatedSegment] | None = None) -> list[SegmentMatch]:
    """Match ``system``'s segments against the annotated segments of the other systems
    (module doc); ``segments`` = :func:`annotated_segments` of ``db`` if not given."""
    if method not in METHODS:
        raise OptionError(f"matching method must be one of {', '.join(METHODS)}, not {method!r}")
    segs = annotated_segments(db) if segments is None else segments
    if not segs:
        raise OptionError("the database has no ranked short segments (SegRanks annotations): "
                          "extract segments and rank or import them first")
    if system in annotated_systems(segs):
        return [m for seg in segs if (m := _projected(seg, system, method)) is not None]
    if method == "closest":
        raise OptionError(f"system {system!r} has no candidate segments in the database; closest "
                          "matching needs them (project its translation with 'segranks extract' "
                          "and an alignment; Machacek 3.3.2) -- use --method exact")
    pairs = db.candidates_by_system(system)
    if not pairs:
        raise OptionError(f"system {system!r} has no candidates in the database (systems: "
                          f"{', '.join(db.systems())})")
    by_text: dict[str, list[AnnotatedSegment]] = {}
    for seg in segs:
        by_text.setdefault(db.sources[seg.source_index].text, []).append(seg)
    out = []
    for src, t in pairs:
        for seg in by_text.get(src.text, ()):
            out.append(_occurring(seg, t.text))
    return out


def accumulate(stats: dict[str, list[int]], groups: Iterable[tuple[float, Sequence[str]]]) -> None:
    """Add one annotation's pairwise comparisons (§3.1) to ``stats[system] = [wins, losses,
    ties]``: ``groups`` are (rank, systems with that candidate); all systems are compared
    pairwise, a smaller rank winning, equal ranks (also within a group) tying."""
    groups = [(r, ss) for r, ss in groups if ss]
    count: Counter[float] = Counter()
    for r, ss in groups:
        count[r] += len(ss)
    total = sum(count.values())
    better: dict[float, int] = {}
    run = 0
    for r in sorted(count):
        better[r] = run
        run += count[r]
    for r, ss in groups:
        b, n = better[r], count[r]
        for s in ss:
            w = stats.setdefault(s, [0, 0, 0])
            w[0] += total - b - n
            w[1] += b
            w[2] += n - 1


def match_scores(matches: Iterable[SegmentMatch], system: str) -> RatioOfWins:
    """Ratio of wins of every system on the scored segments (those with a taken rank),
    ``system`` taking the taken rank (§3.2.1 / §3.2.2)."""
    stats: dict[str, list[int]] = {}
    for m in matches:
        if not m.taken:
            continue
        seg = m.segment
        for ranks, taken in zip(seg.rankings, m.taken):
            accumulate(stats, [*zip(ranks, seg.systems), (taken, (system,))])
    return RatioOfWins({s: WinStats(*w) for s, w in stats.items()})


@dataclass(frozen=True)
class Example:
    """A row of Table 3.6: a missed segment, its closest segment(s), the distance and the
    comparison of the mean taken rank with the mean true rank (W/E/B)."""

    system: str
    source_index: int
    unseen: str
    closest: tuple[str, ...]
    distance: int
    comparison: str


@dataclass
class UnseenResult:
    """The evaluation of one unseen (or left-out) system (Tables 3.3-3.5)."""

    system: str
    method: str
    projected: bool
    matches: list[SegmentMatch]
    scores: RatioOfWins = field(default_factory=RatioOfWins)

    @property
    def segments(self) -> int:
        return len(self.matches)

    @property
    def hits(self) -> int:
        return sum(m.hit for m in self.matches)

    @property
    def hit_rate(self) -> float:
        """hits / (hits + misses) (Table 3.3)."""
        return self.hits / len(self.matches) if self.matches else math.nan

    def _distances(self, misses_only: bool = False) -> list[int]:
        return [m.distance for m in self.matches
                if m.distance is not None and not (misses_only and m.hit)]

    @property
    def aed(self) -> float:
        """Average character edit distance to the closest segment, hits counting 0
        (Table 3.4); NaN for exact matching."""
        d = self._distances()
        return sum(d) / len(d) if d and self.method == "closest" else math.nan

    @property
    def aed_misses(self) -> float:
        d = self._distances(True)
        return sum(d) / len(d) if d else math.nan

    def outcome_counts(self) -> dict[str, int]:
        """{worse, equal, better}: counts over the misses' annotations (Table 3.5)."""
        c = Counter(o for m in self.matches for o in m.outcomes())
        return {o: c.get(o, 0) for o in OUTCOMES}

    def by_distance(self) -> dict[int, dict[str, int]]:
        """{distance: {worse, equal, better}} (Figure 3.3 as data)."""
        out: dict[int, dict[str, int]] = {}
        for m in self.matches:
            if m.distance is None:              # not matched to a closest segment: no outcomes
                continue
            for o in m.outcomes():
                row = out.setdefault(int(m.distance), dict.fromkeys(OUTCOMES, 0))
                row[o] += 1
        return dict(sorted(out.items()))

    def examples(self, limit: int = 10) -> list[Example]:
        """The first ``limit`` misses with a closest segment, in database order (Table 3.6)."""
        out: list[Example] = []
        for m in self.matches:
            if len(out) >= limit:
                break
            if m.hit or not m.closest or m.distance is None or m.true_ranks is None:
                continue
            taken = sum(m.taken) / len(m.taken)
            true = sum(m.true_ranks) / len(m.true_ranks)
            out.append(Example(self.system, m.segment.source_index, m.unseen,
                               tuple(m.segment.candidates[k] for k in m.closest),
                               int(m.distance), outcome(taken, true)[0].upper()))
        return out

    def to_dict(self, examples: int = 10) -> dict:
        def c(v: float) -> float | None:
            return v if isinstance(v, (int, float)) and math.isfinite(v) else None
        return {"system": self.system, "method": self.method, "left_out": self.projected,
                "segments": self.segments, "hits": self.hits, "hit_rate": c(self.hit_rate),
                "aed": c(self.aed), "aed_misses": c(self.aed_misses),
                "scores": [{"system": s, "ratio_of_wins": c(v), "wins": self.scores.stats[s].wins,
                            "losses": self.scores.stats[s].losses,
                            "ties": self.scores.stats[s].ties}
                           for s, v in self.scores.ranking()],
                "outcomes": self.outcome_counts(),
                "by_distance": {str(d): v for d, v in self.by_distance().items()},
                "examples": [e.__dict__ | {"closest": list(e.closest)}
                             for e in self.examples(examples)]}


def evaluate_unseen(db: Database, system: str, method: str = "exact",
                    segments: Sequence[AnnotatedSegment] | None = None) -> UnseenResult:
    """:func:`match_system` and the ratio of wins on the scored segments."""
    segs = annotated_segments(db) if segments is None else segments
    matches = match_system(db, system, method, segs)
    return UnseenResult(system, method, system in annotated_systems(segs), matches,
                        match_scores(matches, system))


def leave_one_system_out(db: Database, method: str = "exact",
                         systems: Sequence[str] | None = None,
                         progress: Callable[[int, int], None] | None = None
                         ) -> list[UnseenResult]:
    """Tables 3.3 / 3.4 / 3.5 in one call: every annotated system (or ``systems``) left
    out in turn and evaluated as unseen. Works on copies; ``db`` is unchanged.
    ``progress(systems done, systems)`` after each system."""
    segs = annotated_segments(db)
    known = annotated_systems(segs)
    if not segs:
        raise OptionError("the database has no ranked short segments (SegRanks annotations)")
    todo = list(systems) if systems else known
    for s in todo:
        if s not in known:
            raise OptionError(f"system {s!r} has no annotated candidate segments to leave out "
                              f"(annotated: {', '.join(known)})")
    out = []
    for s in todo:
        out.append(evaluate_unseen(db, s, method, segs))
        if progress is not None:
            progress(len(out), len(todo))
    return out


def total_outcomes(results: Iterable[UnseenResult]) -> dict[str, int]:
    """The "All" row of Table 3.5."""
    c: Counter[str] = Counter()
    for r in results:
        c.update(r.outcome_counts())
    return {o: c.get(o, 0) for o in OUTCOMES}
