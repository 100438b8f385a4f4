"""Values of the human-evaluation protocols: SSER, IER, HTER, aWER, SER (Qt-free).

Every protocol is an error rate (lower is better) with statistics
``(numerator, denominator)`` per candidate that add up: the sentence value is
``numerator / denominator`` and the system value ``Σ numerator / Σ denominator`` over
the candidates that have one (survey §4.4; the per-protocol formulas below). The
candidates are keyed as human scores are, ``(source index, system, k)``
(:class:`~evaltrans_qt.engine.human.scores.HumanScores`); references never count.

* **SSER** (survey §4.4.8, Table 4.2): ``SSER = 1 − Σ v / (K · n)`` over the n
  candidates scored in a class on the SSER scale (:func:`sser_classes`: levels 0..K
  with K = 10 and every level valid), v the candidate's score (mean, or median, over
  judges). Per candidate ``(K − v, K)``: 0 = perfect, 1 = nonsense.
* **IER** (survey §4.4.16): ``Σ |items not OK| / Σ |items|``. Per candidate
  ``(items not marked OK, items)``, averaged over the judges who marked it (so a
  candidate marked by two judges weighs as one).
* **HTER** (survey §4.4.17; Snover et al. 2006): TER of the candidate against its
  targeted reference (the judge's post-edit), over the post-edit's length -- per
  candidate ``(TER edits, post-edit length)`` from the engine's TER measure
  (:mod:`~evaltrans_qt.engine.measures.ter`, so ``options`` choose its tokenisation and
  case exactly as for TER), averaged over judges. A post-edit of zero words gives
  TER's convention (1 with edits, 0 without).
* **aWER** (survey §4.4.4): WER against *all* references of the source, including
  those judges added -- the mWER of survey §4.4.2, i.e. the engine's WER with the
  run's ``--wer-ref-length-rule`` (``average``: mWER's average reference length).
  Per candidate ``(distance, reference length)``.
* **SER** (survey §4.4.7): the share of candidates that equal none of their references
  after the run's preprocessing (:mod:`~evaltrans_qt.engine.measures.ser`).
* **MQM** (Freitag et al. 2021, section 3.2; mt-metrics-eval ``score_mqm.py``): per
  annotated candidate ``(penalty, 1)``, the penalty the mean over (human) judges of the
  summed weights of their errors (engine/human/spans/scores.py; a machine's suggested
  spans are no judgement and do not count), so the system value is the mean
  penalty and the MQM score its negation (as :func:`~evaltrans_qt.engine.human.resolve.
  protocol_human_scores` gives it).
* **mqm:<category>** -- per annotated candidate ``(errors of the category, 1)``: the number
  of errors whose category is ``<category>`` or below it (``mqm:Accuracy`` counts
  ``Accuracy/Omission`` too), averaged over judges; a system's value is the mean count per
  annotated segment. Not listed by :func:`protocol_names` (one per category would crowd
  every table); asked for by name (``correlate --human mqm:Accuracy``).

``judge`` restricts IER, HTER and SSER to one judge's work. aWER and SER need at
least one reference; candidates without one are left out (and not counted).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.engine.human.scores import aggregate
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import ScoreError

Key = tuple[int, str, int]
#: Protocol names (SSER is ``sser:<class>``, one per class on the SSER scale).
PROTOCOLS = ("sser", "ier", "hter", "awer", "ser", "mqm")
#: The survey's K: the best level of the SSER scale (Table 4.2).
SSER_K = 10


@dataclass(frozen=True)
class SystemValue:
    """A protocol's value for one system and what it is based on."""

    value: float
    sentences: int
    numerator: float
    denominator: float


