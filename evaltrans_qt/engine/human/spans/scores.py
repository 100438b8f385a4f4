"""MQM and ESA scores from error-span annotations (module :mod:`.model`).

**MQM** (mt-metrics-eval ``converters/score_mqm.py``; Freitag et al. 2021, section 3.2):
a judge's score of a candidate is minus the sum of the weights
(:mod:`.weights`) of that judge's errors -- 0 for an annotation without errors --
and the candidate's score the mean over the judges who annotated it. Only human annotations
of the protocol ``mqm`` count (an ESA judge's spans do not, nor a machine's suggested
spans, origin ``machine`` in :mod:`.model`). Here the candidate
statistic is the *penalty* ``Σ weights`` (averaged over judges), so that MQM fits the
protocols' error-rate frame (engine/human/protocol_scores.py: ``(penalty, 1)`` per
candidate, system value = mean penalty over the annotated candidates); the MQM score
itself is its negation (:func:`mqm_scores`), which is what correlations use.
Per 1,000 source words (:func:`mqm_per_1000_words`) the system's penalties are summed
and divided by the source words of the annotated candidates.

**ESA** (Kocmi et al. 2024, section 2): spans of severity Minor/Major plus the judge's
0-100 score of the candidate, stored as a score of the continuous class ``esa``
(:func:`ensure_esa_class`); the system score is the mean of the candidates' scores (each
the mean over judges), like every human class (engine/human/resolve.py). The spans of ESA
annotations (protocol ``esa``) are counted per category and severity apart from MQM's
(:func:`summary`'s ``esa_categories``, ``esa_severities``).

**Machine spans** (origin ``machine``: imported xCOMET or GEMBA-MQM output, TER's edits)
are not judgements; :func:`machine_mqm_system_scores` scores each machine judge's spans
with the same weights as a column of its own (``evaltrans human --json``'s
``mqm_machine``), never mixed into ``mqm``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping

from evaltrans_qt.engine.data.database import Database, Levels, Target
from evaltrans_qt.engine.human.spans.model import SpanAnnotation, find_annotation, is_judgement
from evaltrans_qt.engine.human.spans.weights import DEFAULT_WEIGHTS, Weights, parse_weights

Key = tuple[int, str, int]
#: Database attribute (``<database mqm-weights="…">``) holding the weight spec an import
#: was given; MQM scores of that database use it.
WEIGHTS_ATTR = "mqm-weights"
ESA_CLASS = "esa"


def database_weights(db: Database) -> Weights:
    """The weights recorded in ``db`` (:data:`WEIGHTS_ATTR`), else the default."""
    spec = db.extra_attrs.get(WEIGHTS_ATTR)
    return DEFAULT_WEIGHTS if spec is None else parse_weights(spec)


def annotation_by(t: Target, judge: str | None, protocol: str | None = None,
                  origin: str | None = None) -> SpanAnnotation | None:
    """``judge``'s error annotation of candidate ``t`` under ``protocol`` and of ``origin``
    (None: any), if any."""
    return find_annotation(t.span_annotations, judge, protocol, origin)


def judge_penalty(a: SpanAnnotation, weights: Weights) -> float:
    """Σ weights of one judge's errors of one candidate (score_mqm.py's per-rater sum)."""
    return float(sum(weights.weight(e.severity, e.category) for e in a.errors))


def candidate_penalty(t: Target, weights: Weights, judge: str | None = None,
                      all_judges: bool = True) -> float | None:
    """Mean over judges of :func:`judge_penalty` of their human MQM annotations (only
    ``judge`` unless ``all_judges``); None if nobody annotated ``t`` under MQM."""
    anns = [a for a in t.span_annotations
            if is_judgement(a, "mqm") and (all_judges or a.judge == judge)]
    if not anns:
        return None
    return sum(judge_penalty(a, weights) for a in anns) / len(anns)


def mqm_penalties(db: Database, weights: Weights | None = None, judge: str | None = None,
                  all_judges: bool = True) -> dict[Key, float]:
    """Per annotated candidate (keyed as human scores) its MQM penalty (module doc)."""
    w = weights or database_weights(db)
    out: dict[Key, float] = {}
    for key, _src, t in db.keyed_candidates():
        if t.span_annotations:
            p = candidate_penalty(t, w, judge, all_judges)
            if p is not None:
                out[key] = p
    return out


def mqm_scores(db: Database, weights: Weights | None = None) -> dict[Key, float]:
    """Per annotated candidate its MQM score, ``−penalty`` (score_mqm.py's global score)."""
    return {k: -v for k, v in mqm_penalties(db, weights).items()}


def mqm_system_scores(db: Database, weights: Weights | None = None) -> dict[str, float]:
    """Per system the mean MQM score over its annotated candidates."""
    acc: dict[str, list[float]] = defaultdict(list)
    for (_, system, _), v in mqm_scores(db, weights).items():
        acc[system].append(v)
    return {s: sum(v) / len(v) for s, v in acc.items()}


def mqm_per_1000_words(db: Database, weights: Weights | None = None) -> dict[str, float]:
    """Per system ``−1000 · Σ penalties / Σ source words`` over its annotated candidates."""
    pen = mqm_penalties(db, weights)
    num: dict[str, float] = defaultdict(float)
    words: dict[str, int] = defaultdict(int)
    for (i, system, _), v in pen.items():
        num[system] += v
        words[system] += len(db.sources[i].text.split())
    return {s: (-1000.0 * num[s] / words[s]) if words[s] else float("nan") for s in num}


def category_counts(db: Database, judge: str | None = None, all_judges: bool = True,
                    protocol: str = "mqm") -> dict[str, dict[str, int]]:
    """Per system the number of errors of each category (top level and full path, e.g.
    ``Accuracy`` and ``Accuracy/Mistranslation``) in human annotations of ``protocol``,
    summed over judges."""
    out: dict[str, Counter[str]] = {}
    for key, _src, t in db.keyed_candidates():
        for a in t.span_annotations:
            if not is_judgement(a, protocol) or (not all_judges and a.judge != judge):
                continue
            c = out.setdefault(key[1], Counter())
            for e in a.errors:
                parts = e.category.split("/")
                for n in range(1, len(parts) + 1):
                    c["/".join(parts[:n])] += 1
    return {s: dict(sorted(c.items())) for s, c in out.items()}


def severity_counts(db: Database, protocol: str = "mqm") -> dict[str, dict[str, int]]:
    """Per system the number of errors of each severity (as written) in human annotations
    of ``protocol``, over judges."""
    out: dict[str, Counter[str]] = {}
    for key, _src, t in db.keyed_candidates():
        for a in t.span_annotations:
            if not is_judgement(a, protocol):
                continue
            out.setdefault(key[1], Counter()).update(e.severity for e in a.errors)
    return {s: dict(sorted(c.items())) for s, c in out.items()}


def has_spans(db: Database, protocol: str | None = None, origin: str | None = "human"
              ) -> bool:
    """Whether any candidate of ``db`` has an error annotation of ``protocol`` and
    ``origin`` (None: of any; by default a human one, a judgement)."""
    return any((protocol is None or a.protocol == protocol)
               and (origin is None or a.origin == origin)
               for _, t in db.iter_candidates() for a in t.span_annotations)


def machine_mqm_system_scores(db: Database, weights: Weights | None = None
                              ) -> dict[str, dict[str, float]]:
    """Per machine judge (annotations of origin ``machine``, module doc) and system the
    mean over the candidates it marked of ``−Σ weights`` of its spans (score_mqm.py's
    per-rater score, one rater): a measure-like column, never part of ``mqm``."""
    w = weights or database_weights(db)
    acc: dict[str, dict[str, list[float]]] = {}
    for (_, system, _), _src, t in db.keyed_candidates():
        for a in t.span_annotations:
            if a.origin == "machine":
                acc.setdefault(a.judge or "", {}).setdefault(system, []).append(
                    -judge_penalty(a, w))
    return {j: {s: sum(v) / len(v) for s, v in per.items()} for j, per in sorted(acc.items())}


def ensure_esa_class(db: Database) -> Levels:
    """The ESA score class (continuous, 0-100, Kocmi et al. 2024 §2; the ``esa`` template of
    engine/data/schemes.py), declared if new (before the class that decides references)."""
    if db.has_class(ESA_CLASS):
        return db.level(ESA_CLASS)
    from evaltrans_qt.engine.data.schemes import add_template
    return add_template(db, "esa", ESA_CLASS)


def esa_system_scores(db: Database) -> dict[str, float]:
    """Per system the mean over its candidates of the judges' mean ESA score."""
    acc: dict[str, list[float]] = defaultdict(list)
    if not db.has_class(ESA_CLASS):
        return {}
    for (_, system, _), _src, t in db.keyed_candidates():
        v = t.value(ESA_CLASS, include_extrapolated=False)
        if v is not None:
            acc[system].append(v)
    return {s: sum(v) / len(v) for s, v in acc.items()}


def summary(db: Database, weights: Weights | None = None) -> Mapping[str, dict[str, object]]:
    """Per system: ``mqm`` (mean score), ``mqm_per_1000_words``, ``mqm_segments`` and the
    per-category and per-severity counts of the MQM annotations' errors (``categories``,
    ``severities``); ``esa``, ``esa_segments`` (candidates with an ESA annotation) and
    the counts of the ESA annotations' spans (``esa_categories``, ``esa_severities``), all
    from human annotations; ``mqm_machine``: per machine judge the MQM score of its
    suggested spans (:func:`machine_mqm_system_scores`, apart from ``mqm``)
    (``evaltrans human``)."""
    mqm = mqm_system_scores(db, weights)
    per_k = mqm_per_1000_words(db, weights)
    esa = esa_system_scores(db)
    cats, esa_cats = category_counts(db), category_counts(db, protocol="esa")
    sev, esa_sev = severity_counts(db), severity_counts(db, "esa")
    nseg: Counter[str] = Counter(k[1] for k in mqm_penalties(db, weights))
    nesa: Counter[str] = Counter(
        key[1] for key, _src, t in db.keyed_candidates()
        if any(is_judgement(a, "esa") for a in t.span_annotations))
    machine = machine_mqm_system_scores(db, weights)
    out: dict[str, dict[str, object]] = {}
    for s in db.systems():
        out[s] = {"mqm": mqm.get(s), "mqm_per_1000_words": per_k.get(s),
                  "mqm_segments": nseg.get(s, 0), "esa": esa.get(s),
                  "esa_segments": nesa.get(s, 0),
                  "categories": cats.get(s, {}), "severities": sev.get(s, {}),
                  "esa_categories": esa_cats.get(s, {}),
                  "esa_severities": esa_sev.get(s, {}),
                  "mqm_machine": {j: v[s] for j, v in machine.items() if s in v}}
    return out
