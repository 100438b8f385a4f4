"""Skip-bigram PER (thesis section 4.2.3, Figure 4.2).

PER (eq. 4.12) on skip-bigram count vectors: skip bigrams are ordered word
pairs with at most ``max-bigram-skip`` words between them. Normalised by the
total reference skip-bigram count (thesis section 4.2.3), chosen by the Table A.3 rule
(``wer-ref-length-rule``). Statistics ``[distance, reference_length]``.
Report element ``<sbper>`` (not named in Figure A.3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaltrans_qt.engine.kernels.bags import bag_common_batch, per_from_l1, skip_bigram_bags
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import DistanceMeasure, packed


@register
class SBPER(DistanceMeasure):
    """Skip-bigram position-independent error rate."""

    name = "sbper"
    long_name = "Skip-bigram position-independent error rate"
    report_element = "sbper"
    source = "thesis section 4.2.3"
    column = "SB-PER"
    aliases = ("skip-bigram-per",)

    def indexed_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                          pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat, off = packed(list(hyps) + list(refs))
        keys, soff = skip_bigram_bags(flat, off, int(self.options.max_bigram_skip))
        pair_hyp = np.asarray(pair_hyp, dtype=np.int64)
        pair_ref = np.asarray(pair_ref, dtype=np.int64) + len(hyps)
        common = bag_common_batch(keys, soff, pair_hyp, pair_ref)
        hl = np.diff(soff)[pair_hyp]
        rl = np.diff(soff)[pair_ref]
        return per_from_l1(hl + rl - 2 * common, hl, rl), rl.astype(np.float64)
