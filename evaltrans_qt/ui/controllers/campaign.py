"""The Campaign menu and annotator mode (``docs/campaigns.md``).

* **Campaign menu** -- Create…, Bundle…, Collect… (the forms of
  :mod:`evaltrans_qt.ui.campaign_dialogs`; the engine's functions run on a worker,
  :mod:`evaltrans_qt.ui.workers`), QC report and Agreement of the open result database
  (computed on a worker from a copy made when the action starts --
  :func:`~evaltrans_qt.engine.data.judgement_copy.judgement_copy` -- so that scoring
  meanwhile neither races with nor changes the report; shown as tables:
  :mod:`evaltrans_qt.ui.campaign_tables`), and
  Adjudicate… (:class:`~evaltrans_qt.ui.adjudication_screen.AdjudicationScreen` over the
  Qt-free :class:`~evaltrans_qt.adjudication_session.AdjudicationSession`). Errors are
  shown the product's way (:func:`evaltrans_qt.ui.errors.show_error`).
* **Annotator mode** -- the Qt-free :class:`~evaltrans_qt.campaign_mode.AnnotatorMode`
  says when the open database is an annotator's bundle; this controller then shows only
  the :class:`~evaltrans_qt.ui.annotator_view.AnnotatorView` (instructions, practice,
  the work: the scoring panel of a scoring session, the span screen, or the post-edit
  editor / item-marking panel stepping through the bundle -- without system names), the
  progress in the status bar (``annotatorProgress``) and one menu
  (``annotatorMenu``: the pages, undo/redo, save, quit); every other menu, toolbar, panel
  and action is hidden or disabled until another database is opened.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMessageBox, QToolBar, QWidget

from evaltrans_qt.campaign_mode import RANKING, SCORING, SPANS, AnnotatorMode
from evaltrans_qt.errors import EvalTransError, SaveError
from evaltrans_qt.ui import errors
from evaltrans_qt.ui.controllers.actions import make_action
from evaltrans_qt.ui.observe import observe
from evaltrans_qt.ui.workers import Worker, handle_errors, launch, start_worker


@dataclass
class _Chrome:
    """What annotator mode hid or disabled, to be given back when it ends."""

    central: QWidget
    docks: dict[str, bool]
    bars: list[QToolBar]
    #: the status bar's own widgets (counts of sources, systems…)
    status: list[QWidget] = field(default_factory=list)
    disabled: list[QAction] = field(default_factory=list)


class CampaignController(QObject):
    """The Campaign menu and annotator mode of the window (module doc)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.workspace = ws = window.workspace
        self.mode = AnnotatorMode(ws)
        self.view: Any = None                 # the AnnotatorView while in annotator mode
        #: Post-edit / item-marking bundles: the page, the positions, the one shown, since.
        self.pages: Any = None                # ProtocolPages of a post-edit/items bundle
        self.ranking_screen: Any = None     # a ranking bundle's screen
        self.adjudication: Any = None         # the open AdjudicationScreen
        self.last_dialog: Any = None
        self.last_report: Any = None
        self.last_box: QMessageBox | None = None
        self.worker: Worker | None = None
        self.campaign_path: Path | None = None
        self._chrome: _Chrome | None = None
        self._holder = QWidget(window)        # keeps the compare view while it is not shown
        self._holder.hide()
        self._build_menus()
        self.progress_label = QLabel()
        self.progress_label.setObjectName("annotatorProgress")
        window.statusBar().addPermanentWidget(self.progress_label)
        self.progress_label.hide()
        observe(self, self.mode.changed, self._mode_changed)
        observe(self, self.mode.progress_changed, self._progress)
        window.installEventFilter(self)

    # ================================================================ menus
    def _build_menus(self) -> None:
        w = self.window

        def a(text: str, key: str, slot, tip: str) -> QAction:
            return make_action(w, text, key, slot, tip)
        self.act_create = a("&Create campaign…", "Ctrl+Alt+Shift+C", self.create,
                            "Define a campaign over a database: protocol, annotators, redundancy")
        self.act_bundle = a("&Bundle…", "Ctrl+Alt+Shift+B", self.bundle,
                            "Write one bundle file per annotator")
        self.act_collect = a("C&ollect…", "Ctrl+Alt+Shift+O", self.collect,
                             "Check the returned bundles and merge them into the result")
        self.act_qc = a("&QC report", "Ctrl+Alt+Shift+Q", self.qc_report,
                        "Quality control per annotator of the open campaign result")
        self.act_agreement = a("&Agreement", "Ctrl+Alt+Shift+G", self.agreement,
                               "Krippendorff's alpha, kappa, pairs of judges, error spans")
        self.act_adjudicate = a("A&djudicate…", "Ctrl+Alt+Shift+J", lambda: self.adjudicate(),
                                "Decide the items where the annotators disagree")
        self.actions = [self.act_create, self.act_bundle, self.act_collect, self.act_qc,
                        self.act_agreement, self.act_adjudicate]
        mb = w.menuBar()
        self.menu = mb.addMenu("&Campaign")
        self.menu.setObjectName("campaignMenu")
        mb.insertMenu(w.help_menu.menuAction(), self.menu)
        self.menu.addActions(self.actions[:3])
        self.menu.addSeparator()
        self.menu.addActions(self.actions[3:])
        # annotator mode's one menu
        self.act_instructions = a("&Instructions", "F2", lambda: self._page("instructions"),
                                  "The coordinator's instructions")
        self.act_practice = a("&Practice items", "F3", lambda: self._page("practice"),
                              "Practice items with known answers")
        self.act_work = a("&Work", "F4", lambda: self._page("work"), "The items to judge")
        self.annotator_menu = mb.addMenu("&Annotation")
        self.annotator_menu.setObjectName("annotatorMenu")
        m = self.annotator_menu
        m.addActions([self.act_instructions, self.act_practice, self.act_work])
        m.addSeparator()
        m.addActions([w.scoring.act_undo, w.scoring.act_redo])
        m.addSeparator()
        m.addActions([w.files.act_save, w.files.act_quit])
        m.menuAction().setVisible(False)

    # ================================================================ running engine work
    def _run(self, job, done, what: str) -> Worker | None:
        """``job()`` on a worker; ``done(result)`` on the UI thread; errors shown."""
        bar = self.window.statusBar()
        bar.showMessage(f"{what} …")
        wk = start_worker(job, _start=False)
        wk.signals.finished.connect(lambda _r: bar.showMessage(f"{what}: done", 5000))
        wk.signals.finished.connect(done)

        def failed(exc: BaseException) -> None:
            bar.showMessage(f"{what}: failed", 8000)
            errors.show_error(exc, self.window)
        handle_errors(wk, failed)
        self.worker = wk
        launch(wk)
        return wk

    def _form(self, dlg, done, what: str) -> Any:
        """Open the form ``dlg``; accepted: its job runs (a wrong field: the error)."""
        self.last_dialog = dlg

        def go() -> None:
            try:
                job = dlg.job()
            except EvalTransError as exc:
                errors.show_error(exc, self.window)
                return
            self._run(job, done, what)
        dlg.accepted.connect(go)
        dlg.open()
        return dlg

    def _tell(self, title: str, text: str, detail: str = "") -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self.window)
        box.setObjectName("campaignMessage")
        if detail:
            box.setInformativeText(detail)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_box = box
        box.open()
        if errors.auto_close_ms:
            QTimer.singleShot(errors.auto_close_ms, box.close)
        return box

    # ================================================================ the Campaign menu
    def create(self) -> Any:
        from evaltrans_qt.ui.campaign_dialogs import CreateDialog
        dlg = CreateDialog(self.workspace.path, self.window)

        def done(d) -> None:
            self.last_report = d
            self.campaign_path = Path(dlg.output.text().strip())
            self._tell("Campaign created",
                       f"Campaign {d.campaign_id}: {len(d.items)} items of "
                       f"{len(d.systems)} systems, {len(d.annotators)} annotators, "
                       f"redundancy {d.redundancy}.",
                       f"Saved as {self.campaign_path}. Next: Campaign → Bundle…")
            self.window.statusBar().showMessage(f"Campaign saved as {self.campaign_path}", 8000)
        return self._form(dlg, done, "Creating the campaign")

    def bundle(self) -> Any:
        from evaltrans_qt.ui.campaign_dialogs import BundleDialog
        dlg = BundleDialog(self.campaign_path, self.window)

        def done(paths: list[Path]) -> None:
            self.last_report = paths
            self.campaign_path = Path(dlg.campaign.path())
            folder = paths[0].parent if paths else dlg.folder.path()
            self._tell("Bundles written", f"{len(paths)} bundle(s) written to {folder}.",
                       "\n".join(p.name for p in paths))
        return self._form(dlg, done, "Writing the bundles")

    def collect(self) -> Any:
        from evaltrans_qt.ui.campaign_dialogs import CollectDialog
        dlg = CollectDialog(self.campaign_path, self.window)

        def done(report) -> None:
            self.last_report = report
            result = Path(dlg.result_path.text().strip())
            lines = [f"{r.path.name}: {r.annotator}, "
                     f"{sum(j.kind == 'real' for j in r.judged)} items judged"
                     for r in report.merged]
            box = self._tell("Bundles collected",
                             f"{report.judgements} judgement(s) stored in {result}.",
                             "\n".join(lines + [f"Warning: {x}" for x in report.warnings]))
            open_it = box.addButton("Open the result", QMessageBox.ButtonRole.AcceptRole)
            open_it.clicked.connect(lambda: self.window.open_database(result))
        return self._form(dlg, done, "Collecting the bundles")

    def _database(self) -> Any:
        db = self.workspace.database
        if db is None:
            self.window.statusBar().showMessage("Open a campaign's result database first.", 5000)
        return db

    def qc_report(self) -> Worker | None:
        from evaltrans_qt.engine.data.judgement_copy import judgement_copy
        from evaltrans_qt.io.campaign_qc import qc_report
        from evaltrans_qt.ui.campaign_tables import qc_dialog
        db = self._database()
        if db is None:
            return None

        def done(report) -> None:
            self.last_report = report
            dlg = qc_dialog(report, self.window)
            dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.last_dialog = dlg
            dlg.open()
        path, snap = self.workspace.path, judgement_copy(db, sources=False)   # module doc
        return self._run(lambda: qc_report(snap, path), done, "Quality control")

    def agreement(self) -> Worker | None:
        from evaltrans_qt.engine.campaign.agreement import campaign_agreement
        from evaltrans_qt.engine.data.judgement_copy import judgement_copy
        from evaltrans_qt.io.gcpause import paused_gc
        from evaltrans_qt.ui.campaign_tables import agreement_dialog
        from evaltrans_qt.ui.controllers.results import freeze_long_lived
        db = self._database()
        if db is None:
            return None

        def done(report) -> None:
            self.last_report = report
            dlg = agreement_dialog(report, self.window)
            dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.last_dialog = dlg
            dlg.open()
        with paused_gc():           # module doc; 60-95 ms for a result of 21,042 candidates
            snap = judgement_copy(db)
            freeze_long_lived()     # else the collector traverses the new objects at once
        return self._run(lambda: campaign_agreement(snap), done, "Agreement")

    def adjudicate(self, threshold: float | None = None) -> Any:
        """Open the adjudication screen over the open database (its file holds the
        journal of the final judgements)."""
        from evaltrans_qt.adjudication_session import AdjudicationSession
        from evaltrans_qt.engine.campaign.adjudication import DEFAULT_THRESHOLD
        from evaltrans_qt.ui.adjudication_screen import AdjudicationScreen
        w, ws = self.window, self.workspace
        if self._database() is None:
            return None
        if ws.path is None:
            w.files.save_as(wait=True)
            if ws.path is None:
                return None
        why = ws.read_only_reason()
        if why is not None:
            errors.show_error(SaveError(why, ws.path), w)
            return None
        try:
            session = AdjudicationSession(ws, DEFAULT_THRESHOLD if threshold is None
                                          else threshold)
        except EvalTransError as exc:
            errors.show_error(exc, w)
            return None
        if not len(session):
            self._tell("Nothing to adjudicate", "The annotators disagree nowhere beyond the "
                       f"threshold ({session.threshold:g} of a scale; spans found by all).")
            return None
        if self.adjudication is not None:
            with contextlib.suppress(RuntimeError):
                self.adjudication.close()
        screen = AdjudicationScreen(session, w)
        screen.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        observe(screen, ws.database_changed, lambda *_a: screen.close())
        self.adjudication = screen
        screen.show()
        screen.raise_()
        screen.activateWindow()
        return screen

    # ================================================================ annotator mode
    def _mode_changed(self, _active: bool) -> None:
        # after the window and its layout have reacted to the new database
        QTimer.singleShot(0, self.apply_mode)

    def apply_mode(self) -> None:
        """Enter annotator mode for the open bundle, or leave it (module doc)."""
        self._leave()
        if self.mode.error is not None:
            errors.show_error(self.mode.error, self.window)
        if self.mode.active:
            self._enter()

    def _enter(self) -> None:
        from evaltrans_qt.ui.annotator_view import AnnotatorView
        w = self.window
        central = w.takeCentralWidget()
        central.setParent(self._holder)
        self._chrome = c = _Chrome(central, {t: d.isVisible() for t, d in w.panels.items()},
                                   [b for b in w.findChildren(QToolBar) if b.isVisible()])
        bar = w.statusBar()
        c.status = [x for x in bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                    if x.isVisible() and x is not self.progress_label]
        self.view = view = AnnotatorView(self.mode)
        w.setCentralWidget(view)
        self._start_work(view)
        self._show_chrome(False)
        keep = {self.act_instructions, self.act_practice, self.act_work, w.files.act_save,
                w.files.act_quit, w.scoring.act_undo, w.scoring.act_redo}
        rs = self.ranking_screen
        if rs is not None:          # its own undo (placements and submits), not the window's
            keep -= {w.scoring.act_undo, w.scoring.act_redo}
            keep |= {rs.act_undo, rs.act_redo}
        if w.session is not None:
            keep.update(a for a in w.scoring.session_actions if a is not w.scoring.act_identical
                        and a is not w.scoring.act_end_session)
        for act in w.findChildren(QAction):
            if act not in keep and act.isEnabled() and not act.menu():
                act.setEnabled(False)
                c.disabled.append(act)
        self.act_practice.setEnabled(view.practice is not None)
        self.progress_label.setText(self.mode.status_text())
        self.progress_label.show()
        p = self.mode.progress()
        if p.done:
            view.show_work()
        w.statusBar().showMessage(f"Annotator {self.mode.annotator}: {p.text}", 8000)

    def _start_work(self, view) -> None:
        w, ws, mode = self.window, self.workspace, self.mode
        info = mode.info
        assert info is not None
        if mode.screen == SCORING:
            s = w.start_session(info.annotator, list(info.classes))
            if s is None:
                return
            panel = w.scoring.score_panel
            panel.show_system = False
            panel.buttons["identical"].hide()    # QC repeats must be judged afresh
            view.work.set_judging(panel, texts=True)
            observe(view, s.currentChanged, lambda _k: self._show_texts())
            self._show_texts()
            panel.refresh()
        elif mode.screen == SPANS:
            from evaltrans_qt.span_session import SpanSessionModel, all_candidates
            from evaltrans_qt.ui.annotator_view import AnnotatorSpanScreen
            try:
                model = SpanSessionModel(ws, info.annotator, protocol=info.protocol,
                                         items=all_candidates(ws.database))
                screen = AnnotatorSpanScreen(model)
            except EvalTransError as exc:
                errors.show_error(exc, w)
                return
            view.work.set_judging(screen, texts=False)
            todo = next((i for i in range(len(model.items)) if not model.done(i)), 0)
            model.go(todo)
        elif mode.screen == RANKING:
            self._start_ranking(view)
        else:
            self._start_protocol(view)

    def _start_ranking(self, view) -> None:
        """The whole-sentence ranking screen over the bundle's positions (one screen each:
        all its candidates, so ``n`` is the largest position)."""
        from evaltrans_qt.ui.annotator_view import annotator_ranking_screen
        w, ws, info = self.window, self.workspace, self.mode.info
        assert info is not None and ws.database is not None
        why = ws.read_only_reason()
        if why is not None:
            errors.show_error(SaveError(why, ws.path), w)
            return
        is_ref = ws.database.reference_test()
        n = max((sum(not is_ref(t) for t in src.targets) for src in ws.database.sources),
                default=2)
        screen = annotator_ranking_screen(ws, info.annotator, max(2, n))
        view.work.set_judging(screen, texts=False)
        self.ranking_screen = screen

    @property
    def protocol_page(self) -> Any:
        """The post-edit or item-marking page shown (None for other protocols)."""
        return None if self.pages is None else self.pages.page

    def _start_protocol(self, view) -> None:
        """Post-edits and information items: the product's panels over the bundle's
        positions (:class:`~evaltrans_qt.ui.controllers.annotator_protocols.ProtocolPages`)."""
        from evaltrans_qt.ui.controllers.annotator_protocols import ProtocolPages
        self.pages = ProtocolPages(self)
        self.pages.start(view)

    def _show_texts(self) -> None:
        s, view = self.window.session, self.view
        if s is None or view is None or s.current is None:
            return
        db = self.workspace.database
        src = db.sources[s.current[0]]
        is_ref = db.reference_test()
        refs = [t.text for t in src.targets if is_ref(t)] if self.mode.protocol.references else []
        view.work.set_texts(src.text, refs)

    def _show_chrome(self, on: bool) -> None:
        """Menus, toolbars and panels shown as before annotator mode (``on``) or hidden."""
        w, c = self.window, self._chrome
        if c is None:
            return
        for m in (w.file_menu, w.edit_menu, w.view_menu, w.session_menu, w.evaluate_menu,
                  w.help_menu, self.menu):
            m.menuAction().setVisible(on)
        self.annotator_menu.menuAction().setVisible(not on)
        for b in [*c.bars, *c.status]:
            b.setVisible(on)
        for title, dock in w.panels.items():
            dock.setVisible(on and c.docks.get(title, False))

    def _leave(self) -> None:
        w, c, view = self.window, self._chrome, self.view
        if c is None:
            return
        self._show_chrome(True)
        self._chrome, self.view, self.pages = None, None, None
        self.ranking_screen = None
        judging = view.work.take_judging()
        panel = w.scoring.score_panel
        if w.session is not None:
            w.end_session()
        if judging is panel:
            panel.show_system = True
            panel.buttons["identical"].show()
            w.panels["Scoring"].setWidget(panel)
        elif judging is not None:
            judging.deleteLater()
        w.takeCentralWidget()
        view.deleteLater()
        w.setCentralWidget(c.central)
        for act in c.disabled:
            with contextlib.suppress(RuntimeError):     # menus rebuilt meanwhile (recent files)
                act.setEnabled(True)
        self.progress_label.hide()
        w.window_layout.layout_for_content()

    def _progress(self, text: str) -> None:
        self.progress_label.setText(text)

    def _page(self, which: str) -> None:
        view = self.view
        if view is None:
            return
        page = {"instructions": view.instructions, "practice": view.practice,
                "work": view.work}[which]
        if page is not None:
            view.setCurrentWidget(page)

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:
        """Closing in annotator mode: the layout stored is the window's own, not the mode's;
        a window that closes takes its adjudication screen and open reports with it (else
        they would outlive it and keep the application running)."""
        if obj is self.window and ev.type() == QEvent.Type.Close:
            if self._chrome is not None:
                self._show_chrome(True)
            QTimer.singleShot(0, self._after_close)
        return False

    def _after_close(self) -> None:
        if self.window.isVisible():                      # the close was cancelled
            if self._chrome is not None:
                self._show_chrome(False)
            return
        for other in (self.adjudication, self.last_dialog):
            if other is not None:
                with contextlib.suppress(RuntimeError):  # already closed and deleted
                    other.close()


__all__ = ["CampaignController"]
