"""Session → Protocols → MQM… / ESA…: the setup (judge, system for the document-level
order, a machine judge whose spans are suggestions) and the one open
:class:`~evaltrans_qt.ui.span_screen.SpanScreen`.

"Suggestions from" lists the machines first -- the judges of annotations of origin
``machine`` (imported xCOMET/GEMBA-MQM spans, ``spans --suggest``), marked "(machine)" --
and the first of them is chosen already, so that pre-filled spans show without a choice
to make; then the human judges, whose marks can be shown as suggestions too."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLineEdit

from evaltrans_qt.engine.human.spans.model import is_judgement
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.span_session import SpanSessionModel, all_candidates, document_order
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.controllers.actions import make_action
from evaltrans_qt.ui.span_screen import SpanScreen, named

ALL = "all systems, source by source"
NONE = "none"


class SpanSetupDialog(QDialog):
    """Judge, the candidates (one system's, document by document, or all) and the
    judge whose spans are shown as suggestions."""

    def __init__(self, protocol: str, judge: str, systems: list[str], judges: list[str],
                 parent=None, machines: list[str] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("spanSetupDialog")
        self.setWindowTitle(f"{protocol.upper()} annotation")
        form = QFormLayout(self)
        self.judge = named(QLineEdit(judge), "judgeName")
        self.judge.setPlaceholderText("your name or initials")
        form.addRow("Judge:", self.judge)
        self.system = named(QComboBox(), "spanSystem")
        self.system.addItems([ALL, *systems])
        self.system.setToolTip("One system's translations document by document (document-level "
                               "mode), or every translation")
        form.addRow("Translations:", self.system)
        self.machine = named(QComboBox(), "spanMachine")
        self.machine.addItem(NONE, None)
        for name in machines or []:
            self.machine.addItem(f"{name} (machine)", name)
        for name in judges:
            self.machine.addItem(name, name)
        if machines:
            self.machine.setCurrentIndex(1)
        self.machine.setToolTip("Show these spans (a machine's, e.g. imported xCOMET spans, "
                                "or a judge's) as suggestions to accept (A) or reject (R)")
        form.addRow("Suggestions from:", self.machine)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class SpansController(QObject):
    """The MQM and ESA actions and the open annotation screen (module doc)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.workspace = window.workspace
        self.screen: SpanScreen | None = None
        self.last_dialog: SpanSetupDialog | None = None
        self.act_mqm = make_action(window, "Annotate errors (&MQM)…", "Ctrl+Alt+M",
                                   lambda: self.open_screen("mqm"),
                                   "Mark error spans with a category and a severity (MQM)")
        self.act_esa = make_action(window, "Annotate errors and score (&ESA)…", "Ctrl+Alt+U",
                                   lambda: self.open_screen("esa"),
                                   "Mark minor/major error spans, then a 0-100 score (ESA)")
        self.actions = [self.act_mqm, self.act_esa]
        menu = window.protocol_modes.menu
        menu.addSeparator()
        menu.addActions(self.actions)

    def open_screen(self, protocol: str, judge: str | None = None, system: str | None = None,
                    machine_judge: str | None = None) -> SpanScreen | None:
        """Ask the judge (unless given), make sure the journal can be written, open the
        screen of ``protocol`` ("mqm", "esa")."""
        w, ws = self.window, self.workspace
        db = ws.database
        if db is None:
            return None
        if judge is None:
            anns = [a for _s, t in db.iter_candidates() for a in t.span_annotations if a.judge]
            machines = sorted({str(a.judge) for a in anns if a.origin == "machine"})
            judges = sorted({str(a.judge) for a in anns if a.origin == "human"})
            dlg = SpanSetupDialog(protocol, str(w.settings.value("session/judge", "")),
                                  db.systems(), judges, w, machines)
            self.last_dialog = dlg
            if dlg.exec() != QDialog.DialogCode.Accepted:
                return None
            judge = dlg.judge.text().strip()
            system = None if dlg.system.currentText() == ALL else dlg.system.currentText()
            machine_judge = dlg.machine.currentData()
            if w.persist_settings:
                w.settings.setValue("session/judge", judge)
        if ws.path is None:
            w.files.save_as(wait=True)
            if ws.path is None:
                return None
        why = ws.read_only_reason()
        if why is not None:
            errors.show_error(SaveError(why, ws.path), w)
            return None
        if self.screen is not None:
            try:
                self.screen.close()
            except RuntimeError:
                pass
        try:
            items = document_order(db, system) if system else all_candidates(db)
            model = SpanSessionModel(ws, judge or None, protocol=protocol, items=items)
            if machine_judge:
                model.use_suggestions(machine_judge)
            screen = SpanScreen(model, parent=w)
        except EvalTransError as exc:
            errors.show_error(exc, w)
            return None
        screen.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        from evaltrans_qt.ui.observe import observe
        observe(screen, ws.database_changed, lambda *_a: screen.close())
        self.screen = screen
        screen.show()
        screen.raise_()
        screen.activateWindow()
        return screen

    def screenshot_view(self, protocol: str, size: str) -> None:
        """``evaltrans-qt --screenshot --view mqm|esa``: the screen of ``size`` ("WxH") on
        the candidate the most errors were marked in under ``protocol`` (by the human judge
        who marked the most errors), its first error selected; nothing is committed."""
        db = self.workspace.database
        if db is None:
            return
        best: tuple[int, str | None, str | None] = (-1, None, None)
        for _s, t in db.iter_candidates():
            for a in t.span_annotations:
                if is_judgement(a, protocol) and len(a.errors) > best[0]:
                    best = (len(a.errors), a.judge, t.system)
        _n, judge, system = best
        screen = self.open_screen(protocol, judge=judge or "judge", system=system)
        if screen is None:
            return
        m = screen.model
        k = max(range(len(m.items)), key=lambda i: (len(m.errors(i)), -i))
        m.go(k)
        if m.errors():
            screen.select_error(0)
        w, _x, h = size.partition("x")
        screen.resize(int(w), int(h))


__all__ = ["SpansController", "SpanSetupDialog"]
