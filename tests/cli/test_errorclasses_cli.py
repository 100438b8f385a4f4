"""``evaltrans errorclasses``: Hjerson's lines (counts and per-cent rates recorded from
Hjerson itself, tests/engine/analysis/data), its categories file, POS-wise rates, and the
refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaltrans_qt.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "engine" / "analysis" / "data"


def _write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    data = json.loads((DATA / "hjerson_outputs.json").read_text(encoding="utf-8"))
    cases = [c for c in data["sentences"] if len(c["refs"]) == 2]
    f = {"h": _write(tmp_path / "h", [c["hyp"] for c in cases]),
         "hb": _write(tmp_path / "hb", [c["hyp_bases"] for c in cases])}
    for k in (0, 1):
        f[f"r{k}"] = _write(tmp_path / f"r{k}", [c["refs"][k] for c in cases])
        f[f"rb{k}"] = _write(tmp_path / f"rb{k}", [c["ref_bases"][k] for c in cases])
    return f, cases


def test_stdout_is_hjersons_for_two_references(files, capsys):
    """``hjerson_stdout_2refs.txt`` is Hjerson's own stdout for these sentences (their two
    references joined by ``#+``, base forms likewise): ``python3 hjerson.py -R r2 -H h2
    -B rb2 -b hb2 -s``. Ours equals it line for line after our first line (which names the
    base forms), but for two slips of Hjerson's sentence-level rates, whose counts agree:
    refINFer divides the sentence's RPER count (not its inflection count), and Rper divides
    by the length of the sentence's last reference (not the best one's)."""
    f, _cases = files
    assert main(["errorclasses", "-R", f["r0"], "-R", f["r1"], "-H", f["h"], "-B", f["rb0"],
                 "-B", f["rb1"], "-b", f["hb"], "-s"]) == 0
    out = capsys.readouterr().out.split("\n")
    assert out[0].startswith("base forms: files ")
    theirs = (DATA / "hjerson_stdout_2refs.txt").read_text(encoding="utf-8").split("\n")
    ours = out[1:]
    assert len(ours) == len(theirs)
    slips = 0
    for a, b in zip(ours, theirs):
        if a != b and ("::refINFer:" in a or "::Rper:" in a):
            assert a.split("\t")[:2] == b.split("\t")[:2]         # the count agrees
            slips += 1
            continue
        assert a == b
    assert slips > 0 and sum("::refINFer:" in x or "::Rper:" in x for x in ours) > slips


def test_prefix4_classes_equal_hjersons_without_base_files(tmp_path, capsys):
    data = json.loads((DATA / "hjerson_prefix4.json").read_text(encoding="utf-8"))
    one = [c for c in data["sentences"] if len(c["refs"]) == 1]
    h = _write(tmp_path / "h", [c["hyp"] for c in one])
    r = _write(tmp_path / "r", [c["refs"][0] for c in one])
    assert main(["errorclasses", "-R", r, "-H", h, "--prefix4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["base_forms"].startswith("the first four letters")
    assert len(doc["sentences"]) == len(one) > 20
    for got, case in zip(doc["sentences"], one):
        assert got["hyp_classes"] == case["hyp_classes"]
        assert got["ref_classes"] == case["ref_classes"]


def test_categories_file_and_pos_rates(tmp_path, capsys):
    h = _write(tmp_path / "h", ["the cats sees a house", "a dog and a cat"])
    r = _write(tmp_path / "r", ["the cat sees the house", "a cat and a dog"])
    hp = _write(tmp_path / "hp", ["DT NNS VBZ DT NN", "DT NN CC DT NN"])
    rp = _write(tmp_path / "rp", ["DT NN VBZ DT NN", "DT NN CC DT NN"])
    cats = tmp_path / "cats.txt"
    assert main(["errorclasses", "-R", r, "-H", h, "-A", rp, "-a", hp, "-c", str(cats)]) == 0
    out = capsys.readouterr().out
    assert "POS-wise rates" in out and "NNS" in out
    lines = cats.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "1::ref-err-cats: the#DT~~x cat#NN~~infl sees#VBZ~~x the#DT~~lex " \
                       "house#NN~~x "
    assert lines[1] == "1::hyp-err-cats: the#DT~~x cats#NNS~~infl sees#VBZ~~x a#DT~~lex " \
                       "house#NN~~x "
    assert lines[4] == "2::hyp-err-cats: a#DT~~x dog#NN~~reord and#CC~~x a#DT~~x " \
                       "cat#NN~~reord "


@pytest.mark.parametrize("args, needle", [
    (["-B", "r"], "go together"),
    (["-A", "r", "-A", "r", "-a", "h"], "one per -R"),
    (["-B", "r", "-b", "h", "--language", "german"], "--language is not used"),
    (["--prefix4", "--language", "german"], "--language is not used"),
])
def test_refusals_name_the_option(tmp_path, monkeypatch, capsys, args, needle):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "h", ["a b"])
    _write(tmp_path / "r", ["a c"])
    assert main(["errorclasses", "-R", "r", "-H", "h", *args]) == 2
    assert needle in capsys.readouterr().err


def test_files_with_wrong_counts_name_file_and_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "h", ["a b", "c"])
    _write(tmp_path / "r", ["a c"])
    assert main(["errorclasses", "-R", "r", "-H", "h"]) == 2
    assert "r: 1 lines, but the candidate file has 2" in capsys.readouterr().err
    _write(tmp_path / "r", ["a c", "d"])
    _write(tmp_path / "hb", ["a b", "c x"])
    _write(tmp_path / "rb", ["a c", "d"])
    assert main(["errorclasses", "-R", "r", "-H", "h", "-B", "rb", "-b", "hb"]) == 2
    assert "hb:2: base forms: 2 items, but the sentence has 1 words" in capsys.readouterr().err
