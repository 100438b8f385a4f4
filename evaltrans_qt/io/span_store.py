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
from pathlib import Path

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io.journal import Journal, apply_entry, journal_path
from evaltrans_qt.io.protocol_changes import SpansChange
from evaltrans_qt.io.store import (
    DatabaseLockedError,
    acquire_lock,
    open_database,
    release_lock,
    write_database,
)

#: Who holds the lock while a command writes (shown to the application).
PROGRAM = "evaltrans spans"


def commit_span_changes(path: str | os.PathLike[str],
                        build: Callable[[Database], Sequence[SpansChange]]) -> list[SpansChange]:
    """Build the changes against the database at ``path`` and store them (module doc);
    returns them as journaled."""
    try:
        lock = acquire_lock(path, PROGRAM)
    except DatabaseLockedError as exc:
        raise DatabaseLockedError(f"{exc.problem}: no span written (close it there first)",
                                  exc.path, holder=exc.holder) from None
    try:
        opened = open_database(path)
        db = opened.database
        changes = list(build(db))
        jr = Journal(journal_path(Path(path)))
        done: list[SpansChange] = []
        try:
            for ch in changes:
                entry = jr.append(ch)                # journal first (fsync), then apply
                try:
                    apply_entry(db, entry)
                except (LookupError, ScoreError):
                    jr.drop([entry, *done])          # refused: nothing of this command counts
                    raise
                assert isinstance(entry, SpansChange)
                done.append(entry)
            write_database(opened, path, lock=lock)
            jr.drop(done)
        finally:
            jr.close()
        return done
    finally:
        release_lock(lock)
