"""The database browser's tables (FrameModel + ResultsProxy filled by ui/models.py):
counts, filters, sorting with empty values last, 50 000 rows, one row updated in place."""

from __future__ import annotations

import math
import random

from PySide6.QtCore import Qt

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.ui.models import KEY_ROLE, KIND_ROLE, SourceTable, TargetTable
from evaltrans_qt.ui.results_models import RAW_ROLE, FrameModel, ResultsProxy, cell_text


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


def tables() -> tuple[SourceTable, TargetTable]:
    out = []
    for kind in (SourceTable, TargetTable):
        model = FrameModel()
        proxy = ResultsProxy()
        proxy.setSourceModel(model)
        out.append(kind(model, proxy))
    return out[0], out[1]


def raw(proxy, col):
    return [proxy.index(r, col).data(RAW_ROLE) for r in range(proxy.rowCount())]


def test_empty_database():
    sources, targets = tables()
    sources.set_database(Database())
    assert sources.model.rowCount() == 0 and sources.headers == SourceTable.COLUMNS
    targets.set_database(Database())
    targets.show_all()
    assert targets.model.rowCount() == 0
    assert targets.headers == TargetTable.FIXED + ["Judges"]


def test_fifty_thousand_targets_sort_and_filter(qtbot):
    db = big_db()
    _, targets = tables()
    targets.set_database(db)
    targets.show_all()
    proxy = targets.proxy
    n = sum(len(s.targets) for s in db.sources)
    assert n == 52_500 and proxy.rowCount() == n
    col = targets.headers.index("fluency")
    proxy.sort(col, Qt.DescendingOrder)
    vals = raw(proxy, col)
    scored = [v for v in vals if not math.isnan(v)]
    assert scored == sorted(scored, reverse=True)
    assert all(math.isnan(v) for v in vals[len(scored):])  # unscored last
    proxy.sort(col, Qt.AscendingOrder)
    vals = raw(proxy, col)
    scored2 = [v for v in vals if not math.isnan(v)]
    assert scored2 == sorted(scored2) and all(math.isnan(v) for v in vals[len(scored2):])
    # keys survive sorting
    si, ti = proxy.index(0, 0).data(KEY_ROLE)
    assert db.sources[si].targets[ti].text == proxy.index(0, 3).data()
    assert targets.index_of(si, ti).row() == 0
    targets.set_system("sys03")
    assert proxy.rowCount() == 2500
    targets.set_kind("ref")
    assert proxy.rowCount() == 0
    targets.set_system(None)
    assert proxy.rowCount() == 2500 and {proxy.index(r, 0).data(KIND_ROLE) for r in range(10)} == {"ref"}
    targets.set_kind(None)
    targets.set_text("cand 17 3 ")
    assert proxy.rowCount() and all("cand 17 3 " in proxy.index(r, 3).data()
                                    for r in range(proxy.rowCount()))
    targets.set_text("")
    assert proxy.rowCount() == n


def test_source_table_counts_and_filters(qtbot):
    db = big_db(n_sources=50, n_sys=4)
    sources, _ = tables()
    sources.set_database(db)
    p = sources.proxy
    counts = []
    sources.countsChanged.connect(lambda a, b: counts.append((a, b)))
    r0 = sources.row(0)
    assert (r0.refs, r0.cands) == (1, 4)
    assert r0.scored == sum(1 for t in db.sources[0].targets[1:] if t.value("fluency") is not None)
    sources.set_text("sentence 1")
    assert p.rowCount() == 11 and counts[-1] == (11, 50)  # 1, 10..19
    sources.set_text("")
    sources.set_state("complete")
    assert all(sources.row(p.index(r, 0).data(KEY_ROLE)).scored == 4 for r in range(p.rowCount()))
    assert {p.index(r, 0).data(KIND_ROLE) for r in range(p.rowCount())} == {"complete"}
    sources.set_state("all")
    # scoring updates one row
    t = db.sources[3].targets[2]
    t.set_score("fluency", 3, judge="new")
    before = sources.row(3).scored
    sources.refresh_source(3)
    assert sources.row(3).scored >= before
    assert cell_text(sources.index_of(3).siblingAtColumn(SourceTable.COL_SCORED)) == \
        f"{sources.row(3).scored}/4"
    p.sort(SourceTable.COL_SCORED, Qt.DescendingOrder)
    fr = [sources.row(p.index(r, 0).data(KEY_ROLE)) for r in range(p.rowCount())]
    ratios = [x.scored / x.cands for x in fr]
    assert ratios == sorted(ratios, reverse=True)
    assert raw(p, SourceTable.COL_SCORED) == ratios     # the model keeps the ratio, shows "s/c"
    assert [cell_text(p.index(r, SourceTable.COL_SCORED)) for r in range(3)] == \
        [f"{x.scored}/{x.cands}" for x in fr[:3]]


