"""Every number ``evaltrans batch`` prints or saves carries its signature:
sacreBLEU's own for BLEU/chrF/TER, an extended one for our measures."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from lxml import etree
from sacrebleu.metrics import BLEU, CHRF, TER

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.options import PRESETS
from evaltrans_qt.engine.run.driver import evaluate
from evaltrans_qt.engine.run.executors.local import SerialExecutor
from evaltrans_qt.io.export import write_table
from evaltrans_qt.io.plaintext import import_text
from evaltrans_qt.io.report import read_report

HYPS = ["the cat sat on the mat .", "a dog barked", "it is raining today", "hello world"]
REFS_A = ["the cat sat on a mat .", "the dog barked", "today it rains", "hello , world"]
REFS_B = ["a cat sat on the mat", "a dog was barking", "it rains today", "hi world"]


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    out = {"dir": tmp_path}
    for name, lines in (("src", [f"source {i}" for i in range(len(HYPS))]), ("hyp", HYPS),
                        ("refA", REFS_A), ("refB", REFS_B)):
        p = tmp_path / f"{name}.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[name] = p
    return out


def _sacre_signatures(preset: str) -> dict[str, str]:
    """sacreBLEU's own signatures for the options of ``preset`` (2 references)."""
    refs = [REFS_A, REFS_B]
    if preset == "sacrebleu":
        metrics = {"bleu": BLEU(), "chrf": CHRF(), "ter": TER()}
    else:   # evaltrans default: genuine BLEU (smooth none); TER on 13a tokens is extended
        metrics = {"bleu": BLEU(smooth_method="none"), "chrf": CHRF()}
    out = {}
    for name, m in metrics.items():
        m.corpus_score(HYPS, refs)
        out[name] = m.get_signature().format()
    return out


@pytest.mark.parametrize("preset", ["sacrebleu", "evaltrans default"])
def test_json_summary_has_sacrebleu_signatures(files, capsys, preset):
    rc = main(["batch", "--source", str(files["src"]), "--reference", str(files["refA"]),
               "--reference", str(files["refB"]), "--target", f"mine={files['hyp']}",
               "--measures", "bleu,chrf,ter,wer", "--preset", preset, "--json", "--jobs", "1"])
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    sigs = summary["signatures"]
    for name, sig in _sacre_signatures(preset).items():
        assert sigs[name] == sig, name
        assert summary["systems"]["mine"]["scores"][name]["signature"] == sig
    # our own measures: extended signature with our version and the options that matter
    assert sigs["wer"].startswith("nrefs:2|tok:13a|case:mixed|reference-length-rule:average")
    assert "|evaltrans:" in sigs["wer"]
    if preset == "evaltrans default":
        # TER on the run's 13a tokens is not sacreBLEU's default: marked, never hidden
        assert "tok:13a" in sigs["ter"] and "|evaltrans:" in sigs["ter"]


def test_text_output_and_report_carry_signatures(files, capsys):
    rc = main(["batch", "--source", str(files["src"]), "--reference", str(files["refA"]),
               "--target", f"mine={files['hyp']}", "--measures", "bleu,ter", "--jobs", "1",
               "--preset", "sacrebleu"])
    assert rc == 0
    out = capsys.readouterr().out
    lines = {ln.split(": ", 1)[0]: ln.split(": ", 1)[1] for ln in out.splitlines()
             if ln.startswith("signature ")}
    bleu, ter = BLEU(), TER()
    bleu.corpus_score(HYPS, [REFS_A])
    ter.corpus_score(HYPS, [REFS_A])
    assert lines == {"signature bleu": bleu.get_signature().format(),
                     "signature ter": ter.get_signature().format()}

    report = files["dir"] / "r.xml"
    rc = main(["batch", "--source", str(files["src"]), "--reference", str(files["refA"]),
               "--target", f"mine={files['hyp']}", "--measures", "bleu,ter,per", "--jobs", "1",
               "--xml-mode", "--output-file", str(report)])
    assert rc == 0
    root = etree.parse(str(report)).getroot()
    assert root.find("evaluation/bleu").get("signature") == (
        "nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|version:" + bleu.get_signature().info["version"])
    assert "reference-length-rule:average" in root.find("evaluation/per").get("signature")
    back = read_report(report)
    assert back.meta["signatures"]["per"] == root.find("evaluation/per").get("signature")
    # the report's value is still read back (the attribute is not a detail)
    assert "signature" not in back.systems["mine"].scores["bleu"].details


def test_variable_reference_count_is_var(tmp_path):
    db = import_text(_write(tmp_path, "s", ["a", "b"]),
                     [_write(tmp_path, "r1", ["x y", "z"])], [("sys", _write(tmp_path, "h", ["x", "z"]))])
    # give the second source a second reference: candidates now have 1 or 2 references
    extra = db.add_target(db.sources[1], "z z", "r2", reference=True)
    assert extra is not None
    run = evaluate(db, PRESETS["sacrebleu"], ["bleu"], executor=SerialExecutor())
    assert run.nrefs() == "var"
    assert run.signature("bleu").startswith("nrefs:var|")


def test_exported_tables_carry_signatures(tmp_path):
    frame = pd.DataFrame({"system": ["a", "b"], "BLEU": [0.25, 0.5]})
    sigs = {"bleu": "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"}
    csv = write_table(frame, tmp_path / "t.csv", signatures=sigs)
    assert csv.read_text().splitlines()[0] == "system,BLEU"      # plain: signatures beside it
    assert (tmp_path / "t.signature.txt").read_text() == f"bleu: {sigs['bleu']}\n"
    assert pd.read_csv(csv).equals(frame)
    tex = write_table(frame, tmp_path / "t.tex", signatures=sigs).read_text()
    assert tex.startswith(f"% signature bleu: {sigs['bleu']}\n") and r"\toprule" in tex
    data = json.loads(write_table(frame, tmp_path / "t.json", signatures=sigs).read_text())
    assert data["signatures"] == sigs and data["rows"][1] == {"system": "b", "BLEU": 0.5}


def _write(tmp: Path, name: str, lines: list[str]) -> Path:
    p = tmp / f"{name}.txt"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_info_of_a_report_shows_values_and_signatures(files, capsys):
    report = files["dir"] / "r.xml"
    assert main(["batch", "--source", str(files["src"]), "--reference", str(files["refA"]),
                 "--target", f"mine={files['hyp']}", "--measures", "bleu,wer", "--jobs", "1",
                 "--xml-mode", "--output-file", str(report)]) == 0
    capsys.readouterr()
    assert main(["info", str(report), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    run = read_report(report)
    assert info["system"] == "mine" and info["candidates"] == len(HYPS)
    assert info["measures"]["bleu"]["value"] == pytest.approx(
        run.systems["mine"].scores["bleu"].value, abs=1e-15)
    assert info["measures"]["bleu"]["signature"] == run.meta["signatures"]["bleu"]
    assert main(["info", str(report)]) == 0
    text = capsys.readouterr().out
    assert "wer         " in text and run.meta["signatures"]["wer"] in text
