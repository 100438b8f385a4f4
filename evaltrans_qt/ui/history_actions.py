"""Undo and redo actions over a Qt-free :class:`~evaltrans_qt.history.History`.

:func:`undo_actions` gives a window (or a ranking screen) its Edit → Undo / Redo: their
text names the step (``Undo fluency = 4 (item 3)``), they are enabled while there is a
step to undo or redo, and triggering one calls :meth:`History.undo` /
:meth:`History.redo`. A step that cannot be undone or redone (the journal cannot be
written, the database refuses the change) is shown as an error; the history stays where
it was.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence

from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.history import History
from evaltrans_qt.ui.observe import observe


def run_step(history: History, redo: bool, parent=None) -> bool:
    """Undo (or redo) one step of ``history``; an error is shown. False if nothing was
    done."""
    from evaltrans_qt.ui import errors
    try:
        return (history.redo() if redo else history.undo()) is not None
    except OSError as exc:
        ws = history.workspace
        journal = ws.journal if ws is not None else None
        errors.show_error(SaveError(f"{'redo' if redo else 'undo'} not recorded: the journal "
                                    f"cannot be written ({exc.strerror or exc})",
                                    journal.path if journal is not None else None), parent)
    except (EvalTransError, LookupError) as exc:
        errors.show_error(exc if isinstance(exc, EvalTransError) else EvalTransError(str(exc)),
                          parent)
    return False


def undo_actions(owner: QObject, history: History,
                 names: tuple[str, str] = ("action_undo", "action_redo")) -> tuple[QAction, QAction]:
    """``(undo, redo)`` actions of ``owner`` over ``history`` (module doc): Ctrl+Z, and
    Ctrl+Shift+Z / Ctrl+Y; object names ``names``. They follow the history for as long
    as ``owner`` lives."""
    undo = QAction("&Undo", owner)
    undo.setShortcut(QKeySequence("Ctrl+Z"))
    redo = QAction("&Redo", owner)
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    undo.setObjectName(names[0])
    redo.setObjectName(names[1])
    parent = owner if owner.isWidgetType() else None
    undo.triggered.connect(lambda _c=False: run_step(history, False, parent))
    redo.triggered.connect(lambda _c=False: run_step(history, True, parent))

    def update() -> None:
        undo.setEnabled(history.can_undo)
        redo.setEnabled(history.can_redo)
        undo.setText(f"&Undo {history.undo_text}".rstrip())
        redo.setText(f"&Redo {history.redo_text}".rstrip())

    update()
    observe(owner, history.changed, update)
    return undo, redo


__all__ = ["undo_actions", "run_step"]
