"""Tokenisers none, 13a, intl, char, zh, ja-mecab, ko-mecab and case against sacreBLEU's
own preprocessing (``BLEU._preprocess_segment``: lower-case, then tokenise the
right-stripped text), loading in threads, and the message when an extra is missing."""

from __future__ import annotations

import sys
import threading
import time
import types

import pytest
from sacrebleu.metrics import BLEU as SacreBLEU

from evaltrans_qt.engine.options import SACREBLEU_TOKENIZERS
from evaltrans_qt.engine.text import preprocess
from evaltrans_qt.engine.text.preprocess import tokenize
from evaltrans_qt.errors import OptionError
from tests.engine.measures.test_bleu_smoothing import TOKENIZERS

TEXTS = [
    "",
    "   ",
    "a",
    "The U.S. economy grew 3.5% in Q2-2021, said Dr. Smith &amp; co.",
    "Er sagte: „Das ist 1.000,5 € wert!“ – wirklich?",
    "  spaces\tand\u00a0no-break\u202fspace  ",
    " .5 leading punctuation, trailing . ",
    "line-\nbreak <skipped> here\n",
    # case edge text: Turkish dotted I, German sharp s, Greek final sigma, combining accents
    "İSTANBUL'DA İki IŞIK",
    "STRASSE Straße ẞ GROẞ",
    "ΟΔΟΣ.ΑΛΛΗ ΟΔΟΣ, ΟΔΟΣ' Σ",
    "Cafe\u0301 CAFE\u0301 e\u0301\u0301 Ǆ ǅ",
    "今天天气很好。我喜欢猫和狗！ＡＢＣ１２３",
    "今日は良い天気です。東京タワーに行きました。",
    "오늘은 날씨가 좋습니다. 서울에 갔어요!",
    "I ❤️ NY 🍕🍕 👍🏽 👨‍👩‍👧 ok…",
    "&QUOT;Quoted&QUOT; &LT;tag&GT;",
]


@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lc"])
@pytest.mark.parametrize("tok", TOKENIZERS)
def test_tokenize_equals_sacrebleu_preprocessing(tok, lowercase):
    sacre = SacreBLEU(tokenize=tok, lowercase=lowercase)
    case = "ignore" if lowercase else "use"
    for text in TEXTS:
        want = sacre._preprocess_segment(text).split()
        assert tokenize(text, SACREBLEU_TOKENIZERS[tok], case) == want, repr(text)


def test_lowercasing_tokens_afterwards_would_differ():
    """Why ``case ignore`` lower-cases before tokenising: "İ".lower() is two characters
    and Greek final sigma depends on the next character, so per-token lower-casing gives
    other tokens than sacreBLEU's on this text (and ours does not)."""
    for method, text in (("char", "İSTANBUL"), ("mteval", "ΟΔΟΣ.ΑΛΛΗ")):
        sacre = SacreBLEU(tokenize={"char": "char", "mteval": "13a"}[method], lowercase=True)
        want = sacre._preprocess_segment(text).split()
        afterwards = [t.lower() for t in tokenize(text, method)]
        assert afterwards != want
        assert tokenize(text, method, "ignore") == want


def test_unknown_tokenizer_and_case_are_option_errors():
    with pytest.raises(OptionError, match="tokenization 'spm'"):
        tokenize("a b", "spm")
    with pytest.raises(OptionError, match="case option 'lower'"):
        tokenize("a b", "none", "lower")
    with pytest.raises(OptionError, match="unknown sacreBLEU tokenizer 'flores101'"):
        preprocess._sacrebleu_tokenizer("flores101")


@pytest.mark.parametrize("name, extra", [("ja-mecab", "ja"), ("ko-mecab", "ko")])
def test_missing_mecab_names_the_extra(monkeypatch, name, extra):
    """Without the optional packages sacreBLEU's module sets MeCab = None; we say which
    extra installs them instead of sacreBLEU's RuntimeError."""
    module = "sacrebleu.tokenizers." + preprocess._SACREBLEU_CLASSES[name][0]
    fake = types.ModuleType(module)
    fake.MeCab = None
    monkeypatch.setitem(sys.modules, module, fake)
    monkeypatch.setattr(preprocess, "_LOADED", {})
    with pytest.raises(OptionError, match=rf"pip install 'evaltrans_qt\[{extra}\]'"):
        tokenize("テスト", name)


