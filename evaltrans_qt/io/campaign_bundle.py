"""Annotator bundles of a campaign: one self-contained ``.etdb.xml`` per annotator
(``docs/campaigns.md``), written by ``evaltrans campaign bundle`` and opened in annotator
mode by the application.

A bundle is an ordinary EvalTrans database holding only its annotator's positions
(:func:`evaltrans_qt.engine.campaign.assignment.plan_annotator`), one ``<source>`` per
position in bundle order (``seg`` = the 1-based position; with documents ``doc`` = ``d``
+ the unit's number), each with the one candidate to judge under the annotator's opaque
system id (a ranking position: the candidates of its unit, in the unit's shuffled
order) and -- only when the protocol shows them -- the references (named
``reference-1``, ``reference-2``…). The classes are the protocol's, then ``isReference`` (the last class
decides references, thesis Appendix A.2, so no protocol score can turn a candidate into
one); no other judge's score, no system name. Quality-control copies look like any other position.

The campaign's data is our documented extension, a top-level element the reader keeps as
an unknown element (the ``<typology>`` way, ``docs/spans.md``); a file without it is read
and written exactly as before::

    <campaign-bundle version="1" campaign="ID" annotator="anna" protocol="esa"
                     classes="esa" items="440" batches="52,104,…" checksum="SHA-256">
      <instructions>Markdown of the coordinator</instructions>
      <tutorial>[JSON list of tutorial items]</tutorial>
    </campaign-bundle>

``checksum`` is the SHA-256 of the positions (:func:`items_checksum`: every source's ids,
text and information items and its targets' ids, texts and reference flags -- not the
judgements), so a bundle whose items were edited is recognised at collection;
``batches`` lists where each batch ends (positions). The same definition and seed give
byte-identical bundles (the writer is deterministic, ``io/etdb/writer.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from lxml import etree

from evaltrans_qt.engine.campaign.assignment import (
    BAD,
    INJECTED,
    AnnotatorPlan,
    assign,
    opaque_id,
)
from evaltrans_qt.engine.campaign.definition import (
    CampaignError,
    Definition,
    TutorialItem,
    candidates_of,
    tutorial_item,
)
from evaltrans_qt.engine.campaign.qc import bad_reference, inject_error
from evaltrans_qt.engine.data.database import Database, Levels, Target
from evaltrans_qt.io.atomic import atomic_write_bytes
from evaltrans_qt.io.campaign_file import class_levels, load_campaign_database, read_campaign
from evaltrans_qt.io.etdb import checked_bytes, load_database
from evaltrans_qt.io.etdb.spans import database_typology, set_database_typology
from evaltrans_qt.io.gcpause import paused_gc
from evaltrans_qt.io.xmlsafe import safe_parser

PathLike = str | os.PathLike[str]
TAG = "campaign-bundle"
VERSION = "1"


@dataclass(frozen=True)
class BundleInfo:
    """The ``<campaign-bundle>`` element of a bundle (module doc)."""

    campaign: str
    annotator: str
    protocol: str
    classes: tuple[str, ...]
    items: int
    batch_ends: tuple[int, ...]
    checksum: str
    instructions: str = ""
    tutorial: tuple[TutorialItem, ...] = ()

    def element(self) -> str:
        el = etree.Element(TAG, version=VERSION, campaign=self.campaign,
                           annotator=self.annotator, protocol=self.protocol,
                           classes=" ".join(self.classes), items=str(self.items),
                           batches=",".join(map(str, self.batch_ends)),
                           checksum=self.checksum)
        if self.instructions:
            etree.SubElement(el, "instructions").text = self.instructions
        if self.tutorial:
            etree.SubElement(el, "tutorial").text = json.dumps(
                [_tutorial_json(t) for t in self.tutorial], ensure_ascii=False)
        return etree.tostring(el, encoding="unicode")


def _tutorial_json(t: TutorialItem) -> dict:
    return {"source": t.source, "candidate": t.candidate, "reference": t.reference,
            "answer": t.answer, "spans": [list(s) for s in t.spans],
            "tolerance": t.tolerance, "feedback": t.feedback}


def _is_bundle_element(x: str) -> bool:
    return x.startswith(f"<{TAG}") and x[len(TAG) + 1:][:1] in (" ", ">", "/")


def bundle_info(db: Database, path: PathLike | None = None) -> BundleInfo | None:
    """The bundle data of ``db``; None when it is not a bundle; :class:`CampaignError`
    naming ``path`` when the element is malformed."""
    for x in db.extra_children:
        if not _is_bundle_element(x):
            continue
        el = etree.fromstring(x.encode("utf-8"), safe_parser())
        try:
            if el.get("version") != VERSION:
                raise ValueError(f"version {el.get('version')!r} is not {VERSION}")
            need = [k for k in ("campaign", "annotator", "protocol", "checksum", "items")
                    if el.get(k) is None]
            if need:
                raise ValueError(f"no {', '.join(need)} attribute")
            ends = tuple(int(v) for v in (el.get("batches") or "").split(",") if v)
            instructions = el.findtext("instructions") or ""
            tut_text = el.findtext("tutorial")
            tutorial = tuple(tutorial_item(t) for t in json.loads(tut_text)) \
                if tut_text else ()
            return BundleInfo(el.get("campaign", ""), el.get("annotator", ""),
                              el.get("protocol", ""), tuple((el.get("classes") or "").split()),
                              int(el.get("items", "0")), ends, el.get("checksum", ""),
                              instructions, tutorial)
        except (ValueError, CampaignError) as exc:
            raise CampaignError(f"<{TAG}> is malformed: {exc}", path) from None
    return None


def is_bundle(db: Database) -> bool:
    """True if ``db`` is an annotator's bundle (the application opens it in annotator mode)."""
    return any(_is_bundle_element(x) for x in db.extra_children)


