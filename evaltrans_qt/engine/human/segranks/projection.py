"""Projection of source segments onto a candidate through a word alignment
(Macháček §2, Figure 2.1), and symmetrisation of two directional alignments.

An alignment is a set of links ``(i, j)``: source token ``i`` is aligned to candidate
token ``j`` (0-based, as the Pharaoh ``i-j`` format of fast_align, eflomal and
awesome-align writes them).

Projection rule (:func:`project`): the candidate segment of a source segment ``S`` is
the smallest contiguous candidate span covering every candidate token aligned to a
token of ``S``; when no token of ``S`` is aligned, the system has no candidate segment
for ``S`` (it takes no part in that segment's ranking). Consequences, all deliberate:

* unaligned candidate tokens inside the span are part of the segment (an article or
  particle the aligner left out stays in the middle of the phrase);
* candidate tokens inside the span that are aligned only to source tokens *outside*
  ``S`` are part of it too: a discontinuous projection (``S`` translated in two places)
  is covered by one span, as a judge sees it in the sentence;
* unaligned tokens at either edge are not added (nothing says they belong to ``S``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

Link = tuple[int, int]


def links_by_source(links: Iterable[Link]) -> dict[int, list[int]]:
    """Candidate tokens aligned to each source token."""
    out: dict[int, list[int]] = {}
    for i, j in links:
        out.setdefault(i, []).append(j)
    return out


def project(words: Sequence[int], by_source: Mapping[int, Sequence[int]]) -> tuple[int, int] | None:
    """The candidate span ``(start, end)`` (end exclusive) of the source tokens ``words``
    under the rule of the module doc; None when none of them is aligned."""
    lo = hi = -1
    for i in words:
        for j in by_source.get(i, ()):
            if lo < 0 or j < lo:
                lo = j
            if j > hi:
                hi = j
    return None if lo < 0 else (lo, hi + 1)


SYMMETRIZATIONS = ("grow-diag-final-and", "intersection", "union", "forward", "reverse")


def symmetrize(forward: Iterable[Link], reverse: Iterable[Link],
               method: str = "grow-diag-final-and") -> list[Link]:
    """Combine a forward (source->candidate) and a reverse alignment, both given as
    ``(source, candidate)`` links. ``grow-diag-final-and`` is Koehn et al.'s heuristic as
    Moses and fast_align's ``atools`` apply it: start from the intersection, add union
    links diagonally neighbouring a link whose source or candidate token is still
    unaligned, then (final-and) union links whose source *and* candidate token are both
    unaligned."""
    f, r = set(forward), set(reverse)
    if method == "forward":
        return sorted(f)
    if method == "reverse":
        return sorted(r)
    if method == "intersection":
        return sorted(f & r)
    if method == "union":
        return sorted(f | r)
    if method != "grow-diag-final-and":
        raise ValueError(f"unknown symmetrisation {method!r}; one of {', '.join(SYMMETRIZATIONS)}")
    union = f | r
    links = f & r
    src = {i for i, _ in links}
    tgt = {j for _, j in links}
    neighbours = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]
    added = True
    while added:                                  # grow-diag
        added = False
        for i, j in sorted(links):
            for di, dj in neighbours:
                p = (i + di, j + dj)
                if p in union and p not in links and (p[0] not in src or p[1] not in tgt):
                    links.add(p)
                    src.add(p[0])
                    tgt.add(p[1])
                    added = True
    for d in (f, r):                              # final-and
        for p in sorted(d):
            if p not in links and p[0] not in src and p[1] not in tgt:
                links.add(p)
                src.add(p[0])
                tgt.add(p[1])
    return sorted(links)
