"""Registry of measures: one module per measure, each registering its class(es).

Modules in this package are discovered automatically, so adding a measure is
adding a file that calls :func:`register`.
"""

from __future__ import annotations

import importlib
import pkgutil

from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment

MEASURES: dict[str, type[Measure]] = {}
_loaded = False


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator: add a measure to :data:`MEASURES` under ``cls.name``."""
    if cls.name in MEASURES and MEASURES[cls.name] is not cls:
        raise ValueError(f"measure name '{cls.name}' registered twice")
    MEASURES[cls.name] = cls
    return cls


def load_all() -> dict[str, type[Measure]]:
    """Import every measure module of this package (once) and return the registry."""
    global _loaded
    if not _loaded:
        for mod in pkgutil.iter_modules(__path__):
            if mod.name != "base" and not mod.name.startswith("_"):
                importlib.import_module(f"{__name__}.{mod.name}")
        _loaded = True
    return MEASURES


def get(name: str) -> type[Measure]:
    reg = load_all()
    key = name.lower()
    if key not in reg:
        from evaltrans_qt.errors import OptionError
        raise OptionError(f"unknown measure '{name}' (known: {', '.join(sorted(reg))})")
    return reg[key]


__all__ = ["MEASURES", "Measure", "MeasureScore", "Segment", "register", "load_all", "get"]
