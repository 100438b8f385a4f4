"""TER: translation edit rate with shifts (Snover et al. 2006), result-identical to sacreBLEU's
``TER(case_sensitive=True)`` on the tokens of the run (13a by default).

Edits of the best reference over the *average* reference length (sacreBLEU,
tercom); statistics ``[edits, average reference length]`` add up. An empty
reference set length gives TER 1 (edits > 0) or 0, as in sacreBLEU.
``--ter-normalized``: the raw texts are tokenised with tercom's normalisation
(sacreBLEU ``TER(normalized=True)``, case per ``--case``) instead of
``--tokenization``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from evaltrans_qt.engine.alignment import Alignment, Block, BlockKind, EditOp, OpKind
from evaltrans_qt.engine.kernels.ter import T_DEL, T_INS, T_NOP, ter_align, ter_edits_batch
from evaltrans_qt.engine.measures import register
from evaltrans_qt.engine.measures._distance import DistanceMeasure, packed
from evaltrans_qt.engine.measures.base import MeasureScore, Segment
from evaltrans_qt.engine.preprocess import Vocabulary


@lru_cache(maxsize=4)
def _tercom_tokenizer(case_sensitive: bool):
    from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer
    return TercomTokenizer(normalized=True, case_sensitive=case_sensitive)


def ter_alignment(hyp: np.ndarray, ref: np.ndarray, hyp_words: Sequence[str],
                  ref_words: Sequence[str], ref_index: int = 0, measure: str = "ter") -> Alignment:
    """TER derivation as an :class:`Alignment`: the edit operations of the shifted candidate
    (positions in the *original* candidate) plus one SHIFT block per shift (cost 1 each).

    A block's ``hyp_span`` is the span of the moved words in the original
    candidate (min..max+1 of their original positions) and its ``ref_span``
    the span of the reference words they end up aligned to (empty at the
    insertion point if none).
    """
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

    @property
    def rule(self) -> str:
        return "average"

    # -- tercom normalisation ---------------------------------------------------
    def _normalize(self, seg: Segment) -> Segment:
        if not self.options.ter_normalized or len(seg.ref_texts) != len(seg.refs):
            return seg
        tok = _tercom_tokenizer(self.options.case == "use")
        enc = self._norm_vocab.encode
        refs = tuple(enc(tok(t.rstrip()).split()) for t in seg.ref_texts)
        return Segment(enc(tok(seg.hyp_text.rstrip()).split()), refs, seg.hyp_text, seg.ref_texts)

    def corpus_stats(self, segments: Sequence[Segment]) -> np.ndarray:
        return super().corpus_stats([self._normalize(s) for s in segments])

    def reference_distances(self, seg: Segment) -> list[float] | None:
        return super().reference_distances(self._normalize(seg))

    def pair_distances(self, hyps: Sequence[np.ndarray], refs: Sequence[np.ndarray],
                       pair_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hf, ho = packed(hyps)
        rf, ro = packed(refs)
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
