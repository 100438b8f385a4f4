"""Error classes as a measure (Popović & Ney 2011 §3, as Hjerson): every word of the
candidate and of its best reference gets one class (inflection, reordering, missing,
extra, lexical; :mod:`evaltrans_qt.engine.text.error_classes`).

Statistics are Hjerson's counts (they add up): the candidate and reference lengths, WER,
RPER, HPER and the class and block counts (``error_classes.STAT_NAMES``). The headline is
Hjerson's ``SUMerr`` (the sum of the five candidate-side class rates); the columns are the
five rates it sums and its block variant ``bSUMerr``; the report details hold every rate
of Hjerson's output (fractions).

Base forms come from the ``error-classes-base`` option: NLTK's Snowball stemmer of the
``stem-language`` (default) or Hjerson's four-letter prefix; user base-form and POS files
are taken by :func:`evaltrans_qt.engine.analysis.error_classes.classify_system`.

The alignment (for the compare view) is the WER alignment the classes come from; its
``notes`` hold ``hyp_classes`` and ``ref_classes`` (one class per word, ``x`` = correct)
and ``class_names`` (the legend).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.alignment import Alignment, EditOp, OpKind
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.text.error_classes import (
    CLASS_NAMES,
    STAT_NAMES,
    SentenceClasses,
    base_forms,
    classify_best,
    rates,
)

#: Table columns: Hjerson's names of the rates in its SUMerr, then the block sum.
COLUMNS = {"sum": "SUMerr", "hyp_infl": "hypINFer", "hyp_reord": "hypRer", "miss": "MISer",
           "ext": "EXTer", "hyp_lex": "hypLEXer", "b_sum": "bSUMerr"}


@register
class ErrorClasses(Measure):
    """Hjerson's automatic error classes; headline SUMerr (lower is better)."""

    name = "errorclasses"
    long_name = "Error classes (Hjerson: inflection, reordering, missing, extra, lexical)"
    report_element = "errorclasses"
    higher_is_better = False
    default_enabled = False
    source = "Popović & Ney 2011 §3; Popović 2011 (Hjerson)"
    aliases = ("hjerson", "error-classes")
    option_groups: ClassVar[tuple[str, ...]] = ("errorclasses", "stemming")

    @property
    def stat_names(self) -> list[str]:
        return list(STAT_NAMES)

    def _words(self, ids: np.ndarray) -> list[str]:
        if self.vocab is not None:
            return self.vocab.decode(ids)
        return [str(int(i)) for i in ids]

    def classes(self, seg: Segment) -> SentenceClasses | None:
        """The classes of one segment (None without references)."""
        if not seg.refs:
            return None
        o = self.options
        hyp = self._words(seg.hyp)
        refs = [self._words(r) for r in seg.refs]
        return classify_best(hyp, refs, base_forms(hyp, o.error_classes_base, o.stem_language),
                             [base_forms(r, o.error_classes_base, o.stem_language)
                              for r in refs])

    def sentence_stats(self, seg: Segment) -> np.ndarray:
        s = self.classes(seg)
        return np.zeros(len(STAT_NAMES)) if s is None else s.counts

    def score(self, stats: np.ndarray) -> MeasureScore:
        r = rates(np.asarray(stats, dtype=float))
        details = {k.replace("_", "-") + "-rate": v for k, v in r.items()}
        details.update({k.replace("_", "-"): float(v) for k, v in zip(STAT_NAMES, stats)})
        return MeasureScore(self.name, r["sum"], {col: r[k] for k, col in COLUMNS.items()},
                            details)

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        return np.array([rates(row)["sum"] for row in np.atleast_2d(stats)], dtype=float)

    def align(self, seg: Segment) -> Alignment | None:
        s = self.classes(seg)
        if s is None:
            return None
        ops = []
        for h, r in s.alignment:
            if h >= 0 and r >= 0:
                same = s.hyp[h] == s.ref[r]
                ops.append(EditOp(OpKind.MATCH if same else OpKind.SUB, h, r, 0.0 if same else 1.0))
            elif r >= 0:
                ops.append(EditOp(OpKind.DEL, None, r, 1.0))
            else:
                ops.append(EditOp(OpKind.INS, h, None, 1.0))
        return Alignment(self.name, s.hyp, s.ref, s.count("wer"), tuple(ops), (), s.ref_index,
                         {"hyp_classes": s.hyp_classes, "ref_classes": s.ref_classes,
                          "class_names": dict(CLASS_NAMES)})
