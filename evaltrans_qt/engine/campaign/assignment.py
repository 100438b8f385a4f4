"""Who judges what, in which order: the deterministic assignment of a campaign (Qt-free).

Given a :class:`~evaltrans_qt.engine.campaign.definition.Definition` the plan is a pure
function of it (its ``seed`` drives every random choice through :class:`random.Random`
seeded with a string, which Python hashes with SHA-512 -- the same on every machine):

* **units**: one item each, or with ``documents`` all items of one (document, system),
  kept together and in document order; for relative ranking the candidates of one source
  shown on one screen: each source's systems, in a seeded order, split into
  ceil(n / k) groups of near-equal size (k = ``rank_size``; a group is never a single
  candidate, so with k = 2 and an odd n one group has 3), so every candidate is ranked and
  every pair of systems meets about equally often (WMT's random choice of 5 systems per
  screen, Bojar et al. 2013 §3.1);
* **redundancy and balance**: units are visited in a seeded order and each goes to the r
  annotators with the fewest items so far (ties: fewest items of that unit's system, then
  a seeded draw). Choosing the r least loaded keeps the annotators' item counts within the
  largest unit of each other (one item without documents; a document never exceeds one
  batch unless it is longer than a batch) -- the invariant: the chosen ones had no more
  than any other, so adding one unit cannot open a gap larger than that unit. Each unit
  goes to r *distinct* annotators, so nobody gets an item twice except planned repeats;
  the tie on systems makes each annotator see each system about equally often (WMT's
  balanced HITs, Kocmi et al. 2021 §2);
* **order**: each annotator's units are shuffled (documents stay whole and in order; the
  candidates of a ranking unit are shuffled too);
* **quality control** (:class:`~evaltrans_qt.engine.campaign.definition.QCPlan`, shares of
  the annotator's own real items): BAD-reference, injected-error and repeat copies of
  seeded items are put among the real ones -- a repeat at least half the bundle away from
  its original when the bundle is long enough, a BAD or injected copy at least two
  positions away (a seeded draw among the unit boundaries, redrawn when too close, the
  farthest boundary when 64 draws fail); with documents only between documents; a ranking
  repeat copies a whole unit (its candidates shuffled anew) and counts units, not items,
  and a ranking BAD copy is one more candidate inside a unit (at a seeded place; its
  system's id is the annotator's id of ``system + "\x1fbad"``, so a screen never shows
  one id twice);
* **opaque ids**: each annotator sees each system under its own id (``t`` + 8 hex digits of
  SHA-256 of the seed, the campaign id, the annotator and the system), so bundles reveal no
  system name and two annotators cannot compare ids.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from typing import NamedTuple

from evaltrans_qt.engine.campaign.definition import Definition

#: Kinds of bundle positions: a real item, its BAD-reference copy, its copy with an
#: injected error, its repeat.
REAL, BAD, INJECTED, REPEAT = "real", "bad", "injected", "repeat"
KINDS = (REAL, BAD, INJECTED, REPEAT)


class Slot(NamedTuple):
    """One position of an annotator's bundle: ``kind`` of :data:`KINDS` of item ``item``
    (index into ``Definition.items``); ``unit`` numbers the unit (document) it belongs to
    in this bundle; ``batch`` its batch (0-based). A named tuple: a campaign has about a
    hundred thousand of them, made again at every collection."""

    kind: str
    item: int
    unit: int
    batch: int = 0


@dataclass(frozen=True)
class AnnotatorPlan:
    """One annotator's bundle: positions in order and the opaque id of every system."""

    annotator: str
    slots: tuple[Slot, ...]
    opaque: dict[str, str]

    @property
    def real_items(self) -> list[int]:
        return [s.item for s in self.slots if s.kind == REAL]

    @property
    def batches(self) -> int:
        return 1 + max((s.batch for s in self.slots), default=-1)


def units_of(d: Definition) -> list[tuple[int, ...]]:
    """The units (module doc): tuples of item indices, in database order."""
    if d.spec.ranking:
        return ranking_units(d)
    if not d.documents:
        return [(i,) for i in range(len(d.items))]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (_, system) in enumerate(d.items):
        doc = d.item_docs[i] if d.item_docs else ""
        groups.setdefault((doc, system), []).append(i)
    return [tuple(v) for v in groups.values()]


