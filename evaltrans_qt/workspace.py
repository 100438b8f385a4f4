"""The application's state in one Qt-free model (like napari's ``ViewerModel``).

A :class:`Workspace` holds what the application works on -- the open
database, its path and score journal, the dirty state and the autosave
policy, the one current :class:`EvalOptions` and the chosen measures, the last
run (and whether it is still current for those options and that data), and
the session file beside the database. It emits psygnal signals; the main
window, the compare view, the results view, the scoring panel and the
live-correlation panel connect to them and read the workspace when they draw.
No view keeps a copy of any of it, so opening another database, importing,
changing options or scores reaches every view by construction.

The model never imports Qt (saving on a worker thread and the autosave timer
belong to the window; the workspace only counts changes and says what is due).
:meth:`Workspace.open` loads a database the way every reader does
(:func:`evaltrans_qt.io.store.open_database`: load, then replay a left-over journal);
:meth:`Workspace.save` writes it synchronously (Qt-free callers).

The file on disk is never overwritten behind anybody's back: while a database is open the
workspace holds its advisory lock (``NAME.etdb.xml.lock``, :mod:`evaltrans_qt.io.store`;
commands refuse to write a locked file) and records the file's identity (size, mtime,
inode, content hash) at load and at each save. :meth:`Workspace.check_disk` compares the
file with it -- one ``stat``; the file is hashed only when its size is equal but its stat
differs -- before every save and whenever an autosave is due (:attr:`autosave_due`): a
changed file is not overwritten, autosaving stops and ``changed_on_disk`` is emitted for
the window to ask what to do (the unsaved judgements stay in the journal meanwhile).

Signals (all emitted in the thread that changes the workspace -- the UI thread):

* ``database_changed()`` -- another database (or none) is open: views reset;
* ``database_modified(affects_results: bool)`` -- the open database changed
  (import into it, merge, score classes);
* ``committed(change)`` -- a judgement was committed (:meth:`Workspace.commit`: a score,
  protocol or ranking change, an undo or a redo), journalled and applied; the one signal
  of a commit;
* ``dirty_changed(dirty: bool)``, ``path_changed(path)``;
* ``options_changed()`` -- options or chosen measures;
* ``run_changed()`` -- a run (or report) was set or cleared;
* ``currency_changed(current: bool)`` -- the run became current or out of date;
* ``changed_on_disk(path)`` -- the open file changed on disk since it was loaded or saved
  here; autosave stopped until it is saved again (:meth:`Workspace.save` with
  ``overwrite_changed``, Save As), merged (:meth:`Workspace.merged_disk`) or another
  database is opened;
* ``history.changed()`` -- the undo history (:attr:`Workspace.history`, a
  :class:`~evaltrans_qt.history.History`) changed: undo/redo actions update;
* ``lock_changed(holder)`` -- who else holds the open file (a :class:`LockInfo`: read-only
  here, nothing is saved over it) or None (we hold its lock, or there is no file).

Saving is done in three steps so that the window can write on a worker thread:
:meth:`Workspace.prepare_save` (UI thread: the disk and lock checks, what the save
includes) returns a :class:`SaveJob`; :meth:`SaveJob.write` (any thread) writes the bytes
through :func:`~evaltrans_qt.io.store.save_with_identity`, checking disk and lock again
just before the atomic replace; :meth:`Workspace.finish_save` (UI thread) clears the
journal up to what was written (Save As: moves what came after to the new file's journal),
records the identity of the bytes written and marks the changes saved.
:meth:`Workspace.save` does the three in a row.
"""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from psygnal import Signal

from evaltrans_qt.analysis_choice import AnalysisChoice, ComparisonChoice
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.run.results import RunResult
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.history import History
from evaltrans_qt.io import protocol_changes, store
from evaltrans_qt.io.journal import (
    Change,
    Journal,
    ReplayReport,
    apply_entry,
    journal_path,
    replay,
)
from evaltrans_qt.io.segranks.changes import RankingChange
from evaltrans_qt.io.store import (
    DatabaseChangedError,
    DatabaseLockedError,
    FileIdentity,
    LockInfo,
    PendingJournalError,
)
from evaltrans_qt.selection import Selection

