"""Unseen systems in the application: the results view's "Unseen systems" tab on the
bundled SegRanks campaign (resources/segranks_example, segments extracted with the
README's command, then ranked here: sysA's segments best, sysC's mostly worst, as the
README's worked example). Every number shown must equal what engine/human/unseen/matching.py
and levels.py compute from the same file read independently."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from evaltrans_qt.engine.human.ranking import database_rank_scores
from evaltrans_qt.engine.human.segranks.sessions import (
    record_segment_ranking,
    record_sentence_ranking,
)
from evaltrans_qt.engine.human.unseen import matching
from evaltrans_qt.engine.human.unseen.levels import level_agreement
from evaltrans_qt.io.etdb import load_database, save_database
from evaltrans_qt.ui.results_models import RAW_ROLE
from evaltrans_qt.ui.unseen_view import NO_ANNOTATIONS

from .conftest import extract_campaign, open_db
from .test_layout import SCREEN, fully_inside, laptop  # noqa: F401 - the 1366x768 fixture

#: {sentence: {segment: ranks in candidate order}}; candidates (by system) in
#: extraction order: s0/0 (AB, C); s0/1 (A, B, C); s1/0 (AC, B); s2/0 (A, B, C);
#: s3/0 (AC, B); s3/1 (A, B, C); s4/0 (AB, C).
#: These ranks give the README's numbers (ratio of wins sysA 1.00, sysB 0.33, sysC 0.20).
SEGMENT_RANKS = {0: {0: [1, 2], 1: [1, 2, 2]}, 1: {0: [1, 1]}, 2: {0: [1, 2, 3]},
                 3: {0: [1, 2], 1: [1, 3, 2]}, 4: {0: [1, 2]}}


@pytest.fixture
def ranked(tmp_path) -> Path:
    """The extracted campaign with every segment ranked and three whole-sentence rankings."""
    path = extract_campaign(tmp_path)
    db = load_database(path)
    for i, ranks in SEGMENT_RANKS.items():
        record_segment_ranking(db, i, ranks, "anna", seconds=10)
    systems = {t.system: ti for ti, t in enumerate(db.sources[0].targets)
               if not db.is_reference(t)}
    for i, order in ((0, ("sysA", "sysB", "sysC")), (2, ("sysB", "sysA", "sysC")),
                     (3, ("sysA", "sysC", "sysB"))):
        ti = {t.system: k for k, t in enumerate(db.sources[i].targets) if not db.is_reference(t)}
        assert set(ti) == set(systems)
        record_sentence_ranking(db, i, {ti[s]: r + 1 for r, s in enumerate(order)}, "ben")
    save_database(db, path)
    return path


def _frame(model) -> list[dict]:
    """The model's rows as {header: raw value}, through the Qt model API."""
    heads = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())]
    return [{h: model.data(model.index(r, c), RAW_ROLE) for c, h in enumerate(heads)}
            for r in range(model.rowCount())]


def _same(a, b) -> bool:
    if isinstance(b, float) and math.isnan(b):
        return isinstance(a, float) and math.isnan(a)
    return a == pytest.approx(b) if isinstance(b, float) else a == b


def _compute(qtbot, view, system, method):
    view.set_choice(system, method)
    with qtbot.waitSignal(view.analysisReady, timeout=60_000):
        assert view.compute()
    return view.analysis


def _view(qtbot, main_window, path):
    open_db(qtbot, main_window, path)
    rv = main_window.results.results_view
    view = rv.unseen_view
    assert rv.tabs.tabText(rv.tabs.indexOf(view)) == "Unseen systems"
    assert rv.tabs.indexOf(view) == rv.tabs.indexOf(rv.ranking_view) + 1
    return view


