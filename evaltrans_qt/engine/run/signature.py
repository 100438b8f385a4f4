"""Signatures: every number names the options that produced it.

For sacreBLEU's metrics (``bleu``, ``chrf``, ``ter``) the signature is
sacreBLEU's own (``sacrebleu/metrics/base.py`` ``Signature.format``; fields of
``BLEUSignature``, ``CHRFSignature``, ``TERSignature`` in
``metrics/{bleu,chrf,ter}.py``), character for character, whenever our options
can be expressed in it. When they cannot (a BLEU pad rule, a reference-length
rule other than minimumNearest, an m-gram order other than 4, smoothing
``moses``/``nrc``, tokenisation ``remove-punctuation``, TER on the run's tokens
...) the differing options are appended as extra fields followed by
``evaltrans:<version>``, so a signature never hides an option that changes
the number.

For our other measures the signature has the same style: ``nrefs``, the
preprocessing (``tok``, ``case``), then every option of the measure's option
groups (:mod:`evaltrans_qt.engine.options` metadata ``group``; a new option
appears automatically) under its report name, then ``evaltrans:<version>``.

Keys and short forms follow sacreBLEU (``nrefs``/``#``, ``case``/``c``,
``tok``/``tok``, ``bs``, ``ar``, ``seed``/``rs``, ``version``/``v``); our own
keys are abbreviated by the initials of their hyphenated parts
(``reference-length-rule`` -> ``rlr``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from evaltrans_qt.engine.options import SACREBLEU_TOKENIZERS, EvalOptions
from evaltrans_qt.errors import OptionError

#: Measures whose signature is sacreBLEU's own.
SACREBLEU_METRICS = ("bleu", "chrf", "ter")
#: sacreBLEU's smoothing methods and their default values (metrics/bleu.py SMOOTH_DEFAULTS).
SACREBLEU_SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1,
                                                      "exp": None}
#: Our tokenisation name -> sacreBLEU's (the inverse of ``SACREBLEU_TOKENIZERS``).
OUR_TO_SACREBLEU_TOK = {ours: theirs for theirs, ours in SACREBLEU_TOKENIZERS.items()}

# sacreBLEU Signature._abbr (base) plus the metric-specific ones.
_ABBR = {"version": "v", "nrefs": "#", "test": "t", "lang": "l", "subset": "S",
         "origlang": "o", "bs": "bs", "ar": "ar", "seed": "rs",
         "case": "c", "eff": "e", "tok": "tok", "smooth": "s",          # BLEU
         "nc": "nc", "nw": "nw", "space": "s",                          # chrF
         "norm": "nr", "punct": "pn", "asian": "as",                    # TER (tok: "t")
         "evaltrans": "et"}
_TER_ABBR = {"tok": "t"}
#: Fields of a run that name the measure's input rather than an option.
_GLOBAL_KEYS = ("nrefs", "bs", "ar", "seed", "test", "lang", "origlang", "subset")

#: Options that never change a measure's numbers (they enable a measure or add columns).
_NEVER = {"all_ngrams", "allow_transpositions", "allow_long_jumps", "extrapolate",
          "leaving_one_out"}
#: Extra option fields (outside the measure's own group) per measure.
_EXTRA_FIELDS: dict[str, tuple[str, ...]] = {
    "wwer": ("substitution_cost_rule",), "wper": ("substitution_cost_rule",),
    "wcder": ("substitution_cost_rule",),
}
#: Fields that change only the listed measures (the word-dependent-cost variants).
_ONLY_FOR: dict[str, tuple[str, ...]] = {
    "substitution_cost_rule": ("wwer", "wper", "wcder"),
}
#: Group of options a measure reads when it has no group of its own name.
_GROUP_OF = {"wwer": "wer", "per": "wer", "wper": "wer", "msder": "wer", "wcder": "cder"}
#: Measures that work on the raw characters (the run's tokenisation does not matter).
_CHARACTER_MEASURES = {"chrf", "cer"}
#: Measures that look for the database's ranked short segments in the raw candidate text,
#: split as the segments were split when extracted (``SentenceSegments.tokenization``,
#: engine/human/unseen/matching.py ``words_in``) and with case kept (Macháček §3.3.2): the run's
#: ``tokenization`` and ``case`` do not apply, so the signature says ``tok:segments``
#: and ``case:mixed``.
_SEGMENT_MATCHING_MEASURES = {"exactmatch", "penalizeunknown"}
#: Measures that add database segments as references (SEGRANKSBLEU, Macháček §3.2.3: the
#: best-ranked candidate segments, tokenised like the run): ``nrefs`` counts only the
#: original references, so a field names the extra ones.
_SEGMENT_REFERENCE_MEASURES = {"segranksbleu": "best-ranked"}


def evaltrans_version() -> str:
    from evaltrans_qt.version import __version__
    return __version__


@lru_cache(maxsize=1)
def sacrebleu_version() -> str:
    """The installed sacreBLEU's version (what its signatures print as ``version``)."""
    try:
        from importlib.metadata import version
        return version("sacrebleu")
    except Exception:  # pragma: no cover - metadata missing (vendored copy)
        from sacrebleu import __version__
        return __version__


