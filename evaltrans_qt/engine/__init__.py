"""Pure computation (no Qt): data model, preprocessing, measures, statistics."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: name -> submodule in ``exports``, imported
    on first use (PEP 562), so importing the package stays cheap (engine/segranks,
    engine/unseen)."""
    def __getattr__(name: str) -> Any:
        mod = exports.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib
        return getattr(importlib.import_module(f"{package}.{mod}"), name)
    return __getattr__
