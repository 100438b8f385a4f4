"""One alignment structure for every string measure (WER, CDER, TER, INVWER, LJWER, PER).

Conventions (tercom's): the *candidate* (hypothesis) is compared with a
*reference*. An insertion (``I``) is a candidate word with no reference
counterpart; a deletion (``D``) is a reference word missing from the candidate.
Positions are 0-based token indices; spans are half-open ``[start, end)``.

Operations are listed in reference order where the measure has one (for
CDER/TER/INVWER the operations of the final, block-moved alignment). Blocks
describe reorderings: a long jump (CDER/LJWER), a shift (TER), an inversion
(INVWER); ``number`` starts at 1 and is what the UI and the text view show.
Summing ``cost`` over operations and blocks gives the measure's distance.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import Enum


class OpKind(str, Enum):
    MATCH = "="      # identity
    SUB = "S"        # substitution (cost may be word dependent, thesis 4.5)
    INS = "I"        # candidate word not in the reference
    DEL = "D"        # reference word missing in the candidate


class BlockKind(str, Enum):
    LONG_JUMP = "long-jump"
    SHIFT = "shift"
    INVERSION = "inversion"


@dataclass(frozen=True)
class EditOp:
    kind: OpKind
    hyp_pos: int | None
    ref_pos: int | None
    cost: float = 0.0


@dataclass(frozen=True)
class Block:
    number: int
    kind: BlockKind
    hyp_span: tuple[int, int]
    ref_span: tuple[int, int]
    cost: float = 0.0


@dataclass(frozen=True)
class Alignment:
    measure: str
    hyp: tuple[str, ...]
    ref: tuple[str, ...]
    distance: float
    operations: tuple[EditOp, ...] = ()
    blocks: tuple[Block, ...] = ()
    #: Index of the reference used (multi-reference measures), else 0.
    ref_index: int = 0
    #: Free-form notes, e.g. {"approximated": True} for long LJWER sentences.
    notes: dict = field(default_factory=dict)

    def operation_cost(self) -> float:
        return sum(op.cost for op in self.operations) + sum(b.cost for b in self.blocks)

    def counts(self) -> dict[str, int]:
        c = {k.name.lower(): 0 for k in OpKind}
        for op in self.operations:
            c[op.kind.name.lower()] += 1
        c["blocks"] = len(self.blocks)
        return c

    def to_dict(self) -> dict:
        d = asdict(self)
        d["operations"] = [{"kind": op.kind.value, "hyp_pos": op.hyp_pos, "ref_pos": op.ref_pos,
                            "cost": op.cost} for op in self.operations]
        d["blocks"] = [{"number": b.number, "kind": b.kind.value, "hyp_span": list(b.hyp_span),
                        "ref_span": list(b.ref_span), "cost": b.cost} for b in self.blocks]
        d["hyp"] = list(self.hyp)
        d["ref"] = list(self.ref)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


# --------------------------------------------------------------------------- explaining one segment
@dataclass(frozen=True)
class NgramMatches:
    """BLEU's clipped m-gram matches of one candidate (thesis eq. 3.1-3.3), for display.

    ``correct[m-1]`` / ``total[m-1]`` are n∩_m and N_m exactly as the BLEU statistics
    count them (the engine's n-gram kernel, ``kernels/ngrams.py``, with the
    ``bleu-pad-rule`` boundaries of Table A.5). ``hyp_spans[m-1]`` holds one word span
    ``(start, stop)`` per matched candidate m-gram (clipped to the words: a window that
    holds boundary symbols covers fewer words, a window of ``</s>`` alone none);
    clipping credits the first occurrences. ``ref_spans[k][m-1]`` holds the spans of
    reference ``k``'s m-grams equal to a matched candidate m-gram.
    """

    pad_rule: str
    correct: tuple[int, ...]
    total: tuple[int, ...]
    hyp_spans: tuple[tuple[tuple[int, int], ...], ...]
    ref_spans: tuple[tuple[tuple[tuple[int, int], ...], ...], ...]


def matched_ngrams(hyp, refs, max_order: int, pad_rule: str = "none") -> NgramMatches:
    """Which candidate m-grams BLEU counts as matched, from the engine's n-gram kernel.

    The kernel's clipped count of the candidate's first k words grows by one for order m
    exactly when the m-gram ending at word k still had a reference occurrence left
    (clip = min(count, max reference count), eq. 3.2): so scoring every prefix in one
    batch gives the matched positions, and the full candidate (with its end boundary,
    if the pad rule has one) gives the counts BLEU uses.
    """
    import numpy as np

    from evaltrans_qt.engine.kernels.ngrams import (
        BOS_ID,
        EOS_ID,
        clipped_counts,
        pad_flags,
        pad_ids,
    )
    initial, end = pad_flags(pad_rule)
    h = np.asarray(hyp, dtype=np.int32)
    rs = [np.asarray(r, dtype=np.int32) for r in refs]
    n = len(h)
    prefix_rule = "initial" if initial else "none"
    prefixes = [h[:k] for k in range(n + 1)]
    correct_p, _t, _i, _m = clipped_counts(prefixes, [rs] * (n + 1), max_order, prefix_rule)
    full_c, full_t, _i, _m = clipped_counts([h], [rs], max_order, pad_rule)
    seqs = [pad_ids([int(t) for t in h], pad_rule, m, BOS_ID, EOS_ID) for m in range(1, max_order + 1)]
    lead = [(m - 1) if initial else 0 for m in range(1, max_order + 1)]
    spans: list[list[tuple[int, int]]] = [[] for _ in range(max_order)]
    hyp_grams: list[set[tuple[int, ...]]] = [set() for _ in range(max_order)]
    for k in range(1, n + 1):
        for m in range(1, max_order + 1):
            if correct_p[k, m - 1] > correct_p[k - 1, m - 1]:     # the m-gram ending at word k
                spans[m - 1].append((max(0, k - m), k))
                stop = lead[m - 1] + k
                hyp_grams[m - 1].add(tuple(seqs[m - 1][stop - m:stop]))
    if end:
        for m in range(1, max_order + 1):
            if full_c[0, m - 1] > correct_p[n, m - 1]:      # the m-gram ending in </s>
                spans[m - 1].append((min(n, max(0, n - m + 1)), n))
                stop = lead[m - 1] + n + 1
                hyp_grams[m - 1].add(tuple(seqs[m - 1][stop - m:stop]))
    # reference m-grams equal to a matched candidate m-gram (under the same padding, so
    # boundary m-grams only meet boundary m-grams)
    ref_spans = []
    for r in rs:
        per = []
        for m in range(1, max_order + 1):
            seq = pad_ids([int(t) for t in r], pad_rule, m, BOS_ID, EOS_ID)
            ld = lead[m - 1]
            out = []
            for i in range(len(seq) - m + 1):
                if tuple(seq[i:i + m]) in hyp_grams[m - 1]:
                    a, b = min(len(r), max(0, i - ld)), min(len(r), i + m - ld)
                    out.append((a, max(a, b)))
            per.append(tuple(out))
        ref_spans.append(tuple(per))
    return NgramMatches(pad_rule, tuple(int(x) for x in full_c[0]), tuple(int(x) for x in full_t[0]),
                        tuple(tuple(s) for s in spans), tuple(ref_spans))


@dataclass(frozen=True)
class Explanation:
    """Why one candidate scored as it did under one measure and one set of options.

    ``hyp``/``refs`` are the tokens the measure saw; ``alignment`` the measure's
    alignment (None for measures without one, e.g. BLEU, whose ``ngrams`` are set);
    ``score``/``stats`` the sentence score and its statistics (None with ``error``
    saying why); ``ref_index`` the reference that counts (the alignment's, for BLEU
    the one closest in length, as its brevity penalty); ``reference_distances``
    the distance to each reference, where the measure defines one.
    """

    measure: str
    options: object                     # EvalOptions (no import: measures import this module)
    hyp: tuple[str, ...]
    refs: tuple[tuple[str, ...], ...]
    alignment: Alignment | None = None
    ngrams: NgramMatches | None = None
    score: object | None = None         # MeasureScore
    stats: object | None = None         # np.ndarray
    reference_distances: tuple[float, ...] | None = None
    ref_index: int = 0
    error: str = ""


#: Bytes per cell of a word alignment of two sentences: the float64 substitution-cost
#: matrix plus the backtrace tables (float64 costs, int8 moves) of ``wer.backtrace_ops``.
ALIGNMENT_CELL_BYTES = 8 + 9


def check_alignment_budget(what: str, hyp_len: int, ref_len: int) -> None:
    """Refuse an alignment of a ``hyp_len`` x ``ref_len``-word pair whose cost matrix and
    tables exceed the memory budget (``engine/kernels/budget.py``), before any of them is
    allocated -- the substitution matrix alone is 8 bytes a cell."""
    from evaltrans_qt.engine.kernels.budget import check_table
    check_table(what, (hyp_len + 1) * (ref_len + 1), ALIGNMENT_CELL_BYTES,
                f"a {hyp_len} x {ref_len}-word sentence pair")


def explain_segment(measure: str, candidate: str, references: list[str] | tuple[str, ...],
                    options=None, *, max_order: int | None = None,
                    source: str | None = None) -> Explanation:
    """Tokenise -> segment -> fit -> score and alignment of one candidate (the one path of
    ``evaltrans align`` and the compare view).

    The candidate and references are tokenised with the options' tokenisation and case
    (thesis ch. 5), encoded by one vocabulary, and the measure is fitted on the
    references as a run fits it (one segment, candidate empty: ``engine/run/corpus.py``).
    A measure asked for by name is explained even where the options leave it out of
    runs: INVWER as if ``allow-transpositions``, LJWER as if ``allow-long-jumps`` were
    set. ``max_order`` overrides BLEU's maximum n-gram order (display only). ``source``:
    the source sentence, for measures that use it (GLEU).
    """
    import numpy as np

    from evaltrans_qt.engine.measures import get
    from evaltrans_qt.engine.measures.base import Segment
    from evaltrans_qt.engine.options import EvalOptions
    from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
    from evaltrans_qt.errors import EvalTransError

    opts = options if options is not None else EvalOptions()
    name = measure.lower()
    if name == "invwer" and not opts.allow_transpositions:
        opts = opts.replace(allow_transpositions=True)
    if name == "ljwer" and not opts.allow_long_jumps:
        opts = opts.replace(allow_long_jumps=True)
    if name == "bleu" and max_order is not None and max_order != opts.max_ngram:
        opts = opts.replace(max_ngram=int(max_order))
    cls = get(name)
    m = cls(opts)
    hyp_tok = tokenize(candidate, opts.tokenization, opts.case)
    ref_toks = [tokenize(r, opts.tokenization, opts.case) for r in references]
    vocab = Vocabulary()
    hyp_ids = vocab.encode(hyp_tok)
    ref_ids = tuple(vocab.encode(r) for r in ref_toks)
    seg = Segment(hyp_ids, ref_ids, candidate, tuple(references), source)
    m.fit([Segment(np.zeros(0, np.int32), ref_ids, "", tuple(references))], vocab)
    score = stats = None
    error = ""
    try:
        stats = m.sentence_stats(seg)
        score = m.score(stats)
    except (EvalTransError, ValueError, ZeroDivisionError) as exc:
        error = str(exc)
    alignment = m.align(seg)
    dists = None
    try:
        d = m.reference_distances(seg)
        dists = None if d is None else tuple(float(x) for x in d)
    except (EvalTransError, ValueError):
        dists = None
    ngrams = None
    ref_index = alignment.ref_index if alignment is not None else 0
    if name == "bleu":
        ngrams = matched_ngrams(hyp_ids, ref_ids, opts.max_ngram, opts.bleu_pad_rule)
        lens = [len(r) for r in ref_toks]
        # the reference closest in length (ties: the shorter), as sacreBLEU's brevity penalty
        ref_index = min(range(len(lens)), key=lambda i: (abs(lens[i] - len(hyp_tok)), lens[i])) \
            if lens else 0
    return Explanation(name, opts, tuple(hyp_tok), tuple(tuple(r) for r in ref_toks), alignment,
                       ngrams, score, stats, dists, ref_index, error)
