"""The import rules of docs/architecture.md, enforced.

* ``engine/`` imports only ``engine`` and ``errors`` -- never ``io``, ``cli``, ``ui`` or the
  workspace, not even inside a function;
* ``io/`` imports ``engine``, ``io`` and ``errors``;
* the workspace (``evaltrans_qt/workspace.py``) imports ``engine``, ``io``, ``errors``, the
  selection model (``evaltrans_qt/selection.py``, which imports only ``errors``) and the
  analysis choice (``evaltrans_qt/analysis_choice.py``: ``engine``, ``errors``); the run
  controller (``evaltrans_qt/run_controller.py``) the workspace, ``engine``, ``io``, ``errors``;
* ``cli/`` imports everything but ``ui``; the Python API (``api.py``) ``engine``, ``io``,
  ``errors``; ``__main__`` only ``cli``;
* nothing outside ``ui/`` imports Qt (PySide6, shiboken6, pyqtgraph) -- checked on the
  source (every import statement) and at run time (every module imports with Qt blocked).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "evaltrans_qt"
QT = ("PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6", "qtpy")

#: Layer of a module (first part below ``evaltrans_qt``) -> layers it may import.
ALLOWED = {
    "errors": set(),
    "version": set(),
    "engine": {"engine", "errors", "version"},
    "io": {"engine", "io", "errors", "version"},
    "workspace": {"engine", "io", "errors", "workspace", "selection", "history",
                  "analysis_choice"},
    # what runs are analysed against (the workspace holds one: no import back)
    "analysis_choice": {"engine", "errors"},
    # the Qt-free run controller over the workspace (ui/ runs its jobs on a worker)
    "run_controller": {"engine", "io", "errors", "workspace"},
    # the undo history (the workspace holds one and is its only way to commit: no import back)
    "history": {"engine", "io", "errors"},
    # the Qt-free scoring and ranking sessions over the workspace (ui/ shows them)
    "scoring_session": {"engine", "io", "errors", "workspace", "history"},
    "ranking_session": {"engine", "io", "errors", "workspace", "history"},
    "span_session": {"engine", "io", "errors", "workspace", "history"},
    "adjudication_session": {"engine", "io", "errors", "workspace", "history"},
    # annotator mode (a campaign bundle open) as a Qt-free model over the workspace
    "campaign_mode": {"engine", "io", "errors", "workspace"},
    "selection": {"errors"},                            # the Qt-free selection model
    "cli": {"engine", "io", "errors", "workspace", "cli", "version"},
    "api": {"engine", "io", "errors", "api"},          # the public Python API (docs/api.md)
    "__main__": {"cli"},                                # python -m evaltrans_qt
}


def _layer(module: str) -> str | None:
    """``evaltrans_qt.engine.x`` -> ``engine``; the package itself -> None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "evaltrans_qt" else None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from … import`` names, a relative one resolved against ``package``."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every module an ``import`` statement of ``path`` names (at any depth), with its line;
    relative imports resolved against the file's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = _module_name(path) if path.name == "__init__.py" else \
        _module_name(path).rpartition(".")[0]
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            out.append((node.lineno, mod))
            # "from evaltrans_qt import io" names a layer, too ("import __version__" none)
            if mod == "evaltrans_qt":
                out.extend((node.lineno, f"evaltrans_qt.{a.name}") for a in node.names
                           if (PKG / a.name).is_dir() or (PKG / f"{a.name}.py").is_file())
    return sorted(out)


def _sources() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def violations() -> list[str]:
    """``file:line imports module (layer may not import it)`` for every broken rule."""
    bad = []
    for path in _sources():
        layer = _layer(_module_name(path))
        if layer is None or layer == "ui":
            continue
        for line, mod in imports_of(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            if mod.split(".")[0] in QT:
                bad.append(f"{where} imports {mod} (Qt outside ui/)")
            target = _layer(mod)
            if target is not None and target not in ALLOWED.get(layer, set()):
                bad.append(f"{where} imports {mod} ({layer} may not import {target})")
    return bad


def test_import_rules_hold():
    assert violations() == []


def test_no_qt_undo_stack():
    """Undo and redo are the Qt-free history's (evaltrans_qt/history.py: undoing a judgement
    commits its inverse through Workspace.commit): no QUndoStack or QUndoCommand anywhere."""
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in _sources()
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if "QUndo" in line]
    assert hits == []


def test_every_layer_has_a_rule():
    """A new top-level module or package must be given its place in ALLOWED (and in
    docs/architecture.md) -- otherwise it would be checked against nothing."""
    layers = {_layer(_module_name(p)) for p in _sources()} - {None, "ui"}
    assert layers <= set(ALLOWED), layers - set(ALLOWED)


def test_the_checker_sees_function_level_and_relative_imports(tmp_path, monkeypatch):
    """The rules are not vacuous: a lazy import inside a function and a relative import
    are both found."""
    fake = tmp_path / "evaltrans_qt" / "engine"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    mod = fake / "lazy.py"
    mod.write_text("def f():\n    from evaltrans_qt.io.etdb import load_database\n"
                   "from ..ui import plots\nimport PySide6.QtCore\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PKG", tmp_path / "evaltrans_qt")
    assert [m for _, m in imports_of(mod)] == ["evaltrans_qt.io.etdb", "evaltrans_qt.ui",
                                                "PySide6.QtCore"]
    found = violations()
    assert any("lazy.py:2" in v and "engine may not import io" in v for v in found)
    assert any("lazy.py:3" in v and "engine may not import ui" in v for v in found)
    assert any("lazy.py:4" in v and "Qt outside ui/" in v for v in found)


