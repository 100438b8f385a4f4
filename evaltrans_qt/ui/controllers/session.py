"""Session → scoring: start and end a session, score the current candidate, move, take an
identical translation's scores; Edit → Score classes…; Edit → Undo / Redo.

The session itself is :class:`~evaltrans_qt.ui.scoring.ScoringSession` (the Qt face of the
Qt-free session model); this controller shows it in the score panel (``scorePanel``) and
the similar translations (``similarPanel``), moves the selection
(``workspace.selection``) to its current candidate, and turns keys into its calls. Undo and
redo act on the workspace's history (:mod:`evaltrans_qt.history`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog

from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.controllers.actions import make_action
from evaltrans_qt.ui.scoring import (
    ScorePanel,
    ScoringSession,
    SessionDialog,
    SimilarPanel,
    identical_scores,
    similar_translations,
)

#: Shown above the score classes dialog when a session is started without classes.
NO_CLASSES_INTRO = ("This database declares no score classes yet. Add the classes to judge -- e.g. "
                    "fluency5 and adequacy5, or sser -- then close this dialog to start the session.")


class SessionController(QObject):
    """Scoring sessions, score classes, undo/redo of the window (module doc)."""

    def __init__(self, window: Any) -> None:
        """``window``: the :class:`~evaltrans_qt.ui.main_window.MainWindow` composing this."""
        super().__init__(window)
        self.window = window
        self.workspace = window.workspace
        self.session: ScoringSession | None = None
        self.last_session_dialog: SessionDialog | None = None
        self.last_classes_dialog: QDialog | None = None
        self.score_panel = ScorePanel()
        window.add_panel("Scoring", self.score_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.similar_panel = SimilarPanel()
        window.add_panel("Similar scored translations", self.similar_panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.session_progress = self.score_panel.progress
        self.score_panel.message.connect(lambda text: window.statusBar().showMessage(text, 4000))
        self._build_actions()

    def _build_actions(self) -> None:
        w = self.window

        def a(*args, **kw):
            return make_action(w, *args, **kw)

        def on_session(call):
            return lambda *_: self.session is not None and call(self.session)
        from evaltrans_qt.ui.history_actions import undo_actions
        self.act_undo, self.act_redo = undo_actions(w, self.workspace.history)
        w.addAction(self.act_undo)
        w.addAction(self.act_redo)
        self.act_classes = a("Score &classes…", "Ctrl+Shift+K", lambda: self.classes_dialog(),
                             "Define, edit and remove the score classes of the database")
        self.act_start_session = a("&Start scoring session…", "Ctrl+J", self.start_session_dialog)
        self.act_end_session = a("&End scoring session", "Ctrl+Shift+J", self.end_session)
        self.act_next = a("Next candidate", "N", on_session(lambda s: s.next()))
        self.act_next.setShortcuts([QKeySequence("N"), QKeySequence("Alt+Right")])
        self.act_prev = a("Previous candidate", "P", on_session(lambda s: s.previous()))
        self.act_prev.setShortcuts([QKeySequence("P"), QKeySequence("Alt+Left")])
        self.act_next_unscored = a("Next unscored candidate", "U",
                                   on_session(lambda _s: self._next_unscored()))
        self.act_identical = a("Take identical translation's scores", "I", self.take_identical)
        self.act_next_class = a("Next score class", "Tab", on_session(lambda s: s.next_class()))
        # one sequence: Qt delivers Shift+Tab as Backtab and matches it against Shift+Tab;
        # Backtab registered as well made the shortcut ambiguous (and dead)
        self.act_prev_class = a("Previous score class", "Shift+Tab",
                                on_session(lambda s: s.previous_class()))
        self.act_clear_score = a("Clear score of current class", "Delete",
                                 on_session(lambda s: s.clear()))
        self.score_actions = []
        for d in range(10):
            act = a(f"Score {d}", str(d), None, name=f"action_score_{d}")
            act.triggered.connect(lambda _c=False, v=d: self.score_current(v))
            self.score_actions.append(act)
        self.session_actions = [self.act_end_session, self.act_next, self.act_prev,
                                self.act_next_unscored, self.act_identical, self.act_next_class,
                                self.act_prev_class, self.act_clear_score, *self.score_actions]
        for act in self.session_actions:
            act.setEnabled(False)

    def _status(self, text: str, ms: int) -> None:
        self.window.statusBar().showMessage(text, ms)

    # ------------------------------------------------------------ sessions
    def start_session_dialog(self) -> None:
        ws, w = self.workspace, self.window
        if ws.database is None:
            return
        if not ws.database.human_classes:
            # e.g. right after a text import: define the classes first, then start
            self.classes_dialog(NO_CLASSES_INTRO, modal=True)
            if ws.database is None or not ws.database.human_classes:
                self._status("A scoring session needs at least one score class.", 5000)
                return
        dlg = SessionDialog(ws.database, str(w.settings.value("session/judge", "")), w)
        def edit_classes() -> None:
            self.classes_dialog(modal=True)
            dlg.set_classes(ws.database.human_classes)
        dlg.classes_button.clicked.connect(edit_classes)
        self.last_session_dialog = dlg
        if dlg.exec() != QDialog.DialogCode.Accepted:
            return
        if not dlg.classes():
            errors.show_error(EvalTransError("choose at least one score class"), w)
            return
        self.start_session(dlg.judge.text().strip(), dlg.classes(), dlg.systems(),
                           dlg.start_unscored.isChecked())

    def start_session(self, judge: str, classes: list[str] | None = None,
                      systems: list[str] | None = None,
                      start_unscored: bool = True) -> ScoringSession | None:
        """Start scoring (the database must have a file, for the journal)."""
        ws, w = self.workspace, self.window
        if ws.database is None:
            return None
        if ws.path is None:
            # e.g. just imported: saved here and now (the journal needs the file), so the
            # session starts right after the Save As dialog
            w.files.save_as(wait=True)
            if ws.path is None:
                return None
        why = ws.read_only_reason()     # another program's journal: not ours
        if why is not None:
            errors.show_error(SaveError(why, ws.path), w)
            return None
        self.end_session()
        classes = classes or ws.database.human_classes
        if ws.journal is not None:
            try:
                ws.journal.ensure_writable()
            except OSError as exc:
                errors.show_error(SaveError(
                    f"cannot start scoring: the score journal cannot be written "
                    f"({exc.strerror or exc}); save the database to a writable folder first",
                    ws.journal.path), w)
                return None
        try:
            s = ScoringSession(ws.database, judge, classes, ws, systems, self)
        except Exception as exc:
            errors.show_error(exc if isinstance(exc, EvalTransError) else EvalTransError(str(exc)), w)
            return None
        self.session = s
        if w.persist_settings:
            w.settings.setValue("session/judge", judge)
        s.currentChanged.connect(self._session_moved)
        s.scoreChanged.connect(self._session_scored)
        self.score_panel.set_session(s)
        w.protocol_modes.set_session(s)           # post-edit / item modes follow
        self.score_panel.buttons["identical"].clicked.connect(self.take_identical)
        for act in self.session_actions:
            act.setEnabled(True)
        self._show_panels()
        if start_unscored:
            s.first_unscored()
        else:
            self._session_moved(0)
        self.score_panel.setFocus()
        self.score_panel.focus_current()   # a typed-entry class: its value editor
        return s

    def _show_panels(self) -> None:
        """Scoring and similar translations shown (live correlation too, after a run): the
        score controls get their full height, the similar ones the rest."""
        w = self.window
        panels = w.panels
        w.show_panel("Similar scored translations")
        if self.workspace.run is not None:
            panels["Live correlation"].show()
        w.show_panel("Scoring")
        if panels["Scoring"].width() < 300:
            w.resizeDocks([panels["Scoring"]], [max(340, int(w.width() * 0.28))], Qt.Orientation.Horizontal)
        need = self.score_panel.minimumSizeHint().height() + 30
        w.resizeDocks([panels["Scoring"], panels["Similar scored translations"]],
                      [need, max(120, w.height() - need)], Qt.Orientation.Vertical)

    def end_session(self) -> None:
        s = self.session
        if s is None:
            return
        s.finish()
        self.session = None
        self.workspace.history.clear()
        self.score_panel.set_session(None)
        self.window.protocol_modes.set_session(None)
        self.similar_panel.clear()
        for act in self.session_actions:
            act.setEnabled(False)
        s.deleteLater()

    def _session_moved(self, _k: int) -> None:
        s = self.session
        if s is None or s.current is None:
            return
        si, ti = s.current
        self.window.browse.open_in_compare(si, ti)
        sim = similar_translations(self.workspace.database, si, ti, s.classes)
        self.similar_panel.show_similar(sim, s.classes)
        self.score_panel.show_identical(identical_scores(sim, s.classes))
        self.score_panel.refresh()

    def _session_scored(self, change) -> None:
        if self.session is None:
            return
        from evaltrans_qt.io.journal import find_source  # (doc, seg) or text
        db = self.workspace.database
        si = find_source(db, change)
        idx = db.source_index(si) if si is not None else None
        if idx is not None and change.target_index is not None:
            browse = self.window.browse
            browse.sources.refresh_source(idx)
            browse.targets.refresh_target(idx, change.target_index)
        # dirty and ``committed`` (-> scoreChanged): done by Workspace.commit

    def score_current(self, value: int) -> None:
        """A digit key: scores the current class, or is typed into its value editor (continuous
        classes and scales of more than ten levels: the value is committed with Enter)."""
        if self.session is None or self.score_panel.type_text(str(value)):
            return
        if not self.session.score(value):
            self._status(f"{value} is not a level of '{self.session.current_class}'", 3000)

    def _next_unscored(self) -> None:
        if self.session is not None and not self.session.next_unscored():
            self._status("Every candidate of this session is scored.", 5000)

    def take_identical(self) -> None:
        s = self.session
        if s is None:
            return
        if not s.take_identical(self.similar_panel.similar):
            self._status("No identical scored translation for this candidate.", 3000)

    # ------------------------------------------------------------ score classes
    def classes_dialog(self, intro: str = "", modal: bool = False):
        """Edit → Score classes…: list, add (templates), edit and remove classes."""
        from evaltrans_qt.ui.classes_dialog import ClassesDialog
        if self.workspace.database is None:
            return None
        dlg = ClassesDialog(self.window, intro)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_classes_dialog = dlg
        if modal:
            dlg.exec()
        else:
            dlg.open()
        return dlg

    def change_classes(self, text: str, change, touches: list[str]) -> bool:
        """Apply ``change(database)`` (a class edit of :mod:`evaltrans_qt.engine.data.schemes`) as one
        undoable step; errors (:class:`EvalTransError`) propagate and change nothing."""
        from evaltrans_qt.ui.classes_dialog import ClassCommand
        if self.workspace.database is None:
            return False
        self.window.files.wait_for_save()     # never change classes under a running serialiser
        cmd = ClassCommand(self.window, text, change, touches)
        cmd.apply_first()
        self.workspace.history.push(cmd)
        return True

    def classes_changed(self, before: list[str]) -> None:
        """After the classes changed (or an undo/redo of that): tables, session rows, and an
        immediate save -- the journal of a session must only name classes the file declares."""
        ws, w = self.workspace, self.window
        db = ws.database
        if db is None:
            return
        cur = ws.selection.pair
        w.browse.reload()
        s = self.session
        if s is not None:
            human = db.human_classes
            keep = [c for c in s.classes if c in human] + [c for c in human if c not in before
                                                           and c not in s.classes]
            if keep:
                s.set_classes(keep)
            else:   # later: ending clears the undo history, which may be running this change
                def end() -> None:
                    if self.session is s:
                        self.end_session()
                QTimer.singleShot(0, end)
                self._status("Scoring session ended: none of its classes is left.", 8000)
        if cur is not None and cur[0] < len(db.sources) and cur[1] < len(db.sources[cur[0]].targets):
            w.browse.open_in_compare(*cur)
        w.browse.update_counts()
        ws.modified(affects_results=False)   # classes: the measures' numbers stand
        if ws.path is not None:
            w.files.save(wait=True)
        w.databaseChanged.emit()


__all__ = ["SessionController", "NO_CLASSES_INTRO"]
