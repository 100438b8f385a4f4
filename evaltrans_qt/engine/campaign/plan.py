"""Which candidates to send for human annotation when the budget is smaller than the set.

Two savings, applied in this order (:func:`plan`):

(a) **Reuse of identical translations** (the database method, thesis §5 and §1.2.1;
    Macháček ch. 3, §3.2.1 "exact matching"): a candidate whose identical text, for the
    same source sentence (pooled over sources with the same text, as
    :func:`evaltrans_qt.engine.human.similar.pooled_sources` pools), is already judged is
    not sent -- its judgement is reused (``reused_judged``); among the candidates sent,
    a text several systems produced is sent once and its judgement reused for the others
    (``reused_planned``). Both are reported. Reusing a judgement is what
    :func:`evaltrans_qt.engine.human.similar.reuse_identical` does after annotation.

(b) **Sources that separate the systems** -- the *MetricVar* selection of Zouhar, Cui &
    Sachan 2025, "How to Select Datapoints for Efficient Human Evaluation of NLG
    Models?" (subset2evaluate's ``metric_var``): the sources are taken in decreasing
    order of the *variance across systems of an automatic measure's sentence scores*,
    one of the paper's metric-based selectors (a source on which the systems' outputs
    differ much in quality tells them apart). With several measures, each
    measure's sentence scores are first standardised over all candidates (z-scores, so a
    measure's scale does not decide), the per-source variances are computed per measure
    and averaged. A source's candidates are sent together (every system judged on the
    same sources); sources are added while their new items fit in the budget (a source
    that does not fit is passed over for a smaller one after it).

**How well a subset reproduces the ranking** (:func:`reproduction`; on a database that
already has complete human scores of a class): the systems' ranking by their mean human
score over the sources of a subset is compared with the ranking over all sources that
every system with scores of the class has a score on, by Kendall's tau_b (engine/metaeval/statistics/
coefficients.py) and by *pairwise accuracy* (the share of system pairs, strictly ordered
by the full ranking, that the subset orders the same way: the pairwise accuracy of
Kocmi et al. 2021, "To Ship or Not to Ship"), for the MetricVar subset and for ``n_random`` (default 100)
uniform random subsets with the same number of sources, at 25, 50, 75 and 100 % of the
budget. The MetricVar order used there ignores the existing judgements (it simulates
planning the campaign before they were made).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaltrans_qt.engine.data.database import Database, Target
from evaltrans_qt.engine.human.ranking import RANK_CLASS
from evaltrans_qt.engine.human.scores import split_class
from evaltrans_qt.engine.human.similar import scored_value
from evaltrans_qt.engine.metaeval.statistics.coefficients import kendall_tau_b
from evaltrans_qt.errors import OptionError, ScoreError

Item = tuple[int, int]          # (source index, target index)
#: The measures the plan ranks sources by unless told otherwise (cheap, and of two kinds:
#: a character n-gram F-score and a word error rate).
DEFAULT_MEASURES = ("chrf", "wer")
#: Shares of the budget at which :func:`reproduction` compares subsets.
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
CRITERION = ("MetricVar (Zouhar, Cui & Sachan 2025; subset2evaluate's metric_var): sources "
             "in decreasing variance across systems of the measures' sentence scores "
             "(z-scored per measure, variances averaged over measures)")


# ------------------------------------------------------------------ budget
def parse_budget(text: str | int, total: int) -> int:
    """The number of items a budget names: ``N`` (items) or ``P%`` (of ``total``, rounded
    half up, at least 1 when P > 0). OptionError naming the problem otherwise."""
    s = str(text).strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*%", s)
    if m:
        p = float(m.group(1))
        if not 0 < p <= 100:
            raise OptionError(f"--budget {s}: a percentage must be in (0, 100]")
        return max(1, math.floor(p * total / 100 + 0.5))
    if re.fullmatch(r"\d+", s):
        n = int(s)
        if n < 1:
            raise OptionError(f"--budget {s}: give at least one item")
        return n
    raise OptionError(f"--budget {s!r}: give a number of items (N) or a percentage (P%)")


# ------------------------------------------------------------------ judged and identical
def judged(t: Target, cls: str | None) -> bool:
    """Whether ``t`` has a person-given judgement: a score of ``cls`` (``a+b``: of each
    part; the database method's :func:`~evaltrans_qt.engine.human.similar.scored_value`),
    or with ``cls`` None any score or a judge's error-span annotation (a machine's
    suggested spans are none)."""
    if cls is not None:
        return math.isfinite(scored_value(t, cls))
    return any(not s.extrapolated for s in t.scores) or any(
        a.origin == "human" for a in t.span_annotations)


def check_human(db: Database, cls: str) -> str:
    """``cls`` if every part of it (``a+b``) is a score class of ``db``; ScoreError naming
    it otherwise."""
    for part in split_class(cls):
        if not db.has_class(part):
            raise ScoreError(f"no score class {part!r} in the database "
                             f"(classes: {', '.join(db.human_classes) or 'none'})")
    return cls


def _candidates(db: Database) -> dict[int, list[int]]:
    is_ref = db.reference_test()
    return {si: [ti for ti, t in enumerate(src.targets) if not is_ref(t)]
            for si, src in enumerate(db.sources)}


def _judged_texts(db: Database, cls: str | None, candidates: Mapping[int, list[int]]
                  ) -> dict[tuple[str, str], Item]:
    """(source text, candidate text) -> the first judged candidate with them."""
    out: dict[tuple[str, str], Item] = {}
    for si, tis in candidates.items():
        src = db.sources[si]
        for ti in tis:
            if judged(src.targets[ti], cls):
                out.setdefault((src.text, src.targets[ti].text), (si, ti))
    return out


# ------------------------------------------------------------------ MetricVar
def candidate_scores(db: Database, measures: Sequence[str], options: Any = None,
                     ) -> dict[str, dict[Item, float]]:
    """{measure: {candidate: sentence score}} of every system's candidates, computed by
    the engine's evaluation run (``options``: EvalOptions, default the defaults)."""
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.run.driver import evaluate
    run = evaluate(db, options if options is not None else EvalOptions(), list(measures))
    out: dict[str, dict[Item, float]] = {m: {} for m in run.measures}
    for name, sr in run.systems.items():
        for m in run.measures:
            col = run.sentence_column(name, m)
            for si, ti, v in zip(sr.segments, sr.target_indices, col):
                out[m][(int(si), int(ti))] = float(v)
    return out


