"""Quality control of a campaign's annotators (Qt-free): the attention-check texts and the
per-annotator report.

Texts:

* :func:`bad_reference` -- a *BAD reference* (Graham et al. 2017 §4.1; WMT since 2016,
  Appraise's batch scripts ``_create_bad_ref``): the candidate with a random phrase replaced
  by a phrase of another sentence; the phrase has 1 word for a 1-word candidate, 2 for 2-5
  words, 3 for 6-8, 4 for 9-15, 5 for 16-20 and 6 beyond (Appraise's mapping);
* :func:`inject_error` -- Anthea's attention check ("hands on the wheel"): one word
  swapped with its neighbour or deleted; the span a careful annotator should mark is
  returned (the two swapped words; the words on both sides of a deletion).

The report (:func:`annotator_qc`) takes the annotator's judged positions in bundle order
(:class:`Judged`) and gives: items done, median seconds per item, and each check's
outcome (:class:`Check`, ``passed`` None when there is too little data to decide):

* ``bad-refs``: one-sided Wilcoxon signed-rank test (``scipy.stats.wilcoxon``,
  ``alternative="greater"``) of original minus BAD score over the pairs both judged; pass
  when p < ``alpha`` (Appraise's annotator statistics use 0.05); fewer than 5 pairs cannot
  reach 0.05 (the exact p of n positive differences is 2^-n) and are not decided;
* ``injected``: the share of injected copies with a marked target span overlapping the
  injected span (an empty span counts when it lies inside); pass when >= ``min_detected``;
* ``repeats``: mean absolute difference between an item's scores and its repeat's, as a
  share of the scale's range; pass when <= ``repeat_tolerance``. For relative ranking
  (a repeated unit: one source's candidates ranked twice) the consistency is the share of
  pairwise orders (better, equal, worse) kept between the two screens -- WMT's
  intra-annotator agreement counts the same three outcomes (Callison-Burch et al. 2007
  §3.3) -- and passes when >= 1 - ``repeat_tolerance``. A ranking *BAD candidate* (a
  damaged copy of one of the screen's candidates) should be ranked strictly last: the
  share of such screens passes when >= ``min_detected``;
* ``speed``: share of items judged faster than ``time_floor`` seconds; pass when <=
  ``max_fast_share``;
* ``straight-line``: the longest run of the same score in consecutive judged items; pass
  when shorter than ``straight_line``.

An annotator passes when no decided check fails; the reasons name every failed check.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import NamedTuple

from evaltrans_qt.engine.campaign.assignment import BAD, INJECTED, REAL, REPEAT
from evaltrans_qt.engine.campaign.definition import QCPlan

_WORD = re.compile(r"\S+")


def _bad_length(n: int) -> int:
    if n <= 1:
        return 1
    if n <= 5:
        return 2
    if n <= 8:
        return 3
    if n <= 15:
        return 4
    if n <= 20:
        return 5
    return 6


def bad_reference(text: str, donor: str, rng: random.Random) -> str:
    """``text`` with a phrase replaced by one of ``donor`` (module doc); words are
    separated by single spaces in the result. A text equal to the result (the donor's
    phrase was the same) gets the donor's phrase prepended instead, so it always differs."""
    words, other = text.split(), donor.split() or ["…"]
    if not words:
        return " ".join(other[:1])
    k = min(_bad_length(len(words)), len(words))
    kk = min(k, len(other))
    i = rng.randrange(len(words) - k + 1)
    j = rng.randrange(len(other) - kk + 1)
    out = " ".join(words[:i] + other[j:j + kk] + words[i + k:])
    return out if out != text else " ".join(other[j:j + kk] + words)


def inject_error(text: str, rng: random.Random) -> tuple[str, tuple[int, int], str]:
    """(changed text, [start, end) to be marked in it, ``"swap"`` or ``"delete"``)
    (module doc). A text of fewer than two words gets a word doubled instead (``"repeat"``)."""
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if len(spans) < 2:
        w = text.strip() or "…"
        return f"{w} {w}", (0, 2 * len(w) + 1), "repeat"
    kinds = ["swap", "delete"] if len(spans) >= 3 else ["swap"]
    kind = rng.choice(kinds)
    if kind == "swap":
        candidates = [i for i in range(len(spans) - 1)
                      if text[slice(*spans[i])] != text[slice(*spans[i + 1])]] or [0]
        i = rng.choice(candidates)
        (a0, a1), (b0, b1) = spans[i], spans[i + 1]
        new = text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]
        return new, (a0, b1), kind
    i = rng.randrange(1, len(spans) - 1)             # not the first or last word
    (p0, _), (d0, _), (_, n1) = spans[i - 1], spans[i], spans[i + 1]
    new = text[:d0] + text[spans[i + 1][0]:]
    return new, (p0, n1 - (spans[i + 1][0] - d0)), kind


