"""Ranking imports are linear (engine.human.ranking.RankIndex) and keep their meaning:
importing a judgement CSV or a SegRanks JSON export twice changes nothing, and a bulk
import with the index stores what one add_ranking call per row stores without it.
(The growth itself: ``benchmarks/bench_import_scaling.py``, 10k/20k/40k rows.)"""

from __future__ import annotations

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import RankIndex, add_ranking, rankings
from evaltrans_qt.io.segranks.wmt_csv import read_judgements

SYSTEMS = ["A", "B", "C"]


def _db() -> Database:
    db = Database()
    for i in range(3):
        src = db.add_source(f"s{i}", None, str(i + 1))
        for s in SYSTEMS:
            db.add_target(src, f"{s}{i}", s)
    return db


def _scores(db: Database) -> list[tuple]:
    return [(i, t.system, s.cls, s.value, s.judge, tuple(sorted(s.extra_attrs.items())))
            for i, src in enumerate(db.sources) for t in src.targets for s in t.scores]


def test_bulk_import_with_the_index_equals_one_call_per_ranking():
    plain, indexed, index = _db(), _db(), RankIndex()
    plan = [(k % 3, [(j, (k + j) % 3 + 1) for j in range(3)], f"j{k % 2}", f"t{k % 5}")
            for k in range(40)]                   # tasks repeat: later ones replace earlier
    for db, idx in ((plain, None), (indexed, index)):
        for src, ranks, judge, task in plan:
            add_ranking(db, db.sources[src], dict(ranks), judge, task, index=idx)
    assert _scores(indexed) == _scores(plain)
    assert len(rankings(indexed)) == len({(s, j, t) for s, _, j, t in plan})


def test_a_judgement_csv_imported_twice_changes_nothing(tmp_path):
    f = tmp_path / "r.csv"
    rows = ["srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Id,system1rank,"
            "system2Id,system2rank,system3Id,system3rank"]
    rows += [f"en,de,{k % 3 + 1},,,j{k % 2},A,{k % 3 + 1},B,1,C,{3 - k % 3}" for k in range(30)]
    f.write_text("\n".join(rows) + "\n")
    db = _db()
    assert read_judgements(db, f) == 30
    once = _scores(db)
    read_judgements(db, f)
    assert _scores(db) == once and len(once) == 90
