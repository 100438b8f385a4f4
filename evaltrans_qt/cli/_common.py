"""What the commands share, one way each:

* :func:`open_database` -- read a database the one way
  (:func:`evaltrans_qt.io.store.open_database`): errors name file, line and problem, and
  the unsaved judgements of a journal beside it are included, as the application shows
  them (said once on stderr);
* :func:`write_database` -- write one the one way
  (:func:`evaltrans_qt.io.store.write_database`: validated, parsed back, replaced
  atomically; refused while another program holds the file open or when it changed on
  disk since it was read; an in-place write folds the journal), and
  :func:`add_force_argument`, the ``--force`` of every command that writes a database;
* :func:`add_option_arguments` / :func:`options_from_args` -- ``--preset`` plus one flag
  per evaluation option (thesis Tables A.1-A.8), turned into
  :class:`~evaltrans_qt.engine.options.EvalOptions` by
  :func:`~evaltrans_qt.engine.options.options_from`, the builder the Python API uses too;
* :func:`number` -- the format of every number in a command's text output.

Only light modules are imported here at module level (``evaltrans score`` loads this
module and must not load numba, scipy or pandas).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from evaltrans_qt.engine.options import PRESETS, EvalOptions, option_fields, options_from

if TYPE_CHECKING:
    from pathlib import Path

    from evaltrans_qt.engine.data.database import Database


# --------------------------------------------------------------------------- databases
FORCE_HELP = ("unsafe: write even though the database is open in evaltrans-qt (that program "
              "may overwrite the result), and set aside the unsaved judgements of a journal "
              "beside a file this command replaces (NAME.journal.replaced)")


def open_database(path: str | Path) -> Database:
    """The database at ``path`` (``InputFormatError``/``ScoreError`` name file, line and
    problem) as the application shows it: the unsaved judgements of the journal beside it
    (scores, protocol changes, rankings) are replayed in memory -- the file is not changed
    -- and ``PATH: N unsaved judgements from the journal included`` is said once on
    stderr. :func:`write_database` writes the returned database back safely: the store
    remembers the file's identity and the journal entries included.

    Every command reads this way; none needs the file without its journal (a command that
    wrote such a database in place would orphan the journal, and a reader would report
    other human scores than the application)."""
    from evaltrans_qt.io.store import open_database as store_open
    opened = store_open(path)
    if opened.note:
        print(f"{path}: {opened.note}", file=sys.stderr)
    return opened.database


def write_database(db: Database, path: str | Path, summary: str | None = None, *,
                   also: Iterable[tuple[str | Path, bytes]] = (), force: bool = False,
                   includes: Iterable[Database] = ()) -> None:
    r"""Write ``db`` to ``path`` through :func:`evaltrans_qt.io.store.write_database`
    (validated, serialised, parsed back; atomic). Over the file ``db`` was read from by
    :func:`open_database`: refused if that file changed on disk since
    (``DatabaseChangedError``), and the journal entries included are removed from its
    journal after the write. Anywhere: refused while another program (evaltrans-qt) holds
    the file open (``DatabaseLockedError``) or when a journal beside the file would be
    orphaned (``PendingJournalError``) -- unless ``force`` (``--force``; the journal is then
    set aside and said on stderr). These are :class:`~evaltrans_qt.errors.SaveError`\ s:
    exit code 2 with their message, nothing written.

    ``also``: other files written with it -- after the database's bytes passed those
    checks and before the database itself, so a database that would not save leaves every
    file untouched. ``includes``: other databases read by :func:`open_database` whose
    content ``db`` includes (``merge A B -o B``, an import appended to the output file):
    written over one of their files, that counts as writing it in place. ``summary``:
    printed on stderr as ``PATH: summary``."""
    from evaltrans_qt.io.store import write_database as store_write
    written = store_write(db, path, force=force, also=list(also), includes=list(includes))
    if written.set_aside is not None:
        print(f"{path}: journal entries that are not in the written file kept in "
              f"{written.set_aside}", file=sys.stderr)
    if summary is not None:
        print(f"{path}: {summary}", file=sys.stderr)


def check_output_file(path: str | Path | None, option: str = "-o") -> None:
    """Refuse an output file that could not be written, before any computation: ``path`` a
    folder, or its folder missing, not a folder or not writable. The
    :class:`~evaltrans_qt.errors.OptionError` names the option and the file. None: stdout,
    nothing to check."""
    import os
    from pathlib import Path as P

    from evaltrans_qt.errors import OptionError
    if path is None:
        return
    p = P(path)
    if p.is_dir():
        raise OptionError(f"{option}: this is a folder; give a file name", p)
    folder = p.parent if str(p.parent) else P(".")
    if not folder.exists():
        raise OptionError(f"{option}: the folder {folder} does not exist", p)
    if not folder.is_dir():
        raise OptionError(f"{option}: {folder} is not a folder", p)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OptionError(f"{option}: cannot write in the folder {folder}", p)


def check_output_folder(path: str | Path, option: str = "-o") -> None:
    """Refuse an output folder that could not be written, before any computation: an
    existing file that is not a folder, an existing folder that is not writable, or a new
    folder whose parent is missing or not writable (:class:`~evaltrans_qt.errors.OptionError`
    naming the option and the folder)."""
    import os
    from pathlib import Path as P

    from evaltrans_qt.errors import OptionError
    p = P(path)
    if p.exists():
        if not p.is_dir():
            raise OptionError(f"{option}: this is a file, not a folder", p)
        if not os.access(p, os.W_OK | os.X_OK):
            raise OptionError(f"{option}: cannot write in this folder", p)
        return
    check_output_file(p, option)


def add_force_argument(p: argparse.ArgumentParser, also: str | None = None) -> None:
    """``--force`` of a command that writes a database (:data:`FORCE_HELP`); ``also``: what
    else it forces in this command (its help comes first)."""
    p.add_argument("--force", action="store_true",
                   help=f"{also}; also {FORCE_HELP}" if also else FORCE_HELP)


# --------------------------------------------------------------------------- options
PRESET_HELP = ("start from these option settings (thesis Table 8.3); explicit options "
               "override")


def add_preset_argument(container: argparse._ActionsContainer, default: str | None = None,
                        help: str = PRESET_HELP) -> None:
    """``--preset NAME``: the options to start from (:data:`~evaltrans_qt.engine.options.PRESETS`)."""
    container.add_argument("--preset", default=default, choices=sorted(PRESETS), help=help)


def add_option_arguments(p: argparse.ArgumentParser, *, preset: bool = True) -> None:
    """``--preset`` (unless ``preset`` is False: the command adds it where it wants it,
    :func:`add_preset_argument`) plus one argument per evaluation option, generated from
    :func:`~evaltrans_qt.engine.options.option_fields` with the thesis' flag names
    (``--wer-ref-length-rule lowestError``), one group per option group. Every command
    whose numbers depend on the options calls it."""
    if preset:
        add_preset_argument(p)
    groups: dict[str, argparse._ArgumentGroup] = {}
    for f in option_fields():
        md = f.metadata
        g = groups.get(md["group"])
        if g is None:
            g = groups[md["group"]] = p.add_argument_group(f"{md['group']} options")
        default = f.default
        shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
        # (argparse %-formats help texts: a literal % must be doubled)
        help_ = f"{md['help']} (default: {shown}; thesis {md['section']})".replace("%", "%%")
        if md.get("kind") == "flag":
            g.add_argument(f"--{md['flag']}", dest=f.name, action="store_true", default=None,
                           help=help_)
        else:
            g.add_argument(f"--{md['flag']}", dest=f.name, default=None, choices=md["choices"],
                           metavar=None if md["choices"] else option_metavar(f), help=help_)


#: What the value of an evaluation option is, by its kind (``--nper-max-ngram N``).
_KIND_METAVARS = {"int": "N", "optfloat": "X", "intlist": "N,N,N,N,N", "strlist": "NAME[,NAME]"}


def option_metavar(f: Any) -> str:
    """The metavar of an evaluation option without choices: what its value is."""
    return _KIND_METAVARS.get(f.metadata.get("kind"), "VALUE")


def option_values(args: argparse.Namespace, prefix: str = "") -> dict[str, Any]:
    """``{field name: value}`` of the option flags given (``args.<prefix><field>`` not
    None): strings as typed, ``True`` for a flag."""
    out = {}
    for f in option_fields():
        v = getattr(args, prefix + f.name, None)
        if v is not None:
            out[f.name] = v
    return out


def options_from_args(args: argparse.Namespace, *, prefix: str = "",
                      preset: str | None = None) -> EvalOptions:
    """The options of a command: ``--preset`` (else ``preset``, else ``evaltrans
    default``) with the option flags given set on top, by
    :func:`~evaltrans_qt.engine.options.options_from`."""
    return options_from(getattr(args, "preset", None) or preset, None,
                        **option_values(args, prefix))


#: Options that matter to these measures without showing in their signature: columns added
#: (``--all-ngrams``) or a number sacreBLEU names in the score's name (chrF's beta: chrF2).
_OUTSIDE_SIGNATURE: dict[str, tuple[str, ...]] = {"all_ngrams": ("bleu", "nist"),
                                                  "chrf_beta": ("chrf",)}


def _other_values(f: Any, value: Any) -> list[Any]:
    """Valid values of option field ``f`` other than ``value`` (to see whether a measure
    depends on the field): every other choice, the other truth value, or one changed
    number."""
    md = f.metadata
    if md.get("choices"):
        return [c for c in md["choices"] if c != value]
    kind = md.get("kind")
    if kind == "flag":
        return [not value]
    if kind == "intlist":
        return [tuple(value[:1]) + tuple(v + 1 for v in value[1:])]
    if kind == "optfloat":
        return [0.5 if value is None else value + 0.5]
    return [value + 1]


def option_used(name: str, measure: str, options: EvalOptions, *, enabling: bool = True
                ) -> bool:
    """True if evaluation option ``name`` (a field of
    :class:`~evaltrans_qt.engine.options.EvalOptions`) matters to ``measure`` under
    ``options``: another value of it changes the measure's signature (which names every
    option that changes a number: engine/run/signature.py) or whether the measure is
    computed at all (INVWER by ``--allow-transpositions``, wWER by
    ``--substitution-cost-rule``...); it adds columns or is named outside the signature
    (:data:`_OUTSIDE_SIGNATURE`); or it is a ``--leaving-one-out`` name of the measure.
    ``enabling=False``: the measures were named explicitly, so enabling one does not count."""
    import dataclasses

    from evaltrans_qt.engine.measures import get as get_measure
    from evaltrans_qt.engine.run.signature import signature_for
    cls = get_measure(measure)
    f = {x.name: x for x in dataclasses.fields(EvalOptions)}[name]
    value = getattr(options, name)
    if name == "leaving_one_out":
        keys = {k.strip().lower() for k in value}
        return cls.name in keys or f"m{cls.name}" in keys \
            or str(getattr(cls, "report_element", "")).lower() in keys
    if name in _OUTSIDE_SIGNATURE:
        return cls.name in _OUTSIDE_SIGNATURE[name]
    mine = signature_for(cls.name, options).format()
    for v in _other_values(f, value):
        try:
            other = options.replace(**{name: v})
            if enabling and cls.enabled(options) != cls.enabled(other) \
                    or signature_for(cls.name, other).format() != mine:
                return True
        except Exception:   # a combination the other value makes invalid: it matters
            return True
    return False


def refuse_unused_options(args: argparse.Namespace, measures: Sequence[str], mode: str, *,
                          prefix: str = "", command_uses: Iterable[str] = (),
                          explicit: bool = True) -> None:
    """Refuse every evaluation option given on the command line that none of ``measures``
    uses (:func:`option_used`) -- an option is never ignored silently. The
    :class:`~evaltrans_qt.errors.OptionError` names the option and ``mode`` (what this run
    computes, e.g. ``"the text mode computes wer, bleu only: add --xml-mode or
    --measures"``). ``command_uses``: option fields the command itself reads (e.g.
    ``extrapolate``), never refused. ``explicit``: the measures were named (``--measures``,
    ``-m``, ``--measure``), so an option that only enables a measure (``--allow-transpositions``
    enables INVWER among the default measures) changes nothing. ``--preset`` is a starting
    point, not an option, and is not checked."""
    given = option_values(args, prefix)
    if not given:
        return
    from evaltrans_qt.engine.run.signature import measure_option_fields
    from evaltrans_qt.errors import OptionError
    options = options_from_args(args, prefix=prefix)
    skip = set(command_uses)
    by_name = {f.name: f for f in option_fields()}
    for name in given:
        if name in skip or any(option_used(name, m, options, enabling=not explicit)
                               for m in measures):
            continue
        flag = by_name[name].metadata["flag"]
        if any(name in {f.name for f in measure_option_fields(m)} for m in measures):
            raise OptionError(f"--{flag} changes no number with the other options given "
                              f"({mode})")
        raise OptionError(f"--{flag} is not used here: {mode}")


# --------------------------------------------------------------------------- arguments
def comma_list(value: str | None) -> list[str] | None:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; nothing given -> None."""
    return [x.strip() for x in value.split(",") if x.strip()] if value else None


