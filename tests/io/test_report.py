"""EvalTrans XML report: structure per thesis Figures A.2/A.3 (Appendix A.3) and round trip."""

from __future__ import annotations

import numpy as np
import pytest
from lxml import etree

from evaltrans_qt.engine.measures import load_all
from evaltrans_qt.engine.options import EvalOptions, option_fields
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.report import build_report, loads_report, read_report, write_report
from tests.engine.measures.toymeasure import small_db

OPTS = EvalOptions(wer_ref_length_rule="lowestError", cder_coverage_rule="half",
                   bleu_pad_rule="both", leaving_one_out=("tlen",),
                   transposition_costs=(2, 1, 2, 2, 1), allow_long_jumps=True, case="ignore")


def _run(measures=("tlen", "tgram"), options=OPTS):
    return evaluate(small_db(), options, list(measures), executor=SerialExecutor(),
                    reference_distances=True)


def _xml(data: bytes):
    return etree.fromstring(data)


def test_figure_a2_structure():
    data = build_report(_run(), "A", author="me", comment="c", database_file="db.xml",
                        source_file="src.txt", command_line="evaltrans batch ...",
                        sentences_in_detail=True, include_sentences=True)
    assert b'<!DOCTYPE etreport SYSTEM "etreport.dtd">' in data
    root = _xml(data)
    assert root.tag == "report"
    tags = [c.tag for c in root]
    assert tags == ["author", "date", "comment", "software", "files", "candidate-statistics",
                    "evaluation-options", "evaluation", "candidate-evaluation"]
    assert [c.tag for c in root.find("files")] == ["database-file", "source-file",
                                                   "command-line"]
    # Figure A.2's options example, literally
    assert root.findtext("evaluation-options/wer-options/reference-length-rule") == "lowestError"
    cder = root.find("evaluation-options/cder-options")
    assert {c.tag for c in cder} >= {"reference-length-rule", "coverage-rule", "pad-rule"}
    assert cder.findtext("coverage-rule") == "half" and cder.findtext("pad-rule") == "both"
    cand = root.find("candidate-evaluation/candidate")
    assert cand.get("nr") == "0"
    assert cand.find("source").get("nr") == "0"
    assert cand.find("target").get("nr") is not None
    assert cand.findtext("source/s_sent") == "s one"
    assert cand.findtext("target/t_sent") == "a b c"
    assert [r.text for r in cand.findall("target/reference")] == ["a b c", "a b c d"]
    rd = cand.findall("tlen/reference-distance")
    # leaving-one-out (tlen): reference 0 equals the candidate and is left out
    assert [(r.get("nr"), r.text) for r in rd] == [("1", "1")]
    # error-rate elements of Figure A.3's <wer>, here from the toy error measure
    assert [c.tag for c in root.find("evaluation/tlen")] == [
        "error-rate", "error-rate-percent", "reference-length", "sum"]
    # repeated <n-gram n="..."> and nested elements from details
    ng = root.findall("evaluation/tgram/n-gram")
    assert [g.get("n") for g in ng] == ["1", "2"]
    assert root.findtext("evaluation/tgram/parts/inner/x") == "1.5"


def test_every_option_is_recorded_once():
    root = _xml(build_report(_run(), "A"))
    opts = root.find("evaluation-options")
    seen = [(g.tag, c.tag) for g in opts if g.tag != "report-options" for c in g]
    assert len(seen) == len(set(seen)) == len(option_fields())


