"""Human-evaluation protocols beyond absolute scales: the checked edits (Qt-free).

The protocols of EvalTrans' predecessor tool (EuroMatrix survey D1.3 §4.4):

* **References** (aWER, survey §4.4.4; thesis Appendix A.2): a candidate is *promoted* to a
  reference by a score of the reference-deciding last class at its ``perfect``
  level (:func:`promote`); :func:`unmark` takes that score away again. A judge may
  *add* a new reference text to a source (:func:`add_reference`): a target marked
  by the last class with ``added=True`` and ``added_by`` = the judge
  (``<tgt sys added="1" judge>`` on disk). Unmarking an added reference removes
  it -- it never was a candidate translation.
* **Post-edits** (HTER, survey §4.4.17): per (candidate, judge) one
  :class:`~evaltrans_qt.engine.data.database.PostEdit` -- the targeted reference and
  the seconds spent (:func:`set_postedit`).
* **Information items** (IER, survey §4.4.16): per source, items are spans of
  source words (:func:`define_items`); the words are the source tokenised by
  ``Source.items_tokenization`` (default ``mteval`` = sacreBLEU's 13a, case kept),
  so a span means the same words wherever the file is opened. Items are
  non-empty, inside the sentence, in order and non-overlapping; they need not
  cover every word (punctuation is often left out). Per (candidate, judge) one
  mark per item from :data:`~evaltrans_qt.engine.data.database.ITEM_MARKS`
  (:func:`set_marks`). Redefining the items of a source whose candidates have
  marks is refused unless ``force`` (then those marks are deleted).

Every function checks its input first and raises :class:`ScoreError` naming the
problem, leaving the database unchanged. Sources on the command line and in the
application are numbered from 1 (the position in the source list): :func:`source_at`.
The values (SSER, IER, HTER, aWER, SER) are computed in
:mod:`evaltrans_qt.engine.human.protocol_scores`; journal entries that replay and undo
these edits are in :mod:`evaltrans_qt.io.protocol_changes`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from evaltrans_qt.engine.data.database import (
    ITEM_MARKS,
    Database,
    ItemMarks,
    Levels,
    PostEdit,
    Source,
    Target,
)
from evaltrans_qt.errors import ScoreError

#: Tokenisation of the source words that item spans count (sacreBLEU 13a, case kept).
ITEM_TOKENIZATION = "mteval"
#: System id given to an added reference without a name: ``added-1``, ``added-2``, ...
ADDED_PREFIX = "added-"
Span = tuple[int, int]

_CANONICAL_MARK = {m.lower(): m for m in ITEM_MARKS}
#: Line breaks and other control characters (a tab is allowed in a sentence).
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


# ------------------------------------------------------------------ finding things
def source_at(db: Database, number: int) -> Source:
    """The source shown at position ``number`` (1-based) of the source list."""
    n = len(db.sources)
    if not isinstance(number, int) or not 1 <= number <= n:
        raise ScoreError(f"source {number} does not exist (the database has {n} source"
                         f"{'' if n == 1 else 's'}, numbered 1..{n})")
    return db.sources[number - 1]


def target_of(db: Database, source: Source, system: str, *, candidate: bool | None = None
              ) -> Target:
    """The first target of ``source`` with system id ``system`` (``""`` = none); with
    ``candidate`` True/False only a candidate / reference."""
    is_ref = db.reference_test()
    want = system or None
    for t in source.targets:
        if (t.system or None) == want and (candidate is None or is_ref(t) != candidate):
            return t
    kind = {True: "candidate", False: "reference", None: "target"}[candidate]
    have = [t.system or "" for t in source.targets
            if candidate is None or is_ref(t) != candidate]
    raise ScoreError(f"source has no {kind} of system '{system}' "
                     f"({kind}s: {', '.join(repr(h) for h in have) or 'none'})")


def _check_judge(judge: str | None) -> None:
    if judge is not None and (not judge.strip() or _CONTROL.search(judge)):
        raise ScoreError(f"judge name {judge!r} is empty or contains a control character")


def _check_text(text: str, what: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ScoreError(f"{what} is empty")
    if _CONTROL.search(text):
        raise ScoreError(f"{what} contains a line break or control character")
    return text


# ------------------------------------------------------------------ references (aWER)
def promote(db: Database, target: Target) -> Levels:
    """Make candidate ``target`` a reference: a score of the marking class at its
    ``perfect`` level (thesis Appendix A.2); returns that class (``isReference`` is declared last
    if the last class does not mark references yet, see ``Database.marking_class``)."""
    if db.is_reference(target):
        raise ScoreError(f"'{target.system or ''}' is already a reference of its source")
    lv = db.marking_class()
    db.mark_reference(target, lv)
    return lv


def unmark(db: Database, source: Source, target: Target) -> bool:
    """Take reference ``target`` back: remove its marking scores (it becomes a candidate);
    a reference a judge added is removed from ``source`` instead. True if it was removed."""
    if not db.is_reference(target):
        raise ScoreError(f"'{target.system or ''}' is not a reference of its source")
    if target.added:
        remove_target(source, target)
        return True
    lv = db.reference_levels
    assert lv is not None       # is_reference() was true
    target.scores = [s for s in target.scores if not (s.cls == lv.name and s.value >= lv.perfect)]
    return False


def next_added_name(source: Source) -> str:
    """``added-N`` with the smallest N not used by a target of ``source``."""
    used = {t.system for t in source.targets}
    n = 1
    while f"{ADDED_PREFIX}{n}" in used:
        n += 1
    return f"{ADDED_PREFIX}{n}"


def add_reference(db: Database, source: Source, text: str, name: str | None = None,
                  judge: str | None = None) -> Target:
    """Add a new reference ``text`` to ``source`` (survey §4.4.4: the judge proposes a
    correct translation), named ``name`` (default ``added-N``), by ``judge``."""
    _check_text(text, "the reference text")
    _check_judge(judge)
    if name is not None and not name.strip():
        raise ScoreError("the reference name is empty")
    is_ref = db.reference_test()
    for t in source.targets:
        if is_ref(t) and t.text == text:
            raise ScoreError(f"the source already has this reference ('{t.system or ''}')")
        if name is not None and t.system == name:
            raise ScoreError(f"the source already has a target named '{name}'")
    lv = db.marking_class()
    tgt = Target(text, name if name is not None else next_added_name(source), added=True,
                 added_by=judge)
    db.mark_reference(tgt, lv)
    source.targets.append(tgt)
    return tgt


def remove_target(source: Source, target: Target) -> None:
    """Remove ``target`` (this very object) from ``source``."""
    idx = next((i for i, t in enumerate(source.targets) if t is target), None)
    if idx is None:
        raise ScoreError("the target is not one of the source's targets")
    del source.targets[idx]


# ------------------------------------------------------------------ post-edits (HTER)
def check_seconds(seconds: float | None) -> float | None:
    """``seconds`` as a float; ScoreError unless None or a finite number >= 0."""
    if seconds is None:
        return None
    try:
        v = float(seconds)
    except (TypeError, ValueError):
        raise ScoreError(f"seconds must be a number, not {seconds!r}") from None
    if not math.isfinite(v) or v < 0:
        raise ScoreError(f"seconds must be a finite number >= 0, not {seconds!r}")
    return v


def set_postedit(db: Database, target: Target, text: str, judge: str | None,
                 seconds: float | None = None) -> PostEdit:
    """Store ``text`` as ``judge``'s post-edit (targeted reference) of candidate ``target``,
    replacing an earlier one by the same judge (survey §4.4.17)."""
    if db.is_reference(target):
        raise ScoreError("a reference is not post-edited (post-edit a candidate)")
    _check_text(text, "the post-edited text")
    _check_judge(judge)
    pe = PostEdit(text, judge, check_seconds(seconds))
    target.postedits = [p for p in target.postedits if p.judge != judge] + [pe]
    return pe


def remove_postedit(target: Target, judge: str | None) -> bool:
    """Remove ``judge``'s post-edit of ``target``; True if there was one."""
    before = len(target.postedits)
    target.postedits = [p for p in target.postedits if p.judge != judge]
    return len(target.postedits) != before


