"""Agreement between the annotators of a campaign (any database with several judges).

* **Krippendorff's alpha** (Krippendorff 2011, "Computing Krippendorff's Alpha-
  Reliability"; computed by the ``krippendorff`` package) over a judges x units
  reliability matrix (:class:`Reliability`), one per kind of judgement:

  - every score class: interval (scales, DA, ESA scores), the unit a candidate;
  - the rank class of relative ranking (engine/human/ranking.py): ordinal, the unit a
    candidate, the value its rank (the mean rank when one judge ranked it on two screens);
  - ``mqm-penalty``: interval, the unit a candidate, the value a judge's MQM penalty (the
    sum of the weights of their errors, engine/human/spans/scores.py; 0 without errors);
  - ``items``: nominal, the unit one information item of a candidate, the value its mark
    (OK, error, syntax, meaning, other; EuroMatrix survey §4.4.16).

  A judge who judged one unit more than once contributes the mean of the values
  (nominal: the first). Units judged by fewer than two judges are not pairable
  (Krippendorff 2011) and are left out.
* **Cohen's and Fleiss' kappa** as engine/human/agreement.py computes them (pooled P(E),
  Macháček §2.2.1): :func:`~evaltrans_qt.engine.human.agreement.score_kappa` for score
  classes, :func:`~evaltrans_qt.engine.human.agreement.ranking_kappa` for ranks,
  :func:`~evaltrans_qt.engine.human.agreement.marks_kappa` for item marks.
* **Per pair of judges**: Pearson's r and Kendall's tau_b over the units both judged
  (nominal: Cohen's kappa with the pair's own P(E)); with a *gold* judge, every other
  judge against the gold one.
* **Error spans** (MQM, ESA) of two judges on the candidates both annotated
  (:func:`span_counts`), one judge's spans taken as the other's reference (the overlap
  and the character sets as engine/human/spans/prefill.py compares pre-filled spans):

  - *character level*: the characters (per side) each judge covered; precision =
    |A ∩ B| / |A|, recall = |A ∩ B| / |B|; *with severity* a character matches only when
    both gave it the same severity;
  - *span level*: a span of A is matched when B has a span *exactly* equal (same side,
    start and end) or *overlapping* it (engine/human/spans/prefill.py's overlap: an
    omission overlaps a span containing its position), with severity also equal when
    asked; precision = matched spans of A / spans of A, recall = matched spans of B /
    spans of B. Unlocated errors take no part.

  Counts are summed over the candidates of a pair (micro average), then precision,
  recall and F1 = 2PR / (P + R) are averaged over the pairs (macro average). F1 of a
  pair does not depend on its order. Against a gold judge the gold spans are B.

The judge :data:`ADJUDICATED` (engine/campaign/adjudication.py) records final judgements,
not an annotator's: it is left out unless named as the gold judge.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any, Literal

import numpy as np

from evaltrans_qt.engine.data.database import ITEM_MARKS, Database
from evaltrans_qt.engine.human import agreement as human_agreement
from evaltrans_qt.engine.human.ranking import RANK_CLASS
from evaltrans_qt.engine.human.spans.model import PROTOCOLS as SPAN_PROTOCOLS
from evaltrans_qt.engine.human.spans.model import ErrorSpan, canonical_severity, is_judgement
from evaltrans_qt.engine.human.spans.prefill import overlaps
from evaltrans_qt.engine.human.spans.scores import database_weights, judge_penalty
from evaltrans_qt.engine.metaeval.statistics.coefficients import kendall_tau_b, pearson
from evaltrans_qt.errors import ScoreError

#: The judge of adjudicated (final) judgements.
ADJUDICATED = "adjudicated"
#: Krippendorff's levels of measurement used here.
Level = Literal["interval", "ordinal", "nominal"]
#: Pseudo-classes of the reliability matrices that are not score classes (``mqm`` may be
#: a score class: the WMT import stores Google's MQM scores as one).
MQM_PENALTY = "mqm-penalty"
ITEMS = "items"
#: The span protocol whose errors make an MQM penalty.
MQM = "mqm"
#: The ways two judges' spans are matched (module doc).
SPAN_MODES = ("characters", "characters+severity", "exact", "exact+severity", "overlap",
              "overlap+severity")


def judge_name(judge: str | None) -> str:
    """A judge as reports name it (an anonymous judge is ``""``)."""
    return judge or ""


# ------------------------------------------------------------------ reliability data
@dataclass(frozen=True)
class Reliability:
    """Krippendorff's reliability data: ``values[j, u]`` is judge ``judges[j]``'s value of
    unit ``units[u]`` (NaN when not judged). Nominal values are codes into
    ``categories``."""

    name: str
    level: Level
    judges: tuple[str, ...]
    units: tuple[Hashable, ...]
    values: np.ndarray
    categories: tuple[str, ...] = ()

    def pairable(self) -> Reliability:
        """Only the units judged by at least two judges."""
        keep = (~np.isnan(self.values)).sum(axis=0) >= 2
        return Reliability(self.name, self.level, self.judges,
                           tuple(u for u, k in zip(self.units, keep) if k),
                           self.values[:, keep], self.categories)

    @property
    def judgements(self) -> int:
        return int((~np.isnan(self.values)).sum())


def _matrix(name: str, level: Level, cells: dict[tuple[str, Hashable], list[float]],
            categories: tuple[str, ...] = ()) -> Reliability:
    judges = tuple(sorted({j for j, _ in cells}))
    units = tuple(dict.fromkeys(u for _, u in cells))
    ji = {j: k for k, j in enumerate(judges)}
    ui = {u: k for k, u in enumerate(units)}
    values = np.full((len(judges), len(units)), np.nan)
    for (j, u), vs in cells.items():
        values[ji[j], ui[u]] = vs[0] if level == "nominal" else sum(vs) / len(vs)
    return Reliability(name, level, judges, units, values, categories)


def _keep(judge: str | None, exclude: Iterable[str]) -> bool:
    return judge_name(judge) not in exclude


def class_reliability(db: Database, cls: str, *, exclude: Iterable[str] = (ADJUDICATED,)
                      ) -> Reliability:
    """The matrix of score class ``cls`` (module doc): ordinal for the rank class,
    interval otherwise; extrapolated scores are not judgements."""
    if not db.has_class(cls):
        raise ScoreError(f"no score class {cls!r} in the database "
                         f"(classes: {', '.join(db.human_classes) or 'none'})")
    ex = set(exclude)
    is_ref = db.reference_test()
    cells: dict[tuple[str, Hashable], list[float]] = defaultdict(list)
    for i, src in enumerate(db.sources):
        for ti, t in enumerate(src.targets):
            if is_ref(t):
                continue
            for s in t.scores:
                if s.cls == cls and not s.extrapolated and _keep(s.judge, ex):
                    cells[(judge_name(s.judge), (i, ti))].append(s.value)
    return _matrix(cls, "ordinal" if cls == RANK_CLASS else "interval", cells)


def mqm_reliability(db: Database, *, exclude: Iterable[str] = (ADJUDICATED,)) -> Reliability:
    """The matrix of MQM penalties (module doc) with the database's weights; only the
    human annotations of protocol ``mqm`` (ESA's spans do not make an MQM score, and a
    machine's suggested spans are no judge)."""
    weights = database_weights(db)
    ex = set(exclude)
    cells: dict[tuple[str, Hashable], list[float]] = defaultdict(list)
    for i, src in enumerate(db.sources):
        for ti, t in enumerate(src.targets):
            for a in t.span_annotations:
                if is_judgement(a, MQM) and _keep(a.judge, ex):
                    cells[(judge_name(a.judge), (i, ti))].append(judge_penalty(a, weights))
    return _matrix(MQM_PENALTY, "interval", cells)


def items_reliability(db: Database, *, exclude: Iterable[str] = (ADJUDICATED,)) -> Reliability:
    """The nominal matrix of information-item marks (module doc): the unit is
    (source, target, item)."""
    code = {m: k for k, m in enumerate(ITEM_MARKS)}
    ex = set(exclude)
    cells: dict[tuple[str, Hashable], list[float]] = defaultdict(list)
    for i, src in enumerate(db.sources):
        for ti, t in enumerate(src.targets):
            for m in t.item_marks:
                if _keep(m.judge, ex):
                    for k, mark in enumerate(m.marks):
                        cells[(judge_name(m.judge), (i, ti, k))].append(float(code[mark]))
    return _matrix(ITEMS, "nominal", cells, tuple(ITEM_MARKS))


#: Above this many cells (pairable units x values²) the ``krippendorff`` package, which
#: builds a units x values x values array, would need more than ~160 MB: alpha is then
#: summed from the coincidence matrix directly (:func:`coincidence_alpha`).
PACKAGE_CELLS = 20_000_000


def alpha(rel: Reliability) -> float:
    """Krippendorff's alpha of ``rel`` at its level of measurement; NaN when no unit has two
    judgements or only one value occurs (alpha is undefined then: no disagreement is
    expected). Computed by the ``krippendorff`` package, unless its units x values x
    values array would exceed :data:`PACKAGE_CELLS` (a WMT-sized campaign with a 0-100
    scale: 20,040 units x 101² values = 204 million cells, 11 s and 1.6 GB): then by
    :func:`coincidence_alpha`, the same formulas on the coincidence matrix (the tests
    check the two agree)."""
    r = rel.pairable()
    if not r.units:
        return math.nan
    present = r.values[~np.isnan(r.values)]
    domain = np.unique(present)
    if domain.size < 2:
        return math.nan
    if len(r.units) * domain.size ** 2 > PACKAGE_CELLS:
        return coincidence_alpha(r.values, r.level)
    import krippendorff
    return float(krippendorff.alpha(reliability_data=r.values, level_of_measurement=r.level))


def coincidence_alpha(values: np.ndarray, level: Level) -> float:
    """Krippendorff's alpha of a judges x units matrix (NaN = missing) from the coincidence
    matrix (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"):
    o_ck = Σ_u (pairs of values c, k of unit u by different judges) / (m_u - 1),
    n_c = Σ_k o_ck, e_ck = n_c (n_k - [c = k]) / (n - 1), and alpha = 1 - Σ o δ² / Σ e δ²
    with δ² nominal [c != k], interval (c - k)², ordinal (Σ_{g=c..k} n_g - (n_c + n_k)/2)².
    O(judges² x units) time, values² memory."""
    v = np.asarray(values, float)
    present = ~np.isnan(v)
    m = present.sum(axis=0)
    keep = m >= 2
    v, present, m = v[:, keep], present[:, keep], m[keep]
    domain = np.unique(v[present])
    if domain.size < 2:
        return math.nan
    codes = np.searchsorted(domain, np.where(present, v, domain[0]))
    weight = 1.0 / (m - 1)
    o = np.zeros((domain.size, domain.size))
    for i in range(v.shape[0]):
        for j in range(v.shape[0]):
            if i != j:
                both = present[i] & present[j]
                np.add.at(o, (codes[i][both], codes[j][both]), weight[both])
    n_v = o.sum(axis=0)
    n = n_v.sum()
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n - 1)
    if level == "nominal":
        d = 1.0 - np.eye(domain.size)
    elif level == "interval":
        d = (domain[:, None] - domain[None, :]) ** 2
    else:
        cum = np.cumsum(n_v)
        lo = np.minimum.outer(np.arange(domain.size), np.arange(domain.size))
        hi = np.maximum.outer(np.arange(domain.size), np.arange(domain.size))
        between = cum[hi] - np.where(lo > 0, cum[lo - 1], 0.0)
        d = (between - (n_v[:, None] + n_v[None, :]) / 2) ** 2
    expected = float((e * d).sum())
    return 1.0 - float((o * d).sum()) / expected if expected > 0 else math.nan


