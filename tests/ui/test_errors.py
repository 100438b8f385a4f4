"""Broken files give a dialog naming file, line and problem, and the application keeps working."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QMessageBox

from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.import_dialogs import ImportDialog, run_job
from tests.ui.conftest import open_db


def _dialog(qtbot) -> QMessageBox:
    qtbot.waitUntil(lambda: bool(errors.open_dialogs()), timeout=120_000)
    return errors.open_dialogs()[-1]


def test_broken_database_dialog_then_keeps_working(qtbot, main_window, demo_copy, tmp_path, monkeypatch):
    monkeypatch.setattr(errors, "auto_close_ms", 0)
    w = main_window
    bad = tmp_path / "broken.etdb.xml"
    bad.write_text('<?xml version="1.0" encoding="utf-8"?>\n<database>\n  <levels class="f" count="6"/>\n'
                   '  <source><s_sent>x</s_sent>\n</database>\n', encoding="utf-8")
    w.open_database(bad)
    box = _dialog(qtbot)
    info = box.informativeText()
    exc = errors.history[-1]
    assert f"File: {bad}" in info and "Line: " in info
    # the problem is said once: the dialog's text, not repeated under it
    assert box.text() == exc.problem and exc.problem not in info
    assert isinstance(exc, EvalTransError) and exc.line is not None and exc.line >= 4
    box.close()
    assert w.database is None
    # still usable: open a good file
    db = open_db(qtbot, w, demo_copy)
    assert db is not None and len(db.sources) > 0


def test_missing_file_and_bad_import(qtbot, main_window, tmp_path, monkeypatch):
    monkeypatch.setattr(errors, "auto_close_ms", 0)
    w = main_window
    w.open_database(tmp_path / "nope.etdb.xml")
    box = _dialog(qtbot)
    assert "nope.etdb.xml" in box.informativeText() or "nope.etdb.xml" in box.text()
    box.close()
    qtbot.waitUntil(lambda: not errors.open_dialogs())
    # plain-text import with mismatched line counts: the error names the file and line
    src = tmp_path / "src.txt"
    ref = tmp_path / "ref.txt"
    src.write_text("a\nb\nc\n", encoding="utf-8")
    ref.write_text("A\nB\n", encoding="utf-8")
    dlg = ImportDialog("text", False, w)
    dlg.fields["source"].set_path(src)
    dlg.fields["references"].set_paths([ref])
    run_job(w, dlg.job())
    box = _dialog(qtbot)
    assert "ref.txt" in box.informativeText()
    assert isinstance(errors.history[-1], InputFormatError)
    box.close()
    dlg.deleteLater()


def test_unexpected_errors_reach_one_place(qtbot, main_window, monkeypatch):
    monkeypatch.setattr(errors, "auto_close_ms", 0)
    from evaltrans_qt.ui.workers import start_worker

    def boom():
        raise ZeroDivisionError("division by zero in a worker")

    start_worker(boom)
    box = _dialog(qtbot)
    assert box.text().startswith("Unexpected error: ZeroDivisionError")
    assert "Traceback" in box.detailedText()
    box.close()
    qtbot.waitUntil(lambda: not errors.open_dialogs())
    old_hook = sys.excepthook
    try:
        errors.install_excepthook()
        try:
            raise InputFormatError("bad thing", "x.txt", 3, 7)
        except InputFormatError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
        box = _dialog(qtbot)
        assert "File: x.txt" in box.informativeText() and "Line: 3" in box.informativeText()
        assert "Column: 7" in box.informativeText()
        box.close()
    finally:
        sys.excepthook = old_hook
        import threading
        threading.excepthook = threading.__excepthook__
