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

Signals (psygnal): ``changed(active: bool)`` -- a bundle was opened or left;
``progress_changed(text)`` -- a judgement of the bundle was committed, undone or redone.
"""

from __future__ import annotations

from psygnal import Signal

from evaltrans_qt.engine.campaign.definition import PROTOCOLS, Protocol, TutorialItem
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.io.campaign_bundle import BundleInfo, Progress, bundle_info, bundle_progress
from evaltrans_qt.workspace import Workspace

#: The screen of each kind of protocol: scales and DA are scored, MQM/ESA spans marked.
SCORING, SPANS, OTHER = "scoring", "spans", "other"


def screen_of(protocol: Protocol) -> str:
    """:data:`SPANS` for span protocols, :data:`SCORING` for score classes, else
    :data:`OTHER` (post-edits, information items: the product's protocol modes)."""
    if protocol.spans:
        return SPANS
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
        db = self.workspace.database
        if self.info is None or db is None:
            raise LookupError("no bundle is open")
        return bundle_progress(db)

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
        if self.active or was:
            self.changed.emit(self.active)

    def _committed(self, _change: object) -> None:
        if self.active:
            self.progress_changed.emit(self.status_text())


__all__ = ["SCORING", "SPANS", "OTHER", "screen_of", "AnnotatorMode"]
