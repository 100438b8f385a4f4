"""The one resolver of human-score names: a declared class (``a+b`` sums classes) or a
protocol (``hter``, ``ier``, ``awer``, ``ser``, ``sser:<class>``), read from the database
as per-candidate human scores (thesis §5.5). It sits above :mod:`.scores` (classes) and
:mod:`.protocol_scores` (protocols), which know nothing of each other's names."""

from __future__ import annotations

import math

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.protocol_scores import is_protocol, protocol_result
from evaltrans_qt.engine.human.scores import (
    RANK_CLASS,
    HumanScores,
    normalizer,
    split_class,
    target_value,
    valid_floor,
    word_length,
)
from evaltrans_qt.errors import ScoreError


def check_class(db: Database, name: str) -> None:
    """Raise :class:`ScoreError` unless every part of ``name`` is a declared class, or
    ``name`` is a protocol (``hter``, ``ier``, ``awer``, ``ser``, ``sser:<class>``; see
    :func:`protocol_human_scores`), which cannot be combined with ``+``."""
    if is_protocol(name) and not db.has_class(name):
        if name.startswith("sser:"):
            protocol_result(db, name)          # checks the class and its scale
        return
    for part in split_class(name):
        if is_protocol(part) and not db.has_class(part):
            raise ScoreError(f"protocol '{part}' cannot be combined with other classes ('{name}')")
        if not db.has_class(part):
            known = ", ".join(db.human_classes) or "none"
            raise ScoreError(f"unknown score class '{part}' (database has: {known})")


def human_scores(db: Database, cls: str, how: str = "mean", normalize: bool = False,
                 include_extrapolated: bool = False) -> HumanScores:
    """Collect per-candidate values of ``cls`` (``a+b`` sums the parts) from ``db``.

    References are never included (they are the yardstick, not candidates).
    Candidates without a system id are keyed by ``""``.
    """
    if is_protocol(cls) and not db.has_class(cls):
        return protocol_human_scores(db, cls, how)
    check_class(db, cls)
    parts = split_class(cls)
    norms = {p: normalizer(db, p, include_extrapolated) if normalize else None for p in parts}
    floors = {p: valid_floor(db, p) for p in parts}
    values: dict[tuple[int, str, int], float] = {}
    lengths: dict[tuple[int, str, int], int] = {}
    for key, _src, t in db.keyed_candidates():
        total = 0.0
        for p in parts:
            v = target_value(t, p, how, norms[p], include_extrapolated, floors[p])
            if not math.isfinite(v):
                break
            total += v
        else:
            values[key] = -total if parts == [RANK_CLASS] else total
            lengths[key] = word_length(t.text)
    return HumanScores(cls, values, lengths, normalize, how)


def protocol_human_scores(db: Database, name: str, how: str = "mean", options=None) -> HumanScores:
    """A protocol's sentence values as human scores: ``hter``, ``ier``, ``awer``, ``ser`` or
    ``sser:<class>`` (engine/human/protocol_scores.py), each *negated* so that higher is better,
    as correlations expect of human scores (the ``rank`` class is negated alike).
    ``lengths`` are the candidates' word counts (system level: the length-weighted mean of
    the sentence values, thesis section 5.5, as for every human score). ``options`` (the run's
    :class:`~evaltrans_qt.engine.options.EvalOptions`) choose TER's and WER's preprocessing
    for HTER and aWER."""
    res = protocol_result(db, name, options, how=how)
    values = {k: -v for k, v in res.sentence_values().items()}
    return HumanScores(name, values, dict(res.lengths), False, how)
