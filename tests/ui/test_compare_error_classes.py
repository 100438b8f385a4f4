"""The compare view's "Error classes" measure: each word coloured by its class (Popović &
Ney 2011 §3, as Hjerson; engine/measures/errorclasses.py), a legend of the classes shown,
correct words plain."""

from __future__ import annotations

from PySide6.QtGui import QColor

from evaltrans_qt.engine.analysis.error_classes import base_forms, classify_best
from evaltrans_qt.engine.measures.alignment import explain_segment
from evaltrans_qt.engine.text.preprocess import tokenize
from evaltrans_qt.io.etdb import demo_database_path, load_database
from evaltrans_qt.ui.compare_view import (
    ERROR_CLASS_COLOURS,
    MEASURES,
    CompareView,
    TokenFlow,
    compute_comparison,
)

#: Worked by hand from the paper's definitions (base forms: the Snowball stems): "houses"
#: and "house" share their base form but differ (inflection); "very" is in the reference
#: only (missing); "today now" / "now today" are WER errors whose words occur on both
#: sides (reordering); every other word is correct.
HYP = "the houses is big today now"
REF = "the house is very big now today"
HYP_CLASSES = [None, "infl", None, None, "reord", "reord"]
REF_CLASSES = [None, "infl", None, "miss", None, "reord", "reord"]


def _mix(fill: QColor, under: QColor) -> tuple[int, int, int]:
    a = fill.alphaF()
    return tuple(round(a * f + (1 - a) * u) for f, u in
                 ((fill.red(), under.red()), (fill.green(), under.green()),
                  (fill.blue(), under.blue())))


def test_error_classes_is_a_measure_of_the_selector():
    assert ("errorclasses", "Error classes") in MEASURES


def test_hand_worked_classes_colours_and_legend(qtbot):
    view = CompareView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    view.set_measure("errorclasses")
    view.set_pair("src", HYP, "sys", [("A", REF)])
    qtbot.waitUntil(lambda: view.comparison is not None and not view.runner.pending,
                    timeout=180_000)
    assert [m.error_class for m in view.hyp_flow.marks] == HYP_CLASSES
    assert [m.error_class for m in view.ref_flow.marks] == REF_CLASSES
    # the same classes as the engine's classification of these words
    h, r = tokenize(HYP), tokenize(REF)
    s = classify_best(h, [r], base_forms(h), [base_forms(r)])
    assert [c if c != "x" else None for c in s.hyp_classes] == HYP_CLASSES
    assert [c if c != "x" else None for c in s.ref_classes] == REF_CLASSES
    # the tooltip names the class; the legend the classes present, and only those
    assert view.hyp_flow.marks[1].tip.startswith("inflectional error")
    assert view.ref_flow.marks[3].tip.startswith("missing word")
    legend = view.legend.text()
    for name in ("inflectional error", "reordering error", "missing word"):
        assert name in legend
    assert "extra word" not in legend and "lexical error" not in legend
    breakdown = dict(view.comparison.breakdown)
    assert breakdown["Missing word"] == "0 candidate, 1 reference"
    assert breakdown["Reordering error"] == "2 candidate, 2 reference"
    # Hjerson's SUMerr: the candidate-side class rates (1 + 2 + 0 + 0) / 6 plus the missing
    # words over the reference length, 1 / 7
    assert breakdown["SUMerr (sum of the class rates)"] == f"{100 * (3 / 6 + 1 / 7):.2f} %"
    # painted: a classified word's box has its class's colour over the background, a
    # correct word's box none
    view.hyp_flow.repaint()
    img = view.hyp_flow.grab().toImage()
    bg = img.pixelColor(view.hyp_flow.width() - 2, view.hyp_flow.height() - 2)

    def corner(i: int) -> tuple[int, int, int]:
        rect = view.hyp_flow.token_rect(i)
        c = img.pixelColor(rect.left() + 1, rect.top() + 1)
        return c.red(), c.green(), c.blue()

    for i, cls in enumerate(HYP_CLASSES):
        want = (bg.red(), bg.green(), bg.blue()) if cls is None else \
            _mix(TokenFlow.fill_colour(view.hyp_flow.marks[i], True), bg)
        assert max(abs(a - b) for a, b in zip(corner(i), want)) <= 3, (i, cls)
    assert corner(1) != corner(4)           # inflection and reordering differ


def test_other_measures_keep_their_edit_colours(qtbot):
    c = compute_comparison("wer", HYP, [REF], ["A"])
    assert all(m.error_class is None for m in c.hyp + c.ref)
    assert c.error_classes == {}
    # a substitution is filled with its edit colour, not a class colour
    fill = TokenFlow.fill_colour(c.hyp[1])
    assert fill is not None and fill.rgb() not in {q.rgb() for q in ERROR_CLASS_COLOURS.values()}


def test_demo_candidates_match_the_measures_alignment():
    """Every word's class as the measure's alignment notes give it, on demo sentences
    (the options' tokenisation, several references: the best one is shown)."""
    db = load_database(demo_database_path())
    checked = 0
    for src in db.sources[:6]:
        refs = [t.text for t in db.references(src)]
        for t in src.targets:
            if db.is_reference(t):
                continue
            c = compute_comparison("errorclasses", t.text, refs, [f"r{k}" for k in
                                                                  range(len(refs))])
            notes = explain_segment("errorclasses", t.text, refs).alignment.notes
            assert [m.error_class or "x" for m in c.hyp] == list(notes["hyp_classes"])
            assert [m.error_class or "x" for m in c.ref] == list(notes["ref_classes"])
            checked += 1
    assert checked >= 12