def _yes_no(v: Any) -> Any:
    return ("yes" if v else "no") if isinstance(v, bool) else v


class Signature:
    """An ordered set of ``key:value`` fields, formatted like sacreBLEU's ``Signature``.

    ``info`` keeps insertion order; :meth:`format` drops ``None`` values, writes
    booleans as yes/no and keeps ``version`` last (sacreBLEU metrics/base.py).
    """

    def __init__(self, measure: str, info: Mapping[str, Any],
                 abbr: Mapping[str, str] | None = None, *, extended: bool = False) -> None:
        self.measure = measure
        self.info: dict[str, Any] = dict(info)
        self._abbr = dict(_ABBR)
        if abbr:
            self._abbr.update(abbr)
        #: True when the fields go beyond what sacreBLEU's signature can express.
        self.extended = extended

    def abbreviation(self, key: str) -> str:
        if key in self._abbr:
            return self._abbr[key]
        return "".join(p[0] for p in key.replace("_", "-").split("-") if p)

    def format(self, short: bool = False) -> str:
        keys = [k for k in self.info if k != "version"]
        if "version" in self.info:
            keys.append("version")
        pairs = []
        for k in keys:
            v = self.info[k]
            if v is None:
                continue
            name = self.abbreviation(k) if short else k
            pairs.append(f"{name}:{_format_value(v)}")
        return "|".join(pairs)

    def fields(self) -> dict[str, str]:
        """``{key: value}`` as strings (the extra keys of sacreBLEU's JSON output)."""
        return {k: _format_value(v) for k, v in self.info.items() if v is not None}

    def update(self, key: str, value: Any) -> None:
        self.info[key] = value

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"Signature({self.format()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Signature) and self.format() == other.format()

    def __hash__(self) -> int:
        return hash(self.format())


def _format_value(v: Any) -> str:
    v = _yes_no(v)
    if isinstance(v, (tuple, list)):
        return ",".join(str(x) for x in v)
    if isinstance(v, float) and v.is_integer():
        return str(v)
    return str(v)


def _nrefs(nrefs: int | str) -> int | str:
    return "var" if nrefs == -1 else nrefs


def _base_info(nrefs: int | str, extra: Mapping[str, Any], with_version: bool) -> dict:
    info: dict[str, Any] = {}
    if with_version:
        info["version"] = sacrebleu_version()
    info["nrefs"] = _nrefs(nrefs)
    for k in _GLOBAL_KEYS[1:]:
        info[k] = extra.get(k)
    return info


def case_value(ignore: bool) -> str:
    """sacreBLEU's ``case`` field: ``lc`` when case is ignored, else ``mixed``."""
    return "lc" if ignore else "mixed"


def _effective_case(options: EvalOptions, measure_case: str) -> bool:
    """True if case is ignored; ``measure_case`` "run" follows ``options.case``."""
    return (options.case if measure_case == "run" else measure_case) == "ignore"


