"""Progress of the long commands on stderr (``--progress auto|always|never``).

``auto`` (the default): a one-line bar redrawn in place on a terminal; otherwise -- under
``nohup``, a job scheduler, a pipe to a log file -- one plain line every
:data:`LOG_INTERVAL` seconds (``evaltrans: 42% INVWER: 126 of 300 sentence pairs, ~3 min
left, 2 min elapsed``) and one at the end, so a long run is visible in its log (a run
shorter than that logs nothing).
``always``: the bar even when stderr is not a terminal; ``never``: nothing but warnings.

Before the first computation after an installation or an update, numba compiles the
kernels (``engine/kernels``, cached on disk with ``cache=True``; about a minute): when
their cache is missing the bar says so first (``compiling kernels (first run only)...``),
:meth:`ProgressBar.announce_compilation`.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from evaltrans_qt.engine.run.schedule import format_seconds

if TYPE_CHECKING:       # light at import: commands register --progress without the engine
    from evaltrans_qt.engine.run.driver import Progress

PROGRESS_MODES = ("auto", "always", "never")
#: Seconds between two progress lines when stderr is not a terminal (``--progress auto``).
LOG_INTERVAL = 10.0


def add_progress_argument(p: argparse.ArgumentParser | argparse._ArgumentGroup,
                          default: str | None = "auto",
                          default_text: str = "auto") -> None:
    """``--progress auto|always|never`` of a command that computes for long (``default``
    None: the command decides, ``default_text`` says how)."""
    p.add_argument("--progress", choices=PROGRESS_MODES, default=default,
                   help="progress on stderr: auto = a bar on a terminal, otherwise a line "
                        f"every {LOG_INTERVAL:.0f} s (for logs); always = the bar; never = "
                        f"none (default {default_text})")


class ProgressBar:
    """Progress of a run (:class:`~evaltrans_qt.engine.run.driver.Progress` events) on
    ``stream`` (stderr): percent of the units of work, what is running (for INVWER:
    ``INVWER: 36 of 300 sentence pairs``) and the time left
    (:class:`~evaltrans_qt.engine.run.schedule.TimeLeft`, from the cost model in the pair
    phase). ``mode`` as ``--progress`` (module doc): a bar redrawn at most every
    ``interval`` seconds, or log lines every ``log_interval`` seconds. Warnings carried by
    the events are printed in every mode. ``delay``: under ``auto`` the bar appears only once
    the run has lasted that many seconds (a short run prints nothing, as ``evaltrans score``
    must to stay sacreBLEU's output)."""

    def __init__(self, stream: TextIO | None = None, workers: int = 1, interval: float = 0.2,
                 clock: Callable[[], float] = time.monotonic, mode: str = "auto",
                 log_interval: float = LOG_INTERVAL, delay: float = 0.0) -> None:
        if mode not in PROGRESS_MODES:
            raise ValueError(f"progress mode {mode!r} is not one of {PROGRESS_MODES}")
        self.stream = stream or sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.mode = mode
        #: The bar, redrawn in place.
        self.enabled = mode == "always" or (mode == "auto" and tty)
        #: Plain lines every ``log_interval`` seconds.
        self.logging = mode == "auto" and not tty
        self.clock = clock
        self.interval = interval
        self.log_interval = log_interval
        self.delay = delay if mode == "auto" else 0.0
        self._t0 = clock()
        self._shown = -math.inf
        self._logged = clock()
        self._lines = 0
        self._open = False          # a bar line drawn and not finished
        from evaltrans_qt.engine.run.schedule import TimeLeft
        self._left = TimeLeft(workers)

    def line(self, p: Progress, left: float | None) -> str:
        """The bar's text for an event (without the carriage return)."""
        frac = p.done / p.total if p.total > 0 else 0.0
        bar = "#" * int(25 * frac) + "." * (25 - int(25 * frac))
        text = f"[{bar}] {int(100 * frac):3d}% {p.message[:48]}"
        if left is not None and p.done < p.total:
            text += f"  ~{format_seconds(left)} left"
        return text

    def log_line(self, p: Progress, left: float | None, elapsed: float) -> str:
        """A progress line for a log: ``evaltrans: 42% MESSAGE, ~3 min left, 2 min elapsed``."""
        frac = p.done / p.total if p.total > 0 else 0.0
        parts = [f"evaltrans: {int(100 * frac)}% {p.message}".rstrip()]
        if left is not None and p.done < p.total:
            parts.append(f"~{format_seconds(left)} left")
        parts.append(f"{format_seconds(elapsed)} elapsed")
        return ", ".join(parts)

    def announce_compilation(self) -> bool:
        """Say ``compiling kernels (first run only)...`` if the kernels' compiled cache is
        missing (:func:`~evaltrans_qt.engine.warmup.kernels_cached`); nothing with
        ``--progress never``. True if it was said."""
        if self.mode == "never":
            return False
        from evaltrans_qt.engine.warmup import kernels_cached
        if kernels_cached():
            return False
        print("evaltrans: compiling kernels (first run only; about a minute)...",
              file=self.stream, flush=True)
        return True

    def __call__(self, p: Progress) -> None:
        for w in p.warnings:
            print(f"evaltrans: warning: {w}", file=self.stream)
        now = self.clock()
        left = self._left.see(now - self._t0, p)
        if p.total <= 0:
            return
        final = p.done >= p.total
        if self.logging:
            # a line every log_interval seconds, and the last one if any came before (a run
            # shorter than the interval logs nothing)
            if now - self._logged >= self.log_interval or (final and self._lines):
                self._logged = now
                self._lines += 1
                print(self.log_line(p, left, now - self._t0), file=self.stream, flush=True)
            return
        if not self.enabled:
            return
        if not final and now - self._shown < self.interval:
            return
        if now - self._t0 < self.delay:
            return
        self._shown = now
        self.stream.write(f"\r{self.line(p, left):<100}")
        self._open = not final
        if final:
            self.stream.write("\n")
        self.stream.flush()

    def break_line(self) -> None:
        """End the bar's line if one is drawn and unfinished, so that a message printed
        next on the stream starts a line of its own."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


    def step(self, done: int, total: int, message: str = "") -> None:
        """A progress event of a command that counts its own units (sources, systems...)."""
        from evaltrans_qt.engine.run.driver import Progress
        self(Progress(done, total, message))

    def counter(self, what: str) -> Callable[[int, int], None]:
        """A ``progress(done, total)`` callback for an engine loop, shown as
        ``WHAT: DONE of TOTAL``."""
        return lambda done, total: self.step(done, total, f"{what}: {done} of {total}")


def progress_for(args: argparse.Namespace, workers: int = 1, *, kernels: bool = True,
                 delay: float = 0.0) -> ProgressBar:
    """The progress reporter of a command's ``--progress`` (``auto`` without the option),
    the compilation announced if it is due (``kernels``: the command runs compiled
    kernels; ``delay`` as :class:`ProgressBar`)."""
    bar = ProgressBar(workers=workers, mode=getattr(args, "progress", None) or "auto",
                      log_interval=LOG_INTERVAL, delay=delay)
    if kernels:
        bar.announce_compilation()
    return bar


__all__ = ["PROGRESS_MODES", "LOG_INTERVAL", "ProgressBar", "add_progress_argument",
           "format_seconds", "progress_for"]
