"""Automatic error classification of one sentence pair (Popović & Ney 2011, "Towards Automatic Error Analysis of
Machine Translation Output", Computational Linguistics 37(4), §3), as Hjerson implements it
(Popović 2011, "Hjerson: An Open Source Tool for Automatic Error Classification of Machine
Translation Output", PBML 96).

Every word of the candidate and of the (best) reference gets one class:

* ``infl`` -- inflectional error: a PER error of the full form whose base form is found in
  the other side's bag of base forms (Popović & Ney 2011 §3.1, "the full form is marked as
  an error but the base form is not");
* ``reord`` -- reordering error: a WER error whose full form is among the other side's WER
  errors (§3.1, "... occurs both in the reference and the hypothesis but is marked as a WER
  error");
* ``miss`` (omission, reference side) / ``ext`` (addition, candidate side): a PER error
  that WER marks as a deletion / insertion;
* ``lex`` -- lexical error: a PER error that WER marks as a substitution;
* ``x`` -- no error.

The procedure and its tie-breaking are Hjerson's: the WER alignment is the Levenshtein
backtrace preferring a diagonal step, then a deletion, then an insertion (the engine's
``lev_backtrace`` kernel breaks ties the same way); with several references the one with
the lowest WER relative to its length is used (the first on ties); the PER ("bag")
errors are found by matching the words of one side in order against the first unused
equal word of the other side (RPER: reference words against the candidate, recall; HPER:
candidate words against the reference, precision). Counts are Hjerson's too: inflectional
errors are counted by the PER step, missing/extra/lexical ones by the WER/PER step, and
reordering errors by the reordering step, which overrides the class of a word found in
both lists -- so in the rare case of a repeated word whose PER error is also a reordering
error, Hjerson counts it twice (once in each class) while the word shows one class (the
reordering); we count as Hjerson. Likewise a PER error whose word WER matches at another
occurrence than the one PER matched gets no class (Hjerson's "x"), so the classes may count
fewer errors than RPER/HPER. "Block" counts are runs of consecutive words of one
class on one side (Hjerson's block error rates).

Two cases where Hjerson's output is degenerate are defined here instead: an empty
reference makes every candidate word an extra word (Hjerson keeps no class for them), and
the best reference is chosen among all references even when every relative WER exceeds
1000 (Hjerson then falls back to the last reference without an alignment).

Base forms come from the user (one lemmatised line per sentence, as Hjerson's ``-B``/``-b``
files: one base form per word) or from NLTK's Snowball stemmer of the language; Hjerson's
own fallback without base files (the first four letters of each word) is the ``prefix4``
method.

System-level rates, base-form and POS files: :mod:`evaltrans_qt.engine.analysis.error_classes`
and :mod:`evaltrans_qt.engine.analysis.error_classes_corpus`; the measure:
:mod:`evaltrans_qt.engine.measures.errorclasses`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from evaltrans_qt.engine.kernels.levenshtein import (
    OP_DEL,
    OP_INS,
    OP_MATCH,
    lev_backtrace,
    lev_distance,
)
from evaltrans_qt.errors import OptionError

#: The classes, in Hjerson's labels: no error, inflection, reordering, missing, extra, lexical.
CORRECT, INFL, REORD, MISS, EXT, LEX = "x", "infl", "reord", "miss", "ext", "lex"
CLASSES = (INFL, REORD, MISS, EXT, LEX)
#: Long names for tables and legends.
CLASS_NAMES = {INFL: "inflectional error", REORD: "reordering error", MISS: "missing word",
               EXT: "extra word", LEX: "lexical error", CORRECT: "correct"}

#: Columns of :func:`sentence_counts` (statistics that add up over sentences): lengths,
#: Hjerson's WER/RPER/HPER counts, the class counts and the block counts.
STAT_NAMES = ("hyp_len", "ref_len", "wer", "rper", "hper",
              "ref_infl", "hyp_infl", "ref_reord", "hyp_reord", "miss", "ext",
              "ref_lex", "hyp_lex",
              "b_ref_infl", "b_hyp_infl", "b_ref_reord", "b_hyp_reord", "b_miss", "b_ext",
              "b_ref_lex", "b_hyp_lex")
#: Which length each count is divided by (Hjerson: reference-side errors over the
#: reference length, candidate-side errors over the candidate length).
REF_SIDE = ("wer", "rper", "ref_infl", "ref_reord", "miss", "ref_lex",
            "b_ref_infl", "b_ref_reord", "b_miss", "b_ref_lex")
HYP_SIDE = ("hper", "hyp_infl", "hyp_reord", "ext", "hyp_lex",
            "b_hyp_infl", "b_hyp_reord", "b_ext", "b_hyp_lex")
#: Hjerson's names of the rates (its ``*.totalerrorrates`` output), by statistic.
HJERSON_NAMES = {"wer": "Wer", "rper": "Rper", "hper": "Hper",
                 "ref_infl": "refINFer", "hyp_infl": "hypINFer", "ref_reord": "refRer",
                 "hyp_reord": "hypRer", "miss": "MISer", "ext": "EXTer", "ref_lex": "refLEXer",
                 "hyp_lex": "hypLEXer", "b_ref_infl": "brefINFer", "b_hyp_infl": "bhypINFer",
                 "b_ref_reord": "brefRer", "b_hyp_reord": "bhypRer", "b_miss": "bMISer",
                 "b_ext": "bEXTer", "b_ref_lex": "brefLEXer", "b_hyp_lex": "bhypLEXer"}
#: Base-form methods when no base-form files are given.
BASE_METHODS = ("snowball", "prefix4")


@dataclass(frozen=True)
class SentenceClasses:
    """The classes of one candidate and its best reference.

    ``hyp_classes[i]`` / ``ref_classes[l]`` is the class of candidate word ``i`` /
    reference word ``l`` (one of :data:`CLASSES` or :data:`CORRECT`); ``ref_index`` the
    reference used; ``counts`` the statistics (:data:`STAT_NAMES`) of this sentence.
    ``alignment`` is the WER alignment as ``(hyp_pos, ref_pos)`` pairs in reference order,
    ``-1`` where a side has no word.
    """

    hyp: tuple[str, ...]
    ref: tuple[str, ...]
    hyp_classes: tuple[str, ...]
    ref_classes: tuple[str, ...]
    ref_index: int
    counts: np.ndarray
    alignment: tuple[tuple[int, int], ...] = ()

    def count(self, name: str) -> float:
        return float(self.counts[STAT_NAMES.index(name)])


# --------------------------------------------------------------------------- base forms
@lru_cache(maxsize=16)
def snowball_stemmer(language: str) -> Callable[[str], str]:
    """NLTK's Snowball stemmer of ``language`` as a cached function word -> stem."""
    from nltk.stem.snowball import SnowballStemmer
    if language not in SnowballStemmer.languages:
        raise OptionError(f"no Snowball stemmer for language '{language}' (known: "
                          f"{', '.join(SnowballStemmer.languages)})")
    stemmer = SnowballStemmer(language)
    return lru_cache(maxsize=1 << 18)(stemmer.stem)


