"""`evaltrans batch --all-systems --output-file`: the multi-system text table keeps long
measure names apart (the SegRanks measures exactmatch/penalizeunknown/segranksbleu are
longer than the old fixed 10-character columns) and every value under its name."""

from __future__ import annotations

import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.io.etdb import save_database
from evaltrans_qt.io.report import read_report
from tests.engine.human.unseen_db import make_db

MEASURES = ["exactmatch", "penalizeunknown", "segranksbleu", "wer"]


def test_long_measure_names_stay_apart_and_aligned(tmp_path, capsys):
    db = tmp_path / "u.etdb.xml"
    save_database(make_db(), db)
    assert main(["batch", "--database", str(db), "--all-systems", "--xml-mode", "--measures",
                 ",".join(MEASURES), "--output-file", str(tmp_path / "rep.xml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = [ln for ln in lines if ln and not ln.startswith(("signature", "#"))]
    head, rows = table[0], table[1:]
    assert head.split() == ["system", *MEASURES]           # was 'systemexactmatch...'
    ends = [head.index(m) + len(m) for m in MEASURES]
    for m, e in zip(MEASURES, ends):                        # a space before every name
        assert head[e - len(m) - 1] == " ", m
    assert [r.split()[0] for r in rows] == ["A", "B", "C", "D"]
    for r in rows:
        system, *values = r.split()
        # right-aligned: each value ends where its measure's name ends
        assert [r.index(v, e - len(v)) + len(v) for v, e in zip(values, ends)] == ends
        rep = read_report(tmp_path / f"rep.{system}.xml")
        assert [float(v) for v in values] == pytest.approx(
            [rep.systems[system].scores[m].value for m in MEASURES], abs=5e-5)
