"""Collecting the annotators' returned bundles into the campaign's result database
(``evaltrans campaign collect``; ``docs/campaigns.md``).

Every bundle is checked before anything is written (under the result's lock, while the
judgements of the bundles checked so far are applied): it must be a bundle of *this*
campaign (its ``<campaign-bundle campaign>`` id), of one of its annotators, and hold
exactly the positions the campaign gives that annotator -- the bundle's levels and positions
are computed from the definition (:func:`~evaltrans_qt.io.campaign_bundle.bundle_positions`,
what the bundle was written from) and compared (levels, then position by position: ids,
source, references, candidate), the first difference named; the stored checksum must match the positions too.
Judgements in a journal beside a bundle (``NAME.etdb.xml.journal``: the annotator's
application stopped before saving) are included, with a warning saying how many.
A file given twice (the same bytes) is merged once with a warning naming it; two
different files of one annotator are refused (which one counts is not ours to guess).
Judgements by another judge than the bundle's annotator are refused, naming the position.

The result database starts as a copy of the campaign's database (with the protocol's
classes declared); an existing result of the same campaign is added to, so bundles can be
collected as they come back, partial ones too (a later, fuller copy of a bundle replaces
its annotator's judgements; an identical one is skipped with a warning). Real items'
judgements become ordinary judgements of the annotator (score, error spans, post-edit,
item marks) of the real candidates, stored through the command line's one commit path
(:func:`evaltrans_qt.io.judgements.commit_changes`, all or nothing: one atomic write).
Quality-control copies are never scores of candidates: every judged position -- its kind,
campaign item, value, seconds and marked spans -- goes into the result's documented
extension ``<campaign-result>`` (:mod:`evaltrans_qt.io.campaign_qc`), with the
provenance of each annotator's bundle (file name, SHA-256 of its bytes, checksum).
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from evaltrans_qt.engine.campaign.assignment import INJECTED, REAL, AnnotatorPlan, assign
from evaltrans_qt.engine.campaign.definition import CampaignError, Definition
from evaltrans_qt.engine.campaign.qc import Judged
from evaltrans_qt.engine.data.database import Database, Levels, Target
from evaltrans_qt.engine.human.ranking import TASK_ATTR
from evaltrans_qt.engine.human.spans.scores import database_weights, judge_penalty
from evaltrans_qt.io.campaign_bundle import (
    BundleInfo,
    Position,
    bundle_info,
    bundle_levels,
    bundle_positions,
    expected_info,
    item_texts,
    judged_test,
    positions_of,
    read_positions,
    slot_targets,
    slot_texts,
)
from evaltrans_qt.io.campaign_file import class_levels, load_campaign_database, read_campaign
from evaltrans_qt.io.campaign_qc import (
    AnnotatorRecord,
    ResultData,
    read_result,
    read_result_file,
    set_result,
)
from evaltrans_qt.io.etdb import loads
from evaltrans_qt.io.gcpause import paused_gc
from evaltrans_qt.io.journal import Change, ScoreChange, journal_path, seconds_of
from evaltrans_qt.io.judgements import commit_changes
from evaltrans_qt.io.plaintext import read_input_bytes
from evaltrans_qt.io.protocol_changes import (
    SourceFields,
    marks_change,
    postedit_change,
    source_fields,
    spans_change,
)
from evaltrans_qt.io.segranks.changes import sentence_ranking_change
from evaltrans_qt.io.store import open_database, same_file

PathLike = str | os.PathLike[str]
PROGRAM = "evaltrans campaign collect"


@dataclass
class Returned:
    """One checked bundle: its file, annotator, judged positions and real judgements."""

    path: Path
    annotator: str
    sha256: str
    checksum: str
    judged: list[Judged]
    #: (campaign item index, the bundle's candidate) of each judged real position; emptied
    #: once its changes are made (a report keeps no bundle's candidates alive)
    real: list[tuple[int, Target]]
    positions: int
    #: A forked reader sends, instead of ``real``, its changes made against the campaign's
    #: database (:func:`_changes`), and the campaign items they judge; they hold for a
    #: result whose sources and candidates at those items are the campaign's
    #: (:func:`_result_differs`).
    changes: list[Change] | None = None
    items: list[int] = field(default_factory=list)


@dataclass
class CollectReport:
    """What a collection did: bundles merged, skipped (with why), judgements stored."""

    merged: list[Returned] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    judgements: int = 0
    #: Annotators whose bundle the result does not hold yet.
    missing: list[str] = field(default_factory=list)


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def first_difference(levels: Sequence[Levels], expected: Sequence[Position],
                     found: Database, positions: Sequence[Position] | None = None
                     ) -> str | None:
    """The first way ``found`` (a returned bundle) differs from a bundle with these
    ``levels`` and ``expected`` positions outside the judgements, or None (module doc);
    ``positions``: those of ``found`` when the caller has them."""
    if [lv.name for lv in levels] != [lv.name for lv in found.levels] or any(
            (a.count, a.continuous, a.minimum, a.maximum, a.firstvalid)
            != (b.count, b.continuous, b.minimum, b.maximum, b.firstvalid)
            for a, b in zip(levels, found.levels)):
        return "its score classes (<levels>) were changed"
    if len(expected) != len(found.sources):
        return (f"it has {len(found.sources)} positions, the campaign gave "
                f"{len(expected)}")
    if expected == (found_positions := positions_of(found) if positions is None
                    else positions):
        return None
    for n, (a, b) in enumerate(zip(expected, found_positions), 1):
        if a == b:
            continue
        if (a.doc, a.seg) != (b.doc, b.seg):
            return f"position {n}: its ids changed (doc/seg {a.doc}/{a.seg} -> {b.doc}/{b.seg})"
        if a.source != b.source:
            return f"position {n}: the source changed: expected {_short(a.source)}, found " \
                   f"{_short(b.source)}"
        if a.items != b.items:
            return f"position {n}: the information items changed"
        ta, tb = a.targets, b.targets
        if len(ta) != len(tb):
            return f"position {n}: {len(tb)} translations, expected {len(ta)}"
        for x, y in zip(ta, tb):
            what = "reference" if x[2] else "candidate"
            if x[1] != y[1]:
                return f"position {n}: the {what} changed: expected {_short(x[1])}, " \
                       f"found {_short(y[1])}"
            if x[0] != y[0]:
                return f"position {n}: the {what}'s id changed ({x[0]} -> {y[0]})"
            if x[2] != y[2]:
                return f"position {n}: the {what} was " + (
                    "made a reference" if y[2] else "unmarked as a reference")
    return None


def _check_judges(t: Target, annotator: str, n: int, path: Path) -> None:
    for group in (t.scores, t.span_annotations, t.postedits, t.item_marks):
        for x in group:
            j = x.judge
            if j is not None and j != annotator:
                raise CampaignError(f"position {n}: a judgement by {j!r} in the bundle of "
                                    f"{annotator!r} (a bundle holds its annotator's work "
                                    "only)", path)


def _value(d: Definition, db: Database, t: Target) -> tuple[float | None, float | None]:
    """(the protocol's score, seconds) of a bundle candidate (QC's ``Judged.value``)."""
    secs: float | None = None
    value: float | None = None
    if d.classes:
        first = d.classes[0]
        for x in t.scores:
            if x.cls == first:
                value, secs = x.value, seconds_of(x)
                break
    if t.span_annotations:
        mqm = d.protocol == "mqm"
        ann = next((a for a in t.span_annotations if a.protocol == "mqm"), None) \
            if mqm else t.span_annotations[0]
        if ann is not None:
            if secs is None:
                secs = ann.seconds
            if mqm:
                value = -judge_penalty(ann, database_weights(db))
    if secs is None and t.postedits and d.spec.postedit:
        secs = t.postedits[0].seconds
    return value, secs


def read_returned(d: Definition, db: Database, path: PathLike, data: bytes,
                  plans: dict | None = None, bundle: Database | None = None,
                  texts: Sequence[str] | None = None) -> Returned:
    """Check one returned bundle against the campaign (module doc) and read its
    judgements; :class:`CampaignError` naming the file and the first problem. ``data`` is
    what identifies it (its bytes); ``bundle`` the database read from it when the caller
    has it (the file with its journal replayed)."""
    p = Path(path)
    bdb = bundle if bundle is not None else loads(data, p)
    info: BundleInfo | None = bundle_info(bdb, p)
    if info is None:
        raise CampaignError("not a bundle of a campaign (no <campaign-bundle> element)", p)
    if info.campaign != d.campaign_id:
        raise CampaignError(f"a bundle of campaign {info.campaign}, not of this campaign "
                            f"({d.campaign_id})", p)
    if info.annotator not in d.annotators:
        raise CampaignError(f"annotator {info.annotator!r} is not in the campaign", p)
    plan = (plans or assign(d))[info.annotator]
    shown = slot_texts(d, db, plan, texts)
    expected = bundle_positions(d, db, plan, shown)
    found, candidates = read_positions(bdb)
    diff = first_difference(bundle_levels(d, db), expected, bdb, found)
    if diff is not None:
        raise CampaignError(f"edited outside its items: {diff}", p)
    exp_info = expected_info(d, plan, expected)
    # the positions equal the expected ones (first_difference compares exactly the fields
    # the checksum covers), so the stored checksum is the only one left to compare
    if info.checksum != exp_info.checksum:
        raise CampaignError("edited outside its items: its checksum does not match its "
                            "positions", p)
    if info != exp_info:
        raise CampaignError("edited outside its items: its <campaign-bundle> element was "
                            "changed", p)
    is_judged = judged_test(bdb, info)
    judged: list[Judged] = []
    real: list[tuple[int, Target]] = []
    for slot, st, (n, t) in zip(plan.slots, shown, slot_targets(d, plan, bdb, candidates)):
        _check_judges(t, info.annotator, n, p)
        if not is_judged(t):
            continue
        value, secs = _value(d, db, t)
        spans = tuple((e.start, e.end) for a in t.span_annotations for e in a.errors
                      if e.side == "target" and e.start is not None and e.end is not None)
        judged.append(Judged(n, slot.kind, slot.item, value, secs, spans,
                             st.injected if slot.kind == INJECTED else None))
        if slot.kind == REAL:
            real.append((slot.item, t))
    return Returned(p, info.annotator, hashlib.sha256(data).hexdigest(), info.checksum,
                    judged, real, len(plan.slots))


def candidate_index(db: Database) -> dict[tuple[int, str], int]:
    """(source index, system) -> index of the system's first candidate (not a reference)
    there -- the candidate a campaign item names (``Definition.items``)."""
    is_ref = db.reference_test()
    index: dict[tuple[int, str], int] = {}
    for si, src in enumerate(db.sources):
        for k, x in enumerate(src.targets):
            if not is_ref(x):
                index.setdefault((si, x.system or ""), k)
    return index


def _changes(d: Definition, rdb: Database, r: Returned,
             index: dict[tuple[int, str], int] | None = None,
             campaign: Database | None = None) -> list[Change]:
    """The judgements of ``r``'s real positions as changes of the result database
    (``index``: :func:`candidate_index` of ``rdb``, made here when not given);
    :class:`CampaignError` when an item's source is not the ``campaign`` database's (when
    given) or its candidate not the bundle's (:func:`_item_problem`)."""
    out: list[Change] = []
    ranks: dict[tuple[int, str], tuple[dict[int, int], float | None, str | None]] = {}
    if index is None:
        index = candidate_index(rdb)
    fields: dict[int, SourceFields] = {}         # source_fields per source, made once
    for item, t in r.real:
        si, system = d.items[item]
        ti = index.get((si, system))
        if ti is None or rdb.sources[si].targets[ti].text != t.text or (
                campaign is not None and campaign is not rdb
                and source_fields(rdb, si) != source_fields(campaign, si)):
            raise CampaignError(_item_problem(d, item, rdb, index, campaign or rdb, t.text)
                                or "the result was changed; nothing written", r.path)
        real_t = rdb.sources[si].targets[ti]
        for s in t.scores:
            if s.cls in d.classes and not s.extrapolated and d.spec.ranking:
                task = s.extra_attrs.get(TASK_ATTR, "")       # one screen's ranks together
                ranks.setdefault((si, task), ({}, seconds_of(s), s.time))[0][ti] = int(s.value)
            elif s.cls in d.classes and not s.extrapolated:
                sf = fields.get(si)
                if sf is None:
                    sf = fields[si] = source_fields(rdb, si)
                out.append(ScoreChange(**sf, target=real_t.text,
                                       system=real_t.system, cls=s.cls, value=s.value,
                                       judge=r.annotator, time=s.time, target_index=ti,
                                       seconds=seconds_of(s)))
        for a in t.span_annotations:
            out.append(spans_change(rdb, si, ti, r.annotator, a.errors, a.seconds,
                                    protocol=a.protocol, rejected=a.rejected))
        for pe in t.postedits:
            out.append(postedit_change(rdb, si, ti, r.annotator, pe.text, pe.seconds))
        for m in t.item_marks:
            out.append(marks_change(rdb, si, ti, r.annotator, m.marks))
    for (si, task), (rk, secs, when) in ranks.items():
        out.append(sentence_ranking_change(rdb, si, r.annotator, rk,
                                           task or f"{r.annotator}-{si + 1}",
                                           seconds=secs, time=when))
    return out


