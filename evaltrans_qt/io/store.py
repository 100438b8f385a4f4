"""One way to open and one way to write an EvalTrans database file, so that neither the
application nor a command loses what the other did.

* :func:`open_database` reads the file, replays a pending journal beside it in memory
  (scores, protocol changes, rankings: every entry the application journals), so every
  reader sees what the application would show, and records the file's
  :class:`FileIdentity` (size, mtime, inode and a hash of the bytes read).
* :func:`write_database` writes through the validated atomic path
  (:func:`~evaltrans_qt.io.etdb.checked_bytes` + ``io/atomic.py``, what
  :func:`~evaltrans_qt.io.etdb.save_database` does) and, over the file that was opened,
  refuses when the file changed on disk since it was read (:class:`DatabaseChangedError`)
  and folds the journal: its replayed entries are in the written file, so they are removed
  from the journal -- after the file is in place, so a crash in between leaves a journal
  whose replay is idempotent. Writing over a file another process holds open (its
  advisory lock) is refused (:class:`DatabaseLockedError`) unless ``force``.
* The advisory lock ``NAME.etdb.xml.lock`` (JSON: pid, host, process start time, program,
  token, docs/journal.md) says that a program holds the database open (:func:`acquire_lock`,
  :func:`release_lock`, :func:`lock_holder`); a lock of a dead process on this host is
  stale and taken over.

Usage::

    opened = open_database(path)
    if opened.note:
        print(f"{path}: {opened.note}", file=sys.stderr)
    change(opened.database)
    write_database(opened, path)            # or another path (-o OTHER)
    write_database(opened.database, path)   # the same: the Database remembers its file

Qt-free; the workspace (``workspace.py``) uses the same identity and lock.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import socket
import time
import uuid
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import InputFormatError, SaveError
from evaltrans_qt.io.atomic import (
    Staged,
    commit_staged,
    discard_staged,
    fsync_dir,
    pid_alive,
    stage_bytes,
)
from evaltrans_qt.io.journal import (
    FORMAT_VERSION,
    Change,
    Journal,
    ReplayReport,
    journal_path,
    replay,
)
from evaltrans_qt.io.plaintext import read_bounded

PathLike = str | os.PathLike[str]
#: Version of the lock file's JSON.
LOCK_VERSION = 1
#: Program name written into locks the application takes.
APPLICATION = "evaltrans-qt"
#: A lock file that cannot be read (a process died between creating and writing it)
#: counts as stale once it is this old (seconds).
UNREADABLE_LOCK_SECONDS = 30.0
_HOST = socket.gethostname()


# --------------------------------------------------------------------------- errors
class DatabaseChangedError(SaveError):
    """The file changed on disk since it was read; nothing was written."""


@dataclass
class DatabaseLockedError(SaveError):
    """Another process holds the database open (its advisory lock); nothing was written."""

    holder: LockInfo | None = None


class PendingJournalError(SaveError):
    """Writing would orphan unsaved judgements of the journal beside the file."""


# --------------------------------------------------------------------------- identity
@dataclass(frozen=True)
class FileIdentity:
    """What a file was when it was read or written: stat fields plus a content hash
    (``digest``: SHA-256 hex of its bytes; None when only the stat is known)."""

    size: int
    mtime_ns: int
    inode: int
    digest: str | None = None

    @classmethod
    def of(cls, st: os.stat_result, data: bytes | None = None) -> FileIdentity:
        """The identity of a file with stat ``st`` and content ``data`` (if known)."""
        return cls(st.st_size, st.st_mtime_ns, st.st_ino,
                   None if data is None else hashlib.sha256(data).hexdigest())

    def same_stat(self, st: os.stat_result) -> bool:
        return (st.st_size, st.st_mtime_ns, st.st_ino) == (self.size, self.mtime_ns, self.inode)

    def matches(self, other: FileIdentity) -> bool:
        """Whether ``other`` is the same content: equal stat, else equal hashes."""
        if (other.size, other.mtime_ns, other.inode) == (self.size, self.mtime_ns, self.inode):
            return True
        return self.digest is not None and self.digest == other.digest


def _read_with_identity(path: PathLike) -> tuple[bytes, FileIdentity]:
    """The file's bytes and their identity (the stat of the very file read: a concurrent
    atomic replace does not mix two files); errors as the database reader words them."""
    for _ in range(5):
        try:
            with open(path, "rb") as fh:
                before = os.fstat(fh.fileno())
                data = read_bounded(fh, path, "an EvalTrans database file")   # no /dev/zero
                after = os.fstat(fh.fileno())
        except FileNotFoundError:
            raise InputFormatError("file not found", path) from None
        except IsADirectoryError:
            raise InputFormatError("is a directory, expected an EvalTrans database file",
                                   path) from None
        except OSError as exc:
            raise InputFormatError(f"cannot read: {exc.strerror or exc}", path) from None
        if (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns) \
                and len(data) == after.st_size:
            return data, FileIdentity.of(after, data)
        time.sleep(0.05)                   # written in place while we read: read again
    return data, FileIdentity.of(after, data)


def disk_identity(path: PathLike, known: FileIdentity | None = None) -> FileIdentity | None:
    """The identity of the file at ``path`` now (None if there is none). Costs one
    ``stat`` when the stat matches ``known``; the file is read and hashed only when its
    size is still ``known``'s but mtime or inode differ (another size is another content)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if known is not None:
        if known.same_stat(st):
            return known
        if st.st_size != known.size or known.digest is None:
            return FileIdentity.of(st)     # surely other content / no hash to compare with
    try:
        return _read_with_identity(path)[1]
    except InputFormatError:
        return None


