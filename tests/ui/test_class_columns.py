"""The translations table follows score classes added outside a session (e.g. the first
ranking screen adds the ``rank`` class) without a reload."""

from __future__ import annotations

from evaltrans_qt.engine.human.ranking import ensure_rank_class
from tests.ui.conftest import open_db


def test_new_class_appears_in_the_translations_table(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    w.browse.source_list.selectRow(2)
    model = w.browse.targets
    shown = model.source_index
    rows = w.browse.target_model.rowCount()
    assert shown is not None and "rank" not in model.headers
    ensure_rank_class(w.database)
    w.workspace.modified(affects_results=False)
    assert "rank" in model.headers
    assert model.source_index == shown and w.browse.target_model.rowCount() == rows
    # the translation column still stretches last, human columns right after the system
    assert model.headers.index("rank") < model.headers.index("Judges")
