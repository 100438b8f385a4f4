"""Signatures: sacreBLEU's own for BLEU/chrF/TER, compared live with
``metric.get_signature()`` of the installed sacreBLEU; extended ones for our options."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from evaltrans_qt.engine.measures import load_all
from evaltrans_qt.engine.options import PRESETS, SACREBLEU_TOKENIZERS, EvalOptions
from evaltrans_qt.engine.run.signature import (
    Signature,
    measure_option_fields,
    signature_for,
    tokenizer_signature,
)
from evaltrans_qt.errors import OptionError

SACRE = PRESETS["sacrebleu"]
REFS = {1: [["a b c"]], 2: [["a b c"], ["a c"]], 3: [["a"], ["b"], ["c"]]}
#: two segments, the second has only one of two references: sacreBLEU says nrefs:var
VAR_REFS = [["a b", "c d"], ["a", None]]


def _refs(nrefs):
    return VAR_REFS if nrefs == "var" else REFS[nrefs]


def _same(ours: Signature, theirs) -> None:
    assert ours.format() == theirs.format()
    assert ours.format(short=True) == theirs.format(short=True)
    assert not ours.extended


BLEU_TOKS = ["none", "13a", "intl", "char", "zh"]


@pytest.mark.parametrize("nrefs", [1, 2, 3, "var"])
@pytest.mark.parametrize("tok,lc,smooth,value,eff", [
    (tok, lc, sm, val, eff)
    for tok, lc, (sm, val), eff in itertools.product(
        BLEU_TOKS, (False, True),
        (("exp", None), ("none", None), ("floor", None), ("floor", 0.25), ("add-k", None),
         ("add-k", 2.0)), (False, True))
    if (tok in ("13a", "char") or (not lc and sm == "exp"))])
def test_bleu_signature_equals_sacrebleu(nrefs, tok, lc, smooth, value, eff):
    metric = BLEU(tokenize=tok, lowercase=lc, smooth_method=smooth, smooth_value=value,
                  effective_order=eff, references=_refs(nrefs))
    opts = SACRE.replace(tokenization=SACREBLEU_TOKENIZERS[tok], case="ignore" if lc else "use",
                         bleu_smooth_method=smooth, bleu_smooth_value=value,
                         bleu_effective_order=eff)
    _same(signature_for("bleu", opts, -1 if nrefs == "var" else nrefs), metric.get_signature())


@pytest.mark.parametrize("nc,nw,lc,ws,eps", [
    (6, 0, False, False, False), (6, 2, False, False, False), (4, 1, True, False, True),
    (6, 0, False, True, False), (1, 0, True, True, True), (0, 2, False, False, False)])
@pytest.mark.parametrize("nrefs", [1, 3, "var"])
def test_chrf_signature_equals_sacrebleu(nc, nw, lc, ws, eps, nrefs):
    metric = CHRF(char_order=nc, word_order=nw, beta=3, lowercase=lc, whitespace=ws,
                  eps_smoothing=eps, references=_refs(nrefs))
    opts = SACRE.replace(chrf_char_order=nc, chrf_word_order=nw, chrf_beta=3,
                         chrf_case="ignore" if lc else "use", chrf_whitespace=ws,
                         chrf_eps_smoothing=eps)
    _same(signature_for("chrf", opts, -1 if nrefs == "var" else nrefs), metric.get_signature())


def test_chrf_case_run_follows_the_run_case():
    ours = signature_for("chrf", SACRE.replace(case="ignore"), 1)
    assert ours.format() == CHRF(lowercase=True, references=REFS[1]).get_signature().format()


@pytest.mark.parametrize("norm,no_punct,asian,cs",
                         list(itertools.product((False, True), repeat=4)))
def test_ter_signature_equals_sacrebleu(norm, no_punct, asian, cs):
    metric = TER(normalized=norm, no_punct=no_punct, asian_support=asian, case_sensitive=cs,
                 references=REFS[2])
    opts = SACRE.replace(ter_normalized=norm, ter_no_punct=no_punct, ter_asian_support=asian,
                         ter_case="use" if cs else "ignore")
    _same(signature_for("ter", opts, 2), metric.get_signature())


def test_confidence_signature_has_bs_and_seed():
    """``corpus_score(n_bootstrap=...)`` adds ``bs`` and ``seed`` (sacreBLEU metrics/base.py)."""
    for name, metric in (("bleu", BLEU()), ("chrf", CHRF()), ("ter", TER())):
        metric.corpus_score(["a b c d", "e f"], [["a b c d", "e g"]], n_bootstrap=20)
        ours = signature_for(name, SACRE, 1, bs=20, seed="12345")
        _same(ours, metric.get_signature())


@pytest.mark.parametrize("test,n", [("bs", 1000), ("ar", 10000)])
def test_paired_signature_fields(test, n):
    """sacreBLEU's PairedTest adds ``seed`` and ``bs`` or ``ar`` to the baseline's signature."""
    metric = BLEU(references=REFS[1])
    sig = metric.get_signature()
    sig.update("seed", "12345")
    sig.update(test, n)
    _same(signature_for("bleu", SACRE, 1, seed="12345", **{test: n}), sig)


def test_json_fields_are_strings():
    sig = signature_for("ter", SACRE, 2)
    assert sig.fields() == {"nrefs": "2", "case": "lc", "tok": "tercom", "norm": "no",
                            "punct": "yes", "asian": "no", "version": sig.info["version"]}


# ---------------------------------------------------------------- extended signatures
@pytest.mark.parametrize("change,field", [
    (dict(bleu_pad_rule="both"), "pad-rule:both"),
    (dict(bleu_ref_length_rule="average"), "reference-length-rule:average"),
    (dict(max_ngram=3), "max-ngram:3"),
    (dict(bleu_smooth_method="moses"), "smooth:moses"),
    (dict(bleu_smooth_method="nrc"), "smooth:nrc"),
    (dict(tokenization="remove-punctuation"), "tok:remove-punctuation"),
    (dict(tokenization="mteval-contractions"), "tok:mteval-contractions"),
    (dict(leaving_one_out=("BLEU",)), "leaving-one-out:yes"),
])
def test_bleu_options_sacrebleu_cannot_express_are_appended(change, field):
    sig = signature_for("bleu", SACRE.replace(**change), 1)
    text = sig.format()
    assert sig.extended and field in text.split("|")
    assert text.endswith("|evaltrans:0.1.0|version:" + sig.info["version"])


def test_ter_on_the_runs_tokens_is_not_sacrebleus_ter():
    """Our default TER (13a tokens, case used) must not carry sacreBLEU's TER signature."""
    sig = signature_for("ter", EvalOptions(), 1)
    assert sig.extended
    assert "tok:13a" in sig.format() and "case:mixed" in sig.format()
    assert sig.format() != TER(references=REFS[1]).get_signature().format()