def sentences_path(value: str) -> str:
    """argparse type of ``--sentences``: the file name must end in .tsv or .jsonl."""
    from evaltrans_qt.errors import OptionError
    from evaltrans_qt.io.sentences import sentences_format
    try:
        sentences_format(value)
    except OptionError as exc:
        raise argparse.ArgumentTypeError(exc.problem.removeprefix(f"--sentences {value}: ")
                                         + f": {value!r}") from None
    return value


def add_json_argument(p: argparse.ArgumentParser, csv: bool = False) -> None:
    """``--json`` (and with ``csv``, ``--csv``; one of them) for machine-readable output."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    if csv:
        g.add_argument("--csv", action="store_true", help="CSV on stdout")


# --------------------------------------------------------------------------- numbers
def number(value: float | None, spec: str = ".4f", missing: str = "-",
           whole: bool = False) -> str:
    """``value`` formatted by ``spec`` (``format(value, spec)``). None and NaN print as
    ``missing``, right-aligned to the width ``spec`` asks for (``"7.3f"``: 7), so table
    columns stay aligned. ``whole``: a value without fractional part prints as an integer
    (``3``, not ``3.0000``)."""
    if value is None or value != value:                  # NaN
        return missing.rjust(_width(spec))
    if whole and float(value).is_integer():
        return str(int(value))
    return format(value, spec)


def _width(spec: str) -> int:
    """The minimum field width of a format spec (``"7.3f"`` -> 7, ``".4f"`` -> 0)."""
    digits = ""
    for ch in spec.lstrip("<>=^+- #0"):
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


__all__ = ["FORCE_HELP", "PRESET_HELP", "add_force_argument", "add_json_argument",
           "check_output_file", "check_output_folder",
           "add_option_arguments", "add_preset_argument", "comma_list", "number",
           "open_database", "option_metavar", "option_used", "option_values", "options_from_args",
           "refuse_unused_options", "sentences_path",
           "write_database"]
