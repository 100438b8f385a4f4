"""What a metric difference means to humans: the probability that human judges order two
systems as a measure does, given the size of the measure's difference.

Kocmi, Zouhar, Federmann & Post (2024), "Navigating the Metrics Maze: Reconciling Score
Magnitudes and Accuracies" (arXiv 2401.06760): over many system pairs with human
judgements, the share of pairs whose order the metric gets right grows with the metric's
difference Delta; they fit ``accuracy(Delta) = a * sigmoid(b * Delta)`` per metric (a in
percent) and publish ``a`` and ``b`` in their ``mt-thresholds`` tool (``mt_thresholds.py``,
``_thresholds``).
Delta is on the paper's 0-100 scale (BLEU and chrF points, neural metrics x 100).

Two sources of a model (:class:`AgreementModel`), always named in the output:

* ``published`` -- Kocmi et al.'s fit for the metrics they fitted (:data:`PUBLISHED`),
  matched by name (case, ``-``/``_`` and a trailing mt-metrics-eval reference suffix
  ``-refA`` ignored): our ``bleu`` and ``chrf`` (sacreBLEU's defaults), and external
  metrics such as ``COMET-22`` or ``BLEURT-20``. Our measures are on 0-1 and are scaled
  by 100; an external metric's scores are taken as 0-100 when some absolute score
  exceeds 1.5, else scaled by 100 (mt-metrics-eval's BLEU files are in points, COMET
  files in 0-1);
* ``fit`` -- the same model fitted on this database's own human scores
  (:func:`fit_model`): every pair of systems whose human system scores differ is one
  observation, agreement 1 when the measure orders it as the humans do, 0 when the
  opposite way, 1/2 for a measure tie; ``a`` (0..1) and ``b`` (> 0) by maximum
  likelihood. Few systems give a rough curve: the number of pairs is reported; when the
  measure orders every pair as the humans do, the likelihood grows without bound towards
  a step (b very large, a = 1) and the optimiser's last point is reported.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: Kocmi et al. 2024's (a in percent, b) per metric, from their mt-thresholds tool.
PUBLISHED: dict[str, tuple[float, float]] = {
    "bleu": (88.33333333333225, 0.9663926931178954),
    "chrf": (92.999999999972, 1.1142732157139852),
    "spbleu200": (90.99999999998793, 0.8079046528617078),
    "bleurtdefault": (94.66666666666666, 0.4947232832741672),
    "bleurt20": (98.33333333332963, 1.3727206190931929),
    "comet20": (97.33333333332897, 0.7266990738678005),
    "comet22": (96.22374133884283, 2.8359194570556636),
    "comet21qe": (93.7997435048193, 43.38413992717536),
    "cometkiwi22": (98.88141616584615, 2.719280643871758),
    "xcometxxl": (98.93432477039522, 1.1629533711748128),
}
SOURCES = ("auto", "published", "fit", "none")
#: Fewest system pairs :func:`fit_model` fits on.
MIN_PAIRS = 3


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def published_key(name: str) -> str | None:
    """The :data:`PUBLISHED` entry of a measure or metric name, or None."""
    k = _key(name)
    if k in PUBLISHED:
        return k
    base, sep, _ref = name.rpartition("-")       # mt-metrics-eval NAME-REF
    if sep and _key(base) in PUBLISHED:
        return _key(base)
    return None


@dataclass(frozen=True)
class AgreementModel:
    """``P(humans agree | Delta) = a * sigmoid(b * scale * |Delta|)`` (Kocmi et al. 2024,
    their mt-thresholds tool); ``source`` says where ``a`` and ``b`` come from."""

    a: float
    b: float
    scale: float
    source: str
    pairs: int = 0

    def probability(self, delta: float | np.ndarray) -> np.ndarray:
        x = self.b * self.scale * np.abs(np.asarray(delta, float))
        return self.a / (1.0 + np.exp(-x))

    def describe(self) -> str:
        what = self.source.partition(":")[2]
        how = (f"fitted on this database's human scores{' ' + repr(what) if what else ''} "
               f"({self.pairs} system pairs)" if self.source.startswith("fit") else
               f"Kocmi et al. 2024's published fit for {what}")
        return (f"P(humans agree) = {self.a:.4f} * sigmoid({self.b:.4g} * "
                f"{self.scale:g} * |difference|), {how}")

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "scale": self.scale, "source": self.source,
                "pairs": self.pairs}


def published_model(name: str, scores: Sequence[float], *, ours: bool) -> AgreementModel | None:
    """Kocmi et al.'s model of ``name`` (None when they did not fit it); ``scores`` are the
    system scores, to tell 0-1 from 0-100 for an external metric (module doc)."""
    key = published_key(name)
    if key is None:
        return None
    a, b = PUBLISHED[key]
    finite = [abs(s) for s in scores if math.isfinite(s)]
    scale = 100.0 if ours or not finite or max(finite) <= 1.5 else 1.0
    return AgreementModel(a / 100.0, b, scale, f"published:{key}")


def pair_observations(metric: Mapping[str, float], human: Mapping[str, float],
                      higher_is_better: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(|metric difference|, agreement) of every pair of systems with both scores whose
    human scores differ: agreement 1, 0, or 1/2 for a metric tie."""
    names = [s for s in metric if s in human and math.isfinite(metric[s])
             and math.isfinite(human[s])]
    sign = 1.0 if higher_is_better else -1.0
    x, y = [], []
    for i, s in enumerate(names):
        for t in names[i + 1:]:
            dh = human[s] - human[t]
            if dh == 0:
                continue
            dm = sign * (metric[s] - metric[t])
            x.append(abs(dm))
            y.append(0.5 if dm == 0 else float((dm > 0) == (dh > 0)))
    return np.asarray(x), np.asarray(y)


