"""Relative ranking -> pairwise comparisons -> ratio of wins (Macháček §3.1)."""

from __future__ import annotations

import math

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import (
    add_ranking,
    database_ratio_of_wins,
    pairwise,
    rankings,
    ratio_of_wins,
)
from evaltrans_qt.io.etdb import dumps, loads

# Macháček §3.1: the expanded system annotation of "the huge volume"
SYSTEM_ANNOTATION = {
    "uedin-unconstrained": 2, "commercial1": 5, "commercial2": 2, "CU-TectoMT": 1,
    "onlineB": 2, "onlineA": 2, "cu-funky": 2, "cu-bojar": 2, "uedin-wmt14": 2, "cu-depfix": 2,
}


def test_machacek_example_ratio_of_wins():
    comps = pairwise(SYSTEM_ANNOTATION)
    assert len(comps) == 10 * 9 // 2
    res = ratio_of_wins(comps)
    assert res.stats["CU-TectoMT"].ratio == 1.0
    assert res.stats["commercial1"].ratio == 0.0
    others = [s for s in SYSTEM_ANNOTATION if s not in ("CU-TectoMT", "commercial1")]
    assert len(others) == 8
    for s in others:
        assert res.stats[s].ratio == 0.5
        assert (res.stats[s].wins, res.stats[s].losses, res.stats[s].ties) == (1, 1, 7)
    assert res.ranking()[0] == ("CU-TectoMT", 1.0)
    assert res.ranking()[-1] == ("commercial1", 0.0)


def test_listed_comparisons_orientation():
    comps = {(a, b): c for a, b, c in pairwise(SYSTEM_ANNOTATION)}
    assert comps[("uedin-unconstrained", "commercial1")] == 1      # 'uedin' < 'commercial1' (better)
    assert comps[("uedin-unconstrained", "commercial2")] == 0
    assert comps[("uedin-unconstrained", "CU-TectoMT")] == -1


def _db_with_rankings() -> Database:
    db = Database()
    src = db.add_source("the huge volume")
    db.add_target(src, "das riesige Volumen", "ref", reference=True)
    texts = {}
    for name in SYSTEM_ANNOTATION:
        texts[name] = db.add_target(src, f"translation by {name}", name)
    add_ranking(db, src, [(texts[s], r) for s, r in SYSTEM_ANNOTATION.items()], judge="j1", task="t1")
    return db


def test_rankings_stored_in_database_round_trip_through_etdb():
    db = _db_with_rankings()
    assert db.levels[-1].name == "isReference" and db.has_class("rank")
    db2 = loads(dumps(db))
    rk = rankings(db2)
    assert len(rk) == 1 and rk[0].judge == "j1" and rk[0].task == "t1"
    assert dict(rk[0].ranks) == {s: float(r) for s, r in SYSTEM_ANNOTATION.items()}
    res = database_ratio_of_wins(db2)
    assert res.stats["CU-TectoMT"].ratio == 1.0 and res.stats["onlineA"].ratio == 0.5
    # rank targets are candidates, not references
    assert len(db2.candidates(db2.sources[0])) == 10


def test_ratio_without_decisions_is_nan():
    res = ratio_of_wins([("a", "b", 0)])
    assert math.isnan(res.stats["a"].ratio)


def test_bad_rank_rejected():
    db = _db_with_rankings()
    from evaltrans_qt.errors import ScoreError
    with pytest.raises(ScoreError):
        add_ranking(db, db.sources[0], {1: 0}, judge="j", task="x")
