"""Open every dialog of the application on a virtual screen of a given size and print, as
JSON, where each one lies (run by tests/ui/test_fit_screen.py in a subprocess: the
offscreen platform's screen size is fixed when the application starts).

Usage: ``python -m tests.ui.fit_screen_probe WIDTHxHEIGHT DATABASE [PNG_FOLDER]`` with
``QT_QPA_PLATFORM=offscreen`` and a scratch settings folder in ``XDG_CONFIG_HOME``.
Each dialog is opened as the application opens it (``open()``/``show()`` with the main
window as parent, so the window's dialog fitting applies) and described by its
geometry, its minimum size, and whether every button of it lies inside it. With
``PNG_FOLDER`` each dialog is also saved there as ``dialog-NAME.png`` as drawn (the
screenshots of docs/dialogs/ are made so).
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSettings
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QApplication,
    QDialog,
    QFileDialog,
    QWidget,
)


def _screen(size: str) -> None:
    """The offscreen platform's screen of ``size`` (``configfile``, as ``--screenshot``)."""
    from evaltrans_qt.ui.app import _offscreen_screen
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    _offscreen_screen(size)


def _scrolled(w: QWidget, top: QWidget) -> bool:
    p = w.parentWidget()
    while p is not None and p is not top:
        if isinstance(p, QAbstractScrollArea):
            return True
        p = p.parentWidget()
    return False


def _describe(dlg: QWidget) -> dict:
    # buttons of the dialog itself (those in a scrolled page reach the view by scrolling)
    buttons = [b for b in dlg.findChildren(QAbstractButton) if b.isVisibleTo(dlg)
               and not _scrolled(b, dlg)]
    outside = []
    for b in buttons:
        rect = QRect(b.mapTo(dlg, QPoint(0, 0)), b.size())
        if not dlg.rect().contains(rect):
            outside.append(b.text() or b.objectName())
    hint = dlg.minimumSizeHint()
    return {"geometry": [dlg.x(), dlg.y(), dlg.width(), dlg.height()],
            "minimum": [max(dlg.minimumWidth(), hint.width()),
                        max(dlg.minimumHeight(), hint.height())],
            "buttons_outside": outside, "visible": dlg.isVisible()}


