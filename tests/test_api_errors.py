"""Every public function of the Python API (``evaltrans_qt.__all__``, docs/api.md) answers bad
input -- wrong names, types and shapes -- with :class:`~evaltrans_qt.errors.EvalTransError`
(or a subclass), never a raw ``KeyError``/``ValueError``/``AttributeError``; a
:class:`TypeError` only when the call does not fit the signature.

Hypothesis replaces one argument of a valid call at a time with junk (numbers, None, NaN,
bytes, random text, lists and dicts of the wrong kind, sequences of the wrong length); the
call either succeeds (the junk happened to be valid) or raises one of those errors.
"""

from __future__ import annotations

import inspect
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaltrans_qt as et
from evaltrans_qt.errors import EvalTransError

JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 300), st.floats(allow_nan=True),
    st.text(max_size=12), st.binary(max_size=4),
    st.lists(st.integers(), max_size=3), st.lists(st.text(max_size=6), max_size=3),
    st.lists(st.lists(st.text(max_size=4), max_size=2), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    st.sampled_from(["bleu", "wer", "fluency", "A", "B", "ref-1", "nope", "", "mean", "sys"]),
)

SOURCES = ["Die Katze .", "Hallo Welt", "Bis morgen ."]
REFS = [["The cat .", "A cat ."], "Hello world", ["See you tomorrow ."]]
HYPS = {"A": ["The cat .", "Hello world", "Until tomorrow ."],
        "B": ["A cat is .", "Hello", "See you ."]}
HUMAN = {"fluency": {"A": [4, 3, 5], "B": [2, None, 3]}}


@pytest.fixture(scope="module")
def world():
    db = et.Database.from_lists(SOURCES, REFS, HYPS, HUMAN, scales={"fluency": (1, 5)})
    run = et.evaluate(db, ["bleu", "wer"], jobs=1)
    tmp = tempfile.mkdtemp(prefix="evaltrans-api-errors-")
    path = Path(tmp) / "w.etdb.xml"
    db.save(path)
    tsv = Path(tmp) / "j.tsv"
    tsv.write_text("system\tline\tclass\tvalue\nA\t1\tfluency\t3\n", encoding="utf-8")
    return {"db": db, "run": run, "dir": Path(tmp), "path": str(path), "tsv": str(tsv)}


def _calls(w) -> dict[str, tuple[Callable, tuple, dict]]:
    """Each public function with a valid call: (function, args, keyword args)."""
    db, run = w["db"], w["run"]
    fresh = et.Database.from_lists(SOURCES, REFS, HYPS, HUMAN, scales={"fluency": (1, 5)})
    return {
        "measure": (et.measure, ("bleu",), {"tokenization": "intl"}),
        "score": (et.score, ("bleu", HYPS["A"], REFS), {}),
        "Metric.corpus_score": (et.measure("wer").corpus_score,
                                (HYPS["A"], [[r[0] if isinstance(r, list) else r
                                              for r in REFS]]), {}),
        "Metric.sentence_score": (et.measure("chrf").sentence_score,
                                  ("The cat .", ["The cat ."]), {}),
        "Database.from_lists": (et.Database.from_lists, (SOURCES, REFS, HYPS, HUMAN),
                                {"scales": {"fluency": (1, 5)}}),
        "Database.load": (et.Database.load, (w["path"],), {}),
        "Database.save": (fresh.save, (str(w["dir"] / "saved.etdb.xml"),), {}),
        "Database.to_frame": (db.to_frame, ("mean",), {}),
        "Database.set_score": (fresh.set_score, (0, "A", "fluency", 4),
                               {"judge": "kim", "seconds": 3.0, "time": None}),
        "evaluate": (et.evaluate, (db, ["wer"]), {"systems": ["A"], "jobs": 1,
                                                  "preset": "sacrebleu"}),
        "correlate": (et.correlate, (run, "fluency"),
                      {"level": "sentence", "measures": ["bleu"], "samples": 5, "seed": 1,
                       "how": "mean", "convention": "mtme", "subset": "all"}),
        "meta_evaluate": (et.meta_evaluate, (run, "fluency"),
                          {"stats": ["pearson"], "level": "sys", "grouping": "none",
                           "measures": ["bleu"], "convention": "mtme", "subset": "all",
                           "variant": "b", "seed": 0}),
        "significance": (et.significance, (run, "bleu"),
                         {"method": "bootstrap", "samples": 5, "seed": 1,
                          "systems": ["A", "B"]}),
        "analyze": (et.analyze, (db, ["A", "B"]),
                    {"measure": "bleu", "reference": None, "top": 5, "examples": 2,
                     "samples": 5, "seed": 1}),
        "Run.write_sentences": (run.write_sentences, (str(w["dir"] / "s.tsv"),), {}),
        "Run.correlate": (run.correlate, ("fluency",), {"samples": 5}),
        "Run.significance": (run.significance, ("wer",), {"samples": 5}),
        "make_options": (et.api.make_options, (None, "sacrebleu"), {"case": "use"}),
        "judge": (et.judge, (w["path"], 0, "B", "fluency", 3),
                  {"judge": "kim", "seconds": 1.0}),
        "import_judgements": (et.import_judgements, (w["path"], w["tsv"]), {}),
    }