def base_forms(words: Sequence[str], method: str = "snowball",
               language: str = "english") -> list[str]:
    """Base forms of ``words`` without a base-form file: NLTK's Snowball stem of each word
    (``snowball``; Snowball lower-cases) or Hjerson's fallback, the first four letters
    (``prefix4``)."""
    if method == "prefix4":
        return [w[:4] for w in words]
    if method != "snowball":
        raise OptionError(f"unknown base-form method '{method}' (known: {', '.join(BASE_METHODS)})")
    stem = snowball_stemmer(language)
    return [stem(w) for w in words]


# --------------------------------------------------------------------------- one sentence
def _per_errors(words: Sequence[str], bases: Sequence[str], other_words: Sequence[str],
                other_bases: Sequence[str]) -> tuple[list[int], int, int]:
    """Hjerson's ``hyp_ref_errors``: per word of ``words`` 0 (found in the other side's bag
    of full forms), 1 (PER error) or 2 (PER error whose base form is in the other side's
    remaining bag of base forms: an inflectional error); and the two counts.

    A matched word uses up the first unused equal word of the other side together with
    that word's base form, so the remaining base forms are those of the other side's words
    left after the full-form matching."""
    left: dict[str, int] = {}
    for w in other_words:
        left[w] = left.get(w, 0) + 1
    used: dict[str, int] = {}                   # matched full form -> times matched
    flags = []
    for w in words:
        c = left.get(w, 0)
        if c:
            left[w] = c - 1
            used[w] = used.get(w, 0) + 1
            flags.append(0)
        else:
            flags.append(1)
    base_left: dict[str, int] = {}
    seen: dict[str, int] = {}
    for w, b in zip(other_words, other_bases):
        k = seen[w] = seen.get(w, 0) + 1
        if k > used.get(w, 0):                  # not one of the first used[w] occurrences
            base_left[b] = base_left.get(b, 0) + 1
    errors = flags.count(1)
    infl = 0
    for i, b in enumerate(bases):
        if flags[i] == 1 and base_left.get(b, 0) > 0:
            base_left[b] -= 1
            flags[i] = 2
            infl += 1
    return flags, errors, infl


