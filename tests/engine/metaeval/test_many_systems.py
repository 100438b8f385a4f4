"""Meta-evaluation with 10,000 systems: correlation and significance finish within seconds
in bounded memory or refuse before working with a clear message -- and give exactly the
numbers of the small-size code paths they replace for large sizes."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

from evaltrans_qt.engine.metaeval import significance as sig
from evaltrans_qt.engine.metaeval.correlation import correlate_sentences, correlate_systems
from evaltrans_qt.engine.metaeval.statistics import coefficients, wmt
from evaltrans_qt.errors import EvalTransError

SYSTEMS = 10_000
MiB = 1 << 20


def _peak(fn):
    """(result, seconds, peak traced bytes) of ``fn()``."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        out = fn()
        return out, time.perf_counter() - t0, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------ same numbers
@pytest.mark.parametrize("n", [3, 17, 64])
def test_rowwise_correlations_by_ranks_equal_the_sign_tensors(n):
    rng = np.random.default_rng(n)
    X = rng.integers(0, 5, (300, n)).astype(float)          # many ties
    Y = rng.normal(size=(300, n)).round(1)
    X[7, 1] = np.nan
    Y[9, :] = 2.0                                            # a constant row
    by_tensors = coefficients.rowwise_correlations(X, Y)
    by_ranks = coefficients._rowwise_by_ranks(X, Y)
    for a, b in zip(by_tensors, by_ranks):
        assert np.array_equal(a, b, equal_nan=True)
    assert np.isnan(by_ranks[1][7]) and np.isnan(by_ranks[2][7])
    assert np.isfinite(by_ranks[1][8])


def test_tau_per_group_by_kernel_equals_the_padded_tensor(monkeypatch):
    rng = np.random.default_rng(5)
    g = rng.integers(0, 40, 3000)
    x = rng.integers(0, 6, 3000).astype(float)
    y = rng.normal(size=3000).round(1)
    ids, taus = coefficients.tau_per_group(x, y, g)
    monkeypatch.setattr(coefficients, "_PADDED_CELLS", 0)
    ids2, taus2 = coefficients.tau_per_group(x, y, g)
    assert np.array_equal(ids, ids2) and np.array_equal(taus, taus2)


def test_relation_counts_give_the_wmt_taus_of_the_pair_lists(monkeypatch):
    rng = np.random.default_rng(6)
    g = rng.integers(0, 9, 500)
    h = rng.integers(0, 4, 500).astype(float)
    m = rng.normal(size=500).round(1)
    hs, ms, _ = wmt.pairwise_relations(h, m, g)
    monkeypatch.setattr(wmt, "_PAIR_CHUNK", 37)              # many blocks per group
    table = wmt.relation_counts(h, m, g)
    assert table.sum() == len(hs)
    for v in wmt.WMT_VARIANTS:
        assert wmt.wmt_tau_of_counts(table, v) == wmt.wmt_tau(hs, ms, v)


def _stats(k: int, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {f"s{i}": sig.mean_stats(rng.integers(1, 6, n).astype(float).tolist()) for i in range(k)}


@pytest.mark.parametrize("method", ["bootstrap", "bootstrap-centred", "randomization"])
def test_linear_baseline_view_equals_the_matrix_row(method):
    stats = _stats(6, 40)
    full = sig.compare(stats, sig.ratio_score, method, samples=300, seed=3).vs_baseline("s2")
    fast = sig.compare_vs_baseline(stats, sig.ratio_score, method, baseline="s2", samples=300,
                                   seed=3)
    assert [r.system for r in fast.rows] == [r.system for r in full.rows]
    assert [r.p_value for r in fast.rows] == [r.p_value for r in full.rows]
    assert [r.score for r in fast.rows] == [r.score for r in full.rows]
    if method != "randomization":
        assert [r.mean for r in fast.rows] == [r.mean for r in full.rows]
        assert [r.ci for r in fast.rows] == [r.ci for r in full.rows]


# ------------------------------------------------------------ 10,000 systems
def test_system_level_correlation_of_10000_systems_with_bootstrap_intervals():
    rng = np.random.default_rng(1)
    y = rng.normal(size=SYSTEMS)
    x = y + rng.normal(size=SYSTEMS)
    B = 200
    boot_x = x + 0.1 * rng.normal(size=(B, SYSTEMS))
    boot_y = y + 0.1 * rng.normal(size=(B, SYSTEMS))
    c, secs, peak = _peak(lambda: correlate_systems(x, y, boot_x=boot_x, boot_y=boot_y))
    assert c.n == SYSTEMS and 0.6 < c.pearson < 0.8
    for lo, hi in (c.pearson_ci, c.spearman_ci, c.kendall_ci, c.kendall_b_ci):
        assert 0.3 < lo < hi < 0.9
    # the replicates' coefficients, checked against scipy on a few rows
    from scipy import stats
    r, rho, tau_a, tau_b = coefficients.rowwise_correlations(boot_x[:3], boot_y[:3])
    for i in range(3):
        assert rho[i] == pytest.approx(stats.spearmanr(boot_x[i], boot_y[i])[0], abs=1e-12)
        assert tau_b[i] == pytest.approx(stats.kendalltau(boot_x[i], boot_y[i])[0], abs=1e-12)
        assert r[i] == pytest.approx(stats.pearsonr(boot_x[i], boot_y[i])[0], abs=1e-12)
    # the sign tensors took B x n x n x 8 bytes = 149 GiB here
    assert peak < 200 * MiB, peak
    assert secs < 60, secs


def test_sentence_level_correlation_of_10000_systems_on_three_sources():
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(3), SYSTEMS)
    y = rng.integers(1, 6, groups.size).astype(float)
    x = y + rng.normal(size=groups.size)
    c, secs, peak = _peak(lambda: correlate_sentences(x, y, groups, n_boot=20))
    assert c.n == 3 * SYSTEMS and c.tau_bar > 0.3
    assert set(c.wmt) == set(wmt.WMT_VARIANTS) and c.wmt["wmt14"] > 0.3
    # padded tensors: 3 x 10^8 cells x 8 bytes x 3; pair lists: 1.5 x 10^8 pairs x 8 x 3
    assert peak < 400 * MiB, peak
    assert secs < 120, secs


