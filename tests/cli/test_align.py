"""``evaltrans align``: text view and JSON for CDER, TER, WER, PER; options; errors."""

from __future__ import annotations

import json

import pytest

from evaltrans_qt.cli.main import main

CAND = "we met at seven o'clock on the airport ."
REF = "we met at the airport at seven o'clock ."


def run_json(capsys, *argv):
    assert main(["align", "--json", *argv]) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def test_cder_json_blocks_and_costs(capsys):
    """CDER paper Figure 1 sentences: all nine reference words matched, three long jumps."""
    d = run_json(capsys, "--measure", "cder", CAND, REF)
    assert set(d) >= {"distance", "operations", "blocks"}
    assert d["distance"] == 3
    assert [b["number"] for b in d["blocks"]] == [1, 2, 3, 4]
    assert all(b["kind"] == "long-jump" for b in d["blocks"])
    assert sum(o["cost"] for o in d["operations"]) + sum(b["cost"] for b in d["blocks"]) == 3
    assert sorted(o["ref_pos"] for o in d["operations"]) == list(range(9))


def test_cder_pad_rule_option(capsys):
    assert run_json(capsys, "--measure", "cder", "a b", "b a")["distance"] == 2
    assert run_json(capsys, "--measure", "cder", "--cder-pad-rule", "none", "a b",
                    "b a")["distance"] == 1


def test_substitution_cost_rule_option(capsys):
    d = run_json(capsys, "--measure", "wcder", "--substitution-cost-rule", "prefix",
                 "we talk", "we talks")
    assert d["distance"] == pytest.approx(1 - 4 / 4.5)     # Table 4.2


def test_ter_json_and_text(capsys):
    d = run_json(capsys, "--measure", "ter", CAND, REF)
    assert d["distance"] == 2 and len(d["blocks"]) == 1 and d["blocks"][0]["kind"] == "shift"
    assert main(["align", "--measure", "ter", CAND, REF]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    ref_row = next(x for x in lines if x.startswith("REF:"))
    hyp_row = next(x for x in lines if x.startswith("HYP:"))
    assert ref_row.split()[1:] == REF.split()
    assert hyp_row.split()[1:] == "we met on the airport at seven o'clock .".split()
    eval_row = next(x for x in lines if x.startswith("EVAL:"))
    assert eval_row.split()[1:] == ["S"]
    block_row = next(x for x in lines if x.startswith("BLOCK:"))
    assert block_row.split()[1:] == ["1", "1", "1"]
    assert "shift" in out and "Distance: 2" in out


def test_text_view_gaps_and_multiple_references(capsys):
    assert main(["align", "--measure", "wer", "a b c", "x y z w", "a c"]) == 0
    out = capsys.readouterr().out
    assert "reference: 2" in out
    rows = {x.split(":")[0]: x.split()[1:] for x in out.splitlines()
            if x.startswith(("REF:", "HYP:", "EVAL:"))}
    assert rows["REF"] == ["a", "***", "c"]
    assert rows["HYP"] == ["a", "b", "c"]
    assert rows["EVAL"] == ["I"]


@pytest.mark.parametrize("measure", ["wer", "per", "cder", "ter"])
def test_every_measure_json_sums(capsys, measure):
    d = run_json(capsys, "--measure", measure, "the the cat sat mat", "the cat sat on the mat")
    total = sum(o["cost"] for o in d["operations"]) + sum(b["cost"] for b in d["blocks"])
    assert total == pytest.approx(d["distance"])


def test_tokenization_and_case_options(capsys):
    assert run_json(capsys, "--measure", "wer", "Hello, World", "hello , world")["distance"] == 2
    assert run_json(capsys, "--measure", "wer", "--case", "ignore", "Hello, World",
                    "hello , world")["distance"] == 0


def test_errors_exit_2(capsys):
    assert main(["align", "--measure", "nosuchmeasure", "a", "b"]) == 2
    assert "unknown measure" in capsys.readouterr().err
    assert main(["align", "--measure", "bleu", "a", "b"]) == 2
    assert "no alignment" in capsys.readouterr().err