@dataclass(frozen=True)
class ProtocolResult:
    """Per-candidate statistics ``(numerator, denominator)`` of one protocol (module doc)."""

    name: str
    stats: Mapping[Key, tuple[float, float]]
    lengths: Mapping[Key, int]

    def sentence(self, key: Key) -> float:
        """The candidate's value, NaN when it has none."""
        st = self.stats.get(key)
        return math.nan if st is None else rate(*st)

    def sentence_values(self) -> dict[Key, float]:
        return {k: rate(*st) for k, st in self.stats.items()}

    def systems(self) -> list[str]:
        return list(dict.fromkeys(k[1] for k in self.stats))

    def system(self, system: str) -> SystemValue:
        rows = [st for k, st in self.stats.items() if k[1] == system]
        num = float(sum(r[0] for r in rows))
        den = float(sum(r[1] for r in rows))
        return SystemValue(rate(num, den) if rows else math.nan, len(rows), num, den)

    def by_system(self) -> dict[str, SystemValue]:
        return {s: self.system(s) for s in self.systems()}


def rate(numerator: float, denominator: float) -> float:
    """numerator / denominator; without a denominator 1 if there are errors, else 0
    (TER's convention for an empty reference, sacreBLEU ``TER._compute_score_from_stats``)."""
    if denominator > 0:
        return numerator / denominator
    return 1.0 if numerator > 0 else 0.0


# ------------------------------------------------------------------ candidates
def _words(text: str) -> int:
    return len(text.split())


# ------------------------------------------------------------------ SSER
def is_sser_scale(lv: Levels) -> bool:
    """A class on the SSER scale: levels 0..K with K = 10, all valid (survey Table 4.2)."""
    return not lv.continuous and lv.count == SSER_K + 1 and lv.firstvalid == 0


def sser_classes(db: Database) -> list[str]:
    """The human classes on the SSER scale (the reference-deciding last class excluded)."""
    last = db.reference_levels
    return [lv.name for lv in db.levels if is_sser_scale(lv) and lv is not last]


def sser(db: Database, cls: str, judge: str | None = None, how: str = "mean") -> ProtocolResult:
    """SSER of class ``cls`` (must be on the SSER scale): per candidate ``(K − v, K)``."""
    lv = db.level(cls)
    if not is_sser_scale(lv):
        raise ScoreError(f"class '{cls}' is not on the SSER scale (levels 0..{SSER_K}, "
                         f"firstvalid 0; add one with the 'sser' template)")
    stats: dict[Key, tuple[float, float]] = {}
    lengths: dict[Key, int] = {}
    for key, _src, t in db.keyed_candidates():
        vals = [s.value for s in t.scores if s.cls == cls and not s.extrapolated
                and (judge is None or s.judge == judge)]
        if vals:
            v = aggregate(vals, how)
            stats[key] = (SSER_K - v, float(SSER_K))
            lengths[key] = _words(t.text)
    return ProtocolResult(f"sser:{cls}", stats, lengths)


# ------------------------------------------------------------------ IER
def ier(db: Database, judge: str | None = None) -> ProtocolResult:
    """IER: per candidate ``(items not OK, items)``, averaged over its judges."""
    stats: dict[Key, tuple[float, float]] = {}
    lengths: dict[Key, int] = {}
    for key, src, t in db.keyed_candidates():
        n = len(src.items)
        marks = [m for m in t.item_marks if (judge is None or m.judge == judge)
                 and len(m.marks) == n]
        if n and marks:
            bad = sum(sum(x != "OK" for x in m.marks) for m in marks) / len(marks)
            stats[key] = (float(bad), float(n))
            lengths[key] = _words(t.text)
    return ProtocolResult("ier", stats, lengths)


# ------------------------------------------------------------------ automatic parts
def _measure_stats(measure: str, hyps: list[str], refs: list[list[str]],
                   options: EvalOptions) -> np.ndarray:
    from evaltrans_qt.engine.run.scoring import Scorer
    if not hyps:
        return np.zeros((0, 2))
    scorer = Scorer(refs, [measure], options, by_segment=True)
    return scorer.stats(hyps)[measure]


