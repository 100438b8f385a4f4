"""Compare view: the drawn operations are the engine's alignment, for every measure."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QComboBox, QTableView

from evaltrans_qt.engine import measures
from evaltrans_qt.engine.measures.alignment import OpKind
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize
from evaltrans_qt.ui.compare_view import DEL, INS, MATCH, SUB, CompareView, compute_comparison
from evaltrans_qt.ui.models import KEY_ROLE
from tests.ui.conftest import open_db, wait_compare

ALIGNED = ["wer", "per", "cder", "ter", "invwer", "ljwer"]
KIND = {OpKind.MATCH: MATCH, OpKind.SUB: SUB, OpKind.INS: INS, OpKind.DEL: DEL}


def engine_alignment(name, hyp, refs):
    opts = EvalOptions(allow_transpositions=True, allow_long_jumps=True)
    voc = Vocabulary()
    seg = Segment(voc.encode(tokenize(hyp)), tuple(voc.encode(tokenize(r)) for r in refs), hyp, tuple(refs))
    m = measures.get(name)(opts)
    m.fit([seg], voc)
    return m.align(seg)


def expected_marks(al):
    # a candidate word covered by several operations (CDER) shows a substitution over an identity
    rank = {INS: 0, MATCH: 1, SUB: 2}
    hyp = [None] * len(al.hyp)
    ref = [DEL] * len(al.ref)
    for op in al.operations:
        if op.hyp_pos is not None:
            k = KIND[op.kind]
            if hyp[op.hyp_pos] is None or rank[k] > rank[hyp[op.hyp_pos]]:
                hyp[op.hyp_pos] = k
        if op.ref_pos is not None:
            ref[op.ref_pos] = KIND[op.kind]
    hyp = [INS if k is None else k for k in hyp]
    hb = [None] * len(al.hyp)
    rb = [None] * len(al.ref)
    for b in al.blocks:
        for i in range(*b.hyp_span):
            hb[i] = b.number
        for j in range(*b.ref_span):
            rb[j] = b.number
    return hyp, ref, hb, rb


def test_browse_select_source_and_switch_measures(qtbot, main_window, demo_copy):
    w = main_window
    db = open_db(qtbot, w, demo_copy)
    src_list = w.findChild(QTableView, "sourceList")
    tgt_table = w.findChild(QTableView, "targetTable")
    selector = w.findChild(QComboBox, "measureSelector")
    view = w.findChild(CompareView, "compareView")
    assert src_list.model().rowCount() == len(db.sources)
    # select the 5th source
    src_list.selectRow(4)
    si = 4
    assert tgt_table.model().rowCount() == len(db.sources[si].targets)
    # the first candidate is selected and shown
    cur = tgt_table.currentIndex()
    assert cur.isValid()
    _si, ti = cur.data(KEY_ROLE)
    assert _si == si
    t = db.sources[si].targets[ti]
    refs = [r.text for r in db.references(db.sources[si])]
    assert refs and not db.is_reference(t)
    for name in ALIGNED:
        selector.setCurrentIndex(selector.findData(name))
        c = wait_compare(qtbot, w)
        assert c is not None and c.measure == name
        al = engine_alignment(name, t.text, refs)
        hyp, ref, hb, rb = expected_marks(al)
        assert view.hyp_flow.kinds() == hyp, name
        assert view.ref_flow.kinds() == ref, name
        assert [m.block for m in view.hyp_flow.marks] == hb, name
        assert [m.block for m in view.ref_flow.marks] == rb, name
        assert [m.text for m in view.ref_flow.marks] == list(al.ref)
        assert dict(c.breakdown)["Distance"] == f"{al.distance:.4g}"
        assert dict(c.breakdown)["Nearest reference"] == db.references(db.sources[si])[al.ref_index].system


def test_wer_hand_example_and_hover(qtbot):
    view = CompareView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    view.set_measure("wer")
    view.set_pair("src", "the cat sat on mat", "sys", [("A", "the cat sat on the mat")])
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending, timeout=180_000)
    # one deletion: the second "the" of the reference (Levenshtein, unique optimum)
    assert view.hyp_flow.kinds() == [MATCH] * 5
    assert view.ref_flow.kinds() == [MATCH, MATCH, MATCH, MATCH, DEL, MATCH]
    assert dict(view.comparison.breakdown)["Deletions"] == "1"
    # hovering "mat" in the candidate highlights "mat" (position 5) in the reference
    r = view.hyp_flow.token_rect(4)
    qtbot.mouseMove(view.hyp_flow, r.topLeft() + QPoint(1, 1))   # a move, wherever the
    qtbot.mouseMove(view.hyp_flow, r.center())                    # cursor was left before
    qtbot.waitUntil(lambda: view.ref_flow.highlight == {5})
    assert view.hyp_flow.hover_index == 4
    # clicking pins; moving elsewhere keeps the highlight
    qtbot.mouseClick(view.hyp_flow, __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.LeftButton, pos=r.center())
    qtbot.mouseMove(view.hyp_flow, QPoint(1, 1))
    assert view.ref_flow.highlight == {5}


@pytest.mark.parametrize("hyp, ref", [
    ("at noon we will meet in the lobby", "we will meet in the lobby at noon"),
    ("From Monday applies on the motorway a speed limit of 120 kilometres per hour.",
     "From Monday, a speed limit of 120 kilometres per hour applies on the motorway."),
])
def test_cder_block_shares_number_in_both_sentences(qtbot, hyp, ref):
    view = CompareView()
    qtbot.addWidget(view)
    view.set_measure("cder")
    view.set_pair("src", hyp, "sys", [("A", ref)])
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending, timeout=180_000)
    al = engine_alignment("cder", hyp, [ref])
    assert al.blocks, "the engine should report a long jump here"
    for b in al.blocks:
        # reference words are covered once, so their block number is unique
        assert {view.ref_flow.marks[j].block for j in range(*b.ref_span)} == {b.number}
        # candidate words may lie in several blocks (CDER covers them freely): one of them is shown
        for i in range(*b.hyp_span):
            assert view.hyp_flow.marks[i].block in {c.number for c in al.blocks if c.hyp_span[0] <= i < c.hyp_span[1]}
    assert view.comparison.blocks[0][1] == "long jump"
    h, r, _hb, _rb = expected_marks(al)
    assert view.hyp_flow.kinds() == h and view.ref_flow.kinds() == r
    # every substitution is visible on both sides
    assert (SUB in view.hyp_flow.kinds()) == (SUB in view.ref_flow.kinds())


def test_bleu_ngram_counts_match_sacrebleu(qtbot):
    from sacrebleu.metrics import BLEU
    hyp = "the cat is on the mat and the dog is on the mat too"
    refs = ["the cat is on the mat", "there is a dog on the mat and a cat too"]
    c = compute_comparison("bleu", hyp, refs, ["A", "B"])
    stats = BLEU(tokenize="13a").sentence_score(hyp, refs)
    got = dict(c.breakdown)
    for n in range(1, 5):
        matched, total = got[f"{n}-gram precision"].split(" = ")[0].split("/")
        assert int(matched) == stats.counts[n - 1] and int(total) == stats.totals[n - 1]
    # every candidate word with an order also appears in a reference
    ref_words = set(" ".join(refs).split())
    assert all(m.text in ref_words for m in c.hyp if m.orders)


def test_compare_two_candidates_and_stale_results(qtbot):
    view = CompareView()
    qtbot.addWidget(view)
    view.set_measure("wer")
    view.set_pair("src", "a b c d", "X", [("A", "a b c d")], others=[("Y", "a x c d")])
    i = view.against.findText("candidate Y")
    assert i >= 0
    view.against.setCurrentIndex(i)
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending, timeout=180_000)
    assert [m.text for m in view.ref_flow.marks] == ["a", "x", "c", "d"]
    assert view.ref_flow.kinds() == [MATCH, SUB, MATCH, MATCH]
    # quick successive requests: only the last one is shown
    for k in range(5):
        view.set_pair("src", f"w{k} b", "X", [("A", "a b")])
    qtbot.waitUntil(lambda: not view.runner.pending)
    assert view.hyp_flow.marks[0].text == "w4"


def test_rtl_and_wrapping(qtbot):
    view = CompareView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    view.set_measure("wer")
    ar = "ذهب الولد إلى المدرسة صباحا"
    view.set_pair("src", ar, "X", [("A", "ذهب الولد إلى البيت")])
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending, timeout=180_000)
    flow = view.hyp_flow
    assert flow.rtl
    # the first word is drawn at the right
    assert flow.token_rect(0).center().x() > flow.token_rect(len(flow.marks) - 1).center().x()
    long = " ".join(f"word{k}" for k in range(80))
    view.set_pair("src", long, "X", [("A", long)])
    qtbot.waitUntil(lambda: len(view.hyp_flow.marks) == 80 and not view.runner.pending)
    one_line = view.hyp_flow.heightForWidth(100000)
    assert view.hyp_flow.heightForWidth(400) > 3 * one_line
    rects = [view.hyp_flow.token_rect(k) for k in range(80)]
    assert max(r.right() for r in rects) <= max(view.hyp_flow.width(), 400)


def test_empty_cases(qtbot):
    view = CompareView()
    qtbot.addWidget(view)
    view.set_pair("src", "a lonely candidate", "X", [])
    assert view.against.count() == 0
    assert view.ref_title.text() == "No reference for this source" and view.ref_flow.marks == []
    view.set_pair("src", "", "X", [("A", "a reference")])
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending, timeout=180_000)
    assert view.hyp_flow.marks == [] and view.ref_flow.kinds() == [DEL, DEL]
    view.clear()
    assert view.comparison is None and view.breakdown.topLevelItemCount() == 0


@pytest.mark.parametrize("dark", [False, True])
def test_readable_on_light_and_dark_palettes(qtbot, dark):
    from PySide6.QtGui import QColor, QPalette

    from evaltrans_qt.ui.compare_view import TokenFlow, TokenMark
    flow = TokenFlow()
    qtbot.addWidget(flow)
    pal = QPalette()
    bg, fg = (QColor(30, 30, 30), QColor(235, 235, 235)) if dark else (QColor(250, 250, 250), QColor(10, 10, 10))
    for role in (QPalette.Window, QPalette.Base):
        pal.setColor(role, bg)
    for role in (QPalette.Text, QPalette.WindowText):
        pal.setColor(role, fg)
    flow.setPalette(pal)
    flow.setAutoFillBackground(True)
    flow.resize(400, 60)
    flow.set_marks([TokenMark("WWWW", k) for k in (SUB, INS, DEL)])
    img = flow.grab().toImage()
    for i in range(3):
        r = flow.token_rect(i)
        # the tinted background stays on the palette's side of mid-grey, so the text colour contrasts
        tint = img.pixelColor(r.left() + 1, r.top() + 1)
        assert (tint.lightness() < 128) == dark, (i, tint.name())
        # and text is drawn in the palette's text colour (some pixel close to it inside the word box)
        close = any(abs(img.pixelColor(x, y).lightness() - fg.lightness()) < 60
                    for x in range(r.left(), r.right()) for y in range(r.top(), r.bottom()))
        assert close
