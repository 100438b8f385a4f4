"""SEGRANKSBLEU, EXACTMATCH and PENALIZEUNKNOWN (Macháček §3.2.3, §3.3.2), values worked
out by hand on tests/engine/unseen_db.py; SEGRANKSBLEU also against sacreBLEU with the
good segments as extra references."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu

from evaltrans_qt.engine.human.segranks.model import sentence_segments
from evaltrans_qt.engine.human.unseen.annotated import annotated_segments
from evaltrans_qt.engine.measures import get, load_all
from evaltrans_qt.engine.measures.segranksbleu import good_segments
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.errors import OptionError
from tests.engine.human.unseen_db import make_db

NAMES = ["exactmatch", "penalizeunknown", "segranksbleu"]


def _db():
    db = make_db()
    src = db.sources[0]
    db.add_target(src, "k m", "E")                   # no candidate segment occurs
    db.add_target(src, "p q k", "F")                 # segment 0 only
    db.add_target(src, "k p r u v m w", "G")
    return db


def _run(db, names=NAMES):
    return evaluate(db, EvalOptions(), names)


def test_opt_in_and_registered():
    reg = load_all()
    for n in NAMES:
        assert n in reg and not reg[n].default_enabled


def test_exactmatch_by_hand():
    run = _run(_db())
    v = {s: r.scores["exactmatch"].value for s, r in run.systems.items()}
    # A: "p q" (rank 1 of 1,2,3): 2 wins; "u" (j1 2 of 2,1,3: 1 win 1 loss; j2 2 of 2,1,2:
    # 1 loss 1 tie) -> 3 / 5
    assert v["A"] == pytest.approx(3 / 5)
    st = run.systems["A"].stats["exactmatch"].sum(axis=0)
    assert st.tolist() == [3, 2, 1, 2, 2]
    assert v["B"] == 1.0                              # "p q" and the longer "u v"
    assert v["C"] == pytest.approx(5 / 6)             # "p r": 1 win 1 loss; "u v": 4 wins
    assert v["D"] == 0.0
    assert math.isnan(v["E"])                         # no hit, no comparison
    assert v["F"] == 1.0
    cols = run.systems["F"].scores["exactmatch"].columns
    assert cols["EXACTMATCH hit rate"] == 0.5


def test_penalizeunknown_by_hand():
    run = _run(_db())
    v = {s: r.scores["penalizeunknown"].value for s, r in run.systems.items()}
    assert v["A"] == pytest.approx(3 / 5)             # no miss: as EXACTMATCH
    assert v["E"] == 0.0                              # 3 candidates x 1 + 3 x 2 annotations lost
    assert run.systems["E"].stats["penalizeunknown"].sum(axis=0).tolist() == [0, 9, 0, 0, 2]
    assert v["F"] == pytest.approx(2 / 8)             # 2 wins, 6 losses on the missed segment 1


def test_good_segments_best_rank_and_not_unusable():
    db = make_db()
    segs = annotated_segments(db)
    assert good_segments(segs) == ["p q", "u v"]
    data = sentence_segments(db.sources[0])
    data.rankings[0].ranks[0] = (4, 4, 4)             # everything unusable: nothing good
    assert good_segments(annotated_segments(db)) == ["u v"]


def test_segranksbleu_by_hand_and_against_sacrebleu():
    db = _db()
    sentence_segments(db.sources[0]).rankings[0].ranks[0] = (2, 1, 3)   # "p r" best
    run = _run(db, ["segranksbleu", "bleu"])
    st = run.systems["G"].stats["segranksbleu"][0]
    # G "k p r u v m w", refs "p q u v m" + "p r", "u v": 1-grams p r u v m; 2-grams
    # "p r" "u v" "v m"; 3-gram "u v m"; lengths from the reference only (7, 5)
    assert st[:10].tolist() == [7, 5, 5, 3, 1, 0, 7, 6, 5, 4]
    plain = run.systems["G"].stats["bleu"][0]
    assert plain[2:6].tolist() == [4, 2, 1, 0]
    assert run.systems["G"].scores["segranksbleu"].value == 0.0       # genuine: no 4-gram
    ours = evaluate(db, EvalOptions(bleu_smooth_method="exp"), ["segranksbleu"]
                    ).systems["G"].scores["segranksbleu"]
    ref = sacrebleu.corpus_bleu(["k p r u v m w"], [["p q u v m"], ["p r"], ["u v"]],
                                smooth_method="exp", tokenize="none")
    assert ours.value > 0
    assert ours.value == pytest.approx(ref.score / 100, abs=1e-12)
    ours = run.systems["G"].scores["segranksbleu"]
    assert set(ours.columns) == {"SEGRANKSBLEU", "SEGRANKSBLEU-S", "SEGRANKSBLEU-S'"}
    # brevity penalty from the original reference only: a short candidate is penalised
    st_a = run.systems["F"].stats["segranksbleu"][0]       # "p q k": 3 words vs 5
    assert st_a[:2].tolist() == [3, 5]


def test_without_database_a_clear_error():
    m = get("exactmatch")(EvalOptions())
    with pytest.raises(OptionError, match="reads the SegRanks annotations"):
        m.fit([], None)
    db = make_db()
    from evaltrans_qt.engine.human.segranks.model import set_sentence_segments
    set_sentence_segments(db.sources[0], None)
    with pytest.raises(OptionError, match="needs ranked short segments"):
        _run(db, ["exactmatch"])


def test_measure_pickles_with_its_index():
    import pickle
    m = get("segranksbleu")(EvalOptions())
    m.bind_database(make_db())
    back = pickle.loads(pickle.dumps(m))
    assert back.annotations.keys() == m.annotations.keys()
    assert np.isfinite(len(back.annotations))
