"""The tokenised corpus of a run: every distinct sentence tokenised once, rows per system.

1. every distinct sentence is tokenised *once* with ``options.tokenization`` /
   ``options.case`` (thesis ch. 5) and mapped to int32 ids by one
   :class:`~evaltrans_qt.engine.preprocess.Vocabulary` -- in parallel through
   an executor for large corpora (ids are still assigned in first-seen order);
2. per system, one :class:`Segment` per candidate with its source's
   references; a reference evaluated as a system is compared with the *other*
   references (:func:`build_corpus`);
3. one fit segment per source with references (``hyp`` empty), on which the
   measures are fitted (NIST information weights, thesis eq. 3.8).

Candidates whose source has no reference are skipped with a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from evaltrans_qt.engine.database import Database, Source, Target
from evaltrans_qt.engine.executors import CancelFlag, Executor
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.preprocess import Vocabulary, tokenize
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


def tokenize_batch(job: tuple[Sequence[str], str, str]) -> list[list[str]]:
    """Tokenise a batch of sentences (module level: runs in worker processes)."""
    texts, method, case = job
    return [tokenize(t, method, case) for t in texts]


class _Tokens:
    """Tokenise each distinct text once (thesis ch. 5), ids from one vocabulary.

    :meth:`prefetch` tokenises many texts at once through an executor; ids are
    then assigned in the parent, in first-seen order, so they never depend on
    the executor.
    """

    def __init__(self, options: EvalOptions) -> None:
        self.vocab = Vocabulary()
        self.method = options.tokenization
        self.case = options.case
        self._cache: dict[str, np.ndarray] = {}

    def prefetch(self, texts: Iterable[str], executor: Executor | None,
                 cancel: CancelFlag | None = None) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        workers = getattr(executor, "max_workers", 1) if executor is not None else 1
        if workers < 2 or len(todo) < PARALLEL_TOKENIZE_MIN or self.method == "none":
            # (splitting on spaces is cheaper than shipping the texts to workers)
            for t in todo:
                self(t)
            return
        size = -(-len(todo) // (2 * workers))
        jobs = [(todo[a:a + size], self.method, self.case) for a in range(0, len(todo), size)]
        k = 0
        for toks in executor.map(tokenize_batch, jobs, cancel):
            for tk in toks:
                self._cache[todo[k]] = self.vocab.encode(tk)
                k += 1

    def __call__(self, text: str) -> np.ndarray:
        ids = self._cache.get(text)
        if ids is None:
            ids = self.vocab.encode(tokenize(text, self.method, self.case))
            self._cache[text] = ids
        return ids


def _system_targets(db: Database, system: str, ref_ids: set[str],
                    cand_ids: set[str]) -> Iterator[tuple[int, Source, int, Target, list[Target]]]:
    """(source index, source, target index, candidate, references) for one system.

    A system that only exists as a reference id (e.g. 'ref-A') is evaluated
    against the *other* references of each source.
    """
    as_reference = system not in cand_ids and system in ref_ids
    want = system or None
    for si, src in enumerate(db.sources):
        refs = [t for t in src.targets if db.is_reference(t)]
        for ti, t in enumerate(src.targets):
            if (t.system or None) != want:
                continue
            is_ref = any(t is r for r in refs)
            if is_ref != as_reference:
                continue
            yield si, src, ti, t, [r for r in refs if r is not t]


def build_corpus(db: Database, options: EvalOptions, systems: Sequence[str] | None = None,
                 cancel: CancelFlag | None = None, executor: Executor | None = None
                 ) -> tuple[Vocabulary, list[SystemRows], list[Segment], list[str]]:
    """Tokenise once and build per-system rows plus the fit segments (one per source).

    Returns ``(vocab, rows per system, fit segments, warnings)``. With a
    multi-worker ``executor`` large corpora are tokenised in parallel.
    """
    tok = _Tokens(options)
    cand_ids = set(db.systems())
    ref_ids = set(db.reference_ids())
    if systems is None:
        systems = db.systems()
    else:
        for s in systems:
            if s not in cand_ids and s not in ref_ids:
                raise OptionError(f"unknown system '{s}' (known: "
                                  f"{', '.join(sorted(cand_ids | ref_ids))})")
    if executor is not None:
        want = {s or None for s in systems}
        tok.prefetch((t.text for src in db.sources for t in src.targets
                      if db.is_reference(t) or (t.system or None) in want), executor, cancel)
    warnings: list[str] = []
    fit_segments: list[Segment] = []
    for src in db.sources:
        refs = db.references(src)
        if refs:
            fit_segments.append(Segment(_EMPTY, tuple(tok(r.text) for r in refs), "",
                                        tuple(r.text for r in refs)))
    out = []
    for system in systems:
        rows = SystemRows(system)
        skipped = 0
        for k, (si, src, ti, t, refs) in enumerate(_system_targets(db, system, ref_ids, cand_ids)):
            if cancel is not None and k % 256 == 0 and cancel.is_set():
                raise Cancelled()
            if not refs:
                skipped += 1
                continue
            rows.source_index.append(si)
            rows.target_index.append(ti)
            rows.source_texts.append(src.text)
            rows.segments.append(Segment(tok(t.text), tuple(tok(r.text) for r in refs), t.text,
                                         tuple(r.text for r in refs)))
        if skipped:
            warnings.append(f"system '{system or '(no id)'}': {skipped} candidate(s) skipped, "
                            "their source has no reference")
        out.append(rows)
    if not any(r.segments for r in out):
        raise EvalTransError("nothing to evaluate: no candidate of the selected systems has a "
                             "reference")
    return tok.vocab, out, fit_segments, warnings
