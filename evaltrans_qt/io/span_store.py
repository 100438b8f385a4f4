"""Storing error-span changes (MQM, ESA) from outside the application: the journaled
commit path of the command line (``evaltrans spans``).

The same path as a judgement given with ``evaltrans judge`` (io/judgements.py): take the
database's lock (refused while evaltrans-qt or another program holds it), open the file
with its journal, build the changes against it, then for each change append it to the
journal (forced to disk) before applying it (:func:`evaltrans_qt.io.journal.apply_entry`),
write the database atomically and drop the entries the file now holds. Nothing is written
if building raises, a change is refused, or the file is locked.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import cast

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.io.judgements import commit_changes
from evaltrans_qt.io.protocol_changes import SpansChange

#: Who holds the lock while a command writes (shown to the application).
PROGRAM = "evaltrans spans"


def commit_span_changes(path: str | os.PathLike[str],
                        build: Callable[[Database], Sequence[SpansChange]],
                        note: Callable[[str], None] | None = None) -> list[SpansChange]:
    """Build the changes against the database at ``path`` and store them through the
    command line's one commit path (:func:`evaltrans_qt.io.judgements.commit_changes`);
    returns them as journaled (``note`` as there)."""
    return cast(list[SpansChange], commit_changes(path, build, program=PROGRAM, what="span",
                                                  note=note))
