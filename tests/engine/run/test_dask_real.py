"""``evaltrans batch --executor dask-local|dask`` on inputs of real size: several
tokenisation batches (the parallel tokeniser of ``engine/run/corpus.py`` goes through
``Executor.map``), several reference sets, INVWER -- the reports are bit-identical to
the local pool's.

The CI-sized tests lower :data:`~evaltrans_qt.engine.run.corpus.PARALLEL_TOKENIZE_MIN` so
that a database of a few hundred sentences takes the multi-batch path that WMT-sized
inputs take; the ``slow`` test runs the README's WMT21 en-de command itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from evaltrans_qt.cli.main import main  # noqa: E402
from evaltrans_qt.engine.data.database import Database  # noqa: E402
from evaltrans_qt.engine.run import corpus  # noqa: E402
from evaltrans_qt.engine.run.executors.dask import DaskExecutor  # noqa: E402
from evaltrans_qt.io.etdb import save_database  # noqa: E402
from evaltrans_qt.io.report import read_report  # noqa: E402

WORDS = ("the", "a", "house", "cat", "is", "was", "green", "old", "in", "on", "garden",
         "we", "saw", "it", "yesterday", "and", "then", "dog", "ran", "away", "small")
REFS = ("ref-A", "ref-B", "ref-C")
SYSTEMS = ("S1", "S2", "S3")


def _database(n_sources: int = 40, seed: int = 3) -> Database:
    """``n_sources`` sources, three reference sets, three systems; sentences of 6-14 words
    with punctuation (the tokeniser splits it off), systems = a reference with words
    swapped and replaced, so INVWER has block moves to find."""
    rng = np.random.default_rng(seed)
    db = Database()

    def sentence(words) -> str:
        return " ".join(words).capitalize().replace(" and", ", and") + "."

    for k in range(n_sources):
        src = db.add_source(f"Quelle {k} , mit Text .")
        base = list(rng.choice(WORDS, int(rng.integers(6, 15))))
        for r in REFS:
            ref = list(base)
            ref[int(rng.integers(len(ref)))] = str(rng.choice(WORDS))
            db.add_target(src, sentence(ref), r, reference=True)
        for s in SYSTEMS:
            hyp = list(base)
            cut = int(rng.integers(1, len(hyp)))
            hyp = hyp[cut:] + hyp[:cut]                       # a block move
            for _ in range(int(rng.integers(0, 3))):
                hyp[int(rng.integers(len(hyp)))] = str(rng.choice(WORDS))
            db.add_target(src, sentence(hyp), s)
    return db


@pytest.fixture()
def database(tmp_path: Path) -> Path:
    path = tmp_path / "multi.etdb.xml"
    save_database(_database(), path)
    return path


@pytest.fixture()
def map_calls(monkeypatch) -> list[int]:
    """Lengths of the item lists ``DaskExecutor.map`` is called with (the tokenisation
    batches), with the threshold of parallel tokenisation lowered to reach that path."""
    monkeypatch.setattr(corpus, "PARALLEL_TOKENIZE_MIN", 50)
    calls: list[int] = []
    real = DaskExecutor.map

    def spy(self, fn, items, cancel=None):
        calls.append(len(items))
        return real(self, fn, items, cancel)

    monkeypatch.setattr(DaskExecutor, "map", spy)
    return calls


def _batch(db: Path, out: Path, executor: list[str], capsys,
           measures: str = "invwer,wer,bleu,ter,cder") -> dict:
    out.parent.mkdir(parents=True, exist_ok=True)
    # (INVWER named in --measures runs without --allow-transpositions, which is then refused)
    rc = main(["batch", "--database", str(db), "--all-systems", "--measures", measures,
               "--xml-mode", "--json", "--sentences-in-detail",
               "--output-file", str(out), *executor])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    summary = json.loads(captured.out)["systems"]
    for values in summary.values():
        assert Path(values.pop("report")).parent == out.parent
    return summary


def _same_reports(a: Path, b: Path, systems) -> None:
    """Every system's report: the same statistics arrays and scores, bit for bit."""
    for s in systems:
        ra = read_report(a.with_name(f"{a.stem.split('.')[0]}.{s}.xml")).systems[s]
        rb = read_report(b.with_name(f"{b.stem.split('.')[0]}.{s}.xml")).systems[s]
        assert "invwer" in ra.scores and ra.scores == rb.scores
        assert set(ra.stats) == set(rb.stats) and ra.segments == rb.segments
        for m in ra.stats:
            np.testing.assert_array_equal(ra.stats[m], rb.stats[m])
        assert ra.ref_distances.keys() == rb.ref_distances.keys()
        for m in ra.ref_distances:
            np.testing.assert_array_equal(ra.ref_distances[m], rb.ref_distances[m])


