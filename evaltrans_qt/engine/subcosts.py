"""Word-dependent substitution costs (thesis section 4.5, T:896-991, Table 4.2, Table A.8).

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
from numba import njit

from evaltrans_qt.engine.preprocess import Vocabulary
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


# ------------------------------------------------------------------- kernels
@njit(cache=True, nogil=True)
def _word_cost(rule, chars, choff, a, b, scratch_d, scratch_p):
    if a == b:
        return 0.0
    if rule == 0:
        return 1.0
    a0 = choff[a]
    a1 = choff[a + 1]
    b0 = choff[b]
    b1 = choff[b + 1]
    la = a1 - a0
    lb = b1 - b0
    if rule == 1:
        cpl = 0
        k = 0
        while k < la and k < lb and chars[a0 + k] == chars[b0 + k]:
            cpl += 1
            k += 1
        if la + lb == 0:
            return 0.0
        return 1.0 - cpl / ((la + lb) / 2.0)
    # rule 2: (distance, path length) lexicographic DP over characters, one row
    if la == 0 or lb == 0:
        return 1.0 if la + lb > 0 else 0.0
    for l in range(lb + 1):
        scratch_d[l] = l
        scratch_p[l] = l
    for i in range(1, la + 1):
        dd = scratch_d[0]
        dp = scratch_p[0]
        scratch_d[0] = i
        scratch_p[0] = i
        ca = chars[a0 + i - 1]
        for l in range(1, lb + 1):
            ud = scratch_d[l]
            up = scratch_p[l]
            bd = dd + (0 if ca == chars[b0 + l - 1] else 1)
            bp = dp + 1
            if ud + 1 < bd or (ud + 1 == bd and up + 1 < bp):
                bd = ud + 1
                bp = up + 1
            ld = scratch_d[l - 1] + 1
            lp = scratch_p[l - 1] + 1
            if ld < bd or (ld == bd and lp < bp):
                bd = ld
                bp = lp
            scratch_d[l] = bd
            scratch_p[l] = bp
            dd = ud
            dp = up
    return scratch_d[lb] / scratch_p[lb]


@njit(cache=True, nogil=True)
def _matrices(rule, chars, choff, hyp_flat, hyp_off, ref_flat, ref_off, pair_hyp, sub_off,
              maxchars):
    n_pairs = len(ref_off) - 1
    out = np.empty(sub_off[n_pairs], dtype=np.float64)
    sd = np.empty(maxchars + 1, dtype=np.int64)
    sp = np.empty(maxchars + 1, dtype=np.int64)
    for p in range(n_pairs):
        h = pair_hyp[p]
        h0 = hyp_off[h]
        r0 = ref_off[p]
        nr = ref_off[p + 1] - r0
        t = sub_off[p]
        for i in range(hyp_off[h + 1] - h0):
            a = hyp_flat[h0 + i]
            for l in range(nr):
                out[t] = _word_cost(rule, chars, choff, a, ref_flat[r0 + l], sd, sp)
                t += 1
    return out


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

    def cost(self, a: int, b: int) -> float:
        """c_SUB of two vocabulary ids."""
        return float(self.matrix(np.array([a], np.int32), np.array([b], np.int32))[0, 0])

    def matrix(self, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """(I, L) float64 matrix of c_SUB(hyp[i], ref[l]) (0 where identical)."""
        hyp = np.asarray(hyp, dtype=np.int32)
        ref = np.asarray(ref, dtype=np.int32)
        flat, off = self.matrices(hyp, np.array([0, len(hyp)]), ref, np.array([0, len(ref)]),
                                  np.zeros(1, np.int64))
        return flat.reshape(len(hyp), len(ref))

    def matrices(self, hyp_flat: np.ndarray, hyp_off: np.ndarray, ref_flat: np.ndarray,
                 ref_off: np.ndarray, pair_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row-major I x L cost blocks of many pairs (layout of the batched Levenshtein kernel).

        Pair p = (hyp ``pair_hyp[p]``, ref p). Returns ``(flat costs, block offsets)``.
        """
        self._refresh()
        hyp_off = np.asarray(hyp_off, dtype=np.int64)
        ref_off = np.asarray(ref_off, dtype=np.int64)
        pair_hyp = np.asarray(pair_hyp, dtype=np.int64)
        hl = (hyp_off[1:] - hyp_off[:-1])[pair_hyp]
        rl = ref_off[1:] - ref_off[:-1]
        sub_off = np.zeros(len(rl) + 1, dtype=np.int64)
        np.cumsum(hl * rl, out=sub_off[1:])
        flat = _matrices(self.code, self._chars, self._choff, np.asarray(hyp_flat, np.int32),
                         hyp_off, np.asarray(ref_flat, np.int32), ref_off, pair_hyp, sub_off,
                         self._maxchars)
        return flat, sub_off
