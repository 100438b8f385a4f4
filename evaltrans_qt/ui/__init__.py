"""PySide6 user interface. The only package that imports Qt."""

from __future__ import annotations


def _stop_pyside_source_scan() -> None:
    """Keep PySide6's import hook from reading every module's source.

    shiboken replaces ``__import__`` and, for every newly imported Python
    module, calls ``inspect.getsource`` to look for ``from __feature__ import``
    (snake_case / true_property). That reads and tokenises source files on
    whatever thread imports (our workers import scipy and numba's typing
    modules lazily); other projects report crashes from it on worker threads.
    We never use ``__feature__``, so the scan is switched off.
    """
    import PySide6.QtCore  # noqa: F401 - installs shibokensupport
    try:
        import shibokensupport.feature as feature  # type: ignore[import-not-found]
    except ImportError:  # a PySide6 without the feature hook
        return
    if hasattr(feature, "_mod_uses_pyside"):
        feature._mod_uses_pyside = lambda module: False


_stop_pyside_source_scan()


def _shorten_gil_switch_interval(seconds: float = 0.0005) -> None:
    """Let the UI thread get the GIL quickly while workers run Python.

    Every Python method Qt calls while painting (a model's ``data()``,
    ``rowCount()``, ...) must first take the GIL. With CPython's default
    switch interval of 5 ms, a worker thread busy in Python makes each such
    call wait up to 5 ms, and painting a table of a thousand cells freezes the
    window for seconds (measured: 6.5 s after a WMT run). 0.5 ms keeps the
    hand-over short at a small cost in throughput.
    """
    import sys
    if sys.getswitchinterval() > seconds:
        sys.setswitchinterval(seconds)


_shorten_gil_switch_interval()
