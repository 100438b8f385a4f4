"""Entry point of ``evaltrans``: builds the parser, runs one sub-command, maps errors.

Every module in ``evaltrans_qt.cli`` (other than this one and the shared helpers of
``_common.py``) that defines ``register(subparsers)`` contributes sub-commands; a sub-command sets
``func=handler`` via ``parser.set_defaults``. A handler returns an exit code
(or None for 0). :class:`~evaltrans_qt.errors.EvalTransError` becomes exit
code 2 with its message on stderr -- in this one place; a usage error is one line
too (:class:`Parser`), and a closed stdout (``| head``) ends quietly with exit code 0.

Start-up time: only the module of the command being run is imported.
:data:`COMMANDS` names each sub-command's module and one-line help, so
``evaltrans --help`` imports no command module at all and ``evaltrans score``
imports ``cli/score.py`` alone, with the light ``cli/_common.py`` (the others load numba,
scipy, lxml...). A
module none of whose commands is in the table is imported at every start, so
its commands work (and are listed) at once; ``tests/cli/test_main_startup.py``
checks the table against the modules, so a new sub-command gets its line here.
A name in no module is argparse's usual "invalid choice" error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.version import __version__

#: sub-command -> (module in evaltrans_qt.cli, help line of ``evaltrans --help``): where a
#: reader finds each command (a module is named after its command, or after the small
#: family of commands it holds; docs/architecture.md lists them).
COMMANDS: dict[str, tuple[str, str]] = {
    "align": ("align", "show the alignment behind a measure (WER, CDER, TER, PER, INVWER, "
                       "LJWER)"),
    "analyze": ("analyze", "compare systems as compare-mt does: word accuracy by frequency, "
                           "sentence buckets, characteristic n-grams, examples; --html writes a "
                           "report"),
    "batch": ("batch", "evaluate candidate files or database systems (EvalTransBatchEval)"),
    "campaign": ("campaign", "human evaluation with several annotators: create, bundle, "
                             "collect, quality control, agreement, plan"),
    "classes": ("classes", "list, add, edit or remove score classes (<levels>)"),
    "combine": ("metaeval", "correlation-optimal weights of measures (thesis eq. 6.15) with "
                            "k-fold cross-validation"),
    "correlate": ("metaeval", "correlation of measures with human scores"),
    "errorclasses": ("errorclasses", "automatic error classes (inflection, reordering, "
                                     "missing, extra, lexical) of a candidate file, as "
                                     "Hjerson"),
    "export": ("data", "write a database in another format"),
    "extrapolate": ("human", "leave-one-out accuracy of the database method; with -o, fill "
                             "unscored candidates"),
    "human": ("human", "SSER, IER, HTER, aWER and SER per system"),
    "import": ("data", "build a database from text, WMT, SGML or Aachen files"),
    "info": ("data", "counts of a database, or a report's values and signatures"),
    "items": ("protocols", "define information items of a source, mark a candidate's items, "
                           "or list them (IER)"),
    "judge": ("judge", "give (or remove) one human judgement without the application"),
    "judge-agreement": ("human", "inter-/intra-annotator correlation and kappa of the judges' "
                                 "scores (rankings: ranking agreement)"),
    "merge": ("data", "merge database B into A, write C"),
    "orange": ("metaeval", "ORANGE: rank of held-out references among the candidates (no "
                           "human scores needed)"),
    "postedit": ("protocols", "store a judge's post-edit of a candidate (HTER)"),
    "ranking": ("ranking", "relative ranking: import WMT judgements, ratio of wins, agreement"),
    "reference": ("protocols", "promote a candidate to a reference, take it back, or add a "
                               "new reference (aWER)"),
    "score": ("score", "score hypotheses against references like the sacrebleu command"),
    "segranks": ("segranks", "short-segment ranking (SegRanks, Machacek ch. 2): extract, "
                             "import, export"),
    "significance": ("metaeval", "paired bootstrap / approximate randomisation between "
                                 "systems, as sacreBLEU computes them"),
    "spans": ("spans", "mark, remove or list error spans (MQM, ESA); import or export them "
                       "as JSON Lines"),
    "unseen": ("unseen", "score a system from the ranked short segments of the database "
                         "(Machacek 3.2)"),
    "wmt14-tables": ("wmt14_tables", "the WMT14 metrics-task tables (Machacek ch. 4, Tables "
                                     "4.2-4.7) over several language pairs"),
}


def _modules() -> list[str]:
    """The command modules of this package (``*.py`` beside this file but ``main`` and the
    private helpers ``_*.py``)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(e.name[:-3] for e in os.scandir(here)
                  if e.name.endswith(".py") and not e.name.startswith("_")
                  and e.name != "main.py")


