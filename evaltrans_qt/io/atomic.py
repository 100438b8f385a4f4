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

Usage::

    atomic_write_bytes(path, data)
    with atomic_writer(path, "w", encoding="utf-8") as fh:
        fh.write(text)
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
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
    directory = target.parent if str(target.parent) else Path(".")
    clean_stale_temps(target)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp",
                                        dir=directory)
    except OSError as exc:
        raise SaveError(f"cannot create a file in {directory}: {exc.strerror or exc}", target) from exc
    tmp = Path(tmp_name)
    with _active_lock:
        _active.add(str(tmp))
    try:
        with open(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if target.exists():
            # keep the permissions of the file we replace
            with contextlib.suppress(OSError):
                os.chmod(tmp, target.stat().st_mode & 0o7777)
        else:
            with contextlib.suppress(OSError):
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
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
    fsync_dir(directory)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see module docstring)."""
    with atomic_writer(path, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically, with ``\\n`` line ends."""
    atomic_write_bytes(path, text.encode(encoding))
