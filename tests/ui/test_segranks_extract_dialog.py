"""Session → SegRanks → Extract segments…: the command line's extraction in the
application, in the background, with the same numbers; errors keep the dialog and its
fields."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evaltrans_qt.ui.segranks_dialog import SegRanksExtractDialog

from .conftest import open_db

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "segranks_example"


@pytest.fixture
def camp(tmp_path):
    d = tmp_path / "camp"
    shutil.copytree(EXAMPLE, d)
    return d


def test_extracts_in_the_background_like_the_command_line(qtbot, main_window, camp, tmp_path):
    open_db(qtbot, main_window, camp / "campaign.etdb.xml")
    names = [a.objectName() for a in main_window.findChild(type(main_window.session_menu),
                                                            "segranksMenu").actions()]
    assert names == ["action_extractsegments"]
    dlg = SegRanksExtractDialog(main_window.workspace, main_window)
    qtbot.addWidget(dlg)
    out = tmp_path / "x.segments"
    # a wrong field: said under the fields, the dialog and its fields stay
    dlg.trees.setText(str(camp / "missing.ptb"))
    dlg.alignments.setText(str(camp))
    dlg.output.setText(str(out))
    assert not dlg.start()
    assert "Parse trees" in dlg.status.text() and dlg.alignments.text() == str(camp)
    dlg.trees.setText(str(camp / "sources.ptb"))
    with qtbot.waitSignal(dlg.extracted, timeout=120_000) as sig:
        assert dlg.start()
        assert dlg.running and not dlg.ok.isEnabled()
    s = sig.args[0]
    # the numbers of 'evaltrans segranks extract' on the same files (tests/cli)
    assert (s.sentences, s.segments, s.projected, s.merged) == (5, 7, 21, 17)
    assert len(out.read_text(encoding="utf-8").splitlines()) == 17
    assert main_window.workspace.is_dirty
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    db = main_window.workspace.database
    assert sum(len(ss.segments) for src in db.sources if (ss := sentence_segments(src))) == 7
    qtbot.waitUntil(lambda: not dlg.running)
    assert dlg.ok.isEnabled() and "17 after merging" in dlg.status.text()


def test_an_input_error_names_the_file_and_keeps_the_fields(qtbot, main_window, camp, tmp_path):
    open_db(qtbot, main_window, camp / "campaign.etdb.xml")
    bad = tmp_path / "bad.ptb"
    bad.write_text("(S (NP a) b\n", encoding="utf-8")
    dlg = SegRanksExtractDialog(main_window.workspace, main_window)
    qtbot.addWidget(dlg)
    dlg.trees.setText(str(bad))
    dlg.alignments.setText(str(camp))
    dlg.output.setText(str(tmp_path / "y.segments"))
    assert dlg.start()
    qtbot.waitUntil(lambda: not dlg.running, timeout=60_000)
    assert "bad.ptb" in dlg.status.text() and dlg.trees.text() == str(bad)
    assert not (tmp_path / "y.segments").exists() and not main_window.workspace.is_dirty