# ------------------------------------------------------------------ pairs of judges
@dataclass(frozen=True)
class PairAgreement:
    """Two judges on the units both judged: Pearson's r and Kendall's tau_b (nominal:
    Cohen's kappa with the pair's own P(E) instead)."""

    a: str
    b: str
    n: int
    pearson: float = math.nan
    kendall: float = math.nan
    kappa: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "n": self.n, "pearson": _num(self.pearson),
                "kendall": _num(self.kendall), "kappa": _num(self.kappa)}


def _pair(rel: Reliability, ja: int, jb: int) -> PairAgreement:
    x, y = rel.values[ja], rel.values[jb]
    both = ~np.isnan(x) & ~np.isnan(y)
    xs, ys = x[both], y[both]
    a, b = rel.judges[ja], rel.judges[jb]
    n = int(both.sum())
    if rel.level == "nominal":
        kap = human_agreement.cohen_kappa(list(xs), list(ys), chance="cohen") if n else math.nan
        return PairAgreement(a, b, n, kappa=kap)
    if n < 2:
        return PairAgreement(a, b, n)
    return PairAgreement(a, b, n, _finite(pearson(xs, ys)), _finite(kendall_tau_b(xs, ys)))


def pair_agreements(rel: Reliability) -> list[PairAgreement]:
    """:class:`PairAgreement` of every pair of judges with at least one common unit."""
    out = []
    for ja, jb in combinations(range(len(rel.judges)), 2):
        p = _pair(rel, ja, jb)
        if p.n:
            out.append(p)
    return out


