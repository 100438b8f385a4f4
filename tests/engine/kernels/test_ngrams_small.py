"""The small-input path of ``clipped_counts`` (start-up time): plain Python and the
numba kernel give identical statistics, on random data and on WMT21 en-de, and small
inputs are counted without importing numba (engine/kernels/ngrams.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sacrebleu

from evaltrans_qt.engine.kernels import ngrams
from evaltrans_qt.engine.kernels.ngrams import build_table, clipped_counts
from evaltrans_qt.errors import OptionError
from tests.engine.ngram_wmt import load

PAD_RULES = ("none", "initial", "end", "both")


def _random_corpus(rng: np.random.Generator, n: int, vocab: int):
    """Segments with 0-3 references each; a small vocabulary so m-grams repeat."""
    def sent():
        return rng.integers(2, 2 + vocab, rng.integers(0, 12)).astype(np.int32)
    hyps = [sent() for _ in range(n)]
    refs = [[sent() for _ in range(rng.integers(0, 4))] for _ in range(n)]
    return hyps, refs


@pytest.mark.parametrize("rule", PAD_RULES)
@pytest.mark.parametrize("order", [1, 2, 4, 5])
def test_python_and_kernel_paths_agree_on_random_data(rule, order):
    rng = np.random.default_rng(1000 * order + PAD_RULES.index(rule))
    for vocab in (3, 8, 50):
        hyps, refs = _random_corpus(rng, 60, vocab)
        c_py, t_py, i_py, m_py = clipped_counts(hyps, refs, order, rule, path="python")
        c_k, t_k, i_k, m_k = clipped_counts(hyps, refs, order, rule, path="kernel")
        assert c_py.dtype == c_k.dtype and t_py.dtype == t_k.dtype
        assert np.array_equal(c_py, c_k) and np.array_equal(t_py, t_k)
        assert np.array_equal(i_py, i_k) and m_py == m_k == 0
        assert c_py.sum() > 0                      # the data has matches to clip


def test_python_path_matches_the_reference_implementation():
    """Against the per-segment ``Counter`` reference of the kernel tests (thesis eq. 3.1-3.3)."""
    rng = np.random.default_rng(7)
    hyps, refs = _random_corpus(rng, 40, 4)
    for rule in PAD_RULES:
        correct, total, _, _ = clipped_counts(hyps, refs, 4, rule, path="python")
        for k, (h, rs) in enumerate(zip(hyps, refs)):
            c, t, _ = ngrams.clipped_counts_py(h, rs, 4, rule)
            assert correct[k].tolist() == c and total[k].tolist() == t


@pytest.mark.slow
def test_python_and_kernel_paths_agree_on_wmt(wmt_dir):
    """Two WMT21 en-de systems against the three references (13a tokens), every pad rule."""
    w = load(wmt_dir)
    refs = [tuple(r[i] for r in w.refs) for i in range(len(w.refs[0]))]
    for system in list(w.hyps)[:2]:
        for rule in PAD_RULES:
            py = clipped_counts(w.hyps[system], refs, 4, rule, path="python")
            k = clipped_counts(w.hyps[system], refs, 4, rule, path="kernel")
            assert np.array_equal(py[0], k[0]) and np.array_equal(py[1], k[1])


def test_python_path_gives_sacrebleus_counts(wmt_dir):
    """The statistics behind BLEU on the first 100 WMT21 lines equal sacreBLEU's counts."""
    w = load(wmt_dir)
    system = next(iter(w.hyps))
    n = 100
    refs = [tuple(r[i] for r in w.refs) for i in range(n)]
    correct, total, _, _ = clipped_counts(w.hyps[system][:n], refs, 4, path="python")
    theirs = sacrebleu.corpus_bleu(w.hyp_texts[system][:n], [r[:n] for r in w.ref_texts])
    assert correct.sum(axis=0).tolist() == theirs.counts
    assert total.sum(axis=0).tolist() == theirs.totals


def test_auto_chooses_by_size_until_the_kernels_are_compiled(monkeypatch):
    rng = np.random.default_rng(3)
    hyps, refs = _random_corpus(rng, 30, 5)
    calls = []
    real = ngrams._clipped_counts_small
    monkeypatch.setattr(ngrams, "_clipped_counts_small",
                        lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(ngrams, "kernels_compiled", lambda: False)
    clipped_counts(hyps, refs, 4)
    assert calls == [1]                                  # small: Python
    monkeypatch.setattr(ngrams, "SMALL_INPUT_TOKENS", 10)
    clipped_counts(hyps, refs, 4)
    assert calls == [1]                                  # large: the kernel
    monkeypatch.setattr(ngrams, "SMALL_INPUT_TOKENS", 10 ** 9)
    monkeypatch.setattr(ngrams, "kernels_compiled", lambda: True)
    clipped_counts(hyps, refs, 4)
    assert calls == [1]                                  # compiled: always the kernel


def test_weights_never_take_the_python_path():
    seqs = [np.array([2, 3, 4], np.int32), np.array([2, 3], np.int32)]
    table = build_table(seqs, 2)
    w = table.info_weights()
    _, _, info, _ = clipped_counts([seqs[0]], [[seqs[1]]], 2, table=table, weights=w)
    assert info.sum() > 0
    with pytest.raises(OptionError, match="no NIST weights"):
        clipped_counts([seqs[0]], [[seqs[1]]], 2, table=table, weights=w, path="python")
    with pytest.raises(OptionError, match="unknown counting path"):
        clipped_counts([seqs[0]], [[seqs[1]]], 2, path="fast")


def test_small_bleu_does_not_import_numba():
    code = ("import sys\n"
            "import evaltrans_qt as et\n"
            "s = et.measure('bleu').corpus_score(['the cat sat on the mat'],\n"
            "                                    [['the cat sat on a mat']])\n"
            "assert 40 < s.score < 60, s.score\n"
            "print('numba' in sys.modules)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"
