"""The application side of campaigns (docs/campaigns.md): a bundle opened in annotator mode
shows only its items, its instructions and progress and no system name; the practice
items give feedback; the adjudication screen records an ``adjudicated`` judgement from the
keyboard and undo takes it back; the Campaign menu's actions run create, bundle, collect,
QC report and agreement on a tiny database."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLabel,
    QLineEdit,
    QMenu,
    QTextEdit,
    QWidget,
)

from evaltrans_qt.engine.campaign.agreement import ADJUDICATED
from evaltrans_qt.engine.campaign.definition import QCPlan
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.io.campaign_bundle import bundle_items, write_bundles
from evaltrans_qt.io.campaign_file import create_campaign
from evaltrans_qt.io.etdb import load_database, save_database
from tests.ui.conftest import open_db

SYSTEMS = ("SysAlpha", "SysBeta", "SysGamma")
WORDS = "house tree river stone cloud bread window garden music letter".split()


def _database() -> Database:
    rng = random.Random(0)
    db = Database()
    for i in range(8):
        src = db.add_source(f"Quelle {i} " + " ".join(rng.choice(WORDS) for _ in range(6)),
                            doc=f"d{i // 4}", seg=str(i + 1))
        db.add_target(src, "ref " + " ".join(rng.choice(WORDS) for _ in range(6)), "ref-A",
                      reference=True)
        for s in SYSTEMS:
            db.add_target(src, " ".join(rng.choice(WORDS) for _ in range(7)), s)
    return db


def _campaign(folder: Path, protocol: str, tutorial: Path | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    save_database(_database(), folder / "db.etdb.xml")
    (folder / "howto.md").write_text("# How to judge\n\nRead the **source** first.\n")
    create_campaign(folder / "db.etdb.xml", folder / "c.etcampaign.json", protocol=protocol,
                    annotators=["anna", "ben"], redundancy=2, batch=5, seed=1,
                    qc=QCPlan(repeats=0.2), instructions=folder / "howto.md",
                    tutorial=tutorial)
    write_bundles(folder / "c.etcampaign.json", folder / "bundles")
    return folder


@pytest.fixture
def window(main_window):
    main_window.resize(1366, 768)
    return main_window


def _open(qtbot, window, path: Path) -> None:
    open_db(qtbot, window, path)
    qtbot.waitUntil(lambda: window.campaign.view is not None, timeout=10000)


def _visible_texts(window) -> list[str]:
    """Every text a user can see or hover: window title, widget texts and tooltips of
    visible widgets, visible menus' titles and actions, the status bar."""
    out = [window.windowTitle(), window.statusBar().currentMessage()]
    for w in window.findChildren(QWidget):
        if not w.isVisible():
            continue
        out.append(w.toolTip())
        out.append(w.windowTitle())
        if isinstance(w, (QLabel, QAbstractButton, QLineEdit)):
            out.append(w.text())
        elif isinstance(w, QTextEdit):
            out.append(w.toPlainText())
    for act in window.menuBar().actions():
        if act.isVisible():
            out.append(act.text())
            if act.menu() is not None:
                out.extend(a.text() + a.toolTip() + a.statusTip()
                           for a in act.menu().actions())
    return [t for t in out if t]