#: A bundle to read: its path, its bytes (with its journal's, which identify it) and, when
#: it has a journal, the database with the journal replayed.
_Job = tuple[PathLike, bytes, Database | None]
#: What a forked reader inherits (set while :func:`read_all`'s processes start).
_CONTEXT: tuple[Definition, Database, dict[str, AnnotatorPlan], Sequence[str],
                dict[tuple[int, str], int]] | None = None


def _read_forked(job: tuple[PathLike, bytes]) -> Returned:
    """:func:`read_returned` in a forked reader process (its context inherited), with the
    changes of its real judgements made here against the campaign's database (not for
    ranking, whose screens the result's candidates decide)."""
    assert _CONTEXT is not None
    d, db, plans, texts, index = _CONTEXT
    r = read_returned(d, db, job[0], job[1], plans, None, texts)
    if not d.spec.ranking:
        r.changes = _changes(d, db, r, index)
        r.items = [item for item, _ in r.real]
        r.real = []
    return r


def _item_problem(d: Definition, item: int, rdb: Database, index: dict[tuple[int, str], int],
                  campaign: Database, text: str) -> str | None:
    """Why the result ``rdb`` (``index``: its :func:`candidate_index`) cannot take a
    judgement of campaign item ``item``, whose candidate is ``text``, or None: the item's
    source (ids, sentence) is not the campaign database's, or it has no such candidate."""
    si, system = d.items[item]
    if index.get((si, system)) is None:
        return (f"source {si + 1} of the result has no candidate of {system!r} (the result "
                "was changed); nothing written")
    if rdb is not campaign and source_fields(rdb, si) != source_fields(campaign, si):
        return (f"source {si + 1} of the result is not the campaign's "
                f"{_short(campaign.sources[si].text)} (the result was changed); nothing "
                "written")
    real_t = rdb.sources[si].targets[index[(si, system)]]
    if real_t.text != text:
        return (f"source {si + 1}, system {system!r}: the result's candidate "
                f"{_short(real_t.text)} is not the campaign's {_short(text)} (the result was "
                "changed); nothing written")
    return None


