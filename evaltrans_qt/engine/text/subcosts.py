"""Word-dependent substitution costs (thesis section 4.5, Table 4.2, Table A.8).

Rules (``--substitution-cost-rule``):

* ``none``: c_SUB(e, e~) = 1 for different words (unit costs);
* ``prefix``: 1 - cpl(e, e~) / ((|e| + |e~|) / 2), cpl = common prefix length
  in characters (Table 4.2: talk/talks -> 1 - 4/4.5 = 0.11);
* ``levenshtein``: character Levenshtein distance divided by the length of
  the Levenshtein alignment path (Table 4.2: usual/unusual -> 2/7). Where
  several optimal paths exist we take the *shortest* one (most diagonal
  steps), so that completely different words of equal length cost exactly 1.

Identical words cost 0. All costs lie in [0, 1], so the cost-triangular
inequality eq. 4.10a (c_SUB <= c_DEL + c_INS = 2) holds for every pair.
Characters are Unicode code points of the (already tokenised, cased) words.

API: :func:`cost` (two strings, plain Python, the reference implementation)
and :class:`SubstitutionCosts` (vocabulary ids -> cost matrices, compiled),
shared by WWER, WPER and CDER.
"""

from __future__ import annotations

import numpy as np

from evaltrans_qt.engine.kernels.wordcosts import cost_blocks
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.errors import OptionError

RULES = {"none": 0, "prefix": 1, "levenshtein": 2}


# --------------------------------------------------- plain-Python references
def prefix_cost(a: str, b: str) -> float:
    """1 - common prefix length / average length (thesis 4.5, Table 4.2)."""
    if a == b:
        return 0.0
    cpl = 0
    for x, y in zip(a, b):
        if x != y:
            break
        cpl += 1
    return 1.0 - cpl / ((len(a) + len(b)) / 2.0)


def char_levenshtein_path(a: str, b: str) -> tuple[int, int]:
    """(distance, length of the shortest optimal alignment path) on characters."""
    m, n = len(a), len(b)
    q = [[(0, 0)] * (n + 1) for _ in range(m + 1)]
    for i in range(m + 1):
        q[i][0] = (i, i)
    for l in range(n + 1):
        q[0][l] = (l, l)
    for i in range(1, m + 1):
        for l in range(1, n + 1):
            d, p = q[i - 1][l - 1]
            diag = (d + (a[i - 1] != b[l - 1]), p + 1)
            d, p = q[i - 1][l]
            up = (d + 1, p + 1)
            d, p = q[i][l - 1]
            left = (d + 1, p + 1)
            q[i][l] = min(diag, up, left)
    return q[m][n]


def levenshtein_cost(a: str, b: str) -> float:
    """Character Levenshtein distance / alignment path length (thesis 4.5, Table 4.2)."""
    if a == b:
        return 0.0
    d, p = char_levenshtein_path(a, b)
    return d / p


def cost(a: str, b: str, rule: str = "prefix") -> float:
    """c_SUB(a, b) under ``rule`` (``none``, ``prefix``, ``levenshtein``)."""
    if rule not in RULES:
        raise OptionError(f"unknown substitution cost rule '{rule}' (known: {', '.join(RULES)})")
    if a == b:
        return 0.0
    if rule == "none":
        return 1.0
    if rule == "prefix":
        return prefix_cost(a, b)
    return levenshtein_cost(a, b)


class SubstitutionCosts:
    """Substitution costs between vocabulary ids under one rule (picklable).

    Keeps the code points of the vocabulary's words in packed arrays and
    refreshes them when the vocabulary grows.
    """

    def __init__(self, rule: str, vocab: Vocabulary) -> None:
        if rule not in RULES:
            raise OptionError(f"unknown substitution cost rule '{rule}' (known: {', '.join(RULES)})")
        self.rule = rule
        self.code = RULES[rule]
        self.vocab = vocab
        self._chars = np.zeros(0, dtype=np.int32)
        self._choff = np.zeros(1, dtype=np.int64)
        self._maxchars = 0

    def _refresh(self) -> None:
        words = self.vocab.words
        known = len(self._choff) - 1
        if known >= len(words):
            return
        new = words[known:]
        cps = [np.frombuffer(w.encode("utf-32-le"), dtype=np.int32) for w in new]
        lens = np.array([len(c) for c in cps], dtype=np.int64)
        self._chars = np.concatenate([self._chars, *cps]) if cps else self._chars
        self._choff = np.concatenate([self._choff, self._choff[-1] + np.cumsum(lens)])
        if len(lens):
            self._maxchars = max(self._maxchars, int(lens.max()))

    def kernel_args(self) -> tuple[int, np.ndarray, np.ndarray, int]:
        """``(rule code, chars, choff, longest word)`` for compiled kernels
        (:mod:`evaltrans_qt.engine.kernels.wordcosts`), refreshed for the current vocabulary."""
        self._refresh()
        return self.code, self._chars, self._choff, self._maxchars

    def cost(self, a: int, b: int) -> float:
        """c_SUB of two vocabulary ids."""
        return float(self.matrix(np.array([a], np.int32), np.array([b], np.int32))[0, 0])

    def matrix(self, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """(I, L) float64 matrix of c_SUB(hyp[i], ref[l]) (0 where identical)."""
        hyp = np.asarray(hyp, dtype=np.int32)
        ref = np.asarray(ref, dtype=np.int32)
        zero = np.zeros(1, np.int64)
        flat, _ = self.matrices(hyp, np.array([0, len(hyp)]), ref, np.array([0, len(ref)]), zero, zero)
        return flat.reshape(len(hyp), len(ref))

    def matrices(self, hyp_flat: np.ndarray, hyp_off: np.ndarray, ref_flat: np.ndarray,
                 ref_off: np.ndarray, pair_hyp: np.ndarray, pair_ref: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Row-major I x L cost blocks of pairs p = (hyp ``pair_hyp[p]``, ref ``pair_ref[p]``)
        (default ref p). Returns ``(flat costs, block offsets)``.
        """
        code, chars, choff, maxchars = self.kernel_args()
        hyp_off = np.asarray(hyp_off, dtype=np.int64)
        ref_off = np.asarray(ref_off, dtype=np.int64)
        pair_hyp = np.asarray(pair_hyp, dtype=np.int64)
        pair_ref = (np.arange(len(pair_hyp), dtype=np.int64) if pair_ref is None
                    else np.asarray(pair_ref, dtype=np.int64))
        hl = np.diff(hyp_off)[pair_hyp]
        rl = np.diff(ref_off)[pair_ref]
        sub_off = np.zeros(len(pair_hyp) + 1, dtype=np.int64)
        np.cumsum(hl * rl, out=sub_off[1:])
        if len(hl):
            from evaltrans_qt.engine.kernels.budget import check_table
            k = int(np.argmax(hl * rl))
            check_table("word-dependent substitution costs", int(sub_off[-1]), 8,
                        f"a batch whose largest sentence pair is {int(hl[k])} x {int(rl[k])} words")
        flat = cost_blocks(code, chars, choff, np.asarray(hyp_flat, np.int32), hyp_off,
                           np.asarray(ref_flat, np.int32), ref_off, pair_hyp, pair_ref, sub_off,
                           maxchars)
        return flat, sub_off
