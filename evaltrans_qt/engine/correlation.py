"""Correlation coefficients for meta-evaluation (thesis ch. 6, Macháček §4.3-4.4).

Pearson r (eq. 6.1), Spearman rho with mid-ranks (eq. 6.18), Kendall tau as
in the thesis (eq. 6.23: ties count neither way, divided by *all* pairs, i.e.
tau_a) and tau_b, the local rank correlation tau-bar over systems per source
sentence (eq. 6.24), the WMT segment-level tau variants on pairwise
comparisons (M:1457-1526), 95% intervals by bootstrap resampling of
sentences (all candidates of a source sentence are drawn together) and by
Fisher's z for r, and regression lines for plots (least squares, least
orthogonal squares, T:1176-1196).

Run level: :func:`correlate_run` correlates every measure of a
:class:`~evaltrans_qt.engine.results.RunResult` with a human class of the
database (candidates only, never references with themselves; error measures
negated so that positive = agreement); :func:`format_table` prints the
thesis-style table and :func:`correlation_report_elements` gives the report's
``<correlation>`` section. With relative-ranking judgements (class ``rank``)
the WMT taus use the judges' own pairwise comparisons
(:func:`ranking_comparisons`).

Everything works on integer *weights* (how often each item was drawn), so a
bootstrap sample is a row of a weight matrix and B samples are computed at
once (vectorised numpy; Kendall through an O(n log n) numba kernel with a
plain-Python reference implementation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

#: z of the two-sided 95% interval.
Z95 = 1.959963984540054


# ----------------------------------------------------------------- Pearson
def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r (thesis eq. 6.1, T:1160); NaN if either side is constant."""
    return float(weighted_pearson(np.asarray(x, float), np.asarray(y, float),
                                  np.ones((1, len(x))))[0])


def weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """r for each row of the weight matrix ``w`` (B x n); NaN where undefined."""
    w = np.atleast_2d(np.asarray(w, float))
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    # centre on the global means first so the moment formulas do not cancel
    x = x - x.mean() if x.size else x
    y = y - y.mean() if y.size else y
    sw = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (w @ x) / sw
        my = (w @ y) / sw
        sxy = w @ (x * y) - sw * mx * my
        sxx = w @ (x * x) - sw * mx * mx
        syy = w @ (y * y) - sw * my * my
        r = sxy / np.sqrt(sxx * syy)
    # a constant side leaves only rounding noise in sxx/syy
    const_x = sxx <= 1e-20 * (w @ (x * x)) + 1e-300
    const_y = syy <= 1e-20 * (w @ (y * y)) + 1e-300
    r[const_x | const_y] = np.nan
    return np.clip(r, -1.0, 1.0)


def fisher_interval(r: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% interval of r by Fisher's z-transform: tanh(atanh r +- z/sqrt(n-3))."""
    if n <= 3 or not np.isfinite(r):
        return (math.nan, math.nan)
    if abs(r) >= 1.0:
        return (r, r)
    c = math.atanh(r)
    h = z / math.sqrt(n - 3)
    return (math.tanh(c - h), math.tanh(c + h))


# ----------------------------------------------------------------- Spearman
def midranks(x: Sequence[float]) -> np.ndarray:
    """Ranks 1..n with ties given the mean of their ranks (T:1226)."""
    x = np.asarray(x, float)
    return weighted_midranks(x, np.ones((1, len(x))))[0]


def weighted_midranks(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mid-ranks of every item in each weighted sample (rows of ``w``), B x n.

    An item drawn k times occupies k consecutive ranks; every copy (and every
    equal value) gets the mean of the ranks of its tie group.
    """
    w = np.atleast_2d(np.asarray(w, float))
    x = np.asarray(x, float)
    if x.size == 0:
        return np.zeros((w.shape[0], 0))
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    group_of_sorted = np.cumsum(np.r_[True, xs[1:] != xs[:-1]]) - 1
    gw = np.add.reduceat(w[:, order], starts, axis=1)          # B x G
    before = np.cumsum(gw, axis=1) - gw
    grank = before + (gw + 1.0) / 2.0
    group = np.empty_like(group_of_sorted)
    group[order] = group_of_sorted
    return grank[:, group]


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rho = Pearson's r on mid-ranks (thesis eq. 6.18)."""
    return pearson(midranks(x), midranks(y))


def _sorted_groups(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(stable sort order, start offsets of equal-value runs plus the end)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]]) if x.size else np.zeros(0, np.int64)
    return order.astype(np.int64), np.r_[starts, x.size].astype(np.int64)