def gold_agreements(rel: Reliability, gold: str) -> list[PairAgreement]:
    """Every other judge (``a``) against ``gold`` (``b``), on the units both judged (judges
    without such a unit are left out)."""
    if gold not in rel.judges:
        return []
    g = rel.judges.index(gold)
    return [p for j in range(len(rel.judges)) if j != g and (p := _pair(rel, j, g)).n]


# ------------------------------------------------------------------ per class
@dataclass
class ClassAgreement:
    """Agreement on one kind of judgement (module doc)."""

    name: str
    level: Level
    alpha: float
    units: int
    judgements: int
    judges: tuple[str, ...]
    pairs: list[PairAgreement] = field(default_factory=list)
    kappa: human_agreement.KappaReport | None = None
    gold: list[PairAgreement] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "level": self.level, "alpha": _num(self.alpha),
                             "units": self.units, "judgements": self.judgements,
                             "judges": list(self.judges),
                             "pairs": [p.to_dict() for p in self.pairs]}
        if self.kappa is not None:
            d["cohen"] = _num(self.kappa.inter)
            d["fleiss"] = _num(self.kappa.fleiss)
        if self.gold:
            d["gold"] = [p.to_dict() for p in self.gold]
        return d


def class_agreement(rel: Reliability, kappa: human_agreement.KappaReport | None = None,
                    gold: str | None = None) -> ClassAgreement:
    """Alpha, pairs (and gold comparisons) of one reliability matrix; ``gold`` takes no part
    in alpha and the pairs."""
    others = rel
    if gold is not None and gold in rel.judges:
        keep = [k for k, j in enumerate(rel.judges) if j != gold]
        others = Reliability(rel.name, rel.level, tuple(rel.judges[k] for k in keep),
                             rel.units, rel.values[keep], rel.categories)
    pr = others.pairable()
    return ClassAgreement(rel.name, rel.level, alpha(others), len(pr.units), others.judgements,
                          others.judges, pair_agreements(pr), kappa,
                          gold_agreements(rel, gold) if gold is not None else [])


