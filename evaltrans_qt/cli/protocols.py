"""The annotations of the human-evaluation protocols: ``reference``, ``items`` and
``postedit`` (their values per system: ``evaltrans human``, ``cli/human.py``).

* ``evaltrans reference FILE --source K --system S [--unmark]`` promotes a candidate to a
  reference of source K (the last class at its ``perfect`` level, thesis Appendix A.2) or takes it
  back; ``--add "TEXT" [--name NAME] [--judge J]`` adds a new reference (aWER, survey §4.4.4).
* ``evaltrans items FILE --source K --define "1-3,4-7" [--force]`` sets the information
  items (1-based inclusive word spans of the tokenised source, survey §4.4.16);
  ``--system S --judge J --marks OK,syntax`` marks a candidate's items (one per item);
  without either it lists the source's words, items and marks.
* ``evaltrans postedit FILE --source K --system S --judge J --text "…" [--seconds T]``
  stores a post-edit (HTER's targeted reference, survey §4.4.17).

Source K is the 1-based position in the application's source list. Every change is
checked first (engine/data/protocols.py); bad input exits 2 naming the problem and writes
nothing; the database is written atomically (in place or to ``-o``). The unsaved
judgements of a journal beside the file are included (and a change written in place
removes them from the journal); a change is refused while evaltrans-qt holds the file open,
unless ``--force`` (unsafe).
"""

from __future__ import annotations

import argparse
import json

from evaltrans_qt.cli._common import (
    add_force_argument,
    check_output_file,
    open_database,
    write_database,
)
from evaltrans_qt.engine.data import protocols as P
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import ScoreError


# ------------------------------------------------------------------ shared
def _save(db: Database, args: argparse.Namespace, summary: str) -> None:
    write_database(db, args.output or args.database, summary, force=args.force)


def _emit(args: argparse.Namespace, obj: dict, text: str) -> None:
    if args.json:
        print(json.dumps(obj, ensure_ascii=False))
    elif text:
        print(text)


def _only(args: argparse.Namespace, allowed: dict[str, tuple[str, ...]], action: str) -> None:
    """Refuse options the chosen action does not use (``allowed``: option -> actions)."""
    for dest, users in allowed.items():
        v = getattr(args, dest)
        if v is not None and v is not False and action not in users:
            raise ScoreError(f"--{dest.replace('_', '-')} is not used with {action}")


def _database_and_source(p: argparse.ArgumentParser, output: bool = True,
                         force: str | None = None) -> None:
    """FILE, ``--source``, ``--json`` and (``output``) ``-o`` and ``--force`` (``force``:
    what else it forces in this command)."""
    p.add_argument("database", metavar="FILE", help="an EvalTrans database (.etdb.xml)")
    p.add_argument("--source", type=int, required=True, metavar="K",
                   help="source number, 1-based as in the application's source list")
    if output:
        p.add_argument("-o", "--output", metavar="DB",
                       help="write the changed database here (default: FILE)")
        add_force_argument(p, force)
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


# ------------------------------------------------------------------ reference
def run_reference(args: argparse.Namespace) -> int:
    if (args.system is None) == (args.add is None):
        raise ScoreError("give either --system S (promote, or --unmark) or --add TEXT")
    action = "--add" if args.add is not None else ("--unmark" if args.unmark else "--system")
    _only(args, {"unmark": ("--unmark",), "name": ("--add",), "judge": ("--add",)}, action)
    check_output_file(args.output or args.database, "-o")
    db = open_database(args.database)
    src = P.source_at(db, args.source)
    if args.add is not None:
        t = P.add_reference(db, src, args.add, args.name, args.judge)
        summary = f"source {args.source}: reference '{t.system}' added"
        result = {"source": args.source, "action": "add", "system": t.system, "text": t.text,
                  "judge": t.added_by}
    elif args.unmark:
        t = P.target_of(db, src, args.system, candidate=False)
        removed = P.unmark(db, src, t)
        summary = (f"source {args.source}: added reference '{args.system}' removed" if removed
                   else f"source {args.source}: '{args.system}' is a candidate again")
        result = {"source": args.source, "action": "removed" if removed else "unmarked",
                  "system": args.system}
    else:
        t = P.target_of(db, src, args.system, candidate=True)
        lv = P.promote(db, t)
        summary = f"source {args.source}: '{args.system}' marked as reference (class '{lv.name}')"
        result = {"source": args.source, "action": "marked", "system": args.system,
                  "class": lv.name}
    _save(db, args, summary)
    result["references"] = [r.system or "" for r in db.references(src)]
    _emit(args, result, "")
    return 0


