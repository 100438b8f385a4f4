"""Error classes of whole systems (Popović & Ney 2011 §3; Hjerson's document-level rates):
base-form and POS files, per-system class rates and POS-wise rates as DataFrames.

Hjerson reports, per system, each class count over the reference length (reference-side
classes) or the candidate length (candidate-side classes), and the same for "blocks"
(runs of consecutive words of one class). POS-wise rates (Popović & Ney 2011 §5, error
distributions over POS classes) are the counts of the words of each tag in each class over
the same total lengths, so the rates of the tags of a class add up to the class rate of
the final per-word classes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from evaltrans_qt.engine.analysis.error_classes import (
    CLASSES,
    HJERSON_NAMES,
    STAT_NAMES,
    SentenceClasses,
    base_forms,
    classify_best,
    rates,
    sentence_counts,
)
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


def class_rates(systems: Mapping[str, Sequence[SentenceClasses]], *,
                percent: bool = False) -> pd.DataFrame:
    """One row per system: Hjerson's counts and rates (:func:`error_classes.rates`).

    Columns: ``<stat>`` (the summed count), ``<stat>_rate`` (fraction, or per cent with
    ``percent``), the sums ``sum_rate``/``b_sum_rate``/``rb_sum_rate``, and the lengths."""
    rows = {}
    scale = 100.0 if percent else 1.0
    for name, sents in systems.items():
        total = sentence_counts(sents).sum(axis=0) if len(sents) else np.zeros(len(STAT_NAMES))
        row: dict[str, float] = dict(zip(STAT_NAMES, total.tolist()))
        row.update({f"{k}_rate": v * scale for k, v in rates(total).items()})
        rows[name] = row
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "system"
    return df


def hjerson_table(df: pd.DataFrame) -> pd.DataFrame:
    """The rates of :func:`class_rates` under Hjerson's names (``MISer``, ``bhypRer`` ...)."""
    cols = {f"{k}_rate": v for k, v in HJERSON_NAMES.items()}
    return df[list(cols)].rename(columns=cols)


def pos_rates(sentences: Sequence[SentenceClasses], hyp_pos: Sequence[Sequence[str]],
              ref_pos: Sequence[Sequence[str]]) -> pd.DataFrame:
    """POS-wise class rates of one system: a row per (side, tag), a column per class.

    ``hyp_pos[i]`` tags the words of candidate ``i``; ``ref_pos[i]`` the words of the
    reference the classification used (``sentences[i].ref_index``). Each entry is the
    number of words of that tag and class over the side's total length (candidate or
    reference, as Hjerson's rates), so a class column sums to the rate of that class's
    per-word labels; ``words`` is the share of the tag among the side's words."""
    check_parallel(hyp_pos, [s.hyp for s in sentences], "candidate POS tags")
    check_parallel(ref_pos, [s.ref for s in sentences], "reference POS tags")
    counts: dict[tuple[str, str], dict[str, float]] = {}
    lengths = {"hyp": 0, "ref": 0}
    for s, hp, rp in zip(sentences, hyp_pos, ref_pos):
        for side, tags, classes in (("hyp", hp, s.hyp_classes), ("ref", rp, s.ref_classes)):
            lengths[side] += len(tags)
            for tag, cls in zip(tags, classes):
                row = counts.setdefault((side, tag), dict.fromkeys(("words", *CLASSES), 0.0))
                row["words"] += 1
                if cls in row:
                    row[cls] += 1
    for (side, _tag), row in counts.items():
        n = lengths[side]
        for k in row:
            row[k] = row[k] / n if n else row[k]
    df = pd.DataFrame.from_dict(counts, orient="index")
    if len(df):
        df.index = pd.MultiIndex.from_tuples(df.index, names=["side", "tag"])
        df = df.sort_index()
    return df
