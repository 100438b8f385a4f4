"""evaltrans_qt: evaluation of machine translation (successor of RWTH EvalTrans).

Layout: ``engine`` (pure computation), ``io`` (file formats), ``ui`` (PySide6),
``cli`` (command line). ``engine`` and ``io`` never import Qt.

The public Python API (``docs/api.md``) is the names in :data:`__all__`; they are
loaded on first use (module ``__getattr__``), so ``import evaltrans_qt`` stays
cheap and imports neither Qt, numba, numpy nor pandas::

    import evaltrans_qt as et
    bleu = et.measure("bleu").corpus_score(["the cat sat on the mat"], [["the cat sat on a mat"]])
    print(bleu.score, bleu.parts["counts"], bleu.signature)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evaltrans_qt.version import __version__

#: Public name -> module that defines it (everything else is private).
_PUBLIC = {
    "measure": "evaltrans_qt.api",
    "Metric": "evaltrans_qt.api",
    "score": "evaltrans_qt.api",
    "Score": "evaltrans_qt.engine.run.scoring",
    "Database": "evaltrans_qt.api",
    "evaluate": "evaltrans_qt.api",
    "Run": "evaltrans_qt.api",
    "correlate": "evaltrans_qt.api",
    "meta_evaluate": "evaltrans_qt.api",
    "significance": "evaltrans_qt.api",
    "analyze": "evaltrans_qt.api",
    "available_measures": "evaltrans_qt.api",
    "judge": "evaltrans_qt.api",
    "import_judgements": "evaltrans_qt.api",
    "EvalOptions": "evaltrans_qt.engine.options",
    "PRESETS": "evaltrans_qt.engine.options",
    "EvalTransError": "evaltrans_qt.errors",
}

__all__ = ["__version__", *_PUBLIC]

if TYPE_CHECKING:
    from evaltrans_qt.api import (
        Database,
        Metric,
        Run,
        analyze,
        available_measures,
        correlate,
        evaluate,
        import_judgements,
        judge,
        measure,
        meta_evaluate,
        score,
        significance,
    )
    from evaltrans_qt.engine.options import PRESETS, EvalOptions
    from evaltrans_qt.engine.run.scoring import Score
    from evaltrans_qt.errors import EvalTransError


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'evaltrans_qt' has no attribute '{name}'")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


#: Top-level modules of the ``[gui]`` extra.
_GUI_MODULES = ("PySide6", "shiboken6", "pyqtgraph")
GUI_MISSING = ("evaltrans-qt: the desktop application needs the GUI extra (PySide6-Essentials, "
               "pyqtgraph), which is not installed here.\nInstall it with:  pip install "
               "'evaltrans_qt[gui]'\n(the command line 'evaltrans' and the Python API work "
               "without it.)")


def _gui_main() -> int:
    """Entry point of ``evaltrans-qt``: without the ``[gui]`` extra, say how to get it
    (exit 1, no traceback); else run :func:`evaltrans_qt.ui.app.main`."""
    import importlib.util
    import sys

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):
            return True
    missing = [m for m in ("PySide6", "pyqtgraph") if absent(m)]
    if not missing:
        try:
            from evaltrans_qt.ui.app import main
        except ImportError as exc:
            if (exc.name or "").split(".")[0] not in _GUI_MODULES:
                raise
            missing = [exc.name or "PySide6"]
    if missing:
        print(GUI_MISSING, file=sys.stderr)
        return 1
    return int(main() or 0)