def hter(db: Database, options: EvalOptions | None = None, judge: str | None = None
         ) -> ProtocolResult:
    """HTER: TER of each post-edited candidate against its post-edit(s) (module doc)."""
    options = options or EvalOptions()
    owners: list[Key] = []
    hyps: list[str] = []
    refs: list[list[str]] = []
    lengths: dict[Key, int] = {}
    for key, _src, t in db.keyed_candidates():
        for pe in t.postedits:
            if judge is None or pe.judge == judge:
                owners.append(key)
                hyps.append(t.text)
                refs.append([pe.text])
                lengths[key] = _words(t.text)
    st = _measure_stats("ter", hyps, refs, options)
    sums: dict[Key, list[float]] = {}
    for key, row in zip(owners, st):
        acc = sums.setdefault(key, [0.0, 0.0, 0.0])
        acc[0] += float(row[0])
        acc[1] += float(row[1])
        acc[2] += 1
    stats = {k: (e / n, length / n) for k, (e, length, n) in sums.items()}
    return ProtocolResult("hter", stats, lengths)


def hter_of(candidate: str, postedit: str, options: EvalOptions | None = None
            ) -> tuple[float, float, float]:
    """``(TER edits, post-edit length, HTER)`` of one candidate and its post-edit."""
    e, n = (float(x) for x in _measure_stats("ter", [candidate], [[postedit]],
                                             options or EvalOptions())[0])
    return e, n, rate(e, n)


def _with_references(db: Database, measure: str, name: str, options: EvalOptions | None
                     ) -> ProtocolResult:
    options = options or EvalOptions()
    keys: list[Key] = []
    hyps: list[str] = []
    refs: list[list[str]] = []
    lengths: dict[Key, int] = {}
    ref_cache: dict[int, list[str]] = {}
    for key, src, t in db.keyed_candidates():
        rs = ref_cache.get(key[0])
        if rs is None:
            rs = ref_cache[key[0]] = [r.text for r in db.references(src)]
        if rs:
            keys.append(key)
            hyps.append(t.text)
            refs.append(rs)
            lengths[key] = _words(t.text)
    st = _measure_stats(measure, hyps, refs, options)
    stats = {k: (float(r[0]), float(r[1])) for k, r in zip(keys, st)}
    return ProtocolResult(name, stats, lengths)


def awer(db: Database, options: EvalOptions | None = None) -> ProtocolResult:
    """aWER: WER against all references, the judges' added ones included (module doc)."""
    return _with_references(db, "wer", "awer", options)


def ser(db: Database, options: EvalOptions | None = None) -> ProtocolResult:
    """SER: per candidate ``(0 or 1, 1)`` -- 1 unless it equals one of its references."""
    return _with_references(db, "ser", "ser", options)


# ------------------------------------------------------------------ MQM
def mqm(db: Database, judge: str | None = None) -> ProtocolResult:
    """MQM: per annotated candidate ``(penalty, 1)`` with the database's weights (module
    doc); ``judge`` restricts it to that judge's annotations."""
    from evaltrans_qt.engine.human.spans.scores import mqm_penalties
    pen = mqm_penalties(db, judge=judge, all_judges=judge is None)
    texts = {key: t.text for key, _src, t in db.keyed_candidates() if key in pen}
    return ProtocolResult("mqm", {k: (v, 1.0) for k, v in pen.items()},
                          {k: _words(texts[k]) for k in pen})


def mqm_category(db: Database, category: str, judge: str | None = None) -> ProtocolResult:
    """``mqm:<category>``: per candidate with human MQM annotations ``(errors of the
    category, 1)`` (module doc; a machine's suggested spans are no judgement); ScoreError
    if no error of the database has that category."""
    from evaltrans_qt.engine.human.spans.model import is_judgement
    cat = category.strip()
    stats: dict[Key, tuple[float, float]] = {}
    lengths: dict[Key, int] = {}
    seen = False
    for key, _src, t in db.keyed_candidates():
        anns = [a for a in t.span_annotations
                if is_judgement(a, "mqm") and (judge is None or a.judge == judge)]
        if not anns:
            continue
        counts = [sum(1 for e in a.errors if e.category == cat
                      or e.category.startswith(f"{cat}/")) for a in anns]
        seen = seen or any(counts)
        stats[key] = (sum(counts) / len(counts), 1.0)
        lengths[key] = _words(t.text)
    if not seen:
        raise ScoreError(f"no error of category '{cat}' in this database (mqm:<category> "
                         "counts the errors of a category)")
    return ProtocolResult(f"mqm:{cat}", stats, lengths)


