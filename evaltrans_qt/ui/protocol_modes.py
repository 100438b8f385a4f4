"""The human-evaluation protocols in the application: references, post-edits, items.

The main window composes a :class:`ProtocolModes` (``window.protocol_modes``), which adds
its panels and its actions in a ``Session → Protocols`` menu:

* **references** (survey §4.4.4, thesis Appendix A.2): promote the current candidate to a
  reference and back (Ctrl+Alt+R), add a new reference to its source (Ctrl+Alt+Shift+R,
  :class:`~evaltrans_qt.ui.reference_editor.AddReferenceDialog`), and the aWER mode
  (Ctrl+Alt+N): the judge edits the candidate into a new correct reference in the
  :class:`~evaltrans_qt.ui.postedit_panel.PostEditPanel`, starting from its WER edits
  against the references;
* **post-edit mode** (survey §4.4.17, Ctrl+Alt+E): the candidate in the editor, its TER
  edits against the original shown as the judge types; Enter stores the post-edit as
  the candidate's targeted reference for the session's judge, with the seconds spent;
* **information items** (survey §4.4.16): define a source's items
  (:class:`~evaltrans_qt.ui.items_panel.ItemsDialog`, Ctrl+Alt+D) and the item-marking
  mode (Ctrl+Alt+I): keys O / E / S / M / X mark the current item OK / error / syntax /
  meaning / other, Backspace goes back one item.

Every change is a :mod:`evaltrans_qt.io.protocol_changes` change committed as one step
of the workspace's undo history (:meth:`ProtocolModes.push`, :mod:`evaltrans_qt.history`;
Ctrl+Z like scores: an undo commits the inverse change, a redo the change again). Each
goes through :meth:`Workspace.commit`, the one commit path of every judgement: the
journal first (fsync), then the database -- which checks it; a change it refuses is
taken out of the journal again and nothing changed -- then the workspace's ``committed``
signal, so the results and the live correlation follow.

On opening a database, journal lines skipped as malformed (:attr:`Journal.skipped`) are
shown in a warning naming the lines (:func:`skipped_message`).
"""

from __future__ import annotations

import time
from typing import cast

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

from evaltrans_qt.engine.data import protocols
from evaltrans_qt.engine.data.database import ITEM_MARKS
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.io import protocol_changes as pc

#: Item-marking keys (survey §4.4.16's categories), one key each.
MARK_KEYS = {"OK": "O", "error": "E", "syntax": "S", "meaning": "M", "other": "X"}
assert tuple(MARK_KEYS) == ITEM_MARKS

POSTEDIT, REFERENCE, ITEMS = "postedit", "reference", "items"


def skipped_message(skipped: list[tuple[int, str]], name: str) -> str:
    """The warning text for journal lines skipped on load (line numbers and problems)."""
    lines = "\n".join(f"line {n}: {why}" for n, why in skipped[:20])
    more = f"\n… and {len(skipped) - 20} more" if len(skipped) > 20 else ""
    return (f"{len(skipped)} line(s) of the journal {name} could not be read and were "
            f"skipped (the changes they held are not recovered):\n{lines}{more}")


