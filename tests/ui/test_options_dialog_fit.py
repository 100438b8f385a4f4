"""The evaluation options dialog fits a 1366x768 screen with a window manager's
decorations and shows exactly what a run computes; measures a run leaves out are said,
beside the measure and on the results view's own line, never overwritten by progress."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QDialogButtonBox

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import default_measures
from evaltrans_qt.ui.options_dialog import DECORATION, OptionsDialog, fit_to_screen
from evaltrans_qt.workspace import Workspace

from .conftest import open_db
from .test_results import run_to_end

#: 1366x768 less a 30 px panel (openbox without a panel has all of it)
LAPTOP = QRect(0, 0, 1366, 738)


def _inside(dlg, rect: QRect) -> None:
    frame = QRect(dlg.pos(), dlg.size() + DECORATION)
    assert rect.contains(frame), (frame, rect)
    for button in dlg.buttons.buttons():           # OK, Cancel, Restore defaults: on screen
        top_left = button.mapTo(dlg, button.rect().topLeft())
        assert dlg.rect().contains(QRect(top_left, button.size())), button.text()


def test_dialog_fits_a_laptop_screen_and_its_pages_scroll(qtbot):
    dlg = OptionsDialog(EvalOptions(), None)
    qtbot.addWidget(dlg)
    for rect in (LAPTOP, QRect(0, 0, 1366, 600), QRect(0, 0, 1920, 1050)):
        fit_to_screen(dlg, rect)
        dlg.show()
        qtbot.waitExposed(dlg)
        _inside(dlg, rect)
        assert dlg.buttons.button(QDialogButtonBox.Ok).isVisible()
    # squeezed to 600 px: the measure page (26 rows) scrolls instead of pushing the buttons off
    fit_to_screen(dlg, QRect(0, 0, 1366, 600))
    dlg.tabs.setCurrentIndex(0)
    area = dlg.tabs.currentWidget()
    assert area.verticalScrollBar().maximum() > 0


def test_ticks_are_the_runs_measures_and_ok_keeps_the_default(qtbot):
    dlg = OptionsDialog(EvalOptions(), None)
    qtbot.addWidget(dlg)
    ticked = {n for n, b in dlg._measure_boxes.items() if b.isChecked()}
    assert ticked == set(default_measures(EvalOptions()))
    assert "invwer" not in ticked and "cer" not in ticked
    assert dlg.measures() is None                  # untouched: the options' defaults run
    ws = Workspace()
    ws.set_options(dlg.options(), dlg.measures())
    assert set(ws.run_measures()) == ticked
    assert dlg.summary.text().startswith(f"A run computes {len(ticked)} measure(s)")
    assert "Not run" not in dlg.summary.text()


def test_ticking_sets_the_option_or_says_why_not(qtbot):
    dlg = OptionsDialog(EvalOptions(), ["wer"])
    qtbot.addWidget(dlg)
    dlg._measure_boxes["wwer"].setChecked(True)             # sets a substitution-cost-rule
    assert dlg.options().substitution_cost_rule != "none"
    dlg._measure_boxes["cer"].setChecked(True)              # opt-in: runs when chosen
    dlg._measure_boxes["invwer"].setChecked(True)
    assert dlg.options().allow_transpositions
    assert not dlg._measure_notes["invwer"].text()
    dlg.editor("allow-transpositions").setChecked(False)    # unset again: said beside INVWER
    assert dlg._measure_notes["invwer"].text() == "not run: needs allow-transpositions"
    assert "INVWER needs allow-transpositions" in dlg.summary.text()
    assert not dlg._measure_notes["cer"].text() and not dlg._measure_notes["wwer"].text()
    ws = Workspace()
    ws.set_options(dlg.options(), dlg.measures())
    assert ws.run_measures() == ["cer", "wer", "wwer"]
    assert ws.skipped() == {"invwer": "allow-transpositions"}


def test_skipped_measures_stay_listed_through_the_run(qtbot, main_window, demo_copy):
    open_db(qtbot, main_window, demo_copy)
    view = main_window.results.results_view
    run_to_end(qtbot, view, options=EvalOptions(), measures=["wer", "invwer"])
    assert not view.skipped_label.isHidden()
    assert "INVWER needs allow-transpositions" in view.skipped_label.text()
    assert "INVWER" not in view.status.text()      # progress/status lines are other labels
    assert list(view.run.measures) == ["wer"]


def test_restore_defaults_and_presets_keep_the_ticks_the_runs(qtbot):
    dlg = OptionsDialog(EvalOptions(case="ignore"), ["cer", "wer"])
    qtbot.addWidget(dlg)
    assert dlg.measures() == ["cer", "wer"]
    dlg.buttons.button(QDialogButtonBox.RestoreDefaults).click()
    assert dlg.options() == EvalOptions() and dlg.measures() is None
    assert {n for n, b in dlg._measure_boxes.items() if b.isChecked()} == \
        set(default_measures(EvalOptions()))
    # a preset while the defaults are chosen: the ticks follow what it enables
    dlg.preset.setCurrentText("thesis default")
    dlg._apply_preset(dlg.preset.currentIndex())
    assert {n for n, b in dlg._measure_boxes.items() if b.isChecked()} == \
        set(default_measures(dlg.options()))