def _blocks(classes: Sequence[str], cls: str) -> int:
    """Runs of consecutive words of class ``cls`` (Hjerson's ``block_count``)."""
    n = 0
    prev = False
    for c in classes:
        cur = c == cls
        if cur and not prev:
            n += 1
        prev = cur
    return n


def _encode(*seqs: Sequence[str]) -> list[np.ndarray]:
    """Word ids (one numbering for all ``seqs``) as int32 arrays."""
    ids: dict[str, int] = {}
    out = []
    for seq in seqs:
        out.append(np.array([ids.setdefault(w, len(ids)) for w in seq], dtype=np.int32))
    return out


def wer_alignment(hyp: Sequence[str], ref: Sequence[str], ids: Sequence[np.ndarray] | None = None
                  ) -> tuple[int, list[tuple[int, int, int]]]:
    """Hjerson's WER alignment: ``(distance, [(op, hyp_pos, ref_pos)])`` in reference order
    (ops of ``kernels/levenshtein.py``; ties towards diagonal, deletion, insertion).
    ``ids``: the two sentences already as word ids of one numbering."""
    h, r = ids if ids is not None else _encode(hyp, ref)
    sub = np.ones((len(h), len(r)), dtype=np.float64)
    d, ops, hp, rp, _c = lev_backtrace(h, r, sub)
    return int(round(d)), list(zip(ops.tolist(), hp.tolist(), rp.tolist()))


def classify(hyp: Sequence[str], ref: Sequence[str], hyp_bases: Sequence[str],
             ref_bases: Sequence[str], *, ref_index: int = 0,
             ids: Sequence[np.ndarray] | None = None) -> SentenceClasses:
    """Classes of one candidate against one reference (Popović & Ney 2011 §3.1, as Hjerson).

    ``hyp_bases``/``ref_bases`` are the base forms, one per word; ``ids`` optionally the
    two sentences as word ids of one numbering.
    """
    hyp, ref = tuple(hyp), tuple(ref)
    if len(hyp_bases) != len(hyp) or len(ref_bases) != len(ref):
        raise ValueError("one base form per word is needed")
    dist, ops = wer_alignment(hyp, ref, ids)
    wer_hyp = [0] * len(hyp)                    # 0 = matched, 1 = WER error
    wer_ref = [0] * len(ref)
    wer_ref_kind = [OP_MATCH] * len(ref)
    wer_hyp_kind = [OP_MATCH] * len(hyp)
    for op, h, r in ops:
        if h >= 0:
            wer_hyp[h] = int(op != OP_MATCH)
            wer_hyp_kind[h] = op
        if r >= 0:
            wer_ref[r] = int(op != OP_MATCH)
            wer_ref_kind[r] = op
    hper, hper_n, hyp_infl = _per_errors(hyp, hyp_bases, ref, ref_bases)
    rper, rper_n, ref_infl = _per_errors(ref, ref_bases, hyp, hyp_bases)

    def miss_ext_lex(per: list[int], kinds: list[int], gap: int, gap_cls: str
                     ) -> tuple[list[str], int, int]:
        cats, n_gap, n_lex = [], 0, 0
        for p, k in zip(per, kinds):
            if p == 2:
                cats.append(INFL)
            elif p == 1 and k == gap:
                cats.append(gap_cls)
                n_gap += 1
            elif p == 1 and k != OP_MATCH:
                cats.append(LEX)
                n_lex += 1
            else:
                cats.append(CORRECT)
        return cats, n_gap, n_lex

    ref_cats, n_miss, n_ref_lex = miss_ext_lex(rper, wer_ref_kind, OP_DEL, MISS)
    hyp_cats, n_ext, n_hyp_lex = miss_ext_lex(hper, wer_hyp_kind, OP_INS, EXT)

    def reord(words: Sequence[str], wer_err: list[int], other: Sequence[str],
              other_err: list[int], cats: list[str]) -> int:
        pool: dict[str, int] = {}
        for w, e in zip(other, other_err):
            if e:
                pool[w] = pool.get(w, 0) + 1
        n = 0
        for i, (w, e) in enumerate(zip(words, wer_err)):
            if e and pool.get(w, 0) > 0:
                cats[i] = REORD
                pool[w] -= 1
                n += 1
        return n

    n_hyp_reord = reord(hyp, wer_hyp, ref, wer_ref, hyp_cats)
    n_ref_reord = reord(ref, wer_ref, hyp, wer_hyp, ref_cats)
    counts = np.array([len(hyp), len(ref), dist, rper_n, hper_n,
                       ref_infl, hyp_infl, n_ref_reord, n_hyp_reord, n_miss, n_ext,
                       n_ref_lex, n_hyp_lex,
                       _blocks(ref_cats, INFL), _blocks(hyp_cats, INFL),
                       _blocks(ref_cats, REORD), _blocks(hyp_cats, REORD),
                       _blocks(ref_cats, MISS), _blocks(hyp_cats, EXT),
                       _blocks(ref_cats, LEX), _blocks(hyp_cats, LEX)], dtype=np.float64)
    return SentenceClasses(hyp, ref, tuple(hyp_cats), tuple(ref_cats), ref_index, counts,
                           tuple((h, r) for _op, h, r in ops))