@njit(cache=True, nogil=True)
def _group_ranks(order: np.ndarray, bounds: np.ndarray, wb: np.ndarray,
                 ranks: np.ndarray) -> float:
    """Weighted mid-ranks of one sample into ``ranks``; returns the tied pairs."""
    before = 0.0
    ties = 0.0
    for g in range(bounds.shape[0] - 1):
        gw = 0.0
        for t in range(bounds[g], bounds[g + 1]):
            gw += wb[order[t]]
        r = before + (gw + 1.0) / 2.0
        for t in range(bounds[g], bounds[g + 1]):
            ranks[order[t]] = r
        before += gw
        ties += gw * (gw - 1.0) / 2.0
    return ties


@njit(cache=True, nogil=True)
def _spearman_kernel(xo, xb, yo, yb, w):
    """rho and tied pairs in x and y for each weight row (see :func:`weighted_spearman`)."""
    B, n = w.shape
    rho = np.empty(B)
    tx = np.empty(B)
    ty = np.empty(B)
    rx = np.empty(n)
    ry = np.empty(n)
    for b in range(B):
        wb = w[b]
        tx[b] = _group_ranks(xo, xb, wb, rx)
        ty[b] = _group_ranks(yo, yb, wb, ry)
        sw = 0.0
        for i in range(n):
            sw += wb[i]
        mid = (sw + 1.0) / 2.0
        sxy = 0.0
        sxx = 0.0
        syy = 0.0
        for i in range(n):
            if wb[i] != 0.0:
                dx = rx[i] - mid
                dy = ry[i] - mid
                sxy += wb[i] * dx * dy
                sxx += wb[i] * dx * dx
                syy += wb[i] * dy * dy
        if sxx <= 1e-9 or syy <= 1e-9:
            rho[b] = np.nan
        else:
            rho[b] = min(1.0, max(-1.0, sxy / np.sqrt(sxx * syy)))
    return rho, tx, ty


