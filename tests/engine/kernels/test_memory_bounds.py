"""Bounded memory: INVWER within its memory budget (exact, or a flagged
upper bound), LJWER's states, the CDER path and assignment tables, m-gram orders, and the
report reader's ``<reference-distance nr>``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections import Counter

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from evaltrans_qt.cli.main import main
from evaltrans_qt.engine.kernels.budget import auto_budget, budget_bytes
from evaltrans_qt.engine.kernels.cder import check_path_memory
from evaltrans_qt.engine.kernels.invwer import (
    OP_CAND,
    OP_MATCH,
    OP_REF,
    OP_SUB,
    inv_bounded,
    inv_distance,
    inv_distance_cyk,
    inv_search,
)
from evaltrans_qt.engine.kernels.ljwer import lj_distance_bruteforce, lj_search
from evaltrans_qt.engine.measures.base import Segment
from evaltrans_qt.engine.measures.invwer import INVWER
from evaltrans_qt.engine.options import MAX_ORDER, EvalOptions
from evaltrans_qt.errors import InputFormatError, OptionError
from evaltrans_qt.io.report import loads_report

GIB = 1 << 30


def random_pair(n: int, vocab: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, vocab, n).astype(np.int32),
            rng.integers(0, vocab, n).astype(np.int32))


def per_bound(a, b) -> int:
    """Unit-cost PER (bag) distance, eq. 4.11: a lower bound of d_inv (eq. 4.26)."""
    return max(len(a), len(b)) - sum((Counter(a.tolist()) & Counter(b.tolist())).values())


def tree_cost(a, b, res) -> int:
    """Cost of the returned tree (unit costs), checking that it covers every word once."""
    cand, ref = Counter(), Counter()
    cost = 0
    for code, i, l in res.ops.tolist():
        if code in (OP_MATCH, OP_SUB):
            assert (a[i] == b[l]) == (code == OP_MATCH)
            cand[i] += 1
            ref[l] += 1
            cost += code == OP_SUB
        elif code == OP_CAND:
            cand[i] += 1
            cost += 1
        else:
            assert code == OP_REF
            ref[l] += 1
            cost += 1
    assert cand == Counter(range(len(a))) and ref == Counter(range(len(b)))
    return cost + len(res.invs)


# ----------------------------------------------------------------- INVWER kernel
def test_auto_budget_is_a_safe_fraction():
    assert 0 < auto_budget() <= 2 * GIB
    assert budget_bytes(0) == auto_budget() and budget_bytes(3) == 3 << 20


@pytest.mark.parametrize("seed", range(6))
def test_small_pairs_stay_exact_and_identical(seed):
    """Within the default budget nothing changes: the exact search's value and tree."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 5, int(rng.integers(1, 9))).astype(np.int32)
    b = rng.integers(0, 5, int(rng.integers(1, 9))).astype(np.int32)
    res = inv_bounded(a, b, want_tree=True)
    d, ops, invs, _ = inv_search(a, b, want_tree=True)
    assert res.exact and res.distance == d == inv_distance_cyk(a, b, 1, 1, 1, 1)
    np.testing.assert_array_equal(res.ops, ops)
    np.testing.assert_array_equal(res.invs, invs)


@pytest.mark.parametrize("seed", range(3))
def test_tiny_budget_gives_a_flagged_upper_bound(seed):
    """1 MiB cannot hold the 30 x 30 table: the approximation is a real BTG tree whose cost
    is its value, >= the exact d_inv, >= the PER bound and <= the Levenshtein distance."""
    a, b = random_pair(30, 12, seed)
    res = inv_bounded(a, b, want_tree=True, max_bytes=1 << 20)
    exact = inv_distance(a, b)
    assert not res.exact
    assert res.distance >= exact >= per_bound(a, b)
    assert res.distance <= Levenshtein.distance(list(a), list(b))
    assert tree_cost(a, b, res) == res.distance


