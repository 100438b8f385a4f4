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

Submitting is refused while a candidate is not placed. A submitted screen is committed
through :meth:`Workspace.commit`, the one commit path of every judgement: written to the
journal (fsync) first, then applied to the database
(:mod:`evaltrans_qt.io.segranks.changes`: judge, time, seconds on the screen, task id),
then the workspace's ``committed`` signal (dirty, autosave, the results view's Ranking tab
refreshes). Placing and submitting are commands
of the screen's undo stack: undoing a submit commits the inverse change and goes back
to that sentence with its candidates placed as they were. A sentence the judge ranked
before opens with those ranks, and submitting it again replaces that ranking (same task).

Object names: ``sentenceRankingScreen``/``segmentRankingScreen``, ``rankingProgress``,
``rankingSource``, ``rankingReference``, ``rankingStatus``, ``rankSubmit``,
``rankPrevious``, ``rankNext``; boards ``rankBoard<k>`` with rows ``rankBoard<k>_bin<b>``.
"""

from __future__ import annotations

import html
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack
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
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.io.segranks.changes import RankingChange
from evaltrans_qt.ui.rank_board import RankBinsModel, RankBoard

SENTENCES, SEGMENTS = "sentences", "segments"
DEFAULT_N = 5


@dataclass
class Task:
    """One board of a screen: its heading (rich text) and its model."""

    heading: str
    model: RankBinsModel


# ---------------------------------------------------------------- undo commands
class PlaceCommand(QUndoCommand):
    """Move one candidate of one board of one sentence to another rank row."""

    def __init__(self, screen: RankingScreen, si: int, k: int, c: int, old: int | None,
                 new: int | None) -> None:
        super().__init__(f"rank {new or '-'} (sentence {si + 1})")
        self.screen, self.si, self.k, self.c, self.old, self.new = screen, si, k, c, old, new

    def redo(self) -> None:
        self.screen._place_now(self.si, self.k, self.c, self.new)

    def undo(self) -> None:
        self.screen._place_now(self.si, self.k, self.c, self.old)


class SubmitCommand(QUndoCommand):
    """One submitted screen, committed; undo commits the inverse change (Workspace.commit)."""

    def __init__(self, screen: RankingScreen, si: int, change: RankingChange,
                 placed: list[list[int | None]], undo: list[RankingChange]) -> None:
        super().__init__(f"submit sentence {si + 1}")
        self.screen, self.si, self.change, self.placed, self.inverse = \
            screen, si, change, placed, undo
        self.applied_before_push = True

    def redo(self) -> None:
        if self.applied_before_push:
            self.applied_before_push = False
            return
        self.inverse = self.screen.commit(self.change)
        self.screen._after_submit(self.si)

    def undo(self) -> None:
        for ch in self.inverse:
            self.screen.commit(ch)
        self.screen.go_to_source(self.si, placed=[list(r) for r in self.placed])


# ---------------------------------------------------------------- the screen
class RankingScreen(QWidget):
    """Base of the two screens (module doc); subclasses say what a sentence shows."""

    kind = ""
    #: Emitted after every change of the database (a ranking stored or undone).
    rankingChanged = Signal(int)

    def __init__(self, workspace, judge: str, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.Window)
        self.workspace = workspace
        self.judge = judge
        self.undo_stack = QUndoStack(self)
        self.tasks_: list[Task] = []
        self.boards: list[RankBoard] = []
        self.si: int | None = None
        self.cursor: tuple[int, int] | None = None
        self.drafts: dict[int, list[list[int | None]]] = {}
        self.task_ids: dict[int, str] = {}
        self.elapsed: dict[int, float] = {}
        self._shown_at = time.monotonic()
        self._typed = ""
        self._typed_timer = QTimer(self, singleShot=True, interval=800)
        self._typed_timer.timeout.connect(self._commit_typed)
        self.order: list[int] = self.sentence_order()
        self._build()
        from evaltrans_qt.ui.observe import observe
        observe(self, workspace.database_changed, lambda: self.close())
        start = self.first_todo()
        if start is not None:
            self.go_to_source(start)
        else:
            self._set_status("Nothing to rank in this database.")

    # ------------------------------------------------------------ what subclasses give
    @property
    def db(self) -> Database:
        return self.workspace.database

    def sentence_order(self) -> list[int]:
        """Source indices this screen goes through, in order."""
        raise NotImplementedError

    def is_done(self, si: int) -> bool:
        """Whether the judge has ranked sentence ``si`` completely."""
        raise NotImplementedError

    def make_tasks(self, si: int, placed: list[list[int | None]] | None) -> list[Task]:
        """The boards of sentence ``si``, with ``placed`` (a draft) or the judge's stored ranks."""
        raise NotImplementedError

    def make_change(self, si: int, placed: list[list[int]], task: str,
                    seconds: float) -> RankingChange:
        raise NotImplementedError

    def header(self, si: int) -> tuple[str, str]:
        """(source, reference) as plain text for the top of the screen."""
        src = self.db.sources[si]
        refs = self.db.references(src)
        return src.text, refs[0].text if refs else ""

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
        self.act_undo = self.undo_stack.createUndoAction(self, "&Undo")
        self.act_undo.setShortcut(QKeySequence("Ctrl+Z"))
        self.act_redo = self.undo_stack.createRedoAction(self, "&Redo")
        self.act_redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for a in (self.act_undo, self.act_redo):
            a.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.addAction(a)
        self.act_close = QAction("Close", self, shortcut=QKeySequence("Ctrl+W"),
                                 triggered=self.close)
        self.addAction(self.act_close)
        self.resize(1000, 720)

    # ------------------------------------------------------------ navigation
    def first_todo(self) -> int | None:
        todo = [si for si in self.order if not self.is_done(si)]
        return todo[0] if todo else (self.order[0] if self.order else None)

    def next_todo(self, after: int) -> int | None:
        if after not in self.order:
            return self.first_todo()
        k = self.order.index(after)
        for si in self.order[k + 1:] + self.order[:k]:
            if not self.is_done(si):
                return si
        return None

    def step(self, delta: int) -> None:
        if self.si is None or not self.order:
            return
        k = (self.order.index(self.si) + delta) % len(self.order)
        self.go_to_source(self.order[k])

    def _leave(self) -> None:
        if self.si is None:
            return
        self.elapsed[self.si] = self.seconds_on(self.si)
        if self.tasks_:
            self.drafts[self.si] = [t.model.ranks() for t in self.tasks_]

    def seconds_on(self, si: int) -> float:
        """Seconds spent on sentence ``si`` so far (all visits)."""
        spent = self.elapsed.get(si, 0.0)
        if si == self.si:
            spent += time.monotonic() - self._shown_at
        return spent

    def go_to_source(self, si: int, keep_draft: bool = True,
                     placed: list[list[int | None]] | None = None) -> None:
        """Show sentence ``si``: with ``placed`` if given, else its draft (where the judge
        left it; not with ``keep_draft=False``), else the judge's stored ranks."""
        if si == self.si and self.tasks_ and placed is None and keep_draft:
            return
        self._leave()
        self._typed = ""
        self.si = si
        self._shown_at = time.monotonic()
        draft = self.drafts.pop(si, None)
        if placed is None and keep_draft:
            placed = draft
        self.tasks_ = self.make_tasks(si, placed)
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
        self.cursor = None
        first = next(((k, c) for k, t in enumerate(self.tasks_) for c in t.model.unplaced()),
                     (0, 0) if self.tasks_ and self.tasks_[0].model.n else None)
        if first is not None:
            self.set_cursor(*first)
        self._update_progress()
        self._set_status("")
        self.setFocus()

    def _update_progress(self) -> None:
        if self.si is None:
            return
        done = sum(1 for si in self.order if self.is_done(si))
        pos = self.order.index(self.si) + 1 if self.si in self.order else 0
        state = "ranked" if self.is_done(self.si) else "to rank"
        self.progress.setText(f"<b>Sentence {pos} of {len(self.order)}</b> (source "
                              f"{self.si + 1}, {state}) · judge {html.escape(self.judge or '-')}"
                              f" · {done} of {len(self.order)} ranked")
        self.setWindowTitle(f"Rank {self.kind} — sentence {pos} of {len(self.order)}")

    def _set_status(self, text: str) -> None:
        self.status.setText(text)

    # ------------------------------------------------------------ cursor and placing
    def cursor_order(self) -> list[tuple[int, int]]:
        return [(k, c) for k, t in enumerate(self.tasks_) for c in range(t.model.n)]

    def set_cursor(self, k: int, c: int) -> None:
        if not (0 <= k < len(self.tasks_) and 0 <= c < self.tasks_[k].model.n):
            return
        self.cursor = (k, c)
        for j, b in enumerate(self.boards):
            b.show_current(c if j == k else None)
        if self.boards:
            self.scroll.ensureWidgetVisible(self.boards[k].views[0], 0, 0)
            view, rect = self.boards[k].chip_rect(c)
            self.scroll.ensureWidgetVisible(view, 0, 40)

    def move_cursor(self, delta: int) -> None:
        order = self.cursor_order()
        if not order:
            return
        k = order.index(self.cursor) + delta if self.cursor in order else 0
        self.set_cursor(*order[max(0, min(len(order) - 1, k))])

    def place(self, k: int, c: int, rank: int | None) -> None:
        """Undoably move candidate ``c`` of board ``k`` to ``rank`` (None: not placed)."""
        model = self.tasks_[k].model
        old = model.rank_of(c)
        if old == rank:
            return
        self.undo_stack.push(PlaceCommand(self, self.si, k, c, old, rank))

    def _place_now(self, si: int, k: int, c: int, rank: int | None) -> None:
        if si != self.si:
            self.go_to_source(si)
        self.tasks_[k].model.place(c, rank)
        self.set_cursor(k, c)
        self._set_status("")

    def rank_current(self, rank: int | None, advance: bool = True) -> bool:
        if self.cursor is None:
            return False
        k, c = self.cursor
        model = self.tasks_[k].model
        if rank is not None and not 1 <= rank <= model.max_rank:
            self._set_status(f"{rank} is not a rank here (1 to {model.max_rank}).")
            return False
        self.place(k, c, rank)
        if advance:
            self.move_cursor(1)
        return True

    def _commit_typed(self) -> None:
        text, self._typed = self._typed, ""
        if text:
            self.rank_current(int(text))

    # ------------------------------------------------------------ keyboard
    def keyPressEvent(self, ev) -> None:
        key, mods = ev.key(), ev.modifiers()
        if mods & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier):
            return super().keyPressEvent(ev)
        model = self.tasks_[self.cursor[0]].model if self.cursor is not None else None
        text = ev.text()
        if text.isdigit() and model is not None:
            self._typed += text
            value = int(self._typed)
            if value * 10 > model.max_rank or len(self._typed) >= 2:
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
        elif key == Qt.Key_U and model is not None and model.unusable:
            self.rank_current(model.max_rank)
        elif key in (Qt.Key_Left, Qt.Key_Right) and model is not None:
            k, c = self.cursor
            r = model.rank_of(c)
            new = (None if r is None else max(1, r - 1)) if key == Qt.Key_Left \
                else min(model.max_rank, (r or 0) + 1)
            if new is not None:
                self.rank_current(new, advance=False)
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
        return [(k, c) for k, t in enumerate(self.tasks_) for c in t.model.unplaced()]

    def submit(self) -> bool:
        """Store the screen (journal first) -- refused while a candidate is not placed."""
        if self.si is None or not self.tasks_:
            return False
        miss = self.missing()
        if miss:
            k, c = miss[0]
            what = ", ".join(f"“{self.tasks_[k2].model.labels[c2][:40]}”" for k2, c2 in miss[:3])
            self._set_status(f"<b>Not submitted:</b> {len(miss)} candidate(s) not placed yet "
                             f"({html.escape(what)}{' …' if len(miss) > 3 else ''}).")
            self.set_cursor(k, c)
            return False
        si = self.si
        placed = [t.model.ranks() for t in self.tasks_]
        task = self.task_ids.get(si)
        if task is None:
            from evaltrans_qt.engine.human.segranks.sessions import new_task_id
            task = self.task_ids[si] = new_task_id()
        seconds = round(self.seconds_on(si), 1)
        try:
            change = self.make_change(si, placed, task, seconds)
            inverse = self.commit(change)
        except OSError as exc:
            self._journal_failed(exc)
            return False
        except (EvalTransError, LookupError) as exc:
            self._set_status(f"<b>Not submitted:</b> {html.escape(str(exc))}")
            return False
        self.elapsed[si] = 0.0
        self._shown_at = time.monotonic()
        self.undo_stack.push(SubmitCommand(self, si, change, placed, inverse))
        self._after_submit(si)
        return True

    def commit(self, change: RankingChange) -> list[RankingChange]:
        """Commit ``change`` (:meth:`Workspace.commit`: journal first, fsync, then the
        database, then its signal); returns the changes that undo it (committed the same way)."""
        done = self.workspace.commit(change)
        self.rankingChanged.emit(self.si if self.si is not None else -1)
        return cast("list[RankingChange]", done.inverse)

    def _after_submit(self, si: int) -> None:
        self.drafts.pop(si, None)
        nxt = self.next_todo(si)
        if nxt is None:
            self.go_to_source(si, keep_draft=False)
            self._set_status("Submitted. Every sentence is ranked — thank you.")
        else:
            self.go_to_source(nxt, keep_draft=True)
            self._set_status(f"Submitted sentence {self.order.index(si) + 1}.")
        self._update_progress()

    def _journal_failed(self, exc: OSError) -> None:
        from evaltrans_qt.ui import errors
        j = self.workspace.journal
        errors.show_error(SaveError(f"ranking not recorded: the journal cannot be written "
                                    f"({exc.strerror or exc})", j.path if j else None), self)

    def closeEvent(self, ev) -> None:
        self._leave()
        super().closeEvent(ev)


