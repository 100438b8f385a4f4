"""First use: Help → Getting started (an illustrated page shipped with the product, in a
dialog that fits a 1366x768 screen), empty panels that say what to do first, tooltips
that say more than their labels."""

from __future__ import annotations

import re

from PySide6.QtCore import QRect
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QComboBox, QPushButton

from evaltrans_qt.ui.help_dialog import GettingStartedDialog, page_path
from evaltrans_qt.ui.options_dialog import DECORATION, fit_to_screen


def test_page_covers_the_four_steps_and_ships_its_pictures():
    html = page_path().read_text(encoding="utf-8")
    heads = re.findall(r"<h3>(.*?)</h3>", html)
    assert [h.split(". ", 1)[-1] for h in heads[:4]] == [
        "Open or import a database", "Run the measures", "Start a scoring session", "Export"]
    images = re.findall(r'<img src="([^"]+)"', html)
    assert len(images) >= 4
    for src in images:
        assert (page_path().parent / src).is_file(), src


def test_dialog_shows_the_page_with_its_pictures_and_fits(qtbot):
    dlg = GettingStartedDialog()
    qtbot.addWidget(dlg)
    doc = dlg.text.document()
    assert "Getting started" in doc.toPlainText() and "Run measures" in doc.toPlainText()
    html = page_path().read_text(encoding="utf-8")
    for src in re.findall(r'<img src="([^"]+)"', html):
        img = doc.resource(QTextDocument.ImageResource, src)
        assert img is not None and not img.isNull(), src
    for rect in (QRect(0, 0, 1366, 738), QRect(0, 0, 1920, 1050)):
        fit_to_screen(dlg, rect)
        assert rect.contains(QRect(dlg.pos(), dlg.size() + DECORATION))


def test_help_menu_empty_states_and_tooltips(qtbot, main_window):
    names = [a.objectName() for a in main_window.help_menu.actions()]
    assert names[0] == "action_gettingstarted"
    view = main_window.results.results_view
    # no run yet: the empty tables say what to do
    assert not view.system_empty.isHidden() and "Run measures (Ctrl+R)" in view.system_empty.text()
    assert not view.sentence_empty.isHidden()
    # the non-obvious controls explain themselves beyond their label
    for w in view.findChildren(QComboBox) + view.findChildren(QPushButton):
        if w.objectName() in ("scaleSelector", "intervalMeasure", "conventionSelector",
                              "humanSelector", "levelSelector", "combinationButton",
                              "significanceButton", "significanceMethod"):
            tip = w.toolTip()
            label = w.text() if isinstance(w, QPushButton) else ""
            assert len(tip) > 40 and tip != label, w.objectName()
