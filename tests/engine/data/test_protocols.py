"""Human-evaluation protocols: SSER, IER, HTER, aWER, SER against values worked
out by hand from the survey's definitions (survey §4.4.4, 4.4.7, 4.4.8, 4.4.16, 4.4.17),
HTER against sacreBLEU's TER, the checked edits and their undo changes."""

from __future__ import annotations

import math

import pytest
from sacrebleu.metrics import TER as SacreTER

from evaltrans_qt.engine.data import protocols as P
from evaltrans_qt.engine.data import schemes
from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human import protocol_scores as S
from evaltrans_qt.engine.human.resolve import human_scores
from evaltrans_qt.engine.options import PRESETS, EvalOptions
from evaltrans_qt.engine.text.preprocess import tokenize
from evaltrans_qt.errors import ScoreError
from evaltrans_qt.io import protocol_changes as pc


def small_db() -> Database:
    """Two sources, one reference each, systems A and B."""
    db = Database()
    s1 = db.add_source("Der Zug nach München hat Verspätung .", seg="1")
    db.add_target(s1, "a b c d", "ref", reference=True)
    db.add_target(s1, "a b x d", "A")
    db.add_target(s1, "a b c d", "B")
    s2 = db.add_source("Guten Morgen , Anna .", seg="2")
    db.add_target(s2, "e f g", "ref", reference=True)
    db.add_target(s2, "e f", "A")
    db.add_target(s2, "E f g", "B")
    return db


def cand(db, i, system):
    return P.target_of(db, db.sources[i], system, candidate=True)


# ------------------------------------------------------------------ SSER (survey §4.4.8)
def test_sser_by_hand():
    db = small_db()
    schemes.add_template(db, "sser")
    cand(db, 0, "A").set_score("sser", 10, "anna")
    cand(db, 1, "A").set_score("sser", 5, "anna")
    cand(db, 0, "B").set_score("sser", 6, "anna")
    cand(db, 0, "B").set_score("sser", 8, "ben")        # mean over judges: 7
    res = S.sser(db, "sser")
    # SSER = 1 - sum v / (K n): A: 1 - (10 + 5) / (10 * 2) = 0.25
    assert res.system("A").value == pytest.approx(0.25)
    assert res.system("A").sentences == 2
    # B: one candidate, v = 7: 1 - 7 / 10 = 0.3
    assert res.system("B").value == pytest.approx(0.3)
    assert res.sentence((1, "A", 0)) == pytest.approx(0.5)
    # one judge only: ben's 8 -> 0.2
    assert S.sser(db, "sser", judge="ben").system("B").value == pytest.approx(0.2)
    assert S.sser_classes(db) == ["sser"]


def test_sser_needs_the_scale():
    db = small_db()
    schemes.add_template(db, "fluency5")
    assert S.sser_classes(db) == []
    with pytest.raises(ScoreError, match="not on the SSER scale"):
        S.sser(db, "fluency")


# ------------------------------------------------------------------ IER (survey §4.4.16)
def test_ier_by_hand():
    db = small_db()
    s1, s2 = db.sources
    P.define_items(s1, P.parse_spans("1-2,3-4,5-6"))          # 3 items
    P.define_items(s2, P.parse_spans("1-2,4"))                # 2 items
    P.set_marks(db, s1, cand(db, 0, "A"), "OK,syntax,OK", "anna")
    P.set_marks(db, s2, cand(db, 1, "A"), "meaning,other", "anna")
    P.set_marks(db, s1, cand(db, 0, "B"), "OK,OK,OK", "anna")
    P.set_marks(db, s1, cand(db, 0, "B"), "OK,error,error", "ben")
    res = S.ier(db)
    # A: (1 + 2) items not OK of (3 + 2) items = 0.6
    assert res.system("A").value == pytest.approx(0.6)
    assert res.system("A").sentences == 2
    # B: judges' counts averaged per candidate: (0 + 2) / 2 = 1 of 3 items
    assert res.system("B").value == pytest.approx(1 / 3)
    assert S.ier(db, judge="ben").system("B").value == pytest.approx(2 / 3)


