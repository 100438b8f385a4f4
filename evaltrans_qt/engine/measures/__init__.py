"""Registry of measures: one module per measure, each registering its class(es).

Modules in this package are discovered automatically, so adding a measure is
adding a file that calls :func:`register`.
"""

from __future__ import annotations

import importlib
import pkgutil

from evaltrans_qt.engine.measures.base import Measure, MeasureScore, Segment

MEASURES: dict[str, type[Measure]] = {}
#: Lower-case alias -> registry name (from each registered ``Measure.aliases``).
ALIASES: dict[str, str] = {}
_loaded = False


def register(cls: type[Measure]) -> type[Measure]:
    """Class decorator: add a measure to :data:`MEASURES` under ``cls.name`` and its
    ``aliases`` to :data:`ALIASES`; a name or alias that already names another measure
    is an error."""
    if cls.name in MEASURES and MEASURES[cls.name] is not cls:
        raise ValueError(f"measure name '{cls.name}' registered twice")
    if ALIASES.get(cls.name, cls.name) != cls.name:
        raise ValueError(f"measure name '{cls.name}' is an alias of '{ALIASES[cls.name]}'")
    for alias in cls.aliases:
        key = alias.lower()
        other = key if key in MEASURES else ALIASES.get(key, cls.name)
        if other != cls.name:
            raise ValueError(f"alias '{alias}' of measure '{cls.name}' already names '{other}'")
    MEASURES[cls.name] = cls
    ALIASES.update((a.lower(), cls.name) for a in cls.aliases)
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


def resolve(name: str) -> str | None:
    """The registry name meant by ``name`` (case-insensitive), or None: a measure's name,
    one of its ``aliases``, or ``m`` + its name -- the thesis' naming of the
    multi-reference measures (``mWER`` = ``wer``, Table A.1)."""
    reg = load_all()
    key = name.strip().lower()
    if key in reg:
        return key
    if key in ALIASES:
        return ALIASES[key]
    if key.startswith("m") and key[1:] in reg:
        return key[1:]
    return None


def get(name: str) -> type[Measure]:
    """The measure class :func:`resolve` finds for ``name``; :class:`OptionError` if none.

    A registry name that is also the name of a module of this package imports only that
    module (``get("bleu")`` does not load every measure's kernels, scipy included, so a
    command or script scoring one measure starts fast); every other name (an alias,
    ``mWER``) loads the whole registry first.
    """
    key = name.strip().lower() if isinstance(name, str) else name
    cls = MEASURES.get(key)
    if cls is None and isinstance(key, str) and key.isidentifier() and key != "base" \
            and not key.startswith("_"):
        module = f"{__name__}.{key}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
        cls = MEASURES.get(key)
    if cls is not None:
        return cls
    resolved = resolve(name)
    if resolved is None:
        from evaltrans_qt.errors import OptionError
        raise OptionError(f"unknown measure '{name}' (known: {', '.join(sorted(MEASURES))})")
    return MEASURES[resolved]


__all__ = ["ALIASES", "MEASURES", "Measure", "MeasureScore", "Segment", "register", "load_all", "get",
           "resolve"]
