"""``evaltrans-qt [FILE] [--screenshot OUT.png] [--view VIEW] [--size WxH]`` — the entry point.

With no FILE the demo database opens (a working copy in the data directory).
``--screenshot`` renders the main window to a PNG once the database is shown
(and the compare view has drawn its alignment) and exits; ``--view`` prepares
what the screenshot shows: ``compare`` (CDER blocks, the source with the most
blocks), ``scoring`` (a scoring session) or ``results`` (runs the default
measures, waits for them, and shows the results view with its correlation plot),
``postedit`` or ``items`` (a scoring session in the post-edit or the item-marking mode,
on the first candidate with items; nothing is stored).
``--view ranking`` shows the short-segment ranking screen (Macháček §2.2) instead of the
main window (whole sentences when the database has no extracted segments), some
candidates placed, nothing submitted; ``--view ranking-sentences`` the whole-sentence
ranking screen. ``--view mqm`` / ``--view esa`` the error-span annotation screen on a
candidate of the demo's judgements (nothing stored). ``--view metrics`` and ``--view unseen`` run the
measures and show the results view's Metrics or Unseen systems tab; ``--tab TITLE`` with
``--view results`` shows the results tab whose title begins with TITLE (``systems``,
``significance`` -- computed for the first measure --, ``ranking``, ``histogram`` ...;
``analysis/word`` the Analysis tab's page whose title begins with ``word``).
``--size WxH`` (default 1366x768, a laptop screen) is the window size of the
screenshot; under ``QT_QPA_PLATFORM=offscreen`` the virtual screen gets that size
too, so the window lays itself out as on such a screen.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

#: How long ``main`` waits at exit for background workers to end (milliseconds).
SHUTDOWN_WAIT_MS = 300_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="evaltrans-qt", description="Evaluate machine translation: browse, "
                                "compare, score, and study measures against human judgements.")
    p.add_argument("file", nargs="?", help="EvalTrans database (.etdb.xml); default: the demo database")
    p.add_argument("--screenshot", metavar="OUT.png", help="render the main window to a PNG and exit")
    p.add_argument("--view", choices=("browse", "compare", "scoring", "results", "ranking",
                                      "ranking-sentences", "postedit", "items", "metrics", "unseen",
                                      "mqm", "esa"),
                   default="browse", help="what to show for --screenshot (default: browse)")
    p.add_argument("--tab", default=None, metavar="TITLE",
                   help="with --view results: the results tab shown (its title's beginning, "
                        "e.g. systems, significance, histogram; default: correlation); "
                        "TAB/PAGE also a page of that tab (e.g. analysis/examples)")
    p.add_argument("--measure", default=None, help="measure shown in the compare view (e.g. cder)")
    p.add_argument("--size", default="1366x768", type=_size,
                   help="window (and, offscreen, screen) size for --screenshot, WxH (default 1366x768)")
    return p.parse_args(argv)


def _size(text: str) -> str:
    w, x, h = text.lower().partition("x")
    if not (x and w.isdigit() and h.isdigit() and int(w) >= 200 and int(h) >= 200):
        raise argparse.ArgumentTypeError(f"--size: expected WxH in pixels (e.g. 1366x768), got {text!r}")
    return f"{int(w)}x{int(h)}"


def _offscreen_screen(size: str) -> None:
    """Under the offscreen platform, give the virtual screen the screenshot's size (Qt's
    offscreen ``configfile`` option), so the default layout is the one of such a screen."""
    import json
    import os
    import tempfile
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform != "offscreen":
        return
    w, _x, h = size.partition("x")
    cfg = {"synchronousWindowSystemEvents": False, "windowFrameMargins": False,
           "screens": [{"name": "screenshot", "x": 0, "y": 0, "width": int(w), "height": int(h),
                        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}
    fd, path = tempfile.mkstemp(prefix="evaltrans-qt-screen.", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(cfg, f)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={path}"


def _best_block_pair(window, measure: str) -> tuple[int, int] | None:
    """The (source, candidate) among the first sources with the most blocks of ``measure`` (screenshots)."""
    from evaltrans_qt.ui.compare_view import compute_comparison
    db = window.database
    best, best_key = None, None
    for i, src in enumerate(db.sources[:30]):  # a screenshot needs a good example, not the best one
        refs = db.references(src)
        if not refs:
            continue
        for j, t in enumerate(src.targets):
            if db.is_reference(t):
                continue
            try:
                c = compute_comparison(measure, t.text, [r.text for r in refs],
                                       [r.system or "" for r in refs], window.options)
            except Exception:
                continue
            n_words = len(c.hyp)
            key = (len(c.blocks), -abs(n_words - 14))
            if c.blocks and (best_key is None or key > best_key):
                best, best_key = (i, j), key
    return best


#: Panels of this part of the application; others are hidden in screenshots.
OWN_PANELS = ("Sources", "Translations", "Scoring", "Similar scored translations")


def _prepare_view(window, args) -> None:
    for title, dock in window.panels.items():
        if title not in OWN_PANELS:
            dock.hide()
    if args.view == "compare":
        measure = args.measure or "cder"
        window.compare_view.set_measure(measure)
        pair = _best_block_pair(window, measure)
        if pair is not None:
            window.open_in_compare(*pair)
        window.panels["Scoring"].hide()
        window.panels["Similar scored translations"].hide()
    elif args.view == "scoring":
        window.compare_view.set_measure(args.measure or "wer")
        s = window.start_session("judge", None, None, start_unscored=True)
        if s is not None:
            window.workspace.detach_journal()   # a screenshot leaves no scores behind
            from evaltrans_qt.ui.scoring import identical_scores, similar_translations
            for k, (si, ti) in enumerate(s.items):
                sim = similar_translations(window.database, si, ti, s.classes)
                ref_texts = {r.text for r in window.database.references(window.database.sources[si])}
                if identical_scores(sim, s.classes) and s.target((si, ti)).text not in ref_texts:
                    s.go_to(k)
                    break
            s.score(4, s.classes[0])  # one class scored, the next one current
    elif args.view == "results":
        _prepare_results(window, args)
        if getattr(args, "tab", None):   # also for callers that build their own Namespace
            _show_results_tab(window, args.tab)
    elif args.view in ("metrics", "unseen"):     # results tabs
        _prepare_results(window, args)
        view = window.results.results_view
        title = {"metrics": "Metrics", "unseen": "Unseen systems"}[args.view]
        view.tabs.setCurrentIndex(next(i for i in range(view.tabs.count())
                                       if view.tabs.tabText(i) == title))
        if args.view == "unseen":
            view.unseen_view.compute()
    elif args.view in ("ranking", "ranking-sentences"):
        _prepare_ranking(window, args)
    elif args.view in ("postedit", "items"):
        _prepare_protocol_mode(window, args)
    elif args.view in ("mqm", "esa"):
        window.spans.screenshot_view(args.view, args.size)
    else:
        if args.measure:
            window.compare_view.set_measure(args.measure)


def _prepare_protocol_mode(window, args) -> None:
    """A session in the post-edit or item-marking mode, on the first candidate
    whose source has information items; nothing is stored (nothing committed, nothing saved)."""
    window.compare_view.set_measure(args.measure or "ter")
    s = window.start_session("judge", None, None, start_unscored=False)
    if s is None:
        return
    window.workspace.detach_journal()       # a screenshot leaves nothing behind (never saved)
    db = window.database
    k = next((k for k, (si, _ti) in enumerate(s.items) if db.sources[si].items), 0)
    s.go_to(k)
    window.panels["Similar scored translations"].hide()
    pm = window.protocol_modes
    if args.view == "postedit":
        pm.enter_mode("postedit")
        ed = pm.postedit_panel.editor
        words = ed.toPlainText().split()
        if len(words) > 3:              # a judge's edit in progress: one word replaced, one moved
            words[1] = words[1].upper()
            words.append(words.pop(2))
            ed.setPlainText(" ".join(words))
    else:
        pm.enter_mode("items")
        for mark in ("OK", "syntax"):
            pm.items_panel.mark(mark)


def _prepare_ranking(window, args) -> None:
    """The SegRanks screen (Macháček §2.2) on the sentence with the most segments, a few
    candidates placed (ranks, a tie), the cursor on one still to place; not submitted."""
    from evaltrans_qt.engine.human.segranks.model import sentence_segments
    from evaltrans_qt.ui.ranking_screen import SEGMENTS, SENTENCES
    db = window.database
    segs = [len(d.segments) if (d := sentence_segments(s)) is not None else 0 for s in db.sources]
    segments = any(segs) and args.view == "ranking"
    screen = window.ranking.open_screen(SEGMENTS if segments else SENTENCES, judge="judge")
    if screen is None:
        return
    w, _x, h = args.size.partition("x")
    screen.resize(int(w), int(h))
    if segments:
        screen.go_to_source(max(range(len(segs)), key=lambda i: (segs[i], -i)))
    for k, task in enumerate(screen.tasks_):
        m = task.model         # the first board complete (best .. unusable), the others not
        plan = {0: 1, m.n - 1: m.max_rank} if k == 0 else {c: min(c + 1, 2) for c in range(m.n - 1)}
        for c, rank in plan.items():
            screen.place(k, c, rank)
    todo = screen.missing()
    if todo:
        screen.set_cursor(*todo[0])


def _show_results_tab(window, title: str) -> None:
    """Show the results tab whose title begins with ``title`` (case ignored); the
    Significance tab computes its p-values (the first measure, its default method).
    ``TAB/PAGE``: also the page of that tab's own tabs whose title begins with PAGE."""
    title, _slash, page = title.partition("/")
    view = window.results.results_view
    titles = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    found = [i for i, t in enumerate(titles) if t.lower().startswith(title.lower())]
    if not found:
        raise SystemExit(f"evaltrans-qt: --tab {title!r}: no such results tab "
                         f"(one of: {', '.join(titles)})")
    view.tabs.setCurrentIndex(found[0])
    if titles[found[0]] == "Significance":
        view.compute_significance()
    if page:
        inner = getattr(view.tabs.widget(found[0]), "tabs", None)
        pages = [inner.tabText(i) for i in range(inner.count())] if inner is not None else []
        hit = [i for i, t in enumerate(pages) if t.lower().startswith(page.lower())]
        if not hit:
            raise SystemExit(f"evaltrans-qt: --tab {title}/{page}: no such page "
                             f"(one of: {', '.join(pages) or 'none'})")
        inner.setCurrentIndex(hit[0])


