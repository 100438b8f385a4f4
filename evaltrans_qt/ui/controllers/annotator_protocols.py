"""Annotator mode's post-edit and item-marking pages (the Campaign controller's part for
bundles of those protocols): the product's post-edit editor and item-marking panel over
the bundle's positions, one at a time; each stored post-edit or set of marks is the
annotator's, committed through the workspace's history (journal first, then the
database; Ctrl+Z takes it back)."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtWidgets import QWidget

from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.ui import errors


class ProtocolPages:
    """The post-edit or item-marking page of one open bundle (module doc)."""

    def __init__(self, controller: Any) -> None:
        self.window = controller.window
        self.workspace = controller.workspace
        self.mode = controller.mode
        self.page: Any = None                 # the ProtocolPage shown
        self._positions: list[tuple[int, int]] = []
        self._at = 0
        self._started = 0.0

    def start(self, view) -> None:
        """The post-edit editor or the item-marking panel, one bundle position at a time;
        each stored post-edit or set of marks is the annotator's, committed through the
        workspace's history (journal first, then the database; Ctrl+Z takes it back)."""
        from evaltrans_qt.io.campaign_bundle import bundle_items
        from evaltrans_qt.ui.annotator_view import ProtocolPage
        from evaltrans_qt.ui.items_panel import ItemMarkingPanel
        from evaltrans_qt.ui.postedit_panel import PostEditPanel
        from evaltrans_qt.ui.protocol_modes import MARK_KEYS
        w, ws, mode = self.window, self.workspace, self.mode
        why = ws.read_only_reason()
        if why is not None:
            errors.show_error(SaveError(why, ws.path), w)
            return
        items = bundle_items(ws.database)
        self._positions = [(x.source_index, x.target_index) for x in items]
        panel: QWidget
        if mode.protocol.postedit:
            pe = PostEditPanel()
            pe.stored.connect(self._store_postedit)
            pe.cancelled.connect(lambda: self.go(self._at))
            panel, marks = pe, None
        else:
            ip = ItemMarkingPanel()
            ip.completed.connect(self._store_marks)
            ip.message.connect(lambda t: w.statusBar().showMessage(t, 4000))
            panel, marks = ip, MARK_KEYS
        page = ProtocolPage(panel, marks)
        page.moved.connect(lambda step: self.go(self._at + step))
        self.page = page
        view.work.set_judging(page, texts=False)
        self.go(next((k for k, x in enumerate(items) if not x.judged), 0))

    def go(self, k: int) -> None:
        """Show bundle position ``k`` (wrapping) in the post-edit or item-marking page."""
        from evaltrans_qt.ui.postedit_panel import POSTEDIT
        page, db, info = self.page, self.workspace.database, self.mode.info
        if page is None or db is None or info is None or not self._positions:
            return
        self._at = k % len(self._positions)
        si, ti = self._positions[self._at]
        src = db.sources[si]
        t = src.targets[ti]
        done = False
        if self.mode.protocol.postedit:
            pe = t.postedit_by(info.annotator)
            done = pe is not None
            page.panel.set_item((si, ti), POSTEDIT, t.text, [], src.text,
                                pe.text if pe is not None else None, self.workspace.options)
            page.panel.editor.setFocus()
        else:
            m = t.marks_by(info.annotator)
            done = m is not None
            page.panel.set_item((si, ti), src, t, m.marks if m is not None else None)
            page.panel.header.setText("<b>Information items</b> of the source: how is each "
                                      "item translated?")       # no (opaque) system id
            page.setFocus()
        page.header.setText(f"<b>Item {self._at + 1} of {len(self._positions)}</b>"
                            f"{' · done' if done else ''}")
        self._started = time.monotonic()

    def _commit_protocol(self, change: Any, text: str) -> bool:
        try:
            self.workspace.history.commit(change, text, after=self._protocol_followed)
        except OSError as exc:
            errors.show_error(SaveError(f"{text} not recorded: the journal cannot be written "
                                        f"({exc.strerror or exc})", self.workspace.path),
                              self.window)
            return False
        except (EvalTransError, LookupError) as exc:
            errors.show_error(exc if isinstance(exc, EvalTransError) else EvalTransError(str(exc)),
                              self.window)
            return False
        return True

    def _protocol_followed(self, _changes: list, _undone: bool) -> None:
        self.go(self._at)          # undone or redone: the position shown anew

    def _store_postedit(self, text: str) -> None:
        from evaltrans_qt.io import protocol_changes as pc
        page, info = self.page, self.mode.info
        if page is None or info is None or page.panel.item is None:
            return
        si, ti = page.panel.item
        ch = pc.postedit_change(self.workspace.database, si, ti, info.annotator, text,
                                round(time.monotonic() - self._started, 1))
        if self._commit_protocol(ch, "post-edit"):
            self.go(self._at + 1)

    def _store_marks(self, marks: tuple) -> None:
        from evaltrans_qt.io import protocol_changes as pc
        page, info = self.page, self.mode.info
        if page is None or info is None or page.panel.item is None:
            return
        si, ti = page.panel.item
        ch = pc.marks_change(self.workspace.database, si, ti, info.annotator, tuple(marks))
        if self._commit_protocol(ch, "item marks"):
            self.go(self._at + 1)
