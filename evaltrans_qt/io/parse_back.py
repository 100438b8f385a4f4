"""The parse-back of a large database's bytes (:func:`~evaltrans_qt.io.etdb.writer.parse_back`:
a file that would not load is never written) in a forked copy of the process, while this
one writes the bytes to their temp file (``io/atomic.py``).

Reading a WMT-sized database back takes seconds and freeing what it read a good part of a
second more; a forked copy does the reading and exits without freeing anything, and only
its verdict comes back. Forked only from a single-threaded process without Qt (the command
line: :func:`may_fork`, the rule of the metric run's executor,
:func:`~evaltrans_qt.engine.run.executors.local.default_start_method`, plus Qt) and for at least
:data:`FORK_BYTES`; otherwise, and if the copy dies, the bytes are read back here. The
error is the same either way (:func:`~evaltrans_qt.io.etdb.writer.not_loadable`).
"""

from __future__ import annotations

import multiprocessing as mp
import os
from multiprocessing.connection import Connection

from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.etdb.writer import not_loadable, parse_back

PathLike = str | os.PathLike[str]

#: Smallest serialised database read back in a forked process (below it, a fork costs
#: more than it saves).
FORK_BYTES = 8_000_000


def _child(conn: Connection, data: bytes, path: PathLike | None) -> None:
    """In the forked copy: read ``data`` back, send None or (problem, line), and exit
    without freeing what was read."""
    from evaltrans_qt.io.etdb.reader import loads
    try:
        loads(data, path)
        conn.send(None)
    except EvalTransError as exc:
        conn.send((exc.problem, exc.line))
    except BaseException as exc:            # a reader bug: the parent reads it back itself
        conn.send(("?", repr(exc)))
    finally:
        conn.close()
        os._exit(0)


class ParseBack:
    """A started parse-back: :meth:`wait` for its verdict (:class:`SaveError` when the bytes
    would not load), :meth:`close` to stop it."""

    def __init__(self, data: bytes, path: PathLike | None) -> None:
        self.data, self.path = data, path
        self._proc: mp.process.BaseProcess | None = None
        self._conn: Connection | None = None
        if len(data) >= FORK_BYTES and may_fork():
            ctx = mp.get_context("fork")
            parent, child = ctx.Pipe(duplex=False)
            self._proc = ctx.Process(target=_child, args=(child, data, path), daemon=True)
            self._proc.start()
            child.close()
            self._conn = parent
        else:
            parse_back(data, path)

    def wait(self) -> None:
        """Return when the bytes load again; :class:`SaveError` naming the problem if not."""
        if self._conn is None:
            return
        try:
            verdict = self._conn.recv()
        except (EOFError, OSError):
            verdict = ("?", "the process reading it back ended")
        finally:
            self.close()
        if verdict is None:
            return
        if verdict[0] == "?":                # not a verdict: read it back here
            parse_back(self.data, self.path)
            return
        raise not_loadable(verdict[0], verdict[1], self.path)

    def close(self) -> None:
        """Stop the forked reader (if any) and wait for it."""
        conn, proc, self._conn, self._proc = self._conn, self._proc, None, None
        if conn is not None:
            conn.close()
        if proc is not None:
            if proc.is_alive():
                proc.kill()
            proc.join()


def may_fork() -> bool:
    """Single-threaded (:func:`default_start_method`) and without Qt: the application's
    Qt threads are invisible to ``threading``, so a process that loaded Qt never forks."""
    import sys

    from evaltrans_qt.engine.run.executors.local import default_start_method
    return "PySide6.QtCore" not in sys.modules and default_start_method() == "fork"


__all__ = ["FORK_BYTES", "ParseBack", "may_fork"]
