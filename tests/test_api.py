"""docs/api.md: every ```python block runs, in order, in one namespace.

Each example asserts its numbers against sacreBLEU, jiwer or scipy (the independent
tools), so a wrong API fails here; the blocks must also assert something, and together
they show the object API (``measure(...).corpus_score`` / ``.sentence_score``).
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
    text = "\n".join(found)
    for call in ("et.measure(", ".corpus_score(", ".sentence_score(", "et.score("):
        assert call in text, call


def test_every_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)               # examples write files (save, write_sentences)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    namespace: dict = {"__name__": "api_md"}
    for i, code in enumerate(blocks(), 1):
        try:
            exec(compile(code, f"{DOC.name}[block {i}]", "exec"), namespace)
        except Exception as exc:
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


def test_bad_input_names_the_problem():
    import evaltrans_qt as et
    from evaltrans_qt.errors import InputFormatError, OptionError, ScoreError
    with pytest.raises(InputFormatError, match="2 sources but 1 reference segments"):
        et.Database.from_lists(["a", "b"], [["x"]], systems={"A": ["x", "y"]})
    with pytest.raises(InputFormatError, match="system 'A' has 1 hypotheses for 2 sources"):
        et.Database.from_lists(["a", "b"], ["x", "y"], systems={"A": ["x"]})
    with pytest.raises(ScoreError, match="unknown system 'B'"):
        et.Database.from_lists(["a"], ["x"], systems={"A": ["x"]}, human={"f": {"B": [1]}})
    with pytest.raises(ScoreError, match="outside"):
        et.Database.from_lists(["a"], ["x"], systems={"A": ["x"]}, human={"f": {"A": [7]}},
                               scales={"f": (1, 5)})
    with pytest.raises(OptionError, match="reference names"):
        et.Database.from_lists(["a"], ["x"], systems={"ref-1": ["x"]})
    with pytest.raises(OptionError, match="expected a Database"):
        et.evaluate(["not", "a", "database"])
    with pytest.raises(OptionError, match="unknown measure 'blue'"):
        et.score("blue", ["a"], ["a"])
    with pytest.raises(OptionError, match="one string"):
        et.score("bleu", "a b", ["a b"])
    with pytest.raises(OptionError, match="--case: 'lower' is not one of use, ignore"):
        et.score("bleu", ["a"], ["a"], case="lower")
    with pytest.raises(OptionError, match="either options= or preset="):
        et.score("bleu", ["a"], ["a"], options=et.EvalOptions(), preset="sacrebleu")


def test_public_names_are_lazy_and_listed():
    import evaltrans_qt as et
    assert set(et.__all__) >= {"measure", "Metric", "score", "Score", "Database", "evaluate",
                               "Run", "correlate", "significance", "EvalOptions", "PRESETS",
                               "__version__"}
    assert set(et.__all__) - {"__version__"} <= set(dir(et))
    with pytest.raises(AttributeError):
        et.no_such_name  # noqa: B018
    from evaltrans_qt.engine.data.database import Database as EngineDatabase
    assert issubclass(et.Database, EngineDatabase)
