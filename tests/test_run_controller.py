"""The run controller (Qt-free): the driver's own result kept in the workspace with its
warnings, the workspace's executor choice, the one time estimate (TimeLeft), cancel; and
the workspace's analysis choice."""

from __future__ import annotations

import os
import shutil
import threading

import numpy as np
import pytest

import evaltrans_qt.api as et
import evaltrans_qt.run_controller as rc
from evaltrans_qt.analysis_choice import AnalysisChoice
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.engine.run.results import SystemResult
from evaltrans_qt.engine.run.schedule import TimeLeft
from evaltrans_qt.errors import Cancelled, OptionError
from evaltrans_qt.run_controller import RunController, RunError, RunUpdate
from evaltrans_qt.workspace import Workspace

MEASURES = ["wer", "bleu", "ter", "chrf"]


@pytest.fixture
def workspace(tmp_path):
    from evaltrans_qt.io.etdb import demo_database_path
    path = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), path)
    ws = Workspace.open(path, autosave=False)
    yield ws
    ws.close()


def _lonely(db) -> None:
    """A candidate whose source has no reference: the driver warns that it is skipped."""
    src = db.add_source("a source nobody translated as a reference")
    db.add_target(src, "a lonely candidate", "RuleMT")


def test_a_run_gives_the_numbers_of_the_api_and_the_driver(workspace):
    ctl = RunController(workspace)
    events: list = []
    run = ctl.run(EvalOptions(), MEASURES, report=events.append)
    assert workspace.run is run and workspace.run_origin == "run" and workspace.run_is_current
    assert not ctl.running
    api = et.evaluate(et.Database.demo(), MEASURES, EvalOptions()).result
    direct = evaluate(workspace.database, EvalOptions(), MEASURES, executor=SerialExecutor())
    assert list(run.systems) == list(api.systems) == workspace.database.systems()
    for s, sr in run.systems.items():
        for m in MEASURES:
            assert sr.scores[m].value == pytest.approx(api.systems[s].scores[m].value, abs=1e-12)
            np.testing.assert_array_equal(sr.stats[m], direct.systems[s].stats[m])
    # progress and every finished system were reported
    updates = [e for e in events if isinstance(e, RunUpdate)]
    systems = [e.system for e in events if isinstance(e, SystemResult)]
    assert updates and updates[-1].done == updates[-1].total > 0
    assert sorted(systems) == sorted(run.systems)
    # the run is the database's, and in the session file's log
    assert run.database_path == str(workspace.path)
    sess = workspace.session_or_none()
    assert sess is not None and sess.runs[-1]["measures"] == MEASURES


def test_driver_warnings_survive_into_the_workspace_run(workspace):
    _lonely(workspace.database)
    events: list = []
    RunController(workspace).run(EvalOptions(), ["wer"], report=events.append)
    warnings = workspace.run.meta["warnings"]
    assert any("RuleMT" in w and "1 candidate(s) skipped" in w for w in warnings)
    assert workspace.run.meta["seconds"] >= 0             # the driver's own meta, kept whole
    reported = [w for e in events if isinstance(e, RunUpdate) for w in e.warnings]
    assert reported == list(warnings)


def test_cancel_keeps_the_previous_run(workspace):
    ctl = RunController(workspace)
    first = ctl.run(EvalOptions(), ["wer"])
    job = ctl.start(EvalOptions(), MEASURES, executor=SerialExecutor())
    job.chunk_size = 8                                   # many row events to stop between
    seen: list[RunUpdate] = []

    def report(item) -> None:
        if isinstance(item, RunUpdate):
            seen.append(item)
            if item.total and item.done > 0:
                job.cancel()

    with pytest.raises(Cancelled):
        job.compute(report=report)
    assert ctl.finish(job, None) is None and not ctl.running
    assert workspace.run is first                        # nothing of the cancelled run
    assert seen[-1].done < seen[-1].total                # it really stopped early


def test_cancel_from_another_thread(workspace):
    """The worker thread's own cancel flag stops the driver too."""
    ctl = RunController(workspace)
    job = ctl.start(EvalOptions(), MEASURES, executor=SerialExecutor())
    job.chunk_size = 4
    flag = threading.Event()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            job.compute(cancel=flag, report=lambda item: flag.set())
        except BaseException as exc:           # the thread reports what it raised
            errors.append(exc)

    t = threading.Thread(target=work)
    t.start()
    t.join(120)
    assert len(errors) == 1 and isinstance(errors[0], Cancelled)
    assert ctl.finish(job, None) is None and workspace.run is None


