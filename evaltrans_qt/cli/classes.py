"""``evaltrans classes``: list, add, edit and remove the score classes (``<levels>``) of a database.

Without an action it lists the classes (``--json``: one JSON list). One action per
call: ``--add NAME --count N --perfect P --firstvalid F [--gray G --green G]``,
``--add-continuous NAME --min A --max B``, ``--add-template T [--name NAME]``,
``--edit NAME [--rename NEW] [--count …] [--min … --max …] [--force]``,
``--remove NAME [--force]``. The rules (reference class last, thesis Appendix A.2; no score
left invalid) are :mod:`evaltrans_qt.engine.data.schemes`'. The database is written
atomically (in place, or to ``-o``) only when the change succeeded; on bad input
the exit code is 2 and nothing is written. The classes listed include the unsaved
judgements of a journal beside the file, a change written in place includes them (and
removes them from the journal), and nothing is written while evaltrans-qt holds the file
open unless ``--force`` (unsafe; with ``--edit``/``--remove`` it also deletes the scores
affected, as before).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from evaltrans_qt.cli._common import (
    add_force_argument,
    check_output_file,
    open_database,
    write_database,
)
from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Database, Levels
from evaltrans_qt.errors import ScoreError

_ACTIONS = ("add", "add_continuous", "add_template", "edit", "remove")
#: Options and the actions that use them.
_USED_BY = {
    "count": ("add", "edit"), "perfect": ("add", "add_continuous", "edit"),
    "firstvalid": ("add", "edit"), "gray": ("add", "add_continuous", "edit"),
    "green": ("add", "add_continuous", "edit"), "min": ("add_continuous", "edit"),
    "max": ("add_continuous", "edit"), "name": ("add_template",), "rename": ("edit",),
    "force": _ACTIONS,
}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _check_options(args: argparse.Namespace, action: str | None) -> None:
    for dest, users in _USED_BY.items():
        v = getattr(args, dest)
        if v is None or v is False:
            continue
        if action not in users:
            raise ScoreError(f"{_flag(dest)} is only used with "
                             f"{' or '.join(_flag(u) for u in users)}")
    if action == "add":
        missing = [_flag(d) for d in ("count", "perfect", "firstvalid") if getattr(args, d) is None]
        if missing:
            raise ScoreError(f"--add needs {', '.join(missing)}")
    if action == "add_continuous":
        missing = [_flag(d) for d in ("min", "max") if getattr(args, d) is None]
        if missing:
            raise ScoreError(f"--add-continuous needs {', '.join(missing)}")


def _edited(db: Database, args: argparse.Namespace) -> Levels:
    """The new definition of ``--edit NAME``: the old one with the given options changed."""
    old = db.level(args.edit)
    if old.continuous and args.count is not None:
        raise ScoreError(f"class '{old.name}' is continuous: --count applies to classes with levels "
                         "(use --min/--max)")
    if not old.continuous and (args.min is not None or args.max is not None):
        raise ScoreError(f"class '{old.name}' has levels: --min/--max apply to continuous classes "
                         "(use --count)")
    changes: dict = {}
    for dest, field in (("count", "count"), ("perfect", "perfect"), ("firstvalid", "firstvalid"),
                        ("gray", "gray"), ("green", "green"), ("min", "minimum"), ("max", "maximum"),
                        ("rename", "name")):
        v = getattr(args, dest)
        if v is not None:
            changes[field] = v
    if not changes:
        raise ScoreError("--edit needs at least one of --rename, --count, --perfect, --firstvalid, "
                         "--gray, --green, --min, --max")
    return dataclasses.replace(old, **changes, extra_attrs=dict(old.extra_attrs))


def _apply(db: Database, args: argparse.Namespace, action: str) -> str:
    """Change ``db``; returns a one-line summary for stderr."""
    try:
        if action == "add":
            lv = schemes.add_class(db, schemes.discrete(args.add, args.count, args.perfect, args.firstvalid,
                                                  args.gray, args.green))
            return f"added class '{lv.name}' ({schemes.scale_text(lv)})"
        if action == "add_continuous":
            lv = schemes.add_class(db, schemes.continuous(args.add_continuous, args.min, args.max,
                                                    args.perfect, args.gray, args.green))
            return f"added class '{lv.name}' ({schemes.scale_text(lv)})"
        if action == "add_template":
            lv = schemes.add_template(db, args.add_template, args.name)
            return f"added class '{lv.name}' from template '{args.add_template}' ({schemes.scale_text(lv)})"
        if action == "edit":
            new = _edited(db, args)
            n = schemes.edit_class(db, args.edit, new, force=args.force)
            return f"edited class '{args.edit}'" + (f" (now '{new.name}')" if new.name != args.edit else "") \
                + (f"; {n} score(s) deleted" if n else "")
        n = schemes.remove_class(db, args.remove, force=args.force)
        return f"removed class '{args.remove}'" + (f" and its {n} score(s)" if n else "")
    except schemes.ClassInUseError as exc:
        raise ScoreError(f"{exc.problem} -- nothing changed; add --force to do it anyway") from None


def print_classes(db: Database, as_json: bool) -> None:
    rows = schemes.describe(db)
    if as_json:
        json.dump(rows, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    if not rows:
        print("no score classes (add one, e.g. --add-template fluency5)")
        return
    width = max(5, *(len(r["name"]) for r in rows))
    print(f"{'class':<{width}}  {'scale':<22} {'perfect':>7} {'gray':>6} {'green':>6} {'scores':>7}")
    for r, lv in zip(rows, db.levels):
        role = "  (last: decides references, thesis Appendix A.2)" if r["decides_references"] \
            else ""
        print(f"{r['name']:<{width}}  {schemes.scale_text(lv):<22} {lv.perfect:>7g} {lv.gray:>6g} "
              f"{lv.green:>6g} {r['scores']:>7}{role}")


def run(args: argparse.Namespace) -> int:
    action = next((a for a in _ACTIONS if getattr(args, a) is not None), None)
    _check_options(args, action)
    if args.output is not None and action is None:
        raise ScoreError("-o/--output is only used with a change (--add, --edit, --remove, ...)")
    if action is not None:
        check_output_file(args.output or args.database, "-o")
    db = open_database(args.database)
    if action is not None:
        write_database(db, args.output or args.database, _apply(db, args, action),
                       force=args.force)
    print_classes(db, args.json)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "classes", help="list, add, edit or remove score classes (<levels>)",
        description="List the score classes of a database, or change them (one change per call). "
                    f"Templates: {', '.join(f'{t.name} ({t.description})' for t in schemes.TEMPLATES.values())}.")
    p.add_argument("database", metavar="FILE")
    act = p.add_mutually_exclusive_group()
    act.add_argument("--add", metavar="NAME", help="add a class with levels 0..N-1 (needs --count, "
                                                   "--perfect, --firstvalid)")
    act.add_argument("--add-continuous", metavar="NAME",
                     help="add a continuous class on [--min, --max]")
    act.add_argument("--add-template", metavar="T", choices=sorted(schemes.TEMPLATES),
                     help="add a class from a template: %(choices)s")
    act.add_argument("--edit", metavar="NAME", help="change a class (the options given)")
    act.add_argument("--remove", metavar="NAME", help="remove a class")
    p.add_argument("--count", type=int, metavar="N", help="number of levels including 0")
    p.add_argument("--perfect", type=float, metavar="P", help="the reference level")
    p.add_argument("--firstvalid", type=float, metavar="F", help="the lowest valid level")
    p.add_argument("--gray", type=float, metavar="G", help="display threshold (default: firstvalid/min)")
    p.add_argument("--green", type=float, metavar="G", help="display threshold (default: perfect/max)")
    p.add_argument("--min", type=float, metavar="A", help="lowest value of a continuous class")
    p.add_argument("--max", type=float, metavar="B", help="highest value of a continuous class")
    p.add_argument("--name", metavar="NAME", help="class name for --add-template (default: the "
                                                  "template's, e.g. fluency for fluency5)")
    p.add_argument("--rename", metavar="NEW", help="new name for --edit")
    add_force_argument(p, "remove/edit even if scores are affected (they are deleted)")
    p.add_argument("-o", "--output", metavar="DB", help="write the changed database here (default: FILE)")
    p.add_argument("--json", action="store_true", help="list the classes as one JSON list")
    p.set_defaults(func=run)
