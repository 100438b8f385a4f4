"""Ranking screens: the shared machinery and the whole-sentence screen.

A screen shows one source at a time and the candidates to rank in rank rows
(:mod:`evaltrans_qt.ui.rank_board`): :class:`SentenceRankingScreen` the N whole
candidates of WMT's relative ranking (drawn by
:class:`~evaltrans_qt.engine.human.segranks.sessions.PairSampler` so that system pairs are
compared evenly; ranks 1..N, ties allowed), ``segment_ranking_screen.SegmentRankingScreen``
every short segment of the sentence (Macháček §2.2; ranks 1..N and "unusable" N+1).

Keyboard (the screen keeps the focus; the rows are for the mouse): Up/Down choose a
candidate, a digit gives its rank (two digits when there are ten or more ranks; Enter
ends the number), U = unusable, Left/Right = one rank better/worse, Delete = back to
"not placed", Enter submits, Page Down / Page Up = next / previous sentence, Ctrl+Z /
Ctrl+Shift+Z undo and redo. Candidates are also dragged between rows.

The state -- the sentences, the boards and their ranks, the cursor, the drafts,
submitting and its undo -- is a Qt-free
:class:`~evaltrans_qt.ranking_session.RankingSessionModel` (``session``); the screen shows
it and turns keys, clicks and drops into its calls. Submitting is refused while a
candidate is not placed; a submitted screen is committed through
:meth:`Workspace.commit` (journal first, fsync, then the database, then the workspace's
``committed`` signal) as a step of the session's undo history, like every placement;
undoing a submit commits the inverse change and goes back to that sentence with its
candidates placed as they were.

Object names: ``sentenceRankingScreen``/``segmentRankingScreen``, ``rankingProgress``,
``rankingSource``, ``rankingReference``, ``rankingStatus``, ``rankSubmit``,
``rankPrevious``, ``rankNext``; boards ``rankBoard<k>`` with rows ``rankBoard<k>_bin<b>``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import SaveError
from evaltrans_qt.ranking_session import (
    DEFAULT_N,
    SEGMENTS,
    SENTENCES,
    Placed,
    RankingSessionModel,
    RankingTasks,
    SentenceRanking,
)
from evaltrans_qt.ui.history_actions import undo_actions
from evaltrans_qt.ui.rank_board import RankBinsModel, RankBoard


@dataclass
class Task:
    """One board of a screen: its heading (rich text) and its model."""

    heading: str
    model: RankBinsModel


# ---------------------------------------------------------------- the screen
class RankingScreen(QWidget):
    """The view of a :class:`RankingSessionModel` over ``tasks`` (module doc)."""

    kind = ""
    #: Emitted after every change of the database (a ranking stored, undone or redone).
    rankingChanged = Signal(int)

    def __init__(self, workspace, judge: str, tasks: RankingTasks,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.Window)
        self.workspace = workspace
        self.judge = judge
        self.session = RankingSessionModel(tasks)
        self.tasks_: list[Task] = []
        self.boards: list[RankBoard] = []
        self._typed = ""
        self._typed_timer = QTimer(self, singleShot=True, interval=800)
        self._typed_timer.timeout.connect(self._commit_typed)
        self._build()
        m = self.session
        m.shown.connect(self._show_sentence)
        m.cursor_moved.connect(self._show_cursor)
        m.message.connect(self._set_status)
        m.stored.connect(self._stored)
        from evaltrans_qt.ui.observe import observe
        observe(self, workspace.database_changed, lambda: self.close())
        m.start()

    # ------------------------------------------------------------ the session's state
    @property
    def db(self) -> Database:
        return self.workspace.database

    @property
    def history(self):
        """The screen's undo history (placements and submits; the session's own)."""
        return self.session.history

    @property
    def si(self) -> int | None:
        return self.session.si

    @property
    def cursor(self) -> tuple[int, int] | None:
        return self.session.cursor

    @property
    def order(self) -> list[int]:
        return self.session.order

    @property
    def drafts(self) -> dict[int, Placed]:
        return self.session.drafts

    @property
    def task_ids(self) -> dict[int, str]:
        return self.session.task_ids

    def is_done(self, si: int) -> bool:
        return self.session.is_done(si)

    def seconds_on(self, si: int) -> float:
        return self.session.seconds_on(si)

    def header(self, si: int) -> tuple[str, str]:
        return self.session.tasks.header(si)

    # ------------------------------------------------------------ layout
    def _build(self) -> None:
        self.setObjectName(f"{self.kind}RankingScreen")
        self.setFocusPolicy(Qt.StrongFocus)
        lay = QVBoxLayout(self)
        self.progress = QLabel(objectName="rankingProgress")
        lay.addWidget(self.progress)
        top = QFrame()
        top.setFrameShape(QFrame.StyledPanel)
        form = QFormLayout(top)
        self.source_label = QLabel(objectName="rankingSource", wordWrap=True,
                                   textInteractionFlags=Qt.TextSelectableByMouse)
        self.reference_label = QLabel(objectName="rankingReference", wordWrap=True,
                                      textInteractionFlags=Qt.TextSelectableByMouse)
        f = self.source_label.font()
        f.setPointSizeF(f.pointSizeF() * 1.15)
        self.source_label.setFont(f)
        form.addRow("<b>Source:</b>", self.source_label)
        form.addRow("<b>Reference:</b>", self.reference_label)
        lay.addWidget(top)
        self.scroll = QScrollArea(widgetResizable=True)
        self.scroll.setFocusPolicy(Qt.NoFocus)
        self.body = QWidget()
        self.body_lay = QVBoxLayout(self.body)
        self.body_lay.addStretch(1)
        self.scroll.setWidget(self.body)
        lay.addWidget(self.scroll, 1)
        bar = QHBoxLayout()
        self.status = QLabel(objectName="rankingStatus", wordWrap=True)
        bar.addWidget(self.status, 1)
        self.prev_button = QPushButton("◀ Previous", objectName="rankPrevious")
        self.next_button = QPushButton("Skip ▶", objectName="rankNext")
        self.submit_button = QPushButton("Submit (Enter)", objectName="rankSubmit")
        for b in (self.prev_button, self.next_button, self.submit_button):
            b.setFocusPolicy(Qt.NoFocus)
            bar.addWidget(b)
        self.prev_button.clicked.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(1))
        self.submit_button.clicked.connect(self.submit)
        lay.addLayout(bar)
        self.act_undo, self.act_redo = undo_actions(self, self.session.history,
                                                    ("rankUndo", "rankRedo"))
        for a in (self.act_undo, self.act_redo):
            a.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.addAction(a)
        self.act_close = QAction("Close", self, shortcut=QKeySequence("Ctrl+W"),
                                 triggered=self.close)
        self.addAction(self.act_close)
        self.resize(1000, 720)

    # ------------------------------------------------------------ navigation
    def first_todo(self) -> int | None:
        return self.session.first_todo()

    def next_todo(self, after: int) -> int | None:
        return self.session.next_todo(after)

    def step(self, delta: int) -> None:
        self.session.step(delta)

    def go_to_source(self, si: int, keep_draft: bool = True, placed: Placed | None = None) -> None:
        """Show sentence ``si`` (:meth:`RankingSessionModel.go_to_source`)."""
        self._typed = ""
        self.session.go_to_source(si, keep_draft, placed)
        self.setFocus()

    def _show_sentence(self, si: int) -> None:
        """The session shows sentence ``si``: one board widget per board."""
        self._typed = ""
        self.tasks_ = [Task(b.heading, RankBinsModel(b, self)) for b in self.session.boards]
        for b in self.boards:
            box = b.parentWidget()
            self.body_lay.removeWidget(box)
            box.hide()
            box.setParent(None)
            box.deleteLater()
        self.boards = []
        for k, task in enumerate(self.tasks_):
            box = QFrame()
            box.setFrameShape(QFrame.StyledPanel)
            v = QVBoxLayout(box)
            head = QLabel(task.heading, objectName=f"rankHeading{k}", wordWrap=True)
            head.setTextFormat(Qt.RichText)
            v.addWidget(head)
            board = RankBoard(task.model, vertical=self.kind == SENTENCES, name=f"rankBoard{k}",
                              on_click=lambda c, k=k: self.set_cursor(k, c))
            task.model.on_request = lambda c, r, k=k: self.place(k, c, r)
            v.addWidget(board)
            self.body_lay.insertWidget(self.body_lay.count() - 1, box)
            self.boards.append(board)
        src, ref = self.header(si)
        self.source_label.setText(html.escape(src))
        self.reference_label.setText(html.escape(ref) if ref else "<i>(no reference)</i>")
        self._update_progress()
        self._set_status("")
        self.setFocus()

    def _update_progress(self) -> None:
        si = self.session.si
        if si is None:
            return
        pos, done, total = self.session.progress()
        state = "ranked" if self.is_done(si) else "to rank"
        self.progress.setText(f"<b>Sentence {pos} of {total}</b> (source "
                              f"{si + 1}, {state}) · judge {html.escape(self.judge or '-')}"
                              f" · {done} of {total} ranked")
        self.setWindowTitle(f"Rank {self.kind} — sentence {pos} of {total}")

    def _set_status(self, text: str) -> None:
        self.status.setText(text)

    def _stored(self, si: int) -> None:
        self._update_progress()
        self.rankingChanged.emit(si)

    # ------------------------------------------------------------ cursor and placing
    def set_cursor(self, k: int, c: int) -> None:
        self.session.set_cursor(k, c)

    def _show_cursor(self, k: int, c: int) -> None:
        for j, b in enumerate(self.boards):
            b.show_current(c if j == k else None)
        if k < len(self.boards):
            self.scroll.ensureWidgetVisible(self.boards[k].views[0], 0, 0)
            view, _rect = self.boards[k].chip_rect(c)
            self.scroll.ensureWidgetVisible(view, 0, 40)

    def move_cursor(self, delta: int) -> None:
        self.session.move_cursor(delta)

    def place(self, k: int, c: int, rank: int | None) -> None:
        """Undoably move candidate ``c`` of board ``k`` to ``rank`` (None: not placed)."""
        self.session.place(k, c, rank)

    def rank_current(self, rank: int | None, advance: bool = True) -> bool:
        return self.session.rank_current(rank, advance)

    def _commit_typed(self) -> None:
        text, self._typed = self._typed, ""
        if text:
            self.rank_current(int(text))

    # ------------------------------------------------------------ keyboard
    def keyPressEvent(self, ev) -> None:
        key, mods = ev.key(), ev.modifiers()
        if mods & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier):
            return super().keyPressEvent(ev)
        cur = self.session.cursor
        board = self.session.boards[cur[0]] if cur is not None else None
        text = ev.text()
        if text.isdigit() and board is not None:
            self._typed += text
            value = int(self._typed)
            if value * 10 > board.max_rank or len(self._typed) >= 2:
                self._typed_timer.stop()
                self._commit_typed()
            else:
                self._typed_timer.start()
            return
        if key in (Qt.Key_Return, Qt.Key_Enter):
            if self._typed:
                self._typed_timer.stop()
                self._commit_typed()
            else:
                self.submit()
            return
        self._typed = ""
        if key == Qt.Key_Down:
            self.move_cursor(1)
        elif key == Qt.Key_Up:
            self.move_cursor(-1)
        elif key == Qt.Key_U and board is not None and board.unusable:
            self.rank_current(board.max_rank)
        elif key in (Qt.Key_Left, Qt.Key_Right) and board is not None:
            self.session.better_or_worse(-1 if key == Qt.Key_Left else 1)
        elif key in (Qt.Key_Delete, Qt.Key_Backspace):
            self.rank_current(None, advance=False)
        elif key == Qt.Key_PageDown:
            self.step(1)
        elif key == Qt.Key_PageUp:
            self.step(-1)
        elif key == Qt.Key_Escape:
            self.close()
        else:
            super().keyPressEvent(ev)

    # ------------------------------------------------------------ submitting
    def missing(self) -> list[tuple[int, int]]:
        """(board, candidate) of every candidate not placed yet."""
        return self.session.missing()

    def submit(self) -> bool:
        """Store the screen (journal first) -- refused while a candidate is not placed; a
        journal that cannot be written is shown as an error."""
        try:
            ok = self.session.submit()
        except OSError as exc:
            self._journal_failed(exc)
            return False
        self.setFocus()
        return ok

    def _journal_failed(self, exc: OSError) -> None:
        from evaltrans_qt.ui import errors
        j = self.workspace.journal
        errors.show_error(SaveError(f"ranking not recorded: the journal cannot be written "
                                    f"({exc.strerror or exc})", j.path if j else None), self)

    def closeEvent(self, ev) -> None:
        self.session.leave()
        super().closeEvent(ev)


# ---------------------------------------------------------------- whole sentences
class SentenceRankingScreen(RankingScreen):
    """WMT relative ranking: N whole candidates of a source, ranks 1..N, ties allowed
    (:class:`~evaltrans_qt.ranking_session.SentenceRanking`)."""

    kind = SENTENCES

    def __init__(self, workspace, judge: str, n: int = DEFAULT_N, systems: Sequence[str] | None = None,
                 seed: int | None = None, parent: QWidget | None = None) -> None:
        self.ranking = SentenceRanking(workspace, judge, n, systems, seed)
        super().__init__(workspace, judge, self.ranking, parent)

    @property
    def sampler(self):
        return self.ranking.sampler

    @property
    def shown(self) -> dict[int, list[int]]:
        """The targets shown for each source (drawn once, kept when the judge comes back)."""
        return self.ranking.shown

    @property
    def systems(self) -> list[str]:
        return self.ranking.systems


# ---------------------------------------------------------------- starting a screen
class RankingSetupDialog(QDialog):
    """The judge's name (and N for whole sentences) before a ranking screen starts."""

    def __init__(self, kind: str, judge: str = "", n: int = DEFAULT_N, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("rankingSetupDialog")
        self.setWindowTitle("Rank whole sentences" if kind == SENTENCES else "Rank short segments")
        form = QFormLayout(self)
        self.judge = QLineEdit(judge, objectName="judgeName")
        self.judge.setPlaceholderText("your name or initials")
        form.addRow("Judge:", self.judge)
        self.n = QSpinBox(objectName="rankingN")
        self.n.setRange(2, 20)
        self.n.setValue(n)
        self.n.setToolTip("Candidates per screen, drawn so that every pair of systems is "
                          "compared about equally often")
        if kind == SENTENCES:
            form.addRow("Candidates per screen:", self.n)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


__all__ = ["RankingScreen", "SentenceRankingScreen", "RankingSetupDialog", "Task", "SENTENCES",
           "SEGMENTS", "DEFAULT_N"]