# ------------------------------------------------------------------ spans
@dataclass(frozen=True)
class MatchCounts:
    """One matching mode of A against B: matched units of A of all of A's, and of B."""

    matched_a: int = 0
    total_a: int = 0
    matched_b: int = 0
    total_b: int = 0

    def __add__(self, o: MatchCounts) -> MatchCounts:
        return MatchCounts(self.matched_a + o.matched_a, self.total_a + o.total_a,
                           self.matched_b + o.matched_b, self.total_b + o.total_b)

    @property
    def precision(self) -> float:
        return self.matched_a / self.total_a if self.total_a else math.nan

    @property
    def recall(self) -> float:
        return self.matched_b / self.total_b if self.total_b else math.nan

    @property
    def f1(self) -> float:
        return f1(self.precision, self.recall)

    def to_dict(self) -> dict[str, Any]:
        return {"precision": _num(self.precision), "recall": _num(self.recall),
                "f1": _num(self.f1), "matched_a": self.matched_a, "total_a": self.total_a,
                "matched_b": self.matched_b, "total_b": self.total_b}


def f1(p: float, r: float) -> float:
    """2PR / (P + R); 0 when both are 0, NaN when either is undefined."""
    if math.isnan(p) or math.isnan(r):
        return math.nan
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def severity_key(e: ErrorSpan) -> str:
    """The severity ``e`` names, for comparison (canonical, else as written in lower case)."""
    return _severity_of(e.severity)


@lru_cache(maxsize=256)
def _severity_of(text: str) -> str:
    try:
        return canonical_severity(text)
    except ScoreError:
        return text.strip().lower()


