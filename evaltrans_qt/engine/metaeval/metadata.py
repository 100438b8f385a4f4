"""Per-translation metadata and the filter of a meta-evaluation by it.

mt-metrics-eval keeps arbitrary metadata for each translation (``metadata/LP/SYSTEM.jsonl``,
one JSON object a line parallel to the system's output; ``data.EvalSet.metadata``). The
import keeps each object on its target as the attribute :data:`METADATA_ATTR`.

:class:`Where` selects the cells of a meta-evaluation (``evaltrans correlate --where
KEY=VALUE``): a translation is kept when every condition holds; a condition's key is
looked up in the translation's metadata first, then among its source's attributes
(``domain`` from mt-metrics-eval's documents file, ``doc``, ``seg`` and any other), and
compares equal to the value as text (JSON numbers and booleans as JSON writes them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaltrans_qt.errors import OptionError

#: Target attribute holding a translation's mt-metrics-eval metadata (JSON object).
METADATA_ATTR = "mtme-metadata"


def metadata_of(target: Any) -> dict[str, Any]:
    """A translation's mt-metrics-eval metadata (empty when it has none)."""
    raw = getattr(target, "extra_attrs", {}).get(METADATA_ATTR)
    if not raw:
        return {}
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


@dataclass(frozen=True)
class Where:
    """Conditions KEY=VALUE that a translation must all meet (module doc)."""

    conditions: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, specs: Sequence[str] | None) -> Where:
        """From ``KEY=VALUE`` strings; a malformed one is an :class:`OptionError`."""
        out = []
        for spec in specs or ():
            key, sep, value = spec.partition("=")
            if not sep or not key.strip():
                raise OptionError(f"--where: expected KEY=VALUE, got {spec!r}")
            out.append((key.strip(), value))
        return cls(tuple(out))

    def __bool__(self) -> bool:
        return bool(self.conditions)

    def keeps(self, source: Any, target: Any | None) -> bool:
        """Whether the translation ``target`` of ``source`` meets every condition."""
        meta = metadata_of(target) if target is not None else {}
        for key, value in self.conditions:
            if key in meta:
                have: Any = meta[key]
            elif key == "doc":
                have = getattr(source, "doc", None)
            elif key == "seg":
                have = getattr(source, "seg", None)
            else:
                have = getattr(source, "extra_attrs", {}).get(key)
            if have is None or _text(have) != value:
                return False
        return True

    def label(self) -> str:
        return " and ".join(f"{k}={v}" for k, v in self.conditions)


__all__ = ["METADATA_ATTR", "metadata_of", "Where"]