def _other_value(f: dataclasses.Field, v):
    ch = f.metadata.get("choices")
    kind = f.metadata.get("kind")
    if ch:
        return next(c for c in ch if c != v)
    if kind == "flag":
        return not v
    if kind == "int":
        return v + 1
    if kind == "optfloat":
        return 0.5 if v is None else v + 0.5
    if kind == "intlist":
        return (v[0] + 1,) + tuple(v[1:])
    if kind == "strlist":
        return v + ("x",)
    raise AssertionError(f"no other value for {f.name}")


@pytest.mark.parametrize("measure", sorted(set(load_all()) - {"bleu", "chrf", "ter"}))
def test_every_option_of_a_measure_changes_its_signature(measure):
    """Options of the measure's groups (options.py metadata) appear automatically.
    (sacreBLEU's metrics: their own fields, tested above; beta is in chrF's name.)"""
    base = EvalOptions()
    ref = signature_for(measure, base, 1).format()
    assert ref.endswith("|evaltrans:0.1.0")
    fields = measure_option_fields(measure)
    for f in fields:
        changed = base.replace(**{f.name: _other_value(f, getattr(base, f.name))})
        assert signature_for(measure, changed, 1).format() != ref, f.name
    # EXACTMATCH/PENALIZEUNKNOWN match the segments' own tokens, case kept: the run's
    # tokenisation and case never change them (tok:segments; test_signature_segranks.py)
    run_free = measure in ("exactmatch", "penalizeunknown")
    if measure not in ("chrf", "cer") and not run_free:
        assert signature_for(measure, base.replace(tokenization="intl"), 1).format() != ref
    if not run_free:
        assert signature_for(measure, base.replace(case="ignore"), 1).format() != ref
    assert signature_for(measure, base, 2).format() != ref


def test_reference_length_rule_of_the_right_measure():
    o = EvalOptions(cder_ref_length_rule="lowestError")
    assert "reference-length-rule:lowestError" in signature_for("cder", o).format()
    assert "reference-length-rule:average" in signature_for("wer", o).format()
    assert "substitution-cost-rule" not in signature_for("wer", o).format()
    assert "substitution-cost-rule:prefix" in signature_for(
        "wwer", o.replace(substitution_cost_rule="prefix")).format()


def test_short_form_and_variable_refs():
    sig = signature_for("cder", EvalOptions(), -1)
    assert sig.format(short=True) == "#:var|tok:13a|c:mixed|rlr:average|pr:both|cr:none|et:0.1.0"


def test_tokenizer_signatures():
    assert tokenizer_signature("mteval") == "13a"
    assert tokenizer_signature("none") == "none"
    assert tokenizer_signature("remove-punctuation") == "remove-punctuation"


def test_unknown_field_and_measure():
    with pytest.raises(OptionError, match="unknown signature field"):
        signature_for("bleu", SACRE, 1, colour="red")
    with pytest.raises(OptionError, match="unknown measure"):
        signature_for("nosuch", SACRE, 1)
