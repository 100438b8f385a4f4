"""A judge's pass through a ranking campaign as a Qt-free model: sentences, boards,
cursor, drafts, submitting, undo.

Two kinds of screen share it (the application's ranking screens,
:mod:`evaltrans_qt.ui.ranking_screen`, only show it and turn keys into calls):

* :class:`SentenceRanking` -- WMT relative ranking: N whole candidates of a source
  (drawn by :class:`~evaltrans_qt.engine.human.segranks.sessions.PairSampler` so that
  every pair of systems is compared about equally often), ranks 1..N, ties allowed;
* :class:`SegmentRanking` -- SegRanks (Macháček §2.2): every extracted short segment
  of the sentence, its merged candidate segments ranked 1..N or "unusable" (N+1, §3.1).

A :class:`RankingSessionModel` goes through the sentences of its kind
(:attr:`~RankingSessionModel.order`), shows one at a time as :class:`Board` s (one per
task: the candidates and their ranks; None = not placed yet), keeps the cursor (board,
candidate), the draft of every sentence left before it was submitted and the seconds
spent on each. Placing a candidate is a step of the session's own undo history
(:class:`~evaltrans_qt.history.History`; drafts are not judgements, nothing is
journalled). Submitting -- refused while a candidate is not placed -- commits one
ranking change through :meth:`Workspace.commit` (journal first, fsync, then the
database, then the workspace's ``committed`` signal) as a step of the same history:
undoing it commits the inverse change and goes back to that sentence with its candidates
placed as they were. A sentence the judge ranked before opens with those ranks, and
submitting it again replaces that ranking (same task).

Signals (psygnal): ``shown(si)`` -- a sentence's boards are new; ``cursor_moved(k, c)``;
``message(text)`` -- a line for the status bar (rich text: ``<b>`` marks the verdict);
``stored(si)`` -- a ranking was committed, undone or redone. Each board's
``Board.moved(c, old, new)`` says that a candidate changed rows.
"""

from __future__ import annotations

import html
import time
import zlib
from collections.abc import Callable, Sequence
from typing import cast

from psygnal import Signal

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.errors import EvalTransError
from evaltrans_qt.history import History
from evaltrans_qt.io.journal import Change
from evaltrans_qt.io.segranks.changes import RankingChange
from evaltrans_qt.workspace import Workspace

SENTENCES, SEGMENTS = "sentences", "segments"
DEFAULT_N = 5
#: A sentence's ranks as a screen holds them: per board, a rank (or None) per candidate.
Placed = list[list[int | None]]


class Board:
    """One ranking task of a sentence: candidates (``labels``) and their ranks, 1..N and,
    with ``unusable``, N+1 (None: not placed)."""

    #: Candidate ``c`` moved from rank ``old`` to ``new`` (None: not placed).
    moved = Signal(int, object, object)

    def __init__(self, labels: Sequence[str], tooltips: Sequence[str] | None = None, *,
                 heading: str = "", unusable: bool = True,
                 ranks: Sequence[int | None] | None = None) -> None:
        self.heading = heading
        self.labels = list(labels)
        self.tooltips = list(tooltips) if tooltips is not None else [""] * len(self.labels)
        self.unusable = unusable
        self.n = len(self.labels)
        #: The highest rank: N, or N+1 (= unusable) for short segments.
        self.max_rank = self.n + 1 if unusable else self.n
        self._rank: list[int | None] = [None] * self.n
        for c in range(self.n):
            r = ranks[c] if ranks is not None and c < len(ranks) else None
            if r is not None and not 1 <= r <= self.max_rank:
                raise ValueError(f"rank {r} of candidate {c} is not between 1 and {self.max_rank}")
            self._rank[c] = r

    def rank_of(self, c: int) -> int | None:
        return self._rank[c]

    def ranks(self) -> list[int | None]:
        return list(self._rank)

    def unplaced(self) -> list[int]:
        return [c for c in range(self.n) if self._rank[c] is None]

    def complete(self) -> bool:
        return all(r is not None for r in self._rank)

    def valid(self, c: int, rank: int | None) -> bool:
        return 0 <= c < self.n and (rank is None or 1 <= rank <= self.max_rank)

    def place(self, c: int, rank: int | None) -> None:
        """Put candidate ``c`` at ``rank`` (None: not placed); :class:`ValueError` outside."""
        if not self.valid(c, rank):
            raise ValueError(f"candidate {c} cannot have rank {rank} (1 to {self.max_rank})")
        old = self._rank[c]
        if old == rank:
            return
        self._rank[c] = rank
        self.moved.emit(c, old, rank)


