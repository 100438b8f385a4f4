"""The object API ``evaltrans_qt.measure(name, **options)`` against independent tools on the
shared WMT21 en-de data (20 systems, references A, C, D): ``corpus_score`` equals sacreBLEU's
``BLEU``/``CHRF``/``TER`` objects (score, counts, totals, precisions, brevity penalty,
lengths, signature) and jiwer's WER; ``sentence_score`` equals sacreBLEU's
``sentence_score``; ``evaltrans_qt.score`` is the same numbers for references per segment."""

from __future__ import annotations

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER

import evaltrans_qt as et
from evaltrans_qt.errors import InputFormatError, OptionError

PREFIX = "newstest2021.en-de"


def _lines(path):
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def wmt(wmt_dir):
    refs = [_lines(wmt_dir / f"{PREFIX}.ref.{k}.de") for k in "ACD"]
    systems = {p.name.split(".")[-2]: _lines(p)
               for p in sorted(wmt_dir.glob(f"{PREFIX}.hyp.*.de"))}
    assert len(systems) == 20 and all(len(h) == len(refs[0]) for h in systems.values())
    return refs, systems


def _same_bleu(ours, theirs):
    assert ours.score == pytest.approx(theirs.score, rel=1e-12, abs=1e-12)
    assert ours.parts["counts"] == list(theirs.counts)
    assert ours.parts["totals"] == list(theirs.totals)
    assert ours.parts["precisions"] == pytest.approx(theirs.precisions, rel=1e-12)
    assert ours.parts["bp"] == pytest.approx(theirs.bp, rel=1e-12)
    assert (ours.parts["sys_len"], ours.parts["ref_len"]) == (theirs.sys_len, theirs.ref_len)


@pytest.mark.parametrize("nrefs", [1, 3])
def test_bleu_corpus_score_equals_sacrebleu(wmt, nrefs):
    refs, systems = wmt
    ours, theirs = et.measure("bleu"), BLEU()
    for hyps in list(systems.values())[::4]:           # 5 of the 20 systems
        got, want = ours.corpus_score(hyps, refs[:nrefs]), theirs.corpus_score(hyps, refs[:nrefs])
        _same_bleu(got, want)
        assert str(got) == f"{want.format(signature=str(theirs.get_signature()))}"
        assert len(got.sentences) == len(hyps)
    assert got.signature == str(theirs.get_signature())


def test_wer_without_tokenisation_equals_jiwer_on_every_system(wmt):
    jiwer = pytest.importorskip("jiwer")
    refs, systems = wmt
    # words are split on any whitespace (as sacreBLEU's tokenize none); jiwer's default
    # splits on " " only, and the data has 56 no-break spaces: jiwer's transform with \s+
    words = jiwer.Compose([jiwer.SubstituteRegexes({r"\s+": " "}), jiwer.Strip(),
                           jiwer.ReduceToListOfListOfWords()])
    wer = et.measure("wer", tokenization="none")
    for hyps in systems.values():
        got = wer.corpus_score(hyps, [refs[0]])
        want = jiwer.process_words(refs[0], hyps, reference_transform=words,
                                   hypothesis_transform=words)
        assert got.value == pytest.approx(want.wer, abs=1e-12)
        assert got.score == pytest.approx(100 * want.wer, abs=1e-10)
        assert got.parts["sum"] == want.substitutions + want.deletions + want.insertions
        assert got.parts["reference-length"] == want.hits + want.substitutions + want.deletions
    assert "tok:none" in got.signature and got.higher_is_better is False


@pytest.mark.parametrize("options, sacre, nrefs", [
    ({}, {}, 3), ({"word_order": 2}, {"word_order": 2}, 1), ({"chrf_beta": 1}, {"beta": 1}, 1)])
def test_chrf_corpus_score_equals_sacrebleu(wmt, options, sacre, nrefs):
    refs, systems = wmt
    ours, theirs = et.measure("chrf", **options), CHRF(**sacre)
    for name in ("Online-W", "happypoet"):
        got = ours.corpus_score(systems[name], refs[:nrefs])
        want = theirs.corpus_score(systems[name], refs[:nrefs])
        assert got.score == pytest.approx(want.score, rel=1e-12)
        assert got.name == want.name
        assert (got.parts["char_order"], got.parts["word_order"], got.parts["beta"]) == \
            (want.char_order, want.word_order, want.beta)
    assert got.signature == str(theirs.get_signature())


