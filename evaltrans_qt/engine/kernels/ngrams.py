"""Fast m-gram counting over int32 token ids (BLEU, NIST, chrF and m-PER statistics).

m-grams are *interned* hierarchically: the id of an m-gram is found in an
open-addressing hash table under the exact int64 key
``(id(prefix (m-1)-gram) + 1) << 31 | last_token`` (unigram key = token id).
Keys are exact, so a hash collision can cost time but never change a count.

Sentence boundaries (thesis section 5.4, Figure 5.2, Table A.5): m-grams of
order m are those of ``pad_ids(tokens, rule, m, BOS=0, EOS=1)``,
i.e. ``m-1`` copies of ``<s>`` in front (``initial``/``both``) and one ``</s>``
at the end (``end``/``both``). The kernels walk one virtual sequence padded
with ``M-1`` ``<s>`` and one ``</s>`` and keep, for each order, only the
windows that the per-order padding would produce.

Every kernel has a plain-Python reference implementation (``collections.Counter``)
that the tests compare against: :func:`ngrams_py`, :func:`clipped_counts_py`
(also for :func:`pair_matches`, one reference at a time; :func:`pair_common` is
tested against ``ngrams_py`` counters with every pad rule) and :func:`info_weights_py`.

Per segment, the references' m-grams (BLEU, NIST) or the candidate's (chrF, m-PER:
one candidate against each reference, :func:`pair_common`) go into a small local table
that stays in cache; only NIST's weights need the global table of all references
(:func:`build_table`, in ``NIST.fit``).

Small inputs (start-up time): importing numba alone takes 0.3-0.5 s, more
than scoring a few hundred sentences in Python. The kernels are therefore
compiled lazily (numba is imported at the first kernel call, not at import),
and until they are, :func:`clipped_counts` without NIST weights counts inputs
of at most :data:`SMALL_INPUT_TOKENS` tokens (candidates plus references) with
``collections.Counter`` instead (:func:`_clipped_counts_small`; the same
statistics, tests/engine/test_ngrams_small.py). Once compiled, the kernel is
always used. ``path="kernel"`` or ``path="python"`` forces one.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.kernels.packing import pack
from evaltrans_qt.engine.options import PAD_RULES
from evaltrans_qt.errors import OptionError

BOS_ID = 0
EOS_ID = 1
#: Until the kernels are compiled in a process, :func:`clipped_counts` counts inputs of at
#: most this many tokens (candidates plus references) in Python, so a small
#: ``evaltrans score`` never imports numba: ~30 ms of Counter work at the limit against
#: ~0.5 s for importing numba and loading the cached kernels (measured on 2 cores).
SMALL_INPUT_TOKENS = 20000
CLIP_PATHS = ("auto", "kernel", "python")
_MULT = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing
_MIN_BITS = 10


def pad_ids(tokens: list, rule: str, order: int, bos, eos) -> list:
    """``tokens`` with ``order - 1`` copies of ``bos`` before and one ``eos`` after, as the
    pad rule says (thesis Table A.5, Figure 5.2)."""
    if rule == "none" or order < 1:
        return list(tokens)
    head = [bos] * (order - 1) if rule in ("initial", "both") else []
    tail = [eos] if rule in ("end", "both") else []
    return head + list(tokens) + tail


def pad_flags(rule: str) -> tuple[bool, bool]:
    """Table A.5 rule -> (pad initial, pad end)."""
    if rule not in PAD_RULES:
        raise OptionError(f"unknown pad rule '{rule}' (known: {', '.join(PAD_RULES)})")
    return rule in ("initial", "both"), rule in ("end", "both")


# --------------------------------------------------------------------------- lazy compilation
_JIT_LOCK = threading.Lock()


class _LazyKernel:
    """A kernel that numba compiles on its first call (numba is imported then, not at
    import of this module). The first call replaces every lazy kernel of the module by
    its ``njit(cache=True, nogil=True)`` dispatcher, so kernels calling each other see
    compiled functions."""

    def __init__(self, fn) -> None:
        self.py_func = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args):
        return _compile_kernels()[self.__name__](*args)


def _njit(fn) -> _LazyKernel:
    return _LazyKernel(fn)


def kernels_compiled() -> bool:
    """True once this process has compiled (or loaded from cache) the kernels."""
    return not isinstance(globals()["_clip_kernel"], _LazyKernel)


def _compile_kernels() -> dict:
    """Swap the module's lazy kernels for numba dispatchers (once per process)."""
    g = globals()
    with _JIT_LOCK:
        lazy = {k: v for k, v in g.items() if isinstance(v, _LazyKernel)}
        if lazy:
            from numba import njit
            for name, kernel in lazy.items():
                g[name] = njit(cache=True, nogil=True)(kernel.py_func)
    return g