def _result_differs(d: Definition, db: Database, rdb: Database, r: Returned,
                    index: dict[tuple[int, str], int], own: dict[tuple[int, str], int]
                    ) -> str | None:
    """Why ``r.changes`` (made against the campaign's database ``db``) do not hold for the
    result ``rdb`` (``index``, ``own``: the :func:`candidate_index` of ``rdb``, of ``db``),
    or None (:func:`_item_problem` at each of its items)."""
    for item in r.items:
        si, system = d.items[item]
        text = db.sources[si].targets[own[(si, system)]].text
        problem = _item_problem(d, item, rdb, index, db, text)
        if problem is not None:
            return problem
    return None


def reader_processes(jobs: int) -> int:
    """How many processes read ``jobs`` bundles: one per usable core (at most one per
    bundle) when this process may fork safely (:func:`~evaltrans_qt.io.parse_back.may_fork`:
    single-threaded, without Qt, where ``fork`` exists -- the command line), else 1 (the
    application, Windows)."""
    from evaltrans_qt.io.parse_back import may_fork
    if jobs < 2 or not may_fork():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:                   # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, jobs))


def read_all(d: Definition, db: Database, plans: dict[str, AnnotatorPlan],
             texts: Sequence[str], jobs: Sequence[_Job], processes: int | None = None
             ) -> Iterator[Returned]:
    """:func:`read_returned` of every job, in order (the first refused one raises its
    :class:`CampaignError` when reached). With more than one process (``None``:
    :func:`reader_processes`) the bundles are read and checked in forked processes --
    each a copy of this one, nothing to import or send but the bundle's bytes -- and
    only their judgements come back; a bundle with a journal is read here."""
    n = reader_processes(len(jobs)) if processes is None else processes
    if n <= 1:
        for f, data, bundle in jobs:
            yield read_returned(d, db, f, data, plans, bundle, texts)
        return
    global _CONTEXT
    forked = [(f, data) for f, data, bundle in jobs if bundle is None]
    _CONTEXT = (d, db, plans, texts, candidate_index(db))
    pool = ProcessPoolExecutor(n, mp_context=mp.get_context("fork"))
    try:
        results = pool.map(_read_forked, forked)     # forks the processes, then sends
        _CONTEXT = None                              # (they have their copy)
        for f, data, bundle in jobs:
            yield read_returned(d, db, f, data, plans, bundle, texts) \
                if bundle is not None else next(results)
    finally:
        _CONTEXT = None
        pool.shutdown(cancel_futures=True)           # a refused bundle: the rest unread


