"""Error classes of whole systems (Popović & Ney 2011 §3; Hjerson's document-level rates):
per-system class rates and POS-wise rates as DataFrames.

Hjerson reports, per system, each class count over the reference length (reference-side
classes) or the candidate length (candidate-side classes), and the same for "blocks"
(runs of consecutive words of one class). POS-wise rates (Popović & Ney 2011 §5, error
distributions over POS classes) are the counts of the words of each tag in each class over
the same total lengths, so the rates of the tags of a class add up to the class rate of
the final per-word classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from evaltrans_qt.engine.analysis.error_classes import check_parallel, classify_system
from evaltrans_qt.engine.text.error_classes import (
    CLASSES,
    HJERSON_NAMES,
    STAT_NAMES,
    SentenceClasses,
    rates,
    sentence_counts,
)


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


def system_class_rates(hyps: Mapping[str, Sequence[Sequence[str]]],
                       refs: Sequence[Sequence[Sequence[str]]], *, base: str = "snowball",
                       language: str = "english", percent: bool = False) -> pd.DataFrame:
    """:func:`class_rates` of several systems in one call: ``hyps[system][i]`` the words of
    the system's candidate ``i``, ``refs[i]`` its references (base forms by ``base`` of
    ``language``, :func:`~evaltrans_qt.engine.analysis.error_classes.classify_system`)."""
    return class_rates({name: classify_system(words, refs, base=base, language=language)
                        for name, words in hyps.items()}, percent=percent)
