"""The results view's Analysis tab (system against system, compare-mt style) on the demo
database: the choice lives in the workspace, every table and bar shows the numbers of
:func:`evaltrans_qt.api.analyze` computed independently on the same file, a double-click
on an example opens that sentence in the compare view, and the HTML export writes a
self-contained file that parses."""

from __future__ import annotations

import math
from html.parser import HTMLParser

import pytest
from PySide6.QtCore import Qt

from evaltrans_qt.analysis_choice import ComparisonChoice
from evaltrans_qt.api import analyze
from evaltrans_qt.errors import OptionError
from evaltrans_qt.io.etdb import load_database
from evaltrans_qt.ui.results_models import RAW_ROLE

from .conftest import open_db, wait_compare


def _rows(model) -> list[dict]:
    """The model's rows as {header: raw value}, through the Qt model API."""
    heads = [model.headerData(c, Qt.Horizontal) for c in range(model.columnCount())]
    return [{h: model.data(model.index(r, c), RAW_ROLE) for c, h in enumerate(heads)}
            for r in range(model.rowCount())]


def _same(a, b) -> bool:
    if isinstance(b, float) and math.isnan(b):
        return a is None or (isinstance(a, float) and math.isnan(a))
    return a == pytest.approx(b, rel=1e-12, abs=1e-12) if isinstance(b, float) else a == b


def _equal(model, frame, columns) -> None:
    rows = _rows(model)
    assert len(rows) == len(frame)
    for got, (_, want) in zip(rows, frame.iterrows()):
        for c in columns:
            assert _same(got[c], want[c]), (c, got[c], want[c])


@pytest.fixture
def tab(qtbot, main_window, demo_copy):
    open_db(qtbot, main_window, demo_copy)
    rv = main_window.results.results_view
    view = rv.analysis_view
    assert rv.tabs.tabText(rv.tabs.indexOf(view)) == "Analysis"
    return main_window, rv, view


def _compute(qtbot, view):
    with qtbot.waitSignal(view.analysisReady, timeout=120_000):
        assert view.compute()
    return view.result


def test_tables_and_bars_show_the_engines_numbers(qtbot, tab, demo_copy):
    window, rv, view = tab
    ws = window.workspace
    systems = ws.database.systems()
    # the picks write the workspace's choice (nothing kept in the view)
    view.system_a.setCurrentIndex(view.system_a.findData(systems[2]))
    view.system_a.activated.emit(view.system_a.currentIndex())
    view.system_b.setCurrentIndex(view.system_b.findData(systems[0]))
    view.system_b.activated.emit(view.system_b.currentIndex())
    assert ws.comparison.systems == (systems[2], systems[0])
    view.top_spin.setValue(7)
    view.top_spin.editingFinished.emit()
    assert ws.comparison.top == 7
    r = _compute(qtbot, view)
    want = analyze(load_database(demo_copy), [systems[2], systems[0]], options=ws.options,
                   top=7)
    assert r.systems == want.systems == (systems[2], systems[0])
    _equal(view.scores_model, want.scores, list(want.scores.columns))
    sig = _rows(view.sig_model)
    for row, s in zip(sig, want.systems):
        assert row["p-value"] == s
        for t in want.systems:
            assert _same(row[t], float(want.significance.loc[s, t]))
    _equal(view.words_model, want.word_accuracy, list(want.word_accuracy.columns))
    for i in range(view.bucket_kind.count()):
        view.bucket_kind.setCurrentIndex(i)
        frame = {"length": want.length_buckets, "lengthdiff": want.lengthdiff_buckets,
                 "score": want.score_buckets}[view.bucket_kind.currentData()]
        _equal(view.buckets_model, frame, list(frame.columns))
    # the bars: one series per system, the F-measures of its buckets; whiskers' ends
    wa = want.word_accuracy
    for s in want.systems:
        assert list(view.word_bars.values[s]) == pytest.approx(
            list(wa[wa.system == s].fmeas))
    sc = want.scores.set_index("system")
    for s in want.systems:
        assert view.score_bars.values[s][0] == pytest.approx(sc.score[s])
    # n-grams: A better, B better, 7 each (the choice's top)
    ng = want.ngrams
    for k, better in enumerate(want.systems):
        rows = ng[ng.better == better]
        assert len(rows) == 7
        _equal(view.ngram_models[k], rows, ["rank", "ngram", "n", "ratio", "count_a",
                                            "count_b"])
    ex = want.examples
    _equal(view.examples_model, ex, ["better", "rank", "segment", "diff", "score_a",
                                     "score_b"])
    assert [row["output_a"] for row in _rows(view.examples_model)] == \
        [" ".join(t) for t in ex.output_a]
    # the selected example's edits, highlighted as the HTML report marks them
    view.examples_view.selectRow(0)
    detail = view.example_detail.toHtml()
    assert str(ex.segment.iloc[0]) in detail
    assert ex.output_b.iloc[0][0] in detail
    if want.error_classes is not None:
        assert view.tabs.isTabVisible(view._error_index)
        assert view.error_model.rowCount() == len(want.systems)


