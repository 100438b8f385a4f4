"""The tokenised corpus of a run: every distinct sentence tokenised once, rows per system.

1. every distinct sentence is tokenised *once* with ``options.tokenization`` /
   ``options.case`` (thesis ch. 5) and mapped to int32 ids by one
   :class:`~evaltrans_qt.engine.text.preprocess.Vocabulary` -- in parallel through
   an executor for large corpora: a worker ships a batch back as its distinct words
   plus local ids (:class:`TokenBatch`), and ids are assigned in the parent, in
   first-seen order;
2. per system, one :class:`Segment` per candidate with its source's
   references; a reference evaluated as a system is compared with the *other*
   references (:func:`build_corpus`);
3. one fit segment per source with references (``hyp`` empty), on which the
   measures are fitted (NIST information weights, thesis eq. 3.8).

The database is read in one pass (references decided once per target) and the rows of
all systems are collected in a second; the candidate rows of a source share one tuple of
reference ids.

Candidates whose source has no reference are skipped with a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from evaltrans_qt.engine.data.database import Database, Target
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.executors.base import CancelFlag, Executor
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.errors import Cancelled, EvalTransError, OptionError

_EMPTY = np.zeros(0, dtype=np.int32)


@dataclass
class SystemRows:
    """The candidate rows of one system, before statistics."""

    system: str
    source_index: list[int] = field(default_factory=list)
    target_index: list[int] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    source_texts: list[str] = field(default_factory=list)


#: Tokenise in parallel (through the executor) from this many distinct sentences on.
PARALLEL_TOKENIZE_MIN = 4000


@dataclass(frozen=True)
class TokenBatch:
    """The tokens of a batch of sentences, compactly (cheap to ship from a worker).

    ``words`` are the batch's distinct tokens in first-seen order; ``local`` the tokens
    of all sentences, one after the other, as indices into ``words``; ``lengths`` the
    number of tokens of each sentence. ``[words[i] for i in local]`` is the
    concatenation of the sentences' token lists.
    """

    words: list[str]
    local: np.ndarray
    lengths: np.ndarray


def token_batch(tokens: Sequence[list[str]]) -> TokenBatch:
    """Pack token lists into a :class:`TokenBatch`."""
    flat = list(chain.from_iterable(tokens))
    index: dict[str, int] = dict(zip(dict.fromkeys(flat), range(len(flat))))
    local = np.fromiter(map(index.__getitem__, flat), dtype=np.int32, count=len(flat))
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    return TokenBatch(list(index), local, lengths)


def tokenize_batch(job: tuple[Sequence[str], str, str]) -> TokenBatch:
    """Tokenise a batch of sentences (module level: runs in worker processes)."""
    texts, method, case = job
    return token_batch([tokenize(t, method, case) for t in texts])


class _Tokens:
    """Tokenise each distinct text once (thesis ch. 5), ids from one vocabulary.

    :meth:`add` tokenises many texts at once -- through an executor for large inputs --
    and assigns ids in the parent, in the order of the texts given (first-seen order),
    so they never depend on the executor.
    """

    def __init__(self, options: EvalOptions) -> None:
        self.vocab = Vocabulary()
        self.method = options.tokenization
        self.case = options.case
        self.ids: dict[str, np.ndarray] = {}

    def add(self, texts: Iterable[str], executor: Executor | None = None,
            cancel: CancelFlag | None = None) -> None:
        ids = self.ids
        todo = [t for t in dict.fromkeys(texts) if t not in ids]
        workers = getattr(executor, "max_workers", 1) if executor is not None else 1
        if executor is None or workers < 2 or len(todo) < PARALLEL_TOKENIZE_MIN \
                or self.method == "none":
            # (splitting on spaces is cheaper than shipping the texts to workers)
            self._encode(todo, tokenize_batch((todo, self.method, self.case)))
            return
        size = -(-len(todo) // (2 * workers))
        jobs = [(todo[a:a + size], self.method, self.case) for a in range(0, len(todo), size)]
        for (batch, _, _), tokens in zip(jobs, executor.map(tokenize_batch, jobs, cancel),
                                         strict=True):
            self._encode(batch, tokens)

    def _encode(self, texts: Sequence[str], tokens: TokenBatch) -> None:
        """One id array per text: the batch's distinct words are encoded in their
        first-seen order, which is the order one ``encode`` per text would give."""
        if len(tokens.lengths) != len(texts):
            raise EvalTransError(f"tokeniser batch returned {len(tokens.lengths)} "
                                 f"sentences, expected {len(texts)}")
        flat = self.vocab.encode(tokens.words)[tokens.local]
        a = 0
        ids = self.ids
        for text, b in zip(texts, np.cumsum(tokens.lengths).tolist()):
            ids[text] = flat[a:b]
            a = b


def build_corpus(db: Database, options: EvalOptions, systems: Sequence[str] | None = None,
                 cancel: CancelFlag | None = None, executor: Executor | None = None
                 ) -> tuple[Vocabulary, list[SystemRows], list[Segment], list[str]]:
    """Tokenise once and build per-system rows plus the fit segments (one per source).

    Returns ``(vocab, rows per system, fit segments, warnings)``. With a
    multi-worker ``executor`` large corpora are tokenised in parallel.

    One pass over the database decides references and candidates; a second builds every
    system's rows. A system that only exists as a reference id (e.g. 'ref-A') is evaluated
    against the *other* references of each source. Ids are assigned in first-seen order:
    with an ``executor``, of every reference and every target of a selected system in
    database order; without, of the references in database order, then of the rows'
    candidates (system by system).
    """
    is_ref = db.reference_test()
    sources = db.sources
    flags: list[list[bool]] = []
    cand_seen: dict[str, None] = {}
    ref_seen: dict[str, None] = {}
    for src in sources:
        f = [is_ref(t) for t in src.targets]
        flags.append(f)
        for t, r in zip(src.targets, f):
            (ref_seen if r else cand_seen).setdefault(t.system or "", None)
    cand_ids, ref_ids = set(cand_seen), set(ref_seen)
    if systems is None:
        systems = list(cand_seen)
    else:
        for s in systems:
            if s not in cand_ids and s not in ref_ids:
                raise OptionError(f"unknown system '{s}' (known: "
                                  f"{', '.join(sorted(cand_ids | ref_ids))})")
    # system key (None for no id) -> [(index in ``systems``, evaluated as a reference)]
    wanted: dict[str | None, list[tuple[int, bool]]] = {}
    for j, s in enumerate(systems):
        wanted.setdefault(s or None, []).append((j, s not in cand_ids and s in ref_ids))

    # per system, its rows as (source index, target index, candidate, its references)
    found: list[list[tuple[int, int, Target, tuple[Target, ...]]]] = [[] for _ in systems]
    skipped = [0] * len(systems)
    all_refs: list[tuple[Target, ...]] = []
    for si, (src, f) in enumerate(zip(sources, flags)):
        if cancel is not None and si % 256 == 0 and cancel.is_set():
            raise Cancelled()
        refs = tuple(t for t, r in zip(src.targets, f) if r)
        all_refs.append(refs)
        for ti, (t, r) in enumerate(zip(src.targets, f)):
            want = wanted.get(t.system or None)
            if want is None:
                continue
            for j, as_reference in want:
                if r != as_reference:
                    continue
                others = tuple(x for x in refs if x is not t) if r else refs
                if others:
                    found[j].append((si, ti, t, others))
                else:
                    skipped[j] += 1

    tok = _Tokens(options)
    if executor is not None:
        keys = set(wanted)
        tok.add((t.text for src, f in zip(sources, flags) for t, r in zip(src.targets, f)
                 if r or (t.system or None) in keys), executor, cancel)
    else:
        tok.add(chain((t.text for refs in all_refs for t in refs),
                      (row[2].text for rows in found for row in rows)))
    ids = tok.ids

    # the references of a row as ids and texts, once per tuple of references (the
    # candidate rows of a source share one tuple)
    prepared: dict[int, tuple[tuple[np.ndarray, ...], tuple[str, ...]]] = {}

    def ref_data(refs: tuple[Target, ...]) -> tuple[tuple[np.ndarray, ...], tuple[str, ...]]:
        got = prepared.get(id(refs))
        if got is None:
            texts = tuple(r.text for r in refs)
            got = prepared[id(refs)] = (tuple(ids[x] for x in texts), texts)
        return got

    fit_segments: list[Segment] = []
    for refs in all_refs:
        if refs:
            r_ids, r_texts = ref_data(refs)
            fit_segments.append(Segment(_EMPTY, r_ids, "", r_texts))
    warnings: list[str] = []
    out = []
    for j, system in enumerate(systems):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        rows = SystemRows(system)
        rows.source_index = [row[0] for row in found[j]]
        rows.target_index = [row[1] for row in found[j]]
        rows.source_texts = [sources[si].text for si in rows.source_index]
        segs = rows.segments
        for si, _, t, refs in found[j]:
            r_ids, r_texts = ref_data(refs)
            segs.append(Segment(ids[t.text], r_ids, t.text, r_texts, sources[si].text))
        if skipped[j]:
            warnings.append(f"system '{system or '(no id)'}': {skipped[j]} candidate(s) "
                            "skipped, their source has no reference")
        out.append(rows)
    if not any(r.segments for r in out):
        raise EvalTransError("nothing to evaluate: no candidate of the selected systems has a "
                             "reference")
    return tok.vocab, out, fit_segments, warnings