# ------------------------------------------------------------------ HTER (survey §4.4.17)
def test_hter_by_hand_and_sacrebleu():
    db = small_db()
    P.set_postedit(db, cand(db, 0, "A"), "a b c d e", "anna", 12.5)
    P.set_postedit(db, cand(db, 1, "A"), "e f", "anna")
    res = S.hter(db)
    # "a b x d" -> "a b c d e": one substitution, one insertion = 2 edits over 5 words
    assert res.sentence((0, "A", 0)) == pytest.approx(2 / 5)
    assert res.sentence((1, "A", 0)) == 0.0
    # system: (2 + 0) / (5 + 2)
    assert res.system("A").value == pytest.approx(2 / 7)
    sacre = SacreTER(case_sensitive=True).corpus_score(["a b x d", "e f"], [["a b c d e", "e f"]])
    assert res.system("A").value == pytest.approx(sacre.score / 100, abs=1e-12)


def test_hter_equals_sacrebleu_ter_on_real_text(wmt_dir):
    """HTER = TER of the candidate against its post-edit: sacreBLEU TER on the same texts
    (default options: 13a tokens, case kept = TER(case_sensitive=True) on 13a-tokenised
    text; preset sacrebleu = sacreBLEU's TER() on the raw text)."""
    hyps = (wmt_dir / "newstest2021.en-de.hyp.Facebook-AI.de").read_text("utf-8").split("\n")[:40]
    edits = (wmt_dir / "newstest2021.en-de.ref.A.de").read_text("utf-8").split("\n")[:40]
    db = Database()
    for i, (h, e) in enumerate(zip(hyps, edits)):
        src = db.add_source(f"s{i}", seg=str(i))
        t = db.add_target(src, h, "sys")
        P.set_postedit(db, t, e, "anna")
    ours = S.hter(db)
    tok = [" ".join(tokenize(x, "mteval")) for x in hyps], [" ".join(tokenize(x, "mteval")) for x in edits]
    sacre = SacreTER(case_sensitive=True)
    assert ours.system("sys").value == pytest.approx(sacre.corpus_score(tok[0], [tok[1]]).score / 100,
                                                     abs=1e-12)
    for i in range(len(hyps)):
        assert ours.sentence((i, "sys", 0)) == pytest.approx(
            sacre.sentence_score(tok[0][i], [tok[1][i]]).score / 100, abs=1e-12)
    preset = S.hter(db, PRESETS["sacrebleu"])
    assert preset.system("sys").value == pytest.approx(
        SacreTER().corpus_score(hyps, [edits]).score / 100, abs=1e-12)


def test_hter_judges_averaged():
    db = small_db()
    t = cand(db, 0, "A")
    P.set_postedit(db, t, "a b x d", "anna")            # 0 edits, 4 words
    P.set_postedit(db, t, "a b c d e", "ben")           # 2 edits, 5 words
    st = S.hter(db).stats[(0, "A", 0)]
    assert st == pytest.approx((1.0, 4.5))
    assert S.hter(db, judge="ben").sentence((0, "A", 0)) == pytest.approx(0.4)


# ------------------------------------------------------------------ aWER (survey §4.4.4)
def test_awer_includes_added_references():
    db = small_db()
    # before: A has d = 1 of 4 ("x" for "c") and d = 1 of 3 ("g" missing): 2 / 7
    assert S.awer(db).system("A").value == pytest.approx(2 / 7)
    P.add_reference(db, db.sources[0], "a b x d", judge="anna")
    # the judge accepted "x": d = 0 to the new reference; average length (4 + 4) / 2 = 4
    res = S.awer(db)
    assert res.system("A").value == pytest.approx(1 / 7)
    assert res.sentence((0, "A", 0)) == 0.0
    assert S.added_references(db) == 1
    # B is unchanged: "E f g" vs "e f g" is one substitution with case kept -> 1 / 7
    assert res.system("B").value == pytest.approx(1 / 7)


# ------------------------------------------------------------------ SER (survey §4.4.7)
def test_ser_after_preprocessing():
    db = small_db()
    # A: neither candidate equals its reference; B: "a b c d" does, "E f g" does not (case)
    assert S.ser(db).system("A").value == 1.0
    assert S.ser(db).system("B").value == 0.5
    assert S.ser(db, EvalOptions(case="ignore")).system("B").value == 0.0
    db2 = Database()
    s = db2.add_source("x", seg="1")
    db2.add_target(s, "Hello , world", "ref", reference=True)
    db2.add_target(s, "Hello, world", "A")          # 13a splits the comma: a match
    assert S.ser(db2).system("A").value == 0.0
    assert S.ser(db2, EvalOptions(tokenization="none")).system("A").value == 1.0