# ---------------------------------------------------------------- whole sentences
def _judge_tasks(db: Database, si: int, judge: str | None) -> dict[str, dict[int, int]]:
    """{task: {target index: rank}} of ``judge``'s whole-sentence rankings of source ``si``."""
    from evaltrans_qt.engine.human.ranking import RANK_CLASS, TASK_ATTR
    out: dict[str, dict[int, int]] = {}
    for ti, t in enumerate(db.sources[si].targets):
        for s in t.scores:
            if s.cls == RANK_CLASS and s.judge == judge and not s.extrapolated:
                out.setdefault(s.extra_attrs.get(TASK_ATTR, ""), {})[ti] = int(s.value)
    return out


class SentenceRankingScreen(RankingScreen):
    """WMT relative ranking: N whole candidates of a source, ranks 1..N, ties allowed."""

    kind = SENTENCES

    def __init__(self, workspace, judge: str, n: int = DEFAULT_N, systems: Sequence[str] | None = None,
                 seed: int | None = None, parent: QWidget | None = None) -> None:
        from evaltrans_qt.engine.human.ranking import rankings
        from evaltrans_qt.engine.human.segranks.sessions import PairSampler
        db = workspace.database
        self.systems = [s for s in (systems or db.systems()) if s]
        self.sampler = PairSampler(self.systems, n, zlib.crc32((judge or "").encode())
                                   if seed is None else seed)
        if db.has_class("rank"):
            for r in rankings(db):
                self.sampler.count(list(r.ranks))
        #: The targets shown for each source (drawn once, kept when the judge comes back).
        self.shown: dict[int, list[int]] = {}
        super().__init__(workspace, judge, parent)

    def _first_by_system(self, si: int) -> dict[str, int]:
        src = self.db.sources[si]
        out: dict[str, int] = {}
        for ti, t in enumerate(src.targets):
            if t.system in self.systems and not self.db.is_reference(t):
                out.setdefault(t.system, ti)
        return out

    def sentence_order(self) -> list[int]:
        return [si for si in range(len(self.db.sources)) if len(self._first_by_system(si)) >= 2]

    def is_done(self, si: int) -> bool:
        return bool(_judge_tasks(self.db, si, self.judge))

    def make_tasks(self, si: int, placed) -> list[Task]:
        src = self.db.sources[si]
        mine = _judge_tasks(self.db, si, self.judge)
        ranks: list[int | None]
        if si not in self.shown and mine:             # ranked before: show that ranking again
            task, stored = list(mine.items())[-1]
            self.task_ids.setdefault(si, task)
            self.shown[si] = list(stored)
        if si not in self.shown:
            by_sys = self._first_by_system(si)
            self.shown[si] = [by_sys[s] for s in self.sampler.draw(list(by_sys))]
        targets = self.shown[si]
        stored = mine.get(self.task_ids.get(si, ""), {})
        if placed is not None:
            ranks = list(placed[0])
        else:
            ranks = [stored.get(ti) for ti in targets]
        model = RankBinsModel([src.targets[ti].text for ti in targets],
                              [f"candidate {j + 1}" for j in range(len(targets))],
                              unusable=False, ranks=ranks)
        heading = (f"Rank the {len(targets)} translations from best (1) to worst "
                   f"({len(targets)}); ties allowed.")
        return [Task(heading, model)]

    def make_change(self, si: int, placed, task: str, seconds: float) -> RankingChange:
        from evaltrans_qt.io.segranks.changes import sentence_ranking_change
        ranks = {ti: int(r) for ti, r in zip(self.shown[si], placed[0])}
        return sentence_ranking_change(self.db, si, self.judge, ranks, task, seconds=seconds)


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


__all__ = ["RankingScreen", "SentenceRankingScreen", "RankingSetupDialog", "PlaceCommand",
           "SubmitCommand", "SENTENCES", "SEGMENTS"]