def _defines_register(module: str) -> bool:
    """True if ``cli/<module>.py`` has a top-level ``register`` (read, not imported)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{module}.py")
    try:
        with open(path, encoding="utf-8") as fh:
            return "\ndef register(" in fh.read()
    except OSError:
        return False


def _register(sub, module: str) -> None:
    reg = getattr(importlib.import_module(f"evaltrans_qt.cli.{module}"), "register", None)
    if reg is not None:
        reg(sub)


def _command_of(argv: Sequence[str]) -> str | None:
    """The sub-command named in ``argv`` (its first word not starting with ``-``)."""
    for word in argv:
        if not word.startswith("-"):
            return word
    return None


class Parser(argparse.ArgumentParser):
    """argparse's parser, with a usage error as one line naming where to look: ``evaltrans
    batch: error: argument --executor: invalid choice: 'x' ... (see 'evaltrans batch
    --help')`` instead of the whole usage first. Sub-command parsers are of this class
    too (``add_subparsers`` makes them of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but unknown arguments are reported by the sub-command's parser
        (``evaltrans score: error: unrecognized arguments: ...``), the one they were given
        to."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._innermost(list(sys.argv[1:] if args is None else args)).error(
                f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _innermost(self, argv: list[str]) -> argparse.ArgumentParser:
        """The (sub-)parser of the deepest sub-command named in ``argv``."""
        parser: argparse.ArgumentParser = self
        for word in argv:
            subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            if subs and word in subs[0].choices:
                parser = subs[0].choices[word]
        return parser


def _quiet_stdout() -> None:
    """After a closed stdout (``evaltrans info DB | head -1``): point the file descriptor at
    /dev/null, so that the interpreter's final flush does not fail again (the Python
    documentation's recipe for SIGPIPE, "Note on SIGPIPE" in the signal module)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return                                   # not a file (a caller's stream): no flush at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """The parser with the full arguments of ``command``'s module and a placeholder for
    every other sub-command (enough for ``--help`` and for choosing the command).
    ``"*"`` or a name not in :data:`COMMANDS` registers every module."""
    parser = Parser(
        prog="evaltrans",
        description="Evaluate machine translation: import data, run measures, correlate with "
                    "humans.")
    parser.add_argument("--version", action="version", version=f"evaltrans_qt {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command is not None and command not in COMMANDS:
        for module in _modules():
            _register(sub, module)
        return parser
    if command is not None:
        _register(sub, COMMANDS[command][0])
    listed = {module for module, _ in COMMANDS.values()}
    for module in _modules():              # a command module not in the table yet: load it
        if module not in listed and _defines_register(module):
            _register(sub, module)
    done = set(sub.choices)
    for name, (_, help_text) in sorted(COMMANDS.items()):
        if name not in done:
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(args_in))
    args = parser.parse_args(args_in)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        rc = args.func(args)
        sys.stdout.flush()          # a closed pipe shows here, not at the interpreter's exit
    except BrokenPipeError:
        # the reader stopped reading (| head): what it wanted it has; end quietly, as
        # sacreBLEU and the Unix tools do
        _quiet_stdout()
        return 0
    except EvalTransError as exc:
        # one line, the last on stderr: a quoted libxml2 message may hold line breaks
        print(f"evaltrans: error: {' '.join(str(exc).splitlines())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("evaltrans: interrupted", file=sys.stderr)
        return 130
    return int(rc or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
