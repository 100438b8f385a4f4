"""Tokenisation (thesis Figure 5.1), case, boundaries (Figure 5.2)."""

import pytest
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from evaltrans_qt.engine.text.preprocess import (
    BOS,
    EOS,
    Vocabulary,
    expand_contraction,
    pad,
    tokenize,
)
from evaltrans_qt.errors import OptionError

FIG_5_1 = 'Powell said: "We\'d not be alone; that\'s for sure."'


@pytest.mark.parametrize("method, expected", [
    ("none", 'Powell said: "We\'d not be alone; that\'s for sure."'),
    ("remove-punctuation", "Powell said We d not be alone that s for sure"),
    ("mteval", 'Powell said : " We\'d not be alone ; that\'s for sure . "'),
    ("mteval-contractions", 'Powell said : " we would not be alone ; that is for sure . "'),
])
def test_figure_5_1(method, expected):
    assert " ".join(tokenize(FIG_5_1, method)) == expected


@pytest.mark.parametrize("text", [
    "The U.S. economy grew 3.5% in Q2-2021, said Dr. Smith &amp; co.",
    "Er sagte: „Das ist 1.000,5 € wert!“ – wirklich?",
    "  spaces\tand\u00a0no-break space  ",
    "",
])
def test_mteval_equals_sacrebleu_13a(text):
    """sacreBLEU's BLEU tokenises the right-stripped text (BLEU._preprocess_segment)."""
    assert tokenize(text, "mteval") == Tokenizer13a()(text.rstrip()).split()


def test_case_ignore_is_unicode_aware():
    assert tokenize("ÄRGER Über Straße", "none", "ignore") == ["ärger", "über", "straße"]


@pytest.mark.parametrize("tok, out", [
    ("don't", ["do", "not"]), ("We'll", ["we", "will"]), ("they're", ["they", "are"]),
    ("I've", ["i", "have"]), ("I'm", ["i", "am"]), ("won't", ["will", "not"]),
    ("can't", ["can", "not"]), ("it\u2019s", ["it", "is"]), ("table", ["table"]),
])
def test_contractions(tok, out):
    assert expand_contraction(tok) == out


def test_unknown_method_is_an_option_error():
    with pytest.raises(OptionError):
        tokenize("a b", "bogus")


def test_figure_5_2_boundaries():
    s = "I prefer the plane".split()
    bigrams = list(zip(*(pad(s, "both", 2)[i:] for i in range(2))))
    assert bigrams == [(BOS, "I"), ("I", "prefer"), ("prefer", "the"), ("the", "plane"),
                       ("plane", EOS)]
    p3 = pad(s, "both", 3)
    trigrams = list(zip(*(p3[i:] for i in range(3))))
    assert trigrams[:2] == [(BOS, BOS, "I"), (BOS, "I", "prefer")]
    assert trigrams[-1] == ("the", "plane", EOS)
    assert pad(s, "none", 3) == s
    assert pad(s, "initial", 2) == [BOS] + s
    assert pad(s, "end", 2) == s + [EOS]


def test_vocabulary_roundtrip():
    v = Vocabulary()
    ids = v.encode(["a", "b", "a"])
    assert ids.dtype.name == "int32"
    assert list(ids) == [2, 3, 2]
    assert v.decode(ids) == ["a", "b", "a"]


def test_literal_boundary_strings_are_ordinary_words():
    """A text containing "<s>" must not match the artificial boundary (ids 0/1)."""
    v = Vocabulary()
    ids = v.encode([BOS, "x", EOS])
    assert 0 not in ids and 1 not in ids
    assert v.decode(ids) == [BOS, "x", EOS]


def test_literal_bos_does_not_match_padding_in_bleu():
    from evaltrans_qt.engine.measures.base import Segment
    from evaltrans_qt.engine.measures.bleu import BLEU
    from evaltrans_qt.engine.options import EvalOptions
    v = Vocabulary()
    hyp, ref = v.encode("<s> x y".split()), v.encode("x y".split())
    m = BLEU(EvalOptions(bleu_pad_rule="initial", tokenization="none"))
    m.fit([Segment(ref[:0], (ref,))], v)
    lit = m.score(m.sentence_stats(Segment(hyp, (ref,))))
    hyp2 = v.encode("<b> x y".split())
    other = m.score(m.sentence_stats(Segment(hyp2, (ref,))))
    assert lit.value == pytest.approx(other.value)     # "<s>" behaves like any other word
