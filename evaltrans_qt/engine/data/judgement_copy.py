"""A copy of a database's structure and judgements for background work (Qt-free).

The window hands a computation that runs on a worker thread (the Campaign menu's QC
report and agreement, ``docs/campaigns.md``) :func:`judgement_copy` of the open database,
made on the UI thread, instead of the live object: the user may score, mark spans or merge
meanwhile, and the worker must neither see half of such a change nor iterate a list
being replaced.

The copy is structural, not deep: new :class:`Database`, :class:`Source` and
:class:`Target` objects and new lists (sources, targets, scores, span annotations,
information-item marks, post-edits, information items, classes, the database's unknown
elements and attributes) holding the same elements. The elements are safe to share
because changes to a database replace them instead of changing them in place -- a new
:class:`Score` per judgement (:meth:`Target.set_score`), new lists of annotations, marks
and post-edits (:mod:`evaltrans_qt.engine.data.protocols`, the journal's changes), a new
:class:`Levels` per class change (:mod:`evaltrans_qt.engine.data.schemes`, whose undo
snapshots rely on the same rule) -- while the lists themselves may be appended to in
place (a merge adds scores to a target's list, a post-edit adds a target to its source),
which is why they are copied. Texts, ids and numbers are immutable.

Shared, not copied: the unknown attributes and child elements of sources, targets and
scores (kept for round trips), to which a merge adds missing ones in place
(:mod:`evaltrans_qt.engine.data.merge`); copying them would double the time of the copy.
The QC report reads none of them and the agreement only the ranking attributes of rank
scores (``task``, ``seconds``), so a merge that gives them to rank scores without them
while the agreement runs is the one change that can reach it. A computation that reads more of
them needs its own copy of them.
"""

from __future__ import annotations

from evaltrans_qt.engine.data.database import Database, Source, Target

_new = object.__new__


def _target(t: Target) -> Target:
    c = _new(Target)
    d = t.__dict__.copy()
    d["scores"] = t.scores[:]
    d["span_annotations"] = t.span_annotations[:]
    d["item_marks"] = t.item_marks[:]
    d["postedits"] = t.postedits[:]
    c.__dict__ = d
    return c


def _source(src: Source) -> Source:
    c = _new(Source)
    d = src.__dict__.copy()
    d["targets"] = [_target(t) for t in src.targets]
    d["items"] = src.items[:]
    c.__dict__ = d
    return c


def judgement_copy(db: Database, *, sources: bool = True) -> Database:
    """A copy of ``db`` that later changes to ``db`` do not reach (module doc): the same
    sources, targets, classes and judgements in the same order, indexed as ``db`` is.
    ``sources=False``: only the classes and the top-level elements and attributes (what
    the QC report reads: the ``<campaign-result>`` element), without a source.

    It makes 6 objects per target; on a large database, make it with the cyclic garbage
    collector paused (``evaltrans_qt.io.gcpause.paused_gc``, as the readers are run) and
    the copy frozen (``gc.freeze``) before the pause ends: it holds no cycle, and the
    collections it would cause otherwise cost more than the copy itself (on a campaign
    result of 21,042 candidates, 55-95 ms for the copy and 50-130 ms more for them:
    benchmarks/bench_judgement_copy.py).
    """
    out = Database(db.levels, db.version_id)
    if sources:
        out.sources = [_source(s) for s in db.sources]
        out.reindex()       # db's sources are merged already: only the indexes are built
    out.extra_children = db.extra_children[:]
    out.extra_attrs = db.extra_attrs.copy()
    out.external_metrics = db.external_metrics.copy()
    out.encoding = db.encoding
    return out


__all__ = ["judgement_copy"]