#: Milliseconds between a change and its autosave (the window's timer reads it).
AUTOSAVE_MS = 5000

RUN, REPORT = "run", "report"
#: ``Workspace.set_options(options, KEEP)``: leave the chosen measures as they are.
KEEP = object()


def load_with_journal(path: str | Path) -> tuple[Database, ReplayReport | None]:
    """Load a database and replay its left-over journal, if any (safe on a worker thread);
    :func:`~evaltrans_qt.io.store.open_database`, which also remembers the identity of the
    file read (:meth:`Workspace.set_database` picks it up)."""
    opened = store.open_database(path)
    return opened.database, opened.recovered


def skipped_measures(measures: Sequence[str], options: EvalOptions) -> dict[str, str]:
    """Chosen measures the options leave out, each with what it needs (shown, never silent).

    Only a measure that exists under an option (its ``enabled`` reads the options: INVWER,
    LJWER, WWER/WPER/WCDER) is left out; an opt-in measure (CER, Dice, ...: off by
    default, ``default_enabled = False``) runs when chosen, as ``--measures cer`` runs it."""
    from evaltrans_qt.engine.measures import get
    from evaltrans_qt.engine.measures.base import Measure
    needs = {"invwer": "allow-transpositions", "ljwer": "allow-long-jumps"}
    out = {}
    for name in measures:
        cls = get(name)
        reads_options = next(k for k in cls.__mro__ if "enabled" in vars(k)) is not Measure
        if reads_options and not cls.enabled(options):
            out[name] = needs.get(name, "a substitution-cost-rule other than none"
                                  if name in ("wwer", "wper", "wcder") else "its option")
    return out


@dataclass
class SaveJob:
    """One save, prepared by :meth:`Workspace.prepare_save` (module doc)."""

    database: Database
    #: Where it is written.
    target: Path
    #: Over the open file (else Save As).
    in_place: bool
    #: Journal entries up to this sequence number are in what is written.
    seq: int
    #: The workspace's changes included (:attr:`Workspace.changes` when prepared).
    count: int
    #: The identity the file must still have when it is replaced (None: not checked).
    expect: FileIdentity | None
    #: Our lock (another's lock on the target refuses the write).
    lock: LockInfo | None
    #: The journal when the save was prepared (Save As moves its later entries).
    journal: Journal | None

    def check(self) -> None:
        """Just before the bytes replace the file (any thread; no signals):
        :class:`DatabaseChangedError` if it changed on disk since prepared,
        :class:`DatabaseLockedError` if another process holds it now."""
        if self.expect is not None and not store.unchanged_on_disk(self.target, self.expect):
            raise DatabaseChangedError("changed on disk since it was opened or saved here; "
                                       "not overwritten", self.target)
        store.check_not_locked(self.target, self.lock)

    def write(self, save: Callable[..., FileIdentity] | None = None) -> FileIdentity:
        """Write the database (any thread): the one validated atomic write with
        :meth:`check` right before the replace; returns the identity of the bytes written."""
        return (save or store.save_with_identity)(self.database, self.target,
                                                  before_write=self.check)


@dataclass(frozen=True)
class Commit:
    """What :meth:`Workspace.commit` did: the change as journalled (with its sequence
    number) and the changes that undo it, in order."""

    change: Change
    inverse: list[Change]


def modifies_database(change: Change) -> bool:
    """Whether a committed change may add or remove score classes, references or items
    (rankings, items, references), not just one judge's value: what views redraw beyond
    the one sentence."""
    return isinstance(change, (RankingChange, protocol_changes.ItemsChange,
                               protocol_changes.ReferenceChange))


def affects_results(change: Change) -> bool:
    """Whether a committed change makes a run out of date (candidates or references)."""
    return isinstance(change, protocol_changes.ReferenceChange)