@pytest.mark.parametrize("method", ["exact", "closest"])
def test_leave_one_system_out_equals_engine_and_exports(qtbot, main_window, ranked, tmp_path,
                                                        method):
    view = _view(qtbot, main_window, ranked)
    a = _compute(qtbot, view, None, method)
    assert a.error == "" and a.system is None and a.method == method

    ref_db = load_database(ranked)                  # the same file, read independently
    expect = matching.leave_one_system_out(ref_db, method)
    own = {r.system: r.ratio for r in database_rank_scores(ref_db, "segments").rows}
    assert [r.system for r in expect] == ["sysA", "sysB", "sysC"]

    rows = _frame(view.summary_model)
    assert [r["system"] for r in rows] == [r.system for r in expect]
    for row, r in zip(rows, expect):
        ranking = r.scores.ranking()
        place = 1 + [s for s, _v in ranking].index(r.system)
        oc = r.outcome_counts()
        n = sum(oc.values())
        want = {"left out": "yes", "segments": r.segments, "hits": r.hits,
                "hit rate": r.hit_rate, "AED": r.aed,
                "ratio of wins (unseen)": r.scores.stats[r.system].ratio,
                "place (unseen)": place, "ratio of wins (own)": own[r.system],
                "compared": n}
        for o in matching.OUTCOMES:
            want[f"share {o}"] = oc[o] / n if n else math.nan
        for k, v in want.items():
            assert _same(row[k], v), (r.system, k, row[k], v)

    # the README's worked example (left-out sysC)
    c = rows[2]
    assert (c["segments"], c["hits"]) == (7, 2) and c["hit rate"] == pytest.approx(2 / 7)
    if method == "exact":
        assert c["ratio of wins (unseen)"] == pytest.approx(1.0)
        assert math.isnan(c["AED"]) and c["compared"] == 0
    else:
        assert c["ratio of wins (unseen)"] == pytest.approx(0.75)
        assert (c["share better"], c["compared"]) == (1.0, 5)
    assert own == pytest.approx({"sysA": 1.0, "sysB": 1 / 3, "sysC": 0.2})

    # the Table 3.3 sub-table follows the selected row
    view.summary_view.selectRow(2)
    sub = _frame(view.scores_model)
    sysc = expect[2]
    assert [(r["system"], r["wins"], r["losses"], r["ties"]) for r in sub] == [
        (s, sysc.scores.stats[s].wins, sysc.scores.stats[s].losses, sysc.scores.stats[s].ties)
        for s, _v in sysc.scores.ranking()]
    assert next(r for r in sub if r["system"] == "sysC")["unseen"].endswith("evaluated")

    # Table 3.5 / Figure 3.3 by distance and Table 3.6 examples
    dist = _frame(view.distance_model)
    by_d: dict[int, dict[str, int]] = {}
    for r in expect:
        for d, row in r.by_distance().items():
            for o in matching.OUTCOMES:
                by_d.setdefault(d, dict.fromkeys(matching.OUTCOMES, 0))[o] += row[o]
    assert [(r["distance"], r["worse"], r["equal"], r["better"]) for r in dist[:-1]] == [
        (str(d), v["worse"], v["equal"], v["better"]) for d, v in sorted(by_d.items())]
    if method == "closest":
        total = matching.total_outcomes(expect)
        assert dist[-1]["distance"] == "All" and all(dist[-1][o] == total[o] for o in total)
        assert view.bars.has_data and list(view.bars.values) == list(matching.OUTCOMES)
        ex = _frame(view.examples_model)
        want_ex = [e for r in expect for e in r.examples(10)]
        assert len(ex) == len(want_ex) > 0
        assert [(e["system"], e["sentence"], e["unseen segment"], e["D"], e["C"]) for e in ex] \
            == [(e.system, e.source_index + 1, e.unseen, e.distance, e.comparison)
                for e in want_ex]
    else:
        assert dist == [] and not view.bars.has_data and view.examples_model.rowCount() == 0

    # Table 3.2: segment vs sentence tau
    lv = level_agreement(ref_db)
    lrows = _frame(view.levels_model)
    assert len(lrows) == 3 and [r["system"] for r in lrows] == [s for s, _v in lv.table("all")]
    for r in lrows:
        t = next(x for x in lv.rows if x.system == r["system"])
        for k, v in (("tau (a) better", t.tau_better), ("tau (b) worse", t.tau_worse),
                     ("tau (c) all", t.tau_all)):
            assert _same(r[k], v)
    assert f"{lv.concordant} concordant" in view.levels_status.text()

    # export through io/export.py: the CSV holds the table's numbers
    out = view.export_table(tmp_path / f"unseen-{method}.csv", "summary")
    csv = pd.read_csv(out, comment="#")
    assert list(csv["system"]) == ["sysA", "sysB", "sysC"]
    assert csv["hit rate"].tolist() == pytest.approx([r.hit_rate for r in expect])
    assert csv["ratio of wins (unseen)"].tolist() == pytest.approx(
        [r.scores.stats[r.system].ratio for r in expect])
    tex = view.export_table(tmp_path / "t.tex", "scores").read_text(encoding="utf-8")
    assert "\\toprule" in tex and "sysC" in tex

    assert load_database(ranked).sources[0].text == ref_db.sources[0].text   # nothing saved