@cache
def tokenizer_signature(tokenization: str) -> str:
    """sacreBLEU's ``tok`` field for our tokenisation (``mteval`` -> ``13a``; MeCab
    tokenizers name their version and dictionary); ours keep their own name."""
    name = OUR_TO_SACREBLEU_TOK.get(tokenization)
    if name is None:
        return tokenization
    if name in ("ja-mecab", "ko-mecab"):
        try:
            from sacrebleu.metrics.bleu import _get_tokenizer
            return _get_tokenizer(name)().signature()
        except Exception:   # the optional package is missing: the number cannot be computed
            return name
    return name


def _leave_one_out(options: EvalOptions, measure: str) -> bool:
    keys = {k.strip().lower() for k in options.leaving_one_out}
    return measure in keys or f"m{measure}" in keys


def _finish(sig_info: dict, extras: dict, options: EvalOptions, measure: str,
            extended: bool) -> bool:
    if _leave_one_out(options, measure):
        extras["leaving-one-out"] = True
    if extras:
        extended = True
        sig_info.update(extras)
    if extended:
        sig_info["evaltrans"] = evaltrans_version()
    return extended


def bleu_signature(options: EvalOptions, nrefs: int | str, **extra: Any) -> Signature:
    """sacreBLEU's ``BLEUSignature`` (metrics/bleu.py) for our BLEU options, extended by the
    options sacreBLEU cannot express (pad rule, reference-length rule, order, smoothing)."""
    info = _base_info(nrefs, extra, with_version=True)
    method = options.bleu_smooth_method
    smooth = method
    extras: dict[str, Any] = {}
    if method in SACREBLEU_SMOOTH_DEFAULTS:
        default = SACREBLEU_SMOOTH_DEFAULTS[method]
        if default is not None:
            value = options.bleu_smooth_value if options.bleu_smooth_value is not None else default
            smooth += f"[{value:.2f}]"
    elif options.bleu_smooth_value is not None:
        smooth += f"[{options.bleu_smooth_value:.2f}]"
    extended = method not in SACREBLEU_SMOOTH_DEFAULTS
    tok = tokenizer_signature(options.tokenization)
    extended |= options.tokenization not in OUR_TO_SACREBLEU_TOK
    info.update({"case": case_value(options.case == "ignore"),
                 "eff": "yes" if options.bleu_effective_order else "no",
                 "tok": tok, "smooth": smooth})
    if options.max_ngram != 4:
        extras["max-ngram"] = options.max_ngram
    if options.bleu_pad_rule != "none":
        extras["pad-rule"] = options.bleu_pad_rule
    if options.bleu_ref_length_rule != "minimumNearest":
        extras["reference-length-rule"] = options.bleu_ref_length_rule
    extended = _finish(info, extras, options, "bleu", extended)
    return Signature("bleu", info, extended=extended)


def chrf_signature(options: EvalOptions, nrefs: int | str, **extra: Any) -> Signature:
    """sacreBLEU's ``CHRFSignature`` (metrics/chrf.py): case, eff (no with eps smoothing),
    nc, nw, space. β is not a field: sacreBLEU names the score ``chrF<β>``."""
    info = _base_info(nrefs, extra, with_version=True)
    info.update({"case": case_value(_effective_case(options, options.chrf_case)),
                 "eff": "no" if options.chrf_eps_smoothing else "yes",
                 "nc": options.chrf_char_order, "nw": options.chrf_word_order,
                 "space": "yes" if options.chrf_whitespace else "no"})
    extended = _finish(info, {}, options, "chrf", False)
    return Signature("chrf", info, extended=extended)


def ter_uses_tercom(options: EvalOptions) -> bool:
    """TER runs on sacreBLEU's tercom tokenizer (``ter-tokenization tercom``, implied by
    normalized / no-punct / asian-support) rather than on the run's tokens."""
    return (options.ter_tokenization == "tercom" or options.ter_normalized
            or options.ter_no_punct or options.ter_asian_support)


