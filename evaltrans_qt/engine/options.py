"""Every evaluation option of EvalTransBatchEval (thesis Tables A.1-A.8).

One frozen dataclass, :class:`EvalOptions`, holds the options that change a
number. Each field carries metadata (command-line flag, choices, help text,
thesis section, report group), so the batch command line, the EvalTrans
report's ``<evaluation-options>``, and the application's options dialog are all
generated from this one table and cannot drift apart.

Defaults: the thesis' measures on sacreBLEU's tokenisation -- with no option
given, BLEU is genuine BLEU (eq. 3.4) on 13a tokens, case used,
minimumNearest, no boundaries, which equals sacreBLEU's ``corpus_bleu``
whenever every order has a match (sacreBLEU smooths with ``exp`` otherwise);
NIST equals mteval (average reference length); TER runs on the same tokens,
case used. Every number carries a signature naming these choices
(``engine/run/signature.py``). The preset ``sacrebleu`` reproduces sacreBLEU's own
defaults for every metric it has (BLEU ``exp`` smoothing, TER on its tercom
tokenizer, case-insensitive); the thesis' experimental settings are presets
too (:data:`PRESETS`, thesis Table 8.3).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from evaltrans_qt.errors import OptionError

TOKENIZATIONS = ("none", "remove-punctuation", "mteval", "mteval-contractions", "intl", "char",
                 "zh", "ja-mecab", "ko-mecab")
#: sacreBLEU's tokenizer names -> ours (``13a`` is mteval-v13a, thesis Fig. 5.1 "mteval").
SACREBLEU_TOKENIZERS = {"none": "none", "13a": "mteval", "intl": "intl", "char": "char",
                        "zh": "zh", "ja-mecab": "ja-mecab", "ko-mecab": "ko-mecab"}
CASES = ("use", "ignore")
#: Table A.3: reference length rules for WER, PER, m-PER, CDER, ...
REF_LENGTH_RULES = ("average", "minimum", "maximum", "averageNearest", "minimumNearest",
                    "maximumNearest", "lowestError")
#: Table A.4: reference length rules for BLEU and NIST.
NGRAM_REF_LENGTH_RULES = ("average", "minimum", "minimumNearest")
#: Table A.5: sentence boundaries for m-PER, skip-bigram PER, BLEU and NIST.
PAD_RULES = ("none", "initial", "end", "both")
#: Table A.6: CDER path start/end fixed or arbitrary.
CDER_PAD_RULES = ("none", "left", "right", "both")
#: Table A.7: CDER miscoverage penalty.
CDER_COVERAGE_RULES = ("none", "length", "miscoverage", "half")
#: BLEU smoothing (sacreBLEU ``smooth_method`` plus Moses sentBLEU and BLEU-NRC, Macháček §4).
BLEU_SMOOTH_METHODS = ("none", "floor", "add-k", "exp", "moses", "nrc")
#: Per-measure case: "run" follows the run's ``case`` option.
MEASURE_CASES = ("run", "use", "ignore")
#: TER input: the run's tokens, or sacreBLEU's tercom tokenizer on the raw text.
TER_TOKENIZATIONS = ("run", "tercom")
#: Largest m-gram / character n-gram order (BLEU, NIST, m-PER, chrF): every order is a
#: statistics column of every sentence, and no test set has useful 100-grams.
MAX_ORDER = 100
#: Table A.8: word-dependent substitution costs.
SUBSTITUTION_COST_RULES = ("none", "prefix", "levenshtein")
#: METEOR's stem and synonym modules (NLTK's meteor_score).
METEOR_STEMMERS = ("porter", "snowball")
METEOR_SYNONYMS = ("off", "wordnet")
#: Base forms of the error classification without base-form files.
ERROR_CLASS_BASES = ("snowball", "prefix4")
#: NLTK's Snowball stemmers (``SnowballStemmer.languages`` without its "porter").
SNOWBALL_LANGUAGES = ("english", "arabic", "danish", "dutch", "finnish", "french", "german",
                      "hungarian", "italian", "norwegian", "portuguese", "romanian", "russian",
                      "spanish", "swedish")


def _opt(default: Any, help: str, *, flag: str, section: str, group: str,
         choices: tuple[str, ...] | None = None, kind: str | None = None,
         report: str | None = None) -> Any:
    """A dataclass field with the metadata the CLI, report and UI need.

    ``group`` is the report's ``<X-options>`` element (and the dialog's tab);
    ``report`` the element name inside it (defaults to the flag).
    """
    meta = {"flag": flag, "help": help, "section": section, "group": group,
            "choices": choices, "kind": kind, "report": report or flag}
    if isinstance(default, (list, tuple)):
        return field(default=tuple(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class EvalOptions:
    """All options that change an evaluation result (thesis Tables A.1-A.8)."""

    # ---- preprocessing (thesis ch. 5; set outside the batch tool originally)
    tokenization: str = _opt("mteval", "Tokenisation: none (split on spaces), remove-punctuation, "
                             "mteval (= mteval-v13a / sacreBLEU 13a), mteval-contractions "
                             "(mteval + English contractions, \"we'd\" -> \"we would\"), intl "
                             "(sacreBLEU intl), char (every character a word), zh (Chinese "
                             "characters split off, 13a otherwise), ja-mecab / ko-mecab (MeCab; "
                             "pip install 'evaltrans_qt[ja]' / '[ko]'): sacreBLEU's tokenizers.",
                             flag="tokenization", section="5.1, Fig. 5.1",
                             group="preprocessing", choices=TOKENIZATIONS)
    case: str = _opt("use", "Use or ignore case (Unicode lower-casing of the text before "
                     "tokenising, as sacreBLEU -lc).", flag="case",
                     section="5.2", group="preprocessing", choices=CASES)

    # ---- WER, PER, MSDER, skip-bigram PER, INVWER, LJWER (Table A.3)
    wer_ref_length_rule: str = _opt("average", "Reference length rule for WER, PER, MSDER, "
                                    "skip-bigram PER, INVWER, LJWER (Table A.3). lowestError uses "
                                    "the distance to the reference with the lowest relative error "
                                    "(eq. 5.5-5.7).", flag="wer-ref-length-rule", section="5.3",
                                    group="wer", choices=REF_LENGTH_RULES,
                                    report="reference-length-rule")
    substitution_cost_rule: str = _opt("none", "Word-dependent substitution costs for WER, PER "
                                       "and CDER (Table A.8): none, prefix, levenshtein. Reported "
                                       "as wwer/wper/wcder beside the unit-cost measures.",
                                       flag="substitution-cost-rule", section="4.5",
                                       group="wer", choices=SUBSTITUTION_COST_RULES,
                                       report="substitution-cost-rule")

    # ---- CDER (Tables A.6, A.7)
    cder_ref_length_rule: str = _opt("average", "Reference length rule for CDER (Table A.3).",
                                     flag="cder-ref-length-rule", section="5.3", group="cder",
                                     choices=REF_LENGTH_RULES, report="reference-length-rule")
    cder_pad_rule: str = _opt("both", "CDER sentence boundaries (Table A.6): none = path start "
                              "and end arbitrary, left = start fixed, right = end fixed, both = "
                              "both fixed (Moses CderScorer).", flag="cder-pad-rule",
                              section="4.4.2", group="cder", choices=CDER_PAD_RULES,
                              report="pad-rule")
    cder_coverage_rule: str = _opt("none", "CDER miscoverage penalty (Table A.7, eq. 4.17/4.18): "
                                   "none, length, miscoverage, half.", flag="cder-coverage-rule",
                                   section="4.4.3", group="cder", choices=CDER_COVERAGE_RULES,
                                   report="coverage-rule")

    # ---- m-PER (Table A.1)
    nper_max_ngram: int = _opt(4, "Maximum m-gram size M for m-PER.", flag="nper-max-ngram",
                               section="4.2.2", group="nper", kind="int", report="max-ngram")
    nper_pad_rule: str = _opt("none", "Sentence boundaries for m-PER (Table A.5).",
                              flag="nper-pad-rule", section="5.4", group="nper",
                              choices=PAD_RULES, report="pad-rule")
    nper_ref_length_rule: str = _opt("average", "Reference length rule for m-PER (Table A.3).",
                                     flag="nper-ref-length-rule", section="5.3", group="nper",
                                     choices=REF_LENGTH_RULES, report="reference-length-rule")
    nper_choose_references_separately: bool = _opt(False, "For m-PER, choose the nearest "
                                                   "reference separately for each m (thesis 4.2.2).",
                                                   flag="nper-choose-references-separately",
                                                   section="4.2.2", group="nper", kind="flag",
                                                   report="choose-references-separately")

    # ---- skip-bigram PER
    max_bigram_skip: int = _opt(4, "Maximum skip S for skip-bigram PER (words between the two "
                                "parts; ROUGE-S4 style default).", flag="max-bigram-skip",
                                section="4.2.3", group="sbper", kind="int",
                                report="max-bigram-skip")

    # ---- BLEU (Tables A.4, A.5)
    max_ngram: int = _opt(4, "Maximum m-gram size for BLEU.", flag="max-ngram", section="3.1",
                          group="bleu", kind="int", report="max-ngram")
    bleu_pad_rule: str = _opt("none", "Sentence boundaries for BLEU (Table A.5).",
                              flag="bleu-pad-rule", section="5.4", group="bleu",
                              choices=PAD_RULES, report="pad-rule")
    bleu_ref_length_rule: str = _opt("minimumNearest", "Reference length rule for BLEU "
                                     "(Table A.4); minimumNearest = closest length, ties to the "
                                     "shorter (sacreBLEU).", flag="bleu-ref-length-rule",
                                     section="5.3", group="bleu", choices=NGRAM_REF_LENGTH_RULES,
                                     report="reference-length-rule")
    bleu_smooth_method: str = _opt("none", "BLEU smoothing of the headline score: none (genuine "
                                   "BLEU, eq. 3.4), floor, add-k, exp (sacreBLEU's methods), moses "
                                   "(sentBLEU: +1 on every order), nrc (BLEU-NRC: Chen & Cherry's "
                                   "methods 4 then 5). "
                                   "BLEU-S and BLEU-S' are reported beside it.",
                                   flag="bleu-smooth-method", section="3.1", group="bleu",
                                   choices=BLEU_SMOOTH_METHODS, report="smooth-method")
    bleu_smooth_value: float | None = _opt(None, "Value of floor / add-k smoothing, the "
                                           "constant moses adds, nrc's K (empty: defaults "
                                           "0.1, 1 as sacreBLEU; 1; 5).",
                                           flag="bleu-smooth-value", section="3.1", group="bleu",
                                           kind="optfloat", report="smooth-value")
    bleu_effective_order: bool = _opt(False, "BLEU: average only over the orders that have "
                                      "candidate m-grams (sacreBLEU use_effective_order).",
                                      flag="bleu-effective-order", section="3.1", group="bleu",
                                      kind="flag", report="effective-order")
    all_ngrams: bool = _opt(False, "Also report BLEU/NIST for each single maximum m-gram size "
                            "1..M.", flag="all-ngrams", section="A.1", group="bleu", kind="flag",
                            report="all-ngrams")

    # ---- NIST
    nist_max_ngram: int = _opt(5, "Maximum m-gram size for NIST.", flag="nist-max-ngram",
                               section="3.2", group="nist", kind="int", report="max-ngram")
    nist_pad_rule: str = _opt("none", "Sentence boundaries for NIST (Table A.5; eq. 5.8 for the "
                              "initial m-gram).", flag="nist-pad-rule", section="5.4",
                              group="nist", choices=PAD_RULES, report="pad-rule")
    nist_ref_length_rule: str = _opt("average", "Reference length rule for NIST (Table A.4).",
                                     flag="nist-ref-length-rule", section="5.3", group="nist",
                                     choices=NGRAM_REF_LENGTH_RULES,
                                     report="reference-length-rule")

    # ---- INVWER, LJWER
    allow_transpositions: bool = _opt(False, "Calculate INVWER (BTG inversion distance).",
                                      flag="allow-transpositions", section="4.4.4",
                                      group="invwer", kind="flag", report="enabled")
    transposition_costs: tuple[int, ...] = _opt((1, 1, 1, 1, 1), "Costs in d_inv: denominator, "
                                                "c_SUB, c_DEL, c_INS, c_INV (comma separated "
                                                "integers).", flag="transposition-costs",
                                                section="4.4.4", group="invwer", kind="intlist",
                                                report="transposition-costs")
    invwer_memory_budget: int = _opt(0, "Memory budget (MiB) of one exact d_inv search; 0 = "
                                     "automatic, min(2048, 25 % of the physical memory). "
                                     "Pairs whose search needs more get a bounded upper bound "
                                     "(exact pieces, straight-concatenated) and are flagged "
                                     "approximated.", flag="invwer-memory-budget",
                                     section="4.4.4", group="invwer", kind="int",
                                     report="memory-budget")
    allow_long_jumps: bool = _opt(False, "Calculate LJWER (exact up to ljwer-exact-limit words, "
                                  "approximated and flagged beyond).", flag="allow-long-jumps",
                                  section="4.4.1", group="ljwer", kind="flag", report="enabled")
    ljwer_exact_limit: int = _opt(25, "Longest sentence (words) for which LJWER is computed "
                                  "exactly; longer ones are approximated and flagged.",
                                  flag="ljwer-exact-limit", section="4.4.1", group="ljwer",
                                  kind="int", report="exact-limit")

    # ---- TER, chrF (today's users)
    ter_tokenization: str = _opt("run", "TER input: run = the run's tokens (tokenization, case); "
                                 "tercom = sacreBLEU's TercomTokenizer on the raw text (its TER "
                                 "default).", flag="ter-tokenization", section="-", group="ter",
                                 choices=TER_TOKENIZATIONS, report="tokenization")
    ter_case: str = _opt("run", "TER case: run (the run's case option), use, ignore (sacreBLEU's "
                         "TER default is ignore).", flag="ter-case", section="-", group="ter",
                         choices=MEASURE_CASES, report="case")
    ter_normalized: bool = _opt(False, "TER: apply tercom's normalisation (sacreBLEU "
                                "normalized=True; implies ter-tokenization tercom).",
                                flag="ter-normalized", section="-", group="ter", kind="flag",
                                report="normalized")
    ter_no_punct: bool = _opt(False, "TER: remove punctuation (sacreBLEU no_punct=True; implies "
                              "ter-tokenization tercom).", flag="ter-no-punct", section="-",
                              group="ter", kind="flag", report="no-punct")
    ter_asian_support: bool = _opt(False, "TER: split Asian characters (sacreBLEU "
                                   "asian_support=True; implies ter-tokenization tercom).",
                                   flag="ter-asian-support", section="-", group="ter",
                                   kind="flag", report="asian-support")
    chrf_char_order: int = _opt(6, "chrF character n-gram order.", flag="chrf-char-order",
                                section="-", group="chrf", kind="int", report="char-order")
    chrf_word_order: int = _opt(0, "chrF word n-gram order (2 = chrF++).", flag="chrf-word-order",
                                section="-", group="chrf", kind="int", report="word-order")
    chrf_beta: int = _opt(2, "chrF recall weight beta.", flag="chrf-beta", section="-",
                          group="chrf", kind="int", report="beta")
    chrf_eps_smoothing: bool = _opt(False, "chrF: eps smoothing of zero precisions/recalls "
                                    "(sacreBLEU eps_smoothing=True, as chrF++.py and Moses).",
                                    flag="chrf-eps-smoothing", section="-", group="chrf",
                                    kind="flag", report="eps-smoothing")
    chrf_whitespace: bool = _opt(False, "chrF: keep whitespace in character n-grams.",
                                 flag="chrf-whitespace", section="-", group="chrf", kind="flag",
                                 report="whitespace")
    chrf_case: str = _opt("run", "chrF case: run (the run's case option), use, ignore "
                          "(sacreBLEU lowercase=True).",
                          flag="chrf-case", section="-", group="chrf", choices=MEASURE_CASES,
                          report="case")

    # ---- METEOR (Banerjee & Lavie 2005; NLTK's meteor_score), error classes (Popović & Ney 2011)
    meteor_alpha: float | None = _opt(None, "METEOR alpha, the weight of precision against "
                                      "recall in Fmean, in [0, 1] (empty: NLTK's 0.9).",
                                      flag="meteor-alpha", section="-", group="meteor",
                                      kind="optfloat", report="alpha")
    meteor_beta: float | None = _opt(None, "METEOR beta, the exponent of the fragmentation "
                                     "penalty (empty: NLTK's 3).", flag="meteor-beta",
                                     section="-", group="meteor", kind="optfloat",
                                     report="beta")
    meteor_gamma: float | None = _opt(None, "METEOR gamma, the weight of the fragmentation "
                                      "penalty, in [0, 1] (empty: NLTK's 0.5).",
                                      flag="meteor-gamma", section="-", group="meteor",
                                      kind="optfloat", report="gamma")
    meteor_stemmer: str = _opt("porter", "METEOR stem module: porter (NLTK's default) or "
                               "snowball (the stem-language's Snowball stemmer).",
                               flag="meteor-stemmer", section="-", group="meteor",
                               choices=METEOR_STEMMERS, report="stemmer")
    meteor_synonyms: str = _opt("off", "METEOR synonym module: off, or wordnet (NLTK's "
                                "WordNet, which must be installed locally; it is never "
                                "downloaded).", flag="meteor-synonyms", section="-",
                                group="meteor", choices=METEOR_SYNONYMS, report="synonyms")
    error_classes_base: str = _opt("snowball", "Base forms of the error classification when "
                                   "no base-form files are given: snowball (the "
                                   "stem-language's Snowball stemmer) or prefix4 (the first "
                                   "four letters, Hjerson's fallback).",
                                   flag="error-classes-base", section="-",
                                   group="errorclasses", choices=ERROR_CLASS_BASES,
                                   report="base")
    stem_language: str = _opt("english", "Language of the Snowball stemmer (error classes' "
                              "base forms, METEOR's snowball stem module).",
                              flag="stem-language", section="-", group="stemming",
                              choices=SNOWBALL_LANGUAGES, report="language")

    # ---- general
    leaving_one_out: tuple[str, ...] = _opt((), "Ignore a reference identical to the candidate "
                                            "for these measures (comma separated, e.g. BLEU,WER).",
                                            flag="leaving-one-out", section="A.1",
                                            group="general", kind="strlist",
                                            report="leaving-one-out")
    extrapolate: bool = _opt(False, "Estimate the human score of unscored candidates from the "
                             "database (nearest scored translations).", flag="extrapolate",
                             section="A.1", group="general", kind="flag", report="extrapolate")

    # ------------------------------------------------------------------------
    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            ch = f.metadata.get("choices")
            if ch and v not in ch:
                raise OptionError(f"--{f.metadata['flag']}: '{v}' is not one of {', '.join(ch)}")
            kind = f.metadata.get("kind")
            if kind == "int" and (not isinstance(v, int) or v < 0):
                raise OptionError(f"--{f.metadata['flag']}: expected a non-negative integer, got {v!r}")
            if kind == "optfloat" and v is not None and (not isinstance(v, (int, float))
                                                         or v != v or v < 0):
                raise OptionError(f"--{f.metadata['flag']}: expected a non-negative number, got {v!r}")
        if self.max_ngram < 1 or self.nist_max_ngram < 1 or self.nper_max_ngram < 1:
            raise OptionError("m-gram sizes must be at least 1")
        for name in ("max_ngram", "nist_max_ngram", "nper_max_ngram", "chrf_char_order",
                     "chrf_word_order"):
            if getattr(self, name) > MAX_ORDER:
                flag = self.__dataclass_fields__[name].metadata["flag"]
                raise OptionError(f"--{flag}: {getattr(self, name)} is above the largest "
                                  f"supported order {MAX_ORDER} (statistics take one column "
                                  "per order; an order above the longest sentence adds only "
                                  "zeros)")
        if self.chrf_char_order + self.chrf_word_order < 1:
            raise OptionError("--chrf-char-order plus --chrf-word-order must be at least 1 "
                              "(chrF needs some n-grams)")
        for name in ("meteor_alpha", "meteor_gamma"):
            v = getattr(self, name)
            if v is not None and v > 1:
                flag = self.__dataclass_fields__[name].metadata["flag"]
                raise OptionError(f"--{flag}: {v} is above 1 (a weight in [0, 1])")
        if len(self.transposition_costs) != 5 or self.transposition_costs[0] <= 0:
            raise OptionError("--transposition-costs: expected 5 integers "
                              "denominator,c_SUB,c_DEL,c_INS,c_INV with denominator > 0")

    def replace(self, **changes: Any) -> EvalOptions:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Options as {flag: value}, e.g. for JSON output and session files."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.metadata["flag"]] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EvalOptions:
        """Inverse of :meth:`to_dict` (accepts flags or field names; strings are parsed)."""
        by_flag = {f.metadata["flag"]: f for f in dataclasses.fields(cls)}
        by_name = {f.name: f for f in dataclasses.fields(cls)}
        kw = {}
        for k, v in d.items():
            f = by_flag.get(k) or by_name.get(k)
            if f is None:
                raise OptionError(f"unknown option '{k}'")
            kw[f.name] = parse_option_value(f, v)
        return cls(**kw)


def parse_option_value(f: dataclasses.Field, v: Any) -> Any:
    """Convert a string (CLI, XML report) or JSON value to the field's type."""
    kind = f.metadata.get("kind")
    flag = f.metadata["flag"]
    try:
        if kind == "flag":
            if isinstance(v, str):
                if v.lower() in ("1", "true", "yes", "on"):
                    return True
                if v.lower() in ("0", "false", "no", "off", ""):
                    return False
                raise ValueError(v)
            return bool(v)
        if kind == "int":
            return int(v)
        if kind == "optfloat":
            if v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "default")):
                return None
            return float(v)
        if kind == "intlist":
            if isinstance(v, str):
                return tuple(int(x) for x in v.split(",") if x.strip())
            return tuple(int(x) for x in v)
        if kind == "strlist":
            if isinstance(v, str):
                return tuple(x.strip() for x in v.split(",") if x.strip())
            return tuple(str(x) for x in v)
    except ValueError:
        raise OptionError(f"--{flag}: cannot read value {v!r}") from None
    return v