_BLOCK_QT = """
import importlib, importlib.abc, pkgutil, sys
QT = {qt!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in QT:
            raise ImportError("Qt is blocked: " + name)
sys.meta_path.insert(0, Block())
import evaltrans_qt
names = ["evaltrans_qt.errors", "evaltrans_qt.workspace", "evaltrans_qt.api",
         "evaltrans_qt.history", "evaltrans_qt.scoring_session", "evaltrans_qt.span_session",
         "evaltrans_qt.adjudication_session"]
for sub in ("engine", "io", "cli"):
    pkg = importlib.import_module("evaltrans_qt." + sub)
    names += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
for n in names:
    importlib.import_module(n)
loaded = sorted(m for m in sys.modules if m.split(".")[0] in QT)
assert not loaded, loaded
print(len(names))
"""


def test_engine_io_cli_import_without_qt():
    """A headless interpreter with Qt blocked imports every module outside ui/."""
    res = subprocess.run([sys.executable, "-c", _BLOCK_QT.format(qt=QT)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert int(res.stdout.split()[-1]) > 50


# --------------------------------------------------------------------------- import graph
def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (ROOT / rel.with_suffix(".py")).is_file() or (ROOT / rel / "__init__.py").is_file()


def _type_checking_lines(tree: ast.AST) -> set[int]:
    """Lines of ``if TYPE_CHECKING:`` blocks (imports there never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                out.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return out


def edges_of(path: Path) -> list[tuple[int, str, list[str]]]:
    """``(line, module, names)`` for every import of ours in ``path`` at any depth (inside
    functions too, not under ``if TYPE_CHECKING``): ``from a.b import c`` names the module
    ``a.b.c`` when that is a module, else ``a.b`` with the imported names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = _type_checking_lines(tree)
    mod_name = _module_name(path)
    package = mod_name if path.name == "__init__.py" else mod_name.rpartition(".")[0]
    out: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name, []) for a in node.names
                       if a.name.split(".")[0] == "evaltrans_qt")
        elif isinstance(node, ast.ImportFrom):
            mod = _from_module(node, package)
            if mod.split(".")[0] != "evaltrans_qt":
                continue
            plain = []
            for a in node.names:
                if _is_module(f"{mod}.{a.name}"):
                    out.append((node.lineno, f"{mod}.{a.name}", []))
                else:
                    plain.append(a.name)
            if plain:
                out.append((node.lineno, mod, plain))
    return out


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in _sources():
        src = _module_name(path)
        graph.setdefault(src, set()).update(m for _, m, _ in edges_of(path) if m != src)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_not_even_inside_functions():
    assert import_cycles(import_graph()) == []


def private_imports() -> list[str]:
    """``file:line`` for every ``from x import _name`` of another module of ours, and for
    every import of a private module (``measures/_distance.py``) from outside its package."""
    bad = []
    for path in _sources():
        me = _module_name(path)
        my_package = me if path.name == "__init__.py" else me.rpartition(".")[0]
        for line, mod, names in edges_of(path):
            package, _, last = mod.rpartition(".")
            if (last.startswith("_") and not last.startswith("__")
                    and not (my_package + ".").startswith(package + ".")):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports private module {mod}")
            bad.extend(f"{path.relative_to(ROOT)}:{line} imports {mod}.{n}" for n in names
                       if n.startswith("_") and not n.startswith("__") and mod != me)
    return bad


def test_no_private_names_imported_across_modules():
    assert private_imports() == []


def test_the_cycle_and_privacy_checks_are_not_vacuous():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_every_package_is_installed():
    """pyproject's explicit package list names every package of the source tree."""
    import tomllib
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {_module_name(p) for p in _sources() if p.name == "__init__.py"}
    assert found <= listed, found - listed


#: engine subpackage -> the engine subpackages it may import (docs/architecture.md's tree;
#: the upward arrows data -> human/measures, measures -> human/run, human -> run/metaeval
#: are the four named there).
ENGINE_ALLOWED = {
    "options": set(),
    "kernels": {"options"},
    "text": {"kernels", "options"},
    "data": {"text", "kernels", "options", "human", "measures"},
    "measures": {"kernels", "text", "options", "data", "human", "run"},
    "human": {"data", "text", "kernels", "options", "run", "metaeval", ""},
    "run": {"data", "text", "kernels", "measures", "human", "options"},
    "metaeval": {"data", "text", "kernels", "measures", "human", "run", "options"},
    "warmup": {"data", "text", "kernels", "measures", "human", "run", "metaeval", "options"},
    # inspecting outputs (compare-mt-style analysis, error classes): reads data, runs measures
    "analysis": {"data", "text", "kernels", "measures", "human", "run", "metaeval", "options"},
    # several annotators: assignment, QC, agreement, budget (reads judgements, correlates)
    "campaign": {"data", "text", "kernels", "measures", "human", "run", "metaeval", "options"},
    "": set(),
}


def _engine_part(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["evaltrans_qt", "engine"]:
        return None
    return parts[2] if len(parts) > 2 else ""


def engine_violations() -> list[str]:
    bad = []
    for path in _sources():
        me = _engine_part(_module_name(path))
        if me is None:
            continue
        for line, mod, _ in edges_of(path):
            other = _engine_part(mod)
            if other is None or other == me:
                continue
            if other not in ENGINE_ALLOWED.get(me, set()):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod} "
                           f"(engine/{me} may not import engine/{other})")
    return bad


def test_engine_subpackages_import_only_what_the_architecture_says():
    parts = {_engine_part(_module_name(p)) for p in _sources()} - {None}
    assert parts <= set(ENGINE_ALLOWED), parts - set(ENGINE_ALLOWED)
    assert engine_violations() == []
