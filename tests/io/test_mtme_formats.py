"""mt-metrics-eval directories, WMT XML test sets and external metric scores.

An mt-metrics-eval EvalSet is built in a tmp dir from ../shared/data/wmt21-ende (40
segments, two references, one reference also scored as a system, MQM with None gaps at
seg level plus sys and doc files, a COMET-like metric at seg and sys level); it imports,
survives save/load and exports back byte for byte. The external metric then flows into
the result tables, correlations, significance, the metrics-task statistics and reports.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.measures.external import external_metrics, with_external
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.errors import EvalTransError, InputFormatError
from evaltrans_qt.io import etdb, scores
from evaltrans_qt.io.mtme import export_mtme, import_mtme
from evaltrans_qt.io.wmtxml import import_wmtxml

LP = "en-de"
N = 40
SYSTEMS = ["Facebook-AI", "Online-W", "UEdin", "VolcTrans-GLAT"]
METRIC = "COMET-like-refA"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:N]


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")


@pytest.fixture(scope="module")
def mtme_dir(wmt_dir, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("wmt21")
    pre = "newstest2021.en-de"
    _write(root / "sources" / f"{LP}.txt", _lines(wmt_dir / f"{pre}.src.en"))
    _write(root / "documents" / f"{LP}.docs",
           [f"news doc{1 + i // 10}" for i in range(N)])
    for r in ("A", "C"):
        _write(root / "references" / f"{LP}.ref{r}.txt", _lines(wmt_dir / f"{pre}.ref.{r}.de"))
    _write(root / "system-outputs" / LP / "refC.txt", _lines(wmt_dir / f"{pre}.ref.C.de"))
    for s in SYSTEMS:
        _write(root / "system-outputs" / LP / f"{s}.txt", _lines(wmt_dir / f"{pre}.hyp.{s}.de"))
    mqm: dict[tuple[str, int], float] = {}
    for line in (wmt_dir / "mqm.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        s, seg, v = line.split("\t")
        if s in SYSTEMS and int(seg) <= N and v.strip():
            mqm[(s, int(seg))] = float(v) + 0.0          # no -0.0
    seg_lines, sys_lines, doc_lines = [], [], []
    rng = np.random.default_rng(5)
    comet_seg, comet_sys = [], []
    for s in SYSTEMS:
        vals = [mqm.get((s, i + 1)) for i in range(N)]
        vals[3] = None                                           # a gap even where rated
        seg_lines += [f"{s} {'None' if v is None else repr(v)}" for v in vals]
        got = [v for v in vals if v is not None]
        sys_lines.append(f"{s} {repr(float(np.mean(got))) if got else 'None'}")
        doc_lines += [f"{s} {repr(float(-k))}" for k in range(4)]
        c = [round(float((v if v is not None else -2.0) / 5 + rng.normal(0, 0.3)), 6)
             for v in vals]
        comet_seg += [f"{s} {repr(x)}" for x in c]
        comet_sys.append(f"{s} {repr(round(float(np.mean(c)), 6))}")
    _write(root / "human-scores" / f"{LP}.mqm.seg.score", seg_lines)
    _write(root / "human-scores" / f"{LP}.mqm.sys.score", sys_lines)
    _write(root / "human-scores" / f"{LP}.mqm.doc.score", doc_lines)
    _write(root / "metric-scores" / LP / f"{METRIC}.seg.score", comet_seg)
    _write(root / "metric-scores" / LP / f"{METRIC}.sys.score", comet_sys)
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def mtme_db(mtme_dir, tmp_path_factory) -> Database:
    db = import_mtme(mtme_dir, LP)
    path = tmp_path_factory.mktemp("db") / "m.etdb.xml"
    etdb.save_database(db, path)
    return etdb.load_database(path)


def test_import_maps_the_evalset(mtme_db):
    db = mtme_db
    assert len(db.sources) == N
    assert db.sources[0].seg == "1" and db.sources[0].doc == "doc1"
    assert db.sources[0].extra_attrs["domain"] == "news"
    assert sorted(db.reference_ids()) == ["refA", "refC"]
    assert sorted(db.systems()) == sorted(SYSTEMS)
    assert db.has_class("mqm")
    t = next(t for t in db.sources[3].targets if t.system == SYSTEMS[0])
    assert t.value("mqm") is None                                 # the None gap
    m = external_metrics(db)[METRIC]
    assert m.reference == "refA" and m.level == "seg+sys" and m.higher_is_better
    assert len(m.segments[SYSTEMS[1]]) == N


def test_export_gives_back_the_same_files(mtme_dir, mtme_db, tmp_path):
    export_mtme(mtme_db, tmp_path / "out")
    assert _tree(tmp_path / "out") == _tree(mtme_dir)


def test_export_writes_our_measures(mtme_db, tmp_path):
    run = evaluate(mtme_db, EvalOptions(), ["bleu", "ter"])
    export_mtme(mtme_db, tmp_path / "out", run=run)
    seg = (tmp_path / "out" / "metric-scores" / LP / "ter-all.seg.score").read_text().split("\n")
    assert len([x for x in seg if x]) == N * len(run.systems)
    sys_lines = (tmp_path / "out" / "metric-scores" / LP / "bleu-all.sys.score").read_text()
    first = sys_lines.split("\n")[0].split()
    assert float(first[1]) == pytest.approx(run.systems[first[0]].scores["bleu"].value)


def test_external_metric_flows_everywhere(mtme_db):
    from evaltrans_qt.engine.metaeval import metrics_task as mt
    from evaltrans_qt.engine.metaeval.correlation import correlate_run
    from evaltrans_qt.engine.metaeval.significance import run_significance
    from evaltrans_qt.engine.run.tables import build_tables
    from evaltrans_qt.io.report import build_report, loads_report
    db = mtme_db
    run = evaluate(db, EvalOptions(), ["bleu"])
    tables = build_tables(run, db)
    assert METRIC in tables.systems.columns and METRIC in tables.sentences.columns
    ext = external_metrics(db)[METRIC]
    row = tables.sentences[(tables.sentences.system == "UEdin") & (tables.sentences.segment == 5)]
    assert float(row[METRIC].iloc[0]) == pytest.approx(ext.segments["UEdin"][5])
    sysrow = tables.systems.set_index("system").loc["UEdin"]
    assert sysrow[METRIC] == pytest.approx(ext.systems["UEdin"])          # the sys file's value
    run2 = with_external(run, db)
    assert run2.measures == ("bleu", METRIC)
    assert "file:" in run2.signature(METRIC) and "direction:higher" in run2.signature(METRIC)
    corr = {c.measure: c for c in correlate_run(db, run2, "mqm", n_boot=50)}
    assert METRIC in corr and math.isfinite(corr[METRIC].pearson)
    sig = run_significance(run2, METRIC, samples=100, seed=1)
    assert sig.p_values.shape == (len(SYSTEMS), len(SYSTEMS))
    data = mt.gather(db, run2, "mqm")
    rows = {r.measure: r for r in mt.metrics_table(data, ["pearson", "acc-eq"], grouping="item")}
    assert math.isfinite(rows[METRIC].values["pearson"])
    rep = build_report(run2, "UEdin", sentences_in_detail=False)
    assert f'name="{METRIC}"'.encode() in rep
    back = loads_report(rep)
    assert METRIC in back.measures
    assert back.systems["UEdin"].scores[METRIC].value == pytest.approx(ext.systems["UEdin"])


def test_wmt_submission_files_and_direction(tmp_path):
    db = Database()
    srcs = [db.add_source(f"s{i}", None, str(i + 1)) for i in range(3)]
    for s in srcs:
        db.add_target(s, "r", "ref-A", reference=True)
        db.add_target(s, "h", "sysA")
        db.add_target(s, "g", "sysB")
    seg = tmp_path / "TER-x.seg.score"
    seg.write_text("".join(f"TER-x\ten-de\tnewstest\t{s}\t{i}\t{0.1 * i}\n"
                           for s in ("sysA", "sysB") for i in (1, 2, 3)))
    sysf = tmp_path / "TER-x.sys.score"
    sysf.write_text("TER-x\ten-de\tnewstest\tsysA\t0.5\nTER-x\ten-de\tnewstest\tsysB\t0.25\n")
    got = scores.import_scores(db, [seg, sysf])
    assert len(got) == 1
    m = got[0]
    assert m.name == "TER-x" and not m.higher_is_better                 # TER: lower is better
    assert m.segments["sysB"] == {0: 0.1, 1: 0.2, 2: pytest.approx(0.3)}
    assert m.systems == {"sysA": 0.5, "sysB": 0.25}
    jl = tmp_path / "x.jsonl"
    jl.write_text('{"system": "sysA", "segment": 2, "score": 0.7}\n')
    (m2,) = scores.read_scores_file(jl, db, name="Q", higher_is_better=True)
    assert m2.segments == {"sysA": {1: 0.7}}
    bad = tmp_path / "bad.tsv"
    bad.write_text("sysZ\t1\t0.3\n")
    with pytest.raises(InputFormatError, match="unknown system 'sysZ'") as exc:
        scores.read_scores_file(bad, db)
    assert exc.value.line == 1
    clash = tmp_path / "bleu.tsv"
    clash.write_text("sysA\t1\t0.3\n")
    with pytest.raises(EvalTransError, match="our measure 'bleu'"):
        scores.read_scores_file(clash, db)


def test_import_scores_command(tmp_path, mtme_db):
    path = tmp_path / "m.etdb.xml"
    etdb.save_database(mtme_db, path)
    tsv = tmp_path / "qe.tsv"
    tsv.write_text("system\tsegment\tscore\n" + "".join(
        f"{s}\t{i}\t{-0.01 * i}\n" for s in SYSTEMS for i in range(1, N + 1)))
    cmd = [sys.executable, "-m", "evaltrans_qt", "import", "scores", str(tsv), "--database",
           str(path), "--name", "QE-err", "--higher-is-better"]
    assert subprocess.run(cmd, capture_output=True, text=True).returncode == 0
    m = external_metrics(etdb.load_database(path))["QE-err"]
    assert m.higher_is_better and m.segments["UEdin"][N - 1] == pytest.approx(-0.01 * N)
    out = subprocess.run([sys.executable, "-m", "evaltrans_qt", "correlate", str(path),
                          "--human", "mqm", "--measures", "bleu,QE-err," + METRIC,
                          "--stats", "pearson,kendall,pairwise-accuracy,acc-eq,spa",
                          "--group", "item", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert {r["measure"] for r in rows} == {"bleu", "QE-err", METRIC}
    assert {r["level"] for r in rows} == {"seg", "sys"}
    bad = subprocess.run(cmd[:5] + [str(tmp_path / "missing.tsv")] + cmd[6:],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "file not found" in bad.stderr


WMTXML = """<?xml version="1.0" encoding="utf-8"?>
<dataset id="wmt21"><collection id="general">
 <doc id="d1" origlang="en"><src lang="en"><p><seg id="1">Hello .</seg><seg id="2">Bye .</seg></p></src>
  <ref lang="de" translator="A"><p><seg id="1">Hallo .</seg><seg id="2">Tschüss .</seg></p></ref>
  <ref lang="de" translator="B"><p><seg id="1">Servus .</seg><seg id="2">Ciao .</seg></p></ref>
  <hyp lang="de" system="sysX"><p><seg id="1">Hallo !</seg><seg id="2">Tschau .</seg></p></hyp>
 </doc>
 <doc id="d2" origlang="en"><src lang="en"><p><seg id="1">Yes &amp; no .</seg></p></src>
  <ref lang="de" translator="A"><p><seg id="1">Ja &amp; nein .</seg></p></ref>
  <hyp lang="de" system="sysX"><p><seg id="1">Ja und nein .</seg></p></hyp>
 </doc>
