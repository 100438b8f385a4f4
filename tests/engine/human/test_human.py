"""Human score aggregation, (0,1) evaluator normalisation, system scores (thesis 5.5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaltrans_qt.engine.data.database import Database, Levels, Score
from evaltrans_qt.engine.human.resolve import human_scores
from evaltrans_qt.engine.human.scores import judge_statistics
from evaltrans_qt.errors import ScoreError


def _db() -> Database:
    db = Database([Levels("adequacy", 6, firstvalid=1), Levels("fluency", 6, firstvalid=1)])
    db.ensure_reference_class()
    data = [  # (source, system, text, adequacy by A, by B, fluency by A)
        ("s1", "X", "a b c d", 4, 2, 5),
        ("s1", "Y", "a b", 2, None, 1),
        ("s2", "X", "one", 5, 3, None),
        ("s2", "Y", "one two three", None, None, None),
    ]
    for s, sysname, text, a, b, f in data:
        src = db.add_source(s)
        if not db.references(src):
            db.add_target(src, "ref " + s, "ref", reference=True).scores.append(Score("adequacy", 5, "A"))
        t = db.add_target(src, text, sysname)
        if a is not None:
            t.scores.append(Score("adequacy", a, "A"))
        if b is not None:
            t.scores.append(Score("adequacy", b, "B"))
        if f is not None:
            t.scores.append(Score("fluency", f, "A"))
    return db


def test_mean_and_median_over_judges_references_excluded():
    db = _db()
    hs = human_scores(db, "adequacy")
    assert hs.values == {(0, "X", 0): 3.0, (0, "Y", 0): 2.0, (1, "X", 0): 4.0}
    db.sources[0].targets[1].scores.append(Score("adequacy", 5, "C"))
    assert human_scores(db, "adequacy", how="median").values[(0, "X", 0)] == 4.0


def test_normalisation_per_judge():
    db = _db()
    st = judge_statistics(db, "adequacy")
    # reference scores are not candidates' judgements
    assert st["A"] == (pytest.approx(11 / 3), pytest.approx(np.std([4, 2, 5])), 3)
    assert st["B"][0] == pytest.approx(2.5)
    hs = human_scores(db, "adequacy", normalize=True)
    za = (4 - 11 / 3) / np.std([4, 2, 5])
    zb = (2 - 2.5) / 0.5
    assert hs.values[(0, "X", 0)] == pytest.approx((za + zb) / 2)
    # every judge's normalised scores have mean 0 and std 1
    a_vals = [(v - 11 / 3) / np.std([4, 2, 5]) for v in (4, 2, 5)]
    assert np.mean(a_vals) == pytest.approx(0) and np.std(a_vals) == pytest.approx(1)


def test_combined_class_needs_every_part():
    hs = human_scores(_db(), "adequacy+fluency")
    assert hs.values == {(0, "X", 0): 8.0, (0, "Y", 0): 3.0}


def test_system_scores_length_weighted_and_plain():
    hs = human_scores(_db(), "adequacy")
    # X: 3.0 on a 4-word candidate, 4.0 on a 1-word candidate
    assert hs.system_score("X") == pytest.approx((4 * 3 + 1 * 4) / 5)
    assert hs.system_score("X", weighted=False) == pytest.approx(3.5)
    assert hs.system_scores(weighted=False) == {"X": 3.5, "Y": 2.0}
    col = hs.column("Y", [0, 1])
    assert col[0] == 2.0 and math.isnan(col[1])


def test_unknown_class_is_an_error():
    with pytest.raises(ScoreError):
        human_scores(_db(), "fluency+style")


def test_extrapolated_scores_ignored_by_default():
    db = _db()
    db.sources[1].targets[2].scores.append(Score("adequacy", 1, None, extrapolated=True))
    assert (1, "Y") not in human_scores(db, "adequacy").values
    assert human_scores(db, "adequacy", include_extrapolated=True).values[(1, "Y", 0)] == 1.0
