"""Memory budget of the tables that grow with sentence length.

One number, in bytes, caps what a single search may allocate: INVWER's bispan
table and agenda (``invwer-memory-budget``), LJWER's state lists, the CDER
coverage path and the assignment matrix of PER with word costs. The automatic
budget is min(2 GiB, 25 % of the physical memory), so two worker processes
(the pair phase runs one search per core) stay well inside the machine.
"""

from __future__ import annotations

import os

#: Upper end of the automatic budget (bytes).
AUTO_CAP = 2 << 30
#: Share of the physical memory of the automatic budget.
AUTO_SHARE = 0.25
#: Physical memory assumed when the platform does not tell (bytes).
_UNKNOWN_TOTAL = 8 << 30


def total_memory() -> int:
    """Physical memory in bytes (POSIX ``sysconf``; 8 GiB assumed elsewhere)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return _UNKNOWN_TOTAL


def auto_budget() -> int:
    """min(2 GiB, 25 % of the physical memory), in bytes."""
    return int(min(AUTO_CAP, AUTO_SHARE * total_memory()))


def budget_bytes(megabytes: int = 0) -> int:
    """The budget in bytes for an option value in MiB (0 = :func:`auto_budget`)."""
    return int(megabytes) << 20 if megabytes and megabytes > 0 else auto_budget()


def describe(nbytes: int) -> str:
    """``nbytes`` for messages: "512 MiB", "4.1 GiB"."""
    if nbytes >= 1 << 30:
        return f"{nbytes / (1 << 30):.1f} GiB"
    return f"{max(1, round(nbytes / (1 << 20)))} MiB"


def check_table(what: str, cells: int, cell_bytes: int, detail: str,
                max_bytes: int | None = None) -> None:
    """Refuse a table of ``cells`` cells of ``cell_bytes`` bytes above the memory budget
    (default :func:`auto_budget`) with a clear error naming ``what`` and ``detail`` (e.g.
    "a 12000 x 11000-word sentence pair"), before anything is allocated."""
    budget = auto_budget() if max_bytes is None else max_bytes
    need = int(cells) * int(cell_bytes)
    if need > budget:
        from evaltrans_qt.errors import InputFormatError
        raise InputFormatError(f"{what}: {detail} needs {describe(need)}, above the memory "
                               f"budget of {describe(budget)}")