def test_single_system_and_errors(qtbot, main_window, ranked):
    view = _view(qtbot, main_window, ranked)
    a = _compute(qtbot, view, "sysB", "closest")
    want = matching.evaluate_unseen(load_database(ranked), "sysB", "closest")
    (row,) = _frame(view.summary_model)
    assert (row["system"], row["hits"], row["segments"]) == ("sysB", want.hits, want.segments)
    assert row["AED"] == pytest.approx(want.aed) and a.results[0].projected
    assert "sysB" in view.status.text()


def test_no_annotations_says_so(qtbot, main_window, tmp_path):
    path = extract_campaign(tmp_path)                         # segments extracted, none ranked
    view = _view(qtbot, main_window, path)
    a = _compute(qtbot, view, None, "exact")
    assert a.error == NO_ANNOTATIONS and a.results == []
    assert "no ranked short segments" in view.status.text()
    assert view.summary_model.rowCount() == 0 and not view.bars.has_data
    with pytest.raises(Exception, match="compute it first"):
        view.export_table(tmp_path / "x.csv", "summary")
    assert not (tmp_path / "x.csv").exists()


def test_controls_fit_a_1366x768_window(qtbot, laptop, ranked):
    """The laptop layout rule (1366x768) for this tab: every control inside the window."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox
    w = laptop
    open_db(qtbot, w, ranked)
    for dock in w.panels.values():
        dock.hide()
    w.compare_view.hide()
    w.results.results_dock.show()
    rv = w.results.results_view
    view = rv.unseen_view
    with qtbot.waitSignal(view.analysisReady, timeout=60_000):
        rv.tabs.setCurrentWidget(view)                 # shown: computes by itself
    w.resize(SCREEN.width(), SCREEN.height())
    qtbot.wait(50)
    got = [c for kind in (QAbstractButton, QComboBox) for c in view.findChildren(kind)
           if c.isVisibleTo(view) and c.width() > 0]
    assert {view.compute_button, view.export_button, view.plot_button, view.system_box,
            view.method_box} <= set(got)
    assert [c.objectName() or c.text() for c in got if not fully_inside(w, c)] == []
    assert fully_inside(w, view.warning) and view.summary_model.rowCount() == 3


def test_a_system_without_segments(qtbot, main_window, ranked):
    """A system the extraction never saw: exact matching by the ranked segments occurring
    in its translation (§3.3.2); closest matching refused with the engine's message."""
    db = load_database(ranked)
    for src, t in db.candidates_by_system("sysA"):
        db.add_target(src, t.text, "sysD")                 # sysA's words, no segments
    save_database(db, ranked)
    view = _view(qtbot, main_window, ranked)
    a = _compute(qtbot, view, "sysD", "exact")
    want = matching.evaluate_unseen(load_database(ranked), "sysD", "exact")
    (row,) = _frame(view.summary_model)
    assert (row["left out"], row["hits"], row["segments"]) == ("no", want.hits, want.segments)
    assert want.hits == 7 and not a.results[0].projected
    assert row["ratio of wins (unseen)"] == pytest.approx(want.scores.stats["sysD"].ratio)
    view.set_choice("sysD", "closest")
    with qtbot.waitSignal(view.failed, timeout=60_000) as sig:
        view.compute()
    assert "no candidate segments" in sig.args[0] and "Cannot evaluate" in view.status.text()
    assert view.summary_model.rowCount() == 0 and view.analysis is None
