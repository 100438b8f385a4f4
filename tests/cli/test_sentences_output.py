"""``--sentences FILE.tsv|.jsonl`` of ``evaltrans score`` and ``evaltrans batch``:
every sentence's value of every measure column with the signatures, checked against
sacreBLEU's sentence scores and signatures and jiwer's WER on WMT21 en-de lines."""

from __future__ import annotations

import json
from pathlib import Path

import jiwer
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from evaltrans_qt.cli.main import main
from evaltrans_qt.io.sentences import read_sentences, sentences_bytes

N = 40          # WMT21 lines (sacreBLEU's TER is slow)


@pytest.fixture(scope="module")
def wmt_files(wmt_dir, tmp_path_factory):
    """The first N lines of two references and two systems, as files."""
    values = json.loads((wmt_dir / "reference_values.json").read_text(encoding="utf-8"))
    out = tmp_path_factory.mktemp("wmt")
    files = {}
    for key, name in [("ref1", values["refs"][0]), ("ref2", values["refs"][1]),
                      ("src", values["source"]),
                      ("sysA", list(values["systems"])[0]), ("sysB", list(values["systems"])[1])]:
        lines = (wmt_dir / name).read_text(encoding="utf-8").splitlines()[:N]
        files[key] = out / f"{key}.txt"
        files[key].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return files


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_score_sentences_tsv_equal_sacrebleu(wmt_files, tmp_path, capsys):
    out = tmp_path / "s.tsv"
    f = wmt_files
    rc = main(["score", str(f["ref1"]), str(f["ref2"]), "-i", str(f["sysA"]), str(f["sysB"]),
               "-m", "bleu", "chrf", "ter", "--sentences", str(out), "-q"])
    assert rc == 0
    capsys.readouterr()
    sigs, columns, rows = read_sentences(out)
    assert columns == ["system", "segment", "BLEU", "chrF2", "TER"]
    refs = [_lines(f["ref1"]), _lines(f["ref2"])]
    metrics = {"bleu": BLEU(), "chrf": CHRF(), "ter": TER()}
    assert len(rows) == 2 * N
    for system, key in ((str(f["sysA"]), "sysA"), (str(f["sysB"]), "sysB")):
        hyps = _lines(f[key])
        mine = [r for r in rows if r["system"] == system]
        assert [r["segment"] for r in mine] == [str(i + 1) for i in range(N)]
        for i, (h, row) in enumerate(zip(hyps, mine)):
            rs = [refs[0][i], refs[1][i]]
            for name, col in (("bleu", "BLEU"), ("chrf", "chrF2"), ("ter", "TER")):
                want = metrics[name].sentence_score(h, rs).score
                assert row[col] == pytest.approx(want, abs=1e-9), (system, i, col)
    for name, m in metrics.items():                       # signatures: nrefs:2, as sacreBLEU
        m.corpus_score(_lines(f["sysA"]), refs)
        assert sigs[name] == str(m.get_signature())
    head = out.read_text(encoding="utf-8").splitlines()[:4]
    assert head[0] == f"# signature bleu: {sigs['bleu']}"
    assert head[3] == "system\tsegment\tBLEU\tchrF2\tTER"


def test_score_sentences_jsonl_and_sentence_level(wmt_files, tmp_path, capsys):
    f = wmt_files
    out = tmp_path / "s.jsonl"
    rc = main(["score", str(f["ref1"]), "-i", str(f["sysA"]), "-m", "bleu", "-sl",
               "--sentences", str(out)])
    assert rc == 0
    printed = capsys.readouterr().out.splitlines()
    records = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    bleu = BLEU(effective_order=True)                      # what -sl means in sacreBLEU
    hyps, refs = _lines(f["sysA"]), _lines(f["ref1"])
    assert records[0]["columns"] == ["system", "segment", "BLEU"]
    assert "eff:yes" in records[0]["signatures"]["bleu"]
    assert len(records) == N + 1 and len(printed) == N
    for i, rec in enumerate(records[1:]):
        assert rec["segment"] == str(i + 1) and rec["system"] == str(f["sysA"])
        want = bleu.sentence_score(hyps[i], [refs[i]])
        assert rec["BLEU"] == pytest.approx(want.score, abs=1e-9)
        assert f" = {want.score:.1f} " in printed[i]           # the line -sl printed


