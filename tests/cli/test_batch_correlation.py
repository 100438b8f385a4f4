"""The report's <correlation> section: written by `evaltrans batch` when the
database has human scores, read back by the report reader, values equal to scipy's."""

import shutil

import numpy as np
import pytest
from scipy import stats

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.human.resolve import human_scores
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.io.etdb import demo_database_path, load_database
from evaltrans_qt.io.report import read_report


def test_report_correlation_section_matches_scipy(tmp_path):
    db_path = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), db_path)
    out = tmp_path / "rep.xml"
    rc = main(["batch", "--database", str(db_path), "--all-systems", "--xml-mode",
               "--measures", "wer,bleu", "--correlation-samples", "200", "--output-file", str(out)])
    assert rc == 0
    back = read_report(tmp_path / "rep.WebTrans.xml")
    rows = back.meta["correlation"]
    # 2 measures x 4 human classes (fluency, adequacy, sser, esa) x 2 levels (4 systems >= 3)
    assert len(rows) == 16
    got = {(a["measure"], a["human"], a["level"]): d for a, d in rows}
    # independent recomputation of sentence-level r, rho, tau_b for WER vs fluency
    db = load_database(db_path)
    run = evaluate(db, EvalOptions(), ["wer", "bleu"])
    hs = human_scores(db, "fluency")
    x, y = [], []
    for s, sr in run.systems.items():
        h = hs.column(s, sr.segments)
        w = run.sentence_column(s, "wer")
        ok = np.isfinite(h)
        x.extend(-w[ok])          # error measure negated: positive = agreement
        y.extend(h[ok])
    d = got[("wer", "fluency", "sentence")]
    assert d["pearson"]["value"] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert d["spearman"]["value"] == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
    assert d["kendall-b"]["value"] == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
    assert d["pearson"]["lower"] <= d["pearson"]["value"] <= d["pearson"]["upper"]
    assert "tau-bar" in d and "tau-bar" not in got[("wer", "fluency", "system")]


def test_no_correlation_section_when_switched_off(tmp_path):
    db_path = tmp_path / "demo.etdb.xml"
    shutil.copyfile(demo_database_path(), db_path)
    out = tmp_path / "rep.xml"
    assert main(["batch", "--database", str(db_path), "--all-systems", "--xml-mode",
                 "--measures", "wer", "--correlation-samples", "0", "--output-file", str(out)]) == 0
    assert "<correlation>" not in (tmp_path / "rep.RuleMT.xml").read_text()


def test_reference_files_report_rows_follow_the_target_file(tmp_path):
    """Found in review: with a repeated source line, rows came in source order."""
    import re
    (tmp_path / "src.txt").write_text("Danke .\nHallo .\nDanke .\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("thank you .\nhello .\nthanks .\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("first line .\nsecond line .\nthird line .\n", encoding="utf-8")
    out = tmp_path / "r.xml"
    assert main(["batch", "--source", str(tmp_path / "src.txt"), "--reference",
                 str(tmp_path / "ref.txt"), "--target", f"S={tmp_path / 'hyp.txt'}", "--xml-mode",
                 "--measures", "wer", "--sentences-in-detail", "--include-sentences",
                 "--output-file", str(out)]) == 0
    sents = re.findall(r"<t_sent>([^<]*)</t_sent>", out.read_text(encoding="utf-8"))
    assert sents == ["first line .", "second line .", "third line ."]