def test_more_systems_every_pair(qtbot, tab):
    window, _rv, view = tab
    systems = window.workspace.database.systems()
    assert len(systems) >= 3
    view.set_systems(*systems[:3])
    assert view.more.text() == "+1 more…"
    r = _compute(qtbot, view)
    assert r.systems == tuple(systems[:3])
    assert view.pair_box.count() == 3 and not view.pair_box.isHidden()
    view.pair_box.setCurrentIndex(2)
    a, b = systems[1], systems[2]
    assert view.pair() == (a, b)
    rows = _rows(view.examples_model)
    want = r.examples[(r.examples.system_a == a) & (r.examples.system_b == b)]
    assert [x["segment"] for x in rows] == list(want.segment)
    ng = r.ngrams
    assert [x["ngram"] for x in _rows(view.ngram_models[1])] == \
        list(ng[(ng.system_a == a) & (ng.system_b == b) & (ng.better == b)].ngram)


def test_double_click_opens_the_sentence_in_the_compare_view(qtbot, tab):
    window, rv, view = tab
    rv.tabs.setCurrentWidget(view)
    window.show_panel("Results")
    r = _compute(qtbot, view)
    db = window.workspace.database
    a, b = r.systems
    table = view.examples_view
    view.tabs.setCurrentIndex(next(i for i in range(view.tabs.count())
                                   if view.tabs.tabText(i) == "Examples"))
    assert table.isVisible()
    cols = [view.examples_model.headerData(c, Qt.Horizontal)
            for c in range(view.examples_model.columnCount())]
    for row, column, system in ((3, "reference", a), (5, "output_b", b)):
        e = view.example_record(row)
        si = int(e.source_index)
        table.scrollTo(table.model().index(row, cols.index(column)))
        rect = table.visualRect(table.model().index(row, cols.index(column)))
        qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
        qtbot.mouseDClick(table.viewport(), Qt.LeftButton, pos=rect.center())
        pair = window.workspace.selection.pair
        assert pair is not None and pair[0] == si
        target = db.sources[si].targets[pair[1]]
        assert target.system == system and not db.is_reference(target)
        wait_compare(qtbot, window)
        assert window.compare_view._hyp == target.text
        assert window.compare_view.source_label.text() == db.sources[si].text


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.tags: set[str] = set()
        self.outside: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        d = dict(attrs)
        if tag == "section":
            self.sections.append(d.get("id") or "")
        for key in ("src", "href"):
            if d.get(key) and not str(d[key]).startswith("#"):
                self.outside.append(str(d[key]))

    def handle_data(self, data):
        self.text.append(data)


def test_export_html_writes_a_report_that_parses(qtbot, tab, tmp_path):
    window, _rv, view = tab
    r = _compute(qtbot, view)
    out = tmp_path / "report.html"
    with qtbot.waitSignal(view.exported, timeout=60_000) as sig:
        view.export_html(out)
    assert sig.args[0] == out
    page = _Page()
    page.feed(out.read_text(encoding="utf-8"))
    page.close()
    for section in ("scores", "word-accuracy", "length-buckets", "ngrams", "examples",
                    "signatures"):
        assert section in page.sections
    assert "svg" in page.tags and "script" not in page.tags and not page.outside
    text = " ".join(page.text)
    assert r.signatures["bootstrap"] in text
    top = r.ngrams.ngram.iloc[0]
    assert top in text
    # out of date (another choice): computed afresh, then written
    view.set_systems(*reversed(r.systems))
    out2 = tmp_path / "again.html"
    with qtbot.waitSignal(view.exported, timeout=120_000):
        view.export_html(out2)
    assert out2.read_text(encoding="utf-8").index(r.systems[1]) < \
        out2.read_text(encoding="utf-8").index(r.systems[0])


