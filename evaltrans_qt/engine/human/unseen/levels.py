"""Segment-level against sentence-level judgements of the same sentences (Macháček §3.1.2).

Pairs: every decisive (non-tied) segment-level comparison of two systems -- SegRanks
annotations expanded to systems (§3.1, ``engine.ranking.segment_rankings``) -- is set
against every decisive sentence-level comparison of the same two systems on the same
sentence (whole-sentence ``rank`` tasks, ``engine.ranking.rankings``). Concordant when
they prefer the same system, discordant otherwise; ties are not considered (§3.1.2):

    τ = (|Concordant| - |Discordant|) / (|Concordant| + |Discordant|)

Per system, Table 3.2: (a) on the sentence-level comparisons the system *won*, (b) those
it *lost*, (c) all comparisons including it. Sentences are the database's positions
(positional sources); several judgements of a pair on a sentence all take part (every segment
comparison against every sentence comparison).

Disagreement quotient (§3.1.2) of system s on sentence n:

    q_d(s, n) = [win_seg / (win_seg + loss_seg)] / [win_sent / (win_sent + loss_sent)]

defined when both levels have a decisive comparison of s on n; +inf when s lost every
sentence-level comparison but won some segment-level one; undefined (left out) when
it won none at either level. High q_d: ranked high on segments, low as a sentence --
the candidates §3.1.2 lists (a badly translated predicate outside every segment).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.human.ranking import (
    RANK_CLASS,
    Ranking,
    pairwise,
    rankings,
    segment_rankings,
)
from evaltrans_qt.errors import OptionError


def _tau(c: int, d: int) -> float:
    return (c - d) / (c + d) if c + d else math.nan


@dataclass(frozen=True)
class TauRow:
    """Kendall τ of one system (Table 3.2): concordant/discordant pair counts of the
    comparisons it won (a), lost (b) and all of them (c)."""

    system: str
    better: tuple[int, int]
    worse: tuple[int, int]

    @property
    def all(self) -> tuple[int, int]:
        return (self.better[0] + self.worse[0], self.better[1] + self.worse[1])

    @property
    def tau_better(self) -> float:
        return _tau(*self.better)

    @property
    def tau_worse(self) -> float:
        return _tau(*self.worse)

    @property
    def tau_all(self) -> float:
        return _tau(*self.all)


@dataclass(frozen=True)
class Disagreement:
    """q_d(s, n) of one candidate sentence, with its win/loss counts at both levels."""

    system: str
    source_index: int
    quotient: float
    seg: tuple[int, int]
    sent: tuple[int, int]


@dataclass
class LevelAgreement:
    """τ overall and per system (Table 3.2) and the disagreement quotients (§3.1.2)."""

    concordant: int
    discordant: int
    rows: list[TauRow] = field(default_factory=list)
    quotients: list[Disagreement] = field(default_factory=list)
    sentences: int = 0

    @property
    def tau(self) -> float:
        return _tau(self.concordant, self.discordant)

    def table(self, which: str = "all") -> list[tuple[str, float]]:
        """Systems by descending τ of ``which`` = better | worse | all (Tables 3.2a-c)."""
        key = {"better": "tau_better", "worse": "tau_worse", "all": "tau_all"}[which]
        vals = [(r.system, getattr(r, key)) for r in self.rows]
        return sorted(vals, key=lambda x: (math.isnan(x[1]), -x[1] if not math.isnan(x[1]) else 0,
                                           x[0]))

    def to_dict(self, top: int = 10) -> dict:
        def c(v: float) -> float | str | None:
            return v if math.isfinite(v) else ("inf" if v == math.inf else None)
        return {"tau": c(self.tau), "concordant": self.concordant,
                "discordant": self.discordant, "sentences": self.sentences,
                "systems": [{"system": r.system, "tau_better": c(r.tau_better),
                             "tau_worse": c(r.tau_worse), "tau_all": c(r.tau_all),
                             "better": list(r.better), "worse": list(r.worse)}
                            for r in self.rows],
                "disagreement": [{"system": q.system, "sentence": q.source_index + 1,
                                  "quotient": c(q.quotient), "seg": list(q.seg),
                                  "sent": list(q.sent)} for q in self.quotients[:top]]}


def _decisive(rks: Iterable[Ranking]) -> dict[int, list[tuple[str, str, int]]]:
    """{sentence: [(a, b, +1 a better / -1 b better)]} without ties."""
    out: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    for r in rks:
        for a, b, c in pairwise(r):
            if c and a != b:
                out[r.source].append((a, b, c))
    return out


def level_agreement(db: Database, cls: str = RANK_CLASS) -> LevelAgreement:
    """Segment vs sentence level (module doc). :class:`OptionError` if either level has
    no judgements."""
    seg = _decisive(segment_rankings(db))
    sent = _decisive(rankings(db, cls) if db.has_class(cls) else [])
    if not seg:
        raise OptionError("the database has no ranked short segments (SegRanks annotations)")
    if not sent:
        raise OptionError(f"the database has no whole-sentence rankings (score class {cls!r}); "
                          "import them with 'evaltrans ranking import-wmt' or rank sentences")
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])   # better C, D, worse C, D
    total_c = total_d = 0
    quot: list[Disagreement] = []
    both = sorted(set(seg) & set(sent))
    for n in both:
        # per ordered pair: [count a better, count b better] at each level
        s_cnt: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        for a, b, c in seg[n]:
            key = (a, b) if a < b else (b, a)
            s_cnt[key][0 if (c > 0) == (a < b) else 1] += 1
        t_cnt: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        for a, b, c in sent[n]:
            key = (a, b) if a < b else (b, a)
            t_cnt[key][0 if (c > 0) == (a < b) else 1] += 1
        wl: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # seg w, l, sent w, l
        for (a, b), (sa, sb) in s_cnt.items():
            wl[a][0] += sa
            wl[a][1] += sb
            wl[b][0] += sb
            wl[b][1] += sa
        for (a, b), (ta, tb) in t_cnt.items():
            wl[a][2] += ta
            wl[a][3] += tb
            wl[b][2] += tb
            wl[b][3] += ta
            sa, sb = s_cnt.get((a, b), (0, 0))
            conc, disc = sa * ta + sb * tb, sa * tb + sb * ta
            total_c += conc
            total_d += disc
            # a won at sentence level ta times: concordant = segment comparisons a won
            per[a][0] += sa * ta
            per[a][1] += sb * ta
            per[a][2] += sb * tb
            per[a][3] += sa * tb
            per[b][0] += sb * tb
            per[b][1] += sa * tb
            per[b][2] += sa * ta
            per[b][3] += sb * ta
        for s, (sw, sl, tw, tl) in wl.items():
            if sw + sl == 0 or tw + tl == 0:
                continue
            r_seg, r_sent = sw / (sw + sl), tw / (tw + tl)
            if r_sent == 0:
                if r_seg == 0:
                    continue
                q = math.inf
            else:
                q = r_seg / r_sent
            quot.append(Disagreement(s, n, q, (sw, sl), (tw, tl)))
    rows = [TauRow(s, (v[0], v[1]), (v[2], v[3])) for s, v in sorted(per.items())]
    quot.sort(key=lambda q: (-q.quotient, q.source_index, q.system))
    return LevelAgreement(total_c, total_d, rows, quot, len(both))
