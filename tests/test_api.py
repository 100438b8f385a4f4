"""docs/api.md: every ```python block runs, in order, in one namespace (issue 16).

Each example asserts its numbers against sacreBLEU, jiwer or scipy (the independent
tools), so a wrong API fails here; the blocks must also assert something.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks() -> list[str]:
    return BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_the_document_has_examples_and_each_asserts():
    found = blocks()
    assert len(found) >= 8
    for code in found:
        assert "assert" in code, code[:200]


def test_every_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)               # examples write files (save, write_sentences)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    namespace: dict = {"__name__": "api_md"}
    for i, code in enumerate(blocks(), 1):
        try:
            exec(compile(code, f"{DOC.name}[block {i}]", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 - name the block that failed
            pytest.fail(f"docs/api.md block {i} failed: {type(exc).__name__}: {exc}\n{code}")
    assert (tmp_path / "mine.etdb.xml").is_file() and (tmp_path / "sentences.tsv").is_file()