class Workspace:
    """Database, journal, dirty state, options, measures, last run, session file (module doc)."""

    database_changed = Signal()
    database_modified = Signal(bool)
    #: One judgement committed (:meth:`commit`): the change, with its journal number.
    committed = Signal(object)
    dirty_changed = Signal(bool)
    path_changed = Signal(object)
    options_changed = Signal()
    run_changed = Signal()
    currency_changed = Signal(bool)
    #: A note for the user (e.g. the session file was damaged and kept aside).
    message = Signal(str)
    #: The open file changed on disk since it was loaded or saved here (its path).
    changed_on_disk = Signal(object)
    #: Another process holds the open file (its LockInfo), or no longer (None).
    lock_changed = Signal(object)

    def __init__(self, *, autosave: bool = True, autosave_ms: int = AUTOSAVE_MS) -> None:
        self.database: Database | None = None
        self.path: Path | None = None
        self.journal: Journal | None = None
        self.recovered: ReplayReport | None = None
        #: Changes made / included in the last successful save (dirty when they differ).
        self.changes = 0
        self.saved_changes = 0
        self.autosave = autosave
        self.autosave_ms = autosave_ms
        self.options = EvalOptions()
        #: Chosen measures; None = the defaults for the options.
        self.measures: list[str] | None = None
        self.run: RunResult | None = None
        #: Where the run came from: RUN (computed here) or REPORT (read from a file).
        self.run_origin: str | None = None
        self.report_path: Path | None = None
        #: Bumped whenever the candidates or references may have changed.
        self.data_version = 0
        self._run_data_version = -1
        #: The file as loaded or last saved here (None: no file, or not known).
        self.identity: FileIdentity | None = None
        #: True once :meth:`check_disk` found the file changed: nothing overwrites it and
        #: autosave stops until a save that means it, or another database.
        self.disk_changed = False
        #: Our advisory lock of :attr:`path` (None: no file, or another process holds it).
        self.lock: LockInfo | None = None
        #: Who held the lock when we could not take it.
        self.locked_by: LockInfo | None = None
        self._lock_release: weakref.finalize | None = None
        #: The journal's last sequence number when a change was last counted, and the number
        #: of the last change that did not go through the journal (imports, merges, class
        #: edits): reloading the file would lose those, replaying the journal would not.
        self._seq_seen = 0
        self._last_unjournalled = 0
        #: Journal entries the replay could not apply were kept aside (once per load).
        self._unapplied_kept = False
        #: The undo history of the judgements and edits made here (cleared with another
        #: database): :mod:`evaltrans_qt.history`.
        self.history = History(self)
        #: Current source, candidate and compare measure (cleared for another database).
        self.selection = Selection()
        #: Human class, level and normalisation the results are analysed against.
        self.analysis = AnalysisChoice().attach(self, modifies_database)
        #: Systems, measure and sizes of the system-against-system analysis (compare-mt).
        self.comparison = ComparisonChoice().attach(self, modifies_database)

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | Path, **kw) -> Workspace:
        """A workspace with the database at ``path`` loaded and its journal replayed
        (``recovered`` tells what the replay did); options from its session file."""
        ws = cls(**kw)
        opened = store.open_database(path)
        ws.set_database(opened.database, path, opened.recovered, identity=opened.identity)
        return ws

    def set_database(self, db: Database | None, path: str | Path | None = None,
                     recovered: ReplayReport | None = None, *,
                     identity: FileIdentity | None = None) -> None:
        """Make ``db`` (already loaded) the open database; every view resets. ``identity``:
        of the file when ``db`` was read (default: what :func:`load_with_journal` read,
        else the file now). Takes the file's lock (another holder: a :attr:`message`)."""
        if self.journal is not None:
            self.journal.close()
        self.database = db
        self.path = Path(path) if path is not None else None
        self.journal = Journal(journal_path(self.path)) if self.path is not None else None
        self._take_lock(self.path)
        self.disk_changed = False
        self.identity = None
        if self.path is not None:
            self.identity = identity or (store.identity_when_read(db, self.path)
                                         if db is not None else None) \
                or store.disk_identity(self.path)
        self.recovered = recovered
        self._unapplied_kept = False
        self.history.clear()
        self.changes = self.saved_changes = self._last_unjournalled = 0
        self._seq_seen = self.journal.last_seq if self.journal is not None else 0
        if recovered is not None and recovered.applied:
            self.changes = 1          # the replayed scores are not in the file yet
        self.data_version += 1
        self.run, self.run_origin, self.report_path = None, None, None
        self.load_session_options()
        self.selection.clear()
        self.path_changed.emit(self.path)
        self.dirty_changed.emit(self.is_dirty)
        self.database_changed.emit()
        self.options_changed.emit()
        self.run_changed.emit()
        self.currency_changed.emit(False)

    def set_path(self, path: str | Path, journal: Journal | None = None) -> None:
        """The database now lives at ``path`` (after Save As), with ``journal``; the lock
        moves there and the file's identity is taken from it."""
        self._take_lock(Path(path))
        self.path = Path(path)
        self.journal = journal if journal is not None else Journal(journal_path(self.path))
        self._seq_seen = self.journal.last_seq
        self.identity = self._stat_identity()
        self.disk_changed = False
        self.path_changed.emit(self.path)

    # ------------------------------------------------------------ the file on disk
    def _take_lock(self, path: Path | None) -> None:
        """Hold the advisory lock of ``path`` (None: none), releasing the one held."""
        was = self.locked_by
        old, self.lock, self.locked_by = self.lock, None, None
        if path is not None and old is not None and store.same_file(old.database, path):
            self.lock, old = old, None
        elif path is not None:
            try:
                self.lock = store.acquire_lock(path)
            except DatabaseLockedError as exc:
                self.locked_by = exc.holder
                self.message.emit(f"{path.name} is {exc.problem} as well: close it in one of "
                                  "them (both would write the same file)")
            except OSError:
                pass                       # a folder we cannot write: saving will say so
        if old is not None:
            if self._lock_release is not None:
                self._lock_release.detach()
            store.release_lock(old)
        self._guard_lock()
        if self.locked_by != was:
            self.lock_changed.emit(self.locked_by)

    def _guard_lock(self) -> None:
        """Release our lock when the workspace is garbage-collected or at exit."""
        if self.lock is not None and (self._lock_release is None or not self._lock_release.alive):
            self._lock_release = weakref.finalize(self, store.release_lock, self.lock)

    @property
    def read_only(self) -> bool:
        """Whether another process holds the open file (:attr:`locked_by`): nothing is saved
        over it here (Save As is possible) until :meth:`retry_lock` takes the lock."""
        return self.lock is None and self.locked_by is not None

    def read_only_reason(self) -> str | None:
        """Why no judgement may be made here now (None: it may). While another process holds
        the open file, its journal is that program's: judgements from here would mix with its
        unsaved ones and be cleared by its next save. Tries the lock again first."""
        if self.read_only:
            self.retry_lock()
        if not self.read_only or self.locked_by is None or self.path is None:
            return None
        return (f"{self.path.name} is read-only here ({self.locked_by.describe()}): "
                "judgements made here would mix with that program's unsaved ones in the same "
                "journal. Close it there, or save a copy under another name (Save as) and "
                "judge in that")

    def retry_lock(self) -> bool:
        """Try again to take the open file's lock (its holder may have closed it); True if we
        hold it now. Cheap (the lock file is read only when we do not hold it)."""
        if self.lock is not None:
            return True
        if self.path is None:
            return False
        was = self.locked_by
        try:
            self.lock = store.acquire_lock(self.path)
            self.locked_by = None
        except DatabaseLockedError as exc:
            self.locked_by = exc.holder
        except OSError:
            self.locked_by = None
        self._guard_lock()
        if self.locked_by != was:
            self.lock_changed.emit(self.locked_by)
        return self.lock is not None

    def _stat_identity(self) -> FileIdentity | None:
        """The recorded identity if the file's stat still matches it, else the stat alone."""
        if self.path is None:
            return None
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        known = self.identity
        return known if known is not None and known.same_stat(st) else FileIdentity.of(st)

    def check_disk(self) -> bool:
        """Whether the open file is still the one loaded or last saved here (one ``stat``;
        a hash only when the size is equal but the stat differs). If not: autosave stops,
        ``changed_on_disk(path)`` is emitted and a :attr:`message` says what happened
        (once), and False."""
        if self.disk_changed:
            return False
        if self.path is None or self.identity is None:
            return True
        now = store.disk_identity(self.path, self.identity)
        if now is not None and self.identity.matches(now):
            self.identity = now if now.digest is not None else self.identity
            return True
        self.disk_changed = True
        self.message.emit(f"{self.path.name} changed on disk since it was opened or saved "
                          "here: not overwritten, autosave stopped (your unsaved changes are "
                          "kept in its journal)")
        self.changed_on_disk.emit(self.path)
        return False

    def merged_disk(self, identity: FileIdentity) -> None:
        """The open database now includes the file on disk as it was when read with
        ``identity`` (the user merged it in): saving over that file is allowed again --
        unless it changes once more. Autosave resumes."""
        self.identity = identity
        self.disk_changed = False

    def reapply_journal(self, db: Database) -> ReplayReport | None:
        """Replay the open file's journal -- the judgements made here and not yet saved,
        every one up to now -- into ``db``, the file on disk read again without its journal
        (:func:`~evaltrans_qt.io.store.open_database` with ``replay_journal=False``), for
        "reload theirs and re-apply mine"; None if the journal is empty. Make ``db`` the open
        database next (:meth:`set_database` with the report): entries it could not apply are
        kept aside at the first save (``NAME.journal.unapplied``), never dropped."""
        if self.journal is None:
            return None
        journal = Journal(self.journal.path)
        entries = journal.entries()
        if not entries and not journal.skipped:
            return None
        report = replay(db, entries)
        report.skipped = list(journal.skipped)
        opened = store.opened_of(db)
        if opened is not None:               # what a write of db by the store would fold
            opened.read.recovered, opened.read.replayed = report, True
            opened.read.journal_entries = tuple(entries)
            opened.read.skipped_lines = tuple(journal.skipped_lines)
        return report

    @property
    def unjournalled_changes(self) -> bool:
        """Whether unsaved changes include some that are not in the journal (an import, a
        merge, a class edit): reloading the file and replaying the journal would lose them."""
        return self._last_unjournalled > self.saved_changes

    def prepare_save(self, path: str | Path | None = None, *,
                     overwrite_changed: bool = False) -> SaveJob:
        """Check and prepare a save of the open database to its file, or (Save As) to
        ``path`` (UI thread; :meth:`SaveJob.write` then writes, :meth:`finish_save` ends).
        In place, :class:`DatabaseChangedError` if the file changed on disk
        (:meth:`check_disk`) unless ``overwrite_changed`` (the user chose to).
        :class:`DatabaseLockedError` if another process holds the target open;
        :class:`PendingJournalError` if Save As would replace a file whose journal holds
        unsaved judgements."""
        if self.database is None:
            raise ValueError("no database is open")
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("the database has no file yet: give a path")
        in_place = self.path is not None and store.same_file(target, self.path)
        if in_place and not overwrite_changed and not self.check_disk():
            raise DatabaseChangedError("changed on disk since it was opened or saved here; "
                                       "not overwritten", target)
        if in_place:
            self.retry_lock()                # its holder may have closed it meanwhile
        store.check_not_locked(target, self.lock)
        if not in_place:
            theirs = Journal(journal_path(target)).entries()
            if theirs:
                raise PendingJournalError(
                    f"{len(theirs)} unsaved judgement(s) in {journal_path(target).name} "
                    "belong to the file there; open it first or choose another name", target)
        return SaveJob(self.database, target, in_place,
                       self.journal.last_seq if self.journal is not None else 0, self.changes,
                       self.identity if in_place and not overwrite_changed else None,
                       self.lock, self.journal)

    def finish_save(self, job: SaveJob, identity: FileIdentity) -> str | None:
        """``job`` was written (its file has ``identity``): clear the journal up to what it
        included -- keeping aside entries a replay could not apply -- or, after Save As, move
        the entries made meanwhile to the new file's journal and the lock there; the changes
        included are saved. Returns a problem to tell the user (also a :attr:`message`), or
        None. Nothing happens if another database was opened meanwhile."""
        if job.database is not self.database:
            return None
        problem = None
        old = job.journal
        if old is not None:
            self._keep_unapplied(old)
        if job.in_place:
            if self.journal is not None:
                self.journal.clear(job.seq)
        else:
            journal = Journal(journal_path(job.target))
            try:
                journal.clear()            # a left-over of the file just replaced
                for change in old.entries() if old is not None else ():
                    if change.seq > job.seq:   # made while the save ran: not in the file
                        journal.append(change)
            except OSError as exc:
                problem = (f"scores entered during Save As stay in {old.path if old else '?'} "
                           f"(could not write {journal.path}: {exc})")
            self.set_path(job.target, journal)
            if old is not None and problem is None:
                old.clear()
        self.mark_saved(job.count, identity)
        if problem is not None:
            self.message.emit(problem)
        return problem

    def _keep_unapplied(self, journal: Journal) -> None:
        """Before a save clears ``journal``: entries the replay at load could not apply (and
        malformed lines) go to ``NAME.journal.unapplied`` -- once -- instead of vanishing."""
        rec = self.recovered
        if self._unapplied_kept or rec is None or not (rec.missing or rec.rejected or rec.skipped):
            return
        self._unapplied_kept = True
        fresh = Journal(journal.path)
        fresh.entries()                      # reads the malformed lines' bytes
        try:
            kept = store.keep_unapplied(journal.path, rec, fresh.skipped_lines)
        except OSError as exc:
            self._unapplied_kept = False
            raise SaveError(f"journal entries that could not be applied cannot be kept "
                                  f"aside ({exc}); not saved", journal.path) from exc
        if kept is not None:
            self.message.emit(f"Journal entries that could not be applied are kept in {kept.name}")

    def save(self, path: str | Path | None = None, *, overwrite_changed: bool = False) -> Path:
        """Write the open database to its file, or (Save As) to ``path``, synchronously
        through the one validated atomic write; returns where (:meth:`prepare_save` for the
        checks and errors, :meth:`finish_save` for the journal and the lock)."""
        job = self.prepare_save(path, overwrite_changed=overwrite_changed)
        self.finish_save(job, job.write())
        return job.target

    def modified(self, affects_results: bool = True) -> None:
        """The open database changed outside a scoring session (import, merge, classes).

        ``affects_results``: candidates or references may differ, so a run is out of date."""
        if affects_results:
            self.data_version += 1
        self.mark_changed()
        self.database_modified.emit(affects_results)
        if affects_results and self.run is not None:
            self.currency_changed.emit(self.run_is_current)

    def commit(self, change: Change) -> Commit:
        """The one commit path of every judgement (scores, post-edits, item marks, items,
        references, rankings, SegRanks; an undo or redo commits the inverse change):

        1. journal first -- the entry is written and fsynced (:meth:`Journal.append`), so a
           crash from here on loses nothing: the next opening replays it;
        2. apply it to the database with :func:`~evaltrans_qt.io.journal.apply_entry`, the
           very function the journal's replay uses (live apply and replay cannot diverge);
        3. one :attr:`committed` signal carrying the change (with its journal number).

        Returns the change as journalled and the changes that undo it (commit those to
        undo). :class:`OSError` if the journal cannot be written: nothing changed. A change
        the database refuses (:class:`LookupError`, :class:`~evaltrans_qt.errors.EvalTransError`;
        the database is unchanged) has its entry taken out of the journal again and the
        error propagates. Without a file (no path) there is no journal: applied only.
        While another process holds the file (:attr:`read_only`) its journal is that
        program's: :class:`DatabaseLockedError`, nothing written."""
        db = self.database
        if db is None:
            raise LookupError("no database is open")
        if self.read_only and self.locked_by is not None:
            raise DatabaseLockedError(f"{self.locked_by.describe()}: no judgement is recorded "
                                      "here (close it there or Save As a copy)", self.path,
                                      holder=self.locked_by)
        journal = self.journal
        if journal is not None:
            change = journal.append(change)
        try:
            inverse = apply_entry(db, change)
        except (LookupError, EvalTransError):
            if journal is not None:             # refused: never replay what did not happen
                journal.drop([change])
            raise
        if isinstance(change, protocol_changes.ReferenceChange):
            self.data_version += 1              # the candidates and references differ
        self.mark_changed()
        self.committed.emit(change)
        return Commit(change, inverse)

    # ------------------------------------------------------------ dirty state
    @property
    def is_dirty(self) -> bool:
        return self.changes != self.saved_changes

    def mark_changed(self) -> None:
        """One more unsaved change. A change the journal did not grow with (journal first,
        then apply, then this) is one a reload of the file would lose
        (:attr:`unjournalled_changes`)."""
        self.changes += 1
        seq = self.journal.last_seq if self.journal is not None else 0
        if seq == self._seq_seen:
            self._last_unjournalled = self.changes
        self._seq_seen = seq
        self.dirty_changed.emit(True)

    def mark_saved(self, count: int, identity: FileIdentity | None = None) -> None:
        """A save that included the first ``count`` changes succeeded; ``identity``: of the
        file it wrote (default: the file's stat now). The file is ours again: a stopped
        autosave resumes."""
        if self.path is not None:
            self.identity = identity if identity is not None else self._stat_identity()
            self.disk_changed = False
        self._set_saved(count)

    def _set_saved(self, count: int) -> None:
        self.saved_changes = count
        self.dirty_changed.emit(self.is_dirty)

    def leave_unsaved(self) -> None:
        """Close without saving and without asking, leaving the journal as it is (its
        judgements come back at the next opening): a screenshot run."""
        self._set_saved(self.changes)

    def detach_journal(self) -> None:
        """Judgements from now on are applied but not journalled (a screenshot or demo run
        that must leave nothing beside the file); nothing is saved either."""
        self.journal = None
        self.set_autosave(False)

    def discard_changes(self) -> None:
        """Forget unsaved changes (the journal too: they must not come back on next start)."""
        if self.journal is not None:
            self.journal.clear()
        self._set_saved(self.changes)

    def set_autosave(self, on: bool | None = None, ms: int | None = None) -> None:
        """The autosave policy: on or off, and the delay after a change (ms)."""
        if on is not None:
            self.autosave = bool(on)
        if ms is not None:
            self.autosave_ms = int(ms)

    @property
    def autosave_due(self) -> bool:
        """Whether the policy asks for an autosave now (the window's timer decides when):
        never while another process holds the file (:attr:`read_only`) or the file changed
        on disk (checked here, :meth:`check_disk`)."""
        return self.autosave and self.database is not None and self.path is not None \
            and self.is_dirty and not self.read_only and self.check_disk()

    # ------------------------------------------------------------ options
    def set_options(self, options: EvalOptions, measures: list[str] | None | object = KEEP,
                    persist: bool = True) -> None:
        """The one current options (and measures; :data:`KEEP` keeps them), saved in the
        session file."""
        self.options = options
        if measures is not KEEP:
            self.measures = None if measures is None else list(cast("Sequence[str]", measures))
        if persist and self.path is not None:
            sess = self.session_or_none()
            if sess is not None:
                sess.options, sess.measures = self.options, self.measures
                self._save_session(sess, "Options not saved with the database")
        self.options_changed.emit()
        if self.run is not None:
            self.currency_changed.emit(self.run_is_current)

    def load_session_options(self) -> None:
        """Options and measures from the database's session file, if there is one."""
        if self.path is None:
            return
        from evaltrans_qt.io.session import load_session, session_path
        if not session_path(self.path).exists():
            return
        try:
            sess = load_session(self.path)
        except EvalTransError as exc:
            self.message.emit(f"Session file ignored: {exc}")
            return
        self.options, self.measures = sess.options, sess.measures

    def run_measures(self) -> list[str]:
        """The measures a run computes now: the chosen ones the options enable."""
        from evaltrans_qt.engine.run.driver import default_measures
        if self.measures is None:
            return default_measures(self.options)
        skipped = skipped_measures(self.measures, self.options)
        return [m for m in self.measures if m not in skipped]

    def skipped(self) -> dict[str, str]:
        """Chosen measures a run would leave out, with the option each needs."""
        return skipped_measures(self.measures or [], self.options)

    # ------------------------------------------------------------ where runs compute
    #: ``("auto", "")`` = this machine; ``("dask", "tcp://host:8786")`` = a Dask scheduler
    #: (the options dialog's "Compute on"). Not an :class:`EvalOptions` field: it never
    #: changes a number, so it is neither in signatures nor in the session file.
    compute_on: tuple[str, str] = ("auto", "")
    _compute_executor = None

    def set_compute_on(self, kind: str, scheduler: str = "") -> None:
        """Where the next runs compute: ``auto`` (this machine) or ``dask`` at ``scheduler``
        (checked: :class:`~evaltrans_qt.errors.OptionError` naming the problem)."""
        from evaltrans_qt.errors import OptionError
        scheduler = scheduler.strip()
        if kind not in ("auto", "dask"):
            raise OptionError(f"compute on: unknown choice '{kind}' (auto or dask)")
        if kind == "dask" and not scheduler:
            raise OptionError("compute on: a Dask scheduler needs its address "
                              "(e.g. tcp://host:8786, what 'dask scheduler' prints)")
        new = (kind, scheduler if kind == "dask" else "")
        if new != self.compute_on:
            self.close_executor()
            self.compute_on = new

    def run_executor(self):
        """The executor of :attr:`compute_on`: None for this machine (the caller's own
        choice), else a :class:`~evaltrans_qt.engine.run.executors.dask.DaskExecutor`, kept
        across runs (one connection) until the choice changes or the workspace closes."""
        kind, scheduler = self.compute_on
        if kind == "auto":
            return None
        if self._compute_executor is None:
            from evaltrans_qt.engine.run.executors.choice import make_executor
            self._compute_executor = make_executor(kind, scheduler=scheduler)
        return self._compute_executor

    def close_executor(self) -> None:
        ex, self._compute_executor = self._compute_executor, None
        if ex is not None:
            ex.close()

    # ------------------------------------------------------------ runs
    def set_run(self, run: RunResult | None, origin: str = RUN,
                report_path: str | Path | None = None) -> None:
        """The results shown: a run computed on this data (RUN) or read from a report."""
        self.run = run
        self.run_origin = origin if run is not None else None
        self.report_path = Path(report_path) if report_path is not None else None
        self._run_data_version = self.data_version
        self.run_changed.emit()
        self.currency_changed.emit(self.run_is_current)

    @property
    def run_is_current(self) -> bool:
        return self.run is not None and not self.stale_reason()

    def stale_reason(self) -> str:
        """Why the results are not those of the current options and data ("" if they are)."""
        run = self.run
        if run is None:
            return ""
        if self.run_origin == REPORT:
            name = self.report_path.name if self.report_path else "a report"
            return f"read from {name}, not computed on this database"
        if self._run_data_version != self.data_version:
            return "the database changed since this run"
        if run.options != self.options:
            return "the evaluation options changed since this run"
        if set(run.measures) != set(self.run_measures()):
            return "the chosen measures changed since this run"
        return ""

    # ------------------------------------------------------------ session file
    def session_or_none(self):
        """The database's session; a damaged session file is kept aside as ``.bad`` (never
        overwritten) and a fresh session started; None without a path or if even that fails."""
        if self.path is None:
            return None
        from evaltrans_qt.io.session import Session, load_session, session_path
        try:
            return load_session(self.path)
        except EvalTransError as exc:
            sp = session_path(self.path)
            bad = sp.with_name(sp.name + ".bad")
            try:
                os.replace(sp, bad)
            except OSError:
                self.message.emit(f"Session file damaged and cannot be moved aside: {exc}")
                return None
            self.message.emit(f"Session file damaged ({exc}); kept as {bad.name}")
            return Session()

    def record_run(self, run: RunResult, seconds: float) -> None:
        """Append the run (with its options) to the session file's log."""
        sess = self.session_or_none()
        if sess is None:
            return
        sess.record_run(run.options, list(run.measures), list(run.systems),
                        time.strftime("%Y-%m-%dT%H:%M:%S"), seconds)
        self._save_session(sess, "Could not record the run")

    def _save_session(self, sess, what: str) -> None:
        from evaltrans_qt.io.session import save_session
        if self.path is None:
            return
        try:
            save_session(self.path, sess)
        except (OSError, EvalTransError) as exc:
            self.message.emit(f"{what}: {exc}")

    def close(self) -> None:
        """Close the journal, release the lock, close a remote executor."""
        if self.journal is not None:
            self.journal.close()
        self._take_lock(None)
        self.close_executor()


__all__ = ["Workspace", "SaveJob", "Commit", "modifies_database", "affects_results", "load_with_journal", "skipped_measures", "AUTOSAVE_MS", "RUN", "REPORT", "KEEP"]
