"""Preprocessing: tokenisation, case, sentence boundaries, integer token ids (thesis ch. 5).

Tokenisation methods (thesis Figure 5.1, T:1024-1030):

* ``none``: split on whitespace only;
* ``remove-punctuation``: punctuation separates words and is dropped;
* ``mteval``: mteval-v13a, which *is* sacreBLEU's ``13a`` tokenizer (reused);
* ``mteval-contractions``: ``mteval`` plus expansion of English contractions
  ("We'd" -> "we would", "that's" -> "that is"); expansions are lower case as
  in Figure 5.1;
* ``intl``: sacreBLEU's ``intl`` tokenizer (Unicode punctuation and symbols).

Tokens are split with ``str.split()`` (any Unicode whitespace), as sacreBLEU does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from evaltrans_qt.errors import OptionError

BOS = "<s>"
EOS = "</s>"
#: Token ids of the artificial sentence boundaries (no word of a text ever gets them).
BOS_ID = 0
EOS_ID = 1


@lru_cache(maxsize=None)
def _sacrebleu_tokenizer(name: str):
    if name == "13a":
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
        return Tokenizer13a()
    if name == "intl":
        from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
        return TokenizerV14International()
    raise OptionError(f"unknown sacreBLEU tokenizer '{name}'")


def _is_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def _remove_punctuation(text: str) -> str:
    return "".join(" " if _is_punct(c) else c for c in text)


# English contractions (thesis Figure 5.1: "We'd" -> "we would", "that's" -> "that is").
_APOS = "'\u2019"
_WHOLE_WORD = {
    "won't": "will not", "can't": "can not", "cannot": "can not", "shan't": "shall not",
    "ain't": "is not", "let's": "let us", "y'all": "you all", "o'clock": "o'clock",
}
_SUFFIXES = (
    ("n't", " not"), ("'ll", " will"), ("'re", " are"), ("'ve", " have"), ("'m", " am"),
    ("'d", " would"), ("'s", " is"),
)
_CONTRACTION_RE = re.compile(r"^(?P<stem>\w+?)(?P<suf>n't|'ll|'re|'ve|'m|'d|'s)$", re.IGNORECASE)


def expand_contraction(token: str) -> list[str]:
    """Expand one English contraction token; other tokens are returned unchanged.

    Possessive "'s" is not distinguishable from "is" without a parser; like the
    thesis (Figure 5.1: "that's" -> "that is") we expand it.
    """
    norm = token.replace("\u2019", "'")
    low = norm.lower()
    if low in _WHOLE_WORD:
        return _WHOLE_WORD[low].split()
    m = _CONTRACTION_RE.match(norm)
    if not m:
        return [token]
    stem, suf = m.group("stem"), m.group("suf").lower()
    for s, full in _SUFFIXES:
        if suf == s:
            return [stem.lower(), full.strip()]
    return [token]


def tokenize(text: str, method: str = "mteval", case: str = "use") -> list[str]:
    """Tokenise one sentence into words (thesis ch. 5.1/5.2)."""
    if method == "none":
        toks = text.split()
    elif method == "remove-punctuation":
        toks = _remove_punctuation(text).split()
    elif method == "mteval":
        toks = _sacrebleu_tokenizer("13a")(text.strip()).split()
    elif method == "mteval-contractions":
        toks = []
        for t in _sacrebleu_tokenizer("13a")(text.strip()).split():
            toks.extend(expand_contraction(t))
    elif method == "intl":
        toks = _sacrebleu_tokenizer("intl")(text.strip()).split()
    else:
        raise OptionError(f"unknown tokenization '{method}'")
    if case == "ignore":
        toks = [t.lower() for t in toks]
    elif case != "use":
        raise OptionError(f"unknown case option '{case}'")
    return toks


def pad(tokens: Sequence, rule: str, order: int) -> list:
    """Add sentence boundaries for m-grams of size ``order`` (Table A.5, Figure 5.2).

    ``initial`` prepends ``order-1`` copies of ``<s>``, ``end`` appends one
    ``</s>`` (Figure 5.2 has a single end marker), ``both`` does both.
    Works on strings or on ids (then pass the ids of BOS/EOS via ``pad_ids``).
    """
    return pad_ids(list(tokens), rule, order, BOS, EOS)


def pad_ids(tokens: list, rule: str, order: int, bos, eos) -> list:
    if rule == "none" or order < 1:
        return list(tokens)
    head = [bos] * (order - 1) if rule in ("initial", "both") else []
    tail = [eos] if rule in ("end", "both") else []
    return head + list(tokens) + tail


class Vocabulary:
    """Maps token strings to dense int32 ids for the compiled kernels.

    Ids 0 and 1 (:data:`BOS_ID`, :data:`EOS_ID`) are the artificial sentence
    boundaries; no string maps to them, so a literal ``<s>`` in a text is an
    ordinary word and never matches a boundary.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._words: list[str] = [BOS, EOS]

    def __len__(self) -> int:
        return len(self._words)

    def id(self, word: str) -> int:
        i = self._ids.get(word)
        if i is None:
            i = len(self._words)
            self._ids[word] = i
            self._words.append(word)
        return i

    def encode(self, tokens: Iterable[str]) -> np.ndarray:
        ids = self._ids
        get = ids.get
        out = []
        for t in tokens:
            i = get(t)
            if i is None:
                i = self.id(t)
            out.append(i)
        return np.asarray(out, dtype=np.int32)

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self._words[int(i)] for i in ids]

    @property
    def words(self) -> list[str]:
        return self._words