def dialogs(window) -> dict[str, Callable[[], QWidget]]:
    """Name -> a function that builds (not shows) the dialog, parented to ``window``."""
    from evaltrans_qt.engine.data.merge import Conflict
    from evaltrans_qt.errors import InputFormatError
    from evaltrans_qt.ui import errors
    from evaltrans_qt.ui.campaign_dialogs import BundleDialog, CollectDialog, CreateDialog
    from evaltrans_qt.ui.classes_dialog import ClassesDialog
    from evaltrans_qt.ui.disk_change_dialog import DiskChangeDialog
    from evaltrans_qt.ui.export_dialog import TABLE_FORMATS, file_filters
    from evaltrans_qt.ui.help_dialog import GettingStartedDialog
    from evaltrans_qt.ui.import_dialogs import ImportDialog
    from evaltrans_qt.ui.items_panel import ItemsDialog
    from evaltrans_qt.ui.merge_dialog import ConflictDialog
    from evaltrans_qt.ui.options_dialog import OptionsDialog
    from evaltrans_qt.ui.ranking_screen import SEGMENTS, SENTENCES, RankingSetupDialog
    from evaltrans_qt.ui.reference_editor import AddReferenceDialog
    from evaltrans_qt.ui.scoring import SessionDialog
    from evaltrans_qt.ui.segranks_dialog import SegRanksExtractDialog
    from evaltrans_qt.ui.shortcuts import ShortcutsDialog
    db = window.database
    src = db.sources[0]
    tgt = src.targets[0]
    scored = next(t for s in db.sources for t in s.targets if t.scores)

    def conflict() -> QDialog:
        old = scored.scores[0]
        new = dataclasses.replace(old, value=old.value + 1)
        return ConflictDialog(Conflict(src, scored, old.cls, old.judge, old, new), 1, window)

    def error() -> QDialog:
        box = errors.show_error(InputFormatError(
            "a line of the reference has no counterpart in the source " * 3,
            "/data/a/long/folder/name/of/a/campaign/newstest2024.ref.de", 12), window)
        assert box is not None
        return box

    def ranking_screen() -> QWidget:
        screen = window.ranking.open_screen(SENTENCES, judge="judge")
        assert screen is not None
        return screen

    def span_screen(protocol: str) -> QWidget:
        screen = window.spans.open_screen(protocol, judge="judge")
        assert screen is not None
        return screen

    def span_setup() -> QDialog:
        from evaltrans_qt.ui.controllers.spans import SpanSetupDialog
        return SpanSetupDialog("mqm", "judge", db.systems(), ["anna", "ben", "eva"], window)

    def campaign_report(kind: str) -> QDialog:
        from evaltrans_qt.engine.campaign.agreement import campaign_agreement
        from evaltrans_qt.engine.campaign.qc import AnnotatorQC, Check
        from evaltrans_qt.io.campaign_qc import QCReport
        from evaltrans_qt.ui.campaign_tables import agreement_dialog, qc_dialog
        if kind == "agreement":
            return agreement_dialog(campaign_agreement(db), window)
        checks = [Check("bad-refs", False, 0.4, "Wilcoxon p = 0.403 over 12 pairs (>= 0.05: "
                        "BAD references not scored clearly lower)"),
                  Check("repeats", True, 0.05, "mean difference 5% of the scale over 8 repeats"),
                  Check("speed", True, 0.0, "0% of items faster than 2 s (<= 20%)")]
        report = QCReport("f2ce8a5111f29eb5", tuple(
            AnnotatorQC(f"annotator-{k}", 400, 400, 12.5, checks) for k in range(12)), ("late",))
        return qc_dialog(report, window)

    def adjudication() -> QWidget:
        from evaltrans_qt.adjudication_session import AdjudicationSession
        from evaltrans_qt.ui.adjudication_screen import AdjudicationScreen
        return AdjudicationScreen(AdjudicationSession(window.workspace), window)

    def export() -> QDialog:
        d = QFileDialog(window, "Export table", "demo.system.csv", file_filters(TABLE_FORMATS))
        d.setOption(QFileDialog.Option.DontUseNativeDialog)
        d.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        return d

    return {
        "options": lambda: OptionsDialog(window.options, None, window),
        "classes": lambda: ClassesDialog(window),
        "import_text": lambda: ImportDialog("text", True, window),
        "import_aachen": lambda: ImportDialog("aachen", True, window),
        "import_sgml": lambda: ImportDialog("sgml", True, window),
        "import_wmt": lambda: ImportDialog("wmt", True, window),
        "merge_conflict": conflict,
        "session_setup": lambda: SessionDialog(db, "judge", window),
        "ranking_setup_sentences": lambda: RankingSetupDialog(SENTENCES, "judge", parent=window),
        "ranking_setup_segments": lambda: RankingSetupDialog(SEGMENTS, "judge", parent=window),
        "shortcuts": lambda: ShortcutsDialog(window),
        "disk_change": lambda: DiskChangeDialog(Path("/data/very/long/folder/name/of/a/"
                                                     "campaign/demo.etdb.xml"), True, 3, window),
        "export": export,
        "add_reference": lambda: AddReferenceDialog(src.text, tgt.text, "ref-new", window),
        "information_items": lambda: ItemsDialog(src.text.split(), [(0, 2)], window),
        "error": error,
        "segranks_extract": lambda: SegRanksExtractDialog(window.workspace, window),
        "getting_started": lambda: GettingStartedDialog(window),
        "ranking_sentences_screen": ranking_screen,
        "span_setup": span_setup,
        "span_mqm_screen": lambda: span_screen("mqm"),
        "span_esa_screen": lambda: span_screen("esa"),
        "campaign_create": lambda: CreateDialog(window.database_path, window),
        "campaign_bundle": lambda: BundleDialog(Path("/data/campaign/demo.etcampaign.json"),
                                                window),
        "campaign_collect": lambda: CollectDialog(Path("/data/campaign/demo.etcampaign.json"),
                                                  window),
        "campaign_qc_report": lambda: campaign_report("qc"),
        "campaign_agreement": lambda: campaign_report("agreement"),
        "adjudication_screen": adjudication,
    }


def main(argv: list[str]) -> int:
    size, database = argv[0], argv[1]
    pictures = Path(argv[2]) if len(argv) > 2 else None
    _screen(size)
    app = QApplication([])
    from evaltrans_qt.ui.main_window import MainWindow
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "probe.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, persist_settings=False)
    window.show()
    done: list[bool] = []
    window.databaseChanged.connect(lambda: done.append(True))
    window.open_database(database)
    while not done:
        app.processEvents()
    app.processEvents()
    avail = window.screen().availableGeometry()
    frame = window.frameGeometry()
    out: dict = {"available": [avail.x(), avail.y(), avail.width(), avail.height()],
                 "main_window": {"geometry": [frame.x(), frame.y(), frame.width(), frame.height()],
                                 "minimum": [window.minimumSizeHint().width(),
                                             window.minimumSizeHint().height()],
                                 "buttons_outside": [], "visible": window.isVisible()},
                 "dialogs": {}}
    for name, build in dialogs(window).items():
        dlg = build()
        dlg.open() if isinstance(dlg, QDialog) else dlg.show()
        for _ in range(10):          # deferred layouts (rank rows fit a tick after a resize)
            app.processEvents()
            time.sleep(0.02)
        out["dialogs"][name] = _describe(dlg)
        if pictures is not None:
            dlg.grab().save(str(pictures / f"dialog-{name.replace('_', '-')}.png"))
        dlg.close()
        dlg.deleteLater()
        app.processEvents()
    print(json.dumps(out))
    window.workspace.leave_unsaved()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