# ------------------------------------------------------------------ information items (IER)
def source_words(source: Source) -> list[str]:
    """The words item spans count: the source tokenised by its ``items_tokenization``."""
    from evaltrans_qt.engine.text.preprocess import tokenize
    return tokenize(source.text, source.items_tokenization, "use")


_SPAN = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_spans(text: str) -> list[Span]:
    """``"1-3,4-7"`` (1-based, inclusive; ``"5"`` is one word) -> ``[(0, 3), (3, 7)]``."""
    if not text or not text.strip():
        return []
    out = []
    for part in text.split(","):
        m = _SPAN.match(part)
        if not m:
            raise ScoreError(f"item span {part.strip()!r} is not 'FIRST-LAST' or 'WORD' "
                             "(1-based word numbers, e.g. 1-3,4-7)")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if a < 1 or b < a:
            raise ScoreError(f"item span {part.strip()!r}: words are numbered from 1 and the "
                             "last word cannot come before the first")
        out.append((a - 1, b))
    return out


def format_spans(items: Sequence[Span]) -> str:
    """Inverse of :func:`parse_spans`: ``[(0, 3), (3, 7)]`` -> ``"1-3,4-7"``."""
    return ",".join(f"{a + 1}" if b == a + 1 else f"{a + 1}-{b}" for a, b in items)