# ---------------------------------------------------------------- the two kinds
class RankingTasks:
    """What a kind of screen shows (module doc): its sentences, its boards, its change."""

    kind = ""

    def __init__(self, workspace: Workspace, judge: str | None) -> None:
        self.workspace = workspace
        self.judge = judge
        #: Task id of the ranking each sentence replaces (or was first submitted as).
        self.task_ids: dict[int, str] = {}

    @property
    def db(self) -> Database:
        db = self.workspace.database
        if db is None:
            raise EvalTransError("the ranking session's database was closed")
        return db

    def sentence_order(self) -> list[int]:
        """Source indices the session goes through, in order."""
        raise NotImplementedError

    def is_done(self, si: int) -> bool:
        """Whether the judge has ranked sentence ``si`` completely."""
        raise NotImplementedError

    def boards(self, si: int, placed: Placed | None) -> list[Board]:
        """The boards of sentence ``si``, with ``placed`` (a draft) or the judge's stored ranks."""
        raise NotImplementedError

    def change(self, si: int, placed: list[list[int]], task: str, seconds: float) -> RankingChange:
        raise NotImplementedError

    def header(self, si: int) -> tuple[str, str]:
        """(source, first reference) as plain text for the top of the screen."""
        src = self.db.sources[si]
        refs = self.db.references(src)
        return src.text, refs[0].text if refs else ""


def judge_tasks(db: Database, si: int, judge: str | None) -> dict[str, dict[int, int]]:
    """{task: {target index: rank}} of ``judge``'s whole-sentence rankings of source ``si``."""
    from evaltrans_qt.engine.human.ranking import RANK_CLASS, TASK_ATTR
    out: dict[str, dict[int, int]] = {}
    for ti, t in enumerate(db.sources[si].targets):
        for s in t.scores:
            if s.cls == RANK_CLASS and s.judge == judge and not s.extrapolated:
                out.setdefault(s.extra_attrs.get(TASK_ATTR, ""), {})[ti] = int(s.value)
    return out


class SentenceRanking(RankingTasks):
    """WMT relative ranking: N whole candidates of a source, ranks 1..N, ties allowed."""

    kind = SENTENCES

    def __init__(self, workspace: Workspace, judge: str | None, n: int = DEFAULT_N,
                 systems: Sequence[str] | None = None, seed: int | None = None) -> None:
        super().__init__(workspace, judge)
        from evaltrans_qt.engine.human.ranking import rankings
        from evaltrans_qt.engine.human.segranks.sessions import PairSampler
        db = self.db
        self.systems = [s for s in (systems or db.systems()) if s]
        self.sampler = PairSampler(self.systems, n, zlib.crc32((judge or "").encode())
                                   if seed is None else seed)
        if db.has_class("rank"):
            for r in rankings(db):
                self.sampler.count(list(r.ranks))
        #: The targets shown for each source (drawn once, kept when the judge comes back).
        self.shown: dict[int, list[int]] = {}

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
        return bool(judge_tasks(self.db, si, self.judge))

    def boards(self, si: int, placed: Placed | None) -> list[Board]:
        src = self.db.sources[si]
        mine = judge_tasks(self.db, si, self.judge)
        if si not in self.shown and mine:             # ranked before: show that ranking again
            task, stored = list(mine.items())[-1]
            self.task_ids.setdefault(si, task)
            self.shown[si] = list(stored)
        if si not in self.shown:
            by_sys = self._first_by_system(si)
            self.shown[si] = [by_sys[s] for s in self.sampler.draw(list(by_sys))]
        targets = self.shown[si]
        stored = mine.get(self.task_ids.get(si, ""), {})
        ranks = list(placed[0]) if placed is not None else [stored.get(ti) for ti in targets]
        heading = (f"Rank the {len(targets)} translations from best (1) to worst "
                   f"({len(targets)}); ties allowed.")
        return [Board([src.targets[ti].text for ti in targets],
                      [f"candidate {j + 1}" for j in range(len(targets))],
                      heading=heading, unusable=False, ranks=ranks)]

    def change(self, si: int, placed: list[list[int]], task: str, seconds: float) -> RankingChange:
        from evaltrans_qt.io.segranks.changes import sentence_ranking_change
        ranks = {ti: int(r) for ti, r in zip(self.shown[si], placed[0])}
        return sentence_ranking_change(self.db, si, self.judge, ranks, task, seconds=seconds)