class Position(NamedTuple):
    """What a bundle's position holds outside the judgements (what the checksum covers):
    the source's ids, text and information items, its targets' (id, text, reference?)."""

    doc: str | None
    seg: str | None
    source: str
    items: tuple[tuple[int, int], ...]
    targets: tuple[tuple[str, str, bool], ...]


def positions_of(db: Database) -> list[Position]:
    """The :class:`Position` of every source of ``db``."""
    return read_positions(db)[0]


def read_positions(db: Database) -> tuple[list[Position], list[list[Target]]]:
    """The :class:`Position` of every source of ``db`` and, in the same pass, the
    candidates (the targets that are not references) of each."""
    is_ref = db.reference_test()
    positions: list[Position] = []
    candidates: list[list[Target]] = []
    for src in db.sources:
        targets, cands = [], []
        for t in src.targets:
            ref = is_ref(t)
            targets.append((t.system or "", t.text, ref))
            if not ref:
                cands.append(t)
        positions.append(Position(src.doc, src.seg, src.text, tuple(src.items),
                                  tuple(targets)))
        candidates.append(cands)
    return positions, candidates


def positions_checksum(positions: Sequence[Position]) -> str:
    """SHA-256 (hex) of ``positions`` (module doc)."""
    h = hashlib.sha256()
    for p in positions:                     # fields separated by US, records by RS
        parts = [p.doc or "", p.seg or "", p.source, " ".join(f"{a}-{b}" for a, b in p.items)]
        for system, text, ref in p.targets:
            parts += [system, text, "1" if ref else "0"]
        h.update("\x1f".join(parts).encode("utf-8", "surrogatepass"))
        h.update(b"\x1e")
    return h.hexdigest()


def items_checksum(db: Database) -> str:
    """SHA-256 (hex) of a bundle's positions, judgements left out (module doc)."""
    return positions_checksum(positions_of(db))


# --------------------------------------------------------------------------- building
class SlotText(NamedTuple):
    """What a position shows: the candidate text and, for an injected copy, the span."""

    text: str
    injected: tuple[int, int] | None = None


def item_texts(d: Definition, db: Database) -> list[str]:
    """The candidate text of every campaign item, in item order."""
    return [t.text for t in candidates_of(db, d.items)]


