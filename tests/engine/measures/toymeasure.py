"""Test-only measures (off by default) so driver/report/CLI tests do not depend on
the real measures: ``tlen`` (an error-rate-shaped toy distance with a flag column)
and ``tgram`` (BLEU-shaped details: nested mapping and ``<n-gram n>`` lists).
"""

from __future__ import annotations

import numpy as np

from evaltrans_qt.engine.data.database import Database
from evaltrans_qt.engine.measures import MEASURES, Measure, MeasureScore, register
from evaltrans_qt.engine.measures.base import error_rate_details


def _register(cls):
    # tolerate a second import of this module under another name
    return MEASURES[cls.name] if cls.name in MEASURES else register(cls)


@_register
class LengthDistance(Measure):
    """d = min_r |I - L_r| (a toy distance), L* = mean reference length; flags long candidates.

    Also records how many references it saw and the fitted reference count.
    """

    name = "tlen"
    long_name = "Length difference (test only)"
    report_element = "tlen"
    default_enabled = False

    def fit(self, segments, vocab):
        super().fit(segments, vocab)
        self.n_fit_refs = sum(len(s.refs) for s in segments)

    @property
    def stat_names(self):
        return ["distance", "reference-length", "references", "flag:long"]

    def sentence_stats(self, seg):
        lens = [len(r) for r in seg.refs]
        d = min(abs(len(seg.hyp) - L) for L in lens)
        return np.array([d, sum(lens) / len(lens), len(lens), float(len(seg.hyp) > 3)])

    def score(self, stats):
        det = error_rate_details(stats[0], stats[1])
        return MeasureScore(self.name, det["error-rate"], {"TLEN": det["error-rate"]}, det)

    def reference_distances(self, seg):
        return [float(abs(len(seg.hyp) - len(r))) for r in seg.refs]



@_register
class GramMatches(Measure):
    """Unigram/bigram matches with the first reference; details shaped like BLEU's."""

    name = "tgram"
    long_name = "Toy m-gram precision (test only)"
    report_element = "tgram"
    higher_is_better = True
    default_enabled = False

    @property
    def stat_names(self):
        return ["hyp-len", "match1", "total1", "match2", "total2"]

    def sentence_stats(self, seg):
        h, r = list(seg.hyp), list(seg.refs[0])
        m1 = sum(min(h.count(w), r.count(w)) for w in set(h))
        hb, rb = list(zip(h, h[1:])), list(zip(r, r[1:]))
        m2 = sum(min(hb.count(b), rb.count(b)) for b in set(hb))
        return np.array([len(h), m1, len(h), m2, len(hb)], dtype=float)

    def score(self, stats):
        p = [stats[1] / stats[2] if stats[2] else 0.0, stats[3] / stats[4] if stats[4] else 0.0]
        value = (p[0] * p[1]) ** 0.5
        det = {"score": value, "parts": {"length": float(stats[0]), "inner": {"x": 1.5}},
               "n-gram": [({"n": n + 1}, {"precision": p[n], "matches": float(stats[1 + 2 * n])})
                          for n in range(2)]}
        return MeasureScore(self.name, value, {"TGRAM": value, "P1": p[0]}, det)


def small_db() -> Database:
    db = Database()
    srcs = ["s one", "s two", "s three", "s four", "s five"]
    refs = [["a b c", "a b c d"], ["x y", "x y z"], ["p q r s t", "p q"], ["k", "k l"],
            ["m n o", "m n o"]]
    hyps = {"A": ["a b c", "x", "p q r s t u", "k l m n", "m n o"],
            "B": ["a", "x y z w", "p", "k", "m n"]}
    for i, s in enumerate(srcs):
        src = db.add_source(s)
        for j, r in enumerate(refs[i]):
            db.add_target(src, r, f"ref-{j}", reference=True)
        for sysname, lines in hyps.items():
            db.add_target(src, lines[i], sysname)
    return db


