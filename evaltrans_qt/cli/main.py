"""Entry point of ``evaltrans``: discovers sub-command modules, runs one, maps errors.

Every module in ``evaltrans_qt.cli`` (other than this one) that defines
``register(subparsers)`` contributes sub-commands; a sub-command sets
``func=handler`` via ``parser.set_defaults``. A handler returns an exit code
(or None for 0). :class:`~evaltrans_qt.errors.EvalTransError` becomes exit
code 2 with its message on stderr -- in this one place.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from evaltrans_qt import __version__
from evaltrans_qt.errors import EvalTransError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evaltrans",
        description="Evaluate machine translation: import data, run measures, correlate with humans.")
    parser.add_argument("--version", action="version", version=f"evaltrans_qt {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    import evaltrans_qt.cli as pkg
    for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if mod.name in ("main",) or mod.name.startswith("_"):
            continue
        module = importlib.import_module(f"evaltrans_qt.cli.{mod.name}")
        reg = getattr(module, "register", None)
        if reg is not None:
            reg(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        rc = args.func(args)
    except EvalTransError as exc:
        print(f"evaltrans: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("evaltrans: interrupted", file=sys.stderr)
        return 130
    return int(rc or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
