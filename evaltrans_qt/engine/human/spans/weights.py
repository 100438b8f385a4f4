"""MQM error weights in mt-metrics-eval's notation (``converters/score_mqm.py``, its
``--weights`` flag): a space-separated list of ``severity[/category[/subcategory]]:weight``.

An error's weight is that of the most specific entry matching its path
``severity/category/subcategory`` -- the longest prefix of the path (compared without
case) that the spec names; a path no entry matches weighs 0 (so ``Critical``, which the
default does not name, weighs 0 unless a spec gives it a weight). The default is
Freitag et al. 2021's (section 3.2, Table 12): ``Major:5 Minor:1 Neutral:0
Major/Non-translation!:25 Minor/Fluency/Punctuation:0.1``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from evaltrans_qt.errors import OptionError

DEFAULT_SPEC = ("Major:5 Minor:1 Neutral:0 Major/Non-translation!:25 "
                "Minor/Fluency/Punctuation:0.1")


@dataclass(frozen=True)
class Weights:
    """A parsed weight spec (module doc); ``table`` maps lower-cased paths to weights."""

    table: Mapping[str, float]
    spec: str

    def weight(self, severity: str, category: str) -> float:
        """The weight of an error: most specific match of ``severity/category``, else 0."""
        items = [severity.lower(), *category.lower().split("/")]
        while items:
            w = self.table.get("/".join(items))
            if w is not None:
                return w
            items.pop()
        return 0.0


def parse_weights(spec: str | None = None, sep: str = " ") -> Weights:
    """Parse a weight spec (module doc; ``None``: the default). :class:`OptionError`
    naming the entry if one is not ``path:number``."""
    text = DEFAULT_SPEC if spec is None else spec
    table: dict[str, float] = {}
    for entry in text.split(sep):
        if not entry.strip():
            continue
        path, colon, num = entry.rpartition(":")
        if not colon or not path.strip():
            raise OptionError(f"weight {entry!r} is not severity[/category]:weight")
        try:
            w = float(num)
        except ValueError:
            raise OptionError(f"weight {entry!r}: {num!r} is not a number") from None
        if not math.isfinite(w):
            raise OptionError(f"weight {entry!r} is not a finite number")
        table[path.strip().lower()] = w
    if not table:
        raise OptionError("empty weight spec")
    return Weights(table, text)


DEFAULT_WEIGHTS = parse_weights()