class ProtocolModes(QObject):
    """References, post-edits and item marks of the window's database (module doc)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.mode: str | None = None
        self._mode_started = 0.0
        from evaltrans_qt.ui.items_panel import ItemMarkingPanel
        from evaltrans_qt.ui.postedit_panel import PostEditPanel
        self.postedit_panel = PostEditPanel()
        self.items_panel = ItemMarkingPanel()
        self.postedit_dock = window.add_panel("Post-edit", self.postedit_panel, Qt.RightDockWidgetArea)
        self.items_dock = window.add_panel("Information items", self.items_panel, Qt.RightDockWidgetArea)
        for d in (self.postedit_dock, self.items_dock):
            d.hide()
        self.postedit_panel.stored.connect(self._store_text)
        self.postedit_panel.cancelled.connect(self.leave_mode)
        self.items_panel.completed.connect(self._store_marks)
        self.items_panel.message.connect(lambda t: window.statusBar().showMessage(t, 4000))
        self._build_actions()
        window.workspace.database_changed.connect(self._database_changed)

    # ------------------------------------------------------------ actions
    def _build_actions(self) -> None:
        w = self.window
        from evaltrans_qt.ui.controllers.actions import make_action

        def a(*args, **kw):
            return make_action(w, *args, **kw)
        self.act_promote = a("Promote candidate to reference / back", "Ctrl+Alt+R", self.toggle_reference,
                             "Make the current candidate a reference, or a reference a candidate again")
        self.act_add_reference = a("Add reference…", "Ctrl+Alt+Shift+R", self.add_reference_dialog,
                                   "Add a new reference translation to the current source")
        self.act_reference_mode = a("Edit candidate into a new reference (aWER)", "Ctrl+Alt+N",
                                    lambda: self.enter_mode(REFERENCE))
        self.act_postedit = a("Post-edit the candidate (HTER)", "Ctrl+Alt+E",
                              lambda: self.enter_mode(POSTEDIT))
        self.act_items_mode = a("Mark information items (IER)", "Ctrl+Alt+I",
                                lambda: self.enter_mode(ITEMS))
        self.act_define_items = a("Define information items…", "Ctrl+Alt+D", self.define_items_dialog,
                                  "Divide the current source into information items")
        self.mark_actions: list[QAction] = []
        for mark, key in MARK_KEYS.items():
            act = a(f"Mark item {mark}", key, None, name=f"action_mark_{mark}")
            act.triggered.connect(lambda _c=False, m=mark: self.items_panel.mark(m))
            self.mark_actions.append(act)
        self.act_mark_back = a("Back to the previous item", "Backspace", self.items_panel.back,
                               name="action_mark_back")
        self.mark_actions.append(self.act_mark_back)
        for act in self.mark_actions:
            act.setEnabled(False)
        m = w.session_menu.addMenu("&Protocols")
        m.setObjectName("protocolsMenu")
        m.addActions([self.act_promote, self.act_add_reference, self.act_reference_mode])
        m.addSeparator()
        m.addAction(self.act_postedit)
        m.addSeparator()
        m.addActions([self.act_define_items, self.act_items_mode])
        marks = m.addMenu("Item marks")
        marks.addActions(self.mark_actions)
        self.menu = m

    # ------------------------------------------------------------ where we are
    @property
    def db(self):
        return self.window.database

    @property
    def session(self):
        return self.window.session

    @property
    def judge(self) -> str | None:
        s = self.session
        return s.judge if s is not None else None

    def current(self) -> tuple[int, int] | None:
        """(source, target) the protocols act on: the session's item, else the compare view's."""
        s = self.session
        if s is not None and s.current is not None:
            return s.current
        cur = self.window.workspace.selection.pair
        db = self.db
        if cur is None or db is None or cur[0] >= len(db.sources) or \
                cur[1] >= len(db.sources[cur[0]].targets):
            return None
        return cur

    def _message(self, text: str, ms: int = 5000) -> None:
        self.window.statusBar().showMessage(text, ms)

    # ------------------------------------------------------------ applying
    def push(self, change: pc.ProtocolChange, text: str) -> bool:
        """Commit ``change`` as one step of the workspace's undo history (journal first, then
        the database, then its signal; the views follow, after an undo or a redo too);
        False (and an error shown) if it failed: nothing changed, nothing recorded."""
        from evaltrans_qt.ui import errors
        try:
            entry = self.window.workspace.history.commit(change, text, after=self._followed)
        except OSError as exc:
            where = self.window.journal.path if self.window.journal is not None else None
            errors.show_error(SaveError(f"{text} not recorded: the journal cannot be written "
                                        f"({exc.strerror or exc})", where), self.window)
            return False
        except (EvalTransError, LookupError) as exc:
            errors.show_error(exc if isinstance(exc, EvalTransError) else EvalTransError(str(exc)),
                              self.window)
            return False
        for ch in entry.changes:
            self._after(cast("pc.ProtocolChange", ch))
        return True

    def _followed(self, changes: list, _undone: bool) -> None:
        """A step of ours was undone or redone: the views follow each change committed."""
        for ch in changes:
            self._after(ch)

    def _after(self, change: pc.ProtocolChange) -> None:
        """The views follow a change (applied, undone or redone)."""
        w = self.window
        db = self.db
        try:
            src = pc.find_source(db, change)
        except LookupError:
            src = None
        si = db.source_index(src) if src is not None else None
        browse = w.browse
        if si is not None:
            browse.sources.refresh_source(si)
            if isinstance(change, pc.ReferenceChange):
                if browse.all_targets.isChecked():
                    browse.targets.show_all()
                elif browse.targets.source_index == si:
                    browse.targets.set_source(si)
        s = self.session
        if isinstance(change, pc.ReferenceChange) and s is not None:
            s.set_classes(s.classes)            # candidates listed again (one became a reference)
        # dirty, data version and ``committed``: done by Workspace.commit
        browse.redraw()                          # the selected candidate, drawn again
        self.refresh()

    # ------------------------------------------------------------ references
    def toggle_reference(self) -> bool:
        """Promote the current candidate to a reference, or make a reference a candidate."""
        cur = self.current()
        if cur is None or self.db is None:
            return False
        t = self.db.sources[cur[0]].targets[cur[1]]
        if self.db.is_reference(t):
            action, text = "unmark", f"'{t.system or '-'}' no longer a reference"
        else:
            action, text = "mark", f"'{t.system or '-'}' made a reference"
        ch = pc.reference_change(self.db, cur[0], cur[1], action, judge=self.judge)
        ok = self.push(ch, text)
        if ok:
            self._message(text.capitalize() + " (Ctrl+Z undoes it).")
        return ok

    def add_reference(self, source_index: int, text: str, name: str | None = None) -> bool:
        """Add ``text`` as a new reference of source ``source_index`` (by the session's judge)."""
        ch = pc.reference_change(self.db, source_index, None, "add", text=text, name=name,
                                 judge=self.judge)
        ok = self.push(ch, f"reference '{ch.system}' added")
        if ok:
            self._message(f"Reference '{ch.system}' added to source {source_index + 1} "
                          "(Ctrl+Z undoes it).")
        return ok

    def add_reference_dialog(self) -> None:
        cur = self.current()
        if cur is None:
            self._message("Choose a source first.")
            return
        from evaltrans_qt.ui.reference_editor import AddReferenceDialog
        src = self.db.sources[cur[0]]
        dlg = AddReferenceDialog(src.text, src.targets[cur[1]].text,
                                 protocols.next_added_name(src), self.window)
        self.last_dialog = dlg
        if dlg.exec() == AddReferenceDialog.Accepted:
            self.add_reference(cur[0], dlg.text(), dlg.name())

    # ------------------------------------------------------------ post-edits
    def store_postedit(self, item: tuple[int, int], text: str, seconds: float | None) -> bool:
        ch = pc.postedit_change(self.db, item[0], item[1], self.judge, text,
                                None if seconds is None else round(float(seconds), 1))
        ok = self.push(ch, "post-edit")
        if ok:
            self._message("Post-edit stored as the candidate's targeted reference (Ctrl+Z undoes it).")
        return ok

    def _store_text(self, text: str) -> None:
        item = self.postedit_panel.item
        if item is None:
            return
        if self.mode == REFERENCE:
            ok = self.add_reference(item[0], text)
        else:
            ok = self.store_postedit(item, text, time.monotonic() - self._mode_started)
        if ok:          # the judge stays on the item (scores it, or moves on with N / U)
            self.leave_mode()

    # ------------------------------------------------------------ items
    def define_items(self, source_index: int, spans) -> bool:
        ch = pc.items_change(self.db, source_index, spans)
        return self.push(ch, f"items of source {source_index + 1}")

    def _refused_read_only(self) -> bool:
        """Another program holds the file (its journal is not ours): say so, change nothing."""
        why = self.window.workspace.read_only_reason()
        if why is not None:
            self._message(f"Read-only: {why}.", 8000)
        return why is not None

    def define_items_dialog(self) -> None:
        cur = self.current()
        if cur is None:
            self._message("Choose a source first.")
            return
        if self._refused_read_only():
            return
        from evaltrans_qt.ui.items_panel import ItemsDialog
        src = self.db.sources[cur[0]]
        dlg = ItemsDialog(protocols.source_words(src), list(src.items), self.window)
        self.last_dialog = dlg
        if dlg.exec() == ItemsDialog.Accepted and dlg.spans() != list(src.items):
            n = sum(len(t.item_marks) for t in src.targets)
            if n and QMessageBox.question(
                    self.window, "Redefine items",
                    f"{n} marking(s) refer to the current items; redefining deletes them "
                    "(Ctrl+Z brings them back). Continue?") != QMessageBox.Yes:
                return
            self.define_items(cur[0], dlg.spans())

    def store_marks(self, item: tuple[int, int], marks: tuple[str, ...]) -> bool:
        ch = pc.marks_change(self.db, item[0], item[1], self.judge, marks)
        ok = self.push(ch, "item marks")
        if ok:
            self._message(f"Item marks stored: {', '.join(marks)} (Ctrl+Z undoes them).")
        return ok

    def _store_marks(self, marks: tuple) -> None:
        item = self.items_panel.item
        if item is not None:
            self.store_marks(item, tuple(marks))

    # ------------------------------------------------------------ modes
    def enter_mode(self, mode: str) -> bool:
        """Post-edit, new-reference (aWER) or item-marking mode for the current candidate."""
        cur = self.current()
        if cur is None or self.db is None:
            self._message("Choose a candidate first (or start a scoring session).")
            return False
        t = self.db.sources[cur[0]].targets[cur[1]]
        if mode in (POSTEDIT, ITEMS) and self.db.is_reference(t):
            self._message("This is a reference; post-edits and item marks are for candidates.")
            return False
        if mode == ITEMS and not self.db.sources[cur[0]].items:
            self._message("This source has no information items: define them first (Ctrl+Alt+D).")
            return False
        if self._refused_read_only():
            return False
        self.leave_mode(quiet=True)
        self.mode = mode
        self._mode_started = time.monotonic()
        if mode == ITEMS:
            self.items_dock.show()
            self.items_dock.raise_()
            for act in self.mark_actions:
                act.setEnabled(True)
        else:
            self.postedit_dock.show()
            self.postedit_dock.raise_()
        self.refresh()
        if mode != ITEMS:
            self.postedit_panel.editor.setFocus()
        return True

    def leave_mode(self, quiet: bool = False) -> None:
        self.mode = None
        for act in self.mark_actions:
            act.setEnabled(False)
        self.postedit_panel.set_item(None, None, None)
        if not quiet:
            self.window.scoring.score_panel.setFocus()

    def refresh(self) -> None:
        """Panels show the current candidate (after a move or a change)."""
        db = self.db
        cur = self.current()
        if db is None or cur is None:
            self.items_panel.set_item(None, None, None)
            return
        src = db.sources[cur[0]]
        t = src.targets[cur[1]]
        if self.mode in (POSTEDIT, REFERENCE):
            if self.postedit_panel.item != cur or self.postedit_panel.mode != self.mode:
                pe = t.postedit_by(self.judge) if self.mode == POSTEDIT else None
                refs = [r.text for r in db.references(src)]
                self.postedit_panel.set_item(cur, self.mode, t.text, refs, src.text,
                                             pe.text if pe is not None else None,
                                             self.window.workspace.options)
        m = t.marks_by(self.judge)
        self.items_panel.set_item(cur if self.mode == ITEMS or self.items_dock.isVisible() else None,
                                  src, t, m.marks if m is not None else None)

    def set_session(self, session) -> None:
        """The window started (or ended) a scoring session: follow its items."""
        self.leave_mode(quiet=True)
        if session is not None:
            session.currentChanged.connect(self._moved)
        self.refresh()

    def _moved(self, _k: int) -> None:
        if self.mode in (POSTEDIT, REFERENCE):
            self.leave_mode(quiet=True)         # a new candidate: its own (empty) edit
        self.refresh()
        if self.mode == ITEMS and self.current() is not None and \
                not self.db.sources[self.current()[0]].items:
            self.leave_mode(quiet=True)

    def _database_changed(self) -> None:
        self.leave_mode(quiet=True)
        self.refresh()
        QTimer.singleShot(0, self.warn_skipped)

    def warn_skipped(self) -> list[tuple[int, str]]:
        """A warning naming the journal lines skipped as malformed (if any)."""
        journal = self.window.journal
        recovered = self.window.workspace.recovered      # read once, by the load itself
        skipped = list(recovered.skipped) if recovered is not None else []
        if skipped and journal is not None:
            from evaltrans_qt.ui import errors
            box = QMessageBox(QMessageBox.Warning, "Journal lines skipped",
                              skipped_message(skipped, journal.path.name), QMessageBox.Ok,
                              self.window)
            box.setObjectName("journalSkippedDialog")
            box.setAttribute(Qt.WA_DeleteOnClose)
            self.last_skipped = skipped
            box.open()
            if errors.auto_close_ms:
                QTimer.singleShot(errors.auto_close_ms, box.close)
        return skipped


__all__ = ["ProtocolModes", "MARK_KEYS", "skipped_message",
           "POSTEDIT", "REFERENCE", "ITEMS"]