def test_bundle_opens_in_annotator_mode_without_system_names(qtbot, window, tmp_path):
    folder = _campaign(tmp_path / "c", "da-ref")
    bundle = folder / "bundles" / "anna.etdb.xml"
    items = bundle_items(load_database(bundle))
    _open(qtbot, window, bundle)
    c = window.campaign
    assert c.mode.active and c.mode.annotator == "anna"
    view = c.view
    assert window.centralWidget() is view
    # only the annotation menu, no panel, no toolbar
    shown_menus = [a.text() for a in window.menuBar().actions() if a.isVisible()]
    assert shown_menus == ["&Annotation"]
    assert not any(d.isVisible() for d in window.panels.values())
    assert not window.toolbar.isVisible()
    assert not window.files.act_open.isEnabled() and not c.act_create.isEnabled()
    assert not window.scoring.act_identical.isEnabled()
    # instructions rendered from the coordinator's Markdown
    assert view.currentWidget() is view.instructions
    assert "How to judge" in view.instructions.toPlainText()
    assert "**" not in view.instructions.toPlainText()
    # the scoring session walks exactly the bundle's items
    s = window.session
    assert s is not None and s.judge == "anna" and s.classes == ["da"]
    assert [window.database.sources[si].targets[ti].text for si, ti in s.items] == \
        [x.candidate for x in items]
    view.show_work()
    qtbot.waitUntil(lambda: view.work.isVisible())
    assert view.work.source.text() == items[0].source
    assert view.work.reference.text() == items[0].references[0]
    # no system name -- neither the real ones nor the bundle's opaque ids
    opaque = {x.system for x in items}
    texts = "\n".join(_visible_texts(window))
    for name in (*SYSTEMS, *opaque):
        assert name not in texts, name
    assert "system" not in window.scoring.score_panel.header.text().lower()
    # progress in the status bar follows the judgements
    label = c.progress_label
    assert label.isVisible()
    bar = window.statusBar()
    assert [x for x in bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if x.isVisible()] == [label]         # not the counts of sources and systems
    batches = 1 + max(x.batch for x in items)
    assert batches > 2
    assert label.text() == f"0 of {len(items)}, {batches} batches left"
    for v in "80":
        window.score_current(int(v))
    qtbot.keyClick(window.scoring.score_panel.editors["da"], Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: label.text().startswith("1 of "))
    assert label.text() == f"1 of {len(items)}, {batches} batches left"
    db = window.database
    si, ti = s.items[0]
    assert [(x.cls, x.value, x.judge) for x in db.sources[si].targets[ti].scores] == \
        [("da", 80.0, "anna")]


def test_leaving_annotator_mode_gives_the_window_back(qtbot, window, tmp_path, demo_copy):
    folder = _campaign(tmp_path / "c", "da-ref")
    _open(qtbot, window, folder / "bundles" / "ben.etdb.xml")
    compare = window.compare_view
    open_db(qtbot, window, demo_copy)
    qtbot.waitUntil(lambda: window.campaign.view is None and not window.campaign.mode.active)
    assert window.centralWidget() is compare
    assert window.files.act_open.isEnabled() and window.campaign.act_create.isEnabled()
    assert "&File" in [a.text() for a in window.menuBar().actions() if a.isVisible()]
    assert not window.campaign.annotator_menu.menuAction().isVisible()
    assert window.panels["Scoring"].widget() is window.scoring.score_panel
    assert window.scoring.score_panel.show_system
    assert not window.campaign.progress_label.isVisible()


