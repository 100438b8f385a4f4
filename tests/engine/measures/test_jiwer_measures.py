"""jiwer's MER, WIL, WIP and CER as measures = jiwer 4 ``process_words`` / ``cer``, live, to
1e-12: on 13a-tokenised WMT21 en-de (reference A), on edge cases and on corpora with empty
references; the multi-reference rule; the batch command."""

from __future__ import annotations

import jiwer
import numpy as np
import pytest

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.measures import get
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.options import EvalOptions
from evaltrans_qt.engine.text.preprocess import Vocabulary
from tests.engine.ngram_wmt import load

WORD_MEASURES = ("mer", "wil", "wip")
ALL = WORD_MEASURES + ("cer",)

# (reference, hypothesis) -- jiwer's argument order
EDGE = [
    ("", "a b"),
    ("", ""),
    ("a b", ""),
    ("a", "a"),
    ("a", "b"),
    ("a b", "b a"),
    ("a b c", "a x c d"),
    ("the cat sat on the mat", "on the mat the cat sat"),
    ("a a a b", "a b b b"),
    ("我 爱 北京", "我 爱 北京 天安门"),
    ("👍🏽 ok 🎉", "👍 ok"),
    ("cafe\u0301 au lait", "café au lait"),
    ("a\u00a0b c", "a b c"),
    ("x\ty z", "x y z"),
    ("one two three four five six seven", "one two"),
]


def make(name: str, vocab: Vocabulary, **opts):
    m = get(name)(EvalOptions(**opts))
    m.fit([], vocab)
    return m


def seg(v: Vocabulary, hyp: str, *refs: str) -> Segment:
    """Words split on single spaces, as jiwer's default transform does on these texts."""
    enc = lambda t: v.encode([w for w in t.split(" ") if w])
    return Segment(enc(hyp), tuple(enc(r) for r in refs), hyp, refs)


def expected(name: str, refs, hyps) -> float:
    if name == "cer":
        return jiwer.cer(refs, hyps)
    return getattr(jiwer.process_words(refs, hyps), name)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("ref,hyp", EDGE)
def test_edge_sentences_equal_jiwer(name, ref, hyp):
    v = Vocabulary()
    m = make(name, v)
    st = m.sentence_stats(seg(v, hyp, ref))
    assert m.score(st).value == pytest.approx(expected(name, ref, hyp), rel=1e-12, abs=1e-12)
    assert m.score_values(st[None])[0] == m.score(st).value
    if name != "cer":
        o = jiwer.process_words(ref, hyp)
        assert st.tolist() == [o.hits, o.substitutions, o.deletions, o.insertions]
    a = m.align(seg(v, hyp, ref))
    c = a.counts()
    assert [c["match"], c["sub"], c["del"], c["ins"]] == st.tolist()


@pytest.mark.parametrize("name", ALL)
def test_edge_corpus_and_empty_reference_corpora_equal_jiwer(name):
    v = Vocabulary()
    m = make(name, v)
    for rows in (EDGE, EDGE[:3], [("", "x y"), ("", "")], [("", ""), ("", "")], EDGE[2:]):
        refs, hyps = [r for r, _ in rows], [h for _, h in rows]
        total = m.corpus_stats([seg(v, h, r) for r, h in rows]).sum(axis=0)
        want = expected(name, refs, hyps)
        assert m.score(total).value == pytest.approx(want, rel=1e-12, abs=1e-12), rows
        assert np.isfinite(m.score(total).value)


def test_empty_reference_values():
    """jiwer 4: wer("", "a b") = 2 insertions; mer 1, wip 0; cer counts inserted characters."""
    v = Vocabulary()
    s = seg(v, "a b", "")
    assert jiwer.wer("", "a b") == 2 and jiwer.cer("", "a b") == 3
    assert make("mer", v).score(make("mer", v).sentence_stats(s)).value == 1.0
    assert make("wip", v).score(make("wip", v).sentence_stats(s)).value == 0.0
    assert make("wil", v).score(make("wil", v).sentence_stats(s)).value == 1.0
    assert make("cer", v).score(make("cer", v).sentence_stats(s)).value == 3.0
    assert make("wer", v).score(make("wer", v).sentence_stats(s)).value == 2.0


def test_cer_on_raw_text_with_strip_and_case():
    """CER = jiwer.cer on the raw texts (stripped; inner tabs and no-break spaces count);
    --case ignore lower-cases both sides first."""
    v = Vocabulary()
    rows = [("  A\tb\u00a0c ", "a b c"), ("Über", "über "), ("x", "")]
    m = make("cer", v)
    total = m.corpus_stats([seg(v, h, r) for r, h in rows]).sum(axis=0)
    refs, hyps = [r for r, _ in rows], [h for _, h in rows]
    assert m.score(total).value == pytest.approx(jiwer.cer(refs, hyps), rel=1e-12, abs=1e-12)
    low = make("cer", v, case="ignore")
    total = low.corpus_stats([seg(v, h, r) for r, h in rows]).sum(axis=0)
    want = jiwer.cer([r.lower() for r in refs], [h.lower() for h in hyps])
    assert low.score(total).value == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.fixture(scope="module")
