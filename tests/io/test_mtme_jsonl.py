"""mt-metrics-eval directories as it has them now: JSON Lines sources, references and
system outputs, ``metadata/`` per translation, WMT25's human score versions
(``esa-human1``/``esa-human2``) -- imported, filtered by metadata, and exported so that
mt-metrics-eval's own ``data.EvalSet`` (vendored under tests/vendor) loads the export
with the same texts, metadata and scores.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from evaltrans_qt.engine.metaeval.metadata import Where, metadata_of
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.errors import InputFormatError
from evaltrans_qt.io.mtme import export_mtme, import_mtme

VENDOR = Path(__file__).resolve().parents[1] / "vendor"
if str(VENDOR) not in sys.path:
    sys.path.insert(0, str(VENDOR))
# data.py imports apache_beam (its parallel significance matrix) and ratings.py dacite
# (reading .rating files); neither is used when an EvalSet is loaded without ratings
for _missing in ("apache_beam", "dacite"):
    sys.modules.setdefault(_missing, types.ModuleType(_missing))
from mt_metrics_eval import data as mdata  # noqa: E402  (vendored, tests/vendor/README.md)
from mt_metrics_eval import meta_info  # noqa: E402

LP = "en-de"
SRC = ["One sentence.", "Two sentences here.", "A third one.", "And a fourth."]
REF_A = ["Ein Satz.", "Hier zwei Saetze.", "Ein dritter.", "Und ein vierter."]
REF_B = ["Ein Satz!", "Zwei Saetze hier.", "Noch einer.", "Und der vierte."]
OUT = {"sysX": ["Ein Satz.", "Zwei Saetze.", "Ein Dritter.", "Und vier."],
       "sysY": ["Satz.", "Hier zwei.", "Dritte.", "Ein vierter."],
       "sysZ": ["Ein Satz", "Zwei hier Saetze.", "Ein dritter.", "Und ein vierter!"]}
DOMAINS = ["news", "news", "social", "social"]
H1 = {"sysX": [90, 70, None, 60], "sysY": [40, 50, 30, 20], "sysZ": [85, 60, 80, 95]}
H2 = {"sysX": [88, 72, 65, None], "sysY": [35, 55, 25, 30], "sysZ": [80, 66, 75, 90]}


def _jsonl(path: Path, objs: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")


def _text(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


@pytest.fixture
def jsonl_dir(tmp_path) -> Path:
    root = tmp_path / "wmt25"
    _jsonl(root / "sources" / f"{LP}.jsonl", [{"source": s} for s in SRC])
    _text(root / "documents" / f"{LP}.docs",
          [f"{d} doc{i // 2}" for i, d in enumerate(DOMAINS)])
    _jsonl(root / "references" / f"{LP}.refA.jsonl", [{"target": t} for t in REF_A])
    _text(root / "references" / f"{LP}.refB.txt", REF_B)
    for name, lines in OUT.items():
        _jsonl(root / "system-outputs" / LP / f"{name}.jsonl",
               [{"hypothesis": t, "source": s} for t, s in zip(lines, SRC)])
    for name in ("sysX", "sysY"):
        _jsonl(root / "metadata" / LP / f"{name}.jsonl",
               [{"style": "formal" if i % 2 == 0 else "casual", "len": len(t), "llm": name == "sysY"}
                for i, t in enumerate(OUT[name])])
    for cls, vals in (("esa-human1", H1), ("esa-human2", H2)):
        _text(root / "human-scores" / f"{LP}.{cls}.seg.score",
              [f"{s} {'None' if v is None else v}" for s, vs in vals.items() for v in vs])
    return root


def test_jsonl_layout_and_metadata_are_imported(jsonl_dir):
    db = import_mtme(jsonl_dir, LP)
    assert [s.text for s in db.sources] == SRC
    assert [s.extra_attrs["domain"] for s in db.sources] == DOMAINS
    texts = {t.system: [] for s in db.sources for t in s.targets}
    for s in db.sources:
        for t in s.targets:
            texts[t.system].append(t.text)
    assert texts["refA"] == REF_A and texts["refB"] == REF_B
    assert all(texts[k] == v for k, v in OUT.items())
    assert {"esa-human1", "esa-human2"} <= set(db.human_classes)
    x = [t for t in db.sources[1].targets if t.system == "sysX"][0]
    assert metadata_of(x) == {"style": "casual", "len": 12, "llm": False}
    z = [t for t in db.sources[1].targets if t.system == "sysZ"][0]
    assert metadata_of(z) == {}
    assert Where.parse(["style=casual"]).keeps(db.sources[1], x)
    assert Where.parse(["domain=news", "llm=false"]).keeps(db.sources[1], x)
    assert not Where.parse(["domain=social"]).keeps(db.sources[1], x)
    assert not Where.parse(["style=casual"]).keeps(db.sources[1], z)


def test_bad_jsonl_names_file_and_line(jsonl_dir):
    f = jsonl_dir / "system-outputs" / LP / "sysY.jsonl"
    f.write_text(f.read_text(encoding="utf-8").replace('"hypothesis"', '"hyp"', 1)
                 + "", encoding="utf-8")
    with pytest.raises(InputFormatError, match="hypothesis") as e:
        import_mtme(jsonl_dir, LP)
    assert e.value.line == 1 and "sysY.jsonl" in str(e.value)
    f.write_text('{"hypothesis": "a"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match="not JSON") as e:
        import_mtme(jsonl_dir, LP)
    assert e.value.line == 2
    meta = jsonl_dir / "metadata" / LP / "nobody.jsonl"
    _jsonl(meta, [{}] * 4)
    f.unlink()
    with pytest.raises(InputFormatError, match="unknown system 'nobody'"):
        import_mtme(jsonl_dir, LP)


def test_export_loads_in_mt_metrics_evals_evalset(jsonl_dir, tmp_path):
    db = import_mtme(jsonl_dir, LP)
    run = evaluate(db, EvalOptions(), ["chrf", "bleu"], list(OUT))
    out = tmp_path / "export" / "wmt25"
    export_mtme(db, out, LP, run=run)
    info = meta_info.MetaInfo("refA", {"seg": "esa-human1"}, set(), set())
    evs = mdata.EvalSet("wmt25", LP, read_stored_metric_scores=True, info=info,
                        path=str(out.parent))
    assert evs.src == SRC
    assert evs.all_refs == {"refA": REF_A, "refB": REF_B}
    assert {k: v for k, v in evs.sys_outputs.items()} == OUT
    assert evs.DomainsPerSeg() == DOMAINS
    assert evs.human_score_names == {"esa-human1", "esa-human2"}
    assert evs.Scores("seg", "esa-human1") == {s: [None if v is None else float(v) for v in vs]
                                               for s, vs in H1.items()}
    assert evs.Scores("seg", "esa-human2")["sysX"] == [88.0, 72.0, 65.0, None]
    assert evs.metadata["sysX"][1] == {"style": "casual", "len": 12, "llm": False}
    assert set(evs.metadata) == {"sysX", "sysY"}
    # our measures as metric scores: the run's numbers, read by its ReadScoreFile
    # (its name joins a set of references: refA.refB or refB.refA)
    names = {n.split("-")[0]: n for n in evs.metric_names}
    assert evs.ReferencesUsed(names["chrf"]) == {"refA", "refB"}
    chrf = evs.Scores("seg", names["chrf"])
    for s in OUT:
        assert chrf[s] == pytest.approx(list(run.sentence_column(s, "chrf")), abs=1e-12)
    sys_bleu = evs.Scores("sys", names["bleu"])
    assert sys_bleu["sysZ"] == [pytest.approx(run.systems["sysZ"].scores["bleu"].value)]
    # a correlation of their loading equals ours on the same files
    corr = evs.Correlation(evs.Scores("seg", "esa-human1"), chrf)
    from evaltrans_qt.engine.metaeval.metrics_task import gather, metrics_table
    data = gather(db, run, "esa-human1")
    row = {r.measure: r for r in metrics_table(data, ["pearson"], level="seg")}["chrf"]
    assert row.values["pearson"] == pytest.approx(corr.Pearson()[0], abs=1e-9)
    # and the export imports back to the same texts and metadata
    again = import_mtme(out, LP)
    assert [metadata_of(t) for s in again.sources for t in s.targets if t.system == "sysY"] \
        == [metadata_of(t) for s in db.sources for t in s.targets if t.system == "sysY"]


def test_correlate_where_filters_cells_by_metadata_and_domain(jsonl_dir, tmp_path, capsys):
    """``correlate --where``: only the matching translations' cells, each output naming
    the filter; the numbers are the statistics of the kept cells."""
    from evaltrans_qt.cli.main import main
    from evaltrans_qt.engine.metaeval.metrics_task import gather, metrics_table
    from evaltrans_qt.io.etdb import save_database
    db = import_mtme(jsonl_dir, LP)
    path = tmp_path / "m.etdb.xml"
    save_database(db, path)
    rc = main(["correlate", str(path), "--human", "esa-human2", "--measures", "chrf",
               "--stats", "pearson", "--level", "seg", "--where", "domain=news", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert rc == 0 and rows[0]["where"] == "domain=news" and rows[0]["n"] == 6
    run = evaluate(db, EvalOptions(), ["chrf"], list(OUT))
    full = gather(db, run, "esa-human2")
    news = full.gold.copy()
    news[:, 2:] = float("nan")                     # segments 3 and 4 are social
    from evaltrans_qt.engine.metaeval.statistics.grouped import Grouped
    assert rows[0]["pearson"] == pytest.approx(Grouped(news).pearson(full.metrics["chrf"]),
                                               abs=1e-12)
    data = gather(db, run, "esa-human2", where=Where.parse(["style=formal"]))
    # sysZ has no metadata: no cell of it is kept; sysX/sysY keep segments 1 and 3
    kept = ~np.isnan(data.gold)
    assert kept.sum() == 4 and not kept[data.systems.index("sysZ")].any()
    sys_row = metrics_table(data, ["pearson"], level="sys")[0]
    assert sys_row.where == "style=formal"
    rc = main(["correlate", str(path), "--human", "esa-human2", "--measures", "chrf",
               "--where", "domain=news"])
    assert rc == 2 and "--where" in capsys.readouterr().err
    rc = main(["correlate", str(path), "--human", "esa-human2", "--measures", "chrf",
               "--stats", "pearson", "--where", "nonsense"])
    assert rc == 2 and "KEY=VALUE" in capsys.readouterr().err


def test_significance_between_metrics_where(jsonl_dir, tmp_path, capsys):
    """significance --between-metrics --where: the values of the kept cells, named."""
    from evaltrans_qt.cli.main import main
    from evaltrans_qt.engine.metaeval.metrics_task import gather, metrics_table
    from evaltrans_qt.io.etdb import save_database
    db = import_mtme(jsonl_dir, LP)
    path = tmp_path / "m.etdb.xml"
    save_database(db, path)
    rc = main(["significance", str(path), "--between-metrics", "--human", "esa-human2",
               "--measures", "chrf,bleu", "--level", "seg", "--samples", "20",
               "--where", "domain=social", "--json"])
    res = json.loads(capsys.readouterr().out)
    assert rc == 0 and res["where"] == "domain=social" and res["n"] == 5   # sysX: one None
    run = evaluate(db, EvalOptions(), ["chrf", "bleu"], list(OUT))
    rows = {r.measure: r for r in metrics_table(
        gather(db, run, "esa-human2", where=Where.parse(["domain=social"])), ["pearson"])}
    got = [float("nan") if v is None else v for v in res["values"]]
    assert got == pytest.approx([rows[m].values["pearson"] for m in res["measures"]],
                                nan_ok=True)
    rc = main(["significance", str(path), "--measure", "bleu", "--where", "domain=news"])
    assert rc == 2 and "--where" in capsys.readouterr().err
