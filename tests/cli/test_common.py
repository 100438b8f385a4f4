"""cli/_common.py: one options builder shared with the Python API, one write path, one
number format."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

from evaltrans_qt.api import make_options
from evaltrans_qt.cli import _common
from evaltrans_qt.cli.main import build_parser
from evaltrans_qt.engine.data.database import Score
from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.errors import OptionError, SaveError
from evaltrans_qt.io.etdb import demo_database_path, load_database


def _args(*argv: str):
    return build_parser(argv[0]).parse_args(list(argv))


@pytest.mark.parametrize("command", [["batch", "--source", "s"], ["align", "--measure", "wer",
                                                                   "a", "b"],
                                     ["correlate", "db"], ["wmt14-tables", "x-y=db"]])
def test_command_options_are_the_api_options(command):
    """The flags of every command and ``make_options`` go through one builder: same preset,
    same strings, same EvalOptions."""
    flags = ["--preset", "thesis default", "--wer-ref-length-rule", "average",
             "--transposition-costs", "2,1,1,1,1", "--allow-transpositions",
             "--bleu-smooth-value", "0.5"]
    got = _common.options_from_args(_args(*command, *flags))
    want = make_options(preset="thesis default", wer_ref_length_rule="average",
                           transposition_costs="2,1,1,1,1", allow_transpositions=True,
                           bleu_smooth_value="0.5")
    assert got == want
    assert got.tokenization == PRESETS["thesis default"].tokenization
    assert _common.options_from_args(_args(*command)) == EvalOptions() == make_options()


def test_score_starts_from_the_sacrebleu_preset():
    from evaltrans_qt.cli.score import base_options
    args = _args("score", "ref.txt", "--case", "ignore", "--wer-ref-length-rule", "average")
    assert base_options(args) == make_options(preset="sacrebleu", case="ignore",
                                                 wer_ref_length_rule="average")
    args = _args("score", "ref.txt", "--preset", "thesis baseline")
    assert base_options(args) == PRESETS["thesis baseline"]


def test_builder_errors():
    from evaltrans_qt.engine.options import options_from
    with pytest.raises(OptionError, match="either options= or preset="):
        options_from("sacrebleu", EvalOptions())
    with pytest.raises(OptionError, match="unknown preset 'nope'"):
        options_from("nope")
    with pytest.raises(OptionError, match=r"unknown option 'tokenisation' \(did you mean "
                                          "tokenization"):
        options_from(None, None, tokenisation="none")
    with pytest.raises(OptionError, match="--transposition-costs: cannot read value"):
        options_from(None, None, transposition_costs="1,x")


@pytest.mark.parametrize("value,spec,missing,whole,text", [
    (0.12345, ".4f", "-", False, "0.1235"),
    (math.nan, ".4f", "-", False, "-"),
    (None, "7.3f", "-", False, "      -"),
    (np.float64("nan"), "8.3f", "-", False, "       -"),
    (math.nan, ".4f", "nan", False, "nan"),
    (math.nan, "9.4f", "nan", False, format(math.nan, "9.4f")),
    (math.inf, ".4f", "nan", False, "inf"),
    (3.0, ".4g", "nan", True, "3"),
    (2.5, ".4g", "nan", True, "2.5"),
    (0.5, "+.4f", "-", False, "+0.5000"),
    (12.5, "4.2f", "-", False, "12.50"),
])
def test_number(value, spec, missing, whole, text):
    assert _common.number(value, spec, missing, whole) == text


def test_write_database_checks_before_writing_anything(tmp_path):
    db = load_database(demo_database_path())
    out, other = tmp_path / "out.etdb.xml", tmp_path / "other.tsv"
    _common.write_database(db, out, also=[(other, b"x\n")])
    assert load_database(out).counts() == db.counts() and other.read_bytes() == b"x\n"
    cand = next(t for _, t in db.iter_candidates())
    cand.scores.append(Score("fluency", 99.0))                  # not a level of the class
    out2, other2 = tmp_path / "out2.etdb.xml", tmp_path / "other2.tsv"
    with pytest.raises(SaveError):
        _common.write_database(db, out2, also=[(other2, b"x\n")])
    assert not out2.exists() and not other2.exists()


def test_write_database_prints_the_summary(tmp_path, capsys):
    path = tmp_path / "db.etdb.xml"
    shutil.copy(demo_database_path(), path)
    _common.write_database(load_database(path), path, "written")
    assert capsys.readouterr().err == f"{path}: written\n"
    assert _common.open_database(path).counts() == load_database(path).counts()