def unchanged_on_disk(path: PathLike, known: FileIdentity) -> bool:
    """Whether the file at ``path`` is still the one ``known`` describes (its content:
    a touched but equal file is unchanged). A removed file has changed."""
    now = disk_identity(path, known)
    return now is not None and known.matches(now)


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether two paths name the same file (the same existing file, else equal resolved)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


# --------------------------------------------------------------------------- opening
@dataclass
class FileRead:
    """What :func:`open_database` learnt about the file it read a database from."""

    path: Path
    #: The file as it was read (updated by each write of the database to it).
    identity: FileIdentity
    #: What the journal replay did (None: no journal, or not replayed).
    recovered: ReplayReport | None = None
    #: The journal entries replayed into the database and not yet written to the file.
    journal_entries: tuple[Change, ...] = ()
    #: Raw journal lines skipped as malformed when it was read.
    skipped_lines: tuple[bytes, ...] = ()
    #: Whether the journal was replayed (``replay_journal``).
    replayed: bool = True
    #: Entries the journal held but that were not replayed (``replay_journal=False``).
    not_replayed: int = 0


@dataclass
class Opened:
    """A database read by :func:`open_database` and what :func:`write_database` needs to
    write it back safely (:attr:`read`)."""

    database: Database
    read: FileRead

    @property
    def path(self) -> Path:
        return self.read.path

    @property
    def identity(self) -> FileIdentity:
        return self.read.identity

    @property
    def recovered(self) -> ReplayReport | None:
        return self.read.recovered

    @property
    def unsaved(self) -> int:
        """Judgements from the journal included in :attr:`database` (not yet in the file)."""
        return len(self.read.recovered.applied) if self.read.recovered is not None else 0

    @property
    def note(self) -> str | None:
        """The one line for stderr about the journal ("N unsaved judgements from the
        journal included"), or None when there was nothing to say."""
        rec, skipped = self.read.recovered, self.read.not_replayed
        if skipped:
            return f"{skipped} unsaved judgement{_s(skipped)} in the journal not included"
        if rec is None:
            return None
        text = f"{self.unsaved} unsaved judgement{_s(self.unsaved)} from the journal included"
        bad = len(rec.missing) + len(rec.rejected) + len(rec.skipped)
        if bad:
            first = rec.rejected[0][1] if rec.rejected else \
                rec.skipped[0][1] if rec.skipped else "their sentence is not in the database"
            text += f"; {bad} could not be applied (first: {first})"
        return text


def _s(n: int) -> str:
    return "" if n == 1 else "s"