def _prepare_results(window, args) -> None:
    """Run the default measures in the background, wait, show the correlation tab."""
    import time
    app = QApplication.instance()
    assert app is not None              # the screenshot's application runs
    for dock in window.panels.values():
        dock.hide()
    window.compare_view.hide()
    view = window.results.results_view
    window.results.results_dock.show()
    if not view.start_run():
        return
    end = time.monotonic() + 3600
    while view.analysis is None and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)
    view.tabs.setCurrentIndex(2)            # Correlation: scatter, bars, table
    if args.measure:
        view.plot_measure.setCurrentText(args.measure)
    elif view.plot_measure.findText("bleu") >= 0:
        view.plot_measure.setCurrentText("bleu")
    app.processEvents()


def _screenshot(window, app, args) -> None:
    from evaltrans_qt.ui.workers import wait_for_all
    _prepare_view(window, args)
    for _ in range(50):
        wait_for_all(10000)
        app.processEvents()
        if not window.compare_view.runner.pending:
            break
    w, _x, h = args.size.partition("x")
    window.resize(int(w), int(h))
    app.processEvents()
    shown = window.ranking.ranking_screen if args.view.startswith("ranking") else \
        window.spans.screen if args.view in ("mqm", "esa") else None
    target = shown or window                     # the ranking screen has its own window
    target.show()
    for _ in range(5):       # deferred layout (rank rows fit their chips one tick after a resize)
        app.processEvents()
    img = target.grab()
    out = Path(args.screenshot)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not img.save(str(out)):
        print(f"evaltrans-qt: could not write {out}", file=sys.stderr)
        app.exit(2)
        return
    if window.session is not None:
        # a screenshot session must not leave scores or a journal behind
        window.end_session()
    window.workspace.leave_unsaved()    # a journal of the file stays for its next opening
    print(out)
    window.close()
    app.exit(0)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.screenshot and QApplication.instance() is None:
        _offscreen_screen(args.size)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("evaltrans_qt")
    app.setApplicationName("evaltrans-qt")
    from evaltrans_qt.ui import errors
    from evaltrans_qt.ui.main_window import MainWindow
    errors.install_excepthook()
    window = MainWindow(persist_settings=not args.screenshot)   # a screenshot: no recent files
    if args.screenshot:
        w, _x, h = args.size.partition("x")
        window.window_layout.assume_unframed()   # the picture is the whole screen
        window.resize(int(w), int(h))
        window.workspace.set_autosave(False)
    window.show()
    worker = window.open_database(args.file) if args.file else window.open_demo()
    if args.screenshot:
        if worker is None:
            return 2
        failed: list[BaseException] = []

        def errored(exc: BaseException) -> None:
            failed.append(exc)
            app.exit(2)
        worker.signals.errored.connect(errored)
        window.databaseChanged.connect(lambda: QTimer.singleShot(0, lambda: _screenshot(window, app, args)))
    code = app.exec()
    # background work still going (the kernels' warm-up, a minute on a first start) ends
    # before the interpreter does: Python torn down under a running worker crashes
    from evaltrans_qt.ui.workers import wait_for_all
    wait_for_all(SHUTDOWN_WAIT_MS)
    return code


if __name__ == "__main__":
    sys.exit(main())
