"""Shared WMT21 en-de oracle data for the engine tests: reference values and
13a-tokenised files (as ``reference_values.json`` was computed), each file once."""

from __future__ import annotations

import json

import pytest

from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize


@pytest.fixture(scope="session")
def wmt13a(wmt_dir):
    """(reference values per system, vocabulary, load(file name) -> list of token-id arrays)."""
    vals = json.loads((wmt_dir / "reference_values.json").read_text(encoding="utf-8"))["systems"]
    vocab = Vocabulary()
    cache: dict[str, list] = {}

    def load(name: str) -> list:
        if name not in cache:
            lines = (wmt_dir / name).read_text(encoding="utf-8").split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            cache[name] = [vocab.encode(tokenize(line, "mteval")) for line in lines]
        return cache[name]

    return vals, vocab, load
