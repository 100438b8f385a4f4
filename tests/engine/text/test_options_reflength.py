"""Options registry (Tables A.1-A.8) and reference length rules (thesis 5.3, Tables A.3/A.4)."""


import pytest

from evaltrans_qt.engine.options import PRESETS, EvalOptions, option_fields
from evaltrans_qt.engine.text.reflength import choose, ngram_reference_length
from evaltrans_qt.errors import OptionError

TABLE_A1_FLAGS = [
    "wer-ref-length-rule", "cder-pad-rule", "cder-coverage-rule", "nper-max-ngram",
    "nper-pad-rule", "nper-ref-length-rule", "max-ngram", "bleu-pad-rule",
    "bleu-ref-length-rule", "nist-max-ngram", "nist-pad-rule", "nist-ref-length-rule",
    "substitution-cost-rule", "transposition-costs", "max-bigram-skip", "leaving-one-out",
    # Table A.2 flags that change numbers
    "extrapolate", "nper-choose-references-separately", "all-ngrams",
    "allow-transpositions", "allow-long-jumps",
]


def test_every_table_a1_a2_option_exists():
    flags = {f.metadata["flag"] for f in option_fields()}
    assert set(TABLE_A1_FLAGS) <= flags


def test_defaults_are_sacrebleu_compatible_and_thesis_defaults():
    o = EvalOptions()
    assert (o.tokenization, o.case, o.bleu_ref_length_rule, o.bleu_pad_rule) == \
        ("mteval", "use", "minimumNearest", "none")
    assert (o.max_ngram, o.nist_max_ngram, o.nper_max_ngram) == (4, 5, 4)


def test_dict_roundtrip_and_string_parsing():
    o = EvalOptions(wer_ref_length_rule="lowestError", transposition_costs=(2, 2, 1, 1, 1),
                    leaving_one_out=("BLEU", "WER"), all_ngrams=True)
    assert EvalOptions.from_dict(o.to_dict()) == o
    s = {k: (",".join(map(str, v)) if isinstance(v, list) else str(v)) for k, v in o.to_dict().items()}
    assert EvalOptions.from_dict(s) == o


@pytest.mark.parametrize("bad", [
    {"wer_ref_length_rule": "nearest"}, {"bleu_ref_length_rule": "lowestError"},
    {"cder_pad_rule": "initial"}, {"transposition_costs": (1, 1, 1)},
    {"transposition_costs": (0, 1, 1, 1, 1)}, {"max_ngram": 0},
])
def test_invalid_options_raise(bad):
    with pytest.raises(OptionError):
        EvalOptions(**bad)


def test_unknown_option_raises():
    with pytest.raises(OptionError):
        EvalOptions.from_dict({"no-such-option": 1})


def test_presets_follow_table_8_3():
    base, default = PRESETS["thesis baseline"], PRESETS["thesis default"]
    assert base.case == "ignore" and base.wer_ref_length_rule == "average"
    assert default.tokenization == "mteval-contractions"
    assert default.wer_ref_length_rule == "lowestError" and default.bleu_pad_rule == "both"


# ---- reference length rules ------------------------------------------------
D, L = [2, 1, 1], [5, 4, 2]


@pytest.mark.parametrize("rule, expected", [
    ("average", (1, 11 / 3, 1)), ("minimum", (1, 2, 1)), ("maximum", (1, 5, 1)),
    ("averageNearest", (1, 3, 1)), ("minimumNearest", (1, 2, 1)), ("maximumNearest", (1, 4, 1)),
    ("lowestError", (1, 4, 1)),   # relative errors 0.4, 0.25, 0.5 (eq. 5.5)
])
def test_table_a3_rules(rule, expected):
    d, l, r = choose(D, L, rule)
    assert (d, r) == (expected[0], expected[2])
    assert l == pytest.approx(expected[1])


def test_lowest_error_uses_distance_of_best_reference_eq_5_7():
    # ref 0: 3/10 = 0.3; ref 1: 1/2 = 0.5 -> the *larger* distance of ref 0 counts
    assert choose([3, 1], [10, 2], "lowestError") == (3.0, 10.0, 0)


def test_lowest_error_ties():
    # equal relative error 0.5: smaller absolute distance wins, then earlier reference
    assert choose([2, 1], [4, 2], "lowestError")[2] == 1
    assert choose([1, 1], [2, 2], "lowestError")[2] == 0
    assert choose([0, 1], [0, 3], "lowestError")[2] == 0   # empty reference, zero distance


@pytest.mark.parametrize("rule, hyp, expected", [
    ("average", 5, 11 / 3), ("minimum", 5, 2), ("minimumNearest", 5, 5),
    ("minimumNearest", 3, 2), ("minimumNearest", 4, 4),   # 3 is as near to 2 as to 4: shorter
])
def test_table_a4_rules(rule, hyp, expected):
    assert ngram_reference_length(hyp, [5, 4, 2], rule) == pytest.approx(expected)
