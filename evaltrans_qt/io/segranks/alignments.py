"""Word alignments for SegRanks projection (Macháček §2.1): Pharaoh files and eflomal.

**Pharaoh format** (fast_align, eflomal, awesome-align): one line per sentence pair, in
database order, of white-space separated links ``i-j`` -- source token ``i`` aligned to
candidate token ``j``, both 0-based. An empty line is a pair without links. Possible
links written ``i?j`` (Moses) are refused, as is anything else, naming file and line.
Whether the indices fit the sentences is checked when they are used
(engine/human/segranks/extract.py), also naming file and line.

**eflomal** (Östling & Tiedemann 2016; PyPI ``eflomal``, the optional extra
``evaltrans_qt[align]``) computes alignments when none are given, the role Giza++ plays
in Macháček §2.1: all candidates of all systems are aligned with their sources in one
corpus (more data helps the unsupervised model), lower-cased, forward and reverse, and
the two directions are symmetrised (default ``grow-diag-final-and``,
engine/human/segranks/projection.py).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from evaltrans_qt.engine.human.segranks.projection import Link, symmetrize
from evaltrans_qt.errors import InputFormatError, OptionError

_LINK = re.compile(r"([0-9]{1,7})-([0-9]{1,7})")     # token numbers below MAX_TEXT_CHARS


def parse_pharaoh_line(text: str, path=None, line: int | None = None) -> list[Link]:
    """The links of one Pharaoh line."""
    out = []
    for item in text.split():
        m = _LINK.fullmatch(item)
        if m is None:
            raise InputFormatError(f"{item[:40]!r} is not an alignment link 'i-j' (0-based "
                                   "source and candidate token numbers, at most 7 digits)",
                                   path, line)
        out.append((int(m.group(1)), int(m.group(2))))
    return out


def read_pharaoh(path: str | os.PathLike[str]) -> list[list[Link]]:
    """Links of every line of a Pharaoh file (module doc)."""
    from evaltrans_qt.io.plaintext import read_input_bytes
    data = read_input_bytes(path, "a Pharaoh alignment file", allow_empty=True)
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFormatError("an alignment file holds only digits, '-' and spaces", path,
                               line) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [parse_pharaoh_line(s, path, no) for no, s in enumerate(lines, 1)]


def format_pharaoh(links: Sequence[Link]) -> str:
    return " ".join(f"{i}-{j}" for i, j in links)


def write_pharaoh(path: str | os.PathLike[str], lines: Sequence[Sequence[Link]]) -> None:
    from evaltrans_qt.io.atomic import atomic_write_bytes
    atomic_write_bytes(path, "".join(format_pharaoh(x) + "\n" for x in lines).encode("ascii"))


def eflomal_available() -> bool:
    try:
        import eflomal  # noqa: F401
    except ImportError:
        return False
    return True


def eflomal_align(sources: Sequence[Sequence[str]], targets: Sequence[Sequence[str]], *,
                  symmetrization: str = "grow-diag-final-and", seed_iterations: int | None = None
                  ) -> list[list[Link]]:
    """Align each source token list with its target token list with eflomal (module doc);
    one link list per pair. :class:`OptionError` naming the extra if eflomal is missing."""
    if len(sources) != len(targets):
        raise ValueError("sources and targets differ in number")
    try:
        import eflomal
    except ImportError:
        raise OptionError("computing word alignments needs the eflomal package: "
                          "pip install 'evaltrans_qt[align]' (or give --alignment "
                          "SYSTEM=FILE.pharaoh for every system)") from None
    if not sources:
        return []
    # eflomal cannot read empty sentences: give them a placeholder token, drop its links
    src_lines = [" ".join(s) if s else "\u2205" for s in sources]
    tgt_lines = [" ".join(t) if t else "\u2205" for t in targets]
    with tempfile.TemporaryDirectory(prefix="evaltrans-eflomal-") as tmp:
        fwd, rev = Path(tmp) / "fwd", Path(tmp) / "rev"
        aligner = eflomal.Aligner(n_iterations=seed_iterations)
        aligner.align([x + "\n" for x in src_lines], [x + "\n" for x in tgt_lines],
                      links_filename_fwd=str(fwd), links_filename_rev=str(rev), quiet=True)
        f_lines = fwd.read_text("ascii").split("\n")[:len(sources)]
        r_lines = rev.read_text("ascii").split("\n")[:len(sources)]
    out: list[list[Link]] = []
    for k, (fl, rl) in enumerate(zip(f_lines, r_lines)):
        if not sources[k] or not targets[k]:
            out.append([])
            continue
        out.append(symmetrize(parse_pharaoh_line(fl), parse_pharaoh_line(rl), symmetrization))
    return out