def slot_texts(d: Definition, db: Database, plan: AnnotatorPlan,
               texts: Sequence[str] | None = None) -> list[SlotText]:
    """The candidate text of every position of ``plan`` (QC copies made with a generator
    seeded by the campaign's seed, the annotator and the position); ``texts``: the
    :func:`item_texts` when the caller has them."""
    out: list[SlotText] = []
    if texts is None:
        texts = item_texts(d, db)
    for n, slot in enumerate(plan.slots, 1):
        si, _ = d.items[slot.item]
        text = texts[slot.item]
        if slot.kind not in (BAD, INJECTED):
            out.append(SlotText(text))
            continue
        rng = random.Random(f"qc\x1f{d.seed}\x1f{plan.annotator}\x1f{n}")
        if slot.kind == BAD:
            donor = slot.item
            for _ in range(100):                 # another source's candidate
                donor = rng.randrange(len(d.items))
                if d.items[donor][0] != si:
                    break
            out.append(SlotText(bad_reference(text, texts[donor], rng)))
        else:
            new, span, _ = inject_error(text, rng)
            out.append(SlotText(new, span))
    return out


def bundle_levels(d: Definition, db: Database) -> list[Levels]:
    """The ``<levels>`` of a bundle: the protocol's classes, then a last class that marks
    references (thesis Appendix A.2: otherwise the last protocol class would, and a
    candidate scored at its perfect level would turn into one)."""
    bdb = Database([class_levels(db, c) for c in d.classes])
    bdb.ensure_reference_class()
    return bdb.levels


def position_groups(d: Definition, plan: AnnotatorPlan) -> list[list[int]]:
    """The slots (indices into ``plan.slots``) of each bundle position: one each, or for
    ranking the consecutive slots of one unit (one screen)."""
    if not d.spec.ranking:
        return [[k] for k in range(len(plan.slots))]
    out: list[list[int]] = []
    for k, slot in enumerate(plan.slots):
        if out and plan.slots[out[-1][0]].unit == slot.unit:
            out[-1].append(k)
        else:
            out.append([k])
    return out


def _shown_id(d: Definition, plan: AnnotatorPlan, slot) -> str:
    """The opaque id a slot's candidate is shown under (a ranking BAD copy: its own, as it
    shares a screen with its original; module doc of the assignment)."""
    system = d.items[slot.item][1]
    if slot.kind == BAD and d.spec.ranking:
        return opaque_id(d, plan.annotator, f"{system}\x1fbad")
    return plan.opaque[system]


def bundle_positions(d: Definition, db: Database, plan: AnnotatorPlan,
                     texts: Sequence[SlotText]) -> list[Position]:
    """The positions of ``plan``'s bundle (``texts``: its :func:`slot_texts`): position n
    has seg n (doc: its unit when documents stay together), the references when the
    protocol shows them, and the candidate(s) under their opaque ids."""
    spec = d.spec
    is_ref = db.reference_test()
    out: list[Position] = []
    if not spec.ranking:                 # one candidate per position (the common case, fast)
        items, sources, opaque = d.items, db.sources, plan.opaque
        references: dict[int, tuple[tuple[str, str, bool], ...]] = {}
        for n, (slot, st) in enumerate(zip(plan.slots, texts), 1):
            si, system = items[slot.item]
            src = sources[si]
            shown = references.get(si)
            if shown is None:
                shown = references[si] = tuple(
                    (f"reference-{k}", ref.text, True)
                    for k, ref in enumerate((t for t in src.targets if is_ref(t)), 1)) \
                    if spec.references else ()
            out.append(Position(f"d{slot.unit + 1}" if d.documents else None, str(n),
                                src.text, tuple(src.items) if spec.items else (),
                                (*shown, (opaque[system], st.text, False))))
        return out
    for n, group in enumerate(position_groups(d, plan), 1):
        slot = plan.slots[group[0]]
        si, _ = d.items[slot.item]
        src = db.sources[si]
        refs: tuple[tuple[str, str, bool], ...] = ()
        if spec.references:
            refs = tuple((f"reference-{k}", ref.text, True)
                         for k, ref in enumerate((t for t in src.targets if is_ref(t)), 1))
        cands = tuple((_shown_id(d, plan, plan.slots[k]), texts[k].text, False)
                      for k in group)
        out.append(Position(f"d{slot.unit + 1}" if d.documents else None, str(n), src.text,
                            tuple(src.items) if spec.items else (), (*refs, *cands)))
    return out


