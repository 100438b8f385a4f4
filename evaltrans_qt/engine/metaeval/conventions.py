"""Which numbers stand for a system at system level: the two conventions.

A system-level correlation pairs, per system, a measure's system score with a human
system score. Two conventions are in use, and they give different correlations on the
same data:

* ``mtme`` -- mt-metrics-eval's (its README, "Specification"; ``data.EvalSet.Scores``
  with level ``sys``): the measure's *own* system score -- an external metric's
  ``*.sys.score`` value when the file gives one, our measures' corpus score over all
  segments of the test set (``subset="all"``) or over the segments the system has human
  scores for (``subset="human"``) -- against the *plain mean* of the human segment
  scores. Systems without any human score are left out (``data.GetCorrelations``).
* ``thesis`` -- the thesis' (section 5.5): both sides on the same sentences, the
  human-scored ones; the measure's system score is recomputed from the sufficient
  statistics of those sentences (an external metric: the mean of its segment scores
  there) and the human score is the length-weighted mean (or the plain mean when
  unweighted). The EvalTrans report uses it.

:data:`DEFAULT_CONVENTION` is the one default of the command line, the API, the
Correlation tab and the Metrics tab. Segment level is the same under both.
"""

from __future__ import annotations

import math

import numpy as np

from evaltrans_qt.errors import OptionError

CONVENTIONS = ("mtme", "thesis")
DEFAULT_CONVENTION = "mtme"
#: ``mtme`` convention: our measures' system score over ``all`` segments or the ``human``-scored ones.
SUBSETS = ("all", "human")
DEFAULT_SUBSET = "all"


def check(convention: str, subset: str = DEFAULT_SUBSET) -> None:
    """:class:`OptionError` unless ``convention`` and ``subset`` are known."""
    if convention not in CONVENTIONS:
        raise OptionError(f"--convention: '{convention}' is not one of {', '.join(CONVENTIONS)}")
    if subset not in SUBSETS:
        raise OptionError(f"--subset: '{subset}' is not one of {', '.join(SUBSETS)}")


def describe(convention: str, subset: str = DEFAULT_SUBSET, weighted: bool = True) -> str:
    """One line saying what a system-level number is under ``convention``."""
    if convention == "thesis":
        return ("system level, thesis convention (section 5.5): measure scores recomputed "
                "from the human-scored sentences, human scores "
                + ("length-weighted means" if weighted else "plain means"))
    where = ("all segments of the test set" if subset == "all"
             else "the segments with human scores")
    return ("system level, mt-metrics-eval convention: each measure's own system score "
            f"(external metrics: their sys scores when given; ours: corpus score over {where}),"
            " human scores plain means; systems without human scores left out")


def label(convention: str, subset: str = DEFAULT_SUBSET, weighted: bool = True) -> str:
    """A short name of the convention for tables, JSON and tab labels."""
    if convention == "thesis":
        return "thesis" + ("" if weighted else " (unweighted)")
    return "mtme" + ("" if subset == "all" else " (human subset)")


def given_system_score(measure, system: str) -> float | None:
    """An external metric's system score from its sys file, or None (not external, or the
    file has no score for ``system``)."""
    metric = getattr(measure, "metric", None)
    systems = getattr(metric, "systems", None)
    if not isinstance(systems, dict) or system not in systems:
        return None
    return float(systems[system])


def measure_system_score(run, system: str, name: str, scored_rows: np.ndarray,
                         convention: str, subset: str = DEFAULT_SUBSET, *,
                         use_given: bool = True) -> float:
    """``name``'s system score of ``system`` as ``convention`` defines it (module doc);
    ``scored_rows`` are the system's rows with a human score. Not negated.
    ``use_given=False``: never an external metric's file score (it covers every segment;
    a filtered meta-evaluation needs the score over its own segments)."""
    meas = run.measure(name)
    sr = run.systems[system]
    if convention == "mtme":
        given = given_system_score(meas, system) if use_given else None
        if given is not None:
            return given
        if subset == "all":
            sc = sr.scores.get(name)
            return float(sc.value) if sc is not None else math.nan
    st = sr.stats.get(name)
    if st is None:
        return math.nan
    rows = np.asarray(st)[np.asarray(scored_rows, np.int64)]
    if not len(rows):
        return math.nan
    return float(meas.score(rows.sum(axis=0)).value)


def resampled_rows(run, system: str, name: str, scored_rows: np.ndarray, convention: str,
                   subset: str = DEFAULT_SUBSET) -> np.ndarray | None:
    """The system's rows whose statistics a bootstrap resamples for ``name`` under
    ``convention``: the human-scored rows, or all rows (``mtme`` with subset ``all``);
    None when the system score is a number read from a file (nothing to resample)."""
    if convention == "mtme":
        if given_system_score(run.measure(name), system) is not None:
            return None
        if subset == "all":
            return np.arange(len(run.systems[system].segments))
    return np.asarray(scored_rows, np.int64)


__all__ = ["CONVENTIONS", "DEFAULT_CONVENTION", "SUBSETS", "DEFAULT_SUBSET", "check", "describe",
           "label", "given_system_score", "measure_system_score", "resampled_rows"]
