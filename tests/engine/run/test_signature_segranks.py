"""The signatures of the SegRanks measures state what the numbers really use.

EXACTMATCH and PENALIZEUNKNOWN look for the ranked segments in the raw candidate text,
split as the segments were extracted, case kept (engine/human/unseen/matching.py): the run's
tokenisation and case do not change their numbers, so their signature says
``tok:segments|case:mixed`` whatever those options are. SEGRANKSBLEU counts n-grams on
the run's tokens (tokenised like the run) but adds the database's best-ranked segments
as references beyond ``nrefs``: ``segment-refs:best-ranked``."""

from __future__ import annotations

import pytest

import evaltrans_qt as et
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.signature import signature_for
from tests.engine.human.unseen_db import make_db

RUN_OPTIONS = [{"tokenization": "mteval", "case": "use"},
               {"tokenization": "none", "case": "ignore"},
               {"tokenization": "intl", "case": "use"}]


@pytest.mark.parametrize("measure", ["exactmatch", "penalizeunknown"])
def test_segment_matching_signature_names_the_segments_tokenisation(measure):
    sigs = {signature_for(measure, EvalOptions(**o)).format() for o in RUN_OPTIONS}
    assert len(sigs) == 1
    (sig,) = sigs
    assert sig.startswith("nrefs:1|tok:segments|case:mixed|")
    assert "13a" not in sig and "lc" not in sig
    short = signature_for(measure, EvalOptions(case="ignore")).format(short=True)
    assert short.startswith("#:1|tok:segments|c:mixed|")


@pytest.mark.parametrize("measure", ["exactmatch", "penalizeunknown"])
def test_their_numbers_do_not_depend_on_the_run_tokenisation_or_case(measure):
    db = make_db()
    runs = [et.evaluate(db, [measure], jobs=1, **o) for o in RUN_OPTIONS]
    values = [{s: sr.scores[measure].value for s, sr in r.result.systems.items()} for r in runs]
    assert values[0] == values[1] == values[2]
    assert values[0]["A"] == pytest.approx(3 / 5)          # by hand in tests/engine
    assert {r.result.signatures()[measure] for r in runs} == {
        signature_for(measure, EvalOptions()).format()}


def test_segranksbleu_keeps_the_run_tokenisation_and_names_its_extra_references():
    sig = signature_for("segranksbleu", EvalOptions(tokenization="mteval")).format()
    assert sig.startswith("nrefs:1|tok:13a|case:mixed|segment-refs:best-ranked|")
    lc = signature_for("segranksbleu", EvalOptions(tokenization="none", case="ignore")).format()
    assert "tok:none|case:lc|segment-refs:best-ranked" in lc
    # the BLEU signature of the same run has no such field
    assert "segment-refs" not in signature_for("bleu", EvalOptions()).format()