def fit_model(delta: np.ndarray, agree: np.ndarray) -> AgreementModel | None:
    """Maximum-likelihood ``a`` in (0, 1) and ``b`` > 0 of ``agree ~ a * sigmoid(b * delta)``
    (Bernoulli likelihood; fractional agreement for ties); None with fewer than
    :data:`MIN_PAIRS` observations or no non-zero difference."""
    from scipy.optimize import minimize
    x = np.asarray(delta, float)
    y = np.asarray(agree, float)
    if x.size < MIN_PAIRS or not np.any(x > 0):
        return None
    unit = float(np.median(x[x > 0]))

    def nll(theta: np.ndarray) -> float:
        a = 1.0 / (1.0 + math.exp(-theta[0]))
        b = math.exp(theta[1]) / unit
        p = np.clip(a / (1.0 + np.exp(-b * x)), 1e-12, 1 - 1e-12)
        return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).sum())

    best = None
    for a0 in (0.0, 2.0, 5.0):                   # a few starts: the surface is flat in a
        r = minimize(nll, np.array([a0, 0.0]), method="Nelder-Mead",
                     options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
        if best is None or r.fun < best.fun:
            best = r
    assert best is not None
    a = 1.0 / (1.0 + math.exp(-best.x[0]))
    return AgreementModel(a, math.exp(best.x[1]) / unit, 1.0, "fit", int(x.size))


def choose_model(name: str, metric: Mapping[str, float], human: Mapping[str, float] | None,
                 *, ours: bool, higher_is_better: bool = True, source: str = "auto",
                 human_name: str = "") -> AgreementModel | None:
    """The model ``source`` asks for: ``published``, ``fit`` (needs ``human``), ``none``, or
    ``auto`` = published when Kocmi et al. fitted the metric, else fitted when human
    scores allow it, else None."""
    if source not in SOURCES:
        raise ValueError(f"unknown agreement source '{source}' (one of {', '.join(SOURCES)})")
    if source == "none":
        return None
    if source in ("auto", "published"):
        model = published_model(name, list(metric.values()), ours=ours)
        if model is not None or source == "published":
            return model
    if not human:
        return None
    model = fit_model(*pair_observations(metric, human, higher_is_better))
    if model is None or not human_name:
        return model
    return AgreementModel(model.a, model.b, model.scale, f"fit:{human_name}", model.pairs)


def agreement_matrix(scores: Sequence[float] | np.ndarray, model: AgreementModel) -> np.ndarray:
    """P[i, j] = probability that humans agree with the measure's order of systems i and j
    (the same both ways; NaN on the diagonal and where a score is missing)."""
    s = np.asarray(scores, float)
    p = model.probability(s[:, None] - s[None, :])
    np.fill_diagonal(p, np.nan)
    p[~np.isfinite(s), :] = np.nan
    p[:, ~np.isfinite(s)] = np.nan
    return p


__all__ = ["PUBLISHED", "SOURCES", "AgreementModel", "published_key", "published_model",
           "pair_observations", "fit_model", "choose_model", "agreement_matrix"]