def test_all_pairs_significance_of_10000_systems_is_refused_at_once():
    stats = _stats(SYSTEMS, 3)
    t0 = time.perf_counter()
    for method in ("bootstrap", "randomization"):
        with pytest.raises(EvalTransError, match=r"10000 systems has 49995000 pairs.*"
                           r"EVALTRANS_MAX_PAIR_SAMPLES.*--baseline"):
            sig.compare(stats, sig.ratio_score, method, seed=1)
    assert time.perf_counter() - t0 < 10


def test_the_pair_limit_is_raised_by_its_environment_variable(monkeypatch):
    stats = _stats(5, 4)
    monkeypatch.setenv(sig.PAIR_LIMIT_ENV, "99")
    with pytest.raises(EvalTransError, match="above the limit of 99"):
        sig.compare(stats, sig.ratio_score, "bootstrap", samples=10, seed=1)   # 10 x 10 pairs
    monkeypatch.setenv(sig.PAIR_LIMIT_ENV, "100")
    assert sig.compare(stats, sig.ratio_score, "bootstrap", samples=10, seed=1).p_values.shape \
        == (5, 5)


@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_baseline_significance_of_10000_systems(method):
    stats = _stats(SYSTEMS, 3)
    res, secs, peak = _peak(lambda: sig.compare_vs_baseline(
        stats, sig.ratio_score, method, samples=200, seed=1))
    assert len(res.rows) == SYSTEMS and res.rows[0].p_value is None
    assert all(0 < r.p_value <= 1 for r in res.rows[1:] if r.p_value is not None)
    assert peak < 300 * MiB, peak
    assert secs < 120, secs


def test_human_stats_of_10000_systems_in_one_pass():
    from evaltrans_qt.engine.human.scores import HumanScores
    rng = np.random.default_rng(4)
    values = {(i, f"s{s}", 0): float(rng.integers(1, 6)) for s in range(SYSTEMS)
              for i in range(3)}
    hs = HumanScores("adequacy", values, {key: 5 for key in values})
    t0 = time.perf_counter()
    stats = sig.human_stats(hs)
    assert time.perf_counter() - t0 < 20
    assert len(stats) == SYSTEMS and all(a.shape[0] == 3 for a in stats.values())


# ------------------------------------------------------------ the command line
def _database(path, systems: int = SYSTEMS, sources: int = 3):
    """A database of ``systems`` systems on ``sources`` sources, each candidate scored."""
    from evaltrans_qt.engine.data.database import Database, Levels
    from evaltrans_qt.io.store import write_database
    rng = np.random.default_rng(0)
    words = "the a cat dog sat on mat house red blue big small".split()
    db = Database()
    db.add_class(Levels("adequacy", count=6, firstvalid=1))
    for i in range(sources):
        src = db.add_source(f"source sentence {i}", doc="d", seg=str(i + 1))
        db.add_target(src, " ".join(rng.choice(words, 6)), reference=True)
        for s in range(systems):
            t = db.add_target(src, " ".join(rng.choice(words, 6)), system=f"sys{s}")
            t.set_score("adequacy", float(rng.integers(1, 6)))
    write_database(db, path)
    return path