def option_fields() -> list[dataclasses.Field]:
    """The option fields in declaration order (drives CLI, report and dialog)."""
    return list(dataclasses.fields(EvalOptions))


#: Thesis Table 8.3: baseline vs experimental default settings.
#: (Evaluator normalisation and score summation are correlation settings, not
#: measure options; see engine.human.)
PRESETS: dict[str, EvalOptions] = {
    "evaltrans default": EvalOptions(),
    # sacreBLEU 2.x defaults of every metric it has: BLEU 13a, cased, exp smoothing; chrF
    # 6/0/beta 2; TER on its tercom tokenizer, case-insensitive.
    "sacrebleu": EvalOptions(bleu_smooth_method="exp", ter_tokenization="tercom",
                             ter_case="ignore"),
    "thesis baseline": EvalOptions(
        tokenization="mteval", case="ignore", wer_ref_length_rule="average",
        cder_ref_length_rule="average", nper_ref_length_rule="average",
        bleu_ref_length_rule="minimumNearest", nist_ref_length_rule="average",
        bleu_pad_rule="none", nist_pad_rule="none", nper_pad_rule="none",
        substitution_cost_rule="none"),
    "thesis default": EvalOptions(
        tokenization="mteval-contractions", case="ignore", wer_ref_length_rule="lowestError",
        cder_ref_length_rule="lowestError", nper_ref_length_rule="lowestError",
        bleu_ref_length_rule="minimumNearest", nist_ref_length_rule="average",
        bleu_pad_rule="both", nist_pad_rule="both", nper_pad_rule="both",
        substitution_cost_rule="none"),
}

