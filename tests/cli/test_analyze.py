"""``evaltrans analyze``: text, JSON and HTML output on the demo database; bad input exits 2
with a message naming the file, line or name."""

from __future__ import annotations

import json

import pytest
from lxml import html as lxml_html

from evaltrans_qt.cli.main import main

SYSTEMS = "WebTrans,RuleMT"


def _run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(autouse=True)
def _default_seed(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)


def test_text_output_has_every_part(demo, capsys):
    rc, out, err = _run(capsys, "analyze", demo, "--systems", SYSTEMS, "--samples", "50",
                        "--top", "3", "--examples", "2")
    assert rc == 0, err
    for head in ("== Aggregate scores", "== Word accuracy (F-measure) by frequency",
                 "by reference length", "by length difference", "by sentence-level",
                 "== Error class rates", "3 n-grams where WebTrans is better",
                 "3 n-grams where RuleMT is better", "2 sentences where WebTrans is better"):
        assert head in out, head
    assert "signature: comparemt-bleu|nrefs:1|ref:first|tok:13a|case:mixed" in out


def test_json_and_html(demo, tmp_path, capsys):
    page = tmp_path / "report.html"
    rc, out, err = _run(capsys, "analyze", demo, "--systems", SYSTEMS, "--samples", "50",
                        "--json", "--html", page, "--measure", "chrf")
    assert rc == 0, err
    data = json.loads(out)
    assert data["systems"] == SYSTEMS.split(",") and data["measure"] == "chrf"
    assert {"scores", "word_accuracy", "length_buckets", "ngrams", "examples",
            "error_classes", "signatures"} <= set(data)
    assert len(data["examples"]) == 20 and len(data["ngrams"]) == 100
    tree = lxml_html.fromstring(page.read_bytes())
    assert tree.xpath("//section[@id='word-accuracy']//svg")
    assert f"{page}: analysis report written" in err


def test_reference_and_train_change_the_numbers(demo, tmp_path, capsys):
    base = _run(capsys, "analyze", demo, "--systems", SYSTEMS, "--samples", "20", "--json")[1]
    other = _run(capsys, "analyze", demo, "--systems", SYSTEMS, "--samples", "20", "--json",
                 "--reference", "ref-B")[1]
    assert json.loads(base)["scores"] != json.loads(other)["scores"]
    train = tmp_path / "train.txt"
    train.write_text("the the the a a of\n", encoding="utf-8")
    trained = json.loads(_run(capsys, "analyze", demo, "--systems", SYSTEMS, "--samples", "20",
                              "--json", "--train", train)[1])
    assert trained["settings"]["frequency_source"] == "training corpus"
    unseen = [r for r in trained["word_accuracy"] if r["bucket"] == "<1"]
    assert unseen[0]["ref_words"] > 0          # most reference words are not in the file


@pytest.mark.parametrize(("argv", "message"), [
    (["--systems", "WebTrans,Nobody"], "unknown system 'Nobody'"),
    (["--systems", "WebTrans"], "at least two systems"),
    (["--systems", SYSTEMS, "--reference", "ref-Z"], "unknown reference 'ref-Z'"),
    (["--systems", SYSTEMS, "--measure", "nope"], "unknown measure 'nope'"),
    (["--systems", SYSTEMS, "--top", "0"], "--top: must be at least 1"),
    (["--systems", SYSTEMS, "--bleu-pad-rule", "both"], "--bleu-pad-rule"),
    (["--systems", SYSTEMS, "--seed", "x"], "x"),
])
def test_bad_arguments_exit_2(demo, capsys, argv, message):
    rc, out, err = _run(capsys, "analyze", demo, *argv)
    assert rc == 2 and message in err and err.startswith("evaltrans: error:")


def test_bad_files_exit_2_naming_file_and_line(demo, tmp_path, capsys):
    tags = tmp_path / "ref.tags"
    tags.write_text("N\n" * 5, encoding="utf-8")
    rc, _, err = _run(capsys, "analyze", demo, "--systems", SYSTEMS, "--labels", tags)
    assert rc == 2 and f"{tags}:6: 5 lines of labels, expected 20" in err
    rc, _, err = _run(capsys, "analyze", demo, "--systems", SYSTEMS, "--train",
                      tmp_path / "none.txt")
    assert rc == 2 and "none.txt: file not found" in err
    rc, _, err = _run(capsys, "analyze", demo, "--systems", SYSTEMS, "--html",
                      tmp_path / "no" / "r.html")
    assert rc == 2 and "--html" in err


@pytest.mark.parametrize("argv", [["--measure", "bleu", "--leaving-one-out", "bleu"],
                                  ["--extrapolate"]])
def test_options_without_meaning_here_are_refused(demo, capsys, argv):
    rc, _, err = _run(capsys, "analyze", demo, "--systems", SYSTEMS, *argv)
    assert rc == 2 and "is not used here" in err