# ------------------------------------------------------------------ all at once
def protocol_names(db: Database, *, only_with_data: bool = False) -> list[str]:
    """``sser:<class>`` for each SSER class, then ``ier``, ``hter``, ``awer``, ``ser`` and,
    when a candidate has error spans, ``mqm``;
    with ``only_with_data`` only those the judges' work defines: SSER classes with scores,
    ``ier`` with marks, ``hter`` with post-edits, ``awer`` with added references (SER
    needs no human input and is left out then)."""
    from evaltrans_qt.engine.data.protocols import has_protocol_data
    names = [f"sser:{c}" for c in sser_classes(db)]
    from evaltrans_qt.engine.human.spans.scores import has_spans
    mqm_name = ["mqm"] if has_spans(db, "mqm") else []    # MQM needs error spans to be defined
    if not only_with_data:
        return names + ["ier", "hter", "awer", "ser", *mqm_name]
    have = has_protocol_data(db)
    scored = {s.cls for _, t in db.iter_candidates() for s in t.scores if not s.extrapolated}
    names = [n for n in names if n.split(":", 1)[1] in scored]
    names += [n for n, k in (("ier", "marks"), ("hter", "postedits"), ("awer", "added"))
              if have[k]]
    return names + mqm_name


def protocol_result(db: Database, name: str, options: EvalOptions | None = None,
                    judge: str | None = None, how: str = "mean") -> ProtocolResult:
    """The :class:`ProtocolResult` of ``name`` (``sser:<class>``, ``ier``, ``hter``,
    ``awer``, ``ser``)."""
    if name.startswith("sser:"):
        return sser(db, name.split(":", 1)[1], judge, how)
    if name == "ier":
        return ier(db, judge)
    if name == "hter":
        return hter(db, options, judge)
    if name == "awer":
        return awer(db, options)
    if name == "ser":
        return ser(db, options)
    if name == "mqm":
        return mqm(db, judge)
    if name.startswith("mqm:"):
        return mqm_category(db, name.split(":", 1)[1], judge)
    raise ScoreError(f"unknown protocol '{name}' (use sser:<class>, ier, hter, awer, ser, "
                     "mqm or mqm:<category>)")


def is_protocol(name: str) -> bool:
    """Whether ``name`` names a protocol (rather than a score class)."""
    return name in PROTOCOLS[1:] or name.startswith(("sser:", "mqm:"))


def summary(db: Database, options: EvalOptions | None = None, judge: str | None = None,
            how: str = "mean") -> dict[str, dict[str, SystemValue]]:
    """``{system: {protocol: SystemValue}}`` for every system of ``db`` and every protocol of
    :func:`protocol_names` (NaN with 0 sentences where a system has none)."""
    results = [protocol_result(db, n, options, judge, how) for n in protocol_names(db)]
    out: dict[str, dict[str, SystemValue]] = {}
    for system in db.systems():
        out[system] = {r.name: r.system(system) for r in results}
    return out


def system_values(db: Database, system: str, options: EvalOptions | None = None
                  ) -> dict[str, SystemValue]:
    """Every protocol's value for one system (for the report's ``<human-protocols>``)."""
    return {n: protocol_result(db, n, options).system(system) for n in protocol_names(db)}


def added_references(db: Database) -> int:
    """Number of references judges added (survey §4.4.4)."""
    return sum(1 for _, t in db.iter_targets() if t.added and db.is_reference(t))
