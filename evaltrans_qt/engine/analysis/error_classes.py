"""Error classes of a whole system from Hjerson's inputs (Popović & Ney 2011 §3; Popović
2011, Hjerson): candidate and reference words, base forms from files (Hjerson's
``-B``/``-b``: one lemmatised line per sentence) or from a stemmer, POS files checked
the same way.

The classification of one sentence pair: :mod:`evaltrans_qt.engine.text.error_classes`;
rates of whole systems: :mod:`evaltrans_qt.engine.analysis.error_classes_corpus`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from evaltrans_qt.engine.text.error_classes import SentenceClasses, base_forms, classify_best
from evaltrans_qt.errors import InputFormatError


def read_word_file(path: str | os.PathLike[str], words: Sequence[Sequence[str]],
                   what: str = "base forms") -> list[list[str]]:
    """One line of space-separated items per sentence, one item per word of ``words``
    (Hjerson's ``-B``/``-b`` base-form files, its ``-A``/``-a`` POS files).

    A wrong number of lines or of items on a line is an :class:`InputFormatError` naming
    the file, the line and both counts."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(f"cannot read {what}: {exc}", path) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(words):
        raise InputFormatError(f"{what}: {len(lines)} lines, but the text has {len(words)} "
                               "sentences", path)
    out = []
    for k, (line, ws) in enumerate(zip(lines, words), start=1):
        items = line.split()
        if len(items) != len(ws):
            raise InputFormatError(f"{what}: {len(items)} items, but the sentence has "
                                   f"{len(ws)} words", path, k)
        out.append(items)
    return out


def check_parallel(items: Sequence[Sequence[str]], words: Sequence[Sequence[str]],
                   what: str, source: str | os.PathLike[str] | None = None) -> None:
    """The same checks as :func:`read_word_file` for items given in memory."""
    if len(items) != len(words):
        raise InputFormatError(f"{what}: {len(items)} sentences, but the text has "
                               f"{len(words)}", source)
    for k, (it, ws) in enumerate(zip(items, words), start=1):
        if len(it) != len(ws):
            raise InputFormatError(f"{what}: {len(it)} items, but the sentence has "
                                   f"{len(ws)} words", source, k)


def classify_system(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]],
                    hyp_bases: Sequence[Sequence[str]] | None = None,
                    ref_bases: Sequence[Sequence[Sequence[str]]] | None = None, *,
                    base: str = "snowball", language: str = "english") -> list[SentenceClasses]:
    """Classes of every candidate of a system: ``hyps[i]`` the words of candidate ``i``,
    ``refs[i]`` its references (each a list of words). Base forms given by the caller
    (per candidate, per reference of each candidate) are used; the missing ones come from
    :func:`base_forms` (``base``: ``snowball`` of ``language`` or ``prefix4``)."""
    if len(refs) != len(hyps):
        raise InputFormatError(f"{len(hyps)} candidates but references for {len(refs)}")
    if hyp_bases is not None:
        check_parallel(hyp_bases, hyps, "candidate base forms")
    if ref_bases is not None:
        if len(ref_bases) != len(refs):
            raise InputFormatError(f"reference base forms: {len(ref_bases)} sentences, but "
                                   f"the text has {len(refs)}")
        for k, (rb, rs) in enumerate(zip(ref_bases, refs), start=1):
            check_parallel(rb, rs, f"reference base forms of sentence {k}")
    out = []
    for i, (h, rs) in enumerate(zip(hyps, refs)):
        hb = hyp_bases[i] if hyp_bases is not None else base_forms(h, base, language)
        rbs = ref_bases[i] if ref_bases is not None else [base_forms(r, base, language)
                                                          for r in rs]
        out.append(classify_best(h, rs, hb, rbs))
    return out
