"""Source/target table models: counts, filters, sorting with empty values last, 50 000 rows."""

from __future__ import annotations

import math
import random

from PySide6.QtCore import Qt

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.ui.models import (
    KEY_ROLE,
    SORT_ROLE,
    SourceFilterProxy,
    SourceTableModel,
    TargetFilterProxy,
    TargetTableModel,
)


def big_db(n_sources=2500, n_sys=20, seed=1) -> Database:
    rnd = random.Random(seed)
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    for i in range(n_sources):
        src = db.add_source(f"source sentence {i}")
        db.add_target(src, f"reference {i}", "ref-A", reference=True)
        for k in range(n_sys):
            t = db.add_target(src, f"cand {i} {k} {'x' * rnd.randrange(5)}", f"sys{k:02d}")
            if rnd.random() < 0.5:
                t.set_score("fluency", rnd.randrange(1, 6), judge="j")
    return db


def test_empty_database():
    m = SourceTableModel()
    m.set_database(Database())
    assert m.rowCount() == 0
    t = TargetTableModel()
    t.set_database(Database())
    t.show_all()
    assert t.rowCount() == 0


def test_fifty_thousand_targets_sort_and_filter(qtbot):
    db = big_db()
    model = TargetTableModel()
    model.set_database(db)
    model.show_all()
    proxy = TargetFilterProxy()
    proxy.setSourceModel(model)
    n = sum(len(s.targets) for s in db.sources)
    assert n == 52_500 and proxy.rowCount() == n
    col = model.headers.index("fluency")
    proxy.sort(col, Qt.DescendingOrder)
    vals = [proxy.index(r, col).data(SORT_ROLE) for r in range(proxy.rowCount())]
    scored = [v for v in vals if v is not None]
    assert scored == sorted(scored, reverse=True)
    assert all(v is None for v in vals[len(scored):])  # unscored last
    proxy.sort(col, Qt.AscendingOrder)
    vals = [proxy.index(r, col).data(SORT_ROLE) for r in range(proxy.rowCount())]
    scored2 = [v for v in vals if v is not None]
    assert scored2 == sorted(scored2) and all(v is None for v in vals[len(scored2):])
    # keys survive sorting
    si, ti = proxy.index(0, 0).data(KEY_ROLE)
    assert db.sources[si].targets[ti].text == proxy.index(0, 3).data()
    proxy.set_system("sys03")
    assert proxy.rowCount() == 2500
    proxy.set_kind("ref")
    assert proxy.rowCount() == 0
    proxy.set_system(None)
    assert proxy.rowCount() == 2500
    proxy.set_kind(None)
    proxy.set_text("cand 17 3 ")
    assert all("cand 17 3 " in proxy.index(r, 3).data() for r in range(proxy.rowCount()))


def test_source_model_counts_and_filters(qtbot):
    db = big_db(n_sources=50, n_sys=4)
    m = SourceTableModel()
    m.set_database(db)
    p = SourceFilterProxy()
    p.setSourceModel(m)
    counts = []
    p.countsChanged.connect(lambda a, b: counts.append((a, b)))
    r0 = m.row(0)
    assert (r0.refs, r0.cands) == (1, 4)
    assert r0.scored == sum(1 for t in db.sources[0].targets[1:] if t.value("fluency") is not None)
    p.set_text("sentence 1")
    assert p.rowCount() == 11 and counts[-1] == (11, 50)  # 1, 10..19
    p.set_text("")
    p.set_state("complete")
    assert all(m.row(p.mapToSource(p.index(r, 0)).row()).scored == 4 for r in range(p.rowCount()))
    p.set_state("all")
    # scoring updates one row
    t = db.sources[3].targets[2]
    t.set_score("fluency", 3, judge="new")
    before = m.row(m.row_for_source(3)).scored
    m.refresh_source(3)
    assert m.row(m.row_for_source(3)).scored >= before
    p.sort(SourceTableModel.COL_SCORED, Qt.DescendingOrder)
    fr = [m.row(p.mapToSource(p.index(r, 0)).row()) for r in range(p.rowCount())]
    ratios = [x.scored / x.cands for x in fr]
    assert ratios == sorted(ratios, reverse=True)
    assert not any(math.isnan(x) for x in ratios)
