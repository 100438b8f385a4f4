"""Session → Rank whole sentences / Rank short segments: the setup, the checks and the
screen (:mod:`.ranking_screen` for whole sentences, :mod:`.segment_ranking_screen` for
SegRanks segments)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.ui.ranking_screen import (
    DEFAULT_N,
    SEGMENTS,
    SENTENCES,
    RankingScreen,
    RankingSetupDialog,
    SentenceRankingScreen,
)
from evaltrans_qt.ui.segment_ranking_screen import SegmentRankingScreen


def open_ranking_screen(window, kind: str, judge: str | None = None,
                        n: int | None = None) -> RankingScreen | None:
    """Session → Rank whole sentences / short segments: ask the judge (unless given), make
    sure the journal can be written (a database without a file is saved first), open."""
    db = window.database
    if db is None:
        return None
    from evaltrans_qt.ui import errors
    if kind == SEGMENTS:
        from evaltrans_qt.engine.human.segranks.model import sentence_segments
        if not any((d := sentence_segments(s)) is not None and d.segments for s in db.sources):
            errors.show_error(EvalTransError(
                "this database has no extracted segments to rank: run `evaltrans segranks "
                "extract` (README, SegRanks) or import a .segments file first"), window)
            return None
    if judge is None:
        settings = window.settings
        dlg = RankingSetupDialog(kind, str(settings.value("session/judge", "")),
                                 int(settings.value("ranking/n", DEFAULT_N) or DEFAULT_N), window)
        window.last_ranking_dialog = dlg
        if dlg.exec() != QDialog.Accepted:
            return None
        judge, n = dlg.judge.text().strip(), dlg.n.value()
        if getattr(window, "persist_settings", True):
            settings.setValue("session/judge", judge)
            settings.setValue("ranking/n", n)
    if window.database_path is None:
        window.save_as()
        if window.database_path is None:
            return None
    why = window.workspace.read_only_reason()   # another program's journal: not ours
    if why is not None:
        errors.show_error(SaveError(why, window.database_path), window)
        return None
    journal = window.journal
    if journal is not None:
        try:
            journal.ensure_writable()
        except OSError as exc:
            errors.show_error(SaveError(f"cannot start ranking: the journal cannot be written "
                                        f"({exc.strerror or exc})", journal.path), window)
            return None
    old = getattr(window, "ranking_screen", None)
    if old is not None:
        try:
            old.close()
        except RuntimeError:                   # already deleted with its C++ object
            pass
    try:
        if kind == SENTENCES:
            screen: RankingScreen = SentenceRankingScreen(window.workspace, judge, n or DEFAULT_N,
                                                          parent=window)
        else:
            screen = SegmentRankingScreen(window.workspace, judge, parent=window)
    except EvalTransError as exc:
        errors.show_error(exc, window)
        return None
    screen.setAttribute(Qt.WA_DeleteOnClose)
    window.ranking_screen = screen
    screen.show()
    screen.raise_()
    screen.activateWindow()
    return screen


def install_actions(window, menu) -> None:
    """Session → Rank whole sentences… (Ctrl+Alt+K) and Rank short segments… (Ctrl+Alt+J):
    the window's one hook (``main_window._build_menus``)."""
    window.act_rank_sentences = window._act(
        "Rank &whole sentences…", "Ctrl+Alt+K", lambda: open_ranking_screen(window, SENTENCES),
        "Relative ranking of N whole candidates per source (WMT style), ties allowed")
    window.act_rank_segments = window._act(
        "Rank short &segments…", "Ctrl+Alt+J", lambda: open_ranking_screen(window, SEGMENTS),
        "SegRanks: rank the candidate segments of every extracted segment of a sentence")
    menu.addSeparator()
    menu.addActions([window.act_rank_sentences, window.act_rank_segments])