# --------------------------------------------------------------------------- hash table
# A table of capacity 2**bits is one int64 array ``slots``: slots[2i] = key
# (-1 = empty), slots[2i+1] = id; linear probing, Fibonacci hashing.
@_njit
def _probe(slots, key, shift, mask):
    """Slot index of ``key`` or of the empty slot where it belongs."""
    i = np.int64((np.uint64(key) * _MULT) >> shift)
    while True:
        k = slots[2 * i]
        if k == key or k == -1:
            return i
        i = (i + 1) & mask


@_njit
def _lookup(slots, key, shift, mask):
    i = _probe(slots, key, shift, mask)
    if slots[2 * i] == -1:
        return np.int64(-1)
    return slots[2 * i + 1]


@_njit
def _token(flat, start, n, p, B):
    """Token at position ``p`` of the sequence virtually padded with ``B`` <s> and one </s>."""
    if p < B:
        return np.int64(0)
    if p < B + n:
        return np.int64(flat[start + p - B])
    return np.int64(1)


@_njit
def _rehash(slots, bits):
    nb = bits + 1
    mask = (np.int64(1) << nb) - 1
    shift = np.uint64(64 - nb)
    out = np.full(2 << nb, -1, dtype=np.int64)
    for i in range(slots.shape[0] // 2):
        if slots[2 * i] != -1:
            j = _probe(out, slots[2 * i], shift, mask)
            out[2 * j] = slots[2 * i]
            out[2 * j + 1] = slots[2 * i + 1]
    return out, nb


@_njit
def _grow(a, size):
    out = np.zeros(size, dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@_njit
def _build_kernel(flat, offsets, max_order, initial, end, bits):
    """Intern every m-gram (m <= max_order) of the sequences; count the valid windows."""
    slots = np.full(2 << bits, -1, dtype=np.int64)
    size = 1024
    parent = np.empty(size, dtype=np.int64)
    order = np.empty(size, dtype=np.int64)
    last = np.empty(size, dtype=np.int64)
    counts = np.zeros(size, dtype=np.int64)
    n_ids = 0
    B = max_order - 1
    mask = (np.int64(1) << bits) - 1
    shift = np.uint64(64 - bits)
    for s in range(offsets.shape[0] - 1):
        st = offsets[s]
        ln = offsets[s + 1] - st
        L = B + ln + 1
        lend = L if end else L - 1
        q0 = 0 if initial else B
        for q in range(q0, lend):
            prev = np.int64(-1)
            for m in range(1, max_order + 1):
                if q + m > lend:
                    break
                tok = _token(flat, st, ln, q + m - 1, B)
                key = ((prev + 1) << 31) | tok
                i = _probe(slots, key, shift, mask)
                if slots[2 * i] == -1:
                    if 2 * (n_ids + 1) > (np.int64(1) << bits):
                        slots, bits = _rehash(slots, bits)
                        mask = (np.int64(1) << bits) - 1
                        shift = np.uint64(64 - bits)
                        i = _probe(slots, key, shift, mask)
                    if n_ids == size:
                        size *= 2
                        parent = _grow(parent, size)
                        order = _grow(order, size)
                        last = _grow(last, size)
                        counts = _grow(counts, size)
                    slots[2 * i] = key
                    slots[2 * i + 1] = n_ids
                    parent[n_ids] = prev
                    order[n_ids] = m
                    last[n_ids] = tok
                    n_ids += 1
                ident = slots[2 * i + 1]
                if q >= B - (m - 1):
                    counts[ident] += 1
                prev = ident
    return (slots, bits, parent[:n_ids].copy(), order[:n_ids].copy(),
            last[:n_ids].copy(), counts[:n_ids].copy())


@_njit
def _windows(seq_len, max_order, initial, end):
    """Number of chain steps (interned windows) of one padded sequence."""
    B = max_order - 1
    L = B + seq_len + 1
    lend = L if end else L - 1
    q0 = 0 if initial else B
    n = 0
    for q in range(q0, lend):
        n += min(max_order, lend - q)
    return n


@_njit
def _clip_kernel(hflat, hoff, rflat, roff, rstart, max_order, initial, end,
                 gslots, gbits, weights, use_weights):
    """Per segment and order: clipped matches (eq. 3.1-3.3), candidate m-grams N_m and,
    with global ``weights``, Σ n∩ · Info (eq. 3.9).

    Each segment's reference m-grams are interned in a small local table (in
    cache); with weights, the global id of each matched m-gram is found once by
    walking its prefix chain in the global table ``gslots``.
    """
    nseg = hoff.shape[0] - 1
    M = max_order
    B = M - 1
    correct = np.zeros((nseg, M), dtype=np.int64)
    total = np.zeros((nseg, M), dtype=np.int64)
    info = np.zeros((nseg, M), dtype=np.float64)
    gmask = (np.int64(1) << gbits) - 1
    gshift = np.uint64(64 - gbits)
    # scratch sized by the largest segment
    most = 1
    for k in range(nseg):
        w = 0
        for r in range(rstart[k], rstart[k + 1]):
            w += _windows(roff[r + 1] - roff[r], M, initial, end)
        most = max(most, w)
    lbits_max = 1
    while (np.int64(1) << lbits_max) < 2 * most:
        lbits_max += 1
    slots = np.full(2 << lbits_max, -1, dtype=np.int64)
    lparent = np.empty(most, dtype=np.int64)
    llast = np.empty(most, dtype=np.int64)
    lorder = np.empty(most, dtype=np.int64)
    refmax = np.zeros(most, dtype=np.int64)
    tmp = np.zeros(most, dtype=np.int64)
    hypc = np.zeros(most, dtype=np.int64)
    gid = np.empty(most, dtype=np.int64)
    seen = np.empty(most, dtype=np.int64)
    chain = np.empty(M, dtype=np.int64)
    missing = 0
    for k in range(nseg):
        w = 0
        for r in range(rstart[k], rstart[k + 1]):
            w += _windows(roff[r + 1] - roff[r], M, initial, end)
        lbits = 1
        while (np.int64(1) << lbits) < 2 * max(w, 1):
            lbits += 1
        mask = (np.int64(1) << lbits) - 1
        shift = np.uint64(64 - lbits)
        slots[:2 << lbits] = -1
        n = 0
        # ---- references: intern, count per reference, pool by maximum (eq. 3.1)
        for r in range(rstart[k], rstart[k + 1]):
            st = roff[r]
            ln = roff[r + 1] - st
            L = B + ln + 1
            lend = L if end else L - 1
            ns = 0
            for q in range(0 if initial else B, lend):
                prev = np.int64(-1)
                for m in range(1, M + 1):
                    if q + m > lend:
                        break
                    tok = _token(rflat, st, ln, q + m - 1, B)
                    key = ((prev + 1) << 31) | tok
                    i = _probe(slots, key, shift, mask)
                    if slots[2 * i] == -1:
                        slots[2 * i] = key
                        slots[2 * i + 1] = n
                        lparent[n] = prev
                        llast[n] = tok
                        lorder[n] = m
                        refmax[n] = 0
                        tmp[n] = 0
                        hypc[n] = 0
                        gid[n] = -2
                        n += 1
                    x = slots[2 * i + 1]
                    if q >= B - (m - 1):
                        if tmp[x] == 0:
                            seen[ns] = x
                            ns += 1
                        tmp[x] += 1
                    prev = x
            for j in range(ns):
                x = seen[j]
                if tmp[x] > refmax[x]:
                    refmax[x] = tmp[x]
                tmp[x] = 0
        # ---- candidate: N_m and clipped matches (eq. 3.2)
        st = hoff[k]
        ln = hoff[k + 1] - st
        L = B + ln + 1
        lend = L if end else L - 1
        ns = 0
        for q in range(0 if initial else B, lend):
            prev = np.int64(-1)
            for m in range(1, M + 1):
                if q + m > lend:
                    break
                if m > 1 and prev < 0:
                    x = np.int64(-1)
                else:
                    tok = _token(hflat, st, ln, q + m - 1, B)
                    x = _lookup(slots, ((prev + 1) << 31) | tok, shift, mask)
                if q >= B - (m - 1):
                    total[k, m - 1] += 1
                    if x >= 0 and refmax[x] > 0:
                        if hypc[x] == 0:
                            seen[ns] = x
                            ns += 1
                        hypc[x] += 1
                prev = x
        for j in range(ns):
            x = seen[j]
            c = min(hypc[x], refmax[x])
            o = lorder[x]
            correct[k, o - 1] += c
            if use_weights:
                # global id: walk up to the nearest prefix with a known id, then down
                depth = 0
                y = x
                while y >= 0 and gid[y] == -2:
                    chain[depth] = y
                    depth += 1
                    y = lparent[y]
                g = np.int64(-1) if y < 0 else gid[y]
                for d in range(depth - 1, -1, -1):
                    z = chain[d]
                    if lparent[z] >= 0 and g < 0:
                        gid[z] = -1
                        continue
                    g = _lookup(gslots, ((g + 1) << 31) | llast[z], gshift, gmask)
                    gid[z] = g
                g = gid[x]
                if g < 0:
                    missing += 1
                else:
                    info[k, o - 1] += c * weights[g]
    return correct, total, info, missing


@_njit
def _pair_kernel(hflat, hoff, rflat, roff, pair_hyp, pair_ref, max_order, initial, end):
    """For each pair p = (candidate ``pair_hyp[p]``, reference ``pair_ref[p]``) and order m:
    Σ_e min(n_hyp(e), n_ref(e)) over the m-grams of the two sentences, boundaries as in
    :func:`_clip_kernel` (virtual padding, per-order windows). The candidate is interned
    once in a small local table for each run of pairs that share it; a reference window
    whose prefix is not in the candidate ends its chain (no longer m-gram can be)."""
    npair = pair_hyp.shape[0]
    M = max_order
    B = M - 1
    match = np.zeros((npair, M), dtype=np.int64)
    most = 1
    for k in range(hoff.shape[0] - 1):
        most = max(most, _windows(hoff[k + 1] - hoff[k], M, initial, end))
    lbits_max = 1
    while (np.int64(1) << lbits_max) < 2 * most:
        lbits_max += 1
    slots = np.full(2 << lbits_max, -1, dtype=np.int64)
    lorder = np.empty(most, dtype=np.int64)
    hypc = np.zeros(most, dtype=np.int64)
    tmp = np.zeros(most, dtype=np.int64)
    seen = np.empty(most, dtype=np.int64)
    q0 = 0 if initial else B
    padded = initial or end
    cur = -1
    mask = np.int64(0)
    shift = np.uint64(0)
    for p in range(npair):
        k = pair_hyp[p]
        if k != cur:
            cur = k
            st = hoff[k]
            ln = hoff[k + 1] - st
            w = _windows(ln, M, initial, end)
            lbits = 1
            while (np.int64(1) << lbits) < 2 * max(w, 1):
                lbits += 1
            mask = (np.int64(1) << lbits) - 1
            shift = np.uint64(64 - lbits)
            slots[:2 << lbits] = -1
            n = 0
            lend = B + ln + 1 if end else B + ln
            for q in range(q0, lend):
                prev = np.int64(-1)
                for m in range(1, M + 1):
                    if q + m > lend:
                        break
                    if padded:
                        tok = _token(hflat, st, ln, q + m - 1, B)
                    else:
                        tok = np.int64(hflat[st + q + m - 1 - B])
                    key = ((prev + 1) << 31) | tok
                    i = _probe(slots, key, shift, mask)
                    if slots[2 * i] == -1:
                        slots[2 * i] = key
                        slots[2 * i + 1] = n
                        lorder[n] = m
                        hypc[n] = 0
                        tmp[n] = 0
                        n += 1
                    x = slots[2 * i + 1]
                    if q >= B - (m - 1):
                        hypc[x] += 1
                    prev = x
        r = pair_ref[p]
        st = roff[r]
        ln = roff[r + 1] - st
        lend = B + ln + 1 if end else B + ln
        ns = 0
        for q in range(q0, lend):
            prev = np.int64(-1)
            for m in range(1, M + 1):
                if q + m > lend:
                    break
                if padded:
                    tok = _token(rflat, st, ln, q + m - 1, B)
                else:
                    tok = np.int64(rflat[st + q + m - 1 - B])
                key = ((prev + 1) << 31) | tok
                x = _lookup(slots, key, shift, mask)
                if x < 0:
                    break        # no longer m-gram from here can be in the candidate
                if q >= B - (m - 1):
                    if tmp[x] == 0:
                        seen[ns] = x
                        ns += 1
                    tmp[x] += 1
                prev = x
        for j in range(ns):
            x = seen[j]
            match[p, lorder[x] - 1] += min(tmp[x], hypc[x])
            tmp[x] = 0
    return match


# --------------------------------------------------------------------------- public API
@dataclass(frozen=True)
class NgramTable:
    """All m-grams (m <= ``max_order``) of a set of sequences, with exact ids and counts.

    ``counts[id]`` counts the windows of that m-gram under ``pad_rule``;
    ``parent[id]`` is the id of its (m-1)-gram prefix (-1 for unigrams);
    ``order[id]`` is m; ``last[id]`` its last token. Plain numpy arrays, so
    the table pickles to worker processes.
    """

    slots: np.ndarray
    bits: int
    parent: np.ndarray
    order: np.ndarray
    last: np.ndarray
    counts: np.ndarray
    max_order: int
    pad_rule: str
    n_sequences: int

    @property
    def n_ids(self) -> int:
        return int(self.parent.shape[0])

    def all_bos(self) -> np.ndarray:
        """True for the m-grams consisting of ``<s>`` only."""
        out = np.zeros(self.n_ids, dtype=bool)
        for m in range(1, self.max_order + 1):
            sel = np.flatnonzero(self.order == m)
            ok = self.last[sel] == BOS_ID
            if m > 1:
                ok &= out[self.parent[sel]]
            out[sel] = ok
        return out

    def info_weights(self) -> np.ndarray:
        """NIST information weight of every m-gram id (thesis eq. 3.8).

        Info(e^m) = log2(N(e^{m-1}) / N(e^m)); for unigrams N(e^0) is the total
        number of (padded) unigrams. With initial padding the prefix made of
        ``<s>`` only has no count of its own; as eq. 5.8 says, it
        appears once in each sentence, so its count is ``n_sequences`` (the
        number of reference sentences the table was built from; eq. 5.8 writes
        K, the number of sentences, for one reference per sentence).
        """
        cnt = self.counts.astype(np.float64)
        pc = np.full(self.n_ids, float(cnt[self.order == 1].sum()))
        has_parent = self.parent >= 0
        par = self.parent[has_parent]
        pc[has_parent] = np.where(self.all_bos()[par], float(self.n_sequences), cnt[par])
        out = np.zeros(self.n_ids)
        ok = cnt > 0
        out[ok] = np.log2(pc[ok] / cnt[ok])
        return out


def _bits_for(n: int) -> int:
    return max(_MIN_BITS, int(math.ceil(math.log2(max(2 * n, 2)))))


def build_table(seqs: Sequence[np.ndarray], max_order: int, pad_rule: str = "none") -> NgramTable:
    """Intern and count all m-grams, m = 1..``max_order``, of ``seqs`` (e.g. all references)."""
    if max_order < 1:
        raise OptionError("m-gram order must be at least 1")
    initial, end = pad_flags(pad_rule)
    flat, offsets = pack(seqs)
    # distinct m-grams are far fewer than windows; start small, the kernel doubles.
    bits = _bits_for(min(int(offsets[-1]) * max_order + len(seqs), 1 << 16))
    slots, bits, parent, order, last, counts = _build_kernel(
        flat, offsets, max_order, initial, end, bits)
    return NgramTable(slots, int(bits), parent, order, last, counts, max_order, pad_rule,
                      len(seqs))


def clipped_counts(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]],
                   max_order: int, pad_rule: str = "none", table: NgramTable | None = None,
                   weights: np.ndarray | None = None, *, path: str = "auto"
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Clipped m-gram matches of each candidate against its references (thesis eq. 3.1-3.3).

    Returns ``(correct, total, info, missing)``: arrays of shape (segments, M)
    with the clipped co-occurrence counts n∩_m, the candidate m-gram counts N_m
    and, if ``weights`` (one per id of ``table``) are given, Σ n∩ · Info
    (eq. 3.9); ``missing`` counts matched m-grams absent from ``table`` (0 when
    the table was built from these references).

    ``path``: ``"auto"`` counts in Python (no numba import) while the kernels are
    not compiled in this process and the input, without weights, has at most
    :data:`SMALL_INPUT_TOKENS` tokens; otherwise with the compiled kernel.
    ``"kernel"`` / ``"python"`` force one (the Python path has no weights).
    """
    if len(hyps) != len(refs):
        raise ValueError("one list of references per candidate")
    if max_order < 1:
        raise OptionError("m-gram order must be at least 1")
    if path not in CLIP_PATHS:
        raise OptionError(f"unknown counting path '{path}' (known: {', '.join(CLIP_PATHS)})")
    initial, end = pad_flags(pad_rule)
    use_w = weights is not None
    if path == "python" and use_w:
        raise OptionError("the Python counting path has no NIST weights; use path='kernel'")
    if path == "python" or (path == "auto" and not use_w and not kernels_compiled()
                            and _is_small(hyps, refs)):
        return _clipped_counts_small(hyps, refs, max_order, initial, end)
    if use_w:
        if table is None or table.max_order != max_order or table.pad_rule != pad_rule:
            raise ValueError("weights need the table they belong to (same order and pad rule)")
        gslots, gbits = table.slots, table.bits
        w = np.asarray(weights, dtype=np.float64)
    else:
        gslots, gbits = np.full(4, -1, dtype=np.int64), 1
        w = np.zeros(0, dtype=np.float64)
    hflat, hoff = pack(hyps)
    rflat, roff = pack([r for rs in refs for r in rs])
    rstart = np.zeros(len(refs) + 1, dtype=np.int64)
    if len(refs):
        np.cumsum([len(rs) for rs in refs], out=rstart[1:])
    correct, total, info, missing = _clip_kernel(
        hflat, hoff, rflat, roff, rstart, max_order, initial, end, gslots, gbits, w, use_w)
    return correct, total, info, int(missing)


def _is_small(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]]) -> bool:
    """True if candidates plus references hold at most :data:`SMALL_INPUT_TOKENS` tokens."""
    n = 0
    for h in hyps:
        n += len(h)
        if n > SMALL_INPUT_TOKENS:
            return False
    for rs in refs:
        for r in rs:
            n += len(r)
            if n > SMALL_INPUT_TOKENS:
                return False
    return True


def _int_list(tokens) -> list:
    return tokens.tolist() if isinstance(tokens, np.ndarray) else [int(t) for t in tokens]


def _windows_of(tokens: list, m: int, initial: bool, end: bool) -> Counter:
    """Counter of the m-grams of ``tokens`` padded as Table A.5 says (``pad_ids``)."""
    seq = ([BOS_ID] * (m - 1) if initial else []) + tokens + ([EOS_ID] if end else [])
    if m == 1:
        return Counter(seq)
    return Counter(zip(*[seq[i:] for i in range(m)]))


def _clipped_counts_small(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]],
                          max_order: int, initial: bool, end: bool
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`clipped_counts` without weights in plain Python (eq. 3.1-3.3: per order the
    candidate's m-gram counts, clipped by the maximum count over the references)."""
    n = len(hyps)
    correct = np.zeros((n, max_order), dtype=np.int64)
    total = np.zeros((n, max_order), dtype=np.int64)
    for k in range(n):
        hyp = _int_list(hyps[k])
        rs = [_int_list(r) for r in refs[k]]
        for m in range(1, max_order + 1):
            hc = _windows_of(hyp, m, initial, end)
            total[k, m - 1] = sum(hc.values())
            if not hc or not rs:
                continue
            pooled: dict = {}
            for r in rs:
                for g, c in _windows_of(r, m, initial, end).items():
                    if c > pooled.get(g, 0):
                        pooled[g] = c
            correct[k, m - 1] = sum(min(c, pooled[g]) for g, c in hc.items() if g in pooled)
    return correct, total, np.zeros((n, max_order), dtype=np.float64), 0


def pair_matches(hyps: Sequence[np.ndarray], refs: Sequence[Sequence[np.ndarray]],
                 max_order: int) -> np.ndarray:
    """Σ_e min(n_hyp(e), n_ref(e)) per order for each (candidate, reference) pair, no boundaries.

    Rows follow the references in order (segment 0's references first); chrF
    compares a candidate with each reference separately.
    """
    if len(hyps) != len(refs):
        raise ValueError("one list of references per candidate")
    n_ref = np.fromiter(map(len, refs), dtype=np.int64, count=len(refs))
    pair_hyp = np.repeat(np.arange(len(refs), dtype=np.int64), n_ref)
    return pair_common(pack(hyps), pack([r for rs in refs for r in rs]), pair_hyp,
                       np.arange(len(pair_hyp), dtype=np.int64), max_order)


def pair_common(hyps: tuple[np.ndarray, np.ndarray], refs: tuple[np.ndarray, np.ndarray],
                pair_hyp: np.ndarray, pair_ref: np.ndarray, max_order: int,
                pad_rule: str = "none") -> np.ndarray:
    """Σ_e min(n_hyp(e), n_ref(e)) per order m = 1..``max_order`` (columns) for each pair
    p = (candidate ``pair_hyp[p]``, reference ``pair_ref[p]``) of packed sentences
    (``(flat, offsets)``, :func:`pack`), m-grams padded as Table A.5 says (``pad_rule``).

    With the m-gram counts of the two sentences this gives their count-vector L1
    distance: Σ_e |n_hyp(e) - n_ref(e)| = N_hyp + N_ref - 2 Σ_e min(...) (m-PER, thesis
    section 4.2.2). Pairs that share a candidate should be adjacent: the candidate is
    interned once per run of such pairs.
    """
    if max_order < 1:
        raise OptionError("m-gram order must be at least 1")
    initial, end = pad_flags(pad_rule)
    hflat, hoff = hyps
    rflat, roff = refs
    return _pair_kernel(np.ascontiguousarray(hflat, dtype=np.int32),
                        np.ascontiguousarray(hoff, dtype=np.int64),
                        np.ascontiguousarray(rflat, dtype=np.int32),
                        np.ascontiguousarray(roff, dtype=np.int64),
                        np.ascontiguousarray(pair_hyp, dtype=np.int64),
                        np.ascontiguousarray(pair_ref, dtype=np.int64), max_order, initial, end)


def window_counts(lengths: np.ndarray, m: int, pad_rule: str = "none") -> np.ndarray:
    """Number of m-grams of sentences of these lengths after Table A.5 padding
    (``len(pad_ids(tokens, rule, m)) - m + 1``, at least 0)."""
    initial, end = pad_flags(pad_rule)
    n = np.asarray(lengths, dtype=np.int64) + (m - 1 if initial else 0) + (1 if end else 0)
    return np.maximum(n - m + 1, 0)


# --------------------------------------------------------------------------- references
def ngrams_py(tokens: Sequence[int], m: int, pad_rule: str = "none") -> Counter:
    """Reference implementation: Counter of the m-grams (tuples) after Table A.5 padding."""
    seq = pad_ids(list(int(t) for t in tokens), pad_rule, m, BOS_ID, EOS_ID)
    return Counter(tuple(seq[i:i + m]) for i in range(len(seq) - m + 1))


def clipped_counts_py(hyp: Sequence[int], refs: Sequence[Sequence[int]], max_order: int,
                      pad_rule: str = "none", weights: dict | None = None
                      ) -> tuple[list[int], list[int], list[float]]:
    """Reference implementation of :func:`clipped_counts` for one segment."""
    correct, total, info = [], [], []
    for m in range(1, max_order + 1):
        h = ngrams_py(hyp, m, pad_rule)
        pooled: Counter = Counter()
        for r in refs:
            for g, c in ngrams_py(r, m, pad_rule).items():
                pooled[g] = max(pooled[g], c)
        clip = {g: min(c, pooled[g]) for g, c in h.items() if pooled[g] > 0}
        correct.append(sum(clip.values()))
        total.append(sum(h.values()))
        info.append(sum(c * weights[g] for g, c in clip.items()) if weights is not None else 0.0)
    return correct, total, info


def info_weights_py(ref_seqs: Sequence[Sequence[int]], max_order: int,
                    pad_rule: str = "none") -> dict[tuple, float]:
    """Reference implementation of NIST info weights (eq. 3.8 with eq. 5.8)."""
    counts: Counter = Counter()
    for r in ref_seqs:
        for m in range(1, max_order + 1):
            counts.update(ngrams_py(r, m, pad_rule))
    unigrams = sum(c for g, c in counts.items() if len(g) == 1)
    out = {}
    for g, c in counts.items():
        prefix = g[:-1]
        if not prefix:
            pc = unigrams
        elif all(t == BOS_ID for t in prefix):
            pc = len(ref_seqs)
        else:
            pc = counts[prefix]
        out[g] = math.log2(pc / c)
    return out
