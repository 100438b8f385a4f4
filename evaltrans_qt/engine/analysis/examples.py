"""Sentences where two systems differ most, as compare-mt 0.2.10 picks them
(``compare_mt_main.generate_sentence_examples``, ``reporters.SentenceExampleReport``), with
the edits of each output against the reference.

For systems A and B with sentence scores s_A(i), s_B(i), sentences whose (A output, B
output, reference) repeat an earlier one are dropped, the rest sorted by
(s_B - s_A, s_A, s_B, i); the first ``top`` are where A is better, the last ``top`` where B
is better (10 each by default). We list both largest difference first.

Edits are the word-level Levenshtein alignment of each output with the reference (WER's
alignment, thesis Algorithm 4.1, ``kernels.levenshtein.lev_backtrace``): each output word
is a match ``=``, substitution ``S`` or insertion ``I``, each reference word a match,
substitution or deletion ``D``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.analysis.corpus import Tokens
from evaltrans_qt.errors import OptionError


@dataclass(frozen=True)
class Edits:
    """Per-word marks of an output against the reference: ``out`` one of ``=``/``S``/``I``
    per output word, ``ref`` one of ``=``/``S``/``D`` per reference word."""

    out: tuple[str, ...]
    ref: tuple[str, ...]


def word_edits(out: Tokens, ref: Tokens) -> Edits:
    """The Levenshtein alignment's marks (module doc)."""
    from evaltrans_qt.engine.kernels.levenshtein import lev_backtrace, unit_sub_matrix
    ids: dict[str, int] = {}
    h = np.array([ids.setdefault(w, len(ids)) for w in out], dtype=np.int32)
    r = np.array([ids.setdefault(w, len(ids)) for w in ref], dtype=np.int32)
    om = ["I"] * len(out)
    rm = ["D"] * len(ref)
    if len(h) and len(r):
        _, ops, hp, rp, _ = lev_backtrace(h, r, unit_sub_matrix(h, r))
        for hi, ri in zip(hp.tolist(), rp.tolist()):
            if hi >= 0 and ri >= 0:
                mark = "=" if out[hi] == ref[ri] else "S"
                om[hi] = mark
                rm[ri] = mark
    return Edits(tuple(om), tuple(rm))


def example_order(ref: Sequence[Tokens], out_a: Sequence[Tokens], out_b: Sequence[Tokens],
                  score_a: Sequence[float] | np.ndarray, score_b: Sequence[float] | np.ndarray
                  ) -> list[tuple[float, float, float, int]]:
    """compare-mt's sorted ``scorediff_list`` as (s_B - s_A, s_A, s_B, sentence index)."""
    seen: set[tuple[tuple[str, ...], ...]] = set()
    rows = []
    for i, (o1, o2, r) in enumerate(zip(out_a, out_b, ref)):
        key = (tuple(o1), tuple(o2), tuple(r))
        if key in seen:
            continue
        seen.add(key)
        s1, s2 = float(score_a[i]), float(score_b[i])
        rows.append((s2 - s1, s1, s2, i))
    rows.sort()
    return rows


def top_examples(order: list[tuple[float, float, float, int]], top: int
                 ) -> tuple[list[int], list[int]]:
    """Sentence indices where A is better and where B is better, largest difference first
    (compare-mt's first and last ``top`` of the order)."""
    if top < 1:
        raise OptionError(f"the number of examples must be positive, got {top}")
    a_better = [row[3] for row in order[:top]]
    b_better = [row[3] for row in reversed(order[-top:])]
    return a_better, b_better