</collection></dataset>
"""


def test_wmtxml_import(tmp_path):
    f = tmp_path / "t.xml"
    f.write_text(WMTXML, encoding="utf-8")
    db = import_wmtxml(f)
    assert [(s.doc, s.seg, s.text) for s in db.sources] == [
        ("d1", "1", "Hello ."), ("d1", "2", "Bye ."), ("d2", "3", "Yes & no .")]
    assert sorted(db.reference_ids()) == ["ref-A", "ref-B"]
    assert db.systems() == ["sysX"]
    third = db.sources[2]
    assert [(t.system, t.text) for t in third.targets] == [("ref-A", "Ja & nein ."),
                                                          ("sysX", "Ja und nein .")]
    f.write_text(WMTXML.replace('<seg id="2">Tschau', '<seg id="9">Tschau'), encoding="utf-8")
    with pytest.raises(InputFormatError, match="no such segment"):
        import_wmtxml(f)


def test_wmtxml_refuses_entity_declarations(tmp_path):
    """The WMT XML reader uses the one safe XML configuration of the other readers: an
    ``<!ENTITY`` declaration is refused before parsing (XXE, billion laughs)."""
    from evaltrans_qt.errors import InputFormatError
    from evaltrans_qt.io.wmtxml import import_wmtxml
    p = tmp_path / "evil.xml"
    p.write_text('<?xml version="1.0"?>\n<!DOCTYPE dataset [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
                 '<dataset><collection><doc id="d"><src lang="en"><p><seg id="1">&x;</seg></p>'
                 '</src></doc></collection></dataset>\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match="(?i)entit"):
        import_wmtxml(p)
