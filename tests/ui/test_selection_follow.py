"""The selection lives in the workspace (``workspace.selection``): the tables write it, the
compare view and the tables follow it, whoever moves it."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QTableView

from evaltrans_qt.ui.models import KEY_ROLE
from tests.ui.conftest import open_db


def _candidate(db, si: int) -> int:
    return next(j for j, t in enumerate(db.sources[si].targets) if not db.is_reference(t))


def test_choosing_a_source_row_moves_the_workspace_selection_and_the_compare_view(
        qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    sel = w.workspace.selection
    assert sel.pair == (0, _candidate(db, 0))           # the first source, shown on opening
    src_list = w.findChild(QTableView, "sourceList")
    moves: list = []
    sel.changed.connect(lambda s, t: moves.append((s, t)))
    src_list.selectRow(6)
    ti = _candidate(db, 6)
    assert sel.pair == (6, ti) and moves == [(6, ti)]
    view = w.compare_view
    assert view.source_label.text() == db.sources[6].text
    assert view._hyp == db.sources[6].targets[ti].text
    # another candidate of the same source, chosen in the translations table
    tgt = w.findChild(QTableView, "targetTable")
    other = next(j for j, t in enumerate(db.sources[6].targets)
                 if j != ti and not db.is_reference(t))
    tgt.setCurrentIndex(w.browse.targets.index_of(6, other))
    assert sel.pair == (6, other) and view._hyp == db.sources[6].targets[other].text


def test_the_tables_and_the_compare_view_follow_a_selection_made_elsewhere(
        qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    b = w.browse
    b.source_filter.setText(db.sources[2].text.split()[0] + "-no-such-word")   # hides source 9
    w.workspace.selection.select(9, 1)                    # e.g. a script or another view
    assert b.source_filter.text() == ""                   # the filter hiding it cleared
    assert b.source_list.currentIndex().data(KEY_ROLE) == 9
    assert b.target_table.currentIndex().data(KEY_ROLE) == (9, 1)
    assert w.compare_view._hyp == db.sources[9].targets[1].text
    w.open_in_compare(3, 0)                               # the window's entry point: the same
    assert w.workspace.selection.pair == (3, 0)
    assert w.compare_view.source_label.text() == db.sources[3].text


def test_the_compare_measure_is_the_selections(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    sel = w.workspace.selection
    selector = w.findChild(QComboBox, "measureSelector")
    selector.setCurrentIndex(selector.findData("ter"))
    assert sel.measure == "ter"
    sel.set_measure("per")
    assert w.compare_view.measure == "per" and selector.currentData() == "per"
    act = next(a for a in w.actions() if a.objectName() == "action_measure_wer")
    act.trigger()
    assert sel.measure == "wer" == w.compare_view.measure
    sel.set_measure("no-such-measure")                    # the view cannot draw it: kept at
    assert w.compare_view.measure == "wer" and sel.measure == "wer"   # what it shows


def test_another_database_clears_the_selection(qtbot, main_window, demo_copy, tmp_path):
    import shutil
    w = main_window
    open_db(qtbot, w, demo_copy)
    w.open_in_compare(4, 1)
    copy = tmp_path / "again.etdb.xml"
    shutil.copyfile(demo_copy, copy)
    seen: list = []
    w.workspace.selection.changed.connect(lambda s, t: seen.append((s, t)))
    db = open_db(qtbot, w, copy)
    # cleared, then the browser shows the new database's first source
    assert seen == [(None, None), (0, _candidate(db, 0))]


def test_a_compare_view_follows_its_workspaces_selection_by_itself(qtbot):
    """No window, no browser: the view observes ``workspace.selection`` directly."""
    from evaltrans_qt.io.etdb import demo_database_path, load_database
    from evaltrans_qt.ui.compare_view import CompareView
    from evaltrans_qt.workspace import Workspace
    ws = Workspace()
    db = load_database(demo_database_path())
    ws.set_database(db, None)
    view = CompareView(ws)
    qtbot.addWidget(view)
    assert ws.selection.measure == view.measure           # the view's measure is the selection's
    ws.selection.select(2, 1)
    assert view.source_label.text() == db.sources[2].text
    assert view._hyp == db.sources[2].targets[1].text
    ws.selection.select(2, None)                          # a source without a candidate: empty
    assert view.source_label.text() == "" and view._hyp == ""
    view.set_measure("cder")
    assert ws.selection.measure == "cder"
