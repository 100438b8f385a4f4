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
