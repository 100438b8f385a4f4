"""evaltrans judge-agreement / extrapolate (cli/human.py; the ``human`` command's protocol
values are tested with the protocols in test_protocols_cli.py)."""

from __future__ import annotations

import json

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io.etdb import load_database, save_database


def _run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _ranked(demo, tmp_path):
    """The demo database with whole-sentence rankings (the ``rank`` class) of two judges."""
    from evaltrans_qt.engine.human.ranking import add_ranking
    db = load_database(demo)
    for k in range(4):
        src = db.sources[k]
        cands = [t for t in src.targets if not db.is_reference(t)]
        add_ranking(db, src, [(c, 1 + (i + k) % 3) for i, c in enumerate(cands)],
                    judge="anna", task=f"a{k}")
        add_ranking(db, src, [(c, 1 + (2 * i + k) % 3) for i, c in enumerate(cands)],
                    judge="ben", task=f"b{k}")
    p = tmp_path / "ranked.etdb.xml"
    save_database(db, p)
    return p


def test_judge_agreement_of_the_score_classes(demo, capsys):
    rc, out, _ = _run(capsys, "judge-agreement", demo, "--json")
    data = json.loads(out)
    assert rc == 0 and {d["class"] for d in data} == {"fluency", "adequacy", "sser", "esa"}
    assert data[0]["correlation_normalized"]["inter_pairs"] > 0
    rc, out, _ = _run(capsys, "judge-agreement", demo, "--human", "fluency")
    assert rc == 0 and out.splitlines()[2].split()[:2] == ["fluency", "0.864"]
    assert "kappa per judge, class 'fluency'" in out


def test_judge_agreement_leaves_rankings_to_ranking_agreement(demo, tmp_path, capsys):
    """The judges' agreement on rankings is ``ranking agreement``'s (one command per job):
    judge-agreement lists the score classes only, the same rows with or without rankings."""
    ranked = _ranked(demo, tmp_path)
    rc, plain, _ = _run(capsys, "judge-agreement", demo)
    rc2, with_ranks, _ = _run(capsys, "judge-agreement", ranked)
    assert rc == rc2 == 0 and with_ranks == plain and "rank" not in with_ranks.split()
    rc, out, _ = _run(capsys, "ranking", "agreement", ranked, "--sentences", "--json")
    assert rc == 0 and json.loads(out)["kappa"]["inter_n"] > 0


@pytest.mark.parametrize("old", ["agreement", "ratio-of-wins"])
def test_the_old_top_level_ranking_commands_are_gone(old, demo, capsys):
    with pytest.raises(SystemExit) as exc:
        main([old, str(demo)])
    assert exc.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_extrapolate_fills_unscored_candidates(demo, tmp_path, capsys):
    out_db = tmp_path / "filled.etdb.xml"
    rc, out, _ = _run(capsys, "extrapolate", demo, "--human", "adequacy", "-o", out_db)
    assert rc == 0 and "WARNING" in out and "mean absolute difference" in out
    db = load_database(out_db)
    assert any(s.extrapolated for _, t in db.iter_candidates() for s in t.scores)
    for src, t in db.unscored("adequacy"):
        has_scored_sibling = any(x is not t and any(s.cls == "adequacy" and not s.extrapolated
                                                    for s in x.scores)
                                 for x in db.candidates(src))
        got = any(s.extrapolated for s in t.scores if s.cls == "adequacy")
        assert got == has_scored_sibling