HIGHLIGHT = "#ffe08a"


def highlighted_source(tokens: list[str], words: tuple[int, ...]) -> str:
    """The sentence as rich text with the segment's words marked (bold on yellow)."""
    marked = set(words)
    out = []
    for i, tok in enumerate(tokens):
        t = html.escape(tok)
        out.append(f'<span style="background:{HIGHLIGHT}"><b>{t}</b></span>' if i in marked else t)
    return " ".join(out)


class SegmentRanking(RankingTasks):
    """SegRanks: one sentence's short segments, each a board (module doc). Judges see
    candidate segments only, never the systems that produced them; a merged candidate's
    rank goes to all its systems when ranks become system scores (``engine.ranking.expand``)."""

    kind = SEGMENTS

    def _data(self, si: int):
        from evaltrans_qt.engine.human.segranks.model import sentence_segments
        data = sentence_segments(self.db.sources[si])
        if data is None:
            raise EvalTransError(f"source {si + 1} has no extracted segments")
        return data

    def sentence_order(self) -> list[int]:
        from evaltrans_qt.engine.human.segranks.model import sentence_segments
        return [si for si, s in enumerate(self.db.sources)
                if (d := sentence_segments(s)) is not None and d.segments]

    def is_done(self, si: int) -> bool:
        data = self._data(si)
        done: set[int] = set()
        for r in data.rankings:
            if r.judge == self.judge:
                done.update(r.ranks)
        return len(done) >= len(data.segments)

    def boards(self, si: int, placed: Placed | None) -> list[Board]:
        from evaltrans_qt.engine.human.segranks.model import source_tokens
        data = self._data(si)
        mine = [r for r in data.rankings if r.judge == self.judge]
        if si not in self.task_ids and mine:          # ranked before: open that ranking
            self.task_ids[si] = mine[-1].task
        stored = data.ranking(self.judge, self.task_ids.get(si, ""))
        tokens = source_tokens(self.db.sources[si], data.tokenization)
        out = []
        for k, seg in enumerate(data.segments):
            ranks: Sequence[int | None] | None
            if placed is not None and k < len(placed):
                ranks = placed[k]
            elif stored is not None and k in stored.ranks:
                ranks = list(stored.ranks[k])
            else:
                ranks = None
            heading = (f"<b>Segment {k + 1} of {len(data.segments)}</b> "
                       f"({len(seg.candidates)} candidate(s); unusable = rank "
                       f"{seg.unusable_rank}):<br>{highlighted_source(tokens, seg.words)}")
            out.append(Board([c.text for c in seg.candidates], heading=heading, unusable=True,
                             ranks=ranks))
        return out

    def change(self, si: int, placed: list[list[int]], task: str, seconds: float) -> RankingChange:
        from evaltrans_qt.io.segranks.changes import segment_ranking_change
        ranks = {k: [int(r) for r in row] for k, row in enumerate(placed)}
        return segment_ranking_change(self.db, si, self.judge, ranks, task, seconds=seconds)


