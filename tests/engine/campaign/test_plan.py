"""The annotation plan under a budget (engine/campaign/plan.py): budget parsing, reuse of
identical translations, MetricVar source order worked by hand, the budget respected, and
the ranking-reproduction report (Kendall tau_b, pairwise accuracy, random subsets)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from scipy import stats

from evaltrans_qt.engine.campaign import plan as pl
from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.errors import OptionError, ScoreError

SYSTEMS = ("A", "B", "C", "D")


def test_parse_budget():
    assert pl.parse_budget("10", 80) == 10
    assert pl.parse_budget(" 25% ", 80) == 20
    assert pl.parse_budget("12.5%", 10) == 1           # 1.25 rounds to 1
    assert pl.parse_budget("0.1%", 80) == 1            # never nothing
    assert pl.parse_budget(7, 80) == 7
    for bad, needle in (("0", "at least one"), ("0%", r"\(0, 100\]"), ("150%", r"\(0, 100\]"),
                        ("ten", "number of items"), ("-3", "number of items")):
        with pytest.raises(OptionError, match=needle):
            pl.parse_budget(bad, 80)


def test_source_variance_by_hand():
    # measure m: source 0 has 1, 3 (var of z-scores); source 1 has 2, 2 (var 0)
    scores = {"m": {(0, 0): 1.0, (0, 1): 3.0, (1, 0): 2.0, (1, 1): 2.0}}
    v = pl.source_variance(scores)
    sd = np.std([1.0, 3.0, 2.0, 2.0])
    assert v[0] == pytest.approx(np.var([(1 - 2) / sd, (3 - 2) / sd]))
    assert v[1] == 0.0
    # a second measure on another scale counts the same after z-scoring: a copy x100
    both = pl.source_variance({"m": scores["m"], "n": {k: 100 * x for k, x in scores["m"].items()}})
    assert both == pytest.approx(v)
    assert pl.source_order(v, [1, 0, 2]) == [0, 1, 2]            # ties and missing: by index
    assert pl.source_variance({"m": {(0, 0): math.nan}}) == {}


def _db(texts: list[list[str]], human: Sequence[Sequence[float | None]] | None = None
        ) -> Database:
    db = Database([Levels("q", 0, continuous=True, minimum=0, maximum=100)])
    db.ensure_reference_class()
    for k, row in enumerate(texts):
        src = db.add_source(f"Quelle {k}", doc="d", seg=str(k + 1))
        db.mark_reference(db.add_target(src, f"reference {k}", system="ref"))
        for j, text in enumerate(row):
            t = db.add_target(src, text, system=SYSTEMS[j])
            value = human[k][j] if human is not None else None
            if value is not None:
                t.set_score("q", value, "h")
    return db


def _scores(db: Database, per_source: list[list[float]]) -> dict[str, dict]:
    """A fake measure: candidate j of source k gets per_source[k][j]."""
    out: dict = {}
    for si, src in enumerate(db.sources):
        for ti, t in enumerate(db.candidates(src)):
            out[(si, src.targets.index(t))] = per_source[si][ti]
    return {"fake": out}


def test_plan_reuses_identical_translations_and_respects_the_budget():
    db = _db([["a b", "a b", "c d"],          # B = A: sent once
              ["e f", "g h", "i j"],
              ["k l", "m n", "o p"]])
    # source 2 is judged already for A; its identical copy in another system is reused
    db.sources[2].targets[1].set_score("q", 50, "x")               # A's "k l"
    db.add_target(db.sources[2], "k l", system="D")                  # D = A on source 2
    scores = _scores(db, [[0, 0, 6], [0, 5, 10], [0, 1, 2, 0]])
    p = pl.plan(db, 4, scores=scores, human="q")
    # variances: source 1 (0, 5, 10) > source 0 (0, 0, 6) > source 2
    assert p.sources[0] == 1 and p.items[:3] == [(1, 1), (1, 2), (1, 3)]
    # source 0 costs 2 (A and C; B reuses A) but only 1 item is left: passed over; source 2
    # costs 2 (B, C) too: nothing else fits
    assert p.sources == [1] and len(p.items) == 3 and p.budget == 4
    p = pl.plan(db, 7, scores=scores, human="q")
    assert p.sources == [1, 0, 2]
    assert pl.Reused((0, 2), (0, 1), False) in p.reused               # B = A, planned
    assert pl.Reused((2, 4), (2, 1), True) in p.reused                # D = A, judged
    assert (2, 1) not in p.items                                      # judged: not sent
    assert len(p.items) == 2 + 3 + 2 and p.reused_judged == 1 and p.reused_planned == 1
    assert p.judged == 1 and p.candidates == 10
    d = p.to_dict(db)
    assert d["to_annotate"] == 7 and d["items"][0] == {"source": 2, "target": 1, "system": "A",
                                                        "doc": "d", "seg": "2"}
    with pytest.raises(ScoreError, match="no score class 'zz'"):
        pl.plan(db, 3, scores=scores, human="zz")


def _complete(n_sources: int = 40, seed: int = 0) -> tuple[Database, dict]:
    """Four systems with true qualities 10 < 20 < 30 < 40: on the first 8 sources the
    human scores show them apart (large differences), on the rest they are noise around
    one value. The fake measure shows the same spread as the humans."""
    rng = np.random.default_rng(seed)
    texts, human = [], []
    for k in range(n_sources):
        texts.append([f"t{k}{j}" for j in range(4)])
        if k < 8:
            human.append([10.0 + 10 * j + rng.normal(0, 1) for j in range(4)])
        else:
            human.append(list(50 + rng.normal(0, 3, 4)))
    db = _db(texts, human)
    return db, _scores(db, human)


def test_reproduction_prefers_the_separating_sources():
    db, scores = _complete()
    full = pl.human_matrix(db, "q")[2].mean(axis=0)
    p = pl.plan(db, 32, scores=scores, human="q", n_random=100, seed=1)
    assert p.items == [] and p.judged == 160                      # complete: nothing to send
    assert sorted(pl.source_order(p.variance, range(40))[:8]) == list(range(8))
    rows = {r.fraction: r for r in p.reproduction}
    assert sorted(rows) == [0.25, 0.5, 0.75, 1.0]
    r = rows[0.25]                                                # 8 items = 2 sources
    assert (r.sources, r.items, r.n_random) == (2, 8, 100)
    h = pl.human_matrix(db, "q")[2]
    sub = h[[0, 1]].mean(axis=0)
    assert r.tau == pytest.approx(stats.kendalltau(sub, full)[0])
    assert r.accuracy == pl.pairwise_accuracy(sub, full) == 1.0
    assert r.random_accuracy < r.accuracy and r.random_tau < r.tau
    assert 0 < r.random_share_below <= 1
    # deterministic by seed
    again = pl.plan(db, 32, scores=scores, human="q", seed=1).reproduction[0]
    other = pl.plan(db, 32, scores=scores, human="q", seed=2).reproduction[0]
    assert again == r and other.random_tau != r.random_tau


def test_pairwise_accuracy_by_hand():
    full = np.array([1.0, 2.0, 3.0, 3.0])
    # pairs strictly ordered in full: (0,1) (0,2) (0,3) (1,2) (1,3) = 5; subset swaps 0/1,
    # ties 2/3 (not counted: tied in full)
    assert pl.pairwise_accuracy(np.array([2.0, 1.0, 3.0, 4.0]), full) == pytest.approx(4 / 5)
    assert pl.pairwise_accuracy(np.array([1.0, 1.0, 3.0, 3.0]), full) == pytest.approx(4 / 5)
    assert math.isnan(pl.pairwise_accuracy(np.ones(3), np.ones(3)))


def test_reproduction_needs_complete_scores():
    db = _db([["a", "b"], ["c", "d"], ["e", "f"]], [[1, 2], [3, None], [None, 4]])
    rows, systems, h = pl.human_matrix(db, "q")
    assert rows == [0] and systems == ["A", "B"] and h.tolist() == [[1.0, 2.0]]
    p = pl.plan(db, 2, scores=_scores(db, [[0, 1], [0, 1], [0, 1]]), human="q")
    assert p.reproduction == [] and "1 sources have scores of 'q'" in p.reproduction_note


def test_candidate_scores_by_a_real_measure():
    db = _db([["a house", "the house"], ["two houses", "two house"]])
    for src, ref in zip(db.sources, ["the house", "two houses"]):
        src.targets[0].text = ref
    got = pl.candidate_scores(db, ["wer"])
    assert set(got) == {"wer"}
    assert got["wer"] == {(0, 1): pytest.approx(0.5), (0, 2): 0.0,
                          (1, 1): 0.0, (1, 2): pytest.approx(0.5)}


def test_systems_without_any_score_do_not_count():
    # C was never judged (as in WMT21, where MQM covers 8 of 20 systems)
    db = _db([["a", "b", "c"], ["d", "e", "f"]], [[1, 2, None], [3, 4, None]])
    rows, systems, h = pl.human_matrix(db, "q")
    assert rows == [0, 1] and systems == ["A", "B"] and h.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_a_combined_class_is_judged_by_all_its_parts():
    db = _db([["a", "b"], ["c", "d"]], [[1, 2], [3, 4]])
    db.add_class(Levels("r", 0, continuous=True, minimum=0, maximum=100))
    db.sources[0].targets[1].set_score("r", 10, "h")                # A on source 1 only
    assert pl.judged(db.sources[0].targets[1], "q+r")
    assert not pl.judged(db.sources[0].targets[2], "q+r")           # B has q, not r
    rows, systems, h = pl.human_matrix(db, "q+r")
    assert systems == ["A"] and rows == [0] and h.tolist() == [[11.0]]
    with pytest.raises(ScoreError, match="no score class 'zz'"):
        pl.plan(db, 2, scores=_scores(db, [[0, 1], [0, 1]]), human="q+zz")
