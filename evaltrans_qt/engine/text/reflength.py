"""Reference-length rules for distance measures (thesis section 5.3, Tables A.3 and A.4).

Given the distance of a candidate to each reference and the reference
lengths, a rule yields the distance that counts (eq. 4.1: the minimum; eq. 5.7
for ``lowestError``: the distance to the best reference by relative error)
and the reference length L* used for normalisation.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaltrans_qt.errors import OptionError


def choose(distances: Sequence[float], lengths: Sequence[float], rule: str) -> tuple[float, float, int]:
    """Apply a Table A.3 rule; returns ``(distance, reference_length, best_ref_index)``.

    * ``average`` / ``minimum`` / ``maximum``: d = min_r d_r (eq. 4.1), L* = mean/min/max of L_r;
    * ``averageNearest`` / ``minimumNearest`` / ``maximumNearest``: d = min_r d_r,
      L* = mean/min/max length of the references at that minimum distance (eq. 5.3/5.4);
    * ``lowestError``: r* = argmin d_r / L_r (eq. 5.5), d = d_r*, L* = L_r* (eq. 5.6/5.7);
      ties go to the smaller absolute distance, then to the earlier reference.

    ``best_ref_index`` is the reference whose distance is used (the first
    nearest one for the other rules).
    """
    n = len(distances)
    if n == 0:
        raise OptionError("a candidate has no reference")
    if rule == "lowestError":
        def rel(r: int) -> float:
            if lengths[r] > 0:
                return distances[r] / lengths[r]
            return 0.0 if distances[r] == 0 else float("inf")
        best = min(range(n), key=lambda r: (rel(r), distances[r], r))
        return float(distances[best]), float(lengths[best]), best
    dmin = min(distances)
    best = next(r for r in range(n) if distances[r] == dmin)
    if rule == "average":
        return float(dmin), sum(lengths) / n, best
    if rule == "minimum":
        return float(dmin), float(min(lengths)), best
    if rule == "maximum":
        return float(dmin), float(max(lengths)), best
    near = [lengths[r] for r in range(n) if distances[r] == dmin]
    if rule == "averageNearest":
        return float(dmin), sum(near) / len(near), best
    if rule == "minimumNearest":
        return float(dmin), float(min(near)), best
    if rule == "maximumNearest":
        return float(dmin), float(max(near)), best
    raise OptionError(f"unknown reference length rule '{rule}'")


def ngram_reference_length(hyp_len: int, lengths: Sequence[int], rule: str) -> float:
    """Table A.4 rule for BLEU and NIST brevity penalties.

    ``minimumNearest`` = the reference length closest to the candidate length,
    ties to the shorter one (eq. 5.2, sacreBLEU's "closest").
    """
    if not lengths:
        raise OptionError("a candidate has no reference")
    if rule == "average":
        return sum(lengths) / len(lengths)
    if rule == "minimum":
        return float(min(lengths))
    if rule == "minimumNearest":
        return float(min(lengths, key=lambda L: (abs(hyp_len - L), L)))
    raise OptionError(f"unknown BLEU/NIST reference length rule '{rule}'")
