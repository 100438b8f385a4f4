"""Score lists of strings with any registered measure, like sacreBLEU's ``corpus_score`` /
``sentence_score``: the engine behind ``evaltrans score`` and the Python API's
``evaltrans_qt.measure`` / ``evaltrans_qt.score``, and their one score type,
:class:`Score`.

Positional: hypothesis ``i`` is compared with reference line ``i`` of every
reference stream (sacreBLEU ``Metric._extract_corpus_statistics``); nothing is
merged by text. References come as sacreBLEU's list of *streams*
(``refs[k][i]``) or, with ``by_segment=True``, as one list per segment; a
``None`` reference is absent (a variable number of references, sacreBLEU's
``nrefs:var``), an empty string is an empty reference.

The engine's measures do the work: each distinct text is tokenised once with
the measure's ``tokenization`` and ``case`` (``preprocess.tokenize``, which
lower-cases before tokenising, as sacreBLEU's ``BLEU._preprocess_segment``),
:class:`Segment` s are built, the measure is fitted on the references
(``Measure.fit``) and scored with ``corpus_stats`` / ``score`` -- sacreBLEU's flow:
statistics add up, a corpus score is the score of the summed rows, a sentence score
the score of one row (``engine/measures/base.py``).

A :class:`Scorer` keeps the tokenised references, so many systems are scored
against one test set without repeating that work (sacreBLEU's reference cache).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaltrans_qt.engine.measures import get as get_measure
from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment
from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.engine.run.signature import Signature, signature_for
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.errors import InputFormatError, OptionError

#: Measures whose headline is not a rate: printed as is, not in percent.
UNBOUNDED = {"nist"}
#: Measures that read only the raw texts (no word tokens needed).
_RAW_TEXT = {"chrf", "cer"}
_EMPTY = np.zeros(0, dtype=np.int32)


@dataclass(frozen=True)
class Score:
    """A measure's score of a corpus or of one sentence: the one score type of the Python
    API (``evaltrans_qt.measure(...).corpus_score`` / ``.sentence_score``,
    ``evaltrans_qt.score``) and of ``evaltrans score``.

    ``score`` is the number sacreBLEU prints (BLEU, chrF, TER and our error rates in
    percent, NIST as is); ``value`` the engine's unit (fractions; the measure's
    :class:`~evaltrans_qt.engine.measures.base.MeasureScore` ``value``); ``parts`` the
    measure's named parts (its table columns and scalar report elements, thesis Figure
    A.3) plus sacreBLEU's fields: BLEU's ``precisions``, ``bp``, ``sys_len``, ``ref_len``,
    ``counts``, ``totals``; chrF's ``char_order``, ``word_order``, ``beta``; TER's
    ``num_edits``, ``ref_length``. ``sentences``: one value per segment in the unit of
    ``score``, computed with the same options (so ``signature`` holds for them too).
    ``signature`` names every option behind the number (sacreBLEU's signature, extended
    for our measures); ``verbose`` is sacreBLEU's verbose part (BLEU's precisions and
    brevity penalty).
    """

    measure: str
    name: str
    score: float
    value: float
    parts: Mapping[str, Any]
    sentences: tuple[float, ...]
    signature: str
    higher_is_better: bool
    verbose: str = field(default="", repr=False)

    def __float__(self) -> float:
        return float(self.score)

    def __str__(self) -> str:
        """sacreBLEU's line ``NAME|signature = score verbose`` (``metrics/base.py``
        ``Score.format``)."""
        line = f"{self.name}|{self.signature} = {self.score:.2f}"
        return f"{line} {self.verbose}" if self.verbose else line


def score_parts(measure: str, result: MeasureScore, stats: np.ndarray,
                options: EvalOptions) -> dict[str, Any]:
    """:attr:`Score.parts`: the scalar report details and table columns of ``result`` (a
    measure's score of the summed ``stats``) plus sacreBLEU's fields of BLEU, chrF and TER
    (``BLEUScore``, ``CHRFScore``, ``TERScore`` in sacreBLEU's ``metrics/``)."""
    parts: dict[str, Any] = {k: float(v) for k, v in result.details.items()
                             if isinstance(v, (int, float))}
    parts.update({k: float(v) for k, v in result.columns.items()})
    if measure == "bleu":
        ngrams = [p for _, p in result.details.get("n-gram", [])]
        parts.update(precisions=[100.0 * p["smoothed-precision"] for p in ngrams],
                     counts=[int(p["correct"]) for p in ngrams],
                     totals=[int(p["total"]) for p in ngrams],
                     bp=float(result.details["length-penalty"]),
                     sys_len=int(stats[0]), ref_len=int(stats[1]))
    elif measure == "chrf":
        parts.update(char_order=options.chrf_char_order, word_order=options.chrf_word_order,
                     beta=options.chrf_beta)
    elif measure == "ter":
        parts.update(num_edits=float(result.details["sum"]),
                     ref_length=float(result.details["reference-length"]))
    return parts


def display_name(measure: str, options: EvalOptions) -> str:
    """sacreBLEU's score name (``BLEU``, ``chrF2``, ``chrF2++``, ``TER``); ours upper-case."""
    cls = get_measure(measure)
    if cls.name == "chrf":
        return f"chrF{options.chrf_beta}" + "+" * options.chrf_word_order
    if cls.name == "bleu":
        return "BLEU"
    return getattr(cls, "column", "") or cls.name.upper()


def _percent(measure: str) -> float:
    return 1.0 if measure in UNBOUNDED else 100.0


def bleu_verbose(stats: np.ndarray, max_order: int, options: EvalOptions, lp: float) -> str:
    """sacreBLEU's verbose BLEU part ``p1/p2/p3/p4 (BP = .. ratio = .. hyp_len = .. ref_len = ..)``
    (metrics/bleu.py ``BLEUScore``); the precisions as sacreBLEU's ``compute_bleu`` smooths
    them for its methods, the plain m-gram precisions for ours (moses, nrc)."""
    hyp_len, ref_len = int(stats[0]), int(stats[1])
    correct = [int(x) for x in stats[2:2 + max_order]]          # m-gram counts: whole numbers
    total = [int(x) for x in stats[2 + max_order:2 + 2 * max_order]]
    method = options.bleu_smooth_method
    if method in ("none", "floor", "add-k", "exp"):
        from sacrebleu.metrics.bleu import BLEU as SacreBLEU
        precisions = SacreBLEU.compute_bleu(
            correct[:], total[:], hyp_len, ref_len, smooth_method=method,
            smooth_value=options.bleu_smooth_value, effective_order=options.bleu_effective_order,
            max_ngram_order=max_order).precisions
    else:
        precisions = [100.0 * c / t if t > 0 else 0.0 for c, t in zip(correct, total)]
    prec = "/".join(f"{p:.1f}" for p in precisions)
    ratio = hyp_len / ref_len if ref_len else 0
    return (f"{prec} (BP = {lp:.3f} ratio = {ratio:.3f} hyp_len = {hyp_len:d} "
            f"ref_len = {ref_len:d})")


def reference_segments(references: Sequence[Sequence[str | None]], by_segment: bool = False
                       ) -> list[tuple[str, ...]]:
    """Per-segment reference tuples (``None`` dropped) from streams or per-segment lists."""
    if isinstance(references, str):
        raise OptionError("references: expected a list of reference streams, got one string")
    if by_segment:
        rows = [list(r) if not isinstance(r, str) else [r] for r in references]
    else:
        streams = [list(s) for s in references]
        if not streams:
            raise InputFormatError("no reference stream given")
        for k, s in enumerate(streams):
            if isinstance(s, str):
                raise OptionError("references: each stream must be a list of strings")
            if len(s) != len(streams[0]):
                raise InputFormatError(f"reference stream {k + 1} has {len(s)} lines, "
                                       f"stream 1 has {len(streams[0])}")
        rows = [list(r) for r in zip(*streams)]
    out = []
    for i, row in enumerate(rows):
        for r in row:
            if r is not None and not isinstance(r, str):
                raise OptionError(f"reference of segment {i + 1} is not a string: {r!r}")
        out.append(tuple(r for r in row if r is not None))
    return out


class _Tokens:
    """Token ids of texts for one (tokenisation, case), each distinct text once."""

    def __init__(self, tokenization: str, ignore_case: bool) -> None:
        from evaltrans_qt.engine.text.preprocess import tokenize
        self.vocab = Vocabulary()
        self._tokenize = tokenize
        self.method = tokenization
        self.case = "ignore" if ignore_case else "use"
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, text: str) -> np.ndarray:
        ids = self._cache.get(text)
        if ids is None:
            ids = self._cache[text] = self.vocab.encode(self._tokenize(text, self.method,
                                                                       self.case))
        return ids


class Scorer:
    """Scores systems against one test set with several measures (each with its options).

    ``references``: reference streams (or per-segment lists with ``by_segment``);
    ``measures``: registry names; ``options``: one :class:`EvalOptions` for all or
    ``{measure: EvalOptions}`` (default: preset ``sacrebleu``).
    """

    def __init__(self, references: Sequence[Sequence[str | None]],
                 measures: Iterable[str] = ("bleu",),
                 options: EvalOptions | Mapping[str, EvalOptions] | None = None, *,
                 by_segment: bool = False) -> None:
        self.ref_texts = reference_segments(references, by_segment)
        counts = {len(r) for r in self.ref_texts}
        #: sacreBLEU's ``num_refs``: the number of references, -1 when it varies.
        self.nrefs = counts.pop() if len(counts) == 1 else -1
        self.measures: dict[str, Measure] = {}
        self.options: dict[str, EvalOptions] = {}
        self._tokens: dict[str, _Tokens | None] = {}
        self._refs: dict[str, list[tuple[np.ndarray, ...]]] = {}
        shared: dict[tuple[str, bool], _Tokens] = {}
        names = [get_measure(m).name for m in measures]
        if not names:
            raise OptionError("no measure given")
        for name in dict.fromkeys(names):
            opts = _options_for(options, name)
            measure = get_measure(name)(opts)
            if self._needs_tokens(name, measure):
                key = (opts.tokenization, opts.case == "ignore")
                tok = shared.get(key) or shared.setdefault(key, _Tokens(*key))
                refs = [tuple(tok(t) for t in rs) for rs in self.ref_texts]
                vocab = tok.vocab
            else:
                tok = None
                refs = [tuple(_EMPTY for _ in rs) for rs in self.ref_texts]
                vocab = Vocabulary()
            measure.fit([Segment(_EMPTY, r, "", t) for r, t in zip(refs, self.ref_texts)
                         if r], vocab)
            self.measures[name] = measure
            self.options[name] = opts
            self._tokens[name] = tok
            self._refs[name] = refs
        self._signatures: dict[tuple[str, tuple[tuple[str, Any], ...]], str] = {}

    @staticmethod
    def _needs_tokens(name: str, measure: Measure) -> bool:
        return name not in _RAW_TEXT and not getattr(measure, "own_tokens", False)

    def __len__(self) -> int:
        return len(self.ref_texts)

    # ------------------------------------------------------------------ statistics
    def _check(self, hypotheses: Sequence[str]) -> None:
        if isinstance(hypotheses, str):
            raise OptionError("hypotheses: expected a list of strings, got one string")
        if len(hypotheses) != len(self.ref_texts):
            raise InputFormatError(f"{len(hypotheses)} hypotheses but {len(self.ref_texts)} "
                                   "reference segments")
        for i, h in enumerate(hypotheses):
            if not isinstance(h, str):
                raise OptionError(f"hypothesis {i + 1} is not a string: {h!r}")

    def segments(self, measure: str, hypotheses: Sequence[str]) -> list[Segment]:
        """The measure's :class:`Segment` s of one system (positional)."""
        tok = self._tokens[measure]
        refs = self._refs[measure]
        if tok is None:
            return [Segment(_EMPTY, r, h, t) for h, r, t in zip(hypotheses, refs, self.ref_texts)]
        return [Segment(tok(h), r, h, t) for h, r, t in zip(hypotheses, refs, self.ref_texts)]

    def stats(self, hypotheses: Sequence[str],
              progress: Callable[[str], None] | None = None) -> dict[str, np.ndarray]:
        """Sufficient statistics of every segment, per measure: ``(n, k)`` arrays;
        ``progress(measure)`` after each measure."""
        self._check(hypotheses)
        out = {}
        for name, m in self.measures.items():
            out[name] = np.asarray(m.corpus_stats(self.segments(name, hypotheses)), np.float64)
            if progress is not None:
                progress(name)
        return out

    # ------------------------------------------------------------------ scores
    def signature(self, measure: str, **extra: Any) -> Signature:
        """The signature of ``measure``'s numbers on this test set (``extra``: test
        parameters such as ``bs``/``seed``)."""
        name = get_measure(measure).name
        return signature_for(name, self.options[name], self.nrefs, **extra)

    def score_stats(self, measure: str, stats: np.ndarray, *, rows: np.ndarray | None = None,
                    **extra: Any) -> Score:
        """The :class:`Score` of one statistics row (a sentence) or of summed rows (a corpus);
        ``rows``: the per-segment rows, for :attr:`Score.sentences` (empty without)."""
        name = get_measure(measure).name
        m = self.measures[name]
        opts = self.options[name]
        st = np.asarray(stats, dtype=np.float64)
        result = m.score(st)
        value = float(result.value)
        percent = _percent(name)
        verbose = ""
        if name == "bleu":
            lp = float(result.details.get("length-penalty", 0.0))
            verbose = bleu_verbose(st, opts.max_ngram, opts, lp)
        sentences = () if rows is None else tuple(percent * float(m.score(row).value)
                                                  for row in rows)
        key = (name, tuple(sorted(extra.items())))
        sig = self._signatures.get(key)
        if sig is None:
            sig = self._signatures[key] = self.signature(name, **extra).format()
        return Score(name, display_name(name, opts), value * percent, value,
                     score_parts(name, result, st, opts), sentences, sig,
                     bool(m.higher_is_better), verbose)

    def corpus_score(self, hypotheses: Sequence[str]) -> dict[str, Score]:
        """Corpus scores ``score(sum of rows)`` per measure, with the sentences' values."""
        return {name: self.score_stats(name, st.sum(axis=0), rows=st)
                for name, st in self.stats(hypotheses).items()}

    def sentence_scores(self, hypotheses: Sequence[str]) -> dict[str, list[Score]]:
        """One score per segment and measure (``score(row)``)."""
        return {name: [self.score_stats(name, row) for row in st]
                for name, st in self.stats(hypotheses).items()}


def _options_for(options: EvalOptions | Mapping[str, EvalOptions] | None,
                 name: str) -> EvalOptions:
    if options is None:
        return PRESETS["sacrebleu"]
    if isinstance(options, EvalOptions):
        return options
    opts = options.get(name)
    if opts is None:
        raise OptionError(f"no options given for measure '{name}'")
    return opts


__all__ = ["Score", "Scorer", "bleu_verbose", "display_name", "reference_segments",
           "score_parts"]