def test_dask_local_equals_the_local_pool_with_several_tokenisation_batches(
        database, map_calls, tmp_path, capsys):
    local = _batch(database, tmp_path / "local" / "run.xml",
                   ["--executor", "local", "--workers", "2"], capsys)
    assert map_calls == []
    ra = read_report(tmp_path / "local" / "run.S1.xml").systems["S1"]
    assert ra.stats["invwer"].shape[0] == 40 and ra.ref_distances["invwer"].shape == (40, 3)
    dask = _batch(database, tmp_path / "dask" / "run.xml",
                  ["--executor", "dask-local", "--workers", "2"], capsys)
    # the tokeniser went through the cluster in several batches (2 per worker)
    assert map_calls and max(map_calls) >= 4
    assert dask == local
    assert sorted(local) == sorted(SYSTEMS)
    _same_reports(tmp_path / "local" / "run.xml", tmp_path / "dask" / "run.xml", SYSTEMS)


def test_dask_scheduler_equals_the_local_pool(database, map_calls, tmp_path, capsys):
    """``--executor dask --scheduler ADDRESS`` against a LocalCluster of 2 worker
    processes started here, as ``dask scheduler`` + ``dask worker`` would be."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    try:
        dask = _batch(database, tmp_path / "dask" / "run.xml",
                      ["--executor", "dask", "--scheduler", cluster.scheduler_address], capsys)
        with distributed.Client(cluster, set_as_default=False) as client:
            # nothing of the run is left on the scheduler
            left = client.run_on_scheduler(lambda dask_scheduler: [
                str(k) for k in dask_scheduler.tasks if "evaltrans" in str(k)])
    finally:
        cluster.close()
    assert left == []
    assert map_calls and max(map_calls) >= 4
    local = _batch(database, tmp_path / "local" / "run.xml",
                   ["--executor", "local", "--workers", "2"], capsys)
    assert dask == local
    _same_reports(tmp_path / "local" / "run.xml", tmp_path / "dask" / "run.xml", SYSTEMS)


def test_tokenisation_tasks_start_in_the_given_order(monkeypatch):
    """``map`` gives its tasks decreasing priorities (first item first, as the local pool
    starts them) and yields the results in order."""
    ex = DaskExecutor(workers=1, processes=False)
    try:
        submitted: list[int] = []
        real = ex.client.submit
        monkeypatch.setattr(ex.client, "submit", lambda fn, *a, **kw: submitted.append(
            kw["priority"]) or real(fn, *a, **kw))
        assert list(ex.map(abs, [-3, 1, -2, 5])) == [3, 1, 2, 5]
        assert submitted == sorted(submitted, reverse=True) and len(set(submitted)) == 4
    finally:
        ex.close()


@pytest.mark.slow
def test_readme_cluster_command_on_wmt21(wmt_dir, tmp_path, capsys):
    """The issue's command on the full WMT21 en-de test set (1002 segments, 3 references,
    UEdin and ICL, INVWER): dask-local and a scheduler give the local pool's reports."""
    db = tmp_path / "wmt21.etdb.xml"
    assert main(["import", "wmt", str(wmt_dir), "-o", str(db)]) == 0
    capsys.readouterr()
    args = ["--system", "UEdin", "--system", "ICL"]

    def run(name: str, executor: list[str]) -> Path:
        out = tmp_path / name / "X.xml"
        out.parent.mkdir()
        rc = main(["batch", "--database", str(db), *args, "--allow-transpositions",
                   "--xml-mode", "--output-file", str(out), *executor])
        assert rc == 0, capsys.readouterr().err
        return out

    local = run("local", ["--executor", "local", "--workers", "2"])
    dask_local = run("dask-local", ["--executor", "dask-local", "--workers", "2"])
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    try:
        dask = run("dask", ["--executor", "dask", "--scheduler", cluster.scheduler_address])
    finally:
        cluster.close()
    _same_reports(local, dask_local, ["UEdin", "ICL"])
    _same_reports(local, dask, ["UEdin", "ICL"])
