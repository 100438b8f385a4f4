"""Agreement between human judges (thesis section 8.1, Macháček §2.2.1).

* Inter-annotator correlation (thesis Table 8.1): Pearson's r over
  all pairs of judgements of the same candidate by *different* judges, each
  pair counted in both orders (so the value does not depend on which judge is
  "first"); with or without (0,1) evaluator normalisation. Intra-annotator:
  the same over repeated judgements of one judge.
* Cohen's kappa = (P(A) - P(E)) / (1 - P(E)) (Macháček §2.2.1). P(E) as there:
  the sum of squared *pooled* relative frequencies of the outcomes over all
  annotations (not per annotator as in Cohen's original; available with
  ``chance="cohen"``). For ranking tasks the outcomes are the pairwise
  comparisons <, =, > of two candidates (Macháček §2.2.1).
* Fleiss' kappa for several judges per item.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import RANK_CLASS, rankings
from evaltrans_qt.engine.human.resolve import check_class
from evaltrans_qt.engine.human.scores import normalizer
from evaltrans_qt.engine.metaeval.statistics.coefficients import pearson


# ------------------------------------------------------------------ kappa
def chance_agreement(labels: Sequence[Hashable], labels_b: Sequence[Hashable] | None = None,
                     chance: str = "pooled") -> float:
    """P(E): ``pooled`` = sum_k p_k^2 over the pooled frequencies (Macháček §2.2.1);
    ``cohen`` = sum_k p_a,k p_b,k (needs both label lists)."""
    if chance == "cohen":
        if labels_b is None:
            raise ValueError("Cohen's P(E) needs both annotators' labels")
        ca, cb = Counter(labels), Counter(labels_b)
        na, nb = len(labels), len(labels_b)
        return sum(ca[k] / na * cb.get(k, 0) / nb for k in ca) if na and nb else math.nan
    pooled = list(labels) + (list(labels_b) if labels_b is not None else [])
    c = Counter(pooled)
    n = len(pooled)
    return sum((v / n) ** 2 for v in c.values()) if n else math.nan


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], *, p_e: float | None = None,
                chance: str = "pooled") -> float:
    """kappa = (P(A) - P(E)) / (1 - P(E)) of two aligned label lists (Macháček §2.2.1).

    ``p_e`` overrides the chance agreement (e.g. pooled over the whole data,
    as Macháček §2.2.1 does); otherwise it is computed from ``a`` and ``b``.
    """
    if len(a) != len(b):
        raise ValueError("label lists differ in length")
    if not a:
        return math.nan
    p_a = sum(x == y for x, y in zip(a, b)) / len(a)
    if p_e is None:
        p_e = chance_agreement(a, b, chance)
    return (p_a - p_e) / (1.0 - p_e) if p_e < 1.0 else math.nan


def fleiss_kappa(table: np.ndarray) -> float:
    """Fleiss' kappa of an items x categories count table (same number of raters per item)."""
    t = np.asarray(table, float)
    t = t[t.sum(axis=1) > 0]
    if t.size == 0:
        return math.nan
    n = t.sum(axis=1)
    if not np.allclose(n, n[0]) or n[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of ratings per item")
    m = n[0]
    p_j = t.sum(axis=0) / t.sum()
    p_i = ((t * t).sum(axis=1) - m) / (m * (m - 1))
    p_bar = p_i.mean()
    p_e = float((p_j ** 2).sum())
    return float((p_bar - p_e) / (1 - p_e)) if p_e < 1 else math.nan


# -------------------------------------------------------- absolute scores
@dataclass
class Judgement:
    item: tuple[int, int]      # (source index, target index)
    judge: str | None
    value: float


def judgements(db: Database, cls: str, normalize: bool = False,
               exclude: Collection[str] = ()) -> list[Judgement]:
    """All non-extrapolated judgements of ``cls`` on candidates (but those of the judges
    in ``exclude``; an anonymous judge is ``""``)."""
    check_class(db, cls)
    norm = normalizer(db, cls) if normalize else None
    out = []
    for i, src in enumerate(db.sources):
        for ti, t in enumerate(src.targets):
            if db.is_reference(t):
                continue
            for s in t.scores:
                if s.cls == cls and not s.extrapolated and (s.judge or "") not in exclude:
                    out.append(Judgement((i, ti), s.judge, norm(s) if norm else s.value))
    return out


@dataclass
class AnnotatorCorrelation:
    """Inter/intra-annotator Pearson r (T Table 8.1) and r per pair of judges."""

    cls: str
    normalized: bool
    inter: float
    inter_pairs: int
    intra: float
    intra_pairs: int
    by_pair: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        def c(v):
            return None if not math.isfinite(v) else v
        return {"class": self.cls, "normalized": self.normalized, "inter": c(self.inter),
                "inter_pairs": self.inter_pairs, "intra": c(self.intra),
                "intra_pairs": self.intra_pairs,
                "by_pair": [{"judges": list(k), "r": c(r), "n": n}
                            for k, (r, n) in self.by_pair.items()]}


def _symmetric_r(pairs: list[tuple[float, float]]) -> float:
    if len(pairs) < 2:
        return math.nan
    x = [a for a, b in pairs] + [b for a, b in pairs]
    y = [b for a, b in pairs] + [a for a, b in pairs]
    return pearson(x, y)


def annotator_correlation(db: Database, cls: str, normalize: bool = False) -> AnnotatorCorrelation:
    """Inter- and intra-annotator Pearson r of class ``cls`` (thesis section 8.1, Table 8.1)."""
    by_item: dict[tuple[int, int], list[Judgement]] = defaultdict(list)
    for j in judgements(db, cls, normalize):
        by_item[j.item].append(j)
    inter: list[tuple[float, float]] = []
    intra: list[tuple[float, float]] = []
    per_pair: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for js in by_item.values():
        for a, b in combinations(js, 2):
            if a.judge == b.judge:
                intra.append((a.value, b.value))
            else:
                inter.append((a.value, b.value))
                ka, kb = str(a.judge or ""), str(b.judge or "")
                if ka > kb:
                    ka, kb, va, vb = kb, ka, b.value, a.value
                else:
                    va, vb = a.value, b.value
                per_pair[(ka, kb)].append((va, vb))
    by_pair = {k: (pearson([a for a, _ in v], [b for _, b in v]) if len(v) > 1 else math.nan,
                   len(v)) for k, v in sorted(per_pair.items())}
    return AnnotatorCorrelation(cls, normalize, _symmetric_r(inter), len(inter),
                                _symmetric_r(intra), len(intra), by_pair)


# ------------------------------------------------------------- kappas
@dataclass
class KappaReport:
    """Cohen's kappa overall (inter, intra) and per judge, with P(E)."""

    cls: str
    p_e: float
    inter: float
    inter_n: int
    intra: float
    intra_n: int
    per_judge: dict[str, dict[str, float]] = field(default_factory=dict)
    fleiss: float = math.nan

    def to_dict(self) -> dict:
        def c(v):
            return None if isinstance(v, float) and not math.isfinite(v) else v
        return {"class": self.cls, "p_e": c(self.p_e), "inter": c(self.inter),
                "inter_n": self.inter_n, "intra": c(self.intra), "intra_n": self.intra_n,
                "fleiss": c(self.fleiss),
                "per_judge": {j: {k: c(v) for k, v in d.items()} for j, d in self.per_judge.items()}}


def _kappa_report(cls: str, all_labels: list,
                  pairs: Sequence[tuple[str | None, str | None, object, object]],
                  fleiss: float = math.nan) -> KappaReport:
    """pairs: (judge a, judge b, label a, label b) of doubly annotated units."""
    p_e = chance_agreement(all_labels)

    def kappa(sel):
        if not sel:
            return math.nan, 0
        return cohen_kappa([p[2] for p in sel], [p[3] for p in sel], p_e=p_e), len(sel)

    inter = [p for p in pairs if p[0] != p[1]]
    intra = [p for p in pairs if p[0] == p[1]]
    ki, ni = kappa(inter)
    ka, na = kappa(intra)
    judges = sorted({str(p[0] or "") for p in pairs} | {str(p[1] or "") for p in pairs})
    per = {}
    for j in judges:
        ji, nji = kappa([p for p in inter if j in (str(p[0] or ""), str(p[1] or ""))])
        ja, nja = kappa([p for p in intra if str(p[0] or "") == j])
        per[j] = {"inter": ji, "inter_n": nji, "intra": ja, "intra_n": nja}
    return KappaReport(cls, p_e, ki, ni, ka, na, per, fleiss)


def score_kappa(db: Database, cls: str, exclude: Collection[str] = ()) -> KappaReport:
    """Cohen's kappa on absolute scores: two judgements of the same candidate agree
    when their values are equal. P(E) pooled over every judgement of ``cls``.
    Fleiss' kappa over candidates with the most common number of judgements.
    ``exclude``: judges left out."""
    js = judgements(db, cls, exclude=exclude)
    by_item: dict[tuple[int, int], list[Judgement]] = defaultdict(list)
    for j in js:
        by_item[j.item].append(j)
    pairs = []
    for items in by_item.values():
        for a, b in combinations(items, 2):
            pairs.append((a.judge, b.judge, a.value, b.value))
    fleiss = modal_fleiss([j.value for j in v] for v in by_item.values())
    return _kappa_report(cls, [j.value for j in js], pairs, fleiss)


def modal_fleiss(units: Iterable[Sequence[Hashable]]) -> float:
    """Fleiss' kappa over the units (each the labels its judges gave) with the most common
    number (>= 2) of labels; NaN without such units."""
    groups = [list(v) for v in units if len(v) >= 2]
    sizes = Counter(len(v) for v in groups)
    if not sizes:
        return math.nan
    m = sizes.most_common(1)[0][0]
    rows = [v for v in groups if len(v) == m]
    idx = {c: k for k, c in enumerate(dict.fromkeys(x for v in rows for x in v))}
    table = np.zeros((len(rows), len(idx)))
    for r, v in enumerate(rows):
        for x in v:
            table[r, idx[x]] += 1
    return fleiss_kappa(table)


def ranking_kappa(db: Database, cls: str = RANK_CLASS, exclude: Collection[str] = ()
                  ) -> KappaReport:
    """Cohen's kappa of ranking tasks on pairwise comparisons (Macháček §2.2.1).

    Two annotations (tasks) of the same source are compared on every pair of
    systems both ranked; labels are <, =, >. Same judge = intra-annotator,
    different judges = inter-annotator. P(E) = P(<)^2 + P(=)^2 + P(>)^2 from
    all comparisons of all tasks (Macháček §2.2.1). ``exclude``: judges left out.
    """
    rks = [r for r in rankings(db, cls) if (r.judge or "") not in exclude]
    all_labels = []
    for r in rks:
        names = sorted(r.ranks)
        for a, b in combinations(names, 2):
            all_labels.append(_rel(r.ranks[a], r.ranks[b]))
    by_src: dict[int, list] = defaultdict(list)
    for r in rks:
        by_src[r.source].append(r)
    pairs = []
    for rs in by_src.values():
        for r1, r2 in combinations(rs, 2):
            common = sorted(set(r1.ranks) & set(r2.ranks))
            for a, b in combinations(common, 2):
                pairs.append((r1.judge, r2.judge, _rel(r1.ranks[a], r1.ranks[b]),
                              _rel(r2.ranks[a], r2.ranks[b])))
    return _kappa_report(cls, all_labels, pairs)


def marks_kappa(db: Database, exclude: Collection[str] = ()) -> KappaReport:
    """Cohen's and Fleiss' kappa of information-item marks (EuroMatrix survey §4.4.16):
    the unit is one item of one candidate, the label its mark (OK, error, syntax, meaning,
    other); two judges' marks of the same item are a pair. P(E) pooled over every mark
    (Macháček §2.2.1); Fleiss over the items with the most common number of marks."""
    by_unit: dict[tuple[int, int, int], list[tuple[str | None, str]]] = defaultdict(list)
    for i, src in enumerate(db.sources):
        for ti, t in enumerate(src.targets):
            for m in t.item_marks:
                if (m.judge or "") not in exclude:
                    for k, mark in enumerate(m.marks):
                        by_unit[(i, ti, k)].append((m.judge, mark))
    pairs = [(a[0], b[0], a[1], b[1]) for v in by_unit.values() for a, b in combinations(v, 2)]
    labels = [mark for v in by_unit.values() for _, mark in v]
    fleiss = modal_fleiss([mark for _, mark in v] for v in by_unit.values())
    return _kappa_report("items", labels, pairs, fleiss)


def _rel(ra: float, rb: float) -> str:
    return "<" if ra < rb else (">" if ra > rb else "=")


# ------------------------------------------------------------- SegRanks
def segment_kappa(db: Database) -> KappaReport:
    """Cohen's kappa of SegRanks annotations on pairwise comparisons of *candidate
    segments* (Macháček §2.2.1): two rankings of the same sentence are compared on every
    segment both ranked and every pair of its candidates (labels <, =, >); same judge =
    intra-, different judges = inter-annotator. P(E) = P(A>B)^2 + P(A=B)^2 + P(A<B)^2
    with the frequencies of all comparisons of all annotations, regardless of sentence
    or annotator (Macháček §2.2.1)."""
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    all_labels: list[str] = []
    pairs = []
    for src in db.sources:
        data = sentence_segments(src)
        if data is None:
            continue
        for rk in data.rankings:
            for ranks in rk.ranks.values():
                all_labels.extend(_rel(ranks[a], ranks[b])
                                  for a, b in combinations(range(len(ranks)), 2))
        for r1, r2 in combinations(data.rankings, 2):
            for k in sorted(set(r1.ranks) & set(r2.ranks)):
                x, y = r1.ranks[k], r2.ranks[k]
                for a, b in combinations(range(len(x)), 2):
                    pairs.append((r1.judge, r2.judge, _rel(x[a], x[b]), _rel(y[a], y[b])))
    return _kappa_report("segranks", all_labels, pairs)


@dataclass(frozen=True)
class AnnotatorStats:
    """One row of Macháček Table 2.3: screens (n_sent), source segments ranked (n_seg; the
    candidates of a whole-sentence screen count as one segment), seconds spent (t, only
    screens that recorded it), t / n_seg, and kappa intra / inter (NaN when the judge has
    no doubly annotated sentence)."""

    judge: str
    sentences: int
    segments: int
    seconds: float
    kappa_intra: float
    kappa_inter: float

    @property
    def seconds_per_segment(self) -> float:
        return self.seconds / self.segments if self.segments else math.nan


def annotator_statistics(db: Database, level: str = "segments",
                         cls: str = RANK_CLASS) -> list[AnnotatorStats]:
    """Macháček Table 2.3 for SegRanks (``segments``) or whole-sentence (``sentences``)
    rankings: one row per judge (anonymous judges as ``""``), then a ``Total`` row with
    the overall kappas."""
    per: dict[str, list[float]] = {}
    if level == "segments":
        from evaltrans_qt.engine.human.segranks.model import sentence_segments
        kap = segment_kappa(db)
        for src in db.sources:
            data = sentence_segments(src)
            for rk in (data.rankings if data is not None else ()):
                row = per.setdefault(rk.judge or "", [0, 0, 0.0])
                row[0] += 1
                row[1] += len(rk.ranks)
                row[2] += rk.seconds or 0.0
    elif level == "sentences":
        from evaltrans_qt.engine.human.ranking import SECONDS_ATTR, TASK_ATTR
        kap = ranking_kappa(db, cls)
        seen: dict[tuple, float] = {}
        for i, src in enumerate(db.sources):
            for t in src.targets:
                for s in t.scores:
                    if s.cls == cls and not s.extrapolated:
                        key = (i, s.judge, s.extra_attrs.get(TASK_ATTR, ""))
                        sec_text = s.extra_attrs.get(SECONDS_ATTR)
                        try:
                            v = float(sec_text) if sec_text is not None else 0.0
                        except ValueError:
                            v = 0.0
                        seen[key] = max(seen.get(key, 0.0), v if math.isfinite(v) else 0.0)
        for (_, judge, _), sec in seen.items():
            row = per.setdefault(judge or "", [0, 0, 0.0])
            row[0] += 1
            row[1] += 1
            row[2] += sec
    else:
        raise ValueError(f"level must be 'segments' or 'sentences', not {level!r}")
    out = []
    for j in sorted(per):
        n_sent, n_seg, sec = per[j]
        k = kap.per_judge.get(j, {})
        out.append(AnnotatorStats(j, int(n_sent), int(n_seg), float(sec),
                                  k.get("intra", math.nan), k.get("inter", math.nan)))
    out.append(AnnotatorStats("Total", sum(r.sentences for r in out),
                              sum(r.segments for r in out), sum(r.seconds for r in out),
                              kap.intra, kap.inter))
    return out


def annotator_frame(rows: list[AnnotatorStats]):
    """Table 2.3 as a pandas DataFrame (for io/export.py ``write_table``)."""
    import pandas as pd
    return pd.DataFrame([{"judge": r.judge, "n_sent": r.sentences, "n_seg": r.segments,
                          "seconds": r.seconds, "seconds_per_segment": r.seconds_per_segment,
                          "kappa_intra": r.kappa_intra, "kappa_inter": r.kappa_inter}
                         for r in rows],
                        columns=["judge", "n_sent", "n_seg", "seconds", "seconds_per_segment",
                                 "kappa_intra", "kappa_inter"])