def test_esa_bundle_shows_the_span_screen_without_system_names(qtbot, window, tmp_path):
    folder = _campaign(tmp_path / "c", "esa")
    bundle = folder / "bundles" / "anna.etdb.xml"
    items = bundle_items(load_database(bundle))
    _open(qtbot, window, bundle)
    view = window.campaign.view
    screen = view.work.judging
    assert type(screen).__name__ == "AnnotatorSpanScreen"
    assert screen.model.judge == "anna" and screen.model.protocol == "esa"
    assert len(screen.model.items) == len(items)
    view.show_work()
    qtbot.waitUntil(screen.isVisible)
    texts = "\n".join(_visible_texts(window))
    for name in (*SYSTEMS, *{x.system for x in items}):
        assert name not in texts, name
    assert screen.header.text().startswith("<b>Item 1 of ")
    assert window.session is None
    # the keys reach the embedded screen (the window's scoring keys are off): mark, undo
    m = screen.model
    screen.target.select(0, 0)
    qtbot.keyClick(screen.target, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    start, end = screen.target.selection()
    assert end > start
    qtbot.keyClick(screen.target, Qt.Key.Key_2)      # major: ESA marks at once
    assert [(e.start, e.end, e.severity) for e in m.errors()] == [(start, end, "Major")]
    window.scoring.act_undo.trigger()
    assert m.errors() == []


def test_practice_items_give_feedback(qtbot, window, tmp_path):
    tut = tmp_path / "tutorial.json"
    tut.write_text('[{"source": "Das Haus.", "candidate": "The house.", "reference": '
                   '"The house.", "answer": {"da": 90}, "tolerance": 10, '
                   '"feedback": "A perfect translation scores high."}]')
    folder = _campaign(tmp_path / "c", "da-ref", tutorial=tut)
    _open(qtbot, window, folder / "bundles" / "anna.etdb.xml")
    page = window.campaign.view.practice
    assert page is not None and page.candidate.toPlainText() == "The house."
    page.values["da"].setValue(30)
    text = page.check_answer()
    assert text.startswith("Not quite.") and "da: expected 90 ± 10, given 30" in text
    assert "A perfect translation scores high." in page.feedback.text()
    page.values["da"].setValue(85)
    assert page.check_answer() == "Correct.\nA perfect translation scores high."
    # nothing of the practice is stored
    assert not any(t.scores for _s, t in window.database.iter_candidates())


# ------------------------------------------------------------------ adjudication
def _disagreeing(path: Path) -> None:
    db = Database()
    db.add_class(__import__("evaltrans_qt.engine.data.schemes", fromlist=["template"])
                 .template("adequacy5", "adequacy5"))
    for i, (a, b) in enumerate([(1, 5), (3, 3), (2, 5)]):
        src = db.add_source(f"source {i}")
        t = db.add_target(src, f"candidate {i}", "S1")
        t.set_score("adequacy5", a, judge="anna")
        t.set_score("adequacy5", b, judge="ben")
    save_database(db, path)


def test_adjudication_screen_keyboard_flow_and_undo(qtbot, window, tmp_path):
    path = tmp_path / "result.etdb.xml"
    _disagreeing(path)
    open_db(qtbot, window, path)
    screen = window.campaign.adjudicate()
    assert screen is not None
    qtbot.waitUntil(screen.isVisible)
    s = screen.session
    assert len(s) == 2                          # item 1 agrees: not listed
    assert screen.table.rowCount() == 2
    assert [screen.table.item(r, 1).text() for r in range(2)] == ["anna", "ben"]

    def final(k: int):
        si, ti = s.items[k].item
        return [(x.value, x.judge) for x in window.database.sources[si].targets[ti].scores
                if x.judge == ADJUDICATED]
    screen.setFocus()
    qtbot.keyClick(screen, Qt.Key.Key_2)        # take ben's 5
    assert final(0) == [(5.0, ADJUDICATED)]
    assert screen.final_text.text() == "5"
    qtbot.keyClick(screen, Qt.Key.Key_N)
    assert s.index == 1
    qtbot.keyClick(screen, Qt.Key.Key_Return)   # to the value field, type, Enter
    assert screen.focusWidget() is screen.final
    screen.final.selectAll()
    qtbot.keyClicks(screen.final, "4")
    qtbot.keyClick(screen.final, Qt.Key.Key_Return)
    assert final(1) == [(4.0, ADJUDICATED)]
    assert "2 of 2 adjudicated" in screen.header.text()
    qtbot.keyClick(screen, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert final(1) == []
    assert screen.final_text.text() == "none yet"
    qtbot.keyClick(screen, Qt.Key.Key_P)
    qtbot.keyClick(screen, Qt.Key.Key_Delete)
    assert final(0) == []
    # journaled: the journal beside the file holds the final judgements
    assert window.workspace.journal is not None and window.workspace.journal.path.exists()
    # a higher threshold lists fewer items (as the engine finds them)
    from evaltrans_qt.engine.campaign.adjudication import find_disagreements
    want = len(find_disagreements(window.database, 0.8))
    assert 0 < want < 2
    screen.threshold.setValue(0.8)
    assert len(screen.session) == want and screen.session.threshold == 0.8
    assert f"of {want} adjudicated" in screen.header.text()


# ------------------------------------------------------------------ the Campaign menu
def _accept(qtbot, window, action, fill) -> object:
    before = window.campaign.worker
    action.trigger()
    dlg = window.campaign.last_dialog
    fill(dlg)
    dlg.accept()
    qtbot.waitUntil(lambda: window.campaign.worker is not before, timeout=5000)
    wk = window.campaign.worker
    qtbot.waitUntil(lambda: wk.result is not None or wk.error is not None, timeout=30000)
    assert wk.error is None, wk.error
    qtbot.waitUntil(lambda: window.campaign.last_report is wk.result, timeout=5000)
    return wk.result


def test_campaign_menu_create_bundle_collect_qc_agreement(qtbot, window, tmp_path):
    save_database(_database(), tmp_path / "db.etdb.xml")
    menu = window.findChild(QMenu, "campaignMenu")
    assert [a.text() for a in menu.actions() if not a.isSeparator()] == [
        "&Create campaign…", "&Bundle…", "C&ollect…", "&QC report", "&Agreement",
        "A&djudicate…"]
    c = window.campaign

    def create(dlg):
        dlg.database.set_path(tmp_path / "db.etdb.xml")
        dlg.protocol.setCurrentText("da")
        dlg.annotators.setText("anna, ben")
        dlg.redundancy.setValue(2)
        dlg.batch.setValue(6)
        dlg.qc.setText("repeats=0.2")
        (tmp_path / "tut.json").write_text('[{"source": "s", "candidate": "c", '
                                           '"answer": {"da": 50}}]')
        dlg.tutorial.set_path(tmp_path / "tut.json")
        dlg.output.setText(str(tmp_path / "c.etcampaign.json"))
    d = _accept(qtbot, window, c.act_create, create)
    assert d.annotators == ("anna", "ben") and d.redundancy == 2 and d.qc.repeats == 0.2
    assert [t.answer for t in d.tutorial] == [{"da": 50.0}] and d.protocol == "da"
    assert (tmp_path / "c.etcampaign.json").exists()

    def bundle(dlg):
        assert dlg.campaign.path() == str(tmp_path / "c.etcampaign.json")
        dlg.folder.set_path(tmp_path / "out")
    paths = _accept(qtbot, window, c.act_bundle, bundle)
    assert sorted(p.name for p in paths) == ["anna.etdb.xml", "ben.etdb.xml"]
    # the annotators judge (one scores everything 70, the other 30)
    for p, v in zip(sorted(paths), (70, 30)):
        db = load_database(p)
        for x in bundle_items(db):
            db.sources[x.source_index].targets[x.target_index].set_score(
                "da", v, judge=p.name.split(".")[0], time="2026-01-01T00:00:05")
        save_database(db, p)

    def collect(dlg):
        dlg.bundles.set_paths(paths)
        dlg.result_path.setText(str(tmp_path / "result.etdb.xml"))
    report = _accept(qtbot, window, c.act_collect, collect)
    assert sorted(r.annotator for r in report.merged) == ["anna", "ben"]
    assert report.judgements > 0
    open_db(qtbot, window, tmp_path / "result.etdb.xml")
    assert not c.mode.active                    # a result is no bundle

    qc = _run_report(qtbot, window, c.act_qc)
    model = c.last_dialog.views["qc"].model()
    assert model.rowCount() == 2
    assert [model.index(r, 0).data() for r in range(2)] == [a.annotator for a in qc.annotators]
    for r, a in enumerate(qc.annotators):
        assert model.index(r, 1).data() == ("PASS" if a.passed else "FAIL")
        assert model.index(r, 2).data() == str(a.done)
    # every judgement the same value: straight-lining fails both
    assert all(not a.passed for a in qc.annotators)
    assert model.index(0, model.columnCount() - 1).data() == "; ".join(qc.annotators[0].reasons)

    ag = _run_report(qtbot, window, c.act_agreement)
    classes = c.last_dialog.views["classes"].model()
    da = next(x for x in ag.classes if x.name == "da")
    row = next(r for r in range(classes.rowCount()) if classes.index(r, 0).data() == "da")
    assert classes.index(row, 3).data() == str(da.units)
    pairs = c.last_dialog.views["pairs"].model()
    assert pairs.rowCount() == sum(len(x.pairs) for x in ag.classes)


def _run_report(qtbot, window, action):
    c = window.campaign
    before = c.last_report
    from evaltrans_qt.ui import errors
    action.trigger()
    qtbot.waitUntil(lambda: c.last_report is not before or bool(errors.history), timeout=30000)
    assert not errors.history, errors.history
    qtbot.waitUntil(lambda: c.last_dialog is not None and c.last_dialog.isVisible())
    return c.last_report


def test_bad_form_input_is_shown_the_products_way(qtbot, window, tmp_path):
    from evaltrans_qt.ui import errors
    window.campaign.act_create.trigger()
    dlg = window.campaign.last_dialog
    dlg.annotators.setText(" , ")
    dlg.accept()
    assert errors.history and "annotators" in str(errors.history[-1]).lower()
    QApplication.processEvents()


def test_adjudicating_spans_from_the_keyboard(qtbot, window, tmp_path):
    from evaltrans_qt.engine.human.spans.model import ErrorSpan, SpanAnnotation
    db = Database()
    src = db.add_source("Das ist ein Haus.")
    t = db.add_target(src, "This is a house.", "S1")
    t.span_annotations = [
        SpanAnnotation("anna", [ErrorSpan("major", "Accuracy/Mistranslation", 0, 4)]),
        SpanAnnotation("ben", [ErrorSpan("minor", "Fluency/Grammar", 10, 15)])]
    path = tmp_path / "spans.etdb.xml"
    save_database(db, path)
    open_db(qtbot, window, path)
    screen = window.campaign.adjudicate()
    assert screen is not None and len(screen.session) == 1
    d = screen.session.current()
    assert d.kind == "spans" and d.judges == ["anna", "ben"]
    # rows: anna, her error (lone), ben, his error (lone)
    assert screen.rows == [("anna", None), ("anna", 0), ("ben", None), ("ben", 0)]
    assert "found by this annotator only" in screen.table.item(1, 2).text()

    def final():
        return [(a.judge, [(e.start, e.end) for e in a.errors])
                for a in window.database.sources[0].targets[0].span_annotations
                if a.judge == ADJUDICATED]
    screen.setFocus()
    assert screen.table.currentRow() == 1            # the first span is chosen
    qtbot.keyClick(screen, Qt.Key.Key_Plus)          # anna's span into the final ones
    assert final() == [(ADJUDICATED, [(0, 4)])]
    qtbot.keyClick(screen, Qt.Key.Key_Down)
    qtbot.keyClick(screen, Qt.Key.Key_Down)
    qtbot.keyClick(screen, Qt.Key.Key_Plus)          # and ben's
    assert final() == [(ADJUDICATED, [(0, 4), (10, 15)])]
    assert "house" in screen.final_text.text() and "This" in screen.final_text.text()
    qtbot.keyClick(screen, Qt.Key.Key_Minus)         # the last one out again
    assert final() == [(ADJUDICATED, [(0, 4)])]
    qtbot.keyClick(screen, Qt.Key.Key_2)             # ben's whole annotation instead
    assert final() == [(ADJUDICATED, [(10, 15)])]
    qtbot.keyClick(screen, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert final() == [(ADJUDICATED, [(0, 4)])]


def test_undo_in_annotator_mode_takes_the_progress_back(qtbot, window, tmp_path):
    folder = _campaign(tmp_path / "c", "sser")
    _open(qtbot, window, folder / "bundles" / "ben.etdb.xml")
    label = window.campaign.progress_label
    assert label.text().startswith("0 of ")
    window.score_current(7)
    editor = window.scoring.score_panel.editors.get("sser")
    if editor is not None:                           # 11 levels: typed, then Enter
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: label.text().startswith("1 of "))
    window.scoring.act_undo.trigger()
    qtbot.waitUntil(lambda: label.text().startswith("0 of "))
    assert not any(t.scores for _s, t in window.database.iter_candidates())


def _protocol_campaign(folder: Path, protocol: str) -> Path:
    folder.mkdir()
    db = _database()
    for src in db.sources:                   # information items: the first words, the rest
        src.items = [(0, 1), (2, len(src.text.split()) - 1)]
    save_database(db, folder / "db.etdb.xml")
    create_campaign(folder / "db.etdb.xml", folder / "c.etcampaign.json", protocol=protocol,
                    annotators=["anna"], batch=8, seed=3)
    write_bundles(folder / "c.etcampaign.json", folder / "bundles")
    return folder


def _collected(folder: Path, tmp_path: Path) -> Database:
    from evaltrans_qt.cli.main import main
    assert main(["campaign", "collect", str(folder / "c.etcampaign.json"),
                 str(folder / "bundles" / "anna.etdb.xml"), "-o",
                 str(tmp_path / "r.etdb.xml")]) == 0
    return load_database(tmp_path / "r.etdb.xml")


def test_post_edit_bundle_is_edited_in_annotator_mode_and_collected(qtbot, window, tmp_path):
    folder = _protocol_campaign(tmp_path / "c", "postedit")
    path = folder / "bundles" / "anna.etdb.xml"
    _open(qtbot, window, path)
    c = window.campaign
    page = c.protocol_page
    assert c.view.work.judging is page and page.objectName() == "protocolPage"
    assert window.session is None
    assert [a.text() for a in window.menuBar().actions() if a.isVisible()] == ["&Annotation"]
    n = len(bundle_items(window.database))
    assert page.header.text() == f"<b>Item 1 of {n}</b>"
    assert c.progress_label.text().startswith(f"0 of {n}")
    shown = _visible_texts(window)
    assert not any(s in text for s in SYSTEMS for text in shown)
    editor = page.panel.editor
    si, ti = page.panel.item
    original = window.database.sources[si].targets[ti].text
    assert editor.toPlainText() == original          # starts from the candidate
    editor.setPlainText("a corrected translation")
    qtbot.keyClick(editor, Qt.Key.Key_Return)        # Enter stores it, the next one shown
    qtbot.waitUntil(lambda: c.progress_label.text().startswith(f"1 of {n}"))
    assert page.header.text() == f"<b>Item 2 of {n}</b>"
    t = window.database.sources[si].targets[ti]
    assert [(p.text, p.judge) for p in t.postedits] == [("a corrected translation", "anna")]
    window.scoring.act_undo.trigger()                # Ctrl+Z takes it back
    qtbot.waitUntil(lambda: c.progress_label.text().startswith(f"0 of {n}"))
    assert not t.postedits
    window.scoring.act_redo.trigger()
    qtbot.waitUntil(lambda: c.progress_label.text().startswith(f"1 of {n}"))
    window.files.save(wait=True)                     # File → Save, finished
    bundle_item = bundle_items(load_database(path))[0]
    r = _collected(folder, tmp_path)
    src = next(s for s in r.sources if s.text == bundle_item.source)
    got = [(p.text, p.judge, t.system) for t in src.targets for p in t.postedits]
    assert len(got) == 1 and got[0][:2] == ("a corrected translation", "anna")
    assert got[0][2] in SYSTEMS                      # mapped back to the real system


def test_item_marking_bundle_is_marked_in_annotator_mode_and_collected(qtbot, window,
                                                                       tmp_path):
    folder = _protocol_campaign(tmp_path / "c", "items")
    path = folder / "bundles" / "anna.etdb.xml"
    _open(qtbot, window, path)
    c = window.campaign
    page = c.protocol_page
    n = len(bundle_items(window.database))
    assert c.view.work.judging is page and page.panel.objectName() == "itemsPanel"
    assert not any(s in text for s in SYSTEMS for text in _visible_texts(window))
    assert "anna" not in page.panel.header.text()
    si, ti = page.panel.item
    page.setFocus()
    qtbot.keyClick(page, Qt.Key.Key_O)               # item 1 OK
    assert c.progress_label.text().startswith(f"0 of {n}")   # not complete yet
    qtbot.keyClick(page, Qt.Key.Key_M)               # item 2 meaning: both marked, stored
    qtbot.waitUntil(lambda: c.progress_label.text().startswith(f"1 of {n}"))
    t = window.database.sources[si].targets[ti]
    assert t.marks_by("anna").marks == ("OK", "meaning")
    assert page.header.text() == f"<b>Item 2 of {n}</b>"
    page.previous.click()                            # back: the marks are shown
    assert page.header.text() == f"<b>Item 1 of {n}</b> · done"
    window.files.save(wait=True)                     # File → Save, finished
    first = bundle_items(load_database(path))[0]
    r = _collected(folder, tmp_path)
    src = next(s for s in r.sources if s.text == first.source)
    got = [(m.marks, m.judge, t.system) for t in src.targets for m in t.item_marks]
    assert len(got) == 1 and got[0][:2] == (("OK", "meaning"), "anna")
    assert got[0][2] in SYSTEMS


def test_closing_in_annotator_mode_stores_the_windows_own_layout(qtbot, window, tmp_path,
                                                                  monkeypatch):
    before = {t: d.isVisible() for t, d in window.panels.items()}
    folder = _campaign(tmp_path / "c", "da-ref")
    _open(qtbot, window, folder / "bundles" / "anna.etdb.xml")
    assert not any(d.isVisible() for d in window.panels.values())
    stored: list[dict[str, bool]] = []
    monkeypatch.setattr(window.window_layout, "store_settings", lambda: stored.append(
        {t: d.isVisible() for t, d in window.panels.items()}))
    window.close()
    assert stored and any(stored[0].values())
    assert {t for t, v in stored[0].items() if v} >= {t for t, v in before.items() if v}


def test_practice_items_of_a_span_protocol_check_the_marked_errors(qtbot, window, tmp_path):
    tut = tmp_path / "tutorial.json"
    tut.write_text('[{"source": "Das Haus ist rot.", "candidate": "The horse is red.", '
                   '"answer": {"esa": 40}, "spans": [[4, 9]], "tolerance": 20, '
                   '"feedback": "horse is a mistranslation."}]')
    folder = _campaign(tmp_path / "c", "esa", tutorial=tut)
    _open(qtbot, window, folder / "bundles" / "anna.etdb.xml")
    page = window.campaign.view.practice
    assert page is not None and page.mark.isVisibleTo(page)
    page.values["esa"].setValue(45)
    assert page.check_answer().startswith("Not quite.")      # the error not marked
    cur = page.candidate.textCursor()
    cur.setPosition(4)
    cur.setPosition(9, cur.MoveMode.KeepAnchor)
    page.candidate.setTextCursor(cur)
    page.mark.click()
    assert page.marked == [(4, 9)]
    assert page.check_answer() == "Correct.\nhorse is a mistranslation."


def test_ranking_bundle_is_ranked_in_annotator_mode_without_system_names(qtbot, window,
                                                                         tmp_path):
    folder = tmp_path / "c"
    folder.mkdir()
    save_database(_database(), folder / "db.etdb.xml")
    create_campaign(folder / "db.etdb.xml", folder / "c.etcampaign.json", protocol="ranking",
                    annotators=["anna"], batch=4, seed=2, rank_size=3)
    write_bundles(folder / "c.etcampaign.json", folder / "bundles")
    _open(qtbot, window, folder / "bundles" / "anna.etdb.xml")
    c = window.campaign
    screen = c.ranking_screen
    assert screen is not None and c.view.work.judging is screen
    from evaltrans_qt.ui.ranking_screen import SentenceRankingScreen
    assert isinstance(screen, SentenceRankingScreen)       # the product's ranking screen
    assert [a.text() for a in window.menuBar().actions() if a.isVisible()] == ["&Annotation"]
    n = len(window.database.sources)
    assert c.progress_label.text().startswith(f"0 of {n}")
    shown = _visible_texts(window)
    assert not any(s in text for s in SYSTEMS for text in shown)
    assert not any(t.system and t.system in text for t in window.database.sources[0].targets
                   for text in shown)                       # nor the opaque ids
    si = screen.si
    k = len(screen.shown[si])
    assert k == len(window.database.sources[si].targets) - 1   # every candidate, no reference
    for c_ in range(k):                                          # ranks 1..k in shown order
        assert screen.session.place(0, c_, c_ + 1)
    assert screen.session.submit()
    qtbot.waitUntil(lambda: c.progress_label.text().startswith(f"1 of {n}"))
    src = window.database.sources[si]
    ranks = sorted(int(s.value) for t in src.targets for s in t.scores if s.cls == "rank")
    assert ranks == list(range(1, k + 1))
    assert {s.judge for t in src.targets for s in t.scores if s.cls == "rank"} == {"anna"}
    screen.act_undo.trigger()                                   # the submit taken back
    qtbot.waitUntil(lambda: c.progress_label.text().startswith(f"0 of {n}"))
    assert not any(s.cls == "rank" for t in src.targets for s in t.scores)
    screen.act_redo.trigger()
    qtbot.waitUntil(lambda: c.progress_label.text().startswith(f"1 of {n}"))
    window.files.save(wait=True)
    from evaltrans_qt.engine.human.ranking import rankings
    r = _collected(folder, tmp_path)                 # the screen is one task, real systems
    got = rankings(r)
    assert len(got) == 1 and got[0].judge == "anna" and set(got[0].ranks) <= set(SYSTEMS)
    assert sorted(got[0].ranks.values()) == list(range(1, k + 1))