class Judged(NamedTuple):
    """One judged bundle position: ``n`` (1-based position), ``kind``, ``item`` (campaign
    item index), ``value`` (the protocol's score: the first class, MQM's negated penalty;
    None when the protocol has none), ``seconds`` (None if unknown), the target spans
    marked and, for an injected copy, the injected span. A named tuple: a WMT-sized
    campaign has 50,000 of them, made at every collection and QC report."""

    n: int
    kind: str
    item: int
    value: float | None = None
    seconds: float | None = None
    spans: tuple[tuple[int, int], ...] = ()
    injected: tuple[int, int] | None = None


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``passed`` None when there is too little to decide."""

    name: str
    passed: bool | None
    value: float | None
    detail: str


@dataclass
class AnnotatorQC:
    """The report of one annotator (module doc)."""

    annotator: str
    assigned: int
    done: int
    median_seconds: float | None
    checks: list[Check] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not any(c.passed is False for c in self.checks)

    @property
    def reasons(self) -> list[str]:
        return [f"{c.name}: {c.detail}" for c in self.checks if c.passed is False]

    def to_dict(self) -> dict:
        return {"annotator": self.annotator, "assigned": self.assigned, "done": self.done,
                "median_seconds": self.median_seconds, "passed": self.passed,
                "reasons": self.reasons,
                "checks": [{"name": c.name, "passed": c.passed, "value": c.value,
                            "detail": c.detail} for c in self.checks]}


def overlaps(marked: tuple[int, int], injected: tuple[int, int]) -> bool:
    """True if the marked span ``[s, e)`` overlaps ``injected`` (an empty span: lies in it)."""
    s, e = marked
    a, b = injected
    if s == e:
        return a <= s <= b
    return s < b and a < e


def _bad_check(pairs: list[tuple[float, float]], alpha: float) -> Check:
    diffs = [o - b for o, b in pairs]
    if len(pairs) < 5:
        return Check("bad-refs", None, None, f"{len(pairs)} judged pair(s): too few to test "
                                             "(5 needed)")
    if all(x == 0 for x in diffs):
        p = 1.0
    else:
        from scipy.stats import wilcoxon
        p = float(wilcoxon(diffs, alternative="greater").pvalue)
    ok = p < alpha
    return Check("bad-refs", ok, p, f"Wilcoxon p = {p:.3g} over {len(pairs)} pairs "
                                    f"({'<' if ok else '>='} {alpha:g}: BAD references "
                                    f"{'scored lower' if ok else 'not scored clearly lower'})")


def _cmp(a: float, b: float) -> int:
    return (a > b) - (a < b)


def ranking_repeats(judged: Sequence[Judged], tolerance: float) -> Check:
    """The repeats check of relative ranking (module doc): every pair of candidates of a
    repeated screen, its order there against its order on the first screen."""
    real = {j.item: j for j in judged if j.kind == REAL and j.value is not None}
    screens: dict[int, list[Judged]] = {}
    for j in judged:
        if j.kind == REPEAT and j.value is not None and j.item in real:
            screens.setdefault(j.n, []).append(j)
    kept = total = 0
    for screen in screens.values():
        for x, y in itertools.combinations(screen, 2):
            total += 1
            first = _cmp(real[x.item].value, real[y.item].value)   # type: ignore[arg-type]
            kept += first == _cmp(x.value, y.value)                # type: ignore[arg-type]
    if not total:
        return Check("repeats", None, None, "no repeated screen ranked twice")
    share = kept / total
    ok = share >= 1 - tolerance
    return Check("repeats", ok, share, f"{kept} of {total} pairwise orders kept on "
                 f"{len(screens)} repeated screen(s) ({share:.0%} "
                 f"{'>=' if ok else '<'} {1 - tolerance:.0%})")


def ranking_bad(judged: Sequence[Judged], share: float) -> Check:
    """The bad-refs check of relative ranking (module doc): each BAD candidate ranked
    below every other candidate of its screen."""
    screens: dict[int, list[Judged]] = {}
    for j in judged:
        if j.value is not None:
            screens.setdefault(j.n, []).append(j)
    bad = [j for j in judged if j.kind == BAD and j.value is not None]
    last = sum(all(j.value > o.value for o in screens[j.n] if o is not j)  # type: ignore[operator]
               for j in bad)
    if not bad:
        return Check("bad-refs", None, None, "no screen with a BAD candidate ranked")
    got = last / len(bad)
    ok = got >= share
    return Check("bad-refs", ok, got, f"{last} of {len(bad)} BAD candidates ranked last "
                 f"({got:.0%} {'>=' if ok else '<'} {share:.0%})")


def annotator_qc(annotator: str, judged: Sequence[Judged], assigned: int, plan: QCPlan,
                 scale: float, ranking: bool = False) -> AnnotatorQC:
    """The report of ``annotator`` (module doc) from their judged positions in bundle order;
    ``assigned`` counts the real items of the bundle, ``scale`` is the range of the score
    (repeat tolerance is a share of it); ``ranking``: the values are ranks of screens
    (repeats compared by pairwise orders)."""
    judged = sorted(judged, key=lambda j: j.n)
    real = {j.item: j for j in judged if j.kind == REAL}
    done = len(real)
    secs = [j.seconds for j in judged if j.seconds is not None]
    rep = AnnotatorQC(annotator, assigned, done, float(median(secs)) if secs else None)
    if plan.bad_refs > 0 and ranking:
        rep.checks.append(ranking_bad(judged, plan.min_detected))
    elif plan.bad_refs > 0:
        pairs = [(real[j.item].value, j.value) for j in judged if j.kind == BAD
                 and j.item in real and j.value is not None and real[j.item].value is not None]
        rep.checks.append(_bad_check(pairs, plan.alpha))  # type: ignore[arg-type]
    if plan.injected > 0:
        inj = [j for j in judged if j.kind == INJECTED and j.injected is not None]
        if not inj:
            rep.checks.append(Check("injected", None, None, "no injected error judged"))
        else:
            found = sum(any(overlaps(s, j.injected) for s in j.spans)  # type: ignore[arg-type]
                        for j in inj)
            share = found / len(inj)
            ok = share >= plan.min_detected
            rep.checks.append(Check("injected", ok, share, f"{found} of {len(inj)} injected "
                                    f"errors marked ({'>=' if ok else '<'} "
                                    f"{plan.min_detected:.0%})"))
    if plan.repeats > 0 and ranking:
        rep.checks.append(ranking_repeats(judged, plan.repeat_tolerance))
    elif plan.repeats > 0:
        diffs = [abs(real[j.item].value - j.value) for j in judged  # type: ignore[operator]
                 if j.kind == REPEAT and j.item in real and j.value is not None
                 and real[j.item].value is not None]
        if not diffs:
            rep.checks.append(Check("repeats", None, None, "no repeated item judged twice"))
        else:
            mad = sum(diffs) / len(diffs) / (scale or 1.0)
            ok = mad <= plan.repeat_tolerance
            rep.checks.append(Check("repeats", ok, mad, f"mean difference {mad:.0%} of the "
                                    f"scale over {len(diffs)} repeats ({'<=' if ok else '>'} "
                                    f"{plan.repeat_tolerance:.0%})"))
    if secs:
        fast = sum(s < plan.time_floor for s in secs) / len(secs)
        ok = fast <= plan.max_fast_share
        rep.checks.append(Check("speed", ok, fast, f"{fast:.0%} of items faster than "
                                f"{plan.time_floor:g} s ({'<=' if ok else '>'} "
                                f"{plan.max_fast_share:.0%})"))
    values = [j.value for j in judged if j.value is not None]
    if values:
        longest = run = 1
        for a, b in zip(values, values[1:]):
            run = run + 1 if math.isclose(a, b) else 1
            longest = max(longest, run)
        ok = longest < plan.straight_line
        rep.checks.append(Check("straight-line", ok, float(longest), f"longest run of one "
                                f"score: {longest} item{'' if longest == 1 else 's'} ({'<' if ok else '>='} "
                                f"{plan.straight_line})"))
    return rep


__all__ = ["bad_reference", "inject_error", "Judged", "Check", "AnnotatorQC", "overlaps",
           "ranking_repeats", "ranking_bad", "annotator_qc"]
