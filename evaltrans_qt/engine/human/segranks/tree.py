"""Source parse trees and short-segment extraction (Macháček §2, Algorithm 1).

A :class:`Node` is one node of a constituency tree (Penn Treebank brackets) or of a
dependency tree (CoNLL-U). Its :attr:`Node.leaves` are the 0-based indices of the
source *tokens* it covers, in sentence order:

* constituency: a leaf node (a word) covers its own token; an inner node the union of
  its children's leaves (a contiguous span);
* dependency: a word node covers its own token and the yield of its dependents (its
  subtree, possibly discontinuous); the virtual root (``token is None``) covers all.
  The words of a CoNLL-U multiword token share that token's index; leaves are a set,
  so such a token counts once.

:func:`extract_segments` is Algorithm 1 (Macháček §2) with ``minLength``/``maxLength``
(defaults 3 and 6, Macháček §2.1): a node with at most ``max_length`` leaves is one
segment if it has at least ``min_length``, and is not descended into; a longer node
hands the question to its children. Words of a long node that are not inside any of
its short-enough children stay uncovered (Macháček Figure 2.1): in a constituency tree
a lone word child shorter than ``min_length``, in a dependency tree the head word
itself (it is no child of its own node).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evaltrans_qt.errors import OptionError

#: Macháček §2.1: minLength 3 ("very short segments are hard to judge without context"),
#: maxLength 6.
DEFAULT_MIN_LENGTH = 3
DEFAULT_MAX_LENGTH = 6


class Node:
    """A tree node: ``label`` (category, word or dependency relation), ``children`` in
    order, ``token`` = index of the source token this node itself stands for (a word of
    a constituency leaf or a dependency node; None for inner constituents and the
    dependency root). ``leaves`` is computed once, from the children."""

    __slots__ = ("label", "children", "token", "leaves")

    def __init__(self, label: str, children: Sequence[Node] = (), token: int | None = None) -> None:
        self.label = label
        self.children: tuple[Node, ...] = tuple(children)
        self.token = token
        if not self.children:
            self.leaves: tuple[int, ...] = () if token is None else (token,)
        elif len(self.children) == 1 and token is None:
            self.leaves = self.children[0].leaves
        else:
            covered = set() if token is None else {token}
            for c in self.children:
                covered.update(c.leaves)
            self.leaves = tuple(sorted(covered))

    def __repr__(self) -> str:
        if not self.children:
            return f"Node({self.label!r}, token={self.token})"
        return f"Node({self.label!r}, {list(self.children)!r})"

    def iter_nodes(self) -> Iterable[Node]:
        """Every node, pre-order (no recursion: trees may be deep)."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))


def check_lengths(min_length: int, max_length: int) -> None:
    """:class:`OptionError` unless 0 <= min_length <= max_length and max_length >= 1."""
    if isinstance(min_length, bool) or isinstance(max_length, bool) \
            or int(min_length) != min_length or int(max_length) != max_length:
        raise OptionError(f"segment lengths must be whole numbers, not {min_length!r}, "
                          f"{max_length!r}")
    if min_length < 0 or max_length < 1 or min_length > max_length:
        raise OptionError(f"segment lengths need 0 <= min ({min_length}) <= max "
                          f"({max_length}) and max >= 1")


def extract_segments(node: Node, min_length: int = DEFAULT_MIN_LENGTH,
                     max_length: int = DEFAULT_MAX_LENGTH) -> list[tuple[int, ...]]:
    """Algorithm 1 of Macháček §2 (EXTRACTSEGMENTS): the leaves (token indices) of each
    extracted segment, in the order the recursion finds them (left to right).

    Written with an explicit stack instead of recursion (same order, any tree depth)::

        leaves <- treeNode.leaves()
        if length(leaves) <= maxLength:
            if length(leaves) >= minLength: extractedSegments.append(leaves)
        else:
            for child in treeNode.children(): extend(EXTRACTSEGMENTS(child, ...))
    """
    check_lengths(min_length, max_length)
    out: list[tuple[int, ...]] = []
    stack = [node]
    while stack:
        n = stack.pop()
        leaves = n.leaves
        if len(leaves) <= max_length:
            if len(leaves) >= min_length:
                out.append(leaves)
        else:
            stack.extend(reversed(n.children))
    return out


def uncovered(node: Node, segments: Iterable[Sequence[int]]) -> list[int]:
    """Tokens of the tree that no extracted segment covers (Macháček Figure 2.1)."""
    covered = {i for s in segments for i in s}
    return [i for i in node.leaves if i not in covered]