# ---------------------------------------------------------------- the session
class RankingSessionModel:
    """A judge's pass through the sentences of ``tasks`` (module doc)."""

    shown = Signal(int)
    cursor_moved = Signal(int, int)
    message = Signal(str)
    stored = Signal(int)

    def __init__(self, tasks: RankingTasks, clock: Callable[[], float] = time.monotonic) -> None:
        self.tasks = tasks
        self.workspace = tasks.workspace
        self.judge = tasks.judge
        #: Placements and submits of this session (its own: drafts die with it).
        self.history = History(tasks.workspace)
        self._clock = clock
        self.boards: list[Board] = []
        self.si: int | None = None
        self.cursor: tuple[int, int] | None = None
        self.drafts: dict[int, Placed] = {}
        self.elapsed: dict[int, float] = {}
        self._shown_at = clock()
        self.order: list[int] = tasks.sentence_order()

    @property
    def task_ids(self) -> dict[int, str]:
        return self.tasks.task_ids

    def start(self) -> bool:
        """Show the first sentence still to rank (else the first); False if there is none."""
        first = self.first_todo()
        if first is None:
            self.message.emit("Nothing to rank in this database.")
            return False
        self.go_to_source(first)
        return True

    # ------------------------------------------------------------ navigation
    def is_done(self, si: int) -> bool:
        return self.tasks.is_done(si)

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

    def progress(self) -> tuple[int, int, int]:
        """(position of the current sentence, 1-based; 0 if none), sentences ranked, sentences."""
        pos = self.order.index(self.si) + 1 if self.si in self.order else 0
        return pos, sum(1 for si in self.order if self.is_done(si)), len(self.order)

    def step(self, delta: int) -> None:
        """The sentence ``delta`` places on (wrapping), its draft kept."""
        if self.si is None or not self.order:
            return
        k = (self.order.index(self.si) + delta) % len(self.order) if self.si in self.order else 0
        self.go_to_source(self.order[k])

    def leave(self) -> None:
        """The current sentence is left (or the screen closed): its time and draft are kept."""
        if self.si is None:
            return
        self.elapsed[self.si] = self.seconds_on(self.si)
        self._shown_at = self._clock()
        if self.boards:
            self.drafts[self.si] = [b.ranks() for b in self.boards]

    def seconds_on(self, si: int) -> float:
        """Seconds spent on sentence ``si`` so far (all visits)."""
        spent = self.elapsed.get(si, 0.0)
        if si == self.si:
            spent += self._clock() - self._shown_at
        return spent

    def go_to_source(self, si: int, keep_draft: bool = True, placed: Placed | None = None) -> None:
        """Show sentence ``si``: with ``placed`` if given, else its draft (where the judge
        left it; not with ``keep_draft=False``), else the judge's stored ranks."""
        if si == self.si and self.boards and placed is None and keep_draft:
            return
        self.leave()
        self.si = si
        self._shown_at = self._clock()
        draft = self.drafts.pop(si, None)
        if placed is None and keep_draft:
            placed = draft
        self.boards = self.tasks.boards(si, placed)
        self.cursor = None
        self.shown.emit(si)
        first = next(((k, c) for k, b in enumerate(self.boards) for c in b.unplaced()),
                     (0, 0) if self.boards and self.boards[0].n else None)
        if first is not None:
            self.set_cursor(*first)

    # ------------------------------------------------------------ cursor and placing
    def cursor_order(self) -> list[tuple[int, int]]:
        return [(k, c) for k, b in enumerate(self.boards) for c in range(b.n)]

    def set_cursor(self, k: int, c: int) -> None:
        if not (0 <= k < len(self.boards) and 0 <= c < self.boards[k].n):
            return
        self.cursor = (k, c)
        self.cursor_moved.emit(k, c)

    def move_cursor(self, delta: int) -> None:
        order = self.cursor_order()
        if not order:
            return
        k = order.index(self.cursor) + delta if self.cursor in order else 0
        self.set_cursor(*order[max(0, min(len(order) - 1, k))])

    def place(self, k: int, c: int, rank: int | None) -> bool:
        """Move candidate ``c`` of board ``k`` to ``rank`` (None: not placed) as one step of
        the session's history; False if it is there already or cannot go there."""
        if self.si is None or not 0 <= k < len(self.boards):
            return False
        board = self.boards[k]
        if not board.valid(c, rank) or board.rank_of(c) == rank:
            return False
        si, old = self.si, board.rank_of(c)
        self._place_now(si, k, c, rank)
        self.history.step(f"rank {rank or '-'} (sentence {self.order.index(si) + 1 if si in self.order else si + 1})",
                          lambda: self._place_now(si, k, c, old),
                          lambda: self._place_now(si, k, c, rank))
        return True

    def _place_now(self, si: int, k: int, c: int, rank: int | None) -> None:
        if si != self.si:
            self.go_to_source(si)
        self.boards[k].place(c, rank)
        self.set_cursor(k, c)
        self.message.emit("")

    def rank_current(self, rank: int | None, advance: bool = True) -> bool:
        """Give the candidate under the cursor ``rank``; with ``advance`` the cursor moves on.
        False (and a message) for a rank the board does not have."""
        if self.cursor is None:
            return False
        k, c = self.cursor
        board = self.boards[k]
        if rank is not None and not 1 <= rank <= board.max_rank:
            self.message.emit(f"{rank} is not a rank here (1 to {board.max_rank}).")
            return False
        self.place(k, c, rank)
        if advance:
            self.advance_cursor()
        return True

    def advance_cursor(self) -> None:
        """After a placement: on to the next candidate not placed yet (in reading order,
        wrapping round), so the next key never re-ranks the one just placed; with every
        candidate placed, one step on."""
        order = self.cursor_order()
        if not order or self.cursor not in order:
            self.move_cursor(1)
            return
        i = order.index(self.cursor)
        for k, c in order[i + 1:] + order[:i]:
            if self.boards[k].rank_of(c) is None:
                self.set_cursor(k, c)
                return
        self.move_cursor(1)

    def better_or_worse(self, delta: int) -> bool:
        """One rank better (``delta`` -1; an unplaced candidate stays so) or worse (+1)."""
        if self.cursor is None:
            return False
        k, c = self.cursor
        board = self.boards[k]
        r = board.rank_of(c)
        new = (None if r is None else max(1, r - 1)) if delta < 0 \
            else min(board.max_rank, (r or 0) + 1)
        return new is not None and self.rank_current(new, advance=False)

    # ------------------------------------------------------------ submitting
    def missing(self) -> list[tuple[int, int]]:
        """(board, candidate) of every candidate not placed yet."""
        return [(k, c) for k, b in enumerate(self.boards) for c in b.unplaced()]

    def submit(self) -> bool:
        """Store the sentence (journal first) as one step of the history -- refused, with a
        message and the cursor on the first candidate not placed, while one is not placed.
        A journal that cannot be written (:class:`OSError`) propagates with nothing
        stored; a change the database refuses is a message."""
        if self.si is None or not self.boards:
            return False
        miss = self.missing()
        if miss:
            k, c = miss[0]
            what = ", ".join(f"“{self.boards[k2].labels[c2][:40]}”" for k2, c2 in miss[:3])
            self.message.emit(f"<b>Not submitted:</b> {len(miss)} candidate(s) not placed yet "
                              f"({html.escape(what)}{' …' if len(miss) > 3 else ''}).")
            self.set_cursor(k, c)
            return False
        si = self.si
        placed: Placed = [b.ranks() for b in self.boards]
        task = self.task_ids.get(si)
        if task is None:
            from evaltrans_qt.engine.human.segranks.sessions import new_task_id
            task = self.task_ids[si] = new_task_id()
        seconds = round(self.seconds_on(si), 1)
        try:
            change = self.tasks.change(si, cast("list[list[int]]", placed), task, seconds)

            def follow(_changes: list[Change], undone: bool) -> None:
                self.stored.emit(si)
                if undone:
                    self.go_to_source(si, placed=[list(r) for r in placed])
                else:
                    self._after_submit(si)

            self.history.commit(change, f"submit sentence {self.order.index(si) + 1}", follow)
        except (EvalTransError, LookupError) as exc:
            self.message.emit(f"<b>Not submitted:</b> {html.escape(str(exc))}")
            return False
        self.elapsed[si] = 0.0
        self._shown_at = self._clock()
        self.stored.emit(si)
        self._after_submit(si)
        return True

    def _after_submit(self, si: int) -> None:
        self.drafts.pop(si, None)
        nxt = self.next_todo(si)
        if nxt is None:
            self.go_to_source(si, keep_draft=False)
            self.message.emit("Submitted. Every sentence is ranked — thank you.")
        else:
            self.go_to_source(nxt, keep_draft=True)
            self.message.emit(f"Submitted sentence {self.order.index(si) + 1}.")


__all__ = ["RankingSessionModel", "RankingTasks", "SentenceRanking", "SegmentRanking", "Board",
           "Placed", "judge_tasks", "highlighted_source", "SENTENCES", "SEGMENTS", "DEFAULT_N"]