def best_reference(hyp: Sequence[str], refs: Sequence[Sequence[str]],
                   ids: Sequence[np.ndarray] | None = None) -> int:
    """Hjerson's choice of reference: the lowest WER relative to the reference length (an
    empty reference counts as 1e-8 words), the first on ties. ``ids``: the candidate and
    the references as word ids of one numbering."""
    h, *rs = ids if ids is not None else _encode(hyp, *refs)
    best, best_rate = 0, float("inf")
    for k, r in enumerate(rs):
        rate = lev_distance(h, r) / (len(r) if len(r) else 1e-8)
        if rate < best_rate:
            best, best_rate = k, rate
    return best


def classify_best(hyp: Sequence[str], refs: Sequence[Sequence[str]], hyp_bases: Sequence[str],
                  refs_bases: Sequence[Sequence[str]]) -> SentenceClasses:
    """:func:`classify` against the reference :func:`best_reference` picks."""
    if not refs:
        raise ValueError("error classification needs at least one reference")
    ids = _encode(hyp, *refs)
    k = best_reference(hyp, refs, ids) if len(refs) > 1 else 0
    return classify(hyp, refs[k], hyp_bases, refs_bases[k], ref_index=k,
                    ids=(ids[0], ids[k + 1]))


# --------------------------------------------------------------------------- rates
def rates(counts: np.ndarray) -> dict[str, float]:
    """Hjerson's error rates (fractions, not per cent) of summed :data:`STAT_NAMES` counts:
    reference-side counts over the reference length, candidate-side ones over the
    candidate length, plus Hjerson's sums of the five candidate-side rates (``SUMerr``;
    ``bSUMerr`` with block counts; ``rbSUMerr`` with block reordering only). A zero length
    gives the count itself (as ``base.error_rate_details``)."""
    c = dict(zip(STAT_NAMES, np.asarray(counts, dtype=float).tolist()))
    hl, rl = c["hyp_len"], c["ref_len"]

    def rate(x: float, n: float) -> float:
        return x / n if n > 0 else x

    out = {k: rate(c[k], rl) for k in REF_SIDE}
    out.update({k: rate(c[k], hl) for k in HYP_SIDE})
    out["sum"] = out["hyp_infl"] + out["hyp_reord"] + out["miss"] + out["ext"] + out["hyp_lex"]
    out["b_sum"] = (out["b_hyp_infl"] + out["b_hyp_reord"] + out["b_miss"] + out["b_ext"]
                    + out["b_hyp_lex"])
    out["rb_sum"] = out["hyp_infl"] + out["b_hyp_reord"] + out["miss"] + out["ext"] + out["hyp_lex"]
    return out


def sentence_counts(sentences: Sequence[SentenceClasses]) -> np.ndarray:
    """Statistics of many sentences, shape (n, len(STAT_NAMES))."""
    if not sentences:
        return np.zeros((0, len(STAT_NAMES)))
    return np.stack([s.counts for s in sentences])
