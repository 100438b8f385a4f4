"""Source parse trees for SegRanks (Macháček §2.1): Penn Treebank brackets and CoNLL-U.

**Penn Treebank** (as the Stanford parser writes them): one bracketed tree per source
sentence, in database order; a tree may span several lines, trees are separated by
white space. ``(ROOT (S ...))`` and ``( (S ...))`` (empty root label) are both read.
Trace constituents (``-NONE-``, in treebank files) are dropped with any constituent
left empty, because they are no words of the source.

**CoNLL-U** (Universal Dependencies): sentences separated by blank lines, ``#``
comments skipped. A word's node covers its subtree (its yield, Macháček's "leaves" of
Algorithm 1 for a dependency tree); the tree's root is a virtual node over the words
whose HEAD is 0. A multiword token line (``3-4 du``) is *one* source token: the words
3 and 4 both stand for it. Empty nodes (``5.1``) are skipped.

**Matching the source**: the tree's words must be the source's tokens (the database
sentence split by the chosen tokenisation, ``none`` = on spaces), one to one and in
order. A PTB leaf is compared after undoing the tree's escapes: ``-LRB- -RRB- -LSB-
-RSB- -LCB- -RCB-`` are brackets (also inside a leaf), ``\\/`` and ``\\*`` are ``/`` and ``*``; the
parser's quotes `````` and ``''`` match any double quote (``" “ ” „``), `````
and ``'`` any single quote (``' ‘ ’``). A leaf equal to the token as written always
matches. A CoNLL-U token (FORM of a word or multiword token) must equal the source
token. Any difference is an :class:`InputFormatError` naming file, line and word.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from evaltrans_qt.engine.human.segranks.tree import Node
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.limits import MAX_TEXT_CHARS, parse_int

_PTB_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{",
                "-RCB-": "}"}
_DOUBLE_QUOTES = {'"', "“", "”", "„", "``", "''", "«", "»"}
_SINGLE_QUOTES = {"'", "‘", "’", "`", "‚"}


def ptb_unescape(leaf: str) -> str:
    """A PTB leaf as plain text (module doc)."""
    leaf = _PTB_ESCAPES.get(leaf, leaf)
    if "-" in leaf:                           # '-LRB-Reuters-RRB-' for a token '(Reuters)'
        for k, v in _PTB_ESCAPES.items():
            leaf = leaf.replace(k, v)
    return leaf.replace("\\/", "/").replace("\\*", "*")


def leaf_matches(leaf: str, token: str) -> bool:
    """True if the PTB ``leaf`` stands for the source ``token`` (module doc)."""
    if leaf == token or ptb_unescape(leaf) == token:
        return True
    if leaf in ("``", "''"):
        return token in _DOUBLE_QUOTES
    if leaf in ("`", "'"):
        return token in _SINGLE_QUOTES
    return False


def _read_text(path: str | os.PathLike[str], what: str) -> str:
    from evaltrans_qt.io.plaintext import read_input_bytes
    data = read_input_bytes(path, what, allow_empty=True)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFormatError(f"not valid UTF-8 (byte {data[exc.start]:#04x})", path,
                               line) from None


def _mismatch(path, line: int, k: int, words: Sequence[str], tokens: Sequence[str]) -> InputFormatError:
    for i, (w, t) in enumerate(zip(words, tokens)):
        if w != t:
            return InputFormatError(
                f"tree {k + 1}: word {i + 1} is {w!r} but token {i + 1} of source {k + 1} is "
                f"{t!r} (the tree's words must be the source's tokens)", path, line)
    return InputFormatError(
        f"tree {k + 1} has {len(words)} word(s) but source {k + 1} has {len(tokens)} "
        f"token(s) (the tree's words must be the source's tokens)", path, line)


_ATOM = re.compile(r"\(|\)|[^\s()]+")


def read_ptb(path: str | os.PathLike[str], sources: Sequence[Sequence[str]] | None = None) -> list[Node]:
    """Trees of a Penn Treebank file; with ``sources`` (the tokens of each source) every
    tree is matched to its source (module doc) and the counts must agree."""
    text = _read_text(path, "a Penn Treebank tree file")
    trees: list[Node] = []
    # stack of [label, children, line]; leaves get the next token index of the tree
    stack: list[list] = []
    words: list[str] = []
    word_lines: list[int] = []
    start_line = 1
    line = 1
    pos = 0
    for m in _ATOM.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        tok = m.group()
        if tok == "(":
            if not stack:
                start_line, words, word_lines = line, [], []
            else:
                stack[-1][3] = False                  # "( (S" : the outer label stays ""
            stack.append(["", [], line, True])        # label not seen yet
        elif tok == ")":
            if not stack:
                raise InputFormatError("')' without a matching '('", path, line)
            label, children, _, _ = stack.pop()
            node = None
            if label != "-NONE-" and children:
                node = Node(label, children)
            if stack:
                if node is not None:
                    stack[-1][1].append(node)
            else:
                k = len(trees)
                tree = node if node is not None else Node(label)
                _check_tree(path, start_line, k, words, word_lines, sources)
                trees.append(tree)
        else:
            if not stack:
                raise InputFormatError(f"{tok!r} outside any tree (a tree starts with '(')",
                                       path, line)
            top = stack[-1]
            if top[3]:
                top[0], top[3] = tok, False
            else:
                if not any(f[0] == "-NONE-" for f in stack):
                    top[1].append(Node(tok, token=len(words)))
                    words.append(tok)
                    word_lines.append(line)
    if stack:
        raise InputFormatError(f"the tree starting here is not closed ({len(stack)} '(' "
                               "without ')')", path, stack[0][2])
    if sources is not None and len(trees) != len(sources):
        raise InputFormatError(f"{len(trees)} tree(s) for {len(sources)} source sentence(s) "
                               "(one tree per source, in database order)", path, line)
    return trees


def _check_tree(path, line: int, k: int, words: list[str], word_lines: list[int],
                sources: Sequence[Sequence[str]] | None) -> None:
    """Match tree ``k`` (starting at ``line``) to its source; the error names the line of
    the first differing word."""
    if sources is None:
        return
    if k >= len(sources):
        raise InputFormatError(f"tree {k + 1}, but the database has only {len(sources)} "
                               "source sentence(s)", path, line)
    tokens = sources[k]
    if len(words) != len(tokens) or not all(leaf_matches(w, t) for w, t in zip(words, tokens)):
        for i, (w, t) in enumerate(zip(words, tokens)):
            if not leaf_matches(w, t):
                raise InputFormatError(
                    f"tree {k + 1}: word {i + 1} is {w!r} but token {i + 1} of source {k + 1} "
                    f"is {t!r} (the tree's words must be the source's tokens)", path,
                    word_lines[i])
        raise _mismatch(path, line, k, words, tokens)


def read_conllu(path: str | os.PathLike[str], sources: Sequence[Sequence[str]] | None = None) -> list[Node]:
    """Dependency trees of a CoNLL-U file (module doc), matched to ``sources`` if given."""
    text = _read_text(path, "a CoNLL-U file")
    trees: list[Node] = []
    block: list[tuple[int, str]] = []
    lines = text.split("\n")
    for no, raw in enumerate(lines + [""], 1):
        s = raw.rstrip("\r")
        if s.strip():
            if not s.startswith("#"):
                block.append((no, s))
            continue
        if block:
            trees.append(_conllu_tree(path, block, len(trees), sources))
            block = []
    if sources is not None and len(trees) != len(sources):
        raise InputFormatError(f"{len(trees)} sentence(s) for {len(sources)} source "
                               "sentence(s) (one per source, in database order)", path)
    return trees


def _conllu_tree(path, block: list[tuple[int, str]], k: int,
                 sources: Sequence[Sequence[str]] | None) -> Node:
    tokens: list[str] = []
    word_token: dict[int, int] = {}
    heads: dict[int, tuple[int, str, int]] = {}       # word -> (head, deprel, line)
    mwt_end = 0
    for no, s in block:
        cols = s.split("\t")
        if len(cols) != 10:
            raise InputFormatError(f"a CoNLL-U word line has 10 tab-separated columns, this "
                                   f"one {len(cols)}", path, no)
        wid = cols[0]
        if "." in wid:
            continue                                   # empty node
        if "-" in wid:
            a, _, b = wid.partition("-")
            try:
                lo, hi = parse_int(a, "word id", 1, MAX_TEXT_CHARS), \
                    parse_int(b, "word id", 1, MAX_TEXT_CHARS)
            except ValueError:
                lo = hi = 0
            if not lo < hi:
                raise InputFormatError(f"bad multiword token id {wid[:40]!r}", path, no)
            tokens.append(cols[1])
            for w in range(lo, hi + 1):
                word_token[w] = len(tokens) - 1
            mwt_end = hi
            continue
        try:
            w = parse_int(wid, "word id", 1, MAX_TEXT_CHARS)
        except ValueError:
            w = -1
        if w != len(heads) + 1:
            raise InputFormatError(f"word id {wid[:40]!r}: expected {len(heads) + 1}", path, no)
        if w > mwt_end:
            tokens.append(cols[1])
            word_token[w] = len(tokens) - 1
        try:
            head = parse_int(cols[6], "HEAD", 0, MAX_TEXT_CHARS)
        except ValueError:
            raise InputFormatError(f"HEAD {cols[6][:40]!r} of word {w} is not a word id", path,
                                   no) from None
        heads[w] = (head, cols[7], no)
    first = block[0][0]
    if sources is not None:
        if k >= len(sources):
            raise InputFormatError(f"sentence {k + 1}, but the database has only "
                                   f"{len(sources)} source sentence(s)", path, first)
        if list(tokens) != list(sources[k]):
            raise _mismatch(path, first, k, tokens, sources[k])
    children: dict[int, list[int]] = {w: [] for w in [0, *heads]}
    for w, (h, _, no) in heads.items():
        if h not in children:
            raise InputFormatError(f"HEAD {h} of word {w} is not a word of the sentence",
                                   path, no)
        children[h].append(w)
    built: dict[int, Node] = {}
    order: list[int] = []
    stack = [0]
    while stack:                                       # pre-order, then build in reverse
        w = stack.pop()
        order.append(w)
        stack.extend(children[w])
    if len(order) != len(heads) + 1:
        missing = min(set(heads) - set(order))
        raise InputFormatError(f"word {missing} is not connected to the root (its HEAD "
                               "values form a cycle)", path, heads[missing][2])
    for w in reversed(order):
        kids = [built[c] for c in sorted(children[w])]
        built[w] = Node("root", kids) if w == 0 else Node(heads[w][1], kids, word_token[w])
    return built[0]