# What open_database read each live Database object from (its FileRead, which holds no
# reference to the database), so that a caller that kept only the Database -- the
# application's loader, a command's helper -- still writes it back safely.
_READ: dict[int, tuple[weakref.ref[Database], FileRead]] = {}


def _register(db: Database, read: FileRead) -> None:
    key = id(db)
    _READ[key] = (weakref.ref(db, lambda _r: _READ.pop(key, None)), read)


def opened_of(db: Database) -> Opened | None:
    """``db`` with the :class:`FileRead` of the file :func:`open_database` read it from
    (None if it did not come from there)."""
    entry = _READ.get(id(db))
    if entry is None or entry[0]() is not db:
        return None
    return Opened(db, entry[1])


def identity_when_read(db: Database, path: PathLike) -> FileIdentity | None:
    """The identity of ``path`` as last read (or written) for ``db`` (None if ``db`` was
    not read from that path by :func:`open_database`)."""
    opened = opened_of(db)
    return opened.identity if opened is not None and same_file(opened.path, path) else None


def open_database(path: PathLike, *, replay_journal: bool = True) -> Opened:
    """Read the database at ``path`` and (``replay_journal``) replay the journal beside it
    in memory -- the file is not changed. :class:`InputFormatError`/:class:`ScoreError`
    name file, line and problem."""
    from evaltrans_qt.io.etdb import loads
    p = Path(path)
    journal = Journal(journal_path(p))
    for _ in range(20):
        # file and journal as one pair: a writer replaces the file first and then folds
        # the journal, so a file that did not change while the journal was read goes with
        # that journal (otherwise a save in between would hide judgements from this read)
        data, identity = _read_with_identity(p)
        entries = journal.entries()
        try:
            if identity.same_stat(os.stat(p)):
                break
        except OSError:
            break
        time.sleep(0.02)
    db = loads(data, p)
    read = FileRead(p, identity, replayed=replay_journal)
    if replay_journal and (entries or journal.skipped):
        report = replay(db, entries)
        report.skipped = list(journal.skipped)
        read.recovered = report
        read.journal_entries = tuple(entries)
        read.skipped_lines = tuple(journal.skipped_lines)
    elif not replay_journal:
        read.not_replayed = len(entries)
    _register(db, read)
    return Opened(db, read)


# --------------------------------------------------------------------------- writing
@dataclass(frozen=True)
class Written:
    """What :func:`write_database` did."""

    path: Path
    #: The identity of the file written.
    identity: FileIdentity
    #: Journal entries folded into the file (removed from the journal beside it).
    folded: int = 0
    #: Where journal entries that could not be applied (or were replaced) were kept.
    set_aside: Path | None = None


def save_with_identity(db: Database, path: PathLike,
                       also: Iterable[tuple[PathLike, bytes]] = (), *,
                       before_write: Callable[[], None] | None = None) -> FileIdentity:
    """:func:`~evaltrans_qt.io.etdb.save_database` returning the identity of the file
    written (its stat and the hash of the bytes, no second read): the bytes are staged in
    temp files while they are read back (:class:`~evaltrans_qt.io.parse_back.ParseBack`),
    and renamed into place once they passed. ``also``: other files staged with them and
    renamed before the database. ``before_write``: called once the bytes passed, just
    before the renames (a check that raises stops the write)."""
    from evaltrans_qt.io.etdb.writer import serialised
    from evaltrans_qt.io.parse_back import ParseBack
    data = serialised(db, path)
    check = ParseBack(data, path)         # a large file's read back meanwhile (forked)
    # the database and ``also`` as one unit (io/atomic.py): all staged, then all renamed
    staged: list[Staged] = []
    try:
        for other, content in also:
            staged.append(stage_bytes(other, content))
        staged.append(stage_bytes(path, data))
        check.wait()
        if before_write is not None:
            before_write()
    except BaseException:
        check.close()
        discard_staged(staged)
        raise
    commit_staged(staged)
    identity = FileIdentity.of(staged[-1].stat, data)   # rename keeps size, mtime and inode
    opened = opened_of(db)
    if opened is not None and same_file(opened.path, path):
        opened.read.identity = identity  # the file is now this one, with everything in db
        opened.read.journal_entries, opened.read.skipped_lines = (), ()
    return identity


