"""A source text without segment ids that occurs twice in a test set is one source with
two candidates per system (thesis Appendix A.2; old EvalTrans files, Aachen text). Human scores,
correlation, significance and result tables must keep both candidates apart (found by
review: they were keyed by (source, system)). Positional sources: test_positional_identity."""

import numpy as np
import pytest
from scipy import stats

from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.engine.human.resolve import human_scores
from evaltrans_qt.engine.human.scores import occurrence_keys
from evaltrans_qt.engine.metaeval.correlation import correlate_run
from evaltrans_qt.engine.metaeval.significance import common_rows
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.engine.run.tables import build_tables


@pytest.fixture
def db() -> Database:
    db = Database([Levels("adequacy", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    rows = [("Thank you .", "thank you .", {"A": ("thank you .", 5), "B": ("thanks .", 3)}),
            ("Hello .", "hello .", {"A": ("hi .", 2), "B": ("hello .", 5)}),
            ("Thank you .", "thank you .", {"A": ("you thank banana .", 1), "B": ("thank you .", 4)})]
    for src_text, ref, cands in rows:
        src = db.add_source(src_text)
        if not db.references(src):
            db.add_target(src, ref, "ref-1", reference=True)
        for system, (text, score) in cands.items():
            db.add_target(src, text, system).set_score("adequacy", score, judge="j1")
    return db


def test_occurrence_keys():
    assert occurrence_keys([0, 0, 1, 0]) == [(0, 0), (0, 1), (1, 0), (0, 2)]


def test_human_scores_keep_both_candidates_of_a_repeated_source(db):
    assert len(db.sources) == 2
    run = evaluate(db, EvalOptions(), ["wer"], executor=SerialExecutor())
    sr = run.systems["A"]
    assert list(sr.segments) == [0, 0, 1]
    hs = human_scores(db, "adequacy")
    assert hs.column("A", sr.segments).tolist() == [5, 1, 2]
    # length-weighted system score (thesis §5.5): words 3, 4, 2
    assert hs.system_score("A") == pytest.approx((5 * 3 + 1 * 4 + 2 * 2) / 9)
    # significance pairs every row of A with the matching row of B
    assert {s: len(r) for s, r in common_rows(run).items()} == {"A": 3, "B": 3}
    # correlation sees all 6 candidates; its r equals scipy's on the same pairs
    c = correlate_run(db, run, "adequacy", n_boot=0)[0]
    assert c.n == 6
    x = np.concatenate([-run.sentence_column(s, "wer") for s in ("A", "B")])
    y = np.concatenate([hs.column(s, run.systems[s].segments) for s in ("A", "B")])
    assert c.pearson == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    # the result table shows each row's own human score
    t = build_tables(run, db, ["adequacy"])
    a = t.sentences[t.sentences["system"] == "A"]
    assert a["human:adequacy"].tolist() == [5, 1, 2]


def test_levels_below_firstvalid_are_not_judgements():
    """EvalTrans scales keep level 0 for "not judged" (firstvalid = 1, Figure A.1)."""
    db = Database([Levels("fluency", count=6, gray=2, green=5, perfect=5, firstvalid=1)])
    src = db.add_source("Guten Tag .")
    db.add_target(src, "good day .", "ref-1", reference=True)
    a = db.add_target(src, "good day .", "A")
    a.set_score("fluency", 5, judge="j1")
    a.set_score("fluency", 0, judge="j2")          # j2 has not judged it
    b = db.add_target(src, "day good .", "B")
    b.set_score("fluency", 0, judge="j1")
    hs = human_scores(db, "fluency")
    assert hs.values == {(0, "A", 0): 5.0}          # B has no judgement at all
    assert [t.system for _, t in db.unscored("fluency")] == ["B"]
    run = evaluate(db, EvalOptions(), ["wer"], executor=SerialExecutor())
    t = build_tables(run, db, ["fluency"])
    assert t.sentences["human:fluency"].tolist()[0] == 5.0
    assert np.isnan(t.sentences["human:fluency"].tolist()[1])
