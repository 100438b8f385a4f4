"""Atomic file writes: temp file in the target's directory, fsync, ``os.replace``.

A reader of ``path`` sees either the complete old file or the complete new
one, never a partial write (SPEC §3.1 "Save is atomic"). If anything fails
before the rename, the temp file is removed and the old file is untouched;
the failure is raised as :class:`~evaltrans_qt.errors.SaveError`.

Usage::

    atomic_write_bytes(path, data)
    with atomic_writer(path, "w", encoding="utf-8") as fh:
        fh.write(text)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from evaltrans_qt.errors import SaveError


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
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise SaveError(f"cannot create a file in {directory}: {exc.strerror or exc}", target) from exc
    tmp = Path(tmp_name)
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
    fsync_dir(directory)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see module docstring)."""
    with atomic_writer(path, "wb") as fh:
        fh.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically, with ``\\n`` line ends."""
    atomic_write_bytes(path, text.encode(encoding))
