"""The tokenised test set an analysis works on: one reference and one output per system for
every sentence the compared systems share.

compare-mt (Neubig et al. 2019, compare-mt 0.2.10 ``compare_mt_main.main``) reads one
reference file and one output file per system, each line split on spaces
(``corpus_utils.iterate_tokens``). A database has several references per source and raw
text, so the analysis maps it as follows:

* **sentences** -- the sources (in database order) for which every compared system has a
  candidate and the chosen reference exists; a source with two candidates of one system
  contributes its first;
* **reference** -- by default the *first* reference of each source (database order, the
  order references were imported); ``reference=NAME`` picks the reference whose id is
  ``NAME`` (e.g. ``ref-A``) and refuses sources that lack it;
* **tokens** -- the run's tokenisation and case options
  (:func:`~evaltrans_qt.engine.text.preprocess.tokenize`); ``tokenization="none"`` splits
  on white space, which is compare-mt's splitting for text without double spaces (compare-mt
  splits on single spaces, so a double space or an empty line gives it an empty token).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import tokenize
from evaltrans_qt.errors import EvalTransError, InputFormatError, OptionError

Tokens = list[str]


@dataclass(frozen=True)
class AnalysisCorpus:
    """One reference and the outputs of the compared systems, sentence by sentence.

    ``ref[i]`` and ``outs[system][i]`` are token lists of sentence ``i``; ``ref_texts``,
    ``out_texts`` and ``source_texts`` the raw strings; ``source_index[i]`` the sentence's
    source in the database (or its line, 0-based, for lists); ``segments[i]`` its segment
    id as shown to the user; ``reference`` names the reference used.
    """

    systems: tuple[str, ...]
    ref: list[Tokens]
    outs: dict[str, list[Tokens]]
    ref_texts: list[str]
    out_texts: dict[str, list[str]]
    source_texts: list[str]
    source_index: list[int]
    segments: list[str]
    reference: str = "first"
    tokenization: str = "none"
    case: str = "use"
    extra: dict[str, str] = field(default_factory=dict)
    #: computed once per corpus (n-gram counts of its sentences): see ``ngram_diff``
    cache: dict[object, object] = field(default_factory=dict, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.ref)


def _check_systems(systems: Sequence[str], known: Sequence[str], where: str) -> None:
    if len(systems) < 1:
        raise OptionError("analysis: name at least one system")
    if len(set(systems)) != len(systems):
        raise OptionError(f"analysis: a system is named twice ({', '.join(systems)})")
    for s in systems:
        if s not in known:
            raise OptionError(f"unknown system '{s}' in {where} (known: {', '.join(known)})")


def corpus_from_lists(references: Sequence[str], outputs: Mapping[str, Sequence[str]], *,
                      sources: Sequence[str] | None = None, tokenization: str = "none",
                      case: str = "use") -> AnalysisCorpus:
    """An :class:`AnalysisCorpus` from parallel lists of strings (one reference per line, one
    list of outputs per system), tokenised with ``tokenization``/``case``."""
    n = len(references)
    systems = tuple(outputs)
    if not systems:
        raise OptionError("analysis: name at least one system")
    for s, lines in outputs.items():
        if len(lines) != n:
            raise InputFormatError(f"system '{s}' has {len(lines)} lines, the reference {n}")
    if sources is not None and len(sources) != n:
        raise InputFormatError(f"the source has {len(sources)} lines, the reference {n}")
    cache: dict[str, Tokens] = {}

    def tok(text: str) -> Tokens:
        got = cache.get(text)
        if got is None:
            got = cache[text] = tokenize(text, tokenization, case)
        return got

    return AnalysisCorpus(
        systems, [tok(r) for r in references],
        {s: [tok(o) for o in outputs[s]] for s in systems},
        list(references), {s: list(outputs[s]) for s in systems},
        list(sources) if sources is not None else [""] * n, list(range(n)),
        [str(i + 1) for i in range(n)], "first", tokenization, case)


def corpus_from_database(db: Database, systems: Sequence[str],
                         options: EvalOptions | None = None, *,
                         reference: str | None = None) -> AnalysisCorpus:
    """The sentences of ``db`` that every system of ``systems`` translated, with the first
    reference of each (or the reference with id ``reference``), tokenised by ``options``'
    ``tokenization`` and ``case`` (module doc)."""
    opts = options or EvalOptions()
    systems = list(systems)
    _check_systems(systems, db.systems(), "the database")
    if reference is not None and reference not in db.reference_ids():
        raise OptionError(f"unknown reference '{reference}' (references of the database: "
                          f"{', '.join(db.reference_ids()) or 'none with an id'})")
    is_ref = db.reference_test()
    wanted = set(systems)
    rows: list[tuple[int, str, dict[str, str]]] = []
    for si, src in enumerate(db.sources):
        ref_text: str | None = None
        outs: dict[str, str] = {}
        for t in src.targets:
            if is_ref(t):
                if ref_text is None and (reference is None or t.system == reference):
                    ref_text = t.text
            elif (t.system or "") in wanted:
                outs.setdefault(t.system or "", t.text)
        if ref_text is not None and len(outs) == len(wanted):
            rows.append((si, ref_text, outs))
    if not rows:
        which = f"reference '{reference}'" if reference else "a reference"
        raise EvalTransError(f"analysis: no source has {which} and a candidate of every "
                             f"system of {', '.join(systems)}")
    cache: dict[str, Tokens] = {}

    def tok(text: str) -> Tokens:
        got = cache.get(text)
        if got is None:
            got = cache[text] = tokenize(text, opts.tokenization, opts.case)
        return got

    sources = db.sources
    return AnalysisCorpus(
        tuple(systems), [tok(r) for _, r, _ in rows],
        {s: [tok(o[s]) for _, _, o in rows] for s in systems},
        [r for _, r, _ in rows], {s: [o[s] for _, _, o in rows] for s in systems},
        [sources[i].text for i, _, _ in rows], [i for i, _, _ in rows],
        [sources[i].seg or str(i + 1) for i, _, _ in rows], reference or "first",
        opts.tokenization, opts.case)
