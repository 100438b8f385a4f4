"""A row whose candidate and reference texts another row of the run already has is computed
once and copied (driver._shared_rows): every statistic, flag and reference distance equals
the straightforward computation of every row (compute_chunk over each system's rows), with
any executor and chunk size."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.corpus import build_corpus
from evaltrans_qt.engine.run.driver import _shared_rows, evaluate
from evaltrans_qt.engine.run.executors.local import LocalProcessExecutor, SerialExecutor
from evaltrans_qt.engine.run.work import Chunk, compute_chunk

MEASURES = ["wer", "per", "bleu", "chrf", "ter", "nper", "cder", "nist"]
WORDS = "the a cat dog sat on mat , . house big small".split()


def _db(seed: int) -> Database:
    """Systems that often agree, repeated source lines, sources with equal references,
    a source without reference, references also evaluated as systems."""
    rnd = random.Random(seed)
    db = Database()
    def sent() -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(0, 7)))
    pool = [sent() for _ in range(6)]
    refsets = [[sent(), sent()] for _ in range(3)]
    for k in range(14):
        src = db.add_source(f"source {k % 9}")
        if k != 5:
            for j, r in enumerate(rnd.choice(refsets)):
                db.add_target(src, r, f"ref-{j}", reference=True)
        for s in ("A", "B", "C", "D"):
            db.add_target(src, rnd.choice(pool) if rnd.random() < 0.7 else sent(), s)
    return db


def _plain(db: Database, options: EvalOptions, systems: list[str]):
    """Every row computed, no sharing: {system: {measure: stats}}."""
    vocab, rows, fit, _ = build_corpus(db, options, systems)
    fitted = {}
    for name in MEASURES:
        m = get_measure(name)(options)
        m.fit(fit, vocab)
        fitted[name] = m
    out = {}
    for r in rows:
        res = compute_chunk(fitted, Chunk(r.system, 0, len(r.segments), tuple(r.segments),
                                          frozenset({"wer", "ter"}), True))
        out[r.system] = res
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk_size", [None, 1, 3])
def test_shared_rows_give_every_row_its_own_statistics(seed, chunk_size):
    db = _db(seed)
    options = EvalOptions(leaving_one_out=("wer", "ter"))
    systems = [*db.systems(), "ref-0"]
    want = _plain(db, options, systems)
    _, rows, _, _ = build_corpus(db, options, systems)
    own, copied = _shared_rows(rows)
    assert sum(len(v) for v in copied.values()) > 0           # the data has shared rows
    run = evaluate(db, options, MEASURES, systems=systems, executor=SerialExecutor(),
                   reference_distances=True, chunk_size=chunk_size)
    for sysname in systems:
        got = run.systems[sysname]
        for m in MEASURES:
            np.testing.assert_array_equal(got.stats[m], want[sysname].stats[m])
        for m, arr in want[sysname].ref_distances.items():
            np.testing.assert_array_equal(got.ref_distances[m][:, :arr.shape[1]], arr)


def test_shared_rows_with_a_process_pool():
    db = _db(11)
    options = EvalOptions()
    want = _plain(db, options, db.systems())
    with LocalProcessExecutor(2) as ex:
        run = evaluate(db, options, MEASURES, executor=ex, chunk_size=2)
    for sysname in db.systems():
        for m in MEASURES:
            np.testing.assert_array_equal(run.systems[sysname].stats[m], want[sysname].stats[m])


def test_rows_are_shared_by_text_and_references_only():
    db = Database()
    s1 = db.add_source("one")
    db.add_target(s1, "x y", "ref", reference=True)
    s2 = db.add_source("two")
    db.add_target(s2, "x y", "ref", reference=True)
    s3 = db.add_source("three")
    db.add_target(s3, "x z", "ref", reference=True)
    for src in (s1, s2, s3):
        db.add_target(src, "x y", "A")
        db.add_target(src, "x y", "B")
    _, rows, _, _ = build_corpus(db, EvalOptions())
    own, copied = _shared_rows(rows)
    # A's second row has the same texts as its first (equal references); B copies all of A
    assert own == {"A": [0, 2], "B": []}
    assert copied == {"A": [(1, "A", 0)], "B": [(0, "A", 0), (1, "A", 0), (2, "A", 2)]}
