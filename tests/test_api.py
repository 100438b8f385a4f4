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


def test_readme_from_python_runs(tmp_path, monkeypatch, capsys):
    """README's "From Python" example runs and prints sacreBLEU's BLEU and the table."""
    import sacrebleu
    text = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    section = text.split("## From Python", 1)[1].split("\n## ", 1)[0]
    (code,) = BLOCK.findall(section)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    exec(compile(code, "README.md[From Python]", "exec"), namespace)
    out = capsys.readouterr().out
    hyps, refs = namespace["hyps"], namespace["refs"]
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(2)]
    want = sacrebleu.BLEU().corpus_score(hyps, streams).score
    assert out.startswith(f"{want} ") or abs(float(out.split()[0]) - want) < 1e-9
    assert "BLEU" in out and "chrF" in out and "WER" in out