def ranking_units(d: Definition) -> list[tuple[int, ...]]:
    """The ranking units (module doc): per source, its items in a seeded order split into
    near-equal groups of at most k (one of 3 when k = 2 and n is odd); a source with one
    item is one unit of one."""
    by_source: dict[int, list[int]] = {}
    for i, (si, _) in enumerate(d.items):
        by_source.setdefault(si, []).append(i)
    out: list[tuple[int, ...]] = []
    for si, idx in by_source.items():
        rng = random.Random(f"rank-units\x1f{d.seed}\x1f{si}")
        idx = list(idx)
        rng.shuffle(idx)
        n = len(idx)
        g = max(1, min(math.ceil(n / d.rank_size), n // 2))
        start = 0
        for j in range(g):
            size = n // g + (1 if j < n % g else 0)
            out.append(tuple(sorted(idx[start:start + size])))
            start += size
    return out


def opaque_id(d: Definition, annotator: str, system: str, cid: str | None = None) -> str:
    """The id annotator ``annotator`` sees for ``system`` (module doc); ``cid``: the
    campaign id when the caller has it (it hashes the whole definition)."""
    cid = d.campaign_id if cid is None else cid
    h = hashlib.sha256(f"{d.seed}\x1f{cid}\x1f{annotator}\x1f{system}".encode()).hexdigest()
    return "t" + h[:8]


def distribute(d: Definition) -> dict[str, list[tuple[int, ...]]]:
    """Annotator -> the units they get (module doc), in the order assigned."""
    units = units_of(d)
    rng = random.Random(f"assign\x1f{d.seed}")
    order = list(range(len(units)))
    rng.shuffle(order)
    names = list(d.annotators)
    load = dict.fromkeys(names, 0)
    per_system: dict[str, dict[str, int]] = {a: {} for a in names}
    out: dict[str, list[tuple[int, ...]]] = {a: [] for a in names}
    items, r, draw = d.items, d.redundancy, rng.random
    for u in order:
        unit = units[u]
        system = items[unit[0]][1]
        # least loaded first, then fewest of this system, then at random (one draw per
        # annotator, in the annotators' order)
        keys = sorted([(load[a], per_system[a].get(system, 0), draw(), k)
                       for k, a in enumerate(names)])
        for *_, k in keys[:r]:
            a = names[k]
            out[a].append(unit)
            load[a] += len(unit)
            per_system[a][system] = per_system[a].get(system, 0) + 1
    return out


def _qc_positions(n: int, originals: list[int], rng: random.Random, far: bool,
                  boundaries: list[int]) -> list[int]:
    """Insertion points (before real position q, 0..n) for copies of the real positions
    ``originals``: at least half the bundle away when ``far``, else at least two; only at
    ``boundaries`` (positions where a unit starts, and n)."""
    out = []
    gap_of = max(2, n // 2) if far else 2
    for p in originals:
        for _ in range(64):                       # a draw that is far enough
            q = rng.choice(boundaries)
            if abs(q - p) >= gap_of:
                break
        else:                                     # none found: the farthest boundary,
            first, last = boundaries[0], boundaries[-1]   # an end (they ascend); the first
            q = first if abs(first - p) >= abs(last - p) else last   # on a tie
        out.append(q)
    return out


def plan_annotator(d: Definition, annotator: str, units: list[tuple[int, ...]],
                   cid: str | None = None) -> AnnotatorPlan:
    """The bundle of ``annotator`` given its ``units`` (module doc: order, QC, batches);
    ``cid`` as in :func:`opaque_id`."""
    rng = random.Random(f"order\x1f{d.seed}\x1f{annotator}")
    units = list(units)
    rng.shuffle(units)
    reals: list[Slot] = []
    starts: list[int] = []
    ranking = d.spec.ranking
    qc = d.qc
    bad_units: set[int] = set()
    if ranking and qc.bad_refs > 0:             # a BAD candidate inside these screens
        bad_units = set(rng.sample(range(len(units)), min(len(units),
                                                          round(qc.bad_refs * len(units)))))
    for u, unit in enumerate(units):
        starts.append(len(reals))
        if ranking:                               # the candidates' order on the screen
            unit = tuple(rng.sample(unit, len(unit)))
            units[u] = unit
        screen = [Slot(REAL, i, u) for i in unit]
        if u in bad_units:
            screen.insert(rng.randrange(len(screen) + 1), Slot(BAD, rng.choice(unit), u))
        reals.extend(screen)
    n = len(reals)
    boundaries = starts + [n]
    extra: list[tuple[int, int, tuple[int, ...], str]] = []   # (before real q, order, items, kind)
    if ranking and qc.repeats > 0:              # whole units, far from the first showing
        k = min(len(units), round(qc.repeats * len(units)))
        chosen = sorted(rng.sample(range(len(units)), k))
        where = _qc_positions(n, [starts[u] for u in chosen], rng, True, boundaries)
        for u, q in zip(chosen, where):
            extra.append((q, 2, tuple(rng.sample(units[u], len(units[u]))), REPEAT))
    for order, (kind, share, far) in enumerate(((BAD, 0.0 if ranking else qc.bad_refs, False),
                                                (INJECTED, qc.injected, False),
                                                (REPEAT, 0.0 if ranking else qc.repeats,
                                                 True))):
        k = min(n, round(share * n))
        if k <= 0:
            continue
        originals = sorted(rng.sample(range(n), k))
        for p, q in zip(originals, _qc_positions(n, originals, rng, far, boundaries)):
            extra.append((q, order, (reals[p].item,), kind))
    extra.sort(key=lambda x: (x[0], x[1]))
    slots: list[Slot] = []
    e = 0
    unit_no = len(units)
    for q in range(n + 1):
        while e < len(extra) and extra[e][0] == q:
            slots.extend(Slot(extra[e][3], i, unit_no) for i in extra[e][2])
            unit_no += 1
            e += 1
        if q < n:
            slots.append(reals[q])
    # batches: close one when it holds >= batch items at the end of a unit
    batched: list[Slot] = []
    batch = size = 0
    for i, s in enumerate(slots):
        batched.append(Slot(s.kind, s.item, s.unit, batch))
        size += 1
        last_of_unit = i + 1 == len(slots) or slots[i + 1].unit != s.unit
        if size >= d.batch and last_of_unit:
            batch, size = batch + 1, 0
    cid = d.campaign_id if cid is None else cid
    opaque = {s: opaque_id(d, annotator, s, cid) for s in sorted({d.items[x.item][1]
                                                             for x in batched})}
    return AnnotatorPlan(annotator, tuple(batched), opaque)


def assign(d: Definition) -> dict[str, AnnotatorPlan]:
    """Every annotator's :class:`AnnotatorPlan` (deterministic given ``d``)."""
    dist = distribute(d)
    cid = d.campaign_id
    return {a: plan_annotator(d, a, dist[a], cid) for a in d.annotators}


__all__ = ["REAL", "BAD", "INJECTED", "REPEAT", "KINDS", "Slot", "AnnotatorPlan", "units_of",
           "ranking_units", "opaque_id", "distribute", "plan_annotator", "assign"]