def check_not_locked(path: PathLike, own: LockInfo | None = None, *, force: bool = False) -> None:
    """:class:`DatabaseLockedError` if a live process other than the holder of ``own``
    holds ``path``'s lock (nothing when ``force``)."""
    if force:
        return
    holder = lock_holder(path)
    if holder is not None and (own is None or holder.token != own.token):
        raise DatabaseLockedError(
            f"{holder.describe()}: close it there or write elsewhere with -o "
            f"(--force writes anyway, which is unsafe: that program may overwrite it)",
            path, holder=holder)


def write_database(opened_or_db: Opened | Database, path: PathLike, *, force: bool = False,
                   also: Iterable[tuple[PathLike, bytes]] = (),
                   lock: LockInfo | None = None,
                   includes: Iterable[Opened | Database] = ()) -> Written:
    """Write a database to ``path``, the one way (module doc).

    Over the file ``opened_or_db`` was opened from (also when only the Database that
    :func:`open_database` returned is given): :class:`DatabaseChangedError` if it
    changed on disk since; the journal entries included are removed from its journal after
    the write (entries that could not be applied are kept in ``NAME.journal.unapplied``).
    Anywhere: :class:`DatabaseLockedError` if another process holds the file open
    (unless ``force``; ``lock``: our own lock, which does not count), and
    :class:`PendingJournalError` if the file's journal holds judgements this write would
    orphan (with ``force`` they are moved to ``NAME.journal.replaced``).
    ``includes``: other opened databases whose content the written one includes (``merge A
    B -o B``): written over the file one of them was opened from, that one counts as
    opened (checked, its journal folded)."""
    target = Path(path)
    db = opened_or_db.database if isinstance(opened_or_db, Opened) else opened_or_db
    candidates = [x if isinstance(x, Opened) else opened_of(x) for x in (opened_or_db, *includes)]
    opened = next((o for o in candidates if o is not None and same_file(target, o.path)), None)
    in_place = opened is not None

    def check() -> None:
        check_not_locked(target, lock, force=force)
        if opened is not None and in_place and not unchanged_on_disk(target, opened.identity):
            raise DatabaseChangedError("changed on disk since this command read it; nothing "
                                       "was written (run the command again)", target)

    check()                                  # before serialising, and again right before writing
    jp = journal_path(target)
    theirs = Journal(jp)
    pending = [] if in_place and opened is not None and opened.read.replayed \
        else theirs.entries()
    set_aside = None
    if pending and not force:
        why = "this command read it without its journal" if in_place else \
            "this write replaces the file they belong to"
        raise PendingJournalError(
            f"{len(pending)} unsaved judgement{_s(len(pending))} in {jp.name} would be "
            f"orphaned: {why}; open it first (evaltrans-qt, or a command that includes "
            f"the journal) or write elsewhere", target)
    done = (opened.read.journal_entries, opened.read.skipped_lines) \
        if in_place and opened is not None else ((), ())
    identity = save_with_identity(db, target, also, before_write=check)
    if opened is not None:                   # the file is now this one (also when included)
        opened.read.identity = identity
        opened.read.journal_entries, opened.read.skipped_lines = (), ()
    folded = 0
    if pending:                              # forced: keep them, out of the way
        set_aside = _set_aside(jp, ".replaced", [e.to_json().encode() for e in pending]
                               + [raw.rstrip(b"\n") for raw in theirs.skipped_lines])
        Journal(jp).drop(pending, drop_malformed=True)
    elif opened is not None and (done[0] or done[1]):
        folded, set_aside = _fold(jp, opened.read.recovered, *done)
    return Written(target, identity, folded, set_aside)


