"""WMT21 en-de loaded once per test session for the BLEU/NIST/chrF tests (13a tokens, case kept)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize


@dataclass(frozen=True)
class WMT:
    values: dict            # reference_values.json
    vocab: Vocabulary
    ref_texts: list[list[str]]          # per reference file, per line
    refs: list[list[np.ndarray]]        # tokenised, per reference file
    hyp_texts: dict[str, list[str]]     # per system file
    hyps: dict[str, list[np.ndarray]]

    def segments(self, system: str, refs: tuple[int, ...] = (0, 1, 2)) -> list[Segment]:
        return [Segment(h, tuple(self.refs[r][i] for r in refs), self.hyp_texts[system][i],
                        tuple(self.ref_texts[r][i] for r in refs))
                for i, h in enumerate(self.hyps[system])]

    def fit_segments(self) -> list[Segment]:
        empty = np.zeros(0, dtype=np.int32)
        return [Segment(empty, tuple(r[i] for r in self.refs)) for i in range(len(self.refs[0]))]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@cache
def load(wmt_dir: Path) -> WMT:
    values = json.loads((wmt_dir / "reference_values.json").read_text(encoding="utf-8"))
    vocab = Vocabulary()
    seen: dict[str, np.ndarray] = {}

    def enc(text: str) -> np.ndarray:
        ids = seen.get(text)
        if ids is None:
            ids = seen[text] = vocab.encode(tokenize(text, "mteval"))
        return ids

    ref_texts = [_lines(wmt_dir / f) for f in values["refs"]]
    refs = [[enc(t) for t in r] for r in ref_texts]
    hyp_texts = {s: _lines(wmt_dir / s) for s in values["systems"]}
    hyps = {s: [enc(t) for t in lines] for s, lines in hyp_texts.items()}
    return WMT(values, vocab, ref_texts, refs, hyp_texts, hyps)