def test_the_time_estimate_is_time_left(workspace, monkeypatch):
    """Every update's estimate is what TimeLeft (engine/run/schedule.py) says, on the
    run's clock; the row phase gives one after its first chunk."""
    made: list[Spy] = []

    class Spy(TimeLeft):
        def __init__(self, workers: int = 1) -> None:
            super().__init__(workers)
            self.said: list[float | None] = []
            made.append(self)

        def see(self, elapsed, progress):
            out = super().see(elapsed, progress)
            self.said.append(out)
            return out

    monkeypatch.setattr(rc, "TimeLeft", Spy)
    ctl = RunController(workspace)
    job = ctl.start(EvalOptions(), MEASURES, executor=SerialExecutor())
    job.chunk_size = 16
    ticks = iter(range(10_000))
    job.clock = lambda: float(next(ticks))                # one second per reading
    updates: list[RunUpdate] = []
    ctl.finish(job, job.compute(report=lambda e: isinstance(e, RunUpdate) and updates.append(e)))
    assert len(made) == 1 and made[0].workers == job.workers
    assert [u.seconds_left for u in updates] == made[0].said
    middle = [u for u in updates if 0 < u.done < u.total and u.seconds_left is not None]
    assert middle, "the row phase never had an estimate"
    assert all(u.elapsed == pytest.approx(i + 1) for i, u in enumerate(updates))
    assert workspace.run is not None


def test_the_workspaces_executor_choice_is_used(workspace, monkeypatch):
    chosen = SerialExecutor()
    monkeypatch.setattr(workspace, "run_executor", lambda: chosen)
    ctl = RunController(workspace)
    job = ctl.start(EvalOptions(), ["wer"])
    assert job.executor is chosen and ctl.pool is None
    ctl.finish(job, job.compute())
    assert set(workspace.run.systems) == set(workspace.database.systems())


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: the driver's rule is serial")
def test_runs_on_this_machine_follow_the_drivers_rule(workspace):
    """Small and cheap: serial; a pair phase (INVWER): the controller's niced pool, kept."""
    ctl = RunController(workspace)
    try:
        job = ctl.start(EvalOptions(), ["wer"])
        assert isinstance(job.executor, SerialExecutor) and job.chunk_size is None
        ctl.finish(job, None)
        job = ctl.start(EvalOptions(allow_transpositions=True), ["wer", "invwer"])
        assert job.executor is ctl.pool and ctl.pool is not None
        assert ctl.pool.nice == rc.POOL_NICE and job.chunk_size == rc.POOL_CHUNK_ROWS
        ctl.finish(job, None)
        assert ctl.start(EvalOptions(allow_transpositions=True), ["invwer"]).executor is ctl.pool
    finally:
        ctl.close()
    assert ctl.pool is None


def test_a_run_that_cannot_start(workspace):
    assert pytest.raises(RunError, RunController(Workspace(autosave=False)).start)
    ctl = RunController(workspace)
    ctl.start(EvalOptions(), ["wer"])
    with pytest.raises(RunError, match="already going"):
        ctl.start()


def test_a_result_for_another_database_is_dropped(workspace):
    ctl = RunController(workspace)
    job = ctl.start(EvalOptions(), ["wer"])
    result = job.compute()
    workspace.set_database(et.Database.demo())
    assert ctl.finish(job, result) is None and workspace.run is None and not ctl.running


def test_time_left_reads_as_on_the_command_line():
    from evaltrans_qt.cli.batch import format_seconds as cli_format
    for seconds in (0, 1.4, 59.6, 119, 120, 3599, 7199, 7200, 36_000):
        assert rc.format_seconds(seconds) == cli_format(seconds)
    assert RunUpdate(1, 4, "rows", 30.0, 7200.0).eta_text() == "30 s, ~2.0 h left"


# ------------------------------------------------------------------ the analysis choice
def test_the_analysis_choice_follows_the_database(workspace):
    choice = workspace.analysis
    assert choice.classes[:3] == ["fluency", "adequacy", "sser"] and choice.human == "fluency"
    seen: list[str | None] = []
    choice.changed.connect(lambda: seen.append(choice.human))
    assert choice.set_human("adequacy") and not choice.set_human("adequacy")
    assert seen == ["adequacy"]
    with pytest.raises(OptionError, match="'nope' is not in the database"):
        choice.set_human("nope")
    with pytest.raises(OptionError, match="level 'corpus'"):
        choice.set_level("corpus")
    assert choice.set(level="system", normalize=True) and seen == ["adequacy", "adequacy"]
    assert (choice.level, choice.normalize) == ("system", True)
    # a database without the class: it falls back to the first one there
    from evaltrans_qt.engine.data.database import Levels
    db = et.Database()
    db.add_class(Levels("fluency", 6, 2, 5, 5, 1))
    s = db.add_source("x")
    db.add_target(s, "y", "A")
    workspace.set_database(db)
    assert choice.classes[0] == "fluency" and "adequacy" not in choice.classes
    assert choice.human == "fluency"
    assert seen[-1] == "fluency" and choice.level == "system"   # level and normalisation stay
    workspace.set_database(None)
    assert choice.classes == [] and choice.human is None


def test_the_analysis_choice_alone():
    c = AnalysisChoice(level="system")
    assert c.level == "system" and c.human is None
    with pytest.raises(OptionError):
        AnalysisChoice(level="paragraph")
    c.set_classes(["a", "b"])
    assert c.human == "a"
    c.set_human("b")
    c.set_classes(["a"])
    assert c.human == "a"
