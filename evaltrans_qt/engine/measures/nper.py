"""m-PER: PER on m-gram count vectors for m = 1..M, and their combination
(thesis section 4.2.2; boundaries Table A.5 / Figure 5.2; Table A.3 rules).

Statistics (they add up): ``[distance, reference_length, d_1, L_1, ..., d_M, L_M]``
with d_m the m-gram PER distance (eq. 4.12 on m-gram counts), L_m the number
of m-grams of the reference (after the reference-length rule), and the combined
values ``distance = sum_m d_m``, ``reference_length = sum_m L_m`` ("summing up
over the absolute distances", thesis section 4.2.2). Boundaries follow
:func:`evaltrans_qt.engine.text.preprocess.pad` for each order m (m-1 ``<s>`` in
front, one ``</s>`` at the end).

``nper-choose-references-separately`` (thesis section 4.2.2): off = one nearest reference per
candidate by the combined distance; on = the rule is applied separately for each m.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from evaltrans_qt.engine.kernels.bags import per_from_l1
from evaltrans_qt.engine.kernels.ngrams import pair_common, window_counts
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import DistanceMeasure, packed, select
from evaltrans_qt.engine.measures.base import MeasureScore, Segment, error_rate_details


@register
class NPER(DistanceMeasure):
    """m-PER for m = 1..``nper-max-ngram`` and the combined m-PER."""

    name = "nper"
    long_name = "m-gram position-independent error rate"
    report_element = "nper"
    source = "thesis section 4.2.2, Table A.1/A.5"
    column = "m-PER"
    aliases = ("m-per",)       # the thesis' name (section 4.2.2)
    ref_length_option = "nper_ref_length_rule"

    @property
    def max_n(self) -> int:
        return int(self.options.nper_max_ngram)

    @property
    def stat_names(self) -> list[str]:
        names = ["distance", "reference_length"]
        for m in range(1, self.max_n + 1):
            names += [f"distance_{m}", f"reference_length_{m}"]
        return names

    def pair_matrix(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                    pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per pair and order: distances d (P, M) and reference m-gram counts L (P, M).

        d_m is eq. 4.12 on m-gram count vectors, whose L1 difference is
        N_hyp + N_ref - 2 Σ_e min(n_hyp(e), n_ref(e)) (:func:`pair_common`; exact integers).
        """
        big_m = self.max_n
        rule = self.options.nper_pad_rule
        hp, rp = packed(hyps), packed(refs)
        pair_hyp = np.asarray(pair_hyp, dtype=np.int64)
        pair_ref = np.asarray(pair_ref, dtype=np.int64)
        common = pair_common(hp, rp, pair_hyp, pair_ref, big_m, rule)
        hyp_len = np.diff(hp[1])[pair_hyp]
        ref_len = np.diff(rp[1])[pair_ref]
        d = np.zeros((len(pair_hyp), big_m), dtype=np.float64)
        lens = np.zeros((len(pair_hyp), big_m), dtype=np.float64)
        for m in range(1, big_m + 1):
            a = window_counts(hyp_len, m, rule)
            b = window_counts(ref_len, m, rule)
            d[:, m - 1] = per_from_l1(a + b - 2 * common[:, m - 1], a, b)
            lens[:, m - 1] = b
        return d, lens

    def indexed_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                          pair_hyp: np.ndarray, pair_ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Combined m-PER distance (sum over m) and combined reference m-gram count per pair."""
        d, lens = self.pair_matrix(hyps, refs, pair_hyp, pair_ref)
        return d.sum(axis=1), lens.sum(axis=1)

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        hyps, refs, pair_hyp, pair_ref, slots = self._unique_pairs(segments)
        big_m = self.max_n
        n = len(segments)
        d, lens = self.pair_matrix(hyps, refs, pair_hyp, pair_ref)
        grids, valid = self._grid(n, slots, [d.sum(axis=1), lens.sum(axis=1)]
                                  + [d[:, m] for m in range(big_m)]
                                  + [lens[:, m] for m in range(big_m)])
        dsum, lsum = grids[0], grids[1]
        dm, lm = grids[2:2 + big_m], grids[2 + big_m:]
        out = np.zeros((n, 2 + 2 * big_m), dtype=np.float64)
        rows = np.arange(n)
        if self.options.nper_choose_references_separately:
            for m in range(big_m):
                best, w = select(dm[m], lm[m], valid, self.rule)
                ok = best >= 0
                out[ok, 2 + 2 * m] = dm[m][rows[ok], best[ok]]
                out[:, 3 + 2 * m] = (w * lm[m]).sum(axis=1)
        else:
            best, w = select(dsum, lsum, valid, self.rule)
            ok = best >= 0
            for m in range(big_m):
                out[ok, 2 + 2 * m] = dm[m][rows[ok], best[ok]]
                out[:, 3 + 2 * m] = (w * lm[m]).sum(axis=1)
        out[:, 0] = out[:, 2::2].sum(axis=1)
        out[:, 1] = out[:, 3::2].sum(axis=1)
        return out

    def score(self, stats: np.ndarray) -> MeasureScore:
        det: dict[str, Any] = dict(error_rate_details(float(stats[0]), float(stats[1])))
        cols = {self.column: det["error-rate"]}
        grams = []
        for m in range(1, self.max_n + 1):
            g = error_rate_details(float(stats[2 * m]), float(stats[2 * m + 1]))
            cols[f"{m}-PER"] = g["error-rate"]
            grams.append(({"n": str(m)}, g))
        det["n-gram"] = grams
        return MeasureScore(self.name, cols[self.column], cols, det)
