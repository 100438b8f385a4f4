"""The cluster option "Compute on: this machine / Dask scheduler at ..." in the options
dialog, kept in the workspace (not in EvalOptions: it never changes a number); the
workspace's executor for a Dask scheduler gives the numbers of an in-process run."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.errors import OptionError
from evaltrans_qt.workspace import Workspace


def test_dialog_round_trips_the_choice_and_refuses_an_empty_address(qtbot):
    from evaltrans_qt.ui.options_dialog import OptionsDialog
    dlg = OptionsDialog(EvalOptions(), ["wer"], compute=("dask", "tcp://10.0.0.5:8786"))
    qtbot.addWidget(dlg)
    assert dlg.compute_on() == ("dask", "tcp://10.0.0.5:8786")
    assert dlg.scheduler_edit.isEnabled()
    dlg.compute_kind.setCurrentIndex(0)
    assert dlg.compute_on() == ("auto", "") and not dlg.scheduler_edit.isEnabled()
    dlg.compute_kind.setCurrentIndex(1)
    dlg.scheduler_edit.setText("  ")
    dlg._accept()
    assert dlg.result() != OptionsDialog.Accepted
    assert "needs its address" in dlg.error_label.text()
    assert dlg.options() == EvalOptions()          # the choice is no evaluation option


def test_workspace_checks_and_keeps_the_choice():
    ws = Workspace(autosave=False)
    assert ws.compute_on == ("auto", "") and ws.run_executor() is None
    with pytest.raises(OptionError, match="needs its address"):
        ws.set_compute_on("dask", " ")
    with pytest.raises(OptionError, match="unknown choice 'cloud'"):
        ws.set_compute_on("cloud")
    ws.set_compute_on("dask", " tcp://127.0.0.1:8786 ")
    assert ws.compute_on == ("dask", "tcp://127.0.0.1:8786")
    assert ws.options == EvalOptions()


def test_workspace_runs_on_a_dask_scheduler():
    distributed = pytest.importorskip("distributed")
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.dask import DaskExecutor
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    from evaltrans_qt.io.etdb import demo_database_path, load_database
    db = load_database(demo_database_path())
    opts = EvalOptions(allow_transpositions=True)
    measures = ["invwer", "wer", "bleu"]
    serial = evaluate(db, opts, measures, executor=SerialExecutor())
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        ws = Workspace(autosave=False)
        ws.set_compute_on("dask", cluster.scheduler_address)
        ex = ws.run_executor()
        assert isinstance(ex, DaskExecutor) and ws.run_executor() is ex   # one connection
        run = evaluate(db, opts, measures, executor=ex)
        ws.close()
        assert ws.run_executor() is not ex
        ws.set_compute_on("auto")
    for s in serial.systems:
        for m in measures:
            np.testing.assert_array_equal(serial.systems[s].stats[m], run.systems[s].stats[m])


def test_results_view_runs_on_the_chosen_dask_scheduler(qtbot, main_window, demo_copy,
                                                        monkeypatch):
    """The application's Run uses the workspace's executor when "Compute on" names a Dask
    scheduler, with the numbers of a local run; an unusable choice is an error, not a run."""
    distributed = pytest.importorskip("distributed")
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.dask import DaskExecutor
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    from tests.ui.conftest import open_db
    from tests.ui.test_results import run_to_end
    open_db(qtbot, main_window, demo_copy)
    view = main_window.results.results_view
    used = []
    real = DaskExecutor.run

    def spy(self, *a, **kw):
        used.append(self)
        yield from real(self, *a, **kw)
    monkeypatch.setattr(DaskExecutor, "run", spy)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        main_window.workspace.set_compute_on("dask", cluster.scheduler_address)
        run_to_end(qtbot, view, options=EvalOptions(), measures=["wer", "bleu"])
        assert used, "the run did not go through the Dask executor"
        local = evaluate(main_window.database, EvalOptions(), ["wer", "bleu"],
                         executor=SerialExecutor())
        for s, sr in local.systems.items():
            for m in ("wer", "bleu"):
                assert np.array_equal(view.run.systems[s].stats[m], sr.stats[m])
        main_window.workspace.set_compute_on("auto")
    errors = []
    from evaltrans_qt.ui import errors as ui_errors
    monkeypatch.setattr(ui_errors, "show_error", lambda exc, parent=None: errors.append(exc))
    monkeypatch.setattr(main_window.workspace, "run_executor",
                        lambda: (_ for _ in ()).throw(OptionError("scheduler unreachable")))
    assert view.start_run() is False and "unreachable" in str(errors[0])