def test_summary_and_human_scores():
    db = small_db()
    schemes.add_template(db, "sser")
    cand(db, 0, "A").set_score("sser", 8, "anna")
    P.set_postedit(db, cand(db, 0, "A"), "a b c d e", "anna")
    table = S.summary(db)
    assert set(table) == {"A", "B"}
    assert table["A"]["sser:sser"].value == pytest.approx(0.2)
    assert math.isnan(table["B"]["hter"].value) and table["B"]["hter"].sentences == 0
    hs = human_scores(db, "hter")                 # negated: higher is better
    assert hs.values[(0, "A", 0)] == pytest.approx(-0.4)
    assert S.protocol_names(db, only_with_data=True) == ["sser:sser", "hter"]
    with pytest.raises(ScoreError, match="cannot be combined"):
        human_scores(db, "hter+sser")


# ------------------------------------------------------------------ checked edits
def test_edits_refuse_bad_input():
    db = small_db()
    s1 = db.sources[0]
    with pytest.raises(ScoreError, match="outside the sentence"):
        P.define_items(s1, P.parse_spans("1-3,4-9"))
    with pytest.raises(ScoreError, match="overlaps"):
        P.define_items(s1, P.parse_spans("1-3,3-4"))
    with pytest.raises(ScoreError, match="FIRST-LAST"):
        P.parse_spans("1-a")
    with pytest.raises(ScoreError, match="no information items"):
        P.set_marks(db, s1, cand(db, 0, "A"), "OK", "anna")
    P.define_items(s1, [(0, 2), (2, 4)])
    with pytest.raises(ScoreError, match="one mark per item"):
        P.set_marks(db, s1, cand(db, 0, "A"), "OK", "anna")
    with pytest.raises(ScoreError, match="unknown item mark"):
        P.set_marks(db, s1, cand(db, 0, "A"), "OK,bad", "anna")
    P.set_marks(db, s1, cand(db, 0, "A"), "ok,Syntax", "anna")
    assert cand(db, 0, "A").marks_by("anna").marks == ("OK", "syntax")
    with pytest.raises(ScoreError, match="force"):
        P.define_items(s1, [(0, 1)])
    assert P.define_items(s1, [(0, 1)], force=True) == 1 and not cand(db, 0, "A").item_marks
    with pytest.raises(ScoreError, match="source 3 does not exist"):
        P.source_at(db, 3)
    with pytest.raises(ScoreError, match="already a reference"):
        P.promote(db, P.target_of(db, s1, "ref"))
    with pytest.raises(ScoreError, match="post-edit a candidate"):
        P.set_postedit(db, P.target_of(db, s1, "ref"), "x", "anna")
    with pytest.raises(ScoreError, match="seconds"):
        P.set_postedit(db, cand(db, 0, "A"), "x", "anna", -1)
    with pytest.raises(ScoreError, match="already has this reference"):
        P.add_reference(db, s1, "a b c d")


def test_promote_unmark_and_added_references():
    db = small_db()
    s1 = db.sources[0]
    a = cand(db, 0, "A")
    P.promote(db, a)
    assert db.is_reference(a) and [t.system for t in db.references(s1)] == ["ref", "A"]
    assert P.unmark(db, s1, a) is False and not db.is_reference(a)
    r = P.add_reference(db, s1, "a b x d", judge="anna")
    assert (r.system, r.added, r.added_by) == ("added-1", True, "anna") and db.is_reference(r)
    assert P.unmark(db, s1, r) is True and r not in s1.targets


def test_changes_undo_to_the_same_database():
    db = small_db()
    before = small_db()
    undo = []
    for ch in (pc.items_change(db, 0, [(0, 2), (2, 4)]),
               pc.postedit_change(db, 0, 1, "anna", "a b c d", 3.0),
               pc.marks_change(db, 0, 1, "anna", ("OK", "meaning")),
               pc.reference_change(db, 0, None, "add", text="a b x d", judge="anna"),
               pc.reference_change(db, 1, 1, "mark"),
               pc.items_change(db, 0, [(0, 4)])):               # drops anna's marks
        undo.append(pc.apply_protocol_change(db, ch))
    assert cand(db, 0, "A").item_marks == [] and db.sources[0].items == [(0, 4)]
    assert db != before
    for u in reversed(undo):
        for ch in u:
            pc.apply_protocol_change(db, ch)
    assert db == before