def test_inversion_inside_a_piece_is_kept():
    """A long monotone pair with one swapped phrase: the pieces keep the local inversion."""
    a = np.arange(300, dtype=np.int32)
    b = a.copy()
    b[100:105], b[105:110] = a[105:110], a[100:105]
    res = inv_bounded(a, b, want_tree=True, max_bytes=64 << 20)
    assert not res.exact and res.distance == 1 and len(res.invs) == 1
    assert tree_cost(a, b, res) == 1


def test_400_word_pair_under_the_default_budget_in_a_subprocess():
    """400 words used to request 38.5 GiB. Now: flagged, bounded, < 2 GiB, < 60 s."""
    code = textwrap.dedent("""
        import json, resource, sys, time
        import numpy as np
        from evaltrans_qt.engine.measures.base import Segment
        from evaltrans_qt.engine.measures.invwer import INVWER
        from evaltrans_qt.engine.options import EvalOptions
        rng = np.random.default_rng(7)
        a = rng.integers(0, 50, 400).astype(np.int32)
        b = rng.integers(0, 50, 400).astype(np.int32)
        m = INVWER(EvalOptions(allow_transpositions=True))
        t = time.perf_counter()
        stats = m.sentence_stats(Segment(a, (b,)))
        al = m.align(Segment(a, (b,)))
        print(json.dumps({"stats": stats.tolist(), "seconds": time.perf_counter() - t,
                          "tree": al.operation_cost(),
                          "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    d, ref_len, flag = got["stats"]
    rng = np.random.default_rng(7)
    a = rng.integers(0, 50, 400).astype(np.int32)
    b = rng.integers(0, 50, 400).astype(np.int32)
    assert flag == 1 and ref_len == 400
    assert per_bound(a, b) <= d <= Levenshtein.distance(list(a), list(b))
    assert got["tree"] == d
    assert got["maxrss"] * 1024 < 2 * GIB         # Linux: kilobytes
    assert got["seconds"] < 60


# ----------------------------------------------------------------- INVWER measure
def test_measure_flags_segments_and_scores():
    a, b = random_pair(40, 15, 3)
    seg = Segment(a, (b, b[:10]))
    tight = INVWER(EvalOptions(allow_transpositions=True, invwer_memory_budget=1))
    free = INVWER(EvalOptions(allow_transpositions=True))
    st_tight, st_free = tight.sentence_stats(seg), free.sentence_stats(seg)
    assert st_free[2] == 0 and st_tight[2] == 1
    assert tight.sentence_flags(seg) == {"approximated": True}
    assert st_tight[0] >= st_free[0] and st_tight[1] == st_free[1]
    assert tight.score(st_tight).details["approximated-sentences"] == 1.0
    assert tight.align(seg).notes["approximated"] is True
    assert free.align(seg).notes["approximated"] is False


def test_run_flags_reach_the_result_and_the_report(tmp_path):
    from evaltrans_qt.engine.run.driver import evaluate
    from evaltrans_qt.engine.run.executors.local import SerialExecutor
    from evaltrans_qt.io.plaintext import database_from_files
    from evaltrans_qt.io.report import build_report
    a, b = random_pair(40, 15, 4)
    words = [f"w{i}" for i in range(15)]
    (tmp_path / "src").write_text("s1\ns2\n")
    (tmp_path / "ref").write_text("a b c\n" + " ".join(words[i] for i in b) + "\n")
    (tmp_path / "hyp").write_text("a c b\n" + " ".join(words[i] for i in a) + "\n")
    db = database_from_files(tmp_path / "src", [tmp_path / "ref"], {"S": tmp_path / "hyp"})
    opts = EvalOptions(allow_transpositions=True, invwer_memory_budget=1)
    run = evaluate(db, opts, ["invwer"], executor=SerialExecutor())
    sr = run.systems["S"]
    assert sr.flags["invwer"]["approximated"].tolist() == [False, True]
    report = build_report(run, "S", sentences_in_detail=True).decode()
    assert report.count('flags="approximated"') == 1
    from evaltrans_qt.engine.measures.approximation import approximation_warnings
    (w,) = approximation_warnings(sr)
    assert "invwer: 1 sentence(s)" in w and "sources 2" in w
    # never silent: the run's warnings name it too (CLI stderr, the application's status)
    assert w in run.meta["warnings"]
    exact = evaluate(db, opts.replace(invwer_memory_budget=0), ["invwer"],
                     executor=SerialExecutor())
    assert not any("approximated" in x for x in exact.meta["warnings"])


def test_align_cli_on_400_words_says_approximated(capsys):
    rng = np.random.default_rng(11)
    cand = " ".join(f"w{x}" for x in rng.integers(0, 60, 400))
    ref = " ".join(f"w{x}" for x in rng.integers(0, 60, 400))
    assert main(["align", "--measure", "invwer", cand, ref]) == 0
    out, err = capsys.readouterr()
    assert "Approximated: the distance is an upper bound" in out
    assert "invwer: the pair is approximated" in err
    assert main(["align", "--json", "--measure", "invwer", cand, ref]) == 0
    assert json.loads(capsys.readouterr().out)["notes"]["approximated"] is True


# ----------------------------------------------------------------- LJWER
@pytest.mark.parametrize("seed", range(3))
def test_ljwer_state_budget_gives_an_upper_bound(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, 8).astype(np.int32)
    b = rng.integers(0, 4, 8).astype(np.int32)
    exact = lj_distance_bruteforce(a.tolist(), b.tolist())
    d, ex, *_ = lj_search(a, b, max_bytes=2000)      # about 15 states
    assert d >= exact and d <= Levenshtein.distance(list(a), list(b))
    d2, ex2, *_ = lj_search(a, b, max_bytes=1 << 30)
    assert ex2 and d2 == exact


def test_ljwer_long_reference_needs_linear_memory_for_distances():
    a, b = random_pair(30, 40, 5)
    b = np.tile(b, 100)                               # 3000 reference words
    t = time.perf_counter()
    d, exact, moves, *_ = lj_search(a, b, max_bytes=8 << 20, want_path=False)
    assert not exact and len(moves) == 0
    assert per_bound(a, b) <= d <= Levenshtein.distance(list(a), list(b))
    assert time.perf_counter() - t < 30


# ----------------------------------------------------------------- other tables
def test_cder_path_refused_before_allocating():
    check_path_memory(100, 100, 1 << 20)
    with pytest.raises(InputFormatError, match="20000 x 20000-word"):
        check_path_memory(20000, 20000, 2 * GIB)


def test_wper_matrix_refused_before_allocating(monkeypatch):
    from evaltrans_qt.engine.kernels import assignment, budget
    monkeypatch.setattr(budget, "auto_budget", lambda: 1 << 10)
    off = np.array([0, 20], np.int64)
    flat = np.arange(20, dtype=np.int32)
    with pytest.raises(InputFormatError, match="20-word sentence"):
        assignment.wper_batch(flat, off, flat, off, np.zeros(1, np.int64), np.zeros(1, np.int64),
                              0, np.zeros(1, np.int32), np.zeros(2, np.int64), 1)


# ----------------------------------------------------------------- orders
@pytest.mark.parametrize("field,flag", [("max_ngram", "max-ngram"),
                                        ("nist_max_ngram", "nist-max-ngram"),
                                        ("nper_max_ngram", "nper-max-ngram"),
                                        ("chrf_char_order", "chrf-char-order"),
                                        ("chrf_word_order", "chrf-word-order")])
def test_orders_are_capped(field, flag):
    EvalOptions(**{field: MAX_ORDER})
    with pytest.raises(OptionError, match=f"--{flag}: 10000000 is above"):
        EvalOptions(**{field: 10_000_000})


def test_huge_max_ngram_exits_2_at_once(tmp_path, capsys):
    for name in ("src", "ref", "hyp"):
        (tmp_path / name).write_text("".join(f"a b c {i}\n" for i in range(10)))
    t = time.perf_counter()
    rc = main(["batch", "--source", str(tmp_path / "src"), "--reference", str(tmp_path / "ref"),
               "--target", str(tmp_path / "hyp"), "--max-ngram", "10000000",
               "--output-file", str(tmp_path / "r.xml")])
    assert rc == 2 and time.perf_counter() - t < 5
    assert "--max-ngram: 10000000 is above the largest supported order" in capsys.readouterr().err
    assert not (tmp_path / "r.xml").exists()


# ----------------------------------------------------------------- report reader
def _report(distances: str, sentences: str = "") -> bytes:
    return (f'<?xml version="1.0"?>\n<report>\n<evaluation><wer stats="1 4"/></evaluation>\n'
            f'<candidate-evaluation>\n<candidate nr="0"><source nr="0"/>'
            f'<target nr="0">{sentences}</target>\n'
            f'<wer stats="1 4">{distances}\n</wer></candidate>\n'
            f'</candidate-evaluation>\n</report>\n').encode()


@pytest.mark.parametrize("bad,problem", [
    ('<reference-distance nr="30000000">3</reference-distance>', "outside 0..9999"),
    ('<reference-distance nr="-1">3</reference-distance>', "outside"),
    ('<reference-distance nr="x">3</reference-distance>', "not an integer"),
    ('<reference-distance nr="0">three</reference-distance>', "not a number"),
    ('<reference-distance nr="0">1</reference-distance>'
     '<reference-distance nr="0">2</reference-distance>', "given twice"),
])
def test_report_reference_distance_refused_fast(bad, problem):
    t = time.perf_counter()
    with pytest.raises(InputFormatError, match=problem) as exc:
        loads_report(_report(bad), "r.xml")
    assert time.perf_counter() - t < 1
    assert exc.value.line == 6 and exc.value.path == "r.xml"


def test_report_reference_number_bounded_by_listed_references():
    ok = '<reference-distance nr="1">2</reference-distance>'
    refs = "<reference nr='0'>a</reference><reference nr='1'>b</reference>"
    run = loads_report(_report(ok, refs))
    assert np.isnan(run.systems[""].ref_distances["wer"][0, 0])
    assert run.systems[""].ref_distances["wer"][0, 1] == 2
    with pytest.raises(InputFormatError, match="outside 0..1"):
        loads_report(_report('<reference-distance nr="2">2</reference-distance>', refs))


def test_ter_wer_and_word_cost_tables_refused_before_allocating(monkeypatch):
    """TER's DP tables, the WER alignment's backtrace and word-cost matrices grow with
    I x L: above the budget a clear error, never a MemoryError."""
    from evaltrans_qt.engine.kernels import budget
    from evaltrans_qt.engine.measures.base import Segment
    from evaltrans_qt.engine.measures.ter import TER
    from evaltrans_qt.engine.measures.wer import backtrace_ops
    from evaltrans_qt.errors import InputFormatError
    monkeypatch.setattr(budget, "auto_budget", lambda: 1 << 20)     # 1 MiB
    long = np.arange(400, dtype=np.int32) + 2
    seg = Segment(long, (long[::-1].copy(),), "", ("",))
    ter = TER(EvalOptions())
    with pytest.raises(InputFormatError, match=r"TER: a 400 x 400-word sentence pair needs"):
        ter.corpus_stats([seg])
    with pytest.raises(InputFormatError, match="TER"):
        ter.align(seg)
    with pytest.raises(InputFormatError, match="WER alignment: a 400 x 400-word"):
        backtrace_ops(long, long, np.zeros((1, 1)))
    short = Segment(long[:50], (long[:40],), "", ("",))
    assert ter.corpus_stats([short])[0, 0] == 10        # small pairs unaffected
    from evaltrans_qt.engine.text.preprocess import Vocabulary
    from evaltrans_qt.engine.text.subcosts import SubstitutionCosts
    v = Vocabulary()
    words = v.encode([f"w{i}" for i in range(400)])
    costs = SubstitutionCosts("prefix", v)
    with pytest.raises(InputFormatError, match="word-dependent substitution costs: a batch whose "
                                               "largest sentence pair is 400 x 400 words"):
        costs.matrix(words, words)
    assert costs.matrix(words[:20], words[:20]).shape == (20, 20)
