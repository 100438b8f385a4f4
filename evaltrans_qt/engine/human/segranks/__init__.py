"""SegRanks: relative ranking of short segments (Macháček ch. 2-3), Qt-free.

The pipeline and the API the ranking screens are built on:

* ``tree``: :class:`Node` and :func:`extract_segments` -- Algorithm 1 (Macháček §2);
* ``projection``: :func:`project` a source segment onto a candidate through a word
  alignment, :func:`symmetrize` two directional alignments;
* ``extract``: :func:`extract_database` -- trees + alignments -> merged candidate
  segments of every sentence (Macháček §2.1), stored on the sources;
* ``model``: :class:`SentenceSegments` (segments, merged candidates with their systems,
  rankings) read with :func:`sentence_segments`;
* ``sessions``: :func:`record_segment_ranking` (one screen: every segment of a sentence,
  judge, time, seconds), :func:`record_sentence_ranking` (whole candidates, WMT style),
  :class:`PairSampler` (N candidates per source, pairs compared evenly),
  :func:`unranked` (the sentences a judge has still to rank);
* system scores, agreement and annotator statistics live with the other ranking code:
  ``engine/human/ranking.py`` (:func:`~evaltrans_qt.engine.human.ranking.expand`,
  :func:`~evaltrans_qt.engine.human.ranking.database_rank_scores`) and ``engine/human/agreement.py``
  (:func:`~evaltrans_qt.engine.human.agreement.segment_kappa`,
  :func:`~evaltrans_qt.engine.human.agreement.annotator_statistics`).

Files (trees, alignments, the extracted-segments TSV, the SegRanks JSON, WMT judgement
CSV, the ``<segranks>`` database element) are read and written by ``io/segranks/``; the
journal entries that make screens crash-proof and undoable are in
``io/segranks/changes.py``.
"""

from __future__ import annotations

from evaltrans_qt.engine import lazy_exports

_EXPORTS = {
    "Node": "tree", "extract_segments": "tree", "uncovered": "tree",
    "DEFAULT_MIN_LENGTH": "tree", "DEFAULT_MAX_LENGTH": "tree",
    "project": "projection", "symmetrize": "projection", "links_by_source": "projection",
    "extract_database": "extract", "ExtractionSummary": "extract",
    "SentenceSegments": "model", "SourceSegment": "model", "CandidateSegment": "model",
    "SegmentRanking": "model", "sentence_segments": "model",
    "set_sentence_segments": "model", "merge_candidates": "model", "source_tokens": "model",
    "record_segment_ranking": "sessions", "remove_segment_ranking": "sessions",
    "restore_segment_ranking": "sessions", "record_sentence_ranking": "sessions",
    "PairSampler": "sessions", "unranked": "sessions",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
