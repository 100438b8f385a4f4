"""A headless install (no Qt): engine, io, the command line and the Python API work with
the GUI extra absent, and ``evaltrans-qt`` says how to get it.

Qt is made unimportable in a fresh interpreter (``sys.modules[name] = None`` for
PySide6, shiboken6 and pyqtgraph: ``import`` then fails as for a package that is
not installed); the numbers are checked against sacreBLEU there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GUI = ("PySide6", "shiboken6", "pyqtgraph")

_HEADLESS = r"""
import sys
for name in {gui!r}:
    sys.modules[name] = None                 # not installed, as far as import knows
try:
    import PySide6  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("the Qt block does not work")

import evaltrans_qt as et
heavy = [m for m in ("numpy", "pandas", "numba", "scipy", "lxml") if m in sys.modules]
assert not heavy, f"import evaltrans_qt loaded {{heavy}}"

import sacrebleu
hyps = ["The cat is on the mat .", "Hello there world", "We meet at noon ."]
refs = [["The cat sat on the mat ."], ["Hello world"], ["We will meet at noon ."]]
streams = [[r[0] for r in refs]]
scores = et.score(["bleu", "chrf", "ter"], hyps, refs)
assert abs(scores["bleu"].score - sacrebleu.corpus_bleu(hyps, streams).score) < 1e-9
assert abs(scores["chrf"].score - sacrebleu.corpus_chrf(hyps, streams).score) < 1e-9
assert abs(scores["ter"].score - sacrebleu.corpus_ter(hyps, streams).score) < 1e-9

db = et.Database.from_lists(["a", "b", "c"], refs,
                            systems={{"A": hyps, "B": ["A cat is on the mat .", "Hello world",
                                                      "We meet at twelve ."]}},
                            human={{"ade": {{"A": [4, 2, 5], "B": [3, 5, 2]}}}})
run = et.evaluate(db, ["bleu", "wer", "cder"], preset="sacrebleu", jobs=1)
a = run.systems.set_index("system").loc["A", "BLEU"]
assert abs(100 * a - scores["bleu"].score) < 1e-9
corr = et.correlate(run, "ade", samples=50)
assert list(corr["measure"]) == ["bleu", "wer", "cder"] and (corr["n"] == 6).all()
p = et.significance(run, "bleu", samples=50)
assert p.shape == (2, 2)

from evaltrans_qt.cli.main import main
rc = main(["score", {ref!r}, "-i", {hyp!r}, "-m", "bleu", "-b"])
assert rc == 0
rc = main(["batch", "--source", {ref!r}, "--reference", {ref!r}, "--target", {hyp!r},
           "--measures", "bleu,wer", "--sentences", {tsv!r}])
assert rc == 0

rc = et._gui_main()
assert rc == 1, rc
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {gui!r} and sys.modules[m])
assert not loaded, loaded
print("HEADLESS OK")
"""


def test_engine_cli_and_api_work_without_qt(tmp_path):
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_text("The cat sat on the mat .\nHello world\n", encoding="utf-8")
    hyp.write_text("The cat is on the mat .\nHello there world\n", encoding="utf-8")
    tsv = tmp_path / "s.tsv"
    code = _HEADLESS.format(gui=GUI, ref=str(ref), hyp=str(hyp), tsv=str(tsv))
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "HEADLESS OK" in res.stdout
    # evaltrans score -b printed sacreBLEU's number; batch wrote its per-sentence file
    import sacrebleu
    want = sacrebleu.corpus_bleu(hyp.read_text().splitlines(), [ref.read_text().splitlines()])
    assert f"\n{want.score:.1f}\n" in "\n" + res.stdout
    assert tsv.read_text(encoding="utf-8").startswith("# signature bleu: ")
    # evaltrans-qt without the extra: how to get it, no traceback
    assert "pip install 'evaltrans_qt[gui]'" in res.stderr
    assert "Traceback" not in res.stderr


def test_gui_entry_point_without_the_extra(tmp_path):
    """The installed ``evaltrans-qt`` script, with a PySide6 that cannot be imported first on
    the path: exit 1 and the install command, no traceback."""
    fake = tmp_path / "PySide6"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'PySide6\'", name="PySide6")\n')
    script = Path(sys.executable).with_name("evaltrans-qt")
    cmd = [str(script)] if script.is_file() else [
        sys.executable, "-c", "import sys, evaltrans_qt; sys.exit(evaltrans_qt._gui_main())"]
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 1
    assert "pip install 'evaltrans_qt[gui]'" in res.stderr
    assert "Traceback" not in res.stderr


def test_the_gui_stack_is_an_extra():
    """pyproject: the GUI packages only in the [gui] extra, which the test extra pulls."""
    import tomllib
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = " ".join(meta["dependencies"]).lower()
    assert "pyside6" not in core and "pyqtgraph" not in core
    extras = meta["optional-dependencies"]
    assert any(d.lower().startswith("pyside6-essentials") for d in extras["gui"])
    assert any(d.lower().startswith("pyqtgraph") for d in extras["gui"])
    assert "evaltrans_qt[gui]" in extras["test"]
    assert meta["scripts"]["evaltrans-qt"] == "evaltrans_qt:_gui_main"


def test_every_package_is_installed():
    """A non-editable ``pip install`` ships only the listed packages: each package directory
    of evaltrans_qt must be in pyproject's ``packages`` (a new one needs its line)."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    pkg = ROOT / "evaltrans_qt"
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in pkg.rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found <= listed, sorted(found - listed)