def source_variance(scores: Mapping[str, Mapping[Item, float]]) -> dict[int, float]:
    """MetricVar per source (module doc): mean over measures of the variance across the
    source's candidates of the measure's z-scored sentence scores; a source with one
    candidate has variance 0. Non-finite scores are left out."""
    total: dict[int, list[float]] = {}
    for per in scores.values():
        vals = np.array([v for v in per.values() if math.isfinite(v)])
        if vals.size == 0:
            continue
        mu, sd = float(vals.mean()), float(vals.std())
        by_src: dict[int, list[float]] = {}
        for (si, _), v in per.items():
            if math.isfinite(v):
                by_src.setdefault(si, []).append((v - mu) / sd if sd > 0 else 0.0)
        for si, zs in by_src.items():
            total.setdefault(si, []).append(float(np.var(zs)))
    return {si: float(np.mean(v)) for si, v in total.items()}


def source_order(variance: Mapping[int, float], sources: Iterable[int]) -> list[int]:
    """``sources`` by decreasing variance (missing: 0), ties in database order."""
    return sorted(sources, key=lambda si: (-variance.get(si, 0.0), si))


# ------------------------------------------------------------------ the plan
@dataclass(frozen=True)
class Reused:
    """Candidate ``item`` is not sent: it takes the judgement of ``source_item``
    (``judged``: already judged; otherwise: sent in this plan)."""

    item: Item
    source_item: Item
    judged: bool