def wmt(wmt_dir):
    return load(wmt_dir)


@pytest.mark.parametrize("system", range(3))
def test_wmt_reference_a_equals_jiwer(wmt, system):
    """13a-tokenised WMT21 en-de, reference A: counts and all four measures as jiwer."""
    w = wmt
    name = sorted(w.values["systems"])[system]
    text = lambda ids: " ".join(w.vocab.decode(ids))
    hyps = [text(h) for h in w.hyps[name]]
    refs = [text(r) for r in w.refs[0]]
    segs = [Segment(h, (r,), ht, (rt,)) for h, r, ht, rt in zip(w.hyps[name], w.refs[0], hyps, refs)]
    out = jiwer.process_words(refs, hyps)
    for measure in ALL:
        m = make(measure, w.vocab)
        st = m.corpus_stats(segs)
        if measure != "cer":
            assert st.sum(axis=0).tolist() == [out.hits, out.substitutions, out.deletions,
                                               out.insertions]
            want = getattr(out, measure)
        else:
            want = jiwer.cer(refs, hyps)
        assert m.score(st.sum(axis=0)).value == pytest.approx(want, rel=1e-12, abs=1e-12)
    # WER's distance agrees with the edits of jiwer's alignment (same minimum, and jiwer's
    # WER = reference_values' wer_refA)
    wer = make("wer", w.vocab)
    assert wer.score(wer.corpus_stats(segs).sum(axis=0)).value == pytest.approx(out.wer, rel=1e-12)
    assert out.wer == pytest.approx(w.values["systems"][name]["wer_refA"], rel=1e-12)


def test_multi_reference_rule():
    """Per segment the reference with the best sentence value, ties to fewer edits, then first;
    WIL and WIP keep the same reference."""
    v = Vocabulary()
    s = seg(v, "a b c d", "a b x y z w", "a b c", "q")
    for name in WORD_MEASURES:
        m = make(name, v)
        assert m.best_reference(s) == 1
        assert m.sentence_stats(s).tolist() == [3, 0, 0, 1]
        assert m.reference_distances(s) == [4.0, 1.0, 4.0]
    # MER ties (1/2 each): fewer edits wins
    s2 = seg(v, "a b", "a x", "a b c d")
    assert make("mer", v).best_reference(s2) == 0          # 1 edit vs 2 edits
    tie = seg(v, "a b", "a x", "a y")
    assert make("mer", v).best_reference(tie) == 0
    # CER: lowest character error rate
    s3 = seg(v, "abc", "abcdefgh", "abd")
    assert make("cer", v).best_reference(s3) == 1
    # no references: zero counts, nothing to align
    lone = Segment(v.encode(["a"]), (), "a", ())
    for name in ALL:
        m = make(name, v)
        assert m.sentence_stats(lone).tolist() == [0, 0, 0, 0] and m.align(lone) is None


def test_score_values_equal_score_on_random_counts():
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 4, size=(300, 4)).astype(float)
    rows[:20, :3] = 0                                           # empty references
    for name in ALL:
        m = get(name)()
        want = np.array([m.score(r).value for r in rows])
        assert np.array_equal(m.score_values(rows), want)
        assert np.isfinite(want).all()


def test_registered_with_report_elements():
    for name in ALL:
        cls = get(name)
        assert cls.name == name and cls.report_element == name
        assert cls.higher_is_better == (name == "wip")
        d = cls().score(np.array([3.0, 1.0, 1.0, 2.0])).details
        assert d["reference-length"] == 5 and d["hypothesis-length"] == 6
        assert {"hits", "substitutions", "deletions", "insertions"} <= set(d)


def test_batch_command_computes_them(tmp_path, capsys):
    refs = ["the cat sat on the mat", "", "a b c", "x y"]
    hyps = ["on the mat the cat sat", "a b", "a x c d", "x  y"]
    src = tmp_path / "src.txt"
    src.write_text("".join(f"s{i}\n" for i in range(len(refs))), encoding="utf-8")
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    rc = main(["batch", "--source", str(src), "--reference", str(tmp_path / "ref.txt"),
               "--target", f"sys={tmp_path / 'hyp.txt'}", "--measures", "mer,wil,wip,cer",
               "--tokenization", "none", "--jobs", "1"])
    assert rc == 0
    out = capsys.readouterr().out
    o = jiwer.process_words(refs, hyps)
    for name, want in (("mer", o.mer), ("wil", o.wil), ("wip", o.wip),
                       ("cer", jiwer.cer(refs, hyps))):
        line = next(l for l in out.splitlines() if l.startswith(f"{name}:"))
        assert float(line.split()[1]) == pytest.approx(want, abs=5e-5), line