def expected_info(d: Definition, plan: AnnotatorPlan, positions: Sequence[Position]
                  ) -> BundleInfo:
    """The ``<campaign-bundle>`` data of ``plan``'s bundle with these positions."""
    ends: list[int] = []
    groups = position_groups(d, plan)
    for n, group in enumerate(groups, 1):
        if n == len(groups) or plan.slots[groups[n][0]].batch != plan.slots[group[0]].batch:
            ends.append(n)
    return BundleInfo(d.campaign_id, plan.annotator, d.protocol, d.classes, len(groups),
                      tuple(ends), positions_checksum(positions), d.instructions, d.tutorial)


def slot_targets(d: Definition, plan: AnnotatorPlan, bundle: Database,
                 candidates: Sequence[Sequence[Target]] | None = None
                 ) -> list[tuple[int, Target]]:
    """(1-based position, the bundle's candidate) of every slot of ``plan``, in slot
    order: the position's candidates (not references) in order (``candidates``: those
    of each position when the caller has them, :func:`read_positions`)."""
    if candidates is None:
        candidates = read_positions(bundle)[1]
    out: list[tuple[int, Target]] = []
    for n, (group, cands) in enumerate(zip(position_groups(d, plan), candidates), 1):
        out.extend((n, cands[j]) for j in range(min(len(group), len(cands))))
    return out


def bundle_database(d: Definition, db: Database, plan: AnnotatorPlan,
                    texts: list[SlotText] | None = None) -> Database:
    """The bundle of ``plan``'s annotator (module doc)."""
    texts = texts if texts is not None else slot_texts(d, db, plan)
    bdb = Database(bundle_levels(d, db),
                   version_id=f"evaltrans campaign {d.campaign_id}: bundle of {plan.annotator}")
    if d.spec.spans:
        typ = database_typology(db)
        if typ is not None:
            set_database_typology(bdb, typ)
    positions = bundle_positions(d, db, plan, texts)
    for group, p in zip(position_groups(d, plan), positions):
        slot = plan.slots[group[0]]
        bsrc = bdb.add_source(p.source, doc=p.doc, seg=p.seg)
        if d.spec.items:
            bsrc.items = list(p.items)
            bsrc.items_tokenization = db.sources[d.items[slot.item][0]].items_tokenization
        for system, text, ref in p.targets:
            if ref:
                bdb.add_target(bsrc, text, system, reference=True)
            else:
                bsrc.targets.append(Target(text, system))
    bdb.extra_children.append(expected_info(d, plan, positions).element())
    return bdb


_UNSAFE = re.compile(r"[^\w.-]+")


def bundle_file_name(annotator: str) -> str:
    """``ANNOTATOR.etdb.xml`` with characters unsafe in file names replaced by ``_``."""
    return f"{_UNSAFE.sub('_', annotator).strip('.') or 'annotator'}.etdb.xml"


def write_bundles(campaign: PathLike, out_dir: PathLike) -> list[Path]:
    """Write every annotator's bundle of the campaign file ``campaign`` into ``out_dir``
    (created if needed); returns the paths. A file there that differs from its bundle
    (an annotator's work, say) is never overwritten: :class:`CampaignError` naming it.
    The cyclic garbage collector is paused meanwhile (``io/gcpause.py``)."""
    with paused_gc():
        return _write_bundles(campaign, out_dir)


def _write_bundles(campaign: PathLike, out_dir: PathLike) -> list[Path]:
    d = read_campaign(campaign)
    db = load_campaign_database(d, campaign)
    names = [bundle_file_name(a) for a in d.annotators]
    clash = {n for n in names if names.count(n) > 1}
    if clash:
        raise CampaignError(f"annotator names that give the same file name "
                            f"{', '.join(sorted(clash))}; rename an annotator", campaign)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plans = assign(d)
    texts = item_texts(d, db)
    todo: list[tuple[Path, bytes]] = []
    for a, name in zip(d.annotators, names):
        path = out / name
        bundle = bundle_database(d, db, plans[a], slot_texts(d, db, plans[a], texts))
        data = checked_bytes(bundle, path)
        if path.exists() and path.read_bytes() != data:
            raise CampaignError("exists and differs from the bundle (an annotator's work?); "
                                "not overwritten: choose another folder", path)
        todo.append((path, data))
    for path, data in todo:
        atomic_write_bytes(path, data)
    return [p for p, _ in todo]


# --------------------------------------------------------------------------- annotator mode
@dataclass(frozen=True)
class BundleItem:
    """One position of an opened bundle: ``n`` (1-based), the source's and the candidate's
    indices in the bundle database, the texts, the batch (0-based) and whether judged."""

    n: int
    source_index: int
    target_index: int
    source: str
    candidate: str
    system: str
    references: tuple[str, ...]
    batch: int
    judged: bool