#: The preset :func:`options_from` starts from when given neither a preset nor options.
DEFAULT_PRESET = "evaltrans default"


def options_from(preset: str | None = None, options: EvalOptions | None = None, /,
                 **values: Any) -> EvalOptions:
    """The one way to build :class:`EvalOptions` from names and values: the command line's
    ``--preset`` and option flags (``cli/_common.py``) and the Python API's
    ``make_options`` both call it.

    Starts from ``options`` or the preset ``preset`` (default :data:`DEFAULT_PRESET`; not
    both) and sets ``values`` by field name (the batch flags in snake_case,
    ``wer_ref_length_rule``). A string is read as on the command line
    (:func:`parse_option_value`: ``"2,1,1,1,1"``, ``"yes"``, ``"0.5"``), as is any value of
    a list option; other values are taken as they are and checked by :class:`EvalOptions`.
    """
    if options is not None and preset is not None:
        raise OptionError("give either options= or preset=, not both")
    if options is None:
        name = preset or DEFAULT_PRESET
        if name not in PRESETS:
            raise OptionError(f"unknown preset '{name}' (known: {', '.join(sorted(PRESETS))})")
        options = PRESETS[name]
    elif not isinstance(options, EvalOptions):
        raise OptionError(f"options: expected EvalOptions, got {type(options).__name__}")
    fields = {f.name: f for f in option_fields()}
    changes = {}
    for key, value in values.items():
        f = fields.get(key)
        if f is None:
            import difflib
            near = difflib.get_close_matches(key, list(fields), n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise OptionError(f"unknown option '{key}'{hint}; options are the fields of "
                              "EvalOptions, e.g. tokenization, case, bleu_smooth_method")
        if isinstance(value, str) or f.metadata.get("kind") in ("intlist", "strlist"):
            value = parse_option_value(f, value)
        changes[key] = value
    return options.replace(**changes) if changes else options
