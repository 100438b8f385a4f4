"""Reports without our ``stats`` attributes (as the original EvalTrans writes them) open,
with system scores from the report's own elements -- also with sentences in detail."""

import re

import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.io.report import build_report, loads_report


@pytest.mark.parametrize("detail", [False, True])
def test_report_without_stats_attributes_opens(detail):
    db = Database()
    for src, ref, hyp in (("s1", "a b c", "a b"), ("s2", "x y", "x y")):
        s = db.add_source(src)
        db.add_target(s, ref, "ref-1", reference=True)
        db.add_target(s, hyp, "A")
    run = evaluate(db, EvalOptions(), ["wer", "bleu"], executor=SerialExecutor())
    xml = build_report(run, "A", sentences_in_detail=detail).decode()
    xml = re.sub(r' stat-names="[^"]*"', "", re.sub(r' stats="[^"]*"', "", xml))
    back = loads_report(xml.encode())
    assert back.systems["A"].scores["wer"].value == pytest.approx(1 / 5)   # 1 deletion / 5 words
    assert back.systems["A"].scores["bleu"].value == pytest.approx(run.systems["A"].scores["bleu"].value)
    if detail:
        assert len(back.systems["A"].segments) == 2
