"""INVWER on real WMT21 en-de pairs: the search with the run bounds gives
the same d_inv as the search without them (the bag bounds alone, the earlier kernel)
and as unpruned Algorithm 4.3 where that is feasible; a candidate searched with its three
references together (inv_nearest) keeps the nearest references' d_inv.

The full check of one system (3000 pairs, a few minutes) is marked ``slow`` and runs with
``pytest -m slow``; the normal suite checks a sample of it."""

from __future__ import annotations

import numpy as np
import pytest

from evaltrans_qt.engine.kernels import invwer as K
from evaltrans_qt.engine.kernels.invwer import inv_distance_cyk, inv_search
from evaltrans_qt.engine.text.preprocess import Vocabulary, tokenize

SYSTEM = "Facebook-AI"


def load_pairs(wmt_dir, system: str = SYSTEM) -> list[tuple[int, str, np.ndarray, np.ndarray]]:
    """Distinct (segment, reference, candidate ids, reference ids) of ``system`` x refs A, C, D,
    tokenised as the engine does (13a, case kept)."""
    vocab = Vocabulary()
    hyp = [vocab.encode(tokenize(s)) for s in (wmt_dir / f"newstest2021.en-de.hyp.{system}.de")
           .read_text(encoding="utf-8").splitlines()]
    out, seen = [], set()
    for name in ("A", "C", "D"):
        ref = (wmt_dir / f"newstest2021.en-de.ref.{name}.de").read_text(encoding="utf-8")
        for k, line in enumerate(ref.splitlines()):
            x = np.asarray(hyp[k], np.int32)
            y = np.asarray(vocab.encode(tokenize(line)), np.int32)
            key = (x.tobytes(), y.tobytes())
            if key not in seen:
                seen.add(key)
                out.append((k, name, x, y))
    return out


def both(x, y):
    """(d with the run bounds, d without them, items popped with, without)."""
    saved = K.RUNS_MIN_CELLS, K.RUNS_MIN_GAP
    try:
        K.RUNS_MIN_CELLS, K.RUNS_MIN_GAP = 0, 0
        d1, _, _, e1 = inv_search(x, y)
        K.RUNS_MIN_CELLS = 1 << 60
        d0, _, _, e0 = inv_search(x, y)
    finally:
        K.RUNS_MIN_CELLS, K.RUNS_MIN_GAP = saved
    return d1, d0, e1, e0


def test_sample_with_and_without_runs(wmt_dir):
    """Every 40th distinct pair of 12-40 words (about 50 pairs) and a few short pairs
    against Algorithm 4.3; the run bounds must save items on the sample."""
    pairs = [p for p in load_pairs(wmt_dir) if 12 <= max(len(p[2]), len(p[3])) <= 40][::40]
    assert len(pairs) >= 40
    saved = popped = 0
    for k, ref, x, y in pairs:
        d1, d0, e1, e0 = both(x, y)
        assert d1 == d0, (k, ref)
        saved += e0 - e1
        popped += e0
    assert saved > 0.2 * popped
    short = [p for p in load_pairs(wmt_dir) if max(len(p[2]), len(p[3])) <= 8][:10]
    for k, ref, x, y in short:
        assert both(x, y)[0] == inv_distance_cyk(x, y, 1, 1, 1, 1), (k, ref)


@pytest.mark.slow
def test_full_system_with_and_without_runs(wmt_dir):
    """All distinct pairs of one system (about 3000; minutes): identical d_inv."""
    for k, ref, x, y in load_pairs(wmt_dir):
        d1, d0, _, _ = both(x, y)
        assert d1 == d0, (k, ref, len(x), len(y))


def test_candidates_with_their_references(wmt_dir):
    """inv_nearest on every 25th candidate of 12-40 words with its three references (about
    30): the nearest references' d_inv as searched alone, the others proven farther or
    exact; on real data most farther references are only proven farther."""
    by_seg: dict[int, list] = {}
    for k, _, x, y in load_pairs(wmt_dir):
        by_seg.setdefault(k, [x]).append(y)
    groups = [g for g in by_seg.values() if len(g) == 4 and 12 <= len(g[0]) <= 40][::25]
    assert len(groups) >= 25
    farther = 0
    for x, *refs in groups:
        full = [inv_search(x, y)[0] for y in refs]
        got = K.inv_nearest(x, refs)
        least = min(full)
        for d, g in zip(full, got):
            if g.farther:
                farther += 1
                assert least < g.distance <= d
            else:
                assert g.distance == d and g.exact
        assert min(g.distance for g in got if not g.farther) == least
    assert farther > len(groups)
