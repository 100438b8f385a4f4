"""Views never write the workspace's state except through its methods.

The workspace (``evaltrans_qt/workspace.py``) is the one model of the application: every
change goes through one of its methods, which keeps its invariants (the dirty count, the
identity of the file on disk, the lock, the journal) and emits its signals. A ``ui`` module
that assigned an attribute (``window.workspace.changes = n``, ``ws.autosave = on``,
``ws.measures[0] = …``), deleted one, used ``setattr`` on it or emitted one of its signals
(``self.workspace.dirty_changed.emit(…)``) would bypass them. Checked on the source (ast):
an expression is the workspace when it is an attribute named ``workspace`` (``self.workspace``,
``window.workspace``), a name bound to one (``ws = self.workspace``), a parameter named
``workspace``/``ws``, or ``Workspace(…)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UI = ROOT / "evaltrans_qt" / "ui"
WORKSPACE_PARAMS = {"workspace", "ws"}


def _is_workspace_expr(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` evaluates to the workspace itself."""
    if isinstance(node, ast.Attribute) and node.attr == "workspace":
        return True
    if isinstance(node, ast.Name) and node.id in names:
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "Workspace"


def _reaches_workspace(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` (an attribute or item being written) belongs to the workspace:
    its object, or an object reached from it, is the workspace."""
    cur = node.value if isinstance(node, (ast.Attribute, ast.Subscript)) else None
    while cur is not None:
        if _is_workspace_expr(cur, names):
            return True
        cur = cur.value if isinstance(cur, (ast.Attribute, ast.Subscript)) else None
    return False


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        out: list[ast.AST] = []
        for t in node.targets:
            out.extend(_flatten(t))
        return out
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return _flatten(node.target)
    if isinstance(node, ast.Delete):
        out = []
        for t in node.targets:
            out.extend(_flatten(t))
        return out
    return []


def _flatten(t: ast.AST) -> list[ast.AST]:
    if isinstance(t, (ast.Tuple, ast.List)):
        return [x for e in t.elts for x in _flatten(e)]
    if isinstance(t, ast.Starred):
        return _flatten(t.value)
    return [t]


def _workspace_names(tree: ast.AST) -> set[str]:
    """Names that hold the workspace somewhere in the module (``ws = self.workspace``,
    parameters named workspace/ws)."""
    names = set(WORKSPACE_PARAMS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_workspace_expr(node.value, names):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.NamedExpr) and _is_workspace_expr(node.value, names):
            names.add(node.target.id)
    return names


def workspace_writes(source: str, filename: str = "<ui>") -> list[str]:
    """Every direct write of the workspace's state in ``source``: ``file:line: code``."""
    tree = ast.parse(source, filename)
    names = _workspace_names(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        for t in _targets(node):
            if isinstance(t, (ast.Attribute, ast.Subscript)) and _reaches_workspace(t, names):
                found.append((t.lineno, ast.unparse(t)))
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in ("setattr", "delattr") and node.args \
                    and (_is_workspace_expr(node.args[0], names)
                         or _reaches_workspace(ast.Attribute(node.args[0], "x"), names)):
                found.append((node.lineno, ast.unparse(node)))
            elif isinstance(f, ast.Attribute) and f.attr == "emit" \
                    and isinstance(f.value, ast.Attribute) and _reaches_workspace(f.value, names):
                found.append((node.lineno, ast.unparse(node)))
    return [f"{filename}:{line}: {code}" for line, code in sorted(found)]


def test_no_ui_module_writes_workspace_state_directly():
    bad: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        bad += workspace_writes(path.read_text(encoding="utf-8"),
                                str(path.relative_to(ROOT)))
    assert not bad, "write the workspace through its methods:\n" + "\n".join(bad)


def test_the_check_sees_each_kind_of_write():
    src = '''
class View:
    def __init__(self, window, workspace):
        self.workspace = workspace              # the view's own attribute: fine
        self.window = window
        self.workspace_label = None
        self.workspace_label.text = "x"         # not the workspace: fine

    def bad(self):
        self.workspace.autosave = False
        self.window.workspace.changes += 1
        ws = self.window.workspace
        ws.measures[0] = "bleu"
        ws.options, other = None, 1
        setattr(self.workspace, "path", None)
        del ws.run
        self.workspace.dirty_changed.emit(True)
        self.workspace.options.beam = 3

    def good(self):
        self.workspace.mark_changed()
        self.workspace.set_autosave(False)
        x = self.workspace.changes
        self.workspace.dirty_changed.connect(print)

def helper(workspace):
    workspace.path = None
'''
    found = [f.split(": ", 1)[1] for f in workspace_writes(src, "view.py")]
    assert found == ["self.workspace.autosave", "self.window.workspace.changes",
                     "ws.measures[0]", "ws.options", "setattr(self.workspace, 'path', None)",
                     "ws.run", "self.workspace.dirty_changed.emit(True)",
                     "self.workspace.options.beam", "workspace.path"], found


# ---------------------------------------------------------------- the window's composition
#: Names that hold the main window in a ``ui`` module (``window``, ``self.window``, ``mw``,
#: ``self.window_``, ``win``, ``w`` bound to a window).
WINDOW_NAMES = {"window", "mw", "win", "main_window"}
MAIN_WINDOW = UI / "main_window.py"
CONTROLLERS = UI / "controllers"
MAX_WINDOW_LINES = 400
MAX_CONTROLLER_LINES = 500


def _is_window_expr(node: ast.AST) -> bool:
    """``window``/``mw``/``win`` or ``self.window``/``self.window_``/``self.main``."""
    if isinstance(node, ast.Name):
        return node.id in WINDOW_NAMES
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
        and node.value.id == "self" and node.attr in ("window", "window_", "main", "mw")


def _rooted_at_window(node: ast.AST) -> bool:
    cur = node.value if isinstance(node, (ast.Attribute, ast.Subscript)) else None
    while cur is not None:
        if _is_window_expr(cur):
            return True
        cur = cur.value if isinstance(cur, (ast.Attribute, ast.Subscript)) else None
    return False


def window_writes(source: str, filename: str = "<ui>") -> list[str]:
    """Every assignment (or deletion, ``setattr``) of an attribute of the window or of
    something reached from it (``window.x = …``, ``self.window.files.y = …``)."""
    tree = ast.parse(source, filename)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        for t in _targets(node):
            if isinstance(t, (ast.Attribute, ast.Subscript)) and _rooted_at_window(t):
                found.append((t.lineno, ast.unparse(t)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("setattr", "delattr") and node.args \
                and (_is_window_expr(node.args[0])
                     or _rooted_at_window(ast.Attribute(node.args[0], "x"))):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{filename}:{line}: {code}" for line, code in sorted(found)]


def test_no_ui_module_writes_attributes_of_the_window():
    """Each controller owns its attributes: nothing assigns one on the window (or on a
    controller reached through it) from outside; the window assigns its own (``self.x``)."""
    bad: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        bad += window_writes(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not bad, "a controller's attribute, set from outside it:\n" + "\n".join(bad)


def test_the_window_check_sees_each_kind_of_write():
    src = '''
def install(window, mw):
    window.results.results_view = 1
    window.files.last_report = 2
    mw.panels["x"] = 3
    setattr(window, "live", 4)
    del window.ranking.ranking_screen

class Controller:
    def __init__(self, window):
        self.window = window                 # its own attribute: fine
        self.view = window.results.results_view      # reading: fine
        self.window.persist_settings = False

    def ok(self):
        self.window.files.save()
        self.count = len(self.window.panels)
'''
    found = [f.split(": ", 1)[1] for f in window_writes(src, "x.py")]
    assert found == ["window.results.results_view", "window.files.last_report", "mw.panels['x']",
                     "setattr(window, 'live', 4)", "window.ranking.ranking_screen",
                     "self.window.persist_settings"], found


def _class_lines(path: Path, name: str) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    return cls.end_lineno - cls.lineno + 1


def test_the_main_window_stays_a_small_composition():
    """MainWindow composes controllers (separate objects, not mixin base classes)."""
    tree = ast.parse(MAIN_WINDOW.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MainWindow")
    assert [ast.unparse(b) for b in cls.bases] == ["QMainWindow"]
    n = _class_lines(MAIN_WINDOW, "MainWindow")
    assert n < MAX_WINDOW_LINES, f"MainWindow has {n} lines (at most {MAX_WINDOW_LINES})"
    composed = {ast.unparse(node.value.func) for node in ast.walk(cls)
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id.endswith(
                    ("Controller", "Layout", "Modes"))}
    assert {"FilesController", "BrowseController", "SessionController", "ResultsController",
            "RankingController", "WindowLayout", "ProtocolModes"} <= composed, composed


def test_each_controller_module_is_small():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines())
             for p in sorted(CONTROLLERS.glob("*.py"))}
    assert {"files.py", "browse.py", "session.py", "results.py", "ranking.py",
            "layout.py"} <= set(sizes)
    big = {name: n for name, n in sizes.items() if n >= MAX_CONTROLLER_LINES}
    assert not big, f"controller modules of {MAX_CONTROLLER_LINES} lines or more: {big}"
