"""Every action has a keyboard shortcut, listed in Help → Keyboard shortcuts; no key is used twice."""

from __future__ import annotations

from collections import Counter

from PySide6.QtWidgets import QDockWidget, QMenu

from evaltrans_qt.ui.shortcuts import ShortcutsDialog, all_actions


def test_every_menu_action_has_a_unique_shortcut(qtbot, main_window):
    w = main_window
    acts = all_actions(w)
    assert len(acts) > 40
    missing = [(p, a.text()) for p, a in acts if not a.shortcuts()]
    assert missing == []
    keys = Counter(k.toString() for _p, a in acts for k in a.shortcuts())
    assert [k for k, n in keys.items() if n > 1] == []


def test_shortcuts_dialog_lists_them(qtbot, main_window):
    w = main_window
    dlg = ShortcutsDialog(w)
    rows = dlg.rows()
    texts = {r[1]: r[2] for r in rows}
    assert texts["Next unscored candidate"] == "U"
    assert texts["Score 3"] == "3"
    assert "Tab" in texts["Next score class"]
    assert len(rows) >= len(all_actions(w))
    dlg.deleteLater()


def test_contract_for_other_panels(qtbot, main_window):
    from PySide6.QtWidgets import QLabel
    w = main_window
    assert isinstance(w.evaluate_menu, QMenu) and w.evaluate_menu.title().replace("&", "") == "Evaluate"
    dock = w.add_panel("Extra panel", QLabel("x"))
    assert isinstance(dock, QDockWidget)
    assert dock.toggleViewAction() in w.view_menu.actions()
    for name in ("sourceList", "targetTable", "compareView", "measureSelector", "scorePanel",
                 "similarPanel", "sessionProgress"):
        assert w.findChild(object, name) is not None, name
