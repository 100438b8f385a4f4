"""The definition of a human-evaluation campaign with several annotators (Qt-free, no I/O).

A campaign (``docs/campaigns.md``; stored as ``NAME.etcampaign.json`` by
:mod:`evaltrans_qt.io.campaign_file`) names the database, the **protocol** and its score
classes, the **items** -- the candidates of the chosen systems on the chosen sources, or
whole documents of them -- the **annotators**, the **redundancy** r (each item judged by
r distinct annotators, WMT's "redundant" judgements; Kocmi et al. 2021 §2), the **batch**
size (Appraise's HITs of 100 items, WMT20 §3.2; ours a size in items), whether documents
stay together and in order, the **seed** of every random choice, the **quality-control
plan** (:class:`QCPlan`), the coordinator's **instructions** (Markdown) and optional
**tutorial** items with known answers.

The **campaign id** is the first 16 hex digits of the SHA-256 of the definition's
canonical JSON (:func:`canonical_json`: sorted keys, no spaces, UTF-8, the id itself
left out), so one definition and seed always give the same id and the same bundles.

Protocols (:data:`PROTOCOLS`) and what a bundle shows:

* ``classes`` -- absolute scales of the database's own classes (``--classes``), reference
  shown (thesis §4.4's adequacy/fluency judgements);
* ``sser`` -- the SSER scale 0..10 (survey Table 4.2), reference shown;
* ``da`` -- source-based Direct Assessment 0..100 (WMT19 §3.1, bilingual), no reference;
  ``da-ref`` -- reference-based (monolingual) DA, reference shown (Graham et al. 2013);
* ``esa`` -- Error Span Annotation (Kocmi et al. 2024 §2): Minor/Major spans and a 0..100
  score, no reference;
* ``mqm`` -- MQM error spans (Freitag et al. 2021 §3), no reference;
* ``postedit`` -- post-edits for HTER (survey §4.4.17), reference shown;
* ``items`` -- marks of the source's information items for IER (survey §4.4.16),
  reference shown;
* ``ranking`` -- WMT relative ranking (Callison-Burch et al. 2007 §3.2; Bojar et al. 2013
  §3.1): the candidates of ``rank_size`` (k, 5 by default as in WMT) systems of one source
  ranked 1..k on one screen, ties allowed, reference shown. A *unit* is one source's
  candidates of k systems (the engine's assignment, :func:`units_of
  <evaltrans_qt.engine.campaign.assignment.units_of>`); the items stay candidates.

SegRanks ranks short segments of several candidates extracted per source; a campaign of
it is not supported (refused by :func:`check_definition`, naming why).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from evaltrans_qt.engine.data.database import Database, Target
from evaltrans_qt.errors import EvalTransError

#: Format name and version written into every campaign file.
FORMAT = "evaltrans-campaign"
VERSION = 1


class CampaignError(EvalTransError):
    """A campaign definition, bundle or result is wrong (names the file and the problem)."""


@dataclass(frozen=True)
class Protocol:
    """How one item is judged: its score classes, whether spans are marked, what is shown."""

    name: str
    description: str
    #: Score classes the annotator gives (names of database classes; templates below).
    classes: tuple[str, ...] = ()
    #: Error spans are marked (MQM, ESA).
    spans: bool = False
    #: References are in the bundle (reference-based scales); the source always is.
    references: bool = False
    #: Post-edits / information-item marks are the judgement.
    postedit: bool = False
    items: bool = False
    #: Relative ranking: a screen ranks the candidates of k systems of one source.
    ranking: bool = False


#: The campaign protocols (module doc). ``classes`` of ``classes`` come from the definition.
PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (
    Protocol("classes", "absolute scales of the database's classes, reference shown",
             references=True),
    Protocol("sser", "SSER 0..10 (survey Table 4.2), reference shown", ("sser",),
             references=True),
    Protocol("da", "source-based direct assessment 0..100 (WMT19 3.1)", ("da",)),
    Protocol("da-ref", "reference-based direct assessment 0..100 (Graham et al. 2013)",
             ("da",), references=True),
    Protocol("esa", "error span annotation: Minor/Major spans and a 0..100 score "
                    "(Kocmi et al. 2024 2)", ("esa",), spans=True),
    Protocol("mqm", "MQM error spans (Freitag et al. 2021 3)", (), spans=True),
    Protocol("postedit", "post-edits for HTER (survey 4.4.17), reference shown",
             references=True, postedit=True),
    Protocol("items", "information-item marks for IER (survey 4.4.16), reference shown",
             references=True, items=True),
    Protocol("ranking", "relative ranking of k candidates of one source, 1 = best, ties "
                        "allowed (WMT; Bojar et al. 2013 3.1), reference shown", ("rank",),
             references=True, ranking=True),
)}
#: Protocols of the product that a campaign cannot use, and why.
NOT_CAMPAIGN_PROTOCOLS = {
    "segranks": "SegRanks ranks the short segments extracted from one source's candidates "
                "(evaltrans segranks extract), which a bundle does not carry; run a ranking "
                "campaign (--protocol ranking) or SegRanks sessions per annotator",
}
#: WMT's relative ranking showed five systems per screen (Bojar et al. 2013 §3.1).
DEFAULT_RANK_SIZE = 5


@dataclass(frozen=True)
class QCPlan:
    """The quality-control plan (shares are of each annotator's real items).

    * ``bad_refs``: share of items that get a *BAD reference* copy (WMT/Appraise: the
      candidate with a random phrase replaced by a phrase of another sentence; Graham et
      al. 2017 §4.1) -- scales, DA and ESA;
    * ``injected``: share that get a copy with an injected error (a word swapped with its
      neighbour or deleted; Anthea's attention checks) -- MQM and ESA spans;
    * ``repeats``: share repeated later in the bundle, far from the first (intra-annotator
      consistency);
    * ``straight_line``: N, the same score on N or more items in a row fails;
    * ``time_floor``: seconds below which an item counts as too fast, ``max_fast_share``
      the share of such items that fails;
    * ``min_detected``: share of injected errors an annotator must mark;
    * ``repeat_tolerance``: the largest mean absolute difference between an item and its
      repeat, as a share of the scale's range (MQM: of 25 penalty points);
    * ``alpha``: the significance level of the BAD-reference test (Appraise: 0.05).
    """

    bad_refs: float = 0.0
    injected: float = 0.0
    repeats: float = 0.0
    straight_line: int = 10
    time_floor: float = 2.0
    max_fast_share: float = 0.2
    min_detected: float = 0.5
    repeat_tolerance: float = 0.2
    alpha: float = 0.05

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TutorialItem:
    """A practice item shown before the real ones, with its known answer and feedback."""

    source: str
    candidate: str
    #: class -> expected value (scales), or "" for span protocols.
    answer: dict[str, float] = field(default_factory=dict)
    #: Expected spans as ``[start, end)`` of the candidate.
    spans: tuple[tuple[int, int], ...] = ()
    tolerance: float = 0.0
    feedback: str = ""
    reference: str | None = None


@dataclass(frozen=True)
class Definition:
    """A campaign (module doc). ``items`` are ``(source index (0-based), system)`` pairs in
    database order; ``fingerprint`` is the SHA-256 of their texts, so a database changed
    after ``campaign create`` is noticed before anything is bundled or collected."""

    database: str
    protocol: str
    classes: tuple[str, ...]
    systems: tuple[str, ...]
    items: tuple[tuple[int, str], ...]
    annotators: tuple[str, ...]
    redundancy: int = 1
    batch: int = 50
    documents: bool = False
    seed: int = 0
    qc: QCPlan = QCPlan()
    instructions: str = ""
    tutorial: tuple[TutorialItem, ...] = ()
    fingerprint: str = ""
    #: Document of each item's source ("" without documents), parallel to ``items``.
    item_docs: tuple[str, ...] = ()
    #: Ranking: systems per screen (k); written to the file for ranking only.
    rank_size: int = DEFAULT_RANK_SIZE

    @property
    def spec(self) -> Protocol:
        return PROTOCOLS[self.protocol]

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the campaign file, without its id (``rank_size`` only for
        ranking, so other campaigns' ids are as they were)."""
        out: dict[str, Any] = {
            "format": FORMAT, "version": VERSION, "database": self.database,
            "protocol": self.protocol, "classes": list(self.classes),
            "systems": list(self.systems),
            "items": [[i, s] for i, s in self.items], "item_docs": list(self.item_docs),
            "annotators": list(self.annotators), "redundancy": self.redundancy,
            "batch": self.batch, "documents": self.documents, "seed": self.seed,
            "qc": self.qc.to_dict(), "instructions": self.instructions,
            "tutorial": [_tutorial_dict(t) for t in self.tutorial],
            "fingerprint": self.fingerprint,
        }
        if self.spec.ranking:
            out["rank_size"] = self.rank_size
        return out

    @property
    def campaign_id(self) -> str:
        return campaign_id(self)


def _tutorial_dict(t: TutorialItem) -> dict[str, Any]:
    return {"source": t.source, "candidate": t.candidate, "reference": t.reference,
            "answer": dict(sorted(t.answer.items())), "spans": [list(s) for s in t.spans],
            "tolerance": t.tolerance, "feedback": t.feedback}


def canonical_json(d: Definition) -> bytes:
    """The canonical form the id is the hash of (module doc)."""
    return json.dumps(d.to_dict(), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def campaign_id(d: Definition) -> str:
    """16 hex digits of SHA-256 of :func:`canonical_json` (computed once per definition:
    it hashes every item)."""
    cached = _IDS.get(id(d))
    if cached is not None and cached[0] is d:
        return cached[1]
    value = hashlib.sha256(canonical_json(d)).hexdigest()[:16]
    if len(_IDS) > 64:
        _IDS.clear()
    _IDS[id(d)] = (d, value)
    return value


#: id(definition) -> (definition, its id); the definition is kept so the id is not reused.
_IDS: dict[int, tuple[Definition, str]] = {}


def check_definition(d: Definition) -> Definition:
    """``d`` if it can run; :class:`CampaignError` naming the first problem."""
    if d.protocol not in PROTOCOLS:
        why = NOT_CAMPAIGN_PROTOCOLS.get(d.protocol)
        raise CampaignError(f"protocol {d.protocol!r} " + (f"cannot run as a campaign: {why}"
                            if why else f"is unknown (use {', '.join(PROTOCOLS)})"))
    if not d.annotators:
        raise CampaignError("a campaign needs at least one annotator")
    seen: set[str] = set()
    for a in d.annotators:
        if not a.strip() or any(ord(c) < 32 for c in a) or a != a.strip():
            raise CampaignError(f"annotator name {a!r} is empty, has surrounding spaces or a "
                                "control character")
        if a in seen:
            raise CampaignError(f"annotator {a!r} is named twice")
        seen.add(a)
    if not 1 <= d.redundancy <= len(d.annotators):
        raise CampaignError(f"redundancy {d.redundancy} needs at least that many annotators "
                            f"(there are {len(d.annotators)}) and is at least 1")
    if d.batch < 1:
        raise CampaignError(f"batch size must be at least 1, not {d.batch}")
    if not d.items:
        raise CampaignError("the campaign has no items (no candidate of the chosen systems)")
    if len(set(d.items)) != len(d.items):
        raise CampaignError("an item is listed twice in the campaign")
    if d.item_docs and len(d.item_docs) != len(d.items):
        raise CampaignError("item_docs must name one document per item")
    qc = d.qc
    for name in ("bad_refs", "injected", "repeats"):
        v = getattr(qc, name)
        if not 0 <= v <= 1:
            raise CampaignError(f"QC share {name.replace('_', '-')}={v:g} must be in [0, 1]")
    if d.spec.ranking:
        if d.rank_size < 2:
            raise CampaignError(f"--rank-size {d.rank_size}: a ranking screen needs at least "
                                "2 candidates")
        if d.documents:
            raise CampaignError("--documents: a ranking unit is one source's candidates, not "
                                "a document")
        if d.tutorial:
            raise CampaignError("--tutorial: practice items are single candidates with a "
                                "known score; a ranking screen has no such answer")
        if qc.injected:
            raise CampaignError("ranking campaigns check quality with repeats=… (a unit "
                                "ranked twice) and bad-refs=… (a BAD candidate in a unit); "
                                "injected is not supported")
    if qc.bad_refs and (d.spec.postedit or d.spec.items or d.protocol == "mqm"):
        raise CampaignError(f"bad-refs need a score to compare; protocol {d.protocol!r} has "
                            "none (use injected=… for span protocols)")
    if qc.injected and not d.spec.spans:
        raise CampaignError(f"injected errors are found by marking spans; protocol "
                            f"{d.protocol!r} marks none (use bad-refs=…)")
    if qc.straight_line < 2:
        raise CampaignError(f"straight-line={qc.straight_line} must be at least 2")
    if qc.time_floor < 0 or not 0 <= qc.max_fast_share <= 1:
        raise CampaignError("time-floor must be >= 0 and max-fast-share in [0, 1]")
    return d


def _str_tuple(v: object, what: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise CampaignError(f"{what} must be a list of strings")
    return tuple(v)


def _number(v: object, what: str, kind: type = float) -> Any:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (
            kind is int and not isinstance(v, int)):
        raise CampaignError(f"{what} must be {'a whole number' if kind is int else 'a number'},"
                            f" not {v!r}")
    return kind(v)


def from_dict(obj: object) -> tuple[Definition, str | None]:
    """(definition, stored id or None) of a campaign file's JSON object;
    :class:`CampaignError` naming the field that is wrong."""
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise CampaignError(f"not an evaltrans campaign (expected \"format\": \"{FORMAT}\")")
    if obj.get("version") != VERSION:
        raise CampaignError(f"campaign format version {obj.get('version')!r} is not "
                            f"supported (this program reads {VERSION})")
    known = {"format", "version", "database", "protocol", "classes", "systems", "items",
             "item_docs", "annotators", "redundancy", "batch", "documents", "seed", "qc",
             "instructions", "tutorial", "fingerprint", "campaign_id", "rank_size"}
    unknown = sorted(set(obj) - known)
    if unknown:
        raise CampaignError(f"unknown field(s) {', '.join(unknown)}")
    items = obj.get("items")
    if not isinstance(items, list) or not all(
            isinstance(x, list) and len(x) == 2 and isinstance(x[0], int)
            and not isinstance(x[0], bool) and x[0] >= 0 and isinstance(x[1], str)
            for x in items):
        raise CampaignError("items must be a list of [source index, system] pairs")
    qd = obj.get("qc", {})
    if not isinstance(qd, dict) or set(qd) - set(QCPlan().to_dict()):
        raise CampaignError(f"qc must be an object with the fields "
                            f"{', '.join(QCPlan().to_dict())}")
    qc = QCPlan(**{k: _number(v, f"qc.{k}", int if k == "straight_line" else float)
                   for k, v in qd.items()})
    tut = obj.get("tutorial", [])
    if not isinstance(tut, list):
        raise CampaignError("tutorial must be a list of items")
    tutorial = tuple(tutorial_item(t, f"tutorial item {n}") for n, t in enumerate(tut, 1))
    for k in ("database", "protocol", "instructions", "fingerprint"):
        if not isinstance(obj.get(k, ""), str):
            raise CampaignError(f"{k} must be a string")
    if not isinstance(obj.get("documents", False), bool):
        raise CampaignError("documents must be true or false")
    d = Definition(
        database=obj.get("database", ""), protocol=obj.get("protocol", ""),
        classes=_str_tuple(obj.get("classes", []), "classes"),
        systems=_str_tuple(obj.get("systems", []), "systems"),
        items=tuple((int(i), str(s)) for i, s in items),
        item_docs=_str_tuple(obj.get("item_docs", []), "item_docs"),
        annotators=_str_tuple(obj.get("annotators", []), "annotators"),
        redundancy=_number(obj.get("redundancy", 1), "redundancy", int),
        batch=_number(obj.get("batch", 50), "batch", int),
        documents=obj.get("documents", False), seed=_number(obj.get("seed", 0), "seed", int),
        qc=qc, instructions=obj.get("instructions", ""), tutorial=tutorial,
        fingerprint=obj.get("fingerprint", ""),
        rank_size=_number(obj.get("rank_size", DEFAULT_RANK_SIZE), "rank_size", int))
    stored = obj.get("campaign_id")
    if stored is not None and not isinstance(stored, str):
        raise CampaignError("campaign_id must be a string")
    return check_definition(d), stored


def tutorial_item(t: object, what: str = "tutorial item") -> TutorialItem:
    """A :class:`TutorialItem` from its JSON object (module doc of ``docs/campaigns.md``)."""
    if not isinstance(t, dict) or not isinstance(t.get("source"), str) \
            or not isinstance(t.get("candidate"), str):
        raise CampaignError(f"{what} needs \"source\" and \"candidate\" texts")
    answer = t.get("answer", {})
    if not isinstance(answer, dict):
        raise CampaignError(f"{what}: answer must map classes to values")
    spans = t.get("spans", [])
    if not isinstance(spans, list) or not all(
            isinstance(s, list) and len(s) == 2 and all(isinstance(x, int) for x in s)
            for s in spans):
        raise CampaignError(f"{what}: spans must be [start, end] pairs")
    ref = t.get("reference")
    if ref is not None and not isinstance(ref, str):
        raise CampaignError(f"{what}: reference must be a text")
    fb = t.get("feedback", "")
    if not isinstance(fb, str):
        raise CampaignError(f"{what}: feedback must be a text")
    return TutorialItem(t["source"], t["candidate"],
                        {str(k): _number(v, f"{what} answer {k}") for k, v in answer.items()},
                        tuple((int(a), int(b)) for a, b in spans),
                        _number(t.get("tolerance", 0.0), f"{what} tolerance"), fb, ref)


def tutorial_check(t: TutorialItem, values: dict[str, float],
                   spans: Sequence[tuple[int, int]] = ()) -> tuple[bool, str]:
    """(right?, what to show) for an annotator's answer to a tutorial item: every class of
    the known ``answer`` within ``tolerance`` of it, and every expected span overlapped
    by a marked one; the text is the item's feedback, preceded by what was missed."""
    missed = [f"{c}: expected {v:g}" + (f" \u00b1 {t.tolerance:g}" if t.tolerance else "")
              + (f", given {values[c]:g}" if c in values else ", not given")
              for c, v in sorted(t.answer.items())
              if c not in values or abs(values[c] - v) > t.tolerance]
    for a, b in t.spans:
        if not any((s < b and a < e) if s != e else a <= s <= b for s, e in spans):
            missed.append(f"an error at characters {a}-{b} ({t.candidate[a:b]!r}) was not "
                          "marked")
    ok = not missed
    return ok, "\n".join([*missed, t.feedback] if missed else [t.feedback]).strip()


def parse_qc(text: str, base: QCPlan | None = None) -> QCPlan:
    """The plan of ``--qc bad-refs=0.1,repeats=0.05,injected=0.1,straight-line=10,…``
    (names with ``-`` or ``_``); :class:`CampaignError` naming a wrong part."""
    values = (base or QCPlan()).to_dict()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, eq, value = part.partition("=")
        key = name.strip().replace("-", "_")
        if not eq or key not in values:
            raise CampaignError(f"--qc: {part!r} is not NAME=VALUE with NAME one of "
                                f"{', '.join(k.replace('_', '-') for k in values)}")
        try:
            values[key] = int(value) if key == "straight_line" else float(value)
        except ValueError:
            raise CampaignError(f"--qc: {name.strip()}={value!r} is not a number") from None
    return QCPlan(**values)


# --------------------------------------------------------------------------- from a database
def database_items(db: Database, systems: Sequence[str] | None = None,
                   ) -> tuple[tuple[tuple[int, str], ...], tuple[str, ...], tuple[str, ...]]:
    """(items, their documents, systems) of ``db``: every candidate of ``systems`` (all
    systems when None) in database order, the first candidate of a system per source;
    :class:`CampaignError` for an unknown system."""
    known = db.systems()
    chosen = list(known) if systems is None else list(systems)
    unknown = [s for s in chosen if s not in known]
    if unknown:
        raise CampaignError(f"unknown system(s) {', '.join(unknown)} (the database has "
                            f"{', '.join(known) or 'none'})")
    want = set(chosen)
    items: list[tuple[int, str]] = []
    docs: list[str] = []
    for (i, system, k), src, _ in db.keyed_candidates():
        if k == 0 and system in want:
            items.append((i, system))
            docs.append(src.doc or "")
    return tuple(items), tuple(docs), tuple(chosen)


def fingerprint(db: Database, items: Sequence[tuple[int, str]]) -> str:
    """SHA-256 (hex) over the source and candidate texts of ``items`` (module doc);
    :class:`CampaignError` when an item is not in ``db``."""
    h = hashlib.sha256()
    for (i, system), t in zip(items, candidates_of(db, items)):
        h.update(f"{i}\x1f{system}\x1f{db.sources[i].text}\x1f{t.text}\x1e"
                 .encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def candidates_of(db: Database, items: Sequence[tuple[int, str]]) -> list[Target]:
    """:func:`candidate_of` of every item (the reference rule bound once)."""
    is_ref = db.reference_test()
    firsts: dict[tuple[int, str], Target] = {}
    for i in sorted({i for i, _ in items}):
        if not 0 <= i < len(db.sources):
            raise CampaignError(f"source {i + 1} is not in the database "
                                f"({len(db.sources)} sources)")
        for t in db.sources[i].targets:
            if not is_ref(t):
                firsts.setdefault((i, t.system or ""), t)
    out = []
    for i, system in items:
        found = firsts.get((i, system))
        if found is None:
            raise CampaignError(f"system {system!r} has no candidate in source {i + 1}")
        out.append(found)
    return out


def candidate_of(db: Database, index: int, system: str) -> Target:
    """The first candidate of ``system`` in source ``index`` (0-based); CampaignError if none."""
    if not 0 <= index < len(db.sources):
        raise CampaignError(f"source {index + 1} is not in the database "
                            f"({len(db.sources)} sources)")
    is_ref = db.reference_test()
    for t in db.sources[index].targets:
        if (t.system or "") == system and not is_ref(t):
            return t
    raise CampaignError(f"system {system!r} has no candidate in source {index + 1}")


__all__ = ["FORMAT", "VERSION", "CampaignError", "Protocol", "PROTOCOLS",
           "NOT_CAMPAIGN_PROTOCOLS", "DEFAULT_RANK_SIZE", "QCPlan", "TutorialItem", "Definition", "canonical_json",
           "campaign_id", "check_definition", "from_dict", "tutorial_item", "tutorial_check",
           "parse_qc",
           "database_items", "fingerprint", "candidate_of", "candidates_of"]