def test_ter_corpus_score_equals_sacrebleu(wmt):
    refs, systems = wmt
    hyps, first = systems["Facebook-AI"][:80], [r[:80] for r in refs]     # sacreBLEU's is slow
    got = et.measure("ter").corpus_score(hyps, first)
    theirs = TER()
    want = theirs.corpus_score(hyps, first)
    assert got.score == pytest.approx(want.score, rel=1e-12)
    assert got.parts["num_edits"] == want.num_edits
    assert got.parts["ref_length"] == pytest.approx(want.ref_length, rel=1e-12)
    assert got.signature == str(theirs.get_signature())


def test_sentence_score_equals_sacrebleus(wmt):
    refs, systems = wmt
    hyps = systems["Online-B"]
    bleu, eff = et.measure("bleu"), et.measure("bleu", bleu_effective_order=True)
    chrf, ter = et.measure("chrf"), et.measure("ter")
    for i in (0, 1, 17, 400, 999):
        sent_refs = [r[i] for r in refs]
        h = hyps[i]
        got, want = bleu.sentence_score(h, sent_refs), BLEU().sentence_score(h, sent_refs)
        _same_bleu(got, want)
        assert got.verbose == want._verbose
        assert eff.sentence_score(h, sent_refs).score == pytest.approx(
            sacrebleu.sentence_bleu(h, sent_refs).score, rel=1e-12, abs=1e-12)
        assert chrf.sentence_score(h, sent_refs).score == pytest.approx(
            sacrebleu.sentence_chrf(h, sent_refs).score, rel=1e-12)
        assert ter.sentence_score(h, sent_refs[:1]).score == pytest.approx(
            TER().sentence_score(h, sent_refs[:1]).score, rel=1e-12)
        # a sentence score is the corpus score of one line; the corpus keeps every line's
        assert got.sentences == (got.score,)
    corpus = bleu.corpus_score(hyps, refs)
    assert corpus.sentences[17] == pytest.approx(
        BLEU().sentence_score(hyps[17], [r[17] for r in refs]).score, rel=1e-12, abs=1e-12)


def test_score_is_measure_with_references_per_segment(wmt):
    refs, systems = wmt
    hyps = systems["VolcTrans-GLAT"][:100]
    per_segment = [[r[i] for r in refs] for i in range(100)]
    streams = [r[:100] for r in refs]
    both = et.score(["bleu", "chrf", "mWER"], hyps, per_segment)
    assert list(both) == ["bleu", "chrf", "wer"]
    for name, sc in both.items():
        assert sc == et.measure(name).corpus_score(hyps, streams)
        assert isinstance(sc, et.Score)


def test_options_names_aliases_and_errors():
    assert "measure" in et.__all__ and "Metric" in et.__all__
    bleu = et.measure("BLEU", smooth_method="floor", smooth_value=0.1, tokenization="intl")
    assert (bleu.name, bleu.options.bleu_smooth_method, bleu.options.bleu_smooth_value,
            bleu.options.tokenization) == ("bleu", "floor", 0.1, "intl")
    hyps, refs = ["the cat is on the mat", "hello there"], [["the cat sat on the mat", "hi"]]
    assert bleu.corpus_score(hyps, refs).score == pytest.approx(
        BLEU(smooth_method="floor", smooth_value=0.1, tokenize="intl").corpus_score(
            hyps, refs).score, rel=1e-12)
    assert et.measure("mWER").name == "wer" and et.measure("m-per").name == "nper"
    assert et.measure("bleu", preset="thesis default").options == et.PRESETS["thesis default"]
    opts = et.EvalOptions(case="ignore")
    assert et.measure("wer", options=opts).options is opts
    with pytest.raises(OptionError, match="unknown measure 'blue'"):
        et.measure("blue")
    with pytest.raises(OptionError, match="did you mean tokenization"):
        et.measure("bleu", tokenize="13a")
    with pytest.raises(OptionError, match="one string"):
        et.measure("bleu").corpus_score("the cat", refs)
    with pytest.raises(OptionError, match="one string"):
        et.measure("bleu").sentence_score("the cat", "the cat")
    with pytest.raises(InputFormatError, match="1 hypotheses but 2 reference segments"):
        et.measure("bleu").corpus_score(hyps[:1], refs)


def test_references_are_prepared_once_per_test_set():
    from evaltrans_qt.engine.run.scoring import Scorer
    made = []
    real_init = Scorer.__init__

    def counting_init(self, *args, **kwargs):
        made.append(1)
        real_init(self, *args, **kwargs)
    chrf = et.measure("chrf")
    refs = [["the cat sat on the mat", "hello world"]]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Scorer, "__init__", counting_init)
        a = chrf.corpus_score(["the cat is on the mat", "hello"], refs)
        b = chrf.corpus_score(["a cat sat on the mat", "hello world"], [list(refs[0])])
        chrf.corpus_score(["x", "y"], [["x", "z"]])
    assert len(made) == 2 and a.score < b.score