@dataclass
class Plan:
    """What :func:`plan` suggests (module doc)."""

    budget: int
    candidates: int
    judged: int
    measures: tuple[str, ...]
    human: str | None
    sources: list[int]
    items: list[Item]
    reused: list[Reused]
    variance: dict[int, float]
    reproduction: list[ReproductionRow] = field(default_factory=list)
    reproduction_note: str | None = None

    @property
    def reused_judged(self) -> int:
        return sum(1 for r in self.reused if r.judged)

    @property
    def reused_planned(self) -> int:
        return sum(1 for r in self.reused if not r.judged)

    def to_dict(self, db: Database | None = None) -> dict[str, Any]:
        def where(it: Item) -> dict[str, Any]:
            d: dict[str, Any] = {"source": it[0] + 1, "target": it[1]}
            if db is not None:
                src = db.sources[it[0]]
                d.update(system=src.targets[it[1]].system, doc=src.doc, seg=src.seg)
            return d
        return {
            "criterion": CRITERION, "measures": list(self.measures), "human": self.human,
            "budget": self.budget, "candidates": self.candidates, "judged": self.judged,
            "to_annotate": len(self.items), "reused_judged": self.reused_judged,
            "reused_planned": self.reused_planned,
            "sources": [{"source": si + 1, "variance": _num(self.variance.get(si, 0.0))}
                        for si in self.sources],
            "items": [where(it) for it in self.items],
            "reused": [{**where(r.item), "from": where(r.source_item), "judged": r.judged}
                       for r in self.reused],
            "reproduction": [r.to_dict() for r in self.reproduction],
            "reproduction_note": self.reproduction_note,
        }


def plan(db: Database, budget: str | int, *, measures: Sequence[str] = DEFAULT_MEASURES,
         human: str | None = None, options: Any = None,
         scores: Mapping[str, Mapping[Item, float]] | None = None,
         n_random: int = 100, seed: int = 0) -> Plan:
    """The candidates to annotate within ``budget`` items (module doc), and -- when
    ``human`` (default: the first human class with scores) has complete scores on at
    least two sources -- the :func:`reproduction` report. ``scores``: the measures'
    sentence scores when already computed (:func:`candidate_scores`)."""
    if human is not None:
        check_human(db, human)
    cands = _candidates(db)
    total = sum(len(v) for v in cands.values())
    if total == 0:
        raise ScoreError("the database has no candidate translations to plan for")
    n = parse_budget(budget, total)
    if scores is None:
        scores = candidate_scores(db, measures, options)
    variance = source_variance(scores)
    done = _judged_texts(db, human, cands)
    n_judged = sum(1 for si, tis in cands.items() for ti in tis
                   if judged(db.sources[si].targets[ti], human))
    left = n
    chosen: list[int] = []
    items: list[Item] = []
    reused: list[Reused] = []
    planned: dict[tuple[str, str], Item] = {}
    for si in source_order(variance, (si for si, tis in cands.items() if tis)):
        src = db.sources[si]
        new: list[Item] = []
        reuse: list[Reused] = []
        mine: dict[tuple[str, str], Item] = {}
        for ti in cands[si]:
            t = src.targets[ti]
            if judged(t, human):
                continue
            key = (src.text, t.text)
            if key in done:
                reuse.append(Reused((si, ti), done[key], True))
            elif key in planned or key in mine:
                reuse.append(Reused((si, ti), planned.get(key) or mine[key], False))
            else:
                mine[key] = (si, ti)
                new.append((si, ti))
        if not new and not reuse:
            continue                          # everything here is judged: nothing to plan
        if len(new) > left:
            continue
        left -= len(new)
        chosen.append(si)
        items.extend(new)
        reused.extend(reuse)
        planned.update(mine)
    cls = human if human is not None else _default_class(db)
    rows: list[ReproductionRow] = []
    note = None
    if cls is None:
        note = "no human scores to compare rankings with"
    else:
        try:
            rows = reproduction(db, cls, variance, n, n_random=n_random, seed=seed)
        except ScoreError as exc:
            note = str(exc)
    return Plan(n, total, n_judged, tuple(scores), cls, chosen, items, reused, variance,
                rows, note)


def _default_class(db: Database) -> str | None:
    for c in db.human_classes:
        if c != RANK_CLASS and any(judged(t, c) for _, t in db.iter_candidates()):
            return c
    return None


# ------------------------------------------------------------------ reproduction
@dataclass(frozen=True)
class ReproductionRow:
    """At ``fraction`` of the budget: the MetricVar subset (``sources`` sources) and
    ``n_random`` random subsets of as many sources, against the full ranking."""

    fraction: float
    sources: int
    items: int
    tau: float
    accuracy: float
    random_tau: float
    random_tau_sd: float
    random_accuracy: float
    random_accuracy_sd: float
    random_share_below: float       # share of random subsets with a lower accuracy
    n_random: int

    def to_dict(self) -> dict[str, Any]:
        return {k: _num(v) if isinstance(v, float) else v for k, v in vars(self).items()}


