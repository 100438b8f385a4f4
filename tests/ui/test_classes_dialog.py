"""Edit → Score classes and the session start without classes.

The end-to-end path of a new user: ``evaltrans import text`` → open → Start scoring
session offers the classes dialog → classes from templates → score → save → reopen.
"""

from __future__ import annotations

from lxml import etree
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit

from evaltrans_qt.cli.main import main as cli
from evaltrans_qt.engine.data import schemes
from evaltrans_qt.io import etdb
from tests.ui.conftest import open_db


def _import_text(tmp_path):
    for name, text in (("src", "ein Haus\nzwei Katzen\ndrei Hunde\n"),
                       ("ref", "a house\ntwo cats\nthree dogs\n"),
                       ("a", "a house\ntwo cat\ndogs three\n"),
                       ("b", "one home\ncats two\nthree hounds\n")):
        (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
    db = tmp_path / "new.etdb.xml"
    assert cli(["import", "text", "--source", str(tmp_path / "src.txt"), "--reference",
                str(tmp_path / "ref.txt"), "--system", f"A={tmp_path / 'a.txt'}",
                "--system", f"B={tmp_path / 'b.txt'}", "-o", str(db)]) == 0
    return db


def _xml_classes(path):
    root = etree.parse(str(path), etree.XMLParser(no_network=True, load_dtd=False)).getroot()
    return [el.get("class") for el in root.iter("levels")]


def _drive_modals(qtbot, steps):
    """Run ``steps`` (callables taking the modal dialog) one per modal dialog as they open."""
    pending = list(steps)
    timer = QTimer()
    timer.setInterval(30)

    def tick():
        dlg = QApplication.activeModalWidget()
        if dlg is None or not pending or getattr(dlg, "_driven", False):
            return
        dlg._driven = True
        pending.pop(0)(dlg)
        if not pending:
            timer.stop()
    timer.timeout.connect(tick)
    timer.start()
    return timer, pending


def test_text_import_templates_session_save_reopen(qtbot, main_window, tmp_path):
    w = main_window
    path = _import_text(tmp_path)
    db = open_db(qtbot, w, path)
    assert db.human_classes == []
    w.activateWindow()

    def classes(dlg):
        assert dlg.objectName() == "classesDialog"
        assert "no score classes" in dlg.findChild(object, "classesIntro").text()
        box = dlg.template_box
        box.setCurrentIndex(box.findData("fluency5"))
        qtbot.mouseClick(dlg.add_template_button, Qt.LeftButton)
        box.setCurrentIndex(box.findData("sser"))
        qtbot.mouseClick(dlg.add_template_button, Qt.LeftButton)
        # the list (model/view) shows the new classes before the reference class
        names = [dlg.model.index(r, 0).data() for r in range(dlg.model.rowCount())]
        assert names == ["fluency", "sser", "isReference"]
        assert dlg.model.index(2, 6).data() == "decides references"
        dlg.accept()

    def session(dlg):
        assert dlg.objectName() == "sessionDialog"
        assert dlg.classes() == ["fluency", "sser"]
        dlg.judge.setText("nia")
        dlg.accept()

    timer, pending = _drive_modals(qtbot, [classes, session])
    w.scoring.act_start_session.trigger()
    timer.stop()
    assert pending == []
    s = w.session
    assert s is not None and s.classes == ["fluency", "sser"] and len(s.items) == 6
    # the file already declares the classes (saved at once: the journal may refer to them)
    assert _xml_classes(path) == ["fluency", "sser", "isReference"]
    w.activateWindow()                                        # the dialogs have closed
    qtbot.waitUntil(w.isActiveWindow)
    first = s.current
    qtbot.keyClick(w, Qt.Key_4)                               # fluency 4
    assert s.current_class == "sser"
    sser = w.findChild(QLineEdit, "score_sser_value")
    qtbot.keyClicks(sser, "10")
    qtbot.keyClick(sser, Qt.Key_Return)                       # sser 10 (two digits, Enter)
    assert s.judge_value(first, "fluency") == 4 and s.judge_value(first, "sser") == 10
    second = s.current
    assert second != first
    qtbot.keyClick(w, Qt.Key_2)
    with qtbot.waitSignal(w.saved, timeout=60_000):
        w.save()
    w.end_session()
    back = open_db(qtbot, w, path)
    assert back.human_classes == ["fluency", "sser"]
    assert [lv.name for lv in back.levels][-1] == "isReference"
    assert _xml_classes(path)[-1] == "isReference"
    got = {(src.text, t.system, x.cls): x.value for src in back.sources for t in src.targets
           for x in t.scores if x.judge == "nia"}
    (s1, t1), (s2, t2) = (back.sources[first[0]], back.sources[first[0]].targets[first[1]]), \
        (back.sources[second[0]], back.sources[second[0]].targets[second[1]])
    assert got == {(s1.text, t1.system, "fluency"): 4.0, (s1.text, t1.system, "sser"): 10.0,
                   (s2.text, t2.system, "fluency"): 2.0}
    assert len(back.reference_ids()) == 1 and back.systems() == ["A", "B"]


def test_cancelling_the_classes_dialog_without_classes_starts_nothing(qtbot, main_window, tmp_path):
    w = main_window
    open_db(qtbot, w, _import_text(tmp_path))
    timer, pending = _drive_modals(qtbot, [lambda dlg: dlg.reject()])
    w.scoring.act_start_session.trigger()
    timer.stop()
    assert pending == [] and w.session is None
    assert "needs at least one score class" in w.statusBar().currentMessage()


def test_edit_menu_opens_the_dialog_and_remove_asks(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    assert w.scoring.act_classes in w.edit_menu.actions()
    dlg = w.classes_dialog()
    assert dlg.isVisible() and dlg.model.rowCount() == 5     # fluency, adequacy, sser, esa, isReference
    n_flu = schemes.score_count(w.database, "fluency")
    assert n_flu > 0
    dlg.select("fluency")
    asked = []
    dlg.ask = lambda q: (asked.append(q), False)[1]
    assert not dlg.remove_selected()
    assert f"{n_flu} score(s)" in asked[0] and w.database.has_class("fluency")
    dlg.ask = lambda q: True
    assert dlg.remove_selected()
    assert not w.database.has_class("fluency") and schemes.score_count(w.database, "fluency") == 0
    assert "fluency" not in etdb.load_database(demo_copy).human_classes       # saved at once
    assert [dlg.model.index(r, 0).data() for r in range(dlg.model.rowCount())] == ["adequacy",
                                                                                    "sser", "esa", "isReference"]
    # Ctrl+Z brings class and scores back (and saves), Ctrl+Shift+Z removes them again
    w.workspace.history.undo()
    assert schemes.score_count(w.database, "fluency") == n_flu
    assert w.database.human_classes == ["fluency", "adequacy", "sser", "esa"]
    assert schemes.score_count(etdb.load_database(demo_copy), "fluency") == n_flu
    w.workspace.history.redo()
    assert not w.database.has_class("fluency")
    # the reference class cannot be removed while others remain: an error, nothing changes
    from evaltrans_qt.ui import errors
    dlg.reload()
    dlg.select("isReference")
    assert not dlg.remove_selected()
    assert "decides which targets are references" in str(errors.history[-1])
    assert w.database.levels[-1].name == "isReference"
    dlg.close()


def test_editing_a_class_refuses_to_invalidate_scores_unless_confirmed(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    dlg = w.classes_dialog()
    dlg.select("adequacy")
    assert dlg.name.text() == "adequacy" and dlg.count.value() == 6
    fives = sum(1 for _, t in db.iter_targets() for x in t.scores if x.cls == "adequacy" and x.value == 5)
    assert fives > 0
    dlg.count.setValue(5)
    dlg.spins["perfect"].setValue(4)
    dlg.spins["green"].setValue(4)
    asked = []
    dlg.ask = lambda q: (asked.append(q), False)[1]
    assert not dlg.edit_selected()
    assert f"{fives} score(s) outside the new levels" in asked[0]
    assert db.level("adequacy").count == 6
    dlg.ask = lambda q: True
    assert dlg.edit_selected()
    assert db.level("adequacy").count == 5 and not any(
        x.value == 5 for _, t in db.iter_targets() for x in t.scores if x.cls == "adequacy")
    db.validate_scores()
    dlg.close()


def test_a_running_session_rebuilds_its_rows_when_classes_change(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    s = w.start_session("ole", ["fluency", "adequacy"], start_unscored=False)
    panel = w.scoring.score_panel
    assert list(panel.labels) == ["fluency", "adequacy"]
    dlg = w.classes_dialog()
    assert dlg.add_template("mqm")
    assert s.classes == ["fluency", "adequacy", "mqm"]
    assert list(panel.labels) == ["fluency", "adequacy", "mqm"]
    assert w.findChild(QLineEdit, "score_mqm_value") is not None
    dlg.close()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    qtbot.keyClick(w, Qt.Key_3)
    qtbot.keyClick(w, Qt.Key_4)
    assert s.current_class == "mqm"
    # the new class is journalled like any other, and the file declares it: a crash loses nothing
    qtbot.keyClicks(w.findChild(QLineEdit, "score_mqm_value"), "-2")
    qtbot.keyClick(w.findChild(QLineEdit, "score_mqm_value"), Qt.Key_Return)
    from evaltrans_qt.workspace import load_with_journal
    recovered, report = load_with_journal(demo_copy)
    assert report is not None and report.rejected == [] and len(report.applied) == 3
    assert any(x.cls == "mqm" and x.value == -2 and x.judge == "ole"
               for _, t in recovered.iter_targets() for x in t.scores)
    # removing a session class (after confirming) drops its row; the others stay
    dlg = w.classes_dialog()
    dlg.ask = lambda q: True
    dlg.select("adequacy")
    assert dlg.remove_selected()
    assert s.classes == ["fluency", "mqm"] and list(panel.labels) == ["fluency", "mqm"]
    w.workspace.history.undo()                   # the removal
    assert w.database.has_class("adequacy") and "adequacy" in s.classes
    dlg.close()


def test_session_dialog_offers_the_classes_dialog(qtbot, main_window, demo_copy):
    from evaltrans_qt.ui.scoring import SessionDialog
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    dlg = SessionDialog(db, "ida", w)
    assert dlg.classes_button.text().startswith("Score classes")
    assert not dlg.no_classes.isVisibleTo(dlg)
    dlg.class_boxes[1].setChecked(False)
    dlg.set_classes(["fluency", "adequacy", "sser"])
    assert dlg.classes() == ["fluency", "sser"]
    dlg.deleteLater()


def test_removing_the_only_session_class_ends_the_session(qtbot, main_window, demo_copy):
    w = main_window
    open_db(qtbot, w, demo_copy)
    w.start_session("pia", ["adequacy"], start_unscored=False)
    dlg = w.classes_dialog()
    dlg.ask = lambda q: True
    dlg.select("adequacy")
    assert dlg.remove_selected()
    qtbot.waitUntil(lambda: w.session is None)
    assert w.scoring.score_panel.session is None and w.database.human_classes == ["fluency", "sser", "esa"]
    dlg.close()


def test_a_continuous_class_from_the_form(qtbot, main_window, demo_copy):
    """The form's continuous class is the engine's one continuous constructor; a range
    that cannot be is reported by the error sink and nothing changes."""
    from evaltrans_qt.ui import errors
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    dlg = w.classes_dialog()
    dlg.name.setText("da")
    dlg.kind.setCurrentIndex(dlg.kind.findData(True))
    for key, v in (("minimum", 0), ("maximum", 100), ("perfect", 100), ("gray", 30),
                   ("green", 70)):
        dlg.spins[key].setValue(v)
    assert dlg.form_levels() == schemes.continuous("da", 0, 100, perfect=100, gray=30, green=70)
    assert dlg.add_from_form() and db.level("da").continuous and db.level("da").maximum == 100
    row = next(k for k, r in enumerate(dlg.rows) if r["name"] == "da")
    assert [dlg.model.index(row, c).data() for c in (2, 3, 4)] == [100.0, 30.0, 70.0]
    dlg.name.setText("broken")
    dlg.spins["minimum"].setValue(100)                 # minimum not below maximum
    assert not dlg.add_from_form() and not db.has_class("broken")
    assert "minimum" in str(errors.history[-1])
    dlg.close()
