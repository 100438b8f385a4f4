"""The evaluation driver: chunking, executors, cancel, leaving-one-out, plain files.

A tiny test-only measure (``tlen``, off by default) makes these tests
independent of the real measures; its numbers are checked by hand.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import (
    Progress,
    default_measures,
    evaluate,
    iter_evaluate,
    leave_one_out_measures,
)
from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
from evaltrans_qt.engine.run.results import SystemResult
from evaltrans_qt.errors import Cancelled, EvalTransError, InputFormatError, OptionError
from evaltrans_qt.io.plaintext import database_from_files
from tests.engine.measures.toymeasure import small_db


def test_default_measures_excludes_disabled():
    assert "tlen" not in default_measures(EvalOptions())


def test_values_by_hand():
    run = evaluate(small_db(), EvalOptions(), ["tlen"], executor=SerialExecutor())
    a = run.systems["A"]
    # A: lengths 3,1,6,4,3 vs refs (3,4),(2,3),(5,2),(1,2),(3,3) -> d = 0,1,1,2,0
    assert a.stats["tlen"][:, 0].tolist() == [0, 1, 1, 2, 0]
    assert a.scores["tlen"].details["sum"] == 4
    assert a.scores["tlen"].details["reference-length"] == pytest.approx(3.5 + 2.5 + 3.5 + 1.5 + 3)
    assert a.flags["tlen"]["long"].tolist() == [False, False, True, True, False]
    assert a.segments == (0, 1, 2, 3, 4)
    assert a.target_texts[2] == "p q r s t u"
    assert a.reference_texts[0] == ("a b c", "a b c d")
    assert list(run.systems) == ["A", "B"]


def test_fit_sees_each_source_once():
    ev = list(iter_evaluate(small_db(), EvalOptions(), ["tlen"], executor=SerialExecutor()))
    assert any(isinstance(e, Progress) for e in ev)
    results = [e for e in ev if isinstance(e, SystemResult)]
    assert sorted(r.system for r in results) == ["A", "B"]


@pytest.mark.parametrize("size", [1, 2, 3])
def test_chunked_equals_single_chunk(size):
    db = small_db()
    one = evaluate(db, EvalOptions(), ["tlen"], executor=SerialExecutor(), chunk_size=100)
    many = evaluate(db, EvalOptions(), ["tlen"], executor=SerialExecutor(), chunk_size=size,
                    reference_distances=True)
    for s in one.systems:
        np.testing.assert_array_equal(one.systems[s].stats["tlen"], many.systems[s].stats["tlen"])
        assert one.systems[s].scores["tlen"] == many.systems[s].scores["tlen"]


def test_process_executor_equals_serial():
    db = small_db()
    ser = evaluate(db, EvalOptions(), ["tlen"], executor=SerialExecutor(),
                   reference_distances=True)
    with LocalProcessExecutor(max_workers=2) as ex:
        par = evaluate(db, EvalOptions(), ["tlen"], executor=ex, chunk_size=2,
                       reference_distances=True)
    for s in ser.systems:
        np.testing.assert_array_equal(ser.systems[s].stats["tlen"], par.systems[s].stats["tlen"])
        np.testing.assert_array_equal(ser.systems[s].ref_distances["tlen"],
                                      par.systems[s].ref_distances["tlen"])


def test_reference_distances():
    run = evaluate(small_db(), EvalOptions(), ["tlen"], executor=SerialExecutor(),
                   reference_distances=True)
    rd = run.systems["A"].ref_distances["tlen"]
    assert rd.shape == (5, 2)
    assert rd[2].tolist() == [1.0, 4.0]


def test_cancel_before_start():
    ev = threading.Event()
    ev.set()
    with pytest.raises(Cancelled):
        evaluate(small_db(), EvalOptions(), ["tlen"], cancel=ev)


@pytest.mark.parametrize("make", [SerialExecutor, lambda: LocalProcessExecutor(2)])
def test_cancel_during_run(make):
    ev = threading.Event()
    seen = []
    gen = iter_evaluate(small_db(), EvalOptions(), ["tlen"], executor=make(), cancel=ev,
                        chunk_size=1)
    with pytest.raises(Cancelled):
        for e in gen:
            seen.append(e)
            if isinstance(e, Progress) and e.done > 0:
                ev.set()
    # stopped right after the first computed chunk: no system finished
    assert not any(isinstance(e, SystemResult) for e in seen)


def test_leaving_one_out_drops_identical_reference_for_listed_measure_only():
    db = Database()
    src = db.add_source("s")
    db.add_target(src, "a b c", "r1", reference=True)
    db.add_target(src, "a b c d e", "r2", reference=True)
    db.add_target(src, "a b c", "S")
    plain = evaluate(db, EvalOptions(), ["tlen"], executor=SerialExecutor(),
                     reference_distances=True)
    assert plain.systems["S"].stats["tlen"][0, :3].tolist() == [0, 4, 2]
    loo = evaluate(db, EvalOptions(leaving_one_out=("TLEN",)), ["tlen"],
                   executor=SerialExecutor(), reference_distances=True)
    assert loo.systems["S"].stats["tlen"][0, :3].tolist() == [2, 5, 1]
    rd = loo.systems["S"].ref_distances["tlen"][0]
    assert np.isnan(rd[0]) and rd[1] == 2


def test_leaving_one_out_keeps_a_lone_reference():
    db = Database()
    src = db.add_source("s")
    db.add_target(src, "a b", "r1", reference=True)
    db.add_target(src, "a b", "S")
    run = evaluate(db, EvalOptions(leaving_one_out=("tlen",)), ["tlen"],
                   executor=SerialExecutor())
    assert run.systems["S"].stats["tlen"][0, 2] == 1


def test_leaving_one_out_names():
    assert leave_one_out_measures(EvalOptions(leaving_one_out=("mTLEN",)), ["tlen"]) == {"tlen"}
    with pytest.raises(OptionError):
        leave_one_out_measures(EvalOptions(leaving_one_out=("nosuch",)), ["tlen"])


def test_reference_as_system_uses_other_references():
    run = evaluate(small_db(), EvalOptions(), ["tlen"], systems=["ref-0"],
                   executor=SerialExecutor())
    r = run.systems["ref-0"]
    assert r.stats["tlen"][:, 2].tolist() == [1] * 5
    assert r.stats["tlen"][:, 0].tolist() == [1, 1, 3, 1, 0]


def test_unknown_system_and_measure():
    with pytest.raises(OptionError):
        evaluate(small_db(), EvalOptions(), ["tlen"], systems=["nope"])
    with pytest.raises(OptionError):
        evaluate(small_db(), EvalOptions(), ["nosuchmeasure"])


def test_candidates_without_reference_are_skipped_with_warning():
    db = small_db()
    src = db.add_source("lonely")
    db.add_target(src, "x", "A")
    run = evaluate(db, EvalOptions(), ["tlen"], executor=SerialExecutor())
    assert len(run.systems["A"].segments) == 5
    assert any("1 candidate" in w for w in run.meta["warnings"])


def test_nothing_to_evaluate():
    db = Database()
    db.add_target(db.add_source("s"), "x", "A")
    with pytest.raises(EvalTransError):
        evaluate(db, EvalOptions(), ["tlen"])


def test_database_from_files(tmp_path):
    (tmp_path / "src").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (tmp_path / "refA").write_text("a\nb\nc\n", encoding="utf-8")
    (tmp_path / "hyp").write_text("a\nb b\nc\n", encoding="utf-8")
    db = database_from_files(tmp_path / "src", [tmp_path / "refA"], {"H": tmp_path / "hyp"})
    run = evaluate(db, EvalOptions(), ["tlen"], executor=SerialExecutor())
    assert run.systems["H"].stats["tlen"][:, 0].tolist() == [0, 1, 0]
    assert run.systems["H"].stats["tlen"][:, 2].tolist() == [1, 1, 1]


def test_database_from_files_errors(tmp_path):
    (tmp_path / "src").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "ref").write_text("a\n", encoding="utf-8")
    (tmp_path / "hyp").write_bytes(b"a\n\xff\n")
    with pytest.raises(InputFormatError) as e:
        database_from_files(tmp_path / "src", [tmp_path / "ref"], {})
    assert e.value.path == tmp_path / "ref" and e.value.line == 2
    (tmp_path / "ref").write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as e:
        database_from_files(tmp_path / "src", [tmp_path / "ref"], {"H": tmp_path / "hyp"})
    assert e.value.line == 2 and e.value.column == 1
    with pytest.raises(InputFormatError):
        database_from_files(tmp_path / "src", [tmp_path / "missing"], {})
    with pytest.raises(OptionError):
        database_from_files(tmp_path / "src", [], {})


def test_parallel_tokenisation_gives_the_same_ids(monkeypatch):
    from evaltrans_qt.engine.run import corpus as ev
    db = small_db()
    _, rows_serial, fit_serial, _ = ev.build_corpus(db, EvalOptions(), executor=SerialExecutor())
    monkeypatch.setattr(ev, "PARALLEL_TOKENIZE_MIN", 1)
    with LocalProcessExecutor(2) as ex:
        _, rows_par, fit_par, _ = ev.build_corpus(db, EvalOptions(), executor=ex)
    for a, b in zip(rows_serial, rows_par):
        for sa, sb in zip(a.segments, b.segments):
            assert sa.hyp.tolist() == sb.hyp.tolist()
            assert [r.tolist() for r in sa.refs] == [r.tolist() for r in sb.refs]
    assert len(fit_serial) == len(fit_par) == 5


def test_process_executor_reused_across_runs_and_from_a_thread():
    """One pool serves several runs (each loads its own fitted measures), also when the
    engine runs in a worker thread as in the application."""
    db = small_db()
    ser = evaluate(db, EvalOptions(), ["tlen"], executor=SerialExecutor())
    loo = evaluate(db, EvalOptions(leaving_one_out=("tlen",)), ["tlen"],
                   executor=SerialExecutor())
    out = {}
    with LocalProcessExecutor(2) as ex:
        def work():
            out["a"] = evaluate(db, EvalOptions(), ["tlen"], executor=ex, chunk_size=2)
            out["b"] = evaluate(db, EvalOptions(leaving_one_out=("tlen",)), ["tlen"],
                                executor=ex, chunk_size=2)
        th = threading.Thread(target=work)
        th.start()
        th.join(120)
    for key, want in (("a", ser), ("b", loo)):
        for s in want.systems:
            np.testing.assert_array_equal(out[key].systems[s].stats["tlen"],
                                          want.systems[s].stats["tlen"])


def test_system_without_scorable_candidates_gets_nan():
    db = small_db()
    db.add_target(db.add_source("lonely"), "x", "C")
    run = evaluate(db, EvalOptions(), ["tlen", "tgram"], executor=SerialExecutor())
    assert len(run.systems["C"].segments) == 0
    assert np.isnan(run.systems["C"].scores["tgram"].value)
    assert run.systems["A"].scores["tlen"].details["sum"] == 4