def ter_signature(options: EvalOptions, nrefs: int | str, **extra: Any) -> Signature:
    """sacreBLEU's ``TERSignature`` (metrics/ter.py): case, tok (tercom), norm, punct,
    asian. TER on the run's tokens names that tokenisation and is marked extended."""
    info = _base_info(nrefs, extra, with_version=True)
    tercom = ter_uses_tercom(options)
    info.update({"case": case_value(_effective_case(options, options.ter_case)),
                 "tok": "tercom" if tercom else tokenizer_signature(options.tokenization),
                 "norm": options.ter_normalized, "punct": not options.ter_no_punct,
                 "asian": options.ter_asian_support})
    extended = _finish(info, {}, options, "ter", not tercom)
    return Signature("ter", info, _TER_ABBR, extended=extended)


def measure_option_fields(measure: str) -> list[dataclasses.Field]:
    """The option fields that change ``measure``'s numbers (besides preprocessing).

    The fields of the option group named like the measure (or its family, e.g.
    ``wer`` for ``per``), the field named by the measure's ``ref_length_option``,
    and a few listed extras; options that only enable a measure or add columns
    are left out.
    """
    from evaltrans_qt.engine.measures import get
    cls = get(measure)
    name = cls.name
    groups = set(getattr(cls, "option_groups", ()) or ())
    groups.add(name)
    groups.add(_GROUP_OF.get(name, name))
    wanted = set(_EXTRA_FIELDS.get(name, ()))
    ref_opt = getattr(cls, "ref_length_option", None)
    if isinstance(ref_opt, str):
        wanted.add(ref_opt)
    out = []
    for f in dataclasses.fields(EvalOptions):
        if f.name in _NEVER or name not in _ONLY_FOR.get(f.name, (name,)):
            continue
        if f.metadata.get("group") in groups or f.name in wanted:
            out.append(f)
    return out


def measure_signature(measure: str, options: EvalOptions, nrefs: int | str,
                      **extra: Any) -> Signature:
    """Extended signature of one of our measures: nrefs, bs/ar/seed if given, tok, case,
    every option of the measure (:func:`measure_option_fields`), ``evaltrans:<version>``."""
    from evaltrans_qt.engine.measures import get
    name = get(measure).name
    info = _base_info(nrefs, extra, with_version=False)
    if name in _SEGMENT_MATCHING_MEASURES:
        info["tok"] = "segments"
        info["case"] = case_value(False)
    else:
        if name not in _CHARACTER_MEASURES:
            info["tok"] = tokenizer_signature(options.tokenization)
        info["case"] = case_value(options.case == "ignore")
    if name in _SEGMENT_REFERENCE_MEASURES:
        info["segment-refs"] = _SEGMENT_REFERENCE_MEASURES[name]
    used: set[str] = set(info)
    for f in measure_option_fields(name):
        key = f.metadata.get("report") or f.metadata["flag"]
        if key in used:
            key = f.metadata["flag"]
        used.add(key)
        info[key] = getattr(options, f.name)
    if _leave_one_out(options, name):
        info["leaving-one-out"] = True
    info["evaltrans"] = evaltrans_version()
    return Signature(name, info, extended=True)


_SACRE = {"bleu": bleu_signature, "chrf": chrf_signature, "ter": ter_signature}


def signature_for(measure: str, options: EvalOptions | None = None, nrefs: int | str = 1,
                  **extra: Any) -> Signature:
    """The signature of ``measure``'s numbers under ``options`` with ``nrefs`` references
    (``-1`` or ``"var"``: a variable number per segment).

    ``extra``: sacreBLEU's run fields ``bs`` (bootstrap resamples), ``ar``
    (randomisation trials), ``seed``, ``test``, ``lang``, ``origlang``, ``subset``.
    """
    unknown = set(extra) - set(_GLOBAL_KEYS)
    if unknown:
        raise OptionError(f"unknown signature field(s): {', '.join(sorted(unknown))}")
    options = options or EvalOptions()
    key = measure.lower()
    if key in _SACRE:
        return _SACRE[key](options, nrefs, **extra)
    return measure_signature(key, options, nrefs, **extra)


__all__ = ["Signature", "signature_for", "bleu_signature", "chrf_signature", "ter_signature",
           "measure_signature", "measure_option_fields", "tokenizer_signature",
           "ter_uses_tercom", "sacrebleu_version", "SACREBLEU_METRICS"]