def _fold(jp: Path, rec: ReplayReport | None, entries: tuple[Change, ...],
          skipped_lines: tuple[bytes, ...]) -> tuple[int, Path | None]:
    """Remove the replayed ``entries`` from the journal (the written file has them); keep
    those that could not be applied, and malformed lines, in ``.unapplied``."""
    lost: list[bytes] = []
    if rec is not None:
        lost += [c.to_json().encode() for c in rec.missing]
        lost += [c.to_json().encode() for c, _why in rec.rejected]
    lost += [line.rstrip(b"\n") for line in skipped_lines]
    set_aside = _set_aside(jp, ".unapplied", lost) if lost else None
    Journal(jp).drop(entries, drop_malformed=True)
    return (len(rec.applied) if rec is not None else 0), set_aside


def keep_unapplied(journal: PathLike, report: ReplayReport,
                   malformed: Iterable[bytes] = ()) -> Path | None:
    """Append the entries ``report``'s replay could not apply (their sentence missing, or
    rejected) and ``malformed`` raw lines to ``NAME.journal.unapplied`` beside ``journal``
    (what an in-place write does when it folds the journal), before a save clears the
    journal; returns that file, or None when there was nothing to keep."""
    lines = [c.to_json().encode() for c in report.missing]
    lines += [c.to_json().encode() for c, _why in report.rejected]
    lines += [raw.rstrip(b"\n") for raw in malformed]
    return _set_aside(Path(journal), ".unapplied", lines) if lines else None


def _set_aside(jp: Path, suffix: str, lines: list[bytes]) -> Path:
    """Append ``lines`` to ``<journal><suffix>`` (a journal-format file, fsync-ed)."""
    aside = jp.with_name(jp.name + suffix)
    new = not aside.exists() or aside.stat().st_size == 0
    head = [json.dumps({"evaltrans-journal": FORMAT_VERSION}).encode()] if new else []
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, b"\n".join(head + lines) + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    if new:
        fsync_dir(aside.parent)
    return aside


# --------------------------------------------------------------------------- lock
@dataclass(frozen=True)
class LockInfo:
    """A database's advisory lock: who holds it open (``NAME.etdb.xml.lock``)."""

    database: Path
    pid: int
    host: str
    #: When the holding process started (ISO 8601, UTC): with ``pid`` it names the process.
    started: str
    program: str = APPLICATION
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    #: The process's start in clock ticks since boot (Linux ``/proc``; None elsewhere):
    #: unlike wall-clock times it tells a reused pid for sure.
    start_ticks: int | None = None

    @property
    def path(self) -> Path:
        return lock_path(self.database)

    def describe(self) -> str:
        """``open in evaltrans-qt, pid N`` (with the host when it is another machine)."""
        if self.pid <= 0:
            return f"locked ({self.path.name} is being written by another program)"
        on = f" on {self.host}" if self.host != _HOST else ""
        return f"open in {self.program}{on}, pid {self.pid}"

    @property
    def stale(self) -> bool:
        """Whether the holder is gone: a dead (or since reused) pid on this host (pid 0:
        a lock being written just now; pid -1: an unreadable, old lock)."""
        if self.host != _HOST or self.pid == 0:
            return False
        if not pid_alive(self.pid):
            return True
        now = _start_ticks(self.pid)
        return self.start_ticks is not None and now is not None and now != self.start_ticks

    def to_json(self) -> str:
        d: dict[str, object] = {"evaltrans-lock": LOCK_VERSION, "pid": self.pid,
                                "host": self.host, "started": self.started,
                                "program": self.program, "token": self.token}
        if self.start_ticks is not None:
            d["start_ticks"] = self.start_ticks
        return json.dumps(d, ensure_ascii=False)


def lock_path(database_path: PathLike) -> Path:
    """The lock beside a database: ``name.etdb.xml`` -> ``name.etdb.xml.lock``."""
    p = Path(database_path)
    return p.with_name(p.name + ".lock")


