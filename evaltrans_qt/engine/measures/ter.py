"""TER: translation edit rate with shifts (Snover et al. 2006), result-identical to sacreBLEU's
``TER(normalized, no_punct, asian_support, case_sensitive)`` (``sacrebleu/metrics/ter.py``).

Edits of the best reference over the *average* reference length (sacreBLEU,
tercom); statistics ``[edits, average reference length]`` add up.

Input (``EvalOptions.ter_*``):

* ``ter_tokenization run`` (default): the run's tokens (``--tokenization``), so with the
  default options TER equals sacreBLEU's ``TER(case_sensitive=True)`` on 13a-tokenised
  text. ``ter_case`` other than the run's case re-tokenises the raw texts with the run's
  tokenisation and that case (lower-casing is per token, as ``preprocess.tokenize``).
* ``ter_tokenization tercom``: sacreBLEU's ``TercomTokenizer`` on the raw texts (right
  stripped, as sacreBLEU's ``TER._preprocess_segment``), sacreBLEU's TER default;
  ``ter_normalized``, ``ter_no_punct`` and ``ter_asian_support`` imply it.
* ``ter_case``: run (the run's ``--case``), use, ignore (sacreBLEU's default is ignore).

Degenerate input, as sacreBLEU: an empty reference costs ``len(hyp)`` edits
(``lib_ter.translation_edit_rate``); a zero total reference length gives TER 1 when
there are edits and 0 otherwise (``TER._compute_score_from_stats``). A segment without
any reference (sacreBLEU divides by zero there) has statistics ``[0, 0]`` and does not
count. No value is ever NaN or inf.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from evaltrans_qt.engine.kernels.ter import T_DEL, T_INS, T_NOP, ter_align, ter_edits_batch
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import DistanceMeasure, packed
from evaltrans_qt.engine.measures.alignment import Alignment, Block, BlockKind, EditOp, OpKind
from evaltrans_qt.engine.measures.base import MeasureScore, Segment
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.errors import ScoreError

_CACHE_LIMIT = 200_000


@lru_cache(maxsize=16)
def tercom_tokenizer(normalized: bool, no_punct: bool, asian_support: bool, case_sensitive: bool):
    """sacreBLEU's ``TercomTokenizer`` with these options (shared, it caches sentences)."""
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer
    return TercomTokenizer(normalized=normalized, no_punct=no_punct,
                           asian_support=asian_support, case_sensitive=case_sensitive)


def ter_input(options) -> tuple[bool, str]:
    """``(tercom, case)``: whether TER tokenises the raw text with sacreBLEU's tercom
    tokenizer, and its effective case (``use``/``ignore``)."""
    o = options
    tercom = (o.ter_tokenization == "tercom" or o.ter_normalized or o.ter_no_punct
              or o.ter_asian_support)
    return tercom, (o.case if o.ter_case == "run" else o.ter_case)


def ter_alignment(hyp: np.ndarray, ref: np.ndarray, hyp_words: Sequence[str],
                  ref_words: Sequence[str], ref_index: int = 0, measure: str = "ter") -> Alignment:
    """TER derivation as an :class:`Alignment`: the edit operations of the shifted candidate
    (positions in the *original* candidate) plus one SHIFT block per shift (cost 1 each).

    A block's ``hyp_span`` is the span of the moved words in the original
    candidate (min..max+1 of their original positions) and its ``ref_span``
    the span of the reference words they end up aligned to (empty at the
    insertion point if none).
    """
    check_ter_table(len(hyp), len(ref))
    edits, shifts, _final, perm, trace = ter_align(np.asarray(hyp, np.int32),
                                                   np.asarray(ref, np.int32))
    ops: list[EditOp] = []
    hyp_to_ref: dict[int, int] = {}
    ph = pr = -1
    for k in trace:
        if k == T_INS:
            ph += 1
            ops.append(EditOp(OpKind.INS, int(perm[ph]), None, 1.0))
        elif k == T_DEL:
            pr += 1
            ops.append(EditOp(OpKind.DEL, None, pr, 1.0))
        else:
            ph += 1
            pr += 1
            hyp_to_ref[int(perm[ph])] = pr
            kind = OpKind.MATCH if k == T_NOP else OpKind.SUB
            ops.append(EditOp(kind, int(perm[ph]), pr, 0.0 if k == T_NOP else 1.0))
    # replay the shifts on the original positions to know which words each one moved
    pos = list(range(len(hyp)))
    blocks: list[Block] = []
    for n, (start, length, target) in enumerate(shifts.tolist(), 1):
        moved = pos[start:start + length]
        if target < start:
            pos = pos[:target] + moved + pos[target:start] + pos[start + length:]
        elif target > start + length:
            pos = pos[:start] + pos[start + length:target] + moved + pos[target:]
        else:
            pos = pos[:start] + pos[start + length:length + target] + moved + pos[length + target:]
        refs = [hyp_to_ref[p] for p in moved if p in hyp_to_ref]
        rspan = (min(refs), max(refs) + 1) if refs else (0, 0)
        blocks.append(Block(n, BlockKind.SHIFT, (min(moved), max(moved) + 1), rspan, 1.0))
    return Alignment(measure, tuple(hyp_words), tuple(ref_words), float(edits), tuple(ops),
                     tuple(blocks), ref_index, {"shifts": len(blocks)})