def collect(campaign: PathLike, files: Sequence[PathLike], result: PathLike, *,
            warn: Callable[[str], None] | None = None,
            processes: int | None = None) -> CollectReport:
    """Check every bundle in ``files`` and merge their judgements into ``result``
    (module doc); nothing is written when one is refused (:class:`CampaignError` naming
    it). ``warn`` is given each warning (a bundle given twice, already collected).
    ``processes``: how many read the bundles (:func:`read_all`; ``None``: as many as
    pays and is safe). The cyclic garbage collector is paused meanwhile
    (``io/gcpause.py``)."""
    with paused_gc():
        return _collect(campaign, files, result, warn, processes)


def _collect(campaign: PathLike, files: Sequence[PathLike], result: PathLike,
             warn: Callable[[str], None] | None, processes: int | None) -> CollectReport:
    report = CollectReport()

    def say(text: str) -> None:
        report.warnings.append(text)
        if warn is not None:
            warn(text)

    d = read_campaign(campaign)
    db = load_campaign_database(d, campaign)
    plans = assign(d)
    texts = item_texts(d, db)
    by_sha: dict[str, Path] = {}
    jobs: list[_Job] = []
    for f in files:
        data = read_input_bytes(f, "a returned bundle (.etdb.xml)")
        bundle: Database | None = None
        jp = journal_path(Path(f))
        if jp.is_file() and jp.stat().st_size:
            # judgements the annotator's application journaled but never saved count too
            opened = open_database(f)
            if opened.note:
                say(f"{f}: {opened.note}")
            bundle = opened.database
            data += b"\0journal\0" + jp.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        if sha in by_sha:
            say(f"{f}: the same bundle as {by_sha[sha]} (given twice): merged once")
            continue
        by_sha[sha] = Path(f)
        jobs.append((f, data, bundle))
    out = Path(result)
    start: Database | None = None
    if out.exists():
        existing = read_result_file(out)           # the element only; commit reads it all
        if existing is None and not same_file(out, _db_path(d, campaign)):
            raise CampaignError("exists and is not a result of a campaign; choose a new -o "
                                "(nothing written)", out)
        if existing is not None and existing.campaign != d.campaign_id:
            raise CampaignError(f"is the result of campaign {existing.campaign}, not of "
                                f"this one ({d.campaign_id}); nothing written", out)
    else:
        base = db
        for c in d.classes:
            if not base.has_class(c):
                base.add_class(class_levels(db, c))
        start = base          # created by the commit's one write; build sets the element

    def build(rdb: Database) -> Iterator[Change]:
        """The bundles read and checked (:func:`read_all`) and their changes yielded as
        each is ready (the commit applies them meanwhile); the result element last."""
        for c in d.classes:
            if not rdb.has_class(c):
                rdb.add_class(class_levels(db, c))
        data = (read_result(rdb, out) if start is None else None) \
            or ResultData.empty(d, _scale(d, db), plans)
        index = candidate_index(rdb) if jobs else {}
        own: dict[tuple[int, str], int] | None = None    # the campaign's, when needed
        by_annotator: dict[str, Returned] = {}
        for f, r in zip((j[0] for j in jobs), read_all(d, db, plans, texts, jobs, processes)):
            if r.annotator in by_annotator:
                raise CampaignError(f"a second, different bundle of annotator "
                                    f"{r.annotator!r} (the first: "
                                    f"{by_annotator[r.annotator].path}); give one of them", f)
            by_annotator[r.annotator] = r
            old = data.annotators.get(r.annotator)
            if old is not None and old.sha256 == r.sha256:
                say(f"{r.path}: already collected into {out} (the same file): skipped")
                continue
            if r.changes is None:
                yield from _changes(d, rdb, r, index, db)
            else:                                 # made by a forked reader (read_all)
                if rdb is not db and own is None:
                    own = candidate_index(db)
                problem = None if own is None else _result_differs(d, db, rdb, r, index,
                                                                   own)
                if problem is not None:
                    raise CampaignError(problem, r.path)
                yield from r.changes
                r.changes = None
            r.real = []
            data.annotators[r.annotator] = AnnotatorRecord(
                r.annotator, r.path.name, r.sha256, r.checksum, r.positions,
                len(plans[r.annotator].real_items), tuple(r.judged))
            report.merged.append(r)
        set_result(rdb, data)
        report.missing = [a.name for a in data.annotators.values() if a.file is None]

    stored = commit_changes(out, build, journal=False, program=PROGRAM,
                            what="campaign judgement", start=start)
    report.judgements = len(stored)
    return report


def _db_path(d: Definition, campaign: PathLike) -> Path:
    from evaltrans_qt.io.campaign_file import database_path
    return database_path(d, campaign)


def _scale(d: Definition, db: Database) -> float:
    """The range of the protocol's score (repeat tolerance is a share of it): the first
    class's (continuous: maximum - minimum; levels: last - first valid), MQM 25 points."""
    if d.protocol == "mqm":
        return 25.0
    if not d.classes:
        return 1.0
    lv = class_levels(db, d.classes[0])
    if lv.continuous and lv.minimum is not None and lv.maximum is not None:
        return float(lv.maximum - lv.minimum) or 1.0
    return float(max(1.0, lv.count - 1 - lv.firstvalid))


__all__ = ["PROGRAM", "Returned", "CollectReport", "first_difference", "read_returned",
           "collect"]
