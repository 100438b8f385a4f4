"""The common interface of all automatic measures (shaped like sacreBLEU's metrics).

A measure turns one segment (candidate + references) into a flat vector of
*sufficient statistics* that add up over segments. The system score is
``score(stats.sum(axis=0))``, a sentence score is ``score(stats[i])``, and a
bootstrap sample is ``score(stats[idx].sum(axis=0))`` -- one code path.

Distance measures use ``[distance, reference_length]`` (thesis eq. 4.1 / 5.7:
summed distances over summed reference lengths) plus optional extra columns.

Per-sentence flags (e.g. LJWER "approximated"): a stat column named
``flag:<name>`` holding 0/1. It adds up like any column (its system sum counts
the flagged sentences); ``score()`` should ignore it; the driver
(``engine/run/driver.py``) copies it to ``SystemResult.flags[measure][<name>]``
and the report marks flagged sentences.

``fit()`` is called once per run with one segment per source of the test set
(all its references, ``hyp`` empty), before any statistics are computed; the
fitted measure is then copied (pickled) to worker processes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary


@dataclass(frozen=True)
class Segment:
    """One candidate with its references, tokenised and as raw text.

    ``hyp``/``refs`` are int32 token ids (see :class:`Vocabulary`); ``hyp_text``
    and ``ref_texts`` are the raw strings (chrF works on characters); ``src_text`` the
    source's raw text where known (GLEU, Napoles et al. 2015, needs it).
    """

    hyp: np.ndarray
    refs: tuple[np.ndarray, ...]
    hyp_text: str = ""
    ref_texts: tuple[str, ...] = ()
    #: The source sentence's raw text when the caller has it (GLEU uses it), else None.
    src_text: str | None = None


@dataclass(frozen=True)
class MeasureScore:
    """A measure's result for one sentence or one system, as :meth:`Measure.score` returns
    it to the engine (the run driver, the report, the tables). The public score type, with
    sacreBLEU's units, parts and the signature, is built from it:
    :class:`evaltrans_qt.engine.run.scoring.Score`.

    ``value`` is the headline number in natural units (error rates as
    fractions, BLEU in [0, 1], NIST unbounded). ``columns`` are the named
    scalars shown in tables and correlated with humans (headline first; all
    share the measure's direction). ``details`` mirrors the report XML:
    element name -> float | nested mapping | list of (attributes, mapping).
    """

    measure: str
    value: float
    columns: Mapping[str, float] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)


#: A statistics column named ``flag:<name>`` is a per-sentence 0/1 flag (see module doc).
FLAG_PREFIX = "flag:"


def stat_flags(stat_names: Sequence[str], stats: np.ndarray) -> dict[str, np.ndarray]:
    """``{name: bool per row}`` of the ``flag:<name>`` columns of ``stats`` (rows x
    ``stat_names``); columns missing from ``stats`` are skipped."""
    stats = np.asarray(stats)
    return {col[len(FLAG_PREFIX):]: stats[:, j] != 0 for j, col in enumerate(stat_names)
            if col.startswith(FLAG_PREFIX) and stats.ndim == 2 and stats.shape[1] > j}


class Measure(ABC):
    """Base class of all measures. Subclasses set the class attributes and hooks.

    Register a subclass with :func:`evaltrans_qt.engine.measures.register`.
    """

    #: Registry key and CLI name, e.g. "wer".
    name: ClassVar[str]
    #: Human-readable name, e.g. "Word error rate".
    long_name: ClassVar[str]
    #: Element of the EvalTrans report (Figure A.3), e.g. "wer".
    report_element: ClassVar[str]
    #: False for error measures (negated when correlating).
    higher_is_better: ClassVar[bool] = False
    #: Thesis (or other) source of the definition, for docs and tooltips.
    source: ClassVar[str] = ""
    #: Computed unless the user asks otherwise.
    default_enabled: ClassVar[bool] = True
    #: Other names accepted wherever a measure is named (``--measures``,
    #: ``--leaving-one-out``), lower case, e.g. "m-per" for m-gram PER. ``m`` + the
    #: name (the thesis' "mWER", Table A.1) is accepted for every measure without one.
    aliases: ClassVar[tuple[str, ...]] = ()

    def __init__(self, options: EvalOptions | None = None) -> None:
        self.options = options or EvalOptions()
        self.vocab: Vocabulary | None = None

    @classmethod
    def enabled(cls, options: EvalOptions) -> bool:
        """Whether the options ask for this measure (e.g. INVWER needs allow-transpositions)."""
        return cls.default_enabled

    @property
    @abstractmethod
    def stat_names(self) -> list[str]:
        """Names of the columns of :meth:`sentence_stats`."""

    def fit(self, segments: Sequence[Segment], vocab: Vocabulary) -> None:
        """See the whole test set before scoring (NIST info weights). Default: keep vocab."""
        self.vocab = vocab

    @abstractmethod
    def sentence_stats(self, seg: Segment) -> np.ndarray:
        """Sufficient statistics of one segment (1-D float64)."""

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        """Statistics of many segments, shape (n, len(stat_names)). Override to vectorise."""
        k = len(self.stat_names)
        out = np.zeros((len(segments), k), dtype=np.float64)
        for i, seg in enumerate(segments):
            out[i] = self.sentence_stats(seg)
        return out

    @abstractmethod
    def score(self, stats: np.ndarray) -> MeasureScore:
        """Score from one row (a sentence) or the column sum (a system)."""

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        """The headline value (``score(row).value``) of each row of a 2-D statistics array:
        significance tests score thousands of resampled sums. Override to vectorise."""
        return np.array([self.score(row).value for row in np.atleast_2d(stats)], dtype=float)

    def reference_distances(self, seg: Segment) -> list[float] | None:
        """Absolute distance to each reference (report's ``<reference-distance>``), if defined."""
        return None

    # -- expensive pairs (the driver computes them first, one by one, longest first) ----
    #: :meth:`pair_value` results computed ahead by the driver, keyed by :func:`pair_key`.
    pair_cache: Mapping[tuple[bytes, bytes], Any] | None = None

    def pair_cost(self, hyp_len: int, ref_len: int) -> float:
        """Rough seconds of :meth:`pair_value` for one (candidate, reference) pair.

        0 (the default): cheap, computed in row chunks. Otherwise the driver computes the
        measure's pairs first, as separate tasks ordered by cost, and sets :attr:`pair_cache`;
        the measure reads its pairs through :meth:`cached_pair_value`.
        """
        return 0.0

    def pair_value(self, hyp: np.ndarray, ref: np.ndarray) -> Any:
        """The expensive, picklable part of one pair (measures with a non-zero cost)."""
        raise NotImplementedError(f"{type(self).__name__} has a pair cost but no pair_value")

    @property
    def nearest_only(self) -> bool:
        """True when a segment's statistics need the exact pair values of its nearest
        references only (eq. 4.1): the pair phase then gives a candidate's references to
        :meth:`group_values` together, which may answer "farther than another" for the rest."""
        return False

    def group_values(self, hyp: np.ndarray, refs: Sequence[np.ndarray]) -> list:
        """:meth:`pair_value` of one candidate and each of its references (a measure with
        :attr:`nearest_only` may return a cheaper "farther" value for a non-nearest one).
        Default: every pair on its own."""
        return [self.pair_value(hyp, ref) for ref in refs]

    def group_cost(self, costs: Sequence[float]) -> float:
        """Rough seconds of :meth:`group_values` for references of these :meth:`pair_cost`."""
        return float(sum(costs))

    def cached_pair_value(self, hyp: np.ndarray, ref: np.ndarray) -> Any:
        """:meth:`pair_value`, from :attr:`pair_cache` when the driver computed it."""
        if self.pair_cache:
            value = self.pair_cache.get(pair_key(hyp, ref))
            if value is not None:
                return value
        return self.pair_value(hyp, ref)

    def align(self, seg: Segment):  # -> Alignment | None
        """Alignment of candidate and (best) reference for display, if the measure has one."""
        return None


def error_rates(distance: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """Vectorised ``error_rate_details(...)["error-rate"]``: d / L, and d itself for L = 0."""
    d = np.asarray(distance, dtype=float)
    n = np.asarray(ref_len, dtype=float)
    return np.where(n > 0, d / np.where(n > 0, n, 1.0), d)


def error_rate_details(distance: float, ref_len: float) -> dict[str, float]:
    """The report elements of an error measure (Figure A.3 ``<wer>``).

    The rate is d / L. With an empty reference (L = 0) it is the distance itself -- for
    WER the number of inserted words -- as jiwer 3/4 returns for an empty reference
    (``process_words``: ``wer = num_insertions`` when there are no reference words), so
    an error rate is never ``inf`` or NaN.
    """
    rate = distance / ref_len if ref_len > 0 else float(distance)
    return {"error-rate": rate, "error-rate-percent": 100.0 * rate,
            "reference-length": float(ref_len), "sum": float(distance)}


def pair_key(hyp: np.ndarray, ref: np.ndarray) -> tuple[bytes, bytes]:
    """Key of a (candidate, reference) pair of int32 token ids (equal tokens, equal key)."""
    return (np.asarray(hyp, np.int32).tobytes(), np.asarray(ref, np.int32).tobytes())