def test_a_score_updates_one_row_in_place(qtbot):
    """A session's score change: one dataChanged for that row of the 50 000-row table, no
    reset or layout change; the model keeps the raw value, and the next sort places it."""
    db = big_db()
    sources, targets = tables()
    sources.set_database(db)
    targets.set_database(db)
    targets.show_all()
    col = targets.headers.index("fluency")
    targets.proxy.sort(col, Qt.AscendingOrder)
    si, ti = 7, 4
    t = db.sources[si].targets[ti]
    for s in list(t.scores):
        t.scores.remove(s)
    targets.refresh_target(si, ti)
    targets.proxy.sort(col, Qt.AscendingOrder)
    at = targets.index_of(si, ti)
    assert math.isnan(at.siblingAtColumn(col).data(RAW_ROLE)) and at.row() > 20_000   # unscored: last
    signals = []
    for name in ("dataChanged", "modelReset", "layoutChanged", "rowsInserted", "rowsRemoved"):
        for m in (targets.model, targets.proxy, sources.model):
            getattr(m, name).connect(lambda *a, name=name, m=m: signals.append((m, name, a)))
    t.set_score("fluency", 0, judge="dora")
    targets.refresh_target(si, ti)
    sources.refresh_source(si)
    changed = [(m, a) for m, name, a in signals if name == "dataChanged"]
    assert [name for _, name, _ in signals if name != "dataChanged"] == []
    k = targets.model.row_of(targets.frame_row(si, ti))
    ((first, last, _roles),) = [a for m, a in changed if m is targets.model]
    assert (first.row(), last.row()) == (k, k)
    assert (first.column(), last.column()) == (0, len(targets.headers) - 1)
    ((first, last, _roles),) = [a for m, a in changed if m is targets.proxy]
    assert first.row() == last.row() == targets.index_of(si, ti).row()
    ((first, last, _roles),) = [a for m, a in changed if m is sources.model]
    assert first.row() == last.row() == sources.model.row_of(si)
    # the row stays where it was (among the unscored), now showing the new score
    assert targets.index_of(si, ti) == at
    assert at.siblingAtColumn(col).data(RAW_ROLE) == 0 and cell_text(at.siblingAtColumn(col)) == "0"
    assert at.siblingAtColumn(len(targets.headers) - 1).data() == "dora"
    targets.proxy.sort(col, Qt.AscendingOrder)
    assert targets.index_of(si, ti).row() == 0          # the lowest score, now that it is sorted
    assert targets.model.frame.iloc[targets.frame_row(si, ti), col] == 0


def test_filtering_keeps_the_current_row(qtbot):
    """Filters are layout changes: the selected source stays selected while it is shown."""
    from PySide6.QtWidgets import QTableView

    from evaltrans_qt.ui.results_models import attach_frame_model
    db = big_db(n_sources=50, n_sys=4)
    view = QTableView()
    qtbot.addWidget(view)
    model, proxy = attach_frame_model(view)
    sources = SourceTable(model, proxy)
    sources.set_database(db)
    view.selectRow(12)
    assert view.currentIndex().data(KEY_ROLE) == 12
    sources.set_text("sentence 1")                      # 1, 10..19: still shown
    assert view.currentIndex().data(KEY_ROLE) == 12
    sources.set_text("sentence 3")                      # filtered out
    assert not view.currentIndex().isValid()
