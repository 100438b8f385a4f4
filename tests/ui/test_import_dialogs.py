"""File → Import: each dialog builds the matching importer call; results open untitled or merge."""

from __future__ import annotations

from evaltrans_qt.ui.import_dialogs import ImportDialog, run_job


def _run(qtbot, w, dlg, merge=False):
    with qtbot.waitSignal(w.databaseChanged, timeout=60000):
        run_job(w, dlg.job(), merge, policy="new")
    dlg.deleteLater()
    return w.database


def test_import_wmt_folder_with_scores(qtbot, main_window, wmt_dir):
    w = main_window
    dlg = ImportDialog("wmt", False, w)
    dlg.fields["folder"].set_path(wmt_dir)
    dlg.fields["scores"].set_path(wmt_dir / "mqm.tsv")
    db = _run(qtbot, w, dlg)
    assert len(db.sources) == 1002 and len(db.systems()) == 20
    assert "mqm" in db.human_classes
    assert w.database_path is None and w.is_dirty and "untitled" in w.windowTitle()
    assert w.browse.source_model.rowCount() == 1002


def test_import_text_and_aachen_then_merge(qtbot, main_window, tmp_path):
    w = main_window
    (tmp_path / "src.txt").write_text("eins\nzwei\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "newstest.hyp.SysA.en").write_text("one\ntoo\n", encoding="utf-8")
    dlg = ImportDialog("text", False, w)
    dlg.fields["source"].set_path(tmp_path / "src.txt")
    dlg.fields["references"].set_paths([tmp_path / "ref.txt"])
    dlg.fields["systems"].set_paths([tmp_path / "newstest.hyp.SysA.en"])
    db = _run(qtbot, w, dlg)
    assert [s.text for s in db.sources] == ["eins", "zwei"]
    assert db.systems() == ["SysA"]
    # an Aachen file merged into the open database adds its source
    aachen = tmp_path / "a.txt"
    aachen.write_text("SOURCE drei\nTARGET 10 three\nTARGET 4 tree\n", encoding="utf-8")
    dlg = ImportDialog("aachen", True, w)
    dlg.fields["file"].set_path(aachen)
    db2 = _run(qtbot, w, dlg, merge=True)
    assert db2 is db and [s.text for s in db.sources] == ["eins", "zwei", "drei"]
    assert w.files.last_merge_report.added_sources == 1


def test_import_reports_repeated_sources_with_different_references(qtbot, main_window, tmp_path,
                                                                   monkeypatch):
    from evaltrans_qt.ui import errors
    w = main_window
    shown = []
    monkeypatch.setattr(errors, "show_error",
                        lambda exc, parent=None, title=None: shown.append((title, str(exc))))
    (tmp_path / "src.txt").write_text("Danke.\nDanke.\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("Thank you.\nThanks.\n", encoding="utf-8")
    dlg = ImportDialog("text", False, w)
    dlg.fields["source"].set_path(tmp_path / "src.txt")
    dlg.fields["references"].set_paths([tmp_path / "ref.txt"])
    db = _run(qtbot, w, dlg)
    assert len(db.sources) == 2 and shown == []     # positional: one source per line
    # Aachen text has no positions: the repeated sentence is merged (thesis Appendix A.2) and reported
    (tmp_path / "a.txt").write_text("SOURCE Danke.\nTARGET 10 Thank you.\n"
                                    "SOURCE Danke.\nTARGET 10 Thanks.\n", encoding="utf-8")
    dlg = ImportDialog("aachen", False, w)
    dlg.fields["file"].set_path(tmp_path / "a.txt")
    db = _run(qtbot, w, dlg)
    assert len(db.sources) == 1
    assert len(shown) == 1 and "repeated source" in shown[0][0]
    assert "Appendix A.2" in shown[0][1] and "'Danke.'" in shown[0][1]
