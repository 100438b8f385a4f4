"""The inputs of a SegRanks extraction, read and checked: parse trees and one word
alignment per system (given as Pharaoh files, or computed with eflomal).

One code path for ``evaltrans segranks extract`` (``cli/segranks.py``) and the
application's Session → SegRanks → Extract segments… dialog; the extraction itself
(Algorithm 1, projection, merging; Macháček ch. 2) is
:func:`evaltrans_qt.engine.human.segranks.extract.extract_database`. Messages name the
command line's options, which the dialog's fields mirror.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaltrans_qt.errors import OptionError
from evaltrans_qt.io.names import file_name_parts

#: eflomal's default symmetrisation (as ``--symmetrize`` without a value)
DEFAULT_SYMMETRIZATION = "grow-diag-final-and"


@dataclass
class ExtractionInputs:
    """Trees (one per source), ``alignments`` = {system: (links per source, file name)}
    as ``extract_database`` takes them, and the systems whose alignment was computed."""

    trees: list
    trees_path: str
    alignments: dict[str, tuple[Any, str]]
    systems: list[str]
    computed: list[str] = field(default_factory=list)


def gather_inputs(db, *, trees: str | None = None, conllu: str | None = None,
                  alignment: Mapping[str, str] | None = None,
                  alignments_dir: str | None = None, systems: list[str] | None = None,
                  tokenize: str = "none", symmetrize: str | None = None,
                  save_alignments: str | None = None,
                  progress: Callable[[str], None] | None = None) -> ExtractionInputs:
    """Read the trees (``trees``: Penn Treebank, or ``conllu``: CoNLL-U), the given
    alignments (``alignment`` {system: file}, ``alignments_dir``/SYSTEM.pharaoh) and
    compute the missing ones with eflomal (written to ``save_alignments`` if given).
    ``systems`` default: those with a given alignment, else all of ``db``'s.
    :class:`OptionError` / :class:`InputFormatError` name the option or file at fault."""
    from evaltrans_qt.engine.human.segranks.extract import candidate_tokens
    from evaltrans_qt.engine.human.segranks.model import source_tokens
    from evaltrans_qt.io.segranks import alignments as al
    from evaltrans_qt.io.segranks import trees as tr
    say = progress or (lambda _text: None)
    if bool(trees) == bool(conllu):
        raise OptionError("give one of --trees (Penn Treebank) or --conllu (CoNLL-U)")
    tokens = [source_tokens(s, tokenize) for s in db.sources]
    say("reading the parse trees")
    if trees:
        tree_list, tree_path = tr.read_ptb(trees, tokens), trees
    else:
        tree_list, tree_path = tr.read_conllu(str(conllu), tokens), str(conllu)
    given = dict(alignment or {})
    if alignments_dir:
        d = Path(alignments_dir)
        if not d.is_dir():
            raise OptionError(f"--alignments-dir {d}: not a folder")
        by_part = {part: s for s, part in file_name_parts(db.systems()).items()}
        for f in sorted(d.glob("*.pharaoh")):        # as --save-alignments names them
            given.setdefault(by_part.get(f.stem, f.stem), str(f))
    chosen = list(systems) if systems else (list(given) if given else db.systems())
    known = set(db.systems())
    for s in chosen:
        if s not in known:
            raise OptionError(f"system {s!r} has no candidates in the database (its systems: "
                              f"{', '.join(sorted(known))})")
    missing = [s for s in chosen if s not in given]
    if not missing:
        for flag, value in (("--symmetrize", symmetrize),
                            ("--save-alignments", save_alignments)):
            if value is not None:
                raise OptionError(f"{flag} is used only when alignments are computed (eflomal), "
                                  "but every system's alignment is given")
    symmetrize = symmetrize or DEFAULT_SYMMETRIZATION
    if given and missing:
        raise OptionError(f"no --alignment for system(s) {', '.join(missing)}: give one per "
                          "system, or none to compute them all with eflomal")
    out: dict[str, tuple[Any, str]] = {}
    for s in chosen:
        if s in given:
            say(f"reading the alignment of {s}")
            out[s] = (al.read_pharaoh(given[s]), given[s])
    if missing:
        say(f"aligning {len(missing)} system(s) with eflomal")
        src_all, tgt_all, where = [], [], []
        for s in missing:
            for k, toks in enumerate(candidate_tokens(db, s, tokenize)):
                if toks is not None:
                    src_all.append(tokens[k])
                    tgt_all.append(toks)
                    where.append((s, k))
        links = al.eflomal_align(src_all, tgt_all, symmetrization=symmetrize)
        per: dict[str, list[list]] = {s: [[] for _ in db.sources] for s in missing}
        for (s, k), ln in zip(where, links):
            per[s][k] = ln
        for s in missing:
            out[s] = (per[s], f"eflomal alignment of {s}")
        if save_alignments:
            d = Path(save_alignments)
            d.mkdir(parents=True, exist_ok=True)
            parts = file_name_parts(missing)          # system ids are data: io/names.py
            for s in missing:
                al.write_pharaoh(d / f"{parts[s]}.pharaoh", per[s])
    return ExtractionInputs(tree_list, tree_path, out, chosen, missing)
