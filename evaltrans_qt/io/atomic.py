"""Atomic file writes: temp file in the target's directory, fsync, ``os.replace``.

A reader of ``path`` sees either the complete old file or the complete new
one, never a partial write. If anything fails
before the rename, the temp file is removed and the old file is untouched;
the failure is raised as :class:`~evaltrans_qt.errors.SaveError`.

Temp files are named ``.NAME.<pid>.<random>.tmp``. A process killed mid-save
(SIGKILL, power loss) cannot remove its temp file; the next save of the same
``NAME`` removes every such leftover whose process is gone (or that this
process no longer writes), and older ``.NAME.<random>.tmp`` files without a pid
once they are :data:`STALE_SECONDS` old (:func:`clean_stale_temps`).

Several files that belong together (an export's files, a database and the file
written with it) are written all-or-nothing by :func:`atomic_write_files`: every file is
first staged (written and fsynced as its temp file) and only when all of them are, the
temp files are renamed over their targets. A failure while staging (a full disk, an
unwritable folder) removes the staged temp files and leaves every old file as it was;
renames within a folder need no space, so the set is not torn by a full disk.

Usage::

    atomic_write_bytes(path, data)
    with atomic_writer(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    atomic_write_files([(path1, data1), (path2, data2)])
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from evaltrans_qt.errors import SaveError

_log = logging.getLogger(__name__)
#: Age after which a temp file without a pid in its name counts as a crash's leftover.
STALE_SECONDS = 600.0
_active: set[str] = set()          # temp files this process is writing right now
_active_lock = threading.Lock()


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (signal 0; EPERM counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:                # e.g. EPERM: it exists, owned by someone else
        return True
    return True


def clean_stale_temps(path: str | os.PathLike[str]) -> list[Path]:
    """Remove temp files left beside ``path`` by saves that died (see module doc).

    Returns the removed files; files that cannot be removed are left alone.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    prefix = f".{target.name}."
    pattern = re.compile(re.escape(prefix) + r"(?:(?P<pid>[0-9]+)\.)?[a-z0-9_]{8}\.tmp")
    removed: list[Path] = []
    try:
        names = [e.name for e in os.scandir(directory) if e.name.startswith(prefix)]
    except OSError:
        return removed
    now = time.time()
    for name in names:
        m = pattern.fullmatch(name)
        if m is None:
            continue
        tmp = directory / name
        with _active_lock:
            if str(tmp) in _active:
                continue
        pid = m["pid"]
        if pid is not None:
            stale = int(pid) == os.getpid() or not pid_alive(int(pid))
        else:
            try:
                stale = now - tmp.stat().st_mtime > STALE_SECONDS
            except OSError:
                continue
        if stale:
            try:
                tmp.unlink()
            except OSError:
                continue
            removed.append(tmp)
            _log.warning("removed %s, left behind by an interrupted save", tmp)
    return removed


def fsync_dir(directory: Path) -> None:
    """Persist the rename itself (POSIX; silently skipped where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _copy_mode(tmp: Path, target: Path) -> None:
    """Give ``tmp`` the permissions of the file it replaces (or the umask's for a new one)."""
    if target.exists():
        with contextlib.suppress(OSError):
            os.chmod(tmp, target.stat().st_mode & 0o7777)
    else:
        with contextlib.suppress(OSError):
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)


def _temp_beside(target: Path) -> tuple[int, Path]:
    """A new temp file beside ``target`` (``.NAME.PID.XXXXXXXX.tmp``; stale ones of dead
    processes removed first): its descriptor and path. :class:`SaveError` if the folder
    does not take one."""
    directory = target.parent if str(target.parent) else Path(".")
    clean_stale_temps(target)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp",
                                        dir=directory)
    except OSError as exc:
        raise SaveError(f"cannot create a file in {directory}: {exc.strerror or exc}",
                        target) from exc
    return fd, Path(tmp_name)


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "wb", *,
                  encoding: str | None = None, newline: str | None = None) -> Iterator[IO[Any]]:
    """Open a temp file beside ``path``; on clean exit fsync and rename it over ``path``.

    If the ``with`` body raises, the temp file is deleted, ``path`` is left as
    it was and the exception propagates (OSError becomes :class:`SaveError`).
    """
    if mode not in ("w", "wb", "wt"):
        raise ValueError(f"atomic_writer mode must be 'w' or 'wb', not {mode!r}")
    target = Path(path)
    fd, tmp = _temp_beside(target)
    with _active_lock:
        _active.add(str(tmp))
    try:
        with open(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _copy_mode(tmp, target)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and not isinstance(exc, SaveError):
            raise SaveError(f"cannot write: {exc.strerror or exc}; the previous file is unchanged",
                            target) from exc
        raise
    finally:
        with _active_lock:
            _active.discard(str(tmp))
    fsync_dir(tmp.parent)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see module docstring)."""
    with atomic_writer(path, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically, with ``\\n`` line ends."""
    atomic_write_bytes(path, text.encode(encoding))


@dataclass(frozen=True)
class Staged:
    """A file written and fsynced as its temp file beside ``target``, not yet renamed."""

    tmp: Path
    target: Path
    #: ``os.fstat`` of the temp file (the rename keeps size, mtime and inode).
    stat: os.stat_result


def stage_bytes(path: str | os.PathLike[str], data: bytes) -> Staged:
    """Write ``data`` to a temp file beside ``path`` and fsync it (:func:`commit_staged`
    renames it, :func:`discard_staged` removes it); :class:`SaveError` on failure, with
    nothing left behind."""
    target = Path(path)
    fd, tmp = _temp_beside(target)
    with _active_lock:
        _active.add(str(tmp))
    try:
        with open(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            st = os.fstat(fh.fileno())
        _copy_mode(tmp, target)
    except BaseException as exc:
        discard_staged([Staged(tmp, target, os.stat_result((0,) * 10))])
        if isinstance(exc, OSError):
            raise SaveError(f"cannot write: {exc.strerror or exc}; the previous file is "
                            "unchanged", target) from exc
        raise
    return Staged(tmp, target, st)


def discard_staged(staged: Iterable[Staged]) -> None:
    """Remove staged temp files (their targets stay as they were)."""
    for s in staged:
        with contextlib.suppress(OSError):
            s.tmp.unlink()
        with _active_lock:
            _active.discard(str(s.tmp))


def commit_staged(staged: Sequence[Staged]) -> None:
    """Rename every staged temp file over its target, in order, then persist the renames."""
    try:
        for s in staged:
            try:
                os.replace(s.tmp, s.target)
            except OSError as exc:
                raise SaveError(f"cannot rename the written file into place: "
                                f"{exc.strerror or exc}", s.target) from exc
    finally:
        discard_staged(staged)          # only what was not renamed still exists
    for directory in dict.fromkeys(s.target.parent for s in staged):
        fsync_dir(directory if str(directory) else Path("."))


def atomic_write_files(files: Iterable[tuple[str | os.PathLike[str], bytes]]) -> list[Path]:
    """Write several files all-or-nothing (module doc); returns the targets in order.
    :class:`SaveError` naming the file that failed, with no file of the set changed."""
    staged: list[Staged] = []
    try:
        for path, data in files:
            staged.append(stage_bytes(path, data))
    except SaveError as exc:
        discard_staged(staged)
        raise SaveError(f"{exc.problem.removesuffix('; the previous file is unchanged')}; "
                        "no file of the set was changed (they are written together)",
                        exc.path) from exc
    except BaseException:
        discard_staged(staged)
        raise
    commit_staged(staged)
    return [s.target for s in staged]
