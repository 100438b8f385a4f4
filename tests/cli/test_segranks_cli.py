"""evaltrans segranks / ranking: the README's example in one command, the
formats round trip through the command line, bad input exits 2 naming file and line
and writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.human.segranks.model import sentence_segments
from evaltrans_qt.engine.human.segranks.sessions import record_segment_ranking
from evaltrans_qt.io.etdb import load_database, save_database

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "segranks_example"


def run(*argv) -> int:
    return main([str(a) for a in argv])


@pytest.fixture
def camp(tmp_path):
    d = tmp_path / "camp"
    shutil.copytree(EXAMPLE, d)
    return d


def extract(camp, tmp_path, *extra) -> int:
    return run("segranks", "extract", "--database", camp / "campaign.etdb.xml", "--trees",
               camp / "sources.ptb", "--alignments-dir", camp, "-o", tmp_path / "x.segments",
               "--output-database", tmp_path / "c.etdb.xml", *extra)


def test_readme_example_and_round_trip(camp, tmp_path, capsys):
    assert extract(camp, tmp_path, "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["sentences"], summary["segments"], summary["projected"],
            summary["merged"]) == (5, 7, 21, 17)
    assert len((tmp_path / "x.segments").read_text(encoding="utf-8").splitlines()) == 17
    db = load_database(tmp_path / "c.etdb.xml")
    record_segment_ranking(db, 0, {0: [1, 2], 1: [1, 3, 2]}, "anna", seconds=30, task="a1")
    record_segment_ranking(db, 0, {0: [1, 1], 1: [1, 3, 2]}, "ben", seconds=20, task="b1")
    save_database(db, tmp_path / "c.etdb.xml")
    assert run("segranks", "export", tmp_path / "c.etdb.xml", "-o", tmp_path / "r.json") == 0
    assert run("segranks", "extract", "--database", camp / "campaign.etdb.xml", "--trees",
               camp / "sources.ptb", "--alignments-dir", camp, "-o", tmp_path / "y.segments",
               "--output-database", tmp_path / "d.etdb.xml") == 0
    assert run("segranks", "import", tmp_path / "r.json", "--database", tmp_path / "d.etdb.xml",
               "--judge", "anna") == 0
    d = load_database(tmp_path / "d.etdb.xml")
    assert [r.ranks for r in sentence_segments(d.sources[0]).rankings] == \
        [{0: (1, 2), 1: (1, 3, 2)}, {0: (1, 1), 1: (1, 3, 2)}]
    capsys.readouterr()
    assert run("ranking", "wins", tmp_path / "c.etdb.xml", "--json", "-o",
               tmp_path / "wins.tex") == 0
    wins = json.loads(capsys.readouterr().out)
    assert wins["level"] == "segments" and wins["rankings"] == 4
    assert wins["systems"][0]["system"] == "sysA"
    assert "\\toprule" in (tmp_path / "wins.tex").read_text(encoding="utf-8")
    assert run("ranking", "agreement", tmp_path / "c.etdb.xml", "--json", "-o",
               tmp_path / "ann.csv") == 0
    ag = json.loads(capsys.readouterr().out)
    # anna and ben agree on 3 of the 4 candidate pairs
    assert ag["kappa"]["inter_n"] == 4 and ag["annotators"][-1]["judge"] == "Total"
    assert ag["annotators"][0]["seconds"] == 30
    assert (tmp_path / "ann.csv").read_text().startswith("judge,n_sent,n_seg")
    assert run("ranking", "agreement", tmp_path / "c.etdb.xml") == 0
    assert "Total" in capsys.readouterr().out


def _unchanged(tmp_path, camp, before: bytes) -> None:
    assert not (tmp_path / "x.segments").exists() and not (tmp_path / "c.etdb.xml").exists()
    assert (camp / "campaign.etdb.xml").read_bytes() == before


@pytest.mark.parametrize("what,msg", [
    ("tree", "sources.ptb:30: tree 3: word 2 is 'novels'"),
    ("alignment", "sysB.pharaoh:4: link 6-99: candidate token 99 does not exist"),
    ("alignment-format", "sysC.pharaoh:2: '3_3' is not an alignment link"),
])
def test_bad_input_exits_2_and_writes_nothing(camp, tmp_path, capsys, what, msg):
    before = (camp / "campaign.etdb.xml").read_bytes()
    if what == "tree":
        p = camp / "sources.ptb"
        p.write_text(p.read_text().replace("(NNS books)", "(NNS novels)"))
    elif what == "alignment":
        p = camp / "sysB.pharaoh"
        lines = p.read_text().splitlines()
        lines[3] = lines[3].replace("6-10", "6-99")
        p.write_text("\n".join(lines) + "\n")
    else:
        p = camp / "sysC.pharaoh"
        lines = p.read_text().splitlines()
        lines[1] = lines[1].replace("3-3", "3_3")
        p.write_text("\n".join(lines) + "\n")
    assert extract(camp, tmp_path) == 2
    assert msg in capsys.readouterr().err
    _unchanged(tmp_path, camp, before)


def test_missing_alignment_for_a_system(camp, tmp_path, capsys):
    before = (camp / "campaign.etdb.xml").read_bytes()
    (camp / "sysC.pharaoh").unlink()
    assert extract(camp, tmp_path, "--systems", "sysA,sysB,sysC") == 2
    assert "no --alignment for system(s) sysC" in capsys.readouterr().err
    _unchanged(tmp_path, camp, before)


def test_eflomal_when_no_alignment_is_given(camp, tmp_path, capsys):
    pytest.importorskip("eflomal")
    assert run("segranks", "extract", "--database", camp / "campaign.etdb.xml", "--trees",
               camp / "sources.ptb", "-o", tmp_path / "x.segments", "--output-database",
               tmp_path / "c.etdb.xml", "--save-alignments", tmp_path / "al", "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["segments"] == 7 and summary["systems"] == ["sysA", "sysB", "sysC"]
    assert len((tmp_path / "al" / "sysA.pharaoh").read_text().splitlines()) == 5


def test_import_wmt_unknown_system(camp, tmp_path, capsys):
    csv = tmp_path / "j.csv"
    csv.write_text("srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,"
                   "system1Id,system2Number,system2Id,system1rank,system2rank\n"
                   "en,de,1,-1,1,j1,1,sysA,2,sysB,1,2\n"
                   "en,de,2,-1,2,j1,1,sysA,2,Bing,2,1\n")
    out = tmp_path / "o.etdb.xml"
    assert run("ranking", "import-wmt", csv, "--database", camp / "campaign.etdb.xml",
               "-o", out) == 2
    assert "j.csv:3: system2Id 'Bing' is not a system" in capsys.readouterr().err
    assert not out.exists()
    csv.write_text(csv.read_text().replace("Bing", "sysC"))
    assert run("ranking", "import-wmt", csv, "--database", camp / "campaign.etdb.xml",
               "-o", out) == 0
    capsys.readouterr()
    assert run("ranking", "wins", out, "--json") == 0
    res = json.loads(capsys.readouterr().out)
    assert res["level"] == "sentences"
    assert {r["system"]: r["ratio_of_wins"] for r in res["systems"]} == \
        {"sysA": 0.5, "sysB": 0.0, "sysC": 1.0}


def test_segranks_import_refuses_unknown_suffix(camp, tmp_path, capsys):
    f = tmp_path / "x.txt"
    f.write_text("x")
    assert run("segranks", "import", f, "--database", camp / "campaign.etdb.xml") == 2
    assert ".segments" in capsys.readouterr().err