def test_batch_sentences_equal_sacrebleu_and_jiwer(wmt_files, tmp_path, capsys):
    f = wmt_files
    out = tmp_path / "b.tsv"
    rc = main(["batch", "--source", str(f["src"]), "--reference", str(f["ref1"]),
               "--target", f"A={f['sysA']}", "--target", f"B={f['sysB']}",
               "--measures", "bleu,wer", "--jobs", "1", "--sentences", str(out)])
    assert rc == 0
    capsys.readouterr()
    sigs, columns, rows = read_sentences(out)
    assert columns[:2] == ["system", "segment"]
    assert {"BLEU", "BLEU-S", "BLEU-S'", "WER"} <= set(columns)
    refs = _lines(f["ref1"])
    genuine = BLEU(smooth_method="none")                   # batch default: eq. 3.4
    genuine.corpus_score(_lines(f["sysA"]), [refs])
    assert sigs["bleu"] == str(genuine.get_signature())
    assert sigs["wer"].startswith("nrefs:1|tok:13a|case:mixed|")
    tok = Tokenizer13a()
    for system, key in (("A", "sysA"), ("B", "sysB")):
        hyps = _lines(f[key])
        mine = [r for r in rows if r["system"] == system]
        assert [r["segment"] for r in mine] == [str(i + 1) for i in range(N)]
        for i, row in enumerate(mine):
            want = genuine.sentence_score(hyps[i], [refs[i]]).score / 100
            assert row["BLEU"] == pytest.approx(want, abs=1e-12)
            wer = jiwer.wer(" ".join(tok(refs[i]).split()), " ".join(tok(hyps[i]).split()))
            assert row["WER"] == pytest.approx(wer, abs=1e-12)


def test_bad_suffix_is_refused_before_any_work(wmt_files, tmp_path, capsys):
    f = wmt_files
    out = tmp_path / "s.csv"
    for argv in (["score", str(f["ref1"]), "-i", str(f["sysA"]), "--sentences", str(out)],
                 ["batch", "--source", str(f["src"]), "--reference", str(f["ref1"]),
                  "--target", str(f["sysA"]), "--sentences", str(out)]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert ".tsv or .jsonl" in capsys.readouterr().err
    assert not out.exists()


def test_nothing_is_written_when_the_run_fails(wmt_files, tmp_path, capsys):
    f = wmt_files
    short = tmp_path / "short.txt"
    short.write_text("one line\n", encoding="utf-8")
    out = tmp_path / "s.tsv"
    rc = main(["batch", "--source", str(f["src"]), "--reference", str(f["ref1"]),
               "--target", str(short), "--sentences", str(out)])
    assert rc == 2 and not out.exists()
    rc = main(["score", str(f["ref1"]), "-i", str(short), "--sentences", str(out)])
    assert rc == 2 and not out.exists()
    capsys.readouterr()


def test_tsv_escapes_and_round_trips(tmp_path):
    rows = [{"system": "a\tb\\c", "segment": "1", "X": 0.1 + 0.2, "Y": float("nan")},
            {"system": "new\nline", "segment": "2", "X": -0.0, "Y": 3.0}]
    sigs = {"x": "nrefs:1|tok:13a"}
    path = tmp_path / "r.tsv"
    path.write_bytes(sentences_bytes("tsv", rows, ["system", "segment", "X", "Y"], sigs))
    got_sigs, cols, got = read_sentences(path)
    assert got_sigs == sigs and cols == ["system", "segment", "X", "Y"]
    assert got[0]["system"] == "a\tb\\c" and got[1]["system"] == "new\nline"
    assert got[0]["X"] == 0.1 + 0.2 and got[0]["Y"] != got[0]["Y"]      # exact; NaN kept
    jl = tmp_path / "r.jsonl"
    jl.write_bytes(sentences_bytes("jsonl", rows, ["system", "segment", "X", "Y"], sigs))
    lines = jl.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[1])["Y"] is None and json.loads(lines[0])["signatures"] == sigs
