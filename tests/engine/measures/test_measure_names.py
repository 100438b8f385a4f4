"""Measure names: registry names, declared aliases and the thesis' "m" prefix (mWER = WER,
Table A.1) are accepted wherever a measure is named (``measures.get``/``resolve``,
``--measures``, ``--leaving-one-out``)."""

from __future__ import annotations

import jiwer
import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine import measures
from evaltrans_qt.engine.measures.base import Measure
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import leave_one_out_measures
from evaltrans_qt.errors import OptionError
from evaltrans_qt.io.report import read_report


@pytest.mark.parametrize("name, expected", [
    ("wer", "wer"), ("WER", "wer"), (" mWER ", "wer"), ("mPER", "per"), ("m-PER", "nper"),
    ("skip-bigram-per", "sbper"), ("mBLEU", "bleu"), ("mer", "mer"), ("MER", "mer"),
])
def test_resolve(name, expected):
    assert measures.resolve(name) == expected
    assert measures.get(name).name == expected


@pytest.mark.parametrize("name", ["nosuch", "m", "", "mm-per", "wer2"])
def test_unknown_names_are_a_clear_error(name):
    assert measures.resolve(name) is None
    with pytest.raises(OptionError, match="unknown measure"):
        measures.get(name)


def test_every_alias_names_its_own_measure_and_no_other():
    reg = measures.load_all()
    for name, cls in reg.items():
        for alias in cls.aliases:
            assert alias == alias.lower()
            assert alias not in reg, f"alias {alias} of {name} is a measure name"
            assert measures.resolve(alias) == name


def test_a_colliding_alias_is_refused():
    class Clash(Measure):
        name = "zz-clash"
        long_name = "clash"
        report_element = "zz-clash"
        aliases = ("wer",)
    with pytest.raises(ValueError, match="alias 'wer'.*already names 'wer'"):
        measures.register(Clash)
    assert "zz-clash" not in measures.MEASURES


def test_leaving_one_out_accepts_the_same_names():
    opts = EvalOptions(leaving_one_out=("mWER", "m-PER", "BLEU"))
    assert leave_one_out_measures(opts, ["wer", "nper", "bleu", "per"]) == {"wer", "nper", "bleu"}


def test_batch_measures_mwer_equals_jiwer(tmp_path):
    """``evaltrans batch --measures mwer,mPER``: the report holds WER and PER; WER with one
    reference is jiwer's corpus WER."""
    src = ["a", "b", "c"]
    refs = ["the cat sat on the mat", "hello world", "one two three four"]
    hyps = ["the cat sat mat", "hello big world", "four three two one"]
    for name, lines in (("src", src), ("ref", refs), ("hyp", hyps)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "r.xml"
    rc = main(["batch", "--source", str(tmp_path / "src"), "--reference", str(tmp_path / "ref"),
               "--target", f"H={tmp_path / 'hyp'}", "--measures", "mwer,mPER", "--xml-mode",
               "--output-file", str(out), "--jobs", "1"])
    assert rc == 0
    run = read_report(out)
    assert set(run.measures) == {"wer", "per"}
    assert run.systems["H"].scores["wer"].value == pytest.approx(jiwer.wer(refs, hyps), abs=1e-12)