#: Bytes per cell of the TER kernel's tables (two int64 distance tables, int8 moves).
TER_CELL_BYTES = 17


def check_ter_table(n_hyp: int, n_ref: int) -> None:
    """Refuse TER tables above the memory budget (``kernels/budget.py``) before allocating."""
    from evaltrans_qt.engine.kernels.budget import check_table
    check_table("TER", (n_hyp + 1) * (n_ref + 1), TER_CELL_BYTES,
                f"a {n_hyp} x {n_ref}-word sentence pair")


@register
class TER(DistanceMeasure):
    """Translation edit rate: (shifts + edit distance) to the best reference / average length."""

    name = "ter"
    long_name = "Translation edit rate (TER, tercom/sacreBLEU compatible)"
    report_element = "ter"
    source = "Snover et al. 2006; sacreBLEU metrics/ter.py (compatibility target)"
    column = "TER"

    def __init__(self, options=None) -> None:
        super().__init__(options)
        self._norm_vocab = Vocabulary()
        self._cache: dict[tuple[str, bool], np.ndarray] = {}
        self.tercom, self.case = ter_input(self.options)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_cache"] = {}              # not shipped to worker processes
        return state

    @property
    def rule(self) -> str:
        return "average"

    # -- TER's own preprocessing -------------------------------------------------
    @property
    def own_tokens(self) -> bool:
        """Whether TER tokenises the raw texts itself instead of using the run's tokens."""
        return self.tercom or self.case != self.options.case

    def tokens(self, text: str, reference: bool = False) -> list[str]:
        """TER's words of one raw sentence (only when :attr:`own_tokens`).

        With tercom tokenisation a *reference* passes the tokenizer twice, as in sacreBLEU
        (``Metric._cache_references`` preprocesses the lines, then ``TER._extract_reference_info``
        preprocesses them again); only ``normalized`` is not idempotent (e.g. "'s" before a
        tab is split off in the second pass only).
        """
        o = self.options
        if self.tercom:
            tok = tercom_tokenizer(o.ter_normalized, o.ter_no_punct, o.ter_asian_support,
                                   self.case == "use")
            text = tok(text.rstrip())
            if reference:
                text = tok(text.rstrip())
            return text.split()
        from evaltrans_qt.engine.text.preprocess import tokenize
        return tokenize(text, o.tokenization, self.case)

    def _encode(self, text: str, reference: bool) -> np.ndarray:
        key = (text, reference)
        ids = self._cache.get(key)
        if ids is None:
            if len(self._cache) > _CACHE_LIMIT:
                self._cache.clear()
            ids = self._cache[key] = self._norm_vocab.encode(self.tokens(text, reference))
        return ids

    def _normalize(self, seg: Segment) -> Segment:
        if not self.own_tokens:
            return seg
        if len(seg.ref_texts) != len(seg.refs):
            raise ScoreError("TER with its own tokenisation or case (--ter-tokenization, "
                             "--ter-case) needs the raw reference texts of every segment")
        return Segment(self._encode(seg.hyp_text, False),
                       tuple(self._encode(t, True) for t in seg.ref_texts),
                       seg.hyp_text, seg.ref_texts)

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        return super().corpus_stats([self._normalize(s) for s in segments])

    def reference_distances(self, seg: Segment) -> list[float] | None:
        return super().reference_distances(self._normalize(seg))

    def pair_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                       pair_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hf, ho = packed(hyps)
        rf, ro = packed(refs)
        if len(pair_hyp):
            check_ter_table(int(np.diff(ho)[np.asarray(pair_hyp, np.int64)].max()),
                            int(np.diff(ro).max()))
        d = ter_edits_batch(hf, ho, rf, ro, np.asarray(pair_hyp, np.int64)).astype(np.float64)
        return d, np.diff(ro).astype(np.float64)

    def score_values(self, stats: np.ndarray) -> np.ndarray:
        """TER of many rows (edits / average reference length; 1 for edits without one)."""
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        e, n = st[:, 0], st[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n > 0, e / np.where(n > 0, n, 1.0), np.where(e > 0, 1.0, 0.0))

    def score(self, stats: np.ndarray) -> MeasureScore:
        edits, rlen = float(stats[0]), float(stats[1])
        rate = edits / rlen if rlen > 0 else (1.0 if edits > 0 else 0.0)
        det = {"error-rate": rate, "error-rate-percent": 100.0 * rate,
               "reference-length": rlen, "sum": edits}
        return MeasureScore(self.name, rate, {self.column: rate}, det)

    def align(self, seg: Segment) -> Alignment | None:
        norm = self._normalize(seg)
        r = self.best_reference(norm)
        if r < 0:
            return None
        words = (lambda ids: tuple(self._norm_vocab.decode(ids))) if norm is not seg else self.words
        return ter_alignment(norm.hyp, norm.refs[r], words(norm.hyp), words(norm.refs[r]), r)
