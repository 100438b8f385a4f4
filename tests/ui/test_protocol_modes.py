"""Human-evaluation protocols in the application: references, post-edit mode, information
items, undo, recovery.

Values are checked against independent tools: HTER of the live editor against
sacreBLEU's TER on the same texts, the aWER mode's highlighted words against jiwer's
WER alignment to the nearest reference.
"""

from __future__ import annotations

import json
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from evaltrans_qt.engine.data import protocols, schemes
from evaltrans_qt.io.etdb import save_database
from evaltrans_qt.io.journal import journal_path
from evaltrans_qt.io.plaintext import import_text
from tests.ui.conftest import open_db

SRC = ["The cat sat on the mat .", "He went to the market yesterday .", "It rains ."]
REF = ["Die Katze saß auf der Matte .", "Er ging gestern auf den Markt .", "Es regnet ."]
SYS_A = ["Die Katze sitzt auf Matte .", "Er ging zum Markt gestern .", "Es regnet ."]
SYS_B = ["Katze saß auf der Matte", "Er ist gestern zum Markt gegangen .", "Es regnet stark ."]


def make_study(tmp_path, templates=("fluency5", "adequacy5")):
    """A text import (source, one reference, two systems) with the classes of
    ``templates``, saved as ``study.etdb.xml``."""
    files = {}
    for name, lines in (("src", SRC), ("ref", REF), ("a", SYS_A), ("b", SYS_B)):
        p = tmp_path / f"{name}.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files[name] = p
    db = import_text(files["src"], [files["ref"]], [("sysA", files["a"]), ("sysB", files["b"])])
    for t in templates:
        schemes.add_template(db, t)
    path = tmp_path / "study.etdb.xml"
    save_database(db, path)
    return path


@pytest.fixture
def text_db(tmp_path):
    """A text import (source, one reference, two systems) with fluency5 and adequacy5."""
    return make_study(tmp_path)


def _start(qtbot, w, path, judge="kim"):
    open_db(qtbot, w, path)
    s = w.start_session(judge, None, None, start_unscored=False)
    assert s is not None
    return s


def _journal_types(path):
    jp = journal_path(path)
    if not jp.exists():
        return []
    return [json.loads(line).get("type", "score") for line in jp.read_text().splitlines() if line]


def test_postedit_mode_stores_with_seconds_and_undoes(qtbot, main_window, text_db):
    w = main_window
    s = _start(qtbot, w, text_db)
    pm = w.protocol_modes
    item = s.current
    assert pm.enter_mode("postedit")
    ed = pm.postedit_panel.editor
    assert ed.toPlainText() == SYS_A[0]          # the candidate, as it is
    ed.selectAll()
    QTest.keyClicks(ed, "Die Katze sitzt auf der Matte .")
    QTest.keyClick(ed, Qt.Key_Return)            # Enter stores
    t = s.target(item)
    pe = t.postedit_by("kim")
    assert pe is not None and pe.text == "Die Katze sitzt auf der Matte ."
    assert pe.seconds is not None and pe.seconds >= 0
    assert "postedit" in _journal_types(text_db)  # journalled
    assert pm.mode is None                        # back to scoring
    w.scoring.act_undo.trigger()                          # Ctrl+Z: the post-edit is gone
    assert t.postedit_by("kim") is None
    w.scoring.act_redo.trigger()
    assert t.postedit_by("kim").text == "Die Katze sitzt auf der Matte ."


def test_live_hter_equals_sacrebleu_ter(qtbot, main_window, text_db):
    from sacrebleu.metrics import TER
    w = main_window
    _start(qtbot, w, text_db)
    pm = w.protocol_modes
    pm.enter_mode("postedit")
    panel = pm.postedit_panel
    edited = "Die Katze saß gestern auf der Matte ."
    panel.editor.setPlainText(edited)             # textChanged: highlighted at once
    ter = TER().sentence_score(SYS_A[0], [edited])
    stats = TER().corpus_score([SYS_A[0]], [[edited]])
    assert panel.edits.distance == pytest.approx(stats.num_edits)
    assert panel.edits.distance / panel.edits.length == pytest.approx(ter.score / 100)
    assert panel.edits.spans                      # something is marked
    assert "HTER" in panel.summary.text()