def human_matrix(db: Database, cls: str) -> tuple[list[int], list[str], np.ndarray]:
    """(sources, systems, H) with ``H[i, j]`` the mean human score of ``cls`` (person-given
    scores; ``a+b`` the sum of the parts' means, as the database method sums them) of system
    ``j``'s candidates of source ``sources[i]``: the systems with a score of ``cls``
    anywhere, over the sources on which every one of them has one scored."""
    systems = [s for s in db.systems()
               if any(judged(t, cls) for _, t in db.candidates_by_system(s))]
    col = {s: j for j, s in enumerate(systems)}
    rows: list[int] = []
    data: list[list[float]] = []
    for si, src in enumerate(db.sources):
        acc: list[list[float]] = [[] for _ in systems]
        for t in db.candidates(src):
            v = scored_value(t, cls)
            if math.isfinite(v) and t.system in col:
                acc[col[t.system]].append(v)
        if all(acc):
            rows.append(si)
            data.append([sum(a) / len(a) for a in acc])
    return rows, systems, np.array(data, float).reshape(len(rows), len(systems))


def pairwise_accuracy(subset: np.ndarray, full: np.ndarray) -> float:
    """Share of system pairs strictly ordered by ``full`` that ``subset`` orders the same
    way (a tie in ``subset`` counts as a miss); NaN without such pairs."""
    d_full = np.sign(full[:, None] - full[None, :])
    d_sub = np.sign(subset[:, None] - subset[None, :])
    iu = np.triu_indices(len(full), 1)
    strict = d_full[iu] != 0
    if not strict.any():
        return math.nan
    return float((d_full[iu][strict] == d_sub[iu][strict]).mean())


def _cost(db: Database, si: int) -> int:
    """Items a source costs when planned from scratch: its distinct candidate texts."""
    return len({t.text for t in db.candidates(db.sources[si])})


def reproduction(db: Database, cls: str, variance: Mapping[int, float], budget: int, *,
                 fractions: Sequence[float] = FRACTIONS, n_random: int = 100,
                 seed: int = 0) -> list[ReproductionRow]:
    """The ranking-reproduction report (module doc). ScoreError when fewer than two
    systems or two sources have complete scores of ``cls``."""
    rows_src, systems, h = human_matrix(db, check_human(db, cls))
    if len(systems) < 2 or len(rows_src) < 2:
        raise ScoreError(f"the ranking cannot be compared: {len(rows_src)} sources have "
                         f"scores of {cls!r} for all {len(systems)} systems (need 2 and 2)")
    pos = {si: k for k, si in enumerate(rows_src)}
    order = [pos[si] for si in source_order(variance, rows_src)]
    cost = np.array([_cost(db, rows_src[k]) for k in order])
    full = h.mean(axis=0)
    rng = np.random.default_rng(seed)
    out = []
    for f in fractions:
        cap = f * budget
        k = max(1, int(np.searchsorted(np.cumsum(cost), cap, side="right")))
        k = min(k, len(order))
        sub = h[order[:k]].mean(axis=0)
        taus, accs = [], []
        for _ in range(n_random):
            idx = rng.choice(len(rows_src), size=k, replace=False)
            r = h[idx].mean(axis=0)
            taus.append(_tau(r, full))
            accs.append(pairwise_accuracy(r, full))
        acc = pairwise_accuracy(sub, full)
        ra = np.array(accs, float)
        rt = np.array(taus, float)
        out.append(ReproductionRow(
            float(f), k, int(cost[:k].sum()), _tau(sub, full), acc,
            _nanmean(rt), _nanstd(rt), _nanmean(ra), _nanstd(ra),
            float(np.mean(ra < acc)) if n_random and not math.isnan(acc) else math.nan,
            n_random))
    return out


def _tau(x: np.ndarray, y: np.ndarray) -> float:
    v = kendall_tau_b(x, y)
    return float(v) if math.isfinite(v) else math.nan


def _nanmean(a: np.ndarray) -> float:
    a = a[~np.isnan(a)]
    return float(a.mean()) if a.size else math.nan


def _nanstd(a: np.ndarray) -> float:
    a = a[~np.isnan(a)]
    return float(a.std()) if a.size else math.nan


def _num(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)
