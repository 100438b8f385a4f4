"""The Qt-free selection model (``evaltrans_qt/selection.py``) and its place in the workspace."""

from __future__ import annotations

import pytest

from evaltrans_qt.selection import Selection, SelectionError
from evaltrans_qt.workspace import Workspace


def _record(sel: Selection) -> tuple[list, list]:
    pairs: list = []
    measures: list = []
    sel.changed.connect(lambda s, t: pairs.append((s, t)))
    sel.measure_changed.connect(measures.append)
    return pairs, measures


def test_select_emits_once_per_change():
    sel = Selection()
    pairs, _m = _record(sel)
    assert sel.pair is None
    assert sel.select(3, 1) is True
    assert sel.select(3, 1) is False          # the same: no signal
    assert sel.select(3, 2) is True
    assert sel.select(5) is True              # a source, no candidate yet
    assert (sel.source, sel.target, sel.pair) == (5, None, None)
    assert pairs == [(3, 1), (3, 2), (5, None)]
    assert sel.clear() is True and sel.clear() is False
    assert pairs[-1] == (None, None)


def test_measure_is_kept_apart_from_the_pair():
    sel = Selection()
    pairs, measures = _record(sel)
    assert sel.set_measure("cder") and not sel.set_measure("cder")
    sel.select(1, 0)
    sel.clear()
    assert sel.measure == "cder"              # a view preference: clearing keeps it
    assert measures == ["cder"] and pairs == [(1, 0), (None, None)]


@pytest.mark.parametrize("args, words", [
    ((-1, 0), "must not be negative"),
    ((2, -3), "must not be negative"),
    ((None, 4), "without its source"),
    (("2", 0), "must be an integer"),
    ((True, 0), "must be an integer"),
])
def test_impossible_selections_are_refused_with_a_clear_error(args, words):
    sel = Selection()
    sel.select(1, 1)
    with pytest.raises(SelectionError, match=words):
        sel.select(*args)
    assert sel.pair == (1, 1)                 # unchanged


def test_a_bad_measure_name_is_refused():
    with pytest.raises(SelectionError, match="non-empty string"):
        Selection().set_measure("")


def test_the_workspace_holds_one_selection_and_clears_it_for_another_database():
    from evaltrans_qt.io.etdb import demo_database_path, load_database
    ws = Workspace()
    sel = ws.selection
    db = load_database(demo_database_path())
    ws.set_database(db, None)
    sel.select(2, 1)
    sel.set_measure("wer")
    seen: list = []
    ws.database_changed.connect(lambda: seen.append(ws.selection.pair))
    ws.set_database(db, None)
    assert ws.selection is sel                # the same object: observers stay connected
    assert seen == [None]                     # already cleared when the views reset
    assert sel.measure == "wer"