def check_items(items: Sequence[Span], n_words: int) -> list[Span]:
    """``items`` as a list; ScoreError unless each is non-empty, inside ``n_words`` words,
    and they come in order without overlapping."""
    out: list[Span] = []
    prev_end = 0
    for k, span in enumerate(items, 1):
        a, b = (int(x) for x in span)
        if not 0 <= a < b:
            raise ScoreError(f"item {k} ({a + 1}-{b}) is empty")
        if b > n_words:
            raise ScoreError(f"item {k} ({format_spans([(a, b)])}) is outside the sentence, "
                             f"which has {n_words} word{'' if n_words == 1 else 's'}")
        if a < prev_end:
            raise ScoreError(f"item {k} ({format_spans([(a, b)])}) overlaps or comes before "
                             f"item {k - 1}; give the items in sentence order")
        prev_end = b
        out.append((a, b))
    return out


def item_texts(source: Source) -> list[str]:
    """The words of each item of ``source``, joined by spaces."""
    words = source_words(source)
    return [" ".join(words[a:b]) for a, b in source.items]


def marked_targets(source: Source) -> list[Target]:
    """Targets of ``source`` that carry item marks."""
    return [t for t in source.targets if t.item_marks]


def define_items(source: Source, items: Sequence[Span], force: bool = False) -> int:
    """Set the information items of ``source`` (0-based half-open word spans, see
    :func:`check_items`). Marks made against other items are deleted only with
    ``force``; returns how many marks were deleted."""
    new = check_items(items, len(source_words(source)))
    if new == list(source.items):
        return 0
    marked = marked_targets(source)
    n = sum(len(t.item_marks) for t in marked)
    if n and not force:
        raise ScoreError(f"{n} candidate marking(s) refer to the current items of this source; "
                         "redefining the items deletes them (use force / --force)")
    for t in marked:
        t.item_marks = []
    source.items = new
    return n


def parse_marks(marks: str | Sequence[str]) -> tuple[str, ...]:
    """``"OK,syntax"`` or a sequence -> canonical marks (case-insensitive input)."""
    parts = marks.split(",") if isinstance(marks, str) else list(marks)
    out = []
    for p in parts:
        m = _CANONICAL_MARK.get(str(p).strip().lower())
        if m is None:
            raise ScoreError(f"unknown item mark {str(p).strip()!r} (use one of "
                             f"{', '.join(ITEM_MARKS)})")
        out.append(m)
    return tuple(out)


def set_marks(db: Database, source: Source, target: Target, marks: str | Sequence[str],
              judge: str | None) -> ItemMarks:
    """Store ``judge``'s marks of candidate ``target``'s information items: exactly one
    of :data:`ITEM_MARKS` per item of ``source``."""
    if db.is_reference(target):
        raise ScoreError("a reference's information items are not marked (mark a candidate)")
    if not source.items:
        raise ScoreError("the source has no information items; define them first")
    _check_judge(judge)
    parsed = parse_marks(marks)
    if len(parsed) != len(source.items):
        raise ScoreError(f"{len(parsed)} mark(s) given, but the source has "
                         f"{len(source.items)} information item(s): one mark per item")
    im = ItemMarks(parsed, judge)
    target.item_marks = [m for m in target.item_marks if m.judge != judge] + [im]
    return im


def remove_marks(target: Target, judge: str | None) -> bool:
    """Remove ``judge``'s item marks of ``target``; True if there were some."""
    before = len(target.item_marks)
    target.item_marks = [m for m in target.item_marks if m.judge != judge]
    return len(target.item_marks) != before


def has_protocol_data(db: Database) -> dict[str, bool]:
    """Which protocol data the database holds: ``items``, ``marks``, ``postedits``,
    ``added`` (references added by judges)."""
    out = {"items": False, "marks": False, "postedits": False, "added": False}
    for src in db.sources:
        out["items"] = out["items"] or bool(src.items)
        for t in src.targets:
            out["marks"] = out["marks"] or bool(t.item_marks)
            out["postedits"] = out["postedits"] or bool(t.postedits)
            out["added"] = out["added"] or t.added
    return out