def _chars(errors: Sequence[ErrorSpan], severity: bool) -> set[tuple[str, int, str]]:
    out: set[tuple[str, int, str]] = set()
    for e in errors:
        if e.start is not None and e.end is not None:
            s = severity_key(e) if severity else ""
            out.update((e.side, i, s) for i in range(e.start, e.end))
    return out


def _span_match(a: ErrorSpan, b: ErrorSpan, how: str, severity: bool) -> bool:
    if severity and severity_key(a) != severity_key(b):
        return False
    if how == "exact":
        return (a.side, a.start, a.end) == (b.side, b.start, b.end)
    return overlaps(a, b)


def span_counts(a: Sequence[ErrorSpan], b: Sequence[ErrorSpan]) -> dict[str, MatchCounts]:
    """Every mode of :data:`SPAN_MODES` for judge A's errors ``a`` against B's ``b`` on one
    candidate (module doc). Unlocated errors are left out."""
    la = [e for e in a if e.located]
    lb = [e for e in b if e.located]
    out: dict[str, MatchCounts] = {}
    for severity in (False, True):
        suffix = "+severity" if severity else ""
        ca, cb = _chars(la, severity), _chars(lb, severity)
        common = len(ca & cb)
        out["characters" + suffix] = MatchCounts(common, len(ca), common, len(cb))
        for how in ("exact", "overlap"):
            ma = sum(1 for x in la if any(_span_match(x, y, how, severity) for y in lb))
            mb = sum(1 for y in lb if any(_span_match(x, y, how, severity) for x in la))
            out[how + suffix] = MatchCounts(ma, len(la), mb, len(lb))
    return {m: out[m] for m in SPAN_MODES}


@dataclass
class SpanPair:
    """Judge ``a`` against judge ``b`` over the ``candidates`` both annotated."""

    a: str
    b: str
    candidates: int
    counts: dict[str, MatchCounts]

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "candidates": self.candidates,
                "scores": {m: c.to_dict() for m, c in self.counts.items()}}


def _annotations(db: Database, protocol: str, exclude: set[str]
                 ) -> list[dict[str, Sequence[ErrorSpan]]]:
    """Per candidate annotated under ``protocol`` by two or more (human) judges: judge ->
    errors; a machine's suggested spans are left out."""
    out = []
    for _, t in db.iter_candidates():
        by: dict[str, Sequence[ErrorSpan]] = {
            judge_name(a.judge): a.errors for a in t.span_annotations
            if is_judgement(a, protocol) and _keep(a.judge, exclude)}
        if len(by) >= 2:
            out.append(by)
    return out


def span_pairs(annotations: Sequence[dict[str, Sequence[ErrorSpan]]],
               pairs: Iterable[tuple[str, str]]) -> list[SpanPair]:
    """:class:`SpanPair` of each ``(a, b)`` of ``pairs`` summed over the candidates both
    annotated (one pass over the candidates); pairs without such a candidate are left
    out."""
    want = list(dict.fromkeys(pairs))
    index = {p: k for k, p in enumerate(want)}
    partners: dict[str, list[str]] = defaultdict(list)
    for a, b in want:
        partners[a].append(b)
    totals = [{m: MatchCounts() for m in SPAN_MODES} for _ in want]
    counts = [0] * len(want)
    for by in annotations:
        for a in by:
            for b in partners.get(a, ()):
                if b in by:
                    k = index[(a, b)]
                    counts[k] += 1
                    tot = totals[k]
                    for m, c in span_counts(by[a], by[b]).items():
                        tot[m] = tot[m] + c
    return [SpanPair(a, b, counts[k], totals[k]) for k, (a, b) in enumerate(want) if counts[k]]


@dataclass
class SpanAgreement:
    """Span agreement under one protocol (``mqm``, ``esa``) of every pair of judges, its
    macro average, and against gold."""

    protocol: str
    candidates: int
    pairs: list[SpanPair]
    gold: list[SpanPair] = field(default_factory=list)

    def average(self, pairs: Sequence[SpanPair] | None = None) -> dict[str, dict[str, float]]:
        """Mean precision, recall and F1 over ``pairs`` (default: all), NaNs left out."""
        use = self.pairs if pairs is None else pairs
        out = {}
        for m in SPAN_MODES:
            row = {}
            for what in ("precision", "recall", "f1"):
                vals = [getattr(p.counts[m], what) for p in use]
                vals = [v for v in vals if not math.isnan(v)]
                row[what] = sum(vals) / len(vals) if vals else math.nan
            out[m] = row
        return out

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "protocol": self.protocol, "candidates": self.candidates, "pairs": [p.to_dict() for p in self.pairs],
            "average": {m: {k: _num(v) for k, v in row.items()}
                        for m, row in self.average().items()}}
        if self.gold:
            d["gold"] = [p.to_dict() for p in self.gold]
            d["gold_average"] = {m: {k: _num(v) for k, v in row.items()}
                                 for m, row in self.average(self.gold).items()}
        return d


