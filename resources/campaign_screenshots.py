"""The README's campaign screenshots: ``docs/screenshot-annotator-mode.png`` (a bundle open
in annotator mode) and ``docs/screenshot-qc-report.png`` (Campaign → QC report).

A campaign of four annotators (redundancy 2, BAD references and repeats) is made over a
copy of the demo database in a scratch folder; annotator mode is shown on anna's bundle
with a few items judged; for the QC report two careful annotators (scores following the
candidate's word overlap with the reference, 6-30 s an item), one who scores at random
and one who gives every item 70 in a second are collected and the report opened. The
whole screen is grabbed, so run it on a 1366x768 X display with a window manager::

    Xvfb :79 -screen 0 1366x768x24 &  DISPLAY=:79 openbox &
    DISPLAY=:79 .venv/bin/python -m resources.campaign_screenshots docs
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

HOWTO = ("# Judging translations\n\nFor each item you see the **source** sentence, a "
         "**reference** translation and a **candidate** translation.\n\n"
         "1. Read the source and the reference.\n"
         "2. Score how well the candidate keeps the meaning, from 0 (nothing) to 100 (all "
         "of it).\n3. Type the score and press **Enter**; **N**/**P** move between items.\n\n"
         "Your work is saved in this file; send it back when you are done.\n")


def _campaign(work: Path) -> list[Path]:
    from evaltrans_qt.engine.campaign.definition import parse_qc
    from evaltrans_qt.io.campaign_bundle import write_bundles
    from evaltrans_qt.io.campaign_file import create_campaign
    from evaltrans_qt.io.etdb import demo_database_path
    shutil.copyfile(demo_database_path(), work / "demo.etdb.xml")
    (work / "howto.md").write_text(HOWTO)
    create_campaign(work / "demo.etdb.xml", work / "demo.etcampaign.json", protocol="da-ref",
                    annotators=["anna", "ben", "carla", "dmitri"], redundancy=2, batch=10,
                    seed=3, qc=parse_qc("bad-refs=0.3,repeats=0.2"),
                    instructions=work / "howto.md")
    return write_bundles(work / "demo.etcampaign.json", work / "bundles")


def _judge(paths: list[Path]) -> None:
    """The four annotators' work (module doc)."""
    from evaltrans_qt.io.campaign_bundle import bundle_items
    from evaltrans_qt.io.etdb import load_database, save_database
    rng = random.Random(5)
    for p in paths:
        db, who = load_database(p), p.name.split(".")[0]
        for x in bundle_items(db):
            src = db.sources[x.source_index]
            t = src.targets[x.target_index]
            if who == "carla":
                value = rng.randint(0, 100)
            elif who == "dmitri":
                value = 70
            else:
                ref = x.references[0].split() if x.references else []
                overlap = len(set(t.text.split()) & set(ref)) / max(1, len(ref))
                value = max(0, min(100, round(100 * overlap + rng.gauss(0, 6))))
            seconds = 1 if who == "dmitri" else rng.randint(6, 30)
            t.set_score("da", value, judge=who, time=str(seconds))
        save_database(db, p)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("docs")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication
    work = Path(tempfile.mkdtemp(prefix="campaign-shots-"))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(work / "cfg"))
    app = QApplication([])
    from evaltrans_qt.io.campaign_bundle import bundle_items
    from evaltrans_qt.io.campaign_collect import collect
    from evaltrans_qt.io.etdb import load_database, save_database
    from evaltrans_qt.ui.main_window import MainWindow

    def pump(seconds: float, until=lambda: False) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end and not until():
            app.processEvents()
            time.sleep(0.02)

    def shoot(name: str) -> None:
        pump(1.0)
        app.primaryScreen().grabWindow(0).save(str(out / name))
        print(out / name)

    paths = _campaign(work)
    w = MainWindow(persist_settings=False)
    w.resize(1366, 768)
    w.move(0, 0)
    w.show()
    anna = work / "bundles" / "anna.etdb.xml"
    db = load_database(anna)
    for x in bundle_items(db)[:7]:                  # some of the work done
        db.sources[x.source_index].targets[x.target_index].set_score(
            "da", 60 + 5 * (x.n % 5), judge="anna")
    save_database(db, anna)
    w.open_database(anna)
    pump(60, lambda: w.campaign.view is not None)
    w.campaign.view.show_work()
    session = w.session
    assert session is not None                      # the bundle's scoring session
    session.go_to(7)
    shoot("screenshot-annotator-mode.png")

    _judge([p for p in paths if p != anna] + [anna])
    collect(work / "demo.etcampaign.json", paths, work / "result.etdb.xml")
    w.open_database(work / "result.etdb.xml")
    pump(60, lambda: w.database_path == work / "result.etdb.xml")
    w.campaign.qc_report()
    pump(60, lambda: w.campaign.last_dialog is not None and w.campaign.last_dialog.isVisible())
    dlg = w.campaign.last_dialog
    dlg.resize(1100, 330)
    dlg.move(130, 200)
    shoot("screenshot-qc-report.png")
    dlg.close()
    w.workspace.leave_unsaved()
    w.close()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