def test_live_edits_fast_enough(qtbot, main_window, text_db):
    """Highlighting runs in the UI thread on every keystroke: well under 50 ms a sentence."""
    w = main_window
    _start(qtbot, w, text_db)
    pm = w.protocol_modes
    pm.enter_mode("postedit")
    ed = pm.postedit_panel.editor
    QTest.keyClicks(ed, " x")                     # warm-up
    times = []
    for ch in "und dann noch etwas mehr Text":
        t0 = time.perf_counter()
        QTest.keyClick(ed, ch)
        times.append(time.perf_counter() - t0)
    times.sort()
    assert times[len(times) // 2] < 0.05


def test_reference_mode_highlights_wer_edits_and_adds_reference(qtbot, main_window, text_db):
    import jiwer
    w = main_window
    s = _start(qtbot, w, text_db)
    pm = w.protocol_modes
    s.go_to(s.index_of[(1, 1)])                   # sysA of source 2
    assert pm.enter_mode("reference")
    panel = pm.postedit_panel
    cand = SYS_A[1]
    out = jiwer.process_words(REF[1], cand)
    wrong = sum(1 for op in out.alignments[0] if op.type in ("substitute", "insert")
                for _ in range(op.hyp_end_idx - op.hyp_start_idx))
    assert len(panel.edits.spans) == wrong
    assert panel.edits.distance == out.substitutions + out.deletions + out.insertions
    new_ref = "Er ging gestern zum Markt ."
    panel.editor.setPlainText(new_ref)
    QTest.keyClick(panel.editor, Qt.Key_Return, Qt.ControlModifier)
    db = w.database
    src = db.sources[1]
    added = [t for t in src.targets if t.added]
    assert [t.text for t in added] == [new_ref] and added[0].added_by == "kim"
    assert db.is_reference(added[0])
    w.scoring.act_undo.trigger()
    assert not any(t.added for t in src.targets)


def test_promote_and_back_with_undo(qtbot, main_window, text_db):
    w = main_window
    s = _start(qtbot, w, text_db)
    db = w.database
    item = s.current
    t = s.target(item)
    n_items = len(s.items)
    w.protocol_modes.act_promote.trigger()
    assert db.is_reference(t)
    assert len(s.items) == n_items - 1            # no longer a candidate of the session
    w.scoring.act_undo.trigger()
    assert not db.is_reference(t)
    assert len(s.items) == n_items


def test_add_reference_dialog(qtbot, main_window, text_db, monkeypatch):
    from evaltrans_qt.ui.reference_editor import AddReferenceDialog
    w = main_window
    _start(qtbot, w, text_db)

    def fake_exec(dlg):
        dlg.edit.setText("Es regnet heute .")
        dlg.name_edit.setText("kim-ref")
        dlg._accept()
        return AddReferenceDialog.Accepted
    monkeypatch.setattr(AddReferenceDialog, "exec", fake_exec)
    w.protocol_modes.add_reference_dialog()
    src = w.database.sources[0]
    assert any(t.system == "kim-ref" and t.text == "Es regnet heute ." for t in src.targets)


def test_define_items_by_selecting_words_and_mark_with_keys(qtbot, main_window, text_db, monkeypatch):
    from evaltrans_qt.ui.items_panel import ItemsDialog
    w = main_window
    s = _start(qtbot, w, text_db)
    pm = w.protocol_modes
    assert not pm.enter_mode("items")             # no items yet: refused with a hint

    def fake_exec(dlg):
        dlg.select_words(0, 1)                    # "The cat" (mouse selection)
        assert dlg.add_selection()
        dlg.word_list.setFocus()
        dlg.word_list.setCurrentRow(2)            # keyboard: "sat on" with Shift+Right, Enter
        dlg.word_list.clearSelection()
        dlg.word_list.item(2).setSelected(True)
        QTest.keyClick(dlg.word_list, Qt.Key_Right, Qt.ShiftModifier)
        QTest.keyClick(dlg.word_list, Qt.Key_Return)
        dlg.select_words(4, 5)                    # "the mat"
        dlg.add_selection()
        dlg.select_words(5, 6)                    # overlaps: refused, says why
        assert not dlg.add_selection() and "overlap" in dlg.error.text()
        dlg._accept()
        return ItemsDialog.Accepted
    monkeypatch.setattr(ItemsDialog, "exec", fake_exec)
    pm.define_items_dialog()
    src = w.database.sources[0]
    assert src.items == [(0, 2), (2, 4), (4, 6)]
    assert protocols.item_texts(src) == ["The cat", "sat on", "the mat"]
    assert pm.enter_mode("items")
    for key in "OES":                             # one key per item
        QTest.keyClick(w, key)
    t = s.target(s.current)
    assert t.marks_by("kim").marks == ("OK", "error", "syntax")
    assert "marks" in _journal_types(text_db)
    w.scoring.act_undo.trigger()
    assert t.marks_by("kim") is None
    w.scoring.act_undo.trigger()                          # and the items themselves
    assert src.items == []


def test_item_keys_in_f1_list(qtbot, main_window):
    from evaltrans_qt.ui.shortcuts import ShortcutsDialog
    rows = ShortcutsDialog(main_window).rows()
    keys = {(a, k) for _m, a, k in rows}
    for mark, key in (("OK", "O"), ("error", "E"), ("syntax", "S"), ("meaning", "M"), ("other", "X")):
        assert (f"Mark item {mark}", key) in keys
    actions = {a for _m, a, _k in rows}
    assert "Post-edit the candidate (HTER)" in actions
    assert any("Enter" in k for _m, a, k in rows if "post-edit" in a.lower())


def test_skipped_journal_lines_are_shown(qtbot, main_window, text_db):
    jp = journal_path(text_db)
    jp.write_text('{"garbled\n{"type":"postedit","source":5}\n', encoding="utf-8")
    w = main_window
    open_db(qtbot, w, text_db)
    qtbot.waitUntil(lambda: bool(getattr(w.protocol_modes, "last_skipped", None)), timeout=5000)
    assert [n for n, _ in w.protocol_modes.last_skipped] == [1, 2]