def test_export_failure_is_shown(qtbot, tab, tmp_path):
    from evaltrans_qt.ui import errors
    _window, _rv, view = tab
    _compute(qtbot, view)
    bad = tmp_path / "missing-folder" / "x.html"
    n = len(errors.history)
    w = view.export_html(bad)
    qtbot.waitUntil(lambda: len(errors.history) > n, timeout=60_000)
    assert w.error is not None
    assert not bad.exists()
    assert "Not exported" in view.status.text()


def test_choice_is_checked_and_follows_the_database(qtbot, tab):
    window, _rv, view = tab
    c = window.workspace.comparison
    systems = window.workspace.database.systems()
    with pytest.raises(OptionError, match="unknown system 'nobody'"):
        c.set(systems=[systems[0], "nobody"])
    with pytest.raises(OptionError, match="chosen twice"):
        c.set(systems=[systems[0], systems[0]])
    with pytest.raises(OptionError, match="unknown reference 'ref-Z'"):
        c.set(reference="ref-Z")
    with pytest.raises(OptionError, match="top must be"):
        c.set(top=0)
    assert c.set(reference=c.references[1], examples=3)
    assert view.reference_box.currentData() == c.references[1]
    assert view.examples_spin.value() == 3
    assert not c.set(examples=3)             # no change, no signal


def test_comparison_choice_without_qt():
    class Db:
        def __init__(self, systems, refs):
            self._s, self._r = systems, refs

        def systems(self):
            return self._s

        def reference_ids(self):
            return self._r

    c = ComparisonChoice()
    seen = []
    c.changed.connect(lambda: seen.append("changed"))
    c.follow(Db(["A", "B", "C"], ["r1"]))
    assert c.systems == ("A", "B") and seen == ["changed"]
    c.set(systems=["C", "A"], train="train.txt")
    # the database lost C: the choice keeps A and fills up with B; the files stay
    c.follow(Db(["A", "B"], ["r1"]))
    assert c.systems == ("A", "B") and c.train == "train.txt"
    # another database: its files are not those of the old one
    c.follow(Db(["A", "B"], ["r1"]), another=True)
    assert c.train is None
    c.follow(None)
    assert c.systems == () and c.available == []


def test_screenshot_tab_shows_an_analysis_page(qtbot, tab):
    """``evaltrans-qt --screenshot --view results --tab analysis/examples``: the results
    tab, then the page of its own tabs; an unknown page stops with the pages there are."""
    from evaltrans_qt.ui.app import _show_results_tab
    window, rv, view = tab
    _show_results_tab(window, "analysis/word")
    assert rv.tabs.currentWidget() is view
    assert view.tabs.tabText(view.tabs.currentIndex()) == "Word accuracy"
    _show_results_tab(window, "Analysis/EXAMPLES")
    assert view.tabs.tabText(view.tabs.currentIndex()) == "Examples"
    with pytest.raises(SystemExit, match="no such page.*N-grams"):
        _show_results_tab(window, "analysis/bogus")


def _label_files(db, systems, options, tmp_path):
    """Label files (one line per source) for the first reference's words and each system's
    output words: NUM (a digit), P (no letter or digit), CAP (capitalised), w."""
    from evaltrans_qt.engine.analysis.corpus import corpus_from_database

    def tag(w: str) -> str:
        return "NUM" if any(ch.isdigit() for ch in w) else \
            "P" if not any(ch.isalnum() for ch in w) else "CAP" if w[0].isupper() else "w"
    corpus = corpus_from_database(db, systems, options)
    files = []
    for name, sents in [("ref", corpus.ref)] + [(s, corpus.outs[s]) for s in systems]:
        lines = [""] * len(db.sources)
        for i, words in zip(corpus.source_index, sents):
            lines[i] = " ".join(tag(w) for w in words)
        f = tmp_path / f"{name}.labels"
        f.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(f))
    return files