def test_tokenizers_load_once_from_many_threads(monkeypatch):
    """Sixteen threads that each need every tokenizer first, with sacreBLEU's tokenizer
    modules not yet imported: every thread gets the same, right tokens, each tokenizer is
    built once (no importlib _DeadlockError, no half-built tokenizer)."""
    methods = ["mteval", "intl", "char", "zh", "mteval-contractions"]
    for _name, (module, _, extra) in preprocess._SACREBLEU_CLASSES.items():
        if extra is None:
            monkeypatch.delitem(sys.modules, "sacrebleu.tokenizers." + module, raising=False)
    monkeypatch.setattr(preprocess, "_LOADED", {})
    text = "Er sagte: „Das ist 1.000,5 € wert!“ 今天天气很好。"
    want = {m: tokenize(text, m) for m in methods}
    monkeypatch.setattr(preprocess, "_LOADED", {})
    for _name, (module, _, extra) in preprocess._SACREBLEU_CLASSES.items():
        if extra is None:
            monkeypatch.delitem(sys.modules, "sacrebleu.tokenizers." + module, raising=False)
    imports: list[str] = []
    real_import = preprocess.import_module

    def slow_import(name: str):
        imports.append(name)
        time.sleep(0.02)                    # a slow first import: the others must wait
        return real_import(name)

    monkeypatch.setattr(preprocess, "import_module", slow_import)
    barrier = threading.Barrier(16)
    results: list = []
    errors: list = []

    def work(k: int) -> None:
        try:
            barrier.wait()
            order = methods[k % len(methods):] + methods[:k % len(methods)]
            results.append({m: tokenize(text, m) for m in order})
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert len(results) == 16 and all(r == want for r in results)
    assert set(preprocess._LOADED) == {"13a", "intl", "char", "zh"}
    assert sorted(imports) == sorted("sacrebleu.tokenizers." + m for m in
                                     ("tokenizer_13a", "tokenizer_intl", "tokenizer_char",
                                      "tokenizer_zh"))   # each once


# ------------------------------------------------------- 13a's faster post-tokenizer
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402


def test_13a_is_accelerated_and_equals_the_stock_tokenizer_on_wmt(wmt_dir):
    """preprocess._accelerate_13a: every distinct line of the WMT21 en-de files."""
    ours = preprocess._sacrebleu_tokenizer("13a")
    assert type(ours._post_tokenizer).__name__ == "_Post"
    stock = Tokenizer13a()
    lines = {line for path in sorted(wmt_dir.iterdir()) if path.suffix in (".de", ".en")
             for line in path.read_text(encoding="utf-8").split("\n")}
    assert len(lines) > 15000
    assert [ours(x) for x in sorted(lines)] == [stock(x) for x in sorted(lines)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(list(" .,-0123456789aZ!\"#$%&'()*+/:;<=>?@[\\]^_`{|}~"
                                     "\t\n\u00a0€„“–…ßİ") + ["&quot;", "&amp;", "<skipped>",
                                                               "-\n"]),
                max_size=40).map("".join))
def test_13a_accelerated_equals_stock_on_punctuation_runs(text):
    stock = Tokenizer13a()
    assert preprocess._sacrebleu_tokenizer("13a")(text) == stock(text)


def test_13a_with_other_rules_is_left_alone():
    tok = Tokenizer13a()
    rx, repl = tok._post_tokenizer._re[1]
    tok._post_tokenizer._re[1] = (rx, r"\1  \2 ")          # a different template
    before = tok._post_tokenizer
    preprocess._accelerate_13a(tok)
    assert tok._post_tokenizer is before
