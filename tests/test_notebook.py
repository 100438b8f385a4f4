"""docs/notebook.py runs: with matplotlib absent it prints the correlation table;
with a matplotlib present (real, non-interactive backend, or a recording stand-in when it
is not installed) it draws the scatter plot and the bars and saves the figure."""

from __future__ import annotations

import runpy
import sys
import types
from pathlib import Path

import pytest
import scipy.stats

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebook.py"


def _run(monkeypatch, tmp_path) -> dict:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return runpy.run_path(str(NOTEBOOK), run_name="__main__")


def _check_results(ns: dict) -> None:
    run, corr = ns["run"], ns["corr"]
    assert list(corr["measure"]) == ["bleu", "chrf", "ter", "wer", "cder"]
    scored = run.sentences.dropna(subset=["human:fluency"])
    want = scipy.stats.pearsonr(scored["chrF"], scored["human:fluency"]).statistic
    assert corr.set_index("measure").loc["chrf", "pearson"] == pytest.approx(want, abs=1e-12)
    p = ns["p"]
    assert list(p.index) == ns["db"].systems() and (p.values.diagonal() == 1).all()


def test_notebook_without_matplotlib(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    ns = _run(monkeypatch, tmp_path)
    assert ns["plt"] is None
    out = capsys.readouterr().out
    assert "pearson" in out and "spearman" in out and "chrf" in out
    _check_results(ns)


class _Recorder:
    """A stand-in for ``matplotlib.pyplot`` that records what the notebook draws."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple]] = []

    def __getattr__(self, name):
        def call(*args, **kwargs):
            self.calls.append((name, args))
            if name == "subplots":
                return self, (self, self)
            return self
        return call


def test_notebook_with_matplotlib(monkeypatch, tmp_path):
    figure = tmp_path / "fig.png"
    monkeypatch.setenv("EVALTRANS_NOTEBOOK_FIGURE", str(figure))
    try:
        import matplotlib
        matplotlib.use("Agg")
        recorder = None
    except ImportError:                       # not installed here: record the calls
        recorder = _Recorder()
        pkg = types.ModuleType("matplotlib")
        pkg.pyplot = recorder                 # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "matplotlib", pkg)
        monkeypatch.setitem(sys.modules, "matplotlib.pyplot", recorder)
    ns = _run(monkeypatch, tmp_path)
    _check_results(ns)
    if recorder is None:
        assert figure.is_file() and figure.stat().st_size > 0
    else:
        names = [n for n, _ in recorder.calls]
        assert names.count("scatter") == len(ns["db"].systems())
        assert "bar" in names and ("savefig", (str(figure),)) in recorder.calls
        assert "show" not in names