def _start_ticks(pid: int) -> int | None:
    """Start of process ``pid`` in clock ticks since boot, from /proc (None where unknown)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _process_start(pid: int) -> float | None:
    """Start time (epoch seconds) of process ``pid`` from /proc (None where unknown)."""
    ticks = _start_ticks(pid)
    try:
        btime = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                     if line.startswith("btime "))
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    return None if ticks is None else btime + ticks / os.sysconf("SC_CLK_TCK")


def _iso(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.UTC).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")


def _read_lock(database: Path) -> LockInfo | None:
    """The lock's holder; None if there is no lock file. A lock that cannot be read is a
    holder with pid 0 unless it is older than :data:`UNREADABLE_LOCK_SECONDS` (stale)."""
    lp = lock_path(database)
    try:
        raw = lp.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        raw = b""
    try:
        d = json.loads(raw.decode("utf-8"))
        ticks = d.get("start_ticks")
        return LockInfo(database, int(d["pid"]), str(d["host"]), str(d.get("started", "")),
                        str(d.get("program", APPLICATION)), str(d["token"]),
                        ticks if isinstance(ticks, int) and not isinstance(ticks, bool) else None)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AttributeError):
        try:
            age = time.time() - lp.stat().st_mtime
        except OSError:
            return None
        return LockInfo(database, -1 if age > UNREADABLE_LOCK_SECONDS else 0, _HOST, "",
                        "an unknown program", token="unreadable:" + raw.hex()[:64])


def lock_holder(path: PathLike) -> LockInfo | None:
    """Who holds the database at ``path`` open: a live lock's :class:`LockInfo`, or None
    (no lock, or a stale one)."""
    info = _read_lock(Path(path))
    return None if info is None or info.stale else info


def acquire_lock(path: PathLike, program: str = APPLICATION) -> LockInfo:
    """Take the advisory lock of the database at ``path`` (created atomically,
    ``O_CREAT|O_EXCL``); a stale lock is taken over. :class:`DatabaseLockedError` if a
    live process holds it, :class:`OSError` if the lock file cannot be written."""
    database = Path(path)
    lp = lock_path(database)
    pid = os.getpid()
    me = LockInfo(database, pid, _HOST, _iso(_process_start(pid) or time.time()), program,
                  start_ticks=_start_ticks(pid))
    data = (me.to_json() + "\n").encode("utf-8")
    for _ in range(20):
        try:
            fd = os.open(lp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = _read_lock(database)
            if holder is not None and not holder.stale:
                raise DatabaseLockedError(holder.describe(), database, holder=holder) from None
            _remove_stale(database, holder)
            continue
        try:
            os.write(fd, data)
            os.fsync(fd)
        except OSError:
            os.close(fd)
            with contextlib.suppress(OSError):
                lp.unlink()
            raise
        os.close(fd)
        fsync_dir(lp.parent)
        return me
    raise DatabaseLockedError("its lock is being taken over by another process; try again",
                              database)


def _remove_stale(database: Path, seen: LockInfo | None) -> None:
    """Remove the stale lock ``seen`` -- only if it is still that one, under a guard file
    so that two processes taking over at once do not remove each other's new lock."""
    lp = lock_path(database)
    guard = lp.with_name(lp.name + ".takeover")
    try:
        fd = os.open(guard, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        with contextlib.suppress(OSError):
            if time.time() - guard.stat().st_mtime > UNREADABLE_LOCK_SECONDS:
                guard.unlink()               # left by a process that died taking over
        time.sleep(0.05)
        return
    os.close(fd)
    try:
        now = _read_lock(database)
        if now is not None and (seen is None or now.token == seen.token):
            lp.unlink(missing_ok=True)
    finally:
        guard.unlink(missing_ok=True)


def release_lock(lock: LockInfo) -> None:
    """Remove ``lock`` -- only if the lock file is still this one (never another's)."""
    now = _read_lock(lock.database)
    if now is not None and now.token == lock.token:
        with contextlib.suppress(FileNotFoundError):
            lock.path.unlink()


__all__ = ["APPLICATION", "DatabaseChangedError", "DatabaseLockedError", "FileIdentity",
           "FileRead", "LockInfo", "Opened", "opened_of", "PendingJournalError", "Written", "acquire_lock",
           "keep_unapplied",
           "check_not_locked", "disk_identity", "identity_when_read", "lock_holder",
           "lock_path", "open_database", "release_lock", "same_file", "save_with_identity",
           "unchanged_on_disk", "write_database"]
