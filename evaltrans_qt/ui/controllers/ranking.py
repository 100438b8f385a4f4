"""Session → Rank whole sentences / Rank short segments: the setup, the checks and the
screen (:mod:`~evaltrans_qt.ui.ranking_screen` for whole sentences,
:mod:`~evaltrans_qt.ui.segment_ranking_screen` for SegRanks segments)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDialog

from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.controllers.actions import make_action
from evaltrans_qt.ui.ranking_screen import (
    DEFAULT_N,
    SEGMENTS,
    SENTENCES,
    RankingScreen,
    RankingSetupDialog,
    SentenceRankingScreen,
)
from evaltrans_qt.ui.segment_ranking_screen import SegmentRankingScreen


class RankingController(QObject):
    """The ranking actions and the one open ranking screen (module doc)."""

    def __init__(self, window: Any) -> None:
        """``window``: the :class:`~evaltrans_qt.ui.main_window.MainWindow` composing this."""
        super().__init__(window)
        self.window = window
        self.workspace = window.workspace
        #: The open ranking screen (None: none opened yet; it deletes itself when closed).
        self.ranking_screen: RankingScreen | None = None
        self.last_ranking_dialog: RankingSetupDialog | None = None
        self.act_rank_sentences = make_action(
            window, "Rank &whole sentences…", "Ctrl+Alt+K", lambda: self.open_screen(SENTENCES),
            "Relative ranking of N whole candidates per source (WMT style), ties allowed")
        self.act_rank_segments = make_action(
            window, "Rank short &segments…", "Ctrl+Alt+J", lambda: self.open_screen(SEGMENTS),
            "SegRanks: rank the candidate segments of every extracted segment of a sentence")
        self.actions = [self.act_rank_sentences, self.act_rank_segments]

    def open_screen(self, kind: str, judge: str | None = None,
                    n: int | None = None) -> RankingScreen | None:
        """Ask the judge (unless given), make sure the journal can be written (a database
        without a file is saved first), open the screen of ``kind`` (SENTENCES, SEGMENTS)."""
        w, ws = self.window, self.workspace
        db = ws.database
        if db is None:
            return None
        if kind == SEGMENTS:
            from evaltrans_qt.engine.human.segranks.model import sentence_segments
            if not any((d := sentence_segments(s)) is not None and d.segments for s in db.sources):
                errors.show_error(EvalTransError(
                    "this database has no extracted segments to rank: extract them first "
                    "(Session → SegRanks → Extract segments…, or `evaltrans segranks extract`)"), w)
                return None
        if judge is None:
            settings = w.settings
            dlg = RankingSetupDialog(kind, str(settings.value("session/judge", "")),
                                     int(settings.value("ranking/n", DEFAULT_N) or DEFAULT_N), w)
            self.last_ranking_dialog = dlg
            if dlg.exec() != QDialog.DialogCode.Accepted:
                return None
            judge, n = dlg.judge.text().strip(), dlg.n.value()
            if w.persist_settings:
                settings.setValue("session/judge", judge)
                settings.setValue("ranking/n", n)
        if ws.path is None:         # saved here and now: the journal needs the file
            w.files.save_as(wait=True)
            if ws.path is None:
                return None
        why = ws.read_only_reason()   # another program's journal: not ours
        if why is not None:
            errors.show_error(SaveError(why, ws.path), w)
            return None
        if ws.journal is not None:
            try:
                ws.journal.ensure_writable()
            except OSError as exc:
                errors.show_error(SaveError(f"cannot start ranking: the journal cannot be written "
                                            f"({exc.strerror or exc})", ws.journal.path), w)
                return None
        if self.ranking_screen is not None:
            try:
                self.ranking_screen.close()
            except RuntimeError:                   # already deleted with its C++ object
                pass
        try:
            if kind == SENTENCES:
                screen: RankingScreen = SentenceRankingScreen(ws, judge, n or DEFAULT_N, parent=w)
            else:
                screen = SegmentRankingScreen(ws, judge, parent=w)
        except EvalTransError as exc:
            errors.show_error(exc, w)
            return None
        screen.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.ranking_screen = screen
        screen.show()
        screen.raise_()
        screen.activateWindow()
        return screen


__all__ = ["RankingController", "SEGMENTS", "SENTENCES"]
