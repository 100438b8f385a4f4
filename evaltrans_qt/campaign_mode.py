"""Annotator mode as a Qt-free model: the state of the application while an annotator's
bundle of a campaign is open (``docs/campaigns.md``).

A bundle (:mod:`evaltrans_qt.io.campaign_bundle`) is an ordinary database carrying a
``<campaign-bundle>`` element. When the workspace opens one, :class:`AnnotatorMode`
becomes *active*: the application shows only the session of the bundle's protocol, the
coordinator's instructions, the tutorial items and the annotator's progress ("312 of 400,
2 batches left", :class:`~evaltrans_qt.io.campaign_bundle.Progress`); no system name is
shown anywhere (the bundle holds opaque ids only, and the views do not show those either).
Opening any other database leaves the mode.

The tutorial (Appraise's and Anthea's practice items: known answers, feedback before the
real work) is answered on the practice page and checked by
:func:`evaltrans_qt.engine.campaign.definition.tutorial_check`; tutorial answers are
never stored in the database.

The progress is counted once when the bundle opens and then kept up to date per
committed judgement (only the candidate it touched is looked at again), so a keystroke
in a bundle of 4 000 positions does not recount them all.

Signals (psygnal): ``changed(active: bool)`` -- a bundle was opened or left;
``progress_changed(text)`` -- a judgement of the bundle was committed, undone or redone.
"""

from __future__ import annotations

from psygnal import Signal

from evaltrans_qt.engine.campaign.definition import PROTOCOLS, Protocol, TutorialItem
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.campaign_bundle import (
    BundleInfo,
    Progress,
    bundle_info,
    bundle_items,
    candidate_judged,
)
from evaltrans_qt.io.protocol_changes import source_of
from evaltrans_qt.workspace import Workspace

#: The screen of each kind of protocol: scales and DA are scored, MQM/ESA spans marked,
#: relative ranking ranked on the ranking screen.
SCORING, SPANS, RANKING, OTHER = "scoring", "spans", "ranking", "other"


def screen_of(protocol: Protocol) -> str:
    """:data:`SPANS` for span protocols, :data:`RANKING` for relative ranking,
    :data:`SCORING` for score classes, else :data:`OTHER` (post-edits, information items:
    the product's post-edit and item-marking panels)."""
    if protocol.spans:
        return SPANS
    if protocol.ranking:
        return RANKING
    if protocol.postedit or protocol.items:
        return OTHER
    return SCORING


class AnnotatorMode:
    """Whether the workspace's database is an annotator's bundle, and its state (module
    doc). Reads the workspace; never writes it."""

    changed = Signal(bool)
    progress_changed = Signal(str)

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.info: BundleInfo | None = None
        #: Per position: judged?; its batch; position of each (source, target) index.
        self._judged: list[bool] = []
        self._batch: list[int] = []
        self._position: dict[tuple[int, int], int] = {}
        #: A bundle whose ``<campaign-bundle>`` is malformed (its error), else None.
        self.error: EvalTransError | None = None
        workspace.database_changed.connect(self._database_changed)
        workspace.committed.connect(self._committed)
        self._database_changed()

    @property
    def active(self) -> bool:
        return self.info is not None

    @property
    def protocol(self) -> Protocol:
        if self.info is None:
            raise LookupError("no bundle is open")
        return PROTOCOLS[self.info.protocol]

    @property
    def screen(self) -> str:
        """:data:`SCORING`, :data:`SPANS` or :data:`OTHER` (:func:`screen_of`)."""
        return screen_of(self.protocol)

    @property
    def annotator(self) -> str:
        return self.info.annotator if self.info is not None else ""

    @property
    def instructions(self) -> str:
        """The coordinator's Markdown, or a default text naming the protocol."""
        if self.info is None:
            return ""
        if self.info.instructions.strip():
            return self.info.instructions
        return (f"# Instructions\n\nJudge each translation: {self.protocol.description}.\n\n"
                "Your work is saved in this file; send it back to the coordinator when "
                "you are done (partial work can be sent too).")

    @property
    def tutorial(self) -> tuple[TutorialItem, ...]:
        return self.info.tutorial if self.info is not None else ()

    def progress(self) -> Progress:
        if self.info is None or self.workspace.database is None:
            raise LookupError("no bundle is open")
        open_batches = {b for b, j in zip(self._batch, self._judged) if not j}
        return Progress(sum(self._judged), len(self._judged),
                        1 + max(self._batch, default=-1), len(open_batches))

    def _count(self) -> None:
        """Every position's state, from the database (the bundle was opened)."""
        db = self.workspace.database
        items = bundle_items(db) if db is not None and self.info is not None else []
        self._judged = [x.judged for x in items]
        self._batch = [x.batch for x in items]
        self._position = {(x.source_index, x.target_index): k for k, x in enumerate(items)}

    def status_text(self) -> str:
        """``312 of 400, 2 batches left`` (empty outside annotator mode)."""
        return self.progress().text if self.active else ""

    def _database_changed(self) -> None:
        db = self.workspace.database
        was = self.active
        self.info, self.error = None, None
        if db is not None:
            try:
                self.info = bundle_info(db, self.workspace.path)
            except EvalTransError as exc:
                self.error = exc
            if self.info is not None and self.info.protocol not in PROTOCOLS:
                self.error = EvalTransError(f"the bundle's protocol {self.info.protocol!r} is "
                                            "unknown", self.workspace.path)
                self.info = None
            if self.info is not None:
                try:
                    self._count()
                except EvalTransError as exc:       # a position without a candidate
                    self.error, self.info = exc, None
        if self.active or was:
            self.changed.emit(self.active)

    def _committed(self, change: object) -> None:
        db, info = self.workspace.database, self.info
        if info is None or db is None:
            return
        src = source_of(db, change) if hasattr(change, "source") else None
        ti = getattr(change, "target_index", None)
        si = db.source_index(src) if src is not None else None
        k = self._position.get((si, ti)) if si is not None and isinstance(ti, int) else None
        if src is None or k is None or not isinstance(ti, int):
            self._count()                       # not one candidate's judgement: recount
        else:
            self._judged[k] = candidate_judged(db, info, src.targets[ti])
        self.progress_changed.emit(self.status_text())

__all__ = ["SCORING", "SPANS", "RANKING", "OTHER", "screen_of", "AnnotatorMode"]