@pytest.fixture(scope="module")
def big_db(tmp_path_factory):
    return _database(tmp_path_factory.mktemp("many") / "many.etdb.xml")


@pytest.mark.parametrize("extra", [[], ["--human", "adequacy"]])
def test_cli_all_pairs_significance_of_10000_systems_refused_before_evaluating(big_db, capsys,
                                                                               extra):
    from evaltrans_qt.cli.main import main
    t0 = time.perf_counter()
    assert main(["significance", str(big_db), *extra]) == 2
    assert time.perf_counter() - t0 < 60          # the evaluation alone takes ~35 s
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("evaltrans: error: significance: the all-pairs matrix of 10000 "
                           "systems")
    assert "EVALTRANS_MAX_PAIR_SAMPLES" in last and "--baseline" in last


def test_cli_baseline_significance_of_10000_human_scored_systems(big_db, capsys):
    from evaltrans_qt.cli.main import main
    assert main(["significance", str(big_db), "--human", "adequacy", "--baseline", "sys0",
                 "--samples", "200", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "sys9999" in out and "sys0" in out


@pytest.mark.slow
def test_cli_system_level_correlation_of_10000_systems(big_db, capsys):
    """~1.5 min (the BLEU evaluation of 30,000 candidates is most of it); was 745 GiB."""
    import resource

    from evaltrans_qt.cli.main import main
    assert main(["correlate", str(big_db), "--level", "system", "--measures", "bleu",
                 "--json", "--bootstrap", "200"]) == 0
    import json
    (row,) = json.loads(capsys.readouterr().out)
    assert row["n"] == SYSTEMS and row["level"] == "system"
    assert row["kendall_ci"][0] is not None
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 3 * 1024 * 1024   # KiB: 3 GiB


def test_bootstrap_matrices_over_the_memory_budget_are_refused_before_allocating(monkeypatch):
    from evaltrans_qt.engine.kernels import budget
    from evaltrans_qt.engine.metaeval.correlation import SYSTEM_CELL_BYTES, check_bootstrap_budget
    from evaltrans_qt.errors import InputFormatError
    monkeypatch.setattr(budget, "auto_budget", lambda: 64 * MiB)
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=SYSTEMS), rng.normal(size=SYSTEMS)
    groups = np.arange(SYSTEMS) // 10
    tracemalloc.start()
    try:
        with pytest.raises(InputFormatError, match=r"sentence-level correlation: 5000 bootstrap "
                           r"samples x 10000 scored candidates \(fewer --bootstrap.*needs 763 "
                           r"MiB, above the memory budget of 64 MiB"):
            correlate_sentences(x, y, groups, n_boot=5000, wmt=False)
        # refused before allocating (the first call compiles the rank kernels: ~35 MiB)
        assert tracemalloc.get_traced_memory()[1] < 200 * MiB
    finally:
        tracemalloc.stop()
    with pytest.raises(InputFormatError, match=r"system-level correlation: 200 bootstrap "
                       r"samples x 10000 systems .*needs 92 MiB"):
        check_bootstrap_budget("system-level correlation", 200, SYSTEMS, "systems",
                               SYSTEM_CELL_BYTES)
    # under the budget it runs
    assert correlate_sentences(x[:300], y[:300], groups[:300], n_boot=1000, wmt=False).n == 300


def test_pair_statistics_of_10000_systems_refused_before_allocating():
    """Soft pairwise accuracy's permuted differences (samples x 5 x 10^7 pairs) and the
    all-pairs Kendall lists of one item's 10,000 candidates exceed the default budget."""
    from evaltrans_qt.engine.metaeval.statistics.grouped import pairwise_p_values
    from evaltrans_qt.engine.metaeval.statistics.kendall import within_pairs
    from evaltrans_qt.errors import InputFormatError
    tracemalloc.start()
    try:
        with pytest.raises(InputFormatError, match=r"soft pairwise accuracy: 1000 samples x "
                           r"49995000 pairs of 10000 systems .*above the memory budget"):
            pairwise_p_values(np.zeros((SYSTEMS, 3)))
        with pytest.raises(InputFormatError, match=r"Kendall tau over pairs: 149985000 pairs "
                           r"of items in 3 groups \(largest 10000.*above the memory budget"):
            within_pairs(np.repeat(np.arange(3), SYSTEMS))
        assert tracemalloc.get_traced_memory()[1] < 64 * MiB
    finally:
        tracemalloc.stop()
    # sampled pairs stay allowed
    i, j, g = within_pairs(np.repeat(np.arange(3), 3 * SYSTEMS), max_pairs=1000)
    assert len(i) == 1000 and (i != j).all()
