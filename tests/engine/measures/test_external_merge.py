"""evaltrans merge keeps external metric scores of both sides, moved to the merged
database's source positions, and reports differing values (engine/measures/external.py)."""

from __future__ import annotations

import copy

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.data.merge import merge
from evaltrans_qt.engine.measures.external import ExternalMetric, add_external, external_metrics


def _db(lines: list[str], scores: dict[int, float], sys_score: float | None = None) -> Database:
    db = Database()
    for k, text in enumerate(lines):
        src = db.add_source(text, seg=str(k + 1) if text.startswith("p") else None)
        db.add_target(src, f"ref {text}", "ref-A", reference=True)
        db.add_target(src, f"hyp {text}", "S")
    add_external(db, ExternalMetric("COMET22", True, {"S": dict(scores)},
                                    {"S": sys_score} if sys_score is not None else {},
                                    file="comet.seg.score"))
    return db


def test_identical_copy_changes_nothing_and_equality_sees_metrics():
    a = _db(["one", "two"], {0: 0.5, 1: 0.25}, 0.4)
    b = copy.deepcopy(a)
    report = merge(a, b, "new")
    assert a == b and not report.protocol_conflicts
    assert a != _db(["one", "two"], {0: 0.5, 1: 0.3}, 0.4)


def test_scores_follow_the_sources_and_conflicts_are_reported():
    a = _db(["one", "two"], {0: 0.5})
    b = _db(["three", "two", "one"], {0: 0.9, 1: 0.7, 2: 0.6})   # other order, one new source
    report = merge(a, b, "old")
    m = external_metrics(a)["COMET22"]
    pos = {s.text: i for i, s in enumerate(a.sources)}
    assert m.segments["S"] == {pos["one"]: 0.5, pos["two"]: 0.7, pos["three"]: 0.9}
    (conflict,) = report.protocol_conflicts
    assert "COMET22" in conflict and "1 score(s) differ" in conflict and "kept ours" in conflict
    a2 = _db(["one", "two"], {0: 0.5})
    merge(a2, b, "new")
    assert external_metrics(a2)["COMET22"].segments["S"][0] == 0.6


def test_metric_only_the_other_side_has_is_added():
    a = _db(["one"], {})
    external_metrics(a).clear()
    b = _db(["one"], {0: 0.1}, 0.2)
    merge(a, b, "old")
    assert external_metrics(a)["COMET22"].systems == {"S": 0.2}
    assert external_metrics(a)["COMET22"].segments == {"S": {0: 0.1}}