def test_round_trip_numbers_and_options(tmp_path):
    run = _run()
    path = tmp_path / "r.xml"
    write_report(path, run, "A", sentences_in_detail=True, include_sentences=True,
                 comment="x < y & z")
    back = read_report(path)
    assert back.options == run.options
    assert back.measures == run.measures
    a, b = run.systems["A"], back.systems["A"]
    for m in run.measures:
        assert b.scores[m] == a.scores[m]
        np.testing.assert_array_equal(b.stats[m], a.stats[m])
    assert set(b.ref_distances) == set(a.ref_distances) == {"tlen"}
    np.testing.assert_array_equal(b.ref_distances["tlen"], a.ref_distances["tlen"])
    assert b.segments == a.segments and b.target_indices == a.target_indices
    assert b.target_texts == a.target_texts and b.reference_texts == a.reference_texts
    assert b.source_texts == a.source_texts
    np.testing.assert_array_equal(b.flags["tlen"]["long"], a.flags["tlen"]["long"])
    assert back.meta["comment"] == "x < y & z"
    assert back.meta["sentences-in-detail"] is True
    # sentence values through the RunResult API
    np.testing.assert_array_equal(back.sentence_column("A", "tlen"),
                                  run.sentence_column("A", "tlen"))


def test_flags_attribute():
    root = _xml(build_report(_run(), "A", sentences_in_detail=True))
    flags = [c.find("tlen").get("flags") for c in root.iter("candidate")]
    assert flags == [None, None, "long", "long", None]


def test_round_trip_without_sentences_keeps_system_scores():
    run = _run()
    back = loads_report(build_report(run, "B"))
    assert back.systems["B"].scores == run.systems["B"].scores
    assert back.systems["B"].segments == ()


def test_latin1_report_round_trip():
    run = _run(options=EvalOptions())
    data = build_report(run, "A", encoding="iso-8859-1", comment="Grüße ✓",
                        sentences_in_detail=True)
    assert data.startswith(b'<?xml version="1.0" encoding="iso-8859-1"?>')
    assert loads_report(data).meta["comment"] == "Grüße ✓"


def test_unknown_measure_element_is_kept_as_details():
    run = _run()
    data = build_report(run, "A").replace(b"<tgram ", b"<future ").replace(b"</tgram>",
                                                                        b"</future>")
    back = loads_report(data)
    sc = back.systems["A"].scores["future"]
    assert sc.value == pytest.approx(run.systems["A"].scores["tgram"].value)
    assert back.meta["unknown-measures"] == ("future",)


@pytest.mark.parametrize("bad", [b"<report><evaluation>", b"<notareport/>",
                                 b'<!DOCTYPE r [<!ENTITY x "y">]><report/>'])
def test_bad_reports(bad):
    with pytest.raises(InputFormatError):
        loads_report(bad)


def test_bad_option_value_in_report():
    data = build_report(_run(), "A").replace(b"<pad-rule>both</pad-rule>",
                                             b"<pad-rule>sideways</pad-rule>", 1)
    with pytest.raises(InputFormatError):
        loads_report(data)


# ---- real measures, when registered: Figure A.3 element names
FIG_A3 = {
    "wer": ["error-rate", "error-rate-percent", "reference-length", "sum"],
    "per": ["error-rate", "error-rate-percent", "reference-length", "sum"],
    "bleu": ["score-unpenalized", "score", "length-penalty", "n-gram"],
    "nist": ["score", "n-gram"],
    "nper": ["n-gram"],
    "msder": ["error-rate", "error-rate-percent", "reference-length", "sum"],
    "cder": ["forward", "backward", "bidirectional", "maximum"],
}


@pytest.mark.parametrize("measure", sorted(FIG_A3))
def test_figure_a3_element_names(measure):
    if measure not in load_all():
        pytest.skip(f"measure {measure} not registered yet")
    run = _run((measure,), EvalOptions())
    root = _xml(build_report(run, "A", sentences_in_detail=True))
    el = root.find(f"evaluation/{measure}")
    assert el is not None
    tags = {c.tag for c in el}
    assert set(FIG_A3[measure]) <= tags, tags
    if "n-gram" in FIG_A3[measure]:
        assert el.find("n-gram").get("n") == "1"
    back = loads_report(etree.tostring(root))
    assert back.systems["A"].scores[measure] == run.systems["A"].scores[measure]
