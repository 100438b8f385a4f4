"""SSA: simple string accuracy (survey §4.4.1; Alshawi et al. 1998; Bangalore et al. 2000).

``SSA = 1 − (I + D + S) / |R|``: one minus the word error rate. I, D, S are the
insertions, deletions and substitutions of the Levenshtein alignment of the
candidate with the reference, |R| the reference length in words (the run's
tokenisation and case). The survey notes that a misplaced word costs a deletion
plus an insertion, so SSA can be negative; :mod:`~evaltrans_qt.engine.measures.gsa`
counts such a word once.

Choices where the survey is silent, all as WER's (:mod:`~evaltrans_qt.engine.measures.wer`)
so that SSA = 1 − WER holds exactly under every option:

* several references: the distance to the nearest reference over the length given by
  ``--wer-ref-length-rule`` (thesis eq. 4.1 / 5.7, Table A.3; ``average`` = the mWER
  of survey §4.4.2);
* statistics ``[distance, reference_length]`` add up; the system SSA is
  ``1 − Σ distance / Σ |R|``;
* an empty reference: the error rate is the distance itself (jiwer's convention),
  so SSA = 1 − I;
* the alignment shown is WER's.

Opt-in (``--measures ssa``): not part of the default run.
"""

from __future__ import annotations

import numpy as np

from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures.base import MeasureScore, error_rate_details, error_rates
from evaltrans_qt.engine.measures.wer import WER


@register
class SSA(WER):
    """Simple string accuracy: 1 − Levenshtein distance / reference length (higher is better)."""

    name = "ssa"
    long_name = "Simple string accuracy"
    report_element = "ssa"
    higher_is_better = True
    source = "survey §4.4.1 (SSA = 1 − (I + D + S)/|R|); Alshawi et al. 1998"
    column = "SSA"
    aliases = ()
    default_enabled = False

    def score(self, stats: np.ndarray) -> MeasureScore:
        det = error_rate_details(float(stats[0]), float(stats[1]))
        value = 1.0 - det["error-rate"]
        details = {"score": value, "score-percent": 100.0 * value,
                   "reference-length": det["reference-length"], "sum": det["sum"]}
        return MeasureScore(self.name, value, {self.column: value}, details)

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        return 1.0 - error_rates(st[:, 0], st[:, 1])