def span_agreement(db: Database, protocol: str = MQM, gold: str | None = None, *,
                   exclude: Iterable[str] = (ADJUDICATED,)) -> SpanAgreement | None:
    """:class:`SpanAgreement` of the error-span annotations under ``protocol``; None when no
    candidate has two such annotations. Annotations of different protocols are never
    compared."""
    ex = set(exclude) - ({gold} if gold is not None else set())
    anns = _annotations(db, protocol, ex)
    if not anns:
        return None
    judges = sorted({j for by in anns for j in by} - ({gold} if gold else set()))
    pairs = span_pairs(anns, combinations(judges, 2))
    golds = span_pairs(anns, ((j, gold) for j in judges)) if gold is not None else []
    n = sum(1 for by in anns if len(set(by) - ({gold} if gold else set())) >= 2)
    return SpanAgreement(protocol, n, pairs, golds)


# ------------------------------------------------------------------ the whole report
@dataclass
class CampaignAgreement:
    """Everything :func:`campaign_agreement` measures."""

    judges: tuple[str, ...]
    classes: list[ClassAgreement]
    spans: list[SpanAgreement]
    gold: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"judges": len(self.judges), "judge_names": list(self.judges),
                "gold": self.gold,
                "classes": [c.to_dict() for c in self.classes],
                "spans": [s.to_dict() for s in self.spans]}


def campaign_agreement(db: Database, gold: str | None = None,
                       classes: Sequence[str] | None = None) -> CampaignAgreement:
    """Agreement of every kind of judgement in ``db`` that at least two judges gave
    (``classes``: only these score classes, plus ``mqm-penalty``/``items`` when named).
    ``gold``: a judge to compare every other one with; a ScoreError if it judged nothing."""
    out: list[ClassAgreement] = []
    exclude = {ADJUDICATED} - ({gold} if gold is not None else set())
    not_gold = exclude | ({gold} if gold is not None else set())     # the kappas: annotators
    names = list(db.human_classes) if classes is None else list(classes)
    seen_judges: set[str] = set()
    for cls in names:
        if cls in (MQM_PENALTY, ITEMS) and not db.has_class(cls):
            continue
        rel = class_reliability(db, cls, exclude=exclude)
        seen_judges.update(rel.judges)
        if len(rel.judges) < 2:
            continue
        kappa = (human_agreement.ranking_kappa(db, cls, not_gold) if cls == RANK_CLASS
                 else human_agreement.score_kappa(db, cls, not_gold))
        out.append(class_agreement(rel, kappa, gold))
    extra = [(MQM_PENALTY, mqm_reliability), (ITEMS, items_reliability)]
    for name, build in extra:
        if classes is not None and name not in classes:
            continue
        rel = build(db, exclude=exclude)
        seen_judges.update(rel.judges)
        if len(rel.judges) < 2:
            continue
        kap: human_agreement.KappaReport | None = (
            human_agreement.marks_kappa(db, not_gold) if name == ITEMS else None)
        out.append(class_agreement(rel, kap, gold))
    spans = [s for p in SPAN_PROTOCOLS
             if (s := span_agreement(db, p, gold, exclude=exclude)) is not None]
    seen_judges.update(j for s in spans for p in s.pairs + s.gold for j in (p.a, p.b))
    if gold is not None and gold not in seen_judges:
        raise ScoreError(f"gold judge {gold!r} judged nothing in the database (judges: "
                         f"{', '.join(sorted(seen_judges)) or 'none'})")
    return CampaignAgreement(tuple(sorted(seen_judges)), out, spans, gold)


# ------------------------------------------------------------------ helpers
def _finite(v: float) -> float:
    return float(v) if v is not None and math.isfinite(v) else math.nan


def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)