def weighted_spearman(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """rho for each weighted sample (rows of ``w``); numba kernel, reference:
    Pearson's r of :func:`weighted_midranks` (tests compare the two)."""
    return _rank_kernel(x, y, w)[0]


def _rank_kernel(x, y, w):
    w = np.ascontiguousarray(np.atleast_2d(np.asarray(w, float)))
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.size == 0:
        nan = np.full(w.shape[0], np.nan)
        return nan, np.zeros(w.shape[0]), np.zeros(w.shape[0])
    xo, xb = _sorted_groups(x)
    yo, yb = _sorted_groups(y)
    return _spearman_kernel(xo, xb, yo, yb, w)


# ----------------------------------------------------------------- Kendall
@njit(cache=True, nogil=True)
def _concordance_kernel(xs: np.ndarray, yr: np.ndarray, ny: int, w: np.ndarray,
                        order: np.ndarray) -> np.ndarray:
    """C - D for each weight row; items sorted by x (``order``), ``yr`` dense y-ranks
    0..ny-1 in sorted order, ``w`` in the original order.

    Fenwick tree over y ranks: for each x-tie group, every item is compared
    with all items of smaller x (already inserted), then the group is inserted.
    """
    n = xs.shape[0]
    B = w.shape[0]
    out = np.zeros(B, dtype=np.float64)
    tree = np.zeros(ny + 1, dtype=np.float64)
    for b in range(B):
        for k in range(ny + 1):
            tree[k] = 0.0
        total = 0.0
        s = 0.0
        i = 0
        while i < n:
            j = i
            while j < n and xs[j] == xs[i]:
                j += 1
            for t in range(i, j):
                wt = w[b, order[t]]
                if wt == 0.0:
                    continue
                # weight of inserted items with y-rank < yr[t]
                less = 0.0
                k = yr[t]
                while k > 0:
                    less += tree[k]
                    k -= k & (-k)
                # weight with y-rank <= yr[t]
                leq = 0.0
                k = yr[t] + 1
                while k > 0:
                    leq += tree[k]
                    k -= k & (-k)
                s += wt * (less - (total - leq))
            for t in range(i, j):
                wt = w[b, order[t]]
                if wt == 0.0:
                    continue
                k = yr[t] + 1
                while k <= ny:
                    tree[k] += wt
                    k += k & (-k)
                total += wt
            i = j
        out[b] = s
    return out


def concordance_reference(x: Sequence[float], y: Sequence[float],
                          w: Sequence[float] | None = None) -> float:
    """Plain-Python C - D (eq. 6.20/6.21) with item multiplicities ``w``; for tests."""
    n = len(x)
    w = [1.0] * n if w is None else list(w)
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            sx = int(x[i] > x[j]) - int(x[i] < x[j])
            sy = int(y[i] > y[j]) - int(y[i] < y[j])
            s += w[i] * w[j] * sx * sy
    return s


def _tie_pairs(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Number of pairs tied in x (copies of one item included), per weight row."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    gw = np.add.reduceat(w[:, order], starts, axis=1)
    return (gw * (gw - 1.0)).sum(axis=1) / 2.0


def weighted_kendall(x: np.ndarray, y: np.ndarray, w: np.ndarray,
                     ties: tuple[np.ndarray, np.ndarray] | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(tau_a, tau_b) for each weighted sample; weights are item multiplicities.

    tau_a = (C - D) / M with M all pairs (thesis eq. 6.23);
    tau_b = (C - D) / sqrt((M - T_x)(M - T_y)) (scipy's default).
    ``ties`` may pass the tied-pair counts already computed by the rank kernel.
    """
    w = np.atleast_2d(np.asarray(w, float))
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.size < 2:
        nan = np.full(w.shape[0], np.nan)
        return nan, nan
    order = np.lexsort((y, x)).astype(np.int64)
    xs = np.ascontiguousarray(x[order])
    _, yr = np.unique(y[order], return_inverse=True)
    ny = int(yr.max()) + 1
    w = np.ascontiguousarray(w)
    s = _concordance_kernel(xs, yr.astype(np.int64), ny, w, order)
    tot = w.sum(axis=1)
    m = tot * (tot - 1.0) / 2.0
    tx, ty = ties if ties is not None else _rank_kernel(x, y, w)[1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_a = np.where(m > 0, s / m, np.nan)
        den = np.sqrt((m - tx) * (m - ty))
        tau_b = np.where(den > 0, s / den, np.nan)
    return tau_a, tau_b


def kendall_tau_a(x: Sequence[float], y: Sequence[float]) -> float:
    """The thesis' tau (eq. 6.23): (C - D) / (N(N-1)/2), ties count neither way."""
    return float(weighted_kendall(np.asarray(x, float), np.asarray(y, float),
                                  np.ones((1, len(x))))[0][0])


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """tau_b (ties corrected in the denominator), as scipy.stats.kendalltau."""
    return float(weighted_kendall(np.asarray(x, float), np.asarray(y, float),
                                  np.ones((1, len(x))))[1][0])


# ------------------------------------------------- local rank correlation
def tau_per_group(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """tau_a over the items of each group (e.g. the systems' candidates of one source).

    Returns (group ids, tau per group); groups with fewer than two items are
    left out. Vectorised over groups by padding to the largest group.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    groups = np.asarray(groups)
    ids, inv, counts = np.unique(groups, return_inverse=True, return_counts=True)
    if ids.size == 0:
        return ids, np.zeros(0)
    k = int(counts.max())
    order = np.argsort(inv, kind="stable")
    pos = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    X = np.full((ids.size, k), np.nan)
    Y = np.full((ids.size, k), np.nan)
    X[inv[order], pos] = x[order]
    Y[inv[order], pos] = y[order]
    sx = np.sign(X[:, :, None] - X[:, None, :])
    sy = np.sign(Y[:, :, None] - Y[:, None, :])
    prod = np.nan_to_num(sx * sy)
    s = prod.sum(axis=(1, 2)) / 2.0
    pairs = counts * (counts - 1) / 2.0
    keep = counts >= 2
    return ids[keep], s[keep] / pairs[keep]


def tau_bar(x: Sequence[float], y: Sequence[float], groups: Sequence) -> float:
    """Local rank correlation (thesis eq. 6.24, T:1302): mean over source sentences
    of tau over that sentence's candidates from the different systems."""
    _, taus = tau_per_group(np.asarray(x, float), np.asarray(y, float), np.asarray(groups))
    return float(taus.mean()) if taus.size else math.nan


# ------------------------------------------------------- WMT tau variants
#: Macháček tables (M:1470-1526): rows human <,=,>; columns metric <,=,>;
#: None = the comparison is left out ("X").
WMT_VARIANTS: dict[str, tuple[tuple[float | None, ...], ...]] = {
    "wmt12": ((1, -1, -1), (None, None, None), (-1, -1, 1)),
    "wmt13": ((1, None, -1), (None, None, None), (-1, None, 1)),
    "wmt14": ((1, 0, -1), (None, None, None), (-1, 0, 1)),
    "hties": ((1, 0, -1), (0, 1, 0), (-1, 0, 1)),
}


def wmt_tau(human: Sequence[int], metric: Sequence[int], variant: str = "wmt14") -> float:
    """Kendall-like tau on pairwise comparisons (M:1457-1526).

    ``human[i]``/``metric[i]`` compare the two candidates of comparison i:
    -1 = first is better ("<"), 0 = tie, +1 = second is better (">").
    tau = sum C[h,m] |S[h,m]| / sum |S[h,m]| over the cells that are not X.
    """
    table = WMT_VARIANTS[variant.lower()]
    h = np.asarray(human, int) + 1
    m = np.asarray(metric, int) + 1
    counts = np.zeros((3, 3))
    np.add.at(counts, (h, m), 1)
    num = den = 0.0
    for i in range(3):
        for j in range(3):
            c = table[i][j]
            if c is not None:
                num += c * counts[i, j]
                den += counts[i, j]
    return num / den if den else math.nan


def pairwise_relations(better_h: np.ndarray, better_m: np.ndarray,
                       groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All within-group pairs (i < j) as comparisons for :func:`wmt_tau`.

    Inputs are scores where *higher is better*; returns (human, metric, group
    of the pair) with -1 when the first item is better, +1 when the second is.
    """
    h = np.asarray(better_h, float)
    m = np.asarray(better_m, float)
    groups = np.asarray(groups)
    hs, ms, gs = [], [], []
    order = np.argsort(groups, kind="stable")
    g_sorted = groups[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    ends = np.r_[starts[1:], len(order)]
    for a, b in zip(starts, ends):
        idx = order[a:b]
        if len(idx) < 2:
            continue
        i, j = np.triu_indices(len(idx), 1)
        hs.append(np.sign(h[idx[i]] - h[idx[j]]) * -1)
        ms.append(np.sign(m[idx[i]] - m[idx[j]]) * -1)
        gs.append(np.full(len(i), g_sorted[a]))
    if not hs:
        e = np.zeros(0, int)
        return e, e, e
    return (np.concatenate(hs).astype(int), np.concatenate(ms).astype(int), np.concatenate(gs))


def ranking_comparisons(db, run, measure: str, cls: str = "rank") -> tuple[np.ndarray, np.ndarray]:
    """Human pairwise comparisons from stored ranking tasks (one per task and pair of
    ranked systems, M:1440-1457) with the metric's comparison of the same two
    candidates, both coded for :func:`wmt_tau` (-1 = first better)."""
    from itertools import combinations

    from evaltrans_qt.engine.ranking import rankings
    sign = 1.0 if run.measure(measure).higher_is_better else -1.0
    vals = {s: dict(zip(sr.segments, run.sentence_column(s, measure) * sign))
            for s, sr in run.systems.items()}
    hs, ms = [], []
    for r in rankings(db, cls):
        for a, b in combinations(sorted(r.ranks), 2):
            va = vals.get(a, {}).get(r.source)
            vb = vals.get(b, {}).get(r.source)
            if va is None or vb is None or not (np.isfinite(va) and np.isfinite(vb)):
                continue
            hs.append(int(np.sign(r.ranks[a] - r.ranks[b])))   # lower rank = better
            ms.append(int(-np.sign(va - vb)))                   # higher value = better
    return np.array(hs, int), np.array(ms, int)


# --------------------------------------------------------------- regression
def least_squares_line(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(intercept, slope) of the regression of y on x (T:1176, eq. 6.3)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    vx = np.var(x)
    if vx == 0:
        return (float(np.mean(y)), 0.0)
    slope = float(np.mean((x - x.mean()) * (y - y.mean())) / vx)
    return (float(y.mean() - slope * x.mean()), slope)


def orthogonal_line(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, float]:
    """Least orthogonal squares line (T:1188-1196): through the mean along the
    principal axis. Returns (intercept, slope, mean squared orthogonal distance);
    slope is inf for a vertical line."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    mx, my = x.mean(), y.mean()
    cov = np.cov(np.vstack([x - mx, y - my]), bias=True)
    vals, vecs = np.linalg.eigh(cov)
    dx, dy = vecs[:, 1]
    resid = float(vals[0])
    if abs(dx) < 1e-15:
        return (math.nan, math.inf, resid)
    slope = float(dy / dx)
    return (float(my - slope * mx), slope, resid)


# -------------------------------------------------------------- bootstrap
def cluster_weights(groups: np.ndarray, n_boot: int, seed: int = 0) -> np.ndarray:
    """Bootstrap weight matrix (n_boot x n items): source sentences are drawn with
    replacement and every item of a drawn sentence counts once per draw."""
    groups = np.asarray(groups)
    ids, inv = np.unique(groups, return_inverse=True)
    # np.take keeps C order (w[:, idx] would come out column-major and be copied later)
    return np.take(bootstrap_counts(len(ids), n_boot, seed), inv, axis=1)


def bootstrap_counts(n: int, n_boot: int, seed: int = 0) -> np.ndarray:
    """How often each of ``n`` units is drawn in each of ``n_boot`` samples (float64)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n)) + (np.arange(n_boot) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=n_boot * n).reshape(n_boot, n).astype(np.float64)


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the finite bootstrap samples."""
    s = np.asarray(samples, float)
    s = s[np.isfinite(s)]
    if s.size == 0:
        return (math.nan, math.nan)
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(s, [a, 1.0 - a])
    return (float(lo), float(hi))


@dataclass
class Correlation:
    """All coefficients of one (measure, human class, level) with 95% intervals.

    ``kendall`` is the thesis' tau (tau_a, eq. 6.23); ``kendall_b`` is tau_b.
    Sentence level also has ``tau_bar`` (eq. 6.24) and WMT tau variants.
    """

    measure: str
    human: str
    level: str
    n: int
    pearson: float
    spearman: float
    kendall: float
    kendall_b: float
    pearson_ci: tuple[float, float] = (math.nan, math.nan)
    pearson_fisher_ci: tuple[float, float] = (math.nan, math.nan)
    spearman_ci: tuple[float, float] = (math.nan, math.nan)
    kendall_ci: tuple[float, float] = (math.nan, math.nan)
    kendall_b_ci: tuple[float, float] = (math.nan, math.nan)
    tau_bar: float = math.nan
    tau_bar_ci: tuple[float, float] = (math.nan, math.nan)
    wmt: dict[str, float] = field(default_factory=dict)
    negated: bool = False
    #: system level: {system: (automatic score as correlated, human score)}
    system_scores: dict[str, tuple[float, float]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}
        return {k: _json_float(v) for k, v in d.items()}


def _json_float(v):
    if isinstance(v, float):
        return None if not math.isfinite(v) else v
    if isinstance(v, list):
        return [_json_float(x) for x in v]
    if isinstance(v, dict):
        return {k: _json_float(x) for k, x in v.items()}
    return v


def correlate_sentences(x: Sequence[float], y: Sequence[float], groups: Sequence, *,
                        measure: str = "", human: str = "", n_boot: int = 1000,
                        seed: int = 0, negate: bool = False,
                        wmt: bool = True) -> Correlation:
    """Sentence-level correlation of automatic ``x`` with human ``y``.

    ``groups[i]`` is the source sentence of item i (tau-bar groups, bootstrap
    clusters). ``negate`` flips an error measure so positive = agreement.
    """
    x = np.asarray(x, float) * (-1.0 if negate else 1.0)
    y = np.asarray(y, float)
    groups = np.asarray(groups)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y, groups = x[ok], y[ok], groups[ok]
    ones = np.ones((1, len(x)))
    r = weighted_pearson(x, y, ones)[0]
    rho_, tx_, ty_ = _rank_kernel(x, y, ones)
    rho = rho_[0]
    ta, tb = weighted_kendall(x, y, ones, (tx_, ty_))
    gids, taus = tau_per_group(x, y, groups)
    c = Correlation(measure, human, "sentence", int(len(x)), float(r), float(rho),
                    float(ta[0]), float(tb[0]), negated=negate,
                    tau_bar=float(taus.mean()) if taus.size else math.nan)
    c.pearson_fisher_ci = fisher_interval(c.pearson, c.n)
    if wmt:
        h, m, _ = pairwise_relations(y, x, groups)
        c.wmt = {v: wmt_tau(h, m, v) for v in WMT_VARIANTS}
    if n_boot and len(x) > 2:
        w = cluster_weights(groups, n_boot, seed)
        c.pearson_ci = percentile_interval(weighted_pearson(x, y, w))
        brho, btx, bty = _rank_kernel(x, y, w)
        c.spearman_ci = percentile_interval(brho)
        ba, bb = weighted_kendall(x, y, w, (btx, bty))
        c.kendall_ci = percentile_interval(ba)
        c.kendall_b_ci = percentile_interval(bb)
        if taus.size:
            # tau-bar is a mean over sentences: resample the same sentences
            ids_all = np.unique(groups)
            pos = np.searchsorted(ids_all, gids)
            first = np.unique(groups, return_index=True)[1]
            wg = w[:, first][:, pos]
            with np.errstate(invalid="ignore", divide="ignore"):
                c.tau_bar_ci = percentile_interval((wg @ taus) / wg.sum(axis=1))
    return c


def correlate_systems(x: Sequence[float], y: Sequence[float], *, measure: str = "",
                      human: str = "", boot_x: np.ndarray | None = None,
                      boot_y: np.ndarray | None = None, negate: bool = False) -> Correlation:
    """System-level correlation over systems; intervals from bootstrap replicates
    ``boot_x``/``boot_y`` (B x systems: the system scores recomputed on resampled
    sentences, see :func:`correlate_run`)."""
    sgn = -1.0 if negate else 1.0
    x = np.asarray(x, float) * sgn
    y = np.asarray(y, float)
    ones = np.ones((1, len(x)))
    ta, tb = weighted_kendall(x, y, ones)
    c = Correlation(measure, human, "system", int(len(x)), float(weighted_pearson(x, y, ones)[0]),
                    float(weighted_spearman(x, y, ones)[0]), float(ta[0]), float(tb[0]),
                    negated=negate)
    c.pearson_fisher_ci = fisher_interval(c.pearson, c.n)
    if boot_x is not None and boot_y is not None and len(x) > 2:
        r, rho, ta_s, tb_s = rowwise_correlations(np.asarray(boot_x, float) * sgn,
                                                  np.asarray(boot_y, float))
        c.pearson_ci = percentile_interval(r)
        c.spearman_ci = percentile_interval(rho)
        c.kendall_ci = percentile_interval(ta_s)
        c.kendall_b_ci = percentile_interval(tb_s)
    return c


def rowwise_correlations(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, ...]:
    """(r, rho, tau_a, tau_b) between row i of X and row i of Y (B x n, small n).

    Used for system-level bootstrap replicates, where every replicate has its
    own system scores.
    """
    X = np.asarray(X, float)
    Y = np.asarray(Y, float)

    def rows_r(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        da = a - a.mean(axis=1, keepdims=True)
        db = b - b.mean(axis=1, keepdims=True)
        sab = (da * db).sum(axis=1)
        saa = (da * da).sum(axis=1)
        sbb = (db * db).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = sab / np.sqrt(saa * sbb)
        r[(saa <= 1e-20 * (a * a).sum(axis=1) + 1e-300)
          | (sbb <= 1e-20 * (b * b).sum(axis=1) + 1e-300)] = np.nan
        return np.clip(r, -1, 1)

    n = X.shape[1]
    sx = np.sign(X[:, :, None] - X[:, None, :])
    sy = np.sign(Y[:, :, None] - Y[:, None, :])
    # mid-ranks: 1 + #smaller + (#equal - 1) / 2 = (n + 1 + sum_j sign(x_i - x_j)) / 2
    r = rows_r(X, Y)
    rho = rows_r((n + 1 + sx.sum(axis=2)) / 2.0, (n + 1 + sy.sum(axis=2)) / 2.0)
    s = (sx * sy).sum(axis=(1, 2)) / 2.0
    m = n * (n - 1) / 2.0
    tx = (sx == 0).sum(axis=(1, 2)) - n
    ty = (sy == 0).sum(axis=(1, 2)) - n
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_b = s / np.sqrt((m - tx / 2.0) * (m - ty / 2.0))
    return r, rho, s / m, tau_b


# ------------------------------------------------------- runs and databases
LEVELS = ("sentence", "system")


def correlate_run(db, run, human: str, *, measures: Sequence[str] | None = None,
                  level: str = "sentence", normalize: bool = False, how: str = "mean",
                  weighted: bool = True, n_boot: int = 1000, seed: int = 0,
                  scores=None) -> list[Correlation]:
    """Correlate every measure of ``run`` with human class ``human`` of ``db``.

    Only candidates enter (references are never correlated with themselves);
    a candidate without a human score is left out. Sentence level: one item
    per candidate, bootstrap over source sentences. System level: per system
    the automatic score is recomputed from the *sufficient statistics of the
    human-scored sentences only* (so both sides see the same sentences) and
    the human score is the length-weighted (T:1125) or plain mean; the
    bootstrap resamples source sentences and recomputes both. ``scores`` may
    pass precomputed :class:`~evaltrans_qt.engine.human.HumanScores` of ``human``.
    """
    from evaltrans_qt.engine.human import RANK_CLASS, human_scores
    from evaltrans_qt.errors import OptionError

    if level not in LEVELS:
        raise OptionError(f"--level: '{level}' is not one of {', '.join(LEVELS)}")
    hs = scores if scores is not None else human_scores(db, human, how=how, normalize=normalize)
    names = list(measures) if measures is not None else list(run.measures)
    for m in names:
        if m not in run.measures:
            raise OptionError(f"measure '{m}' was not part of this run")
    refs = set(db.reference_ids()) - set(db.systems())
    rows: list[tuple[str, np.ndarray, np.ndarray]] = []   # system, row index, source index
    yvals: list[np.ndarray] = []
    for sysname, sr in run.systems.items():
        if sysname in refs:
            continue
        y = hs.column(sysname, sr.segments)
        ok = np.flatnonzero(np.isfinite(y))
        if ok.size:
            rows.append((sysname, ok, np.asarray(sr.segments)[ok]))
            yvals.append(y[ok])
    if not rows:
        from evaltrans_qt.errors import ScoreError
        raise ScoreError(f"no candidate of the evaluated systems has a '{human}' score")
    out: list[Correlation] = []
    if level == "sentence":
        y = np.concatenate(yvals)
        groups = np.concatenate([src for _, _, src in rows])
        for m in names:
            meas = run.measure(m)
            x = np.concatenate([run.sentence_column(s, m)[ok] for s, ok, _ in rows])
            c = correlate_sentences(x, y, groups, measure=m, human=human, n_boot=n_boot,
                                    seed=seed, negate=not meas.higher_is_better)
            if human == RANK_CLASS:
                # WMT taus on the judges' own pairwise comparisons, not on mean ranks
                h, mm = ranking_comparisons(db, run, m, human)
                c.wmt = {v: wmt_tau(h, mm, v) for v in WMT_VARIANTS}
            out.append(c)
        return out
    # system level
    from evaltrans_qt.engine.significance import measure_batch_score
    all_src = np.unique(np.concatenate([src for _, _, src in rows]))
    counts = bootstrap_counts(len(all_src), n_boot, seed) if n_boot else None
    y_sys = np.zeros(len(rows))
    boot_y = np.zeros((n_boot, len(rows)))
    for j, ((sysname, ok, src), yv) in enumerate(zip(rows, yvals)):
        keys = hs.keys(sysname, run.systems[sysname].segments)
        lens = np.array([hs.lengths.get(keys[r], 0) for r in ok], float)
        lw = lens if weighted and lens.sum() > 0 else np.ones(len(src))
        y_sys[j] = float(lw @ yv / lw.sum())
        if n_boot:
            W = counts[:, np.searchsorted(all_src, src)] * lw[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                boot_y[:, j] = (W @ yv) / W.sum(axis=1)
    for m in names:
        meas = run.measure(m)
        batch = measure_batch_score(meas)
        x_sys = np.zeros(len(rows))
        boot_x = np.zeros((n_boot, len(rows)))
        for j, (sysname, ok, src) in enumerate(rows):
            st = np.asarray(run.systems[sysname].stats[m])[ok]
            x_sys[j] = meas.score(st.sum(axis=0)).value
            if n_boot:
                sums = counts[:, np.searchsorted(all_src, src)] @ st
                boot_x[:, j] = batch(sums)
        c = correlate_systems(x_sys, y_sys, measure=m, human=human,
                              boot_x=boot_x if n_boot else None,
                              boot_y=boot_y if n_boot else None,
                              negate=not meas.higher_is_better)
        c.system_scores = {s: (float(x), float(yv)) for (s, _, _), x, yv in
                           zip(rows, x_sys, y_sys)}
        out.append(c)
    return out


def format_table(rows: Sequence[Correlation]) -> str:
    """Thesis-style text table (measure x human class: r, rho, tau / tau-bar, 95% CIs)."""
    def f(v: float) -> str:
        return "   nan" if not np.isfinite(v) else f"{v:6.3f}"

    def ci(c: tuple[float, float]) -> str:
        return f"[{f(c[0])},{f(c[1])}]"

    lines = []
    by = {}
    for c in rows:
        by.setdefault((c.human, c.level), []).append(c)
    for (human, level), cs in by.items():
        n = cs[0].n
        unit = "candidate sentences" if level == "sentence" else "systems"
        lines.append(f"Correlation with human '{human}', {level} level ({n} {unit}); "
                     "error measures negated (positive = agreement); 95% bootstrap CIs")
        head = f"{'measure':<10} {'r':>6} {'95% CI':>17} {'Fisher':>17} {'rho':>6} {'95% CI':>17} " \
               f"{'tau':>6} {'95% CI':>17} {'tau_b':>6}"
        if level == "sentence":
            head += f" {'tau-bar':>7} {'95% CI':>17} {'WMT14':>6}"
        lines.append(head)
        lines.append("-" * len(head))
        for c in cs:
            name = c.measure + ("*" if c.negated else "")
            line = (f"{name:<10} {f(c.pearson)} {ci(c.pearson_ci)} {ci(c.pearson_fisher_ci)} "
                    f"{f(c.spearman)} {ci(c.spearman_ci)} {f(c.kendall)} {ci(c.kendall_ci)} "
                    f"{f(c.kendall_b)}")
            if level == "sentence":
                line += f"  {f(c.tau_bar)} {ci(c.tau_bar_ci)} {f(c.wmt.get('wmt14', math.nan))}"
            lines.append(line)
        lines.append("(* error measure, negated; tau = thesis eq. 6.23 (tau_a); "
                     + ("tau-bar = eq. 6.24 over systems per source)" if level == "sentence"
                        else "system scores from the human-scored sentences)"))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def correlation_report_elements(rows: Sequence[Correlation]) -> dict:
    """The report's ``<correlation>`` section as a nested mapping.

    ``{"correlation": [(attrs, children), ...]}``: one entry per (measure,
    human class, level); attrs ``measure``, ``human``, ``level``, ``n``,
    ``negated``; children ``pearson``/``spearman``/``kendall``/``kendall-b``
    (and at sentence level ``tau-bar`` and ``wmt-tau``), each a mapping
    ``value``, ``lower``, ``upper`` (95% bootstrap) -- ``pearson`` also
    ``fisher-lower``/``fisher-upper``. NaN means undefined.
    """
    def coef(v, c):
        return {"value": float(v), "lower": float(c[0]), "upper": float(c[1])}

    entries = []
    for c in rows:
        attrs = {"measure": c.measure, "human": c.human, "level": c.level, "n": str(c.n),
                 "negated": "true" if c.negated else "false"}
        kids: dict = {"pearson": {**coef(c.pearson, c.pearson_ci),
                                  "fisher-lower": float(c.pearson_fisher_ci[0]),
                                  "fisher-upper": float(c.pearson_fisher_ci[1])},
                      "spearman": coef(c.spearman, c.spearman_ci),
                      "kendall": coef(c.kendall, c.kendall_ci),
                      "kendall-b": coef(c.kendall_b, c.kendall_b_ci)}
        if c.level == "sentence":
            kids["tau-bar"] = coef(c.tau_bar, c.tau_bar_ci)
            kids["wmt-tau"] = {k: float(v) for k, v in c.wmt.items()}
        entries.append((attrs, kids))
    return {"correlation": entries}
