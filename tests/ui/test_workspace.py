"""One Qt-free workspace; every view observes it and keeps no copy.

Main tests: changing an option in the dialog changes the compare view's alignment of
the selected sentence; opening a second database clears every panel of the first.
"""

from __future__ import annotations

import json
import subprocess
import sys

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.workspace import Workspace

from .conftest import open_db, wait_compare

MEASURES = ["wer", "bleu", "cder"]


def test_workspace_imports_no_qt():
    code = ("import sys, evaltrans_qt.workspace as w; w.Workspace().set_options("
            "w.EvalOptions()); print(sorted(m for m in sys.modules if m.startswith(('PySide', 'shiboken', "
            "'pyqtgraph'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_open_replays_the_journal_and_reads_the_session(demo_copy):
    """The command line's way in: Workspace.open loads, replays a left-over journal (as the
    application does) and takes options from the session file."""
    from evaltrans_qt.io.etdb import load_database
    from evaltrans_qt.io.journal import Journal, change_for, journal_path
    from evaltrans_qt.io.session import Session, save_session
    db = load_database(demo_copy)
    si, ti = next((i, j) for i, s in enumerate(db.sources) for j, t in enumerate(s.targets)
                  if not db.is_reference(t) and t.value("fluency") is None)
    Journal(journal_path(demo_copy)).append(change_for(db, si, ti, "fluency", 2.0, "kim"))
    save_session(demo_copy, Session(EvalOptions(case="ignore"), ["wer"]))
    seen = []
    ws = Workspace()
    ws.database_changed.connect(lambda: seen.append("db"))
    ws2 = Workspace.open(demo_copy)
    assert ws2.recovered is not None and len(ws2.recovered.applied) == 1
    assert ws2.database.sources[si].targets[ti].value("fluency") == 2.0
    assert ws2.is_dirty                       # the replayed score is not in the file yet
    assert ws2.options == EvalOptions(case="ignore") and ws2.measures == ["wer"]
    assert ws2.run_measures() == ["wer"]
    ws.set_database(ws2.database, demo_copy)
    assert seen == ["db"]


def test_run_currency_follows_options_data_and_measures(demo_copy):
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    ws = Workspace.open(demo_copy)
    events = []
    ws.currency_changed.connect(events.append)
    run = evaluate(ws.database, ws.options, ws.run_measures(), executor=SerialExecutor())
    ws.set_run(run)
    assert ws.run_is_current and events[-1] is True
    ws.set_options(ws.options.replace(cder_pad_rule="none"))
    assert not ws.run_is_current and "options" in ws.stale_reason() and events[-1] is False
    ws.set_options(run.options)
    assert ws.run_is_current
    ws.modified(affects_results=False)        # score classes: the measures' numbers stand
    assert ws.run_is_current
    ws.modified(affects_results=True)         # a merge or import: they may not
    assert "database changed" in ws.stale_reason()
    ws.set_run(run, "report", demo_copy.with_name("r.xml"))
    assert "r.xml" in ws.stale_reason()


def test_changing_an_option_in_the_dialog_changes_the_alignment(qtbot, main_window, demo_copy,
                                                              monkeypatch):
    """The options dialog -> workspace -> compare view (no private copy)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from evaltrans_qt.ui.options_dialog import OptionsDialog
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    view = w.compare_view
    view.set_measure("cder")
    # a candidate whose 13a tokens differ from its blank-separated words (punctuation)
    si, ti = next((i, j) for i, s in enumerate(db.sources) for j, t in enumerate(s.targets)
                  if not db.is_reference(t) and Tokenizer13a()(t.text).split() != t.text.split())
    w.open_in_compare(si, ti)
    before = wait_compare(qtbot, w)
    text = db.sources[si].targets[ti].text
    assert before.alignment is not None and list(before.alignment.hyp) == Tokenizer13a()(text).split()

    def accept_with_tokenization_none(dlg):
        dlg.editor("tokenization").setCurrentText("none")
        return OptionsDialog.Accepted
    monkeypatch.setattr(OptionsDialog, "exec", accept_with_tokenization_none)
    assert w.results.results_view.edit_options()
    assert w.workspace.options.tokenization == "none"
    assert view.options is w.workspace.options and not hasattr(view, "set_options")
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending
                    and list(view.comparison.alignment.hyp) == text.split(), timeout=60_000)
    assert (view._source, view._hyp) == (db.sources[si].text, text)     # the same sentence
    # and the numbers shown are those of `evaltrans align` under the same options
    from evaltrans_qt.cli.align import compute
    refs = [r.text for r in db.references(db.sources[si])]
    al = compute("cder", text, refs, w.workspace.options)
    assert dict(view.comparison.breakdown)["Distance"] == f"{al.distance:.4g}"


def _second_database(tmp_path):
    from evaltrans_qt.io.plaintext import import_text
    (tmp_path / "src.txt").write_text("ein kleiner test\nnoch ein satz\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("a small test\none more sentence\n", encoding="utf-8")
    (tmp_path / "X.txt").write_text("a little test\none sentence more\n", encoding="utf-8")
    db = import_text(tmp_path / "src.txt", [tmp_path / "ref.txt"], [("X", tmp_path / "X.txt")])
    from evaltrans_qt.io.etdb import dumps
    out = tmp_path / "second.etdb.xml"
    out.write_bytes(dumps(db))
    return out


def test_opening_a_second_database_clears_every_panel(qtbot, main_window, demo_copy, tmp_path):
    """Nothing of the first database stays in any panel."""
    from .test_results import run_to_end
    w = main_window
    open_db(qtbot, w, demo_copy)
    view, live = w.results.results_view, w.results.live_panel
    run_to_end(qtbot, view, options=EvalOptions(), measures=MEASURES)
    qtbot.waitUntil(lambda: live.updates >= 1, timeout=30_000)
    view.tabs.setCurrentIndex(view.tabs.count() - 1)            # histogram drawn
    view.hist_measure.setCurrentText("BLEU")
    view.tabs.setCurrentIndex(2)
    view.sig_measure.setCurrentText("bleu")
    view.sig_samples.setValue(100)
    view.compute_significance()
    qtbot.waitUntil(lambda: view.sig_plot.has_data, timeout=60_000)
    view.sentence_filter.setText("RuleMT")
    w.browse.source_filter.setText("the")
    w.browse.target_filter.setText("a")
    assert view.scatter.has_data and view.histogram.counts and view.bars.values
    assert len(live.model.frame) and "4 systems" in view.status.text()
    first_label = w.browse.db_label.text()

    second = _second_database(tmp_path)
    open_db(qtbot, w, second)
    qtbot.wait(50)
    assert w.workspace.run is None and view.run is None and view.analysis is None
    assert len(view.system_model.frame) == 0 and len(view.sentence_model.frame) == 0
    assert len(view.corr_model.frame) == 0
    assert not view.scatter.has_data and not view.histogram.counts and not view.bars.values
    assert not view.sig_plot.has_data and view.sig_plot.pvalues.size == 0
    assert view.plot_measure.count() == 0 and view.diff_a.count() == 0
    assert view.sentence_filter.text() == "" and view.status.text() == ""
    assert view.progress.format() == "idle" and view.banner.isHidden()
    assert len(live.model.frame) == 0 and live.label.text() == live.IDLE
    assert w.browse.source_filter.text() == "" and w.browse.target_filter.text() == ""
    assert w.browse.db_label.text() != first_label and "2 sources" in w.browse.db_label.text()
    assert w.browse.source_proxy.rowCount() == 2
    c = wait_compare(qtbot, w)
    assert w.compare_view._source == "ein kleiner test" and c is not None


def test_command_line_reads_the_database_through_the_workspace(demo_copy, capsys):
    """`evaltrans correlate` sees the scores of an unfinished scoring session (its journal),
    as the application does, says so, and leaves the file alone."""
    from evaltrans_qt.cli.main import main as cli_main
    from evaltrans_qt.io.etdb import load_database
    from evaltrans_qt.io.journal import Journal, change_for, journal_path
    db = load_database(demo_copy)
    todo = [(i, j) for i, s in enumerate(db.sources) for j, t in enumerate(s.targets)
            if not db.is_reference(t) and t.value("fluency") is None][:6]
    before_bytes = demo_copy.read_bytes()
    assert cli_main(["correlate", str(demo_copy), "--human", "fluency", "--json"]) == 0
    n_before = json.loads(capsys.readouterr().out)
    j = Journal(journal_path(demo_copy))
    for k, (si, ti) in enumerate(todo):
        j.append(change_for(db, si, ti, "fluency", float(1 + k % 5), "kim"))
    j.close()
    assert cli_main(["correlate", str(demo_copy), "--human", "fluency", "--json"]) == 0
    out, err = capsys.readouterr()
    after = json.loads(out)
    assert f"{demo_copy}: 6 unsaved judgements from the journal included" in err
    assert demo_copy.read_bytes() == before_bytes
    def ns(doc):
        rows = doc if isinstance(doc, list) else doc.get("correlations", [])
        return [r["n"] for r in rows if r.get("level", "sentence") == "sentence"]
    assert ns(after) and [n - 6 for n in ns(after)] == ns(n_before), (ns(n_before), ns(after))
