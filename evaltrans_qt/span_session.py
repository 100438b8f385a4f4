"""A judge's error-span annotation (MQM, ESA) as a Qt-free model: candidates in order, the
judge's errors of the current one, document context, marking, relabelling, deleting,
omissions, the ESA score, undo.

The annotation screen (:mod:`evaltrans_qt.ui.span_screen`) only shows this model and turns mouse and keys
into calls. Every edit is one step: the judge's whole annotation of the candidate, as it
is after the edit, committed as a :class:`~evaltrans_qt.io.protocol_changes.SpansChange`
through :meth:`Workspace.commit` (journal first, fsync, then the database), recorded in the
workspace's undo history (:class:`~evaltrans_qt.history.History`), so that it survives a
crash like a score and Ctrl+Z commits the inverse. The seconds since the candidate was
shown are added to the annotation's time with each edit.

* :attr:`SpanSessionModel.items` -- ``(source index, target index)`` of the candidates to
  annotate; :func:`document_order` gives one system's candidates document by document
  (the document-level mode), :func:`all_candidates` every candidate in database order.
* Spans are character offsets into the candidate (``side="target"``) or its source;
  :meth:`SpanSessionModel.add_error` snaps them to whole words unless ``snap=False``
  (Alt held), see :mod:`evaltrans_qt.engine.human.spans.text`.
* :meth:`SpanSessionModel.context` -- the previous and next segments of the same
  document (source and the same system's candidate), shown dimmed around the current one.
* The judge's annotations carry the session's protocol (``mqm`` or ``esa``,
  engine/human/spans/model.py): an ESA session edits the judge's ESA annotation, never
  their MQM one, and its spans do not count towards MQM.
* ESA (``protocol="esa"``): severities Minor/Major only, and :meth:`set_score` gives the
  0-100 score (class ``esa``, declared -- and the file saved -- when the session starts,
  so a journaled score always finds its class on replay).
* The judge's annotations are human ones (origin ``human``, engine/human/spans/model.py),
  whatever the judge's name: a machine's suggested spans under the same name are never
  edited by the session.
* Pre-filled spans: :meth:`SpanSessionModel.use_suggestions` shows a machine's suggested
  spans (its annotation of origin ``machine``: imported xCOMET or GEMBA-MQM output, TER's
  edits; else, for databases written before annotations had an origin or to show a
  colleague's marks, that judge's annotation) as :meth:`~SpanSessionModel.suggestions`, which the judge
  accepts (a commit like any mark) or rejects (a commit too: the rejection is recorded in
  the judge's annotation, :class:`~evaltrans_qt.engine.human.spans.model.Rejection`, which
  :mod:`~evaltrans_qt.engine.human.spans.prefill` counts as *rejected*, apart from spans
  left alone; undo brings the suggestion back). A rejection is a step of the judgement:
  in MQM the candidate then has an annotation (without errors until the judge marks one).

Signals (psygnal): ``shown(i)`` -- item ``i`` is the current one; ``changed(i)`` -- item
``i``'s annotation or score changed (an edit, an undo or a redo).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from psygnal import Signal

from evaltrans_qt.engine.data.database import Database, Target
from evaltrans_qt.engine.human.spans.model import (
    ESA_SEVERITIES,
    MQM_CORE,
    PROTOCOLS,
    ErrorSpan,
    Rejection,
    SpanAnnotation,
    Typology,
    canonical_severity,
    check_error,
    check_protocol,
)
from evaltrans_qt.engine.human.spans.prefill import overlaps, same_span
from evaltrans_qt.engine.human.spans.scores import ESA_CLASS, annotation_by, ensure_esa_class
from evaltrans_qt.engine.human.spans.text import snap as snap_words
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io import protocol_changes
from evaltrans_qt.io.etdb.spans import database_typology
from evaltrans_qt.io.journal import Change, change_for
from evaltrans_qt.workspace import Workspace

Item = tuple[int, int]
__all__ = ["PROTOCOLS", "ContextLine", "SpanSessionModel", "all_candidates", "document_order"]


def all_candidates(db: Database) -> list[Item]:
    """Every candidate, in database order (source by source)."""
    is_ref = db.reference_test()
    return [(si, ti) for si, src in enumerate(db.sources)
            for ti, t in enumerate(src.targets) if not is_ref(t)]


def document_order(db: Database, system: str) -> list[Item]:
    """``system``'s candidates document by document (documents in order of first
    appearance, segments in database order): the document-level mode."""
    is_ref = db.reference_test()
    docs: dict[str, list[Item]] = {}
    for si, src in enumerate(db.sources):
        for ti, t in enumerate(src.targets):
            if (t.system or "") == system and not is_ref(t):
                docs.setdefault(src.doc or "", []).append((si, ti))
    return [it for items in docs.values() for it in items]


@dataclass(frozen=True)
class ContextLine:
    """A neighbouring segment of the same document: its source and the same system's
    candidate (None if that system has none there); ``offset`` -1 before, +1 after."""

    offset: int
    source: str
    candidate: str | None


class SpanSessionModel:
    """One judge's pass through :attr:`items` (module doc)."""

    shown = Signal(int)
    changed = Signal(int)

    def __init__(self, workspace: Workspace, judge: str | None, *, protocol: str = "mqm",
                 typology: Typology | None = None, items: list[Item] | None = None,
                 clock=time.monotonic, stamp=None) -> None:
        check_protocol(protocol)
        db = workspace.database
        if db is None:
            raise LookupError("no database is open")
        self.workspace = workspace
        self.judge = judge
        self.protocol = protocol
        #: The database's typology (io/etdb/spans.py), else the MQM core typology.
        self.typology = typology or database_typology(db, workspace.path) or MQM_CORE
        self.items = list(items) if items is not None else all_candidates(db)
        if not self.items:
            raise ScoreError("there is no candidate to annotate")
        self._clock = clock
        #: the time stamp of an ESA score (``YYYY-MM-DDTHH:MM:SS``, local time by default)
        self._stamp = stamp or (lambda: time.strftime("%Y-%m-%dT%H:%M:%S"))
        self.index = 0
        self._since = clock()
        if protocol == "esa" and not db.has_class(ESA_CLASS):
            ensure_esa_class(db)
            if workspace.path is not None:
                workspace.save()          # the class is on disk before any score of it

    # ------------------------------------------------------------ where we are
    @property
    def database(self) -> Database:
        db = self.workspace.database
        assert db is not None
        return db

    @property
    def current(self) -> Item:
        return self.items[self.index]

    def target(self, i: int | None = None) -> Target:
        si, ti = self.items[self.index if i is None else i]
        return self.database.sources[si].targets[ti]

    def source_text(self, i: int | None = None) -> str:
        return self.database.sources[self.items[self.index if i is None else i][0]].text

    def annotation(self, i: int | None = None) -> SpanAnnotation | None:
        """The judge's (human) annotation under the session's protocol of item ``i``
        (default: the current one), if any."""
        return annotation_by(self.target(i), self.judge, self.protocol, "human")

    def errors(self, i: int | None = None) -> list[ErrorSpan]:
        a = self.annotation(i)
        return list(a.errors) if a is not None else []

    def score(self, i: int | None = None) -> float | None:
        """The judge's ESA score of item ``i``, if any."""
        s = next((s for s in self.target(i).scores
                  if s.cls == ESA_CLASS and s.judge == self.judge), None)
        return None if s is None else s.value

    def done(self, i: int | None = None) -> bool:
        """Whether the judge committed item ``i``: an annotation (MQM) or a score (ESA)."""
        if self.protocol == "esa":
            return self.score(i) is not None
        return self.annotation(i) is not None

    def go(self, i: int) -> None:
        if not 0 <= i < len(self.items):
            raise IndexError(f"item {i} is not in 0..{len(self.items) - 1}")
        self.index = i
        self._since = self._clock()
        self.shown.emit(i)

    def next(self) -> bool:
        """Go to the next item; False at the last one."""
        if self.index + 1 >= len(self.items):
            return False
        self.go(self.index + 1)
        return True

    def previous(self) -> bool:
        if self.index == 0:
            return False
        self.go(self.index - 1)
        return True

    def context(self, before: int = 1, after: int = 1) -> list[ContextLine]:
        """The segments around the current one in its document (module doc)."""
        db = self.database
        si, _ = self.current
        doc = db.sources[si].doc
        system = self.target().system
        out = []
        for off in [*range(-before, 0), *range(1, after + 1)]:
            j = si + off
            if not 0 <= j < len(db.sources) or db.sources[j].doc != doc:
                continue
            src = db.sources[j]
            cand = next((t.text for t in db.candidates(src) if t.system == system), None)
            out.append(ContextLine(off, src.text, cand))
        return out

    # ------------------------------------------------------------ editing
    def _severity(self, severity: str) -> str:
        sev = canonical_severity(severity)
        if self.protocol == "esa" and sev not in ESA_SEVERITIES:
            raise ScoreError(f"ESA marks {' or '.join(ESA_SEVERITIES)} errors, not {sev}")
        return sev

    def _commit(self, errors: list[ErrorSpan], text: str,
                rejected: list[Rejection] | None = None) -> None:
        """Commit the judge's annotation as ``errors`` (and ``rejected``; default: the
        rejections it has)."""
        si, ti = self.current
        now = self._clock()
        spent, self._since = max(0.0, now - self._since), now
        old = self.annotation()
        seconds = round((old.seconds or 0.0) + spent if old is not None else spent, 3)
        src, t = self.database.sources[si], self.target()
        for e in errors:
            check_error(e, t.text, src.text, self.typology)
        if rejected is None:
            rejected = list(old.rejected) if old is not None else []
        ch = protocol_changes.spans_change(self.database, si, ti, self.judge, errors, seconds,
                                           self.protocol, rejected)
        self._step(ch, text)

    def _step(self, ch: Change, text: str) -> None:
        self.workspace.history.commit(ch, text, after=self._follow)
        self.changed.emit(self.index)

    def _follow(self, changes: list[Change], undone: bool) -> None:
        """After an undo or redo: ``changed`` for the items the changes touched."""
        db = self.database
        where: dict[tuple[int | None, int | None], int] = {
            it: n for n, it in enumerate(self.items)}
        for ch in changes:
            src = protocol_changes.source_of(db, ch)
            if src is None:
                continue
            key = (db.source_index(src), getattr(ch, "target_index", None))
            if key in where:
                self.changed.emit(where[key])

    def add_error(self, start: int, end: int, severity: str, category: str, *,
                  side: str = "target", comment: str | None = None,
                  snap: bool = True) -> ErrorSpan:
        """Mark ``[start, end)`` (snapped to words unless ``snap=False``) as an error."""
        text = self.target().text if side == "target" else self.source_text()
        if snap:
            start, end = snap_words(text, start, end)
        e = ErrorSpan(self._severity(severity), category, start, end, side, comment)
        self._commit([*self.errors(), e], f"mark {e.severity} {e.category}")
        return e

    def add_omission(self, position: int, severity: str, category: str = "Accuracy/Omission",
                     *, side: str = "target") -> ErrorSpan:
        """An omission: an empty span at ``position``."""
        return self.add_error(position, position, severity, category, side=side, snap=False)

    def relabel(self, n: int, *, severity: str | None = None, category: str | None = None,
                comment: str | None = None) -> ErrorSpan:
        """Change error ``n``'s (0-based) severity, category or comment."""
        errs = self.errors()
        self._check_n(n, errs)
        e = errs[n]
        e = replace(e, severity=self._severity(severity) if severity else e.severity,
                    category=category or e.category,
                    comment=comment if comment is not None else e.comment)
        errs[n] = e
        self._commit(errs, f"relabel error {n + 1}")
        return e

    def move(self, n: int, start: int, end: int, *, snap: bool = True) -> ErrorSpan:
        """Give error ``n`` another span (on the same side)."""
        errs = self.errors()
        self._check_n(n, errs)
        text = self.target().text if errs[n].side == "target" else self.source_text()
        if snap:
            start, end = snap_words(text, start, end)
        errs[n] = replace(errs[n], start=start, end=end)
        self._commit(errs, f"move error {n + 1}")
        return errs[n]

    def delete(self, n: int) -> None:
        errs = self.errors()
        self._check_n(n, errs)
        del errs[n]
        self._commit(errs, f"delete error {n + 1}")

    def no_error(self) -> None:
        """Commit the candidate as judged without errors (refused while it has some)."""
        if self.errors():
            raise ScoreError("this translation has marked errors; delete them first")
        self._commit([], "no error")

    def set_score(self, value: float) -> None:
        """The ESA score 0-100 of the current candidate (class ``esa``)."""
        if self.protocol != "esa":
            raise ScoreError("a 0-100 score is given in ESA, not in MQM")
        self.database.level(ESA_CLASS).validate(float(value))
        si, ti = self.current
        if self.annotation() is None:      # the spans (perhaps none) are part of the judgement
            self._commit([], "no error")
        ch = change_for(self.database, si, ti, ESA_CLASS, float(value), self.judge,
                        self._stamp())
        self._step(ch, f"ESA score {value:g}")

    # ------------------------------------------------------------ pre-filled spans
    #: The machine (or judge) whose annotation is shown as suggestions (pre-filled spans,
    #: e.g. an imported ``xcomet``; :mod:`evaltrans_qt.engine.human.spans.prefill`); None:
    #: none.
    machine_judge: str | None = None

    def use_suggestions(self, machine_judge: str | None) -> None:
        """Show ``machine_judge``'s spans as suggestions (None: none; module doc)."""
        self.machine_judge = machine_judge
        self.changed.emit(self.index)

    def rejected(self, i: int | None = None) -> list[ErrorSpan]:
        """The machine judge's spans of item ``i`` the judge rejected explicitly."""
        a = self.annotation(i)
        return [] if a is None else [r.error for r in a.rejected
                                     if r.machine == self.machine_judge]

    def suggestions(self, i: int | None = None) -> list[ErrorSpan]:
        """The machine judge's spans of item ``i`` the judge has neither taken (a span of
        theirs overlaps it: accepted or edited) nor rejected (:meth:`rejected`)."""
        if self.machine_judge is None:
            return []
        t = self.target(i)
        machine = annotation_by(t, self.machine_judge, origin="machine")
        if machine is None and self.machine_judge != self.judge:
            machine = annotation_by(t, self.machine_judge)
        if machine is None:
            return []
        mine, no = self.errors(i), self.rejected(i)
        return [e for e in machine.errors if not any(same_span(e, r) for r in no)
                and not any(overlaps(e, f) for f in mine)]

    def accept_suggestion(self, k: int) -> ErrorSpan:
        """Take suggestion ``k`` (of :meth:`suggestions`) into the judge's annotation
        as it is (it can then be relabelled or moved like any error)."""
        sugg = self.suggestions()
        self._check_n(k, sugg)
        e = replace(sugg[k], seconds=None)
        check_error(e, self.target().text, self.source_text(), self.typology)
        self._commit([*self.errors(), e], f"accept suggestion {k + 1}")
        return e

    def reject_suggestion(self, k: int) -> None:
        """Reject suggestion ``k``: recorded in the judge's annotation (module doc; prefill
        counts it as rejected), one undoable step."""
        sugg = self.suggestions()
        self._check_n(k, sugg)
        a = self.annotation()
        rejected = [*(a.rejected if a is not None else ()),
                    Rejection(self.machine_judge, sugg[k])]
        self._commit(self.errors(), f"reject suggestion {k + 1}", rejected)

    def undo(self) -> bool:
        return self.workspace.history.undo() is not None

    def redo(self) -> bool:
        return self.workspace.history.redo() is not None

    @staticmethod
    def _check_n(n: int, errs: list[ErrorSpan]) -> None:
        if not 0 <= n < len(errs):
            raise ScoreError(f"there is no error {n + 1} (this translation has {len(errs)})")