def test_every_public_function_is_covered(world):
    """Each callable of ``evaltrans_qt.__all__`` (and the methods of its Database, Metric and
    Run) is in the table, so a new one gets its bad-input test."""
    names = set(_calls(world))
    functions = {n for n in et.__all__ if n[0].islower() and n != "available_measures"
                 and callable(getattr(et, n))}
    assert functions <= names | {"make_options"}, functions - names
    for cls, prefix in ((et.Database, "Database."), (et.Metric, "Metric."), (et.Run, "Run.")):
        public = {prefix + n for n, v in vars(cls).items() if not n.startswith("_")
                  and (callable(v) or isinstance(v, (classmethod, staticmethod)))}
        assert public - {"Database.demo"} <= names, public - names   # demo: no arguments


def test_the_valid_calls_succeed(world):
    for fn, args, kw in _calls(world).values():
        fn(*args, **kw)


def _check(fn: Callable, args: tuple, kw: dict) -> None:
    try:
        inspect.signature(fn).bind(*args, **kw)
    except TypeError:
        with pytest.raises(TypeError):
            fn(*args, **kw)
        return
    try:
        fn(*args, **kw)
    except EvalTransError:
        pass


@pytest.mark.parametrize("name", sorted([
    "measure", "score", "Metric.corpus_score", "Metric.sentence_score", "Database.from_lists",
    "Database.load", "Database.save", "Database.to_frame", "Database.set_score", "evaluate",
    "correlate", "meta_evaluate", "significance", "Run.write_sentences", "Run.correlate",
    "Run.significance", "make_options", "analyze",
    "judge", "import_judgements"]))
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_bad_arguments_raise_evaltrans_errors(world, name, data):
    fn, args, kw = _calls(world)[name]
    slots = [("arg", i) for i in range(len(args))] + [("kw", k) for k in kw]
    if not slots:
        return
    kind, key = data.draw(st.sampled_from(slots), label="argument")
    junk = data.draw(JUNK, label="junk")
    cwd = os.getcwd()
    os.chdir(world["dir"])                   # a junk path is a file name here
    try:
        if kind == "arg":
            bad_args = tuple(junk if i == key else a for i, a in enumerate(args))
            _check(fn, bad_args, kw)
        else:
            _check(fn, args, {**kw, key: junk})
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("call, message", [
    (lambda w: et.significance(et.evaluate(w["db"], ["bleu"], jobs=1), "wer"),
     "measure 'wer' was not part of this run"),
    (lambda w: et.significance(w["run"], "bleu", systems=["X"]), "unknown system 'X'"),
    (lambda w: et.correlate(w["run"], "fluency", samples=-3), "samples must be"),
    (lambda w: et.meta_evaluate(w["run"], "fluency", variant="x"), "variant: 'x'"),
    (lambda w: et.measure(3), "measure: name: expected a string, got int 3"),
    (lambda w: et.evaluate(w["db"], [3]), "evaluate: measures: expected a string or a list"),
    (lambda w: et.Database.from_lists(["a"], [1]), "references: expected"),
    (lambda w: et.Database.load(3), "Database.load: path: expected a string or a path, got int 3"),
    (lambda w: w["db"].set_score(7, "A", "fluency", 3), "source 7 does not exist"),
    (lambda w: et.Database.load(""), "empty file name"),
    (lambda w: et.correlate(w["run"], "fluency", seed=-1), "seed must be"),
    (lambda w: et.evaluate(w["db"], ["wer"], jobs=10**6), "at most"),
])
def test_the_reported_cases(world, call, message):
    with pytest.raises(EvalTransError, match=message):
        call(world)


def test_numpy_and_pandas_inputs_are_accepted(world):
    """The checks take numpy arrays, pandas Series and numpy numbers where the annotation
    says list or number (they are not registered as ``Sequence``/``int``)."""
    import numpy as np
    import pandas as pd
    hyps = pd.Series(HYPS["A"])
    refs = [[r if isinstance(r, str) else r[0]] for r in REFS]
    assert et.score("wer", hyps, refs).score == et.score("wer", HYPS["A"], refs).score
    assert et.score("wer", np.array(HYPS["A"]), np.array(refs)).value == \
        et.score("wer", HYPS["A"], refs).value
    db = et.Database.from_lists(SOURCES, REFS, {"A": np.array(HYPS["A"])},
                                {"fluency": {"A": np.array([4.0, 3.0, 5.0])}},
                                scales={"fluency": (1, 5)})
    db.set_score(np.int64(1), "A", "fluency", np.float64(2.0), judge="kim")
    assert db.to_frame().loc[1, "fluency"] == 2.5
    assert list(et.evaluate(db, np.array(["wer"]), jobs=1).systems["system"]) == ["A"]