@dataclass(frozen=True)
class Progress:
    """How far an annotator is: ``done`` of ``total`` positions, batches still open."""

    done: int
    total: int
    batches: int
    batches_left: int

    @property
    def text(self) -> str:
        left = f"{self.batches_left} batch{'' if self.batches_left == 1 else 'es'} left"
        return f"{self.done} of {self.total}, {left}"


def judged_test(db: Database, info: BundleInfo) -> Callable[[Target], bool]:
    """:func:`candidate_judged` for the candidates of one bundle (the protocol and its
    classes' floors looked up once)."""
    from evaltrans_qt.engine.campaign.definition import PROTOCOLS
    spec = PROTOCOLS.get(info.protocol)
    if spec is None:
        return lambda t: False
    floors: list[tuple[str, float]] = []
    for c in info.classes:
        lv = db.level(c) if db.has_class(c) else None
        floors.append((c, lv.firstvalid if lv is not None and not lv.continuous
                       else float("-inf")))
    need_spans = spec.spans and not info.classes
    postedit, items = spec.postedit, spec.items

    def test(t: Target) -> bool:
        if need_spans and not t.span_annotations:
            return False                # MQM: the annotation is the judgement (ESA: score)
        if postedit and not t.postedits:
            return False
        if items and not t.item_marks:
            return False
        for c, floor in floors:
            if not any(s.cls == c and not s.extrapolated and s.value >= floor
                       for s in t.scores):
                return False
        return True
    return test


def candidate_judged(db: Database, info: BundleInfo, t: Target) -> bool:
    """True if the bundle's candidate ``t`` holds its annotator's judgement: a score of
    every class of the protocol at or above its first valid level (ESA: its score; the
    spans may be none), an error annotation (MQM), a post-edit or item marks -- whatever
    the protocol asks for."""
    return judged_test(db, info)(t)


def bundle_items(db: Database) -> list[BundleItem]:
    """The positions of the bundle ``db`` in order (:class:`CampaignError` if it is none)."""
    info = bundle_info(db)
    if info is None:
        raise CampaignError("not an annotator's bundle (no <campaign-bundle>)")
    is_ref = db.reference_test()
    judged = judged_test(db, info)
    ends = list(info.batch_ends) or [len(db.sources)]
    out: list[BundleItem] = []
    batch = 0
    for i, src in enumerate(db.sources):
        while batch < len(ends) - 1 and i + 1 > ends[batch]:
            batch += 1
        ti, t = next(((k, x) for k, x in enumerate(src.targets) if not is_ref(x)), (-1, None))
        if t is None:
            raise CampaignError(f"position {i + 1} of the bundle has no candidate")
        out.append(BundleItem(i + 1, i, ti, src.text, t.text, t.system or "",
                              tuple(x.text for x in src.targets if is_ref(x)), batch,
                              judged(t)))
    return out


def bundle_progress(db: Database) -> Progress:
    """``312 of 400, 2 batches left`` of the bundle ``db``."""
    items = bundle_items(db)
    batches = 1 + max((x.batch for x in items), default=-1)
    left = len({x.batch for x in items if not x.judged})
    return Progress(sum(x.judged for x in items), len(items), batches, left)


def open_bundle(path: PathLike) -> tuple[Database, BundleInfo]:
    """Load the bundle at ``path``: (database, its bundle data); CampaignError naming the
    file when it is not a bundle."""
    db = load_database(path)
    info = bundle_info(db, path)
    if info is None:
        raise CampaignError("not an annotator's bundle of a campaign (no <campaign-bundle> "
                            "element)", path)
    return db, info


__all__ = ["TAG", "BundleInfo", "bundle_info", "is_bundle", "Position", "positions_of",
           "positions_checksum", "items_checksum", "SlotText", "bundle_levels",
           "bundle_positions", "position_groups", "slot_targets", "expected_info", "read_positions",
           "item_texts", "slot_texts", "bundle_database", "bundle_file_name", "write_bundles", "BundleItem",
           "Progress", "judged_test", "candidate_judged", "bundle_items", "bundle_progress", "open_bundle"]