def test_label_files_give_word_accuracy_by_label(qtbot, tab, demo_copy, tmp_path,
                                                  monkeypatch):
    window, _rv, view = tab
    ws = window.workspace
    systems = list(ws.comparison.systems)
    files = _label_files(ws.database, systems, ws.options, tmp_path)
    # the menu's dialogs: the reference's file, then one per system
    from evaltrans_qt.ui import analysis_view
    answers = iter([(files[0], ""), (files[1], ""), ("", "")])
    monkeypatch.setattr(analysis_view.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: next(answers)))
    view.ask_labels()          # B's file cancelled: the reference's labels only
    assert ws.comparison.labels == (files[0],)
    answers = iter([(f, "") for f in files])
    view.ask_labels()
    assert ws.comparison.labels == tuple(files)
    r = _compute(qtbot, view)
    want = analyze(load_database(demo_copy), systems, options=ws.options, labels=files)
    assert [view.word_kind.itemData(i) for i in range(view.word_kind.count())] == \
        ["frequency", "label"]
    view.word_kind.setCurrentIndex(1)
    _equal(view.words_model, want.label_accuracy, list(want.label_accuracy.columns))
    assert r.label_accuracy is not None and r.label_accuracy.fmeas.notna().all()
    la = want.label_accuracy
    assert list(view.word_bars.values[systems[0]]) == pytest.approx(
        list(la[la.system == systems[0]].fmeas))
    # other systems: their label files no longer apply, the reference's still do
    ws.comparison.set(systems=list(reversed(systems)))
    assert ws.comparison.labels == (files[0],)


def test_the_analysis_runs_off_the_ui_thread(qtbot, tab, monkeypatch):
    import threading

    from evaltrans_qt.ui import analysis_view
    _window, _rv, view = tab
    threads = []
    real = analysis_view.analysis_job

    def spy(db, options, values):
        threads.append(threading.current_thread())
        return real(db, options, values)
    monkeypatch.setattr(analysis_view, "analysis_job", spy)
    r = _compute(qtbot, view)
    assert threads and all(t is not threading.main_thread() for t in threads)
    assert view.result is r


def test_the_evaluate_menu_exports_the_analysis(qtbot, tab, tmp_path, monkeypatch):
    """Evaluate → Export analysis as HTML… (Ctrl+Shift+H): the Analysis tab is shown, the
    file asked for (the .html suffix added to a bare name) and written in the background."""
    from evaltrans_qt.ui import analysis_view
    window, rv, view = tab
    asked = []

    def save_name(parent, title, start, filters):
        asked.append((title, start, filters))
        return str(tmp_path / "mine"), "HTML (*.html)"
    monkeypatch.setattr(analysis_view.QFileDialog, "getSaveFileName", staticmethod(save_name))
    act = window.results.act_export_analysis
    assert act.shortcut().toString() == "Ctrl+Shift+H"
    with qtbot.waitSignal(view.exported, timeout=120_000) as sig:
        act.trigger()
    assert rv.tabs.currentWidget() is view
    assert asked and asked[0][1].endswith("demo.analysis.html")
    out = sig.args[0]
    assert out == tmp_path / "mine.html"
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "</html>" in text
    for s in window.workspace.comparison.systems:
        assert s in text


def test_picking_the_other_ones_system_swaps_a_and_b(qtbot, tab):
    window, _rv, view = tab
    c = window.workspace.comparison
    s = window.workspace.database.systems()

    def pick(box, system):
        box.setCurrentIndex(box.findData(system))
        box.activated.emit(box.currentIndex())

    c.set(systems=[s[0], s[1]])
    pick(view.system_a, s[1])
    assert c.systems == (s[1], s[0])
    pick(view.system_b, s[1])
    assert c.systems == (s[0], s[1])
    pick(view.system_b, s[2])
    assert c.systems == (s[0], s[2])
    # a further system picked as A takes that place; the extras stay otherwise
    c.set(systems=[s[0], s[1], s[2], s[3]])
    pick(view.system_a, s[3])
    assert c.systems == (s[3], s[1], s[2])
    assert (view.system_a.currentData(), view.system_b.currentData()) == (s[3], s[1])