# ------------------------------------------------------------------ items
def run_items(args: argparse.Namespace) -> int:
    action = "--define" if args.define is not None else ("--marks" if args.marks is not None
                                                          else "list")
    _only(args, {"force": ("--define", "--marks"), "system": ("--marks",),
                 "judge": ("--marks",), "output": ("--define", "--marks")}, action)
    if action == "--define" and args.marks is not None:
        raise ScoreError("give either --define or --marks, not both")
    if action == "--marks" and (args.system is None or args.judge is None):
        raise ScoreError("--marks needs --system S and --judge J")
    check_output_file(args.output or args.database, "-o")
    db = open_database(args.database)
    src = P.source_at(db, args.source)
    if action == "--define":
        n = P.define_items(src, P.parse_spans(args.define), force=args.force)
        _save(db, args, f"source {args.source}: {len(src.items)} information item(s) defined"
                        + (f"; {n} marking(s) deleted" if n else ""))
    elif action == "--marks":
        t = P.target_of(db, src, args.system, candidate=True)
        m = P.set_marks(db, src, t, args.marks, args.judge)
        _save(db, args, f"source {args.source}: items of '{args.system}' marked by {args.judge}: "
                        f"{','.join(m.marks)}")
    words = P.source_words(src)
    result = {"source": args.source, "words": words, "tokenization": src.items_tokenization,
              "items": [{"words": P.format_spans([s]), "text": txt}
                        for s, txt in zip(src.items, P.item_texts(src))],
              "marks": [{"system": t.system or "", "judge": m.judge, "marks": list(m.marks)}
                        for t in src.targets for m in t.item_marks]}
    lines = ["words  " + " ".join(f"{i}:{w}" for i, w in enumerate(words, 1))]
    lines += [f"item {k}  {it['words']:<8} {it['text']}" for k, it in enumerate(result["items"], 1)]
    lines += [f"marks  {m['system']} ({m['judge'] or '-'}): {','.join(m['marks'])}"
              for m in result["marks"]]
    _emit(args, result, "\n".join(lines) if action == "list" else "")
    return 0


# ------------------------------------------------------------------ postedit
def run_postedit(args: argparse.Namespace) -> int:
    check_output_file(args.output or args.database, "-o")
    db = open_database(args.database)
    src = P.source_at(db, args.source)
    t = P.target_of(db, src, args.system, candidate=True)
    pe = P.set_postedit(db, t, args.text, args.judge, args.seconds)
    _save(db, args, f"source {args.source}: post-edit of '{args.system}' by {args.judge} stored")
    from evaltrans_qt.engine.human.protocol_scores import hter_of
    edits, length, value = hter_of(t.text, pe.text)
    _emit(args, {"source": args.source, "system": args.system, "judge": args.judge,
                 "text": pe.text, "seconds": pe.seconds, "hter": value, "edits": edits,
                 "postedit_length": length}, "")
    return 0


# ------------------------------------------------------------------ registration
def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("reference", help="promote a candidate to a reference, take it "
                                                "back, or add a new reference (aWER)")
    _database_and_source(p)
    p.add_argument("--system", metavar="S", help="the candidate to promote (or with --unmark: "
                                                 "the reference to take back)")
    p.add_argument("--unmark", action="store_true", help="take reference S back (an added "
                                                         "reference is removed)")
    p.add_argument("--add", metavar="TEXT", help="add TEXT as a new reference")
    p.add_argument("--name", metavar="NAME", help="system id of the added reference "
                                                  "(default added-N)")
    p.add_argument("--judge", metavar="J", help="judge who added the reference")
    p.set_defaults(func=run_reference)

    p = subparsers.add_parser("items", help="define information items of a source, mark a "
                                            "candidate's items, or list them (IER)")
    _database_and_source(p, force="with --define: delete marks made against the old items")
    p.add_argument("--define", metavar="SPANS",
                   help='items as 1-based inclusive word spans, e.g. "1-3,4-7"')
    p.add_argument("--system", metavar="S", help="the candidate to mark")
    p.add_argument("--judge", metavar="J", help="the judge marking")
    p.add_argument("--marks", metavar="M", help="one mark per item: OK, error, syntax, meaning, "
                                                "other (comma separated)")
    p.set_defaults(func=run_items)

    p = subparsers.add_parser("postedit", help="store a judge's post-edit of a candidate (HTER)")
    _database_and_source(p)
    p.add_argument("--system", metavar="S", required=True, help="the candidate post-edited")
    p.add_argument("--judge", metavar="J", required=True, help="the judge")
    p.add_argument("--text", metavar="TEXT", required=True, help="the post-edited translation")
    p.add_argument("--seconds", type=float, metavar="T", help="time spent editing")
    p.set_defaults(func=run_postedit)
