"""evaltrans ranking wins on whole-sentence rankings: the ratio of wins ignoring ties
(Macháček §3.1) in the one documented JSON shape (cli/ranking.py, README)."""

from __future__ import annotations

import json
import shutil

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io.etdb import demo_database_path, load_database, save_database


@pytest.fixture()
def ranked(tmp_path):
    """One ranking of the first source's four candidates: 1, 2, 2, 3."""
    from evaltrans_qt.engine.human.ranking import add_ranking
    p = tmp_path / "demo.etdb.xml"
    shutil.copy(demo_database_path(), p)
    db = load_database(p)
    src = db.sources[0]
    cands = [t for t in src.targets if not db.is_reference(t)]
    add_ranking(db, src, [(cands[0], 1), (cands[1], 2), (cands[2], 2), (cands[3], 3)],
                judge="anna", task="r1")
    save_database(db, p)
    return p, [c.system for c in cands]


def test_wins_json_is_the_documented_shape(ranked, capsys):
    path, systems = ranked
    assert main(["ranking", "wins", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) == {"level", "rankings", "systems"}
    assert d["level"] == "sentences" and d["rankings"] == 1      # no segments: sentences
    rows = {r["system"]: r for r in d["systems"]}
    for r in d["systems"]:
        assert list(r) == ["system", "ratio_of_wins", "expected_wins", "expected_wins_ties",
                           "geq_others", "wins", "losses", "ties"]
    assert [r["system"] for r in d["systems"]][0] == systems[0]   # best ratio first
    assert rows[systems[0]]["ratio_of_wins"] == 1.0 and rows[systems[3]]["ratio_of_wins"] == 0.0
    assert {k: rows[systems[1]][k] for k in ("wins", "losses", "ties", "ratio_of_wins")} == \
        {"wins": 1, "losses": 1, "ties": 1, "ratio_of_wins": 0.5}


def test_wins_text_and_table(ranked, tmp_path, capsys):
    path, systems = ranked
    out = tmp_path / "wins.csv"
    assert main(["ranking", "wins", str(path), "--sentences", "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Ratio of wins ignoring ties (Machacek 3.1), sentences: 1 ranking(s)"
    assert lines[2].split()[:2] == [systems[0], "1.0000"]
    assert out.read_text(encoding="utf-8").startswith("system,ratio_of_wins,expected_wins")


def test_wins_without_segment_rankings_at_segment_level(ranked, capsys):
    path, _ = ranked
    assert main(["ranking", "wins", str(path), "--segments", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d == {"level": "segments", "rankings": 0, "systems": []}
