"""SEGRANKSBLEU (Macháček §3.2.3): BLEU with the best-ranked candidate segments of the
database as additional references.

Good segments: in every annotation of every ranked source segment of the sentence
(pooled over sources with the same text, ``measures/_segranks.py``), the candidate
segments with the best rank of that annotation (§3.2.3: "all candidate segments with
the best rank"); none when that best rank is the "unusable" rank N+1 (our choice:
nothing usable is no good translation). Each distinct good segment is one more
reference for the clipped m-gram counts (thesis eq. 3.1-3.2), tokenised like the run;
the brevity penalty uses only the original references' lengths (§3.2.3; our
``bleu-ref-length-rule``). Everything else -- smoothing, order, the BLEU-S/BLEU-S'
variants, report elements -- is this program's BLEU (``measures/bleu.py``) with the
same options; the columns are named SEGRANKSBLEU, SEGRANKSBLEU-S, SEGRANKSBLEU-S'.
With a ``bleu-pad-rule`` the segments get sentence boundaries like any reference.
Opt-in.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.ngrams import clipped_counts
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._segranks import DatabaseMeasure
from evaltrans_qt.engine.measures.base import MeasureScore, Segment
from evaltrans_qt.engine.measures.bleu import BLEU, reference_lengths
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize


def good_segments(segments: Sequence) -> list[str]:
    """The distinct best-ranked candidate segments of annotated segments (module doc)."""
    out: dict[str, None] = {}
    for a in segments:
        for ranks in a.rankings:
            best = min(ranks, default=None)
            if best is None or best >= len(a.candidates) + 1:
                continue
            for c, r in zip(a.candidates, ranks):
                if r == best:
                    out.setdefault(c, None)
    return list(out)


@register
class SegRanksBLEU(DatabaseMeasure, BLEU):
    """SEGRANKSBLEU: BLEU with good segments as extra references (higher is better)."""

    name = "segranksbleu"
    long_name = "SEGRANKSBLEU (BLEU with the best-ranked segments as references)"
    report_element = "segranksbleu"
    higher_is_better = True
    source = "Macháček 2014 §3.2.3 (SEGRANKSBLEU); thesis section 3.1 (BLEU)"
    option_groups = ("bleu",)

    def fit(self, segments: Sequence[Segment], vocab: Vocabulary) -> None:
        super().fit(segments, vocab)
        o = self.options
        self._extra_refs: dict[tuple[str, ...], tuple[np.ndarray, ...]] = {
            key: tuple(vocab.encode(tokenize(t, o.tokenization, o.case))
                       for t in good_segments(segs))
            for key, segs in (self.annotations or {}).items()}

    def _ngram_stats(self, segments: Sequence[Segment], max_order: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """BLEU's statistics with the good segments as extra references of the clipped
        counts; the brevity penalty sees the original references only (module doc)."""
        extra = getattr(self, "_extra_refs", {})
        hyps = [s.hyp for s in segments]
        refs = [tuple(s.refs) + extra.get(tuple(s.ref_texts), ()) for s in segments]
        correct, total, _, _ = clipped_counts(hyps, refs, max_order, self.pad_rule)
        hyp_len, ref_len = reference_lengths(hyps, [s.refs for s in segments], self.ref_rule)
        return hyp_len, ref_len, correct, total

    def score(self, stats: np.ndarray) -> MeasureScore:
        s = super().score(stats)
        cols = {k.replace("BLEU", "SEGRANKSBLEU"): v for k, v in s.columns.items()}
        return MeasureScore(self.name, s.value, cols, s.details)
