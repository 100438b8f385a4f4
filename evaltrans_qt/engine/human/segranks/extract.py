"""From parse trees and word alignments to the merged candidate segments of every
sentence of a database (Macháček §2.1): Algorithm 1 on each source tree, projection
onto each system's candidate (projection.py), merging of identical candidate segments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.segranks.model import (
    SentenceSegments,
    SourceSegment,
    merge_candidates,
    set_sentence_segments,
    source_tokens,
)
from evaltrans_qt.engine.human.segranks.projection import Link, links_by_source, project
from evaltrans_qt.engine.human.segranks.tree import (
    DEFAULT_MAX_LENGTH,
    DEFAULT_MIN_LENGTH,
    Node,
    check_lengths,
    extract_segments,
)
from evaltrans_qt.errors import InputFormatError


@dataclass(frozen=True)
class ExtractionSummary:
    """Counts as Macháček §2.1 reports them: sentences, source segments, candidate
    segments before merging (one per system and segment that has one) and after."""

    sentences: int
    segments: int
    projected: int
    merged: int
    systems: tuple[str, ...]

    @property
    def merged_ratio(self) -> float:
        """Merged / projected candidate segments (Macháček §2.1: 58.9 %)."""
        return self.merged / self.projected if self.projected else float("nan")

    def to_dict(self) -> dict:
        return {"sentences": self.sentences, "segments": self.segments,
                "projected": self.projected, "merged": self.merged,
                "merged_ratio": self.merged_ratio, "systems": list(self.systems)}


#: Per system: one list of links per source sentence, and where they came from
#: (a file name for messages; line k+1 holds sentence k).
AlignmentSet = Mapping[str, tuple[Sequence[Sequence[Link]], str | None]]


def candidate_tokens(db: Database, system: str, tokenization: str) -> list[list[str] | None]:
    """Tokens of ``system``'s candidate of every source (None where it has none)."""
    from evaltrans_qt.engine.text.preprocess import tokenize
    out: list[list[str] | None] = [None] * len(db.sources)
    index = {id(s): k for k, s in enumerate(db.sources)}
    for src, t in db.candidates_by_system(system):
        k = index[id(src)]
        if out[k] is None:
            out[k] = tokenize(t.text, tokenization, "use")
    return out


def check_links(links: Sequence[Link], n_source: int, n_target: int) -> str | None:
    """Why ``links`` do not fit a sentence pair of these lengths, or None."""
    for i, j in links:
        if not 0 <= i < n_source:
            return (f"link {i}-{j}: source token {i} does not exist (the source has "
                    f"{n_source} token(s), numbered from 0)")
        if not 0 <= j < n_target:
            return (f"link {i}-{j}: candidate token {j} does not exist (the candidate has "
                    f"{n_target} token(s), numbered from 0)")
    return None


def extract_database(db: Database, trees: Sequence[Node], alignments: AlignmentSet, *,
                     min_length: int = DEFAULT_MIN_LENGTH, max_length: int = DEFAULT_MAX_LENGTH,
                     tokenization: str = "none", trees_path: str | None = None,
                     progress: Callable[[int, int], None] | None = None) -> ExtractionSummary:
    """Extract, project and merge the segments of every source of ``db`` and store them
    on the sources (replacing earlier segments *and their rankings*).

    ``trees[k]`` is the parse tree of source k, whose leaves index the source's tokens
    (``tokenization``); ``alignments`` = {system: (links per source, file name)}. Every
    link is checked against the sentence lengths first: :class:`InputFormatError` naming
    the file and line (= source number), and ``db`` is left unchanged.
    ``progress(trees done, trees)`` after each tree.
    """
    check_lengths(min_length, max_length)
    n = len(db.sources)
    if len(trees) != n:
        raise InputFormatError(f"{len(trees)} tree(s) for {n} source sentence(s) of the "
                               "database (one tree per source, in database order)", trees_path)
    systems = [s for s in alignments]
    known = set(db.systems())
    for s in systems:
        if s not in known:
            raise InputFormatError(f"system {s!r} has no candidates in the database (its "
                                   f"systems: {', '.join(sorted(known))})", alignments[s][1])
    src_tokens = [source_tokens(src, tokenization) for src in db.sources]
    cand: dict[str, list[list[str] | None]] = {}
    by_src: dict[str, list[dict[int, list[int]]]] = {}
    for s in systems:
        lines, path = alignments[s]
        if len(lines) != n:
            raise InputFormatError(f"{len(lines)} alignment line(s) for {n} source "
                                   f"sentence(s) (one line per source, in database order)", path)
        toks = candidate_tokens(db, s, tokenization)
        for k, links in enumerate(lines):
            tk = toks[k]
            n_tgt = len(tk) if tk is not None else 0
            problem = check_links(links, len(src_tokens[k]), n_tgt)
            if problem is not None:
                raise InputFormatError(problem, path, k + 1)
        cand[s] = toks
        by_src[s] = [links_by_source(links) for links in lines]
    result: list[SentenceSegments] = []
    n_seg = projected = merged = 0
    for k, tree in enumerate(trees):
        words = src_tokens[k]
        if tree.leaves != tuple(range(len(words))):
            raise InputFormatError(f"tree {k + 1} covers token(s) {_short(tree.leaves)}, but "
                                   f"source {k + 1} has {len(words)} token(s)", trees_path)
        segs = []
        for leaves in extract_segments(tree, min_length, max_length):
            per_system: dict[str, str | None] = {}
            for s in systems:
                words_s = cand[s][k]
                span = project(leaves, by_src[s][k]) if words_s is not None else None
                per_system[s] = None if span is None or words_s is None \
                    else " ".join(words_s[span[0]:span[1]])
            cands = merge_candidates(per_system)
            projected += sum(v is not None for v in per_system.values())
            merged += len(cands)
            segs.append(SourceSegment(tuple(leaves), " ".join(words[i] for i in leaves), cands))
        n_seg += len(segs)
        result.append(SentenceSegments(segs, [], min_length, max_length, tokenization))
        if progress is not None:
            progress(k + 1, n)
    for src, data in zip(db.sources, result):
        set_sentence_segments(src, data)
    return ExtractionSummary(n, n_seg, projected, merged, tuple(systems))


def _short(leaves: Sequence[int]) -> str:
    return " ".join(map(str, leaves[:12])) + (" ..." if len(leaves) > 12 else "") or "none"
