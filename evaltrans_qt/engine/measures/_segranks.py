"""The hook through which a measure reads the database's SegRanks annotations
(Macháček §3.2.3, §3.3.2: SEGRANKSBLEU, EXACTMATCH, PENALIZEUNKNOWN).

A :class:`Segment` knows its candidate and references, not its source, so a measure
that needs the ranked short segments of the sentence gets them through
:meth:`DatabaseMeasure.bind_database`: the driver (``engine/run/driver.py``) calls it with
the database being evaluated, before :meth:`~Measure.fit`, on every measure that has
it. It builds an index from a sentence's reference texts (the tuple
``Segment.ref_texts`` holds, and each tuple with one reference left out, as a
reference evaluated as a system sees them) to the annotated segments of every source
with the same *text* (pooled, ``engine/human/unseen/annotated.py``). Sources whose
reference sets are identical but whose texts differ share the union of their
segments. The index is plain data, so the fitted measure pickles to worker
processes with it. Without a bound database, :meth:`fit` raises :class:`OptionError`.

These measures are opt-in (``default_enabled = False``): ``--measures exactmatch``.
A system whose own candidate segments are in the database is scored on its own
annotations; ``evaltrans unseen --leave-one-out`` gives the honest estimate.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaltrans_qt.engine.measures.base import Measure, Segment
from evaltrans_qt.engine.text.preprocess import Vocabulary
from evaltrans_qt.errors import OptionError


def segment_index(db) -> dict[tuple[str, ...], list]:
    """{reference texts: pooled annotated segments} of ``db`` (module doc)."""
    from evaltrans_qt.engine.human.unseen.annotated import annotated_segments, pooled_by_text
    pooled = pooled_by_text(db, annotated_segments(db))
    out: dict[tuple[str, ...], list] = {}
    for src in db.sources:
        segs = pooled.get(src.text)
        if not segs:
            continue
        refs = tuple(r.text for r in db.references(src))
        keys = {refs} | {refs[:j] + refs[j + 1:] for j in range(len(refs))}
        for key in keys:
            have = out.setdefault(key, [])
            have.extend(s for s in segs if not any(s is x for x in have))
    return out


class DatabaseMeasure(Measure):
    """A measure that reads the ranked short segments of the evaluated database."""

    default_enabled = False

    def __init__(self, options=None) -> None:
        super().__init__(options)
        self.annotations: dict[tuple[str, ...], list] | None = None

    def bind_database(self, db) -> None:
        """Index ``db``'s annotated segments (module doc); called by the driver."""
        self.annotations = segment_index(db)

    def fit(self, segments: Sequence[Segment], vocab: Vocabulary) -> None:
        super().fit(segments, vocab)
        if self.annotations is None:
            raise OptionError(f"{self.name.upper()} reads the SegRanks annotations of the "
                              "database: evaluate a database (evaltrans batch / correlate), "
                              "or call bind_database(db) first")
        if not self.annotations:
            raise OptionError(f"{self.name.upper()} needs ranked short segments (SegRanks "
                              "annotations) in the database; it has none")

    def segments_of(self, seg: Segment) -> list:
        """The annotated segments of ``seg``'s sentence (empty if it has none)."""
        return (self.annotations or {}).get(tuple(seg.ref_texts), [])
